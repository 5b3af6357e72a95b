// The Tuning panel (see tuning_run_view.h).
#include "views/tuning_run_view.h"

#include <QComboBox>
#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

#include "views/empty_state_widget.h"
#include "views/theme.h"
#include "views/tuning_controller.h"
#include "views/tuning_models.h"

namespace lowerscope {

using unity::tuner::RunStatus;

namespace {

QChart* makeChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setAnimationOptions(QChart::NoAnimation); // redrawn several times a second
  return chart;
}

/// Step-shaped points of a best-so-far curve: the value holds until the next
/// improvement.
QList<QPointF> stepPoints(const std::vector<TuningCurvePoint>& curve, bool time, double scale) {
  QList<QPointF> pts;
  for (size_t i = 0; i < curve.size(); ++i) {
    const double x = time ? curve[i].seconds : double(curve[i].trial);
    if (i > 0)
      pts.append(QPointF(x, curve[i - 1].value * scale));
    pts.append(QPointF(x, curve[i].value * scale));
  }
  return pts;
}

/// A round upper bound for an axis (1, 2, 5 x 10^k), at least `minimum`.
double niceCeiling(double v, double minimum) {
  v = std::max(v, minimum);
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v)
      return m * p;
  return 10 * p;
}

/// The value range of best-so-far lines, padded and rounded to two
/// significant digits. Not from zero: the interesting part of a converging
/// curve is a few percent wide.
std::pair<double, double> valueRange(double lo, double hi) {
  if (!(hi > 0))
    return {0, 1};
  if (!(lo > 0) || lo > hi)
    lo = hi;
  double span = std::max(hi - lo, hi * 0.05);
  double low = std::max(0.0, lo - span * 0.25), high = hi + span * 0.25;
  const double step = std::pow(10.0, std::floor(std::log10(high - low)) - 1);
  return {std::floor(low / step) * step, std::ceil(high / step) * step};
}

/// The unit the model's latency reads best in: (scale from seconds, name).
std::pair<double, QString> latencyUnit(double seconds) {
  if (seconds < 1e-3)
    return {1e6, QStringLiteral("us")};
  if (seconds < 1)
    return {1e3, QStringLiteral("ms")};
  return {1, QStringLiteral("s")};
}

void styleChart(QChart* chart, const QPalette& pal) {
  chart->setBackgroundBrush(pal.base());
  chart->setTitleBrush(pal.text());
  chart->legend()->setLabelColor(pal.color(QPalette::Text));
  for (QAbstractAxis* axis : chart->axes()) {
    axis->setLabelsColor(pal.color(QPalette::Text));
    axis->setTitleBrush(pal.text());
    axis->setGridLineColor(pal.color(QPalette::Mid));
    axis->setLinePenColor(pal.color(QPalette::Mid));
  }
}

} // namespace

