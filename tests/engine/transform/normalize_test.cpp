// The normalizer on small hand-built functions.
#include "tests/engine/op/op_test_util.h"

#include "engine/transform/normalize.h"

using namespace optest;
using unity::transform::normalize;
using unity::transform::normalizeExpr;

namespace {

const DataType f32 = DataType::Float32();

Binding bind(const Var& v, const Expr& value, Span span = {}) {
  return make<VarBinding>(v, value, std::move(span));
}
Ref<BindingBlock> block(std::vector<Binding> bs, bool dataflow = true) {
  return make<BindingBlock>(std::move(bs), dataflow);
}
Expr seq(std::vector<Ref<BindingBlock>> blocks, Expr body) {
  return make<SeqExpr>(std::move(blocks), std::move(body));
}

/// main(x: (n, 784), w: (128, 784)) with no struct info on any binding.
struct Mlp {
  Ref<PrimVar> n = primVar("n");
  Var x = makeVar("x", tensorSInfo(f32, dims({n, 784})));
  Var w = makeVar("w", tensorSInfo(f32, dims({128, 784})));
  Var lv0 = makeDataflowVar("lv0", nullptr);
  Var lv1 = makeDataflowVar("lv1", nullptr);
  Var lv2 = makeDataflowVar("lv2", nullptr);
  Var gv = makeVar("gv", nullptr);
  IRModule module() {
    Expr mm = op::callOp("matmul", {x, op::callOp("permute_dims", {w})}); // nested call
    auto body = seq({block({bind(lv0, mm), bind(lv1, op::callOp("nn.relu", {lv0})),
                            bind(lv2, make<Tuple>(std::vector<Expr>{lv0, lv1}))}),
                     block({bind(gv, make<TupleGetItem>(lv2, 1))}, false)},
                    gv);
    return makeModule({{"main", make<Function>(std::vector<Var>{x, w}, body, nullptr)}});
  }
};

} // namespace

TEST(Normalize, FillsEveryStructInfoAndRemapsUses) {
  Mlp t;
  IRModule m = t.module();
  IRModule out = normalize(m);
  ASSERT_FALSE(sameNode(out, m));
  auto* f = as<Function>(out->lookup("main"));
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(hasShape(f->retSInfo, {t.n, 128}));
  auto* s = as<SeqExpr>(f->body);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->blocks.size(), 2u);
  std::vector<Var> vars;
  for (auto& blk : s->blocks)
    for (auto& b : blk->bindings) {
      ASSERT_TRUE(b->var->sinfo) << b->var->name;
      ASSERT_TRUE(b->value->sinfo) << b->var->name;
      vars.push_back(b->var);
    }
  ASSERT_EQ(vars.size(), 4u);
  EXPECT_TRUE(hasShape(vars[0]->sinfo, {t.n, 128}));
  EXPECT_TRUE(vars[0]->isDataflow());
  EXPECT_TRUE(hasShape(vars[1]->sinfo, {t.n, 128}));
  EXPECT_TRUE(isa<TupleSInfo>(vars[2]->sinfo));
  EXPECT_TRUE(hasShape(vars[3]->sinfo, {t.n, 128}));
  EXPECT_FALSE(vars[3]->isDataflow());
  // Uses refer to the new variables.
  auto* relu = as<Call>(s->blocks[0]->bindings[1]->value);
  ASSERT_NE(relu, nullptr);
  EXPECT_TRUE(sameNode(relu->args[0], vars[0]));
  EXPECT_TRUE(sameNode(s->body, vars[3]));
  // The nested call got struct info too.
  auto* mm = as<Call>(s->blocks[0]->bindings[0]->value);
  EXPECT_TRUE(hasShape(mm->args[1]->sinfo, {784, 128}));
  // The original module is untouched.
  EXPECT_FALSE(t.lv0->sinfo);
}

TEST(Normalize, SecondRunReturnsTheSameModule) {
  Mlp t;
  IRModule once = normalize(t.module());
  EXPECT_TRUE(sameNode(normalize(once), once));
}

TEST(Normalize, WrapsBodyAndUsesCalleeReturn) {
  auto n = primVar("n");
  Var a = makeVar("a", tensorSInfo(f32, dims({n, 4})));
  // helper(a) = exp(a), a bare call body.
  BaseFunc helper = make<Function>(std::vector<Var>{a}, op::callOp("exp", {a}), nullptr);
  Var b = makeVar("b", tensorSInfo(f32, dims({2, 4})));
  Var r = makeVar("r", nullptr);
  Expr mainBody = seq(
      {block({bind(r, make<Call>(make<GlobalVar>("helper"), std::vector<Expr>{b}))}, false)}, r);
  IRModule m = makeModule(
      {{"main", make<Function>(std::vector<Var>{b}, mainBody, nullptr)}, {"helper", helper}});
  IRModule out = normalize(m);
  auto* h = as<Function>(out->lookup("helper"));
  ASSERT_TRUE(isa<SeqExpr>(h->body));
  EXPECT_TRUE(hasShape(h->retSInfo, {n, 4}));
  // main takes helper's return struct info with n bound to b's 2.
  auto* mf = as<Function>(out->lookup("main"));
  EXPECT_TRUE(hasShape(mf->retSInfo, {2, 4}));
  EXPECT_TRUE(sameNode(normalize(out), out));
}

