// The reference evaluator itself, against values worked out by hand: graph
// constructs (match_cast, if, tuples, calls of graph functions, call_tir),
// a few operators whose semantics are easy to get subtly wrong, and errors.
#include <gtest/gtest.h>

#include "engine/op/op.h"
#include "engine/support/error.h"
#include "tests/engine/e2e/e2e_util.h"
#include "tests/error_of.h"

using namespace unity;
using unity::testing::errorOf;
using namespace e2e;

namespace {

std::vector<Tensor> runText(const std::string& text, const std::vector<Tensor>& inputs,
                            bool normalizeFirst = true) {
  ir::IRModule m = text::parseModule(text);
  if (normalizeFirst)
    m = transform::normalize(m);
  return runtime::referenceRun(m, inputs);
}

Tensor runOne(const std::string& params, const std::string& call,
              const std::vector<Tensor>& inputs) {
  auto outs = runText(oneOpModule(params, call), inputs);
  EXPECT_EQ(outs.size(), 1u);
  return outs.empty() ? Tensor() : outs[0];
}

Tensor iota(std::vector<int64_t> shape, double start = 1) {
  Tensor t(DataType::Float32(), shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, start + static_cast<double>(i));
  return t;
}

} // namespace

TEST(E2EReference, GraphConstructsMatchCastIfTupleAndCalls) {
  const char* text = R"(
@R.function
def square(a: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(ndim=1, dtype="float32"):
    b = R.multiply(a, a)
    return b

@R.function
def main(x: R.Tensor((n,), "float32"), c: R.Tensor((), "bool")):
    y = R.match_cast(x, R.Tensor((k,), "float32"))
    t = (y, x)
    z = t[0]
    h = square(z)
    if c:
        r = R.add(h, x)
    else:
        r = R.subtract(h, x)
    return r
)";
  Tensor x = floats({3}, {1, 2, -3});
  Tensor yes(DataType::Bool(), {}), no(DataType::Bool(), {});
  yes.setDouble(0, 1);
  auto a = runText(text, {x, yes});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(tensorsClose(a[0], floats({3}, {2, 6, 6})));
  auto b = runText(text, {x, no});
  EXPECT_TRUE(tensorsClose(b[0], floats({3}, {0, 2, 12})));
}

TEST(E2EReference, TupleResultsAreFlattenedInOrder) {
  Tensor x = iota({2, 3});
  auto outs = runText(
      oneOpModule("x: " + tensorType("2, 3"), "R.split(x, indices_or_sections=[1], axis=1)"), {x});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(tensorsClose(outs[0], floats({2, 1}, {1, 4})));
  EXPECT_TRUE(tensorsClose(outs[1], floats({2, 2}, {2, 3, 5, 6})));
}

TEST(E2EReference, CallTIRRunsTheTensorFunctionThroughTheInterpreter) {
  ir::IRModule m =
      text::parseFile(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/call_tir.uir");
  // x (2, 16) of ones, w (16, 8) with w[k, j] = j - 3, b = 0: relu(16 * (j - 3)).
  Tensor x(DataType::Float32(), {2, 16}), w(DataType::Float32(), {16, 8}),
      b(DataType::Float32(), {8});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.setDouble(i, 1);
  for (int64_t i = 0; i < w.numel(); ++i)
    w.setDouble(i, static_cast<double>(i % 8) - 3);
  auto outs = runtime::referenceRun(m, {x, w, b});
  ASSERT_EQ(outs.size(), 1u);
  std::vector<float> want;
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 8; ++j)
      want.push_back(std::max(0, 16 * (j - 3)));
  EXPECT_TRUE(tensorsClose(outs[0], floats({2, 8}, want)));
}

