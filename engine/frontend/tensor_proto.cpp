#include "engine/frontend/tensor_proto.h"

#include <cstring>
#include <fstream>

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

Tensor readTensorProto(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  onnx::TensorProto tp;
  if (!tp.ParseFromIstream(&in))
    throw Error(path + ": not a valid ONNX TensorProto (parse failed)");
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
