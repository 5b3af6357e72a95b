// rfactor: the factored function computes what the original does (through
// the interpreter, which also checks every access against the declared
// block regions, and through build + run), the new block and buffer have the
// promised shape, and each precondition is refused with a message naming
// the block or loop, changing nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "engine/build.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/transform/call_tir.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule;
using namespace unity::schedule::testing;

namespace {

std::vector<int64_t> shapeOf(const BufferRef& b) {
  std::vector<int64_t> out;
  for (auto& d : b->shape)
    out.push_back(asConstInt(d).value_or(-1));
  return out;
}

/// out[i] = reduce_j x[i, j] for sum / max, by hand.
unity::Tensor rowReduce(const unity::Tensor& x, bool isMax) {
  int64_t m = x.shape()[0], n = x.shape()[1];
  unity::Tensor out(DataType::Float32(), {m});
  for (int64_t i = 0; i < m; ++i) {
    double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t j = 0; j < n; ++j)
      acc = isMax ? std::max(acc, x.getDouble(i * n + j)) : acc + x.getDouble(i * n + j);
    out.setDouble(i, acc);
  }
  return out;
}

PrimFuncRef rowReduceFunc(int64_t m, int64_t n, bool isMax) {
  auto X = te::placeholder({intImm(m), intImm(n)}, DataType::Float32(), "X");
  auto R = isMax ? te::topi::max(X, {1}, false, "R") : te::topi::sum(X, {1}, false, "R");
  return te::createPrimFunc({X, R});
}

} // namespace

TEST(Rfactor, MatmulPartialSumsOverTheInnerReductionLoop) {
  auto f = te::matmulPrimFunc(5, 6, 32);
  auto a = randomTensor({5, 32}, 1), b = randomTensor({32, 6}, 2);
  Schedule s(f);
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  auto k = s.split(l[2], {4, 8});
  auto rf = s.rfactor(k[1], 0);
  EXPECT_EQ(rf.name, "C_rf");
  const Block* rfb = findBlock(s.func(), "C_rf");
  const Block* wb = findBlock(s.func(), "C");
  ASSERT_NE(rfb, nullptr);
  ASSERT_NE(wb, nullptr);
  // C_rf[ki, i, j]: the factor axis first, then C's shape.
  ASSERT_EQ(rfb->writes.size(), 1u);
  EXPECT_EQ(shapeOf(rfb->writes[0].buffer), (std::vector<int64_t>{8, 5, 6}));
  EXPECT_EQ(rfb->writes[0].buffer->name, "C_rf");
  // k_1 now feeds a spatial iterator of C_rf (so it could be vectorized);
  // the write-back reduces over an 8-long loop of its own.
  auto rfLoops = s.getLoops(rf);
  EXPECT_EQ(rfLoops.size(), 4u);
  EXPECT_EQ(rfLoops[3].var.get(), k[1].var.get());
  auto wbLoops = s.getLoops(c);
  ASSERT_EQ(wbLoops.size(), 3u);
  EXPECT_EQ(asConstInt(s.loop(wbLoops[2])->extent), 8);
  ASSERT_EQ(wb->reads.size(), 1u);
  EXPECT_EQ(wb->reads[0].buffer.get(), rfb->writes[0].buffer.get());
  EXPECT_TRUE(close(run(s.func(), {a, b}, {5, 6}), matmulRef(a, b)));
  EXPECT_EQ(s.trace().instructions().back().kind, "rfactor");
  // Replay on a fresh copy gives the same function.
  auto r = Schedule::replay(f, Trace::fromJsonString(s.trace().toJsonString()));
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
}

