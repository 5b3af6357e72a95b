// Operators whose output shape depends on tensor values (NonZero, Compress,
// Unique, NonMaxSuppression, TopK with K given at run time): each model is
// imported and built once, then run on two input contents that give outputs
// of different sizes; the results are compared with references computed
// here by plain loops (the operators' definitions, independent of the
// importer's graph-operator formulation).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

Tensor floats(std::vector<int64_t> shape, const std::vector<double>& v) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor typed(DataType dt, std::vector<int64_t> shape, const std::vector<double>& v) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(static_cast<int64_t>(t.getDouble(i)));
  return out;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}

std::shared_ptr<runtime::Executable> buildModel(const OnnxModelBuilder& b) {
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  if (!r.executable)
    throw Error("build produced no executable");
  return r.executable;
}

} // namespace

TEST(OnnxDataDependent, NonZeroOfASymbolicBatchAtTwoContents) {
  OnnxModelBuilder b;
  b.input("X", {std::string("N"), int64_t(3)});
  b.node("NonZero", {"X"}, {"Y"});
  b.output("Y");
  auto exe = buildModel(b);
  for (auto& [rows, data] : std::vector<std::pair<int64_t, std::vector<double>>>{
           {2, {0, 1, 0, 2, 0, 3}}, {3, {4, 0, 0, 0, 0, 0, 5, 6, 7}}, {1, {0, 0, 0}}}) {
    Tensor x = floats({rows, 3}, data);
    // numpy.nonzero: row indices then column indices, in row-major order.
    std::vector<int64_t> r0, r1;
    for (int64_t i = 0; i < rows * 3; ++i)
      if (data[i] != 0) {
        r0.push_back(i / 3);
        r1.push_back(i % 3);
      }
    auto y = exe->runTensors({x});
    ASSERT_EQ(y.size(), 1u);
    int64_t k = static_cast<int64_t>(r0.size());
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, k}));
    ASSERT_TRUE(y[0].dtype() == DataType::Int64());
    std::vector<int64_t> want = r0;
    want.insert(want.end(), r1.begin(), r1.end());
    EXPECT_EQ(ints(y[0]), want);
  }
}

TEST(OnnxDataDependent, CompressKeepsTheSelectedRowsOfARunTimeCondition) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(4), int64_t(2)});
  b.input("cond", {int64_t(4)}, onnx::TensorProto::BOOL);
  auto* n = b.node("Compress", {"X", "cond"}, {"Y"});
  OnnxModelBuilder::attrInt(n, "axis", 0);
  b.output("Y");
  auto exe = buildModel(b);
  Tensor x = floats({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (auto& c : std::vector<std::vector<double>>{{1, 0, 1, 1}, {0, 0, 0, 0}, {0, 1, 0, 0}}) {
    std::vector<double> want;
    for (int64_t r = 0; r < 4; ++r)
      if (c[r] != 0)
        for (int64_t k = 0; k < 2; ++k)
          want.push_back(x.getDouble(r * 2 + k));
    auto y = exe->runTensors({x, typed(DataType::Bool(), {4}, c)});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{int64_t(want.size() / 2), 2}));
    EXPECT_EQ(values(y[0]), want);
  }
}

TEST(OnnxDataDependent, CompressWithALongerConditionIsRefusedNamingTheNode) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(3)});
  b.input("cond", {int64_t(5)}, onnx::TensorProto::BOOL);
  b.node("Compress", {"X", "cond"}, {"Y"}, "pick");
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "a condition longer than the input was accepted";
  } catch (const Error& e) {
    std::string msg = e.message();
    EXPECT_NE(msg.find("pick"), std::string::npos) << msg;
    EXPECT_NE(msg.find("condition has 5 elements"), std::string::npos) << msg;
  }
}

