// Squeeze, Unsqueeze and Reduce* with axes read at run time (a graph input,
// not a constant): each model is imported and built once, then run at
// several axes values; shapes and values are checked against references
// computed here by plain loops over numpy's definitions (independent of the
// importer's graph-operator formulation), and invalid axes must fail at run
// time with a message naming the rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using unity::testing::OnnxModelBuilder;

namespace {

std::shared_ptr<runtime::Executable> buildModel(const OnnxModelBuilder& b) {
  ir::IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  if (!r.executable)
    throw Error("build produced no executable");
  return r.executable;
}

Tensor int64s(const std::vector<int64_t>& v) {
  Tensor t(DataType::Int64(), {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    static_cast<int64_t*>(t.mutableData())[i] = v[i];
  return t;
}

int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

/// Distinct values, deterministic, positive (for prod / log).
Tensor data(const std::vector<int64_t>& shape) {
  Tensor t(DataType::Float32(), shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, 0.5 + static_cast<double>((i * 7) % 11) * 0.25);
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(t.getDouble(i));
  return v;
}

int64_t norm(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }

/// numpy.expand_dims with several axes.
std::vector<int64_t> unsqueezed(const std::vector<int64_t>& shape,
                                const std::vector<int64_t>& axes) {
  int64_t rank = static_cast<int64_t>(shape.size() + axes.size());
  std::set<int64_t> at;
  for (auto a : axes)
    at.insert(norm(a, rank));
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t j = 0; j < rank; ++j)
    out.push_back(at.count(j) ? 1 : shape[next++]);
  return out;
}

std::vector<int64_t> squeezed(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  std::set<int64_t> at;
  for (auto a : axes)
    at.insert(norm(a, static_cast<int64_t>(shape.size())));
  std::vector<int64_t> out;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!at.count(static_cast<int64_t>(i)))
      out.push_back(shape[i]);
  return out;
}

/// A reduction by loops: every input element goes to the output element
/// with its reduced coordinates zeroed; `finish` maps (accumulator, count).
struct Reduction {
  double init;
  std::function<double(double, double)> step;
  std::function<double(double, int64_t)> finish;
};

std::vector<double> reduceRef(const Tensor& x, const std::vector<int64_t>& axes, const Reduction& r,
                              std::vector<int64_t>* keptShape) {
  auto shape = x.shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  std::set<int64_t> at;
  for (auto a : axes)
    at.insert(norm(a, rank));
  std::vector<int64_t> kept = shape;
  int64_t extent = 1;
  for (auto a : at) {
    kept[a] = 1;
    extent *= shape[a];
  }
  *keptShape = kept;
  std::vector<double> acc(count(kept), r.init);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rest = i, o = 0, stride = 1;
    std::vector<int64_t> idx(rank);
    for (int64_t d = rank - 1; d >= 0; --d) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      o += (at.count(d) ? 0 : idx[d]) * stride;
      stride *= kept[d];
    }
    acc[o] = r.step(acc[o], x.getDouble(i));
  }
  for (auto& a : acc)
    a = r.finish(a, extent);
  return acc;
}

const Reduction kSum{0, [](double a, double v) { return a + v; },
                     [](double a, int64_t) { return a; }};
const Reduction kMax{-std::numeric_limits<double>::infinity(),
                     [](double a, double v) { return std::max(a, v); },
                     [](double a, int64_t) { return a; }};
const Reduction kMean{0, [](double a, double v) { return a + v; },
                      [](double a, int64_t n) { return a / static_cast<double>(n); }};
const Reduction kL2{0, [](double a, double v) { return a + v * v; },
                    [](double a, int64_t) { return std::sqrt(a); }};

void expectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
}

