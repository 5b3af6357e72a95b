// Tests of the FLOP count (hand-computed values for matmul, convolution,
// elementwise chains and symbolic shapes) and of the schedule features:
// fixed length and names, finite values, determinism, and that schedules
// differing in tile size, vectorization and parallelism give different
// vectors, in the direction the named features promise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/te/te.h"
#include "engine/te/topi.h"
#include "engine/te/workloads.h"
#include "engine/transform/default_schedule.h"
#include "tuner/features.h"

using namespace unity;
using namespace unity::ir;
using unity::schedule::Schedule;
using unity::tuner::estimateFlops;
using unity::tuner::extractFeatures;
using unity::tuner::featureCount;
using unity::tuner::featureNames;
using unity::tuner::FeatureOptions;

namespace {

te::Tensor input(std::vector<PrimExpr> shape, const std::string& name) {
  return te::placeholder(std::move(shape), DataType::Float32(), name);
}

double feature(const std::vector<float>& v, const std::string& name) {
  auto& names = featureNames();
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw Error("no feature named " + name);
  return v[static_cast<size_t>(it - names.begin())];
}

double lg(double x) { return std::log2(1 + x); }

struct Tiling {
  int64_t ti = 1, tj = 1; // inner tile of i (unrolled) and j
  bool vectorize = false, parallel = false;
};

/// A 64x64x64 matmul tiled i_o j_o k i_i j_i, its init decomposed.
PrimFuncRef tiled(const Tiling& t) {
  Schedule s(te::matmulPrimFunc(64, 64, 64));
  auto c = s.getBlock("C");
  auto loops = s.getLoops(c);
  auto is = s.split(loops[0], {-1, t.ti});
  auto js = s.split(loops[1], {-1, t.tj});
  s.reorder({is[0], js[0], loops[2], is[1], js[1]});
  s.decomposeReduction(c, loops[2]);
  s.unroll(is[1]);
  if (t.vectorize)
    s.vectorize(js[1]);
  if (t.parallel)
    s.parallel(is[0]);
  return s.func();
}

} // namespace

TEST(Flops, MatmulIsTwoMNK) {
  EXPECT_EQ(estimateFlops(te::matmulPrimFunc(3, 5, 7)), 2.0 * 3 * 5 * 7);
  EXPECT_EQ(estimateFlops(te::matmulPrimFunc(64, 32, 16)), 2.0 * 64 * 32 * 16);
}

TEST(Flops, SchedulingKeepsTheCount) {
  // An exact tiling moves the work around without adding any.
  EXPECT_EQ(estimateFlops(tiled({4, 16, true, true})), 2.0 * 64 * 64 * 64);
  // A predicated split counts its padded iterations: 64 = 3 * 22 - 2.
  Schedule s(te::matmulPrimFunc(64, 64, 64));
  s.split(s.getLoops(s.getBlock("C"))[0], {-1, 22});
  EXPECT_EQ(estimateFlops(s.func()), 2.0 * 66 * 64 * 64);
}

TEST(Flops, DirectConvolution) {
  // 2 input channels x 3x3 taps: the direct form (a padded copy, then the
  // reduction); the copy is a select, no arithmetic.
  auto data = input({intImm(1), intImm(2), intImm(8), intImm(8)}, "data");
  auto weight = input({intImm(4), intImm(2), intImm(3), intImm(3)}, "weight");
  te::topi::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto f = te::createPrimFunc({data, weight, te::topi::conv2d(data, weight, p)});
  EXPECT_EQ(estimateFlops(f), 2.0 * 1 * 4 * 8 * 8 * 2 * 3 * 3);
}

TEST(Flops, ElementwiseChain) {
  // add (1) then relu (max: 1) per element; a math intrinsic counts one.
  auto a = input({intImm(4), intImm(10)}, "a");
  auto b = input({intImm(4), intImm(10)}, "b");
  auto f = te::createPrimFunc({a, b, te::topi::relu(te::topi::add(a, b))});
  EXPECT_EQ(estimateFlops(f), 2.0 * 40);
  auto x = input({intImm(7)}, "x");
  auto g = te::createPrimFunc({x, te::topi::intrinsic(x, "exp")});
  EXPECT_EQ(estimateFlops(g), 7.0);
}

