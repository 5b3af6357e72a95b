// Indexing, scans and losses: gather_elements, gather_nd, one_hot, trilu,
// scatter_elements, scatter_nd, cumsum, topk, einsum, nn.nll_loss, and the
// float classifiers isnan / isinf.
//
// Index operands must be integer tensors. Shapes are checked where they are
// known; a dimension that cannot be proven equal to the one it must match is
// an error only when both are constants.
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/einsum.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

void requireIndices(const Call& call, const DeduceContext& ctx, const TensorSInfo& t,
                    const char* what) {
  if (!t.dtype.isVoid() && !t.dtype.isIntegral())
    fail(call, ctx, fmt::format("{} must be an integer tensor, got {}", what, t.dtype.str()));
}

void requireFloat(const Call& call, const DeduceContext& ctx, const TensorSInfo& t) {
  if (!t.dtype.isVoid() && !t.dtype.isFloat())
    fail(call, ctx, fmt::format("requires a float tensor, got {}", t.dtype.str()));
}

/// Dims that are both constants must be equal.
void requireSameConst(const Call& call, const DeduceContext& ctx, const PrimExpr& a,
                      const PrimExpr& b, const std::string& what) {
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (ca && cb && *ca != *cb)
    fail(call, ctx, fmt::format("{}: {} vs {}", what, *ca, *cb));
}

StructInfo deduceGatherElements(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& idx = tensorArg(call, ctx, 1);
  requireIndices(call, ctx, idx, "indices");
  if (x.ndim >= 0 && idx.ndim >= 0 && x.ndim != idx.ndim)
    fail(call, ctx, fmt::format("indices have rank {}, data has rank {}", idx.ndim, x.ndim));
  int ndim = x.ndim >= 0 ? x.ndim : idx.ndim;
  if (ndim == 0)
    fail(call, ctx, "data must have rank >= 1");
  if (ndim > 0)
    normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), ndim);
  if (!idx.shape)
    return tensorSInfo(x.dtype, ndim);
  return tensorSInfo(x.dtype, *idx.shape);
}

