// The search end to end: it finds a schedule faster than the default one
// (on a synthetic latency landscape, so the outcome does not depend on the
// machine's speed), commits every real kernel it measures, survives faulty
// candidates, never measures a
// schedule twice (within a run or across runs), and resumes a run whose
// process was killed with SIGKILL without losing a committed record.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/search.h"
#include "tuner/space.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;

namespace {

const char* kTarget = "llvm -num-cores=1";

std::vector<Task> matmulTasks(int n) {
  BuildOptions o;
  o.target = kTarget;
  auto m = text::parseModule("@R.function\n"
                             "def main(a: R.Tensor((" +
                             std::to_string(n) + ", " + std::to_string(n) +
                             "), \"float32\"), b: R.Tensor((" + std::to_string(n) + ", " +
                             std::to_string(n) + "), \"float32\")) -> R.Tensor((" +
                             std::to_string(n) + ", " + std::to_string(n) +
                             "), \"float32\"):\n"
                             "    with R.dataflow():\n"
                             "        gv = R.matmul(a, b)\n"
                             "        R.output(gv)\n"
                             "    return gv\n");
  return extractTasks(m, o);
}

TuneOptions quick(int trials) {
  TuneOptions o;
  o.trials = trials;
  o.batchSize = 8;
  o.population = 48;
  o.measure.minSeconds = 0.01;
  o.measure.repeats = 3;
  return o;
}

/// Distinct scheduled functions among a run's records.
std::set<std::string> scheduleKeys(const Database& db, const Task& t,
                                   const std::vector<Record>& records) {
  std::set<std::string> keys;
  for (auto& r : records)
    keys.insert(ir::structuralHashHex(
        schedule::Schedule::replay(t.workload, schedule::Trace::fromJson(r.trace)).func()));
  (void)db;
  return keys;
}

class SearchTest : public TempDirTest {};

/// A runner whose "measured" latency is a fixed function of the schedule,
/// so what the search finds does not depend on how fast or busy the
/// machine is: the default schedule takes 1 ms; any other schedule takes
/// 0.5-0.9 ms when its structural hash starts with a hex digit below 5
/// (about 5 in 16 of them) and 1.1-1.5 ms otherwise.
class SyntheticLatencyRunner : public Runner {
public:
  std::string name() const override { return "synthetic"; }
  void run(const std::vector<MeasureJob>& jobs, const TaskReference&, const MeasureSettings&,
           const std::function<void(size_t, const MeasureResult&)>& onResult) override {
    for (size_t i = 0; i < jobs.size(); ++i) {
      const MeasureJob& j = jobs[i];
      DesignSpace space(transform::schedulePolicyFor(target::Target::parse(j.target)));
      std::string defaultKey = space.apply(j.workload, space.basePoint())->key;
      std::string key =
          ir::structuralHashHex(schedule::Schedule::replay(j.workload, j.trace).func());
      MeasureResult r;
      r.node = "synthetic";
      r.times = {latency(key, defaultKey)};
      onResult(i, r);
      ++measured;
    }
  }
  static double latency(const std::string& key, const std::string& defaultKey) {
    if (key == defaultKey)
      return 1e-3;
    int first = std::stoi(key.substr(0, 1), nullptr, 16);
    int spread = std::stoi(key.substr(1, 2), nullptr, 16); // 0..255
    double frac = spread / 255.0 * 0.4;
    return first < 5 ? (0.5 + frac) * 1e-3 : (1.1 + frac) * 1e-3;
  }
  int measured = 0;
};

TEST_F(SearchTest, FindsAScheduleFasterThanTheDefault) {
  // The default schedule is measured in the run and most of the space is
  // slower than it: the search must still find one of the faster schedules
  // within 32 trials and report the fastest record as the task's best.
  Database db(file("t.db"));
  SyntheticLatencyRunner runner;
  TuningRun run(db, matmulTasks(128), quick(32), runner, {{"test", "beats default"}});
  run.run();
  ASSERT_EQ(run.tasks().size(), 1u);
  const TaskState& st = run.tasks()[0];
  EXPECT_EQ(runner.measured, 32);
  EXPECT_EQ(st.trials, 32);
  EXPECT_DOUBLE_EQ(st.defaultSeconds, 1e-3) << "the default schedule was not measured";
  auto records = db.recordsOfRun(run.runId());
  ASSERT_EQ(records.size(), 32u);
  const Record* fastest = nullptr;
  for (auto& r : records) {
    ASSERT_TRUE(r.meanS) << "record " << r.id << " has no mean";
    if (!fastest || *r.meanS < *fastest->meanS)
      fastest = &r;
  }
  EXPECT_LT(*fastest->meanS, 1e-3) << "no schedule faster than the default was measured";
  EXPECT_DOUBLE_EQ(st.bestSeconds, *fastest->meanS);
  EXPECT_EQ(st.bestRecord, fastest->id);
  EXPECT_EQ(scheduleKeys(db, st.task, records).size(), records.size())
      << "a schedule was measured twice";
}

TEST_F(SearchTest, OnlyTheLastProgressReportComesAfterTheRunHasEnded) {
  // The command line honours a pause or cancel in every report but the
  // last: a pause that arrives then must not hold an ended run's process,
  // nor its confirmation mark an ended run (the run is cancelled here
  // between two batches, as SIGINT does).
  Database db(file("t.db"));
  SyntheticLatencyRunner runner;
  TuningRun run(db, matmulTasks(32), quick(24), runner, {{"test", "progress"}});
  std::atomic<bool> cancel{false};
  std::vector<std::pair<bool, RunStatus>> seen; // (finished, status in the database)
  run.run(
      [&](const Progress& p) {
        seen.emplace_back(p.finished, db.run(p.runId)->status);
        if (p.trialsDone >= 8)
          cancel = true;
      },
      &cancel);
  ASSERT_GE(seen.size(), 2u);
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_FALSE(seen[i].first) << "report " << i;
    EXPECT_EQ(seen[i].second, RunStatus::Running) << "report " << i;
  }
  EXPECT_TRUE(seen.back().first);
  EXPECT_EQ(seen.back().second, RunStatus::Cancelled);
  EXPECT_LT(db.run(run.runId())->trialsDone, 24);
  EXPECT_FALSE(db.setRunControl(run.runId(), RunControl::Cancelling));
  EXPECT_EQ(db.run(run.runId())->control, RunControl::None);
}

