// Importer forms added for the ONNX backend suite: opsets 1..6 (legacy
// broadcast/axis, is_test, Concat's default axis, Cast's string type), input
// specialization, LayerNormalization's Mean/InvStdDev, select_last_index,
// Mod fmod=1, DepthToSpace/SpaceToDepth, ConvTranspose output_shape and
// Dropout's mask. Expected values are computed by hand loops here.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

const Function* mainOf(const IRModule& m) { return as<Function>(m->lookup("main")); }

std::vector<Tensor> run(const IRModule& m, const std::vector<Tensor>& inputs) {
  BuildResult r = build(m);
  if (!r.executable)
    throw Error("no executable");
  return r.executable->runTensors(inputs);
}

std::vector<Tensor> importAndRun(const OnnxModelBuilder& b, const std::vector<Tensor>& inputs,
                                 const frontend::ImportOptions& o = {}) {
  return run(frontend::importOnnxBytes(b.bytes(), o), inputs);
}

Tensor floats(std::vector<int64_t> shape, const std::vector<float>& v) {
  return Tensor::fromFloats(std::move(shape), v);
}

Tensor int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  Tensor t(DataType::Int64(), std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    static_cast<int64_t*>(t.mutableData())[i] = v[i];
  return t;
}

Tensor int32s(std::vector<int64_t> shape, const std::vector<int32_t>& v) {
  Tensor t(DataType::Int32(), std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    static_cast<int32_t*>(t.mutableData())[i] = v[i];
  return t;
}

std::vector<float> iota(int n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = offset + scale * static_cast<float>(i);
  return v;
}

/// The single refusal of an import that must fail.
frontend::UnsupportedNode refusal(const OnnxModelBuilder& b,
                                  const frontend::ImportOptions& o = {}) {
  try {
    frontend::importOnnxBytes(b.bytes(), o);
  } catch (const frontend::UnsupportedModelError& e) {
    EXPECT_EQ(e.nodes().size(), 1u) << e.what();
    return e.nodes().at(0);
  }
  ADD_FAILURE() << "the import succeeded";
  return {};
}

} // namespace

TEST(OnnxForms, Opset6AddWithBroadcastAxisAlignsBAtTheAxis) {
  OnnxModelBuilder b(6);
  b.input("A", {int64_t(2), int64_t(3), int64_t(2)});
  b.input("B", {int64_t(3)});
  auto* add = b.node("Add", {"A", "B"}, {"Y"});
  OnnxModelBuilder::attrInt(add, "broadcast", 1);
  OnnxModelBuilder::attrInt(add, "axis", 1);
  OnnxModelBuilder::attrInts(add, "consumed_inputs", {0, 0}); // legacy hint, ignored
  b.output("Y");
  auto a = iota(12), bv = std::vector<float>{100, 200, 300};
  auto out = importAndRun(b, {floats({2, 3, 2}, a), floats({3}, bv)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) {
        int f = (i * 3 + j) * 2 + k;
        EXPECT_FLOAT_EQ(out[0].getDouble(f), a[f] + bv[j]) << f;
      }
}

TEST(OnnxForms, LegacyAttributesAreRefusedFromOpset7) {
  OnnxModelBuilder b(13);
  b.input("A", {int64_t(2), int64_t(3)});
  b.input("B", {int64_t(3)});
  auto* add = b.node("Add", {"A", "B"}, {"Y"}, "add");
  OnnxModelBuilder::attrInt(add, "broadcast", 1);
  b.output("Y");
  auto r = refusal(b);
  EXPECT_EQ(r.node, "add");
  EXPECT_NE(r.reason.find("'broadcast'"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("opset 7"), std::string::npos) << r.reason;

  OnnxModelBuilder c(13); // consumed_inputs is only skipped before opset 7
  c.input("X", {int64_t(2)});
  OnnxModelBuilder::attrInts(c.node("Relu", {"X"}, {"Y"}), "consumed_inputs", {0});
  c.output("Y");
  EXPECT_NE(refusal(c).reason.find("consumed_inputs"), std::string::npos);
}

TEST(OnnxForms, Opset6TrainingModeBatchNormAndDropoutAreRefusedByName) {
  OnnxModelBuilder b(6);
  b.input("X", {int64_t(1), int64_t(2), int64_t(2)});
  for (const char* n : {"s", "bias", "m", "v"})
    b.initializer(n, {2}, {1, 1});
  b.node("BatchNormalization", {"X", "s", "bias", "m", "v"}, {"Y"}, "bn"); // is_test = 0
  b.output("Y");
  auto r = refusal(b);
  EXPECT_NE(r.reason.find("opset 6"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("is_test=0"), std::string::npos) << r.reason;

  OnnxModelBuilder d(6);
  d.input("X", {int64_t(4)});
  d.node("Dropout", {"X"}, {"Y"}, "drop");
  d.output("Y");
  EXPECT_NE(refusal(d).reason.find("is_test=0"), std::string::npos);

  // is_test=1 is the inference formula.
  OnnxModelBuilder t(6);
  t.input("X", {int64_t(1), int64_t(2), int64_t(2)});
  t.initializer("s", {2}, {2, 3});
  t.initializer("bias", {2}, {1, -1});
  t.initializer("m", {2}, {1, 2});
  t.initializer("v", {2}, {4, 9});
  auto* bn = t.node("BatchNormalization", {"X", "s", "bias", "m", "v"}, {"Y"});
  OnnxModelBuilder::attrInt(bn, "is_test", 1);
  OnnxModelBuilder::attrFloat(bn, "epsilon", 0.0f);
  t.output("Y");
  std::vector<float> xs = {1, 3, 5, 8};
  auto out = importAndRun(t, {floats({1, 2, 2}, xs)});
  const float s[2] = {2, 3}, bias[2] = {1, -1}, m[2] = {1, 2}, sd[2] = {2, 3};
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(out[0].getDouble(i), (xs[i] - m[i / 2]) / sd[i / 2] * s[i / 2] + bias[i / 2]);
}

TEST(OnnxForms, Opset3ConcatDefaultsToAxis1AndOpset5CastNamesItsType) {
  OnnxModelBuilder b(3);
  b.input("A", {int64_t(2), int64_t(1)});
  b.input("B", {int64_t(2), int64_t(2)});
  b.node("Concat", {"A", "B"}, {"C"});
  auto* cast = b.node("Cast", {"C"}, {"Y"});
  OnnxModelBuilder::attrString(cast, "to", "INT32");
  b.output("Y");
  auto out = importAndRun(b, {floats({2, 1}, {1.5f, 2.5f}), floats({2, 2}, {3, 4, 5, 6})});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].dtype(), DataType::Int32());
  const int want[6] = {1, 3, 4, 2, 5, 6};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[0].dataAs<int32_t>()[i], want[i]) << i;
}

