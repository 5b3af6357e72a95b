// Operands that exporters usually make constants but ONNX allows to be
// computed at run time: Slice's axes and steps, Split's sizes, Pad's pads
// and constant value, MaxUnpool's output_shape. Each model is built once and
// run at two or more values of the run-time operand; the expected outputs
// are computed by hand here (numpy's slicing and padding rules).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/conformance/onnx_conformance.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"
#include "tests/error_of.h"

using namespace unity;
using unity::testing::errorOf;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

Tensor ramp(std::vector<int64_t> shape) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, double(i) * 0.5 - 3.0);
  return t;
}

Tensor ints(const std::vector<int64_t>& v) {
  Tensor t(DataType::Int64(), {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(int64_t(i), double(v[i]));
  return t;
}

/// The indices Python's slice(start, end, step) picks from n values.
std::vector<int64_t> pySlice(int64_t start, int64_t end, int64_t step, int64_t n) {
  auto norm = [&](int64_t v) {
    if (v < 0)
      v += n;
    return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
  };
  std::vector<int64_t> out;
  for (int64_t i = norm(start), e = norm(end); step > 0 ? i < e : i > e; i += step)
    out.push_back(i);
  return out;
}

} // namespace

TEST(OnnxRunTimeOperands, SliceWithAxesAndStepsReadAtRunTime) {
  // x[...] of a (4, 5, 6) tensor with starts, ends, axes and steps all graph
  // inputs: one build, several axes and step choices (negative axes and
  // steps, out-of-range bounds, a dim left whole).
  OnnxModelBuilder b;
  b.input("x", {int64_t(4), int64_t(5), int64_t(6)});
  for (const char* n : {"starts", "ends", "axes", "steps"})
    b.input(n, {int64_t(2)}, onnx::TensorProto::INT64);
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  b.output("y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = ramp({4, 5, 6});
  const std::array<int64_t, 3> dims{4, 5, 6};
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  for (const Case& k :
       {Case{{0, 1}, {3, 5}, {0, 2}, {1, 2}}, Case{{-1, 100}, {-100, 1}, {-1, 1}, {-2, -3}},
        Case{{1, 0}, {2, 9}, {1, 0}, {1, 3}}, Case{{2, 4}, {2, 1}, {2, -2}, {1, 1}}}) {
    std::array<std::vector<int64_t>, 3> pick;
    for (int d = 0; d < 3; ++d)
      pick[d] = pySlice(0, dims[d], 1, dims[d]);
    for (size_t j = 0; j < 2; ++j) {
      int64_t a = k.axes[j] < 0 ? k.axes[j] + 3 : k.axes[j];
      pick[a] = pySlice(k.starts[j], k.ends[j], k.steps[j], dims[a]);
    }
    auto y =
        r.executable->runTensors({x, ints(k.starts), ints(k.ends), ints(k.axes), ints(k.steps)});
    ASSERT_EQ(y.size(), 1u);
    std::vector<int64_t> want{int64_t(pick[0].size()), int64_t(pick[1].size()),
                              int64_t(pick[2].size())};
    ASSERT_EQ(y[0].shape(), want);
    int64_t o = 0;
    for (int64_t i : pick[0])
      for (int64_t j : pick[1])
        for (int64_t l : pick[2])
          EXPECT_EQ(y[0].getDouble(o++), x.getDouble((i * 5 + j) * 6 + l));
  }
  // A step of 0, an axis out of range or named twice is refused at run time.
  for (const Case& k : {Case{{0, 0}, {2, 2}, {0, 1}, {1, 0}}, Case{{0, 0}, {2, 2}, {0, 3}, {1, 1}},
                        Case{{0, 0}, {2, 2}, {1, -2}, {1, 1}}})
    EXPECT_NE(
        errorOf([&] {
          r.executable->runTensors({x, ints(k.starts), ints(k.ends), ints(k.axes), ints(k.steps)});
        })
            .find("Slice's axes must be distinct and in [-3, 3) and its steps nonzero in function "
                  "'main' (from Slice_0:Slice)"),
        std::string::npos);
}

TEST(OnnxRunTimeOperands, SplitWithSizesReadAtRunTime) {
  // Split of a (2, 7) tensor along axis 1 into three parts whose lengths
  // are a graph input: one build, several length choices (an empty part
  // included); lengths that do not add up to 7 are refused at run time.
  OnnxModelBuilder b;
  b.input("x", {int64_t(2), int64_t(7)});
  b.input("split", {int64_t(3)}, onnx::TensorProto::INT64);
  auto* n = b.node("Split", {"x", "split"}, {"a", "b", "c"});
  OnnxModelBuilder::attrInt(n, "axis", 1);
  for (const char* o : {"a", "b", "c"})
    b.output(o);
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = ramp({2, 7});
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{2, 0, 5}, {3, 3, 1}, {0, 7, 0}}) {
    auto y = r.executable->runTensors({x, ints(sizes)});
    ASSERT_EQ(y.size(), 3u);
    int64_t at = 0;
    for (size_t p = 0; p < 3; ++p) {
      ASSERT_EQ(y[p].shape(), (std::vector<int64_t>{2, sizes[p]}));
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < sizes[p]; ++j)
          EXPECT_EQ(y[p].getDouble(i * sizes[p] + j), x.getDouble(i * 7 + at + j));
      at += sizes[p];
    }
  }
  EXPECT_NE(errorOf([&] {
              r.executable->runTensors({x, ints({2, 2, 2})});
            }).find("Split's sizes must be non-negative and add up to the extent 7 of axis 1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              r.executable->runTensors({x, ints({4, -1, 4})});
            }).find("Split's sizes must be non-negative and add up to the extent 7 of axis 1"),
            std::string::npos);
}

