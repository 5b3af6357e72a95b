// FoldBatchNorm: which batch norms it folds into the preceding conv2d, and
// that the folded module computes what the reference evaluator computes on
// the module as written.
#include <gtest/gtest.h>

#include "../te/te_test_util.h"
#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/runtime/reference.h"
#include "engine/text/parser.h"
#include "engine/transform/fold_batch_norm.h"
#include "engine/transform/normalize.h"
#include "tests/engine/transform/graph_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::withConstants;

namespace {

/// Calls of `name` in main.
int countCalls(const IRModule& m, const std::string& name) {
  int n = 0;
  postOrderVisit(as<Function>(m->lookup("main"))->body, [&](const Expr& e) {
    if (auto* c = as<Call>(e); c && as<OpRef>(c->op) && as<OpRef>(c->op)->name == name)
      ++n;
  });
  return n;
}

/// main(x, w, gamma, beta, mean, var) = relu(batch_norm(conv2d(x, w)))
std::string convBnText(const std::string& x, const std::string& w, int64_t o,
                       const std::string& convAttrs, const std::string& bnAttrs = "") {
  std::string ch = "R.Tensor((" + std::to_string(o) + ",), \"float32\")";
  return "@R.function\ndef main(x: R.Tensor((" + x + "), \"float32\"), w: R.Tensor((" + w +
         "), \"float32\"), g: " + ch + ", b: " + ch + ", m: " + ch + ", v: " + ch +
         "):\n    with R.dataflow():\n        c = R.nn.conv2d(x, w" +
         (convAttrs.empty() ? "" : ", " + convAttrs) +
         ")\n        n = R.nn.batch_norm(c, g, b, m, v" + (bnAttrs.empty() ? "" : ", " + bnAttrs) +
         ")\n        r = R.nn.relu(n)\n        R.output(r)\n    return r\n";
}

std::vector<unity::Tensor> bnParams(std::vector<int64_t> wshape, unsigned seed) {
  int64_t o = wshape[0];
  return {randomTensor(wshape, seed), randomTensor({o}, seed + 1, 0.5, 1.5),
          randomTensor({o}, seed + 2), randomTensor({o}, seed + 3),
          randomTensor({o}, seed + 4, 0.1, 2.0)};
}

} // namespace

TEST(FoldBatchNorm, FoldsIntoTheConvolutionAndComputesWhatTheNormDid) {
  struct Case {
    std::string x, w;
    std::vector<int64_t> xs, ws;
    std::string conv, bn;
  };
  const Case cases[] = {
      {"1, 8, 9, 7", "16, 8, 3, 3", {1, 8, 9, 7}, {16, 8, 3, 3}, "padding=[1, 1, 1, 1]", ""},
      // Depthwise, strided, with its own epsilon.
      {"2, 6, 12, 12",
       "6, 1, 3, 3",
       {2, 6, 12, 12},
       {6, 1, 3, 3},
       "strides=[2, 2], padding=[1, 1, 1, 1], groups=6",
       "epsilon=0.001"},
      // Without gamma, without beta.
      {"1, 4, 5, 5", "8, 4, 1, 1", {1, 4, 5, 5}, {8, 4, 1, 1}, "", "scale=False"},
      {"1, 4, 5, 5", "8, 4, 1, 1", {1, 4, 5, 5}, {8, 4, 1, 1}, "", "center=False"},
  };
  unsigned seed = 21;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.conv + " " + c.bn);
    IRModule m = withConstants(convBnText(c.x, c.w, c.ws[0], c.conv, c.bn), bnParams(c.ws, seed));
    IRModule folded = transform::foldBatchNorm(m);
    EXPECT_EQ(countCalls(m, "nn.batch_norm"), 1);
    EXPECT_EQ(countCalls(folded, "nn.batch_norm"), 0);
    EXPECT_EQ(countCalls(folded, "add"), 1);
    auto x = randomTensor(c.xs, seed + 9);
    // The reference evaluator on the module as written (the norm computed),
    // against the folded module, evaluated and built.
    auto want = runtime::referenceRun(m, {x}).at(0);
    auto got = runtime::referenceRun(folded, {x}).at(0);
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_TRUE(allClose(got, want, 1e-5));
    BuildOptions opts;
    opts.target = "llvm -num-cores=1";
    opts.record = true;
    auto r = build(m, opts);
    bool ran = false;
    for (auto& rec : r.records)
      ran = ran || (rec.name == "FoldBatchNorm" && rec.changed);
    EXPECT_TRUE(ran);
    EXPECT_TRUE(allClose(r.executable->runTensors({x}).at(0), want, 1e-5));
    seed += 10;
  }
}

TEST(FoldBatchNorm, LeavesWhatItCannotFold) {
  std::string text = convBnText("1, 4, 6, 6", "8, 4, 3, 3", 8, "padding=[1, 1, 1, 1]");
  auto params = bnParams({8, 4, 3, 3}, 5);
  // The norm's parameters not all constants (the variance a parameter).
  IRModule notConst = withConstants(text, {params[0], params[1], params[2], params[3]});
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(notConst), notConst));
  // The weight not a constant.
  IRModule weightParam = withConstants(text, {});
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(weightParam), weightParam));
  // Turned off by the config.
  IRModule m = withConstants(text, params);
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(m, Attrs{{"relax.fold_batch_norm", false}}), m));
  // A negative variance: the norm computes NaN, the fold would not say so.
  auto negative = params;
  negative[4].mutableDataAs<float>()[3] = -2.0f;
  IRModule nan = withConstants(text, negative);
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(nan), nan));
  // The convolution's result read by something else too: it must stay.
  IRModule shared = withConstants(R"(
@R.function
def main(x: R.Tensor((1, 4, 6, 6), "float32"), w: R.Tensor((8, 4, 3, 3), "float32"), g: R.Tensor((8,), "float32"), b: R.Tensor((8,), "float32"), m: R.Tensor((8,), "float32"), v: R.Tensor((8,), "float32")):
    with R.dataflow():
        c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
        n = R.nn.batch_norm(c, g, b, m, v)
        r = R.add(n, c)
        R.output(r)
    return r
)",
                                  params);
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(shared), shared));
  // A batch norm over another producer than a convolution.
  IRModule notConv = withConstants(R"(
@R.function
def main(x: R.Tensor((1, 8, 6, 6), "float32"), g: R.Tensor((8,), "float32"), b: R.Tensor((8,), "float32"), m: R.Tensor((8,), "float32"), v: R.Tensor((8,), "float32")):
    with R.dataflow():
        c = R.nn.relu(x)
        n = R.nn.batch_norm(c, g, b, m, v)
        R.output(n)
    return n
)",
                                   {params[1], params[2], params[3], params[4]});
  EXPECT_TRUE(sameNode(transform::foldBatchNorm(notConv), notConv));
}
