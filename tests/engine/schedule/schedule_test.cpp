// Schedule primitives: structure of the result, numerical equivalence with a
// hand-written reference (through the interpreter, which also checks that
// every access stays inside the declared block regions), and the errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule;
using namespace unity::schedule::testing;

namespace {

struct MatmulCase {
  int64_t m, n, k;
  PrimFuncRef f;
  unity::Tensor a, b, want;
  MatmulCase(int64_t m, int64_t n, int64_t k)
      : m(m), n(n), k(k), f(te::matmulPrimFunc(m, n, k)), a(randomTensor({m, k}, 1)),
        b(randomTensor({k, n}, 2)), want(matmulRef(a, b)) {}
  ::testing::AssertionResult check(const PrimFuncRef& g) const {
    return close(run(g, {a, b}, {m, n}), want);
  }
};

std::vector<int64_t> extents(const Schedule& s, const std::vector<LoopRV>& loops) {
  std::vector<int64_t> out;
  for (auto& l : loops)
    out.push_back(asConstInt(s.loop(l)->extent).value_or(-1));
  return out;
}

} // namespace

TEST(SchedulePrimitives, GetBlockAndLoops) {
  MatmulCase c(4, 5, 6);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto loops = s.getLoops(blk);
  EXPECT_EQ(extents(s, loops), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(s.getBlocks().size(), 1u);
  EXPECT_NE(errorOf([&] { s.getBlock("nope"); }).find("no block named 'nope'"), std::string::npos);
  EXPECT_TRUE(s.trace().empty());
}

TEST(SchedulePrimitives, ExactSplit) {
  MatmulCase c(8, 6, 5);
  Schedule s(c.f);
  auto loops = s.getLoops(s.getBlock("C"));
  auto parts = s.split(loops[0], {-1, 4});
  EXPECT_EQ(extents(s, parts), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(extents(s, s.getLoops(s.getBlock("C"))), (std::vector<int64_t>{2, 4, 6, 5}));
  EXPECT_FALSE(s.block(s.getBlock("C"))->predicate.defined());
  EXPECT_TRUE(c.check(s.func()));
  // The input function is untouched (immutability).
  EXPECT_EQ(allLoops(c.f).size(), 3u);
}

TEST(SchedulePrimitives, NonExactSplitAddsPredicate) {
  MatmulCase c(10, 3, 4);
  Schedule s(c.f);
  auto parts = s.split(s.getLoops(s.getBlock("C"))[0], {4, -1});
  EXPECT_EQ(extents(s, parts), (std::vector<int64_t>{4, 3}));
  EXPECT_TRUE(s.block(s.getBlock("C"))->predicate.defined());
  EXPECT_TRUE(c.check(s.func()));
}

TEST(SchedulePrimitives, SplitErrorsNameTheLoop) {
  MatmulCase c(8, 6, 5);
  Schedule s(c.f);
  auto loops = s.getLoops(s.getBlock("C"));
  EXPECT_NE(errorOf([&] {
              s.split(loops[0], {2, 3});
            }).find("multiply to 6, less than its extent 8"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              s.split(loops[0], {-1, -1});
            }).find("more than one factor is -1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.split(loops[0], {0, 8}); }).find("'i0'"), std::string::npos);
  EXPECT_NE(errorOf([&] { s.split(loops[0], {8}); }).find("at least two factors"),
            std::string::npos);
  EXPECT_TRUE(s.trace().empty()); // failed primitives record nothing
}

TEST(SchedulePrimitives, FuseAndItsErrors) {
  MatmulCase c(3, 5, 4);
  Schedule s(c.f);
  auto loops = s.getLoops(s.getBlock("C"));
  EXPECT_NE(errorOf([&] {
              s.fuse({loops[0], loops[2]});
            }).find("perfectly nested"),
            std::string::npos);
  auto f = s.fuse({loops[0], loops[1]});
  EXPECT_EQ(asConstInt(s.loop(f)->extent), 15);
  EXPECT_EQ(s.getLoops(s.getBlock("C")).size(), 2u);
  EXPECT_TRUE(c.check(s.func()));
  // The old loops are gone: using them is an error naming the loop.
  EXPECT_NE(errorOf([&] { s.parallel(loops[0]); }).find("'i0'"), std::string::npos);
}

TEST(SchedulePrimitives, ReorderPermutesTheChain) {
  MatmulCase c(3, 4, 5);
  Schedule s(c.f);
  auto loops = s.getLoops(s.getBlock("C"));
  s.reorder({loops[2], loops[0]}); // k into i's slot, i into k's slot: k, j, i
  auto now = s.getLoops(s.getBlock("C"));
  ASSERT_EQ(now.size(), 3u);
  EXPECT_EQ(now[0].var.get(), loops[2].var.get());
  EXPECT_EQ(now[1].var.get(), loops[1].var.get());
  EXPECT_EQ(now[2].var.get(), loops[0].var.get());
  EXPECT_TRUE(c.check(s.func()));
  EXPECT_NE(errorOf([&] {
              s.reorder({loops[0], loops[0]});
            }).find("listed twice"),
            std::string::npos);
}

TEST(SchedulePrimitives, ReorderRejectsLoopsOfDifferentNests) {
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto T = te::topi::relu(A, "T");
  auto U = te::topi::negative(A, "U");
  auto f = te::createPrimFunc({A, T, U});
  Schedule s(f);
  auto a = s.getLoops(s.getBlock("T"))[0], b = s.getLoops(s.getBlock("U"))[0];
  EXPECT_NE(errorOf([&] { s.reorder({a, b}); }), "");
}

TEST(SchedulePrimitives, ParallelOnlyOnSpatialLoops) {
  MatmulCase c(4, 4, 4);
  Schedule s(c.f);
  auto loops = s.getLoops(s.getBlock("C"));
  std::string err = errorOf([&] { s.parallel(loops[2]); });
  EXPECT_NE(err.find("'k'"), std::string::npos) << err;
  EXPECT_NE(err.find("block 'C'"), std::string::npos) << err;
  EXPECT_NE(errorOf([&] { s.vectorize(loops[2]); }).find("reduction iterator"), std::string::npos);
  s.parallel(loops[0]);
  s.vectorize(loops[1]);
  s.unroll(loops[2]); // unrolling a reduction loop is fine
  EXPECT_EQ(s.loop(loops[0])->forKind, ForKind::Parallel);
  EXPECT_EQ(s.loop(loops[1])->forKind, ForKind::Vectorized);
  EXPECT_EQ(s.loop(loops[2])->forKind, ForKind::Unrolled);
  EXPECT_TRUE(c.check(s.func()));
}

TEST(SchedulePrimitives, DecomposeReductionHoistsInit) {
  MatmulCase c(4, 6, 5);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto loops = s.getLoops(blk);
  auto init = s.decomposeReduction(blk, loops[2]);
  EXPECT_EQ(init.name, "C_init");
  EXPECT_FALSE(s.block(blk)->init.defined());
  EXPECT_FALSE(s.block(init)->init.defined());
  // The init nest copies i and j from k inwards: only the loops below k,
  // none; its loops are the shared i, j.
  EXPECT_EQ(s.getLoops(init).size(), 2u);
  EXPECT_TRUE(c.check(s.func()));
  EXPECT_NE(errorOf([&] { s.decomposeReduction(blk, loops[2]); }).find("has no init"),
            std::string::npos);
}

TEST(SchedulePrimitives, DecomposeAfterReorderCopiesSpatialLoops) {
  MatmulCase c(4, 6, 5);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk);
  s.reorder({l[2], l[0], l[1]}); // k outermost
  auto init = s.decomposeReduction(blk, l[2]);
  auto initLoops = s.getLoops(init);
  EXPECT_EQ(extents(s, initLoops), (std::vector<int64_t>{4, 6}));
  EXPECT_TRUE(c.check(s.func()));
}

TEST(SchedulePrimitives, ComputeInlineElementwiseChain) {
  auto A = te::placeholder({intImm(3), intImm(8)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(3), intImm(8)}, DataType::Float32(), "B");
  auto T = te::topi::add(A, B, "T");
  auto R = te::topi::relu(T, "R");
  auto f = te::createPrimFunc({A, B, R});
  auto a = randomTensor({3, 8}, 3), b = randomTensor({3, 8}, 4);
  unity::Tensor want(DataType::Float32(), {3, 8});
  for (int64_t i = 0; i < 24; ++i)
    want.setDouble(i, std::max(0.0, a.getDouble(i) + b.getDouble(i)));

  Schedule s(f);
  EXPECT_NE(errorOf([&] { s.computeInline(s.getBlock("R")); }).find("parameter of the function"),
            std::string::npos);
  s.computeInline(s.getBlock("T"));
  EXPECT_EQ(s.getBlocks().size(), 1u);
  EXPECT_EQ(allLoops(s.func()).size(), 2u);
  // T's allocation is gone.
  walkStmt(s.func()->body, [&](const Stmt& st) {
    if (auto* blk = as<Block>(st)) {
      for (auto& al : blk->allocs) {
        EXPECT_NE(al->name, "T");
      }
    }
  });
  EXPECT_TRUE(close(run(s.func(), {a, b}, {3, 8}), want));
}

TEST(SchedulePrimitives, ComputeInlineRejectsReductions) {
  auto A = te::placeholder({intImm(3), intImm(4)}, DataType::Float32(), "A");
  auto S = te::topi::sum(A, {1}, false, "S");
  auto R = te::topi::relu(S, "R");
  Schedule s(te::createPrimFunc({A, R}));
  EXPECT_NE(errorOf([&] { s.computeInline(s.getBlock("S")); }).find("is a reduction"),
            std::string::npos);
}

TEST(SchedulePrimitives, ComputeInlinePaddingIntoConvolution) {
  auto X = te::placeholder({intImm(1), intImm(2), intImm(5), intImm(5)}, DataType::Float32(), "X");
  auto W = te::placeholder({intImm(3), intImm(2), intImm(3), intImm(3)}, DataType::Float32(), "W");
  te::topi::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto Y = te::topi::conv2d(X, W, p, "Y");
  auto f = te::createPrimFunc({X, W, Y});
  auto x = randomTensor({1, 2, 5, 5}, 5), w = randomTensor({3, 2, 3, 3}, 6);
  unity::Tensor want(DataType::Float32(), {1, 3, 5, 5});
  for (int co = 0; co < 3; ++co)
    for (int y = 0; y < 5; ++y)
      for (int xx = 0; xx < 5; ++xx) {
        double acc = 0;
        for (int ci = 0; ci < 2; ++ci)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
                continue;
              acc += x.getDouble((ci * 5 + iy) * 5 + ix) *
                     w.getDouble(((co * 2 + ci) * 3 + ky) * 3 + kx);
            }
        want.setDouble((co * 5 + y) * 5 + xx, acc);
      }
  Schedule s(f);
  ASSERT_EQ(s.getBlocks().size(), 2u);
  s.computeInline(s.getBlock("pad_temp"));
  EXPECT_EQ(s.getBlocks().size(), 1u);
  EXPECT_TRUE(close(run(s.func(), {x, w}, {1, 3, 5, 5}), want));
}

TEST(ScheduleTrace, ReplayReproducesTheSchedule) {
  MatmulCase c(16, 32, 8);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk);
  auto i = s.split(l[0], {-1, 4});
  auto j = s.split(l[1], {-1, 16});
  s.reorder({i[0], j[0], l[2], i[1], j[1]});
  s.decomposeReduction(blk, l[2]);
  s.unroll(i[1]);
  s.vectorize(j[1]);
  auto p = s.fuse({i[0], j[0]});
  s.parallel(p);
  EXPECT_EQ(s.trace().size(), 8u);
  EXPECT_TRUE(c.check(s.func()));

  std::string json = s.trace().toJsonString();
  Trace back = Trace::fromJsonString(json);
  EXPECT_EQ(back, s.trace());
  Schedule r = Schedule::replay(c.f, back);
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  EXPECT_EQ(r.trace(), s.trace());
  // The JSON names the first instruction as written by hand here.
  auto j0 = nlohmann::json::parse(json)["instructions"][0];
  EXPECT_EQ(j0["kind"], "split");
  EXPECT_EQ(j0["loops"][0][0], "C");
  EXPECT_EQ(j0["loops"][0][1], 0);
  EXPECT_EQ(j0["decision"], nlohmann::json::array({4, 4}));
  EXPECT_EQ(s.trace().str().substr(0, 19), "split(C[0], [4, 4])");
}

