// Shape manipulation (injective) operators: reshape, permute_dims, concat,
// split, strided_slice, take, squeeze, expand_dims, broadcast_to, arange, flatten,
// nn.batch_flatten, nn.pad, image.resize2d.
//
// reshape's -1 is inferred by exact symbolic division of element counts as
// monomials ((n*4*6) / (n*2) = 12); when that is not exact it becomes a
// floordiv of the counts. Element counts that are provably different are an
// error; counts that merely cannot be proven equal are accepted (the runtime
// checks them), as in TVM.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/op/deduce_util.h"
#include "engine/op/sinfo_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

StructInfo deduceReshape(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  int ndim = -1;
  auto target = shapeArg(call, ctx, 1, &ndim);
  if (!target)
    return tensorSInfo(x.dtype, ndim);
  std::vector<PrimExpr> dims;
  int inferred = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    PrimExpr d = arith::toIndex((*target)[i]);
    if (auto c = asConstInt(d); c && *c < 0) {
      if (*c != -1)
        fail(call, ctx, fmt::format("target dimension {} is {}", i, *c));
      if (inferred >= 0)
        fail(call, ctx, "more than one -1 in the target shape");
      inferred = static_cast<int>(i);
    }
    dims.push_back(d);
  }
  if (!x.shape) {
    if (inferred >= 0)
      return tensorSInfo(x.dtype, static_cast<int>(dims.size()));
    return tensorOf(x.dtype, dims);
  }
  PrimExpr count = arith::product(*x.shape);
  std::vector<PrimExpr> known;
  for (size_t i = 0; i < dims.size(); ++i)
    if (static_cast<int>(i) != inferred)
      known.push_back(dims[i]);
  PrimExpr knownCount = arith::product(known);
  if (inferred >= 0) {
    auto q = arith::divideExact(count, knownCount);
    if (!q) {
      auto cc = asConstInt(count), ck = asConstInt(knownCount);
      if ((cc && ck) || isConstInt(knownCount, 0))
        fail(call, ctx,
             fmt::format("cannot infer -1: {} elements do not divide into {}", primExprStr(count),
                         primExprStr(knownCount)));
      q = arith::simplify(floordiv(count, knownCount));
    }
    dims[inferred] = *q;
  } else if (arith::provablyDifferent(count, knownCount)) {
    fail(call, ctx,
         fmt::format("element count differs: {} vs {}", primExprStr(count),
                     primExprStr(knownCount)));
  }
  return tensorOf(x.dtype, std::move(dims));
}

StructInfo deducePermute(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  std::vector<int> axes;
  if (hasAttr(call, "axes")) {
    auto given = attrInts(call, ctx, "axes");
    if (static_cast<int>(given.size()) != x.ndim)
      fail(call, ctx,
           fmt::format("axes has {} entries for a tensor of rank {}", given.size(), x.ndim));
    axes = normalizeAxes(call, ctx, given, x.ndim);
  } else {
    for (int i = x.ndim - 1; i >= 0; --i)
      axes.push_back(i);
  }
  if (!x.shape)
    return tensorSInfo(x.dtype, x.ndim);
  std::vector<PrimExpr> shape;
  for (int a : axes)
    shape.push_back((*x.shape)[a]);
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceConcat(const Call& call, const DeduceContext& ctx) {
  auto* tup = as<TupleSInfo>(call.args[0]->sinfo);
  if (!tup)
    fail(call, ctx, "operand 0 must be a tuple of tensors");
  if (tup->fields.empty())
    fail(call, ctx, "cannot concatenate an empty tuple");
  DataType dtype;
  int ndim = -1;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    auto* t = as<TensorSInfo>(tup->fields[i]);
    if (!t)
      fail(call, ctx, fmt::format("tuple field {} is not a tensor", i));
    dtype = i == 0 ? t->dtype : unifyDType(call, ctx, dtype, t->dtype);
    if (t->ndim >= 0 && ndim >= 0 && t->ndim != ndim)
      fail(call, ctx, fmt::format("tuple field {} has rank {}, expected {}", i, t->ndim, ndim));
    if (t->ndim >= 0)
      ndim = t->ndim;
  }
  if (ndim < 0)
    return tensorSInfo(dtype, -1);
  int axis = normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), ndim);
  std::vector<PrimExpr> shape;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    auto* t = as<TensorSInfo>(tup->fields[i]);
    if (!t->shape)
      return tensorSInfo(dtype, ndim);
    if (i == 0) {
      shape = *t->shape;
      continue;
    }
    for (int d = 0; d < ndim; ++d) {
      if (d == axis)
        shape[d] = shape[d] + arith::toIndex((*t->shape)[d]);
      else
        requireEqualDim(call, ctx, shape[d], (*t->shape)[d],
                        fmt::format("tuple field {} differs in dimension {}", i, d));
    }
  }
  return tensorOf(dtype, std::move(shape));
}

