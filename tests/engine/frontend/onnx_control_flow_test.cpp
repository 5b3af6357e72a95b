// ONNX control flow (If, Loop, Scan) and sequence / optional values: small
// models built with the protobuf API, imported, built for the host (LLVM)
// and run; the expected values are worked out by hand in each test. Also
// the text round trip of the imported forms and the errors for malformed
// nodes.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/runtime/executor.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "tests/engine/frontend/onnx_test_util.h"
#include "tests/error_of.h"

using namespace unity;
using unity::testing::errorOf;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

void attrGraph(onnx::NodeProto* n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

Tensor floats(std::vector<int64_t> shape, std::vector<double> v) {
  Tensor t(DataType::Float32(), std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor scalar(DataType dt, double v) {
  Tensor t(dt, {});
  t.setDouble(0, v);
  return t;
}

std::vector<double> valuesOf(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}

/// If(c): then x + x (n,), else concat(x, x) (2n,).
OnnxModelBuilder ifModel() {
  OnnxModelBuilder b;
  b.input("x", {std::string("n")});
  b.input("c", {}, onnx::TensorProto::BOOL);
  OnnxModelBuilder t, e;
  t.graph->set_name("then_g");
  t.node("Add", {"x", "x"}, {"t_out"});
  t.output("t_out");
  e.graph->set_name("else_g");
  auto* cat = e.node("Concat", {"x", "x"}, {"e_out"});
  OnnxModelBuilder::attrInt(cat, "axis", 0);
  e.output("e_out");
  auto* n = b.node("If", {"c"}, {"y"}, "choose");
  attrGraph(n, "then_branch", *t.graph);
  attrGraph(n, "else_branch", *e.graph);
  b.output("y");
  return b;
}

/// Loop(M, "", s0) with a body that reads the outer x, stops after the
/// iteration i = 2 and stacks every partial sum.
OnnxModelBuilder loopModel() {
  OnnxModelBuilder b;
  b.input("M", {}, onnx::TensorProto::INT64);
  b.input("x", {2});
  b.initializer("s0", {2}, {0, 0});
  OnnxModelBuilder body;
  body.graph->set_name("body");
  body.input("i", {}, onnx::TensorProto::INT64);
  body.input("cond_in", {}, onnx::TensorProto::BOOL);
  body.input("s_in", {2});
  auto* lim = body.graph->add_initializer();
  lim->set_name("two");
  lim->set_data_type(onnx::TensorProto::INT64);
  lim->add_int64_data(2);
  auto* cast = body.node("Cast", {"i"}, {"i_f"});
  OnnxModelBuilder::attrInt(cast, "to", onnx::TensorProto::FLOAT);
  body.node("Mul", {"x", "i_f"}, {"t"});
  body.node("Add", {"s_in", "t"}, {"s_out"});
  body.node("Less", {"i", "two"}, {"cond_out"});
  body.node("Identity", {"s_out"}, {"partial"});
  body.output("cond_out");
  body.output("s_out");
  body.output("partial");
  auto* n = b.node("Loop", {"M", "", "s0"}, {"s_final", "partials"}, "accumulate");
  attrGraph(n, "body", *body.graph);
  b.output("s_final");
  b.output("partials");
  return b;
}

} // namespace

TEST(OnnxControlFlow, IfRunsTheBranchTheConditionPicksAndJoinsDifferentShapes) {
  OnnxModelBuilder b = ifModel();
  IRModule m = frontend::importOnnxBytes(b.bytes());
  std::string text = text::printModule(m);
  EXPECT_NE(text.find("if c:"), std::string::npos) << text;
  // (n,) in one branch, (n * 2,) in the other: a fresh variable names the
  // result's extent, bound when the `if` has run.
  EXPECT_NE(text.find("R.match_cast"), std::string::npos) << text;
  EXPECT_NE(text.find("-> R.Tensor((y_d0,), \"float32\")"), std::string::npos) << text;
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = floats({3}, {1, 2, 3});
  auto yes = r.executable->runTensors({x, scalar(DataType::Bool(), 1)});
  ASSERT_EQ(yes.size(), 1u);
  EXPECT_EQ(valuesOf(yes[0]), (std::vector<double>{2, 4, 6}));
  auto no = r.executable->runTensors({x, scalar(DataType::Bool(), 0)});
  EXPECT_EQ(valuesOf(no[0]), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(OnnxControlFlow, IfWithAConstantConditionImportsOnlyItsBranch) {
  OnnxModelBuilder b = ifModel();
  // c becomes an initializer (false): only the else branch is imported.
  b.graph->mutable_input()->RemoveLast();
  auto* c = b.graph->add_initializer();
  c->set_name("c");
  c->set_data_type(onnx::TensorProto::BOOL);
  c->add_int32_data(0);
  IRModule m = frontend::importOnnxBytes(b.bytes());
  std::string text = text::printModule(m);
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  EXPECT_NE(text.find("R.concat"), std::string::npos) << text;
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto y = r.executable->runTensors({floats({2}, {5, 7})});
  EXPECT_EQ(valuesOf(y[0]), (std::vector<double>{5, 7, 5, 7}));
}

TEST(OnnxControlFlow, LoopRunsUntilTheBodysConditionFailsAndStacksItsScanOutput) {
  OnnxModelBuilder b = loopModel();
  IRModule m = frontend::importOnnxBytes(b.bytes());
  EXPECT_TRUE(isa<Function>(m->lookup("accumulate_body")));
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  Tensor x = floats({2}, {1, 10});
  // M = 5, but the body's condition i < 2 ends the loop after i = 2:
  // sums x * 0, x * (0 + 1), x * (0 + 1 + 2).
  auto out = r.executable->runTensors({scalar(DataType::Int64(), 5), x});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{3, 30}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{0, 0, 1, 10, 3, 30}));
  // The same build with M = 2: two iterations.
  out = r.executable->runTensors({scalar(DataType::Int64(), 2), x});
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{1, 10}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 2}));
  // M = 0: no iteration; the initial value and an empty stack.
  out = r.executable->runTensors({scalar(DataType::Int64(), 0), x});
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{0, 0}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{0, 2}));
}

