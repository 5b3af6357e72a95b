// Every registered operator, end to end: a one-operator module with seeded
// random inputs runs through build() (the default pipeline: legalize, fuse,
// schedule, LLVM) and through the reference evaluator, and the outputs must
// agree (floats: rtol 1e-4, atol 1e-5; integers and bools exactly). Cases
// whose shapes mention `n` run at two values of it with one build. The main
// attribute variants of each operator are cases of their own.
//
// Variants the lowering does not implement are marked `lowered = false`:
// for them build-and-run must fail with a unity::Error (never a crash), and
// the reference still runs them. When lowering learns one, flip the flag.
#include <gtest/gtest.h>

#include <set>

#include "engine/op/op.h"
#include "engine/support/error.h"
#include "tests/engine/e2e/e2e_util.h"

using namespace unity;
using namespace e2e;

namespace {

struct OpCase {
  std::string op;     // registry name (coverage is checked against allOps())
  std::string params; // parameter list of main
  std::string call;   // the one call
  std::vector<Range> ranges = {};
  bool lowered = true;
};

std::string F(const std::string& dims) { return tensorType(dims); }
std::string I32(const std::string& dims) { return tensorType(dims, "int32"); }
std::string I64(const std::string& dims) { return tensorType(dims, "int64"); }
std::string B(const std::string& dims) { return tensorType(dims, "bool"); }

const Range kPos{0.5, 2}, kNeg{-2, -0.5}, kSmallInt{-2, 2}, kNonzeroInt{-6, 6, true};

std::vector<OpCase> elementwiseCases() {
  std::vector<OpCase> cs;
  std::string x = "x: " + F("n, 3, 4");
  for (const char* op : {"abs", "negative", "exp", "sin", "cos", "tanh", "sigmoid", "erf", "floor",
                         "ceil", "round", "sign", "nn.relu", "nn.gelu", "nn.gelu_tanh", "nn.silu"})
    cs.push_back({op, x, std::string("R.") + op + "(x)"});
  for (const char* op : {"log", "sqrt", "rsqrt", "reciprocal"})
    cs.push_back({op, x, std::string("R.") + op + "(x)", {kPos}});
  cs.push_back({"nn.hardswish", x, "R.nn.hardswish(x)", {{-5, 5}}});
  cs.push_back({"nn.leakyrelu", x, "R.nn.leakyrelu(x)"});
  cs.push_back({"nn.leakyrelu", x, "R.nn.leakyrelu(x, alpha=0.25)"});
  cs.push_back({"clip", x, "R.clip(x, min=-0.5, max=0.75)"});
  std::string xi = "x: " + I32("n, 5");
  for (const char* op : {"abs", "negative", "sign", "nn.relu", "floor", "round"})
    cs.push_back({op, xi, std::string("R.") + op + "(x)", {{-9, 9}}});
  cs.push_back({"logical_not", "x: " + B("n, 4"), "R.logical_not(x)"});
  cs.push_back({"astype", x, "R.astype(x, dtype=\"int32\")", {{-9, 9}}});
  cs.push_back({"astype", xi, "R.astype(x, dtype=\"float32\")", {{-9, 9}}});
  cs.push_back({"astype", "x: " + B("n, 4"), "R.astype(x, dtype=\"float32\")"});
  cs.push_back({"astype", xi, "R.astype(x, dtype=\"int64\")", {{-9, 9}}});

  // Binary arithmetic, with broadcasting variants.
  std::string ab = "a: " + F("n, 3, 4") + ", b: " + F("n, 3, 4");
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum"})
    cs.push_back({op, ab, std::string("R.") + op + "(a, b)"});
  cs.push_back({"divide", ab, "R.divide(a, b)", {{}, kPos}});
  cs.push_back({"floor_divide", ab, "R.floor_divide(a, b)", {{-4, 4}, kPos}});
  cs.push_back({"mod", ab, "R.mod(a, b)", {{-4, 4}, kPos}});
  cs.push_back({"mod", ab, "R.mod(a, b)", {{-4, 4}, kNeg}});
  cs.push_back({"power", ab, "R.power(a, b)", {kPos, {-2, 2}}});
  cs.push_back({"add", "a: " + F("n, 1, 4") + ", b: " + F("3, 1"), "R.add(a, b)"});
  cs.push_back({"multiply", "a: " + F("n, 3, 4") + ", b: " + F("4"), "R.multiply(a, b)"});
  cs.push_back({"subtract", "a: " + F("") + ", b: " + F("n, 2"), "R.subtract(a, b)"});
  cs.push_back(
      {"divide", "a: " + F("n, 3, 4") + ", b: " + F("1, 3, 1"), "R.divide(a, b)", {{}, kNeg}});
  std::string abi = "a: " + I32("n, 5") + ", b: " + I32("n, 5");
  std::string abl = "a: " + I64("n, 5") + ", b: " + I64("n, 5");
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum"})
    cs.push_back({op, abi, std::string("R.") + op + "(a, b)", {{-9, 9}, {-9, 9}}});
  cs.push_back({"divide", abl, "R.divide(a, b)", {{-20, 20}, kNonzeroInt}});
  cs.push_back({"floor_divide", abl, "R.floor_divide(a, b)", {{-20, 20}, kNonzeroInt}});
  cs.push_back({"mod", abl, "R.mod(a, b)", {{-20, 20}, kNonzeroInt}});
  cs.push_back({"mod", abi, "R.mod(a, b)", {{-20, 20}, kNonzeroInt}});
  // Integer power goes through float64 (exact for these magnitudes).
  cs.push_back({"power", abi, "R.power(a, b)", {{-3, 3}, {0, 3}}});

  // Comparisons (small integers, so equal values occur) and logic.
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    cs.push_back({op, abl, std::string("R.") + op + "(a, b)", {kSmallInt, kSmallInt}});
    cs.push_back({op, "a: " + F("n, 3") + ", b: " + F("3"), std::string("R.") + op + "(a, b)"});
  }
  std::string bb = "a: " + B("n, 4") + ", b: " + B("n, 1");
  cs.push_back({"logical_and", bb, "R.logical_and(a, b)"});
  cs.push_back({"logical_or", bb, "R.logical_or(a, b)"});
  cs.push_back({"where", "c: " + B("n, 1, 4") + ", a: " + F("n, 3, 4") + ", b: " + F("4"),
                "R.where(c, a, b)"});
  cs.push_back({"where",
                "c: " + B("n, 3") + ", a: " + I64("n, 3") + ", b: " + I64("n, 3"),
                "R.where(c, a, b)",
                {{}, {-9, 9}, {-9, 9}}});
  return cs;
}