TEST(OnnxForms, ShapeInputIsReportedSpecializableAndSpecializationFoldsIt) {
  // Unsqueeze's axes may be read at run time, but their number (the
  // output's rank) must be known at import time: axes of symbolic length
  // need a constant, and the graph input is named.
  OnnxModelBuilder s;
  s.input("X", {int64_t(2), int64_t(6)});
  s.input("axes", {std::string("K")}, onnx::TensorProto::INT64);
  s.node("Unsqueeze", {"X", "axes"}, {"Y"}, "unsqueeze");
  s.output("Y");
  auto r = refusal(s);
  EXPECT_EQ(r.specializable, "axes");
  EXPECT_EQ(r.specializableIndex, 1);

  // A Reshape's target may be a run-time value; specializing it still
  // folds it into a constant.
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(6)});
  b.input("shape", {int64_t(2)}, onnx::TensorProto::INT64);
  b.node("Reshape", {"X", "shape"}, {"Y"}, "reshape");
  b.output("Y");
  frontend::ImportOptions o;
  o.inputValues["shape"] = int64s({2}, {3, -1});
  IRModule m = frontend::importOnnxBytes(b.bytes(), o);
  ASSERT_EQ(mainOf(m)->params.size(), 1u); // 'shape' is a constant now
  auto x = iota(12);
  auto out = run(m, {floats({2, 6}, x)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3, 4}));
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(out[0].getDouble(i), x[i]);

  // Values that do not fit the declaration, or name no input, are errors.
  o.inputValues["shape"] = int64s({3}, {3, 2, 2});
  EXPECT_THROW(frontend::importOnnxBytes(b.bytes(), o), Error);
  o.inputValues.clear();
  o.inputValues["nope"] = int64s({2}, {3, 4});
  EXPECT_THROW(frontend::importOnnxBytes(b.bytes(), o), Error);
}