TEST(OnnxRunTimeOperands, ConstantPadWithPadsAndValueReadAtRunTime) {
  // Pad (mode constant) of a (2, 3) tensor: pads and the value are graph
  // inputs; one build, two choices of both.
  OnnxModelBuilder b;
  b.input("x", {int64_t(2), int64_t(3)});
  b.input("pads", {int64_t(4)}, onnx::TensorProto::INT64);
  b.input("value", {});
  b.node("Pad", {"x", "pads", "value"}, {"y"});
  b.output("y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = ramp({2, 3});
  for (auto [pads, value] :
       {std::pair<std::vector<int64_t>, double>{{1, 0, 0, 2}, 7.0}, {{0, 2, 1, 0}, -1.5}}) {
    Tensor v(DataType::Float32(), {});
    v.setDouble(0, value);
    auto y = r.executable->runTensors({x, ints(pads), v});
    ASSERT_EQ(y.size(), 1u);
    int64_t rows = 2 + pads[0] + pads[2], cols = 3 + pads[1] + pads[3];
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{rows, cols}));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t si = i - pads[0], sj = j - pads[1];
        bool inside = si >= 0 && si < 2 && sj >= 0 && sj < 3;
        EXPECT_EQ(y[0].getDouble(i * cols + j), inside ? x.getDouble(si * 3 + sj) : value);
      }
  }
}

TEST(OnnxRunTimeOperands, EdgeAndReflectPadWithPadsReadAtRunTime) {
  // Pad (modes edge and reflect) of a (3, 4) tensor with pads a graph input:
  // one build per mode, several pads (reflect pads wider than the axis
  // reflect again, as numpy's pad).
  for (std::string mode : {"edge", "reflect"}) {
    OnnxModelBuilder b;
    b.input("x", {int64_t(3), int64_t(4)});
    b.input("pads", {int64_t(4)}, onnx::TensorProto::INT64);
    auto* n = b.node("Pad", {"x", "pads"}, {"y"});
    OnnxModelBuilder::attrString(n, "mode", mode);
    b.output("y");
    IRModule m = frontend::importOnnxBytes(b.bytes());
    BuildResult r = build(m);
    ASSERT_TRUE(r.executable);
    Tensor x = ramp({3, 4});
    // The source index of output position i padded by `before`, numpy's rule.
    auto source = [&](int64_t i, int64_t before, int64_t n) {
      int64_t s = i - before;
      if (mode == "edge")
        return std::clamp<int64_t>(s, 0, n - 1);
      while (s < 0 || s >= n)
        s = s < 0 ? -s : 2 * (n - 1) - s;
      return s;
    };
    for (const std::vector<int64_t>& pads :
         {std::vector<int64_t>{1, 2, 0, 1}, {0, 0, 2, 3}, {4, 5, 3, 6}}) {
      auto y = r.executable->runTensors({x, ints(pads)});
      ASSERT_EQ(y.size(), 1u);
      int64_t rows = 3 + pads[0] + pads[2], cols = 4 + pads[1] + pads[3];
      ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{rows, cols})) << mode;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          EXPECT_EQ(y[0].getDouble(i * cols + j),
                    x.getDouble(source(i, pads[0], 3) * 4 + source(j, pads[1], 4)))
              << mode << " " << i << "," << j;
    }
  }
}