TuningRunView::TuningRunView(QWidget* parent) : QWidget(parent) {
  watcher_ = new TuningWatcher(this);
  tasks_ = new TuningTaskModel(this);
  runs_ = new TuningRunsModel(this);

  stack_ = new QStackedWidget(this);
  empty_ = new EmptyStateWidget(
      tr("Tuning"),
      tr("Tuning runs will appear here: build a model, then Build > Tune... to start a run, or "
         "File > Open Tuning Database... to see the runs of a database (runs of "
         "lowerscope-cli tune show up live)."),
      stack_);
  stack_->addWidget(empty_);

  auto* page = new QWidget(stack_);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(6, 6, 6, 6);

  auto* header = new QHBoxLayout;
  title_ = new QLabel(page);
  title_->setObjectName(QStringLiteral("tuningTitle"));
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header->addWidget(title_, 1);
  pause_ = new QPushButton(tr("Pause"), page);
  pause_->setObjectName(QStringLiteral("tuningPause"));
  cancel_ = new QPushButton(tr("Cancel"), page);
  cancel_->setObjectName(QStringLiteral("tuningCancel"));
  resume_ = new QPushButton(tr("Resume"), page);
  resume_->setObjectName(QStringLiteral("tuningResume"));
  pause_->setToolTip(tr("Pause between two candidates (no measurement runs while paused)"));
  cancel_->setToolTip(tr("Finish the batch being measured and stop; the run can be resumed later"));
  resume_->setToolTip(tr("Continue this run to its trial budget (lowerscope-cli tune --resume)"));
  header->addWidget(pause_);
  header->addWidget(cancel_);
  header->addWidget(resume_);
  layout->addLayout(header);

  auto* progressRow = new QHBoxLayout;
  progress_ = new QProgressBar(page);
  progress_->setObjectName(QStringLiteral("tuningProgress"));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  progressRow->addWidget(progress_, 2);
  state_ = new QLabel(page);
  state_->setObjectName(QStringLiteral("tuningState"));
  progressRow->addWidget(state_, 3);
  layout->addLayout(progressRow);

  config_ = new QLabel(page);
  config_->setWordWrap(true);
  config_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  config_->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(config_);

  auto* vertical = new QSplitter(Qt::Vertical, page);
  auto* horizontal = new QSplitter(Qt::Horizontal, vertical);

  sortedTasks_ = new QSortFilterProxyModel(this);
  sortedTasks_->setSourceModel(tasks_);
  sortedTasks_->setSortRole(TuningTaskModel::SortRole);
  table_ = new QTableView(horizontal);
  table_->setObjectName(QStringLiteral("tuningTasks"));
  table_->setModel(sortedTasks_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder); // the run's order until a header is clicked
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  auto* charts = new QWidget(horizontal);
  auto* chartsLayout = new QVBoxLayout(charts);
  chartsLayout->setContentsMargins(0, 0, 0, 0);
  auto* axisRow = new QHBoxLayout;
  axisRow->addWidget(new QLabel(tr("Best so far against"), charts));
  axisChoice_ = new QComboBox(charts);
  axisChoice_->setObjectName(QStringLiteral("tuningAxis"));
  axisChoice_->addItem(tr("trials"));
  axisChoice_->addItem(tr("time (s)"));
  axisRow->addWidget(axisChoice_);
  axisRow->addStretch(1);
  chartsLayout->addLayout(axisRow);
  auto* chartRow = new QHBoxLayout;
  taskChart_ = makeChart(tr("Per task: best GFLOP/s"));
  modelChart_ = makeChart(tr("Whole model: latency"));
  modelChart_->setToolTip(tr("Sum over the tasks of weight x best latency: the kernel time of one "
                             "model run"));
  taskChartView_ = new QChartView(taskChart_, charts);
  modelChartView_ = new QChartView(modelChart_, charts);
  // The per-task chart carries a legend entry per task: it gets more room.
  for (QChartView* v : {taskChartView_, modelChartView_}) {
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumSize(220, 200);
    chartRow->addWidget(v, v == taskChartView_ ? 3 : 2);
  }
  chartsLayout->addLayout(chartRow, 1);
  horizontal->addWidget(table_);
  horizontal->addWidget(charts);
  // The table's figures must be readable without scrolling: it gets close
  // to half the width (its columns fit in about 650 pixels).
  horizontal->setStretchFactor(0, 1);
  horizontal->setStretchFactor(1, 1);
  horizontal->setSizes({660, 620});

  auto* historyBox = new QWidget(vertical);
  auto* historyLayout = new QVBoxLayout(historyBox);
  historyLayout->setContentsMargins(0, 4, 0, 0);
  historyLayout->addWidget(
      new QLabel(tr("History: runs of this database (double-click to show one)"), historyBox));
  history_ = new QTableView(historyBox);
  history_->setObjectName(QStringLiteral("tuningHistory"));
  history_->setModel(runs_);
  history_->setSelectionBehavior(QAbstractItemView::SelectRows);
  history_->setSelectionMode(QAbstractItemView::SingleSelection);
  history_->verticalHeader()->hide();
  history_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  history_->horizontalHeader()->setStretchLastSection(true);
  historyLayout->addWidget(history_);
  vertical->addWidget(horizontal);
  vertical->addWidget(historyBox);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 1);
  layout->addWidget(vertical, 1);
  // In a small dock the page scrolls rather than forcing the window's
  // minimum size up (it shares the bottom area with the pass timeline).
  auto* scroll = new QScrollArea(stack_);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidgetResizable(true);
  scroll->setWidget(page);
  stack_->addWidget(scroll);

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack_);

  connect(watcher_, &TuningWatcher::snapshotReady, this,
          [this](const TuningSnapshotPtr& s) { apply(s); });
  connect(axisChoice_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setXAxis(i == 1 ? XAxis::Time : XAxis::Trials); });
  connect(history_, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
    if (const unity::tuner::Run* r = runs_->run(index.row()))
      showRun(r->id);
  });
  connect(pause_, &QPushButton::clicked, this, &TuningRunView::onPauseClicked);
  connect(cancel_, &QPushButton::clicked, this, &TuningRunView::onCancelClicked);
  connect(resume_, &QPushButton::clicked, this, &TuningRunView::onResumeClicked);
  clock_ = new QTimer(this);
  clock_->setInterval(1000);
  connect(clock_, &QTimer::timeout, this, &TuningRunView::updateStateLine);
  connect(Theme::instance(), &Theme::changed, this, [this] {
    styleChart(taskChart_, palette());
    styleChart(modelChart_, palette());
  });
  updateControls();
}