TEST(Rfactor, FactorAxisLastAndTheRfLoopVectorizedBuildsAndRuns) {
  auto f = te::matmulPrimFunc(4, 16, 64);
  auto a = randomTensor({4, 64}, 3), b = randomTensor({64, 16}, 4);
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  auto k = s.split(l[2], {-1, 8});
  auto rf = s.rfactor(k[1], -1); // last: C_rf[i, j, ki]
  EXPECT_EQ(shapeOf(s.block(rf)->writes[0].buffer), (std::vector<int64_t>{4, 16, 8}));
  std::string before = errorOf([&] { s.vectorize(k[0]); });
  EXPECT_NE(before.find("reduction iterator"), std::string::npos) << before;
  s.vectorize(k[1]); // a spatial loop of C_rf now
  s.parallel(s.getLoops(rf)[0]);
  EXPECT_TRUE(close(run(s.func(), {a, b}, {4, 16}), matmulRef(a, b)));

  BuildOptions opts;
  opts.passes = {"Normalize", "LowerBlocks", "Simplify", "LowerToExecutor"};
  auto built = build(transform::moduleCallingPrimFunc(s.func()), opts);
  auto outs = built.executable->runTensors({a, b});
  EXPECT_TRUE(close(outs.at(0), matmulRef(a, b)));
}

TEST(Rfactor, SumAndMaxReductions) {
  for (bool isMax : {false, true}) {
    auto f = rowReduceFunc(3, 24, isMax);
    auto x = randomTensor({3, 24}, 5);
    Schedule s(f);
    auto blk = s.getBlock("R");
    auto l = s.getLoops(blk);
    auto j = s.split(l[1], {3, 8});
    auto rf = s.rfactor(j[0], 1); // the outer part this time: R_rf[i, jo]
    EXPECT_EQ(shapeOf(s.block(rf)->writes[0].buffer), (std::vector<int64_t>{3, 3}));
    EXPECT_TRUE(close(run(s.func(), {x}, {3}), rowReduce(x, isMax))) << (isMax ? "max" : "sum");
  }
}

TEST(Rfactor, TheWriteBackOfARowReductionFollowsTheRowUnderItsLoop) {
  // for i: for k_o: for k_i -> for i: {R_rf nest; write-back; tail}: the
  // write-back runs under i right after the row's partials, and the tail of
  // a splitWithTail (37 = 4 x 8 + 5) adds the last elements after it.
  for (bool isMax : {false, true}) {
    auto f = rowReduceFunc(3, 37, isMax);
    auto x = randomTensor({3, 37}, 8);
    Schedule s(f);
    auto l = s.getLoops(s.getBlock("R"));
    auto k = s.splitWithTail(l[1], 8);
    ASSERT_EQ(k.size(), 3u);
    auto rf = s.rfactor(k[1], -1);
    auto rfLoops = s.getLoops(rf), wbLoops = s.getLoops(s.getBlock("R"));
    ASSERT_EQ(wbLoops.size(), 2u);
    EXPECT_EQ(wbLoops[0].var.get(), rfLoops[0].var.get()); // the same row loop
    EXPECT_EQ(asConstInt(s.loop(wbLoops[1])->extent), 8);
    // the row loop's body: the partials, the write-back, then the tail
    auto* body = as<SeqStmt>(s.loop(rfLoops[0])->body);
    ASSERT_NE(body, nullptr);
    ASSERT_EQ(body->seq.size(), 3u);
    EXPECT_EQ(as<For>(body->seq[2])->var.get(), k[2].var.get());
    s.vectorize(k[1]);
    EXPECT_TRUE(close(run(s.func(), {x}, {3}), rowReduce(x, isMax))) << isMax;
    BuildOptions opts;
    opts.passes = {"Normalize", "LowerBlocks", "Simplify", "LowerToExecutor"};
    auto built = build(transform::moduleCallingPrimFunc(s.func()), opts);
    EXPECT_TRUE(close(built.executable->runTensors({x}).at(0), rowReduce(x, isMax))) << isMax;
  }
}

TEST(Rfactor, UnsplitReductionLoop) {
  auto f = rowReduceFunc(2, 10, false);
  auto x = randomTensor({2, 10}, 6);
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("R"));
  s.rfactor(l[1], 0); // every element its own partial sum
  EXPECT_TRUE(close(run(s.func(), {x}, {2}), rowReduce(x, false)));
}

