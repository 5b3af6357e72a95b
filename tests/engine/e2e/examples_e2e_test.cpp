// Every example module of resources/examples, compiled with the default
// pipeline and checked against the reference evaluator at two values of its
// batch or sequence dimension. The CNN's batch is fixed at 1 in the file; the
// test makes it symbolic by rewriting the text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/support/error.h"
#include "tests/engine/e2e/e2e_util.h"

using namespace unity;
using namespace e2e;

namespace {

std::string readExample(const std::string& name) {
  std::ifstream in(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void replaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
}

void checkExample(const std::string& text, const std::string& dim, std::vector<int64_t> sizes) {
  ir::IRModule m = transform::normalize(text::parseModule(text));
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (int64_t n : sizes) {
    SCOPED_TRACE(dim + "=" + std::to_string(n));
    auto inputs = randomInputs(m, {{dim, n}}, {}, 7);
    auto want = runtime::referenceRun(m, inputs);
    auto got = r.executable->runTensors(inputs);
    EXPECT_TRUE(allClose(got, want, 1e-4, 1e-4));
  }
}

} // namespace

TEST(E2EExamples, EveryExampleFileHasACase) {
  std::set<std::string> tested = {"mlp.uir", "cnn.uir", "transformer.uir", "call_tir.uir"};
  for (auto& entry : std::filesystem::directory_iterator(std::string(LOWERSCOPE_SOURCE_DIR) +
                                                         "/resources/examples"))
    if (entry.path().extension() == ".uir") {
      EXPECT_TRUE(tested.count(entry.path().filename().string())) << entry.path();
    }
}

TEST(E2EExamples, MLPAtTwoBatchSizes) { checkExample(readExample("mlp.uir"), "n", {1, 5}); }

TEST(E2EExamples, TransformerAtSeveralSequenceLengths) {
  // 1, 7 and 129 are not multiples of any tile; 64 is one of 4 vectors.
  checkExample(readExample("transformer.uir"), "s", {1, 7, 64, 129});
}

TEST(E2EExamples, CallTIRAtTwoBatchSizes) {
  checkExample(readExample("call_tir.uir"), "n", {2, 5});
}

TEST(E2EExamples, CNNWithASymbolicBatchAtTwoSizes) {
  std::string text = readExample("cnn.uir");
  replaceAll(text, "R.Tensor((1, 3, 32, 32)", "R.Tensor((n, 3, 32, 32)");
  replaceAll(text, "R.shape([1, 32])", "R.shape([n, 32])");
  replaceAll(text, "R.Tensor((1, 10)", "R.Tensor((n, 10)");
  ASSERT_NE(text.find("(n, 3, 32, 32)"), std::string::npos);
  checkExample(text, "n", {1, 2});
}