TuningRunView::~TuningRunView() = default;

void TuningRunView::setController(TuningController* controller) {
  if (controller_)
    disconnect(controller_, nullptr, this, nullptr);
  controller_ = controller;
  if (controller_) {
    connect(controller_, &TuningController::stateChanged, this, [this] {
      updateControls();
      updateStateLine();
      watcher_->refresh();
    });
    connect(controller_, &TuningController::runStarted, this,
            [this](qint64 runId, const QString& database) {
              // A run started here is shown at once, whatever was shown.
              showDatabase(database, runId);
            });
  }
  updateControls();
}

void TuningRunView::showDatabase(const QString& database, int64_t runId) {
  const QString path = QFileInfo(database).absoluteFilePath();
  if (path == watcher_->path() && runId == watcher_->runId() && runId != 0) {
    watcher_->refresh();
    return;
  }
  snapshot_.reset();
  tasks_->setSnapshot(nullptr);
  watcher_->watch(path, runId);
  stack_->setCurrentIndex(1);
  title_->setText(tr("Reading %1...").arg(QFileInfo(path).fileName()));
  updateCharts();
  updateControls();
}

void TuningRunView::showRun(int64_t runId) {
  if (!watcher_->path().isEmpty())
    showDatabase(watcher_->path(), runId);
}

QString TuningRunView::database() const { return watcher_->path(); }

int64_t TuningRunView::shownRun() const { return snapshot_ ? snapshot_->runId : 0; }

bool TuningRunView::isShowingDatabase() const { return stack_->currentIndex() == 1; }

void TuningRunView::setXAxis(XAxis axis) {
  xAxis_ = axis;
  if (axisChoice_->currentIndex() != (axis == XAxis::Time ? 1 : 0))
    axisChoice_->setCurrentIndex(axis == XAxis::Time ? 1 : 0);
  updateCharts();
}

