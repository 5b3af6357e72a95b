// Graph-level passes on small text modules: before -> hand-written after,
// compared with structuralEqual. Normalize, CanonicalizeBindings,
// DeadCodeElimination, a small LegalizeOps check, and the recording
// instrument's "changed" flag.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/ir/structural.h"
#include "engine/runtime/reference.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/graph_cleanup.h"
#include "engine/transform/legalize.h"
#include "engine/transform/normalize.h"
#include "tests/engine/e2e/e2e_util.h"

using namespace unity;
using namespace unity::ir;

namespace {

IRModule parse(const std::string& text) { return text::parseModule(text); }

const Function* mainOf(const IRModule& m) { return as<Function>(m->lookup("main")); }

std::vector<Binding> bindingsOf(const IRModule& m) {
  std::vector<Binding> out;
  for (auto& blk : as<SeqExpr>(mainOf(m)->body)->blocks)
    for (auto& b : blk->bindings)
      out.push_back(b);
  return out;
}

::testing::AssertionResult equalModules(const IRModule& got, const IRModule& want) {
  if (structuralEqual(got, want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got:\n"
                                       << text::printModule(got) << "\nexpected:\n"
                                       << text::printModule(want);
}

} // namespace

TEST(PassNormalize, FillsStructInfoOfEveryBindingAndTheReturn) {
  IRModule before = parse(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32"), w: R.Tensor((3, 4), "float32")):
    with R.dataflow():
        d = R.nn.dense(x, w)
        t = R.permute_dims(d)
        s = R.sum(t, axis=[1], keepdims=True)
        p = (s, d)
        q = p[1]
        gv = R.reshape(q, R.shape([-1]))
        R.output(gv)
    return gv
)");
  // Written by hand from each operator's documented semantics.
  IRModule expected = parse(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32"), w: R.Tensor((3, 4), "float32")) -> R.Tensor((n * 3,), "float32"):
    with R.dataflow():
        d: R.Tensor((n, 3), "float32") = R.nn.dense(x, w)
        t: R.Tensor((3, n), "float32") = R.permute_dims(d)
        s: R.Tensor((3, 1), "float32") = R.sum(t, axis=[1], keepdims=True)
        p: R.Tuple(R.Tensor((3, 1), "float32"), R.Tensor((n, 3), "float32")) = (s, d)
        q: R.Tensor((n, 3), "float32") = p[1]
        gv: R.Tensor((n * 3,), "float32") = R.reshape(q, R.shape([-1]))
        R.output(gv)
    return gv
)");
  IRModule after = transform::normalize(before);
  auto got = bindingsOf(after), want = bindingsOf(expected);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(
        structuralEqual(tupleSInfo({mainOf(after)->params[0]->sinfo, got[i]->var->sinfo}),
                        tupleSInfo({mainOf(expected)->params[0]->sinfo, want[i]->var->sinfo})))
        << "binding " << got[i]->var->name << ": " << text::printStructInfo(got[i]->var->sinfo);
  EXPECT_TRUE(structuralEqual(
      tupleSInfo({mainOf(after)->params[0]->sinfo, mainOf(after)->retSInfo}),
      tupleSInfo({mainOf(expected)->params[0]->sinfo, mainOf(expected)->retSInfo})));
  // The whole module equals the annotated text once that is normalized too,
  // and normalizing again changes nothing (the very same module).
  EXPECT_TRUE(equalModules(after, transform::normalize(expected)));
  EXPECT_TRUE(sameNode(transform::normalize(after), after));
}

TEST(PassNormalize, ACallOfAGlobalFunctionBindsTheCalleesShapeVariables) {
  // sub is written over m; main calls it with (n, 16) and (8, 3): the
  // results are (n * 2, 16) and (8, 3), not the callee's m.
  const char* text = R"(
@R.function
def sub(a: R.Tensor((m, 16), "float32"), b: R.Tensor((k, 3), "float32")) -> R.Tuple(R.Tensor((m * 2, 16), "float32"), R.Tensor((k, 3), "float32")):
    with R.dataflow():
        c = R.concat((a, a), axis=0)
        gv = (c, b)
        R.output(gv)
    return gv

@R.function
def main(x: R.Tensor((n, 16), "float32"), y: R.Tensor((8, 3), "float32")):
    with R.dataflow():
        r = sub(x, y)
        gv = r[0]
        R.output(gv)
    return gv
)";
  IRModule after = transform::normalize(parse(text));
  auto* main = as<Function>(after->lookup("main"));
  ASSERT_TRUE(main);
  auto n = cast<PrimVar>(as<TensorSInfo>(main->params[0]->sinfo)->shape->at(0));
  StructInfo want = tupleSInfo({tensorSInfo(DataType::Float32(), {n * 2, intImm(16)}),
                                tensorSInfo(DataType::Float32(), std::vector<int64_t>{8, 3})});
  auto bs = bindingsOf(after);
  ASSERT_FALSE(bs.empty());
  EXPECT_TRUE(structuralEqual(tupleSInfo({main->params[0]->sinfo, bs[0]->var->sinfo}),
                              tupleSInfo({main->params[0]->sinfo, want})))
      << text::printStructInfo(bs[0]->var->sinfo);

  // A constant dimension that contradicts the parameter is refused.
  std::string bad = text;
  bad.replace(bad.find("y: R.Tensor((8, 3)"), 18, "y: R.Tensor((8, 4)");
  try {
    transform::normalize(parse(bad));
    FAIL() << "(8, 4) passed for (k, 3)";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("@sub"), std::string::npos) << e.what();
  }
}

