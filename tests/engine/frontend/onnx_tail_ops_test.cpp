// Converters of onnx_ops_quant.cpp, onnx_ops_sampling.cpp, onnx_ops_signal.cpp
// and onnx_ops_text.cpp beyond what the backend suite's node cases (in
// tests/onnx/expected_pass.txt) exercise: GridSample combinations checked
// against ONNX Runtime (tests/onnx/gridsample/), per-row/per-column zero
// points, a symbolic batch for ReverseSequence, TfIdfVectorizer's IDF and
// TFIDF modes, and the refusals. Expected values are hand-computed here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/build.h"
#include "engine/conformance/onnx_conformance.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using unity::testing::OnnxModelBuilder;

namespace {

std::vector<Tensor> importAndRun(const OnnxModelBuilder& b, const std::vector<Tensor>& inputs) {
  BuildResult r = build(frontend::importOnnxBytes(b.bytes()));
  if (!r.executable)
    throw Error("no executable");
  return r.executable->runTensors(inputs);
}

template <class T> Tensor tensor(DataType dt, std::vector<int64_t> shape, const std::vector<T>& v) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    static_cast<T*>(t.mutableData())[i] = v[i];
  return t;
}

std::string onlyReason(const OnnxModelBuilder& b) {
  try {
    frontend::importOnnxBytes(b.bytes());
  } catch (const frontend::UnsupportedModelError& e) {
    EXPECT_EQ(e.nodes().size(), 1u) << e.what();
    return e.nodes().empty() ? std::string() : e.nodes()[0].reason;
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

} // namespace

TEST(OnnxTailOps, GridSampleMatchesOnnxRuntimeOnPaddingModesTheSuiteLacks) {
  std::filesystem::path dir =
      std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests/onnx/gridsample";
  int cases = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_directory())
      continue;
    ++cases;
    conformance::CaseResult r = conformance::runConformanceCase(e.path().string());
    EXPECT_EQ(r.status, conformance::CaseStatus::Pass)
        << e.path().filename() << ": " << conformance::caseStatusName(r.status) << ": " << r.detail;
  }
  EXPECT_EQ(cases, 3) << "tests/onnx/gridsample/ should hold the 3 cases of make_cases.py";
}

// A's zero point per row, B's per column; uint8 A and int8 B; exact int32.
TEST(OnnxTailOps, MatMulIntegerWithPerRowAndPerColumnZeroPointsIsExact) {
  OnnxModelBuilder b(10);
  b.input("A", {3, 4}, onnx::TensorProto::UINT8);
  b.input("B", {4, 2}, onnx::TensorProto::INT8);
  b.input("az", {3}, onnx::TensorProto::UINT8);
  b.input("bz", {2}, onnx::TensorProto::INT8);
  b.node("MatMulInteger", {"A", "B", "az", "bz"}, {"Y"});
  b.output("Y");
  std::vector<uint8_t> a{255, 0, 7, 128, 1, 2, 3, 4, 200, 100, 50, 25};
  std::vector<int8_t> bm{-128, 127, 5, -5, 0, 1, 64, -64};
  std::vector<uint8_t> az{128, 0, 10};
  std::vector<int8_t> bz{-1, 3};
  auto out =
      importAndRun(b, {tensor(DataType::UInt(8), {3, 4}, a), tensor(DataType::Int(8), {4, 2}, bm),
                       tensor(DataType::UInt(8), {3}, az), tensor(DataType::Int(8), {2}, bz)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype(), DataType::Int32());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      int32_t want = 0;
      for (int k = 0; k < 4; ++k)
        want += (int32_t(a[i * 4 + k]) - az[i]) * (int32_t(bm[k * 2 + j]) - bz[j]);
      EXPECT_EQ(out[0].dataAs<int32_t>()[i * 2 + j], want) << i << "," << j;
    }
}

