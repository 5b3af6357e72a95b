// topi operators against hand-written loops, through createPrimFunc and the
// reference interpreter (which also checks every block's declared regions).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ir/module.h"
#include "engine/ir/well_formed.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/te/topi.h"
#include "engine/transform/alter_conv_layout.h"
#include "te_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::te::testing;
namespace topi = unity::te::topi;
using te::placeholder;

namespace {

const DataType f32 = DataType::Float32();

std::vector<PrimExpr> dims(std::initializer_list<int64_t> d) {
  std::vector<PrimExpr> out;
  for (int64_t v : d)
    out.push_back(intImm(v));
  return out;
}

/// Builds the function of args (inputs..., output), checks it is well formed,
/// runs it and returns the output tensor of shape outShape.
unity::Tensor run(const std::vector<te::Tensor>& args, std::vector<unity::Tensor> inputs,
                  std::vector<int64_t> outShape) {
  PrimFuncRef f = te::createPrimFunc(args);
  auto issues = checkWellFormed(makeModule({{"f", f}}));
  for (auto& i : issues)
    ADD_FAILURE() << issueStr(i);
  unity::Tensor out(args.back().dtype(), std::move(outShape));
  std::vector<unity::Tensor*> ptrs;
  for (auto& t : inputs)
    ptrs.push_back(&t);
  ptrs.push_back(&out);
  te::interpretPrimFunc(f, ptrs);
  return out;
}

} // namespace

TEST(Topi, BroadcastAddWithSymbolicDimsAtTwoSizes) {
  auto n = primVar("n");
  auto A = placeholder({n, intImm(1), intImm(3)}, f32, "A");
  auto B = placeholder({intImm(4), intImm(1)}, f32, "B");
  auto C = topi::add(A, B);
  ASSERT_EQ(C.ndim(), 3);
  EXPECT_TRUE(sameNode(C.shape()[0], n));
  EXPECT_TRUE(isConstInt(C.shape()[1], 4));
  EXPECT_TRUE(isConstInt(C.shape()[2], 3));
  for (int64_t rows : {1, 3}) {
    auto a = randomTensor({rows, 1, 3}, 10), b = randomTensor({4, 1}, 11);
    auto c = run({A, B, C}, {a, b}, {rows, 4, 3});
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t k = 0; k < 3; ++k)
          EXPECT_FLOAT_EQ(at(c, {i, j, k}), float(at(a, {i, 0, k}) + at(b, {j, 0})));
  }
  auto m = primVar("m");
  EXPECT_THROW(topi::add(placeholder({n}, f32, "X"), placeholder({m}, f32, "Y")), Error);
  EXPECT_THROW(topi::add(placeholder(dims({2}), f32, "X"), placeholder(dims({3}), f32, "Y")),
               Error);
  EXPECT_THROW(topi::add(A, placeholder(dims({3}), DataType::Int32(), "I")), Error);
}

TEST(Topi, UnaryFamily) {
  auto X = placeholder(dims({7}), f32, "X");
  auto x = randomTensor({7}, 12, -3, 3);
  auto check = [&](const te::Tensor& Y, double (*ref)(double), double tol = 1e-5) {
    auto y = run({X, Y}, {x}, {7});
    for (int64_t i = 0; i < 7; ++i)
      EXPECT_NEAR(y.getDouble(i), ref(x.getDouble(i)), tol) << Y.name();
  };
  check(topi::relu(X), [](double v) { return v > 0 ? v : 0; });
  check(
      topi::intrinsic(X, "exp"), [](double v) { return std::exp(v); }, 1e-4);
  check(topi::gelu(X), [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); });
  check(topi::geluTanh(X), [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  });
  check(topi::silu(X), [](double v) { return v / (1 + std::exp(-v)); });
  check(topi::clip(X, -1, 0.5), [](double v) { return std::min(std::max(v, -1.0), 0.5); });
  check(topi::abs(X), [](double v) { return std::fabs(v); });
  auto I = topi::cast(X, DataType::Int32());
  auto yi = run({X, I}, {x}, {7});
  for (int64_t i = 0; i < 7; ++i)
    EXPECT_EQ(yi.getDouble(i), std::trunc(float(x.getDouble(i))));
  EXPECT_THROW(topi::intrinsic(X, "pow"), Error);
  EXPECT_THROW(topi::clip(X, 1, 0), Error);
}

TEST(Topi, ErfIsTheIntrinsicCall) {
  // The float32 approximation is LowerIntrinsics' job (tested there); topi
  // emits the exact intrinsic, which the interpreter evaluates with std::erf.
  auto X = placeholder(dims({3}), f32, "X");
  const std::vector<float> x{0.5f, -1.25f, 2.0f};
  auto y = run({X, topi::erf(X)}, {unity::Tensor::fromFloats({3}, x)}, {3});
  const double d[3] = {0.5, -1.25, 2.0};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(y.getDouble(i), std::erf(d[i]), 1e-7);
}

