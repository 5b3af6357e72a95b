// packLayout: the packed buffer, the copy and the redirected reads; values
// against hand-written references through the interpreter (which also
// checks every access against the declared block regions), non-multiple
// panel widths, composition with the loop primitives, the refusals, and
// the trace (replay, JSON, text).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule;
using namespace unity::schedule::testing;

namespace {

/// The buffers the block loads from, by name, in load order.
std::vector<const BufferLoad*> loadsOf(const Block* b) {
  std::vector<const BufferLoad*> out;
  walkStmt(b->body, [&](const Stmt& s) {
    if (auto* st = as<BufferStore>(s))
      walkPrimExpr(st->value, [&](const PrimExpr& e) {
        if (auto* l = as<BufferLoad>(e))
          out.push_back(l);
      });
  });
  return out;
}

std::vector<int64_t> shapeOf(const BufferRef& b) {
  std::vector<int64_t> out;
  for (auto& d : b->shape)
    out.push_back(asConstInt(d).value_or(-1));
  return out;
}

struct Case {
  int64_t m, n, k;
  PrimFuncRef f;
  unity::Tensor a, b, want;
  Case(int64_t m, int64_t n, int64_t k)
      : m(m), n(n), k(k), f(te::matmulPrimFunc(m, n, k)), a(randomTensor({m, k}, 5)),
        b(randomTensor({k, n}, 6)), want(matmulRef(a, b)) {}
  ::testing::AssertionResult check(const PrimFuncRef& g) const {
    return close(run(g, {a, b}, {m, n}), want);
  }
};

} // namespace

TEST(PackLayout, PacksTheInputIntoPanelsReadByTheBlock) {
  Case c(16, 32, 8);
  Schedule s(c.f);
  BlockRV pack = s.packLayout(s.getBlock("C"), "B", 8);
  EXPECT_EQ(pack.name, "B_pack");

  // The copy is a spatial block, first in the root, writing [32 / 8, 8, 8].
  auto* root = as<Block>(s.func()->body);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->allocs.size(), 1u);
  EXPECT_EQ(root->allocs[0]->name, "B_packed");
  EXPECT_EQ(shapeOf(root->allocs[0]), (std::vector<int64_t>{4, 8, 8}));
  auto* seq = as<SeqStmt>(root->body);
  ASSERT_NE(seq, nullptr);
  auto first = schedule::detail::blocksUnder(seq->seq[0]);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]->name, "B_pack");
  EXPECT_EQ(first[0]->iters.size(), 3u);
  EXPECT_FALSE(first[0]->init.defined());

  // The reduction reads the packed buffer and no longer B.
  auto* blk = findBlock(s.func(), "C");
  ASSERT_NE(blk, nullptr);
  bool readsB = false, readsPacked = false;
  for (auto* l : loadsOf(blk)) {
    readsB = readsB || l->buffer->name == "B";
    readsPacked = readsPacked || l->buffer->name == "B_packed";
  }
  EXPECT_FALSE(readsB);
  EXPECT_TRUE(readsPacked);
  for (auto& r : blk->reads)
    EXPECT_NE(r.buffer->name, "B");

  EXPECT_TRUE(c.check(s.func()));
  EXPECT_EQ(s.trace().size(), 1u);
  // The input function is untouched.
  EXPECT_EQ(findBlock(c.f, "B_pack"), nullptr);
}

TEST(PackLayout, NonMultiplePanelWidthsPadWithZerosAndStayCorrect) {
  for (auto [m, n, k, w] : {std::tuple{7, 20, 5, 8}, std::tuple{3, 17, 9, 16},
                            std::tuple{5, 33, 4, 2}, std::tuple{1, 10, 1, 3}}) {
    Case c(m, n, k);
    Schedule s(c.f);
    s.packLayout(s.getBlock("C"), "B", w);
    auto* root = as<Block>(s.func()->body);
    ASSERT_EQ(root->allocs.size(), 1u);
    EXPECT_EQ(shapeOf(root->allocs[0]), (std::vector<int64_t>{(n + w - 1) / w, k, w}));
    EXPECT_TRUE(c.check(s.func())) << m << "x" << n << "x" << k << " W=" << w;
    // Lanes past n are zero (a select), not a copy of a clamped column.
    auto* pack = findBlock(s.func(), "B_pack");
    ASSERT_NE(pack, nullptr);
    auto* sel = as<Select>(as<BufferStore>(pack->body)->value);
    ASSERT_NE(sel, nullptr);
    EXPECT_TRUE(isa<FloatImm>(sel->f));
    EXPECT_EQ(as<FloatImm>(sel->f)->value, 0.0);
    // At lane n - 1 of the last panel the select takes the load; at lane n
    // it takes the zero: the condition is "column < n".
    auto* cond = as<BinaryExpr>(sel->cond);
    ASSERT_NE(cond, nullptr);
    EXPECT_EQ(cond->op(), NodeKind::LT);
    EXPECT_EQ(asConstInt(cond->b), n);
  }
}

