// DefaultSchedule register tiles: the wide convolution form (topi) and the
// tile the schedule picks for it and for matmul (V positions along the
// output's last axis in whole vectors, U unrolled rows, the reduce loops
// nested outside the tile), checked on the loop structure and on the values
// (hand-written references, interpreter and build + run).
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/te/topi.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;
using schedule::Schedule;

namespace {

struct ConvCase {
  int64_t c, h, w, o, kh, kw;
  std::vector<int64_t> pad; // top, left, bottom, right
  std::vector<int64_t> dil;
  std::vector<int64_t> stride{1, 1};
  int64_t groups = 1;
};

/// Direct NCHW convolution, batch 1, zero padding (k.c input channels,
/// k.c / k.groups per group).
unity::Tensor convRef(const unity::Tensor& x, const unity::Tensor& wt, const ConvCase& k) {
  int64_t oh = (k.h + k.pad[0] + k.pad[2] - k.dil[0] * (k.kh - 1) - 1) / k.stride[0] + 1;
  int64_t ow = (k.w + k.pad[1] + k.pad[3] - k.dil[1] * (k.kw - 1) - 1) / k.stride[1] + 1;
  int64_t cg = k.c / k.groups, og = k.o / k.groups;
  unity::Tensor out(DataType::Float32(), {1, k.o, oh, ow});
  for (int64_t o = 0; o < k.o; ++o)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx) {
        double acc = 0;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t ky = 0; ky < k.kh; ++ky)
            for (int64_t kx = 0; kx < k.kw; ++kx) {
              int64_t iy = y * k.stride[0] + ky * k.dil[0] - k.pad[0];
              int64_t ix = xx * k.stride[1] + kx * k.dil[1] - k.pad[1];
              if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w)
                continue;
              acc += x.getDouble(((o / og * cg + c) * k.h + iy) * k.w + ix) *
                     wt.getDouble(((o * cg + c) * k.kh + ky) * k.kw + kx);
            }
        out.setDouble((o * oh + y) * ow + xx, acc);
      }
  return out;
}

/// Random input and weights for k (seed advanced by two) and the direct
/// convolution's output.
struct ConvInputs {
  unity::Tensor x, w, want;
};
ConvInputs convInputs(const ConvCase& k, uint32_t& seed) {
  ConvInputs in;
  in.x = randomTensor({1, k.c, k.h, k.w}, seed++);
  in.w = randomTensor({k.o, k.c / k.groups, k.kh, k.kw}, seed++);
  in.want = convRef(in.x, in.w, k);
  return in;
}

PrimFuncRef convFunc(const ConvCase& k) {
  auto X =
      te::placeholder({intImm(1), intImm(k.c), intImm(k.h), intImm(k.w)}, DataType::Float32(), "X");
  auto W = te::placeholder({intImm(k.o), intImm(k.c / k.groups), intImm(k.kh), intImm(k.kw)},
                           DataType::Float32(), "W");
  te::topi::Conv2dParams p;
  p.padding = k.pad;
  p.dilation = k.dil;
  p.strides = k.stride;
  p.groups = k.groups;
  auto Y = te::topi::conv2d(X, W, p, "conv");
  return te::createPrimFunc({X, W, Y});
}

/// The function as the kernel of a one-call module, built with `passes`
/// (empty: the default pipeline).
BuildResult buildKernel(const PrimFuncRef& f, std::vector<std::string> passes, int64_t cores = 2) {
  BuildOptions opts;
  opts.passes = std::move(passes);
  opts.config.set("tir.num_cores", cores);
  return build(transform::moduleCallingPrimFunc(f), opts);
}

/// The function, scheduled, through the executor.
unity::Tensor buildAndRun(const PrimFuncRef& f, const std::vector<unity::Tensor>& inputs) {
  auto r = buildKernel(
      f, {"Normalize", "DefaultSchedule", "LowerBlocks", "Simplify", "LowerToExecutor"});
  return r.executable->runTensors(inputs).at(0);
}

bool hasBlock(const PrimFuncRef& f, const std::string& name) {
  for (auto* b : allBlocks(f))
    if (b->name == name)
      return true;
  return false;
}