void TuningRunView::apply(const TuningSnapshotPtr& snapshot) {
  snapshot_ = snapshot;
  snapshotAtMs_ = QDateTime::currentMSecsSinceEpoch();
  tasks_->setSnapshot(snapshot);
  const bool anySubTarget =
      std::any_of(snapshot->tasks.begin(), snapshot->tasks.end(),
                  [](const TuningTaskRow& t) { return !t.subTarget.isEmpty(); });
  table_->setColumnHidden(TuningTaskModel::SubTarget, !anySubTarget);
  const int64_t selected = [&] {
    const QModelIndex i = history_->currentIndex();
    const unity::tuner::Run* r = i.isValid() ? runs_->run(i.row()) : nullptr;
    return r ? r->id : int64_t(0);
  }();
  runs_->setSnapshot(snapshot);
  const int row = runs_->rowOf(snapshot->runId ? snapshot->runId : selected);
  if (row >= 0 && history_->currentIndex().row() != row)
    history_->setCurrentIndex(runs_->index(row, 0));
  const QString file = QFileInfo(snapshot->databasePath).fileName();
  if (!snapshot->error.isEmpty())
    title_->setText(tr("%1: %2").arg(file, snapshot->error));
  else if (!snapshot->run)
    title_->setText(tr("%1: no runs yet").arg(file));
  else
    title_->setText(tr("Run %1 of %2").arg(snapshot->runId).arg(file));
  title_->setToolTip(snapshot->databasePath);
  config_->setText(snapshot->configSummary);
  if (snapshot->run) {
    progress_->setRange(0, int(std::max<int64_t>(1, snapshot->run->trialsPlanned)));
    progress_->setValue(int(std::min(snapshot->run->trialsDone, snapshot->run->trialsPlanned)));
    progress_->setFormat(QStringLiteral("%v / %m trials"));
  } else {
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(QString());
  }
  const bool running = snapshot->run && snapshot->run->status == RunStatus::Running;
  if (running)
    clock_->start();
  else
    clock_->stop();
  updateStateLine();
  // The charts are the costly part of a snapshot on the UI thread: a panel
  // tabbed away redraws them when it is shown again.
  if (isVisible())
    updateCharts();
  else
    chartsStale_ = true;
  updateControls();
  Q_EMIT updated();
}

bool TuningRunView::ownRun() const {
  return snapshot_ && snapshot_->run && controller_ && controller_->isActive() &&
         controller_->runId() == snapshot_->runId &&
         QFileInfo(controller_->database()).absoluteFilePath() == watcher_->path();
}

bool TuningRunView::attachedRun() const {
  return snapshot_ && snapshot_->run && snapshot_->run->status == RunStatus::Running &&
         snapshot_->liveness == unity::tuner::ProcessLiveness::Alive && !ownRun();
}

void TuningRunView::updateStateLine() {
  if (!snapshot_ || !snapshot_->run) {
    state_->clear();
    return;
  }
  const unity::tuner::Run& run = *snapshot_->run;
  const bool running = run.status == RunStatus::Running;
  const bool interrupted = snapshot_->interrupted();
  const bool ours = ownRun();
  using S = TuningController::State;
  const bool paused =
      ours ? controller_->state() == S::Paused : run.control == unity::tuner::RunControl::Paused;
  QString status = runStateText(run, snapshot_->liveness);
  if (paused)
    status = tr("paused");
  else if (ours ? controller_->state() == S::Cancelling
                : run.control == unity::tuner::RunControl::Cancelling || cancelAsked_ == run.id)
    status = tr("cancelling after this batch");
  double elapsed = snapshot_->elapsedSeconds;
  double eta = snapshot_->etaSeconds;
  if (running && !paused && !interrupted) {
    // Between snapshots the clock goes on.
    const double since = double(QDateTime::currentMSecsSinceEpoch() - snapshotAtMs_) / 1000.0;
    const QDateTime started =
        QDateTime::fromString(QString::fromStdString(run.startedAt), Qt::ISODateWithMs);
    if (started.isValid())
      elapsed = std::max(elapsed, double(started.msecsTo(QDateTime::currentDateTimeUtc())) / 1e3);
    if (eta > 0)
      eta = std::max(0.0, eta - since);
  }
  QString text = tr("%1 · elapsed %2").arg(status, formatDuration(elapsed));
  if (running && !interrupted)
    text += eta >= 0 ? tr(" · ETA %1").arg(formatDuration(eta)) : tr(" · ETA: after a few trials");
  if (snapshot_->records > 0)
    text += tr(" · %1 ok, %2 failed")
                .arg(snapshot_->okRecords)
                .arg(snapshot_->records - snapshot_->okRecords);
  if (!snapshot_->modelCurve.empty()) {
    const double first = snapshot_->modelCurve.front().value;
    const double best = snapshot_->modelCurve.back().value;
    text += tr(" · model %1 (first %2, %3x)")
                .arg(formatSeconds(best), formatSeconds(first))
                .arg(first / best, 0, 'f', 2);
  }
  if (running && !ours) {
    const qint64 pid = run.process ? qint64(run.process->pid) : 0;
    switch (snapshot_->liveness) {
    case unity::tuner::ProcessLiveness::Alive:
      text += tr(" · started by another process (pid %1)").arg(pid);
      break;
    case unity::tuner::ProcessLiveness::Gone:
      text += tr(" · its process (pid %1) ended without finishing; Resume continues it").arg(pid);
      break;
    case unity::tuner::ProcessLiveness::OtherHost:
      text +=
          tr(" · started by another process, on %1").arg(QString::fromStdString(run.process->host));
      break;
    case unity::tuner::ProcessLiveness::Unknown:
      text += tr(" · started by another process");
      break;
    }
  }
  state_->setText(text);
}