// Time axis 0, batch axis 1 of a (T, N, 2) input with N symbolic: each
// batch entry's first len[b] steps are reversed, the rest kept.
TEST(OnnxTailOps, ReverseSequenceWithASymbolicBatchReversesEachPrefix) {
  OnnxModelBuilder b(10);
  b.input("X", {4, std::string("N"), 2});
  b.input("lens", {std::string("N")}, onnx::TensorProto::INT64);
  auto* n = b.node("ReverseSequence", {"X", "lens"}, {"Y"});
  OnnxModelBuilder::attrInt(n, "time_axis", 0);
  OnnxModelBuilder::attrInt(n, "batch_axis", 1);
  b.output("Y");
  const int64_t T = 4, B = 3, K = 2;
  std::vector<float> x(T * B * K);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i);
  std::vector<int64_t> lens{4, 1, 3};
  auto out =
      importAndRun(b, {Tensor::fromFloats({T, B, K}, x), tensor(DataType::Int64(), {B}, lens)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{T, B, K}));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t bb = 0; bb < B; ++bb)
      for (int64_t k = 0; k < K; ++k) {
        int64_t src = t < lens[bb] ? lens[bb] - 1 - t : t;
        EXPECT_EQ(out[0].dataAs<float>()[(t * B + bb) * K + k], x[(src * B + bb) * K + k])
            << t << "," << bb << "," << k;
      }
}

// Tokens 1 2 1 3 1 2: unigram 1 three times, 2 twice, bigram (1, 2) twice.
TEST(OnnxTailOps, TfIdfVectorizerIdfAndTfidfWeighTheCounts) {
  for (const char* mode : {"IDF", "TFIDF"}) {
    OnnxModelBuilder b(9);
    b.input("X", {6}, onnx::TensorProto::INT64);
    auto* n = b.node("TfIdfVectorizer", {"X"}, {"Y"});
    OnnxModelBuilder::attrString(n, "mode", mode);
    OnnxModelBuilder::attrInt(n, "min_gram_length", 1);
    OnnxModelBuilder::attrInt(n, "max_gram_length", 2);
    OnnxModelBuilder::attrInt(n, "max_skip_count", 0);
    OnnxModelBuilder::attrInts(n, "ngram_counts", {0, 2});
    OnnxModelBuilder::attrInts(n, "ngram_indexes", {0, 1, 2});
    OnnxModelBuilder::attrInts(n, "pool_int64s", {1, 2, 1, 2});
    auto* w = n->add_attribute();
    w->set_name("weights");
    w->set_type(onnx::AttributeProto::FLOATS);
    for (float v : {0.5f, 2.0f, 3.0f})
      w->add_floats(v);
    b.output("Y");
    auto out =
        importAndRun(b, {tensor(DataType::Int64(), {6}, std::vector<int64_t>{1, 2, 1, 3, 1, 2})});
    std::vector<float> want = std::string(mode) == "IDF" ? std::vector<float>{0.5f, 2.0f, 3.0f}
                                                         : std::vector<float>{1.5f, 4.0f, 6.0f};
    ASSERT_EQ(out[0].numel(), 3) << mode;
    for (int i = 0; i < 3; ++i)
      EXPECT_FLOAT_EQ(out[0].dataAs<float>()[i], want[i]) << mode << " " << i;
  }
}

TEST(OnnxTailOps, RefusalsNameTheCause) {
  {
    OnnxModelBuilder b(11);
    b.input("X", {4, 4});
    b.node("Det", {"X"}, {"Y"});
    b.output("Y");
    std::string r = onlyReason(b);
    EXPECT_NE(r.find("4x4 matrices needs a factorization"), std::string::npos) << r;
  }
  {
    OnnxModelBuilder b(16);
    b.input("X", {1, 1, std::string("H"), 4});
    b.input("G", {1, 2, 2, 2});
    b.node("GridSample", {"X", "G"}, {"Y"});
    b.output("Y");
    std::string r = onlyReason(b);
    EXPECT_NE(r.find("static image size"), std::string::npos) << r;
  }
  {
    OnnxModelBuilder b(16);
    b.input("X", {1, 1, 4, 4});
    b.input("rois", {1, 4});
    b.input("bi", {1}, onnx::TensorProto::INT64);
    b.node("RoiAlign", {"X", "rois", "bi"}, {"Y"});
    b.output("Y");
    std::string r = onlyReason(b);
    EXPECT_NE(r.find("sampling_ratio=0 (adaptive)"), std::string::npos) << r;
  }
  {
    OnnxModelBuilder b(17);
    b.input("X", {1, 8, 2});
    auto* n = b.node("DFT", {"X"}, {"Y"});
    OnnxModelBuilder::attrInt(n, "onesided", 1);
    b.output("Y");
    std::string r = onlyReason(b);
    EXPECT_NE(r.find("onesided=1 needs a real input"), std::string::npos) << r;
  }
}
