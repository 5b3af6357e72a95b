// The Tuning panel: snapshots read from a tuning database, the item models
// (checked by QAbstractItemModelTester), the watcher following another
// connection's commits, and, with real `lowerscope-cli tune` processes, a
// short run started from the Tune... dialog, pause / cancel / resume from the
// panel's buttons, a run started outside the window showing up live and
// steered from a panel that did not start it (as after a restart), and a run
// whose process was killed shown as interrupted and resumed.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>

#include <csignal>
#include <functional>

#include <nlohmann/json.hpp>

#include "app/gui/main_window.h"
#include "tuner/database.h"
#include "views/log_view.h"
#include "views/tuning_controller.h"
#include "views/tuning_launch_dialog.h"
#include "views/tuning_models.h"
#include "views/tuning_run_view.h"
#include "views/tuning_watcher.h"

using namespace lowerscope;
using unity::tuner::Database;
using unity::tuner::Record;
using unity::tuner::RecordStatus;
using unity::tuner::RunStatus;

namespace {

const QString kMatmul = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/app/data/matmul_relu64.uir");
const QString kTwoLayers = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/views/data/two_layers.uir");
constexpr int kRunTimeoutMs = 240000; // a loaded CI machine measures slowly

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(10);
  }
  return true;
}

Record okRecord(int64_t w, int64_t t, int64_t run, double seconds) {
  Record r;
  r.workloadId = w;
  r.targetId = t;
  r.runId = run;
  r.times = {seconds, seconds};
  r.node = "test";
  return r;
}

Record failedRecord(int64_t w, int64_t t, int64_t run) {
  Record r;
  r.workloadId = w;
  r.targetId = t;
  r.runId = run;
  r.status = RecordStatus::Crash;
  r.errorKind = "SIGSEGV";
  r.errorMessage = "crashed";
  r.node = "test";
  return r;
}

/// A run over tasks a (weight 2, 1 MFLOP) and b (weight 1, 2 MFLOP): a
/// measures 2 ms, 1 ms and a crash; b 4 ms then 5 ms.
int64_t fillDatabase(Database& db) {
  const int64_t wa = db.addWorkload("hash-a", "text a", 1e6);
  const int64_t wb = db.addWorkload("hash-b", "text b", 2e6);
  const int64_t t = db.addTarget("llvm -num-cores=1");
  nlohmann::json config = {{"model", "/models/two.uir"},
                           {"target", "llvm -num-cores=1"},
                           {"trials", 6},
                           {"timeout_s", 10},
                           {"runner", "local"},
                           {"task_info",
                            {{{"name", "a"},
                              {"hash", "hash-a"},
                              {"target", "llvm -num-cores=1"},
                              {"flops", 1e6},
                              {"weight", 2},
                              {"tunable", true}},
                             {{"name", "b"},
                              {"hash", "hash-b"},
                              {"target", "llvm -num-cores=1"},
                              {"flops", 2e6},
                              {"weight", 1},
                              {"tunable", true}},
                             {{"name", "c"},
                              {"hash", "hash-c"},
                              {"target", "llvm -num-cores=1"},
                              {"flops", 5.0},
                              {"weight", 1},
                              {"tunable", false},
                              {"why_not_tunable", "symbolic extents"}}}}};
  const int64_t run = db.startRun(config, 6);
  db.addRecord(okRecord(wa, t, run, 2e-3));
  db.addRecord(okRecord(wa, t, run, 1e-3));
  db.addRecord(failedRecord(wa, t, run));
  db.addRecord(okRecord(wb, t, run, 4e-3));
  db.addRecord(okRecord(wb, t, run, 5e-3));
  db.updateRunProgress(run, 5);
  return run;
}

QLineSeries* firstSeries(QChart* chart) {
  return chart->series().isEmpty() ? nullptr : qobject_cast<QLineSeries*>(chart->series().first());
}

} // namespace

