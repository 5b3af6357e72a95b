// "Open anything": ImportOptions::keepUnsupported imports a model with nodes
// the importer cannot convert as a module holding marked placeholders
// (R.unsupported with op_type, node, reason and the declared output type),
// which prints, parses back and is refused by build() with the list of those
// nodes; without the option the import is refused as before. Also: a tensor
// whose declared size overflows memory is refused with its name and size
// before anything is allocated.
#include <gtest/gtest.h>

#include <string>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "tests/engine/frontend/onnx_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::testing::OnnxModelBuilder;

namespace {

/// X (2, 3) -> Relu -> Frobnicate (unknown) -> Relu -> Y, and a second
/// unsupported node (another domain) with two outputs feeding Add.
OnnxModelBuilder modelWithUnsupportedNodes(bool declareTypes) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(3)});
  b.node("Relu", {"X"}, {"r"}, "relu_in");
  b.node("Frobnicate", {"r"}, {"f"}, "frob");
  b.node("Relu", {"f"}, {"Y"}, "relu_out");
  auto* ms = b.node("Split2", {"X"}, {"s0", "s1"}, "ms_split");
  ms->set_domain("com.example");
  b.node("Add", {"s0", "s1"}, {"Z"}, "add");
  b.output("Y");
  b.output("Z");
  if (declareTypes) {
    for (const char* name : {"f", "s0", "s1"}) {
      auto* vi = b.graph->add_value_info();
      vi->set_name(name);
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::FLOAT);
      tt->mutable_shape()->add_dim()->set_dim_value(2);
      tt->mutable_shape()->add_dim()->set_dim_value(std::string(name) == "f" ? 3 : 1);
    }
  }
  return b;
}

IRModule importKeeping(const std::string& bytes) {
  frontend::ImportOptions o;
  o.keepUnsupported = true;
  o.sourceName = "open.onnx";
  return frontend::importOnnxBytes(bytes, o);
}

std::vector<const Call*> placeholders(const IRModule& m) {
  std::vector<const Call*> out;
  postOrderVisit(m->lookup("main"), [&](const Expr& e) {
    if (auto* c = as<Call>(e))
      if (auto* op = as<OpRef>(c->op); op && op->name == "unsupported")
        out.push_back(c);
  });
  return out;
}

std::string buildError(const IRModule& m) {
  try {
    build(m);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(OnnxOpenAnything, WithoutTheOptionTheImportIsRefusedAsBefore) {
  EXPECT_THROW(frontend::importOnnxBytes(modelWithUnsupportedNodes(true).bytes()),
               frontend::UnsupportedModelError);
}

TEST(OnnxOpenAnything, UnsupportedNodesBecomeMarkedPlaceholdersOfTheDeclaredType) {
  IRModule m = importKeeping(modelWithUnsupportedNodes(true).bytes());
  auto ph = placeholders(m);
  ASSERT_EQ(ph.size(), 2u);
  EXPECT_EQ(ph[0]->attrs.getString("op_type"), "Frobnicate");
  EXPECT_EQ(ph[0]->attrs.getString("node"), "frob");
  EXPECT_EQ(ph[0]->attrs.getString("reason"), "unknown operator");
  ASSERT_EQ(ph[0]->args.size(), 1u); // its input r
  auto* t = as<TensorSInfo>(ph[0]->sinfo);
  ASSERT_NE(t, nullptr);
  ASSERT_TRUE(t->staticShape().has_value());
  EXPECT_EQ(*t->staticShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t->dtype, DataType::Float32());
  EXPECT_EQ(ph[1]->attrs.getString("op_type"), "com.example.Split2");
  EXPECT_NE(ph[1]->attrs.getString("reason").find("com.example"), std::string::npos);
  ASSERT_TRUE(isa<TupleSInfo>(ph[1]->sinfo)); // two outputs
  EXPECT_EQ(as<TupleSInfo>(ph[1]->sinfo)->fields.size(), 2u);

  // The printed text shows the op type and the reason, and parses back.
  std::string text = text::printModule(m);
  EXPECT_NE(text.find("R.unsupported("), std::string::npos) << text;
  EXPECT_NE(text.find("\"Frobnicate\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"unknown operator\""), std::string::npos) << text;
  EXPECT_NE(text.find("R.nn.relu"), std::string::npos) << text; // the rest is converted
  IRModule back = text::parseModule(text, "open.uir");
  EXPECT_EQ(placeholders(back).size(), 2u);
}

TEST(OnnxOpenAnything, UndeclaredOutputsGetATensorOfUnknownShapeAndConsumersAreKeptToo) {
  IRModule m = importKeeping(modelWithUnsupportedNodes(false).bytes());
  auto ph = placeholders(m);
  ASSERT_GE(ph.size(), 2u);
  auto* t = as<TensorSInfo>(ph[0]->sinfo);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ndim, -1);
  EXPECT_FALSE(t->shape.has_value());
  // Every placeholder names a node of the model.
  for (auto* c : ph)
    EXPECT_FALSE(c->attrs.getString("node").empty());
}

TEST(OnnxOpenAnything, BuildIsRefusedWithEveryUnsupportedNode) {
  IRModule m = importKeeping(modelWithUnsupportedNodes(true).bytes());
  std::string msg = buildError(m);
  EXPECT_NE(msg.find("cannot build"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 unsupported nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frob (Frobnicate): unknown operator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ms_split (com.example.Split2): operator domain 'com.example'"),
            std::string::npos)
      << msg;
  // The same module once parsed back from text is refused too.
  EXPECT_NE(buildError(text::parseModule(text::printModule(m), "open.uir")).find("frob"),
            std::string::npos);
}

TEST(OnnxOpenAnything, AModelWithoutUnsupportedNodesImportsTheSameWithTheOption) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2), int64_t(3)});
  b.node("Relu", {"X"}, {"Y"}, "relu");
  b.output("Y");
  IRModule plain = frontend::importOnnxBytes(b.bytes());
  IRModule kept = importKeeping(b.bytes());
  EXPECT_EQ(text::printModule(plain), text::printModule(kept));
  EXPECT_TRUE(placeholders(kept).empty());
  EXPECT_EQ(buildError(kept), "(no error)");
}

