// ONNX data-movement, shape and reduction operators.
//
// Operands that decide an output *shape* (Reshape's shape, Slice's starts/
// ends, Squeeze/Unsqueeze axes, Pad's pads, Split's sizes, ReduceSum's axes
// from opset 13) must be known at import time: an initializer, a Constant
// node, or a subgraph folded by onnx_fold.cpp. Where an opset moved an
// attribute to an input (Squeeze/Unsqueeze/ReduceSum at 13, Split at 13,
// Slice at 10, Pad at 11), both forms are read according to the node's opset.
// Shape/Size of static shapes are folded to constants; with symbolic dims
// they give symbolic shape values (Value::sym), which Reshape, Expand, Tile,
// ConstantOfShape and Range read as expressions over the shape variables.
// Squeeze/Unsqueeze/Reduce* axes may also be read at run time (a 1-D tensor
// of static length: the output's rank is known, which dims are affected is
// not): the output dims are computed by graph operators and bound to fresh
// shape variables, the axes checked at run time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/op/shape_arith.h"
#include "engine/op/sinfo_util.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Expr shapeExpr(std::vector<PrimExpr> dims) { return make<ShapeExpr>(std::move(dims)); }

/// Simplified, with every shape variable in e known to be non-negative
/// (they are dims), which removes the max(..., 0) and min(H, H) that
/// clamping adds around symbolic extents.
PrimExpr simplifyDims(const PrimExpr& e) {
  arith::Analyzer an;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto v = cast<PrimVar>(x))
      an.markNonNegative(v);
  });
  return an.simplify(e);
}

/// max(e, 0), or e where the dims' non-negativity proves e >= 0.
PrimExpr nonNegative(const PrimExpr& e) {
  arith::Analyzer an;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto v = cast<PrimVar>(x))
      an.markNonNegative(v);
  });
  return an.canProve(ge(e, intImm(0))) ? an.simplify(e) : an.simplify(ir::max(e, intImm(0)));
}

/// 0, 1, ..., n - 1 (int64): R.arange, an injective kernel that fuses with its consumers.
Value iota(NodeContext& c, const PrimExpr& n) {
  return c.op("arange", {make<ShapeExpr>(std::vector<PrimExpr>{n})});
}

/// A dim expression as a run-time int64 scalar (a constant when it is one).
Expr dimScalarOf(NodeContext& c, const PrimExpr& e) {
  Value v = NodeContext::symbolic({e}, true, DataType::Int64());
  return v.expr ? v.expr : c.materialize(v);
}

/// v as an int64 0-d constant.
Expr k64(double v) { return NodeContext::scalar(v, DataType::Int64()).expr; }

/// Input i as int64 (cast when it has another dtype).
Expr asInt64(NodeContext& c, int i) {
  Expr e = c.expr(i);
  if (!(c.dtype(i) == DataType::Int64()))
    e = c.op("astype", {e}, {{"dtype", DataType::Int64()}}).expr;
  return e;
}