TEST(Topi, WhereBroadcastsThreeWays) {
  auto C = placeholder(dims({2, 1}), DataType::Bool(), "C");
  auto A = placeholder(dims({3}), f32, "A");
  auto B = placeholder(dims({2, 3}), f32, "B");
  auto W = topi::where(C, A, B);
  unity::Tensor c(DataType::Bool(), {2, 1});
  c.setDouble(0, 1);
  auto a = randomTensor({3}, 13), b = randomTensor({2, 3}, 14);
  auto w = run({C, A, B, W}, {c, a, b}, {2, 3});
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_EQ(at(w, {0, j}), at(a, {j}));
    EXPECT_EQ(at(w, {1, j}), at(b, {1, j}));
  }
}

TEST(Topi, BatchedMatmulBroadcastsBatchDims) {
  auto A = placeholder(dims({2, 1, 3, 4}), f32, "A");
  auto B = placeholder(dims({3, 4, 5}), f32, "B");
  auto C = topi::matmul(A, B);
  auto a = randomTensor({2, 1, 3, 4}, 15), b = randomTensor({3, 4, 5}, 16);
  auto c = run({A, B, C}, {a, b}, {2, 3, 3, 5});
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 3; ++q)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 5; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < 4; ++k)
            acc += at(a, {p, 0, i, k}) * at(b, {q, k, j});
          EXPECT_NEAR(at(c, {p, q, i, j}), acc, 1e-5);
        }
  // vector operands drop their dim
  auto V = placeholder(dims({4}), f32, "V");
  auto MV = topi::matmul(A, V);
  EXPECT_EQ(MV.ndim(), 3);
  auto v = randomTensor({4}, 17);
  auto mv = run({A, V, MV}, {a, v}, {2, 1, 3});
  double acc = 0;
  for (int64_t k = 0; k < 4; ++k)
    acc += at(a, {1, 0, 2, k}) * at(v, {k});
  EXPECT_NEAR(at(mv, {1, 0, 2}), acc, 1e-5);
  EXPECT_THROW(topi::matmul(A, placeholder(dims({5, 2}), f32, "Bad")), Error);
}

TEST(Topi, DenseWithBiasAndSymbolicBatch) {
  auto n = primVar("n");
  auto X = placeholder({n, intImm(3)}, f32, "X");
  auto W = placeholder(dims({2, 3}), f32, "W");
  auto Bi = placeholder(dims({2}), f32, "bias");
  auto Y = topi::dense(X, W, Bi);
  for (int64_t rows : {1, 4}) {
    auto x = randomTensor({rows, 3}, 18), w = randomTensor({2, 3}, 19),
         bias = randomTensor({2}, 20);
    auto y = run({X, W, Bi, Y}, {x, w, bias}, {rows, 2});
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        double acc = at(bias, {j});
        for (int64_t k = 0; k < 3; ++k)
          acc += at(x, {i, k}) * at(w, {j, k});
        EXPECT_NEAR(at(y, {i, j}), acc, 1e-5);
      }
  }
}

namespace {
// Hand-written grouped NCHW convolution.
unity::Tensor refConv2d(const unity::Tensor& x, const unity::Tensor& w, int64_t sh, int64_t sw,
                        int64_t pt, int64_t pl, int64_t pb, int64_t pr, int64_t dh, int64_t dw,
                        int64_t groups) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], Wd = x.shape()[3];
  int64_t O = w.shape()[0], Cg = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  EXPECT_EQ(C, Cg * groups);
  int64_t OH = (H + pt + pb - dh * (KH - 1) - 1) / sh + 1,
          OW = (Wd + pl + pr - dw * (KW - 1) - 1) / sw + 1;
  unity::Tensor y(DataType::Float32(), {N, O, OH, OW});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = 0;
          int64_t g = o / (O / groups);
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = oy * sh + ky * dh - pt, ix = ox * sw + kx * dw - pl;
                if (iy < 0 || iy >= H || ix < 0 || ix >= Wd)
                  continue;
                acc += at(x, {n, g * Cg + c, iy, ix}) * at(w, {o, c, ky, kx});
              }
          set(y, {n, o, oy, ox}, acc);
        }
  return y;
}
} // namespace

TEST(Topi, Conv2dWithStridePaddingDilationGroups) {
  auto X = placeholder(dims({1, 4, 7, 6}), f32, "X");
  auto W = placeholder(dims({6, 2, 3, 3}), f32, "W");
  topi::Conv2dParams p;
  p.strides = {2, 1};
  p.padding = {1, 2, 0, 1};
  p.dilation = {1, 2};
  p.groups = 2;
  auto Y = topi::conv2d(X, W, p);
  auto x = randomTensor({1, 4, 7, 6}, 21), w = randomTensor({6, 2, 3, 3}, 22);
  auto want = refConv2d(x, w, 2, 1, 1, 2, 0, 1, 1, 2, 2);
  ASSERT_TRUE(isConstInt(Y.shape()[2], want.shape()[2]));
  ASSERT_TRUE(isConstInt(Y.shape()[3], want.shape()[3]));
  auto y = run({X, W, Y}, {x, w}, want.shape());
  EXPECT_TRUE(allClose(y, want));
  // ungrouped, no padding: no pad_temp intermediate
  auto W1 = placeholder(dims({3, 4, 2, 2}), f32, "W1");
  auto Y1 = topi::conv2d(X, W1);
  EXPECT_TRUE(Y1.inputs()[0].same(X));
  auto w1 = randomTensor({3, 4, 2, 2}, 23);
  EXPECT_TRUE(allClose(run({X, W1, Y1}, {x, w1}, {1, 3, 6, 5}),
                       refConv2d(x, w1, 1, 1, 0, 0, 0, 0, 1, 1, 1)));
  p.groups = 3;
  EXPECT_THROW(topi::conv2d(X, W, p), Error);
}

