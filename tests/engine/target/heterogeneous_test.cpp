// Heterogeneous builds of an imported ONNX model (the acceptance scenario of
// issue #7): its convolutions assigned to `dnnl` and its classifier to a
// `compat` C part by ONNX node names (annotateByName, what the CLI's
// --assign and the workbench's drag-to-target call), and the same chosen
// automatically by AssignTargets; both must compute what the all-llvm build
// computes. Also: the -num-cores of a library sub-target reaches the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/ir/functor.h"
#include "engine/runtime/library_kernels.h"
#include "engine/runtime/thread_pool.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/transform/normalize.h"
#include "engine/transform/partition.h"
#include "tests/engine/frontend/onnx_test_util.h"

#include <fstream>
#include <sstream>

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

std::vector<float> values(size_t n, double scale, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(std::sin(double(i) * 0.37 + seed) * scale);
  return v;
}

/// X (1,3,16,16) -> Conv_0 (8x3x3x3, bias, pad 1) -> Relu_1 -> Conv_2
/// (8x8x3x3, bias, pad 1, stride 2) -> Relu_3 -> GlobalAveragePool_4 ->
/// Flatten_5 -> Gemm_6 (transB, bias: 8 -> 10) -> Y.
IRModule convClassifier() {
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(1), int64_t(3), int64_t(16), int64_t(16)});
  b.initializer("W0", {8, 3, 3, 3}, values(8 * 3 * 9, 0.3, 1));
  b.initializer("B0", {8}, values(8, 0.1, 2));
  b.initializer("W1", {8, 8, 3, 3}, values(8 * 8 * 9, 0.2, 3));
  b.initializer("B1", {8}, values(8, 0.1, 4));
  b.initializer("W2", {10, 8}, values(80, 0.5, 5));
  b.initializer("B2", {10}, values(10, 0.1, 6));
  auto* c0 = b.node("Conv", {"X", "W0", "B0"}, {"c0"}, "Conv_0");
  OnnxModelBuilder::attrInts(c0, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c0"}, {"r0"}, "Relu_1");
  auto* c1 = b.node("Conv", {"r0", "W1", "B1"}, {"c1"}, "Conv_2");
  OnnxModelBuilder::attrInts(c1, "pads", {1, 1, 1, 1});
  OnnxModelBuilder::attrInts(c1, "strides", {2, 2});
  b.node("Relu", {"c1"}, {"r1"}, "Relu_3");
  b.node("GlobalAveragePool", {"r1"}, {"g"}, "GlobalAveragePool_4");
  b.node("Flatten", {"g"}, {"f"}, "Flatten_5");
  auto* fc = b.node("Gemm", {"f", "W2", "B2"}, {"Y"}, "Gemm_6");
  OnnxModelBuilder::attrInt(fc, "transB", 1);
  b.output("Y");
  return frontend::importOnnxBytes(b.bytes());
}

