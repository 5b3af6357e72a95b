// The main window's tuning part: the Tuning panel (TuningRunView), Build >
// Tune... (TuningLaunchDialog) and File > Open Tuning Database... (shared
// with the records browser, main_window_records.cpp), wired to one
// TuningController. Runs are `lowerscope-cli tune` processes that
// outlive the panel and the window (views/tuning_controller.h); the panel
// follows the database (views/tuning_watcher.h).
#include <QAction>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPointer>
#include <QStandardPaths>

#include "app/gui/main_window.h"
#include "engine/text/printer.h"
#include "views/background_job.h"
#include "views/log_view.h"
#include "views/session.h"
#include "views/tuning_controller.h"
#include "views/tuning_launch_dialog.h"
#include "views/tuning_models.h"
#include "views/tuning_records_view.h"
#include "views/tuning_run_view.h"

namespace lowerscope {

QWidget* MainWindow::createTuningPanel() {
  tuningController_ = new TuningController(this);
  tuningView_ = new TuningRunView;
  tuningView_->setObjectName(QStringLiteral("tuningRunView"));
  tuningView_->setController(tuningController_);
  connect(tuningController_, &TuningController::outputLine, this, [this](const QString& line) {
    // The log gets the run's milestones, not its per-batch tables.
    static const QStringList kept{QStringLiteral("tuning run"),  QStringLiteral("resuming run"),
                                  QStringLiteral("tune: "),      QStringLiteral("run "),
                                  QStringLiteral("kernel time"), QStringLiteral("apply: ")};
    for (const QString& k : kept)
      if (line.startsWith(k)) {
        log_->info(line);
        return;
      }
  });
  connect(tuningController_, &TuningController::runStarted, this,
          [this](qint64, const QString& database) {
            lastTuningDatabase_ = database;
            tuningDock_->show();
            tuningDock_->raise();
          });
  connect(tuningController_, &TuningController::finished, this,
          [this](bool ok, const QString& message) {
            if (!ok)
              log_->error(tr("tuning did not run: %1").arg(message));
            // Its candidates, failures included, in the records browser
            // (not raised: the Tuning panel keeps the front).
            else if (!lastTuningDatabase_.isEmpty() &&
                     recordsView_->database() != lastTuningDatabase_)
              recordsView_->openDatabase(lastTuningDatabase_);
          });
  return tuningView_;
}

void MainWindow::createTuningActions(QMenu* build) {
  build->addSeparator();
  tuneAction_ = build->addAction(tr("&Tune..."), this, [this] { showTuneDialog(); });
  tuneAction_->setObjectName(QStringLiteral("tuneAction"));
  tuneAction_->setStatusTip(
      tr("Search faster schedules for the model's kernels; every measurement goes to a database"));
}

void MainWindow::showOpenTuningDatabaseDialog() {
  const QString start = lastTuningDatabase_.isEmpty()
                            ? TuningLaunchDialog::defaultDatabasePath(currentFile_)
                            : lastTuningDatabase_;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Tuning Database"), QFileInfo(start).path(),
                                   tr("Tuning databases (*.db *.sqlite *.sqlite3);;All files (*)"));
  if (path.isEmpty())
    return;
  // One database, both views: its runs in the Tuning panel, its records in
  // the browser (which reports a file that is not a database in place).
  openTuningDatabase(path);
  QString error;
  if (!showTuningDatabase(path, 0, &error))
    log_->error(error);
}

bool MainWindow::showTuningDatabase(const QString& database, int64_t runId, QString* error) {
  if (!QFileInfo(database).isFile()) {
    if (error)
      *error = tr("%1: no such tuning database").arg(database);
    return false;
  }
  lastTuningDatabase_ = database;
  tuningView_->showDatabase(database, runId);
  tuningDock_->show();
  tuningDock_->raise();
  return true;
}

