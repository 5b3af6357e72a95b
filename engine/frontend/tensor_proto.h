#pragma once
// ONNX TensorProto files (the `input_K.pb` / `output_K.pb` of the ONNX test
// suite) to and from unity::Tensor. The protobuf types stay inside the .cpp.
#include <string>

#include "engine/support/tensor.h"

namespace unity::frontend {

/// Reads a serialized TensorProto; throws unity::Error naming the file.
/// `name` receives the tensor's name when not null.
Tensor readTensorProto(const std::string& path, std::string* name = nullptr);
void writeTensorProto(const std::string& path, const Tensor& t, const std::string& name = {});

/// ONNX TensorProto.DataType <-> DataType (nullopt for unsupported types).
std::optional<DataType> dtypeFromOnnx(int onnxType);
int dtypeToOnnx(DataType t);

} // namespace unity::frontend
