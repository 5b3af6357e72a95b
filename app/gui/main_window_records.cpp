// MainWindow, the tuning-records part: the Tuning Records dock (the records
// browser over any tuning database), File ▸ Open Tuning Database, View ▸
// Heat Overlay (graph nodes coloured by their kernel's tuned latency) and
// Build ▸ Apply Best Schedules, which rebuilds the model with the database
// and times the model before and after. Kept apart from main_window.cpp so
// the window's other panels evolve independently.
//
// Apply best runs in stages, each off the UI thread: a build without the
// database when there is none of the current model yet (the "before"), the
// build with it (ApplyTuningDatabase then shows in the pass timeline), and a
// BackgroundJob that runs both executables interleaved (model_latency.h).
// Measuring beats reusing the database's per-kernel figures: the records time
// kernels alone on their own inputs, while the model run includes the graph's
// glue, memory traffic between kernels and kernels nobody tuned.
#include "app/gui/main_window.h"

#include "views/background_job.h"
#include "views/graph_heat.h"
#include "views/graph_view.h"
#include "views/log_view.h"
#include "views/session.h"
#include "views/tuning_records_view.h"

#include <QSplitter>
#include <QTabWidget>

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QThread>
#include <QTimer>

namespace lowerscope {

namespace {

QMenu* findMenu(QMenuBar* bar, const QString& title) {
  for (QAction* a : bar->actions())
    if (a->menu() && a->text().remove('&') == title)
      return a->menu();
  return nullptr;
}

} // namespace

void MainWindow::createRecordsPanel() {
  recordsView_ = new TuningRecordsView;
  recordsDock_ = addPanel(tr("Tuning Records"), QStringLiteral("tuningRecordsDock"), recordsView_);
  heatJob_ = new BackgroundJob(this);
  latencyJob_ = new BackgroundJob(this);
  heatLegend_ = new HeatLegend(this);
}

void MainWindow::createRecordsActions() {
  if (QMenu* file = findMenu(menuBar(), tr("File"))) {
    QAction* open = new QAction(tr("Open &Tuning Database\u2026"), this);
    open->setObjectName("openTuningDatabaseAction");
    open->setStatusTip(tr("Open a tuning database: its runs in the Tuning panel, its records "
                          "in the records browser"));
    connect(open, &QAction::triggered, this, &MainWindow::showOpenTuningDatabaseDialog);
    // Before the Export/Quit section.
    QAction* before = nullptr;
    for (QAction* a : file->actions())
      if (a == exportAction_)
        before = a;
    file->insertAction(before, open);
  }
  heatAction_ = new QAction(tr("&Heat Overlay (Tuned Latency)"), this);
  heatAction_->setObjectName("heatOverlayAction");
  heatAction_->setCheckable(true);
  heatAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
  heatAction_->setStatusTip(tr("Colour the graph's kernels by their best tuned latency x calls, "
                               "from the open tuning database"));
  connect(heatAction_, &QAction::toggled, this, &MainWindow::setHeatOverlay);
  if (QMenu* view = findMenu(menuBar(), tr("View"))) {
    view->addSeparator();
    view->addAction(heatAction_);
  }
  applyBestAction_ = new QAction(tr("Apply &Best Schedules"), this);
  applyBestAction_->setObjectName("applyBestAction");
  applyBestAction_->setStatusTip(tr("Rebuild with the tuning database's best schedules "
                                    "(ApplyTuningDatabase) and time the model before and after"));
  connect(applyBestAction_, &QAction::triggered, this, &MainWindow::applyBest);
  noTuningAction_ = new QAction(tr("Build &Without Tuned Schedules"), this);
  noTuningAction_->setObjectName("buildWithoutTuningAction");
  noTuningAction_->setEnabled(false);
  connect(noTuningAction_, &QAction::triggered, this, [this] {
    session_->builds()->setTuningDatabase({});
    noTuningAction_->setEnabled(false);
    session_->rebuild();
  });
  if (QMenu* build = findMenu(menuBar(), tr("Build"))) {
    build->addSeparator();
    build->addAction(applyBestAction_);
    build->addAction(noTuningAction_);
  }
}

void MainWindow::connectRecords() {
  connect(recordsView_, &TuningRecordsView::loaded, this, [this](bool ok, const QString& error) {
    if (!ok) {
      log_->error(tr("Tuning database: %1").arg(error));
      heat_.reset();
      heatAction_->setChecked(false); // clears the overlay through setHeatOverlay
      graphView_->setHeat({});
      heatLegend_->hide();
      return;
    }
    log_->info(tr("Tuning database %1: %2 records")
                   .arg(QDir::toNativeSeparators(recordsView_->database()))
                   .arg(recordsView_->model()->rowCount()));
    refreshHeat();
  });
  connect(recordsView_, &TuningRecordsView::applyBestRequested, this, &MainWindow::applyBest);
  connect(heatJob_, &BackgroundJob::finished, this, [this] {
    if (applyRequested_) {
      applyRequested_ = false;
      applyBest();
    } else {
      runPendingHeat();
    }
  });
  connect(heatJob_, &BackgroundJob::failed, this,
          [this](const QString& m) { log_->error(tr("Heat overlay: %1").arg(m)); });
  connect(latencyJob_, &BackgroundJob::failed, this, [this](const QString& m) {
    applyStage_ = 0;
    latency_.error = m;
    recordsView_->setLatencyText(m);
    runPendingHeat();
  });
  connect(session_, &Session::buildFinished, this,
          [this](bool ok, const QString&) { onBuildFinishedForTuning(ok); });
  auto stale = [this] {
    plainBuild_.reset();
    refreshHeat();
  };
  connect(session_, &Session::moduleChanged, this, [this, stale] {
    // A new model starts untuned: its first build is the "before".
    session_->builds()->setTuningDatabase({});
    noTuningAction_->setEnabled(false);
    stale();
  });
  connect(session_, &Session::targetChanged, this, stale);
  connect(session_, &Session::assignmentsChanged, this, stale);
}

void MainWindow::openTuningDatabase(const QString& path) {
  recordsDock_->show();
  recordsDock_->raise();
  if (!recordsView_->openDatabase(path)) {
    // A load runs: open this one when it ends.
    connect(
        recordsView_, &TuningRecordsView::loaded, this,
        [this, path] { QTimer::singleShot(0, this, [this, path] { openTuningDatabase(path); }); },
        Qt::SingleShotConnection);
  }
}

QString MainWindow::tuningDatabase() const { return recordsView_->database(); }

bool MainWindow::heatOverlay() const { return heatAction_->isChecked(); }

void MainWindow::setHeatOverlay(bool on) {
  if (heatAction_->isChecked() != on) {
    heatAction_->setChecked(on); // comes back here through toggled
    return;
  }
  if (!on) {
    graphView_->setHeat({});
    heatLegend_->hide();
    return;
  }
  if (tuningDatabase().isEmpty()) {
    statusBar()->showMessage(tr("Open a tuning database first (File \u25b8 Open Tuning "
                                "Database\u2026)"),
                             5000);
    heatAction_->setChecked(false);
    return;
  }
  if (heat_ && heat_->error.isEmpty()) {
    graphView_->setHeat(lowerscope::heatOverlay(*heat_), heatOtherColor());
    heatLegend_->setHeat(*heat_);
    heatLegend_->attachTo(graphView_->canvas());
  } else {
    refreshHeat(); // shown when computed
  }
}

void MainWindow::runPendingHeat() {
  if (!heatPending_)
    return;
  heatPending_ = false;
  refreshHeat();
}

void MainWindow::refreshHeat() {
  const QString db = tuningDatabase();
  if (!session_->hasModule() || db.isEmpty() || !recordsView_->error().isEmpty()) {
    heat_.reset();
    return;
  }
  // One build at a time: the task extraction is a build of its own, and
  // the engine's builds are not run concurrently anywhere else either.
  if (heatJob_->isRunning() || session_->isBuilding() || applyStage_ != 0) {
    heatPending_ = true;
    return;
  }
  const unity::ir::IRModule model = session_->module();
  const unity::BuildOptions options = session_->builds()->options();
  heatJob_->start(
      [model, options, db](JobContext&) { return computeModelHeat(model, options, db); },
      [this, model](ModelHeat h) {
        if (!session_->hasModule() || !session_->module().same(model))
          return; // the model changed meanwhile; a newer job follows
        heat_ = std::make_shared<const ModelHeat>(std::move(h));
        if (!heat_->error.isEmpty()) {
          log_->warning(tr("Heat overlay: %1").arg(heat_->error));
          return;
        }
        QHash<QString, QString> names;
        for (const KernelHeat& k : heat_->kernels)
          names.insert(k.hash, k.name);
        recordsView_->setWorkloadNames(names);
        if (heatAction_->isChecked())
          setHeatOverlay(true);
      });
}

bool MainWindow::applyBest() {
  const QString db = tuningDatabase();
  if (!session_->hasModule()) {
    statusBar()->showMessage(tr("Open a model first"), 5000);
    return false;
  }
  if (db.isEmpty() || !recordsView_->error().isEmpty()) {
    statusBar()->showMessage(tr("Open a readable tuning database first"), 5000);
    return false;
  }
  if (applyStage_ != 0)
    return false;
  if (heatJob_->isRunning()) { // its build first (one build at a time)
    applyRequested_ = true;
    return true;
  }
  latency_ = {};
  if (plainBuild_ && !session_->isBuilding()) {
    applyStage_ = 2;
    session_->builds()->setTuningDatabase(db);
    recordsView_->setLatencyText(tr("Building with the best schedules\u2026"));
  } else {
    applyStage_ = 1;
    session_->builds()->setTuningDatabase({});
    recordsView_->setLatencyText(tr("Building without tuning (the \"before\")\u2026"));
  }
  session_->rebuild();
  return true;
}

void MainWindow::onBuildFinishedForTuning(bool ok) {
  if (ok && session_->builds()->tuningDatabase().isEmpty())
    plainBuild_ = session_->lastBuild();
  if (applyStage_ == 0) {
    runPendingHeat();
    return;
  }
  if (!ok) {
    applyStage_ = 0;
    latency_.error = tr("Apply best: the build failed (see the log)");
    recordsView_->setLatencyText(latency_.error);
    runPendingHeat();
    return;
  }
  if (applyStage_ == 1) {
    applyStage_ = 2;
    session_->builds()->setTuningDatabase(tuningDatabase());
    recordsView_->setLatencyText(tr("Building with the best schedules\u2026"));
    // After this signal's other receivers: the controller is between builds.
    QTimer::singleShot(0, this, [this] { session_->rebuild(); });
    return;
  }
  // Stage 2: the tuned build is there.
  applyStage_ = 3;
  noTuningAction_->setEnabled(true);
  const auto tuned = session_->lastBuild();
  const auto plain = plainBuild_;
  QStringList names;
  int kernels = 0;
  for (const auto& [name, fn] : tuned->lowered->functions)
    if (auto* f = unity::ir::as<unity::ir::PrimFunc>(fn)) {
      ++kernels;
      if (f->attrs.has("tuning_record"))
        names << QString::fromStdString(name);
    }
  log_->info(tr("ApplyTuningDatabase: %1 of %2 kernels tuned%3")
                 .arg(names.size())
                 .arg(kernels)
                 .arg(names.isEmpty() ? QString() : QStringLiteral(": ") + names.join(", ")));
  recordsView_->setLatencyText(tr("Timing the model before and after\u2026"));
  latencyJob_->start(
      [plain, tuned](JobContext& c) {
        return compareModelLatency(*plain, *tuned, 5, c.cancelFlag());
      },
      [this, n = names.size(), kernels](LatencyComparison result) {
        applyStage_ = 0;
        latency_ = result;
        const QString text = result.error.isEmpty() ? tr("Model latency %1; %2 of %3 kernels tuned")
                                                          .arg(result.text())
                                                          .arg(n)
                                                          .arg(kernels)
                                                    : result.error;
        recordsView_->setLatencyText(text);
        log_->info(tr("Apply best: %1").arg(text));
        statusBar()->showMessage(text, 10000);
        runPendingHeat();
      });
}

void MainWindow::showRecordsBrowser(bool large) {
  recordsDock_->show();
  recordsDock_->raise();
  if (!large)
    return;
  resizeDocks({recordsDock_}, {height() * 3 / 5}, Qt::Vertical);
  resizeDocks({recordsDock_, logDock_}, {width() * 7 / 8, width() / 8}, Qt::Horizontal);
  // Once the docks have their new sizes: half of the browser for the tabs.
  QTimer::singleShot(0, this, [this] {
    const int w = recordsView_->splitter()->width();
    recordsView_->splitter()->setSizes({w / 2, w - w / 2});
  });
}

QString MainWindow::describeTuning() const {
  if (tuningDatabase().isEmpty())
    return {};
  QString text = QStringLiteral("tuning database %1: ").arg(QFileInfo(tuningDatabase()).fileName());
  if (!recordsView_->error().isEmpty())
    return text + QStringLiteral("error: ") + recordsView_->error();
  int failed = 0;
  for (const TuningRecordRow& r : recordsView_->model()->snapshot().rows)
    failed += r.status != unity::tuner::RecordStatus::Ok ? 1 : 0;
  text += QStringLiteral("%1 records (%2 failed), %3 shown")
              .arg(recordsView_->model()->rowCount())
              .arg(failed)
              .arg(recordsView_->filter()->rowCount());
  if (heatOverlay() && heat_)
    text += QStringLiteral(", heat overlay: %1 of %2 kernels tuned")
                .arg(heat_->tunedCount())
                .arg(heat_->kernels.size());
  if (latency_.rounds > 0 || !latency_.error.isEmpty())
    text += QStringLiteral(", model latency %1").arg(latency_.text());
  return text;
}

bool MainWindow::waitForTuning(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < timeoutMs) {
    const int left = std::max(1, timeoutMs - int(clock.elapsed()));
    if (!recordsView_->waitForLoad(left))
      return false;
    const bool busy = heatJob_->isRunning() || heatPending_ || applyRequested_ ||
                      applyStage_ != 0 || latencyJob_->isRunning() || session_->isBuilding();
    if (!busy)
      return true;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  return false;
}

} // namespace lowerscope