StructInfo deduceSplit(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const AttrValue* ios = call.attrs.find("indices_or_sections");
  bool sections = std::holds_alternative<int64_t>(*ios);
  std::vector<int64_t> indices = attrInts(call, ctx, "indices_or_sections");
  int64_t parts = sections ? indices[0] : static_cast<int64_t>(indices.size()) + 1;
  if (parts <= 0)
    fail(call, ctx, fmt::format("cannot split into {} sections", parts));
  if (x.ndim < 0)
    return tupleSInfo(std::vector<StructInfo>(parts, tensorSInfo(x.dtype, -1)));
  int axis = normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  if (!x.shape)
    return tupleSInfo(std::vector<StructInfo>(parts, tensorSInfo(x.dtype, x.ndim)));
  PrimExpr dim = arith::toIndex((*x.shape)[axis]);
  auto cdim = asConstInt(dim);
  std::vector<StructInfo> fields;
  auto withDim = [&](PrimExpr d) {
    std::vector<PrimExpr> s = *x.shape;
    s[axis] = d;
    fields.push_back(tensorOf(x.dtype, std::move(s)));
  };
  if (sections) {
    if (cdim && *cdim % parts != 0)
      fail(call, ctx,
           fmt::format("dimension {} of size {} does not split into {} equal sections", axis, *cdim,
                       parts));
    for (int64_t i = 0; i < parts; ++i)
      withDim(floordiv(dim, intImm(parts)));
  } else {
    int64_t prev = 0;
    for (size_t i = 0; i <= indices.size(); ++i) {
      if (i < indices.size() && indices[i] < prev)
        fail(call, ctx, "split indices must be non-decreasing and non-negative");
      if (i < indices.size()) {
        int64_t end = cdim ? std::min(indices[i], *cdim) : indices[i];
        withDim(intImm(std::max<int64_t>(end - std::min(prev, end), 0)));
        prev = indices[i];
      } else {
        withDim(cdim ? intImm(std::max<int64_t>(*cdim - prev, 0)) : dim - intImm(prev));
      }
    }
  }
  return tupleSInfo(std::move(fields));
}

