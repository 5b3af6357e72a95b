// Scalar operands computed at run time (graph inputs here): Trilu's k,
// CumSum's axis, a window's size, STFT's frame_step / frame_length and
// MelWeightMatrix's counts. Each model is imported and built once and run at
// two values of the scalar, against a hand computation; the backend suite's
// cases of these operators must pass through the dynamic path, without the
// harness fixing the scalar input (input specialization).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/conformance/onnx_conformance.h"
#include "engine/frontend/onnx_importer.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using unity::testing::OnnxModelBuilder;

namespace {

Tensor int64Scalar(int64_t v) {
  Tensor t(DataType::Int64(), {});
  t.setDouble(0, static_cast<double>(v));
  return t;
}

/// Builds the model once (no specialization: every input stays an input).
std::shared_ptr<runtime::Executable> buildOnce(const OnnxModelBuilder& b) {
  ir::IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  EXPECT_TRUE(r.executable);
  return r.executable;
}

} // namespace

TEST(OnnxRuntimeScalars, TriluWithRunTimeKMatchesHandComputation) {
  for (int upper : {0, 1}) {
    OnnxModelBuilder b(14);
    b.input("X", {int64_t(3), int64_t(4)});
    b.input("k", {}, onnx::TensorProto::INT64);
    auto* n = b.node("Trilu", {"X", "k"}, {"Y"}, "tri");
    OnnxModelBuilder::attrInt(n, "upper", upper);
    b.output("Y");
    auto exe = buildOnce(b);
    ASSERT_TRUE(exe);
    std::vector<float> x(12);
    for (int i = 0; i < 12; ++i)
      x[i] = static_cast<float>(i + 1);
    for (int64_t k : {-1, 2}) {
      auto outs = exe->runTensors({Tensor::fromFloats({3, 4}, x), int64Scalar(k)});
      ASSERT_EQ(outs.size(), 1u);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
          bool keep = upper ? j - i >= k : j - i <= k;
          EXPECT_EQ(outs[0].getDouble(i * 4 + j), keep ? x[i * 4 + j] : 0.0)
              << "upper " << upper << " k " << k << " at " << i << "," << j;
        }
    }
  }
}

TEST(OnnxRuntimeScalars, CumSumWithRunTimeAxisMatchesHandComputation) {
  OnnxModelBuilder b(14);
  b.input("X", {int64_t(2), int64_t(3), int64_t(2)});
  b.input("axis", {}, onnx::TensorProto::INT64);
  auto* n = b.node("CumSum", {"X", "axis"}, {"Y"}, "scan");
  OnnxModelBuilder::attrInt(n, "reverse", 1);
  b.output("Y");
  auto exe = buildOnce(b);
  ASSERT_TRUE(exe);
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i)
    x[i] = static_cast<float>((i * 7) % 5 - 2);
  auto at = [&](int i, int j, int l) { return x[(i * 3 + j) * 2 + l]; };
  const int dims[3] = {2, 3, 2};
  for (int64_t axis : {1, -3, 2}) {
    int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    auto outs = exe->runTensors({Tensor::fromFloats({2, 3, 2}, x), int64Scalar(axis)});
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{2, 3, 2}));
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 2; ++l) {
          // Reverse inclusive scan: the sum from this index to the end of the axis.
          int idx[3] = {i, j, l};
          double want = 0;
          for (int s = idx[a]; s < dims[a]; ++s) {
            int t[3] = {i, j, l};
            t[a] = s;
            want += at(t[0], t[1], t[2]);
          }
          EXPECT_EQ(outs[0].getDouble((i * 3 + j) * 2 + l), want)
              << "axis " << axis << " at " << i << "," << j << "," << l;
        }
  }
  // An axis outside [-rank, rank) is refused when the executor reads it.
  EXPECT_ANY_THROW(exe->runTensors({Tensor::fromFloats({2, 3, 2}, x), int64Scalar(3)}));
}

TEST(OnnxRuntimeScalars, WindowWithRunTimeSizeHasThatLength) {
  for (int periodic : {0, 1}) {
    OnnxModelBuilder b(17);
    b.input("size", {}, onnx::TensorProto::INT64);
    auto* n = b.node("BlackmanWindow", {"size"}, {"W"}, "win");
    OnnxModelBuilder::attrInt(n, "periodic", periodic);
    b.output("W");
    auto exe = buildOnce(b);
    ASSERT_TRUE(exe);
    for (int64_t size : {5, 8, 1}) {
      auto outs = exe->runTensors({int64Scalar(size)});
      ASSERT_EQ(outs.size(), 1u);
      ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{size}));
      double d = static_cast<double>(periodic ? size : size - 1);
      for (int64_t i = 0; i < size; ++i) {
        double x = d > 0 ? 2 * std::numbers::pi * static_cast<double>(i) / d : 0.0;
        double want = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
        EXPECT_NEAR(outs[0].getDouble(i), want, 1e-6)
            << "periodic " << periodic << " size " << size << " at " << i;
      }
    }
  }
}

