// DefaultSchedule: every scheduled kernel computes what the unscheduled one
// does (hand-written references, through the interpreter and through
// build + run), and the schedule has the promised shape (parallel outer
// loops, vectorized inner loops, reductions decomposed).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/build.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "engine/transform/registry.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;

namespace {

unity::Tensor buildAndRun(const PrimFuncRef& f, const std::vector<unity::Tensor>& inputs,
                          bool schedule) {
  BuildOptions opts;
  opts.passes = {"Normalize", "LowerBlocks", "Simplify", "LowerToExecutor"};
  if (schedule)
    opts.passes.insert(opts.passes.begin() + 1, "DefaultSchedule");
  opts.config.set("tir.num_cores", int64_t(2));
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  auto outs = r.executable->runTensors(inputs);
  return outs.at(0);
}

bool hasInit(const PrimFuncRef& f) {
  for (auto* b : allBlocks(f))
    if (b->init)
      return true;
  return false;
}

} // namespace

TEST(DefaultSchedule, MatmulIsTiledParallelVectorizedAndCorrect) {
  auto f = te::matmulPrimFunc(64, 96, 48);
  auto g = transform::defaultSchedule(f, avx512Policy(2));
  ASSERT_FALSE(sameNode(f, g));
  EXPECT_GE(countLoops(g, ForKind::Parallel), 1);
  EXPECT_GE(countLoops(g, ForKind::Vectorized), 2); // update and init
  EXPECT_GE(countLoops(g, ForKind::Unrolled), 1);
  EXPECT_FALSE(hasInit(g));
  // The innermost loop of the update is vectorized over j: 48 of 96 (3
  // vectors of 16 lanes) x 8 unrolled rows fill the 24 accumulators.
  const For* innermost = nullptr;
  for (auto* l : allLoops(g))
    if (isa<Block>(l->body) && as<Block>(l->body)->name == "C")
      innermost = l;
  ASSERT_NE(innermost, nullptr);
  EXPECT_EQ(innermost->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(innermost->extent), 48);

  auto a = randomTensor({64, 48}, 1), b = randomTensor({48, 96}, 2);
  EXPECT_TRUE(close(run(g, {a, b}, {64, 96}), matmulRef(a, b)));
}

TEST(DefaultSchedule, OddSizesStayCorrect) {
  for (auto [m, n, k] : {std::tuple{7, 13, 5}, std::tuple{1, 100, 3}, std::tuple{30, 1, 9}}) {
    auto f = te::matmulPrimFunc(m, n, k);
    auto g = transform::defaultSchedule(f, hostPolicy(2));
    auto a = randomTensor({m, k}, 3), b = randomTensor({k, n}, 4);
    EXPECT_TRUE(close(run(g, {a, b}, {m, n}), matmulRef(a, b))) << m << "x" << n << "x" << k;
  }
}

TEST(DefaultSchedule, ElementwiseChainIsInlinedParallelAndVectorized) {
  auto A = te::placeholder({intImm(8), intImm(512)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(8), intImm(512)}, DataType::Float32(), "B");
  auto T = te::topi::add(A, B, "T");
  auto U = te::topi::multiply(T, T, "U");
  auto R = te::topi::relu(U, "R");
  auto f = te::createPrimFunc({A, B, R});
  auto g = transform::defaultSchedule(f, hostPolicy(2));
  EXPECT_EQ(allBlocks(g).size(), 1u);
  EXPECT_EQ(countLoops(g, ForKind::Parallel), 1);
  EXPECT_EQ(countLoops(g, ForKind::Vectorized), 1);
  auto a = randomTensor({8, 512}, 5), b = randomTensor({8, 512}, 6);
  unity::Tensor want(DataType::Float32(), {8, 512});
  for (int64_t i = 0; i < want.numel(); ++i) {
    double t = a.getDouble(i) + b.getDouble(i);
    want.setDouble(i, std::max(0.0, t * t));
  }
  EXPECT_TRUE(close(run(g, {a, b}, {8, 512}), want));
}

TEST(DefaultSchedule, ConvolutionKeepsPaddingAndMatchesReference) {
  auto X = te::placeholder({intImm(1), intImm(3), intImm(9), intImm(9)}, DataType::Float32(), "X");
  auto W = te::placeholder({intImm(8), intImm(3), intImm(3), intImm(3)}, DataType::Float32(), "W");
  te::topi::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto Y = te::topi::relu(te::topi::conv2d(X, W, p, "conv"), "Y");
  auto f = te::createPrimFunc({X, W, Y});
  auto g = transform::defaultSchedule(f, hostPolicy(2));
  EXPECT_FALSE(hasInit(g));
  EXPECT_GE(countLoops(g, ForKind::Vectorized), 1);
  auto x = randomTensor({1, 3, 9, 9}, 7), w = randomTensor({8, 3, 3, 3}, 8);
  unity::Tensor want(DataType::Float32(), {1, 8, 9, 9});
  for (int co = 0; co < 8; ++co)
    for (int y = 0; y < 9; ++y)
      for (int xx = 0; xx < 9; ++xx) {
        double acc = 0;
        for (int ci = 0; ci < 3; ++ci)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = xx + kx - 1;
              if (iy >= 0 && iy < 9 && ix >= 0 && ix < 9)
                acc += x.getDouble((ci * 9 + iy) * 9 + ix) *
                       w.getDouble(((co * 3 + ci) * 3 + ky) * 3 + kx);
            }
        want.setDouble((co * 9 + y) * 9 + xx, std::max(0.0, acc));
      }
  EXPECT_TRUE(close(run(g, {x, w}, {1, 8, 9, 9}), want));
  EXPECT_TRUE(close(buildAndRun(f, {x, w}, true), want));
}