TEST(OnnxRunTimeOperands, MaxUnpoolWithOutputShapeReadAtRunTime) {
  // MaxUnpool (kernel 2, stride 2) of a (1, 1, 2, 2) tensor: the indices
  // address the unpooled (1, 1, 4, 4) shape, and output_shape, a graph
  // input, appends zeros after each dim. A smaller output_shape is refused.
  OnnxModelBuilder b(11);
  b.input("xT", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)});
  b.input("xI", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}, onnx::TensorProto::INT64);
  b.input("output_shape", {int64_t(4)}, onnx::TensorProto::INT64);
  auto* n = b.node("MaxUnpool", {"xT", "xI", "output_shape"}, {"y"});
  OnnxModelBuilder::attrInts(n, "kernel_shape", {2, 2});
  OnnxModelBuilder::attrInts(n, "strides", {2, 2});
  b.output("y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor xT = ramp({1, 1, 2, 2});
  Tensor xI(DataType::Int64(), {1, 1, 2, 2});
  const std::array<int64_t, 4> flat{5, 2, 12, 15}; // rows 1, 0, 3, 3 of the 4x4
  for (int64_t k = 0; k < 4; ++k)
    xI.setDouble(k, double(flat[size_t(k)]));
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{1, 1, 5, 5}, {1, 1, 4, 6}, {1, 2, 4, 4}}) {
    auto y = r.executable->runTensors({xT, xI, ints(shape)});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), shape);
    std::vector<double> want(size_t(y[0].numel()), 0.0);
    for (int64_t k = 0; k < 4; ++k)
      want[size_t(flat[size_t(k)] / 4 * shape[3] + flat[size_t(k)] % 4)] = xT.getDouble(k);
    for (int64_t i = 0; i < y[0].numel(); ++i)
      EXPECT_EQ(y[0].getDouble(i), want[size_t(i)]) << i;
  }
  EXPECT_NE(
      errorOf([&] {
        r.executable->runTensors({xT, xI, ints({1, 1, 3, 5})});
      }).find("MaxUnpool's output_shape must not be smaller than the unpooled shape (1, 1, 4, 4)"),
      std::string::npos);
}

TEST(OnnxRunTimeOperands, DropoutWithRatioAndTrainingModeReadAtRunTime) {
  // Dropout (opset 13) with ratio and training_mode graph inputs: an
  // identity with an all-true mask when not training or when the ratio is 0;
  // training with a non-zero ratio (random) is refused when the graph runs.
  OnnxModelBuilder b;
  b.input("x", {int64_t(2), int64_t(3)});
  b.input("r", {});
  b.input("t", {}, onnx::TensorProto::BOOL);
  b.node("Dropout", {"x", "r", "t"}, {"y", "mask"});
  b.output("y");
  b.output("mask");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = ramp({2, 3});
  auto scalars = [](double ratio, bool training) {
    Tensor rt(DataType::Float32(), {}), tt(DataType::Bool(), {});
    rt.setDouble(0, ratio);
    tt.setDouble(0, training ? 1 : 0);
    return std::pair{rt, tt};
  };
  for (auto [ratio, training] : {std::pair{0.5, false}, {0.0, true}, {0.0, false}}) {
    auto [rt, tt] = scalars(ratio, training);
    auto y = r.executable->runTensors({x, rt, tt});
    ASSERT_EQ(y.size(), 2u);
    ASSERT_EQ(y[0].shape(), x.shape());
    ASSERT_EQ(y[1].shape(), x.shape());
    EXPECT_EQ(y[1].dtype(), DataType::Bool());
    for (int64_t i = 0; i < x.numel(); ++i) {
      EXPECT_EQ(y[0].getDouble(i), x.getDouble(i));
      EXPECT_EQ(y[1].getDouble(i), 1.0);
    }
  }
  auto [rt, tt] = scalars(0.25, true);
  EXPECT_NE(errorOf([&] {
              r.executable->runTensors({x, rt, tt});
            }).find("Dropout in training mode with a non-zero ratio is random and not supported"),
            std::string::npos);
}