TEST(E2EReference, ConvolutionWithPaddingAndStride) {
  // 3x3 image 1..9, 2x2 kernel of ones, padding 1, stride 2: windows start
  // at -1 and 1 on each axis.
  Tensor w(DataType::Float32(), {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i)
    w.setDouble(i, 1);
  Tensor out =
      runOne("x: " + tensorType("1, 1, 3, 3") + ", w: " + tensorType("1, 1, 2, 2"),
             "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])", {iota({1, 1, 3, 3}), w});
  EXPECT_TRUE(tensorsClose(out, floats({1, 1, 2, 2}, {1, 5, 11, 28})));
}

TEST(E2EReference, TransposedConvolutionScattersEachInputThroughTheKernel) {
  Tensor w(DataType::Float32(), {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i)
    w.setDouble(i, 1);
  Tensor out = runOne("x: " + tensorType("1, 1, 2, 2") + ", w: " + tensorType("1, 1, 2, 2"),
                      "R.nn.conv2d_transpose(x, w, strides=[2, 2])", {iota({1, 1, 2, 2}), w});
  EXPECT_TRUE(
      tensorsClose(out, floats({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4})));
}

TEST(E2EReference, AveragePoolingCountsPaddingOnlyWhenAsked) {
  Tensor ones(DataType::Float32(), {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i)
    ones.setDouble(i, 1);
  std::string params = "x: " + tensorType("1, 1, 2, 2");
  Tensor without =
      runOne(params, "R.nn.avg_pool2d(x, pool_size=[2, 2], padding=[1, 1, 1, 1])", {ones});
  EXPECT_TRUE(tensorsClose(without, floats({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
  Tensor with = runOne(
      params, "R.nn.avg_pool2d(x, pool_size=[2, 2], padding=[1, 1, 1, 1], count_include_pad=True)",
      {ones});
  EXPECT_TRUE(
      tensorsClose(with, floats({1, 1, 3, 3}, {0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25})));
}

TEST(E2EReference, PadModes) {
  Tensor x = floats({3}, {1, 2, 3});
  std::string p = "x: " + tensorType("3");
  EXPECT_TRUE(tensorsClose(runOne(p, "R.nn.pad(x, pad_width=[2, 2], pad_mode=\"reflect\")", {x}),
                           floats({7}, {3, 2, 1, 2, 3, 2, 1})));
  EXPECT_TRUE(tensorsClose(runOne(p, "R.nn.pad(x, pad_width=[2, 1], pad_mode=\"edge\")", {x}),
                           floats({6}, {1, 1, 1, 2, 3, 3})));
  EXPECT_TRUE(tensorsClose(runOne(p, "R.nn.pad(x, pad_width=[1, 0], pad_value=-1.5)", {x}),
                           floats({4}, {-1.5, 1, 2, 3})));
}

TEST(E2EReference, ResizeCoordinateModes) {
  Tensor x = floats({1, 1, 2, 2}, {0, 1, 2, 3});
  std::string p = "x: " + tensorType("1, 1, 2, 2");
  EXPECT_TRUE(tensorsClose(
      runOne(p,
             "R.image.resize2d(x, size=[3, 3], coordinate_transformation_mode=\"align_corners\")",
             {x}),
      floats({1, 1, 3, 3}, {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3})));
  // half_pixel upsampling by 2: source coordinates -0.25, 0.25, 0.75, 1.25;
  // the border clamps.
  Tensor row = floats({1, 1, 1, 2}, {0, 4});
  EXPECT_TRUE(tensorsClose(
      runOne("x: " + tensorType("1, 1, 1, 2"), "R.image.resize2d(x, size=[1, 4])", {row}),
      floats({1, 1, 1, 4}, {0, 1, 3, 4})));
  EXPECT_TRUE(tensorsClose(
      runOne("x: " + tensorType("1, 1, 1, 2"),
             "R.image.resize2d(x, size=[1, 4], method=\"nearest_neighbor\", "
             "coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")",
             {row}),
      floats({1, 1, 1, 4}, {0, 0, 4, 4})));
}

TEST(E2EReference, SlicesFollowNumpy) {
  Tensor x = iota({6}, 0);
  std::string p = "x: " + tensorType("6");
  EXPECT_TRUE(
      tensorsClose(runOne(p, "R.strided_slice(x, axes=[0], begin=[4], end=[0], strides=[-2])", {x}),
                   floats({2}, {4, 2})));
  EXPECT_TRUE(tensorsClose(
      runOne(p, "R.strided_slice(x, axes=[0], begin=[-4], end=[100], strides=[3])", {x}),
      floats({2}, {2, 5})));
  auto parts = runText(oneOpModule(p, "R.split(x, indices_or_sections=[2, 10])"), {x});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(parts[1].shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(parts[2].shape(), (std::vector<int64_t>{0}));
}

TEST(E2EReference, IntegerDivisionFloorsAndModTakesTheDivisorsSign) {
  Tensor a(DataType::Int64(), {4}), b(DataType::Int64(), {4});
  int64_t av[] = {7, -7, 7, -7}, bv[] = {2, 2, -2, -2};
  for (int i = 0; i < 4; ++i) {
    a.setDouble(i, av[i]);
    b.setDouble(i, bv[i]);
  }
  std::string p = "a: " + tensorType("4", "int64") + ", b: " + tensorType("4", "int64");
  Tensor fd = runOne(p, "R.floor_divide(a, b)", {a, b});
  Tensor md = runOne(p, "R.mod(a, b)", {a, b});
  Tensor dv = runOne(p, "R.divide(a, b)", {a, b});
  double fdw[] = {3, -4, -4, 3}, mdw[] = {1, 1, -1, -1}, dvw[] = {3, -3, -3, 3};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(fd.getDouble(i), fdw[i]) << i;
    EXPECT_EQ(md.getDouble(i), mdw[i]) << i;
    EXPECT_EQ(dv.getDouble(i), dvw[i]) << i;
  }
}

TEST(E2EReference, ArgmaxTakesTheFirstMaximum) {
  Tensor x = floats({2, 3}, {1, 5, 5, 7, 2, 7});
  std::string p = "x: " + tensorType("2, 3");
  Tensor r = runOne(p, "R.argmax(x, axis=1)", {x});
  EXPECT_EQ(r.dtype(), DataType::Int64());
  EXPECT_EQ(r.getDouble(0), 1);
  EXPECT_EQ(r.getDouble(1), 0);
  Tensor flat = runOne(p, "R.argmax(x)", {x});
  EXPECT_EQ(flat.ndim(), 0);
  EXPECT_EQ(flat.getDouble(0), 3);
}

TEST(E2EReference, EveryRegisteredOperatorHasAnImplementationOrIsNamedHere) {
  auto impl = runtime::referenceOps();
  for (const op::OpInfo* o : op::allOps()) {
    if (o->name == "call_dps_library") // an external symbol: nothing to run
      continue;
    if (o->name == "unsupported") // an importer's placeholder: never built or run
      continue;
    // Control flow and sequence / optional values are run by the executor
    // itself (tests/engine/frontend/onnx_control_flow_test.cpp).
    if (o->name == "loop" || o->name == "scan" || o->name.rfind("seq.", 0) == 0 ||
        o->name.rfind("optional.", 0) == 0)
      continue;
    EXPECT_TRUE(std::binary_search(impl.begin(), impl.end(), o->name)) << o->name;
  }
}

TEST(E2EReference, ErrorsNameTheCause) {
  Tensor x = floats({2}, {1, 2});
  // An operator call the registry does not know.
  ir::IRModule m = text::parseModule(oneOpModule("x: " + tensorType("2"), "R.nn.relu(x)"));
  auto* f = ir::as<ir::Function>(m->lookup("main"));
  auto* seq = ir::as<ir::SeqExpr>(f->body);
  auto& b = seq->blocks[0]->bindings[0];
  auto bogus = ir::make<ir::Call>(ir::opRef("nn.frobnicate"), std::vector<ir::Expr>{f->params[0]});
  auto blk = ir::make<ir::BindingBlock>(
      std::vector<ir::Binding>{ir::make<ir::VarBinding>(b->var, bogus)}, true);
  auto fn = ir::make<ir::Function>(
      f->params, ir::make<ir::SeqExpr>(std::vector<ir::Ref<ir::BindingBlock>>{blk}, seq->body),
      nullptr);
  std::string msg = errorOf([&] { runtime::referenceRun(ir::makeModule({{"main", fn}}), {x}); });
  EXPECT_NE(msg.find("R.nn.frobnicate"), std::string::npos) << msg;

  // Wrong input shape, wrong number of inputs, a missing function.
  std::string mod = oneOpModule("x: " + tensorType("3"), "R.nn.relu(x)");
  msg = errorOf([&] { runText(mod, {x}); });
  EXPECT_NE(msg.find("argument 'x'"), std::string::npos) << msg;
  msg = errorOf([&] { runText(mod, {}); });
  EXPECT_NE(msg.find("takes 1 arguments"), std::string::npos) << msg;
  msg = errorOf([&] { runtime::referenceRun(text::parseModule(mod), {x}, "nope"); });
  EXPECT_NE(msg.find("'nope'"), std::string::npos) << msg;

  // An operator's own check: take with an index out of range.
  Tensor idx(DataType::Int64(), {1});
  idx.setDouble(0, 5);
  msg = errorOf([&] {
    runOne("x: " + tensorType("2") + ", i: " + tensorType("1", "int64"), "R.take(x, i, axis=0)",
           {x, idx});
  });
  EXPECT_NE(msg.find("R.take"), std::string::npos) << msg;
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
}

TEST(E2EReference, AWrongDeductionIsCaughtByTheBindingCheck) {
  // gv claims (2, 2) but relu keeps (2,): the reference reports it.
  std::string text = "@R.function\ndef main(x: " + tensorType("2") +
                     "):\n    gv: " + tensorType("2, 2") + " = R.nn.relu(x)\n    return gv\n";
  std::string msg = errorOf([&] { runText(text, {floats({2}, {1, 2})}, false); });
  EXPECT_NE(msg.find("struct info"), std::string::npos) << msg;
}