/// Slice's axes and steps for `count` bounds: at opset 10 and later read
/// from inputs 3 and 4 (constants) where given; absent ones default to 0, 1,
/// ..., count - 1 and to all 1. Each must have `count` entries.
void sliceAxesSteps(NodeContext& c, size_t count, std::vector<int64_t>& axes,
                    std::vector<int64_t>& steps) {
  if (c.opset >= 10 && c.has(3))
    axes = c.constInts(3, "Slice's axes");
  if (c.opset >= 10 && c.has(4))
    steps = c.constInts(4, "Slice's steps");
  if (axes.empty())
    for (size_t i = 0; i < count; ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(count, 1);
  if (axes.size() != count || steps.size() != count)
    c.unsupported("starts, ends, axes and steps differ in length");
}

std::vector<PrimExpr> intExprs(const std::vector<int64_t>& v) {
  std::vector<PrimExpr> r;
  for (int64_t x : v)
    r.push_back(intImm(x));
  return r;
}

/// Reshape to a target computed from data: 0 (copy the input's dim, unless
/// allowzero) and -1 (the remaining count) are resolved by graph operators
/// at run time, then the values become fresh shape variables.
void reshapeToRuntimeTarget(NodeContext& c, bool allowZero) {
  auto in = c.shape(0);
  Value tv = c.in(1);
  auto* ts = as<TensorSInfo>(tv.sinfo);
  if (!ts || ts->ndim != 1 || !ts->shape || !asConstInt((*ts->shape)[0]) || !ts->dtype.isIntegral())
    c.needConstant(1, "Reshape's shape (a 1-D integer tensor of static length when computed at "
                      "run time)");
  int64_t k = *asConstInt((*ts->shape)[0]);
  // The target's length is the output's rank: one fresh shape variable
  // each. A declared length in the millions (a corrupt model) would loop
  // and allocate that many before any check (found by onnx_import_fuzz).
  constexpr int64_t kMaxTargetRank = 64;
  if (k < 0 || k > kMaxTargetRank)
    c.unsupported("a shape tensor of length " + std::to_string(k) +
                  " (the output's rank) is outside 0.." + std::to_string(kMaxTargetRank));
  DataType i64 = DataType::Int64();
  Expr t = tv.expr;
  if (!(ts->dtype == i64))
    t = c.op("astype", {t}, {{"dtype", i64}}).expr;
  auto scalar = [&](double v) { return NodeContext::scalar(v, i64).expr; };
  if (!allowZero) {
    std::vector<PrimExpr> copy;
    for (int64_t i = 0; i < k; ++i)
      copy.push_back(i < static_cast<int64_t>(in.size()) ? in[i] : intImm(0));
    Value inDims = c.op("shape_to_tensor", {shapeExpr(copy)});
    Value zero = c.op("equal", {t, scalar(0)});
    t = c.op("where", {zero.expr, inDims.expr, t}).expr;
  }
  Value infer = c.op("equal", {t, scalar(-1)});
  Value others = c.op("where", {infer.expr, scalar(1), t});
  Value known = c.op("prod", {others.expr}, {{"keepdims", false}});
  known = c.op("maximum", {known.expr, scalar(1)}); // no division by zero
  Value count = c.op("shape_to_tensor", {shapeExpr({op::arith::product(in)})});
  count = c.op("reshape", {count.expr, shapeExpr({})});
  Value fill = c.op("floor_divide", {count.expr, known.expr});
  Value target = c.op("where", {infer.expr, fill.expr, t});
  auto dims = c.runtimeShape(target, c.node.input(1));
  c.output(0, c.op("reshape", {c.expr(0), shapeExpr(dims)}));
}

void convertReshape(NodeContext& c) {
  bool allowZero = c.attrInt("allowzero", 0) != 0;
  if (c.opset >= 5 && !c.symInts(1))
    return reshapeToRuntimeTarget(c, allowZero);
  // The target may be symbolic: Concat(Gather(Shape(x), 0), -1) gives (n, -1).
  std::vector<PrimExpr> target =
      c.opset < 5 ? intExprs(c.attrInts("shape")) : c.shapeInts(1, "Reshape's shape");
  auto in = c.shape(0);
  std::vector<PrimExpr> dims;
  for (size_t i = 0; i < target.size(); ++i) {
    if (isConstInt(target[i], 0) && !allowZero) {
      if (i >= in.size())
        c.unsupported("shape value 0 at position " + std::to_string(i) + " has no input dim");
      dims.push_back(in[i]);
    } else {
      dims.push_back(target[i]);
    }
  }
  c.output(0, c.op("reshape", {c.expr(0), shapeExpr(dims)}));
}

void convertFlatten(NodeContext& c) {
  int rank = c.rank(0);
  int64_t axis = c.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    c.unsupported("axis " + std::to_string(axis) + " out of range");
  if (axis < 0)
    axis += rank;
  auto shape = c.shape(0);
  PrimExpr outer = intImm(1), inner = intImm(1);
  for (int i = 0; i < rank; ++i) {
    if (i < axis)
      outer = foldMul(outer, shape[i]);
    else
      inner = foldMul(inner, shape[i]);
  }
  c.output(0, c.op("reshape", {c.expr(0), shapeExpr({outer, inner})}));
}

void convertTranspose(NodeContext& c) {
  int rank = c.rank(0);
  std::vector<int64_t> perm = c.attrInts("perm");
  if (perm.empty())
    for (int i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  c.output(0, c.op("permute_dims", {c.expr(0)}, {{"axes", perm}}));
}

void convertConcat(NodeContext& c) {
  std::vector<Expr> fields;
  std::vector<StructInfo> infos;
  for (int i = 0; i < c.numInputs(); ++i) {
    fields.push_back(c.expr(i));
    infos.push_back(c.in(i).sinfo);
  }
  if (c.opset >= 4 && !c.hasAttr("axis"))
    c.unsupported("attribute 'axis' is required from opset 4");
  // Opsets 1..3: axis is optional and defaults to 1.
  int axis = normAxis(c, c.attrInt("axis", c.opset < 4 ? 1 : 0), c.rank(0));
  Expr tuple = make<Tuple>(fields, tupleSInfo(infos));
  c.output(0, c.op("concat", {tuple}, {{"axis", int64_t(axis)}}));
}

/// Split whose sizes are read from data: the number of parts is static
/// (the node's outputs), each part's length along the axis is a fresh shape
/// variable bound at run time, and part j is a take of the indices from the
/// sum of the lengths before it. Lengths that are negative or do not add up
/// to the axis' extent are an error when read.
void splitByRunTimeSizes(NodeContext& c, int axis) {
  int n = c.node.output_size();
  auto* t = as<TensorSInfo>(c.value(1).sinfo);
  std::optional<int64_t> len;
  if (t && t->ndim == 1 && t->shape && t->dtype.isIntegral())
    len = asConstInt((*t->shape)[0]);
  if (!len)
    c.needConstant(1, "Split's sizes (a 1-D integer tensor of static length when read at run "
                      "time)");
  if (*len != n)
    c.unsupported("split has " + std::to_string(*len) + " sizes for " + std::to_string(n) +
                  " outputs");
  auto shape = c.shape(0);
  if (static_cast<int>(shape.size()) != c.rank(0))
    c.unsupported("the input's dims are unknown; a Split with sizes read at run time needs them");
  DataType i64 = DataType::Int64();
  Value sizes = c.in(1);
  if (!(c.dtype(1) == i64))
    sizes = c.op("astype", {sizes.expr}, {{"dtype", i64}});
  // Lengths that are negative or do not add up to the axis' extent are
  // read as -1, which the executor refuses with the message below.
  Expr total = c.op("sum", {sizes.expr}).expr;
  Expr ok = c.op("equal", {total, dimScalarOf(c, shape[axis])}).expr;
  Expr least = c.op("min", {sizes.expr}).expr;
  Expr nonNeg = c.op("greater_equal", {least, NodeContext::scalar(0, i64).expr}).expr;
  ok = c.op("logical_and", {ok, nonNeg}).expr;
  Value checked = c.op("where", {ok, sizes.expr, NodeContext::scalar(-1, i64).expr});
  std::vector<PrimExpr> known;
  if (auto sym = c.symInts(1); sym && static_cast<int>(sym->size()) == n)
    known = *sym;
  auto lens = c.runtimeShape(checked, c.node.output(0) + "_split", known,
                             "Split's sizes must be non-negative and add up to the extent " +
                                 op::primExprStr(shape[axis]) + " of axis " + std::to_string(axis));
  PrimExpr at = intImm(0);
  for (int j = 0; j < n; ++j) {
    Value idx = iota(c, lens[j]);
    if (!isConstInt(at, 0))
      idx = c.op("add", {idx.expr, dimScalarOf(c, at)});
    c.output(j, c.op("take", {c.expr(0), idx.expr}, {{"axis", int64_t(axis)}}));
    at = simplifyDims(at + lens[j]);
  }
}

void convertSplit(NodeContext& c) {
  int rank = c.rank(0);
  int axis = normAxis(c, c.attrInt("axis", 0), rank);
  if ((c.opset >= 13 || c.opset < 2) && c.has(1) && !c.constant(1))
    return splitByRunTimeSizes(c, axis);
  // Opset 1 takes the sizes as attribute or input 1, 2..12 as attribute,
  // 13.. as input 1.
  std::vector<int64_t> sizes =
      (c.opset < 13 && c.opset >= 2) || (c.opset < 2 && !c.has(1))
          ? c.attrInts("split")
          : (c.has(1) ? c.constInts(1, "Split's sizes") : std::vector<int64_t>{});
  int n = c.node.output_size();
  Attrs a{{"axis", int64_t(axis)}};
  if (sizes.empty()) {
    a.set("indices_or_sections", int64_t(n));
  } else {
    if (static_cast<int>(sizes.size()) != n)
      c.unsupported("split sizes do not match the number of outputs");
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (size_t i = 0; i + 1 < sizes.size(); ++i)
      indices.push_back(at += sizes[i]);
    a.set("indices_or_sections", indices);
  }
  Value parts = c.op("split", {c.expr(0)}, a);
  for (int i = 0; i < n; ++i)
    c.output(i, c.tupleItem(parts, i));
}

/// Slice whose starts or ends are symbolic shape values (x[..., :h] with h
/// read from another tensor's Shape): per sliced axis a take of the indices
/// b, b + s, ... with b and the length as expressions. Symbolic bounds are
/// taken as non-negative (they are dims or computed from dims) and clamped
/// to the axis' extent with min; constants keep ONNX's negative and
/// out-of-range meaning.
void convertSymbolicSlice(NodeContext& c, const std::vector<PrimExpr>& starts,
                          const std::vector<PrimExpr>& ends) {
  int rank = c.rank(0);
  auto shape = c.shape(0);
  std::vector<int64_t> axes, steps;
  sliceAxesSteps(c, starts.size(), axes, steps);
  if (ends.size() != starts.size())
    c.unsupported("starts, ends, axes and steps differ in length");
  Value x = c.in(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int a = normAxis(c, axes[k], rank);
    int64_t st = steps[k];
    if (st == 0)
      c.unsupported("a step of 0");
    PrimExpr d = shape[a];
    // The bounds in [0, d] (step > 0) or [-1, d - 1] (step < 0).
    PrimExpr lo = intImm(st > 0 ? 0 : -1), hi = st > 0 ? d : d - intImm(1);
    auto norm = [&](const PrimExpr& v) -> PrimExpr {
      auto cv = asConstInt(v);
      if (!cv)
        return ir::min(v, hi);
      if (*cv >= (int64_t(1) << 31))
        return hi;
      if (*cv < 0)
        return ir::max(d + intImm(*cv), lo);
      return ir::min(intImm(*cv), hi);
    };
    PrimExpr b = simplifyDims(norm(starts[k])), e = simplifyDims(norm(ends[k]));
    PrimExpr len = st > 0 ? floordiv(e - b + intImm(st - 1), intImm(st))
                          : floordiv(b - e + intImm(-st - 1), intImm(-st));
    len = nonNegative(len);
    Value idx = iota(c, len);
    if (st != 1)
      idx = c.op("multiply", {idx.expr, NodeContext::scalar(double(st), DataType::Int64()).expr});
    Value first = NodeContext::symbolic({b}, true, DataType::Int64());
    Expr firstExpr = first.expr;
    if (!firstExpr) {
      Value t = c.op("shape_to_tensor", {shapeExpr({b})});
      firstExpr = c.op("reshape", {t.expr, shapeExpr({})}).expr;
    }
    idx = c.op("add", {idx.expr, firstExpr});
    x = c.op("take", {x.expr, idx.expr}, {{"axis", int64_t(a)}});
  }
  c.output(0, x);
}

/// What a Slice with operands read at run time needs of its input (rank 1 or
/// more, known dims; refused naming `what` otherwise): its shape; and the
/// static length of operand i, a 1-D integer tensor (else it must be a
/// constant, described by `operands`).
std::vector<PrimExpr> runTimeSliceShape(NodeContext& c, const std::string& what) {
  int rank = c.rank(0);
  auto shape = c.shape(0);
  if (rank == 0)
    c.unsupported("the input is a scalar (rank 0); Slice needs rank 1 or more");
  if (static_cast<int>(shape.size()) != rank)
    c.unsupported("the input's dims are unknown (rank " + std::to_string(rank) +
                  " without a shape); a Slice with " + what + " read at run time needs them");
  return shape;
}

int64_t runTimeSliceLength(NodeContext& c, int i, const char* operands) {
  auto* t = as<TensorSInfo>(c.value(i).sinfo);
  std::optional<int64_t> n;
  if (t && t->ndim == 1 && t->shape && t->dtype.isIntegral())
    n = asConstInt((*t->shape)[0]);
  if (!n)
    c.needConstant(i, std::string(operands) +
                          " (1-D integer tensors of static length when read at run time)");
  return *n;
}

/// Slice whose starts or ends are read from data (axes and steps constant):
/// per axis the bounds are normalized and clamped by graph operators
/// (negative counts from the end, out of range clamps), the length becomes a
/// fresh shape variable, and a take gathers b, b + s, ...
void convertRunTimeSlice(NodeContext& c) {
  int rank = c.rank(0);
  auto shape = runTimeSliceShape(c, "bounds");
  auto lengthOf = [&](int i) { return runTimeSliceLength(c, i, "Slice's bounds"); };
  int64_t count = lengthOf(1);
  if (lengthOf(2) != count)
    c.unsupported("starts and ends differ in length");
  std::vector<int64_t> axes, steps;
  sliceAxesSteps(c, static_cast<size_t>(count), axes, steps);
  Expr starts = asInt64(c, 1), ends = asInt64(c, 2);
  Value x = c.in(0);
  for (int64_t k = 0; k < count; ++k) {
    int a = normAxis(c, axes[k], rank);
    int64_t st = steps[k];
    if (st == 0)
      c.unsupported("a step of 0");
    Value dt = c.op("shape_to_tensor", {shapeExpr({shape[a]})});
    Expr d = c.op("reshape", {dt.expr, shapeExpr({})}).expr;
    Expr lo = k64(st > 0 ? 0 : -1);
    Expr hi = st > 0 ? d : c.op("subtract", {d, k64(1)}).expr;
    auto bound = [&](const Expr& all) {
      Expr v = c.op("take", {all, k64(double(k))}, {{"axis", int64_t(0)}}).expr;
      Value neg = c.op("less", {v, k64(0)});
      v = c.op("where", {neg.expr, c.op("add", {v, d}).expr, v}).expr;
      v = c.op("minimum", {v, hi}).expr;
      return c.op("maximum", {v, lo}).expr;
    };
    Expr b = bound(starts), e = bound(ends);
    Expr span = st > 0 ? c.op("subtract", {e, b}).expr : c.op("subtract", {b, e}).expr;
    int64_t as = st > 0 ? st : -st;
    Expr n =
        c.op("floor_divide", {c.op("add", {span, k64(double(as - 1))}).expr, k64(double(as))}).expr;
    n = c.op("maximum", {n, k64(0)}).expr;
    Value n1 = c.op("reshape", {n, shapeExpr({intImm(1)})});
    PrimExpr len = c.runtimeShape(n1, c.node.output(0) + "_len" + std::to_string(k))[0];
    Value idx = iota(c, len);
    if (st != 1)
      idx = c.op("multiply", {idx.expr, k64(double(st))});
    idx = c.op("add", {idx.expr, b});
    x = c.op("take", {x.expr, idx.expr}, {{"axis", int64_t(a)}});
  }
  c.output(0, x);
}

/// Slice whose axes or steps are read from data: the output's rank is static
/// and each of its dims is a fresh shape variable. Graph operators compute,
/// per input dim, the start, the step and the length as rank-long vectors (a
/// dim that axes does not name keeps start 0, step 1 and its whole length),
/// then one take from the flattened input gathers the output. Steps must be
/// nonzero and every axis in range and named once: else the lengths are -1,
/// which the executor refuses when it reads them.
void convertRunTimeAxesSlice(NodeContext& c) {
  int rank = c.rank(0);
  auto shape = runTimeSliceShape(c, "axes or steps");
  auto lengthOf = [&](int i) {
    return runTimeSliceLength(c, i, "Slice's starts, ends, axes and steps");
  };
  int64_t count = lengthOf(1);
  for (int i : {2, 3, 4})
    if (c.has(i) && lengthOf(i) != count)
      c.unsupported("starts, ends, axes and steps differ in length");
  if (count == 0) { // nothing sliced
    c.output(0, c.in(0));
    return;
  }
  DataType i64 = DataType::Int64();
  auto call = [&](const char* op, std::vector<Expr> args, Attrs a = {}) {
    return c.op(op, std::move(args), std::move(a)).expr;
  };
  std::vector<int64_t> firstAxes, ones(static_cast<size_t>(count), 1);
  for (int64_t k = 0; k < count; ++k)
    firstAxes.push_back(k);
  Expr starts = asInt64(c, 1), ends = asInt64(c, 2);
  Expr axes =
      c.has(3) ? asInt64(c, 3) : NodeContext::constant(int64Tensor(firstAxes, {count})).expr;
  Expr steps = c.has(4) ? asInt64(c, 4) : NodeContext::constant(int64Tensor(ones, {count})).expr;
  auto column = [&](const Expr& v) {
    return call("reshape", {v, shapeExpr({intImm(count), intImm(1)})});
  };
  auto reduce = [&](const char* op, const Expr& v, int64_t axis) {
    return call(op, {v}, {{"axis", std::vector<int64_t>{axis}}});
  };
  // hit[k, i] = 1 where axes[k] (negative counts from the end) names dim i.
  Expr ax = call("where", {call("less", {axes, k64(0)}), call("add", {axes, k64(rank)}), axes});
  Expr dimIds = call("reshape", {iota(c, intImm(rank)).expr, shapeExpr({intImm(1), intImm(rank)})});
  Expr hitB = call("equal", {column(ax), dimIds});
  Expr hit = call("astype", {hitB}, {{"dtype", i64}});
  Expr named = reduce("sum", hit, 0); // [rank]: how often each dim is named
  Expr isNamed = call("greater", {named, k64(0)});
  auto pick = [&](const Expr& v, const Expr& dflt) {
    Expr s = reduce("sum", call("where", {hitB, column(v), k64(0)}), 0);
    return call("where", {isNamed, s, dflt});
  };
  Expr dims = c.op("shape_to_tensor", {shapeExpr(shape)}).expr;
  Expr st = pick(steps, k64(1));
  Expr pos = call("greater", {st, k64(0)});
  Expr lo = call("where", {pos, k64(0), k64(-1)});
  Expr hi = call("where", {pos, dims, call("subtract", {dims, k64(1)})});
  auto norm = [&](const Expr& v) {
    Expr w = call("where", {call("less", {v, k64(0)}), call("add", {v, dims}), v});
    return call("maximum", {call("minimum", {w, hi}), lo});
  };
  Expr b = norm(pick(starts, k64(0))), e = norm(pick(ends, dims));
  Expr span = call("where", {pos, call("subtract", {e, b}), call("subtract", {b, e})});
  Expr mag = call("maximum", {call("abs", {st}), k64(1)}); // a step of 0 is refused below
  Expr n = call("floor_divide", {call("add", {span, call("subtract", {mag, k64(1)})}), mag});
  n = call("maximum", {n, k64(0)});
  // Every axis names exactly one dim, no dim twice, and no step is 0: else
  // the lengths are -1, which the executor refuses when it reads them.
  auto allOf = [&](const Expr& cond) {
    return reduce("min", call("astype", {cond}, {{"dtype", i64}}), 0);
  };
  Expr ok = call("minimum", {allOf(call("equal", {reduce("sum", hit, 1), k64(1)})),
                             allOf(call("less_equal", {named, k64(1)}))});
  ok = call("minimum", {ok, allOf(call("not_equal", {steps, k64(0)}))});
  Value lens = c.op("where", {call("greater", {ok, k64(0)}), n, k64(-1)});
  auto len = c.runtimeShape(lens, c.node.output(0) + "_len", {},
                            "Slice's axes must be distinct and in [-" + std::to_string(rank) +
                                ", " + std::to_string(rank) + ") and its steps nonzero");
  // One gather from the flattened input: the flat index of output element
  // (j_0, ..., j_r-1) is sum_i (b_i + j_i * s_i) * stride_i, broadcast from
  // one column per dim (injective, so it fuses into the take's kernel).
  Expr flatIdx;
  PrimExpr stride = intImm(1);
  for (int i = rank - 1; i >= 0; --i) {
    Expr at = k64(i);
    Expr idx =
        call("multiply", {iota(c, len[i]).expr, call("take", {st, at}, {{"axis", int64_t(0)}})});
    idx = call("add", {idx, call("take", {b, at}, {{"axis", int64_t(0)}})});
    if (!isConstInt(stride, 1))
      idx = call("multiply", {idx, dimScalarOf(c, stride)});
    std::vector<PrimExpr> column(static_cast<size_t>(rank), intImm(1));
    column[static_cast<size_t>(i)] = len[i];
    idx = call("reshape", {idx, shapeExpr(column)});
    flatIdx = flatIdx ? call("add", {flatIdx, idx}) : idx;
    stride = simplifyDims(stride * shape[i]);
  }
  Expr flat = call("reshape", {c.expr(0), shapeExpr({stride})});
  c.output(0, c.op("take", {flat, flatIdx}, {{"axis", int64_t(0)}}));
}

void convertSlice(NodeContext& c) {
  if (c.opset >= 10) {
    if ((c.has(3) && !c.constant(3)) || (c.has(4) && !c.constant(4)))
      return convertRunTimeAxesSlice(c);
    auto starts = c.symInts(1), ends = c.symInts(2);
    if (starts && ends && (!c.constant(1) || !c.constant(2)))
      return convertSymbolicSlice(c, *starts, *ends);
    if (!starts || !ends)
      return convertRunTimeSlice(c);
  }
  int rank = c.rank(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.attrInts("starts");
    ends = c.attrInts("ends");
    axes = c.attrInts("axes");
  } else {
    starts = c.constInts(1, "Slice's starts");
    ends = c.constInts(2, "Slice's ends");
  }
  sliceAxesSteps(c, starts.size(), axes, steps);
  if (ends.size() != starts.size())
    c.unsupported("starts, ends, axes and steps differ in length");
  for (auto& a : axes)
    a = normAxis(c, a, rank);
  for (int64_t s : steps)
    if (s == 0)
      c.unsupported("a step of 0");
  c.output(0, c.op("strided_slice", {c.expr(0)},
                   {{"axes", axes}, {"begin", starts}, {"end", ends}, {"strides", steps}}));
}

void convertGather(NodeContext& c) {
  int rank = c.rank(0);
  int axis = normAxis(c, c.attrInt("axis", 0), rank);
  Value idx = c.in(1);
  PrimExpr dim = c.shape(0)[axis];
  if (idx.data) { // normalize negative indices now
    Tensor t = idx.data->clone();
    auto d = asConstInt(dim);
    bool neg = false;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (intAt(t, i) < 0) {
        if (!d)
          c.unsupported("negative indices into a symbolic dimension");
        neg = true;
      }
    if (neg) {
      std::vector<int64_t> vals;
      for (int64_t i = 0; i < t.numel(); ++i)
        vals.push_back(intAt(t, i) < 0 ? intAt(t, i) + *d : intAt(t, i));
      idx = NodeContext::constant(int64Tensor(vals, t.shape()));
    }
  } else {
    auto d = asConstInt(dim);
    if (!d)
      c.unsupported("dynamic indices into a symbolic dimension");
    DataType it = c.dtype(1);
    Value isNeg = c.op("less", {idx.expr, NodeContext::scalar(0, it).expr});
    Value wrapped = c.op("add", {idx.expr, NodeContext::scalar(double(*d), it).expr});
    idx = c.op("where", {isNeg.expr, wrapped.expr, idx.expr});
  }
  c.output(0, c.op("take", {c.expr(0), idx.expr}, {{"axis", int64_t(axis)}}));
}

std::vector<int64_t> axesOf(NodeContext& c, int sinceOpset, const char* what) {
  if (c.opset < sinceOpset)
    return c.attrInts("axes");
  return c.has(1) ? c.constInts(1, what) : std::vector<int64_t>{};
}

/// Whether input 1 holds axes read at run time (from opset `sinceOpset`,
/// given and not known at import time). Their number is then the static
/// length of the 1-D tensor (returned); anything else needs a constant.
std::optional<int64_t> runtimeAxesCount(NodeContext& c, int sinceOpset, const std::string& what) {
  if (c.opset < sinceOpset || !c.has(1) || c.constant(1))
    return std::nullopt;
  auto* ts = as<TensorSInfo>(c.value(1).sinfo);
  std::optional<int64_t> len;
  if (ts && ts->ndim == 1 && ts->shape && ts->dtype.isIntegral())
    len = asConstInt((*ts->shape)[0]);
  if (!len)
    c.needConstant(1, what + " (a 1-D integer tensor of static length when read at run time)");
  return len;
}

/// Axes read at run time, indexing `positions` places (the rank they
/// refer to): per place, whether an axis names it (`member`, 0/1) and how
/// many axes name an earlier place (`before`), both [positions] int64; and
/// `valid` (a 0-d bool): every axis lies in [-positions, positions) and no
/// two name the same place. Graph operators, so they compile into kernels.
struct RuntimeAxes {
  Expr member, before, valid;
};

Expr asInt64(NodeContext& c, const Expr& e) {
  return c.op("astype", {e}, {{"dtype", DataType::Int64()}}).expr;
}

Value sumLast(NodeContext& c, const Expr& e) {
  return c.op("sum", {e}, {{"axis", std::vector<int64_t>{-1}}, {"keepdims", false}});
}

Expr column(NodeContext& c, const Expr& e) {
  return c.op("expand_dims", {e}, {{"axis", std::vector<int64_t>{1}}}).expr;
}

RuntimeAxes runtimeAxes(NodeContext& c, int64_t positions) {
  DataType i64 = DataType::Int64();
  auto k = [&](double v) { return NodeContext::scalar(v, i64).expr; };
  Expr a = c.expr(1);
  if (!(c.dtype(1) == i64))
    a = asInt64(c, a);
  Value negative = c.op("less", {a, k(0)});
  Value wrapped = c.op("add", {a, k(double(positions))});
  Expr na = c.op("where", {negative.expr, wrapped.expr, a}).expr; // [m]
  Value lo = c.op("greater_equal", {na, k(0)});
  Value hi = c.op("less", {na, k(double(positions))});
  Value inRange = c.op("logical_and", {lo.expr, hi.expr});
  Value same = c.op("equal", {column(c, na), na}); // [m, m]
  Value once = c.op("equal", {sumLast(c, asInt64(c, same.expr)).expr, k(1)});
  Value ok = c.op("logical_and", {inRange.expr, once.expr});
  Value all = c.op("min", {asInt64(c, ok.expr)}, {{"keepdims", false}});
  RuntimeAxes r;
  r.valid = c.op("equal", {all.expr, k(1)}).expr;
  Expr place = column(c, iota(c, intImm(positions)).expr); // [positions, 1]
  r.member = sumLast(c, asInt64(c, c.op("equal", {place, na}).expr)).expr;
  r.before = sumLast(c, asInt64(c, c.op("less", {na, place}).expr)).expr;
  return r;
}

/// out[j] = sum over i of dims[i] where rowKey[j] == colKey[i]: picks
/// dims by computed indices (a one-hot product; the tensors are a rank long).
Value pickDims(NodeContext& c, const Expr& rowKey, const Expr& colKey,
               const std::vector<PrimExpr>& dims) {
  Value d = c.op("shape_to_tensor", {shapeExpr(dims)});
  Value hit = c.op("equal", {column(c, rowKey), colKey});
  Value picked = c.op("multiply", {asInt64(c, hit.expr), d.expr});
  return sumLast(c, picked.expr);
}

/// For a removal of the places an axis names (Squeeze, Reduce without
/// keepdims): the remaining dims, [rank - count] int64.
Value keptDims(NodeContext& c, const RuntimeAxes& ax, const std::vector<PrimExpr>& dims,
               int64_t count) {
  DataType i64 = DataType::Int64();
  int64_t rank = static_cast<int64_t>(dims.size());
  Value removed = c.op("greater", {ax.member, NodeContext::scalar(0, i64).expr});
  Value place = iota(c, intImm(rank));
  Value shifted = c.op("subtract", {place.expr, ax.before});
  // Place i goes to output position i - before[i] unless it is removed.
  Value target = c.op("where", {removed.expr, NodeContext::scalar(-1, i64).expr, shifted.expr});
  return pickDims(c, iota(c, intImm(rank - count)).expr, target.expr, dims);
}

/// The dims of `shape` where `valid` holds, else -1 everywhere (the run-time
/// check: tensor_to_shape reports `error`), as fresh shape variables.
std::vector<PrimExpr> checkedRuntimeDims(NodeContext& c, const Expr& valid, const Expr& shape,
                                         const std::string& hint, const std::string& error) {
  Value checked = c.op("where", {valid, shape, NodeContext::scalar(-1, DataType::Int64()).expr});
  return c.runtimeShape(checked, hint, {}, error);
}

/// The run-time error of invalid axes: `op`'s axes must be distinct, lie in
/// [-positions, positions - 1] and meet `more` (if given).
std::string axesRule(NodeContext& c, const std::string& op, int64_t positions,
                     const std::string& more = {}) {
  std::string range = "[" + std::to_string(-positions) + ", " + std::to_string(positions - 1) + "]";
  return op + "'s axes (input '" + c.node.input(1) + "'), read at run time, must be distinct" +
         (more.empty() ? " and lie in " + range : ", lie in " + range + " and " + more);
}

/// Squeeze with axes read at run time: the output's rank is the input's
/// minus their number; which dims go is decided at run time (fresh shape
/// variables and a reshape).
void squeezeRuntimeAxes(NodeContext& c, int64_t count) {
  auto dims = c.shape(0);
  int64_t rank = static_cast<int64_t>(dims.size());
  if (count > rank)
    c.unsupported(std::to_string(count) + " axes for an input of rank " + std::to_string(rank));
  DataType i64 = DataType::Int64();
  auto k = [&](double v) { return NodeContext::scalar(v, i64).expr; };
  RuntimeAxes ax = runtimeAxes(c, rank);
  // Every dim an axis names must be 1.
  Value d = c.op("shape_to_tensor", {shapeExpr(dims)});
  Value named = c.op("greater", {ax.member, k(0)});
  Value notOne = c.op("not_equal", {d.expr, k(1)});
  Value bad = c.op("logical_and", {named.expr, notOne.expr});
  Value anyBad = c.op("max", {asInt64(c, bad.expr)}, {{"keepdims", false}});
  Value noBad = c.op("equal", {anyBad.expr, k(0)});
  Value valid = c.op("logical_and", {ax.valid, noBad.expr});
  std::string error = axesRule(c, "Squeeze", rank, "name dimensions of extent 1");
  std::string hint = c.node.output(0);
  if (count == rank) { // a scalar: check through a one-element shape first
    Value one = c.op("reshape", {k(1), shapeExpr({intImm(1)})});
    auto v = checkedRuntimeDims(c, valid.expr, one.expr, hint, error);
    Value flat = c.op("reshape", {c.expr(0), shapeExpr(v)});
    c.output(0, c.op("reshape", {flat.expr, shapeExpr({})}));
    return;
  }
  Value kept = keptDims(c, ax, dims, count);
  auto out = checkedRuntimeDims(c, valid.expr, kept.expr, hint, error);
  c.output(0, c.op("reshape", {c.expr(0), shapeExpr(out)}));
}

/// Unsqueeze with axes read at run time: rank + count output dims, 1 where
/// an axis names the place and the input's dims in order elsewhere.
void unsqueezeRuntimeAxes(NodeContext& c, int64_t count) {
  auto dims = c.shape(0);
  int64_t rank = static_cast<int64_t>(dims.size()), outRank = rank + count;
  DataType i64 = DataType::Int64();
  RuntimeAxes ax = runtimeAxes(c, outRank);
  Expr out = ax.member; // 1 at the new places
  if (rank > 0) {
    // Output place j, when not new, holds input dim j - before[j].
    Value isNew = c.op("greater", {ax.member, NodeContext::scalar(0, i64).expr});
    Value place = iota(c, intImm(outRank));
    Value source = c.op("subtract", {place.expr, ax.before});
    Value key = c.op("where", {isNew.expr, NodeContext::scalar(-1, i64).expr, source.expr});
    Value old = pickDims(c, key.expr, iota(c, intImm(rank)).expr, dims);
    out = c.op("add", {out, old.expr}).expr;
  }
  auto shape =
      checkedRuntimeDims(c, ax.valid, out, c.node.output(0), axesRule(c, "Unsqueeze", outRank));
  c.output(0, c.op("reshape", {c.expr(0), shapeExpr(shape)}));
}

void convertSqueeze(NodeContext& c) {
  auto n = runtimeAxesCount(c, 13, "Squeeze's axes");
  if (n && *n > 0)
    return squeezeRuntimeAxes(c, *n);
  auto axes = n ? std::vector<int64_t>{} : axesOf(c, 13, "Squeeze's axes");
  if (axes.empty()) {
    c.staticShape(0, "Squeeze without axes");
    c.output(0, c.op("squeeze", {c.expr(0)}));
    return;
  }
  c.output(0, c.op("squeeze", {c.expr(0)}, {{"axis", axes}}));
}

void convertUnsqueeze(NodeContext& c) {
  auto n = runtimeAxesCount(c, 13, "Unsqueeze's axes");
  if (n && *n > 0)
    return unsqueezeRuntimeAxes(c, *n);
  auto axes = n ? std::vector<int64_t>{} : axesOf(c, 13, "Unsqueeze's axes");
  if (axes.empty())
    c.unsupported("Unsqueeze without axes");
  c.output(0, c.op("expand_dims", {c.expr(0)}, {{"axis", axes}}));
}

/// Pad in mode edge or reflect with pads that are symbolic or read from
/// data: per padded axis a take of the source indices i - before for i in
/// [0, d + before + after), clamped to [0, d - 1] (edge) or reflected about
/// the ends with period 2 (d - 1) (reflect, numpy's rule).
void padByIndexing(NodeContext& c, const std::vector<PrimExpr>& pads, bool reflect) {
  int rank = c.rank(0);
  auto shape = c.shape(0);
  auto call = [&](const char* op, std::vector<Expr> args) {
    return c.op(op, std::move(args)).expr;
  };
  Value x = c.in(0);
  for (int i = 0; i < rank; ++i) {
    PrimExpr before = pads[i], after = pads[i + rank];
    if (isConstInt(before, 0) && isConstInt(after, 0))
      continue;
    Expr d = dimScalarOf(c, shape[i]);
    Expr idx = call("subtract", {iota(c, simplifyDims(shape[i] + before + after)).expr,
                                 dimScalarOf(c, before)});
    if (reflect) {
      Expr period =
          call("maximum", {call("multiply", {call("subtract", {d, k64(1)}), k64(2)}), k64(1)});
      Expr m = call("mod", {idx, period});
      idx = call("where", {call("less", {m, d}), m, call("subtract", {period, m})});
    } else {
      idx = call("maximum", {call("minimum", {idx, call("subtract", {d, k64(1)})}), k64(0)});
    }
    x = c.op("take", {x.expr, idx}, {{"axis", int64_t(i)}});
  }
  c.output(0, x);
}

/// Pad with pads that are symbolic shape values (padding H up to a multiple
/// of 32: (32 - H % 32) % 32) or read from data, or with a constant value
/// read from data. Mode constant: per padded axis, the value broadcast to
/// the two border blocks and a concat; modes edge and reflect: padByIndexing.
/// The pads must be non-negative (a negative run-time value is an error when
/// read).
void padToComputedWidths(NodeContext& c, int rank) {
  std::string mode = c.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    c.unsupported("mode='" + mode + "'");
  auto pads = c.shapeIntsOrRuntime(1, "Pad's pads");
  if (static_cast<int>(pads.size()) != 2 * rank)
    c.unsupported("pads has " + std::to_string(pads.size()) + " values for rank " +
                  std::to_string(rank));
  for (auto& p : pads)
    if (auto k = asConstInt(p); k && *k < 0)
      c.unsupported("negative pads (cropping) are not supported");
  if (mode != "constant")
    return padByIndexing(c, pads, mode == "reflect");
  DataType dt = c.dtype(0);
  Expr fill;
  if (c.has(2) && !c.constant(2)) { // the value is data: a one-element tensor
    fill = c.op("reshape", {c.expr(2), shapeExpr({})}).expr;
    if (!(c.dtype(2) == dt))
      fill = c.op("astype", {fill}, {{"dtype", dt}}).expr;
  } else {
    fill = NodeContext::scalar(c.has(2) ? c.constScalar(2, "Pad's constant_value") : 0.0, dt).expr;
  }
  Value x = c.in(0);
  auto shape = c.shape(0);
  for (int i = 0; i < rank; ++i) {
    PrimExpr before = pads[i], after = pads[i + rank];
    if (isConstInt(before, 0) && isConstInt(after, 0))
      continue;
    std::vector<Expr> parts;
    std::vector<StructInfo> infos;
    auto border = [&](const PrimExpr& width) {
      auto s = shape;
      s[i] = width;
      Value b = c.op("broadcast_to", {fill, shapeExpr(s)});
      parts.push_back(b.expr);
      infos.push_back(b.sinfo);
    };
    if (!isConstInt(before, 0))
      border(before);
    parts.push_back(x.expr);
    infos.push_back(x.sinfo);
    if (!isConstInt(after, 0))
      border(after);
    Expr tuple = make<Tuple>(parts, tupleSInfo(infos));
    x = c.op("concat", {tuple}, {{"axis", int64_t(i)}});
    shape = *as<TensorSInfo>(x.sinfo)->shape;
  }
  c.output(0, x);
}

void convertPad(NodeContext& c) {
  int rank = c.rank(0);
  if (c.opset >= 11 && (!c.constant(1) || (c.has(2) && !c.constant(2) &&
                                           c.attrString("mode", "constant") == "constant")))
    return padToComputedWidths(c, rank);
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset < 2) {
    pads = c.attrInts("paddings"); // renamed to 'pads' in opset 2
    value = c.attrFloat("value", 0.0);
  } else if (c.opset < 11) {
    pads = c.attrInts("pads");
    value = c.attrFloat("value", 0.0);
  } else {
    pads = c.constInts(1, "Pad's pads");
    if (c.has(2))
      value = c.constScalar(2, "Pad's constant_value");
  }
  if (static_cast<int>(pads.size()) != 2 * rank)
    c.unsupported("pads has " + std::to_string(pads.size()) + " values for rank " +
                  std::to_string(rank));
  std::vector<int64_t> width;
  for (int i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[i + rank] < 0)
      c.unsupported("negative pads (cropping) are not supported");
    width.push_back(pads[i]);
    width.push_back(pads[i + rank]);
  }
  std::string mode = c.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    c.unsupported("mode='" + mode + "'");
  c.output(0, c.op("nn.pad", {c.expr(0)},
                   {{"pad_width", width}, {"pad_value", value}, {"pad_mode", mode}}));
}