TEST(Normalize, MatchCastIsCheckedStatically) {
  auto n = primVar("n"), m = primVar("m");
  Var x = makeVar("x", tensorSInfo(f32, dims({n, 784})));
  Var y = makeVar("y", nullptr);
  StructInfo pattern = tensorSInfo(f32, dims({m, 784}));
  Expr body = seq({block({make<MatchCast>(y, x, pattern, Span{})}, false)}, y);
  IRModule out = normalize(makeModule({{"f", make<Function>(std::vector<Var>{x}, body, nullptr)}}));
  auto* s = as<SeqExpr>(as<Function>(out->lookup("f"))->body);
  EXPECT_TRUE(hasShape(s->blocks[0]->bindings[0]->var->sinfo, {m, 784}));

  Var z = makeVar("z", nullptr);
  Expr bad =
      seq({block({make<MatchCast>(z, x, tensorSInfo(f32, dims({n, 10})), Span{"m.ir", 4, 3, {}})},
                 false)},
          z);
  try {
    normalize(makeModule({{"g", make<Function>(std::vector<Var>{x}, bad, nullptr)}}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.loc().line, 4);
    EXPECT_NE(e.message().find("can never match"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("@g"), std::string::npos) << e.message();
  }
}

TEST(Normalize, OperatorErrorsCarryTheBindingSpan) {
  Var x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{2, 3}));
  Var y = makeVar("y", nullptr);
  Expr body = seq(
      {block({bind(y, op::callOp("add", {x, op::callOp("sum", {x})}), Span{"net.ir", 9, 5, {}})},
             false)},
      y);
  // sum(x) is a scalar; add((2,3), ()) is fine. Use a real mismatch instead:
  Var z = makeVar("z", nullptr);
  Var v = makeVar("v", tensorSInfo(f32, std::vector<int64_t>{4}));
  Expr bad = seq({block({bind(z, op::callOp("add", {x, v}), Span{"net.ir", 9, 5, {}})}, false)}, z);
  EXPECT_NO_THROW(
      normalize(makeModule({{"ok", make<Function>(std::vector<Var>{x}, body, nullptr)}})));
  try {
    normalize(makeModule({{"f", make<Function>(std::vector<Var>{x, v}, bad, nullptr)}}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.loc().file, "net.ir");
    EXPECT_EQ(e.loc().line, 9);
    EXPECT_NE(e.message().find("R.add"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("Tensor((2, 3), float32)"), std::string::npos) << e.message();
  }
}

TEST(Normalize, AnnotationContradictingTheValueIsAnError) {
  Var x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{2, 3}));
  Var y = makeVar("y", tensorSInfo(f32, std::vector<int64_t>{2, 4}));
  Expr body = seq({block({bind(y, op::callOp("exp", {x}))}, false)}, y);
  EXPECT_THROW(normalize(makeModule({{"f", make<Function>(std::vector<Var>{x}, body, nullptr)}})),
               Error);
  // An annotation equal to the deduced struct info keeps its Var node.
  Var y2 = makeVar("y", tensorSInfo(f32, std::vector<int64_t>{2, 3}));
  Expr body2 = seq({block({bind(y2, op::callOp("exp", {x}))}, false)}, y2);
  IRModule m = makeModule({{"f", make<Function>(std::vector<Var>{x}, body2,
                                                tensorSInfo(f32, std::vector<int64_t>{2, 3}))}});
  IRModule out = normalize(m);
  EXPECT_FALSE(sameNode(out, m)); // the call itself had no struct info yet
  auto* s = as<SeqExpr>(as<Function>(out->lookup("f"))->body);
  EXPECT_TRUE(sameNode(s->blocks[0]->bindings[0]->var, y2));
  EXPECT_TRUE(sameNode(s->body, y2));
}

TEST(Normalize, IfJoinsBranches) {
  Var c = makeVar("c", primSInfo(DataType::Bool()));
  Var x = makeVar("x", tensorSInfo(f32, std::vector<int64_t>{2, 3}));
  Expr e = make<If>(c, op::callOp("exp", {x}), op::callOp("permute_dims", {x}));
  Expr out = normalizeExpr(e);
  auto* t = as<TensorSInfo>(out->sinfo);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ndim, 2);
  EXPECT_FALSE(t->hasShape()); // (2, 3) vs (3, 2)
  Expr same = make<If>(c, op::callOp("exp", {x}), op::callOp("abs", {x}));
  EXPECT_TRUE(hasShape(normalizeExpr(same)->sinfo, {2, 3}));
  Expr mixed = make<If>(c, op::callOp("exp", {x}), make<ShapeExpr>(dims({2})));
  EXPECT_THROW(normalizeExpr(mixed), Error);
  Expr badCond = make<If>(x, x, x);
  EXPECT_THROW(normalizeExpr(badCond), Error);
}
