// SkipPaddingTaps on hand-written lowered convolutions: the multiply-adds
// it keeps are exactly those whose image value lies inside the image
// (counted here by brute force over the loop nest, independently of the
// pass), the results equal the input's (the reference interpreter checks
// every access against its buffer's bounds), and what it must not touch
// (another pad value, a loop doing more than the accumulation, a buffer
// written twice or passed in, a border too thin to pay for its code) comes
// back as the same node.
#include <gtest/gtest.h>

#include <functional>

#include "engine/ir/functor.h"
#include "engine/te/interpreter.h"
#include "engine/transform/tir_lower.h"
#include "tests/engine/te/te_test_util.h"
#include "tests/engine/transform/tir_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::expectWellFormedAndRoundTrips;
using unity::transform::testing::parseFunc;

namespace {

/// How many times the accumulations into buffer `out` (stores whose value
/// adds to the stored element) run: each store counted once per iteration
/// of its enclosing loops (all of constant extent here).
int64_t accumulations(const PrimFuncRef& f, const std::string& out) {
  std::function<int64_t(const Stmt&)> count = [&](const Stmt& s) -> int64_t {
    if (auto* l = as<For>(s))
      return asConstInt(l->extent).value() * count(l->body);
    if (auto* q = as<SeqStmt>(s)) {
      int64_t n = 0;
      for (auto& x : q->seq)
        n += count(x);
      return n;
    }
    if (auto* a = as<Allocate>(s))
      return count(a->body);
    if (auto* st = as<BufferStore>(s)) {
      auto* add = as<BinaryExpr>(st->value);
      return st->buffer->name == out && add && add->op() == NodeKind::Add ? 1 : 0;
    }
    return 0;
  };
  return count(f->body);
}

/// Runs both functions on the same random inputs; the last buffer is the output.
void expectSameResults(const PrimFuncRef& a, const PrimFuncRef& b,
                       const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Tensor> ta, tb;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ta.push_back(randomTensor(shapes[i], 200 + static_cast<uint32_t>(i), -3.0, 3.0));
    tb.push_back(ta.back());
  }
  std::vector<Tensor*> pa, pb;
  for (size_t i = 0; i < shapes.size(); ++i) {
    pa.push_back(&ta[i]);
    pb.push_back(&tb[i]);
  }
  te::interpretPrimFunc(a, pa);
  te::interpretPrimFunc(b, pb);
  // Only zero products are dropped, the others keep their order.
  EXPECT_TRUE(allClose(tb.back(), ta.back(), 0.0));
}

/// The taps (y, ky, x, kx) of a kernel k x k with padding 1 and stride s
/// over an h x w image whose image position lies inside the image.
int64_t insideTaps(int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t k, int64_t s) {
  int64_t n = 0;
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t ky = 0; ky < k; ++ky)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t kx = 0; kx < k; ++kx) {
          int64_t iy = y * s + ky - 1, ix = x * s + kx - 1;
          n += iy >= 0 && iy < h && ix >= 0 && ix < w;
        }
  return n;
}

// The shape of the register-tiled convolution of the default schedule: the
// padded copy, then per output row the taps, the output columns unrolled.
const char* kConv7 = R"(
@T.prim_func
def f(A: T.Buffer((7, 7), "float32"), W: T.Buffer((3, 3), "float32"), C: T.Buffer((7, 7), "float32")):
    with T.allocate((9, 9), "float32") as P:
        for i in T.serial(9):
            for j in T.vectorized(9):
                P[i, j] = T.Select(i - 1 >= 0 and i - 1 < 7 and (j - 1 >= 0 and j - 1 < 7), A[T.max(T.min(i - 1, 6), 0), T.max(T.min(j - 1, 6), 0)], T.float32(0.0))
        for yi in T.serial(7):
            for xi in T.serial(7):
                C[yi, xi] = T.float32(0.0)
        for y in T.serial(7):
            for ky in T.serial(3):
                for kx in T.serial(3):
                    for x in T.unroll(7):
                        C[y, x] = C[y, x] + P[y + ky, x + kx] * W[ky, kx]
)";

} // namespace

TEST(SkipPaddingTaps, KeepsExactlyTheTapsInsideTheImage) {
  auto f = parseFunc(kConv7);
  ASSERT_EQ(accumulations(f, "C"), 7 * 3 * 7 * 3);
  auto g = transform::skipPaddingTaps(f);
  ASSERT_NE(g.get(), f.get());
  expectWellFormedAndRoundTrips(g);
  // 2 of 21 row taps and 2 of 21 column taps read the padding.
  EXPECT_EQ(accumulations(g, "C"), insideTaps(7, 7, 7, 7, 3, 1));
  EXPECT_EQ(insideTaps(7, 7, 7, 7, 3, 1), 19 * 19);
  expectSameResults(f, g, {{7, 7}, {3, 3}, {7, 7}});
}

