#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/ir/module.h"
#include "engine/support/error.h"

using namespace unity;
using namespace unity::ir;

TEST(Node, IsaAndAsFollowKindRanges) {
  PrimExpr n = primVar("n");
  PrimExpr e = n * 2 + 1;
  EXPECT_TRUE(isa<BinaryExpr>(e));
  EXPECT_TRUE(isa<PrimExprNode>(e));
  EXPECT_FALSE(isa<PrimVar>(e));
  EXPECT_EQ(as<IntImm>(e), nullptr);
  ASSERT_NE(as<BinaryExpr>(e), nullptr);
  EXPECT_EQ(as<BinaryExpr>(e)->op(), NodeKind::Add);
  Ref<BaseFuncNode> f = make<ExternFunc>("sym");
  EXPECT_TRUE(isa<ExprNode>(f));
  EXPECT_TRUE(isa<ExternFunc>(f));
  EXPECT_FALSE(isa<PrimFunc>(f));
}

TEST(Node, RefCountingReleasesNodes) {
  PrimExpr a = primVar("a");
  EXPECT_EQ(a->useCount(), 1);
  {
    PrimExpr sum = a + a;
    EXPECT_EQ(a->useCount(), 3);
  }
  EXPECT_EQ(a->useCount(), 1);
}

TEST(Node, ConstructorsValidate) {
  EXPECT_THROW(primVar("x", DataType::Int64()) + floatImm(1.0), Error);
  auto buf = makeBuffer("A", DataType::Float32(), {intImm(4), intImm(4)});
  // ndim indices, or one flat row-major index (FlattenBuffers); nothing else.
  EXPECT_THROW(make<BufferLoad>(buf, std::vector<PrimExpr>{intImm(0), intImm(1), intImm(2)}),
               Error);
  EXPECT_NO_THROW(make<BufferLoad>(buf, std::vector<PrimExpr>{intImm(5)}));
  EXPECT_THROW(make<PrimCall>(DataType::Float32(), "no_such_intrinsic", std::vector<PrimExpr>{}),
               Error);
}

TEST(Mutator, UnchangedTreeIsReturnedAsTheSameNode) {
  auto i = primVar("i");
  auto buf = makeBuffer("A", DataType::Float32(), {intImm(8)});
  Stmt body = make<BufferStore>(
      buf, make<BufferLoad>(buf, std::vector<PrimExpr>{PrimExpr(i)}) + floatImm(1.0),
      std::vector<PrimExpr>{PrimExpr(i)});
  Stmt loop = make<For>(i, intImm(0), intImm(8), ForKind::Serial, body);
  StmtMutator identity;
  EXPECT_TRUE(sameNode(identity.mutate(loop), loop));

  // Substituting a variable that occurs rebuilds only the path to it.
  auto j = primVar("j");
  Stmt replaced = substitute(body, {{i.get(), PrimExpr(j)}});
  EXPECT_FALSE(sameNode(replaced, body));
  auto* store = as<BufferStore>(replaced);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(sameNode(store->indices[0], j));
  EXPECT_TRUE(sameNode(store->buffer, buf));
}

TEST(Module, WithFunctionSharesUntouchedFunctions) {
  auto x = makeVar("x", tensorSInfo(DataType::Float32(), std::vector<int64_t>{2}));
  auto seq = make<SeqExpr>(std::vector<Ref<BindingBlock>>{}, Expr(x));
  BaseFunc f = make<Function>(std::vector<Var>{x}, seq, x->sinfo);
  BaseFunc g = make<ExternFunc>("ext");
  IRModule m = makeModule({{"main", f}, {"ext", g}});
  IRModule m2 = withFunction(m, "other", g);
  EXPECT_TRUE(sameNode(m2->lookup("main"), f));
  EXPECT_EQ(m2->names(), (std::vector<std::string>{"main", "ext", "other"}));
  EXPECT_TRUE(sameNode(withFunction(m, "main", f), m));
  EXPECT_EQ(freshFunctionName(m2, "main"), "main_1");
  EXPECT_THROW(makeModule({{"a", f}, {"a", g}}), Error);
}
