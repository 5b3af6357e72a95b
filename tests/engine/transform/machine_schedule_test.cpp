// DefaultSchedule follows the target stored in the module, not the CPU the
// test runs on: each tensor function's target (transform::primFuncTargets)
// gives the machine model, the model the policy, the policy the tiles,
// vectors and parallel loops. PassContext config overrides knobs by name.
#include <gtest/gtest.h>

#include "engine/support/error.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "engine/transform/function_target.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;

namespace {

IRModule withTarget(const IRModule& m, const std::string& t) {
  return withAttrs(m, m->attrs.with("target", t));
}

PrimFuncRef withFuncTarget(const PrimFuncRef& f, const std::string& sub) {
  return make<PrimFunc>(f->params, f->body, f->attrs.with("target", sub));
}

/// m with its graph function `main` carrying "target" = sub.
IRModule withMainTarget(const IRModule& m, const std::string& sub) {
  auto* fn = as<Function>(m->lookup("main"));
  return withFunction(
      m, "main",
      make<Function>(fn->params, fn->body, fn->retSInfo, fn->attrs.with("target", sub), fn->pure));
}

PrimFuncRef scheduledKernel(const IRModule& m, const Attrs& config = {},
                            const std::string& name = "kernel") {
  return cast<PrimFunc>(transform::defaultSchedule(m, config)->lookup(name));
}

/// The loops around the block named `block`, outermost first.
std::vector<const For*> loopsAround(const PrimFuncRef& f, const std::string& block) {
  std::vector<const For*> out;
  for (auto* l : allLoops(f)) {
    bool holds = false;
    walkStmt(l->body, [&](const Stmt& s) {
      holds = holds || (isa<Block>(s) && as<Block>(s)->name == block);
    });
    if (holds)
      out.push_back(l);
  }
  return out;
}

/// (V, U) of the matmul tile: the innermost loop's extent and the one
/// around it.
std::pair<int64_t, int64_t> tileOf(const PrimFuncRef& f) {
  auto loops = loopsAround(f, "C");
  if (loops.size() < 2)
    return {-1, -1};
  return {asConstInt(loops.back()->extent).value_or(-1),
          asConstInt(loops[loops.size() - 2]->extent).value_or(-1)};
}

int64_t parallelExtent(const PrimFuncRef& f) {
  for (auto* l : allLoops(f))
    if (l->forKind == ForKind::Parallel)
      return asConstInt(l->extent).value_or(-1);
  return 0;
}

} // namespace

TEST(FunctionTarget, ModuleAttributeFunctionAttributeAndCallersDecide) {
  IRModule m = transform::moduleCallingPrimFunc(te::matmulPrimFunc(8, 16, 4));
  // No "target" in the module: the host.
  EXPECT_EQ(transform::targetOf(m, "kernel").str(), "llvm");
  EXPECT_EQ(transform::targetOf(withTarget(m, "llvm -mcpu=haswell"), "kernel").get("mcpu"),
            "haswell");
  std::string composite = "fast: llvm -mcpu=znver4; m7: cortex-m7";
  // Called from a graph function on the default sub-target.
  EXPECT_EQ(transform::targetOf(withTarget(m, composite), "kernel").get("mcpu"), "znver4");
  // Called from a graph function on m7.
  IRModule onM7 = withTarget(withMainTarget(m, "m7"), composite);
  EXPECT_EQ(transform::targetOf(onM7, "kernel").get("mcpu"), "cortex-m7");
  // The function's own attribute wins.
  auto f = cast<PrimFunc>(onM7->lookup("kernel"));
  EXPECT_EQ(transform::targetOf(withFunction(onM7, "kernel", withFuncTarget(f, "fast")), "kernel")
                .get("mcpu"),
            "znver4");
  EXPECT_THROW(
      transform::targetOf(withFunction(onM7, "kernel", withFuncTarget(f, "gpu")), "kernel"), Error);
  EXPECT_THROW(transform::targetOf(onM7, "main"), Error);
  EXPECT_EQ(transform::primFuncTargets(onM7).size(), 1u);
}

TEST(MachineSchedule, TileFollowsTheTargetCpu) {
  // 128x768 * 768x768: 16 lanes, 24 accumulators -> 48 x 8; 8 lanes, 12
  // accumulators -> 24 x 4 (the same numbers as DefaultScheduleTiles, here
  // reached through the module's target).
  IRModule m = transform::moduleCallingPrimFunc(te::matmulPrimFunc(128, 768, 768));
  EXPECT_EQ(tileOf(scheduledKernel(withTarget(m, "llvm -mcpu=znver4"))),
            (std::pair<int64_t, int64_t>{48, 8}));
  EXPECT_EQ(tileOf(scheduledKernel(withTarget(m, "llvm -mcpu=skylake-avx512"))),
            (std::pair<int64_t, int64_t>{48, 8}));
  EXPECT_EQ(tileOf(scheduledKernel(withTarget(m, "llvm -mcpu=haswell"))),
            (std::pair<int64_t, int64_t>{24, 4}));
  // -mattr=-avx512f turns a Zen 4 into an AVX2 machine.
  EXPECT_EQ(tileOf(scheduledKernel(withTarget(m, "llvm -mcpu=znver4 -mattr=-avx512f"))),
            (std::pair<int64_t, int64_t>{24, 4}));
  // AArch64 (4 lanes, 24 of 32 registers): 3 vectors x 8 rows.
  EXPECT_EQ(tileOf(scheduledKernel(withTarget(m, "cortex-a72"))),
            (std::pair<int64_t, int64_t>{12, 8}));
}

