// Symbolic shape computations in the ONNX importer: Shape of a tensor with
// symbolic dims and the arithmetic exporters do on it import as expressions
// over the input's shape variables, and a model is built once and run at
// several sizes.
//
// The dynamic models under tests/onnx/models (written by gen_dynamic.py)
// come with outputs computed by ONNX Runtime at three input sizes each; the
// small models built here check the imported struct info directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/runtime/compare.h"
#include "engine/support/error.h"
#include "engine/support/npy.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

const Function* mainOf(const IRModule& m) { return as<Function>(m->lookup("main")); }

std::vector<Binding> bindingsOf(const IRModule& m) {
  std::vector<Binding> out;
  for (auto& blk : as<SeqExpr>(mainOf(m)->body)->blocks)
    for (auto& b : blk->bindings)
      out.push_back(b);
  return out;
}

/// The operator names called by main, in order.
std::vector<std::string> opsOf(const IRModule& m) {
  std::vector<std::string> out;
  for (auto& b : bindingsOf(m))
    if (auto* c = as<Call>(b->value))
      if (auto* o = as<OpRef>(c->op))
        out.push_back(o->name);
  return out;
}

bool calls(const IRModule& m, const std::string& op) {
  auto ops = opsOf(m);
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::vector<PrimExpr> shapeOf(const StructInfo& s) {
  auto* t = as<TensorSInfo>(s);
  if (!t || !t->shape)
    throw Error("no tensor shape");
  return *t->shape;
}

std::vector<PrimExpr> paramShape(const IRModule& m, size_t i) {
  return shapeOf(mainOf(m)->params.at(i)->sinfo);
}

std::vector<PrimExpr> resultShape(const IRModule& m) {
  return shapeOf(as<SeqExpr>(mainOf(m)->body)->body->sinfo);
}

Tensor randomTensor(std::vector<int64_t> shape, int seed) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, double((i * 7 + seed * 13) % 17) / 8.0 - 1.0);
  return t;
}

/// Conv (1 -> 2 channels, 1x1) of X (N, 1, H, W) then the PyTorch flatten
/// Shape -> Gather(0) -> Unsqueeze -> Concat(-1) -> Reshape.
OnnxModelBuilder flattenModel() {
  OnnxModelBuilder b;
  b.input("X", {std::string("N"), int64_t(1), int64_t(3), int64_t(3)});
  b.initializer("w", {2, 1, 1, 1}, {1.0f, -2.0f});
  b.intInitializer("zero", {0});
  b.intInitializer("minus1", {-1});
  b.node("Conv", {"X", "w"}, {"c"});
  b.node("Shape", {"c"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"n"}); // 1-D index: a (1,) value
  b.node("Concat", {"n", "minus1"}, {"target"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(3), "axis", 0);
  b.node("Reshape", {"c", "target"}, {"Y"}, "flatten");
  b.output("Y");
  return b;
}

} // namespace

TEST(OnnxSymbolicShape, FlattenTargetIsAnExpressionOverTheBatchVariable) {
  IRModule m = frontend::importOnnxBytes(flattenModel().bytes());
  PrimExpr n = paramShape(m, 0)[0];
  ASSERT_TRUE(isa<PrimVar>(n));
  auto out = resultShape(m);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(sameNode(out[0], n));
  EXPECT_TRUE(isConstInt(out[1], 18));
  // The shape subgraph left no run-time computation behind.
  EXPECT_EQ(opsOf(m), (std::vector<std::string>{"nn.conv2d", "reshape"}));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (int64_t batch : {1, 3}) {
    Tensor x = randomTensor({batch, 1, 3, 3}, int(batch));
    auto y = r.executable->runTensors({x});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{batch, 18}));
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t k = 0; k < 9; ++k) {
        double v = x.getDouble(i * 9 + k);
        EXPECT_FLOAT_EQ(y[0].getDouble(i * 18 + k), v);
        EXPECT_FLOAT_EQ(y[0].getDouble(i * 18 + 9 + k), -2.0 * v);
      }
  }
}