std::vector<OpCase> reduceCases() {
  std::vector<OpCase> cs;
  std::string x = "x: " + F("n, 3, 4");
  cs.push_back({"sum", x, "R.sum(x)"});
  cs.push_back({"sum", x, "R.sum(x, axis=[1], keepdims=True)"});
  cs.push_back({"sum", x, "R.sum(x, axis=[-1, 0])"});
  // An explicit empty axis list reduces nothing; absent reduces all.
  cs.push_back({"sum", x, "R.sum(x, axis=[])"});
  cs.push_back({"mean", x, "R.mean(x, axis=[], keepdims=True)"});
  cs.push_back({"mean", x, "R.mean(x, axis=[2])"});
  cs.push_back({"mean", x, "R.mean(x, keepdims=True)"});
  cs.push_back({"max", x, "R.max(x, axis=[1])"});
  cs.push_back({"max", x, "R.max(x)"});
  cs.push_back({"min", x, "R.min(x, axis=[0, 2], keepdims=True)"});
  cs.push_back({"prod", x, "R.prod(x, axis=[2])", {{0.5, 1.5}}});
  std::string xi = "x: " + I32("n, 3, 4");
  cs.push_back({"sum", xi, "R.sum(x, axis=[1])", {{-9, 9}}});
  cs.push_back({"max", "x: " + I64("n, 6"), "R.max(x, axis=[1], keepdims=True)", {{-9, 9}}});
  cs.push_back({"min", xi, "R.min(x)", {{-9, 9}}});
  cs.push_back({"argmax", x, "R.argmax(x, axis=1)"});
  cs.push_back({"argmax", x, "R.argmax(x, axis=-1, keepdims=True)"});
  cs.push_back({"argmax", x, "R.argmax(x)"});
  cs.push_back({"argmin", x, "R.argmin(x, axis=0)"});
  cs.push_back({"argmin", "x: " + I64("n, 7"), "R.argmin(x, axis=1)", {kSmallInt}});
  cs.push_back({"argmax", x, "R.argmax(x, keepdims=True)", {}, false});
  return cs;
}