TEST(PassCanonicalizeBindings, RemovesAliasesAndFoldsLiteralTupleItems) {
  IRModule before = transform::normalize(parse(R"(
@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        b = a
        t = (b, x)
        c = t[0]
        d = R.add(c, b)
        gv = d
        R.output(gv)
    return gv
)"));
  // b and c are aliases of a; gv = d exports the dataflow variable d, so it
  // stays; the tuple is now unused (dead code is not this pass's job).
  IRModule expected = transform::normalize(parse(R"(
@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        t = (a, x)
        d = R.add(a, a)
        gv = d
        R.output(gv)
    return gv
)"));
  EXPECT_TRUE(equalModules(transform::canonicalizeBindings(before), expected));
}

TEST(PassDeadCodeElimination, RemovesUnusedBindingsKeepsMatchCastAndDropsUnreachableHelpers) {
  IRModule before = transform::normalize(parse(R"(
@R.function
def helper(a: R.Tensor((4,), "float32")):
    r = R.exp(a)
    return r

@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        unused = R.sin(a)
        m = R.match_cast(x, R.Tensor((k,), "float32"))
        gv = R.add(a, x)
        R.output(gv)
    return gv
)"));
  // helper is an entry function (not primitive): it stays.
  IRModule expected = transform::normalize(parse(R"(
@R.function
def helper(a: R.Tensor((4,), "float32")):
    r = R.exp(a)
    return r

@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        m = R.match_cast(x, R.Tensor((k,), "float32"))
        gv = R.add(a, x)
        R.output(gv)
    return gv
)"));
  IRModule after = transform::deadCodeElimination(before);
  EXPECT_TRUE(equalModules(after, expected));
  EXPECT_TRUE(sameNode(transform::deadCodeElimination(after), after));
}

TEST(PassLegalizeOps, AddBecomesCallTIROfAGeneratedFunctionThatComputesTheSame) {
  IRModule before = transform::normalize(parse(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((4,), "float32")):
    with R.dataflow():
        gv = R.add(x, y)
        R.output(gv)
    return gv
)"));
  IRModule after = transform::legalize(before);
  // The tensor function is named after the operator.
  auto prim = cast<PrimFunc>(after->lookup("add"));
  ASSERT_TRUE(prim);
  IRModule expectedMain = transform::normalize(parse(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor((4,), "float32")):
    with R.dataflow():
        gv = R.call_tir(R.global_var("add"), (x, y), out_sinfo=R.Tensor((n, 4), "float32"))
        R.output(gv)
    return gv
)"));
  EXPECT_TRUE(structuralEqual(after->lookup("main"), expectedMain->lookup("main")))
      << text::printModule(after);
  // Same numbers before and after (the call_tir runs in the te interpreter).
  for (int64_t n : {1, 3}) {
    auto inputs = e2e::randomInputs(before, {{"n", n}}, {}, 11);
    EXPECT_TRUE(
        e2e::allClose(runtime::referenceRun(after, inputs), runtime::referenceRun(before, inputs)));
  }
}

TEST(PassRecording, APassThatChangesNothingIsRecordedAsUnchanged) {
  IRModule m = parse(R"(
@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        gv = R.nn.relu(x)
        R.output(gv)
    return gv
)");
  BuildOptions opts;
  opts.passes = {"Normalize", "Normalize", "DeadCodeElimination", "CanonicalizeBindings"};
  opts.codegen = false;
  BuildResult r = build(m, opts);
  ASSERT_EQ(r.records.size(), 5u); // the enclosing sequence + 4
  EXPECT_TRUE(r.records[1].changed) << "the first Normalize fills struct info";
  for (int i : {2, 3, 4}) {
    SCOPED_TRACE(r.records[i].name);
    EXPECT_TRUE(r.records[i].finished);
    EXPECT_FALSE(r.records[i].changed);
    EXPECT_TRUE(sameNode(r.records[i].before, r.records[i].after));
  }
}