TEST(Topi, Conv2dWithSymbolicSpatialDims) {
  auto h = primVar("h");
  auto X = placeholder({intImm(1), intImm(2), h, intImm(5)}, f32, "X");
  auto W = placeholder(dims({2, 2, 3, 3}), f32, "W");
  topi::Conv2dParams p;
  p.padding = {1, 1};
  auto Y = topi::conv2d(X, W, p);
  for (int64_t H : {3, 6}) {
    auto x = randomTensor({1, 2, H, 5}, 24), w = randomTensor({2, 2, 3, 3}, 25);
    EXPECT_TRUE(
        allClose(run({X, W, Y}, {x, w}, {1, 2, H, 5}), refConv2d(x, w, 1, 1, 1, 1, 1, 1, 1, 1, 1)));
  }
}

TEST(Topi, Conv2dWideFormWithSymbolicImageAtSeveralSizes) {
  // Channels and kernel constant, height and width symbolic: the wide form
  // with symbolic rows (products stored in blocks of positions, the padded
  // image read at flat positions). Each variant at several sizes against
  // the hand-written loops, down to a 1x1 image.
  struct Variant {
    int64_t C, O, K, sh, sw, pt, pl, pb, pr, dh, dw, groups;
  };
  const Variant variants[] = {
      {4, 5, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 3x3, padding 1
      {4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride 2: four phases
      {4, 4, 3, 1, 2, 1, 0, 2, 1, 2, 1, 1},  // asymmetric padding, dilation
      {32, 6, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}, // pointwise
      {24, 4, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1}, // pointwise, stride 2
      {8, 6, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},  // groups
  };
  unsigned seed = 40;
  for (const Variant& v : variants) {
    auto h = primVar("h"), w = primVar("w");
    auto X = placeholder({intImm(1), intImm(v.C), h, w}, f32, "X");
    auto Wt = placeholder(dims({v.O, v.C / v.groups, v.K, v.K}), f32, "W");
    topi::Conv2dParams p;
    p.strides = {v.sh, v.sw};
    p.padding = {v.pt, v.pl, v.pb, v.pr};
    p.dilation = {v.dh, v.dw};
    p.groups = v.groups;
    auto Y = topi::conv2d(X, Wt, p);
    ASSERT_EQ(Y.inputs().size(), 1u);
    EXPECT_EQ(Y.inputs()[0].name(), "conv2d_nchw_wide") << "C=" << v.C << " K=" << v.K;
    for (auto [H, Wd] : {std::pair<int64_t, int64_t>{1, 1}, {5, 3}, {9, 14}}) {
      SCOPED_TRACE("C=" + std::to_string(v.C) + " K=" + std::to_string(v.K) + " stride " +
                   std::to_string(v.sh) + "x" + std::to_string(v.sw) + " at " + std::to_string(H) +
                   "x" + std::to_string(Wd));
      auto x = randomTensor({1, v.C, H, Wd}, seed++);
      auto wt = randomTensor({v.O, v.C / v.groups, v.K, v.K}, seed++);
      auto want = refConv2d(x, wt, v.sh, v.sw, v.pt, v.pl, v.pb, v.pr, v.dh, v.dw, v.groups);
      if (want.shape()[2] < 1 || want.shape()[3] < 1)
        continue; // the kernel does not fit this image
      EXPECT_TRUE(allClose(run({X, Wt, Y}, {x, wt}, want.shape()), want));
    }
  }
}

TEST(Topi, Conv2dBlockedMatchesTheOIHWConvolutionWithItsWeightPacked) {
  // Weight packed [O / b, C, KH, KW, b] (output channels innermost): the
  // same values as the OIHW convolution, with stride, padding, dilation
  // and a 1x1 kernel, against the hand-written loops.
  struct Variant {
    int64_t C, O, K, b, sh, sw, pt, pl, pb, pr, dh, dw;
  };
  const Variant variants[] = {
      {3, 8, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1}, // 3x3, padding 1
      {4, 6, 3, 3, 2, 1, 1, 0, 2, 1, 1, 2}, // strides, asymmetric padding, dilation
      {5, 8, 1, 8, 2, 2, 0, 0, 0, 0, 1, 1}, // pointwise, stride 2
  };
  unsigned seed = 60;
  for (const Variant& v : variants) {
    SCOPED_TRACE("C=" + std::to_string(v.C) + " O=" + std::to_string(v.O) +
                 " K=" + std::to_string(v.K) + " b=" + std::to_string(v.b));
    auto X = placeholder(dims({2, v.C, 7, 6}), f32, "X");
    auto Wp = placeholder(dims({v.O / v.b, v.C, v.K, v.K, v.b}), f32, "W");
    topi::Conv2dParams p;
    p.strides = {v.sh, v.sw};
    p.padding = {v.pt, v.pl, v.pb, v.pr};
    p.dilation = {v.dh, v.dw};
    auto Y = topi::conv2dBlocked(X, Wp, p);
    auto x = randomTensor({2, v.C, 7, 6}, seed++), w = randomTensor({v.O, v.C, v.K, v.K}, seed++);
    // Packing itself is checked element by element in the AlterConvLayout tests.
    unity::Tensor wp = transform::packConvWeight(w, v.b);
    auto want = refConv2d(x, w, v.sh, v.sw, v.pt, v.pl, v.pb, v.pr, v.dh, v.dw, 1);
    ASSERT_TRUE(isConstInt(Y.shape()[1], v.O));
    ASSERT_TRUE(isConstInt(Y.shape()[3], want.shape()[3]));
    EXPECT_TRUE(allClose(run({X, Wp, Y}, {x, wp}, want.shape()), want));
  }
  // Refused: groups, an OIHW weight, a block that is not a constant.
  auto X = placeholder(dims({1, 4, 5, 5}), f32, "X");
  topi::Conv2dParams grouped;
  grouped.groups = 2;
  EXPECT_THROW(topi::conv2dBlocked(X, placeholder(dims({1, 2, 3, 3, 4}), f32, "W"), grouped),
               Error);
  EXPECT_THROW(topi::conv2dBlocked(X, placeholder(dims({4, 4, 3, 3}), f32, "W")), Error);
  EXPECT_THROW(
      topi::conv2dBlocked(
          X, placeholder({intImm(1), intImm(4), intImm(3), intImm(3), primVar("b")}, f32, "W")),
      Error);
}

TEST(Topi, Conv1d) {
  auto X = placeholder(dims({2, 3, 9}), f32, "X");
  auto W = placeholder(dims({4, 3, 3}), f32, "W");
  auto Y = topi::conv1d(X, W, 2, {1}, 2);
  auto x = randomTensor({2, 3, 9}, 26), w = randomTensor({4, 3, 3}, 27);
  // out = (9 + 2 - 2*2 - 1) / 2 + 1 = 4
  auto y = run({X, W, Y}, {x, w}, {2, 4, 4});
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t t = 0; t < 4; ++t) {
        double acc = 0;
        for (int64_t c = 0; c < 3; ++c)
          for (int64_t k = 0; k < 3; ++k) {
            int64_t i = t * 2 + k * 2 - 1;
            if (i >= 0 && i < 9)
              acc += at(x, {n, c, i}) * at(w, {o, c, k});
          }
        EXPECT_NEAR(at(y, {n, o, t}), acc, 1e-5);
      }
}

TEST(Topi, Conv2dTransposeScattersLikeTheDirectDefinition) {
  auto X = placeholder(dims({1, 2, 3, 4}), f32, "X");
  auto W = placeholder(dims({2, 3, 3, 2}), f32, "W");
  topi::Conv2dParams p;
  p.strides = {2, 3};
  p.padding = {1, 0, 1, 0};
  auto Y = topi::conv2dTranspose(X, W, p, {1, 0});
  // H: (3-1)*2 - 2 + 1*(3-1) + 1 + 1 = 6 ; W: (4-1)*3 - 0 + (2-1) + 0 + 1 = 11
  ASSERT_TRUE(isConstInt(Y.shape()[2], 6));
  ASSERT_TRUE(isConstInt(Y.shape()[3], 11));
  auto x = randomTensor({1, 2, 3, 4}, 28), w = randomTensor({2, 3, 3, 2}, 29);
  auto y = run({X, W, Y}, {x, w}, {1, 3, 6, 11});
  unity::Tensor want(f32, {1, 3, 6, 11});
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t iy = 0; iy < 3; ++iy)
      for (int64_t ix = 0; ix < 4; ++ix)
        for (int64_t o = 0; o < 3; ++o)
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 2; ++kx) {
              int64_t oy = iy * 2 + ky - 1, ox = ix * 3 + kx;
              if (oy < 0 || oy >= 6 || ox < 0 || ox >= 11)
                continue;
              set(want, {0, o, oy, ox},
                  at(want, {0, o, oy, ox}) + at(x, {0, c, iy, ix}) * at(w, {c, o, ky, kx}));
            }
  EXPECT_TRUE(allClose(y, want));
}

