#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"
#include "tests/engine/codegen/kernel_builders.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::testing;

namespace {
int countKind(const Stmt& s, NodeKind k) {
  int n = 0;
  walkStmt(s, [&](const Stmt& x) { n += x->kind() == k; });
  return n;
}
} // namespace

TEST(TirLower, BlockFreeFunctionIsReturnedUnchanged) {
  PrimFuncRef f = elementwiseAdd();
  EXPECT_TRUE(sameNode(transform::lowerBlocks(f), f));
}

TEST(TirLower, ReductionInitIsGuardedByReduceBindingsAtTheirMin) {
  PrimFuncRef f = rowSumBlock();
  PrimFuncRef g = transform::lowerBlocks(f);
  ASSERT_FALSE(sameNode(g, f));
  EXPECT_EQ(countKind(g->body, NodeKind::Block), 0);
  // for i: for k: { if (k == 0) S[i] = 0; S[i] = S[i] + A[i, k] }
  auto* fi = as<For>(g->body);
  ASSERT_NE(fi, nullptr);
  auto* fk = as<For>(fi->body);
  ASSERT_NE(fk, nullptr);
  auto* seq = as<SeqStmt>(fk->body);
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  auto* guard = as<IfThenElse>(seq->seq[0]);
  ASSERT_NE(guard, nullptr);
  auto* cond = as<BinaryExpr>(guard->cond);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->op(), NodeKind::EQ);
  EXPECT_TRUE(sameNode(cond->a, fk->var)); // the binding of vk
  EXPECT_TRUE(isConstInt(cond->b, 0));
  auto* update = as<BufferStore>(seq->seq[1]);
  ASSERT_NE(update, nullptr);
  EXPECT_TRUE(sameNode(update->indices[0], fi->var)); // vi replaced by i
}

TEST(TirLower, PredicateAndAllocsBecomeIfAndAllocate) {
  auto i = primVar("i");
  auto vi = primVar("vi");
  auto A = makeBuffer("A", DataType::Float32(), {intImm(10)});
  auto T = makeBuffer("T", DataType::Float32(), {intImm(1)}, "local");
  Stmt body = seqStmt(
      {store(T, load(A, {vi}), {intImm(0)}), store(A, load(T, {intImm(0)}) * floatImm(2.0), {vi})});
  Stmt block = make<Block>("b", std::vector<IterVar>{{vi, {intImm(0), intImm(10)}}},
                           std::vector<PrimExpr>{i * 2}, std::vector<BufferRegion>{},
                           std::vector<BufferRegion>{}, nullptr, body, std::vector<BufferRef>{T},
                           lt(i * 2, intImm(10)));
  PrimFuncRef f = primFunc({bufParam(A)}, loop(i, intImm(8), block));
  PrimFuncRef g = transform::lowerBlocks(f);
  auto* fi = as<For>(g->body);
  ASSERT_NE(fi, nullptr);
  auto* guard = as<IfThenElse>(fi->body);
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(as<BinaryExpr>(guard->cond)->op(), NodeKind::LT);
  auto* alloc = as<Allocate>(guard->then);
  ASSERT_NE(alloc, nullptr);
  EXPECT_TRUE(sameNode(alloc->buffer, T));
  // vi no longer occurs anywhere.
  bool sawVi = false;
  struct V : StmtVisitor {
    const PrimVar* target;
    bool* saw;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (e.get() == target)
        *saw = true;
      StmtVisitor::visit(e);
    }
  } v;
  v.target = vi.get();
  v.saw = &sawVi;
  v.visit(g->body);
  EXPECT_FALSE(sawVi);
}

TEST(TirLower, NestedBlocksAreLoweredAndBindingsCastToIterType) {
  auto i = primVar("i", DataType::Int32());
  auto vo = primVar("vo"), vi = primVar("vi");
  auto A = makeBuffer("A", DataType::Float32(), {intImm(4)});
  Stmt inner = make<Block>("inner", std::vector<IterVar>{{vi, {intImm(0), intImm(4)}}},
                           std::vector<PrimExpr>{PrimExpr(vo)}, std::vector<BufferRegion>{},
                           std::vector<BufferRegion>{}, nullptr, store(A, floatImm(1.0), {vi}));
  Stmt outer = make<Block>("outer", std::vector<IterVar>{{vo, {intImm(0), intImm(4)}}},
                           std::vector<PrimExpr>{PrimExpr(i)}, std::vector<BufferRegion>{},
                           std::vector<BufferRegion>{}, nullptr, inner);
  PrimFuncRef g =
      transform::lowerBlocks(primFunc({bufParam(A)}, loop(i, intImm(4, DataType::Int32()), outer)));
  EXPECT_EQ(countKind(g->body, NodeKind::Block), 0);
  auto* st = as<BufferStore>(as<For>(g->body)->body);
  ASSERT_NE(st, nullptr);
  auto* c = as<CastExpr>(st->indices[0]);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->dtype, DataType::Int64());
  EXPECT_TRUE(sameNode(c->value, i));
}

TEST(TirLower, LowerForCodegenSimplifiesIndexMath) {
  auto n = primVar("n");
  auto A = makeBuffer("A", DataType::Float32(), {n});
  auto i = primVar("i");
  // A[(i * 1 + 0)] = 1  ->  A[i] = 1
  PrimFuncRef f =
      primFunc({bufParam(A)}, loop(i, n, store(A, floatImm(1.0), {PrimExpr(i) * 1 + 0})));
  PrimFuncRef g = transform::lowerForCodegen(f);
  auto* st = as<BufferStore>(as<For>(g->body)->body);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(sameNode(st->indices[0], i));
  // Already simple: the same function comes back.
  PrimFuncRef h = elementwiseAdd();
  EXPECT_TRUE(sameNode(transform::lowerForCodegen(h), h));
}