void convertExpand(NodeContext& c) {
  auto target = c.shapeIntsOrRuntime(1, "Expand's shape");
  auto in = c.shape(0);
  size_t n = std::max(target.size(), in.size());
  std::vector<PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t ti = static_cast<int64_t>(i) - static_cast<int64_t>(n - target.size());
    int64_t xi = static_cast<int64_t>(i) - static_cast<int64_t>(n - in.size());
    PrimExpr xd = xi >= 0 ? in[xi] : intImm(1);
    PrimExpr td = ti >= 0 ? target[ti] : intImm(1);
    auto xc = asConstInt(xd), tc = asConstInt(td);
    // Bidirectional broadcast: the result is the dim that is not 1.
    if (tc && *tc == 1)
      out[i] = xd;
    else if (xc && *xc == 1)
      out[i] = td;
    else if (xc && tc && *xc != *tc)
      c.unsupported("cannot expand dim " + std::to_string(*xc) + " to " + std::to_string(*tc));
    else if (xc || tc || op::arith::provablyEqual(xd, td))
      out[i] = xd; // a symbolic dim against a fixed one must agree at run time
    else
      c.unsupported("cannot decide at import whether dim " + op::primExprStr(xd) + " expands to " +
                    op::primExprStr(td) + " (neither is 1 nor provably equal)");
  }
  c.output(0, c.op("broadcast_to", {c.expr(0), shapeExpr(out)}));
}