TEST(TuningSnapshot, ReadsTasksBestSoFarCurvesAndHistory) {
  QTemporaryDir dir;
  Database db(dir.filePath("t.db").toStdString());
  const int64_t run = fillDatabase(db);
  TuningSnapshotPtr s = readTuningSnapshot(db, 0);
  ASSERT_TRUE(s->error.isEmpty()) << s->error.toStdString();
  EXPECT_EQ(s->runId, run);
  ASSERT_EQ(s->runs.size(), 1u);
  ASSERT_EQ(s->tasks.size(), 3u);
  const TuningTaskRow& a = s->tasks[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.weight, 2);
  EXPECT_EQ(a.trials, 3);
  EXPECT_EQ(a.errors, 1);
  EXPECT_DOUBLE_EQ(a.bestSeconds, 1e-3);
  EXPECT_NEAR(a.gflops(), 1.0, 1e-9); // 1e6 FLOP in 1 ms
  EXPECT_EQ(s->tasks[1].trials, 2);
  EXPECT_DOUBLE_EQ(s->tasks[1].bestSeconds, 4e-3);
  EXPECT_FALSE(s->tasks[2].tunable);
  EXPECT_EQ(s->records, 5);
  EXPECT_EQ(s->okRecords, 4);
  // a's best: 0.5 GFLOP/s at trial 1, 1.0 at trial 2, held to trial 5.
  ASSERT_EQ(s->taskCurves[0].size(), 3u);
  EXPECT_EQ(s->taskCurves[0][0].trial, 1);
  EXPECT_NEAR(s->taskCurves[0][0].value, 0.5, 1e-9);
  EXPECT_EQ(s->taskCurves[0][1].trial, 2);
  EXPECT_EQ(s->taskCurves[0][2].trial, 5);
  EXPECT_NEAR(s->taskCurves[0][2].value, 1.0, 1e-9);
  // The model once both tunable tasks have a latency: 2 x 1 ms + 1 x 4 ms.
  ASSERT_FALSE(s->modelCurve.empty());
  EXPECT_EQ(s->modelCurve.front().trial, 4);
  EXPECT_NEAR(s->modelCurve.front().value, 6e-3, 1e-12);
  EXPECT_EQ(s->modelCurve.back().trial, 5);
  EXPECT_TRUE(s->configSummary.contains("two.uir")) << s->configSummary.toStdString();

  // A run whose configuration has no task list: rows come from its records.
  const int64_t bare = db.startRun(nlohmann::json::object(), 2);
  db.addRecord(okRecord(1, 1, bare, 3e-3));
  s = readTuningSnapshot(db, bare);
  ASSERT_EQ(s->tasks.size(), 1u);
  EXPECT_EQ(s->tasks[0].weight, -1);
  EXPECT_EQ(s->tasks[0].trials, 1);
  EXPECT_EQ(s->runs.size(), 2u);
}