QString MainWindow::tuningModelFile(QString* error) {
  const QString path = session_->path();
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool asIs = !path.isEmpty() && QFileInfo(path).isFile() &&
                    session_->assignments().empty() &&
                    (suffix == QLatin1String("uir") || suffix == QLatin1String("onnx"));
  if (asIs)
    return QFileInfo(path).absoluteFilePath();
  // The input with its assignments, as text IR: kept in the data folder
  // (not a temporary file) because `tune --resume` reads it again later.
  try {
    const std::string text = unity::text::printModule(
        session_->assignments().empty() ? session_->module()
                                        : session_->annotatedInput(session_->assignments()));
    const QByteArray bytes = QByteArray::fromStdString(text);
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha1).toHex())
            .left(12);
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                        QStringLiteral("/tuning/models");
    QDir().mkpath(dir);
    const QString stem =
        path.isEmpty() ? QStringLiteral("model") : QFileInfo(path).completeBaseName();
    const QString file = QDir(dir).filePath(QStringLiteral("%1-%2.uir").arg(stem, hash));
    if (!QFileInfo::exists(file)) {
      QFile out(file);
      if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size()) {
        if (error)
          *error = tr("%1: cannot write the model for the tuner: %2").arg(file, out.errorString());
        return {};
      }
    }
    return file;
  } catch (const std::exception& e) {
    if (error)
      *error = tr("the model cannot be written for the tuner: %1").arg(QString::fromUtf8(e.what()));
    return {};
  }
}

TuningLaunchDialog* MainWindow::showTuneDialog() {
  if (!hasModel())
    return nullptr;
  QString error;
  const QString modelFile = tuningModelFile(&error);
  if (modelFile.isEmpty()) {
    log_->error(error);
    return nullptr;
  }
  auto* dialog = new TuningLaunchDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setModel(modelFile, session_->compositeTarget());
  dialog->setDatabase(lastTuningDatabase_.isEmpty()
                          ? TuningLaunchDialog::defaultDatabasePath(modelFile)
                          : lastTuningDatabase_);
  // The tasks come from a build up to the schedule: off the UI thread, one
  // job per dialog (a newer request waits for the running one).
  auto* job = new BackgroundJob(dialog);
  const unity::ir::IRModule input = session_->assignments().empty()
                                        ? session_->module()
                                        : session_->annotatedInput(session_->assignments());
  QPointer<TuningLaunchDialog> guard(dialog);
  auto request = [job, input, guard](const QString& target, const QString& database) {
    if (job->isRunning())
      job->cancel();
    job->wait(60000);
    job->start([input, target,
                database](JobContext&) { return readTuningTaskChoices(input, target, database); },
               [guard](std::vector<TuningTaskChoice> tasks) {
                 if (guard)
                   guard->setTasks(tasks);
               });
  };
  connect(job, &BackgroundJob::failed, dialog, [guard](const QString& message) {
    if (guard)
      guard->setTasksError(message);
  });
  connect(dialog, &TuningLaunchDialog::tasksWanted, dialog, request);
  connect(dialog, &QDialog::accepted, this, [this, guard] {
    if (guard)
      startTuning(guard->launch());
  });
  request(dialog->target(), dialog->database());
  dialog->show();
  return dialog;
}

bool MainWindow::startTuning(const TuningLaunch& launch, QString* error) {
  QString why;
  if (!tuningController_->start(launch, &why)) {
    log_->error(tr("cannot start tuning: %1").arg(why));
    if (error)
      *error = why;
    return false;
  }
  log_->info(
      tr("tuning %1 into %2 (log: %3)")
          .arg(QFileInfo(launch.model).fileName(), launch.database, tuningController_->logPath()));
  lastTuningDatabase_ = launch.database;
  tuningDock_->show();
  tuningDock_->raise();
  return true;
}

bool MainWindow::waitForTuningView(int timeoutMs, QString* error) {
  TuningWatcher* w = tuningView_->watcher();
  if (!w->latest() && !w->waitForSnapshot(timeoutMs)) {
    if (error)
      *error = tr("the tuning database was not read within %1 s").arg(timeoutMs / 1000);
    return false;
  }
  const TuningSnapshotPtr s = w->latest();
  if (!s->error.isEmpty()) {
    if (error)
      *error = s->error;
    return false;
  }
  QCoreApplication::processEvents(); // the view applies the snapshot
  return true;
}

QString MainWindow::describeTuningView() const {
  const TuningSnapshotPtr s = tuningView_->watcher()->latest();
  if (!s)
    return tr("tuning view: nothing read");
  if (!s->run)
    return tr("tuning view of %1: no runs").arg(QFileInfo(s->databasePath).fileName());
  return tr("tuning run %1 of %2 (%3): %4 tasks, %5 records; runs in the history: %6")
      .arg(s->runId)
      .arg(QFileInfo(s->databasePath).fileName(),
           QString::fromLatin1(unity::tuner::toString(s->run->status)))
      .arg(s->tasks.size())
      .arg(s->records)
      .arg(s->runs.size());
}

} // namespace lowerscope