Tensor input(unsigned seed) {
  Tensor x(DataType::Float32(), {1, 3, 16, 16});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.setDouble(i, std::cos(double(i * 7 + seed)) * 1.5);
  return x;
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

const SubTargetArtifacts& part(const BuildResult& r, const std::string& name) {
  for (auto& p : r.parts)
    if (p.name == name)
      return p;
  throw Error("no part '" + name + "'");
}

/// The library kernel each tensor function of a sub-target maps to.
std::vector<std::string> libraryKernels(const BuildResult& r, const std::string& sub) {
  std::vector<std::string> out;
  for (auto& fn : part(r, sub).functions)
    if (auto* pf = as<PrimFunc>(r.lowered->lookup(fn)))
      out.push_back(pf->attrs.getString("library_kernel"));
  std::sort(out.begin(), out.end());
  return out;
}

bool recorded(const BuildResult& r, const std::string& pass) {
  for (auto& rec : r.records)
    if (rec.name == pass)
      return true;
  return false;
}

/// Graph functions carrying "target" == sub, and the ONNX nodes their
/// bindings stand for.
std::vector<std::string> originsOn(const IRModule& m, const std::string& sub) {
  std::vector<std::string> out;
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (!fn || fn->attrs.getString("target") != sub)
      continue;
    if (auto* seq = as<SeqExpr>(fn->body))
      for (auto& blk : seq->blocks)
        for (auto& b : blk->bindings)
          for (auto& o : b->span.origins)
            out.push_back(o.substr(0, o.rfind(':')));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace

TEST(HeterogeneousOnnx, ConvsOnDnnlClassifierOnCompatByNodeNameMatchAllLLVM) {
  IRModule m = convClassifier();
  BuildResult ref = build(m, BuildOptions{});
  ASSERT_TRUE(ref.executable);

  IRModule assigned =
      transform::annotateByName(m, {{"Conv_0", "dnnl"}, {"Conv_2", "dnnl"}, {"Gemm_6", "compat"}});
  BuildOptions o;
  o.target = "cpu: llvm; dnnl: dnnl; compat: c";
  BuildResult r = build(assigned, o);
  ASSERT_TRUE(r.executable);
  EXPECT_TRUE(recorded(r, "PartitionByTarget"));
  EXPECT_TRUE(recorded(r, "GraphToTIR(dnnl)"));

  // Each convolution became one oneDNN call; the classifier is C code that
  // was compiled and loaded (not compile-only), and its source is there.
  EXPECT_EQ(libraryKernels(r, "dnnl"), (std::vector<std::string>{"dnnl.conv2d", "dnnl.conv2d"}));
  const SubTargetArtifacts& compat = part(r, "compat");
  EXPECT_FALSE(compat.compileOnly);
  ASSERT_FALSE(compat.functions.empty());
  ASSERT_FALSE(compat.cSource.empty());
  for (auto& fn : compat.functions)
    EXPECT_NE(compat.cSource.find(fn), std::string::npos) << fn << " missing from the C source";
  // The graph functions outlined for compat hold exactly the Gemm.
  IRModule partitioned;
  for (auto& rec : r.records)
    if (rec.name == "PartitionByTarget")
      partitioned = rec.after;
  ASSERT_TRUE(partitioned);
  EXPECT_EQ(originsOn(partitioned, "compat"), (std::vector<std::string>{"Gemm_6"}));
  EXPECT_EQ(originsOn(partitioned, "dnnl"), (std::vector<std::string>{"Conv_0", "Conv_2"}));

  for (unsigned seed : {1u, 5u})
    expectClose(r.executable->runTensors({input(seed)}), ref.executable->runTensors({input(seed)}),
                1e-4);
}

TEST(HeterogeneousOnnx, AssignTargetsClaimsConvsAndGemmAutomaticallyAndMatchesAllLLVM) {
  IRModule m = convClassifier();
  BuildResult ref = build(m, BuildOptions{});
  BuildOptions o;
  o.target = "cpu: llvm; dnnl: dnnl; blas: openblas";
  BuildResult r = build(m, o);
  ASSERT_TRUE(r.executable);
  EXPECT_TRUE(recorded(r, "AssignTargets"));
  EXPECT_EQ(libraryKernels(r, "dnnl"), (std::vector<std::string>{"dnnl.conv2d", "dnnl.conv2d"}));
  EXPECT_EQ(libraryKernels(r, "blas"), (std::vector<std::string>{"openblas.matmul"}));
  for (unsigned seed : {2u, 7u})
    expectClose(r.executable->runTensors({input(seed)}), ref.executable->runTensors({input(seed)}),
                1e-4);
}

TEST(HeterogeneousOnnx, ExplicitCompatAssignmentWinsOverAutomaticClaims) {
  // openblas could claim the Gemm, but it is assigned to compat by name;
  // the convolutions are left to AssignTargets.
  IRModule m = convClassifier();
  BuildResult ref = build(m, BuildOptions{});
  BuildOptions o;
  o.target = "cpu: llvm; dnnl: dnnl; blas: openblas; compat: c";
  BuildResult r = build(transform::annotateByName(m, {{"Gemm_6", "compat"}}), o);
  ASSERT_TRUE(r.executable);
  EXPECT_TRUE(part(r, "blas").functions.empty());
  EXPECT_FALSE(part(r, "compat").functions.empty());
  EXPECT_EQ(libraryKernels(r, "dnnl"), (std::vector<std::string>{"dnnl.conv2d", "dnnl.conv2d"}));
  expectClose(r.executable->runTensors({input(3)}), ref.executable->runTensors({input(3)}), 1e-4);
}

TEST(HeterogeneousOnnx, UnknownNodeNamesAreAllListed) {
  IRModule m = convClassifier();
  try {
    transform::annotateByName(m, {{"Conv_0", "dnnl"}, {"Conv_9", "dnnl"}, {"fc", "compat"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'Conv_9'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'fc'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("'Conv_0'"), std::string::npos) << msg;
  }
}

// ---- -num-cores of a library sub-target reaches the library ----

namespace {

IRModule example(const std::string& name) {
  std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return transform::normalize(text::parseModule(ss.str(), name));
}

/// Builds `m` for `target` and runs it once on deterministic inputs.
void buildAndRun(const IRModule& m, const std::string& target, const std::string& librarySub) {
  BuildOptions o;
  o.target = target;
  BuildResult r = build(m, o);
  ASSERT_TRUE(r.executable);
  ASSERT_FALSE(part(r, librarySub).functions.empty()) << "nothing ran on " << librarySub;
  auto* main = as<Function>(r.lowered->lookup("main"));
  std::vector<Tensor> in;
  for (auto& p : main->params) {
    auto* t = as<TensorSInfo>(p->sinfo);
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(asConstInt(d).value_or(4));
    Tensor x(t->dtype, shape);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, std::sin(double(i)));
    in.push_back(std::move(x));
  }
  r.executable->runTensors(in);
}

} // namespace

TEST(LibraryThreads, OpenblasSubTargetNumCoresSetsOpenblasThreads) {
  IRModule mlp = example("mlp.uir");
  buildAndRun(mlp, "cpu: llvm; blas: openblas -num-cores=1", "blas");
  EXPECT_EQ(runtime::libraryThreadSettings().openblas, 1);
  buildAndRun(mlp, "cpu: llvm; blas: openblas -num-cores=2", "blas");
  EXPECT_EQ(runtime::libraryThreadSettings().openblas, 2);
  buildAndRun(mlp, "cpu: llvm; blas: openblas -num-cores=1", "blas");
  EXPECT_EQ(runtime::libraryThreadSettings().openblas, 1);
}

TEST(LibraryThreads, DnnlSubTargetNumCoresSetsOpenMPThreadsOfTheCaller) {
  ASSERT_GE(runtime::libraryThreadSettings().openmp, 1) << "no OpenMP runtime under oneDNN";
  IRModule cnn = example("cnn.uir");
  buildAndRun(cnn, "cpu: llvm; conv: dnnl -num-cores=1", "conv");
  EXPECT_EQ(runtime::libraryThreadSettings().openmp, 1);
  buildAndRun(cnn, "cpu: llvm; conv: dnnl -num-cores=3", "conv");
  EXPECT_EQ(runtime::libraryThreadSettings().openmp, 3);
}

TEST(LibraryThreads, WithoutNumCoresTheLibraryDefaultIsRestored) {
  // Whatever the default is on this machine (1 on a single core or with
  // OPENBLAS_NUM_THREADS=1), a sub-target without -num-cores must bring it
  // back after one that set another count.
  IRModule mlp = example("mlp.uir");
  buildAndRun(mlp, "cpu: llvm; blas: openblas", "blas");
  const int defaultThreads = runtime::libraryThreadSettings().openblas;
  ASSERT_GE(defaultThreads, 1);
  const int other = defaultThreads == 1 ? 2 : 1;
  buildAndRun(mlp, "cpu: llvm; blas: openblas -num-cores=" + std::to_string(other), "blas");
  ASSERT_EQ(runtime::libraryThreadSettings().openblas, other);
  buildAndRun(mlp, "cpu: llvm; blas: openblas", "blas");
  EXPECT_EQ(runtime::libraryThreadSettings().openblas, defaultThreads);
}

TEST(LibraryThreads, TheThreadCountIsTheLastParamOfTheLibraryCall) {
  // The decision is kept in the module: the params constant of each library
  // call ends with the sub-target's -num-cores (0 when it has none).
  IRModule mlp = example("mlp.uir");
  for (auto [target, want] : {std::pair<std::string, int64_t>{"openblas -num-cores=3", 3},
                              std::pair<std::string, int64_t>{"openblas", 0}}) {
    BuildOptions o;
    o.target = "cpu: llvm; blas: " + target;
    o.codegen = false;
    BuildResult r = build(mlp, o);
    IRModule after;
    for (auto& rec : r.records)
      if (rec.name == "GraphToTIR(blas)")
        after = rec.after;
    ASSERT_TRUE(after);
    std::vector<std::vector<int64_t>> params;
    for (auto& [name, f] : after->functions) {
      auto* fn = as<Function>(f);
      if (!fn)
        continue;
      postOrderVisit(fn->body, [&](const Expr& e) {
        auto* c = as<Call>(e);
        auto* op = c ? as<OpRef>(c->op) : nullptr;
        if (!op || op->name != "call_tir")
          return;
        auto* gv = as<GlobalVar>(c->args[0]);
        auto* pf = gv ? as<PrimFunc>(after->lookup(gv->name)) : nullptr;
        if (!pf || !pf->attrs.has("library_kernel"))
          return;
        auto* args = as<Tuple>(c->args[1]);
        auto* k = as<Constant>(args->fields.back());
        ASSERT_TRUE(k);
        std::vector<int64_t> v;
        for (int64_t i = 0; i < k->data.numel(); ++i)
          v.push_back(static_cast<int64_t>(k->data.getDouble(i)));
        params.push_back(v);
      });
    }
    ASSERT_EQ(params.size(), 2u) << target; // both matmul chains of the MLP
    for (auto& v : params) {
      ASSERT_EQ(v.size(), 2u);
      EXPECT_EQ(v[1], want) << target;
    }
    // fc1 has a relu after its bias, fc2 not.
    EXPECT_EQ(params[0][0] + params[1][0], 1) << target;
  }
}

TEST(LibraryThreads, LibraryNumCoresLeavesTheEnginePoolToTheCodeParts) {
  // The engine's thread pool runs generated kernels: a library
  // sub-target's -num-cores must not resize it.
  // cnn: the convolutions go to dnnl, pooling and the classifier stay on
  // cpu, so both parts own kernels (a part without kernels sets nothing).
  IRModule cnn = example("cnn.uir");
  buildAndRun(cnn, "cpu: llvm -num-cores=1; conv: dnnl -num-cores=2", "conv");
  EXPECT_EQ(runtime::ThreadPool::global().numThreads(), 1);
  EXPECT_EQ(runtime::libraryThreadSettings().openmp, 2);
  buildAndRun(cnn, "cpu: llvm -num-cores=2; conv: dnnl -num-cores=1", "conv");
  EXPECT_EQ(runtime::ThreadPool::global().numThreads(), 2);
  EXPECT_EQ(runtime::libraryThreadSettings().openmp, 1);
}