/// The message of the run-time error of running exe, or "" when it ran.
std::string runError(runtime::Executable& exe, const std::vector<Tensor>& in) {
  try {
    exe.runTensors(in);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(OnnxRuntimeAxes, UnsqueezeInsertsOnesWhereTheRunTimeAxesSay) {
  OnnxModelBuilder b;
  b.input("X", {std::string("N"), int64_t(3)});
  b.input("axes", {int64_t(2)}, onnx::TensorProto::INT64);
  b.node("Unsqueeze", {"X", "axes"}, {"Y"}, "unsq");
  b.output("Y");
  auto exe = buildModel(b);
  for (auto& [n, axes] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
           {2, {0, 3}}, {2, {-1, 1}}, {4, {3, 0}}, {1, {2, -4}}}) {
    Tensor x = data({n, 3});
    auto y = exe->runTensors({x, int64s(axes)});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].shape(), unsqueezed({n, 3}, axes)) << axes[0] << "," << axes[1];
    EXPECT_EQ(values(y[0]), values(x));
  }
  for (auto& bad : std::vector<std::vector<int64_t>>{{1, 1}, {4, 0}, {0, -5}, {1, -3}}) {
    std::string err = runError(*exe, {data({2, 3}), int64s(bad)});
    EXPECT_NE(err.find("Unsqueeze's axes (input 'axes'), read at run time, must be distinct and "
                       "lie in [-4, 3]"),
              std::string::npos)
        << bad[0] << "," << bad[1] << ": " << err;
    EXPECT_NE(err.find("unsq"), std::string::npos) << err; // names the node
  }
}

TEST(OnnxRuntimeAxes, SqueezeRemovesTheRunTimeAxesAndChecksTheirExtent) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), std::string("C"), int64_t(1), int64_t(1)});
  b.input("axes", {int64_t(2)}, onnx::TensorProto::INT64);
  b.node("Squeeze", {"X", "axes"}, {"Y"}, "sq");
  b.output("Y");
  auto exe = buildModel(b);
  for (auto& [c, axes] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
           {3, {0, 2}}, {3, {3, 2}}, {5, {-1, 0}}, {1, {1, -2}}}) {
    Tensor x = data({1, c, 1, 1});
    auto y = exe->runTensors({x, int64s(axes)});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].shape(), squeezed({1, c, 1, 1}, axes)) << axes[0] << "," << axes[1];
    EXPECT_EQ(values(y[0]), values(x));
  }
  // Dim 1 is 3 (not 1), a repeated axis, an axis out of range.
  for (auto& bad : std::vector<std::vector<int64_t>>{{1, 0}, {0, -4}, {4, 0}}) {
    std::string err = runError(*exe, {data({1, 3, 1, 1}), int64s(bad)});
    EXPECT_NE(err.find("Squeeze's axes (input 'axes'), read at run time, must be distinct, lie in "
                       "[-4, 3] and name dimensions of extent 1"),
              std::string::npos)
        << bad[0] << "," << bad[1] << ": " << err;
  }
}

TEST(OnnxRuntimeAxes, SqueezeEveryAxisGivesAScalar) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), std::string("K")});
  b.input("axes", {int64_t(2)}, onnx::TensorProto::INT32);
  b.node("Squeeze", {"X", "axes"}, {"Y"});
  b.output("Y");
  auto exe = buildModel(b);
  Tensor axes(DataType::Int32(), {2});
  static_cast<int32_t*>(axes.mutableData())[0] = 1;
  static_cast<int32_t*>(axes.mutableData())[1] = 0;
  Tensor x = data({1, 1});
  auto y = exe->runTensors({x, axes});
  EXPECT_EQ(y[0].shape(), std::vector<int64_t>{});
  EXPECT_EQ(values(y[0]), values(x));
  EXPECT_NE(runError(*exe, {data({1, 2}), axes}).find("extent 1"), std::string::npos);
}