TEST_F(SearchTest, MeasuresRealKernelsAndCommitsEveryCandidate) {
  // 128^3 on one thread, real kernels in forked children. Which schedule is
  // fastest depends on the machine, so only the bookkeeping is checked: the
  // default is measured, the best is no slower than it, every candidate is
  // a distinct schedule committed with its decisions and node.
  Database db(file("t.db"));
  LocalRunner runner;
  TuningRun run(db, matmulTasks(128), quick(32), runner, {{"test", "real kernels"}});
  run.run();
  ASSERT_EQ(run.tasks().size(), 1u);
  const TaskState& st = run.tasks()[0];
  EXPECT_EQ(st.trials, 32);
  EXPECT_EQ(st.errors, 0);
  ASSERT_GT(st.defaultSeconds, 0);
  EXPECT_LE(st.bestSeconds, st.defaultSeconds);
  auto rec = db.run(run.runId());
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->status, RunStatus::Finished);
  EXPECT_EQ(rec->trialsDone, 32);
  auto records = db.recordsOfRun(run.runId());
  EXPECT_EQ(records.size(), 32u);
  EXPECT_EQ(scheduleKeys(db, st.task, records).size(), records.size())
      << "a schedule was measured twice";
  for (auto& r : records) {
    EXPECT_TRUE(r.decisions.is_object());
    EXPECT_FALSE(r.node.empty());
  }
}

TEST_F(SearchTest, ASecondRunMeasuresOnlyNewSchedules) {
  Database db(file("t.db"));
  LocalRunner runner;
  auto tasks = matmulTasks(32);
  TuningRun first(db, tasks, quick(10), runner, {});
  first.run();
  TuningRun second(db, tasks, quick(10), runner, {});
  second.run();
  auto a = db.recordsOfRun(first.runId()), b = db.recordsOfRun(second.runId());
  auto ka = scheduleKeys(db, tasks[0], a), kb = scheduleKeys(db, tasks[0], b);
  for (auto& k : kb)
    EXPECT_FALSE(ka.count(k)) << "run 2 measured a schedule of run 1 again";
  // The second run starts from the first one's best.
  EXPECT_LE(second.tasks()[0].bestSeconds, first.tasks()[0].bestSeconds);
}

