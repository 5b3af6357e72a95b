// Tuning a model with symbolic extents (a batch n): its tasks are measured
// with every free shape variable at the run's size, their FLOPs are counted
// at that size, the records are committed like any other, and a build with
// the database applies the tuned schedule to the symbolic kernel, which
// then computes the untuned build's values at other sizes too.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/runtime/compare.h"
#include "engine/support/error.h"
#include "tests/engine/te/te_test_util.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/apply_database.h"
#include "tuner/features.h"
#include "tuner/measure.h"
#include "tuner/search.h"
#include "tuner/task.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;
using unity::te::testing::randomTensor;

namespace {

const char* kTarget = "llvm -num-cores=1";

/// relu(x @ w) for x of shape (n, 64) with n symbolic.
ir::IRModule symbolicModel() {
  return text::parseModule("@R.function\n"
                           "def main(x: R.Tensor((n, 64), \"float32\"), w: R.Tensor((64, 32), "
                           "\"float32\")) -> R.Tensor((n, 32), \"float32\"):\n"
                           "    with R.dataflow():\n"
                           "        lv0 = R.matmul(x, w)\n"
                           "        gv = R.nn.relu(lv0)\n"
                           "        R.output(gv)\n"
                           "    return gv\n",
                           "<symbolic model>");
}

std::vector<Task> tasksAt(int64_t size) {
  BuildOptions o;
  o.target = kTarget;
  return extractTasks(symbolicModel(), o, size);
}

class SymbolicTuneTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    registerTunerPasses();
  }
};

TEST_F(SymbolicTuneTest, TasksAreTunableWithTheirFlopsAtTheSize) {
  auto at48 = tasksAt(48), at96 = tasksAt(96);
  ASSERT_EQ(at48.size(), 1u);
  ASSERT_EQ(at96.size(), 1u);
  const Task& t = at96[0];
  EXPECT_TRUE(t.tunable) << t.whyNotTunable;
  EXPECT_TRUE(t.symbolic);
  EXPECT_EQ(t.symbolicExtent, 96);
  // The matmul's work grows with n: twice the rows, twice the FLOPs, and
  // at least the n * 64 * 32 multiply-adds of the product.
  EXPECT_DOUBLE_EQ(t.flops, 2 * at48[0].flops);
  EXPECT_GE(t.flops, 2.0 * 96 * 64 * 32);
  // The size does not enter the workload: one hash for both.
  EXPECT_EQ(t.hash, at48[0].hash);
  EXPECT_THROW(tasksAt(0), Error);
}

TEST_F(SymbolicTuneTest, ShapesTakeTheSizeAndTheReferenceRunsAtIt) {
  const Task t = tasksAt(40)[0];
  ASSERT_EQ(t.workload->params.size(), 3u);
  EXPECT_EQ(concreteShape(t.workload, 0, 40), (std::vector<int64_t>{40, 64}));
  EXPECT_EQ(concreteShape(t.workload, 1, 40), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(concreteShape(t.workload, 2, 40), (std::vector<int64_t>{40, 32}));
  EXPECT_THROW(concreteShape(t.workload, 3, 40), Error);

  auto ref = makeReference(t.workload, kTarget, 5, LocalBuilder(), 1, 40);
  ASSERT_EQ(ref.inputs.size(), 2u);
  EXPECT_EQ(ref.inputs[0].shape(), (std::vector<int64_t>{40, 64}));
  ASSERT_EQ(ref.outputs.size(), 1u);
  EXPECT_EQ(ref.outputs[0].shape(), (std::vector<int64_t>{40, 32}));
  // relu(x @ w), element (3, 5), computed here from the inputs.
  double want = 0;
  for (int k = 0; k < 64; ++k)
    want += ref.inputs[0].getDouble(3 * 64 + k) * ref.inputs[1].getDouble(k * 32 + 5);
  EXPECT_NEAR(ref.outputs[0].getDouble(3 * 32 + 5), std::max(0.0, want), 1e-4);

  // The settings that carry the size travel to a remote worker.
  MeasureSettings s;
  s.symbolicExtent = 40;
  EXPECT_EQ(MeasureSettings::fromJson(s.toJson()).symbolicExtent, 40);
  EXPECT_THROW(MeasureSettings::fromJson({{"symbolic_extent", 0}}), Error);
}

TEST_F(SymbolicTuneTest, RunMeasuresAtTheSizeAndTheBuildAppliesItsBestRecordAtAnySize) {
  Database db(file("t.db"));
  TuneOptions o;
  o.trials = 6;
  o.batchSize = 3;
  o.population = 24;
  o.measure.minSeconds = 0.005;
  o.measure.symbolicExtent = 64;
  o.measure.timeoutSeconds = 120; // a build under the sanitizers on a busy machine is slow
  LocalRunner runner;
  TuningRun run(db, tasksAt(64), o, runner, {{"test", "symbolic"}});
  run.run();
  ASSERT_EQ(run.tasks().size(), 1u);
  const TaskState& st = run.tasks()[0];
  auto records = db.recordsOfRun(run.runId());
  ASSERT_EQ(records.size(), 6u);
  for (auto& r : records) {
    EXPECT_EQ(r.status, RecordStatus::Ok) << r.errorKind << ": " << r.errorMessage;
    EXPECT_TRUE(r.meanS && *r.meanS > 0);
  }
  EXPECT_GT(st.bestSeconds, 0);
  EXPECT_GT(st.defaultSeconds, 0);

  BuildOptions tuned;
  tuned.target = kTarget;
  tuned.passes = pipelineWithDatabase();
  tuned.config.set(kDatabaseConfigKey, db.path());
  auto withDb = build(symbolicModel(), tuned);
  int applied = 0;
  for (auto& [name, fn] : withDb.lowered->functions)
    if (auto f = ir::cast<ir::PrimFunc>(fn); f && f->attrs.has("tuned")) {
      ++applied;
      EXPECT_EQ(f->attrs.getInt("tuning_record", 0), st.bestRecord) << name;
    }
  EXPECT_EQ(applied, 1);

  BuildOptions plain;
  plain.target = kTarget;
  auto untuned = build(symbolicModel(), plain);
  for (int64_t n : {1, 37, 64, 130}) {
    std::vector<Tensor> in{randomTensor({n, 64}, uint32_t(n)), randomTensor({64, 32}, 99)};
    auto got = withDb.executable->runTensors(in), want = untuned.executable->runTensors(in);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].shape(), (std::vector<int64_t>{n, 32}));
    EXPECT_TRUE(runtime::compareTensorLists(got, want, {1e-4, 1e-4}).same()) << "n = " << n;
  }
}

} // namespace