/// The loops around block `name` of f, outermost first.
std::vector<Ref<For>> loopsOf(const PrimFuncRef& f, const std::string& name) {
  Schedule s(f);
  std::vector<Ref<For>> out;
  for (auto& l : s.getLoops(s.getBlock(name)))
    out.push_back(s.loop(l));
  return out;
}

} // namespace

TEST(DefaultScheduleTiles, WideConvolutionMatchesDirectReference) {
  // 3x3 symmetric padding; dilation with asymmetric padding; 2x2 taps, no
  // padding; a 1x1 convolution. Each has >= 32 products per output, so
  // topi writes the wide form.
  std::vector<ConvCase> cases{{8, 10, 9, 6, 3, 3, {1, 1, 1, 1}, {1, 1}},
                              {4, 12, 11, 5, 3, 3, {0, 1, 2, 0}, {2, 1}},
                              {16, 8, 8, 4, 2, 2, {0, 0, 0, 0}, {1, 1}},
                              {40, 9, 13, 7, 1, 1, {0, 0, 0, 0}, {1, 1}}};
  uint32_t seed = 40;
  for (auto& k : cases) {
    auto f = convFunc(k);
    EXPECT_TRUE(hasBlock(f, "pad_flat") && hasBlock(f, "conv_wide")) << k.c << "x" << k.h;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(close(run(f, {x, w}, want.shape()), want)) << "interpreter " << k.c;
    EXPECT_TRUE(
        close(run(transform::defaultSchedule(f, avx512Policy(2)), {x, w}, want.shape()), want))
        << "scheduled, 16 lanes " << k.c;
    EXPECT_TRUE(
        close(run(transform::defaultSchedule(f, avx2Policy(2)), {x, w}, want.shape()), want))
        << "scheduled, 8 lanes " << k.c;
    EXPECT_TRUE(close(buildAndRun(f, {x, w}), want)) << "built " << k.c;
  }
}

TEST(DefaultScheduleTiles, StridedWideConvolutionMatchesDirectReference) {
  // Strided convolutions in the wide form (stride phases): ResNet's 7x7/2
  // stem, MobileNet's 3-channel 3x3/2 stem (27 products per output), 3x3/2
  // and 1x1/2 downsampling at small sizes, odd and
  // asymmetric sizes, unequal strides, stride with dilation (all phases
  // stored), a stride larger than the kernel (1x1/2: one phase; 2x2/3: taps
  // read 2 of 3 phases).
  std::vector<ConvCase> cases{{3, 22, 21, 8, 7, 7, {3, 3, 3, 3}, {1, 1}, {2, 2}},
                              {3, 15, 17, 8, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}},
                              {8, 11, 9, 10, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}},
                              {40, 9, 13, 7, 1, 1, {0, 0, 0, 0}, {1, 1}, {2, 2}},
                              {6, 12, 13, 5, 3, 3, {0, 1, 2, 0}, {1, 1}, {1, 2}},
                              {6, 13, 12, 5, 3, 3, {2, 2, 2, 2}, {2, 2}, {2, 3}},
                              {12, 14, 10, 4, 2, 2, {1, 0, 0, 1}, {1, 1}, {3, 3}}};
  uint32_t seed = 140;
  for (auto& k : cases) {
    auto f = convFunc(k);
    std::string what = std::to_string(k.c) + "x" + std::to_string(k.h) + "x" + std::to_string(k.w) +
                       " k" + std::to_string(k.kh) + " s" + std::to_string(k.stride[0]) +
                       std::to_string(k.stride[1]);
    EXPECT_TRUE(hasBlock(f, "pad_flat") && hasBlock(f, "conv_wide")) << what;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(close(run(f, {x, w}, want.shape()), want)) << "interpreter " << what;
    EXPECT_TRUE(
        close(run(transform::defaultSchedule(f, avx512Policy(2)), {x, w}, want.shape()), want))
        << "scheduled, 16 lanes " << what;
    EXPECT_TRUE(close(buildAndRun(f, {x, w}), want)) << "built " << what;
  }
}