TEST(PackLayout, ComposesWithTheRegisterTileSchedule) {
  // The schedule the default rule gives a matmul, on a packed B: the
  // reduction's values do not depend on where the copy sits.
  Case c(24, 64, 40);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  BlockRV pack = s.packLayout(blk, "B", 16);
  auto l = s.getLoops(blk);
  auto i = s.split(l[0], {-1, 4});
  auto j = s.split(l[1], {-1, 16});
  auto k = s.split(l[2], {-1, 8});
  s.reorder({j[0], k[0], i[0], k[1], i[1], j[1]});
  s.decomposeReduction(blk, k[0]);
  s.unroll(i[1]);
  s.vectorize(j[1]);
  s.parallel(j[0]);
  auto pl = s.getLoops(pack);
  ASSERT_EQ(pl.size(), 3u);
  s.vectorize(pl[2]);
  s.parallel(s.fuse({pl[0], pl[1]}));
  EXPECT_TRUE(c.check(s.func()));
}

TEST(PackLayout, PacksTheLastAxisOfAHigherRankInput) {
  // S[h, i, j] = sum_d Q[h, i, d] * K[h, d, j]: K [2, 6, 12] -> [3, 2, 6, 4].
  auto Q = te::placeholder({intImm(2), intImm(5), intImm(6)}, DataType::Float32(), "Q");
  auto K = te::placeholder({intImm(2), intImm(6), intImm(12)}, DataType::Float32(), "K");
  auto f = te::createPrimFunc({Q, K, te::topi::matmul(Q, K, "S")});
  auto q = randomTensor({2, 5, 6}, 7), k = randomTensor({2, 6, 12}, 8);
  unity::Tensor want(DataType::Float32(), {2, 5, 12});
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 12; ++j) {
        double acc = 0;
        for (int64_t d = 0; d < 6; ++d)
          acc += q.getDouble((h * 5 + i) * 6 + d) * k.getDouble((h * 6 + d) * 12 + j);
        want.setDouble((h * 5 + i) * 12 + j, acc);
      }
  Schedule s(f);
  s.packLayout(s.getBlock("S"), "K", 4);
  auto* root = as<Block>(s.func()->body);
  ASSERT_EQ(root->allocs.size(), 1u);
  EXPECT_EQ(shapeOf(root->allocs[0]), (std::vector<int64_t>{3, 2, 6, 4}));
  EXPECT_TRUE(close(run(s.func(), {q, k}, {2, 5, 12}), want));
}

TEST(PackLayout, RefusalsNameTheCauseAndChangeNothing) {
  Case c(8, 16, 4);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto refused = [&](const std::string& buffer, int64_t w, const std::string& why) {
    std::string err = errorOf([&] { s.packLayout(blk, buffer, w); });
    EXPECT_NE(err.find("packLayout"), std::string::npos) << err;
    EXPECT_NE(err.find(why), std::string::npos) << err;
    EXPECT_TRUE(sameNode(s.func(), c.f));
    EXPECT_TRUE(s.trace().empty());
  };
  refused("X", 4, "does not read a buffer of this name");
  refused("B", 0, "is not positive");
  refused("B", 16, "not smaller than the last extent 16");
  refused("B", 32, "not smaller than the last extent 16");

  // A rank-1 input (a bias) and an intermediate.
  auto A = te::placeholder({intImm(4), intImm(8)}, DataType::Float32(), "A");
  auto bias = te::placeholder({intImm(8)}, DataType::Float32(), "bias");
  auto T = te::compute(
      {intImm(4), intImm(8)}, [&](auto& i) { return A(i[0], i[1]) + bias(i[1]); }, "T");
  auto W = te::placeholder({intImm(8), intImm(16)}, DataType::Float32(), "W");
  auto Y = te::topi::matmul(T, W, "Y");
  Schedule t(te::createPrimFunc({A, bias, W, Y}));
  EXPECT_NE(errorOf([&] { t.packLayout(t.getBlock("T"), "bias", 4); }).find("has rank 1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              t.packLayout(t.getBlock("Y"), "T", 4);
            }).find("is not a parameter of the function"),
            std::string::npos);
  EXPECT_TRUE(t.trace().empty());

  // A symbolic extent.
  auto n = primVar("n");
  Schedule u(te::matmulPrimFunc(intImm(4), n, intImm(6)));
  EXPECT_NE(errorOf([&] { u.packLayout(u.getBlock("C"), "B", 4); }).find("symbolic shape"),
            std::string::npos);
}

