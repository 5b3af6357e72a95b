#include <gtest/gtest.h>

#include <cmath>

#include "engine/build.h"
#include "engine/codegen/codegen.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/transform/lower_executor.h"
#include "engine/transform/normalize.h"
#include "engine/transform/target_hooks.h"

using namespace unity;
using namespace unity::ir;

namespace {

/// out[i, j] = in0[i, j] * 2 + in1[i, j] over (n, 16), or relu when unary.
BaseFunc ewise2D(const Ref<PrimVar>& n, int numInputs, bool relu) {
  std::vector<PrimFunc::Param> params;
  std::vector<BufferRef> ins;
  for (int k = 0; k < numInputs; ++k) {
    ins.push_back(
        makeBuffer("in" + std::to_string(k), DataType::Float32(), {PrimExpr(n), intImm(16)}));
    params.push_back({ins.back(), nullptr});
  }
  auto out = makeBuffer("out", DataType::Float32(), {PrimExpr(n), intImm(16)});
  params.push_back({out, nullptr});
  auto i = primVar("i"), j = primVar("j"), vi = primVar("vi"), vj = primVar("vj");
  std::vector<PrimExpr> idx = {vi, vj};
  PrimExpr value = make<BufferLoad>(ins[0], idx);
  if (relu)
    value = max(value, floatImm(0.0));
  else
    value = value * floatImm(2.0) + make<BufferLoad>(ins[1], idx);
  Stmt store = make<BufferStore>(out, value, idx);
  Stmt blk = make<Block>("compute",
                         std::vector<IterVar>{{vi, {intImm(0), PrimExpr(n)}, IterType::Spatial},
                                              {vj, {intImm(0), intImm(16)}, IterType::Spatial}},
                         std::vector<PrimExpr>{PrimExpr(i), PrimExpr(j)},
                         std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, nullptr, store);
  Stmt loop = make<For>(i, intImm(0), PrimExpr(n), ForKind::Parallel,
                        make<For>(j, intImm(0), intImm(16), ForKind::Serial, blk));
  return make<PrimFunc>(std::move(params), loop);
}

/// main(x, y: (n, 16)) = relu(x * 2 + y) then relu again, via call_tir.
IRModule sampleModule() {
  auto n = primVar("n");
  auto sinfo = [&] {
    return tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{n, intImm(16)});
  };
  Var x = makeVar("x", sinfo()), y = makeVar("y", sinfo());
  Var a = makeDataflowVar("a", nullptr), b = makeDataflowVar("b", nullptr);
  Var gv = makeVar("gv", nullptr);
  auto callTIR = [&](const std::string& f, std::vector<Expr> args) {
    return make<Call>(
        opRef("call_tir"),
        std::vector<Expr>{Expr(make<GlobalVar>(f)), Expr(make<Tuple>(std::move(args)))}, Attrs{},
        std::vector<StructInfo>{sinfo()});
  };
  auto blk = make<BindingBlock>(std::vector<Binding>{make<VarBinding>(a, callTIR("axpy", {x, y})),
                                                     make<VarBinding>(b, callTIR("relu", {a})),
                                                     make<VarBinding>(gv, callTIR("relu", {b}))},
                                true);
  BaseFunc main =
      make<Function>(std::vector<Var>{x, y},
                     Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv))), nullptr);
  auto n2 = primVar("n");
  return makeModule(
      {{"main", main}, {"axpy", ewise2D(n2, 2, false)}, {"relu", ewise2D(primVar("n"), 1, true)}});
}

const std::vector<std::string> kPasses = {"Normalize", "AnnotateOpPattern",   "FuseOps",
                                          "FuseTIR",   "DeadCodeElimination", "LowerBlocks",
                                          "Simplify",  "LowerToExecutor"};

Tensor randomTensor(std::vector<int64_t> shape, unsigned seed) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, std::sin(double(i * 7 + seed)) * 3.0);
  return t;
}

} // namespace

TEST(Build, CallTIRModuleRunsAtTwoSymbolicSizesAndMatchesDirectComputation) {
  BuildOptions opts;
  opts.passes = kPasses;
  BuildResult r = build(sampleModule(), opts);
  ASSERT_TRUE(r.executable);
  for (int64_t n : {3, 37}) {
    Tensor x = randomTensor({n, 16}, 1), y = randomTensor({n, 16}, 2);
    auto outs = r.executable->runTensors({x, y});
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{n, 16}));
    for (int64_t i = 0; i < x.numel(); ++i) {
      double want = std::max(0.0, x.getDouble(i) * 2 + y.getDouble(i));
      ASSERT_NEAR(outs[0].getDouble(i), want, 1e-5) << "n=" << n << " i=" << i;
    }
  }
}