StructInfo deduceStridedSlice(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  auto axes = attrInts(call, ctx, "axes"), begin = attrInts(call, ctx, "begin"),
       end = attrInts(call, ctx, "end");
  std::vector<int64_t> strides = hasAttr(call, "strides") ? attrInts(call, ctx, "strides")
                                                          : std::vector<int64_t>(axes.size(), 1);
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size())
    fail(call, ctx, "axes, begin, end and strides must have the same length");
  if (x.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  auto ax = normalizeAxes(call, ctx, axes, x.ndim);
  if (!x.shape)
    return tensorSInfo(x.dtype, x.ndim);
  std::vector<PrimExpr> shape = *x.shape;
  for (size_t i = 0; i < ax.size(); ++i) {
    int64_t b = begin[i], e = end[i], s = strides[i];
    if (s == 0)
      fail(call, ctx, fmt::format("stride of axis {} is 0", axes[i]));
    if (s == INT64_MIN || b == INT64_MIN || e == INT64_MIN)
      fail(call, ctx, fmt::format("slice bounds of axis {} are out of range", axes[i]));
    PrimExpr dim = arith::toIndex(shape[ax[i]]);
    if (auto c = asConstInt(dim)) {
      int64_t n = *c;
      auto clampIdx = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0)
          v += n;
        return std::clamp(v, lo, hi);
      };
      int64_t len;
      if (s > 0) {
        int64_t bb = clampIdx(b, 0, n), ee = clampIdx(e, 0, n);
        len = ee > bb ? (ee - bb - 1) / s + 1 : 0;
      } else {
        int64_t bb = clampIdx(b, -1, n - 1), ee = clampIdx(e, -1, n - 1);
        len = bb > ee ? (bb - ee - 1) / -s + 1 : 0;
      }
      shape[ax[i]] = intImm(len);
      continue;
    }
    if (s < 0)
      return tensorSInfo(x.dtype, x.ndim); // symbolic reverse slice: rank only
    // Symbolic dimension: bounds clamped to [0, dim] as the legalization
    // (topi::stridedSlice) does, so both agree on the shape; an end of at
    // least INT32_MAX (ONNX's "to the end") is the dim itself.
    PrimExpr bb = b < 0 ? ir::max(dim + intImm(b), intImm(0)) : ir::min(intImm(b), dim);
    PrimExpr ee = e >= INT32_MAX ? dim
                  : e < 0        ? ir::max(dim + intImm(e), intImm(0))
                                 : ir::min(intImm(e), dim);
    // Shape variables are never negative: tell the simplifier so that
    // x[0:INT32_MAX] has the extent n, not max(n - min(n, 0), 0).
    PrimExpr len = ir::max(floordiv(ee - bb + intImm(s - 1), intImm(s)), intImm(0));
    unity::arith::Analyzer an;
    walkPrimExpr(len, [&](const PrimExpr& v) {
      if (auto var = cast<PrimVar>(v))
        an.markNonNegative(var);
    });
    shape[ax[i]] = an.simplify(len);
  }
  return tensorOf(x.dtype, std::move(shape));
}

