// DefaultSchedule rule 3, epilogue fusion: the elementwise consumer of a
// convolution or matmul moves under the reduction's tile loop, after the
// tile's reduction (reverseComputeAt), checked on the loop structure, on
// the values (interpreter and build + run against hand-written references)
// and on the temporary StorageRewrite then shrinks.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/te/topi.h"
#include "engine/transform/alter_conv_layout.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;
using schedule::Schedule;

namespace {

/// relu(A x B + bias) in one function: C is an intermediate.
PrimFuncRef matmulBiasRelu(int64_t m, int64_t n, int64_t k) {
  auto A = te::placeholder({intImm(m), intImm(k)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(k), intImm(n)}, DataType::Float32(), "B");
  auto Bias = te::placeholder({intImm(n)}, DataType::Float32(), "bias");
  auto C = te::topi::matmul(A, B, "C");
  auto R = te::compute(
      {intImm(m), intImm(n)},
      [&](const std::vector<PrimExpr>& i) {
        return max(C({i[0], i[1]}) + Bias({i[1]}), floatImm(0.0));
      },
      "R");
  return te::createPrimFunc({A, B, Bias, R});
}

unity::Tensor matmulBiasReluRef(const unity::Tensor& a, const unity::Tensor& b,
                                const unity::Tensor& bias) {
  auto c = matmulRef(a, b);
  int64_t n = b.shape()[1];
  for (int64_t i = 0; i < c.numel(); ++i)
    c.setDouble(i, std::max(0.0, c.getDouble(i) + bias.getDouble(i % n)));
  return c;
}

/// relu(conv2d(X, W, pad k / 2) + bias[o]), k x k (3 unless given), batch
/// 1: topi writes it in the wide form (the crop inlined into the epilogue).
PrimFuncRef convBiasRelu(int64_t c, int64_t hw, int64_t o, int64_t k = 3) {
  auto X =
      te::placeholder({intImm(1), intImm(c), intImm(hw), intImm(hw)}, DataType::Float32(), "X");
  auto W = te::placeholder({intImm(o), intImm(c), intImm(k), intImm(k)}, DataType::Float32(), "W");
  auto Bias = te::placeholder({intImm(o)}, DataType::Float32(), "bias");
  te::topi::Conv2dParams p;
  p.padding = {k / 2, k / 2, k / 2, k / 2};
  auto Y = te::topi::conv2d(X, W, p, "conv");
  auto R = te::compute(
      Y.shape(),
      [&](const std::vector<PrimExpr>& i) {
        return max(Y({i[0], i[1], i[2], i[3]}) + Bias({i[1]}), floatImm(0.0));
      },
      "R");
  return te::createPrimFunc({X, W, Bias, R});
}

unity::Tensor convBiasReluRef(const unity::Tensor& x, const unity::Tensor& w,
                              const unity::Tensor& bias, int64_t c, int64_t hw, int64_t o,
                              int64_t k = 3) {
  unity::Tensor out(DataType::Float32(), {1, o, hw, hw});
  for (int64_t f = 0; f < o; ++f)
    for (int64_t y = 0; y < hw; ++y)
      for (int64_t xx = 0; xx < hw; ++xx) {
        double acc = bias.getDouble(f);
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              int64_t iy = y + ky - k / 2, ix = xx + kx - k / 2;
              if (iy < 0 || iy >= hw || ix < 0 || ix >= hw)
                continue;
              acc += x.getDouble((ch * hw + iy) * hw + ix) *
                     w.getDouble(((f * c + ch) * k + ky) * k + kx);
            }
        out.setDouble((f * hw + y) * hw + xx, std::max(0.0, acc));
      }
  return out;
}

/// Whether block `consumer` sits under a loop of block `producer` (they
/// share a loop).
bool sharesALoop(const PrimFuncRef& f, const std::string& producer, const std::string& consumer) {
  Schedule s(f);
  auto pl = s.getLoops(s.getBlock(producer));
  for (auto& l : s.getLoops(s.getBlock(consumer)))
    for (auto& p : pl)
      if (l.var.get() == p.var.get())
        return true;
  return false;
}

