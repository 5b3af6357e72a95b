// topi indexing, scan, loss and classification functions (topi_index.cpp)
// against hand-written loops, through createPrimFunc and the reference
// interpreter (which checks every access against the blocks' regions).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/ir/module.h"
#include "engine/ir/well_formed.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"
#include "engine/te/topi.h"
#include "te_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::te::testing;
namespace topi = unity::te::topi;
using te::placeholder;

namespace {

const DataType f32 = DataType::Float32();
const DataType i64 = DataType::Int64();

std::vector<PrimExpr> dims(std::initializer_list<int64_t> d) {
  std::vector<PrimExpr> out;
  for (int64_t v : d)
    out.push_back(intImm(v));
  return out;
}

unity::Tensor ints(std::vector<int64_t> shape, std::vector<int64_t> values,
                   DataType t = DataType::Int64()) {
  unity::Tensor out(t, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    out.setDouble(static_cast<int64_t>(i), static_cast<double>(values[i]));
  return out;
}

/// Builds f(inputs..., outputs...), checks it, runs it; returns the outputs.
std::vector<unity::Tensor> runAll(const std::vector<te::Tensor>& ins,
                                  const std::vector<te::Tensor>& outs,
                                  std::vector<unity::Tensor> inputs,
                                  std::vector<std::vector<int64_t>> outShapes) {
  std::vector<te::Tensor> args = ins;
  args.insert(args.end(), outs.begin(), outs.end());
  PrimFuncRef f = te::createPrimFunc(args);
  for (auto& i : checkWellFormed(makeModule({{"f", f}})))
    ADD_FAILURE() << issueStr(i);
  std::vector<unity::Tensor> results;
  for (size_t i = 0; i < outs.size(); ++i)
    results.emplace_back(outs[i].dtype(), outShapes[i]);
  std::vector<unity::Tensor*> ptrs;
  for (auto& t : inputs)
    ptrs.push_back(&t);
  for (auto& t : results)
    ptrs.push_back(&t);
  te::interpretPrimFunc(f, ptrs);
  return results;
}

unity::Tensor run1(const std::vector<te::Tensor>& ins, const te::Tensor& out,
                   std::vector<unity::Tensor> inputs, std::vector<int64_t> outShape) {
  return runAll(ins, {out}, std::move(inputs), {std::move(outShape)})[0];
}

} // namespace

TEST(TopiIndex, GatherElementsAlongEachAxisWithNegativeIndices) {
  auto X = placeholder(dims({3, 4}), f32, "X");
  auto x = randomTensor({3, 4}, 1);
  for (int axis : {0, 1}) {
    auto I = placeholder(dims({2, 3}), i64, "I");
    // Hand-chosen indices, some negative (count from the end of the axis).
    auto idx = ints({2, 3}, {0, -1, 2, 1, 0, -2});
    auto y = run1({X, I}, topi::gatherElements(X, I, axis), {x, idx}, {2, 3});
    int64_t ext = axis == 0 ? 3 : 4;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) {
        int64_t k = static_cast<int64_t>(at(idx, {i, j}));
        if (k < 0)
          k += ext;
        double want = axis == 0 ? at(x, {k, j}) : at(x, {i, k});
        EXPECT_EQ(at(y, {i, j}), want) << axis << " " << i << " " << j;
      }
  }
  EXPECT_THROW(topi::gatherElements(X, placeholder(dims({3}), i64, "I"), 0), Error);
}

TEST(TopiIndex, GatherNDWithAndWithoutBatchDims) {
  auto X = placeholder(dims({2, 3, 2}), f32, "X");
  auto x = randomTensor({2, 3, 2}, 2);
  {
    auto I = placeholder(dims({2, 2}), i64, "I"); // two (i, j) pairs -> rows of 2
    auto idx = ints({2, 2}, {1, 2, 0, -1});
    auto y = run1({X, I}, topi::gatherND(X, I), {x, idx}, {2, 2});
    for (int64_t c = 0; c < 2; ++c) {
      EXPECT_EQ(at(y, {0, c}), at(x, {1, 2, c}));
      EXPECT_EQ(at(y, {1, c}), at(x, {0, 2, c}));
    }
  }
  {
    auto I = placeholder(dims({2, 1}), i64, "I"); // batch_dims 1: per batch one j
    auto idx = ints({2, 1}, {2, 0});
    auto y = run1({X, I}, topi::gatherND(X, I, 1), {x, idx}, {2, 2});
    for (int64_t c = 0; c < 2; ++c) {
      EXPECT_EQ(at(y, {0, c}), at(x, {0, 2, c}));
      EXPECT_EQ(at(y, {1, c}), at(x, {1, 0, c}));
    }
  }
}