StructInfo deduceGatherND(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& idx = tensorArg(call, ctx, 1);
  requireIndices(call, ctx, idx, "indices");
  int64_t b = attrInt(call, ctx, "batch_dims");
  if (b < 0)
    fail(call, ctx, "batch_dims must be >= 0");
  if (idx.ndim == 0)
    fail(call, ctx, "indices must have rank >= 1");
  if (x.ndim < 0 || !x.shape || !idx.shape)
    return tensorSInfo(x.dtype, -1);
  auto m = asConstInt(idx.shape->back());
  if (!m)
    fail(call, ctx, "the last dimension of indices must be a constant");
  if (b >= idx.ndim || b >= x.ndim)
    fail(call, ctx, fmt::format("batch_dims {} must be less than both ranks", b));
  if (*m < 1 || b + *m > x.ndim)
    fail(call, ctx,
         fmt::format("indices address {} dims after {} batch dims of a rank-{} tensor", *m, b,
                     x.ndim));
  for (int64_t d = 0; d < b; ++d)
    requireSameConst(call, ctx, (*x.shape)[d], (*idx.shape)[d],
                     fmt::format("batch dimension {} differs", d));
  std::vector<PrimExpr> shape(idx.shape->begin(), idx.shape->end() - 1);
  shape.insert(shape.end(), x.shape->begin() + b + *m, x.shape->end());
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceScatterElements(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& idx = tensorArg(call, ctx, 1);
  const TensorSInfo& upd = tensorArg(call, ctx, 2);
  requireIndices(call, ctx, idx, "indices");
  unifyDType(call, ctx, x.dtype, upd.dtype);
  if (x.ndim >= 0 && idx.ndim >= 0 && x.ndim != idx.ndim)
    fail(call, ctx, fmt::format("indices have rank {}, data has rank {}", idx.ndim, x.ndim));
  if (idx.shape && upd.shape) {
    if (idx.shape->size() != upd.shape->size())
      fail(call, ctx, "updates must have the shape of indices");
    for (size_t d = 0; d < idx.shape->size(); ++d)
      requireSameConst(call, ctx, (*idx.shape)[d], (*upd.shape)[d],
                       fmt::format("updates and indices differ in dimension {}", d));
  }
  if (x.ndim > 0)
    normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  std::string r = attrString(call, ctx, "reduction");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    fail(call, ctx, "reduction must be none, add, mul, max or min, got '" + r + "'");
  return call.args[0]->sinfo;
}

StructInfo deduceScatterND(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& idx = tensorArg(call, ctx, 1);
  const TensorSInfo& upd = tensorArg(call, ctx, 2);
  requireIndices(call, ctx, idx, "indices");
  unifyDType(call, ctx, x.dtype, upd.dtype);
  if (idx.ndim == 0)
    fail(call, ctx, "indices must have rank >= 1");
  if (x.shape && idx.shape && upd.shape) {
    auto m = asConstInt(idx.shape->back());
    if (!m)
      fail(call, ctx, "the last dimension of indices must be a constant");
    if (*m < 1 || *m > x.ndim)
      fail(call, ctx, fmt::format("indices address {} dims of a rank-{} tensor", *m, x.ndim));
    size_t want = idx.shape->size() - 1 + (x.ndim - *m);
    if (upd.shape->size() != want)
      fail(call, ctx, fmt::format("updates have rank {}, expected {}", upd.shape->size(), want));
  }
  std::string r = attrString(call, ctx, "reduction");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    fail(call, ctx, "reduction must be none, add, mul, max or min, got '" + r + "'");
  return call.args[0]->sinfo;
}

StructInfo deduceOneHot(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& idx = tensorArg(call, ctx, 0);
  requireIndices(call, ctx, idx, "indices");
  // The depth: the optional shape operand (one value, e.g. a shape variable
  // bound at run time), else the `depth` attribute.
  PrimExpr depth;
  if (call.args.size() > 1) {
    if (hasAttr(call, "depth"))
      fail(call, ctx, "give the depth as the attribute 'depth' or as operand 1, not both");
    int n = -1;
    auto v = shapeArg(call, ctx, 1, &n);
    if (n != 1)
      fail(call, ctx, fmt::format("the depth operand needs 1 value, got {}", n));
    if (v) {
      if (auto k = asConstInt((*v)[0]); k && *k < 1)
        fail(call, ctx, fmt::format("depth must be >= 1, got {}", *k));
      depth = arith::toIndex((*v)[0]);
    }
  } else {
    if (!hasAttr(call, "depth"))
      fail(call, ctx, "needs the depth, as the attribute 'depth' or as operand 1");
    int64_t d = attrInt(call, ctx, "depth");
    if (d < 1)
      fail(call, ctx, fmt::format("depth must be >= 1, got {}", d));
    depth = intImm(d);
  }
  DataType dt = attrDType(call, ctx, "dtype");
  if (idx.ndim < 0 || !idx.shape || !depth)
    return tensorSInfo(dt, idx.ndim < 0 ? -1 : idx.ndim + 1);
  int axis = normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), idx.ndim + 1);
  std::vector<PrimExpr> shape = *idx.shape;
  shape.insert(shape.begin() + axis, depth);
  return tensorSInfo(dt, std::move(shape));
}

StructInfo deduceTrilu(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim >= 0 && x.ndim < 2)
    fail(call, ctx, fmt::format("requires rank >= 2, got rank {}", x.ndim));
  if (call.args.size() > 1) { // k read at run time (the attribute is then unused)
    const TensorSInfo& k = tensorArg(call, ctx, 1);
    requireIndices(call, ctx, k, "k");
    if (k.ndim > 0)
      fail(call, ctx, fmt::format("k must be a scalar (rank 0), got rank {}", k.ndim));
  }
  return call.args[0]->sinfo;
}

StructInfo deduceCumsum(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim == 0)
    fail(call, ctx, "requires rank >= 1");
  if (x.ndim > 0)
    normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  return call.args[0]->sinfo;
}

StructInfo deduceTopK(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  int64_t k = attrInt(call, ctx, "k");
  if (k < 0)
    fail(call, ctx, fmt::format("k must be >= 0, got {}", k));
  if (x.ndim == 0)
    fail(call, ctx, "requires rank >= 1");
  if (x.ndim < 0 || !x.shape)
    return tupleSInfo({tensorSInfo(x.dtype, x.ndim), tensorSInfo(DataType::Int64(), x.ndim)});
  int axis = normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  if (auto d = asConstInt((*x.shape)[axis]); d && k > *d)
    fail(call, ctx, fmt::format("k = {} exceeds the axis size {}", k, *d));
  std::vector<PrimExpr> shape = *x.shape;
  shape[axis] = intImm(k);
  return tupleSInfo({tensorSInfo(x.dtype, shape), tensorSInfo(DataType::Int64(), shape)});
}