TEST(PackLayout, RefusesABufferThatABlockWrites) {
  // A function whose output is also read (written by one block, read by a
  // later one): packing it before every block would copy stale data.
  auto A = te::placeholder({intImm(4), intImm(8)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(8), intImm(8)}, DataType::Float32(), "B");
  auto C = te::topi::matmul(A, B, "C");
  auto D = te::topi::matmul(C, B, "D");
  auto f = te::createPrimFunc({A, B, C, D});
  ASSERT_EQ(f->params.size(), 4u);
  Schedule s(f);
  std::string err = errorOf([&] { s.packLayout(s.getBlock("D"), "C", 4); });
  EXPECT_NE(err.find("is written by block 'C'"), std::string::npos) << err;
}

TEST(PackLayout, TraceReplaysAndRoundTripsThroughJson) {
  Case c(12, 40, 6);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  s.packLayout(blk, "B", 16);
  auto l = s.getLoops(blk);
  s.split(l[1], {-1, 8});
  ASSERT_EQ(s.trace().size(), 2u);
  EXPECT_EQ(s.trace().instructions()[0].kind, "pack_layout");
  EXPECT_EQ(s.trace().str().substr(0, 26), "pack_layout(C, [1, 16])\nsp");

  auto json = s.trace().toJsonString();
  auto j0 = nlohmann::json::parse(json)["instructions"][0];
  EXPECT_EQ(j0["kind"], "pack_layout");
  EXPECT_EQ(j0["blocks"], nlohmann::json::array({"C"}));
  EXPECT_EQ(j0["decision"], nlohmann::json::array({1, 16}));
  Trace back = Trace::fromJsonString(json);
  EXPECT_EQ(back, s.trace());
  Schedule r = Schedule::replay(c.f, back);
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  EXPECT_EQ(r.trace(), s.trace());
  EXPECT_TRUE(c.check(r.func()));
}

TEST(PackLayout, PacksAlongAnAxisOtherThanTheLast) {
  // A[i, k] of C = A B packed by rows of 4: A_packed[i / 4][k][4], the row
  // index innermost, so a tile of 4 rows broadcasts 4 consecutive floats.
  for (int64_t w : {4, 3, 12}) {
    Case c(12, 16, 5);
    Schedule s(c.f);
    BlockRV pack = s.packLayout(s.getBlock("C"), "A", w, 0);
    EXPECT_EQ(pack.name, "A_pack");
    auto* root = as<Block>(s.func()->body);
    ASSERT_EQ(root->allocs.size(), 1u);
    EXPECT_EQ(shapeOf(root->allocs[0]), (std::vector<int64_t>{(12 + w - 1) / w, 5, w}));
    // Every load of A in the reduction is A_packed[i // w, k, i % w].
    auto* blk = findBlock(s.func(), "C");
    ASSERT_NE(blk, nullptr);
    int packedLoads = 0;
    for (auto* l : loadsOf(blk)) {
      EXPECT_NE(l->buffer->name, "A");
      if (l->buffer->name == "A_packed") {
        ++packedLoads;
        ASSERT_EQ(l->indices.size(), 3u);
        EXPECT_EQ(l->indices[0]->kind(), NodeKind::FloorDiv);
        EXPECT_EQ(l->indices[2]->kind(), NodeKind::FloorMod);
      }
    }
    EXPECT_EQ(packedLoads, 1);
    EXPECT_TRUE(c.check(s.func())) << "w=" << w;
    // The decision names the axis; it replays to the same function.
    ASSERT_EQ(s.trace().size(), 1u);
    EXPECT_EQ(s.trace().instructions()[0].decision, (std::vector<int64_t>{0, w, 0}));
    Trace back = Trace::fromJsonString(s.trace().toJsonString());
    Schedule r = Schedule::replay(c.f, back);
    EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  }
  Case c(6, 8, 4);
  Schedule s(c.f);
  EXPECT_NE(errorOf([&] {
              s.packLayout(s.getBlock("C"), "A", 7, 0);
            }).find("panel width 7 exceeds the extent 6 of axis 0"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              s.packLayout(s.getBlock("C"), "A", 2, 2);
            }).find("axis 2 is out of range for rank 2"),
            std::string::npos);
  EXPECT_EQ(s.trace().size(), 0u);
}