TEST(TopiIndex, ScatterElementsNoneAndAdd) {
  auto D = placeholder(dims({3, 3}), f32, "D");
  auto I = placeholder(dims({2, 3}), i64, "I");
  auto U = placeholder(dims({2, 3}), f32, "U");
  auto d = randomTensor({3, 3}, 3);
  auto u = randomTensor({2, 3}, 4);
  // Column 2 gets two updates at row 1 (a duplicate): none keeps the last.
  auto idx = ints({2, 3}, {1, 0, 1, 0, 2, -2});
  for (const char* red : {"none", "add", "max"}) {
    auto y = run1({D, I, U}, topi::scatterElements(D, I, U, 0, red), {d, idx, u}, {3, 3});
    unity::Tensor want(f32, {3, 3});
    for (int64_t i = 0; i < 9; ++i)
      want.setDouble(i, d.getDouble(i));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) { // the sequential loop of the ONNX spec
        int64_t r = static_cast<int64_t>(at(idx, {i, j}));
        if (r < 0)
          r += 3;
        double old = at(want, {r, j}), v = at(u, {i, j});
        double nv = std::string(red) == "none"  ? v
                    : std::string(red) == "add" ? float(old + v)
                                                : std::max(old, v);
        set(want, {r, j}, nv);
      }
    EXPECT_TRUE(allClose(y, want, 1e-6)) << red;
  }
}

TEST(TopiIndex, ScatterNDRowsAndElementsWithMul) {
  auto D = placeholder(dims({4, 2}), f32, "D");
  auto d = randomTensor({4, 2}, 5);
  {
    // Whole rows: indices (2, 1), updates (2, 2).
    auto I = placeholder(dims({2, 1}), i64, "I");
    auto U = placeholder(dims({2, 2}), f32, "U");
    auto idx = ints({2, 1}, {3, 1});
    auto u = randomTensor({2, 2}, 6);
    auto y = run1({D, I, U}, topi::scatterND(D, I, U), {d, idx, u}, {4, 2});
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 2; ++c) {
        double want = r == 3 ? at(u, {0, c}) : r == 1 ? at(u, {1, c}) : at(d, {r, c});
        EXPECT_EQ(at(y, {r, c}), want);
      }
  }
  {
    // Single elements with a duplicate, reduction mul.
    auto I = placeholder(dims({3, 2}), i64, "I");
    auto U = placeholder(dims({3}), f32, "U");
    auto idx = ints({3, 2}, {0, 1, 2, 0, 0, 1});
    auto u = randomTensor({3}, 7);
    auto y = run1({D, I, U}, topi::scatterND(D, I, U, "mul"), {d, idx, u}, {4, 2});
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 2; ++c) {
        double want = at(d, {r, c});
        if (r == 0 && c == 1)
          want = want * u.getDouble(0) * u.getDouble(2);
        if (r == 2 && c == 0)
          want = want * u.getDouble(1);
        EXPECT_NEAR(at(y, {r, c}), want, 1e-6);
      }
  }
}

TEST(TopiIndex, OneHotWithNegativeIndexAndAxis) {
  auto I = placeholder(dims({3}), i64, "I");
  auto idx = ints({3}, {0, -1, 2});
  auto y = run1({I}, topi::oneHot(I, intImm(4), 0, 5.0, -1.0, f32), {idx}, {4, 3});
  for (int64_t c = 0; c < 4; ++c)
    for (int64_t i = 0; i < 3; ++i) {
      int64_t k = i == 1 ? 3 : i == 0 ? 0 : 2;
      EXPECT_EQ(at(y, {c, i}), c == k ? 5.0 : -1.0);
    }
}

