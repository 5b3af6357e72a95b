#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/graph_cleanup.h"
#include "engine/transform/registry.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::transform;

namespace {

StructInfo vecSInfo() { return tensorSInfo(DataType::Float32(), std::vector<int64_t>{4}); }

Expr callOp(const std::string& op, std::vector<Expr> args) {
  return make<Call>(opRef(op), std::move(args), Attrs{}, std::vector<StructInfo>{}, vecSInfo());
}

/// main(x): lv0 = relu(x); lv1 = exp(x) (dead); alias = lv0; gv = add(alias, x); return gv
IRModule sampleModule() {
  Var x = makeVar("x", vecSInfo());
  Var lv0 = makeDataflowVar("lv0", vecSInfo());
  Var lv1 = makeDataflowVar("lv1", vecSInfo());
  Var alias = makeDataflowVar("alias", vecSInfo());
  Var gv = makeVar("gv", vecSInfo());
  std::vector<Binding> bs = {
      make<VarBinding>(lv0, callOp("nn.relu", {x})),
      make<VarBinding>(lv1, callOp("exp", {x})),
      make<VarBinding>(alias, Expr(lv0)),
      make<VarBinding>(gv, callOp("add", {alias, x})),
  };
  auto blk = make<BindingBlock>(std::move(bs), true);
  Expr body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv));
  BaseFunc main = make<Function>(std::vector<Var>{x}, body, vecSInfo());
  BaseFunc unused = make<Function>(std::vector<Var>{x},
                                   Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{}, Expr(x))),
                                   vecSInfo(), Attrs{{"primitive", true}});
  return makeModule({{"main", main}, {"fused_unused", unused}});
}

const SeqExpr* mainBody(const IRModule& m) {
  return as<SeqExpr>(as<Function>(m->lookup("main"))->body);
}

struct CountingInstrument : PassInstrument {
  std::vector<std::string> log;
  void runBeforePass(const PassInfo& info, const IRModule&, int depth) override {
    log.push_back(std::string(depth, ' ') + "+" + info.name);
  }
  void runAfterPass(const PassInfo& info, const IRModule&, const IRModule&, int depth,
                    double ms) override {
    EXPECT_GE(ms, 0.0);
    log.push_back(std::string(depth, ' ') + "-" + info.name);
  }
};

} // namespace

TEST(DeadCodeElimination, RemovesUnusedBindingsAndUnreachablePrimitiveFunctions) {
  IRModule m = sampleModule();
  IRModule out = deadCodeElimination(m);
  auto* seq = mainBody(out);
  ASSERT_EQ(seq->blocks.size(), 1u);
  ASSERT_EQ(seq->blocks[0]->bindings.size(), 3u);
  for (auto& b : seq->blocks[0]->bindings)
    EXPECT_NE(b->var->name, "lv1");
  EXPECT_FALSE(out->contains("fused_unused"));
  // Running it again changes nothing: the very same module comes back.
  EXPECT_TRUE(sameNode(deadCodeElimination(out), out));
}

TEST(CanonicalizeBindings, ReplacesAliasesByTheirSource) {
  IRModule m = sampleModule();
  IRModule out = canonicalizeBindings(m);
  auto* seq = mainBody(out);
  auto& bs = seq->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 3u); // alias removed
  auto* add = as<Call>(bs.back()->value);
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(sameNode(add->args[0], bs[0]->var)); // uses lv0 directly
  // Untouched function is shared, not copied.
  EXPECT_TRUE(sameNode(out->lookup("fused_unused"), m->lookup("fused_unused")));
}

TEST(CanonicalizeBindings, KeepsAliasThatExportsADataflowVariable) {
  Var x = makeVar("x", vecSInfo());
  Var lv = makeDataflowVar("lv", vecSInfo());
  Var gv = makeVar("gv", vecSInfo());
  auto blk = make<BindingBlock>(std::vector<Binding>{make<VarBinding>(lv, callOp("exp", {x})),
                                                     make<VarBinding>(gv, Expr(lv))},
                                true);
  BaseFunc f = make<Function>(std::vector<Var>{x},
                              Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv))),
                              vecSInfo());
  IRModule m = makeModule({{"main", f}});
  EXPECT_TRUE(sameNode(canonicalizeBindings(m), m));
}

TEST(PassInfra, InstrumentsSeeNestingAndDisabledPassesAreSkipped) {
  auto inst = std::make_shared<CountingInstrument>();
  PassContext ctx;
  ctx.instruments.push_back(inst);
  auto pipeline = makePipeline("cleanup", {"CanonicalizeBindings", "DeadCodeElimination"});
  (*pipeline)(sampleModule(), ctx);
  EXPECT_EQ(inst->log, (std::vector<std::string>{"+cleanup", " +CanonicalizeBindings",
                                                 " -CanonicalizeBindings", " +DeadCodeElimination",
                                                 " -DeadCodeElimination", "-cleanup"}));
  inst->log.clear();
  ctx.disabled.insert("DeadCodeElimination");
  (*pipeline)(sampleModule(), ctx);
  EXPECT_EQ(inst->log.size(), 4u);
}

