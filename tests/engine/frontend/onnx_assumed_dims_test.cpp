// Dimensions an exported model takes to be equal without the importer being
// able to prove it (a skip connection against an upsampled coarse map, a
// run-time reshape against a weight, a Slice [0:1] of a symbolic length
// squeezed away): the importer assumes them, a match_cast checks them at
// run time, and a run that breaks the assumption stops with an error
// instead of computing garbage. Dimensions that provably differ stay
// refused. Also the executor's storage plan: a tensor aliased by such a
// match_cast keeps its storage as long as the alias is used.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

Tensor filled(std::vector<int64_t> shape, double start, double step) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, start + step * double(i));
  return t;
}

std::vector<Tensor> runModel(runtime::Executable& e, std::vector<Tensor> in) {
  return e.runTensors(std::move(in));
}

TEST(OnnxAssumedDims, BroadcastOfDimsThatMayBeEqualIsCheckedAtRunTime) {
  OnnxModelBuilder b;
  b.input("A", {std::string("n"), std::string("h")});
  b.input("B", {std::string("n"), std::string("w")});
  b.node("Add", {"A", "B"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (int64_t h : {3, 5}) {
    Tensor a = filled({2, h}, 1.0, 1.0), bb = filled({2, h}, 0.5, -0.25);
    auto y = runModel(*r.executable, {a, bb});
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, h}));
    for (int64_t i = 0; i < y[0].numel(); ++i)
      EXPECT_FLOAT_EQ(y[0].getDouble(i), a.getDouble(i) + bb.getDouble(i));
  }
  // h = 3, w = 4: the assumption fails at run time, with an error.
  try {
    runModel(*r.executable, {filled({2, 3}, 0, 1), filled({2, 4}, 0, 1)});
    ADD_FAILURE() << "h != w ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 3"), std::string::npos) << e.what();
  }
}

TEST(OnnxAssumedDims, MatMulReductionAgainstAWeightIsCheckedAtRunTime) {
  OnnxModelBuilder b;
  b.input("A", {std::string("n"), std::string("k")});
  b.initializer("W", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  b.node("MatMul", {"A", "W"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor a = filled({3, 4}, -1.0, 0.5);
  auto y = runModel(*r.executable, {a});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{3, 2}));
  const double w[4][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k)
        s += a.getDouble(i * 4 + k) * w[k][j];
      EXPECT_FLOAT_EQ(y[0].getDouble(i * 2 + j), s);
    }
  EXPECT_THROW(runModel(*r.executable, {filled({3, 5}, 0, 1)}), Error);
}

TEST(OnnxAssumedDims, ConcatOfPartsWhoseOtherDimsMayBeEqual) {
  OnnxModelBuilder b;
  b.input("A", {std::string("p"), std::string("a")});
  b.input("B", {std::string("q"), std::string("b")});
  OnnxModelBuilder::attrInt(b.node("Concat", {"A", "B"}, {"Y"}), "axis", 0);
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor a = filled({2, 3}, 0, 1), bb = filled({1, 3}, 10, 1);
  auto y = runModel(*r.executable, {a, bb});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{3, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(y[0].getDouble(i), double(i));
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_FLOAT_EQ(y[0].getDouble(6 + i), 10.0 + double(i));
  EXPECT_THROW(runModel(*r.executable, {filled({2, 3}, 0, 1), filled({1, 2}, 0, 1)}), Error);
}

TEST(OnnxAssumedDims, ConvChannelsOfARunTimeReshapeAreChecked) {
  // x (n, c, h, w) with c symbolic against a 2-channel weight.
  OnnxModelBuilder b;
  b.input("X", {std::string("n"), std::string("c"), std::string("h"), std::string("w")});
  b.initializer("K", {1, 2, 1, 1}, {2, -1});
  b.node("Conv", {"X", "K"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = filled({1, 2, 2, 3}, 0, 1);
  auto y = runModel(*r.executable, {x});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1, 2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(y[0].getDouble(i), 2 * x.getDouble(i) - x.getDouble(6 + i));
  EXPECT_THROW(runModel(*r.executable, {filled({1, 3, 2, 3}, 0, 1)}), Error);
}

TEST(OnnxAssumedDims, DimsThatProvablyDifferStayRefused) {
  OnnxModelBuilder b;
  b.input("A", {int64_t(2), int64_t(3)});
  b.input("B", {int64_t(2), int64_t(4)});
  b.node("Add", {"A", "B"}, {"Y"});
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    ADD_FAILURE() << "imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot broadcast"), std::string::npos) << e.what();
  }
}

// The attention pattern of PaddleOCR's recognizer: q, k, v sliced out of one
// run-time tensor along a symbolic axis, each squeezed (a dim of T.min(n, 1)
// assumed 1 by a match_cast), k transposed after v is sliced. The storage of
// k's slice must outlive the match_cast that aliases it: with the slot
// handed to v's slice, k^T would read v.
TEST(OnnxAssumedDims, SqueezedSlicesKeepTheirStorageWhileAliased) {
  OnnxModelBuilder b;
  b.input("X", {std::string("n"), std::string("a"), std::string("a")});
  auto slice = [&](int64_t from, const std::string& out) {
    auto* s = b.node("Slice", {"X"}, {out + "_s"});
    OnnxModelBuilder::attrInts(s, "axes", {0});
    OnnxModelBuilder::attrInts(s, "starts", {from});
    OnnxModelBuilder::attrInts(s, "ends", {from + 1});
    OnnxModelBuilder::attrInts(b.node("Squeeze", {out + "_s"}, {out}), "axes", {0});
  };
  slice(0, "Q");
  slice(1, "K");
  slice(2, "V");
  OnnxModelBuilder::attrInts(b.node("Transpose", {"K"}, {"KT"}), "perm", {1, 0});
  b.node("MatMul", {"Q", "KT"}, {"S"});
  b.node("MatMul", {"S", "V"}, {"Y"});
  b.output("Y");
  OnnxModelBuilder b9(9); // Slice and Squeeze with attributes
  b9.model.mutable_graph()->CopyFrom(*b.graph);
  IRModule m = frontend::importOnnxBytes(b9.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  const int64_t n = 3, a = 4;
  Tensor x = filled({n, a, a}, -2.0, 0.125);
  auto at = [&](int64_t s, int64_t i, int64_t j) { return x.getDouble((s * a + i) * a + j); };
  auto y = runModel(*r.executable, {x});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{a, a}));
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < a; ++j) {
      double want = 0;
      for (int64_t t = 0; t < a; ++t) {
        double s = 0; // (Q K^T)[i][t]
        for (int64_t k = 0; k < a; ++k)
          s += at(0, i, k) * at(1, t, k);
        want += s * at(2, t, j);
      }
      EXPECT_NEAR(y[0].getDouble(i * a + j), want, 1e-3 * std::max(1.0, std::abs(want)));
    }
}

} // namespace