TEST(Build, RecordsEveryPassAndFusesTheChain) {
  BuildOptions opts;
  opts.passes = kPasses;
  opts.codegen = false;
  BuildResult r = build(sampleModule(), opts);
  ASSERT_EQ(r.records.size(), kPasses.size() + 1); // + the enclosing sequence
  for (size_t i = 0; i < kPasses.size(); ++i)
    EXPECT_EQ(r.records[i + 1].name, kPasses[i]);
  // The three kernels became one fused PrimFunc called once.
  int kernels = 0;
  for (auto& [name, f] : r.lowered->functions)
    kernels += isa<PrimFunc>(f);
  EXPECT_EQ(kernels, 1);
}

TEST(Build, StaticShapesGetPlannedSlotsAndEscapingOutputIsFresh) {
  // Without fusion, two intermediates of equal size: the second reuses no
  // slot of a live value, and the output (escaping) gets slot -1.
  BuildOptions opts;
  opts.passes = {"Normalize", "LowerBlocks", "LowerToExecutor"};
  opts.codegen = false;
  BuildResult r = build(sampleModule(), opts);
  auto* main = as<Function>(r.lowered->lookup("main"));
  ASSERT_NE(main, nullptr);
  std::vector<int64_t> slots;
  postOrderVisit(main->body, [&](const Expr& e) {
    if (auto* c = as<Call>(e))
      if (auto* ext = as<ExternFunc>(c->op); ext && ext->symbol == transform::kAllocTensor)
        slots.push_back(*asConstInt(as<PrimValue>(c->args[1])->value));
  });
  ASSERT_EQ(slots.size(), 3u);
  // Symbolic n: the intermediates get slots of run-time size (storage_bytes
  // -1, grown by the executor), two because both are live at once; the
  // escaping output is allocated fresh.
  EXPECT_EQ(slots, (std::vector<int64_t>{0, 1, -1}));
  EXPECT_EQ(main->attrs.getInts("storage_bytes"), (std::vector<int64_t>{-1, -1}));
}

TEST(Build, WrongInputShapeIsAClearError) {
  BuildOptions opts;
  opts.passes = kPasses;
  BuildResult r = build(sampleModule(), opts);
  Tensor x = randomTensor({4, 16}, 1), y = randomTensor({5, 16}, 2);
  try {
    r.executable->runTensors({x, y});
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("argument 'y'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected 4"), std::string::npos) << msg;
  }
}

TEST(Build, UnknownTargetAttributeIsNamed) {
  BuildOptions opts;
  opts.target = "llvm -mcpuu=native";
  try {
    build(sampleModule(), opts);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-mcpuu"), std::string::npos);
  }
}

// --- the driver's steps --------------------------------------------------------

namespace {

/// main(x) = (relu(x) + x) * x with named bindings a, b, gv.
const char* kChain = R"(
@R.function
def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 8), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        a = R.nn.relu(x)
        b = R.add(a, x)
        gv: R.Tensor((4, 8), "float32") = R.multiply(b, x)
        R.output(gv)
    return gv
)";

IRModule chainModule() { return transform::normalize(text::parseModule(kChain)); }

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.message();
  }
  return "<no error>";
}

const SubTargetArtifacts* partNamed(const BuildResult& r, const std::string& name) {
  for (auto& p : r.parts)
    if (p.name == name)
      return &p;
  return nullptr;
}

/// Replaces a kind's hooks for the lifetime of the guard.
struct HooksGuard {
  std::string kind;
  transform::TargetKindHooks saved;
  HooksGuard(std::string k, transform::TargetKindHooks replacement) : kind(std::move(k)) {
    codegen::registerCodegenKindHooks();
    saved = *transform::findKindHooks(kind);
    transform::registerKindHooks(kind, std::move(replacement));
  }
  ~HooksGuard() { transform::registerKindHooks(kind, saved); }
};

} // namespace

TEST(BuildDriver, APlainLLVMBuildGoesThroughTheKindsHook) {
  codegen::registerCodegenKindHooks();
  transform::TargetKindHooks real = *transform::findKindHooks("llvm");
  int calls = 0;
  transform::TargetKindHooks spy = real;
  spy.tirToRuntime = [&](const runtime::NamedPrimFuncs& funcs, const target::Target& t) {
    ++calls;
    return real.tirToRuntime(funcs, t);
  };
  HooksGuard guard("llvm", spy);
  BuildOptions opts;
  opts.passes = kPasses;
  BuildResult r = build(sampleModule(), opts);
  EXPECT_EQ(calls, 1);
  // Still a plain build: the target's own module, no parts.
  EXPECT_TRUE(r.composite.empty());
  EXPECT_TRUE(r.parts.empty());
  ASSERT_TRUE(r.executable);
  EXPECT_FALSE(r.compiled->llvmIR().empty());
  Tensor x = randomTensor({3, 16}, 1), y = randomTensor({3, 16}, 2);
  EXPECT_EQ(r.executable->runTensors({x, y}).size(), 1u);
}

