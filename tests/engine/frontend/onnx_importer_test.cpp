#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
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

std::vector<Tensor> buildAndRun(const IRModule& m, const std::vector<Tensor>& inputs) {
  BuildResult r = build(m);
  if (!r.executable)
    throw Error("no executable");
  return r.executable->runTensors(inputs);
}

Tensor tensorOf(std::vector<int64_t> shape, const std::vector<float>& v) {
  return Tensor::fromFloats(std::move(shape), v);
}

/// MatMul(X, W) + B then Relu; X is (batch, 3).
OnnxModelBuilder mlpModel(const std::string& batchParam = "batch") {
  OnnxModelBuilder b;
  b.input("X", {batchParam, int64_t(3)});
  b.initializer("W", {3, 2}, {1, -1, 2, 0, -1, 1});
  b.initializer("B", {2}, {0.5f, -0.5f});
  b.node("MatMul", {"X", "W"}, {"xw"}, "mm");
  b.node("Add", {"xw", "B"}, {"xwb"}, "add");
  b.node("Relu", {"xwb"}, {"Y"}); // unnamed: "Relu_2"
  b.output("Y");
  return b;
}

} // namespace

TEST(OnnxImport, MatMulAddReluHasSymbolicBatchOriginsAndRunsAtTwoSizes) {
  IRModule m = frontend::importOnnxBytes(mlpModel().bytes());
  const Function* fn = mainOf(m);
  ASSERT_NE(fn, nullptr);
  ASSERT_EQ(fn->params.size(), 1u); // W and B became constants
  auto* x = as<TensorSInfo>(fn->params[0]->sinfo);
  ASSERT_TRUE(x && x->shape);
  auto* batch = as<PrimVar>((*x->shape)[0]);
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->name, "batch");
  EXPECT_TRUE(isConstInt((*x->shape)[1], 3));

  std::vector<std::string> origins;
  for (auto& bnd : bindingsOf(m)) {
    ASSERT_EQ(bnd->span.origins.size(), 1u);
    origins.push_back(bnd->span.origins[0]);
  }
  EXPECT_EQ(origins, (std::vector<std::string>{"mm:MatMul", "add:Add", "Relu_2:Relu"}));

  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  const float W[3][2] = {{1, -1}, {2, 0}, {-1, 1}}, B[2] = {0.5f, -0.5f};
  for (int64_t n : {1, 4}) {
    std::vector<float> xs;
    for (int64_t i = 0; i < n * 3; ++i)
      xs.push_back(float(i % 5) - 2.0f);
    auto outs = r.executable->runTensors({tensorOf({n, 3}, xs)});
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{n, 2}));
    for (int64_t i = 0; i < n; ++i)
      for (int j = 0; j < 2; ++j) {
        float acc = B[j];
        for (int k = 0; k < 3; ++k)
          acc += xs[i * 3 + k] * W[k][j];
        EXPECT_FLOAT_EQ(outs[0].getDouble(i * 2 + j), std::max(acc, 0.0f)) << n << " " << i;
      }
  }
}

TEST(OnnxImport, InputsSharingADimParamShareOneShapeVariable) {
  OnnxModelBuilder b;
  b.input("A", {std::string("n rows"), int64_t(4)});
  b.input("B", {std::string("n rows"), int64_t(4)});
  b.input("C", {std::string("other"), int64_t(4)});
  b.node("Add", {"A", "B"}, {"Y"});
  b.node("Relu", {"C"}, {"Z"});
  b.output("Y");
  b.output("Z");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  auto& ps = mainOf(m)->params;
  ASSERT_EQ(ps.size(), 3u);
  auto dim0 = [&](int i) { return (*as<TensorSInfo>(ps[i]->sinfo)->shape)[0]; };
  EXPECT_TRUE(sameNode(dim0(0), dim0(1)));
  EXPECT_FALSE(sameNode(dim0(0), dim0(2)));
  EXPECT_EQ(as<PrimVar>(dim0(0))->name, "n_rows");

  // Fixing the value through the options gives a static shape.
  frontend::ImportOptions o;
  o.dimValues["n rows"] = 7;
  IRModule fixed = frontend::importOnnxBytes(b.bytes(), o);
  EXPECT_TRUE(isConstInt((*as<TensorSInfo>(mainOf(fixed)->params[0]->sinfo)->shape)[0], 7));
}

