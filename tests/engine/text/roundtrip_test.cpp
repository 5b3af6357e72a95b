// Round trip of the text format: parse(print(m)) is structurally equal to m
// and prints identically, for random modules of both levels and for every
// example file shipped in resources/examples.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
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
