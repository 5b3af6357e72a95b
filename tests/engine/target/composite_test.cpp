// Composite builds: the c kind against llvm on the example models, library
// kinds (openblas, dnnl, the example kind) against the default path,
// PartitionByTarget on convex and non-convex selections, AssignTargets
// precedence, and a cross (cortex-m7) part that is emitted but never run.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "docs/examples/example_kind.h"
#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/transform/normalize.h"
#include "engine/transform/partition.h"
#include "engine/transform/registry.h"

using namespace unity;
using namespace unity::ir;

namespace {

std::string readExample(const std::string& name) {
  std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

IRModule example(const std::string& name) {
  return transform::normalize(text::parseModule(readExample(name), name));
}

/// Deterministic inputs for main's parameters; every symbolic dim is `n`.
std::vector<Tensor> inputsFor(const IRModule& m, int64_t n, unsigned seed) {
  auto* main = as<Function>(m->lookup("main"));
  std::vector<Tensor> out;
  for (auto& p : main->params) {
    auto* t = as<TensorSInfo>(p->sinfo);
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(asConstInt(d).value_or(n));
    Tensor x(t->dtype, shape);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, std::sin(double(i * 13 + seed)) * 2.0);
    out.push_back(std::move(x));
    ++seed;
  }
  return out;
}

void expectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
    for (int64_t i = 0; i < got[k].numel(); ++i) {
      double w = want[k].getDouble(i);
      ASSERT_NEAR(got[k].getDouble(i), w, tol * (1 + std::fabs(w))) << "output " << k << " i=" << i;
    }
  }
}

/// Builds `m` for `target` and for plain llvm and compares on two inputs.
BuildResult expectSameAsLLVM(const IRModule& m, const std::string& target, int64_t n) {
  BuildOptions ref;
  BuildResult want = build(m, ref);
  BuildOptions opts;
  opts.target = target;
  BuildResult got = build(m, opts);
  EXPECT_TRUE(got.executable);
  if (!got.executable)
    return got;
  for (unsigned seed : {1u, 9u}) {
    auto in = inputsFor(m, n, seed);
    expectClose(got.executable->runTensors(in), want.executable->runTensors(in), 1e-4);
  }
  return got;
}

const SubTargetArtifacts* part(const BuildResult& r, const std::string& name) {
  for (auto& p : r.parts)
    if (p.name == name)
      return &p;
  return nullptr;
}

bool recorded(const BuildResult& r, const std::string& pass) {
  for (auto& rec : r.records)
    if (rec.name == pass)
      return true;
  return false;
}

/// main(x) with a = relu(x); b = a + x; c = a * b; d = exp(c) * 0-free.
const char* kDiamond = R"(
@R.function
def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 8), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        a = R.nn.relu(x)
        b = R.add(a, x)
        c = R.multiply(a, b)
        gv: R.Tensor((4, 8), "float32") = R.add(c, x)
        R.output(gv)
    return gv
)";

std::vector<std::string> functionsWithTarget(const IRModule& m, const std::string& sub) {
  std::vector<std::string> out;
  for (auto& [name, f] : m->functions)
    if (auto* fn = as<Function>(f); fn && fn->attrs.getString("target") == sub)
      out.push_back(name);
  return out;
}

size_t bindingCount(const IRModule& m, const std::string& fn) {
  auto* seq = as<SeqExpr>(as<Function>(m->lookup(fn))->body);
  size_t n = 0;
  for (auto& b : seq->blocks)
    n += b->bindings.size();
  return n;
}

} // namespace

// --- c vs llvm -------------------------------------------------------------

TEST(CCodegen, MLPMatchesLLVM) {
  BuildResult r = expectSameAsLLVM(example("mlp.uir"), "c", 3);
  // A plain target: the C source is the build's artifact, no parts.
  EXPECT_TRUE(r.parts.empty());
  EXPECT_FALSE(r.compileOnly());
  EXPECT_NE(r.artifacts.cSource.find("#include <math.h>"), std::string::npos);
}

TEST(CCodegen, CNNMatchesLLVM) { expectSameAsLLVM(example("cnn.uir"), "c", 1); }

TEST(CCodegen, TransformerMatchesLLVM) { expectSameAsLLVM(example("transformer.uir"), "c", 5); }