TEST(TopiIndex, TriluUpperAndLowerWithOffsets) {
  auto X = placeholder(dims({2, 3, 4}), f32, "X");
  auto x = randomTensor({2, 3, 4}, 8);
  for (bool upper : {true, false})
    for (int64_t k : {-1, 0, 2}) {
      auto y = run1({X}, topi::trilu(X, k, upper), {x}, {2, 3, 4});
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 4; ++j) {
            bool keep = upper ? j - i >= k : j - i <= k;
            EXPECT_EQ(at(y, {b, i, j}), keep ? at(x, {b, i, j}) : 0.0)
                << upper << " " << k << " " << i << " " << j;
          }
    }
}

TEST(TopiIndex, CumsumExclusiveReverseAtTwoSizes) {
  auto n = primVar("n");
  auto X = placeholder({intImm(2), n}, f32, "X");
  for (int64_t len : {1, 5}) {
    auto x = randomTensor({2, len}, 9);
    for (bool excl : {false, true})
      for (bool rev : {false, true}) {
        auto y = run1({X}, topi::cumsum(X, 1, excl, rev), {x}, {2, len});
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t i = 0; i < len; ++i) {
            double s = 0;
            for (int64_t k = 0; k < len; ++k)
              if (rev ? (excl ? k > i : k >= i) : (excl ? k < i : k <= i))
                s += at(x, {r, k});
            EXPECT_NEAR(at(y, {r, i}), s, 1e-5) << excl << rev << len;
          }
      }
  }
}

TEST(TopiIndex, TopKLargestSmallestWithTies) {
  auto X = placeholder(dims({2, 5}), f32, "X");
  unity::Tensor x(f32, {2, 5});
  const double vals[] = {3, 1, 3, 7, -2, 0, 0, 5, -1, 5};
  for (int i = 0; i < 10; ++i)
    x.setDouble(i, vals[i]);
  auto outs = topi::topk(X, 3, 1, true);
  auto r = runAll({X}, outs, {x}, {{2, 3}, {2, 3}});
  // Hand-sorted: row 0 = 7@3, 3@0, 3@2; row 1 = 5@2, 5@4, 0@0.
  const double wantV[] = {7, 3, 3, 5, 5, 0}, wantI[] = {3, 0, 2, 2, 4, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r[0].getDouble(i), wantV[i]) << i;
    EXPECT_EQ(r[1].getDouble(i), wantI[i]) << i;
  }
  auto small = runAll({X}, topi::topk(X, 2, 1, false), {x}, {{2, 2}, {2, 2}});
  const double sV[] = {-2, 1, -1, 0}, sI[] = {4, 1, 3, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(small[0].getDouble(i), sV[i]) << i;
    EXPECT_EQ(small[1].getDouble(i), sI[i]) << i;
  }
  EXPECT_THROW(topi::topk(X, 6, 1), Error);
}

TEST(TopiIndex, NllLossReductionsWeightsAndIgnoreIndex) {
  auto P = placeholder(dims({3, 4, 2}), f32, "P");
  auto T = placeholder(dims({3, 2}), i64, "T");
  auto W = placeholder(dims({4}), f32, "W");
  auto p = randomTensor({3, 4, 2}, 10, -3, 0);
  auto w = randomTensor({4}, 11, 0.5, 2);
  auto t = ints({3, 2}, {0, 3, 1, 1, 2, 0});
  const int64_t ignore = 1;
  // Hand loop of the ONNX definition.
  double num = 0, den = 0, plain = 0;
  unity::Tensor wantNone(f32, {3, 2});
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t d = 0; d < 2; ++d) {
      int64_t c = static_cast<int64_t>(at(t, {n, d}));
      double wt = c == ignore ? 0.0 : w.getDouble(c);
      double l = -at(p, {n, c, d}) * wt;
      set(wantNone, {n, d}, l);
      num += l;
      den += wt;
      plain += -at(p, {n, c, d});
    }
  auto none = run1({P, T, W}, topi::nllLoss(P, T, W, "none", ignore), {p, t, w}, {3, 2});
  EXPECT_TRUE(allClose(none, wantNone, 1e-6));
  auto sum = run1({P, T, W}, topi::nllLoss(P, T, W, "sum", ignore), {p, t, w}, {});
  EXPECT_NEAR(sum.getDouble(0), num, 1e-5);
  auto mean = run1({P, T, W}, topi::nllLoss(P, T, W, "mean", ignore), {p, t, w}, {});
  EXPECT_NEAR(mean.getDouble(0), num / den, 1e-5);
  auto unweighted =
      run1({P, T}, topi::nllLoss(P, T, te::Tensor(), "mean", std::nullopt), {p, t}, {});
  EXPECT_NEAR(unweighted.getDouble(0), plain / 6, 1e-5);
  EXPECT_THROW(topi::nllLoss(P, W, te::Tensor(), "mean", std::nullopt), Error);
}