TEST(OnnxControlFlow, LoopCarriedValueThatGrowsGetsASymbolicExtent) {
  OnnxModelBuilder b;
  b.input("x", {std::string("n")});
  b.intInitializer("M", {3})->clear_dims(); // a scalar trip count of 3
  b.initializer("one", {1}, {1});
  OnnxModelBuilder body;
  body.graph->set_name("grow");
  body.input("i", {}, onnx::TensorProto::INT64);
  body.input("c", {}, onnx::TensorProto::BOOL);
  body.input("v_in", {std::string("k")});
  auto* cat = body.node("Concat", {"v_in", "one"}, {"v_out"});
  OnnxModelBuilder::attrInt(cat, "axis", 0);
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Identity", {"i"}, {"i_out"});
  body.output("c_out");
  body.output("v_out");
  body.output("i_out");
  auto* n = b.node("Loop", {"M", "", "x"}, {"v", "iters"}, "grow_loop");
  attrGraph(n, "body", *body.graph);
  b.output("v");
  b.output("iters");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  std::string text = text::printModule(m);
  // A constant trip count and an unchanged condition: 3 iterations known.
  EXPECT_NE(text.find("R.Tensor((3,), \"int64\")"), std::string::npos) << text;
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto out = r.executable->runTensors({floats({2}, {4, 5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{4, 5, 1, 1, 1}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{0, 1, 2}));
}

TEST(OnnxControlFlow, ScanReadsAnInputBackwardsAndStacksAlongTheOutputAxis) {
  OnnxModelBuilder b(11);
  b.input("s0", {2});
  b.input("X", {3, 2});
  OnnxModelBuilder body;
  body.graph->set_name("step");
  body.input("s_in", {2});
  body.input("x_t", {2});
  body.node("Add", {"s_in", "x_t"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y_t"});
  body.output("s_out");
  body.output("y_t");
  auto* n = b.node("Scan", {"s0", "X"}, {"s", "Y"}, "running_sum");
  attrGraph(n, "body", *body.graph);
  OnnxModelBuilder::attrInt(n, "num_scan_inputs", 1);
  OnnxModelBuilder::attrInts(n, "scan_input_directions", {1});
  OnnxModelBuilder::attrInts(n, "scan_output_axes", {1});
  b.output("s");
  b.output("Y");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  // Rows read last to first: [5, 6], then + [3, 4], then + [1, 2].
  auto out = r.executable->runTensors({floats({2}, {0, 0}), floats({3, 2}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{9, 12}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{5, 8, 9, 6, 10, 12}));
}

TEST(OnnxControlFlow, Scan8ScansEveryBatchEntryOnItsOwn) {
  OnnxModelBuilder b(8);
  b.input("s0", {2, 1});
  b.input("X", {2, 3, 1});
  OnnxModelBuilder body;
  body.graph->set_name("step");
  body.input("s_in", {1});
  body.input("x_t", {1});
  body.node("Add", {"s_in", "x_t"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y_t"});
  body.output("s_out");
  body.output("y_t");
  auto* n = b.node("Scan", {"", "s0", "X"}, {"s", "Y"}, "batched_sum");
  attrGraph(n, "body", *body.graph);
  OnnxModelBuilder::attrInt(n, "num_scan_inputs", 1);
  b.output("s");
  b.output("Y");
  BuildResult r = build(frontend::importOnnxBytes(b.bytes()));
  ASSERT_TRUE(r.executable);
  // Entry 0 starts at 0 and adds 1, 2, 3; entry 1 starts at 100 and adds 4, 5, 6.
  auto out =
      r.executable->runTensors({floats({2, 1}, {0, 100}), floats({2, 3, 1}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{6, 115}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{1, 3, 6, 104, 109, 115}));
}

TEST(OnnxControlFlow, ImportedControlFlowPrintsAndParsesBack) {
  for (const std::string& bytes : {ifModel().bytes(), loopModel().bytes()}) {
    IRModule m = frontend::importOnnxBytes(bytes);
    std::string once = text::printModule(m);
    IRModule back = text::parseModule(once);
    EXPECT_EQ(text::printModule(back), once);
    BuildResult r = build(back);
    EXPECT_TRUE(r.executable);
  }
}

TEST(OnnxControlFlow, BranchesWithDifferentOutputCountsAreAnErrorNamingTheNode) {
  OnnxModelBuilder b = ifModel();
  auto* attr = b.graph->mutable_node(0)->mutable_attribute(1); // else_branch
  attr->mutable_g()->add_output()->set_name("x");
  std::string err = errorOf([&] { frontend::importOnnxBytes(b.bytes()); });
  EXPECT_NE(err.find("'choose' (If)"), std::string::npos) << err;
  EXPECT_NE(err.find("then_branch has 1 outputs but else_branch has 2"), std::string::npos) << err;
}

TEST(OnnxControlFlow, LoopWithoutABodyIsAnErrorNamingTheNode) {
  OnnxModelBuilder b = loopModel();
  b.graph->mutable_node(0)->clear_attribute();
  std::string err = errorOf([&] { frontend::importOnnxBytes(b.bytes()); });
  EXPECT_NE(err.find("'accumulate' (Loop)"), std::string::npos) << err;
  EXPECT_NE(err.find("graph attribute 'body' is missing"), std::string::npos) << err;
}

TEST(OnnxControlFlow, ANodeRefusedInsideABranchRefusesTheIfWithItsReason) {
  OnnxModelBuilder b = ifModel();
  b.graph->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_op_type(
      "NoSuchOp");
  try {
    frontend::importOnnxBytes(b.bytes());
    ADD_FAILURE() << "imported";
  } catch (const frontend::UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u);
    EXPECT_EQ(e.nodes()[0].node, "choose");
    EXPECT_NE(e.nodes()[0].reason.find("NoSuchOp"), std::string::npos) << e.nodes()[0].reason;
  }
}

// ---- sequences and optionals ----

namespace {

void sequenceInput(OnnxModelBuilder& b, const std::string& name, const std::string& dim) {
  auto* in = b.graph->add_input();
  in->set_name(name);
  auto* tt =
      in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param(dim);
}

runtime::Value sequenceValue(std::vector<Tensor> ts) {
  runtime::Value v;
  std::vector<runtime::Value> items(ts.begin(), ts.end());
  v.v = std::move(items);
  return v;
}

} // namespace

TEST(OnnxSequences, ConstructInsertAtLengthAndASequenceOutput) {
  OnnxModelBuilder b;
  b.input("x", {2});
  b.input("y", {2});
  b.intInitializer("front", {0})->clear_dims();
  b.intInitializer("last", {-1})->clear_dims();
  b.node("SequenceConstruct", {"x"}, {"s1"});
  b.node("SequenceInsert", {"s1", "y", "front"}, {"s2"}); // [y, x]
  b.node("SequenceLength", {"s2"}, {"len"});
  b.node("SequenceAt", {"s2", "last"}, {"back"});
  b.node("Add", {"back", "x"}, {"twice"});
  b.output("len");
  b.output("twice");
  b.output("s2");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  std::string text = text::printModule(m);
  EXPECT_EQ(text::printModule(text::parseModule(text)), text);
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto out = r.executable->runTensors({floats({2}, {1, 2}), floats({2}, {7, 8})});
  // len, x + x, then the sequence's tensors in order: y, x.
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{2}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{2, 4}));
  EXPECT_EQ(valuesOf(out[2]), (std::vector<double>{7, 8}));
  EXPECT_EQ(valuesOf(out[3]), (std::vector<double>{1, 2}));
}

TEST(OnnxSequences, SequenceMapCallsItsBodyOnEveryElementOfAnySize) {
  OnnxModelBuilder b;
  sequenceInput(b, "S", "n");
  b.input("k", {1});
  OnnxModelBuilder body;
  body.graph->set_name("scale");
  body.input("e", {std::string("n")});
  body.input("kk", {1});
  body.node("Mul", {"e", "kk"}, {"scaled"});
  body.output("scaled");
  auto* n = b.node("SequenceMap", {"S", "k"}, {"T"}, "map");
  attrGraph(n, "body", *body.graph);
  b.output("T");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  // Elements of different lengths: the body's n is bound at each call.
  runtime::Value s = sequenceValue({floats({1}, {1}), floats({3}, {1, 2, 3})});
  runtime::Value v = r.executable->run(r.executable->entry(), {s, floats({1}, {10})});
  std::vector<Tensor> out;
  v.flatten(out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(valuesOf(out[0]), (std::vector<double>{10}));
  EXPECT_EQ(valuesOf(out[1]), (std::vector<double>{10, 20, 30}));
}

TEST(OnnxSequences, OptionalHasAndGetElement) {
  OnnxModelBuilder b;
  auto* in = b.graph->add_input();
  in->set_name("o");
  auto* tt =
      in->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  b.node("OptionalHasElement", {"o"}, {"has"});
  b.output("has");
  IRModule m = frontend::importOnnxBytes(b.bytes());
  BuildResult r = build(m);
  ASSERT_TRUE(r.executable);
  auto has = [&](runtime::Value v) {
    return r.executable->run(r.executable->entry(), {v}).tensor().getDouble(0);
  };
  EXPECT_EQ(has(runtime::Value(floats({2}, {1, 2}))), 1);
  EXPECT_EQ(has(runtime::Value()), 0);

  // Optional(x) then OptionalGetElement gives x back with its shape.
  OnnxModelBuilder g;
  g.input("x", {3});
  g.node("Optional", {"x"}, {"ox"});
  g.node("OptionalGetElement", {"ox"}, {"x2"});
  g.node("Neg", {"x2"}, {"y"});
  g.output("y");
  IRModule m2 = frontend::importOnnxBytes(g.bytes());
  EXPECT_NE(text::printModule(m2).find("R.Tensor((3,), \"float32\") = R.negative"),
            std::string::npos)
      << text::printModule(m2);
  BuildResult r2 = build(m2);
  ASSERT_TRUE(r2.executable);
  auto y = r2.executable->runTensors({floats({3}, {1, -2, 3})});
  EXPECT_EQ(valuesOf(y[0]), (std::vector<double>{-1, 2, -3}));
}