TEST(ScheduleTrace, MalformedJsonIsAnError) {
  EXPECT_NE(errorOf([] { Trace::fromJsonString("{"); }).find("invalid JSON"), std::string::npos);
  EXPECT_NE(errorOf([] {
              Trace::fromJsonString(R"({"instructions": [{"kind": "explode"}]})");
            }).find("unknown kind 'explode'"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              Trace::fromJsonString(R"({"instructions": [{"kind": "split", "loops": [[1, 2]]}]})");
            }).find("[block, index]"),
            std::string::npos);
}

TEST(ScheduleTrace, ReplayErrorsNameTheInstruction) {
  MatmulCase c(4, 4, 4);
  Trace t = Trace::fromJsonString(
      R"({"instructions": [{"kind": "split", "loops": [["C", 7]], "decision": [2, 2]}]})");
  std::string err = errorOf([&] { Schedule::replay(c.f, t); });
  EXPECT_NE(err.find("instruction 0 (split)"), std::string::npos) << err;
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

TEST(ScheduleBlocks, DuplicateBlockNamesAreMadeUnique) {
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto T = te::topi::relu(A, "T");
  auto U = te::topi::relu(A, "U");
  auto f = te::createPrimFunc({A, T, U});
  // Rename U's block to T, as FuseTIR does when one callee is used twice.
  struct Rename : StmtMutator {
    Stmt visitBlock(const Block* op, const Stmt& self) override {
      if (op->name != "U")
        return StmtMutator::visitBlock(op, self);
      return make<Block>("T", op->iters, op->bindings, op->reads, op->writes, op->init, op->body);
    }
  } rn;
  auto g = mutatePrimFunc(rn, f);
  Schedule s(g);
  auto blocks = s.getBlocks();
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].name, "T");
  EXPECT_EQ(blocks[1].name, "T_1");
}

TEST(ScheduleBlocks, ARankZeroBlockSharingANameIsRenamedToo) {
  // A rank-0 compute block has no iteration variables, like the root, but it
  // is a real block: fused with a same-named rank-1 block (two astype calls
  // in one kernel) it must still get a unique name.
  auto A = te::placeholder({intImm(4)}, DataType::Float32(), "A");
  auto B = te::placeholder(std::vector<PrimExpr>{}, DataType::Float32(), "B");
  auto C = te::topi::relu(A, "T_cast");
  auto D = te::topi::relu(B, "T_cast");
  auto E = te::topi::add(C, D, "T_add");
  auto f = te::createPrimFunc({A, B, E});
  Schedule s(f);
  std::string err = errorOf([&] { s.getBlock("T_cast"); });
  EXPECT_EQ(err, "");
  int casts = 0;
  walkStmt(s.func()->body, [&](const Stmt& st) {
    if (auto* b = as<Block>(st))
      casts += b->name == "T_cast" || b->name == "T_cast_1";
  });
  EXPECT_EQ(casts, 2);
}