TEST(TopiIndex, IsNanIsInfWithSignSelection) {
  auto X = placeholder(dims({4}), f32, "X");
  unity::Tensor x(f32, {4});
  const double inf = std::numeric_limits<double>::infinity();
  const double vals[] = {1.0, inf, -inf, std::nan("")};
  for (int i = 0; i < 4; ++i)
    x.setDouble(i, vals[i]);
  auto nan = run1({X}, topi::isnan(X), {x}, {4});
  auto both = run1({X}, topi::isinf(X), {x}, {4});
  auto pos = run1({X}, topi::isinf(X, true, false), {x}, {4});
  auto neg = run1({X}, topi::isinf(X, false, true), {x}, {4});
  const int wantNan[] = {0, 0, 0, 1}, wantBoth[] = {0, 1, 1, 0}, wantPos[] = {0, 1, 0, 0},
            wantNeg[] = {0, 0, 1, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(nan.getDouble(i), wantNan[i]) << i;
    EXPECT_EQ(both.getDouble(i), wantBoth[i]) << i;
    EXPECT_EQ(pos.getDouble(i), wantPos[i]) << i;
    EXPECT_EQ(neg.getDouble(i), wantNeg[i]) << i;
  }
  EXPECT_THROW(topi::isnan(placeholder(dims({4}), i64, "I")), Error);
}

TEST(TopiIndex, EinsumMatmulDiagonalAndImplicitOutput) {
  auto A = placeholder(dims({2, 3}), f32, "A");
  auto B = placeholder(dims({3, 4}), f32, "B");
  auto a = randomTensor({2, 3}, 20), b = randomTensor({3, 4}, 21);
  auto mm = run1({A, B}, topi::einsum({A, B}, "ij, jk -> ik"), {a, b}, {2, 4});
  auto implicitT = run1({A, B}, topi::einsum({A, B}, "ij,jk"), {a, b}, {2, 4});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 4; ++k) {
      double s = 0;
      for (int64_t j = 0; j < 3; ++j)
        s += at(a, {i, j}) * at(b, {j, k});
      EXPECT_NEAR(at(mm, {i, k}), s, 1e-5);
      EXPECT_NEAR(at(implicitT, {i, k}), s, 1e-5);
    }
  auto S = placeholder(dims({2, 3, 3}), f32, "S");
  auto sv = randomTensor({2, 3, 3}, 22);
  auto diag = run1({S}, topi::einsum({S}, "bii->bi"), {sv}, {2, 3});
  auto total = run1({S}, topi::einsum({S}, "bij->"), {sv}, {});
  double all = 0;
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t i = 0; i < 3; ++i) {
      EXPECT_EQ(at(diag, {bb, i}), at(sv, {bb, i, i}));
      for (int64_t j = 0; j < 3; ++j)
        all += at(sv, {bb, i, j});
    }
  EXPECT_NEAR(total.getDouble(0), all, 1e-5);
  EXPECT_THROW(topi::einsum({A, B}, "...j,jk->k"), Error);
  EXPECT_THROW(topi::einsum({A}, "ijk->i"), Error);
}