TEST(CCodegen, CallTIRMatchesLLVM) { expectSameAsLLVM(example("call_tir.uir"), "c", 4); }

// --- library kinds -----------------------------------------------------------

TEST(ByocOpenBLAS, MLPClaimsBothLayersAndMatchesDefault) {
  BuildResult r = expectSameAsLLVM(example("mlp.uir"), "cpu: llvm; blas: openblas", 3);
  const SubTargetArtifacts* blas = part(r, "blas");
  ASSERT_NE(blas, nullptr);
  // matmul+add+relu and matmul+add: two library kernels.
  EXPECT_EQ(blas->functions.size(), 2u);
  EXPECT_FALSE(blas->compileOnly);
  EXPECT_TRUE(recorded(r, "AssignTargets"));
  EXPECT_TRUE(recorded(r, "PartitionByTarget"));
  EXPECT_TRUE(recorded(r, "GraphToTIR(blas)"));
  int library = 0;
  for (auto& [name, f] : r.lowered->functions)
    if (auto* pf = as<PrimFunc>(f))
      library += pf->attrs.getString("library_kernel") == "openblas.matmul";
  EXPECT_EQ(library, 2);
}

TEST(ByocOpenBLAS, DenseInCNNMatchesDefault) {
  BuildResult r = expectSameAsLLVM(example("cnn.uir"), "cpu: llvm; blas: openblas", 1);
  const SubTargetArtifacts* blas = part(r, "blas");
  ASSERT_NE(blas, nullptr);
  EXPECT_EQ(blas->functions.size(), 1u); // the final dense + bias
}