target::SchedulePolicy noFusion(target::SchedulePolicy p) {
  p.fuseEpilogues = false;
  return p;
}

/// Fusion of flattened walks after any reduction (the small test
/// convolutions sum fewer products than flatEpilogueMinReduction).
target::SchedulePolicy flatAlways(target::SchedulePolicy p) {
  p.flatEpilogueMinReduction = 0;
  return p;
}
const char* const kFlatAlways = R"({"flat_epilogue_min_reduction": 0})";
const char* const kNoFusion = R"({"fuse_epilogues": false})";

/// The elements of the Allocate of a buffer named `name` in the lowered
/// kernel of a one-call build with these policy knobs (-1 when there is
/// none).
int64_t allocatedElements(const PrimFuncRef& f, const std::string& name,
                          const std::string& policy) {
  BuildOptions opts;
  opts.config.set("tir.num_cores", int64_t(1));
  if (!policy.empty())
    opts.config.set("tir.schedule_policy", policy);
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  int64_t n = -1;
  for (auto& [fname, fn] : r.lowered->functions)
    if (auto pf = cast<PrimFunc>(fn))
      walkStmt(pf->body, [&](const Stmt& s) {
        auto* a = as<Allocate>(s);
        if (!a || a->buffer->name != name)
          return;
        n = 1;
        for (auto& d : a->buffer->shape)
          n *= asConstInt(d).value_or(-1);
      });
  return n;
}

} // namespace

TEST(DefaultScheduleEpilogue, MatmulEpilogueRunsUnderTheTile) {
  auto f = matmulBiasRelu(48, 64, 40);
  auto a = randomTensor({48, 40}, 1), b = randomTensor({40, 64}, 2), bias = randomTensor({64}, 3);
  auto want = matmulBiasReluRef(a, b, bias);
  auto fused = transform::defaultSchedule(f, avx512Policy(1));
  auto apart = transform::defaultSchedule(f, noFusion(avx512Policy(1)));
  EXPECT_TRUE(sharesALoop(fused, "C", "R"));
  EXPECT_FALSE(sharesALoop(apart, "C", "R"));
  // R's innermost loop runs along its output row, vectorized.
  Schedule s(fused);
  auto rl = s.getLoops(s.getBlock("R"));
  ASSERT_FALSE(rl.empty());
  EXPECT_EQ(s.loop(rl.back())->forKind, ForKind::Vectorized);
  EXPECT_TRUE(close(run(fused, {a, b, bias}, {48, 64}), want));
  EXPECT_TRUE(close(run(apart, {a, b, bias}, {48, 64}), want));
}

TEST(DefaultScheduleEpilogue, ShortMatmulUnderAFusedParallelLoopIsFusedToo) {
  // 4 cores: the tile loops are fused into one parallel loop, so the
  // epilogue's bindings divide the fused index; that is not a flattened
  // walk, and 24 products per output do not keep it apart.
  auto f = matmulBiasRelu(96, 64, 24);
  auto a = randomTensor({96, 24}, 11), b = randomTensor({24, 64}, 12),
       bias = randomTensor({64}, 13);
  auto fused = transform::defaultSchedule(f, avx512Policy(4));
  EXPECT_TRUE(sharesALoop(fused, "C", "R"));
  Schedule s(fused);
  EXPECT_EQ(s.loop(s.getLoops(s.getBlock("R"))[0])->forKind, ForKind::Parallel);
  EXPECT_TRUE(close(run(fused, {a, b, bias}, {96, 64}), matmulBiasReluRef(a, b, bias)));
}