/// Tile as reshape to (1, d0, 1, d1, ...), broadcast_to (r0, d0, r1, d1,
/// ...), reshape to (r0 * d0, r1 * d1, ...).
void convertTile(NodeContext& c) {
  if (c.opset < 6)
    c.unsupported("opset " + std::to_string(c.opset) +
                  " Tile (tiles and axis inputs) is not supported; opset 6 and later are");
  auto reps = c.shapeIntsOrRuntime(1, "Tile's repeats"); // symbolic or run-time
  auto in = c.shape(0);
  if (reps.size() != in.size())
    c.unsupported("repeats has " + std::to_string(reps.size()) + " values for rank " +
                  std::to_string(in.size()));
  std::vector<PrimExpr> unit, wide, out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (auto r = asConstInt(reps[i]); r && *r < 0)
      c.unsupported("negative repeats");
    unit.insert(unit.end(), {intImm(1), in[i]});
    wide.insert(wide.end(), {reps[i], in[i]});
    out.push_back(foldMul(reps[i], in[i]));
  }
  Value x = c.op("reshape", {c.expr(0), shapeExpr(unit)});
  x = c.op("broadcast_to", {x.expr, shapeExpr(wide)});
  c.output(0, c.op("reshape", {x.expr, shapeExpr(out)}));
}

