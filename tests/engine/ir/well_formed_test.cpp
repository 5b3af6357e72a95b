#include <gtest/gtest.h>

#include "engine/ir/well_formed.h"
#include "tests/engine/ir/test_modules.h"

using namespace unity;
using namespace unity::ir;
using unity::ir::testing::buildAddOne;
using unity::ir::testing::buildModule;
using unity::ir::testing::ModuleSpec;

namespace {

StructInfo t4() { return tensorSInfo(DataType::Float32(), std::vector<int64_t>{4}); }

Expr add(Expr a, Expr b) {
  return make<Call>(opRef("add"), std::vector<Expr>{a, b}, Attrs{}, std::vector<StructInfo>{},
                    t4());
}

/// main(x) { <one block of bindings> ; return result } next to add_one.
IRModule moduleWithMain(const Var& x, std::vector<Binding> bindings, const Expr& result,
                        bool dataflow = true) {
  auto block = make<BindingBlock>(std::move(bindings), dataflow);
  auto body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{block}, result, t4());
  auto main = make<Function>(std::vector<Var>{x}, body, t4());
  return makeModule({{"main", main}, {"add_one", buildAddOne({})}});
}

std::string allIssues(const std::vector<WellFormedIssue>& issues) {
  std::string s;
  for (auto& i : issues)
    s += issueStr(i) + "\n";
  return s;
}

/// Exactly one issue, in `function`, whose message contains every fragment.
void expectOneIssue(const IRModule& m, const std::string& function,
                    const std::vector<std::string>& fragments) {
  auto issues = checkWellFormed(m);
  ASSERT_EQ(issues.size(), 1u) << allIssues(issues);
  EXPECT_EQ(issues[0].function, function);
  for (auto& f : fragments)
    EXPECT_NE(issues[0].message.find(f), std::string::npos)
        << "'" << f << "' not in: " << issues[0].message;
}

PrimFuncRef loopFunc(PrimExpr extent, const BufferRef& stored, const BufferRef& param,
                     const Ref<PrimVar>& i) {
  Stmt body = make<For>(i, intImm(0), extent, ForKind::Serial,
                        make<BufferStore>(stored, floatImm(0.0), std::vector<PrimExpr>{i}));
  return make<PrimFunc>(std::vector<PrimFunc::Param>{{param, nullptr}}, body);
}

} // namespace

TEST(WellFormed, CorrectModuleHasNoIssues) {
  auto issues = checkWellFormed(buildModule());
  EXPECT_TRUE(issues.empty()) << allIssues(issues);
}

TEST(WellFormed, UseBeforeDefineIsReported) {
  Var x = makeVar("x", t4());
  Var lv0 = makeDataflowVar("lv0", t4()), lv1 = makeDataflowVar("lv1", t4());
  Var gv = makeVar("gv", t4());
  IRModule m = moduleWithMain(x,
                              {make<VarBinding>(lv1, add(lv0, x)), make<VarBinding>(lv0, add(x, x)),
                               make<VarBinding>(gv, lv1)},
                              gv);
  expectOneIssue(m, "main", {"'lv0'", "before it is defined", "binding 'lv1'"});
}

TEST(WellFormed, UndefinedVariableIsReportedWithSpan) {
  Var x = makeVar("x", t4()), ghost = makeVar("ghost", t4()), y = makeVar("y", t4());
  Span span{"model.txt", 3, 5, {}};
  IRModule m = moduleWithMain(x, {make<VarBinding>(y, add(x, ghost), span)}, y, false);
  expectOneIssue(m, "main", {"'ghost'", "not defined", "binding 'y'"});
  EXPECT_EQ(checkWellFormed(m)[0].span, span);
  EXPECT_NE(issueStr(checkWellFormed(m)[0]).find("model.txt:3:5"), std::string::npos);
}

TEST(WellFormed, VariableDefinedTwiceIsReported) {
  Var x = makeVar("x", t4()), y = makeVar("y", t4());
  IRModule m =
      moduleWithMain(x, {make<VarBinding>(y, add(x, x)), make<VarBinding>(y, add(x, x))}, y, false);
  expectOneIssue(m, "main", {"'y'", "more than once"});
}

TEST(WellFormed, UndefinedGlobalIsReported) {
  Var x = makeVar("x", t4()), y = makeVar("y", t4());
  Expr call = make<Call>(make<GlobalVar>("missing"), std::vector<Expr>{x}, Attrs{},
                         std::vector<StructInfo>{}, t4());
  IRModule m = moduleWithMain(x, {make<VarBinding>(y, call)}, y, false);
  expectOneIssue(m, "main", {"@missing", "not a function of the module"});
}