StructInfo deduceNllLoss(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& p = tensorArg(call, ctx, 0);
  const TensorSInfo& t = tensorArg(call, ctx, 1);
  requireFloat(call, ctx, p);
  requireIndices(call, ctx, t, "targets");
  std::string r = attrString(call, ctx, "reduction");
  if (r != "none" && r != "sum" && r != "mean")
    fail(call, ctx, "reduction must be none, sum or mean, got '" + r + "'");
  if (p.ndim >= 0 && p.ndim < 2)
    fail(call, ctx, fmt::format("predictions must be (N, C, ...), got rank {}", p.ndim));
  if (p.ndim >= 0 && t.ndim >= 0 && t.ndim != p.ndim - 1)
    fail(call, ctx,
         fmt::format("targets must have rank {} (predictions without C), got {}", p.ndim - 1,
                     t.ndim));
  if (call.args.size() > 2) {
    const TensorSInfo& w = tensorArg(call, ctx, 2);
    unifyDType(call, ctx, p.dtype, w.dtype);
    if (w.ndim >= 0 && w.ndim != 1)
      fail(call, ctx, fmt::format("weights must be 1-D (C), got rank {}", w.ndim));
    if (p.shape && w.shape)
      requireSameConst(call, ctx, (*p.shape)[1], (*w.shape)[0], "weights length differs from C");
  }
  if (p.shape && t.shape) {
    std::vector<PrimExpr> want = *p.shape;
    want.erase(want.begin() + 1);
    for (size_t d = 0; d < want.size(); ++d)
      requireSameConst(call, ctx, want[d], (*t.shape)[d],
                       fmt::format("targets differ from predictions in dimension {}", d));
  }
  if (r != "none")
    return tensorSInfo(p.dtype, std::vector<PrimExpr>{});
  if (!t.shape)
    return tensorSInfo(p.dtype, t.ndim);
  return tensorSInfo(p.dtype, *t.shape);
}

/// "ab,bc->ac" (spaces ignored; implicit output: the letters used once, in
/// alphabetical order). Ellipses are refused.
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

EinsumSpec parseEinsum(const Call& call, const DeduceContext& ctx, const std::string& eq) {
  EinsumEquation parts = splitEinsum(eq);
  if (parts.text.find('.') != std::string::npos)
    fail(call, ctx, "ellipsis ('...') in the equation is not supported");
  EinsumSpec spec;
  spec.inputs = std::move(parts.inputs);
  for (auto& in : spec.inputs)
    for (char ch : in)
      if (!std::isalpha(static_cast<unsigned char>(ch)))
        fail(call, ctx, fmt::format("invalid character '{}' in equation '{}'", ch, eq));
  if (parts.output) {
    spec.output = *parts.output;
    for (char ch : spec.output) {
      bool used = std::any_of(spec.inputs.begin(), spec.inputs.end(), [&](const std::string& in) {
        return in.find(ch) != std::string::npos;
      });
      if (!std::isalpha(static_cast<unsigned char>(ch)) || !used)
        fail(call, ctx, fmt::format("output letter '{}' is not an input letter", ch));
      if (std::count(spec.output.begin(), spec.output.end(), ch) > 1)
        fail(call, ctx, fmt::format("output letter '{}' repeats", ch));
    }
  } else {
    spec.output = implicitEinsumOutput(spec.inputs);
  }
  return spec;
}

StructInfo deduceEinsum(const Call& call, const DeduceContext& ctx) {
  std::string eq = attrString(call, ctx, "subscripts");
  EinsumSpec spec = parseEinsum(call, ctx, eq);
  if (spec.inputs.size() != call.args.size())
    fail(call, ctx,
         fmt::format("equation '{}' names {} operands, got {}", eq, spec.inputs.size(),
                     call.args.size()));
  std::map<char, PrimExpr> dimOf;
  DataType dt;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const TensorSInfo& t = tensorArg(call, ctx, i);
    dt = i == 0 ? t.dtype : unifyDType(call, ctx, dt, t.dtype);
    if (t.ndim < 0 || !t.shape)
      return tensorSInfo(dt, static_cast<int>(spec.output.size()));
    if (static_cast<size_t>(t.ndim) != spec.inputs[i].size())
      fail(call, ctx,
           fmt::format("operand {} has rank {} but '{}' has {} letters", i, t.ndim, spec.inputs[i],
                       spec.inputs[i].size()));
    for (size_t d = 0; d < spec.inputs[i].size(); ++d) {
      char ch = spec.inputs[i][d];
      auto it = dimOf.find(ch);
      if (it == dimOf.end())
        dimOf[ch] = (*t.shape)[d];
      else
        requireSameConst(call, ctx, it->second, (*t.shape)[d],
                         fmt::format("letter '{}' has two sizes", ch));
    }
  }
  std::vector<PrimExpr> shape;
  for (char ch : spec.output)
    shape.push_back(dimOf[ch]);
  return tensorSInfo(dt, std::move(shape));
}

