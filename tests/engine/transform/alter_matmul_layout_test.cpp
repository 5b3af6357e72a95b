// AlterMatmulLayout: which matmuls get their constant rhs packed in column
// panels (weight_layout KN<V>n), the packing itself, topi::matmulPacked and
// the packed op's shape rules, and that a packed build computes what the
// plain build computes (static and symbolic row counts).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../te/te_test_util.h"
#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/te/te.h"
#include "engine/te/topi.h"
#include "engine/text/parser.h"
#include "engine/transform/alter_conv_layout.h"
#include "engine/transform/normalize.h"
#include "tests/engine/transform/graph_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::randomTensor;
using unity::transform::testing::maxAbsDiff;

namespace {

/// main(x) = matmul(x, W) + 1, x of shape `x` (text dims, "n" symbolic), W a
/// constant [K, N] (or a second parameter when `constant` is false).
IRModule matmulModule(const std::string& x, int64_t K, int64_t N, const std::string& target,
                      bool constant = true) {
  std::string text = "@R.function\ndef main(x: R.Tensor((" + x + "), \"float32\"), w: R.Tensor((" +
                     std::to_string(K) + ", " + std::to_string(N) +
                     "), \"float32\")):\n    with R.dataflow():\n        c = R.matmul(x, w)\n"
                     "        d = R.add(c, R.const(1.0, \"float32\"))\n        R.output(d)\n"
                     "    return d\n";
  IRModule m = constant ? transform::testing::withConstants(text, {randomTensor({K, N}, 7)})
                        : transform::normalize(text::parseModule(text));
  return withAttrs(m, m->attrs.with("target", target));
}

/// The weight_layout of the module's matmul ("-" when there is none).
std::string weightLayout(const IRModule& m) {
  std::string out = "-";
  postOrderVisit(as<Function>(m->lookup("main"))->body, [&](const Expr& e) {
    if (auto* c = as<Call>(e); c && as<OpRef>(c->op) && as<OpRef>(c->op)->name == "matmul")
      out = c->attrs.getString("weight_layout", "");
  });
  return out;
}

/// The weight_layout AlterMatmulLayout gives matmulModule(x, K, N, target,
/// constant) under the build config `config`.
std::string layoutAfterPass(const std::string& x, int64_t K, int64_t N, const std::string& target,
                            bool constant = true, const Attrs& config = {}) {
  return weightLayout(
      transform::alterMatmulLayout(matmulModule(x, K, N, target, constant), config));
}

const char* kAvx512 = "llvm -mcpu=skylake-avx512";
const char* kAvx2 = "llvm -mcpu=haswell";

} // namespace

TEST(AlterMatmulLayout, PacksConstantWeightsInPanelsOfTheTilesWidth) {
  // Four vectors per panel: 64 columns with AVX-512, 32 with AVX2.
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 128, kAvx512), "KN64n");
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 128, kAvx2), "KN32n");
  // A symbolic row count (a sequence length) is packed too.
  EXPECT_EQ(layoutAfterPass("1, n, 64", 64, 128, kAvx512), "KN64n");
  // Left alone: a matrix-vector product (its columns are split between the
  // cores instead), fewer than 16 rows, N not whole panels, a weight that is
  // not a constant, a target without vectors, the pass turned off.
  EXPECT_EQ(layoutAfterPass("1, 1, 64", 64, 128, kAvx512), "");
  EXPECT_EQ(layoutAfterPass("8, 64", 64, 128, kAvx512), "");
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 96, kAvx512), "");
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 128, kAvx512, /*constant=*/false), "");
  Attrs scalar;
  scalar.set("tir.schedule_policy", std::string(R"({"vectorize": false})"));
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 128, kAvx512, true, scalar), "");
  Attrs off;
  off.set("relax.alter_matmul_layout", false);
  EXPECT_EQ(layoutAfterPass("1, 32, 64", 64, 128, kAvx512, true, off), "");
}

TEST(AlterMatmulLayout, PackingPlacesEveryElementInItsPanel) {
  auto w = randomTensor({5, 12}, 3);
  auto p = transform::packMatmulWeight(w, 4);
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{3, 5, 4}));
  for (int64_t k = 0; k < 5; ++k)
    for (int64_t n = 0; n < 12; ++n)
      EXPECT_EQ(p.getDouble(((n / 4) * 5 + k) * 4 + n % 4), w.getDouble(k * 12 + n));
  EXPECT_THROW(transform::packMatmulWeight(w, 5), Error); // 12 is not whole panels
  EXPECT_THROW(transform::packMatmulWeight(randomTensor({2, 2, 4}, 1), 4), Error); // not a matrix
}