TEST(Topi, Conv2dTransposeWithStrideEqualToTheKernelIsAShuffledPointwiseConvolution) {
  // Each output pixel receives one tap: a 1x1 convolution over KH * KW * O
  // channels and a depth-to-space shuffle. Against the scatter definition,
  // with constant and symbolic images, few channels (direct 1x1) and many
  // (the wide form), square and non-square kernels.
  struct Variant {
    int64_t C, O, KH, KW;
    bool symbolic;
  };
  const Variant variants[] = {
      {3, 2, 2, 2, false}, {3, 2, 2, 3, true}, {24, 5, 2, 2, false}, {24, 3, 2, 2, true}};
  unsigned seed = 60;
  for (const Variant& v : variants) {
    auto h = primVar("h"), w = primVar("w");
    std::vector<PrimExpr> xs =
        v.symbolic ? std::vector<PrimExpr>{intImm(1), intImm(v.C), h, w} : dims({1, v.C, 3, 5});
    auto X = placeholder(xs, f32, "X");
    auto W = placeholder(dims({v.C, v.O, v.KH, v.KW}), f32, "W");
    topi::Conv2dParams p;
    p.strides = {v.KH, v.KW};
    auto Y = topi::conv2dTranspose(X, W, p);
    ASSERT_EQ(Y.inputs().size(), 1u);
    EXPECT_EQ(Y.inputs()[0].name().rfind("conv2d_transpose_nchw_phases", 0), 0u)
        << "the pointwise form: " << Y.inputs()[0].name();
    auto sizes = v.symbolic ? std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {4, 9}}
                            : std::vector<std::pair<int64_t, int64_t>>{{3, 5}};
    for (auto [H, Wd] : sizes) {
      SCOPED_TRACE("C=" + std::to_string(v.C) + " kernel " + std::to_string(v.KH) + "x" +
                   std::to_string(v.KW) + " at " + std::to_string(H) + "x" + std::to_string(Wd));
      auto x = randomTensor({1, v.C, H, Wd}, seed++),
           wt = randomTensor({v.C, v.O, v.KH, v.KW}, seed++);
      int64_t OH = H * v.KH, OW = Wd * v.KW;
      unity::Tensor want(f32, {1, v.O, OH, OW});
      for (int64_t o = 0; o < v.O; ++o)
        for (int64_t iy = 0; iy < H; ++iy)
          for (int64_t ix = 0; ix < Wd; ++ix)
            for (int64_t ky = 0; ky < v.KH; ++ky)
              for (int64_t kx = 0; kx < v.KW; ++kx) {
                double acc = 0;
                for (int64_t c = 0; c < v.C; ++c)
                  acc += at(x, {0, c, iy, ix}) * at(wt, {c, o, ky, kx});
                set(want, {0, o, iy * v.KH + ky, ix * v.KW + kx}, acc);
              }
      EXPECT_TRUE(allClose(run({X, W, Y}, {x, wt}, {1, v.O, OH, OW}), want));
    }
  }
}