TEST(OnnxForms, LayerNormalizationMeanAndInvStdDevOutputs) {
  OnnxModelBuilder b(17);
  b.input("X", {int64_t(2), int64_t(2), int64_t(3)});
  b.initializer("S", {2, 3}, {1, 2, 3, 4, 5, 6});
  b.initializer("B", {2, 3}, {0, 0, 0, 1, 1, 1});
  auto* ln = b.node("LayerNormalization", {"X", "S", "B"}, {"Y", "Mean", "Inv"});
  OnnxModelBuilder::attrInt(ln, "axis", 1);
  OnnxModelBuilder::attrFloat(ln, "epsilon", 0.5f);
  b.output("Y");
  b.output("Mean");
  b.output("Inv");
  std::vector<float> xs = {1, 4, 2, 8, 5, 7, -3, 0, 6, 2, 2, 9};
  auto out = importAndRun(b, {floats({2, 2, 3}, xs)});
  ASSERT_EQ(out.size(), 3u);
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{2, 1, 1}));
  ASSERT_EQ(out[2].shape(), (std::vector<int64_t>{2, 1, 1}));
  const float S[6] = {1, 2, 3, 4, 5, 6}, B[6] = {0, 0, 0, 1, 1, 1};
  for (int n = 0; n < 2; ++n) {
    double mean = 0, var = 0;
    for (int k = 0; k < 6; ++k)
      mean += xs[n * 6 + k] / 6.0;
    for (int k = 0; k < 6; ++k)
      var += (xs[n * 6 + k] - mean) * (xs[n * 6 + k] - mean) / 6.0;
    double inv = 1 / std::sqrt(var + 0.5);
    EXPECT_NEAR(out[1].getDouble(n), mean, 1e-5);
    EXPECT_NEAR(out[2].getDouble(n), inv, 1e-5);
    for (int k = 0; k < 6; ++k)
      EXPECT_NEAR(out[0].getDouble(n * 6 + k), (xs[n * 6 + k] - mean) * inv * S[k] + B[k], 1e-4);
  }
}

TEST(OnnxForms, ArgMaxAndArgMinSelectLastIndexPickTheLastTie) {
  for (bool isMax : {true, false}) {
    for (int64_t last : {0, 1}) {
      OnnxModelBuilder b(13);
      b.input("X", {int64_t(2), int64_t(4)});
      auto* n = b.node(isMax ? "ArgMax" : "ArgMin", {"X"}, {"Y"});
      OnnxModelBuilder::attrInt(n, "axis", 1);
      OnnxModelBuilder::attrInt(n, "keepdims", 0);
      OnnxModelBuilder::attrInt(n, "select_last_index", last);
      b.output("Y");
      std::vector<float> xs = {1, 3, 3, 2, 0, 5, 0, 5};
      auto out = importAndRun(b, {floats({2, 4}, xs)});
      ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2}));
      for (int r = 0; r < 2; ++r) {
        int64_t want = -1;
        for (int k = 0; k < 4; ++k) {
          float v = xs[r * 4 + k];
          bool better = want < 0 || (isMax ? v > xs[r * 4 + want] : v < xs[r * 4 + want]) ||
                        (last && v == xs[r * 4 + want]);
          if (better)
            want = k;
        }
        EXPECT_EQ(out[0].dataAs<int64_t>()[r], want) << isMax << last << r;
      }
    }
  }
}

TEST(OnnxForms, ModWithFmodHasTheSignOfTheDividend) {
  std::vector<float> xf = {-7, 7, -7, 7, 6, -6.5f};
  std::vector<float> yf = {3, -3, -3, 3, 3, 2};
  {
    OnnxModelBuilder b(13);
    b.input("A", {int64_t(6)});
    b.input("B", {int64_t(6)});
    OnnxModelBuilder::attrInt(b.node("Mod", {"A", "B"}, {"Y"}), "fmod", 1);
    b.output("Y");
    auto out = importAndRun(b, {floats({6}, xf), floats({6}, yf)});
    for (int i = 0; i < 6; ++i)
      EXPECT_FLOAT_EQ(out[0].getDouble(i), std::fmod(xf[i], yf[i])) << i;
  }
  {
    OnnxModelBuilder b(13);
    b.input("A", {int64_t(6)}, onnx::TensorProto::INT32);
    b.input("B", {int64_t(6)}, onnx::TensorProto::INT32);
    OnnxModelBuilder::attrInt(b.node("Mod", {"A", "B"}, {"Y"}), "fmod", 1);
    b.output("Y");
    std::vector<int32_t> xi = {-7, 7, -7, 7, 6, -9}, yi = {3, -3, -3, 3, 3, 2};
    auto out = importAndRun(b, {int32s({6}, xi), int32s({6}, yi)});
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(out[0].dataAs<int32_t>()[i], xi[i] % yi[i]) << i; // C++ % truncates
  }
}

