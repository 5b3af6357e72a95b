// Reductions: sum, mean, max, min, prod over a list of axes (absent = all),
// argmax/argmin over one axis (absent = the flattened tensor, giving a
// scalar) with an int64 result. keepdims keeps reduced axes as size 1.
#include <algorithm>

#include "engine/op/deduce_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

/// Output struct info of reducing `axes` (nullopt = all) of x.
StructInfo reduced(const Call& call, const DeduceContext& ctx, const TensorSInfo& x,
                   const std::optional<std::vector<int64_t>>& axes, bool keepdims, DataType dtype) {
  if (x.ndim < 0)
    return tensorSInfo(dtype, keepdims || axes ? -1 : 0);
  std::vector<int> ax;
  if (axes)
    ax = normalizeAxes(call, ctx, *axes, x.ndim);
  else
    for (int i = 0; i < x.ndim; ++i)
      ax.push_back(i);
  auto isReduced = [&](int i) { return std::find(ax.begin(), ax.end(), i) != ax.end(); };
  int outNdim = keepdims ? x.ndim : x.ndim - static_cast<int>(ax.size());
  if (!x.shape)
    return tensorSInfo(dtype, outNdim);
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim; ++i) {
    if (!isReduced(i))
      shape.push_back((*x.shape)[i]);
    else if (keepdims)
      shape.push_back(intImm(1));
  }
  return tensorSInfo(dtype, std::move(shape));
}

StructInfo deduceReduce(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  std::optional<std::vector<int64_t>> axes;
  if (hasAttr(call, "axis"))
    axes = attrInts(call, ctx, "axis");
  return reduced(call, ctx, x, axes, attrBool(call, ctx, "keepdims"), x.dtype);
}

StructInfo deduceArg(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  std::optional<std::vector<int64_t>> axes;
  if (hasAttr(call, "axis"))
    axes = std::vector<int64_t>{attrInt(call, ctx, "axis")};
  return reduced(call, ctx, x, axes, attrBool(call, ctx, "keepdims"), DataType::Int64());
}

} // namespace

void registerReduceOps() {
  std::vector<AttrSpec> attrs = {
      {"axis", Type::Ints, false, std::vector<int64_t>{}, "axes to reduce; absent = all", true},
      {"keepdims", Type::Bool, false, false, "keep reduced axes with size 1"}};
  for (auto [name, doc] :
       std::initializer_list<std::pair<const char*, const char*>>{{"sum", "sum over axes"},
                                                                  {"mean", "mean over axes"},
                                                                  {"max", "maximum over axes"},
                                                                  {"min", "minimum over axes"},
                                                                  {"prod", "product over axes"}})
    registerOp({name, 1, 1, OpPattern::CommReduce, attrs, deduceReduce, doc});

  std::vector<AttrSpec> argAttrs = {
      {"axis", Type::Int, false, int64_t(0), "axis; absent = the flattened tensor", true},
      {"keepdims", Type::Bool, false, false, "keep the reduced axis with size 1"}};
  registerOp(
      {"argmax", 1, 1, OpPattern::CommReduce, argAttrs, deduceArg, "index of the maximum (int64)"});
  registerOp(
      {"argmin", 1, 1, OpPattern::CommReduce, argAttrs, deduceArg, "index of the minimum (int64)"});
}

} // namespace unity::op::detail