TEST(OnnxRunTimeOperands, RunTimeOperandsOnSymbolicDimsBuildOnceForAnySize) {
  // Input dims that are shape variables: a Slice with run-time axes and
  // steps, then a Split with run-time sizes along the symbolic axis, then an
  // edge Pad with run-time pads; one build runs at two sizes of N.
  OnnxModelBuilder b;
  b.input("x", {std::string("N"), int64_t(4)});
  for (const char* n : {"starts", "ends", "axes", "steps"})
    b.input(n, {int64_t(1)}, onnx::TensorProto::INT64);
  b.input("split", {int64_t(2)}, onnx::TensorProto::INT64);
  b.input("pads", {int64_t(4)}, onnx::TensorProto::INT64);
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"s"});
  b.node("Split", {"s", "split"}, {"a", "c"});
  auto* pad = b.node("Pad", {"c", "pads"}, {"y"});
  OnnxModelBuilder::attrString(pad, "mode", "edge");
  b.output("a");
  b.output("y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (int64_t n : {int64_t(3), int64_t(6)}) {
    Tensor x = ramp({n, 4});
    // s = x[:, ::-2] (columns 3, 1); a = s[:1], c = s[1:]; y = c padded by
    // one row above and one column on the right (edge).
    auto y = r.executable->runTensors(
        {x, ints({-1}), ints({-100}), ints({1}), ints({-2}), ints({1, n - 1}), ints({1, 0, 0, 1})});
    ASSERT_EQ(y.size(), 2u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(y[0].getDouble(0), x.getDouble(3));
    EXPECT_EQ(y[0].getDouble(1), x.getDouble(1));
    ASSERT_EQ(y[1].shape(), (std::vector<int64_t>{n, 3}));
    for (int64_t i = 0; i < n; ++i) {
      int64_t row = std::max<int64_t>(i - 1, 0) + 1; // row of x behind output row i
      EXPECT_EQ(y[1].getDouble(i * 3 + 0), x.getDouble(row * 4 + 3));
      EXPECT_EQ(y[1].getDouble(i * 3 + 1), x.getDouble(row * 4 + 1));
      EXPECT_EQ(y[1].getDouble(i * 3 + 2), x.getDouble(row * 4 + 1));
    }
  }
}

// The conformance harness counts a run that stops because a feature is not
// supported (training-mode Dropout whose run-time ratio is not 0) as
// "unsupported", like an import refusal, not as an error.
TEST(OnnxRunTimeOperands, ConformanceCountsARunTimeRefusalAsUnsupported) {
  std::filesystem::path dir = "/usr/share/libonnx-testdata/data/node/test_training_dropout";
  ASSERT_TRUE(std::filesystem::exists(dir))
      << dir << " is missing (libonnx-testdata, scripts/install-deps.sh)";
  conformance::CaseResult r = conformance::runConformanceCase(dir.string());
  EXPECT_EQ(r.status, conformance::CaseStatus::Unsupported)
      << conformance::caseStatusName(r.status) << ": " << r.detail;
  EXPECT_NE(r.detail.find("is random and not supported"), std::string::npos) << r.detail;
}