TEST(TuningModels, PassTheItemModelTesterAndShowTheFigures) {
  QTemporaryDir dir;
  Database db(dir.filePath("t.db").toStdString());
  fillDatabase(db);
  TuningTaskModel tasks;
  TuningRunsModel runs;
  QAbstractItemModelTester t1(&tasks, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(&runs, QAbstractItemModelTester::FailureReportingMode::Fatal);
  tasks.setSnapshot(readTuningSnapshot(db, 0));
  runs.setSnapshot(readTuningSnapshot(db, 0));
  ASSERT_EQ(tasks.rowCount(), 3);
  EXPECT_EQ(tasks.index(0, TuningTaskModel::Task).data().toString(), "a");
  EXPECT_EQ(tasks.index(0, TuningTaskModel::GFlops).data().toString(), "1.0");
  EXPECT_EQ(tasks.index(0, TuningTaskModel::Latency).data().toString(), "1.000 ms");
  EXPECT_EQ(tasks.index(0, TuningTaskModel::Errors).data().toInt(), 1);
  EXPECT_EQ(tasks.index(2, TuningTaskModel::GFlops).data().toString(), "not tuned");
  ASSERT_EQ(runs.rowCount(), 1);
  EXPECT_EQ(runs.index(0, TuningRunsModel::Status).data().toString(), "running");
  EXPECT_EQ(runs.index(0, TuningRunsModel::Trials).data().toString(), "5 / 6");
  // More rows, then fewer: both go through the tester.
  db.finishRun(1, RunStatus::Cancelled);
  db.startRun(nlohmann::json::object(), 1);
  runs.setSnapshot(readTuningSnapshot(db, 1));
  ASSERT_EQ(runs.rowCount(), 2);
  EXPECT_EQ(runs.index(1, TuningRunsModel::Status).data().toString(), "cancelled");
  tasks.setSnapshot(readTuningSnapshot(db, 2));
  EXPECT_EQ(tasks.rowCount(), 0);
}

TEST(TuningWatcher, FollowsCommitsOfAnotherConnection) {
  QTemporaryDir dir;
  const QString path = dir.filePath("t.db");
  Database db(path.toStdString());
  const int64_t run = fillDatabase(db);
  TuningWatcher watcher;
  watcher.setPollInterval(50);
  watcher.watch(path);
  ASSERT_TRUE(waitFor([&] { return watcher.latest() && watcher.latest()->records == 5; }, 20000));
  db.addRecord(okRecord(2, 1, run, 3e-3)); // b improves
  ASSERT_TRUE(waitFor([&] { return watcher.latest()->records == 6; }, 20000));
  EXPECT_DOUBLE_EQ(watcher.latest()->tasks[1].bestSeconds, 3e-3);

  watcher.watch(dir.filePath("missing.db"));
  ASSERT_TRUE(waitFor([&] { return watcher.latest() != nullptr; }, 20000));
  EXPECT_TRUE(watcher.latest()->error.contains("no such tuning database"))
      << watcher.latest()->error.toStdString();
  EXPECT_FALSE(QFileInfo::exists(dir.filePath("missing.db"))); // never created by a viewer
}

TEST(TuningLaunch, ArgumentsCarryEverySetting) {
  TuningLaunch l;
  l.model = "/m.uir";
  l.database = "/d.db";
  l.target = "llvm";
  l.functions = {"f1", "f2"};
  l.trials = 12;
  l.timeBudgetSeconds = 30;
  l.threads = 2;
  l.timeoutSeconds = 5;
  EXPECT_EQ(l.arguments(), (QStringList{"tune", "/m.uir", "--db", "/d.db", "--trials", "12",
                                        "--target", "llvm", "--tasks", "f1,f2", "--time-budget",
                                        "30", "--threads", "2", "--timeout", "5"}));
  QString error;
  // The Slurm runner: its settings become tune's Slurm options.
  l.runner.id = "slurm";
  l.runner.partitions = {"main", " m7=boards "};
  l.runner.maxJobs = 4;
  l.runner.jobTime = "10:00";
  l.runner.spool = "/shared/spool";
  QStringList slurm = l.arguments(&error);
  ASSERT_FALSE(slurm.isEmpty()) << error.toStdString();
  QStringList tail = slurm.mid(slurm.indexOf("--runner"));
  EXPECT_EQ(tail,
            (QStringList{"--runner", "slurm", "--partition", "main", "--partition", "m7=boards",
                         "--max-jobs", "4", "--job-time", "10:00", "--spool", "/shared/spool"}));
  // Slurm settings on the local runner, or an unknown runner, are refused.
  l.runner.id = "local";
  EXPECT_TRUE(l.arguments(&error).isEmpty());
  EXPECT_TRUE(error.contains("Slurm settings")) << error.toStdString();
  l.runner = TuningRunnerChoice{};
  l.runner.id = "ssh";
  EXPECT_TRUE(l.arguments(&error).isEmpty());
  EXPECT_TRUE(error.contains("unknown runner 'ssh'")) << error.toStdString();
  l.runner = TuningRunnerChoice{};
  EXPECT_FALSE(l.arguments().contains("--runner"));        // local: tune's default
  EXPECT_FALSE(l.arguments().contains("--symbolic-size")); // 0: tune's default
  l.symbolicSize = 48;
  QStringList sized = l.arguments();
  ASSERT_TRUE(sized.contains("--symbolic-size"));
  EXPECT_EQ(sized.at(sized.indexOf("--symbolic-size") + 1), "48");
  l.symbolicSize = -1;
  EXPECT_TRUE(l.arguments(&error).isEmpty());
  EXPECT_TRUE(error.contains("symbolic")) << error.toStdString();
  l.symbolicSize = 0;
  l.model.clear();
  EXPECT_TRUE(l.arguments(&error).isEmpty());
  EXPECT_TRUE(error.contains("model")) << error.toStdString();
}

TEST(TuningLaunch, DialogAsksForTheSymbolicSizeOnlyWhenATaskHasSymbolicExtents) {
  TuningLaunchDialog dialog;
  dialog.setModel("/m.uir", "llvm");
  dialog.setDatabase("/d.db");
  TuningTaskChoice fixed;
  fixed.name = "matmul";
  fixed.functions = {"matmul"};
  fixed.weight = 1;
  dialog.setTasks({fixed});
  auto* size = dialog.findChild<QSpinBox*>("tuningSymbolicSize");
  ASSERT_NE(size, nullptr);
  EXPECT_FALSE(size->isEnabled());
  EXPECT_EQ(dialog.launch().symbolicSize, 0);
  TuningTaskChoice batch = fixed;
  batch.name = "fused_matmul_add_relu";
  batch.functions = {"fused_matmul_add_relu"};
  batch.symbolic = true;
  dialog.setTasks({fixed, batch});
  EXPECT_TRUE(size->isEnabled());
  EXPECT_EQ(size->value(), 128); // tune's default, shown
  dialog.setSymbolicSize(40);
  TuningLaunch l = dialog.launch();
  EXPECT_EQ(l.symbolicSize, 40);
  QStringList args = l.arguments();
  ASSERT_TRUE(args.contains("--symbolic-size"));
  EXPECT_EQ(args.at(args.indexOf("--symbolic-size") + 1), "40");
}

TEST(TuningLaunch, RunnerConfigurationReadsAsText) {
  EXPECT_EQ(formatRunner(nlohmann::json("local")), "local");
  EXPECT_EQ(formatRunner(nlohmann::json{{"kind", "local"}}), "local");
  nlohmann::json slurm{
      {"kind", "slurm"}, {"partition", "main"}, {"sub_target_partitions", {{"m7", "boards"}}}};
  EXPECT_EQ(formatRunner(slurm), "slurm (partition main, m7=boards)");
  EXPECT_EQ(formatRunner(nlohmann::json{{"kind", "slurm"}, {"partition", ""}}), "slurm");
}

class TuningWindowTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.isValid());
    db_ = dir_.filePath("tuning/run.db");
  }
  void prepare(MainWindow& w) {
    w.tuningController()->setCliPath(QStringLiteral(LOWERSCOPE_CLI));
    w.tuningController()->setLogDirectory(dir_.filePath("logs"));
  }
  QTemporaryDir dir_;
  QString db_;
};