TEST(MachineSchedule, ParallelLoopsFollowNumCores) {
  // Three outer loops of 3 and a vectorized row of 64: the leading loops
  // are fused until they count 4 chunks per core.
  auto A = te::placeholder({intImm(3), intImm(3), intImm(3), intImm(64)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(3), intImm(3), intImm(3), intImm(64)}, DataType::Float32(), "B");
  auto C = te::topi::add(A, B, "C");
  IRModule m = transform::moduleCallingPrimFunc(te::createPrimFunc({A, B, C}));
  EXPECT_EQ(parallelExtent(scheduledKernel(withTarget(m, "llvm -mcpu=haswell -num-cores=3"))), 27);
  EXPECT_EQ(parallelExtent(scheduledKernel(withTarget(m, "llvm -mcpu=haswell -num-cores=2"))), 9);
  EXPECT_EQ(parallelExtent(scheduledKernel(withTarget(m, "llvm -mcpu=haswell -num-cores=1"))), 9);
  // The config's tir.num_cores overrides the target's cores.
  EXPECT_EQ(parallelExtent(scheduledKernel(withTarget(m, "llvm -mcpu=haswell -num-cores=1"),
                                           Attrs{{"tir.num_cores", int64_t(3)}})),
            27);
}

TEST(MachineSchedule, CortexM7GetsASmallScalarTileAndNoThreads) {
  auto f = te::matmulPrimFunc(16, 96, 20);
  IRModule m = withTarget(transform::moduleCallingPrimFunc(f), "cortex-m7");
  PrimFuncRef g = scheduledKernel(m);
  ASSERT_FALSE(sameNode(f, g));
  EXPECT_EQ(countLoops(g, ForKind::Parallel), 0);
  EXPECT_EQ(countLoops(g, ForKind::Vectorized), 0);
  // 4 columns x 4 rows of scalars, both unrolled.
  auto loops = loopsAround(g, "C");
  ASSERT_GE(loops.size(), 2u);
  EXPECT_EQ(loops.back()->forKind, ForKind::Unrolled);
  EXPECT_EQ(loops[loops.size() - 2]->forKind, ForKind::Unrolled);
  EXPECT_EQ(tileOf(g), (std::pair<int64_t, int64_t>{4, 4}));
  auto a = randomTensor({16, 20}, 61), b = randomTensor({20, 96}, 62);
  EXPECT_TRUE(close(run(g, {a, b}, {16, 96}), matmulRef(a, b)));
  // An elementwise kernel: neither vectorized nor parallel.
  auto A = te::placeholder({intImm(8), intImm(512)}, DataType::Float32(), "A");
  auto C = te::topi::add(A, A, "C");
  PrimFuncRef e = scheduledKernel(
      withTarget(transform::moduleCallingPrimFunc(te::createPrimFunc({A, C})), "cortex-m7"));
  EXPECT_EQ(countLoops(e, ForKind::Parallel) + countLoops(e, ForKind::Vectorized), 0);
}

TEST(MachineSchedule, SchedulePolicyConfigOverridesKnobsByName) {
  IRModule m = withTarget(transform::moduleCallingPrimFunc(te::matmulPrimFunc(128, 768, 768)),
                          "llvm -mcpu=haswell");
  Attrs config{{"tir.schedule_policy", std::string(R"({"tile_rows": [2, 1]})")}};
  // At most 2 rows: the widest tile of 12 accumulators is 4 vectors x 2.
  EXPECT_EQ(tileOf(scheduledKernel(m, config)), (std::pair<int64_t, int64_t>{32, 2}));
  config = Attrs{
      {"tir.schedule_policy", std::string(R"({"vector_lanes": 16, "accumulator_registers": 24})")}};
  EXPECT_EQ(tileOf(scheduledKernel(m, config)), (std::pair<int64_t, int64_t>{48, 8}));
  config = Attrs{{"tir.schedule_policy", std::string(R"({"no_such_knob": 1})")}};
  EXPECT_THROW(scheduledKernel(m, config), Error);
}

TEST(MachineSchedule, EachSubTargetGetsItsOwnMachine) {
  auto f = te::matmulPrimFunc(128, 768, 768);
  IRModule m = makeModule({{"a", withFuncTarget(f, "fast")}, {"b", withFuncTarget(f, "slow")}},
                          Attrs{{"target", std::string("fast: llvm -mcpu=znver4; "
                                                       "slow: llvm -mcpu=haswell")}});
  IRModule s = transform::defaultSchedule(m);
  EXPECT_EQ(tileOf(cast<PrimFunc>(s->lookup("a"))), (std::pair<int64_t, int64_t>{48, 8}));
  EXPECT_EQ(tileOf(cast<PrimFunc>(s->lookup("b"))), (std::pair<int64_t, int64_t>{24, 4}));
}
