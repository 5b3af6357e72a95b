// Resize with scales or roi, and OneHot with depth, given at run time (graph
// inputs, not constants): each model is imported with every input a
// parameter (no specialization), built once, and run at two values of the
// run-time operand that give outputs of different sizes. The references are
// the ONNX operator definitions evaluated here by plain loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

Tensor typed(DataType dt, std::vector<int64_t> shape, const std::vector<double>& v) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

/// An NCHW float tensor with distinct, irregular values.
Tensor image(int64_t n, int64_t c, int64_t h, int64_t w) {
  Tensor t(DataType::Float32(), {n, c, h, w});
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, std::fmod(static_cast<double>(i * i) * 0.37 + static_cast<double>(i), 7.0));
  return t;
}

std::shared_ptr<runtime::Executable> buildModel(const OnnxModelBuilder& b, size_t params) {
  IRModule m = frontend::importOnnxBytes(b.bytes());
  // Every graph input stays a parameter: nothing was specialized.
  EXPECT_EQ(as<Function>(m->lookup("main"))->params.size(), params);
  BuildResult r = build(m);
  if (!r.executable)
    throw Error("build produced no executable");
  return r.executable;
}

/// The float32 value a double takes in a FLOAT tensor, widened back.
double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

/// out[n, c, y, x] = value(x's plane (n, c), source y, source x) over an
/// oh x ow output; `value` reads the input plane by (clamped) indices.
using Sample =
    std::function<double(const std::function<double(int64_t, int64_t)>&, int64_t, int64_t)>;
std::vector<double> resizeRef(const Tensor& x, int64_t oh, int64_t ow, const Sample& sample) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      auto px = [&](int64_t y, int64_t xx) {
        y = std::clamp<int64_t>(y, 0, H - 1);
        xx = std::clamp<int64_t>(xx, 0, W - 1);
        return x.getDouble(((n * C + c) * H + y) * W + xx);
      };
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx)
          out.push_back(sample(px, y, xx));
    }
  return out;
}

/// Bilinear interpolation at source coordinates (cy, cx), edges repeated.
double bilinear(const std::function<double(int64_t, int64_t)>& px, double cy, double cx) {
  double fy = std::floor(cy), fx = std::floor(cx);
  auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  double ty = cy - fy, tx = cx - fx;
  double top = px(y0, x0) * (1 - tx) + px(y0, x0 + 1) * tx;
  double bottom = px(y0 + 1, x0) * (1 - tx) + px(y0 + 1, x0 + 1) * tx;
  return top * (1 - ty) + bottom * ty;
}

void expectNear(const Tensor& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.getDouble(i), want[static_cast<size_t>(i)], tol) << "at element " << i;
}

} // namespace

// Linear, half_pixel: the output size is floor(in * scale) and the source
// coordinate (o + 0.5) / scale - 0.5 uses the scale itself, which differs
// from out / in at these fractional scales (a mapping by out / in fails).
TEST(OnnxRuntimeOperands, ResizeLinearWithScalesGivenAtRunTime) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), int64_t(2), int64_t(4), int64_t(5)});
  b.input("scales", {int64_t(4)});
  auto* n = b.node("Resize", {"X", "", "scales"}, {"Y"}, "rs");
  OnnxModelBuilder::attrString(n, "mode", "linear");
  b.output("Y");
  auto exe = buildModel(b, 2);
  Tensor x = image(1, 2, 4, 5);
  for (auto [sh, sw] : {std::pair{0.6, 0.7}, std::pair{1.7, 2.5}}) {
    double fh = f32(sh), fw = f32(sw);
    auto oh = static_cast<int64_t>(std::floor(4 * fh)),
         ow = static_cast<int64_t>(std::floor(5 * fw));
    auto y = exe->runTensors({x, typed(DataType::Float32(), {4}, {1, 1, sh, sw})});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 2, oh, ow})) << sh << " x " << sw;
    expectNear(y[0],
               resizeRef(x, oh, ow,
                         [&](auto& px, int64_t o, int64_t p) {
                           return bilinear(px, (double(o) + 0.5) / fh - 0.5,
                                           (double(p) + 0.5) / fw - 0.5);
                         }),
               1e-5);
  }
}

