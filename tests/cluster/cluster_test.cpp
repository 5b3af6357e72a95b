// The Slurm runner against a real single-node Slurm cluster, which CTest
// starts before these tests (scripts/slurm-cluster.sh, fixture
// `slurm_cluster`) and stops after them:
// - a tuning run through Slurm measures the same candidates as the local
//   runner with the same seed (the search's choices before its cost model
//   has timings to learn from) and records them with the Slurm node's name;
// - an array task cancelled with scancel mid-batch: its candidates are
//   retried and every candidate ends with a valid measurement;
// - a run cancelled mid-batch cancels its array and reports only what was
//   measured;
// - a worker that never starts: its candidates are retried once, then
//   recorded with a "slurm" error saying what happened, and the batch ends;
// - a sub-target with a partition of its own is submitted to that partition;
// - sbatch refusing a batch (no such partition) is an error naming it;
// - `lowerscope-cli tune --runner slurm` killed with SIGKILL and resumed:
//   nothing committed is lost and the run finishes with its planned trials.
// Without a working cluster every test fails with the reason (never skips).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "engine/build.h"
#include "engine/support/error.h"
#include "engine/support/worker_pool.h"
#include "engine/target/target.h"
#include "engine/text/parser.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/runner.h"
#include "tuner/search.h"
#include "tuner/slurm_runner.h"
#include "tuner/space.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;
namespace fs = std::filesystem;

namespace {

const char* kTarget = "llvm -num-cores=1";

JobResult tool(const std::vector<std::string>& argv, double timeout = 120) {
  IsolatedJob j;
  j.command = argv;
  WorkerPoolOptions wo;
  wo.timeoutSeconds = timeout;
  return runIsolated({j}, wo).at(0);
}

/// The cluster's node name, failing the test with the reason when the
/// cluster does not answer.
std::string clusterNode() {
  const char* conf = std::getenv("SLURM_CONF");
  if (!conf || !fs::exists(conf)) {
    ADD_FAILURE() << "SLURM_CONF (" << (conf ? conf : "unset")
                  << ") names no slurm.conf: the test cluster was not started (CTest runs "
                     "scripts/slurm-cluster.sh start " SLURM_CLUSTER_DIR " first; see its output)";
    return "";
  }
  JobResult r = tool({"sinfo", "-h", "-N", "-o", "%N %T"}, 30);
  if (r.status != JobStatus::Ok || r.payload.empty()) {
    ADD_FAILURE() << "the test cluster does not answer sinfo (" << r.describe()
                  << "): " << r.stderrText << " -- logs in " SLURM_CLUSTER_DIR;
    return "";
  }
  return r.payload.substr(0, r.payload.find(' '));
}

std::vector<Task> matmulTasks(int n) {
  BuildOptions o;
  o.target = kTarget;
  std::string s = std::to_string(n);
  auto m = text::parseModule("@R.function\n"
                             "def main(a: R.Tensor((" +
                             s + ", " + s + "), \"float32\"), b: R.Tensor((" + s + ", " + s +
                             "), \"float32\")) -> R.Tensor((" + s + ", " + s +
                             "), \"float32\"):\n"
                             "    with R.dataflow():\n"
                             "        gv = R.matmul(a, b)\n"
                             "        R.output(gv)\n"
                             "    return gv\n");
  return extractTasks(m, o);
}

TuneOptions quick(int trials, int batch) {
  TuneOptions o;
  o.trials = trials;
  o.batchSize = batch;
  o.population = 32;
  o.measure.minSeconds = 0.01;
  o.measure.timeoutSeconds = 30;
  return o;
}

class ClusterTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    node_ = clusterNode();
    ASSERT_FALSE(node_.empty());
  }
  RunnerOptions slurmOptions(int maxJobs = 2) const {
    RunnerOptions o;
    o.kind = "slurm";
    o.target = kTarget;
    o.maxJobs = maxJobs;
    o.spool = file("spool");
    o.workerProgram = LOWERSCOPE_CLI;
    o.pollSeconds = 0.2;
    return o;
  }
  /// `n` distinct candidates of a size^3 matmul, the default schedule first.
  std::vector<MeasureJob> candidates(size_t n, int64_t size = 48) const {
    auto w = te::matmulPrimFunc(size, size, size);
    DesignSpace space(transform::schedulePolicyFor(target::Target::parse(kTarget)));
    std::mt19937_64 rng(5);
    std::vector<MeasureJob> jobs;
    std::set<std::string> keys;
    for (int tries = 0; jobs.size() < n && tries < 1000; ++tries) {
      auto c = space.apply(w, tries == 0 ? space.basePoint() : space.sample(rng));
      if (c && keys.insert(c->key).second)
        jobs.push_back({w, kTarget, c->trace});
    }
    return jobs;
  }
  std::string node_;
};

