// Statement simplification: loop and block variables in scope, extent-1
// loops dropped, constant conditions folded, unchanged statements shared.
#include <gtest/gtest.h>

#include "engine/ir/arith.h"
#include "engine/ir/tir.h"
#include "tests/engine/ir/arith/arith_test_util.h"

using namespace unity;
using namespace unity::ir;
using arith_test::print;

namespace {

class ArithStmt : public ::testing::Test {
protected:
  BufferRef A = makeBuffer("A", DataType::Float32(), {intImm(128)});
  BufferRef B = makeBuffer("B", DataType::Float32(), {intImm(128)});
  Ref<PrimVar> i = primVar("i"), j = primVar("j");

  Stmt store(const BufferRef& buf, PrimExpr idx, PrimExpr value) {
    return make<BufferStore>(buf, value, std::vector<PrimExpr>{idx});
  }
  PrimExpr load(const BufferRef& buf, PrimExpr idx) {
    return make<BufferLoad>(buf, std::vector<PrimExpr>{idx});
  }
  Stmt loop(const Ref<PrimVar>& v, int64_t mn, int64_t ext, Stmt body) {
    return make<For>(v, intImm(mn), intImm(ext), ForKind::Serial, body);
  }
};

TEST_F(ArithStmt, LoopVariablesAreBoundInTheBody) {
  PrimExpr flat = i * 8 + j;
  PrimExpr idx = floordiv(flat, intImm(8)) * 8 + floormod(flat, intImm(8));
  Stmt s = loop(i, 0, 16, loop(j, 0, 8, store(B, flat, load(A, idx))));
  Stmt r = arith::simplify(s);
  auto* outer = as<For>(r);
  ASSERT_NE(outer, nullptr);
  auto* inner = as<For>(outer->body);
  ASSERT_NE(inner, nullptr);
  auto* st = as<BufferStore>(inner->body);
  ASSERT_NE(st, nullptr);
  auto* ld = as<BufferLoad>(st->value);
  ASSERT_NE(ld, nullptr);
  EXPECT_EQ(print(ld->indices[0]), "((i * 8) + j)");
  // The store index was already canonical: shared, not rebuilt.
  EXPECT_TRUE(sameNode(st->indices[0], flat));
}

TEST_F(ArithStmt, UnchangedStatementIsTheSameNode) {
  Stmt s = loop(i, 0, 16, store(B, i, load(A, i * 2 + 1)));
  EXPECT_TRUE(sameNode(arith::simplify(s), s));
}

TEST_F(ArithStmt, ExtentOneLoopIsDroppedAndItsVariableSubstituted) {
  Stmt s = loop(i, 3, 1, store(B, i * 2, load(A, i)));
  Stmt r = arith::simplify(s);
  auto* st = as<BufferStore>(r);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(print(st->indices[0]), "6");
  EXPECT_EQ(print(as<BufferLoad>(st->value)->indices[0]), "3");
}

TEST_F(ArithStmt, ProvableConditionsAreFolded) {
  Stmt then = store(B, i, load(A, i));
  Stmt other = store(B, i, floatImm(0.0));
  Stmt taken = arith::simplify(loop(i, 0, 16, make<IfThenElse>(lt(i, intImm(16)), then, other)));
  ASSERT_NE(as<For>(taken), nullptr);
  EXPECT_TRUE(sameNode(as<For>(taken)->body, then));

  Stmt notTaken = arith::simplify(loop(i, 0, 16, make<IfThenElse>(ge(i, intImm(16)), then, other)));
  EXPECT_TRUE(sameNode(as<For>(notTaken)->body, other));

  Stmt noElse = arith::simplify(loop(i, 0, 16, make<IfThenElse>(ge(i, intImm(16)), then)));
  auto* ev = as<Evaluate>(as<For>(noElse)->body);
  ASSERT_NE(ev, nullptr);
  EXPECT_TRUE(isConstInt(ev->value, 0));

  // Not provable: kept, with the condition simplified.
  Stmt kept = arith::simplify(loop(i, 0, 16, make<IfThenElse>(lt(i + 0, intImm(8)), then)));
  auto* ite = as<IfThenElse>(as<For>(kept)->body);
  ASSERT_NE(ite, nullptr);
  EXPECT_EQ(print(ite->cond), "(i < 8)");
}

TEST_F(ArithStmt, BranchConditionsNarrowVariableBounds) {
  PrimExpr idx = floordiv(i, intImm(8));
  Stmt s = loop(i, 0, 16,
                make<IfThenElse>(lt(i, intImm(8)), store(B, idx, floatImm(1.0)),
                                 store(B, idx, floatImm(2.0))));
  Stmt r = arith::simplify(s);
  auto* ite = as<IfThenElse>(as<For>(r)->body);
  ASSERT_NE(ite, nullptr);
  EXPECT_EQ(print(as<BufferStore>(ite->then)->indices[0]), "0");
  EXPECT_EQ(print(as<BufferStore>(ite->otherwise)->indices[0]), "1");
  // A conjunction narrows from both sides; the facts end with the branch.
  Stmt both = loop(i, 0, 16,
                   seqStmt({make<IfThenElse>(logicalAnd(ge(i, intImm(4)), gt(intImm(8), i)),
                                             store(B, idx + floordiv(i, intImm(4)), floatImm(1.0))),
                            store(B, idx, floatImm(2.0))}));
  Stmt r2 = arith::simplify(both);
  auto* seq = as<SeqStmt>(as<For>(r2)->body);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(print(as<BufferStore>(as<IfThenElse>(seq->seq[0])->then)->indices[0]), "1");
  EXPECT_EQ(print(as<BufferStore>(seq->seq[1])->indices[0]), "floordiv(i, 8)");
}

TEST_F(ArithStmt, BlockIterVarsUseTheirDomain) {
  auto vi = primVar("vi");
  IterVar iv{vi, Range{intImm(0), intImm(16)}, IterType::Spatial};
  Stmt body = store(B, floormod(vi, intImm(16)) + floordiv(vi, intImm(16)), load(A, vi));
  BufferRegion w{B, {Range{PrimExpr(vi) + 0, intImm(1)}}};
  Stmt blk = make<Block>("blk", std::vector<IterVar>{iv}, std::vector<PrimExpr>{PrimExpr(i) * 1},
                         std::vector<BufferRegion>{}, std::vector<BufferRegion>{w}, nullptr, body);
  Stmt r = arith::simplify(loop(i, 0, 16, blk));
  auto* b = as<Block>(as<For>(r)->body);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(sameNode(b->bindings[0], i));
  EXPECT_TRUE(sameNode(b->writes[0].region[0].min, vi));
  EXPECT_TRUE(sameNode(as<BufferStore>(b->body)->indices[0], vi));
}

TEST_F(ArithStmt, LetBindsTheBoundOfItsValue) {
  auto t = primVar("t"), x = primVar("x");
  Stmt s =
      make<LetStmt>(t, floormod(x, intImm(4)), store(B, floordiv(t, intImm(4)) + t, floatImm(1.0)));
  Stmt r = arith::simplify(s);
  auto* let = as<LetStmt>(r);
  ASSERT_NE(let, nullptr);
  auto* st = as<BufferStore>(let->body);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(sameNode(st->indices[0], t));
}

TEST_F(ArithStmt, ScopesEndWithTheirStatement) {
  arith::Analyzer an;
  Stmt s = loop(i, 0, 16, store(B, i, load(A, i)));
  arith::simplify(s, an);
  EXPECT_FALSE(an.canProve(lt(i, intImm(16))));
  // An outer fact survives an inner loop over the same variable.
  an.bind(i, Range{intImm(0), intImm(4)});
  arith::simplify(loop(i, 0, 100, store(B, i, load(A, i))), an);
  EXPECT_TRUE(an.canProve(lt(i, intImm(4))));
  EXPECT_THROW(arith::simplify(Stmt()), Error);
}

} // namespace
