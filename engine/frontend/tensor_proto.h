#pragma once
// ONNX TensorProto files (the `input_K.pb` / `output_K.pb` of the ONNX test
// suite) to and from unity::Tensor, and the SequenceProto / OptionalProto
// files of sequence and optional values. The protobuf types stay inside the
// .cpp.
#include <string>
#include <vector>

#include "engine/support/tensor.h"

namespace unity::frontend {

/// Reads a serialized TensorProto; throws unity::Error naming the file.
/// `name` receives the tensor's name when not null.
Tensor readTensorProto(const std::string& path, std::string* name = nullptr);
void writeTensorProto(const std::string& path, const Tensor& t, const std::string& name = {});

/// A value of a test-data file: a tensor, a sequence of values, or an
/// optional (no value, or one in `items`).
struct ProtoValue {
  enum class Kind { Tensor, Sequence, Optional } kind = Kind::Tensor;
  Tensor tensor;
  std::vector<ProtoValue> items;
  /// Its tensors in order (an empty optional has none).
  void flatten(std::vector<Tensor>& out) const;
};

/// Reads a TensorProto, SequenceProto or OptionalProto file; the kind is
/// the one the model declares for that input or output (the files carry no
/// tag). Throws unity::Error naming the file.
ProtoValue readValueProto(const std::string& path, ProtoValue::Kind kind);

/// The kinds a model declares for its graph inputs (initializers excluded)
/// and outputs.
struct OnnxValueKinds {
  std::vector<ProtoValue::Kind> inputs, outputs;
  bool allTensors() const;
};
OnnxValueKinds onnxValueKinds(const std::string& modelPath);

/// ONNX TensorProto.DataType <-> DataType (nullopt for unsupported types).
std::optional<DataType> dtypeFromOnnx(int onnxType);
int dtypeToOnnx(DataType t);

} // namespace unity::frontend