TEST(OnnxImport, ConvSameUpperBatchNormReluMatchesHandComputation) {
  OnnxModelBuilder b(11);
  b.input("X", {int64_t(1), int64_t(1), int64_t(3), int64_t(3)});
  b.initializer("W", {1, 1, 2, 2}, {1, 2, 0, -1});
  b.initializer("CB", {1}, {1});
  b.initializer("scale", {1}, {2});
  b.initializer("bias", {1}, {0.5f});
  b.initializer("mean", {1}, {1});
  b.initializer("var", {1}, {4});
  auto* conv = b.node("Conv", {"X", "W", "CB"}, {"c"}, "conv");
  OnnxModelBuilder::attrString(conv, "auto_pad", "SAME_UPPER");
  auto* bn = b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"}, "bn");
  OnnxModelBuilder::attrFloat(bn, "epsilon", 0.0f);
  b.node("Relu", {"n"}, {"Y"}, "relu");
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());

  std::vector<float> xs = {1, -2, 3, 4, 5, -6, 7, 8, 9};
  auto outs = buildAndRun(m, {tensorOf({1, 1, 3, 3}, xs)});
  ASSERT_EQ(outs[0].shape(), (std::vector<int64_t>{1, 1, 3, 3}));
  auto X = [&](int i, int j) { return i < 3 && j < 3 ? xs[i * 3 + j] : 0.0f; }; // pad at the end
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      float conv = X(i, j) * 1 + X(i, j + 1) * 2 + X(i + 1, j) * 0 + X(i + 1, j + 1) * -1 + 1;
      float norm = (conv - 1) / 2 * 2 + 0.5f;
      EXPECT_FLOAT_EQ(outs[0].getDouble(i * 3 + j), std::max(norm, 0.0f)) << i << "," << j;
    }
}

TEST(OnnxImport, OneErrorListsEveryUnsupportedNode) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(2)});
  b.node("FancyOp", {"X"}, {"a"}, "weird");
  b.node("Relu", {"a"}, {"b"}, "after_weird"); // consumes a refused value: not listed
  auto* lr = b.node("LeakyRelu", {"X"}, {"c"}, "lrelu");
  OnnxModelBuilder::attrFloat(lr, "gamma", 2.0f);
  auto* ms = b.node("FusedGemm", {"X", "X"}, {"d"}, "ms");
  ms->set_domain("com.microsoft");
  b.node("Add", {"b", "c"}, {"Y"});
  b.output("Y");
  b.output("d");
  try {
    frontend::ImportOptions o;
    o.sourceName = "bad.onnx";
    frontend::importOnnxBytes(b.bytes(), o);
    FAIL() << "expected an UnsupportedModelError";
  } catch (const frontend::UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 3u);
    EXPECT_EQ(e.nodes()[0].node, "weird");
    EXPECT_EQ(e.nodes()[0].opType, "FancyOp");
    EXPECT_EQ(e.nodes()[1].node, "lrelu");
    EXPECT_NE(e.nodes()[1].reason.find("'gamma'"), std::string::npos);
    EXPECT_EQ(e.nodes()[2].node, "ms");
    EXPECT_NE(e.nodes()[2].reason.find("com.microsoft"), std::string::npos);
    std::string what = e.what();
    EXPECT_NE(what.find("bad.onnx"), std::string::npos);
    EXPECT_NE(what.find("3 unsupported nodes"), std::string::npos);
    EXPECT_EQ(what.find("after_weird"), std::string::npos);
  }
}

TEST(OnnxImport, DynamicReshapeShapeIsRefusedWithAReason) {
  // A run-time target is read at run time, but its length (the result's
  // rank) must be known at import time.
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(6)});
  b.input("shape", {std::string("k")}, onnx::TensorProto::INT64);
  b.node("Reshape", {"X", "shape"}, {"Y"}, "reshape");
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "expected an UnsupportedModelError";
  } catch (const frontend::UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u);
    EXPECT_EQ(e.nodes()[0].node, "reshape");
    EXPECT_NE(e.nodes()[0].reason.find("must be a constant"), std::string::npos);
  }
}

