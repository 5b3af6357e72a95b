// Runner choice and the Slurm worker without a cluster: --partition values
// and their resolution to a composite target's sub-targets, RunnerOptions'
// JSON form (what --resume reads back), the factory's refusals, and the
// worker's result file: one line per candidate with this node's name, a
// candidate that cannot be read is its own failure, a restarted worker
// skips what is already written and recovers from a line cut by a kill.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/build.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/runner.h"
#include "tuner/slurm_runner.h"
#include "tuner/space.h"
#include "tuner/task.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;
using nlohmann::json;

namespace {

std::vector<json> resultLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(json::parse(line));
  return out;
}

class RunnerTest : public TempDirTest {};

TEST(RunnerOptionsTest, PartitionSpecsSetTheDefaultAndPerSubTargetPartitions) {
  RunnerOptions o;
  o.kind = "slurm";
  o.target = "host: llvm -num-cores=1; m7: cortex-m7";
  addPartitionSpec(o, "cpu");
  addPartitionSpec(o, "m7=boards");
  EXPECT_EQ(o.partition, "cpu");
  EXPECT_EQ(o.subTargetPartitions.at("m7"), "boards");
  auto composite = target::CompositeTarget::parse(o.target);
  EXPECT_EQ(partitionFor(o, composite.at("m7").str()), "boards");
  EXPECT_EQ(partitionFor(o, composite.at("host").str()), "cpu");
  EXPECT_THROW(addPartitionSpec(o, "=boards"), Error);
  EXPECT_THROW(addPartitionSpec(o, "m7="), Error);
  EXPECT_THROW(addPartitionSpec(o, ""), Error);
}

TEST(RunnerOptionsTest, AnUnknownSubTargetIsRefusedNamingTheKnownOnes) {
  RunnerOptions o;
  o.kind = "slurm";
  o.spool = std::filesystem::temp_directory_path().string();
  o.target = "host: llvm; m7: cortex-m7";
  addPartitionSpec(o, "a72=boards");
  try {
    makeRunner(o);
    FAIL() << "an unknown sub-target was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no sub-target 'a72'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host, m7"), std::string::npos) << e.what();
  }
}

TEST(RunnerOptionsTest, ACrossSubTargetWithItsOwnPartitionBecomesTunable) {
  BuildOptions b;
  b.target = "host: llvm -num-cores=1; m7: llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7";
  b.assignments = {{"lv2", "m7"}};
  auto tasks = extractTasks(smallModel(16), b);
  auto crossTasks = [&] {
    int n = 0;
    for (auto& t : tasks)
      n += t.subTarget == "m7";
    return n;
  };
  ASSERT_GT(crossTasks(), 0);
  for (auto& t : tasks) {
    if (t.subTarget == "m7") {
      EXPECT_FALSE(t.tunable);
    }
  }
  RunnerOptions o;
  o.kind = "slurm";
  o.target = b.target;
  EXPECT_EQ(enableRemoteSubTargets(tasks, o), 0); // no partition of its own: stays refused
  RunnerOptions local = o;
  local.kind = "local";
  addPartitionSpec(local, "m7=boards");
  EXPECT_EQ(enableRemoteSubTargets(tasks, local), 0); // measured here: cannot run
  addPartitionSpec(o, "m7=boards");
  EXPECT_EQ(enableRemoteSubTargets(tasks, o), crossTasks());
  for (auto& t : tasks) {
    EXPECT_TRUE(t.tunable) << t.name << ": " << t.whyNotTunable;
    EXPECT_GT(t.flops, 0) << t.name;
  }
}

TEST(RunnerOptionsTest, JsonRoundTripsAndAnOldRunsStringMeansLocal) {
  RunnerOptions o;
  o.kind = "slurm";
  o.partition = "cpu";
  o.subTargetPartitions["m7"] = "boards";
  o.target = "host: llvm; m7: cortex-m7";
  o.maxJobs = 7;
  o.jobTime = "00:10:00";
  o.spool = "/shared/spool";
  o.workerProgram = "/opt/lowerscope/bin/lowerscope-cli";
  o.extraSbatch = {"--account=tuning"};
  RunnerOptions back = RunnerOptions::fromJson(json::parse(o.toJson().dump()));
  EXPECT_EQ(back.kind, "slurm");
  EXPECT_EQ(back.partition, "cpu");
  EXPECT_EQ(back.subTargetPartitions, o.subTargetPartitions);
  EXPECT_EQ(back.target, o.target);
  EXPECT_EQ(back.maxJobs, 7);
  EXPECT_EQ(back.jobTime, "00:10:00");
  EXPECT_EQ(back.spool, "/shared/spool");
  EXPECT_EQ(back.workerProgram, o.workerProgram);
  EXPECT_EQ(back.extraSbatch, o.extraSbatch);
  EXPECT_EQ(RunnerOptions::fromJson(json("local")).kind, "local");
  EXPECT_THROW(RunnerOptions::fromJson(json{{"max_jobs", "many"}}), Error);
}