TEST(DefaultScheduleEpilogue, WideConvolutionEpilogueRunsUnderTheTile) {
  // 4 -> 8 channels over 16 x 16: the wide form (flat rows of 18, 288
  // positions in tiles of 48 that cut rows).
  auto f = convBiasRelu(4, 16, 8);
  auto x = randomTensor({1, 4, 16, 16}, 4), w = randomTensor({8, 4, 3, 3}, 5),
       bias = randomTensor({8}, 6);
  auto want = convBiasReluRef(x, w, bias, 4, 16, 8);
  // By default the 36 products per output are too few to pay for the walk.
  EXPECT_FALSE(sharesALoop(transform::defaultSchedule(f, avx512Policy(1)), "conv_wide", "R"));
  for (int cores : {1, 2}) {
    auto fused = transform::defaultSchedule(f, flatAlways(avx512Policy(cores)));
    EXPECT_TRUE(sharesALoop(fused, "conv_wide", "R")) << cores;
    EXPECT_TRUE(close(run(fused, {x, w, bias}, {1, 8, 16, 16}), want)) << cores;
  }
  BuildOptions opts;
  opts.config.set("tir.num_cores", int64_t(2));
  opts.config.set("tir.schedule_policy", std::string(kFlatAlways));
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  EXPECT_TRUE(close(r.executable->runTensors({x, w, bias}).at(0), want));
  // The epilogue reads exactly the tile's flat positions: the wide
  // temporary shrinks from all channels x positions to one tile.
  int64_t apart = allocatedElements(f, "conv_wide", kNoFusion),
          fused = allocatedElements(f, "conv_wide", kFlatAlways);
  EXPECT_EQ(apart, 8 * 288);
  EXPECT_GT(fused, 0);
  EXPECT_LT(fused, apart);
}

TEST(DefaultScheduleEpilogue, AWalkThatDropsNoColumnMovesAfterAnyReduction) {
  // relu(conv2d 1x1(X, W) + bias[o]) over 16 x 16, unpadded: topi reads the
  // image itself (flat positions y * 16 + x, 256 = 4 x 64), so the walk
  // drops no column and its stores are contiguous. 24 products per output
  // (fewer than flatEpilogueMinReduction) and still it moves under the
  // tile, and the temporary shrinks to the tile.
  int64_t c = 24, hw = 16, o = 16;
  auto f = convBiasRelu(c, hw, o, 1);
  auto x = randomTensor({1, c, hw, hw}, 14), w = randomTensor({o, c, 1, 1}, 15),
       bias = randomTensor({o}, 16);
  auto want = convBiasReluRef(x, w, bias, c, hw, o, 1);
  for (int cores : {1, 2}) {
    auto g = transform::defaultSchedule(f, avx512Policy(cores));
    EXPECT_TRUE(sharesALoop(g, "conv_wide", "R")) << cores;
    EXPECT_TRUE(close(run(g, {x, w, bias}, {1, o, hw, hw}), want)) << cores;
  }
  BuildOptions opts;
  opts.config.set("tir.num_cores", int64_t(1));
  EXPECT_TRUE(close(
      build(transform::moduleCallingPrimFunc(f), opts).executable->runTensors({x, w, bias}).at(0),
      want));
  int64_t apart = allocatedElements(f, "conv_wide", kNoFusion),
          fused = allocatedElements(f, "conv_wide", "");
  EXPECT_EQ(apart, o * hw * hw);
  EXPECT_GT(fused, 0);
  EXPECT_LT(fused, apart);
  // The padded 3x3 of the test above (its walk drops the two padding
  // columns of each row) still keeps its own nest after 36 products.
  EXPECT_FALSE(sharesALoop(transform::defaultSchedule(convBiasRelu(4, 16, 8), avx512Policy(1)),
                           "conv_wide", "R"));
}

TEST(DefaultScheduleEpilogue, TilesNarrowerThanARowKeepTheirOwnNest) {
  // 56 x 56: flat rows of 58, tiles of 48 or 64 positions (structure only).
  auto f = convBiasRelu(4, 56, 16);
  auto p = flatAlways(avx512Policy(1));
  EXPECT_FALSE(sharesALoop(transform::defaultSchedule(f, p), "conv_wide", "R"));
  // The same with a 12 x 12 image (rows of 14) moves.
  EXPECT_TRUE(
      sharesALoop(transform::defaultSchedule(convBiasRelu(4, 12, 16), p), "conv_wide", "R"));
}