TEST(OnnxImport, TruncatedOrGarbageBytesGiveAnErrorNotACrash) {
  std::string good = mlpModel().bytes();
  ASSERT_NO_THROW(frontend::importOnnxBytes(good));
  for (size_t cut : {size_t(0), size_t(1), good.size() / 3, good.size() / 2, good.size() - 1})
    EXPECT_THROW(frontend::importOnnxBytes(std::string_view(good).substr(0, cut)), Error) << cut;
  try {
    frontend::importOnnxBytes(std::string_view(good).substr(0, good.size() - 1));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(frontend::importOnnxBytes("\xff\xff\xff\xff garbage"), Error);
  EXPECT_THROW(frontend::importOnnx("/nonexistent/dir/model.onnx"), Error);
}

TEST(OnnxImport, ExternalDataIsReadInsideTheFolderAndRefusedOutsideIt) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("onnx_ext_" + std::to_string(::getpid()));
  fs::create_directories(root / "model");
  float w[2] = {10, 20};
  for (auto p : {root / "model" / "w.bin", root / "secret.bin"}) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(w), sizeof(w));
  }
  auto modelWith = [&](const std::string& location) {
    OnnxModelBuilder b;
    b.input("X", {int64_t(2)});
    auto* t = b.graph->add_initializer();
    t->set_name("W");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(2);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    b.node("Add", {"X", "W"}, {"Y"});
    b.output("Y");
    fs::path file = root / "model" / "model.onnx";
    std::ofstream(file, std::ios::binary) << b.bytes();
    return file.string();
  };

  IRModule m = frontend::importOnnx(modelWith("w.bin"));
  auto outs = buildAndRun(m, {tensorOf({2}, {1, 2})});
  EXPECT_FLOAT_EQ(outs[0].getDouble(0), 11);
  EXPECT_FLOAT_EQ(outs[0].getDouble(1), 22);

  for (std::string bad : {std::string("../secret.bin"), (root / "secret.bin").string(),
                          std::string("sub/../../secret.bin")}) {
    try {
      frontend::importOnnx(modelWith(bad));
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("outside the model's folder"), std::string::npos)
          << e.what();
    }
  }
  fs::remove_all(root);
}

TEST(OnnxImport, SoftmaxBeforeOpset13NormalizesTheFlattenedTrailingBlock) {
  auto model = [](int opset) {
    OnnxModelBuilder b(opset);
    b.input("X", {int64_t(1), int64_t(2), int64_t(2)});
    auto* s = b.node("Softmax", {"X"}, {"Y"});
    OnnxModelBuilder::attrInt(s, "axis", 1);
    b.output("Y");
    return frontend::importOnnxBytes(b.bytes());
  };
  std::vector<float> xs = {0, 1, 2, 3}; // [1][2][2]: rows (0, 1) and (2, 3) along axis 2
  Tensor x = tensorOf({1, 2, 2}, xs);
  double total = 0;
  for (float v : xs)
    total += std::exp(v);
  auto old = buildAndRun(model(11), {x});
  for (int i = 0; i < 4; ++i) // one softmax over all four values
    EXPECT_NEAR(old[0].getDouble(i), std::exp(xs[i]) / total, 1e-6);
  auto now = buildAndRun(model(13), {x});
  for (int i = 0; i < 4; ++i) { // per column along axis 1: pairs (0, 2) and (1, 3)
    int j = i % 2;
    double den = std::exp(xs[j]) + std::exp(xs[j + 2]);
    EXPECT_NEAR(now[0].getDouble(i), std::exp(xs[i]) / den, 1e-6);
  }
}

TEST(OnnxImport, ShapeSubgraphIsFoldedIntoAConstantReshape) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(3), int64_t(4)});
  b.intInitializer("zero", {0});
  b.intInitializer("minus1", {-1});
  b.intInitializer("axes0", {0});
  b.node("Shape", {"X"}, {"s"});
  auto* g = b.node("Gather", {"s", "zero"}, {"g"});
  OnnxModelBuilder::attrInt(g, "axis", 0);
  auto* cat = b.node("Concat", {"g", "minus1"}, {"target"});
  OnnxModelBuilder::attrInt(cat, "axis", 0);
  b.node("Reshape", {"X", "target"}, {"Y"}, "reshape");
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  auto bs = bindingsOf(m);
  ASSERT_EQ(bs.size(), 1u); // Shape, Gather and Concat folded away
  EXPECT_EQ(bs[0]->span.origins, (std::vector<std::string>{"reshape:Reshape"}));
  auto* y = as<TensorSInfo>(bs[0]->var->sinfo);
  ASSERT_TRUE(y && y->shape);
  ASSERT_EQ(y->shape->size(), 2u);
  EXPECT_TRUE(isConstInt((*y->shape)[0], 2));
  EXPECT_TRUE(isConstInt((*y->shape)[1], 12));
}