TEST(PackLayout, ReplayRejectsMalformedDecisions) {
  Case c(4, 8, 4);
  auto replayErr = [&](const std::string& decision) {
    return errorOf([&] {
      Schedule::replay(c.f, Trace::fromJsonString(R"({"instructions": [{"kind": "pack_layout", )"
                                                  R"("blocks": ["C"], "decision": )" +
                                                  decision + "}]}"));
    });
  };
  EXPECT_NE(replayErr("[1]").find("expects [parameter index, panel width"), std::string::npos);
  EXPECT_NE(replayErr("[0, 4, 9]").find("axis 9 is out of range for rank 2"), std::string::npos);
  EXPECT_NE(replayErr("[7, 4]").find("parameter 7 is not a buffer parameter"), std::string::npos);
  std::string err = replayErr("[0, 4]"); // A: read, but its last extent is 4
  EXPECT_NE(err.find("instruction 0 (pack_layout)"), std::string::npos) << err;
  EXPECT_NE(err.find("not smaller than the last extent 4"), std::string::npos) << err;
}

TEST(PackLayout, AtALoopCopiesOnlyThePanelEachIterationReads) {
  // C[i, j] with j = jo * 16 + ji: inside jo, the block reads panel jo only.
  Case c(12, 48, 20);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk);
  auto j = s.split(l[1], {-1, 16});
  s.reorder({j[0], l[0], l[2], j[1]});
  s.decomposeReduction(blk, l[2]);
  s.parallel(j[0]);
  BlockRV pack = s.packLayout(blk, "B", 16, j[0]);
  // The copy sits first in jo's body: its loops are k and the lanes, and
  // its panel index is jo itself.
  auto packLoops = s.getLoops(pack);
  ASSERT_EQ(packLoops.size(), 3u);
  EXPECT_EQ(packLoops[0].var.get(), j[0].var.get());
  EXPECT_EQ(asConstInt(s.loop(packLoops[1])->extent), 20);
  EXPECT_EQ(asConstInt(s.loop(packLoops[2])->extent), 16);
  auto* pb = findBlock(s.func(), "B_pack");
  ASSERT_NE(pb, nullptr);
  EXPECT_EQ(pb->bindings[0].get(), j[0].var.get());
  auto* seq = as<SeqStmt>(s.loop(j[0])->body);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(schedule::detail::blocksUnder(seq->seq[0])[0]->name, "B_pack");
  EXPECT_TRUE(c.check(s.func()));

  // Replay (the loop is in the trace) and JSON.
  EXPECT_EQ(s.trace().instructions().back().loops.size(), 1u);
  Trace back = Trace::fromJsonString(s.trace().toJsonString());
  Schedule r = Schedule::replay(c.f, back);
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
}

TEST(PackLayout, AtALoopThatDoesNotFixThePanelIsRefused) {
  Case c(8, 32, 4);
  Schedule s(c.f);
  auto blk = s.getBlock("C");
  auto l = s.getLoops(blk); // i, j, k: inside i the block reads every panel
  std::string err = errorOf([&] { s.packLayout(blk, "B", 8, l[0]); });
  EXPECT_NE(err.find("the panel it reads changes inside loop"), std::string::npos) << err;
  s.vectorize(l[1]);
  err = errorOf([&] { s.packLayout(blk, "B", 8, l[1]); });
  EXPECT_NE(err.find("is vectorized"), std::string::npos) << err;
  // A loop of another nest.
  auto A = te::placeholder({intImm(4), intImm(8)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(8), intImm(8)}, DataType::Float32(), "B");
  auto T = te::topi::relu(A, "T");
  auto Y = te::topi::matmul(A, B, "Y");
  Schedule t(te::createPrimFunc({A, B, T, Y}));
  auto other = t.getLoops(t.getBlock("T"))[0];
  err = errorOf([&] { t.packLayout(t.getBlock("Y"), "B", 4, other); });
  EXPECT_NE(err.find("is not around the block"), std::string::npos) << err;
  EXPECT_TRUE(t.trace().empty());
}
