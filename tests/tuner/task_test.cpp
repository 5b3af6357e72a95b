// Task extraction: workloads keyed by a structural hash that ignores names and
// is stable (pinned golden value), weights from call counts, FLOPs, targets
// per sub-target, and the workload's text form round trip.
#include <gtest/gtest.h>

#include <map>

#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/task.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;

namespace {

TEST(TaskTest, WorkloadHashIsAGoldenValue) {
  // The database keys records by this value: it must not change between
  // processes, machines or builds. If a deliberate change of the IR or the
  // hash alters it, every existing tuning database loses its records; bump
  // the database's schema version with a migration note then.
  EXPECT_EQ(workloadHash(te::matmulPrimFunc(64, 64, 64)), "0fb395d593951a52");
}

TEST(TaskTest, WorkloadHashIgnoresNamesAndAttributesButNotShapes) {
  auto a = te::matmulPrimFunc(64, 64, 64, "A", "B");
  auto b = te::matmulPrimFunc(64, 64, 64, "lhs", "rhs");
  ir::Attrs attrs = b->attrs;
  attrs.set("op_pattern", int64_t(4));
  attrs.set("target", std::string("fast"));
  auto c = ir::make<ir::PrimFunc>(b->params, b->body, attrs);
  EXPECT_EQ(workloadHash(a), workloadHash(b));
  EXPECT_EQ(workloadHash(a), workloadHash(c));
  EXPECT_NE(workloadHash(a), workloadHash(te::matmulPrimFunc(64, 64, 32)));
}

TEST(TaskTest, WorkloadTextRoundTrips) {
  auto w = workloadOf(te::matmulPrimFunc(16, 32, 8));
  auto back = parseWorkload(workloadText(w));
  EXPECT_TRUE(ir::structuralEqual(w, back));
  EXPECT_THROW(parseWorkload("not IR at all"), Error);
}

TEST(TaskTest, ExtractsDistinctWorkloadsWeightedByCalls) {
  BuildOptions o;
  o.target = "llvm -num-cores=1";
  auto tasks = extractTasks(smallModel(64), o);
  // matmul+relu twice (same shapes: one task of weight 2), then the 64x32
  // matmul once.
  ASSERT_EQ(tasks.size(), 2u);
  std::map<int, const Task*> byWeight;
  for (auto& t : tasks)
    byWeight[t.weight] = &t;
  ASSERT_TRUE(byWeight.count(2) && byWeight.count(1));
  EXPECT_EQ(byWeight[2]->functions.size(), 2u);
  EXPECT_DOUBLE_EQ(byWeight[2]->flops, 2.0 * 64 * 64 * 64 + 64 * 64); // multiply-adds + relu
  EXPECT_DOUBLE_EQ(byWeight[1]->flops, 2.0 * 64 * 32 * 64);
  for (auto& t : tasks) {
    EXPECT_TRUE(t.tunable) << t.whyNotTunable;
    EXPECT_EQ(t.target, "llvm -num-cores=1");
    EXPECT_EQ(t.hash, workloadHash(t.workload));
  }
}

TEST(TaskTest, CompositeTargetGivesOneTaskPerSubTarget) {
  BuildOptions o;
  o.target = "fast: llvm -num-cores=1; slow: llvm -num-cores=2";
  o.assignments = {{"lv2", "slow"}};
  auto tasks = extractTasks(smallModel(64), o);
  std::map<std::string, int> perTarget;
  for (auto& t : tasks)
    perTarget[t.target] += t.weight;
  EXPECT_EQ(perTarget["llvm -num-cores=1"], 2);
  EXPECT_EQ(perTarget["llvm -num-cores=2"], 1);
}

TEST(TaskTest, SymbolicTasksAreTunableAndCrossTargetOnesAreNot) {
  auto m = text::parseModule("@R.function\n"
                             "def main(x: R.Tensor((n, 8), \"float32\")) -> R.Tensor((n, 8), "
                             "\"float32\"):\n"
                             "    with R.dataflow():\n"
                             "        gv = R.nn.relu(x)\n"
                             "        R.output(gv)\n"
                             "    return gv\n");
  // Symbolic extents are measured at a size (symbolic_tune_test.cpp).
  auto tasks = extractTasks(m, BuildOptions{});
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_TRUE(tasks[0].tunable) << tasks[0].whyNotTunable;
  EXPECT_TRUE(tasks[0].symbolic);
  EXPECT_EQ(tasks[0].symbolicExtent, kDefaultSymbolicExtent);

  BuildOptions cross;
  cross.target = "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7";
  auto crossTasks = extractTasks(smallModel(16), cross);
  ASSERT_FALSE(crossTasks.empty());
  EXPECT_FALSE(crossTasks[0].tunable);
  EXPECT_NE(crossTasks[0].whyNotTunable.find("does not run on this machine"), std::string::npos);
}

} // namespace