void TuningRunView::updateControls() {
  const bool haveRun = snapshot_ && snapshot_->run;
  if (!haveRun || snapshot_->run->status != RunStatus::Running)
    cancelAsked_ = 0;
  const bool ours = ownRun();
  const bool attached = attachedRun();
  using S = TuningController::State;
  const S st = controller_ ? controller_->state() : S::Idle;
  const auto control = haveRun ? snapshot_->run->control : unity::tuner::RunControl::None;
  const bool paused =
      ours ? st == S::Paused : attached && control == unity::tuner::RunControl::Paused;
  const bool steerable = ours ? (st == S::Running || st == S::Paused)
                              : attached && control != unity::tuner::RunControl::Cancelling &&
                                    cancelAsked_ != snapshot_->runId;
  pause_->setEnabled(steerable);
  pause_->setText(paused ? tr("Continue") : tr("Pause"));
  cancel_->setEnabled(steerable);
  // Resume: a run that stopped before its budget, or whose process died
  // without finishing it, when no run of ours is active.
  const bool stoppedEarly =
      haveRun && (snapshot_->run->status != RunStatus::Running || snapshot_->interrupted()) &&
      snapshot_->run->config.is_object() && snapshot_->run->config.contains("model") &&
      (snapshot_->run->status != RunStatus::Finished ||
       snapshot_->run->trialsDone < snapshot_->run->trialsPlanned);
  resume_->setEnabled(stoppedEarly && controller_ && !controller_->isActive());
}

void TuningRunView::onPauseClicked() {
  if (ownRun()) {
    if (controller_->state() == TuningController::State::Paused)
      controller_->unpause();
    else
      controller_->pause();
    return;
  }
  if (!attachedRun())
    return;
  // The process confirms by writing `control`, which the watcher reads.
  QString error;
  const bool paused = snapshot_->run->control == unity::tuner::RunControl::Paused;
  if (!TuningController::signalRun(
          *snapshot_->run,
          paused ? TuningController::Signal::Continue : TuningController::Signal::Pause, &error))
    state_->setText(error);
  watcher_->refresh();
}

void TuningRunView::onCancelClicked() {
  if (ownRun()) {
    controller_->cancel();
  } else if (attachedRun()) {
    QString error;
    if (TuningController::signalRun(*snapshot_->run, TuningController::Signal::Cancel, &error))
      cancelAsked_ = snapshot_->runId;
    else
      state_->setText(error);
    watcher_->refresh();
  }
  updateControls();
  updateStateLine();
}

void TuningRunView::onResumeClicked() {
  if (!controller_ || !snapshot_ || !snapshot_->run)
    return;
  QString error;
  if (!controller_->resume(watcher_->path(), snapshot_->runId, &error))
    state_->setText(error);
  updateControls();
}

void TuningRunView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (chartsStale_)
    updateCharts();
}

