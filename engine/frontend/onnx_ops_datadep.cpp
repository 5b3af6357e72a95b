// ONNX operators whose output *shape* depends on tensor values: NonZero,
// Compress, Unique, and TopK with a K computed at run time.
//
// They need no new graph operator and no special executor path: each is a
// composition of existing operators around one count read from data. The
// count (how many elements are non-zero, how many values are unique, K) is
// computed as an int64 tensor, read by R.tensor_to_shape and bound by a
// match_cast to a fresh shape variable (NodeContext::runtimeShape), exactly
// as a Reshape target computed at run time; the operators after it have that
// variable in their shapes, so the executor allocates the outputs at run time
// once the count is known, and one build serves every input content.
//
// The one new pattern is *compaction*: given a mask (L,) and for each masked
// element its output position pos (L,), the int64 indices (K,) of the masked
// elements in output order are idx[r] = sum_i [mask[i] and pos[i] == r] * i,
// a (K, L) comparison summed over L. NonZero and Compress take pos as the
// exclusive running sum of the mask; Unique as each value's rank among the
// distinct values (sorted) or among the first occurrences (not sorted).
// These are O(K * L) (Unique O(L^2 * M) for rows of M elements): fine for the
// sizes these operators see in models (masks and proposal lists), and every
// step is an ordinary kernel that the scheduler tiles.
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Expr shapeOf(std::vector<PrimExpr> dims) { return make<ShapeExpr>(std::move(dims)); }

Expr i64(int64_t v) { return NodeContext::scalar(static_cast<double>(v), DataType::Int64()).expr; }

/// 0, 1, ..., n-1 as int64 (an exclusive running sum of ones).
Value iotaN(NodeContext& c, const PrimExpr& n) {
  Value ones = c.op("broadcast_to", {i64(1), shapeOf({n})});
  return c.op("cumsum", {ones.expr}, {{"axis", int64_t(0)}, {"exclusive", true}});
}

Value asI64(NodeContext& c, const Value& v) {
  return c.op("astype", {v.expr}, {{"dtype", DataType::Int64()}});
}

/// The sum of an int64 tensor as a fresh shape variable named `hint`_0,
/// bound when the executor reads it.
PrimExpr countVar(NodeContext& c, const Value& ints, const std::string& hint) {
  Value n = c.op("sum", {ints.expr});
  n = c.op("reshape", {n.expr, shapeOf({intImm(1)})});
  return c.runtimeShape(n, hint)[0];
}

/// The indices (K,) of the elements with mask[i] in the order of their
/// position pos[i] (both (L,)): idx[r] = sum_i [mask[i] and pos[i] == r] * i.
Value compact(NodeContext& c, const Value& mask, const Value& pos, const PrimExpr& L,
              const PrimExpr& K) {
  Value r = c.op("reshape", {iotaN(c, K).expr, shapeOf({K, intImm(1)})});
  Value p = c.op("reshape", {pos.expr, shapeOf({intImm(1), L})});
  Value m = c.op("reshape", {mask.expr, shapeOf({intImm(1), L})});
  Value hit = c.op("logical_and", {c.op("equal", {p.expr, r.expr}).expr, m.expr});
  Value at = c.op("reshape", {iotaN(c, L).expr, shapeOf({intImm(1), L})});
  Value v = c.op("where", {hit.expr, at.expr, i64(0)});
  return c.op("sum", {v.expr}, {{"axis", std::vector<int64_t>{1}}});
}

/// The positions (K,) of the true elements of a bool (L,) mask, in order;
/// K is a fresh shape variable named after `hint`.
Value maskIndices(NodeContext& c, const Value& mask, const PrimExpr& L, const std::string& hint,
                  PrimExpr* K) {
  Value mi = asI64(c, mask);
  Value pos = c.op("cumsum", {mi.expr}, {{"axis", int64_t(0)}, {"exclusive", true}});
  *K = countVar(c, mi, hint);
  return compact(c, mask, pos, L, *K);
}

/// x != 0 as bool (x itself when bool; NaN counts as non-zero).
Value nonZeroMask(NodeContext& c, const Value& x, DataType dt) {
  if (dt.isBool())
    return x;
  return c.op("not_equal", {x.expr, NodeContext::scalar(0, dt).expr});
}

/// A dim as an int64 scalar tensor (a constant when static).
Expr dimScalar(NodeContext& c, const PrimExpr& d) {
  if (auto k = asConstInt(d))
    return i64(*k);
  Value t = c.op("shape_to_tensor", {shapeOf({d})});
  return c.op("reshape", {t.expr, shapeOf({})}).expr;
}

bool isConstInt(const PrimExpr& e, int64_t v) {
  auto k = asConstInt(e);
  return k && *k == v;
}