TEST(Topi, PoolingMaxAndAverageWithPadding) {
  auto X = placeholder(dims({1, 2, 5, 5}), f32, "X");
  auto x = randomTensor({1, 2, 5, 5}, 30);
  for (int mode = 0; mode < 3; ++mode) {
    auto type = mode == 0 ? topi::PoolType::Max : topi::PoolType::Avg;
    bool include = mode == 2;
    auto Y = topi::pool2d(X, type, {3, 3}, {2, 2}, {1, 1}, include);
    auto y = run({X, Y}, {x}, {1, 2, 3, 3});
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t oy = 0; oy < 3; ++oy)
        for (int64_t ox = 0; ox < 3; ++ox) {
          double mx = -1e30, s = 0;
          int cnt = 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              int64_t iy = oy * 2 + ky - 1, ix = ox * 2 + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
                continue;
              mx = std::max(mx, at(x, {0, c, iy, ix}));
              s += at(x, {0, c, iy, ix});
              ++cnt;
            }
          double want = mode == 0 ? mx : s / (include ? 9 : cnt);
          EXPECT_NEAR(at(y, {0, c, oy, ox}), want, 1e-5) << "mode " << mode;
        }
  }
  auto G = topi::globalAvgPool2d(X);
  auto g = run({X, G}, {x}, {1, 2, 1, 1});
  double s = 0;
  for (int64_t i = 0; i < 25; ++i)
    s += at(x, {0, 1, i / 5, i % 5});
  EXPECT_NEAR(at(g, {0, 1, 0, 0}), s / 25, 1e-5);
}

TEST(Topi, SoftmaxAndLogSoftmaxOnSymbolicRows) {
  auto n = primVar("n");
  auto X = placeholder({n, intImm(5)}, f32, "X");
  auto S = topi::softmax(X, -1);
  auto L = topi::logSoftmax(X, 1);
  for (int64_t rows : {1, 3}) {
    auto x = randomTensor({rows, 5}, 31, -4, 4);
    auto s = run({X, S}, {x}, {rows, 5});
    auto l = run({X, L}, {x}, {rows, 5});
    for (int64_t i = 0; i < rows; ++i) {
      double tot = 0;
      for (int64_t j = 0; j < 5; ++j)
        tot += std::exp(at(x, {i, j}));
      for (int64_t j = 0; j < 5; ++j) {
        EXPECT_NEAR(at(s, {i, j}), std::exp(at(x, {i, j})) / tot, 1e-6);
        EXPECT_NEAR(at(l, {i, j}), at(x, {i, j}) - std::log(tot), 1e-5);
      }
    }
  }
  // softmax over axis 0 of a 2x3: 4 blocks (max, exp, sum, divide)
  auto Y = placeholder(dims({2, 3}), f32, "Y");
  auto S0 = topi::softmax(Y, 0);
  auto y = randomTensor({2, 3}, 32);
  auto s0 = run({Y, S0}, {y}, {2, 3});
  for (int64_t j = 0; j < 3; ++j)
    EXPECT_NEAR(at(s0, {0, j}) + at(s0, {1, j}), 1.0, 1e-6);
}