TEST(DefaultScheduleTiles, ConvolutionKernelsNeedNoRuntimeOverlapChecks) {
  // Every buffer of a kernel is distinct (parameters are noalias, local
  // buffers fresh), so LLVM must vectorize the register tiles of the
  // default pipeline without versioning them on a runtime overlap check:
  // one that failed to prove it kept the accumulators in memory (MobileNet's
  // 3x3/2 stem and ResNet's 7x7/2 stem, whose stride-phase index LLVM splits
  // into a long getelementptr chain; a 1x1 convolution reading a heap
  // temporary). Each is also checked against the direct convolution.
  std::vector<ConvCase> cases{{3, 224, 224, 32, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}},
                              {3, 64, 64, 16, 7, 7, {3, 3, 3, 3}, {1, 1}, {2, 2}},
                              {320, 7, 7, 64, 1, 1, {0, 0, 0, 0}, {1, 1}}};
  uint32_t seed = 300;
  for (auto& k : cases) {
    auto f = convFunc(k);
    auto r = buildKernel(f, {}, 1);
    std::string what = std::to_string(k.c) + "x" + std::to_string(k.h) + " k" +
                       std::to_string(k.kh) + " s" + std::to_string(k.stride[0]);
    std::string ir = r.compiled->llvmIR();
    EXPECT_NE(ir.find("x float>"), std::string::npos) << what << ": not vectorized";
    // LoopVersioning's alias domain: present only when a loop was versioned.
    EXPECT_EQ(ir.find("LVerDomain"), std::string::npos) << what;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(close(r.executable->runTensors({x, w}).at(0), want)) << what;
  }
}

TEST(DefaultScheduleTiles, PointwiseAndSmallImageConvolutionsUseTheWideForm) {
  // A 1x1 convolution over 24 channels (a matmul over channels, one reduce
  // loop) and a 3x3 one on a 5x6 image (30 output positions) take the wide
  // form; a 1x1 over 16 channels keeps the direct one.
  std::vector<ConvCase> cases{{24, 9, 11, 10, 1, 1, {0, 0, 0, 0}, {1, 1}},
                              {12, 5, 6, 9, 3, 3, {1, 1, 1, 1}, {1, 1}}};
  uint32_t seed = 170;
  for (auto& k : cases) {
    auto f = convFunc(k);
    EXPECT_TRUE(hasBlock(f, "conv_wide")) << k.c;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(
        close(run(transform::defaultSchedule(f, avx512Policy(2)), {x, w}, want.shape()), want))
        << k.c;
    EXPECT_TRUE(close(buildAndRun(f, {x, w}), want)) << "built " << k.c;
  }
  auto g = transform::defaultSchedule(convFunc(cases[0]), avx512Policy(1));
  size_t reduceLoops = 0;
  for (auto& l : loopsOf(g, "conv_wide"))
    reduceLoops += l->var->name.rfind("rc", 0) == 0;
  EXPECT_GE(reduceLoops, 1u);
  EXPECT_FALSE(hasBlock(convFunc({16, 9, 11, 10, 1, 1, {0, 0, 0, 0}, {1, 1}}), "conv_wide"));
}

TEST(DefaultScheduleTiles, PointwiseConvolutionReadsTheImageWithoutACopy) {
  // 1x1, stride 1, no padding, 8x8 = 64 positions (whole register tiles):
  // the wide form reads the input at p = y * 8 + x, no pad_flat. 8x6 = 48
  // too; 9x9 = 81 keeps the copy.
  std::vector<ConvCase> cases{{24, 8, 8, 10, 1, 1, {0, 0, 0, 0}, {1, 1}},
                              {32, 8, 6, 16, 1, 1, {0, 0, 0, 0}, {1, 1}}};
  uint32_t seed = 400;
  for (auto& k : cases) {
    auto f = convFunc(k);
    EXPECT_TRUE(hasBlock(f, "conv_wide")) << k.h << "x" << k.w;
    EXPECT_FALSE(hasBlock(f, "pad_flat")) << k.h << "x" << k.w;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(
        close(run(transform::defaultSchedule(f, avx512Policy(2)), {x, w}, want.shape()), want))
        << "scheduled " << k.h << "x" << k.w;
    auto r = buildKernel(f, {}, 1);
    EXPECT_TRUE(close(r.executable->runTensors({x, w}).at(0), want))
        << "built " << k.h << "x" << k.w;
    EXPECT_NE(r.compiled->llvmIR().find("x float>"), std::string::npos) << "not vectorized";
  }
  EXPECT_TRUE(hasBlock(convFunc({24, 9, 9, 10, 1, 1, {0, 0, 0, 0}, {1, 1}}), "pad_flat"));
}

