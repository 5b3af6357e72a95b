// Round trip of the text format: parse(print(m)) is structurally equal to m
// and prints identically, for random modules of both levels and for every
// example file shipped in resources/examples.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/ir/structural.h"
#include "engine/ir/well_formed.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/normalize.h"
#include "random_module.h"

using namespace unity;
using namespace unity::ir;

namespace {

void expectRoundTrip(const IRModule& m, const std::string& what) {
  std::string text = text::printModule(m);
  IRModule back;
  try {
    back = text::parseModule(text, what);
  } catch (const Error& e) {
    FAIL() << what << ": printed text does not parse:\n" << e.what() << "\n--- text ---\n" << text;
  }
  EXPECT_TRUE(structuralEqual(m, back)) << what << ": not structurally equal\n--- text ---\n"
                                        << text;
  EXPECT_EQ(text::printModule(back), text) << what;
}

} // namespace

TEST(TextRoundTrip, RandomModules) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE(seed);
    expectRoundTrip(text::testing::randomModule(seed), "random_" + std::to_string(seed));
    if (HasFailure())
      break; // one dump is enough to debug
  }
}

TEST(TextRoundTrip, RandomModulesCoverBothLevels) {
  int graph = 0, prim = 0, metadata = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    IRModule m = text::testing::randomModule(seed);
    for (auto& [name, f] : m->functions) {
      graph += isa<Function>(f);
      prim += isa<PrimFunc>(f);
    }
    metadata += text::printModule(m).find("# metadata") != std::string::npos;
  }
  EXPECT_GT(graph, 300);
  EXPECT_GT(prim, 200);
  EXPECT_GT(metadata, 10);
}

TEST(TextRoundTrip, ExampleFiles) {
  std::filesystem::path dir =
      std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "resources" / "examples";
  int count = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".uir")
      continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    IRModule m = text::parseFile(entry.path().string());
    expectRoundTrip(m, entry.path().filename().string());
  }
  EXPECT_GE(count, 4);
}

TEST(TextExamples, NormalizeWellFormedAndReprintStably) {
  std::filesystem::path dir =
      std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "resources" / "examples";
  for (const char* name : {"mlp.uir", "cnn.uir", "transformer.uir", "call_tir.uir"}) {
    SCOPED_TRACE(name);
    IRModule parsed = text::parseFile((dir / name).string());
    IRModule normalized = transform::normalize(parsed);
    auto issues = checkWellFormed(normalized);
    for (auto& issue : issues)
      ADD_FAILURE() << issueStr(issue);
    // Printing a normalized module keeps the deduced struct info of every
    // bound variable; normalizing what it parses back gives the same module.
    IRModule again = transform::normalize(text::parseModule(text::printModule(normalized), name));
    EXPECT_TRUE(structuralEqual(normalized, again));
  }
}

TEST(TextExamples, ShapeVariablesAreSharedWithinAFunction) {
  IRModule m = text::parseModule(R"(
@R.function
def main(x: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
    y: R.Tensor((n, 4), "float32") = R.nn.relu(x)
    return y
)");
  auto* f = as<Function>(m->lookup("main"));
  ASSERT_NE(f, nullptr);
  auto* px = as<TensorSInfo>(f->params[0]->sinfo);
  auto* ret = as<TensorSInfo>(f->retSInfo);
  ASSERT_TRUE(px && ret);
  EXPECT_TRUE(sameNode((*px->shape)[0], (*ret->shape)[0]));
  auto* seq = as<SeqExpr>(f->body);
  ASSERT_NE(seq, nullptr);
  auto& binding = seq->blocks.at(0)->bindings.at(0);
  EXPECT_FALSE(binding->var->isDataflow());
  auto* call = as<Call>(binding->value);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->sinfo, nullptr); // nothing deduced by the parser
}

TEST(TextExamples, OriginCommentsAndLocationsLandInTheSpan) {
  IRModule m =
      text::parseModule("@R.function\ndef main(x):\n    with R.dataflow():\n"
                        "        y = R.nn.relu(x)  # @origin(\"Relu_3:Relu\", \"Add_1:Add\")\n"
                        "        R.output(y)\n    return y\n",
                        "o.uir");
  auto* seq = as<SeqExpr>(as<Function>(m->lookup("main"))->body);
  auto& b = seq->blocks.at(0)->bindings.at(0);
  EXPECT_EQ(b->span.origins, (std::vector<std::string>{"Relu_3:Relu", "Add_1:Add"}));
  EXPECT_EQ(b->span.file, "o.uir");
  EXPECT_EQ(b->span.line, 4);
  EXPECT_EQ(b->span.column, 9);
  EXPECT_FALSE(b->var->isDataflow()); // listed in R.output
}