PrimExpr product(const std::vector<PrimExpr>& dims, size_t from, size_t to) {
  PrimExpr p = intImm(1);
  for (size_t k = from; k < to; ++k)
    p = foldMul(p, dims[k]);
  return p;
}

void convertNonZero(NodeContext& c) {
  int r = c.rank(0);
  if (r == 0)
    c.unsupported("NonZero of a scalar (rank 0) is not supported");
  auto dims = c.shape(0);
  PrimExpr L = product(dims, 0, dims.size());
  Value flat = c.op("reshape", {c.expr(0), shapeOf({L})});
  Value mask = nonZeroMask(c, flat, c.dtype(0));
  PrimExpr K;
  Value idx = maskIndices(c, mask, L, c.node.output(0) + "_count", &K);
  // Row-major coordinates of each flat index: (idx // stride_d) % dim_d.
  std::vector<Value> rowVals;
  for (int d = 0; d < r; ++d) {
    PrimExpr stride = product(dims, d + 1, dims.size());
    Value q = idx;
    if (!isConstInt(stride, 1))
      q = c.op("floor_divide", {q.expr, dimScalar(c, stride)});
    if (d > 0)
      q = c.op("mod", {q.expr, dimScalar(c, dims[d])});
    q = c.op("expand_dims", {q.expr}, {{"axis", std::vector<int64_t>{0}}});
    rowVals.push_back(q);
  }
  if (rowVals.size() == 1) {
    c.output(0, rowVals[0]);
    return;
  }
  std::vector<Expr> rows;
  std::vector<StructInfo> infos;
  for (auto& v : rowVals) {
    rows.push_back(v.expr);
    infos.push_back(v.sinfo);
  }
  c.output(0, c.op("concat", {make<Tuple>(rows, tupleSInfo(infos))}, {{"axis", int64_t(0)}}));
}

void convertCompress(NodeContext& c) {
  if (c.rank(1) != 1)
    c.unsupported("condition must be 1-D");
  auto cdims = c.shape(1);
  Value x = c.in(0);
  auto dims = c.shape(0);
  int axis = 0;
  PrimExpr extent;
  if (c.hasAttr("axis")) {
    axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
    extent = dims[axis];
  } else {
    extent = product(dims, 0, dims.size());
    x = c.op("reshape", {x.expr, shapeOf({extent})});
  }
  // A shorter condition drops the slices past its end; a longer one is
  // invalid (it would select slices that do not exist).
  auto cl = asConstInt(cdims[0]), xl = asConstInt(extent);
  if (cl && xl && *cl > *xl)
    c.unsupported("condition has " + std::to_string(*cl) + " elements, more than the " +
                  std::to_string(*xl) + " slices along the axis");
  Value mask = nonZeroMask(c, c.in(1), c.dtype(1));
  PrimExpr K;
  Value idx = maskIndices(c, mask, cdims[0], c.node.output(0) + "_count", &K);
  c.output(0, c.op("take", {x.expr, idx.expr}, {{"axis", int64_t(axis)}}));
}

/// TopK whose K is not a constant: the whole axis is sorted (its extent must
/// be static) and the first K kept by a take of 0..K-1. A K computed at run
/// time is read through n - K (a fresh variable `..._slack`): the executor
/// refuses a negative value, so K > n is an error naming the node instead of
/// a read past the end; the output extent is then n - slack.
void convertTopKDynamic(NodeContext& c, int axis, bool largest) {
  auto dims = c.shape(0);
  auto n = asConstInt(dims[axis]);
  if (!n)
    c.unsupported("TopK with a K computed at run time needs a static extent of the axis");
  auto kk = c.symInts(1);
  if (kk && kk->size() != 1)
    c.unsupported("K must hold one value");
  PrimExpr K;
  if (kk) {
    K = (*kk)[0];
  } else {
    auto* ks = as<TensorSInfo>(c.value(1).sinfo);
    if (!ks || !ks->dtype.isIntegral())
      c.unsupported("K must be an integer tensor");
    Value k = c.op("reshape", {c.expr(1), shapeOf({intImm(1)})});
    Value slack = c.op("subtract", {i64(*n), asI64(c, k).expr});
    K = intImm(*n) - c.runtimeShape(slack, c.node.output(0) + "_slack")[0];
  }
  Value full =
      c.op("topk", {c.expr(0)}, {{"k", *n}, {"axis", int64_t(axis)}, {"largest", largest}});
  Value first = iotaN(c, K);
  for (int i = 0; i < 2; ++i)
    c.output(i, c.op("take", {c.tupleItem(full, i).expr, first.expr}, {{"axis", int64_t(axis)}}));
}

