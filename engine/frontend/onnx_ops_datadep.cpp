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

/// 0, 1, ..., n-1 as int64 (R.arange).
Value iotaN(NodeContext& c, const PrimExpr& n) { return c.op("arange", {shapeOf({n})}); }

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

/// NonMaxSuppression. Per (batch, class), boxes are ranked by score
/// (descending, ties by lower index); a box is a candidate when its score
/// exceeds score_threshold; greedy selection keeps a candidate unless a
/// kept box ranked before it overlaps it with IoU > iou_threshold (boxes of
/// zero area or with no intersection never suppress). Greedy selection is
/// sequential, so it is computed as a fixed-point iteration over the
/// (N, N) suppression matrix: keep_{t+1}[i] = cand[i] and no j with
/// S[j, i] and keep_t[j]; after t steps the first t boxes in rank order are
/// final, so N steps (N static) give the greedy result. Then the first
/// max_output_boxes_per_class kept boxes (in rank order) are selected and
/// compacted, ordered by batch, class and rank, into (K, 3) rows
/// [batch, class, box] with K a fresh shape variable. The thresholds and the
/// limit are read at run time.
void convertNonMaxSuppression(NodeContext& c) {
  constexpr int64_t kMaxBoxes = 256;
  if (c.rank(0) != 3 || c.rank(1) != 3)
    c.unsupported("boxes must be (B, N, 4) and scores (B, C, N)");
  auto bd = c.shape(0), sd = c.shape(1);
  auto four = asConstInt(bd[2]);
  if (!four || *four != 4)
    c.unsupported("boxes must have 4 coordinates in their last dim");
  auto nStatic = asConstInt(bd[1]);
  if (!nStatic)
    c.unsupported("the number of boxes N must be static (the greedy selection is unrolled N "
                  "times)");
  if (*nStatic > kMaxBoxes)
    c.unsupported("more than " + std::to_string(kMaxBoxes) + " boxes (" + std::to_string(*nStatic) +
                  "; the greedy selection is unrolled N times)");
  DataType dt = c.dtype(0);
  if (!dt.isFloat() || !(c.dtype(1) == dt))
    c.unsupported("boxes and scores must be float of the same type");
  for (auto [b, s] : {std::pair{0, 0}, std::pair{1, 2}}) {
    auto x = asConstInt(bd[b]), y = asConstInt(sd[s]);
    if (x && y && *x != *y)
      c.unsupported("scores " + std::string(s == 0 ? "batch " : "box count ") + std::to_string(*y) +
                    " differs from the boxes' " + std::to_string(*x) +
                    " (boxes are (B, N, 4), scores (B, C, N))");
  }
  PrimExpr B = bd[0], N = bd[1], C = sd[1];
  int64_t centerBox = c.attrInt("center_point_box", 0);
  if (centerBox != 0 && centerBox != 1)
    c.unsupported("center_point_box must be 0 or 1");
  auto k = [&](double v) { return NodeContext::scalar(v, dt).expr; };
  auto coord = [&](int64_t i) {
    Value t = c.op("take", {c.expr(0), NodeContext::constant(int64Tensor({i}, {1})).expr},
                   {{"axis", int64_t(2)}});
    return c.op("reshape", {t.expr, shapeOf({B, N})});
  };
  Value x1, y1, x2, y2; // min and max corners, (B, N)
  if (centerBox == 0) {
    Value a0 = coord(0), a1 = coord(1), a2 = coord(2), a3 = coord(3);
    y1 = c.op("minimum", {a0.expr, a2.expr});
    y2 = c.op("maximum", {a0.expr, a2.expr});
    x1 = c.op("minimum", {a1.expr, a3.expr});
    x2 = c.op("maximum", {a1.expr, a3.expr});
  } else {
    Value xc = coord(0), yc = coord(1);
    Value hw = c.op("divide", {coord(2).expr, k(2)}), hh = c.op("divide", {coord(3).expr, k(2)});
    x1 = c.op("subtract", {xc.expr, hw.expr});
    x2 = c.op("add", {xc.expr, hw.expr});
    y1 = c.op("subtract", {yc.expr, hh.expr});
    y2 = c.op("add", {yc.expr, hh.expr});
  }
  // Pairwise (B, N, N): [b, j, i] with j the suppressor.
  auto asJ = [&](const Value& v) { return c.op("reshape", {v.expr, shapeOf({B, N, intImm(1)})}); };
  auto asI = [&](const Value& v) { return c.op("reshape", {v.expr, shapeOf({B, intImm(1), N})}); };
  auto extent = [&](const Value& lo, const Value& hi) {
    Value a = c.op("minimum", {asJ(hi).expr, asI(hi).expr});
    Value b = c.op("maximum", {asJ(lo).expr, asI(lo).expr});
    return c.op("maximum", {c.op("subtract", {a.expr, b.expr}).expr, k(0)});
  };
  Value inter = c.op("multiply", {extent(x1, x2).expr, extent(y1, y2).expr});
  Value area = c.op("multiply", {c.op("subtract", {x2.expr, x1.expr}).expr,
                                 c.op("subtract", {y2.expr, y1.expr}).expr});
  Value uni = c.op("subtract", {c.op("add", {asJ(area).expr, asI(area).expr}).expr, inter.expr});
  Value iouThr = c.has(3) ? c.op("reshape", {c.expr(3), shapeOf({})}) : Value{k(0), {}, {}, {}};
  Value overlap = c.op("greater", {c.op("divide", {inter.expr, uni.expr}).expr, iouThr.expr});
  Value positive = c.op("logical_and", {c.op("greater", {asJ(area).expr, k(0)}).expr,
                                        c.op("greater", {asI(area).expr, k(0)}).expr});
  positive = c.op("logical_and", {positive.expr, c.op("greater", {inter.expr, k(0)}).expr});
  Value sup = c.op("logical_and", {overlap.expr, positive.expr}); // (B, N, N)
  sup = c.op("reshape", {sup.expr, shapeOf({B, intImm(1), N, N})});
  // Rank order per (b, c): before[b, c, j, i] = s[j] > s[i] or (== and j < i).
  Value sj = c.op("reshape", {c.expr(1), shapeOf({B, C, N, intImm(1)})});
  Value si = c.op("reshape", {c.expr(1), shapeOf({B, C, intImm(1), N})});
  Value idx = iotaN(c, N);
  Value jLess = c.op("less", {c.op("reshape", {idx.expr, shapeOf({N, intImm(1)})}).expr,
                              c.op("reshape", {idx.expr, shapeOf({intImm(1), N})}).expr});
  Value before =
      c.op("logical_or",
           {c.op("greater", {sj.expr, si.expr}).expr,
            c.op("logical_and", {c.op("equal", {sj.expr, si.expr}).expr, jLess.expr}).expr});
  Value beforeI = asI64(c, before);                                 // (B, C, N, N)
  Value S = asI64(c, c.op("logical_and", {before.expr, sup.expr})); // (B, C, N, N)
  Value cand;
  if (c.has(4)) {
    Value thr = c.op("reshape", {c.expr(4), shapeOf({})});
    cand = c.op("greater", {c.expr(1), thr.expr});
  } else {
    cand =
        c.op("broadcast_to", {NodeContext::scalar(1, DataType::Bool()).expr, shapeOf({B, C, N})});
  }
  Value keep = cand;
  for (int64_t t = 0; t < *nStatic; ++t) {
    Value kj = c.op("reshape", {asI64(c, keep).expr, shapeOf({B, C, N, intImm(1)})});
    Value hits = c.op("sum", {c.op("multiply", {S.expr, kj.expr}).expr},
                      {{"axis", std::vector<int64_t>{2}}});
    keep = c.op("logical_and", {cand.expr, c.op("equal", {hits.expr, i64(0)}).expr});
  }
  // Rank among the kept boxes, and the per-class limit (absent or 0: none).
  Value keepI = asI64(c, keep);
  Value kj = c.op("reshape", {keepI.expr, shapeOf({B, C, N, intImm(1)})});
  Value selRank = c.op("sum", {c.op("multiply", {beforeI.expr, kj.expr}).expr},
                       {{"axis", std::vector<int64_t>{2}}}); // (B, C, N)
  Value limit =
      c.has(2) ? c.op("reshape", {asI64(c, c.in(2)).expr, shapeOf({})}) : Value{i64(0), {}, {}, {}};
  Value fin = c.op("logical_and", {keep.expr, c.op("less", {selRank.expr, limit.expr}).expr});
  Value finI = asI64(c, fin);
  // Output position: kept boxes of earlier (b, c) groups, then the rank.
  PrimExpr G = foldMul(B, C), L = foldMul(G, N);
  Value perGroup = c.op("sum", {c.op("reshape", {finI.expr, shapeOf({G, N})}).expr},
                        {{"axis", std::vector<int64_t>{1}}});
  Value offset = c.op("cumsum", {perGroup.expr}, {{"axis", int64_t(0)}, {"exclusive", true}});
  Value pos = c.op("add", {c.op("reshape", {selRank.expr, shapeOf({G, N})}).expr,
                           c.op("reshape", {offset.expr, shapeOf({G, intImm(1)})}).expr});
  Value finFlat = c.op("reshape", {fin.expr, shapeOf({L})});
  PrimExpr K = countVar(c, c.op("reshape", {finI.expr, shapeOf({L})}), c.node.output(0) + "_count");
  Value flat = compact(c, finFlat, c.op("reshape", {pos.expr, shapeOf({L})}), L, K);
  Value cn = c.op("floor_divide", {flat.expr, dimScalar(c, foldMul(C, N))});
  Value cls =
      c.op("mod", {c.op("floor_divide", {flat.expr, dimScalar(c, N)}).expr, dimScalar(c, C)});
  Value box = c.op("mod", {flat.expr, dimScalar(c, N)});
  std::vector<Expr> cols;
  std::vector<StructInfo> infos;
  for (auto& v : {cn, cls, box}) {
    Value e = c.op("expand_dims", {v.expr}, {{"axis", std::vector<int64_t>{1}}});
    cols.push_back(e.expr);
    infos.push_back(e.sinfo);
  }
  c.output(0, c.op("concat", {make<Tuple>(cols, tupleSInfo(infos))}, {{"axis", int64_t(1)}}));
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
  t["NonMaxSuppression"] = {convertNonMaxSuppression, {"center_point_box"}};
}

} // namespace unity::frontend::detail