TEST(OnnxSymbolicShape, ResizeToTheSizeOfASkipConnectionHasItsSymbolicDims) {
  OnnxModelBuilder b;
  b.input("coarse", {std::string("N"), int64_t(2), std::string("h"), std::string("w")});
  b.input("skip", {std::string("N"), int64_t(2), std::string("H"), std::string("W")});
  b.node("Shape", {"skip"}, {"s"});
  b.node("Resize", {"coarse", "", "", "s"}, {"up"}, "resize");
  b.node("Add", {"up", "skip"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  auto skip = paramShape(m, 1), out = resultShape(m);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(sameNode(out[2], skip[2]));
  EXPECT_TRUE(sameNode(out[3], skip[3]));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (auto [h, w, H, W] : {std::array<int64_t, 4>{2, 3, 4, 6}, {3, 2, 5, 7}}) {
    Tensor coarse = randomTensor({1, 2, h, w}, int(h)), zeros(DataType::Float32(), {1, 2, H, W});
    for (int64_t i = 0; i < zeros.numel(); ++i)
      zeros.setDouble(i, 0.0);
    auto y = r.executable->runTensors({coarse, zeros});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 2, H, W}));
    // Default nearest mode, half_pixel, round_prefer_floor: source index
    // round((o + 0.5) * in / out - 0.5), ties down, clamped.
    auto src = [](int64_t o, int64_t in, int64_t out) {
      double x = (double(o) + 0.5) * double(in) / double(out) - 0.5;
      double f = std::floor(x);
      int64_t i = x - f > 0.5 ? int64_t(f) + 1 : int64_t(f);
      return std::clamp<int64_t>(i, 0, in - 1);
    };
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < H; ++i)
        for (int64_t j = 0; j < W; ++j)
          EXPECT_FLOAT_EQ(y[0].getDouble((c * H + i) * W + j),
                          coarse.getDouble((c * h + src(i, h, H)) * w + src(j, w, W)))
              << H << "x" << W << " at " << c << "," << i << "," << j;
  }
}

TEST(OnnxSymbolicShape, PyTorchExpandGuardIsDecidedByTheDimsNonNegativity) {
  // x.expand(N, 3) as PyTorch exports it: shape = [N, 3];
  // Where(Equal(shape, -1), ones, shape) -> Expand. N == -1 is provably
  // false, so the Where picks the shape and nothing runs at run time.
  OnnxModelBuilder b;
  b.input("x", {std::string("N"), int64_t(1)});
  b.intInitializer("i0", {0});
  b.intInitializer("three", {3});
  b.intInitializer("minus1", {-1});
  b.intInitializer("ones", {1, 1});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "i0"}, {"n"});
  b.node("Concat", {"n", "three"}, {"shape"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(2), "axis", 0);
  b.node("Equal", {"shape", "minus1"}, {"isneg"});
  b.node("Where", {"isneg", "ones", "shape"}, {"target"});
  b.node("Expand", {"x", "target"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_EQ(opsOf(m), (std::vector<std::string>{"broadcast_to"}));
  auto out = resultShape(m);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(sameNode(out[0], paramShape(m, 0)[0]));
  EXPECT_TRUE(isConstInt(out[1], 3));
}

TEST(OnnxSymbolicShape, ShapeAsAGraphOutputIsComputedAtRunTime) {
  OnnxModelBuilder b;
  b.input("X", {std::string("a"), int64_t(2), std::string("b")});
  b.node("Shape", {"X"}, {"s"});
  b.node("Size", {"X"}, {"n"});
  b.output("s");
  b.output("n");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_TRUE(calls(m, "shape_to_tensor"));
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (auto [a, bb] : {std::pair<int64_t, int64_t>{1, 5}, {4, 3}}) {
    auto out = r.executable->runTensors({randomTensor({a, 2, bb}, 1)});
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3}));
    EXPECT_EQ(out[0].dtype(), DataType::Int64());
    EXPECT_EQ(out[0].getDouble(0), double(a));
    EXPECT_EQ(out[0].getDouble(1), 2.0);
    EXPECT_EQ(out[0].getDouble(2), double(bb));
    ASSERT_EQ(out[1].ndim(), 0);
    EXPECT_EQ(out[1].getDouble(0), double(a * 2 * bb));
  }
}