std::vector<OpCase> nnCases() {
  std::vector<OpCase> cs;
  cs.push_back({"matmul", "a: " + F("n, 3, 4") + ", b: " + F("4, 5"), "R.matmul(a, b)"});
  cs.push_back({"matmul", "a: " + F("2, 1, n, 4") + ", b: " + F("3, 4, 5"), "R.matmul(a, b)"});
  cs.push_back({"matmul", "a: " + F("4") + ", b: " + F("n, 4, 5"), "R.matmul(a, b)"});
  cs.push_back({"matmul", "a: " + F("n, 4") + ", b: " + F("4"), "R.matmul(a, b)"});
  cs.push_back({"matmul",
                "a: " + I32("n, 3") + ", b: " + I32("3, 2"),
                "R.matmul(a, b)",
                {{-5, 5}, {-5, 5}}});
  cs.push_back(
      {"matmul", "a: " + F("n, 3") + ", b: " + F("3, 2"), "R.matmul(a, b, out_dtype=\"float64\")"});
  cs.push_back({"nn.dense", "x: " + F("n, 4") + ", w: " + F("5, 4"), "R.nn.dense(x, w)"});
  cs.push_back({"nn.dense", "x: " + F("n, 4") + ", w: " + F("5, 4"),
                "R.nn.dense(x, w, out_dtype=\"float64\")"});
  cs.push_back({"nn.dense", "x: " + F("n, 2, 4") + ", w: " + F("5, 4") + ", b: " + F("5"),
                "R.nn.dense(x, w, b)"});
  cs.push_back(
      {"linear", "x: " + F("n, 4") + ", w: " + F("3, 4") + ", b: " + F("3"), "R.linear(x, w, b)"});

  std::string conv = "x: " + F("n, 3, 7, 6") + ", w: " + F("4, 3, 3, 3");
  cs.push_back({"nn.conv2d", conv, "R.nn.conv2d(x, w)"});
  cs.push_back({"nn.conv2d", conv, "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])"});
  cs.push_back({"nn.conv2d", conv, "R.nn.conv2d(x, w, out_dtype=\"float64\")"});
  cs.push_back({"nn.conv2d", conv, "R.nn.conv2d(x, w, strides=[1, 2], padding=[1, 0, 2, 1])"});
  cs.push_back({"nn.conv2d", conv, "R.nn.conv2d(x, w, padding=[2, 2, 2, 2], dilation=[2, 2])"});
  cs.push_back({"nn.conv2d", "x: " + F("n, 4, 5, 5") + ", w: " + F("6, 2, 3, 3"),
                "R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=2)"});
  cs.push_back({"nn.conv2d", "x: " + F("n, 4, 5, 5") + ", w: " + F("4, 1, 3, 3"),
                "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], groups=4)"});
  // Winograd's form with any weight and matrices (F(4x4): a = 6, F(2x2): a
  // = 4): the compiled stages against the reference's definition, partial
  // tiles at the bottom and right, a symbolic batch.
  cs.push_back({"nn.conv2d_winograd",
                "x: " + F("n, 3, 9, 7") + ", w: " + F("36, 3, 5") + ", t: " + F("10, 6"),
                "R.nn.conv2d_winograd(x, w, t, padding=[1, 0, 1, 2])"});
  cs.push_back({"nn.conv2d_winograd",
                "x: " + F("n, 4, 6, 5") + ", w: " + F("16, 4, 3") + ", t: " + F("6, 4"),
                "R.nn.conv2d_winograd(x, w, t)"});
  cs.push_back({"nn.conv2d_winograd",
                "x: " + F("n, 4, 6, 5") + ", w: " + F("16, 4, 3") + ", t: " + F("6, 4"),
                "R.nn.conv2d_winograd(x, w, t, padding=[1])"});
  // A symbolic image (height, width or both; n = 2 and 5) takes the wide
  // form with symbolic rows (conv2dWideSymbolic) when each output sums at
  // least 27 products (or a 1x1 kernel over 24 channels or more).
  cs.push_back({"nn.conv2d", "x: " + F("1, 4, 6, n") + ", w: " + F("5, 4, 3, 3"),
                "R.nn.conv2d(x, w, padding=[1, 1, 1, 1])"});
  cs.push_back({"nn.conv2d", "x: " + F("2, 4, n, 7") + ", w: " + F("3, 4, 3, 3"),
                "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])"});
  cs.push_back({"nn.conv2d", "x: " + F("1, 4, n, n") + ", w: " + F("4, 4, 3, 3"),
                "R.nn.conv2d(x, w, strides=[1, 2], padding=[1, 0, 2, 1], dilation=[2, 1])"});
  cs.push_back(
      {"nn.conv2d", "x: " + F("1, 32, n, 9") + ", w: " + F("6, 32, 1, 1"), "R.nn.conv2d(x, w)"});
  cs.push_back({"nn.conv2d", "x: " + F("1, 24, 5, n") + ", w: " + F("4, 24, 1, 1"),
                "R.nn.conv2d(x, w, strides=[2, 2])"});
  cs.push_back({"nn.conv2d", "x: " + F("1, 8, n, 6") + ", w: " + F("6, 4, 3, 3"),
                "R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=2)"});
  std::string c1 = "x: " + F("n, 3, 9") + ", w: " + F("4, 3, 3");
  cs.push_back({"nn.conv1d", c1, "R.nn.conv1d(x, w)"});
  cs.push_back({"nn.conv1d", c1, "R.nn.conv1d(x, w, strides=[2], padding=[1, 2], dilation=[2])"});
  cs.push_back({"nn.conv1d", "x: " + F("n, 3, 7") + ", w: " + F("6, 1, 3"),
                "R.nn.conv1d(x, w, padding=[1, 1], groups=3)"});
  std::string ct = "x: " + F("n, 4, 4, 3") + ", w: " + F("4, 2, 3, 3");
  cs.push_back({"nn.conv2d_transpose", ct, "R.nn.conv2d_transpose(x, w)"});
  // Stride equal to the kernel: a pointwise convolution and a shuffle
  // (direct and, from 24 channels, wide; constant and symbolic images).
  cs.push_back({"nn.conv2d_transpose", "x: " + F("n, 3, 4, 5") + ", w: " + F("3, 2, 2, 2"),
                "R.nn.conv2d_transpose(x, w, strides=[2, 2])"});
  cs.push_back({"nn.conv2d_transpose", "x: " + F("1, 24, n, 3") + ", w: " + F("24, 4, 2, 2"),
                "R.nn.conv2d_transpose(x, w, strides=[2, 2])"});
  cs.push_back({"nn.conv2d_transpose", "x: " + F("1, 4, 3, n") + ", w: " + F("4, 3, 2, 3"),
                "R.nn.conv2d_transpose(x, w, strides=[2, 3])"});
  cs.push_back({"nn.conv2d_transpose", ct,
                "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1], "
                "output_padding=[1, 1])"});
  cs.push_back({"nn.conv2d_transpose", ct, "R.nn.conv2d_transpose(x, w, dilation=[2, 2])"});
  cs.push_back({"nn.conv2d_transpose", "x: " + F("n, 4, 3, 3") + ", w: " + F("4, 3, 3, 3"),
                "R.nn.conv2d_transpose(x, w, strides=[2, 2], groups=2)"});

  std::string c3 = "x: " + F("n, 4, 5, 6, 4") + ", w: " + F("6, 2, 3, 2, 3");
  cs.push_back({"nn.conv3d", c3, "R.nn.conv3d(x, w, groups=2)"});
  cs.push_back({"nn.conv3d", c3,
                "R.nn.conv3d(x, w, strides=[2, 1, 2], padding=[1, 0, 1, 1, 1, 0], "
                "dilation=[1, 2, 1], groups=2)"});
  cs.push_back({"nn.conv3d", "x: " + F("n, 2, 4, 4, 4") + ", w: " + F("3, 2, 2, 2, 2"),
                "R.nn.conv3d(x, w, out_dtype=\"float64\")"});
  std::string ct3 = "x: " + F("n, 4, 3, 2, 3") + ", w: " + F("4, 2, 2, 3, 2");
  cs.push_back({"nn.conv3d_transpose", ct3, "R.nn.conv3d_transpose(x, w)"});
  cs.push_back({"nn.conv3d_transpose", ct3,
                "R.nn.conv3d_transpose(x, w, strides=[2, 2, 3], padding=[1, 0, 1, 0, 1, 1], "
                "output_padding=[1, 0, 2], groups=2)"});
  cs.push_back({"nn.conv3d_transpose", ct3,
                "R.nn.conv3d_transpose(x, w, dilation=[2, 1, 2], strides=[1, 2, 1])"});

  std::string img = "x: " + F("n, 3, 7, 6");
  cs.push_back({"nn.max_pool2d", img, "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])"});
  cs.push_back({"nn.max_pool2d", img,
                "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])"});
  cs.push_back({"nn.max_pool2d", img,
                "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)"});
  cs.push_back({"nn.max_pool2d", img,
                "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 0, 0, 1], "
                "ceil_mode=True)"});
  cs.push_back({"nn.max_pool2d", img, "R.nn.max_pool2d(x, pool_size=[2, 2], dilation=[2, 2])"});
  cs.push_back({"nn.max_pool2d", img,
                "R.nn.max_pool2d(x, pool_size=[2, 3], strides=[2, 1], padding=[1, 1, 1, 1], "
                "dilation=[3, 2])"});
  cs.push_back({"nn.avg_pool2d", img,
                "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)"});
  cs.push_back({"nn.avg_pool2d", img,
                "R.nn.avg_pool2d(x, pool_size=[3, 2], strides=[2, 2], padding=[1, 1, 1, 1], "
                "ceil_mode=True, count_include_pad=True)"});
  cs.push_back({"nn.avg_pool2d", img,
                "R.nn.avg_pool2d(x, pool_size=[2, 2], padding=[1, 1, 1, 1], dilation=[2, 3])"});
  cs.push_back({"nn.avg_pool2d", img,
                "R.nn.avg_pool2d(x, pool_size=[2, 2], padding=[1, 1, 1, 1], dilation=[2, 2], "
                "count_include_pad=True)"});
  std::string vol = "x: " + F("n, 2, 5, 6, 4");
  cs.push_back({"nn.max_pool3d", vol, "R.nn.max_pool3d(x, pool_size=[2, 2, 2])"});
  cs.push_back({"nn.max_pool3d", vol,
                "R.nn.max_pool3d(x, pool_size=[3, 3, 2], strides=[2, 2, 2], "
                "padding=[1, 1, 0, 1, 1, 1], ceil_mode=True)"});
  cs.push_back({"nn.avg_pool3d", vol,
                "R.nn.avg_pool3d(x, pool_size=[2, 3, 2], strides=[2, 1, 2], "
                "padding=[1, 1, 1, 0, 1, 0])"});
  cs.push_back({"nn.avg_pool3d", vol,
                "R.nn.avg_pool3d(x, pool_size=[3, 3, 3], strides=[2, 2, 2], "
                "padding=[1, 1, 1, 1, 1, 1], count_include_pad=True, ceil_mode=True)"});
  cs.push_back({"nn.avg_pool2d", img, "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2])"});
  cs.push_back(
      {"nn.avg_pool2d", img, "R.nn.avg_pool2d(x, pool_size=[3, 3], padding=[1, 1, 1, 1])"});
  cs.push_back({"nn.avg_pool2d", img,
                "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], "
                "count_include_pad=True)"});
  cs.push_back({"nn.adaptive_avg_pool2d",
                img,
                "R.nn.adaptive_avg_pool2d(x, output_size=[3, 4])",
                {},
                false});
  cs.push_back({"nn.global_avg_pool2d", img, "R.nn.global_avg_pool2d(x)"});

  std::string bn = "x: " + F("n, 3, 4, 4") + ", g: " + F("3") + ", b: " + F("3") +
                   ", m: " + F("3") + ", v: " + F("3");
  std::vector<Range> bnRanges = {{}, {}, {}, {}, kPos};
  cs.push_back({"nn.batch_norm", bn, "R.nn.batch_norm(x, g, b, m, v)", bnRanges});
  cs.push_back({"nn.batch_norm",
                "x: " + F("n, 5") + ", g: " + F("5") + ", b: " + F("5") + ", m: " + F("5") +
                    ", v: " + F("5"),
                "R.nn.batch_norm(x, g, b, m, v, axis=-1, epsilon=0.01)", bnRanges});
  cs.push_back(
      {"nn.batch_norm", bn, "R.nn.batch_norm(x, g, b, m, v, center=False)", bnRanges, false});
  cs.push_back({"nn.layer_norm", "x: " + F("n, 8") + ", g: " + F("8") + ", b: " + F("8"),
                "R.nn.layer_norm(x, g, b, axes=[-1])"});
  cs.push_back({"nn.layer_norm", "x: " + F("n, 3, 4") + ", g: " + F("3, 4") + ", b: " + F("3, 4"),
                "R.nn.layer_norm(x, g, b, axes=[1, 2], epsilon=0.001)"});
  cs.push_back({"nn.layer_norm",
                "x: " + F("n, 8") + ", g: " + F("8") + ", b: " + F("8"),
                "R.nn.layer_norm(x, g, b, axes=[-1], scale=False)",
                {},
                false});
  std::string sx = "x: " + F("n, 3, 5");
  cs.push_back({"nn.softmax", sx, "R.nn.softmax(x)", {{-4, 4}}});
  cs.push_back({"nn.softmax", sx, "R.nn.softmax(x, axis=1)", {{-4, 4}}});
  cs.push_back({"nn.softmax", sx, "R.nn.softmax(x, axis=0)", {{-4, 4}}});
  cs.push_back({"nn.log_softmax", sx, "R.nn.log_softmax(x)", {{-4, 4}}});
  cs.push_back({"nn.log_softmax", sx, "R.nn.log_softmax(x, axis=1)", {{-4, 4}}});
  return cs;
}