TEST(OnnxImport, GemmWithTransposeAlphaBetaMatchesHandComputation) {
  OnnxModelBuilder b;
  b.input("A", {int64_t(2), int64_t(3)});
  b.initializer("Bt", {2, 3}, {1, 0, 2, -1, 3, 1}); // B^T: (N=2, K=3)
  b.initializer("C", {2}, {1, -1});
  auto* n = b.node("Gemm", {"A", "Bt", "C"}, {"Y"}, "fc");
  OnnxModelBuilder::attrInt(n, "transB", 1);
  OnnxModelBuilder::attrFloat(n, "alpha", 2.0f);
  OnnxModelBuilder::attrFloat(n, "beta", 0.5f);
  b.output("Y");
  std::vector<float> a = {1, 2, 3, -1, 0, 4};
  auto outs = buildAndRun(frontend::importOnnxBytes(b.bytes()), {tensorOf({2, 3}, a)});
  const float Bt[2][3] = {{1, 0, 2}, {-1, 3, 1}}, C[2] = {1, -1};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float acc = 0;
      for (int k = 0; k < 3; ++k)
        acc += a[i * 3 + k] * Bt[j][k];
      EXPECT_FLOAT_EQ(outs[0].getDouble(i * 2 + j), 2 * acc + 0.5f * C[j]);
    }
}

/// Number of bindings of main calling operator `op`.
static int callsOf(const IRModule& m, const std::string& op) {
  int n = 0;
  for (auto& b : bindingsOf(m))
    if (auto* c = as<Call>(b->value))
      if (auto* o = as<OpRef>(c->op); o && o->name == op)
        ++n;
  return n;
}

TEST(OnnxImport, GemmTransposesAConstantWeightOnceAndAGraphInputAtRunTime) {
  // Y = A * W^T with W (N=3, K=2): as classifiers export their last layer.
  const std::vector<float> w = {1, 2, -1, 0, 3, -2}, a = {1, -1, 2, 0.5f};
  auto model = [&](bool weightIsInput) {
    OnnxModelBuilder b;
    b.input("A", {int64_t(2), int64_t(2)});
    if (weightIsInput)
      b.input("W", {int64_t(3), int64_t(2)});
    else
      b.initializer("W", {3, 2}, w);
    OnnxModelBuilder::attrInt(b.node("Gemm", {"A", "W"}, {"Y"}, "fc"), "transB", 1);
    b.output("Y");
    return frontend::importOnnxBytes(b.bytes());
  };
  IRModule constant = model(false), input = model(true);
  EXPECT_EQ(callsOf(constant, "permute_dims"), 0); // transposed at import time
  EXPECT_EQ(callsOf(input, "permute_dims"), 1);
  auto fromConstant = buildAndRun(constant, {tensorOf({2, 2}, a)});
  auto fromInput = buildAndRun(input, {tensorOf({2, 2}, a), tensorOf({3, 2}, w)});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      float want = a[i * 2] * w[j * 2] + a[i * 2 + 1] * w[j * 2 + 1];
      EXPECT_FLOAT_EQ(fromConstant[0].getDouble(i * 3 + j), want) << i << "," << j;
      EXPECT_FLOAT_EQ(fromInput[0].getDouble(i * 3 + j), want) << i << "," << j;
    }
}

TEST(OnnxImport, OpsetOutsideTheSupportedRangeIsRefused) {
  OnnxModelBuilder b(18);
  b.input("X", {int64_t(2)});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  EXPECT_THROW(frontend::importOnnxBytes(b.bytes()), frontend::UnsupportedModelError);
}

TEST(OnnxImport, LargeSyntheticModelImportsAndReportsItsTime) {
  // 64 layers of MatMul(512x512) + Add + Relu: 64 MiB of weights as raw data.
  constexpr int kLayers = 64, kWidth = 512;
  OnnxModelBuilder b;
  b.input("X", {std::string("batch"), int64_t(kWidth)});
  std::string raw(size_t(kWidth) * kWidth * sizeof(float), '\0');
  std::string prev = "X";
  for (int l = 0; l < kLayers; ++l) {
    std::string w = "w" + std::to_string(l), bias = "b" + std::to_string(l);
    auto* t = b.graph->add_initializer();
    t->set_name(w);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(kWidth);
    t->add_dims(kWidth);
    t->set_raw_data(raw);
    b.initializer(bias, {kWidth}, std::vector<float>(kWidth, 0.5f));
    std::string s = std::to_string(l);
    b.node("MatMul", {prev, w}, {"mm" + s}, "mm" + s);
    b.node("Add", {"mm" + s, bias}, {"add" + s}, "add" + s);
    b.node("Relu", {"add" + s}, {"relu" + s}, "relu" + s);
    prev = "relu" + s;
  }
  b.output(prev);
  std::string bytes = b.bytes();
  auto t0 = std::chrono::steady_clock::now();
  IRModule m = frontend::importOnnxBytes(bytes);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(bindingsOf(m).size(), size_t(3 * kLayers));
  std::printf("[ import ] %.1f MiB model, %d nodes: %.1f ms\n", double(bytes.size()) / (1 << 20),
              3 * kLayers, ms);
}