TEST(DefaultScheduleTiles, PaddedImageCopyRunsAlongRows) {
  // The wide form's pad_flat copy stores whole rows of Wq columns per phase;
  // the schedule splits its flat loop into rows so the vectorized loop is
  // one row (contiguous columns, no division per lane). 14x14 pad 1: Wq =
  // 16; 15x15 pad 1 stride 2: Wq = ceil(17 / 2) = 9; 1x1 over 12x11: 11
  // (132 positions: not whole tiles, so it keeps the copy).
  std::vector<std::pair<ConvCase, int64_t>> cases{
      {{4, 14, 14, 16, 3, 3, {1, 1, 1, 1}, {1, 1}}, 16},
      {{3, 15, 15, 8, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}}, 9},
      {{32, 12, 11, 8, 1, 1, {0, 0, 0, 0}, {1, 1}}, 11}};
  for (auto& [k, wq] : cases) {
    auto g = transform::defaultSchedule(convFunc(k), avx512Policy(1));
    auto loops = loopsOf(g, "pad_flat");
    ASSERT_FALSE(loops.empty());
    EXPECT_EQ(loops.back()->forKind, ForKind::Vectorized) << k.h << " s" << k.stride[0];
    EXPECT_EQ(asConstInt(loops.back()->extent).value_or(-1), wq) << k.h << " s" << k.stride[0];
  }
}

TEST(DefaultScheduleTiles, OneTileImageStaysParallelOverChannels) {
  // 1x1, 320 -> 64 channels over 7x7: the 49 positions are one x tile. On
  // one core the 320-long reduction is cut and its outer part moved out of
  // the channel tiles (L2 reuse); with two cores that would leave the
  // parallel loop one iteration long, so the channel tiles stay outermost
  // and parallel.
  ConvCase k{320, 7, 7, 64, 1, 1, {0, 0, 0, 0}, {1, 1}};
  auto one = loopsOf(transform::defaultSchedule(convFunc(k), avx512Policy(1)), "conv_wide");
  auto two = loopsOf(transform::defaultSchedule(convFunc(k), avx512Policy(2)), "conv_wide");
  auto parallelIters = [](const std::vector<Ref<For>>& loops) {
    int64_t n = 0;
    for (auto& l : loops)
      if (l->forKind == ForKind::Parallel)
        n = std::max<int64_t>(n, asConstInt(l->extent).value_or(0));
    return n;
  };
  EXPECT_GE(parallelIters(two), 2);
  EXPECT_GT(one.size(), two.size()) << "the one-core schedule splits the reduction";
}

TEST(DefaultScheduleTiles, SmallConvolutionKeepsTheDirectForm) {
  // 2 channels x 3x3 = 18 products per output: the wide form's extra stages
  // would not pay.
  auto f = convFunc({2, 6, 6, 3, 3, 3, {1, 1, 1, 1}, {1, 1}});
  EXPECT_FALSE(hasBlock(f, "conv_wide"));
  EXPECT_TRUE(hasBlock(f, "pad_temp"));
}