TEST_F(TuningWindowTest, ShortRunFromTheDialogFillsTheTableTheChartsAndTheDatabase) {
  MainWindow w;
  prepare(w);
  w.show();                                  // the charts of a hidden panel wait until it is shown
  ASSERT_FALSE(w.tuneAction()->isEnabled()); // nothing to tune without a model
  ASSERT_TRUE(w.openFile(kMatmul));
  ASSERT_TRUE(w.tuneAction()->isEnabled());
  QAbstractItemModelTester t1(w.tuningView()->taskModel(),
                              QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(w.tuningView()->runsModel(),
                              QAbstractItemModelTester::FailureReportingMode::Fatal);
  TuningLaunchDialog* dialog = w.showTuneDialog();
  ASSERT_NE(dialog, nullptr);
  ASSERT_TRUE(waitFor([&] { return dialog->taskCount() > 0; }, 60000));
  EXPECT_EQ(dialog->taskCount(), 1);
  EXPECT_TRUE(dialog->taskTable()->item(0, 1)->text().contains("matmul"))
      << dialog->taskTable()->item(0, 1)->text().toStdString();
  EXPECT_EQ(dialog->taskTable()->item(0, 5)->text(), "not measured");
  // The runner box: Slurm where this machine can submit (install-deps puts
  // sbatch here), its partitions reaching the launch; local by default.
  EXPECT_EQ(dialog->launch().runner.id, "local");
  if (!QStandardPaths::findExecutable("sbatch").isEmpty()) {
    dialog->setRunner("slurm", "main, m7=boards");
    TuningLaunch slurm = dialog->launch();
    EXPECT_EQ(slurm.runner.id, "slurm");
    EXPECT_EQ(slurm.runner.partitions, (QStringList{"main", "m7=boards"}));
    dialog->setRunner("local");
    EXPECT_TRUE(dialog->launch().runner.partitions.isEmpty());
  }
  dialog->setDatabase(db_);
  dialog->setTrials(8);
  dialog->setThreads(1);
  dialog->setTimeout(20);
  dialog->accept();

  TuningController* c = w.tuningController();
  ASSERT_TRUE(c->isActive()) << w.logView()->toPlainText().toStdString();
  ASSERT_TRUE(c->waitUntilIdle(kRunTimeoutMs)) << c->output().toStdString();
  TuningRunView* view = w.tuningView();
  ASSERT_TRUE(waitFor(
      [&] {
        auto s = view->watcher()->latest();
        return s && s->run && s->run->status == RunStatus::Finished;
      },
      20000))
      << c->output().toStdString();
  EXPECT_EQ(view->shownRun(), 1);
  EXPECT_EQ(view->progressBar()->value(), 8);
  TuningTaskModel* tasks = view->taskModel();
  ASSERT_EQ(tasks->rowCount(), 1);
  EXPECT_EQ(tasks->index(0, TuningTaskModel::Trials).data().toInt(), 8);
  EXPECT_GT(tasks->row(0)->gflops(), 0);
  EXPECT_EQ(tasks->row(0)->weight, 1);
  QLineSeries* curve = firstSeries(view->taskChart());
  ASSERT_NE(curve, nullptr);
  EXPECT_GE(curve->count(), 2);
  EXPECT_NE(firstSeries(view->modelChart()), nullptr);
  EXPECT_EQ(view->runsModel()->rowCount(), 1);

  Database db(db_.toStdString());
  EXPECT_EQ(db.recordsOfRun(1).size(), 8u);
  EXPECT_EQ(db.run(1)->status, RunStatus::Finished);
  EXPECT_TRUE(w.logView()->toPlainText().contains("run 1 finished"))
      << w.logView()->toPlainText().toStdString();
}

TEST_F(TuningWindowTest, PauseCancelAndResumeFromThePanel) {
  MainWindow w;
  prepare(w);
  ASSERT_TRUE(w.openFile(kMatmul));
  TuningLaunch l;
  l.model = kMatmul;
  l.database = db_;
  l.trials = 400; // more than the test lets it measure
  l.threads = 1;
  l.timeoutSeconds = 20;
  l.batch = 2;
  ASSERT_TRUE(w.startTuning(l));
  TuningController* c = w.tuningController();
  TuningRunView* view = w.tuningView();
  auto records = [&] {
    auto s = view->watcher()->latest();
    return s && s->run ? s->records : 0;
  };
  ASSERT_TRUE(waitFor([&] { return records() >= 1; }, kRunTimeoutMs)) << c->output().toStdString();

  // Pause: confirmed by the process, and no candidate is measured meanwhile.
  ASSERT_TRUE(view->pauseButton()->isEnabled());
  view->pauseButton()->click();
  ASSERT_TRUE(waitFor([&] { return c->state() == TuningController::State::Paused; }, 60000))
      << c->output().toStdString();
  EXPECT_EQ(view->pauseButton()->text(), "Continue");
  view->watcher()->refresh();
  ASSERT_TRUE(view->watcher()->waitForSnapshot(20000));
  const int paused = records();
  waitFor([] { return false; }, 1500);
  view->watcher()->refresh();
  ASSERT_TRUE(view->watcher()->waitForSnapshot(20000));
  EXPECT_EQ(records(), paused);
  EXPECT_TRUE(view->stateLabel()->text().contains("paused"))
      << view->stateLabel()->text().toStdString();

  view->pauseButton()->click(); // Continue
  ASSERT_TRUE(waitFor([&] { return records() > paused; }, kRunTimeoutMs))
      << c->output().toStdString();

  // Cancel: the batch ends, the run is marked cancelled, Resume is offered.
  ASSERT_TRUE(view->cancelButton()->isEnabled());
  view->cancelButton()->click();
  ASSERT_TRUE(c->waitUntilIdle(kRunTimeoutMs)) << c->output().toStdString();
  ASSERT_TRUE(waitFor(
      [&] {
        auto s = view->watcher()->latest();
        return s && s->run && s->run->status == RunStatus::Cancelled;
      },
      20000));
  const int cancelledAt = records();
  EXPECT_LT(cancelledAt, 400);
  EXPECT_FALSE(view->pauseButton()->isEnabled());
  ASSERT_TRUE(view->resumeButton()->isEnabled());

  // Resume continues the same run; cancel it again.
  view->resumeButton()->click();
  ASSERT_TRUE(c->isActive()) << view->stateLabel()->text().toStdString();
  ASSERT_TRUE(waitFor([&] { return records() > cancelledAt; }, kRunTimeoutMs))
      << c->output().toStdString();
  // The controller learns the run's id from the process's log, which it
  // polls apart from the database watcher: a new record may be seen first.
  ASSERT_TRUE(waitFor([&] { return c->runId() != 0; }, 20000)) << c->output().toStdString();
  EXPECT_EQ(c->runId(), 1);
  ASSERT_TRUE(waitFor([&] { return view->cancelButton()->isEnabled(); }, 20000));
  view->cancelButton()->click();
  ASSERT_TRUE(c->waitUntilIdle(kRunTimeoutMs)) << c->output().toStdString();
  Database db(db_.toStdString());
  EXPECT_EQ(db.runs().size(), 1u);
  EXPECT_EQ(db.run(1)->status, RunStatus::Cancelled);
  EXPECT_GT(db.recordsOfRun(1).size(), size_t(cancelledAt));
  EXPECT_EQ(db.run(1)->trialsDone, int64_t(db.recordsOfRun(1).size()));
}

/// A `lowerscope-cli tune` of the matmul started outside any window; true
/// once it has said which run it works on (the database exists).
bool startCommandLineRun(QProcess& cli, const QString& db, int trials, QByteArray& out) {
  cli.setProcessChannelMode(QProcess::MergedChannels);
  cli.start(QStringLiteral(LOWERSCOPE_CLI),
            {"tune", kMatmul, "--db", db, "--trials", QString::number(trials), "--threads", "1",
             "--timeout", "20", "--batch", "2"});
  if (!cli.waitForStarted(20000))
    return false;
  auto said = [&] {
    out += cli.readAll();
    return out.contains("tuning run 1 on");
  };
  return waitFor(said, kRunTimeoutMs);
}

TEST_F(TuningWindowTest, RunOfTheCommandLineIsSteeredFromAFreshPanel) {
  QProcess cli;
  QByteArray out;
  ASSERT_TRUE(startCommandLineRun(cli, db_, 60, out)) << out.toStdString();
  // A panel opened afterwards, with a controller that started nothing: what
  // the window is after a restart.
  TuningController controller;
  controller.setCliPath(QStringLiteral(LOWERSCOPE_CLI));
  controller.setLogDirectory(dir_.filePath("logs"));
  TuningRunView view;
  view.setController(&controller);
  view.show();
  view.watcher()->setPollInterval(50);
  view.showDatabase(db_);
  auto latest = [&] { return view.watcher()->latest(); };
  auto records = [&] { return latest() && latest()->run ? latest()->records : 0; };
  ASSERT_TRUE(
      waitFor([&] { return records() >= 1 && view.pauseButton()->isEnabled(); }, kRunTimeoutMs))
      << cli.readAll().toStdString();
  EXPECT_EQ(latest()->liveness, unity::tuner::ProcessLiveness::Alive);
  EXPECT_EQ(latest()->run->process->pid, cli.processId());
  EXPECT_TRUE(view.stateLabel()->text().contains("started by another process"))
      << view.stateLabel()->text().toStdString();
  EXPECT_EQ(view.taskModel()->rowCount(), 1);

  // Pause: confirmed by the process in the database; no record arrives
  // while paused.
  view.pauseButton()->click();
  ASSERT_TRUE(waitFor([&] { return view.pauseButton()->text() == "Continue"; }, kRunTimeoutMs))
      << cli.readAll().toStdString();
  EXPECT_EQ(latest()->run->control, unity::tuner::RunControl::Paused);
  EXPECT_TRUE(view.stateLabel()->text().startsWith("paused"))
      << view.stateLabel()->text().toStdString();
  EXPECT_EQ(view.runsModel()->index(0, TuningRunsModel::Status).data().toString(), "paused");
  const int paused = records();
  // Meanwhile a second process may not take the run over.
  QProcess second;
  second.setProcessChannelMode(QProcess::MergedChannels);
  second.start(QStringLiteral(LOWERSCOPE_CLI), {"tune", "--resume", "1", "--db", db_});
  ASSERT_TRUE(second.waitForFinished(60000));
  EXPECT_EQ(second.exitCode(), 1);
  EXPECT_TRUE(second.readAll().contains("is still being tuned by process"));
  waitFor([] { return false; }, 1500);
  view.watcher()->refresh();
  ASSERT_TRUE(view.watcher()->waitForSnapshot(20000));
  EXPECT_EQ(records(), paused);

  view.pauseButton()->click(); // Continue
  ASSERT_TRUE(waitFor([&] { return records() > paused; }, kRunTimeoutMs))
      << cli.readAll().toStdString();
  EXPECT_EQ(view.pauseButton()->text(), "Pause");

  view.cancelButton()->click();
  EXPECT_FALSE(view.cancelButton()->isEnabled()); // asked once
  ASSERT_TRUE(cli.waitForFinished(kRunTimeoutMs));
  EXPECT_EQ(cli.exitCode(), 0) << cli.readAll().toStdString();
  ASSERT_TRUE(waitFor(
      [&] { return latest() && latest()->run && latest()->run->status == RunStatus::Cancelled; },
      20000));
  EXPECT_FALSE(view.pauseButton()->isEnabled());
  EXPECT_TRUE(view.resumeButton()->isEnabled());
  Database db(db_.toStdString());
  EXPECT_EQ(db.run(1)->status, RunStatus::Cancelled);
  EXPECT_LT(db.run(1)->trialsDone, 60);
  EXPECT_EQ(db.run(1)->control, unity::tuner::RunControl::None);
}

TEST_F(TuningWindowTest, RunWhoseProcessDiedShowsInterruptedAndResumes) {
  QProcess cli;
  QByteArray out;
  ASSERT_TRUE(startCommandLineRun(cli, db_, 400, out)) << out.toStdString();
  TuningController controller;
  controller.setCliPath(QStringLiteral(LOWERSCOPE_CLI));
  controller.setLogDirectory(dir_.filePath("logs"));
  TuningRunView view;
  view.setController(&controller);
  view.watcher()->setPollInterval(50);
  view.showDatabase(db_);
  auto latest = [&] { return view.watcher()->latest(); };
  ASSERT_TRUE(
      waitFor([&] { return latest() && latest()->run && latest()->records >= 1; }, kRunTimeoutMs));
  EXPECT_FALSE(view.resumeButton()->isEnabled()); // running
  cli.kill();                                     // SIGKILL: the run stays marked running
  ASSERT_TRUE(cli.waitForFinished(20000));
  ASSERT_TRUE(waitFor([&] { return latest() && latest()->interrupted(); }, 20000));
  const int before = latest()->records;
  EXPECT_EQ(latest()->run->status, RunStatus::Running);
  EXPECT_TRUE(view.stateLabel()->text().startsWith("interrupted"))
      << view.stateLabel()->text().toStdString();
  EXPECT_FALSE(view.pauseButton()->isEnabled());
  ASSERT_TRUE(view.resumeButton()->isEnabled());

  view.resumeButton()->click();
  ASSERT_TRUE(controller.waitForRunId(kRunTimeoutMs)) << controller.output().toStdString();
  EXPECT_EQ(controller.runId(), 1);
  ASSERT_TRUE(waitFor([&] { return latest() && latest()->records > before; }, kRunTimeoutMs))
      << controller.output().toStdString();
  EXPECT_EQ(latest()->liveness, unity::tuner::ProcessLiveness::Alive);
  EXPECT_EQ(latest()->run->process->pid, controller.pid());
  ASSERT_TRUE(controller.cancel());
  ASSERT_TRUE(controller.waitUntilIdle(kRunTimeoutMs)) << controller.output().toStdString();
  EXPECT_EQ(Database(db_.toStdString()).run(1)->status, RunStatus::Cancelled);
}

TEST_F(TuningWindowTest, ClosingTheWindowLeavesTheRunGoingAndAnotherViewReattaches) {
  qint64 pid = 0;
  {
    MainWindow w;
    prepare(w);
    ASSERT_TRUE(w.openFile(kMatmul));
    TuningLaunch l;
    l.model = kMatmul;
    l.database = db_;
    l.trials = 400;
    l.threads = 1;
    l.timeoutSeconds = 20;
    l.batch = 2;
    ASSERT_TRUE(w.startTuning(l));
    ASSERT_TRUE(w.tuningController()->waitForRunId(kRunTimeoutMs))
        << w.tuningController()->output().toStdString();
    pid = w.tuningController()->pid();
    w.tuningDock()->close();
    w.close();
  } // the window, its panel and its controller are gone
  ASSERT_GT(pid, 0);
  TuningRunView view;
  view.show();
  view.watcher()->setPollInterval(50);
  view.showDatabase(db_);
  ASSERT_TRUE(waitFor(
      [&] {
        auto s = view.watcher()->latest();
        return s && s->run && s->records >= 2;
      },
      kRunTimeoutMs));
  const int seen = view.watcher()->latest()->records;
  ASSERT_TRUE(waitFor([&] { return view.watcher()->latest()->records > seen; }, kRunTimeoutMs));
  EXPECT_EQ(view.watcher()->latest()->run->status, RunStatus::Running);
  // Stop it as Cancel would; the reattached view sees it end.
  ASSERT_EQ(::kill(pid_t(pid), SIGTERM), 0);
  ASSERT_TRUE(waitFor(
      [&] {
        auto s = view.watcher()->latest();
        return s->run->status == RunStatus::Cancelled;
      },
      kRunTimeoutMs));
  EXPECT_FALSE(view.resumeButton()->isEnabled()); // no controller: nothing to resume with
}