/// A window whose size is computed at run time: the length is a fresh shape
/// variable bound from the size value, and the formula of convertWindow is
/// evaluated by graph operators in float64 over arange(length), then cast.
void convertWindowRuntime(NodeContext& c, DataType dt, bool periodic, double a0, double a1,
                          double a2) {
  auto* st = as<TensorSInfo>(c.value(0).sinfo);
  if (!st || !st->dtype.isIntegral() || st->ndim < 0 || st->ndim > 1 ||
      (st->ndim == 1 && (!st->shape || !isConstInt((*st->shape)[0], 1))))
    c.unsupported("the window's size must be an integer scalar");
  DataType f64 = DataType::Float(64);
  auto k = [&](double v) { return NodeContext::scalar(v, f64).expr; };
  auto bin = [&](const char* op, const Value& a, Expr b) { return c.op(op, {a.expr, b}); };
  Value size = c.op("astype", {c.expr(0)}, {{"dtype", DataType::Int64()}});
  // A negative size is refused by the executor when it reads the length.
  PrimExpr n = c.runtimeShape(c.op("reshape", {size.expr, shapeExpr({intImm(1)})}),
                              c.node.output(0) + "_len")[0];
  Value d = c.op("astype", {c.op("reshape", {size.expr, shapeExpr({})}).expr}, {{"dtype", f64}});
  if (!periodic)
    d = bin("subtract", d, k(1));
  Value i = c.op("astype", {iota(c, n).expr}, {{"dtype", f64}});
  // x = 2 pi i / D, 0 when D <= 0 (a symmetric window of length 1).
  Value x = bin("divide", bin("multiply", i, k(2 * std::numbers::pi)), d.expr);
  x = c.op("where", {bin("greater", d, k(0)).expr, x.expr, k(0)});
  Value w = c.op("subtract", {k(a0), bin("multiply", c.op("cos", {x.expr}), k(a1)).expr});
  if (a2 != 0)
    w = bin("add", w, bin("multiply", c.op("cos", {bin("multiply", x, k(2)).expr}), k(a2)).expr);
  c.output(0, c.op("astype", {w.expr}, {{"dtype", dt}}));
}

