#include "engine/frontend/tensor_proto.h"

#include <cstring>
#include <fstream>

#include <set>

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include "engine/support/error.h"

namespace unity::frontend {

std::optional<DataType> dtypeFromOnnx(int t) {
  using TP = onnx::TensorProto;
  switch (t) {
  case TP::FLOAT:
    return DataType::Float(32);
  case TP::DOUBLE:
    return DataType::Float(64);
  case TP::FLOAT16:
    return DataType::Float(16);
  case TP::INT8:
    return DataType::Int(8);
  case TP::INT16:
    return DataType::Int(16);
  case TP::INT32:
    return DataType::Int(32);
  case TP::INT64:
    return DataType::Int(64);
  case TP::UINT8:
    return DataType::UInt(8);
  case TP::UINT16:
    return DataType::UInt(16);
  case TP::UINT32:
    return DataType::UInt(32);
  case TP::UINT64:
    return DataType::UInt(64);
  case TP::BOOL:
    return DataType::Bool();
  default:
    return std::nullopt;
  }
}

int dtypeToOnnx(DataType t) {
  using TP = onnx::TensorProto;
  using C = DataType::Code;
  switch (t.code) {
  case C::Float:
    return t.bits == 64 ? TP::DOUBLE : t.bits == 16 ? TP::FLOAT16 : TP::FLOAT;
  case C::Int:
    return t.bits == 8 ? TP::INT8 : t.bits == 16 ? TP::INT16 : t.bits == 32 ? TP::INT32 : TP::INT64;
  case C::UInt:
    return t.bits == 8    ? TP::UINT8
           : t.bits == 16 ? TP::UINT16
           : t.bits == 32 ? TP::UINT32
                          : TP::UINT64;
  case C::Bool:
    return TP::BOOL;
  default:
    throw Error("dtype " + t.str() + " has no ONNX equivalent");
  }
}

namespace {

Tensor tensorOfProto(const onnx::TensorProto& tp, const std::string& path, std::string* name);

} // namespace

Tensor readTensorProto(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  onnx::TensorProto tp;
  if (!tp.ParseFromIstream(&in))
    throw Error(path + ": not a valid ONNX TensorProto (parse failed)");
  return tensorOfProto(tp, path, name);
}

void ProtoValue::flatten(std::vector<Tensor>& out) const {
  if (kind == Kind::Tensor)
    out.push_back(tensor);
  for (auto& i : items)
    i.flatten(out);
}

namespace {

ProtoValue sequenceOfProto(const onnx::SequenceProto& sp, const std::string& path) {
  ProtoValue v;
  v.kind = ProtoValue::Kind::Sequence;
  if (sp.sparse_tensor_values_size() || sp.map_values_size() || sp.sequence_values_size() ||
      sp.optional_values_size())
    throw Error(path + ": only sequences of tensors are supported");
  for (auto& t : sp.tensor_values()) {
    ProtoValue e;
    e.tensor = tensorOfProto(t, path, nullptr);
    v.items.push_back(std::move(e));
  }
  return v;
}

ProtoValue::Kind kindOfType(const onnx::TypeProto& t) {
  if (t.has_sequence_type())
    return ProtoValue::Kind::Sequence;
  if (t.has_optional_type())
    return ProtoValue::Kind::Optional;
  return ProtoValue::Kind::Tensor;
}

} // namespace

ProtoValue readValueProto(const std::string& path, ProtoValue::Kind kind) {
  if (kind == ProtoValue::Kind::Tensor) {
    ProtoValue v;
    v.tensor = readTensorProto(path);
    return v;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  if (kind == ProtoValue::Kind::Sequence) {
    onnx::SequenceProto sp;
    if (!sp.ParseFromIstream(&in))
      throw Error(path + ": not a valid ONNX SequenceProto (parse failed)");
    return sequenceOfProto(sp, path);
  }
  onnx::OptionalProto op;
  if (!op.ParseFromIstream(&in))
    throw Error(path + ": not a valid ONNX OptionalProto (parse failed)");
  ProtoValue v;
  v.kind = ProtoValue::Kind::Optional;
  if (op.has_tensor_value()) {
    ProtoValue e;
    e.tensor = tensorOfProto(op.tensor_value(), path, nullptr);
    v.items.push_back(std::move(e));
  } else if (op.has_sequence_value()) {
    v.items.push_back(sequenceOfProto(op.sequence_value(), path));
  } else if (op.has_sparse_tensor_value() || op.has_map_value() || op.has_optional_value()) {
    throw Error(path + ": only optionals of tensors or sequences are supported");
  }
  return v;
}

bool OnnxValueKinds::allTensors() const {
  for (auto* list : {&inputs, &outputs})
    for (auto k : *list)
      if (k != ProtoValue::Kind::Tensor)
        return false;
  return true;
}

OnnxValueKinds onnxValueKinds(const std::string& modelPath) {
  std::ifstream in(modelPath, std::ios::binary);
  onnx::ModelProto m;
  if (!in || !m.ParseFromIstream(&in))
    throw Error(modelPath + ": not a readable ONNX model");
  OnnxValueKinds k;
  std::set<std::string> inits;
  for (auto& i : m.graph().initializer())
    inits.insert(i.name());
  for (auto& i : m.graph().input())
    if (!inits.count(i.name()))
      k.inputs.push_back(kindOfType(i.type()));
  for (auto& o : m.graph().output())
    k.outputs.push_back(kindOfType(o.type()));
  return k;
}

namespace {

Tensor tensorOfProto(const onnx::TensorProto& tp, const std::string& path, std::string* name) {
  auto dtype = dtypeFromOnnx(tp.data_type());
  if (!dtype)
    throw Error(path + ": unsupported ONNX tensor data type " + std::to_string(tp.data_type()));
  std::vector<int64_t> shape(tp.dims().begin(), tp.dims().end());
  Tensor t(*dtype, shape);
  if (name)
    *name = tp.name();
  if (tp.has_data_location() && tp.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(path + ": external data in a test tensor is not supported");
  int64_t n = t.numel();
  auto need = [&](int64_t have) {
    if (have != n)
      throw Error(path + ": tensor has " + std::to_string(have) + " values for shape " +
                  Tensor::shapeStr(shape));
  };
  if (!tp.raw_data().empty()) {
    if (tp.raw_data().size() != t.nbytes())
      throw Error(path + ": raw data has " + std::to_string(tp.raw_data().size()) +
                  " bytes, expected " + std::to_string(t.nbytes()));
    std::memcpy(t.mutableData(), tp.raw_data().data(), t.nbytes());
  } else if (tp.float_data_size()) {
    need(tp.float_data_size());
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, tp.float_data(i));
  } else if (tp.double_data_size()) {
    need(tp.double_data_size());
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, tp.double_data(i));
  } else if (tp.int64_data_size()) {
    need(tp.int64_data_size());
    for (int64_t i = 0; i < n; ++i) {
      if (dtype->bits == 64 && dtype->isInt())
        t.mutableDataAs<int64_t>()[i] = tp.int64_data(i);
      else
        t.setDouble(i, double(tp.int64_data(i)));
    }
  } else if (tp.int32_data_size()) {
    need(tp.int32_data_size());
    for (int64_t i = 0; i < n; ++i) {
      if (dtype->bits == 16 && dtype->isFloat()) {
        uint16_t bits = static_cast<uint16_t>(tp.int32_data(i));
        std::memcpy(static_cast<char*>(t.mutableData()) + 2 * i, &bits, 2);
      } else {
        t.setDouble(i, tp.int32_data(i));
      }
    }
  } else if (tp.uint64_data_size()) {
    need(tp.uint64_data_size());
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, double(tp.uint64_data(i)));
  } else if (n != 0) {
    throw Error(path + ": tensor has no data");
  }
  return t;
}

} // namespace

void writeTensorProto(const std::string& path, const Tensor& t, const std::string& name) {
  onnx::TensorProto tp;
  tp.set_data_type(dtypeToOnnx(t.dtype()));
  for (int64_t d : t.shape())
    tp.add_dims(d);
  if (!name.empty())
    tp.set_name(name);
  tp.set_raw_data(t.data(), t.nbytes());
  std::ofstream out(path, std::ios::binary);
  if (!out || !tp.SerializeToOstream(&out))
    throw Error(path + ": cannot write file");
}

} // namespace unity::frontend