TEST(Topi, LayerNormAndBatchNorm) {
  auto X = placeholder(dims({2, 3, 4}), f32, "X");
  auto G = placeholder(dims({3, 4}), f32, "gamma");
  auto B = placeholder(dims({3, 4}), f32, "beta");
  auto Y = topi::layerNorm(X, G, B, {-2, -1}, 1e-5);
  auto x = randomTensor({2, 3, 4}, 33), g = randomTensor({3, 4}, 34), b = randomTensor({3, 4}, 35);
  auto y = run({X, G, B, Y}, {x, g, b}, {2, 3, 4});
  for (int64_t n = 0; n < 2; ++n) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < 12; ++i)
      mean += at(x, {n, i / 4, i % 4});
    mean /= 12;
    for (int64_t i = 0; i < 12; ++i)
      var += std::pow(at(x, {n, i / 4, i % 4}) - mean, 2);
    var /= 12;
    for (int64_t i = 0; i < 12; ++i) {
      double want =
          (at(x, {n, i / 4, i % 4}) - mean) / std::sqrt(var + 1e-5) * at(g, {i / 4, i % 4}) +
          at(b, {i / 4, i % 4});
      EXPECT_NEAR(at(y, {n, i / 4, i % 4}), want, 1e-4);
    }
  }
  EXPECT_THROW(topi::layerNorm(X, G, B, {-1}), Error); // gamma shape mismatch

  auto M = placeholder(dims({3}), f32, "mean"), V = placeholder(dims({3}), f32, "var");
  auto G1 = placeholder(dims({3}), f32, "g"), B1 = placeholder(dims({3}), f32, "b");
  auto BN = topi::batchNorm(X, G1, B1, M, V, 1, 1e-3);
  auto m = randomTensor({3}, 36), v = randomTensor({3}, 37, 0.1, 2), g1 = randomTensor({3}, 38),
       b1 = randomTensor({3}, 39);
  auto bn = run({X, G1, B1, M, V, BN}, {x, g1, b1, m, v}, {2, 3, 4});
  EXPECT_NEAR(at(bn, {1, 2, 3}),
              (at(x, {1, 2, 3}) - at(m, {2})) / std::sqrt(at(v, {2}) + 1e-3) * at(g1, {2}) +
                  at(b1, {2}),
              1e-5);
  EXPECT_THROW(topi::batchNorm(X, G, B1, M, V), Error);
}

TEST(Topi, ReductionsWithAxesAndKeepdims) {
  auto X = placeholder(dims({2, 3, 4}), f32, "X");
  auto x = randomTensor({2, 3, 4}, 40);
  auto S = topi::sum(X, {0, 2}, true);
  ASSERT_EQ(S.ndim(), 3);
  auto s = run({X, S}, {x}, {1, 3, 1});
  auto Mn = topi::mean(X, {1});
  auto mn = run({X, Mn}, {x}, {2, 4});
  auto Mx = topi::max(X, {});
  auto mx = run({X, Mx}, {x}, {});
  double all = -1e30;
  for (int64_t j = 0; j < 3; ++j) {
    double acc = 0;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k)
        acc += at(x, {i, j, k});
    EXPECT_NEAR(at(s, {0, j, 0}), acc, 1e-5);
  }
  for (int64_t i = 0; i < 24; ++i)
    all = std::max(all, x.getDouble(i));
  EXPECT_EQ(mx.getDouble(0), all);
  EXPECT_NEAR(at(mn, {1, 2}), (at(x, {1, 0, 2}) + at(x, {1, 1, 2}) + at(x, {1, 2, 2})) / 3, 1e-6);
  EXPECT_THROW(topi::sum(X, {0, 0}), Error);
  EXPECT_THROW(topi::sum(X, {3}), Error);
}

TEST(Topi, ArgmaxAndArgminPickTheFirstExtremum) {
  auto X = placeholder(dims({2, 4}), f32, "X");
  unity::Tensor x(f32, {2, 4});
  float vals[8] = {1, 5, 5, -2, 3, -7, 0, -7};
  for (int i = 0; i < 8; ++i)
    x.setDouble(i, vals[i]);
  auto AM = topi::argmax(X, 1);
  EXPECT_EQ(AM.dtype(), DataType::Int64());
  auto am = run({X, AM}, {x}, {2});
  EXPECT_EQ(am.getDouble(0), 1);
  EXPECT_EQ(am.getDouble(1), 0);
  auto AN = topi::argmin(X, -1, true);
  auto an = run({X, AN}, {x}, {2, 1});
  EXPECT_EQ(an.getDouble(0), 3);
  EXPECT_EQ(an.getDouble(1), 1);
  auto A0 = topi::argmax(X, 0);
  auto a0 = run({X, A0}, {x}, {4});
  EXPECT_EQ(a0.getDouble(0), 1);
  EXPECT_EQ(a0.getDouble(2), 0);
}