StructInfo deduceClassify(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  requireFloat(call, ctx, x);
  if (x.shape)
    return tensorSInfo(DataType::Bool(), *x.shape);
  return tensorSInfo(DataType::Bool(), x.ndim);
}

} // namespace

void registerIndexOps() {
  registerOp({"gather_elements",
              2,
              2,
              OpPattern::Injective,
              {{"axis", Type::Int, false, int64_t(0), "axis indexed by indices"}},
              deduceGatherElements,
              "out[i] = data[i with i[axis] replaced by indices[i]]"});
  registerOp({"gather_nd",
              2,
              2,
              OpPattern::Injective,
              {{"batch_dims", Type::Int, false, int64_t(0), "leading dims shared by both"}},
              deduceGatherND,
              "gather slices of data addressed by the last dim of indices"});
  registerOp(
      {"scatter_elements",
       3,
       3,
       OpPattern::Opaque,
       {{"axis", Type::Int, false, int64_t(0), "axis indexed by indices"},
        {"reduction", Type::String, false, std::string("none"), "none | add | mul | max | min"}},
       deduceScatterElements,
       "copy of data with updates written (or combined) at indices along axis"});
  registerOp(
      {"scatter_nd",
       3,
       3,
       OpPattern::Opaque,
       {{"reduction", Type::String, false, std::string("none"), "none | add | mul | max | min"}},
       deduceScatterND,
       "copy of data with update slices written (or combined) at index tuples"});
  registerOp(
      {"one_hot",
       1,
       2,
       OpPattern::Injective,
       {{"depth", Type::Int, false, int64_t(1),
         "number of classes; absent = operand 1, a shape of one value (symbolic depth)", true},
        {"axis", Type::Int, false, int64_t(-1), "position of the new axis"},
        {"on_value", Type::Float, false, 1.0, "value at the index"},
        {"off_value", Type::Float, false, 0.0, "value elsewhere"},
        {"dtype", Type::DType, true, std::string(), "output element type"}},
       deduceOneHot,
       "one-hot encoding; negative indices count from depth"});
  registerOp({"trilu",
              1,
              2,
              OpPattern::Injective,
              {{"k", Type::Int, false, int64_t(0), "diagonal offset (when no k operand)"},
               {"upper", Type::Bool, false, true, "keep the upper (else lower) triangle"}},
              deduceTrilu,
              "zero the elements outside a triangle of the last two dims; an optional "
              "integer scalar operand gives k at run time"});
  registerOp({"cumsum",
              1,
              1,
              OpPattern::Opaque,
              {{"axis", Type::Int, false, int64_t(0), "scanned axis"},
               {"exclusive", Type::Bool, false, false, "exclude the element itself"},
               {"reverse", Type::Bool, false, false, "sum from the end"}},
              deduceCumsum,
              "running sum along an axis"});
  registerOp({"topk",
              1,
              1,
              OpPattern::Opaque,
              {{"k", Type::Int, true, int64_t(1), "number of elements kept"},
               {"axis", Type::Int, false, int64_t(-1), "axis"},
               {"largest", Type::Bool, false, true, "largest (else smallest) first"}},
              deduceTopK,
              "(values, int64 indices) of the k largest/smallest, sorted, ties by lower index"});
  registerOp({"nn.nll_loss",
              2,
              3,
              OpPattern::Opaque,
              {{"reduction", Type::String, false, std::string("mean"), "none | sum | mean"},
               {"ignore_index", Type::Int, false, int64_t(-100),
                "target value that contributes nothing; absent = none", true}},
              deduceNllLoss,
              "negative log likelihood loss (predictions (N, C, ...), targets[, weights])"});
  registerOp(
      {"einsum",
       1,
       -1,
       OpPattern::OutEWiseFusable,
       {{"subscripts", Type::String, true, std::string(), "e.g. \"ij,jk->ik\"; no ellipsis"}},
       deduceEinsum,
       "Einstein summation over the operands"});
  registerOp({"isnan", 1, 1, OpPattern::ElemWise, {}, deduceClassify, "x is NaN (bool)"});
  registerOp({"isinf",
              1,
              1,
              OpPattern::ElemWise,
              {{"detect_positive", Type::Bool, false, true, "report +inf"},
               {"detect_negative", Type::Bool, false, true, "report -inf"}},
              deduceClassify,
              "x is infinite (bool)"});
}

} // namespace unity::op::detail