StructInfo deduceTake(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& idx = tensorArg(call, ctx, 1);
  if (!idx.dtype.isVoid() && !idx.dtype.isIntegral())
    fail(call, ctx, "indices must be an integer tensor, got " + idx.dtype.str());
  bool flat = !hasAttr(call, "axis");
  if (x.ndim < 0 || idx.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  int axis = flat ? 0 : normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  int outNdim = flat ? idx.ndim : x.ndim - 1 + idx.ndim;
  if (!x.shape || !idx.shape)
    return tensorSInfo(x.dtype, outNdim);
  std::vector<PrimExpr> shape;
  if (!flat)
    for (int i = 0; i < axis; ++i)
      shape.push_back((*x.shape)[i]);
  for (auto& d : *idx.shape)
    shape.push_back(d);
  if (!flat)
    for (int i = axis + 1; i < x.ndim; ++i)
      shape.push_back((*x.shape)[i]);
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceSqueeze(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  if (hasAttr(call, "axis")) {
    auto ax = normalizeAxes(call, ctx, attrInts(call, ctx, "axis"), x.ndim);
    int outNdim = x.ndim - static_cast<int>(ax.size());
    if (!x.shape)
      return tensorSInfo(x.dtype, outNdim);
    std::vector<PrimExpr> shape;
    for (int i = 0; i < x.ndim; ++i) {
      if (std::find(ax.begin(), ax.end(), i) == ax.end()) {
        shape.push_back((*x.shape)[i]);
        continue;
      }
      auto c = asConstInt((*x.shape)[i]);
      if (c && *c != 1)
        fail(call, ctx, fmt::format("cannot squeeze axis {} of size {}", i, *c));
    }
    return tensorSInfo(x.dtype, std::move(shape));
  }
  if (!x.shape)
    return tensorSInfo(x.dtype, -1);
  std::vector<PrimExpr> shape;
  for (auto& d : *x.shape) {
    auto c = asConstInt(d);
    if (!c)
      return tensorSInfo(x.dtype, -1); // a symbolic dim may or may not be 1
    if (*c != 1)
      shape.push_back(d);
  }
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceExpandDims(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  auto given = attrInts(call, ctx, "axis");
  if (x.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  int outNdim = x.ndim + static_cast<int>(given.size());
  auto ax = normalizeAxes(call, ctx, given, outNdim);
  if (!x.shape)
    return tensorSInfo(x.dtype, outNdim);
  std::vector<PrimExpr> shape;
  size_t next = 0;
  for (int i = 0; i < outNdim; ++i) {
    if (std::find(ax.begin(), ax.end(), i) != ax.end())
      shape.push_back(intImm(1));
    else
      shape.push_back((*x.shape)[next++]);
  }
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceBroadcastTo(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  int ndim = -1;
  auto target = shapeArg(call, ctx, 1, &ndim);
  if (x.ndim >= 0 && ndim >= 0 && x.ndim > ndim)
    fail(call, ctx, fmt::format("cannot broadcast a rank-{} tensor to rank {}", x.ndim, ndim));
  if (!target)
    return tensorSInfo(x.dtype, ndim);
  if (x.shape) {
    size_t off = target->size() - x.shape->size();
    for (size_t i = 0; i < x.shape->size(); ++i) {
      const PrimExpr& d = (*x.shape)[i];
      if (isConstInt(d, 1))
        continue;
      requireEqualDim(call, ctx, d, (*target)[off + i],
                      fmt::format("cannot broadcast dimension {} to the target", i));
    }
  }
  return tensorOf(x.dtype, *target);
}

StructInfo deduceArange(const Call& call, const DeduceContext& ctx) {
  int ndim = -1;
  auto target = shapeArg(call, ctx, 0, &ndim);
  if (ndim >= 0 && ndim != 1)
    fail(call, ctx, fmt::format("arange takes a rank-1 shape (its length), got rank {}", ndim));
  if (!target)
    return tensorSInfo(DataType::Int64(), 1);
  return tensorOf(DataType::Int64(), *target);
}

StructInfo deduceFlatten(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (!x.shape)
    return tensorSInfo(x.dtype, 1);
  return tensorSInfo(x.dtype, {arith::product(*x.shape)});
}

StructInfo deduceBatchFlatten(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim == 0)
    fail(call, ctx, "needs a tensor of rank >= 1");
  if (!x.shape)
    return tensorSInfo(x.dtype, 2);
  std::vector<PrimExpr> rest(x.shape->begin() + 1, x.shape->end());
  return tensorSInfo(x.dtype, {(*x.shape)[0], arith::product(rest)});
}

StructInfo deducePad(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  auto pw = attrInts(call, ctx, "pad_width");
  std::string mode = attrString(call, ctx, "pad_mode");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    fail(call, ctx, "pad_mode must be \"constant\", \"edge\" or \"reflect\", got \"" + mode + "\"");
  for (int64_t p : pw)
    if (p < 0)
      fail(call, ctx, "pad_width entries must be non-negative");
  if (x.ndim < 0)
    return tensorSInfo(x.dtype, -1);
  if (static_cast<int>(pw.size()) != 2 * x.ndim)
    fail(call, ctx,
         fmt::format("pad_width needs {} entries (before, after per axis), got {}", 2 * x.ndim,
                     pw.size()));
  if (!x.shape)
    return tensorSInfo(x.dtype, x.ndim);
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim; ++i)
    shape.push_back(arith::toIndex((*x.shape)[i]) + intImm(pw[2 * i] + pw[2 * i + 1]));
  return tensorOf(x.dtype, std::move(shape));
}

StructInfo deduceResize2d(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  std::string method = attrString(call, ctx, "method");
  if (method != "nearest_neighbor" && method != "linear" && method != "cubic")
    fail(call, ctx,
         "method must be \"nearest_neighbor\", \"linear\" or \"cubic\", got \"" + method + "\"");
  std::string ctm = attrString(call, ctx, "coordinate_transformation_mode");
  static const char* modes[] = {"half_pixel",         "align_corners",        "asymmetric",
                                "pytorch_half_pixel", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::none_of(std::begin(modes), std::end(modes), [&](const char* m) { return ctm == m; }))
    fail(call, ctx, "unknown coordinate_transformation_mode \"" + ctm + "\"");
  if (attrString(call, ctx, "layout") != "NCHW")
    fail(call, ctx, "only layout \"NCHW\" is supported");
  // The output size: the optional shape operand (symbolic, e.g. read from
  // another tensor's shape), else the `size` attribute.
  std::vector<PrimExpr> outHW;
  if (call.args.size() > 1) {
    if (hasAttr(call, "size"))
      fail(call, ctx, "give the output size as the attribute 'size' or as operand 1, not both");
    int n = -1;
    auto v = shapeArg(call, ctx, 1, &n);
    if (n != 2)
      fail(call, ctx, fmt::format("the output size operand needs 2 values, got {}", n));
    if (v)
      for (auto& d : *v) {
        if (auto k = asConstInt(d); k && *k <= 0)
          fail(call, ctx, "size must be positive");
        outHW.push_back(arith::toIndex(d));
      }
  } else {
    auto size = expandSpatial(call, ctx, "size", attrInts(call, ctx, "size"), 2);
    if (size[0] <= 0 || size[1] <= 0)
      fail(call, ctx, "size must be positive");
    outHW = {intImm(size[0]), intImm(size[1])};
  }
  if (x.ndim >= 0 && x.ndim != 4)
    fail(call, ctx, fmt::format("needs a 4-D NCHW tensor, got rank {}", x.ndim));
  auto floats = [&](const char* name) {
    const AttrValue* v = call.attrs.find(name);
    std::vector<double> r;
    if (auto* d = v ? std::get_if<std::vector<double>>(v) : nullptr)
      r = *d;
    else if (auto* n = v ? std::get_if<std::vector<int64_t>>(v) : nullptr)
      r.assign(n->begin(), n->end());
    return r;
  };
  bool crop = ctm == "tf_crop_and_resize";
  // Operand 2: the crop box (tf_crop_and_resize) or the scales, read at run
  // time instead of the attribute.
  if (call.args.size() > 2) {
    const char* replaced = crop ? "roi" : "scales";
    int64_t want = crop ? 4 : 2;
    if (hasAttr(call, replaced))
      fail(call, ctx,
           fmt::format("give the {} as the attribute '{}' or as operand 2, not both",
                       crop ? "crop box" : "scales", replaced));
    const TensorSInfo& p = tensorArg(call, ctx, 2);
    if (!p.dtype.isVoid() && !p.dtype.isFloat())
      fail(call, ctx,
           "operand 2 (run-time " + std::string(replaced) + ") must be a float tensor, got " +
               p.dtype.str());
    if (p.ndim >= 0 && p.ndim != 1)
      fail(call, ctx,
           fmt::format("operand 2 (run-time {}) must be 1-D, got rank {}", replaced, p.ndim));
    if (p.shape)
      if (auto n = asConstInt((*p.shape)[0]); n && *n != want)
        fail(call, ctx,
             fmt::format("operand 2 (run-time {}) needs {} values, got {}", replaced, want, *n));
  }
  if (hasAttr(call, "scales")) {
    auto scales = floats("scales");
    if (scales.size() != 2)
      fail(call, ctx, fmt::format("attribute 'scales' needs 2 values, got {}", scales.size()));
    for (double sc : scales)
      if (!(sc > 0))
        fail(call, ctx, "attribute 'scales' must be positive");
  }
  if (crop && call.args.size() < 3 && floats("roi").size() != 4)
    fail(call, ctx,
         "tf_crop_and_resize needs attribute 'roi' with 4 values "
         "(start_h, start_w, end_h, end_w)");
  DataType out = attrDType(call, ctx, "out_dtype");
  if (out.isVoid())
    out = x.dtype;
  if (!x.shape || outHW.empty())
    return tensorSInfo(out, 4);
  return tensorSInfo(out, {(*x.shape)[0], (*x.shape)[1], outHW[0], outHW[1]});
}

StructInfo deduceTensorToShape(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (!x.dtype.isVoid() && !x.dtype.isIntegral())
    fail(call, ctx, "needs an integer tensor, got " + x.dtype.str());
  if (x.ndim >= 0 && x.ndim != 1)
    fail(call, ctx, fmt::format("needs a 1-D tensor, got rank {}", x.ndim));
  if (!x.shape)
    return make<ShapeSInfo>(-1);
  auto n = asConstInt((*x.shape)[0]);
  if (!n)
    return make<ShapeSInfo>(-1);
  return make<ShapeSInfo>(static_cast<int>(*n));
}

StructInfo deduceShapeToTensor(const Call& call, const DeduceContext& ctx) {
  int n = -1;
  shapeArg(call, ctx, 0, &n);
  if (n < 0)
    return tensorSInfo(DataType::Int64(), 1);
  return tensorSInfo(DataType::Int64(), std::vector<int64_t>{n});
}

} // namespace

void registerManipulationOps() {
  registerOp({"reshape",
              2,
              2,
              OpPattern::Injective,
              {},
              deduceReshape,
              "reshape(x, shape): one -1 is inferred"});
  registerOp(
      {"permute_dims",
       1,
       1,
       OpPattern::Injective,
       {{"axes", Type::Ints, false, std::vector<int64_t>{}, "permutation; absent = reverse", true}},
       deducePermute,
       "transpose"});
  registerOp({"concat",
              1,
              1,
              OpPattern::Injective,
              {{"axis", Type::Int, false, int64_t(0), "axis to join along"}},
              deduceConcat,
              "concat((a, b, ...)) along axis"});
  registerOp({"split",
              1,
              1,
              OpPattern::Injective,
              {{"indices_or_sections", Type::IntOrInts, true, int64_t(1),
                "number of equal sections, or split indices"},
               {"axis", Type::Int, false, int64_t(0), "axis to split"}},
              deduceSplit,
              "split into a tuple of tensors"});
  registerOp(
      {"strided_slice",
       1,
       1,
       OpPattern::Injective,
       {{"axes", Type::Ints, true, std::vector<int64_t>{}, "sliced axes"},
        {"begin", Type::Ints, true, std::vector<int64_t>{}, "start per axis"},
        {"end", Type::Ints, true, std::vector<int64_t>{}, "end (exclusive) per axis"},
        {"strides", Type::Ints, false, std::vector<int64_t>{}, "step per axis; absent = 1", true}},
       deduceStridedSlice,
       "x[begin:end:stride] on the given axes"});
  registerOp({"take",
              2,
              2,
              OpPattern::Injective,
              {{"axis", Type::Int, false, int64_t(0), "axis; absent = the flattened tensor", true}},
              deduceTake,
              "gather along an axis"});
  registerOp({"squeeze",
              1,
              1,
              OpPattern::Injective,
              {{"axis", Type::Ints, false, std::vector<int64_t>{},
                "axes; absent = every size-1 axis", true}},
              deduceSqueeze,
              "remove size-1 axes"});
  registerOp({"expand_dims",
              1,
              1,
              OpPattern::Injective,
              {{"axis", Type::Ints, true, std::vector<int64_t>{},
                "positions of the new axes in the output"}},
              deduceExpandDims,
              "insert size-1 axes (unsqueeze)"});
  registerOp({"broadcast_to",
              2,
              2,
              OpPattern::Broadcast,
              {},
              deduceBroadcastTo,
              "broadcast_to(x, shape)"});
  registerOp({"flatten", 1, 1, OpPattern::Injective, {}, deduceFlatten, "to 1-D"});
  registerOp({"arange",
              1,
              1,
              OpPattern::Injective,
              {},
              deduceArange,
              "arange(shape([n])): 0, 1, ..., n - 1 as int64 (n may be symbolic)"});
  registerOp({"nn.batch_flatten",
              1,
              1,
              OpPattern::Injective,
              {},
              deduceBatchFlatten,
              "(N, ...) to (N, rest)"});
  registerOp(
      {"nn.pad",
       1,
       1,
       OpPattern::Injective,
       {{"pad_width", Type::Ints, true, std::vector<int64_t>{}, "before, after for each axis"},
        {"pad_value", Type::Float, false, 0.0, "fill value (constant mode)"},
        {"pad_mode", Type::String, false, std::string("constant"), "constant | edge | reflect"}},
       deducePad,
       "pad every axis"});
  registerOp({"tensor_to_shape",
              1,
              1,
              OpPattern::Opaque,
              {{"error", Type::String, false, std::string(),
                "the message of a negative value (a check the importer computed into the "
                "shape); empty = a generic one"}},
              deduceTensorToShape,
              "the values of a 1-D integer tensor as a shape (read by the executor at run time; "
              "match_cast then names them)"});
  registerOp({"shape_to_tensor",
              1,
              1,
              OpPattern::Injective,
              {},
              deduceShapeToTensor,
              "the values of a shape as a 1-D int64 tensor (computed at run time)"});
  registerOp(
      {"image.resize2d",
       1,
       3,
       OpPattern::Injective,
       {{"size", Type::Ints, false, std::vector<int64_t>{},
         "output (height, width); absent = operand 1, a shape (symbolic sizes)", true},
        {"layout", Type::String, false, std::string("NCHW"), "data layout"},
        {"method", Type::String, false, std::string("linear"), "nearest_neighbor | linear | cubic"},
        {"coordinate_transformation_mode", Type::String, false, std::string("half_pixel"),
         "half_pixel | align_corners | asymmetric | pytorch_half_pixel | tf_half_pixel_for_nn | "
         "tf_crop_and_resize"},
        {"rounding_method", Type::String, false, std::string("round"), "nearest_neighbor rounding"},
        {"cubic_alpha", Type::Float, false, -0.5, "cubic kernel parameter a (ONNX: -0.75)"},
        {"cubic_exclude", Type::Bool, false, false,
         "cubic: drop the taps outside the input and renormalize"},
        {"scales", Type::Floats, false, std::vector<double>{},
         "(height, width) output/input ratio mapping coordinates; absent = size / input size",
         true},
        {"roi", Type::Floats, false, std::vector<double>{},
         "tf_crop_and_resize: crop box (start_h, start_w, end_h, end_w), normalized", true},
        {"extrapolation_value", Type::Float, false, 0.0,
         "tf_crop_and_resize: value of positions outside the input"},
        {"out_dtype", Type::DType, false, std::string(), "output dtype; absent = input", true}},
       deduceResize2d,
       "spatial resize of NCHW images; optional operand 1: the output size as a shape, operand "
       "2 (with operand 1): the scales (2 values) or, with tf_crop_and_resize, the crop box (4 "
       "values) as a 1-D float tensor read at run time"});
}

} // namespace unity::op::detail