TEST(RunnerOptionsTest, TheFactoryRefusesUnknownKindsAndASlurmRunnerWithoutSpool) {
  RunnerOptions o;
  EXPECT_EQ(makeRunner(o)->name(), "local");
  EXPECT_FALSE(makeRunner(o)->measuresRemotely());
  o.kind = "ssh";
  EXPECT_THROW(makeRunner(o), Error);
  o.kind = "slurm";
  try {
    makeRunner(o);
    FAIL() << "a slurm runner without a spool directory was made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("spool"), std::string::npos) << e.what();
  }
}

TEST_F(RunnerTest, WorkerWritesOneLinePerCandidateWithItsNodeAndSkipsWhatIsDone) {
  const std::string target = "llvm -num-cores=1";
  auto w = te::matmulPrimFunc(32, 32, 32);
  DesignSpace space(transform::schedulePolicyFor(target::Target::parse(target)));
  auto base = space.apply(w, space.basePoint());
  ASSERT_TRUE(base);
  MeasureJob good{w, target, base->trace};
  MeasureSettings s;
  s.minSeconds = 0.001;
  json badJob = good.toJson();
  badJob["trace"] = "not a trace";
  json task = {{"settings", s.toJson()},
               {"seed", 3},
               {"jobs", {{{"index", 4}, {"job", good.toJson()}}, {{"index", 9}, {"job", badJob}}}}};
  std::ofstream(file("task-0.json")) << task.dump();
  ::setenv("SLURMD_NODENAME", "board-17", 1);
  runWorker(file("task-0.json"), file("result-0.jsonl"));
  ::unsetenv("SLURMD_NODENAME");
  auto lines = resultLines(file("result-0.jsonl"));
  ASSERT_EQ(lines.size(), 2u);
  std::map<size_t, MeasureResult> byIndex;
  for (auto& l : lines)
    byIndex[l.at("index").get<size_t>()] = MeasureResult::fromJson(l.at("result"));
  ASSERT_TRUE(byIndex.count(4) && byIndex.count(9));
  EXPECT_EQ(byIndex[4].status, RecordStatus::Ok) << byIndex[4].errorMessage;
  EXPECT_FALSE(byIndex[4].times.empty());
  EXPECT_EQ(byIndex[4].node, "board-17");
  EXPECT_EQ(byIndex[9].status, RecordStatus::BuildError);
  EXPECT_EQ(byIndex[9].errorKind, "job");
  EXPECT_NE(byIndex[9].errorMessage.find("board-17"), std::string::npos);

  // Started again (a requeued task): nothing is measured twice.
  runWorker(file("task-0.json"), file("result-0.jsonl"));
  EXPECT_EQ(resultLines(file("result-0.jsonl")).size(), 2u);
}

TEST_F(RunnerTest, WorkerAfterAKillMidLineMeasuresTheCutCandidateAgain) {
  const std::string target = "llvm -num-cores=1";
  auto w = te::matmulPrimFunc(16, 16, 16);
  DesignSpace space(transform::schedulePolicyFor(target::Target::parse(target)));
  auto base = space.apply(w, space.basePoint());
  ASSERT_TRUE(base);
  MeasureJob job{w, target, base->trace};
  MeasureSettings s;
  s.minSeconds = 0.001;
  json task = {{"settings", s.toJson()}, {"jobs", {{{"index", 0}, {"job", job.toJson()}}}}};
  std::ofstream(file("task.json")) << task.dump();
  std::ofstream(file("out.jsonl")) << "{\"index\": 0, \"res"; // the kill cut this line
  runWorker(file("task.json"), file("out.jsonl"));
  std::ifstream in(file("out.jsonl"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_FALSE(json::accept(lines[0]));
  auto r = MeasureResult::fromJson(json::parse(lines[1]).at("result"));
  EXPECT_EQ(r.status, RecordStatus::Ok) << r.errorMessage;
}

TEST_F(RunnerTest, WorkerRefusesATaskFileThatIsNotOneNamingIt) {
  std::ofstream(file("task.json")) << "[1, 2";
  try {
    runWorker(file("task.json"), file("out.jsonl"));
    FAIL() << "a broken task file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("task.json"), std::string::npos) << e.what();
  }
}

} // namespace
