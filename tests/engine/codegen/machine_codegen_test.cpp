// The machine model reaches machine code: `llvm -mcpu=haswell` builds AVX2
// code (no zmm register), znver4 and skylake-avx512 AVX-512 code (zmm),
// cortex-m7 Thumb code with scalar tiles and no threads. Every build's
// assembly is checked on any host; only the builds this host's CPU can
// execute (by its own machine model) are run, and each of those must equal
// the reference evaluator, so on an AVX2-only machine the AVX-512 code is
// emitted and inspected but never executed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/codegen/codegen.h"
#include "engine/target/machine_model.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/e2e/e2e_util.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace e2e;

namespace {

ir::IRModule cnnModule() {
  std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/cnn.uir");
  std::stringstream ss;
  ss << in.rdbuf();
  return transform::normalize(text::parseModule(ss.str()));
}

/// build() of m for target t, with t also in the module's "target"
/// attribute (where DefaultSchedule reads it).
BuildResult buildFor(const ir::IRModule& m, const std::string& t) {
  BuildOptions opts;
  opts.target = t;
  return build(ir::withAttrs(m, m->attrs.with("target", t)), opts);
}

std::string assemblyOf(const BuildResult& r) {
  return r.compiled ? r.compiled->assembly() : r.artifacts.assembly;
}

/// Whether code for model m runs on this machine's CPU.
bool hostCanRun(const target::MachineModel& m) {
  auto host = target::hostMachineModel();
  if (host.arch != m.arch || !m.runsHere)
    return false;
  for (auto& f : m.features)
    if (f != "prefer-256-bit" && !host.has(f))
      return false;
  return true;
}

int countLoopsOfKind(const ir::IRModule& m, ir::ForKind kind) {
  int n = 0;
  for (auto& [name, f] : m->functions)
    if (auto pf = ir::cast<ir::PrimFunc>(f))
      n += schedule::testing::countLoops(pf, kind);
  return n;
}

} // namespace

TEST(MachineCodegen, X86CpusGetTheirVectorWidthAndAgreeWhereTheyRun) {
  ir::IRModule m = cnnModule();
  auto inputs = randomInputs(m, {}, {}, 11);
  auto want = runtime::referenceRun(m, inputs);
  int ran = 0;
  for (auto [t, zmm] :
       std::vector<std::pair<std::string, bool>>{{"llvm -mcpu=haswell", false},
                                                 {"llvm -mcpu=znver4", true},
                                                 {"llvm -mcpu=skylake-avx512", true},
                                                 {"llvm -mcpu=x86-64", false}}) {
    SCOPED_TRACE(t);
    BuildResult r = buildFor(m, t);
    std::string s = assemblyOf(r);
    ASSERT_FALSE(s.empty());
    EXPECT_EQ(s.find("%zmm") != std::string::npos, zmm);
    // The vector width the schedule tiled for is the one in the code:
    // 256-bit registers for Haswell, none wider than 128 for the baseline.
    if (t == "llvm -mcpu=haswell") {
      EXPECT_NE(s.find("%ymm"), std::string::npos);
    }
    if (t == "llvm -mcpu=x86-64") {
      EXPECT_EQ(s.find("%ymm"), std::string::npos);
    }
    if (hostCanRun(target::machineModel(target::Target::parse(t)))) {
      ASSERT_TRUE(r.executable);
      EXPECT_TRUE(allClose(r.executable->runTensors(inputs), want, 1e-4, 1e-4));
      ++ran;
    }
  }
  // The baseline runs on every x86-64 machine.
  if (target::hostMachineModel().arch == "x86_64") {
    EXPECT_GE(ran, 1);
  }
}

TEST(MachineCodegen, PreferredWidthFollowsTheModel) {
  // A kernel scheduled for 16 lanes, emitted for an AVX-512 CPU: zmm,
  // although LLVM's own tuning of that CPU prefers 256-bit vectors;
  // +prefer-256-bit restores LLVM's choice.
  auto f = transform::defaultSchedule(te::matmulPrimFunc(64, 96, 48),
                                      schedule::testing::avx512Policy(1));
  codegen::CodegenOptions co;
  co.triple = "x86_64-unknown-linux-gnu";
  co.cpu = "skylake-avx512";
  EXPECT_NE(codegen::emitAssembly({{"mm", f}}, co).find("%zmm"), std::string::npos);
  co.features = "+prefer-256-bit";
  EXPECT_EQ(codegen::emitAssembly({{"mm", f}}, co).find("%zmm"), std::string::npos);
  co.cpu = "haswell";
  co.features = "";
  EXPECT_EQ(codegen::emitAssembly({{"mm", f}}, co).find("%zmm"), std::string::npos);
}

TEST(MachineCodegen, CortexM7IsThumbCodeWithScalarTilesAndNoThreads) {
  std::string t = "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7";
  BuildResult r = buildFor(cnnModule(), t);
  EXPECT_TRUE(r.compileOnly());
  const std::string& s = r.artifacts.assembly;
  EXPECT_NE(s.find(".cpu\tcortex-m7"), std::string::npos);
  EXPECT_NE(s.find(".thumb_func"), std::string::npos);
  EXPECT_NE(s.find("vfma.f32"), std::string::npos); // the FPU's fused multiply-add
  EXPECT_EQ(s.find("unity_parallel_for"), std::string::npos);
  ASSERT_GE(r.artifacts.object.size(), 20u);
  EXPECT_EQ(r.artifacts.object[18], 40); // e_machine EM_ARM
  // What DefaultSchedule made (later passes unroll the marked loops).
  ir::IRModule scheduled;
  for (auto& rec : r.records)
    if (rec.name == "DefaultSchedule")
      scheduled = rec.after;
  ASSERT_TRUE(scheduled);
  EXPECT_EQ(countLoopsOfKind(scheduled, ir::ForKind::Parallel), 0);
  EXPECT_EQ(countLoopsOfKind(scheduled, ir::ForKind::Vectorized), 0);
  EXPECT_GT(countLoopsOfKind(scheduled, ir::ForKind::Unrolled), 0);
  // The same model for the host (no target in the module): threads and
  // vectors.
  BuildOptions host;
  host.codegen = false;
  for (auto& rec : build(cnnModule(), host).records)
    if (rec.name == "DefaultSchedule")
      scheduled = rec.after;
  EXPECT_GT(countLoopsOfKind(scheduled, ir::ForKind::Parallel), 0);
}