TEST(OnnxRuntimeAxes, ReduceSumWithRunTimeAxesKeepdimsAndNot) {
  for (int keep : {1, 0}) {
    OnnxModelBuilder b; // opset 13: ReduceSum's axes is an input
    b.input("X", {std::string("N"), int64_t(3), int64_t(4)});
    b.input("axes", {int64_t(2)}, onnx::TensorProto::INT64);
    auto* n = b.node("ReduceSum", {"X", "axes"}, {"Y"}, "rsum");
    OnnxModelBuilder::attrInt(n, "keepdims", keep);
    b.output("Y");
    auto exe = buildModel(b);
    for (auto& [rows, axes] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
             {2, {0, 2}}, {2, {-1, 1}}, {3, {1, 0}}, {1, {2, -3}}}) {
      Tensor x = data({rows, 3, 4});
      std::vector<int64_t> kept;
      auto want = reduceRef(x, axes, kSum, &kept);
      auto y = exe->runTensors({x, int64s(axes)});
      ASSERT_EQ(y.size(), 1u);
      EXPECT_EQ(y[0].shape(), keep ? kept : squeezed({rows, 3, 4}, axes))
          << keep << ": " << axes[0] << "," << axes[1];
      expectNear(values(y[0]), want);
    }
    for (auto& bad : std::vector<std::vector<int64_t>>{{1, 1}, {3, 0}, {0, -4}, {2, -1}}) {
      std::string err = runError(*exe, {data({2, 3, 4}), int64s(bad)});
      EXPECT_NE(err.find("ReduceSum's axes (input 'axes'), read at run time, must be distinct and "
                         "lie in [-3, 2]"),
                std::string::npos)
          << bad[0] << "," << bad[1] << ": " << err;
    }
  }
}

// Opset 18 gives every Reduce* an axes input; the converter reads it at run
// time like ReduceSum's (tested with the opset limit raised), but the
// importer takes opsets up to 17 today (the ONNX suite Debian ships stops
// there): an opset-18 model is refused by name, not misread.
TEST(OnnxRuntimeAxes, Opset18ReduceModelIsRefusedByItsOpset) {
  OnnxModelBuilder b(18);
  b.input("X", {int64_t(2), std::string("W"), int64_t(3)});
  b.input("axes", {int64_t(1)}, onnx::TensorProto::INT64);
  b.node("ReduceMax", {"X", "axes"}, {"Y"});
  b.output("Y");
  try {
    buildModel(b);
    ADD_FAILURE() << "an opset-18 model was imported";
  } catch (const frontend::UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u);
    EXPECT_EQ(e.nodes()[0].opType, "opset_import") << e.what();
  }
}

TEST(OnnxRuntimeAxes, EmptyRunTimeAxesReduceEverythingOrNothing) {
  for (int noop : {0, 1}) {
    OnnxModelBuilder b;
    b.input("X", {int64_t(2), int64_t(3)});
    b.input("axes", {int64_t(0)}, onnx::TensorProto::INT64);
    auto* n = b.node("ReduceSum", {"X", "axes"}, {"Y"});
    OnnxModelBuilder::attrInt(n, "noop_with_empty_axes", noop);
    b.output("Y");
    auto exe = buildModel(b);
    Tensor x = data({2, 3});
    auto y = exe->runTensors({x, int64s({})});
    if (noop) {
      EXPECT_EQ(y[0].shape(), (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(values(y[0]), values(x));
    } else {
      std::vector<int64_t> kept;
      auto want = reduceRef(x, {0, 1}, kSum, &kept);
      EXPECT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1}));
      expectNear(values(y[0]), want);
    }
  }
}

TEST(OnnxRuntimeAxes, AxesOfUnknownLengthStillNeedAConstant) {
  // The output's rank follows from the number of axes: a symbolic length
  // is refused, naming the input as specializable.
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(3)});
  b.input("axes", {std::string("K")}, onnx::TensorProto::INT64);
  b.node("ReduceSum", {"X", "axes"}, {"Y"});
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    ADD_FAILURE() << "the import succeeded";
  } catch (const frontend::UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u);
    EXPECT_EQ(e.nodes()[0].specializable, "axes");
    EXPECT_NE(std::string(e.what()).find("static length"), std::string::npos) << e.what();
  }
}