/// Hann/Hamming/Blackman windows of a size known at import time (an
/// initializer, a Constant): a constant tensor,
/// w[n] = a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D) with D = size
/// (periodic=1) or size - 1 (periodic=0), computed in double. A size
/// computed at run time goes through convertWindowRuntime.
void convertWindow(NodeContext& c, double a0, double a1, double a2) {
  auto dt = dtypeFromOnnx(static_cast<int>(c.attrInt("output_datatype", 1)));
  if (!dt)
    c.unsupported("output_datatype " + std::to_string(c.attrInt("output_datatype", 1)) +
                  " is not supported");
  if (dt->isFloat() && dt->bits == 16)
    c.unsupported("a float16 window is not supported");
  bool periodic = c.attrInt("periodic", 1) != 0;
  if (!c.constant(0)) {
    convertWindowRuntime(c, *dt, periodic, a0, a1, a2);
    return;
  }
  int64_t n = static_cast<int64_t>(c.constScalar(0, "the window's size"));
  if (n < 0)
    c.unsupported("negative window size");
  double d = static_cast<double>(periodic ? n : n - 1);
  const double pi = 3.14159265358979323846;
  Tensor w(*dt, {n});
  for (int64_t i = 0; i < n; ++i) {
    double x = d > 0 ? 2 * pi * static_cast<double>(i) / d : 0.0;
    double v = a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
    if (dt->isFloat())
      w.setDouble(i, v);
    else
      setIntAt(w, i, static_cast<int64_t>(v));
  }
  c.output(0, NodeContext::constant(std::move(w)));
}