std::vector<OpCase> manipCases() {
  std::vector<OpCase> cs;
  std::string x = "x: " + F("n, 3, 4");
  cs.push_back({"reshape", x, "R.reshape(x, R.shape([n, 12]))"});
  cs.push_back({"reshape", x, "R.reshape(x, R.shape([-1, 4]))"});
  cs.push_back({"reshape", x, "R.reshape(x, R.shape([n, 2, 1, 6]))"});
  cs.push_back({"permute_dims", x, "R.permute_dims(x, axes=[2, 0, 1])"});
  cs.push_back({"permute_dims", x, "R.permute_dims(x)"});
  cs.push_back(
      {"concat", "a: " + F("n, 2, 4") + ", b: " + F("n, 3, 4"), "R.concat((a, b), axis=1)"});
  cs.push_back({"concat", "a: " + F("n, 2") + ", b: " + F("n, 1") + ", c: " + F("n, 3"),
                "R.concat((a, b, c), axis=-1)"});
  cs.push_back({"concat", "a: " + F("n, 2") + ", b: " + F("3, 2"), "R.concat((a, b))"});
  cs.push_back({"split", "x: " + F("n, 4, 3"), "R.split(x, indices_or_sections=2, axis=1)"});
  cs.push_back({"split", "x: " + F("n, 3, 5"), "R.split(x, indices_or_sections=[1, 3], axis=2)"});
  // An index past the dim gives an empty last part (numpy).
  cs.push_back({"split", "x: " + F("n, 5"), "R.split(x, indices_or_sections=[2, 9], axis=1)"});
  std::string s = "x: " + F("n, 5, 6");
  cs.push_back(
      {"strided_slice", s, "R.strided_slice(x, axes=[1], begin=[1], end=[4], strides=[2])"});
  cs.push_back({"strided_slice", s, "R.strided_slice(x, axes=[2], begin=[-4], end=[-1])"});
  cs.push_back({"strided_slice", s,
                "R.strided_slice(x, axes=[1, 2], begin=[0, 1], end=[100, 6], strides=[1, 3])"});
  cs.push_back(
      {"strided_slice", s, "R.strided_slice(x, axes=[1], begin=[4], end=[0], strides=[-2])"});
  cs.push_back({"strided_slice", s, "R.strided_slice(x, axes=[0], begin=[1], end=[2147483648])"});
  cs.push_back(
      {"take", "x: " + F("n, 5") + ", i: " + I64("3"), "R.take(x, i, axis=1)", {{}, {0, 4}}});
  cs.push_back(
      {"take", "x: " + F("n, 5") + ", i: " + I32("2, 2"), "R.take(x, i, axis=0)", {{}, {0, 1}}});
  cs.push_back({"take", "x: " + F("n, 5") + ", i: " + I64("4"), "R.take(x, i)", {{}, {0, 9}}});
  cs.push_back(
      {"take", "x: " + F("n, 5") + ", i: " + I64("3"), "R.take(x, i, axis=-1)", {{}, {-5, -1}}});
  cs.push_back({"squeeze", "x: " + F("n, 1, 4"), "R.squeeze(x, axis=[1])"});
  cs.push_back({"squeeze", "x: " + F("2, 1, 4, 1"), "R.squeeze(x)"});
  cs.push_back({"expand_dims", "x: " + F("n, 4"), "R.expand_dims(x, axis=[0, 3])"});
  cs.push_back({"expand_dims", "x: " + F("n, 4"), "R.expand_dims(x, axis=[-1])"});
  cs.push_back({"broadcast_to", "x: " + F("1, 4"), "R.broadcast_to(x, R.shape([2, 3, 4]))"});
  cs.push_back({"broadcast_to", "x: " + F("n, 1, 4"), "R.broadcast_to(x, R.shape([n, 3, 4]))"});
  cs.push_back({"arange", "x: " + F("n, 4"), "R.arange(R.shape([n * 2 + 1]))"});
  cs.push_back({"flatten", x, "R.flatten(x)"});
  cs.push_back({"nn.batch_flatten", x, "R.nn.batch_flatten(x)"});
  cs.push_back({"nn.pad", x, "R.nn.pad(x, pad_width=[0, 0, 1, 2, 2, 1], pad_value=0.5)"});
  cs.push_back({"nn.pad", x, "R.nn.pad(x, pad_width=[1, 0, 0, 0, 0, 0])"});
  cs.push_back({"nn.pad", x, "R.nn.pad(x, pad_width=[0, 0, 1, 1, 2, 2], pad_mode=\"edge\")"});
  cs.push_back({"nn.pad", x, "R.nn.pad(x, pad_width=[0, 1, 1, 2, 3, 0], pad_mode=\"edge\")"});
  cs.push_back({"nn.pad", x, "R.nn.pad(x, pad_width=[0, 0, 1, 1, 2, 2], pad_mode=\"reflect\")"});
  // Pads wider than the dim reflect repeatedly (numpy), a unit dim repeats.
  cs.push_back({"nn.pad", "x: " + F("n, 3, 1"),
                "R.nn.pad(x, pad_width=[0, 0, 5, 4, 2, 1], pad_mode=\"reflect\")"});
  std::string im = "x: " + F("n, 2, 4, 3");
  cs.push_back({"image.resize2d", im, "R.image.resize2d(x, size=[8, 6])"});
  cs.push_back(
      {"image.resize2d", im,
       "R.image.resize2d(x, size=[7, 5], coordinate_transformation_mode=\"align_corners\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[3, 2], coordinate_transformation_mode=\"asymmetric\")"});
  cs.push_back(
      {"image.resize2d", im, "R.image.resize2d(x, size=[7, 5], method=\"nearest_neighbor\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[8, 7], method=\"nearest_neighbor\", "
                "coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")"});
  cs.push_back({"image.resize2d", im, "R.image.resize2d(x, size=[5, 5], method=\"cubic\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[9, 2], method=\"cubic\", cubic_alpha=-0.75, "
                "coordinate_transformation_mode=\"align_corners\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[3, 7], method=\"cubic\", cubic_exclude=True, "
                "coordinate_transformation_mode=\"asymmetric\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[2, 1], scales=[0.6, 0.45], method=\"linear\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[6, 4], scales=[1.7, 1.4], method=\"cubic\", "
                "cubic_exclude=True)"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[3, 5], method=\"nearest_neighbor\", "
                "coordinate_transformation_mode=\"tf_half_pixel_for_nn\", "
                "rounding_method=\"round_prefer_floor\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[1, 5], "
                "coordinate_transformation_mode=\"pytorch_half_pixel\")"});
  // The crop box reaches past the input: those positions extrapolate.
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[3, 4], roi=[0.2, -0.3, 0.9, 0.8], "
                "extrapolation_value=7.5, "
                "coordinate_transformation_mode=\"tf_crop_and_resize\")"});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[1, 3], roi=[0.5, 0.0, 0.5, 1.3], method=\"cubic\", "
                "coordinate_transformation_mode=\"tf_crop_and_resize\")"});
  // Scales and crop box as a run-time operand (operand 2).
  cs.push_back({"image.resize2d",
                im + ", s: " + F("2"),
                "R.image.resize2d(x, R.shape([7, 2]), s, method=\"cubic\")",
                {{}, {0.4, 2.0}}});
  cs.push_back({"image.resize2d",
                im + ", s: " + F("2"),
                "R.image.resize2d(x, R.shape([5, 4]), s, method=\"linear\", "
                "coordinate_transformation_mode=\"align_corners\")",
                {{}, {0.5, 2.0}}});
  cs.push_back({"image.resize2d",
                im + ", r: " + F("4"),
                "R.image.resize2d(x, R.shape([3, 4]), r, extrapolation_value=7.5, "
                "coordinate_transformation_mode=\"tf_crop_and_resize\")",
                {{}, {-0.3, 1.3}}});
  cs.push_back(
      {"image.resize2d", im, "R.image.resize2d(x, size=[5, 5], out_dtype=\"float64\")", {}, false});
  cs.push_back({"image.resize2d", im,
                "R.image.resize2d(x, size=[5, 5], "
                "coordinate_transformation_mode=\"pytorch_half_pixel\")"});
  // The output size as a (symbolic) shape operand.
  cs.push_back({"image.resize2d", im, "R.image.resize2d(x, R.shape([n + 2, n * 3]))"});
  cs.push_back({"shape_to_tensor", x, "R.shape_to_tensor(R.shape([n * 12, 3, n + 1]))"});
  return cs;
}