TEST(AlterMatmulLayout, MatmulPackedMatchesTheMatmulOfTheUnpackedWeight) {
  using namespace te;
  auto f32 = DataType::Float32();
  auto A = placeholder({intImm(2), intImm(3), intImm(5)}, f32, "A");
  auto Bp = placeholder({intImm(3), intImm(5), intImm(4)}, f32, "B");
  auto Y = topi::matmulPacked(A, Bp);
  ASSERT_EQ(Y.ndim(), 3);
  EXPECT_TRUE(isConstInt(Y.shape()[2], 12));
  auto a = randomTensor({2, 3, 5}, 11), b = randomTensor({5, 12}, 12);
  unity::Tensor want(f32, {2, 3, 12});
  for (int64_t bt = 0; bt < 2; ++bt)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 12; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 5; ++k)
          s += a.getDouble((bt * 3 + i) * 5 + k) * b.getDouble(k * 12 + j);
        want.setDouble((bt * 3 + i) * 12 + j, s);
      }
  PrimFuncRef f = te::createPrimFunc({A, Bp, Y});
  unity::Tensor bp = transform::packMatmulWeight(b, 4), got(f32, want.shape());
  te::interpretPrimFunc(f, {&a, &bp, &got});
  EXPECT_LT(maxAbsDiff(got, want), 1e-5);
  // Refused: an unpacked rhs, a vector lhs, a symbolic panel width.
  EXPECT_THROW(topi::matmulPacked(A, placeholder({intImm(5), intImm(12)}, f32, "B2")), Error);
  EXPECT_THROW(topi::matmulPacked(placeholder({intImm(5)}, f32, "v"), Bp), Error);
  EXPECT_THROW(topi::matmulPacked(A, placeholder({intImm(3), intImm(5), primVar("V")}, f32, "B3")),
               Error);
}

TEST(AlterMatmulLayout, ThePackedOpChecksItsLayoutAndRhs) {
  auto parse = [](const std::string& layout, const std::string& wshape) {
    return transform::normalize(
        text::parseModule("@R.function\ndef main(x: R.Tensor((4, 8), \"float32\"), w: R.Tensor((" +
                          wshape + "), \"float32\")):\n    c = R.matmul(x, w, weight_layout=\"" +
                          layout + "\")\n    return c\n"));
  };
  auto m = parse("KN4n", "3, 8, 4");
  auto* fn = as<Function>(m->lookup("main"));
  auto* out = as<TensorSInfo>(fn->retSInfo);
  ASSERT_TRUE(out && out->shape);
  EXPECT_TRUE(isConstInt((*out->shape)[0], 4));
  EXPECT_TRUE(isConstInt((*out->shape)[1], 12));
  EXPECT_THROW(parse("KN5n", "3, 8, 4"), Error); // last dimension is not the panel
  EXPECT_THROW(parse("NK4n", "3, 8, 4"), Error); // not a layout
  EXPECT_THROW(parse("KN4n", "8, 12"), Error);   // an unpacked rhs
  EXPECT_THROW(parse("KN4n", "3, 7, 4"), Error); // K differs
  EXPECT_EQ(op::packedMatmulPanel("KN64n"), 64);
  EXPECT_EQ(op::packedMatmulPanel("KN0n"), 0);
  EXPECT_EQ(op::packedMatmulPanel("OIHW32o"), 0);
}

TEST(AlterMatmulLayout, PackedBuildsComputeWhatThePlainBuildComputes) {
  // Static rows (one and two cores) and a symbolic row count run at two
  // lengths, one of them not a whole number of row tiles.
  struct Case {
    std::string x;
    std::vector<int64_t> run;
    int cores;
  };
  for (const Case& c : {Case{"1, 32, 96", {1, 32, 96}, 1}, Case{"1, 32, 96", {1, 32, 96}, 2},
                        Case{"1, n, 96", {1, 37, 96}, 1}, Case{"1, n, 96", {1, 128, 96}, 2}}) {
    SCOPED_TRACE(c.x + " cores " + std::to_string(c.cores));
    IRModule m = matmulModule(c.x, 96, 192, "llvm");
    BuildOptions packed, plain;
    packed.target = plain.target = "llvm -num-cores=" + std::to_string(c.cores);
    plain.disabledPasses = {"AlterMatmulLayout"};
    BuildResult rp = build(m, packed), rq = build(m, plain);
    bool rewritten = false;
    for (auto& r : rp.records)
      rewritten = rewritten || (r.name == "AlterMatmulLayout" && r.changed);
    EXPECT_TRUE(rewritten);
    auto x = randomTensor(c.run, 21);
    EXPECT_LT(
        maxAbsDiff(rp.executable->runTensors({x}).at(0), rq.executable->runTensors({x}).at(0)),
        1e-4);
  }
}