/// Unique over the rows of R (L, M): a flattened input (M = 1) or the
/// slices along `axis` (moved to the front and flattened).
void convertUnique(NodeContext& c) {
  bool sorted = c.attrInt("sorted", 1) != 0;
  auto dims = c.shape(0);
  int r = c.rank(0);
  Value x = c.in(0);
  std::optional<int> axis;
  PrimExpr L, M = intImm(1);
  Value rows;
  if (c.hasAttr("axis")) {
    axis = normAxis(c, c.attrInt("axis", 0), r);
    std::vector<int64_t> perm{*axis};
    for (int d = 0; d < r; ++d)
      if (d != *axis)
        perm.push_back(d);
    L = dims[*axis];
    for (int d = 0; d < r; ++d)
      if (d != *axis)
        M = foldMul(M, dims[d]);
    rows = c.op("permute_dims", {x.expr}, {{"axes", perm}});
    rows = c.op("reshape", {rows.expr, shapeOf({L, M})});
  } else {
    L = product(dims, 0, dims.size());
    x = c.op("reshape", {x.expr, shapeOf({L})});
    rows = c.op("reshape", {x.expr, shapeOf({L, intImm(1)})});
  }
  Value ri = c.op("reshape", {rows.expr, shapeOf({L, intImm(1), M})}); // row i
  Value rj = c.op("reshape", {rows.expr, shapeOf({intImm(1), L, M})}); // row j
  // differ[i, j, k]: rows i and j differ at element k; same[i, j]: equal rows.
  Value differ = c.op("not_equal", {ri.expr, rj.expr});
  Value differI = asI64(c, differ);
  Value nDiff = c.op("sum", {differI.expr}, {{"axis", std::vector<int64_t>{2}}});
  Value same = c.op("equal", {nDiff.expr, i64(0)});
  // The first occurrence of each row's value, and whether a row is one.
  Value firstOcc = c.op("argmax", {asI64(c, same).expr}, {{"axis", int64_t(1)}});
  Value isFirst = c.op("equal", {firstOcc.expr, iotaN(c, L).expr});
  Value isFirstI = asI64(c, isFirst);
  PrimExpr K = countVar(c, isFirstI, c.node.output(0) + "_count");
  Value inverse;
  if (sorted) {
    // before[i, j]: row j < row i lexicographically (at the first element
    // where they differ); rank[i] counts the distinct rows before row i.
    Value prior = c.op("cumsum", {differI.expr}, {{"axis", int64_t(2)}, {"exclusive", true}});
    Value firstDiff = c.op("logical_and", {differ.expr, c.op("equal", {prior.expr, i64(0)}).expr});
    Value less = c.op("less", {rj.expr, ri.expr});
    Value before = c.op("logical_and", {firstDiff.expr, less.expr});
    Value beforeI = c.op("sum", {asI64(c, before).expr}, {{"axis", std::vector<int64_t>{2}}});
    Value fj = c.op("reshape", {isFirstI.expr, shapeOf({intImm(1), L})});
    inverse = c.op("sum", {c.op("multiply", {beforeI.expr, fj.expr}).expr},
                   {{"axis", std::vector<int64_t>{1}}});
  } else {
    // Order of first occurrence: the number of first occurrences before the
    // row's own first occurrence.
    Value seen = c.op("cumsum", {isFirstI.expr}, {{"axis", int64_t(0)}, {"exclusive", true}});
    inverse = c.op("take", {seen.expr, firstOcc.expr}, {{"axis", int64_t(0)}});
  }
  Value idx = compact(c, isFirst, inverse, L, K);
  Value y = c.op("take", {x.expr, idx.expr}, {{"axis", int64_t(axis.value_or(0))}});
  // counts[r] = #{i : inverse[i] == r}
  Value rr = c.op("reshape", {iotaN(c, K).expr, shapeOf({K, intImm(1)})});
  Value inv = c.op("reshape", {inverse.expr, shapeOf({intImm(1), L})});
  Value counts = c.op("sum", {asI64(c, c.op("equal", {inv.expr, rr.expr})).expr},
                      {{"axis", std::vector<int64_t>{1}}});
  c.output(0, y);
  c.output(1, idx);
  c.output(2, inverse);
  c.output(3, counts);
}

} // namespace

/// TopK's converter calls this when K is not a constant.
void convertTopKComputedK(NodeContext& c, int axis, bool largest) {
  convertTopKDynamic(c, axis, largest);
}

void addDataDependentConverters(ConverterTable& t) {
  t["NonZero"] = {convertNonZero, {}};
  t["Compress"] = {convertCompress, {"axis"}};
  t["Unique"] = {convertUnique, {"axis", "sorted"}};
}

} // namespace unity::frontend::detail
