#include "engine/ir/struct_info.h"

#include "engine/support/error.h"

namespace unity::ir {

PrimSInfo::PrimSInfo(DataType dtype, PrimExpr value)
    : StructInfoNode(NodeKind::PrimSInfo), dtype(dtype), value(std::move(value)) {}

ShapeSInfo::ShapeSInfo(std::vector<PrimExpr> values)
    : StructInfoNode(NodeKind::ShapeSInfo), values(std::move(values)),
      ndim(static_cast<int>(this->values->size())) {}

ShapeSInfo::ShapeSInfo(int ndim) : StructInfoNode(NodeKind::ShapeSInfo), ndim(ndim) {}

TensorSInfo::TensorSInfo(DataType dtype, std::vector<PrimExpr> shape)
    : StructInfoNode(NodeKind::TensorSInfo), dtype(dtype), ndim(static_cast<int>(shape.size())),
      shape(std::move(shape)) {
  for (auto& d : *this->shape)
    if (!d || !d->dtype.isIntegral())
      throw Error("invalid IR: tensor shape with a non-integer dimension");
}

TensorSInfo::TensorSInfo(DataType dtype, int ndim)
    : StructInfoNode(NodeKind::TensorSInfo), dtype(dtype), ndim(ndim) {}

std::optional<std::vector<int64_t>> TensorSInfo::staticShape() const {
  if (!shape)
    return std::nullopt;
  std::vector<int64_t> out;
  for (auto& d : *shape) {
    auto c = asConstInt(d);
    if (!c)
      return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

TupleSInfo::TupleSInfo(std::vector<StructInfo> fields)
    : StructInfoNode(NodeKind::TupleSInfo), fields(std::move(fields)) {}

FuncSInfo::FuncSInfo(std::optional<std::vector<StructInfo>> params, StructInfo ret, bool pure)
    : StructInfoNode(NodeKind::FuncSInfo), params(std::move(params)), ret(std::move(ret)),
      pure(pure) {}

StructInfo objectSInfo() { return make<ObjectSInfo>(); }
StructInfo tensorSInfo(DataType dtype, std::vector<PrimExpr> shape) {
  return make<TensorSInfo>(dtype, std::move(shape));
}
StructInfo tensorSInfo(DataType dtype, const std::vector<int64_t>& shape) {
  std::vector<PrimExpr> dims;
  for (int64_t d : shape)
    dims.push_back(intImm(d));
  return make<TensorSInfo>(dtype, std::move(dims));
}
StructInfo tensorSInfo(DataType dtype, int ndim) { return make<TensorSInfo>(dtype, ndim); }
StructInfo tupleSInfo(std::vector<StructInfo> fields) {
  return make<TupleSInfo>(std::move(fields));
}
StructInfo shapeSInfo(std::vector<PrimExpr> values) { return make<ShapeSInfo>(std::move(values)); }
StructInfo primSInfo(DataType dtype, PrimExpr value) {
  return make<PrimSInfo>(dtype, std::move(value));
}

} // namespace unity::ir