TEST(PassInfra, OptLevelGatesPassesUnlessRequired) {
  PassContext ctx;
  ctx.optLevel = 0;
  IRModule m = sampleModule();
  EXPECT_TRUE(sameNode((*deadCodeEliminationPass())(m, ctx), m));
  ctx.required.insert("DeadCodeElimination");
  EXPECT_FALSE(sameNode((*deadCodeEliminationPass())(m, ctx), m));
}

TEST(PassInfra, CancelFlagStopsBetweenPasses) {
  std::atomic<bool> cancel{true};
  PassContext ctx;
  ctx.cancel = &cancel;
  EXPECT_THROW((*deadCodeEliminationPass())(sampleModule(), ctx), Cancelled);
}

TEST(PassRegistry, UnknownPassIsAnErrorListingKnownPasses) {
  try {
    makePipeline("p", {"NoSuchPass"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("NoSuchPass"), std::string::npos);
    EXPECT_NE(msg.find("DeadCodeElimination"), std::string::npos);
  }
}

#include "engine/transform/record.h"

TEST(RecordingInstrument, RecordsBeforeAfterTimingNestingAndChangedFlag) {
  auto rec = std::make_shared<RecordingInstrument>();
  PassContext ctx;
  ctx.instruments.push_back(rec);
  IRModule m = sampleModule();
  auto pipeline = makePipeline(
      "cleanup", {"CanonicalizeBindings", "DeadCodeElimination", "DeadCodeElimination"});
  IRModule out = (*pipeline)(m, ctx);
  auto rs = rec->records();
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0].name, "cleanup");
  EXPECT_EQ(rs[0].parent, -1);
  EXPECT_EQ(rs[1].parent, 0);
  EXPECT_EQ(rs[1].depth, 1);
  EXPECT_TRUE(rs[1].changed);  // alias removed
  EXPECT_TRUE(rs[2].changed);  // dead binding and function removed
  EXPECT_FALSE(rs[3].changed); // second DCE finds nothing
  EXPECT_TRUE(sameNode(rs[3].before, rs[3].after));
  EXPECT_TRUE(sameNode(rs[0].before, m));
  EXPECT_TRUE(sameNode(rs[0].after, out));
  for (auto& r : rs) {
    EXPECT_TRUE(r.finished);
    EXPECT_GE(r.ms, 0.0);
  }
  // Records share unchanged functions with the input rather than copying.
  EXPECT_TRUE(sameNode(rs[1].after->lookup("fused_unused"), m->lookup("fused_unused")));
  EXPECT_EQ(rec->leafRecords().size(), 3u);
}

TEST(RecordingInstrument, RebuiltButEqualModuleCountsAsUnchanged) {
  IRModule m = sampleModule();
  IRModule copy = makeModule(m->functions, m->attrs); // new node, same content
  EXPECT_FALSE(moduleChanged(m, copy));
  EXPECT_TRUE(moduleChanged(m, deadCodeElimination(m)));
}

TEST(RecordingInstrument, ADisabledPassKeepsItsStepAndIsMarked) {
  // Step k names the same pass of a pipeline whatever is disabled: the GUI
  // (which may turn AssignTargets off) and `build --dump-passes` number alike.
  auto pipeline = makePipeline("cleanup", {"CanonicalizeBindings", "DeadCodeElimination"});
  auto names = [&](PassContext& ctx, std::vector<PassRecord>* out) {
    auto rec = std::make_shared<RecordingInstrument>();
    ctx.instruments.push_back(rec);
    (*pipeline)(sampleModule(), ctx);
    *out = rec->records();
    std::vector<std::string> n;
    for (auto& r : *out)
      n.push_back(r.name);
    return n;
  };
  PassContext all, some;
  some.disabled.insert("CanonicalizeBindings");
  std::vector<PassRecord> ra, rs;
  EXPECT_EQ(names(all, &ra), names(some, &rs));
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_TRUE(rs[1].disabled);
  EXPECT_FALSE(rs[1].changed);
  EXPECT_TRUE(sameNode(rs[1].before, rs[1].after)) << "a disabled pass does not run";
  EXPECT_EQ(rs[1].parent, 0);
  EXPECT_EQ(rs[1].depth, 1);
  EXPECT_FALSE(rs[2].disabled);
  EXPECT_FALSE(ra[1].disabled);
  EXPECT_TRUE(ra[1].changed);
}
