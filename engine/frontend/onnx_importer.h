#pragma once
// ONNX importer: an ONNX model (opsets 1..17, default domain) becomes an
// IRModule with one graph-level function "main" whose bindings call our
// registered operators. Initializers become Constants; graph input dims given
// as dim_param (or unknown) become shape variables shared by name, so the
// module runs at many sizes. Every binding's Span.origins names the ONNX node
// it stands for ("conv1:Conv").
//
// Failure modes: a file that cannot be read or parsed, or is structurally
// broken (undefined values, bad opset), throws unity::Error. A well-formed
// model that uses something we cannot import (unknown operator, other
// domains, unsupported attributes or attribute values, dynamic shapes where a
// constant is needed) throws ONE UnsupportedModelError listing every such
// node with its reason -- unless ImportOptions::keepUnsupported is set: then
// each such node becomes a placeholder call R.unsupported(inputs...,
// op_type=..., node=..., reason=..., out_sinfo=<declared output>) and the
// module imports, for viewing (print, render, the workbench); build()
// refuses it with the list of those nodes.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/module.h"
#include "engine/support/error.h"
#include "engine/support/tensor.h"

namespace unity::frontend {

struct ImportOptions {
  /// Name of the imported graph-level function.
  std::string functionName = "main";
  /// Folder that external tensor data is resolved against (importOnnx sets it
  /// to the model's folder when empty). Resolved paths may not leave it.
  std::string modelDir;
  /// Name used in error messages (importOnnx: the path).
  std::string sourceName;
  /// Fixed values for named symbolic dims (dim_param -> value).
  std::map<std::string, int64_t> dimValues;
  /// Input specialization: graph inputs named here become constants holding
  /// the given tensor (its dtype and shape must match the declared ones) and
  /// are no longer parameters of the function. Used for inputs that decide a
  /// shape (Reshape's shape, Slice's bounds, ...), which must be known at
  /// import time. The module then computes the model for these values only.
  std::map<std::string, Tensor> inputValues;
  /// Open anything: instead of throwing UnsupportedModelError, turn every
  /// refused node (and initializer or graph input of an unsupported type)
  /// into a placeholder call of the operator `unsupported` with attributes
  /// op_type, node and reason. Its output struct info is what the model
  /// declares for the node's outputs (value_info / graph outputs) when the
  /// type and every dim are known, else a tensor of unknown shape (rank and
  /// element type kept when declared). Consumers convert as usual. The
  /// module prints and draws; build() refuses it, naming each node. For
  /// viewing only: the CLI's print/render and the workbench set it.
  bool keepUnsupported = false;
};

/// One node the importer refused, and why.
struct UnsupportedNode {
  UnsupportedNode() = default;
  UnsupportedNode(std::string node, std::string opType, std::string reason,
                  std::string specializable = {}, int specializableIndex = -1)
      : node(std::move(node)), opType(std::move(opType)), reason(std::move(reason)),
        specializable(std::move(specializable)), specializableIndex(specializableIndex) {}

  std::string node;   // node name, or "<OpType>_<index>" when unnamed
  std::string opType; // "Conv", "com.microsoft.FusedConv", ...
  std::string reason;
  /// When the refusal is "operand X must be a constant" and X is a graph
  /// input (not an initializer), or is computed from integer graph inputs
  /// only (then one of them is named; specialize it and import again): its
  /// name and its position among the
  /// graph's non-initializer inputs (specialized ones included; the K of the
  /// test suite's input_K.pb), so a caller can retry with that input
  /// specialized (ImportOptions::inputValues). Else empty / -1.
  std::string specializable;
  int specializableIndex = -1;
};

/// A well-formed model using features the importer does not support. what()
/// lists every refused node on its own line.
class UnsupportedModelError : public Error {
public:
  UnsupportedModelError(const std::string& source, std::vector<UnsupportedNode> nodes);
  const std::vector<UnsupportedNode>& nodes() const { return nodes_; }

private:
  std::vector<UnsupportedNode> nodes_;
};

ir::IRModule importOnnx(const std::string& path, const ImportOptions& options = {});
/// Imports a serialized ModelProto held in memory.
ir::IRModule importOnnxBytes(std::string_view bytes, const ImportOptions& options = {});

/// The ONNX operator types (default domain) the importer can convert.
std::vector<std::string> supportedOnnxOps();

} // namespace unity::frontend