TEST(OnnxRuntimeScalars, StftWithRunTimeStepAndLengthMatchesDirectDft) {
  OnnxModelBuilder b(17);
  b.input("signal", {int64_t(1), int64_t(10), int64_t(1)});
  b.input("step", {}, onnx::TensorProto::INT64);
  b.input("length", {}, onnx::TensorProto::INT64);
  auto* n = b.node("STFT", {"signal", "step", "", "length"}, {"Y"}, "stft");
  OnnxModelBuilder::attrInt(n, "onesided", 1);
  b.output("Y");
  auto exe = buildOnce(b);
  ASSERT_TRUE(exe);
  std::vector<float> s(10);
  for (int i = 0; i < 10; ++i)
    s[i] = static_cast<float>(std::sin(0.7 * i) + 0.1 * i);
  for (auto [step, len] : {std::pair<int64_t, int64_t>{2, 4}, {3, 5}}) {
    auto outs =
        exe->runTensors({Tensor::fromFloats({1, 10, 1}, s), int64Scalar(step), int64Scalar(len)});
    ASSERT_EQ(outs.size(), 1u);
    int64_t frames = (10 - len) / step + 1, bins = len / 2 + 1;
    ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{1, frames, bins, 2}));
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t t = 0; t < len; ++t) {
          double a = 2 * std::numbers::pi * static_cast<double>(t * k) / static_cast<double>(len);
          re += s[f * step + t] * std::cos(a);
          im -= s[f * step + t] * std::sin(a);
        }
        EXPECT_NEAR(outs[0].getDouble((f * bins + k) * 2), re, 1e-4) << f << "," << k;
        EXPECT_NEAR(outs[0].getDouble((f * bins + k) * 2 + 1), im, 1e-4) << f << "," << k;
      }
  }
}

TEST(OnnxRuntimeScalars, MelWeightMatrixWithRunTimeCountsMatchesReferenceFormula) {
  OnnxModelBuilder b(17);
  b.input("bins", {}, onnx::TensorProto::INT64);
  b.input("len", {}, onnx::TensorProto::INT64);
  b.input("rate", {}, onnx::TensorProto::INT64);
  b.input("lo", {});
  b.input("hi", {});
  b.node("MelWeightMatrix", {"bins", "len", "rate", "lo", "hi"}, {"W"}, "mel");
  b.output("W");
  auto exe = buildOnce(b);
  ASSERT_TRUE(exe);
  auto f32 = [](float v) { return Tensor::fromFloats({}, std::vector<float>{v}); };
  for (auto [mels, len] : {std::pair<int64_t, int64_t>{4, 16}, {6, 32}}) {
    auto outs = exe->runTensors(
        {int64Scalar(mels), int64Scalar(len), int64Scalar(8000), f32(0), f32(4000)});
    ASSERT_EQ(outs.size(), 1u);
    int64_t bins = len / 2 + 1;
    ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{bins, mels}));
    // The ONNX reference (op_mel_weight_matrix.py), in double: band edges
    // evenly spaced in mel, mapped to bins floor((len + 1) * hz / rate).
    double loMel = 0, hiMel = 2595 * std::log10(1 + 4000.0 / 700);
    std::vector<int64_t> edge(mels + 2);
    for (int64_t i = 0; i < mels + 2; ++i) {
      double mel = loMel + static_cast<double>(i) * (hiMel - loMel) / static_cast<double>(mels + 2);
      double hz = 700 * (std::pow(10.0, mel / 2595) - 1);
      edge[i] = static_cast<int64_t>(std::floor(static_cast<double>(len + 1) * hz / 8000));
    }
    std::vector<double> want(bins * mels, 0.0);
    for (int64_t i = 0; i < mels; ++i) {
      int64_t l = edge[i], c = edge[i + 1], h = edge[i + 2];
      if (c == l)
        want[c * mels + i] = 1;
      else
        for (int64_t j = l; j <= c; ++j)
          want[j * mels + i] = double(j - l) / double(c - l);
      for (int64_t j = c; j < h; ++j)
        want[j * mels + i] = double(h - j) / double(h - c);
    }
    for (int64_t e = 0; e < bins * mels; ++e)
      EXPECT_NEAR(outs[0].getDouble(e), want[e], 1e-6)
          << "mels " << mels << " len " << len << " at " << e / mels << "," << e % mels;
  }
}

// The backend suite's cases with these scalars as graph inputs, with
// outputs computed by ONNX's reference: they pass without specialization.
TEST(OnnxRuntimeScalars, BackendSuiteCasesPassWithoutSpecialization) {
  const std::string root = "/usr/share/libonnx-testdata/data/node/";
  ASSERT_TRUE(std::filesystem::exists(root)) << root << " is not installed";
  for (const char* name :
       {"test_tril_neg", "test_triu_one_row", "test_triu_square_neg", "test_tril_out_pos",
        "test_cumsum_2d_negative_axis", "test_cumsum_1d_reverse_exclusive", "test_hannwindow",
        "test_hammingwindow_symmetric", "test_stft", "test_stft_with_window",
        "test_melweightmatrix"}) {
    conformance::CaseResult r = conformance::runConformanceCase(root + name);
    EXPECT_EQ(r.status, conformance::CaseStatus::Pass)
        << name << ": " << conformance::caseStatusName(r.status) << ": " << r.detail;
    EXPECT_EQ(r.detail.rfind("specialized:", 0), std::string::npos) << name << ": " << r.detail;
  }
}