/// The Reduce* reduction of x by the direct operator or a composition
/// (L1, L2, LogSum...) with `attrs` (axis, keepdims).
Value reduceBy(NodeContext& c, const std::string& kind, const Expr& x, const Attrs& attrs) {
  static const std::map<std::string, std::string> direct = {
      {"Sum", "sum"}, {"Mean", "mean"}, {"Max", "max"}, {"Min", "min"}, {"Prod", "prod"}};
  if (auto it = direct.find(kind); it != direct.end())
    return c.op(it->second, {x}, attrs);
  if (kind == "SumSquare")
    return c.op("sum", {c.op("multiply", {x, x}).expr}, attrs);
  if (kind == "L1")
    return c.op("sum", {c.op("abs", {x}).expr}, attrs);
  if (kind == "L2") {
    Value s = c.op("sum", {c.op("multiply", {x, x}).expr}, attrs);
    return c.op("sqrt", {s.expr});
  }
  if (kind == "LogSum")
    return c.op("log", {c.op("sum", {x}, attrs).expr});
  if (kind == "LogSumExp")
    return c.op("log", {c.op("sum", {c.op("exp", {x}).expr}, attrs).expr});
  c.unsupported("unknown reduction Reduce" + kind);
}

/// Reduce* with axes read at run time. With the kept dims o_d (1 where
/// reduced, else n_d: fresh shape variables) the reduced extent along d is
/// e_d = n_d - o_d + 1 (n_d where reduced, else 1), so x viewed as
/// (o_0, e_0, o_1, e_1, ...) -- the same elements in the same order --
/// reduced over every e_d gives the keepdims result for any axes; without
/// keepdims a reshape to the remaining dims follows.
void reduceRuntimeAxes(NodeContext& c, const std::string& kind, int64_t count, bool keep) {
  auto dims = c.shape(0);
  int64_t rank = static_cast<int64_t>(dims.size());
  if (count > rank)
    c.unsupported(std::to_string(count) + " axes for an input of rank " + std::to_string(rank));
  DataType i64 = DataType::Int64();
  RuntimeAxes ax = runtimeAxes(c, rank);
  Value named = c.op("greater", {ax.member, NodeContext::scalar(0, i64).expr});
  Value d = c.op("shape_to_tensor", {shapeExpr(dims)});
  Value kept = c.op("where", {named.expr, NodeContext::scalar(1, i64).expr, d.expr});
  std::string hint = c.node.output(0);
  auto o = checkedRuntimeDims(c, ax.valid, kept.expr, hint + "_kept",
                              axesRule(c, "Reduce" + kind, rank));
  std::vector<PrimExpr> split;
  std::vector<int64_t> inner;
  for (int64_t i = 0; i < rank; ++i) {
    split.push_back(o[i]);
    split.push_back(simplifyDims(dims[i] - o[i] + intImm(1)));
    inner.push_back(2 * i + 1);
  }
  Value view = c.op("reshape", {c.expr(0), shapeExpr(split)});
  Value y = reduceBy(c, kind, view.expr, Attrs{{"axis", inner}, {"keepdims", false}});
  if (keep) {
    c.output(0, y);
    return;
  }
  std::vector<PrimExpr> out;
  if (count < rank)
    out = c.runtimeShape(keptDims(c, ax, dims, count), hint);
  c.output(0, c.op("reshape", {y.expr, shapeExpr(out)}));
}

/// Reduce* with composition for the L1/L2/LogSum/... forms.
void convertReduce(NodeContext& c, const std::string& kind) {
  int rank = c.rank(0);
  bool keep = c.attrInt("keepdims", 1) != 0;
  // ReduceSum takes axes as an input from opset 13, the others from 18.
  int since = kind == "Sum" ? 13 : 18;
  std::string what = "Reduce" + kind + "'s axes";
  std::vector<int64_t> axes;
  auto n = runtimeAxesCount(c, since, what);
  if (n && *n > 0)
    return reduceRuntimeAxes(c, kind, *n, keep);
  if (c.opset < since)
    axes = c.attrInts("axes");
  else if (!n && c.has(1)) // (an empty run-time axes tensor is no axes)
    axes = c.constInts(1, what.c_str());
  if (axes.empty() && c.attrInt("noop_with_empty_axes", 0)) {
    c.output(0, c.in(0));
    return;
  }
  for (auto& a : axes)
    a = normAxis(c, a, rank);
  Attrs attrs{{"keepdims", keep}};
  if (!axes.empty())
    attrs.set("axis", axes);
  c.output(0, reduceBy(c, kind, c.expr(0), attrs));
}

void convertArg(NodeContext& c, const std::string& op) {
  int axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
  Attrs a{{"axis", int64_t(axis)}, {"keepdims", c.attrInt("keepdims", 1) != 0}};
  if (c.attrInt("select_last_index", 0) == 0) {
    c.output(0, c.op(op, {c.expr(0)}, a));
    return;
  }
  // The last extreme: argmax/argmin (first index) of the input reversed
  // along the axis, mapped back with extent - 1 - index.
  auto n = asConstInt(c.shape(0)[axis]);
  if (!n)
    c.unsupported("select_last_index=1 needs a static extent along the axis");
  Value rev = c.op("strided_slice", {c.expr(0)},
                   {{"axes", std::vector<int64_t>{axis}},
                    {"begin", std::vector<int64_t>{*n - 1}},
                    {"end", std::vector<int64_t>{-*n - 1}},
                    {"strides", std::vector<int64_t>{-1}}});
  Value idx = c.op(op, {rev.expr}, a);
  DataType it = as<TensorSInfo>(idx.sinfo)->dtype;
  c.output(0, c.op("subtract", {NodeContext::scalar(double(*n - 1), it).expr, idx.expr}));
}

