#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/transform/fuse_ops.h"
#include "engine/transform/graph_cleanup.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::transform;

namespace {

constexpr int64_t N = 16;

StructInfo vec() { return tensorSInfo(DataType::Float32(), std::vector<int64_t>{N}); }

/// out[i] = a[i] (+ b[i]) as a one-block PrimFunc with the given pattern.
BaseFunc ewise(int numInputs, int pattern) {
  std::vector<PrimFunc::Param> params;
  std::vector<BufferRef> ins;
  for (int k = 0; k < numInputs; ++k) {
    ins.push_back(makeBuffer("in" + std::to_string(k), DataType::Float32(), {intImm(N)}));
    params.push_back({ins.back(), nullptr});
  }
  auto out = makeBuffer("out", DataType::Float32(), {intImm(N)});
  params.push_back({out, nullptr});
  auto i = primVar("i");
  auto vi = primVar("vi");
  PrimExpr value = make<BufferLoad>(ins[0], std::vector<PrimExpr>{PrimExpr(vi)});
  for (int k = 1; k < numInputs; ++k)
    value = value + make<BufferLoad>(ins[k], std::vector<PrimExpr>{PrimExpr(vi)});
  Stmt store = make<BufferStore>(out, value, std::vector<PrimExpr>{PrimExpr(vi)});
  Stmt blk =
      make<Block>("compute", std::vector<IterVar>{{vi, {intImm(0), intImm(N)}, IterType::Spatial}},
                  std::vector<PrimExpr>{PrimExpr(i)}, std::vector<BufferRegion>{},
                  std::vector<BufferRegion>{}, nullptr, store);
  Stmt loop = make<For>(i, intImm(0), intImm(N), ForKind::Serial, blk);
  return make<PrimFunc>(std::move(params), loop, Attrs{{"op_pattern", int64_t(pattern)}});
}

Expr callTIR(const std::string& f, std::vector<Expr> args) {
  return make<Call>(opRef("call_tir"),
                    std::vector<Expr>{Expr(make<GlobalVar>(f)), Expr(make<Tuple>(std::move(args)))},
                    Attrs{}, std::vector<StructInfo>{vec()}, vec());
}

struct Chain {
  IRModule module;
};

/// x -> conv(OutEWise, x, w) -> add(bias) -> relu -> gv
///   plus an opaque node afterwards, and a diamond: relu feeds two adds
///   that are summed again.
IRModule convBiasRelu() {
  Var x = makeVar("x", vec()), w = makeVar("w", vec()), b = makeVar("b", vec());
  Var c = makeDataflowVar("conv", vec()), a = makeDataflowVar("biased", vec()),
      r = makeDataflowVar("relu", vec());
  Var gv = makeVar("gv", vec());
  std::vector<Binding> bs = {
      make<VarBinding>(c, callTIR("conv", {x, w}), Span{"", 0, 0, {"Conv_0:Conv"}}),
      make<VarBinding>(a, callTIR("add", {c, b}), Span{"", 0, 0, {"Add_0:Add"}}),
      make<VarBinding>(r, callTIR("relu", {a}), Span{"", 0, 0, {"Relu_0:Relu"}}),
      make<VarBinding>(gv, callTIR("opaque", {r})),
  };
  auto blk = make<BindingBlock>(std::move(bs), true);
  BaseFunc main =
      make<Function>(std::vector<Var>{x, w, b},
                     Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv))), vec());
  return makeModule({{"main", main},
                     {"conv", ewise(2, pattern::kOutEWiseFusable)},
                     {"add", ewise(2, pattern::kBroadcast)},
                     {"relu", ewise(1, pattern::kElemWise)},
                     {"opaque", ewise(1, pattern::kOpaque)}});
}

std::vector<Binding> mainBindings(const IRModule& m) {
  auto* seq = as<SeqExpr>(as<Function>(m->lookup("main"))->body);
  return seq->blocks.at(0)->bindings;
}

int countLoops(const Stmt& s) {
  int n = 0;
  walkStmt(s, [&](const Stmt& x) { n += isa<For>(x); });
  return n;
}

} // namespace

TEST(FuseOps, ConvBiasReluBecomesOneGroupAndOpaqueStaysOut) {
  IRModule m = convBiasRelu();
  IRModule fused = fuseOps(m);
  auto bs = mainBindings(fused);
  ASSERT_EQ(bs.size(), 2u); // fused call + opaque
  auto* call = as<Call>(bs[0]->value);
  ASSERT_NE(call, nullptr);
  auto* gv = as<GlobalVar>(call->op);
  ASSERT_NE(gv, nullptr);
  EXPECT_EQ(gv->name, "fused_conv_add_relu");
  EXPECT_EQ(call->args.size(), 3u); // x, w, b
  // The group's binding keeps every ONNX origin.
  EXPECT_EQ(bs[0]->span.origins,
            (std::vector<std::string>{"Conv_0:Conv", "Add_0:Add", "Relu_0:Relu"}));
  auto* fn = as<Function>(fused->lookup(gv->name));
  ASSERT_NE(fn, nullptr);
  EXPECT_TRUE(fn->attrs.getBool("primitive", false));
  EXPECT_EQ(fn->attrs.getInt("op_pattern", -1), pattern::kOutEWiseFusable);
  // Running again fuses nothing new.
  EXPECT_TRUE(sameNode(fuseOps(fused), fused));
}