TEST(BuildDriver, AKindWithoutACodegenHookIsNamed) {
  HooksGuard guard("llvm", {});
  EXPECT_NE(errorOf([] { build(chainModule()); })
                .find("target kind 'llvm' of sub-target 'llvm' has "
                      "no tir_to_runtime hook"),
            std::string::npos);
}

TEST(BuildDriver, EveryBuildStoresItsTargetInTheModule) {
  BuildOptions plain;
  plain.target = "llvm -opt-level=2";
  BuildResult r = build(chainModule(), plain);
  EXPECT_EQ(r.lowered->attrs.getString("target"), "llvm -opt-level=2");
  ASSERT_FALSE(r.records.empty());
  // From the first pass on, so every pass can find the target.
  EXPECT_EQ(r.records.front().before->attrs.getString("target"), "llvm -opt-level=2");
  EXPECT_EQ(r.input->attrs.getString("target"), ""); // the caller's module is untouched

  BuildOptions composite;
  composite.target = "cpu: llvm;compat: c";
  r = build(chainModule(), composite);
  EXPECT_EQ(r.lowered->attrs.getString("target"), "cpu: llvm; compat: c");
}

TEST(BuildDriver, CrossTargetIsCompileOnlyWithItsArtifacts) {
  BuildOptions opts;
  opts.target = "cortex-m7";
  BuildResult r = build(chainModule(), opts);
  EXPECT_TRUE(r.compileOnly());
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.artifacts.assembly.find("cortex-m7"), std::string::npos);
  EXPECT_FALSE(r.artifacts.object.empty());
}

TEST(BuildAssignments, AnnotateTargetIsTheFirstRecordedPass) {
  BuildOptions opts;
  opts.target = "cpu: llvm; compat: c";
  opts.assignments = {{"b", "compat"}};
  BuildResult r = build(chainModule(), opts);
  ASSERT_GE(r.records.size(), 2u);
  EXPECT_EQ(r.records[0].name, "AnnotateTarget");
  EXPECT_EQ(r.records[0].depth, 0);
  EXPECT_TRUE(r.records[0].changed);
  EXPECT_TRUE(r.records[0].before->attrs.getString("target.annotations").empty());
  // ... and its annotation reached the partition: the c part owns a kernel.
  const SubTargetArtifacts* compat = partNamed(r, "compat");
  ASSERT_NE(compat, nullptr);
  EXPECT_FALSE(compat->functions.empty());
  EXPECT_FALSE(compat->cSource.empty());
  ASSERT_TRUE(r.executable);
  Tensor x = randomTensor({4, 8}, 3);
  BuildResult want = build(chainModule());
  auto got = r.executable->runTensors({x});
  auto ref = want.executable->runTensors({x});
  ASSERT_EQ(got.size(), 1u);
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_NEAR(got[0].getDouble(i), ref[0].getDouble(i), 1e-5) << i;
}

TEST(BuildAssignments, APlainTargetIsItsOneSubTarget) {
  BuildOptions opts;
  opts.target = "llvm";
  opts.assignments = {{"a", "llvm"}};
  BuildResult r = build(chainModule(), opts);
  EXPECT_EQ(r.composite, "llvm: llvm");
  ASSERT_FALSE(r.records.empty());
  EXPECT_EQ(r.records[0].name, "AnnotateTarget");
  ASSERT_EQ(r.parts.size(), 1u);
  EXPECT_FALSE(r.parts[0].functions.empty());
}

TEST(BuildAssignments, UnknownSubTargetsAreListedWithTheKnownOnes) {
  BuildOptions opts;
  opts.target = "cpu: llvm; compat: c";
  opts.assignments = {{"a", "gpu"}, {"b", "compat"}, {"gv", "npu"}};
  opts.assignmentsSource = "assign.json";
  EXPECT_EQ(errorOf([&] { build(chainModule(), opts); }),
            "assign.json: unknown sub-target 'gpu' (for 'a'), 'npu' (for 'gv'); the target 'cpu: "
            "llvm; compat: c' has 'cpu', 'compat'");
}

TEST(BuildAssignments, UnknownNamesAreReportedWithTheSource) {
  BuildOptions opts;
  opts.target = "cpu: llvm; compat: c";
  opts.assignments = {{"zz", "compat"}};
  opts.assignmentsSource = "assign.json";
  EXPECT_EQ(errorOf([&] { build(chainModule(), opts); }),
            "assign.json: no binding or source-model node named 'zz' in the module");
}