TEST(OnnxForms, DepthToSpaceBothModesAndSpaceToDepthMatchIndexFormulas) {
  const int N = 1, C = 8, H = 2, W = 3, bs = 2, Co = C / (bs * bs);
  auto x = iota(N * C * H * W);
  for (std::string mode : {"DCR", "CRD"}) {
    OnnxModelBuilder b(13);
    b.input("X", {int64_t(N), int64_t(C), int64_t(H), int64_t(W)});
    auto* n = b.node("DepthToSpace", {"X"}, {"Y"});
    OnnxModelBuilder::attrInt(n, "blocksize", bs);
    OnnxModelBuilder::attrString(n, "mode", mode);
    b.output("Y");
    auto out = importAndRun(b, {floats({N, C, H, W}, x)});
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{N, Co, H * bs, W * bs}));
    for (int c = 0; c < Co; ++c)
      for (int h = 0; h < H * bs; ++h)
        for (int w = 0; w < W * bs; ++w) {
          int bh = h % bs, bw = w % bs;
          int ic = mode == "DCR" ? (bh * bs + bw) * Co + c : c * bs * bs + bh * bs + bw;
          float want = x[(ic * H + h / bs) * W + w / bs];
          EXPECT_FLOAT_EQ(out[0].getDouble((c * H * bs + h) * W * bs + w), want)
              << mode << " " << c << "," << h << "," << w;
        }
  }
  // SpaceToDepth: output channel (bh * bs + bw) * C + c holds x[c][h*bs+bh][w*bs+bw].
  const int C2 = 2, H2 = 4, W2 = 2;
  auto x2 = iota(C2 * H2 * W2);
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(1), int64_t(C2), int64_t(H2), int64_t(W2)});
  OnnxModelBuilder::attrInt(b.node("SpaceToDepth", {"X"}, {"Y"}), "blocksize", bs);
  b.output("Y");
  auto out = importAndRun(b, {floats({1, C2, H2, W2}, x2)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, C2 * bs * bs, H2 / bs, W2 / bs}));
  for (int oc = 0; oc < C2 * bs * bs; ++oc)
    for (int h = 0; h < H2 / bs; ++h)
      for (int w = 0; w < W2 / bs; ++w) {
        int c = oc % C2, bh = oc / C2 / bs, bw = oc / C2 % bs;
        EXPECT_FLOAT_EQ(out[0].getDouble((oc * (H2 / bs) + h) * (W2 / bs) + w),
                        x2[(c * H2 + h * bs + bh) * W2 + w * bs + bw]);
      }
}

TEST(OnnxForms, ConvTransposeOutputShapeGivesThatShapeAndTheScatterSum) {
  const int H = 3, W = 3, K = 3, S = 3, OH = 10, OW = 8;
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(1), int64_t(1), int64_t(H), int64_t(W)});
  auto wv = iota(K * K, 1, 1);
  b.initializer("W", {1, 1, K, K}, wv);
  auto* n = b.node("ConvTranspose", {"X", "W"}, {"Y"});
  OnnxModelBuilder::attrInts(n, "strides", {S, S});
  OnnxModelBuilder::attrInts(n, "output_shape", {OH, OW});
  b.output("Y");
  auto x = iota(H * W, 0.5f, 1);
  auto out = importAndRun(b, {floats({1, 1, H, W}, x)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, OH, OW}));
  // total pads: rows 3*2+3-10 = -1 (output grows at the end), cols 9-8 = 1
  // (begin 1 - floor(1/2) = 1, end 0): the full 9x9 result shifted left by 1.
  std::vector<double> full(9 * 9, 0.0);
  for (int i = 0; i < H; ++i)
    for (int j = 0; j < W; ++j)
      for (int ki = 0; ki < K; ++ki)
        for (int kj = 0; kj < K; ++kj)
          full[(i * S + ki) * 9 + j * S + kj] += x[i * W + j] * wv[ki * K + kj];
  for (int r = 0; r < OH; ++r)
    for (int c = 0; c < OW; ++c) {
      double want = r < 9 ? full[r * 9 + c + 1] : 0.0;
      EXPECT_FLOAT_EQ(out[0].getDouble(r * OW + c), want) << r << "," << c;
    }
}