/// DepthToSpace / SpaceToDepth as reshape -> permute_dims -> reshape.
void convertDepthSpace(NodeContext& c, bool toSpace) {
  if (c.rank(0) != 4)
    c.unsupported("needs a 4-D (NCHW) input");
  int64_t bs = c.attrInt("blocksize", 0);
  if (bs < 1)
    c.unsupported("blocksize must be >= 1");
  auto s = c.shape(0);
  auto ch = asConstInt(s[1]);
  if (!ch)
    c.unsupported("needs a static channel count");
  PrimExpr n = s[0], h = s[2], w = s[3], b = intImm(bs);
  std::vector<PrimExpr> mid, out;
  std::vector<int64_t> perm;
  if (toSpace) {
    if (*ch % (bs * bs))
      c.unsupported("channels not divisible by blocksize^2");
    PrimExpr co = intImm(*ch / (bs * bs));
    std::string mode = c.attrString("mode", "DCR");
    if (mode == "DCR") {
      mid = {n, b, b, co, h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      mid = {n, co, b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      c.unsupported("mode='" + mode + "'");
    }
    out = {n, co, foldMul(h, b), foldMul(w, b)};
  } else {
    auto hs = asConstInt(h), ws = asConstInt(w);
    if (!hs || !ws)
      c.unsupported("needs static height and width");
    if (*hs % bs || *ws % bs)
      c.unsupported("height/width not divisible by blocksize");
    PrimExpr ho = intImm(*hs / bs), wo = intImm(*ws / bs);
    mid = {n, s[1], ho, b, wo, b};
    perm = {0, 3, 5, 1, 2, 4};
    out = {n, intImm(*ch * bs * bs), ho, wo};
  }
  Value r = c.op("reshape", {c.expr(0), shapeExpr(mid)});
  Value t = c.op("permute_dims", {r.expr}, {{"axes", perm}});
  c.output(0, c.op("reshape", {t.expr, shapeExpr(out)}));
}

/// Constant node: the value attribute in its many spellings.
void convertConstant(NodeContext& c) {
  if (c.hasAttr("value")) {
    c.output(0, NodeContext::constant(c.attrTensor("value")));
  } else if (c.hasAttr("value_float")) {
    c.output(0, NodeContext::scalar(c.attrFloat("value_float", 0), DataType::Float32()));
  } else if (c.hasAttr("value_int")) {
    c.output(0, NodeContext::constant(int64Tensor({c.attrInt("value_int", 0)}, {})));
  } else if (c.hasAttr("value_ints")) {
    auto v = c.attrInts("value_ints");
    c.output(0, NodeContext::constant(int64Tensor(v, {static_cast<int64_t>(v.size())})));
  } else if (c.hasAttr("value_floats")) {
    auto v = c.attrFloats("value_floats");
    Tensor t(DataType::Float32(), {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i)
      t.setDouble(static_cast<int64_t>(i), v[i]);
    c.output(0, NodeContext::constant(t));
  } else {
    c.unsupported("Constant without a supported value attribute (sparse and string values are "
                  "not supported)");
  }
}

/// Shape/Size: a constant for a static shape, else a symbolic shape value
/// over the input's shape variables (see Value::sym).
void convertShape(NodeContext& c, bool size) {
  auto shape = c.shape(0);
  if (size) {
    c.output(0, NodeContext::symbolic({op::arith::product(shape)}, true, DataType::Int64()));
    return;
  }
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t start = c.attrInt("start", 0), end = c.attrInt("end", rank);
  auto clampIdx = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  start = clampIdx(start);
  end = clampIdx(end);
  std::vector<PrimExpr> vals;
  for (int64_t i = start; i < end; ++i)
    vals.push_back(shape[i]);
  c.output(0, NodeContext::symbolic(vals, false, DataType::Int64()));
}

/// ConstantOfShape of a symbolic shape: the value broadcast to it.
void convertConstantOfShape(NodeContext& c) {
  auto shape = c.shapeIntsOrRuntime(0, "ConstantOfShape's shape");
  for (auto& d : shape)
    if (auto k = asConstInt(d); k && *k < 0)
      c.unsupported("negative dimension in ConstantOfShape");
  Tensor v = c.hasAttr("value") ? c.attrTensor("value") : Tensor(DataType::Float32(), {});
  if (v.numel() != 1)
    c.unsupported("ConstantOfShape's value must hold one element");
  Value scalar = NodeContext::constant(v.reshaped({}));
  c.output(0, c.op("broadcast_to", {scalar.expr, shapeExpr(shape)}));
}

/// max(ceil((limit - start) / d), 0) over integers, without the max where
/// the shape variables' non-negativity already proves it.
PrimExpr symbolicRangeLength(const PrimExpr& start, const PrimExpr& limit, int64_t d) {
  PrimExpr span = d > 0 ? limit - start : start - limit;
  int64_t ad = d > 0 ? d : -d;
  PrimExpr n = floordiv(span + intImm(ad - 1), intImm(ad));
  // Range(0, Gather(Shape(x), 2)) needs no max(n, 0).
  return nonNegative(n);
}

/// Range whose length is not known at import time. The length n is
/// max(ceil((limit - start) / delta), 0): a symbolic expression when start
/// and limit are symbolic shape values and delta a constant integer, else
/// computed at run time (in float64) and bound to a fresh shape variable.
/// The values are start + i * delta for i = 0..n-1 (R.arange gives i).
void convertRange(NodeContext& c) {
  for (int i = 0; i < 3; ++i)
    if (c.rank(i) != 0)
      c.unsupported("start, limit and delta must be scalars");
  DataType dt = c.dtype(0);
  auto start = c.symInts(0), limit = c.symInts(1);
  const Tensor* deltaT = c.constant(2);
  std::optional<int64_t> d;
  // An integral delta within +-2^62 (converting a larger double to int64
  // is undefined behaviour, found by onnx_import_fuzz); others go the
  // floating-point way below.
  if (deltaT && deltaT->numel() == 1 && deltaT->getDouble(0) == std::floor(deltaT->getDouble(0)) &&
      std::fabs(deltaT->getDouble(0)) < 4611686018427387904.0)
    d = static_cast<int64_t>(deltaT->getDouble(0));
  if (d && *d == 0)
    c.unsupported("Range with delta 0");
  PrimExpr n;
  if (start && limit && d) {
    n = symbolicRangeLength((*start)[0], (*limit)[0], *d);
  } else {
    DataType f64 = DataType::Float(64);
    auto asF64 = [&](int i) { return c.op("astype", {c.expr(i)}, {{"dtype", f64}}).expr; };
    Value span = c.op("subtract", {asF64(1), asF64(0)});
    Value steps = c.op("ceil", {c.op("divide", {span.expr, asF64(2)}).expr});
    steps = c.op("maximum", {steps.expr, NodeContext::scalar(0, f64).expr});
    Value len = c.op("astype", {steps.expr}, {{"dtype", DataType::Int64()}});
    len = c.op("reshape", {len.expr, shapeExpr({intImm(1)})});
    n = c.runtimeShape(len, c.node.output(0) + "_len")[0];
  }
  Expr values = iota(c, n).expr;
  if (!(dt == DataType::Int64()))
    values = c.op("astype", {values}, {{"dtype", dt}}).expr;
  if (!d || *d != 1)
    values = c.op("multiply", {values, c.expr(2)}).expr;
  c.output(0, c.op("add", {values, c.expr(0)}));
}

} // namespace

void addShapeConverters(ConverterTable& t) {
  t["Reshape"] = {convertReshape, {"allowzero", "shape"}};
  t["Flatten"] = {convertFlatten, {"axis"}};
  t["Transpose"] = {convertTranspose, {"perm"}};
  t["Concat"] = {convertConcat, {"axis"}};
  t["Split"] = {convertSplit, {"axis", "split"}};
  t["Slice"] = {convertSlice, {"starts", "ends", "axes"}};
  t["Gather"] = {convertGather, {"axis"}};
  t["Squeeze"] = {convertSqueeze, {"axes"}};
  t["Unsqueeze"] = {convertUnsqueeze, {"axes"}};
  t["Pad"] = {convertPad, {"mode", "pads", "value", "paddings"}};
  t["Expand"] = {convertExpand, {}};
  t["Tile"] = {convertTile, {}};
  t["HannWindow"] = {[](NodeContext& c) { convertWindow(c, 0.5, 0.5, 0); },
                     {"output_datatype", "periodic"}};
  t["HammingWindow"] = {[](NodeContext& c) { convertWindow(c, 25.0 / 46, 21.0 / 46, 0); },
                        {"output_datatype", "periodic"}};
  t["BlackmanWindow"] = {[](NodeContext& c) { convertWindow(c, 0.42, 0.5, 0.08); },
                         {"output_datatype", "periodic"}};
  for (const char* k :
       {"Sum", "Mean", "Max", "Min", "Prod", "SumSquare", "L1", "L2", "LogSum", "LogSumExp"})
    t[std::string("Reduce") + k] = {[k = std::string(k)](NodeContext& c) { convertReduce(c, k); },
                                    {"axes", "keepdims", "noop_with_empty_axes"}};
  t["ArgMax"] = {[](NodeContext& c) { convertArg(c, "argmax"); },
                 {"axis", "keepdims", "select_last_index"}};
  t["ArgMin"] = {[](NodeContext& c) { convertArg(c, "argmin"); },
                 {"axis", "keepdims", "select_last_index"}};
  t["DepthToSpace"] = {[](NodeContext& c) { convertDepthSpace(c, true); }, {"blocksize", "mode"}};
  t["SpaceToDepth"] = {[](NodeContext& c) { convertDepthSpace(c, false); }, {"blocksize"}};
  t["Constant"] = {convertConstant,
                   {"value", "value_float", "value_floats", "value_int", "value_ints"}};
  t["Shape"] = {[](NodeContext& c) { convertShape(c, false); }, {"start", "end"}};
  t["Size"] = {[](NodeContext& c) { convertShape(c, true); }, {}};
  t["ConstantOfShape"] = {convertConstantOfShape, {"value"}};
  t["Range"] = {convertRange, {}};
}

} // namespace unity::frontend::detail