TEST(OnnxSymbolicShape, ComputedDimsReshapeRangeConstantOfShapeExpandAndTile) {
  // X (N, 6, W): Reshape to (N, 3, W * 2) by Shape -> Gather -> Div/Mul ->
  // Concat; Range(0, W * 2) added along the last axis; ConstantOfShape,
  // Expand and Tile to computed shapes.
  OnnxModelBuilder b;
  b.input("X", {std::string("N"), int64_t(6), std::string("W")});
  b.intInitializer("i0", {0});
  b.intInitializer("i2", {2});
  b.intInitializer("two", {2});
  b.intInitializer("one", {1});
  b.node("Shape", {"X"}, {"s"});
  b.node("Gather", {"s", "i0"}, {"n"});
  b.node("Gather", {"s", "i2"}, {"w"});
  b.node("Mul", {"w", "two"}, {"w2"});
  b.node("Gather", {"s", "one"}, {"c"});
  b.node("Div", {"c", "two"}, {"c2"});
  b.node("Concat", {"n", "c2", "w2"}, {"target"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(6), "axis", 0);
  b.node("Reshape", {"X", "target"}, {"r"});
  // Range over the scalar W * 2 (Squeeze of the 1-element value).
  b.node("Squeeze", {"w2"}, {"w2s"});
  b.node("Squeeze", {"i0"}, {"zero_s"});
  b.node("Squeeze", {"one"}, {"one_s"});
  b.node("Range", {"zero_s", "w2s", "one_s"}, {"pos"});
  b.node("Cast", {"pos"}, {"posf"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(12), "to", onnx::TensorProto::FLOAT);
  b.node("Add", {"r", "posf"}, {"r1"});
  b.node("ConstantOfShape", {"target"}, {"ones"});
  auto* value = b.graph->mutable_node(14)->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(1.0f);
  b.node("Add", {"r1", "ones"}, {"r2"});
  b.initializer("row", {1, 1, 1}, {10.0f});
  b.node("Expand", {"row", "target"}, {"tens"});
  b.node("Add", {"r2", "tens"}, {"r3"});
  b.node("Concat", {"n", "c2", "one"}, {"reps"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(18), "axis", 0);
  b.initializer("col", {1, 1, 1}, {100.0f});
  b.node("Tile", {"col", "reps"}, {"hundreds"});
  b.node("Add", {"r3", "hundreds"}, {"Y"});
  b.output("Y");

  IRModule m = frontend::importOnnxBytes(b.bytes());
  auto x = paramShape(m, 0), out = resultShape(m);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(sameNode(out[0], x[0]));
  EXPECT_TRUE(isConstInt(out[1], 3));
  EXPECT_FALSE(asConstInt(out[2])); // W * 2
  EXPECT_FALSE(calls(m, "shape_to_tensor"));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (auto [n, w] : {std::pair<int64_t, int64_t>{1, 2}, {2, 5}}) {
    Tensor in = randomTensor({n, 6, w}, int(w));
    auto y = r.executable->runTensors({in});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{n, 3, 2 * w}));
    for (int64_t i = 0; i < y[0].numel(); ++i) {
      int64_t pos = i % (2 * w);
      EXPECT_FLOAT_EQ(y[0].getDouble(i), in.getDouble(i) + double(pos) + 1 + 10 + 100) << i;
    }
  }
}

TEST(OnnxSymbolicShape, SliceToTheSizeOfAnotherTensorAndFromAComputedStart) {
  // crop = x[:, :, :h, :w] with (h, w) = Shape(y)[2:4]; tail = x[..., W-2:].
  OnnxModelBuilder b;
  b.input("x", {std::string("N"), int64_t(1), std::string("H"), std::string("W")});
  b.input("y", {std::string("N"), int64_t(1), std::string("h"), std::string("w")});
  b.intInitializer("i2", {2});
  b.intInitializer("i3", {3});
  b.intInitializer("i4", {4});
  b.intInitializer("zeros", {0, 0});
  b.intInitializer("axes23", {2, 3});
  b.intInitializer("two", {2});
  b.intInitializer("big", {int64_t(1) << 62});
  b.node("Shape", {"y"}, {"sy"});
  b.node("Slice", {"sy", "i2", "i4"}, {"hw"});
  b.node("Slice", {"x", "zeros", "hw", "axes23"}, {"crop"});
  b.node("Shape", {"x"}, {"sx"});
  b.node("Gather", {"sx", "i3"}, {"W"});
  b.node("Sub", {"W", "two"}, {"start"});
  b.node("Slice", {"x", "start", "big", "i3"}, {"tail"});
  b.output("crop");
  b.output("tail");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  auto x = paramShape(m, 0);
  auto* ret = as<TupleSInfo>(as<SeqExpr>(mainOf(m)->body)->body->sinfo);
  ASSERT_TRUE(ret && ret->fields.size() == 2);
  auto tail = shapeOf(ret->fields[1]);
  EXPECT_TRUE(sameNode(tail[2], x[2]));
  EXPECT_TRUE(isConstInt(tail[3], 2));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (auto [H, W, h, w] : {std::array<int64_t, 4>{5, 6, 3, 4}, {4, 3, 6, 2}}) {
    Tensor xt = randomTensor({1, 1, H, W}, int(H)), yt = randomTensor({1, 1, h, w}, 0);
    auto out = r.executable->runTensors({xt, yt});
    ASSERT_EQ(out.size(), 2u);
    int64_t ch = std::min(H, h), cw = std::min(W, w);
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, ch, cw}));
    for (int64_t i = 0; i < ch; ++i)
      for (int64_t j = 0; j < cw; ++j)
        EXPECT_EQ(out[0].getDouble(i * cw + j), xt.getDouble(i * W + j));
    ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{1, 1, H, 2}));
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j < 2; ++j)
        EXPECT_EQ(out[1].getDouble(i * 2 + j), xt.getDouble(i * W + W - 2 + j));
  }
}