TEST(DefaultSchedule, RowSumIsCorrect) {
  auto A = te::placeholder({intImm(6), intImm(33)}, DataType::Float32(), "A");
  auto S = te::topi::sum(A, {1}, false, "S");
  auto f = te::createPrimFunc({A, S});
  auto g = transform::defaultSchedule(f, hostPolicy(2));
  // Decomposed, but for the tail of a row reduction factored by one vector
  // (33 = 2 x 16 + 1 on AVX-512): its init only fires for a row shorter
  // than a vector, after the lanes were folded.
  for (auto* b : allBlocks(g))
    EXPECT_TRUE(!b->init || b->name.find("_tail") != std::string::npos) << b->name;
  auto a = randomTensor({6, 33}, 9);
  unity::Tensor want(DataType::Float32(), {6});
  for (int i = 0; i < 6; ++i) {
    double s = 0;
    for (int k = 0; k < 33; ++k)
      s += a.getDouble(i * 33 + k);
    want.setDouble(i, s);
  }
  EXPECT_TRUE(close(run(g, {a}, {6}), want));
}

TEST(DefaultSchedule, TunedFunctionsAreLeftAlone) {
  auto f = te::matmulPrimFunc(16, 16, 16);
  auto tuned = make<PrimFunc>(f->params, f->body, f->attrs.with("tuned", true));
  EXPECT_TRUE(sameNode(transform::defaultSchedule(tuned, hostPolicy(2)), tuned));
  auto m = makeModule({{"k", tuned}});
  EXPECT_TRUE(sameNode(transform::defaultSchedule(m, hostPolicy(2)), m));
}

TEST(DefaultSchedule, BuildAndRunMatchesUnscheduledBuild) {
  auto f = te::matmulPrimFunc(48, 80, 40);
  auto a = randomTensor({48, 40}, 10), b = randomTensor({40, 80}, 11);
  auto want = matmulRef(a, b);
  EXPECT_TRUE(close(buildAndRun(f, {a, b}, false), want));
  EXPECT_TRUE(close(buildAndRun(f, {a, b}, true), want));
}

TEST(DefaultSchedule, IsInTheDefaultPipelineBeforeLowerBlocks) {
  auto* p = transform::findPipeline("default");
  ASSERT_NE(p, nullptr);
  auto it = std::find(p->passes.begin(), p->passes.end(), "DefaultSchedule");
  ASSERT_NE(it, p->passes.end());
  ASSERT_NE(it + 1, p->passes.end());
  EXPECT_EQ(*(it + 1), "LowerBlocks");
  EXPECT_NE(transform::findPass("DefaultSchedule"), nullptr);
}

TEST(DefaultSchedule, ExamplesGiveTheSameResultsWithAndWithoutIt) {
  for (const char* name : {"mlp", "cnn", "transformer"}) {
    IRModule m = text::parseFile(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" +
                                 name + ".uir");
    auto* main = as<Function>(m->lookup("main"));
    ASSERT_NE(main, nullptr) << name;
    std::vector<unity::Tensor> inputs;
    uint32_t seed = 20;
    for (auto& v : main->params) {
      std::vector<int64_t> shape;
      for (auto& d : *as<TensorSInfo>(v->sinfo)->shape)
        shape.push_back(asConstInt(d).value_or(5)); // symbolic dims: 5 (not a tile multiple)
      inputs.push_back(randomTensor(shape, seed++));
    }
    std::vector<unity::Tensor> outs[2];
    for (int sched = 0; sched < 2; ++sched) {
      BuildOptions opts;
      opts.config.set("tir.num_cores", int64_t(2));
      if (!sched)
        opts.disabledPasses = {"DefaultSchedule"};
      auto r = build(m, opts);
      outs[sched] = r.executable->runTensors(inputs);
    }
    ASSERT_EQ(outs[0].size(), outs[1].size()) << name;
    for (size_t i = 0; i < outs[0].size(); ++i)
      EXPECT_TRUE(close(outs[1][i], outs[0][i])) << name << " output " << i;
  }
}