TEST_F(ClusterTest, ATuningRunThroughSlurmMeasuresWhatTheLocalRunnerMeasures) {
  // 8 trials, batches of 4: the first batch is picked before the cost model
  // has 4 timings, so with the same seed it is the same set of candidates
  // whatever the timings; later batches follow the (noisy) timings.
  Database localDb(file("local.db")), slurmDb(file("slurm.db"));
  LocalRunner local;
  TuningRun a(localDb, matmulTasks(64), quick(8, 4), local, {{"runner", "local"}});
  a.run();
  auto slurm = makeRunner(slurmOptions());
  TuningRun b(slurmDb, matmulTasks(64), quick(8, 4), *slurm, {{"runner", "slurm"}});
  b.run();

  auto la = localDb.recordsOfRun(a.runId()), sb = slurmDb.recordsOfRun(b.runId());
  ASSERT_EQ(la.size(), 8u);
  ASSERT_EQ(sb.size(), 8u);
  std::set<std::string> firstLocal, firstSlurm;
  for (auto& r : la)
    if (r.trial < 4)
      firstLocal.insert(r.trace.dump());
  for (auto& r : sb)
    if (r.trial < 4)
      firstSlurm.insert(r.trace.dump());
  EXPECT_EQ(firstLocal.size(), 4u);
  EXPECT_EQ(firstSlurm, firstLocal);
  for (auto& r : sb) {
    EXPECT_EQ(r.status, RecordStatus::Ok) << r.errorKind << ": " << r.errorMessage;
    EXPECT_EQ(r.node, node_);
  }
  // Each run's best is one of its own valid records, measured on the node.
  ASSERT_GT(b.tasks()[0].bestRecord, 0);
  auto best = slurmDb.record(b.tasks()[0].bestRecord);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->status, RecordStatus::Ok);
  EXPECT_EQ(best->node, node_);
  EXPECT_EQ(slurmDb.run(b.runId())->status, RunStatus::Finished);
}

TEST_F(ClusterTest, AnArrayTaskCancelledMidBatchIsRetriedAndEveryCandidateMeasured) {
  auto jobs = candidates(6, 96);
  ASSERT_EQ(jobs.size(), 6u);
  MeasureSettings s;
  // Each candidate takes a while (0.4 s of calls of about 0.1 ms or more),
  // so task k is mid-batch at its first result.
  s.minSeconds = 0.4;
  s.maxRepeats = 5000;
  s.timeoutSeconds = 60;
  SlurmRunner runner(slurmOptions(2));
  std::map<size_t, MeasureResult> results;
  std::string cancelled;
  runner.run(jobs, {}, s, [&](size_t k, const MeasureResult& r) {
    EXPECT_FALSE(results.count(k)) << "candidate " << k << " reported twice";
    results[k] = r;
    if (cancelled.empty()) {
      // Candidate k came from array task k % 2, which has two more to go.
      cancelled = runner.activeJob() + "_" + std::to_string(k % 2);
      JobResult c = tool({"scancel", cancelled});
      EXPECT_EQ(c.status, JobStatus::Ok) << c.stderrText;
    }
  });
  EXPECT_FALSE(cancelled.empty());
  ASSERT_EQ(results.size(), 6u);
  for (auto& [k, r] : results) {
    EXPECT_EQ(r.status, RecordStatus::Ok)
        << "candidate " << k << ": " << r.errorKind << ": " << r.errorMessage;
    EXPECT_EQ(r.node, node_);
  }
  EXPECT_GE(runner.stats().retried, 1) << "cancelled " << cancelled;
  EXPECT_EQ(runner.stats().submissions, 2);
  EXPECT_EQ(runner.stats().failed, 0);
}