TEST(DefaultScheduleTiles, ConvolutionRegisterTile) {
  // 14x14 image, pad 1: Wp = 16, positions (14 - 1) * 16 + 14 = 222 -> 224.
  // 4 channels x 3x3 = 36 products per output (wide form).
  ConvCase k{4, 14, 14, 16, 3, 3, {1, 1, 1, 1}, {1, 1}};
  auto f = convFunc(k);
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  auto loops = loopsOf(g, "conv_wide");
  ASSERT_GE(loops.size(), 5u);
  size_t n = loops.size();
  // ... rc ry rx | o_i (unrolled 8) | p_i (vectorized 32 = 2 vectors): 16
  // accumulators, 2 vector loads + 8 broadcasts per 16 FMAs.
  EXPECT_EQ(loops[n - 1]->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(loops[n - 1]->extent), 32);
  EXPECT_EQ(loops[n - 2]->forKind, ForKind::Unrolled);
  EXPECT_EQ(asConstInt(loops[n - 2]->extent), 8);
  // The reduce loops stay separate (not fused into one with div/mod taps).
  EXPECT_EQ(asConstInt(loops[n - 3]->extent), 3);
  EXPECT_EQ(asConstInt(loops[n - 4]->extent), 3);
  EXPECT_EQ(asConstInt(loops[n - 5]->extent), 4);
  for (size_t i = n - 5; i < n - 2; ++i)
    EXPECT_EQ(loops[i]->forKind, ForKind::Serial);
  // The init has its own vectorized nest; the output copy is vectorized.
  EXPECT_EQ(loopsOf(g, "conv_wide_init").back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(loopsOf(g, "conv").back()->forKind, ForKind::Vectorized);

  auto x = randomTensor({1, k.c, k.h, k.w}, 50), w = randomTensor({k.o, k.c, 3, 3}, 51);
  auto want = convRef(x, w, k);
  EXPECT_TRUE(close(run(g, {x, w}, want.shape()), want));
}

TEST(DefaultScheduleTiles, MatmulTileFillsTheAccumulatorBudget) {
  // 128x768 * 768x768 (a transformer projection). 16 lanes, 24 registers:
  // V = 48 (3 vectors) x U = 8 rows = 24 accumulators beats 64 x 4 = 16
  // (6 rows of 64 do not divide 128).
  auto f = te::matmulPrimFunc(128, 768, 768);
  auto inner = loopsOf(transform::defaultSchedule(f, avx512Policy(1)), "C");
  ASSERT_GE(inner.size(), 3u);
  EXPECT_EQ(inner.back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(inner.back()->extent), 48);
  EXPECT_EQ(inner[inner.size() - 2]->forKind, ForKind::Unrolled);
  EXPECT_EQ(asConstInt(inner[inner.size() - 2]->extent), 8);
  // 8 lanes, 12 registers: 24 (3 vectors) x 4 rows.
  inner = loopsOf(transform::defaultSchedule(f, avx2Policy(1)), "C");
  EXPECT_EQ(asConstInt(inner.back()->extent), 24);
  EXPECT_EQ(asConstInt(inner[inner.size() - 2]->extent), 4);

  // The same tiles on a small matmul, checked against the reference.
  auto small = te::matmulPrimFunc(16, 96, 20);
  auto a = randomTensor({16, 20}, 52), b = randomTensor({20, 96}, 53);
  for (int lanes : {16, 8}) {
    auto g = transform::defaultSchedule(small, lanes == 16 ? avx512Policy(1) : avx2Policy(1));
    EXPECT_EQ(countLoops(g, ForKind::Unrolled), 1) << lanes;
    EXPECT_TRUE(close(run(g, {a, b}, {16, 96}), matmulRef(a, b))) << lanes;
  }
}

TEST(DefaultScheduleTiles, WideConvolutionWithSymbolicBatch) {
  ConvCase k{8, 9, 10, 4, 3, 3, {1, 1, 1, 1}, {1, 1}};
  auto n = primVar("n");
  auto X = te::placeholder({n, intImm(k.c), intImm(k.h), intImm(k.w)}, DataType::Float32(), "X");
  auto W =
      te::placeholder({intImm(k.o), intImm(k.c), intImm(3), intImm(3)}, DataType::Float32(), "W");
  te::topi::Conv2dParams p;
  p.padding = k.pad;
  auto f = te::createPrimFunc({X, W, te::topi::conv2d(X, W, p, "conv")});
  ASSERT_TRUE(hasBlock(f, "conv_wide"));
  auto g = transform::defaultSchedule(f, avx512Policy(2));
  auto w = randomTensor({k.o, k.c, 3, 3}, 60);
  for (int64_t batch : {1, 3}) {
    auto x = randomTensor({batch, k.c, k.h, k.w}, 61);
    auto want = unity::Tensor(DataType::Float32(), {batch, k.o, k.h, k.w});
    for (int64_t b = 0; b < batch; ++b) {
      unity::Tensor xb(DataType::Float32(), {1, k.c, k.h, k.w});
      for (int64_t i = 0; i < xb.numel(); ++i)
        xb.setDouble(i, x.getDouble(b * xb.numel() + i));
      auto yb = convRef(xb, w, k);
      for (int64_t i = 0; i < yb.numel(); ++i)
        want.setDouble(b * yb.numel() + i, yb.getDouble(i));
    }
    EXPECT_TRUE(close(run(f, {x, w}, want.shape()), want)) << batch;
    EXPECT_TRUE(close(run(g, {x, w}, want.shape()), want)) << batch;
  }
}

TEST(DefaultScheduleTiles, DepthwiseConvolutionTapsInsideTheVectorLoop) {
  // Depthwise convolutions (one input channel per group): stride 1 with
  // odd widths and asymmetric padding, stride 2, unequal strides (width
  // only, height only), stride with dilation, a channel multiplier of 2. A
  // strided width reads the image directly (no copy); a stride only in
  // height reads a copy split into row phases; stride 1 a padded copy.
  std::vector<ConvCase> cases{{6, 9, 13, 6, 3, 3, {1, 1, 1, 1}, {1, 1}, {1, 1}, 6},
                              {5, 11, 7, 5, 3, 3, {0, 1, 2, 0}, {1, 1}, {1, 1}, 5},
                              {4, 13, 15, 4, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}, 4},
                              {3, 12, 11, 3, 3, 3, {0, 1, 1, 0}, {1, 1}, {1, 2}, 3},
                              {4, 15, 13, 4, 3, 3, {2, 2, 2, 2}, {2, 2}, {2, 2}, 4},
                              {4, 11, 14, 4, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 1}, 4},
                              {3, 9, 12, 3, 3, 3, {2, 1, 2, 1}, {2, 1}, {2, 1}, 3},
                              {3, 10, 9, 6, 5, 5, {2, 2, 2, 2}, {1, 1}, {2, 2}, 3}};
  uint32_t seed = 300;
  for (auto& k : cases) {
    auto f = convFunc(k);
    std::string what = std::to_string(k.c) + "x" + std::to_string(k.h) + "x" + std::to_string(k.w) +
                       " k" + std::to_string(k.kh) + " s" + std::to_string(k.stride[0]) +
                       std::to_string(k.stride[1]) + " o" + std::to_string(k.o);
    bool widthStrided = k.stride[1] > 1, heightOnly = k.stride[0] > 1 && !widthStrided;
    EXPECT_EQ(hasBlock(f, "pad_phase"), heightOnly) << what;
    // Every case has padding: a padded copy for stride 1 only.
    EXPECT_EQ(hasBlock(f, "pad_temp"), !widthStrided && !heightOnly) << what;
    EXPECT_FALSE(hasBlock(f, "conv_wide")) << what;
    auto g = transform::defaultSchedule(f, avx512Policy(2));
    // ... x (vectorized) | ry rx (unrolled): the taps summed per vector.
    auto loops = loopsOf(g, "conv");
    ASSERT_GE(loops.size(), 3u) << what;
    size_t n = loops.size();
    EXPECT_EQ(loops[n - 1]->forKind, ForKind::Unrolled) << what;
    EXPECT_EQ(loops[n - 2]->forKind, ForKind::Unrolled) << what;
    EXPECT_EQ(loops[n - 3]->forKind, ForKind::Vectorized) << what;
    auto [x, w, want] = convInputs(k, seed);
    EXPECT_TRUE(close(run(f, {x, w}, want.shape()), want)) << "interpreter " << what;
    EXPECT_TRUE(close(run(g, {x, w}, want.shape()), want)) << "scheduled " << what;
    EXPECT_TRUE(close(buildAndRun(f, {x, w}), want)) << "built " << what;
  }
}