TEST(Rfactor, RefusalsNameTheCauseAndChangeNothing) {
  auto f = te::matmulPrimFunc(4, 4, 12);
  Schedule s(f);
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  auto before = s.func();
  size_t n = s.trace().size();

  std::string e = errorOf([&] { s.rfactor(l[0], 0); });
  EXPECT_NE(e.find("loop 'i0' feeds a spatial iterator of block 'C'"), std::string::npos) << e;
  e = errorOf([&] { s.rfactor(l[2], 3); });
  EXPECT_NE(e.find("factor axis 3 is outside [-3, 2]"), std::string::npos) << e;
  EXPECT_TRUE(sameNode(s.func(), before));
  EXPECT_EQ(s.trace().size(), n);

  // A non-exact split predicates the block.
  Schedule p(f);
  auto pk = p.split(p.getLoops(p.getBlock("C"))[2], {-1, 5});
  e = errorOf([&] { p.rfactor(pk[1], 0); });
  EXPECT_NE(e.find("block 'C' is predicated"), std::string::npos) << e;

  // No init after decomposeReduction; two blocks under i afterwards.
  Schedule d(f);
  auto dl = d.getLoops(d.getBlock("C"));
  d.decomposeReduction(d.getBlock("C"), dl[2]);
  e = errorOf([&] { d.rfactor(dl[2], 0); });
  EXPECT_NE(e.find("block 'C' has no init"), std::string::npos) << e;
  e = errorOf([&] { d.rfactor(dl[0], 0); });
  EXPECT_NE(e.find("holds 2 blocks"), std::string::npos) << e;

  // Not a reduction at all.
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto T = te::topi::relu(A, "T");
  Schedule ew(te::createPrimFunc({A, T}));
  e = errorOf([&] { ew.rfactor(ew.getLoops(ew.getBlock("T"))[0], 0); });
  EXPECT_NE(e.find("block 'T' has no init"), std::string::npos) << e;
}

TEST(Rfactor, NonCommutativeUpdateIsRefused) {
  // C[i] = C[i] - A[i, k]: a reduction block whose combiner is not one of
  // add/mul/max/min, built by hand (te has no such reducer).
  auto A = makeBuffer("A", DataType::Float32(), {intImm(2), intImm(4)});
  auto C = makeBuffer("C", DataType::Float32(), {intImm(2)});
  auto i = primVar("i"), k = primVar("k"), vi = primVar("v_i"), vk = primVar("v_k");
  std::vector<IterVar> iters{{vi, {intImm(0), intImm(2)}, IterType::Spatial},
                             {vk, {intImm(0), intImm(4)}, IterType::Reduce}};
  Stmt init = make<BufferStore>(C, floatImm(0), std::vector<PrimExpr>{vi});
  PrimExpr acc = make<BufferLoad>(C, std::vector<PrimExpr>{vi});
  PrimExpr x = make<BufferLoad>(A, std::vector<PrimExpr>{vi, vk});
  Stmt body = make<BufferStore>(C, acc - x, std::vector<PrimExpr>{vi});
  Stmt blk = make<Block>("C", iters, std::vector<PrimExpr>{i, k},
                         std::vector<BufferRegion>{{A, {{vi, intImm(1)}, {vk, intImm(1)}}}},
                         std::vector<BufferRegion>{{C, {{vi, intImm(1)}}}}, init, body);
  Stmt nest = make<For>(i, intImm(0), intImm(2), ForKind::Serial,
                        make<For>(k, intImm(0), intImm(4), ForKind::Serial, blk));
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{A, nullptr}, {C, nullptr}}, nest);
  Schedule s(f);
  std::string e = errorOf([&] { s.rfactor(s.getLoops(s.getBlock("C"))[1], 0); });
  EXPECT_NE(e.find("does not combine with add, mul, max or min"), std::string::npos) << e;
}
