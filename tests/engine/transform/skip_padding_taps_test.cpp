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
using unity::transform::testing::expectSameResults;
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

/// The shape of the register-tiled convolution of the default schedule: the
/// padded copy P of an h x w image (padding 1), then per output row the
/// 3 x 3 taps and the output columns, `tile` of them unrolled per
/// column tile (tile = ow: one tile), at stride s.
std::string paddedConv(int64_t h, int64_t w, int64_t s, int64_t tile) {
  int64_t oh = (h + 2 - 3) / s + 1, ow = (w + 2 - 3) / s + 1;
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string col = tile == ow ? "x" : "xo * " + n(tile) + " + x";
  std::string taps = tile == ow ? "" : "    ";
  std::string row = s == 1 ? "y + ky" : "y * " + n(s) + " + ky";
  std::string image = s == 1       ? col + " + kx"
                      : tile == ow ? "x * " + n(s) + " + kx"
                                   : "(" + col + ") * " + n(s) + " + kx";
  std::string out = "@T.prim_func\n"
                    "def f(A: T.Buffer((" +
                    n(h) + ", " + n(w) +
                    "), \"float32\"), W: T.Buffer((3, 3), "
                    "\"float32\"), C: T.Buffer((" +
                    n(oh) + ", " + n(ow) +
                    "), \"float32\")):\n"
                    "    with T.allocate((" +
                    n(h + 2) + ", " + n(w + 2) +
                    "), \"float32\") as P:\n"
                    "        for i in T.serial(" +
                    n(h + 2) +
                    "):\n"
                    "            for j in T.vectorized(" +
                    n(w + 2) +
                    "):\n"
                    "                P[i, j] = T.Select(i - 1 >= 0 and i - 1 < " +
                    n(h) + " and (j - 1 >= 0 and j - 1 < " + n(w) + "), A[T.max(T.min(i - 1, " +
                    n(h - 1) + "), 0), T.max(T.min(j - 1, " + n(w - 1) +
                    "), 0)], T.float32(0.0))\n"
                    "        for yi in T.serial(" +
                    n(oh) +
                    "):\n"
                    "            for xi in T.serial(" +
                    n(ow) +
                    "):\n"
                    "                C[yi, xi] = T.float32(0.0)\n"
                    "        for y in T.serial(" +
                    n(oh) + "):\n";
  if (tile != ow)
    out += "            for xo in T.serial(" + n(ow / tile) + "):\n";
  out += taps + "            for ky in T.serial(3):\n" + taps +
         "                for kx in T.serial(3):\n" + taps +
         "                    for x in T.unroll(" + n(tile) + "):\n" + taps +
         "                        C[y, " + col + "] = C[y, " + col + "] + P[" + row + ", " + image +
         "] * W[ky, kx]\n";
  return out;
}

const std::string kConv7 = paddedConv(7, 7, 1, 7);

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
  auto tiles = parseFunc(paddedConv(14, 14, 1, 7));

  auto g = transform::skipPaddingTaps(tiles);
  ASSERT_NE(g.get(), tiles.get());
  expectWellFormedAndRoundTrips(g);
  EXPECT_EQ(accumulations(g, "C"), insideTaps(14, 14, 14, 14, 3, 1));
  expectSameResults(tiles, g, {{14, 14}, {3, 3}, {14, 14}});

  auto strided = parseFunc(paddedConv(13, 13, 2, 7));

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
  unchanged(paddedConv(56, 56, 1, 8), "borders too thin");
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