TEST(OnnxOpenAnything, AnInitializerOfAnUnsupportedTypeIsKeptAsAPlaceholder) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2)});
  auto* s = b.graph->add_initializer();
  s->set_name("labels");
  s->set_data_type(onnx::TensorProto::STRING);
  s->add_dims(2);
  s->add_string_data("a");
  s->add_string_data("b");
  b.node("Identity", {"labels"}, {"L"}, "ident");
  b.node("Relu", {"X"}, {"Y"}, "relu");
  b.output("Y");
  b.output("L");
  IRModule m = importKeeping(b.bytes());
  auto ph = placeholders(m);
  ASSERT_FALSE(ph.empty());
  EXPECT_EQ(ph[0]->attrs.getString("node"), "labels");
  EXPECT_EQ(ph[0]->attrs.getString("op_type"), "initializer");
  EXPECT_NE(buildError(m).find("labels (initializer)"), std::string::npos);
}

TEST(OnnxOpenAnything, AnOpsetOutsideTheSupportedRangeOpensWithEveryNodeMarked) {
  OnnxModelBuilder b(21);
  b.input("X", {int64_t(2)});
  b.node("Relu", {"X"}, {"Y"}, "relu");
  b.output("Y");
  EXPECT_THROW(frontend::importOnnxBytes(b.bytes()), frontend::UnsupportedModelError);
  IRModule m = importKeeping(b.bytes());
  auto ph = placeholders(m);
  ASSERT_EQ(ph.size(), 1u);
  EXPECT_EQ(ph[0]->attrs.getString("op_type"), "Relu");
  EXPECT_NE(ph[0]->attrs.getString("reason").find("opset 21 is outside 1..17"), std::string::npos);
}

TEST(OnnxOpenAnything, AGraphInputOfAnUnsupportedTypeIsKeptAsAPlaceholder) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2)});
  auto* map = b.graph->add_input(); // a map: sequences and optionals are supported
  map->set_name("S");
  auto* mt = map->mutable_type()->mutable_map_type();
  mt->set_key_type(onnx::TensorProto::INT64);
  mt->mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  b.node("SequenceLength", {"S"}, {"L"}, "len");
  b.node("Relu", {"X"}, {"Y"}, "relu");
  b.output("Y");
  b.output("L");
  IRModule m = importKeeping(b.bytes());
  auto ph = placeholders(m);
  ASSERT_EQ(ph.size(), 2u);
  EXPECT_EQ(ph[0]->attrs.getString("node"), "S");
  EXPECT_EQ(ph[0]->attrs.getString("op_type"), "graph input");
  EXPECT_EQ(ph[1]->attrs.getString("node"), "len");
  EXPECT_EQ(as<Function>(m->lookup("main"))->params.size(), 1u); // X only
}

TEST(OnnxTensorSize, DeclaredSizeOverflowingInt64IsRefusedNamingTheTensor) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2)});
  auto* w = b.graph->add_initializer();
  w->set_name("huge_w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  // 2^32 * 2^32 elements: the product wraps to 0 in int64 arithmetic.
  w->add_dims(int64_t(1) << 32);
  w->add_dims(int64_t(1) << 32);
  w->set_raw_data("");
  b.node("Add", {"X", "huge_w"}, {"Y"}, "add");
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "expected an error";
  } catch (const frontend::UnsupportedModelError& e) {
    FAIL() << "not an unsupported node: " << e.what();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'huge_w'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4294967296, 4294967296)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("more than 2^63 elements"), std::string::npos) << msg;
  }
}

TEST(OnnxTensorSize, DeclaredSizeBeyondTheLimitIsRefusedWithItsByteSize) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2)});
  auto* w = b.graph->add_initializer();
  w->set_name("big_w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(int64_t(1) << 20);
  w->add_dims(int64_t(1) << 20); // 2^40 floats: 4 TiB
  w->add_float_data(1.0f);
  b.node("Add", {"X", "big_w"}, {"Y"}, "add");
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'big_w'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4398046511104 bytes"), std::string::npos) << msg;
  }
}

TEST(OnnxTensorSize, DeclaredSizeLargerThanTheDataIsRefusedBeforeAllocating) {
  OnnxModelBuilder b;
  b.input("X", {int64_t(2)});
  auto* w = b.graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(int64_t(1) << 36); // 256 GiB declared, 8 bytes present
  w->set_raw_data(std::string(8, '\0'));
  b.node("Add", {"X", "w"}, {"Y"}, "add");
  b.output("Y");
  try {
    frontend::importOnnxBytes(b.bytes());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'w'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("raw data has 8 bytes, expected 274877906944"), std::string::npos) << msg;
  }
}