void TuningRunView::updateCharts() {
  chartsStale_ = false;
  const bool time = xAxis_ == XAxis::Time;
  const QString xTitle = time ? tr("seconds since the run started") : tr("trials");
  // Axes and series are kept between snapshots and only their points
  // replaced: creating series and axes is what costs on the UI thread (a
  // 20-task run took 60 ms when they were rebuilt every time).
  auto update = [&](QChart* chart, const std::vector<std::pair<QString, QList<QPointF>>>& lines,
                    const QString& yTitle) {
    QList<QAbstractSeries*> series = chart->series();
    bool same = series.size() == qsizetype(lines.size());
    for (size_t i = 0; same && i < lines.size(); ++i)
      same = series[qsizetype(i)]->name() == lines[i].first;
    QValueAxis* x = nullptr;
    QValueAxis* y = nullptr;
    for (QAbstractAxis* a : chart->axes(Qt::Horizontal))
      x = qobject_cast<QValueAxis*>(a);
    for (QAbstractAxis* a : chart->axes(Qt::Vertical))
      y = qobject_cast<QValueAxis*>(a);
    if (!x || !y) {
      x = new QValueAxis(chart);
      y = new QValueAxis(chart);
      y->setLabelFormat(QStringLiteral("%.4g"));
      x->setTickCount(5); // 0, 1/4, 1/2, 3/4 and all of a budget of trials
      y->setTickCount(6);
      chart->addAxis(x, Qt::AlignBottom);
      chart->addAxis(y, Qt::AlignLeft);
      same = false;
    }
    x->setTitleText(xTitle);
    y->setTitleText(yTitle);
    x->setLabelFormat(time ? QStringLiteral("%.0f") : QStringLiteral("%d"));
    if (!same) {
      chart->removeAllSeries();
      for (auto& [name, pts] : lines) {
        auto* s = new QLineSeries(chart);
        s->setName(name);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
      }
      series = chart->series();
    }
    double maxX = 0, maxY = 0, minY = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const QList<QPointF>& pts = lines[i].second;
      static_cast<QLineSeries*>(series[qsizetype(i)])->replace(pts);
      for (const QPointF& p : pts) {
        maxX = std::max(maxX, p.x());
        maxY = std::max(maxY, p.y());
        minY = minY == 0 ? p.y() : std::min(minY, p.y());
      }
    }
    // Against trials the axis spans the budget: the curve grows across it.
    const double planned = snapshot_ && snapshot_->run ? double(snapshot_->run->trialsPlanned) : 0;
    x->setRange(0, time ? niceCeiling(maxX, 1.0) : std::max({planned, maxX, 1.0}));
    const auto [low, high] = valueRange(minY, maxY);
    y->setRange(low, high);
    y->applyNiceNumbers(); // round ticks: 64, 80, 96 ... not 64, 77.8, 91.6
    chart->legend()->setVisible(!lines.empty() && lines.size() <= 12);
    if (!same)
      styleChart(chart, palette());
  };
  std::vector<std::pair<QString, QList<QPointF>>> taskLines, modelLines;
  if (snapshot_) {
    for (size_t i = 0; i < snapshot_->tasks.size(); ++i)
      if (i < snapshot_->taskCurves.size() && !snapshot_->taskCurves[i].empty())
        taskLines.emplace_back(snapshot_->tasks[i].name,
                               stepPoints(snapshot_->taskCurves[i], time, 1.0));
  }
  // The model's latency in the unit of its first value (us for small
  // models: "0.012 ms" reads worse than "12 us").
  const double first =
      snapshot_ && !snapshot_->modelCurve.empty() ? snapshot_->modelCurve.front().value : 1e-3;
  const auto [scale, unit] = latencyUnit(first);
  if (snapshot_ && !snapshot_->modelCurve.empty())
    modelLines.emplace_back(tr("model"), stepPoints(snapshot_->modelCurve, time, scale));
  modelChart_->setTitle(tr("Whole model: latency (%1)").arg(unit));
  update(taskChart_, taskLines, tr("GFLOP/s"));
  update(modelChart_, modelLines, tr("%1 per model run").arg(unit));
}

} // namespace lowerscope