TEST(DefaultScheduleEpilogue, MatmulTemporaryShrinksToATile) {
  // Fused, the accumulators of one tile are all a tile's epilogue reads:
  // StorageRewrite keeps one tile of C instead of all of it.
  auto f = matmulBiasRelu(64, 64, 32);
  int64_t apart = allocatedElements(f, "C", kNoFusion), fused = allocatedElements(f, "C", "");
  EXPECT_EQ(apart, 64 * 64);
  EXPECT_GT(fused, 0);
  EXPECT_LT(fused, apart);
  auto a = randomTensor({64, 32}, 7), b = randomTensor({32, 64}, 8), bias = randomTensor({64}, 9);
  BuildOptions opts;
  opts.config.set("tir.num_cores", int64_t(1));
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  EXPECT_TRUE(close(r.executable->runTensors({a, b, bias}).at(0), matmulBiasReluRef(a, b, bias)));
}

TEST(DefaultScheduleEpilogue, ABlockedTileOverWholeShortRowsStoresThemInOneRun) {
  // relu(conv2d 1x1(X, W packed 32o) + bias[o]), 160 -> 128 channels: four
  // blocks give the one core its parallel iterations and the weight slices
  // (80 channels x 32 floats) move outside the rows, so the epilogue runs
  // after 32 output channels of a whole 7x7 image, so the copy back to NCHW writes 49
  // contiguous floats per channel: one vectorized loop over y * 7 + x (3
  // whole vectors and one lane), not 7 lanes per row. A 14-wide image runs
  // the epilogue once per row (the rows are the loop outside the slices):
  // one loop of 14.
  for (int64_t hw : {7, 14}) {
    SCOPED_TRACE("hw=" + std::to_string(hw));
    int64_t c = 160, o = 128, b = 32;
    auto X =
        te::placeholder({intImm(1), intImm(c), intImm(hw), intImm(hw)}, DataType::Float32(), "X");
    auto W = te::placeholder({intImm(o / b), intImm(c), intImm(1), intImm(1), intImm(b)},
                             DataType::Float32(), "W");
    auto Bias = te::placeholder({intImm(o)}, DataType::Float32(), "bias");
    auto Y = te::topi::conv2dBlocked(X, W, te::topi::Conv2dParams{}, "conv");
    auto R = te::compute(
        Y.shape(),
        [&](const std::vector<PrimExpr>& i) {
          return max(Y({i[0], i[1], i[2], i[3]}) + Bias({i[1]}), floatImm(0.0));
        },
        "R");
    auto f = te::createPrimFunc({X, W, Bias, R});
    auto g = transform::defaultSchedule(f, avx512Policy(1));
    EXPECT_TRUE(sharesALoop(g, "conv_blocked", "R"));
    Schedule s(g);
    auto loops = s.getLoops(s.getBlock("R"));
    ASSERT_FALSE(loops.empty());
    EXPECT_EQ(s.loop(loops.back())->forKind, ForKind::Vectorized);
    EXPECT_EQ(asConstInt(s.loop(loops.back())->extent), hw == 7 ? 49 : 14);
    auto x = randomTensor({1, c, hw, hw}, 17), w = randomTensor({o, c, 1, 1}, 18),
         bias = randomTensor({o}, 19);
    auto want = convBiasReluRef(x, w, bias, c, hw, o, 1);
    auto packed = transform::packConvWeight(w, b);
    EXPECT_TRUE(close(run(g, {x, packed, bias}, {1, o, hw, hw}), want));
    BuildOptions opts;
    opts.config.set("tir.num_cores", int64_t(1));
    EXPECT_TRUE(close(build(transform::moduleCallingPrimFunc(f), opts)
                          .executable->runTensors({x, packed, bias})
                          .at(0),
                      want));
  }
}