namespace {

struct UniqueRef {
  std::vector<double> y;
  std::vector<int64_t> indices, inverse, counts;
};

/// ONNX Unique of a flat input: sorted or in order of first occurrence.
UniqueRef uniqueOf(const std::vector<double>& x, bool sorted) {
  std::vector<size_t> firsts;
  for (size_t i = 0; i < x.size(); ++i)
    if (std::find(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(i), x[i]) ==
        x.begin() + static_cast<std::ptrdiff_t>(i))
      firsts.push_back(i);
  if (sorted)
    std::stable_sort(firsts.begin(), firsts.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  UniqueRef r;
  for (size_t f : firsts) {
    r.y.push_back(x[f]);
    r.indices.push_back(static_cast<int64_t>(f));
    r.counts.push_back(std::count(x.begin(), x.end(), x[f]));
  }
  for (double v : x)
    r.inverse.push_back(std::find(r.y.begin(), r.y.end(), v) - r.y.begin());
  return r;
}

} // namespace

TEST(OnnxDataDependent, UniqueSortedAndUnsortedAtTwoContents) {
  for (bool sorted : {true, false}) {
    OnnxModelBuilder b;
    b.input("X", {int64_t(6)});
    auto* n = b.node("Unique", {"X"}, {"Y", "indices", "inverse", "counts"});
    OnnxModelBuilder::attrInt(n, "sorted", sorted ? 1 : 0);
    for (auto* o : {"Y", "indices", "inverse", "counts"})
      b.output(o);
    auto exe = buildModel(b);
    for (auto& data : std::vector<std::vector<double>>{
             {2, 1, 1, 3, 4, 3}, {5, 5, 5, 5, 5, 5}, {-1, 7, 0.5, 2, 9, 3}}) {
      UniqueRef want = uniqueOf(data, sorted);
      auto y = exe->runTensors({floats({6}, data)});
      ASSERT_EQ(y.size(), 4u);
      int64_t k = static_cast<int64_t>(want.y.size());
      ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{k})) << "sorted=" << sorted;
      EXPECT_EQ(values(y[0]), want.y);
      EXPECT_EQ(ints(y[1]), want.indices);
      EXPECT_EQ(ints(y[2]), want.inverse);
      EXPECT_EQ(ints(y[3]), want.counts);
    }
  }
}

TEST(OnnxDataDependent, UniqueRowsAlongAnAxisAreSortedLexicographically) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(4), int64_t(2)});
  auto* n = b.node("Unique", {"X"}, {"Y", "indices"});
  OnnxModelBuilder::attrInt(n, "axis", 0);
  b.output("Y");
  b.output("indices");
  auto exe = buildModel(b);
  // Rows (1,2) (0,5) (1,2) (0,3): distinct sorted (0,3) (0,5) (1,2).
  auto y = exe->runTensors({floats({4, 2}, {1, 2, 0, 5, 1, 2, 0, 3})});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(y[0]), (std::vector<double>{0, 3, 0, 5, 1, 2}));
  EXPECT_EQ(ints(y[1]), (std::vector<int64_t>{3, 1, 0}));
  y = exe->runTensors({floats({4, 2}, {1, 2, 1, 2, 1, 2, 1, 2})});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ints(y[1]), (std::vector<int64_t>{0}));
}

TEST(OnnxDataDependent, TopKWithKGivenAtRunTime) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(5)});
  b.input("K", {int64_t(1)}, onnx::TensorProto::INT64);
  auto* n = b.node("TopK", {"X", "K"}, {"V", "I"}, "top");
  OnnxModelBuilder::attrInt(n, "axis", 1);
  b.output("V");
  b.output("I");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  // K is a parameter, not specialized.
  ASSERT_EQ(as<Function>(m->lookup("main"))->params.size(), 2u);
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  std::vector<double> data{3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  Tensor x = floats({2, 5}, data);
  for (int64_t k : {2, 4, 0}) {
    auto y = r.executable->runTensors({x, typed(DataType::Int64(), {1}, {double(k)})});
    ASSERT_EQ(y.size(), 2u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, k}));
    std::vector<double> wantV;
    std::vector<int64_t> wantI;
    for (int64_t row = 0; row < 2; ++row) {
      std::vector<int64_t> order(5);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return data[row * 5 + a] > data[row * 5 + b]; });
      for (int64_t j = 0; j < k; ++j) {
        wantV.push_back(data[row * 5 + order[j]]);
        wantI.push_back(order[j]);
      }
    }
    EXPECT_EQ(values(y[0]), wantV);
    EXPECT_EQ(ints(y[1]), wantI);
  }
  // K larger than the axis is an error naming the node, not a read past it.
  try {
    r.executable->runTensors({x, typed(DataType::Int64(), {1}, {6})});
    FAIL() << "K = 6 > 5 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("top"), std::string::npos) << e.message();
  }
}