TEST(WellFormed, DataflowVarEscapingIsReported) {
  Var x = makeVar("x", t4());
  Var lv0 = makeDataflowVar("lv0", t4());
  IRModule m = moduleWithMain(x, {make<VarBinding>(lv0, add(x, x))}, lv0);
  expectOneIssue(m, "main", {"dataflow variable 'lv0'", "outside its dataflow block"});
}

TEST(WellFormed, DataflowVarBoundOutsideDataflowBlockIsReported) {
  Var x = makeVar("x", t4());
  Var lv0 = makeDataflowVar("lv0", t4()), y = makeVar("y", t4());
  IRModule m =
      moduleWithMain(x, {make<VarBinding>(lv0, add(x, x)), make<VarBinding>(y, lv0)}, y, false);
  expectOneIssue(m, "main", {"'lv0'", "outside a dataflow block"});
}

TEST(WellFormed, CallTirTargetMustBeAPrimFunc) {
  IRModule good = buildModule();
  IRModule bad = withFunction(good, "add_one", make<ExternFunc>("add_one_impl"));
  expectOneIssue(bad, "main", {"call_tir", "'@add_one'", "ExternFunc", "not a PrimFunc"});

  Var x = makeVar("x", t4()), y = makeVar("y", t4());
  Expr call = make<Call>(opRef("call_tir"), std::vector<Expr>{x}, Attrs{},
                         std::vector<StructInfo>{t4()}, t4());
  expectOneIssue(moduleWithMain(x, {make<VarBinding>(y, call)}, y, false), "main",
                 {"call_tir's first argument", "GlobalVar"});
}

TEST(WellFormed, CallTirOfUnknownFunctionIsReportedOnce) {
  IRModule bad = withoutFunction(buildModule(), "add_one");
  expectOneIssue(bad, "main", {"@add_one", "not a function of the module"});
}

TEST(WellFormed, DirectCallOfPrimFuncIsReported) {
  Var x = makeVar("x", t4()), y = makeVar("y", t4());
  Expr call = make<Call>(make<GlobalVar>("add_one"), std::vector<Expr>{x}, Attrs{},
                         std::vector<StructInfo>{}, t4());
  expectOneIssue(moduleWithMain(x, {make<VarBinding>(y, call)}, y, false), "main",
                 {"'@add_one'", "directly"});
}

TEST(WellFormed, MissingStructInfoIsReported) {
  Var x = makeVar("x", t4()), y = makeVar("y", t4());
  Expr call = make<Call>(opRef("add"), std::vector<Expr>{x, x}); // not normalized
  expectOneIssue(moduleWithMain(x, {make<VarBinding>(y, call)}, y, false), "main",
                 {"call of 'add'", "no struct info", "binding 'y'"});
}

TEST(WellFormed, UndefinedPrimVarInALoopIsReported) {
  auto a = makeBuffer("A", DataType::Float32(), {intImm(16)});
  auto k = primVar("k"), i = primVar("i");
  IRModule m = makeModule({{"bad_loop", loopFunc(k, a, a, i)}});
  expectOneIssue(m, "bad_loop", {"'k'", "not defined"});
}

TEST(WellFormed, ShapeVariablesOfParameterBuffersAreDefined) {
  auto n = primVar("n"), i = primVar("i");
  auto a = makeBuffer("A", DataType::Float32(), {n});
  IRModule m = makeModule({{"f", loopFunc(n, a, a, i)}});
  EXPECT_TRUE(checkWellFormed(m).empty()) << allIssues(checkWellFormed(m));
}

TEST(WellFormed, LoopVariableUsedOutsideItsLoopIsReported) {
  auto a = makeBuffer("A", DataType::Float32(), {intImm(16)});
  auto i = primVar("i");
  Stmt loop = make<For>(i, intImm(0), intImm(16), ForKind::Serial,
                        make<BufferStore>(a, floatImm(0.0), std::vector<PrimExpr>{i}));
  Stmt after = make<BufferStore>(a, floatImm(1.0), std::vector<PrimExpr>{i});
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{a, nullptr}}, seqStmt({loop, after}));
  expectOneIssue(makeModule({{"f", f}}), "f", {"'i'", "not defined"});
}

TEST(WellFormed, BufferMustBeAParameterOrAllocated) {
  auto a = makeBuffer("A", DataType::Float32(), {intImm(16)});
  auto tmp = makeBuffer("tmp", DataType::Float32(), {intImm(16)}, "local");
  auto i = primVar("i");
  expectOneIssue(makeModule({{"f", loopFunc(intImm(16), tmp, a, i)}}), "f",
                 {"buffer 'tmp'", "neither a parameter nor allocated"});

  // The same store inside an Allocate of tmp is fine.
  auto j = primVar("j");
  Stmt store = make<For>(j, intImm(0), intImm(16), ForKind::Serial,
                         make<BufferStore>(tmp, floatImm(0.0), std::vector<PrimExpr>{j}));
  auto ok = make<PrimFunc>(std::vector<PrimFunc::Param>{{a, nullptr}}, make<Allocate>(tmp, store));
  EXPECT_TRUE(checkWellFormed(makeModule({{"f", ok}})).empty());
}