TEST(Topi, ReshapeTransposeExpandSqueeze) {
  auto X = placeholder(dims({2, 3, 4}), f32, "X");
  auto x = randomTensor({2, 3, 4}, 41);
  auto R = topi::reshape(X, dims({4, 6}));
  auto r = run({X, R}, {x}, {4, 6});
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(r.getDouble(i), x.getDouble(i));
  EXPECT_THROW(topi::reshape(X, dims({5, 5})), Error);
  auto T = topi::transpose(X, {2, 0, 1});
  auto t = run({X, T}, {x}, {4, 2, 3});
  EXPECT_EQ(at(t, {3, 1, 2}), at(x, {1, 2, 3}));
  EXPECT_THROW(topi::transpose(X, {0, 0, 1}), Error);
  auto E = topi::expandDims(X, -1);
  auto S = topi::squeeze(E);
  auto s = run({X, S}, {x}, {2, 3, 4});
  EXPECT_TRUE(allClose(s, x));
  EXPECT_THROW(topi::squeeze(X, {1}), Error);
  // symbolic reshape: (n, 6) -> (n, 2, 3)
  auto n = primVar("n");
  auto Y = placeholder({n, intImm(6)}, f32, "Y");
  auto RY = topi::reshape(Y, {n, intImm(2), intImm(3)});
  auto y = randomTensor({3, 6}, 42);
  auto ry = run({Y, RY}, {y}, {3, 2, 3});
  for (int64_t i = 0; i < 18; ++i)
    EXPECT_EQ(ry.getDouble(i), y.getDouble(i));
}

TEST(Topi, ConcatAndSplitRoundTrip) {
  auto A = placeholder(dims({2, 1}), f32, "A");
  auto B = placeholder(dims({2, 3}), f32, "B");
  auto C = placeholder(dims({2, 2}), f32, "C");
  auto K = topi::concat({A, B, C}, 1);
  ASSERT_TRUE(isConstInt(K.shape()[1], 6));
  auto a = randomTensor({2, 1}, 43), b = randomTensor({2, 3}, 44), c = randomTensor({2, 2}, 45);
  auto k = run({A, B, C, K}, {a, b, c}, {2, 6});
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_EQ(at(k, {i, 0}), at(a, {i, 0}));
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(k, {i, 1 + j}), at(b, {i, j}));
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_EQ(at(k, {i, 4 + j}), at(c, {i, j}));
  }
  auto X = placeholder(dims({2, 6}), f32, "X");
  auto parts = topi::splitAt(X, {1, 4}, 1);
  ASSERT_EQ(parts.size(), 3u);
  auto p1 = run({X, parts[1]}, {k}, {2, 3});
  EXPECT_TRUE(allClose(p1, b));
  auto thirds = topi::split(X, 3, -1);
  auto t2 = run({X, thirds[2]}, {k}, {2, 2});
  EXPECT_TRUE(allClose(t2, c));
  EXPECT_THROW(topi::split(X, 4, 1), Error);
}

TEST(Topi, StridedSliceTakeBroadcastToPad) {
  auto X = placeholder(dims({5, 4}), f32, "X");
  auto x = randomTensor({5, 4}, 46);
  auto S = topi::stridedSlice(X, {-1, 1}, {0, 100}, {-2, 2});
  // rows 4, 2 ; cols 1, 3
  auto s = run({X, S}, {x}, {2, 2});
  EXPECT_EQ(at(s, {0, 0}), at(x, {4, 1}));
  EXPECT_EQ(at(s, {1, 1}), at(x, {2, 3}));
  auto n = primVar("n");
  auto Y = placeholder({n}, f32, "Y");
  auto SY = topi::stridedSlice(Y, {1}, {INT32_MAX}, {2});
  auto y = randomTensor({6}, 47);
  auto sy = run({Y, SY}, {y}, {3});
  EXPECT_EQ(sy.getDouble(2), y.getDouble(5));

  auto I = placeholder(dims({3}), DataType::Int64(), "I");
  auto T = topi::take(X, I, 0);
  unity::Tensor idx(DataType::Int64(), {3});
  idx.setDouble(0, 2), idx.setDouble(1, -1), idx.setDouble(2, 9);
  auto t = run({X, I, T}, {x, idx}, {3, 4});
  EXPECT_EQ(at(t, {0, 1}), at(x, {2, 1}));
  EXPECT_EQ(at(t, {1, 3}), at(x, {4, 3})); // negative counts from the end
  EXPECT_EQ(at(t, {2, 0}), at(x, {4, 0})); // out of range clamps

  auto V = placeholder(dims({4}), f32, "V");
  auto BT = topi::broadcastTo(V, dims({3, 4}));
  auto v = randomTensor({4}, 48);
  auto bt = run({V, BT}, {v}, {3, 4});
  EXPECT_EQ(at(bt, {2, 3}), at(v, {3}));
  EXPECT_THROW(topi::broadcastTo(V, dims({3, 5})), Error);

  auto P = topi::pad(X, {1, 0}, {0, 2}, -3.0);
  auto p = run({X, P}, {x}, {6, 6});
  EXPECT_EQ(at(p, {0, 0}), -3.0);
  EXPECT_EQ(at(p, {1, 5}), -3.0);
  EXPECT_EQ(at(p, {3, 2}), at(x, {2, 2}));
}

