// AssignPrimFuncTargets: each tensor function ends up on exactly one
// sub-target (the one of its callers, copied when several share it), and the
// module it returns stays consistent (calls renamed to the copies).
#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/transform/partition.h"
#include "engine/transform/registry.h"

using namespace unity;
using namespace unity::ir;

namespace {

/// main (default sub-target) and main_compat (on "compat") both call relu;
/// unused is called by nobody.
const char* kShared = R"(
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        a = R.call_tir(relu, (x,), out_sinfo=R.Tensor((4,), "float32"))
        gv: R.Tensor((4,), "float32") = main_compat(a)
        R.output(gv)
    return gv

@R.function
def main_compat(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.func_attr({"global_symbol": "main_compat", "target": "compat"})
    with R.dataflow():
        gv: R.Tensor((4,), "float32") = R.call_tir(relu, (y,), out_sinfo=R.Tensor((4,), "float32"))
        R.output(gv)
    return gv

@T.prim_func
def relu(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "relu", "num_outputs": 1})
    for i in T.serial(4):
        C[i] = T.max(A[i], T.float32(0.0))

@T.prim_func
def unused(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "unused", "num_outputs": 1})
    for i in T.serial(4):
        C[i] = A[i]
)";

IRModule withTarget(IRModule m, const std::string& target) {
  return withAttrs(m, m->attrs.with("target", target));
}

std::string targetOf(const IRModule& m, const std::string& fn) {
  auto* pf = as<PrimFunc>(m->lookup(fn));
  return pf ? pf->attrs.getString("target") : "<no PrimFunc " + fn + ">";
}

/// The PrimFuncs a graph function calls (by name).
std::vector<std::string> callees(const IRModule& m, const std::string& fn) {
  std::vector<std::string> out;
  postOrderVisit(as<Function>(m->lookup(fn))->body, [&](const Expr& e) {
    if (auto* gv = as<GlobalVar>(e); gv && isa<PrimFunc>(m->lookup(gv->name)))
      out.push_back(gv->name);
  });
  return out;
}

} // namespace

TEST(AssignPrimFuncTargets, ASharedFunctionIsCopiedForTheSecondSubTarget) {
  IRModule m = withTarget(text::parseModule(kShared), "cpu: llvm; compat: c");
  IRModule out = transform::assignPrimFuncTargets(m);
  // The default sub-target keeps the original; compat gets a copy named
  // after the function and the sub-target.
  EXPECT_EQ(targetOf(out, "relu"), "cpu");
  ASSERT_NE(out->lookup("relu_compat"), nullptr);
  EXPECT_EQ(targetOf(out, "relu_compat"), "compat");
  EXPECT_EQ(as<PrimFunc>(out->lookup("relu_compat"))->attrs.getString("global_symbol"),
            "relu_compat");
  // Each graph function calls the copy of its own sub-target.
  EXPECT_EQ(callees(out, "main"), std::vector<std::string>{"relu"});
  EXPECT_EQ(callees(out, "main_compat"), std::vector<std::string>{"relu_compat"});
  // Nobody calls `unused`: the default sub-target takes it.
  EXPECT_EQ(targetOf(out, "unused"), "cpu");
  // Running it again changes nothing: every function already has its target.
  EXPECT_TRUE(structuralEqual(transform::assignPrimFuncTargets(out), out));
}

TEST(AssignPrimFuncTargets, WithoutTheDefaultTheFirstSubTargetByNameKeepsTheOriginal) {
  // Both callers on non-default sub-targets: "b_part" < "compat".
  IRModule m = text::parseModule(kShared);
  auto* main = as<Function>(m->lookup("main"));
  m = withFunction(m, "main",
                   make<Function>(main->params, main->body, main->retSInfo,
                                  main->attrs.with("target", "b_part"), main->pure));
  IRModule out = transform::assignPrimFuncTargets(withTarget(m, "cpu: llvm; compat: c; b_part: c"));
  EXPECT_EQ(targetOf(out, "relu"), "b_part");
  EXPECT_EQ(targetOf(out, "relu_compat"), "compat");
  EXPECT_EQ(callees(out, "main_compat"), std::vector<std::string>{"relu_compat"});
}

TEST(AssignPrimFuncTargets, TheDefaultSubTargetCanBeAnyOne) {
  IRModule m = withTarget(text::parseModule(kShared), "cpu: llvm; compat: c; default=compat");
  IRModule out = transform::assignPrimFuncTargets(m);
  // main has no "target": it belongs to the default, compat, as main_compat
  // does, so relu is not shared and is not copied.
  EXPECT_EQ(targetOf(out, "relu"), "compat");
  EXPECT_EQ(out->functions.size(), m->functions.size());
}

TEST(AssignPrimFuncTargets, KeepsAnOwnTargetAndRejectsAnUnknownOne) {
  IRModule m = withTarget(text::parseModule(kShared), "cpu: llvm; compat: c");
  auto* unused = as<PrimFunc>(m->lookup("unused"));
  IRModule own = withFunction(
      m, "unused",
      make<PrimFunc>(unused->params, unused->body, unused->attrs.with("target", "compat")));
  EXPECT_EQ(targetOf(transform::assignPrimFuncTargets(own), "unused"), "compat");

  IRModule bad = withFunction(
      m, "unused",
      make<PrimFunc>(unused->params, unused->body, unused->attrs.with("target", "gpu")));
  try {
    transform::assignPrimFuncTargets(bad);
    FAIL() << "an unknown sub-target was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("no sub-target 'gpu'"), std::string::npos) << e.message();
  }
}

TEST(AssignPrimFuncTargets, AModuleWithoutATargetIsLeftAlone) {
  IRModule m = text::parseModule(kShared);
  EXPECT_TRUE(transform::assignPrimFuncTargets(m).same(m));
}

TEST(AssignPrimFuncTargets, IsARegisteredPass) {
  const transform::PassEntry* e = transform::findPass("AssignPrimFuncTargets");
  ASSERT_NE(e, nullptr);
  IRModule m = withTarget(text::parseModule(kShared), "cpu: llvm; compat: c");
  IRModule out = (*e->create())(m);
  EXPECT_EQ(targetOf(out, "relu_compat"), "compat");
}