TEST(WellFormed, RegionRankMustMatchBuffer) {
  auto a = makeBuffer("A", DataType::Float32(), {intImm(4), intImm(4)});
  auto vi = primVar("vi");
  Stmt body = make<BufferStore>(a, floatImm(0.0), std::vector<PrimExpr>{vi, intImm(0)});
  Stmt block =
      make<Block>("init", std::vector<IterVar>{{vi, {intImm(0), intImm(4)}, IterType::Spatial}},
                  std::vector<PrimExpr>{intImm(0)}, std::vector<BufferRegion>{},
                  std::vector<BufferRegion>{{a, {{vi, intImm(1)}}}}, nullptr, body);
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{a, nullptr}}, block);
  expectOneIssue(makeModule({{"f", f}}), "f",
                 {"block 'init'", "write region of buffer 'A'", "1 indices for 2 dimensions"});
}

TEST(WellFormed, EveryFunctionIsChecked) {
  // Two bad functions: both are reported, each under its own name.
  auto a = makeBuffer("A", DataType::Float32(), {intImm(16)});
  auto k1 = primVar("k1"), k2 = primVar("k2"), i = primVar("i"), j = primVar("j");
  IRModule m = makeModule({{"f1", loopFunc(k1, a, a, i)}, {"f2", loopFunc(k2, a, a, j)}});
  auto issues = checkWellFormed(m);
  ASSERT_EQ(issues.size(), 2u) << allIssues(issues);
  EXPECT_EQ(issues[0].function, "f1");
  EXPECT_EQ(issues[1].function, "f2");
}

TEST(WellFormed, UndefinedShapeVariableIsReportedOnce) {
  auto m = primVar("m");
  StructInfo sm = tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{m});
  Var x = makeVar("x", t4()), y = makeVar("y", sm);
  Expr call = make<Call>(opRef("add"), std::vector<Expr>{x, x}, Attrs{}, std::vector<StructInfo>{},
                         sm); // both the call and y mention m
  expectOneIssue(moduleWithMain(x, {make<VarBinding>(y, call)}, x, false), "main",
                 {"shape variable 'm'", "not defined"});
}

TEST(WellFormed, MatchCastDefinesShapeVariables) {
  auto m = primVar("m");
  StructInfo sm = tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{m});
  Var x = makeVar("x", tensorSInfo(DataType::Float32(), 1));
  Var y = makeVar("y", sm), z = makeVar("z", sm);
  Expr sum =
      make<Call>(opRef("add"), std::vector<Expr>{y, y}, Attrs{}, std::vector<StructInfo>{}, sm);
  IRModule ok = moduleWithMain(x, {make<MatchCast>(y, x, sm), make<VarBinding>(z, sum)}, z, false);
  EXPECT_TRUE(checkWellFormed(ok).empty()) << allIssues(checkWellFormed(ok));

  // Without the match_cast, m comes from nowhere.
  Var w = makeVar("w", sm);
  IRModule bad = moduleWithMain(x, {make<VarBinding>(w, x)}, w, false);
  expectOneIssue(bad, "main", {"shape variable 'm'"});
}

// A result whose shape is read from data: the return type names the shape
// variable that a match_cast in the body binds.
TEST(WellFormed, ReturnTypeMayNameShapeVariablesTheBodyBinds) {
  auto m = primVar("m");
  StructInfo sm = tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{m});
  Var x = makeVar("x", tensorSInfo(DataType::Float32(), 1));
  Var y = makeVar("y", sm);
  auto bodyOf = [&](std::vector<Binding> bs, const Expr& result) {
    auto block = make<BindingBlock>(std::move(bs), false);
    return make<SeqExpr>(std::vector<Ref<BindingBlock>>{block}, result, sm);
  };
  auto ok = make<Function>(std::vector<Var>{x}, bodyOf({make<MatchCast>(y, x, sm)}, y), sm);
  IRModule good = makeModule({{"main", ok}});
  EXPECT_TRUE(checkWellFormed(good).empty()) << allIssues(checkWellFormed(good));
  // With no match_cast binding m, the return type's m is still undefined.
  Var w = makeVar("w", tensorSInfo(DataType::Float32(), 1));
  auto bad = make<Function>(std::vector<Var>{x}, bodyOf({make<VarBinding>(w, x)}, w), sm);
  expectOneIssue(makeModule({{"main", bad}}), "main", {"shape variable 'm'", "not defined"});
}
