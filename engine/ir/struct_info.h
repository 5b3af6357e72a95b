#pragma once
// Struct info: what is statically known about a graph-level value: its kind
// (tensor, shape, tuple, scalar, function, anything) and, for tensors, dtype,
// rank and a shape of symbolic expressions. Deduced per binding by the
// operators (op/), checked by match_cast.
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/node.h"
#include "engine/ir/prim_expr.h"

namespace unity::ir {

class StructInfoNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::ObjectSInfo, kLast = NodeKind::FuncSInfo;
  using Node::Node;
};
using StructInfo = Ref<StructInfoNode>;

/// Nothing is known (any object).
class ObjectSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::ObjectSInfo, kLast = NodeKind::ObjectSInfo;
  ObjectSInfo() : StructInfoNode(NodeKind::ObjectSInfo) {}
};

/// A scalar of dtype, optionally with a known value (e.g. `n`).
class PrimSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimSInfo, kLast = NodeKind::PrimSInfo;
  explicit PrimSInfo(DataType dtype, PrimExpr value = nullptr);
  const DataType dtype;
  const PrimExpr value;
};

/// A shape value: known values, or only the rank (ndim, -1 when unknown).
class ShapeSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::ShapeSInfo, kLast = NodeKind::ShapeSInfo;
  explicit ShapeSInfo(std::vector<PrimExpr> values);
  explicit ShapeSInfo(int ndim);
  const std::optional<std::vector<PrimExpr>> values;
  const int ndim;
};

/// A tensor: dtype (Void when unknown), rank (-1 when unknown) and shape
/// (absent when unknown; when present its length is ndim).
class TensorSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::TensorSInfo, kLast = NodeKind::TensorSInfo;
  TensorSInfo(DataType dtype, std::vector<PrimExpr> shape);
  TensorSInfo(DataType dtype, int ndim);
  const DataType dtype;
  const int ndim;
  const std::optional<std::vector<PrimExpr>> shape;
  bool hasShape() const { return shape.has_value(); }
  /// The static shape if every dim is a constant.
  std::optional<std::vector<int64_t>> staticShape() const;
};

class TupleSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::TupleSInfo, kLast = NodeKind::TupleSInfo;
  explicit TupleSInfo(std::vector<StructInfo> fields);
  const std::vector<StructInfo> fields;
};

class FuncSInfo : public StructInfoNode {
public:
  static constexpr NodeKind kFirst = NodeKind::FuncSInfo, kLast = NodeKind::FuncSInfo;
  FuncSInfo(std::optional<std::vector<StructInfo>> params, StructInfo ret, bool pure = true);
  const std::optional<std::vector<StructInfo>> params; // absent: opaque signature
  const StructInfo ret;
  const bool pure;
};

// Helpers.
StructInfo objectSInfo();
StructInfo tensorSInfo(DataType dtype, std::vector<PrimExpr> shape);
StructInfo tensorSInfo(DataType dtype, const std::vector<int64_t>& shape);
StructInfo tensorSInfo(DataType dtype, int ndim);
StructInfo tupleSInfo(std::vector<StructInfo> fields);
StructInfo shapeSInfo(std::vector<PrimExpr> values);
StructInfo primSInfo(DataType dtype, PrimExpr value = nullptr);

} // namespace unity::ir