TEST(FuseOps, OpaqueProducerIsNeverFused) {
  IRModule m = convBiasRelu();
  // Make the anchor opaque: nothing can fuse into it, but add+relu still may.
  m = withFunction(m, "conv", ewise(2, pattern::kOpaque));
  auto bs = mainBindings(fuseOps(m));
  ASSERT_EQ(bs.size(), 3u);
  auto* c0 = as<Call>(bs[0]->value);
  EXPECT_TRUE(isa<OpRef>(c0->op)); // the opaque conv is still a plain call_tir
  auto* c1 = as<Call>(bs[1]->value);
  ASSERT_TRUE(isa<GlobalVar>(c1->op));
  EXPECT_EQ(as<GlobalVar>(c1->op)->name, "fused_add_relu");
}

TEST(FuseOps, ValueUsedTwiceDownstreamFusesOnlyAtItsPostDominator) {
  // r = relu(x); a = add(r, r2?)...: diamond r -> (p, q) -> s.
  Var x = makeVar("x", vec());
  Var r = makeDataflowVar("r", vec()), p = makeDataflowVar("p", vec()),
      q = makeDataflowVar("q", vec()), s = makeDataflowVar("s", vec());
  Var gv = makeVar("gv", vec());
  std::vector<Binding> bs = {
      make<VarBinding>(r, callTIR("relu", {x})), make<VarBinding>(p, callTIR("relu", {r})),
      make<VarBinding>(q, callTIR("relu", {r})), make<VarBinding>(s, callTIR("add", {p, q})),
      make<VarBinding>(gv, callTIR("opaque", {s}))};
  auto blk = make<BindingBlock>(std::move(bs), true);
  BaseFunc main =
      make<Function>(std::vector<Var>{x},
                     Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv))), vec());
  IRModule m = makeModule({{"main", main},
                           {"add", ewise(2, pattern::kBroadcast)},
                           {"relu", ewise(1, pattern::kElemWise)},
                           {"opaque", ewise(1, pattern::kOpaque)}});
  auto out = mainBindings(fuseOps(m));
  ASSERT_EQ(out.size(), 2u); // the whole diamond is one group
  EXPECT_EQ(as<Call>(out[0]->value)->args.size(), 1u);
}

TEST(FuseTIR, GroupBecomesOnePrimFuncWithLocalIntermediates) {
  IRModule m = fuseTIR(fuseOps(convBiasRelu()));
  auto bs = mainBindings(m);
  ASSERT_EQ(bs.size(), 2u);
  auto* call = as<Call>(bs[0]->value);
  ASSERT_NE(call, nullptr);
  ASSERT_TRUE(isa<OpRef>(call->op));
  EXPECT_EQ(as<OpRef>(call->op)->name, "call_tir");
  auto* gv = as<GlobalVar>(call->args[0]);
  ASSERT_NE(gv, nullptr);
  auto* pf = as<PrimFunc>(m->lookup(gv->name));
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->params.size(), 4u);   // x, w, b, out
  EXPECT_EQ(countLoops(pf->body), 3); // three inlined loop nests
  int allocs = 0;
  walkStmt(pf->body, [&](const Stmt& s) { allocs += isa<Allocate>(s); });
  EXPECT_EQ(allocs, 2); // conv and add results are local
  // Loop variables are fresh per inlined nest: no two loops share a variable.
  std::vector<const PrimVar*> loopVars;
  walkStmt(pf->body, [&](const Stmt& s) {
    if (auto* f = as<For>(s))
      loopVars.push_back(f->var.get());
  });
  std::sort(loopVars.begin(), loopVars.end());
  EXPECT_EQ(std::unique(loopVars.begin(), loopVars.end()), loopVars.end());
  // The original conv/add/relu are now unused: DCE removes them.
  IRModule clean = deadCodeElimination(m);
  EXPECT_FALSE(clean->contains("conv"));
  EXPECT_TRUE(clean->contains("opaque"));
}

TEST(AnnotateOpPattern, DerivesElementwiseFromStructure) {
  IRModule m = convBiasRelu();
  auto* relu = as<PrimFunc>(m->lookup("relu"));
  BaseFunc bare = make<PrimFunc>(relu->params, relu->body, Attrs{});
  IRModule in = makeModule({{"relu", bare}});
  IRModule out = annotateOpPattern(in);
  EXPECT_EQ(as<PrimFunc>(out->lookup("relu"))->attrs.getInt("op_pattern", -1), pattern::kElemWise);
  EXPECT_TRUE(sameNode(annotateOpPattern(out), out));
}