namespace {

/// Greedy NMS of one batch and class ([y1, x1, y2, x2] corners).
std::vector<int64_t> greedyNms(const std::vector<std::array<double, 4>>& boxes,
                               const std::vector<double>& scores, int64_t maxOut, double iouThr,
                               double scoreThr) {
  std::vector<int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  auto iou = [&](int64_t a, int64_t b) {
    auto& p = boxes[a];
    auto& q = boxes[b];
    double ih = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0]));
    double iw = std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
    double inter = ih * iw;
    double ua = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter;
    return inter > 0 ? inter / ua : 0.0;
  };
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (static_cast<int64_t>(kept.size()) >= maxOut || scores[i] <= scoreThr)
      continue;
    bool ok = true;
    for (int64_t j : kept)
      ok &= iou(i, j) <= iouThr;
    if (ok)
      kept.push_back(i);
  }
  return kept;
}

} // namespace

TEST(OnnxDataDependent, NonMaxSuppressionAtTwoContents) {
  OnnxModelBuilder b;
  b.input("boxes", {int64_t(1), int64_t(5), int64_t(4)});
  b.input("scores", {int64_t(1), int64_t(2), int64_t(5)});
  b.input("max_out", {int64_t(1)}, onnx::TensorProto::INT64);
  b.input("iou", {int64_t(1)});
  b.input("score", {int64_t(1)});
  b.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou", "score"}, {"sel"});
  b.output("sel");
  auto exe = buildModel(b);
  std::vector<std::array<double, 4>> boxes{
      {0, 0, 1, 1}, {0, 0.1, 1, 1.1}, {0, 2, 1, 3}, {0, 2.05, 1, 3.05}, {5, 5, 6, 6}};
  std::vector<double> flatBoxes;
  for (auto& bx : boxes)
    flatBoxes.insert(flatBoxes.end(), bx.begin(), bx.end());
  struct Case {
    std::vector<double> scores; // 2 classes x 5
    int64_t maxOut;
    double iou, score;
  };
  for (const Case& c : {Case{{0.9, 0.8, 0.7, 0.95, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 3, 0.5, 0.0},
                        Case{{0.9, 0.8, 0.7, 0.95, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 10, 0.95, 0.25},
                        Case{{0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2, 0.2}, 5, 0.5, 0.5}}) {
    std::vector<int64_t> want;
    for (int64_t cls = 0; cls < 2; ++cls) {
      std::vector<double> s(c.scores.begin() + cls * 5, c.scores.begin() + cls * 5 + 5);
      for (int64_t i : greedyNms(boxes, s, c.maxOut, c.iou, c.score))
        want.insert(want.end(), {0, cls, i});
    }
    auto y = exe->runTensors({floats({1, 5, 4}, flatBoxes), floats({1, 2, 5}, c.scores),
                              typed(DataType::Int64(), {1}, {double(c.maxOut)}),
                              floats({1}, {c.iou}), floats({1}, {c.score})});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{int64_t(want.size() / 3), 3}));
    EXPECT_EQ(ints(y[0]), want);
  }
}

TEST(OnnxDataDependent, NonMaxSuppressionWithMismatchedScoresIsRefusedNamingTheNode) {
  OnnxModelBuilder b;
  b.input("boxes", {int64_t(2), int64_t(5), int64_t(4)});
  b.input("scores", {int64_t(2), int64_t(1), int64_t(6)});
  b.node("NonMaxSuppression", {"boxes", "scores"}, {"sel"}, "nms");
  b.output("sel");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "6 scores for 5 boxes were accepted";
  } catch (const Error& e) {
    std::string msg = e.message();
    EXPECT_NE(msg.find("nms"), std::string::npos) << msg;
    EXPECT_NE(msg.find("box count 6 differs from the boxes' 5"), std::string::npos) << msg;
  }
}