TEST(OnnxSymbolicShape, PadToAMultipleOfFourWithPadsComputedFromTheShape) {
  // pads = [0, 0, 0, (4 - W % 4) % 4], constant 7.
  OnnxModelBuilder b;
  b.input("x", {int64_t(2), std::string("W")});
  b.intInitializer("i1", {1});
  b.intInitializer("four", {4});
  b.intInitializer("zeros", {0, 0, 0});
  b.initializer("seven", {}, {7.0f});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "i1"}, {"w"});
  b.node("Mod", {"w", "four"}, {"r"});
  b.node("Sub", {"four", "r"}, {"missing"});
  b.node("Mod", {"missing", "four"}, {"extra"});
  b.node("Concat", {"zeros", "extra"}, {"pads"});
  OnnxModelBuilder::attrInt(b.graph->mutable_node(5), "axis", 0);
  b.node("Pad", {"x", "pads", "seven"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_FALSE(calls(m, "shape_to_tensor"));
  EXPECT_FALSE(calls(m, "tensor_to_shape"));
  auto out = resultShape(m);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(asConstInt(out[1]));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  for (int64_t W : {4, 5, 7}) {
    Tensor xt = randomTensor({2, W}, int(W));
    auto y = r.executable->runTensors({xt});
    int64_t P = (W + 3) / 4 * 4;
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, P}));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < P; ++j)
        EXPECT_EQ(y[0].getDouble(i * P + j), j < W ? xt.getDouble(i * W + j) : 7.0) << W;
  }
}