TEST(OnnxForms, DropoutMaskIsAllTrueAndZeroRatioTrainingIsIdentity) {
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(2), int64_t(2)});
  auto* r = b.graph->add_initializer();
  r->set_name("ratio");
  r->set_data_type(onnx::TensorProto::FLOAT);
  r->add_float_data(0.0f);
  auto* t = b.graph->add_initializer();
  t->set_name("training");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  b.node("Dropout", {"X", "ratio", "training"}, {"Y", "M"});
  b.output("Y");
  b.output("M");
  std::vector<float> xs = {1, -2, 3, 4};
  auto out = importAndRun(b, {floats({2, 2}, xs)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].dtype(), DataType::Bool());
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(out[0].getDouble(i), xs[i]);
    EXPECT_EQ(out[1].getDouble(i), 1.0);
  }
  // A non-zero ratio in training mode is random: refused.
  r->set_float_data(0, 0.5f);
  EXPECT_NE(refusal(b).reason.find("training mode"), std::string::npos);
}

TEST(OnnxForms, TileRepeatsEachAxis) {
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(2), int64_t(3)});
  b.intInitializer("reps", {3, 2});
  b.node("Tile", {"X", "reps"}, {"Y"});
  b.output("Y");
  auto x = iota(6);
  auto out = importAndRun(b, {floats({2, 3}, x)});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{6, 6}));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      EXPECT_FLOAT_EQ(out[0].getDouble(i * 6 + j), x[(i % 2) * 3 + j % 3]) << i << "," << j;

  OnnxModelBuilder old(5); // tiles/axis inputs: refused by opset
  old.input("X", {int64_t(2)});
  old.intInitializer("tiles", {2});
  old.intInitializer("axis", {0});
  old.node("Tile", {"X", "tiles", "axis"}, {"Y"});
  old.output("Y");
  EXPECT_NE(refusal(old).reason.find("opset 5"), std::string::npos);
}

TEST(OnnxForms, OperandComputedFromAnIntegerInputNamesThatInputForSpecialization) {
  // Unsqueeze's axes of unknown length (K) must be known at import time.
  OnnxModelBuilder b(13);
  b.input("X", {int64_t(4)});
  b.input("n", {std::string("K")}, onnx::TensorProto::INT32);
  b.intInitializer("one", {1});
  OnnxModelBuilder::attrInt(b.node("Cast", {"n"}, {"ni"}), "to", onnx::TensorProto::INT64);
  b.node("Sub", {"ni", "one"}, {"axes"});
  b.node("Unsqueeze", {"X", "axes"}, {"Y"}, "unsqueeze");
  b.output("Y");
  auto r = refusal(b);
  EXPECT_EQ(r.node, "unsqueeze");
  EXPECT_EQ(r.specializable, "n"); // 'axes' is computed from 'n' only
  EXPECT_EQ(r.specializableIndex, 1);

  frontend::ImportOptions o;
  Tensor n(DataType::Int32(), {1});
  n.setDouble(0, 2);
  o.inputValues["n"] = n;
  auto x = std::vector<float>{10, 20, 30, 40};
  auto out = importAndRun(b, {floats({4}, x)}, o);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{4, 1}));
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(out[0].getDouble(i), x[i]);

  // A value that also depends on a float input is not traced back.
  OnnxModelBuilder c(13);
  c.input("X", {int64_t(1)});
  c.input("n", {std::string("K")}, onnx::TensorProto::INT64);
  OnnxModelBuilder::attrInt(c.node("Cast", {"X"}, {"xi"}), "to", onnx::TensorProto::INT64);
  c.node("Add", {"xi", "n"}, {"s"});
  c.node("Unsqueeze", {"X", "s"}, {"Y"}, "unsqueeze");
  c.output("Y");
  EXPECT_EQ(refusal(c).specializable, "");
}

TEST(OnnxForms, WindowsOfAKnownSizeAreConstants) {
  for (int64_t periodic : {1, 0}) {
    OnnxModelBuilder b(17);
    b.input("X", {int64_t(5)});
    auto* size = b.graph->add_initializer();
    size->set_name("size");
    size->set_data_type(onnx::TensorProto::INT64);
    size->add_int64_data(5);
    OnnxModelBuilder::attrInt(b.node("HannWindow", {"size"}, {"w"}), "periodic", periodic);
    b.node("Mul", {"w", "X"}, {"Y"});
    b.output("Y");
    auto out = importAndRun(b, {floats({5}, {1, 1, 1, 1, 1})});
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{5}));
    double d = periodic ? 5 : 4;
    for (int i = 0; i < 5; ++i)
      EXPECT_NEAR(out[0].getDouble(i), 0.5 - 0.5 * std::cos(2 * M_PI * i / d), 1e-6) << i;
  }
}