// Nearest (asymmetric, floor) of an input with symbolic H and W: one build
// runs at two input sizes and two scales; a scale that would resize the
// batch axis is refused at run time naming the node.
TEST(OnnxRuntimeOperands, ResizeNearestWithRunTimeScalesOfASymbolicInput) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), int64_t(1), std::string("H"), std::string("W")});
  b.input("scales", {int64_t(4)});
  auto* n = b.node("Resize", {"X", "", "scales"}, {"Y"}, "rs");
  OnnxModelBuilder::attrString(n, "mode", "nearest");
  OnnxModelBuilder::attrString(n, "coordinate_transformation_mode", "asymmetric");
  OnnxModelBuilder::attrString(n, "nearest_mode", "floor");
  b.output("Y");
  auto exe = buildModel(b, 2);
  struct Case {
    int64_t h, w;
    double sh, sw;
  };
  for (auto [h, w, sh, sw] : {Case{3, 4, 2.0, 1.5}, Case{5, 2, 0.5, 3.0}}) {
    Tensor x = image(1, 1, h, w);
    auto oh = static_cast<int64_t>(std::floor(double(h) * sh));
    auto ow = static_cast<int64_t>(std::floor(double(w) * sw));
    auto y = exe->runTensors({x, typed(DataType::Float32(), {4}, {1, 1, sh, sw})});
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1, oh, ow}));
    expectNear(y[0],
               resizeRef(x, oh, ow,
                         [&](auto& px, int64_t o, int64_t p) {
                           return px(static_cast<int64_t>(std::floor(double(o) / sh)),
                                     static_cast<int64_t>(std::floor(double(p) / sw)));
                         }),
               0);
  }
  try {
    exe->runTensors({image(1, 1, 3, 4), typed(DataType::Float32(), {4}, {2, 1, 1, 1})});
    FAIL() << "a scale of 2 on the batch axis was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("rs"), std::string::npos) << e.message();
  }
  // A negative scale gives a negative size: an error naming the node too.
  try {
    exe->runTensors({image(1, 1, 3, 4), typed(DataType::Float32(), {4}, {1, 1, -1, 1})});
    FAIL() << "a negative scale was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("rs"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("negative"), std::string::npos) << e.message();
  }
}

// tf_crop_and_resize with the crop box given at run time and constant sizes:
// source = start * (in - 1) + o * (end - start) * (in - 1) / (out - 1), and
// positions outside the input take the extrapolation value.
TEST(OnnxRuntimeOperands, ResizeCropAndResizeWithRoiGivenAtRunTime) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(1), int64_t(1), int64_t(4), int64_t(4)});
  b.input("roi", {int64_t(8)});
  b.intInitializer("sizes", {1, 1, 3, 3});
  auto* n = b.node("Resize", {"X", "roi", "", "sizes"}, {"Y"}, "crop");
  OnnxModelBuilder::attrString(n, "mode", "linear");
  OnnxModelBuilder::attrString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  OnnxModelBuilder::attrFloat(n, "extrapolation_value", 10.0F);
  b.output("Y");
  auto exe = buildModel(b, 2);
  Tensor x = image(1, 1, 4, 4);
  for (auto roi : {std::vector<double>{0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8},
                   std::vector<double>{0, 0, -0.5, 0.1, 1, 1, 0.9, 1.5}}) {
    auto y = exe->runTensors({x, typed(DataType::Float32(), {8}, roi)});
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{1, 1, 3, 3}));
    auto src = [&](int64_t o, int axis) {
      double start = f32(roi[2 + axis]), end = f32(roi[6 + axis]);
      return start * 3 + double(o) * (end - start) * 3 / 2;
    };
    expectNear(y[0],
               resizeRef(x, 3, 3,
                         [&](auto& px, int64_t o, int64_t p) {
                           double cy = src(o, 0), cx = src(p, 1);
                           if (cy < 0 || cy > 3 || cx < 0 || cx > 3)
                             return 10.0;
                           return bilinear(px, cy, cx);
                         }),
               1e-5);
  }
}

namespace {

/// OneHot by its definition: out[.., k at axis, ..] = on where the index
/// (negative ones counting from depth) equals k, else off.
std::vector<double> oneHotRef(const std::vector<int64_t>& ind, int64_t rows, int64_t cols,
                              int64_t depth, double off, double on) {
  std::vector<double> out; // shape [rows, depth, cols] (axis 1)
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < depth; ++k)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t v = ind[static_cast<size_t>(i * cols + j)];
        out.push_back((v < 0 ? v + depth : v) == k ? on : off);
      }
  return out;
}

} // namespace

// The depth (a float scalar, as in the ONNX node tests) becomes a shape
// variable bound at run time: one build runs at depths 4 and 6, with the
// values constant and with the values given at run time as well.
TEST(OnnxRuntimeOperands, OneHotWithDepthGivenAtRunTime) {
  std::vector<int64_t> ind{0, -1, 2, 3, -3, 1};
  Tensor indices(DataType::Int64(), {2, 3});
  for (size_t i = 0; i < ind.size(); ++i)
    indices.setDouble(static_cast<int64_t>(i), static_cast<double>(ind[i]));
  for (bool runtimeValues : {false, true}) {
    SCOPED_TRACE(runtimeValues ? "run-time values" : "constant values");
    OnnxModelBuilder b(11);
    b.input("I", {int64_t(2), int64_t(3)}, onnx::TensorProto::INT64);
    b.input("depth", {});
    if (runtimeValues)
      b.input("values", {int64_t(2)});
    else
      b.initializer("values", {2}, {-1, 5});
    auto* n = b.node("OneHot", {"I", "depth", "values"}, {"Y"}, "oh");
    OnnxModelBuilder::attrInt(n, "axis", 1);
    b.output("Y");
    auto exe = buildModel(b, runtimeValues ? 3 : 2);
    for (int64_t depth : {4, 6}) {
      std::vector<Tensor> args{indices, typed(DataType::Float32(), {}, {double(depth)})};
      if (runtimeValues)
        args.push_back(typed(DataType::Float32(), {2}, {-1, 5}));
      auto y = exe->runTensors(args);
      ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{2, depth, 3}));
      expectNear(y[0], oneHotRef(ind, 2, 3, depth, -1, 5), 0);
    }
  }
}