TEST(OnnxSymbolicShape, SliceBoundsReadFromDataAreNormalizedAtRunTime) {
  // x[starts:ends:step] along axis 1 of a (2, 8) tensor, starts and ends
  // graph inputs: negative values count from the end, out-of-range ones
  // clamp, as numpy's slicing. One build, several bounds.
  for (int64_t step : {1, 3, -2}) {
    OnnxModelBuilder b;
    b.input("x", {int64_t(2), int64_t(8)});
    b.input("starts", {int64_t(1)}, onnx::TensorProto::INT64);
    b.input("ends", {int64_t(1)}, onnx::TensorProto::INT64);
    b.intInitializer("axes", {1});
    b.intInitializer("steps", {step});
    b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"Y"});
    b.output("Y");
    IRModule m = frontend::importOnnxBytes(b.bytes());
    EXPECT_TRUE(calls(m, "tensor_to_shape"));
    BuildResult r = build(m);
    ASSERT_TRUE(r.executable);
    Tensor x = randomTensor({2, 8}, 5);
    auto one = [](int64_t v) {
      Tensor t(DataType::Int64(), {1});
      t.setDouble(0, double(v));
      return t;
    };
    for (auto [s0, e0] :
         {std::pair<int64_t, int64_t>{1, 6}, {-3, 100}, {7, -9}, {-100, 3}, {5, 5}}) {
      // The expected indices, as Python's slice(s0, e0, step) over 8 values.
      std::vector<int64_t> want;
      auto clampB = [&](int64_t v) {
        if (v < 0)
          v += 8;
        return step > 0 ? std::clamp<int64_t>(v, 0, 8) : std::clamp<int64_t>(v, -1, 7);
      };
      for (int64_t i = clampB(s0), e = clampB(e0); step > 0 ? i < e : i > e; i += step)
        want.push_back(i);
      auto y = r.executable->runTensors({x, one(s0), one(e0)});
      ASSERT_EQ(y.size(), 1u);
      ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, int64_t(want.size())}))
          << s0 << ":" << e0 << ":" << step;
      for (int64_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < want.size(); ++j)
          EXPECT_EQ(y[0].getDouble(i * int64_t(want.size()) + int64_t(j)),
                    x.getDouble(i * 8 + want[j]));
    }
  }
}

TEST(OnnxSymbolicShape, AShapeComputedFromDataBindsFreshVariablesAtRunTime) {
  // Reshape(X, T) with T a graph input: 0 copies X's dim, -1 takes the
  // rest; the resolved values become the shape variables T_0, T_1, T_2 of
  // a match_cast. One build runs with different targets.
  OnnxModelBuilder b;
  b.input("X", {std::string("N"), int64_t(6)});
  b.input("T", {int64_t(3)}, onnx::TensorProto::INT64);
  b.node("Reshape", {"X", "T"}, {"Y"}, "reshape");
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_TRUE(calls(m, "tensor_to_shape"));
  bool matchCast = false;
  for (auto& bnd : bindingsOf(m))
    matchCast |= isa<MatchCast>(bnd);
  EXPECT_TRUE(matchCast);
  auto out = resultShape(m);
  ASSERT_EQ(out.size(), 3u);
  for (auto& d : out)
    EXPECT_TRUE(isa<PrimVar>(d));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto target = [](std::vector<int64_t> v) {
    Tensor t(DataType::Int64(), {3});
    for (int64_t i = 0; i < 3; ++i)
      t.setDouble(i, double(v[i]));
    return t;
  };
  struct Case {
    int64_t n;
    std::vector<int64_t> t, want;
  };
  for (const Case& k : {Case{2, {0, 3, 2}, {2, 3, 2}}, Case{4, {-1, 2, 4}, {3, 2, 4}},
                        Case{2, {2, 0, -1}, {2, 6, 1}}}) {
    Tensor x = randomTensor({k.n, 6}, int(k.n));
    auto y = r.executable->runTensors({x, target(k.t)});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].shape(), k.want);
    for (int64_t i = 0; i < x.numel() && i < y[0].numel(); ++i)
      EXPECT_EQ(y[0].getDouble(i), x.getDouble(i));
  }
}