TEST_F(ClusterTest, ACancelledRunCancelsItsArrayAndReportsOnlyWhatWasMeasured) {
  auto jobs = candidates(6, 96);
  MeasureSettings s;
  s.minSeconds = 0.4; // 3 candidates per task: well over a second each
  s.maxRepeats = 5000;
  SlurmRunner runner(slurmOptions(2));
  std::atomic<bool> cancel{false};
  runner.setCancelFlag(&cancel);
  std::string job;
  size_t reported = 0;
  runner.run(jobs, {}, s, [&](size_t, const MeasureResult& r) {
    EXPECT_EQ(r.status, RecordStatus::Ok) << r.errorMessage;
    ++reported;
    job = runner.activeJob();
    cancel = true;
  });
  EXPECT_GE(reported, 1u);
  EXPECT_LT(reported, 6u);
  EXPECT_TRUE(runner.activeJob().empty());
  ASSERT_FALSE(job.empty());
  std::string states;
  for (int i = 0; i < 100; ++i) { // the cancellation reaches the tasks
    states = tool({"squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%T"}).payload;
    if (states.find("RUNNING") == std::string::npos &&
        states.find("PENDING") == std::string::npos &&
        states.find("COMPLETING") == std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(states.find("CANCELLED"), std::string::npos) << states;
  EXPECT_EQ(states.find("RUNNING"), std::string::npos) << states;
}

TEST_F(ClusterTest, AWorkerThatNeverStartsIsRetriedOnceThenRecordedWithTheSlurmError) {
  auto jobs = candidates(3);
  RunnerOptions o = slurmOptions(2);
  o.workerProgram = file("no-such-lowerscope-cli");
  SlurmRunner runner(o);
  std::map<size_t, MeasureResult> results;
  runner.run(jobs, {}, MeasureSettings{},
             [&](size_t k, const MeasureResult& r) { results[k] = r; });
  ASSERT_EQ(results.size(), 3u);
  for (auto& [k, r] : results) {
    EXPECT_EQ(r.status, RecordStatus::RunError);
    EXPECT_EQ(r.errorKind, "slurm");
    EXPECT_NE(r.errorMessage.find("attempt 1: array task"), std::string::npos) << r.errorMessage;
    EXPECT_NE(r.errorMessage.find("attempt 2: array task"), std::string::npos) << r.errorMessage;
    EXPECT_NE(r.errorMessage.find("FAILED"), std::string::npos) << r.errorMessage;
    EXPECT_NE(r.errorMessage.find("no-such-lowerscope-cli"), std::string::npos) << r.errorMessage;
  }
  EXPECT_EQ(runner.stats().submissions, 2);
  EXPECT_EQ(runner.stats().retried, 3);
  EXPECT_EQ(runner.stats().failed, 3);
}

TEST_F(ClusterTest, ASubTargetsCandidatesGoToItsOwnPartition) {
  // The script's cluster has partitions `main` (default) and `boards`.
  RunnerOptions o = slurmOptions();
  o.target = "cpu: llvm -num-cores=1; board: llvm -num-cores=2";
  addPartitionSpec(o, "board=boards");
  auto composite = target::CompositeTarget::parse(o.target);
  auto jobs = candidates(1);
  SlurmRunner runner(o);
  for (const char* name : {"cpu", "board"}) {
    jobs[0].target = composite.at(name).str();
    std::string partition;
    runner.run(jobs, {}, MeasureSettings{}, [&](size_t, const MeasureResult&) {
      partition = tool({"squeue", "-h", "-t", "all", "-j", runner.activeJob(), "-o", "%P"}).payload;
    });
    EXPECT_EQ(partition.substr(0, partition.find('\n')),
              std::string(name) == "board" ? "boards" : "main");
  }
}

TEST_F(ClusterTest, ABatchSbatchRefusesIsAnErrorNamingThePartition) {
  auto jobs = candidates(1);
  RunnerOptions o = slurmOptions();
  o.partition = "no_such_partition";
  SlurmRunner runner(o);
  try {
    runner.run(jobs, {}, MeasureSettings{}, [](size_t, const MeasureResult&) {});
    FAIL() << "sbatch accepted an unknown partition";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sbatch refused"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("artition"), std::string::npos) << e.what();
  }
}

TEST_F(ClusterTest, TuneKilledWithSigkillAndResumedLosesNoRecord) {
  std::string db = file("t.db");
  std::string model = LOWERSCOPE_SOURCE_DIR "/tests/app/data/matmul_relu64.uir";
  std::vector<std::string> first = {
      LOWERSCOPE_CLI, "tune",       model, "--db",      db,  "--trials",
      "16",           "--batch",    "4",   "--threads", "1", "--runner",
      "slurm",        "--max-jobs", "2",   "--quiet"};
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : first)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int fd = ::open(file("first.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  // Kill it once 5 records are committed (more than one batch: some of its
  // arrays have finished, one is likely in flight).
  size_t before = 0;
  for (int i = 0; i < 1200 && before < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "tune ended before it was killed";
    if (fs::exists(db)) {
      try {
        Database peek(db);
        before = peek.runs().empty() ? 0 : peek.recordsOfRun(1).size();
      } catch (const Error&) { // created but not migrated yet
      }
    }
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_GE(before, 5u) << "fewer than 5 records after 2 minutes";
  std::set<int64_t> committed;
  {
    Database d(db);
    for (auto& r : d.recordsOfRun(1))
      committed.insert(r.id);
    ASSERT_LT(committed.size(), 16u) << "the run finished before the kill";
    EXPECT_EQ(d.run(1)->status, RunStatus::Running);
  }

  JobResult resumed = tool({LOWERSCOPE_CLI, "tune", "--resume", "1", "--db", db, "--quiet"}, 240);
  ASSERT_EQ(resumed.status, JobStatus::Ok) << resumed.payload << resumed.stderrText;
  EXPECT_NE(resumed.payload.find("runner slurm"), std::string::npos) << resumed.payload;
  EXPECT_NE(resumed.payload.find("run 1 finished: 16 trials recorded"), std::string::npos)
      << resumed.payload;
  Database d(db);
  EXPECT_EQ(d.integrityCheck(), "ok");
  std::set<int64_t> after;
  for (auto& r : d.recordsOfRun(1)) {
    after.insert(r.id);
    EXPECT_EQ(r.node, node_);
  }
  EXPECT_EQ(after.size(), 16u);
  for (int64_t id : committed)
    EXPECT_TRUE(after.count(id)) << "record " << id << " committed before the kill is lost";
  EXPECT_EQ(d.run(1)->status, RunStatus::Finished);
  // The killed process's arrays were cancelled or have ended: none is left.
  JobResult q = tool({"squeue", "-h", "-o", "%A %j"});
  EXPECT_EQ(q.payload.find("lowerscope-tune"), std::string::npos) << q.payload;
}

} // namespace
