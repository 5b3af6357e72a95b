#pragma once
// Builds small ONNX models in tests with the protobuf API.
#include <onnx/onnx_pb.h>

#include <string>
#include <variant>
#include <vector>

namespace unity::testing {

/// A dim: a fixed size or a dim_param name.
using OnnxDim = std::variant<int64_t, std::string>;

class OnnxModelBuilder {
public:
  explicit OnnxModelBuilder(int opset = 13) {
    model.set_ir_version(8);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    graph = model.mutable_graph();
    graph->set_name("test_graph");
  }

  void input(const std::string& name, const std::vector<OnnxDim>& dims,
             int elemType = onnx::TensorProto::FLOAT) {
    auto* vi = graph->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    auto* shape = tt->mutable_shape();
    for (auto& d : dims) {
      auto* dim = shape->add_dim();
      if (auto* v = std::get_if<int64_t>(&d))
        dim->set_dim_value(*v);
      else
        dim->set_dim_param(std::get<std::string>(d));
    }
  }

  void output(const std::string& name) { graph->add_output()->set_name(name); }

  onnx::TensorProto* initializer(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<float>& values) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
    return t;
  }

  onnx::TensorProto* intInitializer(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (auto v : values)
      t->add_int64_data(v);
    return t;
  }

  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs, const std::string& name = {}) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    if (!name.empty())
      n->set_name(name);
    for (auto& i : ins)
      n->add_input(i);
    for (auto& o : outs)
      n->add_output(o);
    return n;
  }

  static void attrInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attrFloat(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attrInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v)
      a->add_ints(x);
  }
  static void attrString(onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  std::string bytes() const { return model.SerializeAsString(); }

  onnx::ModelProto model;
  onnx::GraphProto* graph;
};

} // namespace unity::testing