TEST(Topi, Resize2dNearestAndLinear) {
  auto X = placeholder(dims({1, 1, 2, 3}), f32, "X");
  unity::Tensor x(f32, {1, 1, 2, 3});
  for (int i = 0; i < 6; ++i)
    x.setDouble(i, i); // [[0,1,2],[3,4,5]]
  auto N = topi::resize2d(X, intImm(4), intImm(6), "nearest", "asymmetric", "floor");
  auto nn = run({X, N}, {x}, {1, 1, 4, 6});
  EXPECT_EQ(at(nn, {0, 0, 3, 5}), 5);
  EXPECT_EQ(at(nn, {0, 0, 1, 3}), 1);
  EXPECT_EQ(at(nn, {0, 0, 2, 0}), 3);
  auto L = topi::resize2d(X, intImm(3), intImm(5), "linear", "align_corners");
  auto l = run({X, L}, {x}, {1, 1, 3, 5});
  // align_corners: row 1 is halfway between the rows, col 1 at 0.5
  EXPECT_NEAR(at(l, {0, 0, 1, 1}), 0.5 * (0.5 + 3.5), 1e-6);
  EXPECT_NEAR(at(l, {0, 0, 2, 4}), 5, 1e-6);
  auto H = topi::resize2d(X, intImm(4), intImm(6), "linear", "half_pixel");
  auto h = run({X, H}, {x}, {1, 1, 4, 6});
  // half_pixel: out (0, 0) maps to (-0.25, -0.25) -> clamps to x[0,0]; out (1, 2) -> (0.25, 0.75)
  EXPECT_NEAR(at(h, {0, 0, 0, 0}), 0, 1e-6);
  EXPECT_NEAR(at(h, {0, 0, 1, 2}), 0.75 * 0.75 + 0.25 * 3.75, 1e-6);
  EXPECT_THROW(topi::resize2d(X, intImm(4), intImm(6), "bicubic"), Error);
}

TEST(Topi, Resize2dCubicReproducesARamp) {
  // Keys' kernel with a = -0.5 reproduces polynomials up to degree 2, so a
  // ramp x[j] = j resized with align_corners gives o * 5 / 10 wherever all
  // four taps lie inside the input (o = 2 .. 7).
  auto X = placeholder(dims({1, 1, 1, 6}), f32, "X");
  unity::Tensor x(f32, {1, 1, 1, 6});
  for (int i = 0; i < 6; ++i)
    x.setDouble(i, i);
  topi::ResizeParams p;
  p.method = "cubic";
  p.coordinateMode = "align_corners";
  auto Y = topi::resize2d(X, intImm(1), intImm(11), p);
  auto y = run({X, Y}, {x}, {1, 1, 1, 11});
  for (int64_t o = 2; o <= 7; ++o)
    EXPECT_NEAR(at(y, {0, 0, 0, o}), o * 0.5, 1e-5) << o;
  // Explicit scale 0.5 with asymmetric coordinates reads x[o / 0.5] = x[2o].
  topi::ResizeParams q;
  q.method = "nearest";
  q.coordinateMode = "asymmetric";
  q.nearestMode = "floor";
  q.scaleW = 0.5;
  auto Z = topi::resize2d(X, intImm(1), intImm(2), q);
  auto z = run({X, Z}, {x}, {1, 1, 1, 2});
  EXPECT_EQ(at(z, {0, 0, 0, 1}), 2);
}

TEST(Topi, PadEdgeAndReflect) {
  auto X = placeholder(dims({3}), f32, "X");
  unity::Tensor x(f32, {3});
  for (int i = 0; i < 3; ++i)
    x.setDouble(i, 10 + i); // [10, 11, 12]
  auto E = topi::padMode(X, {2}, {1}, "edge");
  auto e = run({X, E}, {x}, {6});
  std::vector<double> wantE{10, 10, 10, 11, 12, 12};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(at(e, {i}), wantE[i]) << i;
  // Reflect without repeating the border; 5 before goes round twice.
  auto R = topi::padMode(X, {5}, {3}, "reflect");
  auto r = run({X, R}, {x}, {11});
  std::vector<double> wantR{11, 10, 11, 12, 11, 10, 11, 12, 11, 10, 11};
  for (int64_t i = 0; i < 11; ++i)
    EXPECT_EQ(at(r, {i}), wantR[i]) << i;
  EXPECT_THROW(topi::padMode(X, {1}, {1}, "wrap"), Error);
}