TEST(ByocDNNL, ConvolutionsOfCNNMatchDefault) {
  BuildResult r = expectSameAsLLVM(example("cnn.uir"), "cpu: llvm; conv: dnnl", 1);
  const SubTargetArtifacts* conv = part(r, "conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->functions.size(), 2u); // conv+bias+relu twice
}

TEST(ByocExampleKind, ReluRunsThroughTheHandWrittenKernel) {
  // The docs example is no built-in kind: it is plugged in the way code
  // outside the engine adds one.
  transform::registerExampleReluKind();
  BuildResult r = expectSameAsLLVM(example("cnn.uir"), "cpu: llvm; ex: example_relu", 1);
  const SubTargetArtifacts* ex = part(r, "ex");
  ASSERT_NE(ex, nullptr);
  EXPECT_EQ(ex->functions.size(), 2u);
}

TEST(ByocOpenBLAS, FunctionNotCoveredByThePatternIsRefused) {
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  BuildOptions opts;
  opts.target = "cpu: llvm; blas: openblas";
  opts.passes = {"Normalize"};
  m = withAttrs(m, m->attrs.with("target", std::string("cpu: llvm; blas: openblas")));
  m = transform::annotateTarget(m, "main", {"a"}, "blas");
  try {
    build(m, opts);
    FAIL() << "a relu alone is no openblas pattern";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("blas"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
  }
}

// --- partition ---------------------------------------------------------------

TEST(PartitionByTarget, ConvexSelectionBecomesOneFunction) {
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  m = withAttrs(m, m->attrs.with("target", std::string("cpu: llvm; other: c")));
  m = transform::annotateTarget(m, "main", {"a", "b"}, "other");
  IRModule p = transform::partitionByTarget(m);
  auto outlined = functionsWithTarget(p, "other");
  ASSERT_EQ(outlined.size(), 1u);
  EXPECT_EQ(bindingCount(p, outlined[0]), 2u);
  EXPECT_FALSE(p->attrs.has(transform::kTargetAnnotationsAttr));
}

TEST(PartitionByTarget, NonConvexSelectionIsSplitAndStillComputesTheSame) {
  // {a, c} is not convex: a -> b -> c with b on the default target.
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  std::string target = "cpu: llvm; other: c";
  m = withAttrs(m, m->attrs.with("target", target));
  m = transform::annotateTarget(m, "main", {"a", "c"}, "other");
  IRModule p = transform::partitionByTarget(m);
  auto outlined = functionsWithTarget(p, "other");
  ASSERT_EQ(outlined.size(), 2u);
  for (auto& f : outlined)
    EXPECT_EQ(bindingCount(p, f), 1u) << f;
  EXPECT_EQ(bindingCount(p, "main"), 4u); // call, b, call, gv

  BuildOptions opts;
  opts.target = target;
  BuildResult r = build(m, opts);
  BuildResult want = build(transform::normalize(text::parseModule(kDiamond)));
  auto in = inputsFor(m, 1, 3);
  expectClose(r.executable->runTensors(in), want.executable->runTensors(in), 1e-6);
  EXPECT_FALSE(part(r, "other")->functions.empty());
}

TEST(PartitionByTarget, UnknownBindingOrSubTargetIsAnError) {
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  m = withAttrs(m, m->attrs.with("target", std::string("cpu: llvm; other: c")));
  EXPECT_THROW(transform::annotateTarget(m, "main", {"zz"}, "other"), Error);
  EXPECT_THROW(transform::annotateTarget(m, "main", {"a"}, "nowhere"), Error);
  EXPECT_THROW(transform::annotateTarget(m, "nofunc", {"a"}, "other"), Error);
}

TEST(AnnotateByName, BindingAndSourceNodeNamesAreResolved) {
  // A binding name and a source-model node name (from a span origin).
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  m = withAttrs(m, m->attrs.with("target", std::string("cpu: llvm; other: c")));
  auto* fn = as<Function>(m->lookup("main"));
  auto* seq = as<SeqExpr>(fn->body);
  ASSERT_TRUE(seq);
  // Give binding "c" the origin "Relu_7:Relu", as the ONNX importer does.
  std::vector<Ref<BindingBlock>> blocks;
  for (auto& blk : seq->blocks) {
    std::vector<Binding> bs;
    for (auto& b : blk->bindings) {
      Span span = b->span;
      if (b->var->name == "c")
        span.origins = {"Relu_7:Relu"};
      bs.push_back(make<VarBinding>(b->var, b->value, span));
    }
    blocks.push_back(make<BindingBlock>(bs, blk->dataflow));
  }
  auto body = make<SeqExpr>(blocks, seq->body);
  auto nf = make<Function>(fn->params, body, fn->retSInfo, fn->attrs, fn->pure);
  m = makeModule({{"main", nf}}, m->attrs);

  IRModule a = transform::annotateByName(m, {{"a", "other"}, {"Relu_7", "cpu"}});
  std::map<std::string, std::string> got;
  for (auto& t : transform::targetAnnotations(a))
    got[t.function + "/" + t.binding] = t.subTarget;
  EXPECT_EQ(got, (std::map<std::string, std::string>{{"main/a", "other"}, {"main/c", "cpu"}}));

  try {
    transform::annotateByName(m, {{"a", "other"}, {"nope", "cpu"}, {"Conv_9", "cpu"}});
    FAIL() << "unknown names must be refused";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'nope'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'Conv_9'"), std::string::npos) << msg;
  }
  EXPECT_THROW(transform::annotateByName(m, {{"a", "nowhere"}}), Error);
}

// --- AssignTargets -------------------------------------------------------------

TEST(AssignTargets, LibraryClaimsAndExplicitAnnotationsWin) {
  IRModule m = example("mlp.uir");
  m = withAttrs(m, m->attrs.with("target", std::string("cpu: llvm; blas: openblas")));
  IRModule a = transform::assignTargets(m);
  auto anns = transform::targetAnnotations(a);
  std::map<std::string, std::string> byBinding;
  for (auto& t : anns)
    byBinding[t.binding] = t.subTarget;
  EXPECT_EQ(
      byBinding,
      (std::map<std::string, std::string>{
          {"lv0", "blas"}, {"lv1", "blas"}, {"lv2", "blas"}, {"lv3", "blas"}, {"gv", "blas"}}));

  // lv1 explicitly on cpu: the first chain (lv0, lv1, lv2) is left alone.
  IRModule e = transform::annotateTarget(m, "main", {"lv1"}, "cpu");
  auto anns2 = transform::targetAnnotations(transform::assignTargets(e));
  byBinding.clear();
  for (auto& t : anns2)
    byBinding[t.binding] = t.subTarget;
  EXPECT_EQ(byBinding,
            (std::map<std::string, std::string>{{"lv1", "cpu"}, {"lv3", "blas"}, {"gv", "blas"}}));
}

// --- cross part ------------------------------------------------------------------

TEST(CompositeBuild, CortexM7PartIsEmittedAndRefusesToRun) {
  std::string target = "host: llvm; m7: llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7";
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  m = withAttrs(m, m->attrs.with("target", target));
  m = transform::annotateTarget(m, "main", {"b", "c"}, "m7");
  BuildOptions opts;
  opts.target = target;
  BuildResult r = build(m, opts);
  const SubTargetArtifacts* m7 = part(r, "m7");
  ASSERT_NE(m7, nullptr);
  EXPECT_TRUE(m7->compileOnly);
  EXPECT_FALSE(m7->functions.empty());
  ASSERT_GE(m7->object.size(), 4u);
  EXPECT_EQ(std::string(m7->object.data(), 4), std::string("\x7f"
                                                           "ELF"));
  EXPECT_FALSE(m7->assembly.empty());
  EXPECT_FALSE(part(r, "host")->compileOnly);
  ASSERT_TRUE(r.executable);
  try {
    r.executable->runTensors(inputsFor(m, 1, 2));
    FAIL() << "the m7 part must not run on the host";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'m7'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("compile-only"), std::string::npos) << msg;
  }
}

TEST(CompositeBuild, ModuleKeepsTheCompositeAndFunctionsNameSubTargets) {
  IRModule m = example("mlp.uir");
  BuildOptions opts;
  opts.target = "cpu: llvm; blas: openblas";
  opts.codegen = false;
  BuildResult r = build(m, opts);
  EXPECT_EQ(r.lowered->attrs.getString("target"), "cpu: llvm; blas: openblas");
  EXPECT_EQ(functionsWithTarget(r.lowered, "blas").size(), 1u); // one outlined function
}

TEST(CompositeBuild, CrossCPartEmitsSourceOnlyAndRefusesToRun) {
  std::string target = "host: llvm; mcu: c -mtriple=thumbv7em-none-eabi";
  IRModule m = transform::normalize(text::parseModule(kDiamond));
  m = withAttrs(m, m->attrs.with("target", target));
  m = transform::annotateTarget(m, "main", {"c"}, "mcu");
  BuildOptions opts;
  opts.target = target;
  BuildResult r = build(m, opts);
  const SubTargetArtifacts* mcu = part(r, "mcu");
  ASSERT_NE(mcu, nullptr);
  EXPECT_TRUE(mcu->compileOnly);
  EXPECT_NE(mcu->cSource.find("int32_t"), std::string::npos);
  EXPECT_TRUE(mcu->object.empty());
  EXPECT_THROW(r.executable->runTensors(inputsFor(m, 1, 2)), Error);
}

TEST(CompositeBuild, TargetPassesAreRegistered) {
  for (const char* p : {"AnnotateTarget", "AssignTargets", "PartitionByTarget"})
    EXPECT_NE(transform::findPass(p), nullptr) << p;
}

TEST(AssignTargets, BuildNormalizesFirstSoAnUnnormalizedModuleKeepsItsClaims) {
  // Straight from the parser: intermediate bindings carry no struct info yet.
  IRModule m = text::parseModule(readExample("mlp.uir"), "mlp.uir");
  BuildOptions opts;
  opts.target = "cpu: llvm; blas: openblas";
  BuildResult r = build(m, opts);
  const SubTargetArtifacts* blas = part(r, "blas");
  ASSERT_NE(blas, nullptr);
  EXPECT_EQ(blas->functions.size(), 2u);
  EXPECT_TRUE(part(r, "cpu")->functions.empty());
}

TEST(CompositeBuild, EmptyCrossPartIsStillReportedCompileOnly) {
  BuildOptions opts;
  opts.target = "cpu: llvm; m7: cortex-m7";
  BuildResult r = build(transform::normalize(text::parseModule(kDiamond)), opts);
  ASSERT_NE(part(r, "m7"), nullptr);
  EXPECT_TRUE(part(r, "m7")->functions.empty());
  EXPECT_TRUE(part(r, "m7")->compileOnly);
  EXPECT_FALSE(part(r, "cpu")->compileOnly);
  auto in = inputsFor(r.input, 1, 4);
  EXPECT_EQ(r.executable->runTensors(in).size(), 1u); // nothing needs the m7 part
}