TEST(OnnxSymbolicShape, RunTimeSizesThatChangeTheBatchAreAnErrorAtRunTime) {
  // Resize's sizes from data: H and W are fresh variables, N and C must be
  // the input's, which the match_cast checks when it runs.
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)});
  b.input("sizes", {int64_t(4)}, onnx::TensorProto::INT64);
  b.node("Resize", {"X", "", "", "sizes"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto sizes = [](int64_t n, int64_t h, int64_t w) {
    Tensor t(DataType::Int64(), {4});
    for (int64_t i = 0; i < 4; ++i)
      t.setDouble(i, double(std::vector<int64_t>{n, 1, h, w}[i]));
    return t;
  };
  Tensor x = randomTensor({1, 1, 2, 2}, 3);
  auto y = r.executable->runTensors({x, sizes(1, 4, 6)});
  ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1, 4, 6}));
  EXPECT_EQ(r.executable->runTensors({x, sizes(1, 3, 1)})[0].shape(),
            (std::vector<int64_t>{1, 1, 3, 1}));
  try {
    r.executable->runTensors({x, sizes(2, 4, 4)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 1"), std::string::npos) << e.what();
  }
}

TEST(OnnxSymbolicShape, StridedConvWithBiasAndReluFusesIntoOneKernelAtAnySize) {
  // The stride-2 output (N, 2, (H + 1) // 2, (W + 1) // 2) hides H and W in
  // compound dims: the bias add and relu kernels take them as scalar
  // parameters, which FuseTIR maps from the call's tir_vars.
  OnnxModelBuilder b;
  b.input("x", {std::string("N"), int64_t(1), std::string("H"), std::string("W")});
  b.initializer("w", {2, 1, 3, 3}, std::vector<float>(18, 1.0f));
  b.initializer("bias", {2}, {0.5f, -100.0f});
  auto* conv = b.node("Conv", {"x", "w", "bias"}, {"c"});
  auto* a = conv->add_attribute();
  a->set_name("strides");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(2);
  a->add_ints(2);
  auto* p = conv->add_attribute();
  p->set_name("pads");
  p->set_type(onnx::AttributeProto::INTS);
  for (int k = 0; k < 4; ++k)
    p->add_ints(1);
  b.node("Relu", {"c"}, {"Y"});
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  EXPECT_EQ(primFuncsOf(r.lowered).size(), 1u);
  for (auto [H, W] : {std::pair<int64_t, int64_t>{4, 5}, {7, 2}}) {
    Tensor x(DataType::Float32(), {1, 1, H, W});
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, 1.0);
    auto y = r.executable->runTensors({x});
    int64_t OH = (H + 1) / 2, OW = (W + 1) / 2;
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 2, OH, OW}));
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        // Ones under the 3x3 window at (2i - 1 .. 2i + 1, 2j - 1 .. 2j + 1).
        int64_t rows = std::min(2 * i + 1, H - 1) - std::max(2 * i - 1, int64_t(0)) + 1;
        int64_t cols = std::min(2 * j + 1, W - 1) - std::max(2 * j - 1, int64_t(0)) + 1;
        EXPECT_FLOAT_EQ(y[0].getDouble(i * OW + j), double(rows * cols) + 0.5);
        EXPECT_FLOAT_EQ(y[0].getDouble((OH + i) * OW + j), 0.0);
      }
  }
}

// ---- the dynamic models with ONNX Runtime references ----

class DynamicOnnxModel : public ::testing::TestWithParam<const char*> {};

TEST_P(DynamicOnnxModel, BuildsOnceAndMatchesOnnxRuntimeAtEverySize) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/onnx/models" / GetParam();
  IRModule m = frontend::importOnnx((dir / "model.onnx").string());
  bool symbolic = false;
  for (auto& d : paramShape(m, 0))
    symbolic |= !asConstInt(d).has_value();
  EXPECT_TRUE(symbolic) << "the model's input has no symbolic dim";
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  int sizes = 0;
  for (int k = 0; fs::exists(dir / ("size_" + std::to_string(k))); ++k, ++sizes) {
    fs::path sd = dir / ("size_" + std::to_string(k));
    std::vector<Tensor> want;
    for (int j = 0; fs::exists(sd / ("output_" + std::to_string(j) + ".npy")); ++j)
      want.push_back(readNpy((sd / ("output_" + std::to_string(j) + ".npy")).string()));
    ASSERT_FALSE(want.empty()) << sd;
    std::vector<Tensor> inputs;
    for (int i = 0; fs::exists(sd / ("input_" + std::to_string(i) + ".npy")); ++i)
      inputs.push_back(readNpy((sd / ("input_" + std::to_string(i) + ".npy")).string()));
    auto got = r.executable->runTensors(inputs);
    auto diff = runtime::compareTensorLists(got, want, {1e-4, 1e-4});
    EXPECT_TRUE(diff.same()) << sd << ": " << diff.structural << " " << diff.mismatches
                             << " mismatches, max abs " << diff.maxAbs;
  }
  EXPECT_GE(sizes, 2);
}

INSTANTIATE_TEST_SUITE_P(Models, DynamicOnnxModel,
                         ::testing::Values("classifier_flatten", "detector_fpn", "recognizer_seq",
                                           "ppocr_cls", "recurrent_if"));