TEST_F(SearchTest, KilledRunResumesWithoutLosingRecords) {
  std::string path = file("t.db");
  int64_t runId = 0;
  {
    Database db(path);
    runId = db.startRun({{"placeholder", true}}, 1); // run 1: not ours
    db.finishRun(runId, RunStatus::Finished);
  }
  auto tasks = matmulTasks(128);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The tuning process: a new connection (never across fork), a long run.
    try {
      Database db(path);
      LocalRunner runner;
      TuningRun run(db, tasks, quick(24), runner, {{"model", "matmul128"}});
      run.run();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  // Kill it with SIGKILL once a few records are committed.
  std::vector<Record> before;
  {
    Database db(path);
    for (int i = 0; i < 600; ++i) {
      auto runs = db.runs();
      if (runs.size() >= 2) {
        before = db.recordsOfRun(runs[1].id);
        if (before.size() >= 6)
          break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the tuning process ended before it was killed";
  ASSERT_GE(before.size(), 6u);

  Database db(path);
  EXPECT_EQ(db.integrityCheck(), "ok");
  auto runs = db.runs();
  ASSERT_EQ(runs.size(), 2u);
  int64_t killed = runs[1].id;
  EXPECT_EQ(runs[1].status, RunStatus::Running); // nobody finished it
  auto committed = db.recordsOfRun(killed);
  ASSERT_GE(committed.size(), before.size());

  LocalRunner runner;
  TuningRun resumed(db, killed, tasks, quick(24), runner);
  EXPECT_EQ(resumed.tasks()[0].trials, int(committed.size()));
  resumed.run();
  auto after = db.recordsOfRun(killed);
  EXPECT_EQ(after.size(), 24u);
  std::set<int64_t> ids;
  for (auto& r : after)
    ids.insert(r.id);
  for (auto& r : committed)
    EXPECT_TRUE(ids.count(r.id)) << "record " << r.id << " was lost";
  EXPECT_EQ(scheduleKeys(db, tasks[0], after).size(), after.size());
  EXPECT_EQ(db.run(killed)->status, RunStatus::Finished);
  EXPECT_EQ(db.run(killed)->trialsDone, 24);
  EXPECT_EQ(db.integrityCheck(), "ok");
}

/// Builds for real, but the 2nd to 5th candidates built (counted in memory
/// shared by the forked measurement children) get a kernel that segfaults,
/// one that never returns, one that computes a wrong value, and a build
/// that fails.
class NthCandidateFaults : public Builder {
public:
  NthCandidateFaults() {
    void* p = mmap(nullptr, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    count_ = static_cast<std::atomic<int>*>(p);
    new (count_) std::atomic<int>(0);
  }
  ~NthCandidateFaults() override { munmap(count_, sizeof(int)); }
  std::shared_ptr<const runtime::CompiledModule> build(const ir::PrimFuncRef& f,
                                                       const std::string& target) const override {
    auto m = LocalBuilder().build(f, target);
    int n = ++*count_;
    if (n == 2)
      return std::make_shared<SwappedModule>(m, segfaultKernel);
    if (n == 3)
      return std::make_shared<SwappedModule>(m, hangingKernel);
    if (n == 4)
      return std::make_shared<SwappedModule>(m, wrongKernel);
    if (n == 5)
      throw Error("injected: this candidate's code generation failed");
    return m;
  }

private:
  std::atomic<int>* count_;
};

TEST_F(SearchTest, FaultyCandidatesAreRecordedAndTheRunCompletes) {
  Database db(file("t.db"));
  LocalRunner runner(std::make_shared<NthCandidateFaults>());
  TuneOptions o = quick(8);
  o.measure.timeoutSeconds = 2;
  TuningRun run(db, matmulTasks(64), o, runner, {});
  run.run();
  auto records = db.recordsOfRun(run.runId());
  ASSERT_EQ(records.size(), 8u);
  std::map<RecordStatus, const Record*> byStatus;
  for (auto& r : records)
    byStatus[r.status] = &r;
  ASSERT_TRUE(byStatus.count(RecordStatus::Crash));
  EXPECT_EQ(byStatus[RecordStatus::Crash]->errorKind, "SIGSEGV");
  ASSERT_TRUE(byStatus.count(RecordStatus::Timeout));
  EXPECT_NE(byStatus[RecordStatus::Timeout]->errorMessage.find("timed out"), std::string::npos);
  ASSERT_TRUE(byStatus.count(RecordStatus::WrongResult));
  EXPECT_NE(byStatus[RecordStatus::WrongResult]->errorMessage.find("differ"), std::string::npos);
  ASSERT_TRUE(byStatus.count(RecordStatus::BuildError));
  EXPECT_NE(byStatus[RecordStatus::BuildError]->errorMessage.find("injected"), std::string::npos);
  EXPECT_EQ(run.tasks()[0].errors, 4);
  EXPECT_EQ(db.run(run.runId())->status, RunStatus::Finished);
  // Failures never win: the best record is a valid one.
  auto best = db.best(run.tasks()[0].workloadId, run.tasks()[0].targetId, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].status, RecordStatus::Ok);
}

TEST_F(SearchTest, ResumingAnUnknownRunIsAnError) {
  Database db(file("t.db"));
  LocalRunner runner;
  EXPECT_THROW(TuningRun(db, 42, matmulTasks(16), quick(4), runner), Error);
}

} // namespace