TEST(DefaultScheduleTiles, DepthwisePaddingIsComputedPlaneByPlaneUnderTheChannelLoop) {
  // The padded copy a depthwise convolution reads (pad_temp for stride 1,
  // pad_phase for a stride in height only) moves under the convolution's
  // parallel loop: the outermost loop around both blocks is the same
  // parallel loop. With the knob off it stays a nest of its own.
  std::vector<ConvCase> cases{{6, 9, 13, 6, 3, 3, {1, 1, 1, 1}, {1, 1}, {1, 1}, 6},
                              {5, 11, 7, 5, 3, 3, {0, 1, 2, 0}, {1, 1}, {1, 1}, 5},
                              {4, 11, 14, 4, 3, 3, {1, 1, 1, 1}, {1, 1}, {2, 1}, 4},
                              {3, 10, 9, 6, 5, 5, {2, 2, 2, 2}, {1, 1}, {1, 1}, 3}};
  uint32_t seed = 340;
  for (auto& k : cases) {
    auto f = convFunc(k);
    std::string pad = hasBlock(f, "pad_phase") ? "pad_phase" : "pad_temp";
    std::string what = pad + " " + std::to_string(k.c) + "x" + std::to_string(k.h) + "x" +
                       std::to_string(k.w) + " o" + std::to_string(k.o);
    ASSERT_TRUE(hasBlock(f, pad)) << what;
    auto [x, w, want] = convInputs(k, seed);
    for (bool atConsumer : {true, false}) {
      auto policy = avx512Policy(2);
      policy.paddingAtConsumer = atConsumer;
      auto g = transform::defaultSchedule(f, policy);
      auto padLoops = loopsOf(g, pad), convLoops = loopsOf(g, "conv");
      ASSERT_FALSE(padLoops.empty() || convLoops.empty()) << what;
      EXPECT_EQ(padLoops[0].get() == convLoops[0].get(), atConsumer) << what;
      EXPECT_EQ(convLoops[0]->forKind, ForKind::Parallel) << what;
      // Its own loops run serially in each iteration, the row vectorized.
      for (size_t i = 1; i < padLoops.size(); ++i)
        EXPECT_NE(padLoops[i]->forKind, ForKind::Parallel) << what;
      EXPECT_EQ(padLoops.back()->forKind, ForKind::Vectorized) << what;
      EXPECT_TRUE(close(run(g, {x, w}, want.shape()), want)) << "scheduled " << what;
    }
    EXPECT_TRUE(close(buildAndRun(f, {x, w}), want)) << "built " << what;
  }
}

TEST(DefaultScheduleTiles, AMatrixVectorProductSplitsItsColumnsBetweenTheCores) {
  // M = 1 (a classifier): the row of 1000 columns is one tile with nothing
  // outside it; with two cores it is cut into two chunks of 500 columns,
  // parallel; with one core it stays whole. Values either way.
  auto f = te::matmulPrimFunc(1, 1000, 256);
  auto a = randomTensor({1, 256}, 70), b = randomTensor({256, 1000}, 71);
  for (int cores : {1, 2}) {
    auto g = transform::defaultSchedule(f, avx512Policy(cores));
    auto loops = loopsOf(g, "C");
    ASSERT_FALSE(loops.empty()) << cores;
    // The parallel loop: the one row (extent 1) on one core, two chunks on two.
    EXPECT_EQ(loops.front()->forKind, ForKind::Parallel) << cores;
    EXPECT_EQ(asConstInt(loops.front()->extent), cores == 2 ? 2 : 1);
    EXPECT_EQ(asConstInt(loops.back()->extent), cores == 2 ? 500 : 1000);
    EXPECT_EQ(loops.back()->forKind, ForKind::Vectorized) << cores;
    EXPECT_TRUE(close(run(g, {a, b}, {1, 1000}), matmulRef(a, b))) << cores;
  }
}