std::vector<OpCase> indexCases() {
  std::vector<OpCase> cs;
  std::string x = "x: " + F("n, 3, 4");
  for (const char* op : {"tan", "atan", "sinh", "cosh", "asinh"})
    cs.push_back({op, x, std::string("R.") + op + "(x)", {{-1.2, 1.2}}});
  for (const char* op : {"asin", "acos", "atanh"})
    cs.push_back({op, x, std::string("R.") + op + "(x)", {{-0.9, 0.9}}});
  cs.push_back({"acosh", x, "R.acosh(x)", {{1.1, 3}}});
  cs.push_back({"isnan", x, "R.isnan(x)"});
  cs.push_back({"isinf", x, "R.isinf(x)"});
  cs.push_back({"isinf", x, "R.isinf(x, detect_negative=False)"});
  std::string sh = "a: " + tensorType("n, 4", "uint8") + ", b: " + tensorType("n, 4", "uint8");
  cs.push_back({"left_shift", sh, "R.left_shift(a, b)", {{0, 200}, {0, 9}}});
  cs.push_back({"right_shift", sh, "R.right_shift(a, b)", {{0, 200}, {0, 9}}});
  cs.push_back({"gather_elements",
                "x: " + F("n, 5") + ", i: " + I64("n, 3"),
                "R.gather_elements(x, i, axis=1)",
                {{}, {-5, 4}}});
  cs.push_back({"gather_nd",
                "x: " + F("3, 4, n") + ", i: " + I64("2, 2"),
                "R.gather_nd(x, i)",
                {{}, {-3, 2}}});
  cs.push_back({"scatter_elements",
                "d: " + F("n, 4") + ", i: " + I64("n, 3") + ", u: " + F("n, 3"),
                "R.scatter_elements(d, i, u, axis=1)",
                {{}, {0, 3}, {}}});
  cs.push_back({"scatter_elements",
                "d: " + F("n, 4") + ", i: " + I64("n, 3") + ", u: " + F("n, 3"),
                "R.scatter_elements(d, i, u, axis=1, reduction=\"add\")",
                {{}, {-4, 3}, {}}});
  cs.push_back({"scatter_nd",
                "d: " + F("5, n") + ", i: " + I64("3, 1") + ", u: " + F("3, n"),
                "R.scatter_nd(d, i, u)",
                {{}, {0, 4}, {}}});
  cs.push_back({"scatter_nd",
                "d: " + F("5, n") + ", i: " + I64("3, 1") + ", u: " + F("3, n"),
                "R.scatter_nd(d, i, u, reduction=\"mul\")",
                {{}, {0, 4}, {}}});
  cs.push_back({"one_hot",
                "i: " + I64("n, 3"),
                "R.one_hot(i, depth=4, axis=1, on_value=2.0, off_value=-1.0, dtype=\"float32\")",
                {{-4, 3}}});
  // The depth as a shape operand (symbolic).
  cs.push_back({"one_hot",
                "i: " + I64("n, 3"),
                "R.one_hot(i, R.shape([n + 2]), axis=0, dtype=\"float32\")",
                {{-3, 2}}});
  cs.push_back({"trilu", "x: " + F("n, 4, 5"), "R.trilu(x, k=1, upper=False)"});
  cs.push_back({"trilu", "x: " + F("n, 4, 5"), "R.trilu(x, k=-1)"});
  cs.push_back({"cumsum", "x: " + F("n, 6"), "R.cumsum(x, axis=1, exclusive=True, reverse=True)"});
  cs.push_back({"cumsum", "x: " + F("n, 6"), "R.cumsum(x)"});
  cs.push_back({"topk", "x: " + F("n, 6"), "R.topk(x, k=3)"});
  cs.push_back({"topk", "x: " + F("n, 6"), "R.topk(x, k=2, axis=0, largest=False)"});
  cs.push_back({"einsum", "a: " + F("n, 3") + ", b: " + F("3, 4"),
                "R.einsum(a, b, subscripts=\"ij,jk->ik\")"});
  cs.push_back({"einsum", "x: " + F("n, 3, 3"), "R.einsum(x, subscripts=\"bii->bi\")"});
  cs.push_back({"nn.nll_loss",
                "p: " + F("n, 4, 3") + ", t: " + I64("n, 3") + ", w: " + F("4"),
                "R.nn.nll_loss(p, t, w, reduction=\"mean\", ignore_index=1)",
                {{}, {0, 3}, kPos}});
  cs.push_back({"nn.nll_loss",
                "p: " + F("n, 4") + ", t: " + I64("n"),
                "R.nn.nll_loss(p, t, reduction=\"none\")",
                {{}, {0, 3}}});
  return cs;
}