TEST(Flops, SymbolicExtentsTakeTheDefaultOrTheGivenValue) {
  auto n = primVar("n");
  auto f = te::matmulPrimFunc(n, intImm(8), intImm(4));
  EXPECT_EQ(estimateFlops(f), 2.0 * tuner::kDefaultSymbolicExtent * 8 * 4);
  EXPECT_EQ(estimateFlops(f, 10), 2.0 * 10 * 8 * 4);
}

TEST(Flops, BadInputIsAnError) {
  EXPECT_THROW(estimateFlops(PrimFuncRef()), Error);
  EXPECT_THROW(estimateFlops(te::matmulPrimFunc(2, 2, 2), 0), Error);
  EXPECT_THROW(extractFeatures(PrimFuncRef()), Error);
  FeatureOptions o;
  o.cores = 0;
  EXPECT_THROW(extractFeatures(te::matmulPrimFunc(2, 2, 2), o), Error);
}

TEST(Features, FixedLengthUniqueNamesFiniteValues) {
  auto& names = featureNames();
  EXPECT_EQ(names.size(), featureCount());
  EXPECT_GT(names.size(), 50u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  auto n = primVar("n");
  for (auto& f : {te::matmulPrimFunc(3, 5, 7), tiled({4, 16, true, true}),
                  te::matmulPrimFunc(n, intImm(8), intImm(4))}) {
    auto v = extractFeatures(f);
    ASSERT_EQ(v.size(), featureCount());
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_TRUE(std::isfinite(v[i])) << names[i];
  }
}

TEST(Features, Deterministic) {
  // Two separately built copies (different nodes, same structure).
  EXPECT_EQ(extractFeatures(tiled({4, 16, true, false})),
            extractFeatures(tiled({4, 16, true, false})));
}

TEST(Features, DifferentSchedulesDiffer) {
  auto plain = extractFeatures(te::matmulPrimFunc(64, 64, 64));
  auto small = extractFeatures(tiled({2, 8, false, false}));
  auto big = extractFeatures(tiled({4, 16, false, false}));
  auto vec = extractFeatures(tiled({4, 16, true, false}));
  auto par = extractFeatures(tiled({4, 16, true, true}));
  EXPECT_NE(plain, small);
  EXPECT_NE(small, big);
  EXPECT_NE(big, vec);
  EXPECT_NE(vec, par);

  // The accumulator tile: ti x tj floats held across the k loop (64 steps).
  EXPECT_FLOAT_EQ(feature(small, "main.acc_bytes"), lg(2 * 8 * 4));
  EXPECT_FLOAT_EQ(feature(big, "main.acc_bytes"), lg(4 * 16 * 4));
  EXPECT_FLOAT_EQ(feature(big, "main.acc_reuse"), lg(64));
  // Unscheduled (i j k): one element per k loop.
  EXPECT_FLOAT_EQ(feature(plain, "main.acc_bytes"), lg(4));
  EXPECT_FLOAT_EQ(feature(big, "main.unroll_product"), lg(4));

  EXPECT_EQ(feature(big, "main.vector_lanes"), 0);
  EXPECT_FLOAT_EQ(feature(vec, "main.vector_lanes"), lg(16));
  EXPECT_EQ(feature(vec, "main.inner_vectorized"), 1);

  EXPECT_EQ(feature(vec, "main.parallel_extent"), 0);
  EXPECT_FLOAT_EQ(feature(par, "main.parallel_extent"), lg(16));
  EXPECT_EQ(feature(par, "fn.parallel_fraction"), 1);
}

TEST(Features, AccessStrides) {
  // C[i, j] += A[i, k] * B[k, j] with j vectorized: the write and B move by
  // one element along j (contiguous vectors), A does not move (a broadcast).
  auto vec = extractFeatures(tiled({4, 16, true, false}));
  EXPECT_EQ(feature(vec, "write.vec_contiguous"), 1);
  EXPECT_EQ(feature(vec, "read0.vec_contiguous") + feature(vec, "read1.vec_contiguous"), 1);
  EXPECT_EQ(feature(vec, "read0.vec_broadcast") + feature(vec, "read1.vec_broadcast"), 1);
  // Unscheduled, k is innermost: A moves by 1, B by a row (64 floats); both
  // read tensors are 64x64 floats, so the order of the two slots is the
  // order of the loads (A first).
  auto plain = extractFeatures(te::matmulPrimFunc(64, 64, 64));
  EXPECT_FLOAT_EQ(feature(plain, "read0.inner_stride"), lg(1));
  EXPECT_FLOAT_EQ(feature(plain, "read1.inner_stride"), lg(64));
  EXPECT_FLOAT_EQ(feature(plain, "read0.bytes"), lg(64 * 64 * 4));
  EXPECT_FLOAT_EQ(feature(plain, "write.inner_stride"), 0);
}

TEST(Features, CoresChangeTheParallelFeatures) {
  auto f = tiled({4, 16, true, true}); // 16 parallel chunks
  FeatureOptions one, three;
  three.cores = 3;
  auto a = extractFeatures(f, one), b = extractFeatures(f, three);
  EXPECT_FLOAT_EQ(feature(a, "main.parallel_chunks_per_core"), lg(16));
  EXPECT_FLOAT_EQ(feature(b, "main.parallel_chunks_per_core"), lg(16.0 / 3));
  EXPECT_EQ(feature(a, "main.parallel_balance"), 1);
  EXPECT_FLOAT_EQ(feature(b, "main.parallel_balance"), 16.0 / 18);
}

TEST(Features, DefaultScheduledKernelsGiveFiniteFeatures) {
  // The default schedule's outputs: the wide convolution (padding copy,
  // tiled reduction, crop), a depthwise convolution, pooling, softmax, and
  // a symbolic matmul (main nest and tail copies from splitWithTail).
  auto policy =
      transform::schedulePolicyFor(target::Target::parse("llvm -mcpu=skylake-avx512 -num-cores=2"));
  struct Case {
    PrimFuncRef f;
    double extraFlops; // work the schedule adds
  };
  std::vector<Case> cases;
  auto data = input({intImm(1), intImm(16), intImm(14), intImm(14)}, "data");
  te::topi::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto w = input({intImm(32), intImm(16), intImm(3), intImm(3)}, "w");
  cases.push_back({te::createPrimFunc({data, w, te::topi::conv2d(data, w, p)}), 0});
  auto dw = input({intImm(16), intImm(1), intImm(3), intImm(3)}, "dw");
  p.groups = 16;
  cases.push_back({te::createPrimFunc({data, dw, te::topi::conv2d(data, dw, p)}), 0});
  cases.push_back({te::createPrimFunc({data, te::topi::pool2d(data, te::topi::PoolType::Max, {3, 3},
                                                              {2, 2}, {1, 1, 1, 1})}),
                   0});
  // Softmax: exp(x - max) stays a stage of its own (it has two readers,
  // keepSharedTranscendentals), so it is computed once, as written. Both
  // row reductions are factored by one vector (16 lanes): folding the lanes
  // adds 16 operations per row to each.
  auto x = input({intImm(8), intImm(100)}, "x");
  cases.push_back({te::createPrimFunc({x, te::topi::softmax(x)}), 8 * 16 * 2});
  cases.push_back({te::matmulPrimFunc(primVar("n"), intImm(64), intImm(64)), 0});
  for (auto& c : cases) {
    auto g = transform::defaultSchedule(c.f, policy);
    ASSERT_FALSE(sameNode(c.f, g)); // it was scheduled
    auto v = extractFeatures(g);
    ASSERT_EQ(v.size(), featureCount());
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_TRUE(std::isfinite(v[i])) << featureNames()[i];
    EXPECT_NE(v, extractFeatures(c.f));
    // Exact tiles, and tails of the symbolic extent for any n.
    EXPECT_EQ(estimateFlops(g), estimateFlops(c.f) + c.extraFlops);
    EXPECT_EQ(estimateFlops(g, 100), estimateFlops(c.f, 100) + c.extraFlops);
  }
}