TEST(SkipPaddingTaps, CutsTheColumnTilesAndReadsStridedTaps) {
  // 14 output columns in two tiles of 7 (the tile loop is cut so that each
  // tile's column range is constant), and a stride-2 variant: a 13 x 13
  // image padded to 15 x 15 gives 7 x 7 outputs at y * 2 + ky.
  auto tiles = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((14, 14), "float32"), W: T.Buffer((3, 3), "float32"), C: T.Buffer((14, 14), "float32")):
    with T.allocate((16, 16), "float32") as P:
        for i in T.serial(16):
            for j in T.vectorized(16):
                P[i, j] = T.Select(i - 1 >= 0 and i - 1 < 14 and (j - 1 >= 0 and j - 1 < 14), A[T.max(T.min(i - 1, 13), 0), T.max(T.min(j - 1, 13), 0)], T.float32(0.0))
        for yi in T.serial(14):
            for xi in T.serial(14):
                C[yi, xi] = T.float32(0.0)
        for y in T.serial(14):
            for xo in T.serial(2):
                for ky in T.serial(3):
                    for kx in T.serial(3):
                        for x in T.unroll(7):
                            C[y, xo * 7 + x] = C[y, xo * 7 + x] + P[y + ky, xo * 7 + x + kx] * W[ky, kx]
)");
  auto g = transform::skipPaddingTaps(tiles);
  ASSERT_NE(g.get(), tiles.get());
  expectWellFormedAndRoundTrips(g);
  EXPECT_EQ(accumulations(g, "C"), insideTaps(14, 14, 14, 14, 3, 1));
  expectSameResults(tiles, g, {{14, 14}, {3, 3}, {14, 14}});

  auto strided = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((13, 13), "float32"), W: T.Buffer((3, 3), "float32"), C: T.Buffer((7, 7), "float32")):
    with T.allocate((15, 15), "float32") as P:
        for i in T.serial(15):
            for j in T.vectorized(15):
                P[i, j] = T.Select(i - 1 >= 0 and i - 1 < 13 and (j - 1 >= 0 and j - 1 < 13), A[T.max(T.min(i - 1, 12), 0), T.max(T.min(j - 1, 12), 0)], T.float32(0.0))
        for yi in T.serial(7):
            for xi in T.serial(7):
                C[yi, xi] = T.float32(0.0)
        for y in T.serial(7):
            for ky in T.serial(3):
                for kx in T.serial(3):
                    for x in T.unroll(7):
                        C[y, x] = C[y, x] + P[y * 2 + ky, x * 2 + kx] * W[ky, kx]
)");
  auto h = transform::skipPaddingTaps(strided);
  ASSERT_NE(h.get(), strided.get());
  EXPECT_EQ(accumulations(h, "C"), insideTaps(13, 13, 7, 7, 3, 2));
  EXPECT_LT(insideTaps(13, 13, 7, 7, 3, 2), 7 * 7 * 9); // the top row and left column
  expectSameResults(strided, h, {{13, 13}, {3, 3}, {7, 7}});
}

TEST(SkipPaddingTaps, LeavesWhatItMayNotDropAsItIs) {
  auto unchanged = [](const std::string& text, const char* why) {
    auto f = parseFunc(text);
    EXPECT_EQ(transform::skipPaddingTaps(f).get(), f.get()) << why;
  };
  auto edit = [](std::string s, const std::string& from, const std::string& to) {
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::string conv = kConv7;
  unchanged(edit(conv, "T.float32(0.0))\n", "T.float32(1.0))\n"),
            "the padding is not zero (a max pool's -inf, here 1)");
  unchanged(edit(conv, "C[y, x] = C[y, x] + P[y + ky, x + kx] * W[ky, kx]",
                 "C[y, x] = C[y, x] + P[y + ky, x + kx] * W[ky, kx]\n"
                 "                        A[y, x] = T.float32(1.0)"),
            "the loop does more than accumulate");
  unchanged(edit(conv, "        for yi in T.serial(7):",
                 "        P[0, 0] = T.float32(2.0)\n        for yi in T.serial(7):"),
            "P is written twice");
  unchanged(edit(conv, "C[y, x] = C[y, x] + P[y + ky, x + kx] * W[ky, kx]",
                 "C[y, x] = P[y + ky, x + kx] * W[ky, kx]"),
            "not an accumulation");
  unchanged(edit(conv, "                P[i, j] = T.Select(",
                 "                if i < 9:\n                    P[i, j] = T.Select("),
            "P is written under an if");
  // A 56-wide image in tiles of 8 columns: its borders are 2.4 % of the
  // row taps and 2.4 % of the column taps, under the share that pays for
  // the extra copies of the loop body.
  unchanged(R"(
@T.prim_func
def f(A: T.Buffer((56, 56), "float32"), W: T.Buffer((3, 3), "float32"), C: T.Buffer((56, 56), "float32")):
    with T.allocate((58, 58), "float32") as P:
        for i in T.serial(58):
            for j in T.vectorized(58):
                P[i, j] = T.Select(i - 1 >= 0 and i - 1 < 56 and (j - 1 >= 0 and j - 1 < 56), A[T.max(T.min(i - 1, 55), 0), T.max(T.min(j - 1, 55), 0)], T.float32(0.0))
        for yi in T.serial(56):
            for xi in T.serial(56):
                C[yi, xi] = T.float32(0.0)
        for y in T.serial(56):
            for xo in T.serial(7):
                for ky in T.serial(3):
                    for kx in T.serial(3):
                        for x in T.unroll(8):
                            C[y, xo * 8 + x] = C[y, xo * 8 + x] + P[y + ky, xo * 8 + x + kx] * W[ky, kx]
)",
            "borders too thin");
  // The same nest over a buffer passed in: nothing says it is zero.
  unchanged(R"(
@T.prim_func
def f(P: T.Buffer((9, 9), "float32"), W: T.Buffer((3, 3), "float32"), C: T.Buffer((7, 7), "float32")):
    for y in T.serial(7):
        for ky in T.serial(3):
            for kx in T.serial(3):
                for x in T.unroll(7):
                    C[y, x] = C[y, x] + P[y + ky, x + kx] * W[ky, kx]
)",
            "P is a parameter");
}