std::vector<OpCase> allCases() {
  std::vector<OpCase> all;
  for (auto* family : {elementwiseCases, reduceCases, nnCases, manipCases, indexCases})
    for (auto& c : family())
      all.push_back(c);
  return all;
}

/// Operators without a one-operator end-to-end case, and why.
const std::map<std::string, std::string> kSkipped = {
    {"call_tir", "lowering-internal; covered by examples/call_tir.uir and the reference tests"},
    {"call_dps_library", "calls an external library symbol; the reference has nothing to run"},
    {"tensor_to_shape", "gives a shape value, read by the executor itself and named by a "
                        "match_cast; covered by tests/engine/frontend/onnx_dynamic_shape_test.cpp"},
    {"unsupported", "an importer's placeholder for a node it cannot convert; build() refuses it "
                    "(tests/engine/frontend/onnx_open_anything_test.cpp)"},
};

/// Run by the executor itself (calls of a body function; sequence and
/// optional values, which are not tensors): no kernel to compare with the
/// reference. Covered by tests/engine/frontend/onnx_control_flow_test.cpp.
bool runByExecutor(const std::string& name) {
  return name == "loop" || name == "scan" || name.rfind("seq.", 0) == 0 ||
         name.rfind("optional.", 0) == 0;
}

/// Builds the case and compares with the reference at each size of n.
void checkCase(const OpCase& c, size_t index) {
  std::string label = "case " + std::to_string(index) + ": " + c.call + " with " + c.params;
  SCOPED_TRACE(label);
  std::string text = oneOpModule(c.params, c.call);
  ir::IRModule m = transform::normalize(text::parseModule(text));
  bool symbolic = false;
  for (auto& p : ir::as<ir::Function>(m->lookup("main"))->params)
    if (auto* t = ir::as<ir::TensorSInfo>(p->sinfo); t && t->shape)
      for (auto& d : *t->shape)
        symbolic |= !ir::asConstInt(d).has_value();
  std::vector<int64_t> sizes = symbolic ? std::vector<int64_t>{2, 5} : std::vector<int64_t>{1};
  std::shared_ptr<runtime::Executable> exe;
  std::string buildError;
  try {
    exe = build(m).executable;
  } catch (const Error& e) {
    buildError = e.what();
  }
  for (int64_t n : sizes) {
    auto inputs = randomInputs(m, {{"n", n}}, c.ranges, 1234 + static_cast<unsigned>(index));
    std::vector<Tensor> want;
    try {
      want = runtime::referenceRun(m, inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << "reference failed at n=" << n << ": " << e.what();
      return;
    }
    if (!c.lowered) {
      bool failed = !buildError.empty();
      if (!failed) {
        try {
          exe->runTensors(inputs);
        } catch (const Error&) {
          failed = true;
        }
      }
      EXPECT_TRUE(failed) << "expected build-and-run to reject a variant the lowering does not "
                             "implement; it ran now: set lowered = true";
      continue;
    }
    ASSERT_TRUE(buildError.empty()) << "build failed: " << buildError;
    std::vector<Tensor> got;
    try {
      got = exe->runTensors(inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << "compiled run failed at n=" << n << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(allClose(got, want)) << "n=" << n;
  }
}

class E2EOps : public ::testing::TestWithParam<size_t> {};

} // namespace

TEST(E2EOpsCoverage, EveryRegisteredOperatorHasACaseOrANamedReason) {
  std::set<std::string> covered;
  for (auto& c : allCases())
    covered.insert(c.op);
  for (const op::OpInfo* o : op::allOps()) {
    if (kSkipped.count(o->name) || runByExecutor(o->name))
      continue;
    EXPECT_TRUE(covered.count(o->name)) << "no end-to-end case for R." << o->name;
  }
  for (auto& name : covered)
    EXPECT_NE(op::findOp(name), nullptr) << "case for an unknown operator " << name;
}

TEST_P(E2EOps, CompiledMatchesReference) {
  static const std::vector<OpCase> cases = allCases();
  checkCase(cases[GetParam()], GetParam());
}

INSTANTIATE_TEST_SUITE_P(E2E, E2EOps, ::testing::Range<size_t>(0, allCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           static const std::vector<OpCase> cases = allCases();
                           std::string name =
                               std::to_string(info.param) + "_" + cases[info.param].op;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });
