// Constant integer bounds by interval arithmetic.
//
// Every integer expression gets an interval [min, max] that surely contains
// its value: constants are points, bound variables use the analyzer's facts
// (loop ranges, non-negativity, substituted values), other variables the range
// of their dtype, and each operator combines its operands' intervals (+, -, *
// by corners, floordiv/floormod by the divisor's sign, min/max componentwise,
// select by union). INT64_MIN/INT64_MAX mean -inf/+inf; every operation
// saturates to them instead of overflowing, which keeps the result sound.
#include <algorithm>

#include "engine/ir/arith_internal.h"
#include "engine/ir/intrinsics.h"

namespace unity::arith::detail {

using namespace ir;

namespace {

bool isInf(int64_t v) { return v == kNegInf || v == kPosInf; }

/// x + y where an infinite operand wins; `conflict` decides -inf + +inf.
int64_t satAdd(int64_t x, int64_t y, int64_t conflict) {
  bool xi = isInf(x), yi = isInf(y);
  if (xi && yi && x != y)
    return conflict;
  if (xi)
    return x;
  if (yi)
    return y;
  int64_t r;
  if (__builtin_add_overflow(x, y, &r))
    return x > 0 ? kPosInf : kNegInf;
  return r;
}

int64_t satMul(int64_t x, int64_t y) {
  if (x == 0 || y == 0)
    return 0;
  bool negative = (x < 0) != (y < 0);
  if (isInf(x) || isInf(y))
    return negative ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r) || isInf(r))
    return negative ? kNegInf : kPosInf;
  return r;
}

int64_t satNeg(int64_t x) {
  if (x == kNegInf)
    return kPosInf;
  if (x == kPosInf)
    return kNegInf;
  return -x;
}

/// floor(x / c) for c != 0 with infinities kept (their sign flips with c).
int64_t satFloorDiv(int64_t x, int64_t c) {
  if (isInf(x))
    return (x > 0) == (c > 0) ? kPosInf : kNegInf;
  if (isInf(c))
    return x == 0 ? 0 : ((x > 0) == (c > 0) ? 0 : -1);
  if (x == kNegInf + 1 && c == -1)
    return kPosInf;
  return floorDivInt(x, c);
}

} // namespace

ConstIntBound dtypeRange(DataType t) {
  if (t.isBool())
    return {0, 1};
  if (t.isInt() && t.bits < 64) {
    int64_t hi = (int64_t(1) << (t.bits - 1)) - 1;
    return {-hi - 1, hi};
  }
  if (t.isUInt() && t.bits < 64)
    return {0, (int64_t(1) << t.bits) - 1};
  if (t.isUInt())
    return {0, kPosInf};
  return {kNegInf, kPosInf};
}

bool fitsType(int64_t v, DataType t) {
  if (t.isInt() && t.bits == 64)
    return true;
  return dtypeRange(t).contains(v);
}

ConstIntBound boundAdd(ConstIntBound a, ConstIntBound b) {
  return {satAdd(a.min, b.min, kNegInf), satAdd(a.max, b.max, kPosInf)};
}

ConstIntBound boundNeg(ConstIntBound a) { return {satNeg(a.max), satNeg(a.min)}; }

ConstIntBound boundMul(ConstIntBound a, ConstIntBound b) {
  int64_t c[4] = {satMul(a.min, b.min), satMul(a.min, b.max), satMul(a.max, b.min),
                  satMul(a.max, b.max)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

ConstIntBound boundScale(ConstIntBound a, int64_t k) { return boundMul(a, {k, k}); }

ConstIntBound boundFloorDiv(ConstIntBound a, ConstIntBound b) {
  // floordiv is monotone in a for a fixed divisor sign, and monotone in b for
  // a fixed sign of a: the extremes are at the corners, as long as b keeps
  // one sign.
  if (b.min > 0 || b.max < 0) {
    int64_t c[4] = {satFloorDiv(a.min, b.min), satFloorDiv(a.min, b.max), satFloorDiv(a.max, b.min),
                    satFloorDiv(a.max, b.max)};
    ConstIntBound r{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    // Dividing by a large divisor moves a value towards 0 or -1.
    if (a.min >= 0 && b.min > 0)
      r.min = std::max<int64_t>(r.min, 0);
    return r;
  }
  return {kNegInf, kPosInf};
}

ConstIntBound boundFloorMod(ConstIntBound a, ConstIntBound b) {
  if (b.min > 0) {
    // Values already inside [0, b.min) are left alone.
    if (a.min >= 0 && a.max < b.min)
      return a;
    int64_t hi = b.max == kPosInf ? kPosInf : b.max - 1;
    if (a.min >= 0)
      hi = std::min(hi, a.max);
    return {0, hi};
  }
  if (b.max < 0)
    return {b.min == kNegInf ? kNegInf : b.min + 1, 0};
  return {kNegInf, kPosInf};
}

ConstIntBound boundUnion(ConstIntBound a, ConstIntBound b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

ConstIntBound boundIntersect(ConstIntBound a, ConstIntBound b) {
  return {std::max(a.min, b.min), std::min(a.max, b.max)};
}

ConstIntBound Rewriter::boundLinear(const LinearForm& f) {
  ConstIntBound r{f.constant, f.constant};
  for (auto& t : f.terms)
    r = boundAdd(r, boundScale(bound(t.atom), t.coef));
  return r;
}

ConstIntBound Rewriter::bound(const PrimExpr& e) {
  DataType t = e->dtype;
  ConstIntBound full = dtypeRange(t);
  if (!(t.isIntegral() || t.isBool()) || t.lanes != 1)
    return {kNegInf, kPosInf};
  switch (e->kind()) {
  case NodeKind::IntImm: {
    int64_t v = as<IntImm>(e)->value;
    return {v, v};
  }
  case NodeKind::PrimVar: {
    auto it = an_.vars_.find(as<PrimVar>(e));
    if (it == an_.vars_.end())
      return full;
    return boundIntersect(it->second.bound, full);
  }
  case NodeKind::Select: {
    auto* s = as<Select>(e);
    return boundUnion(bound(s->t), bound(s->f));
  }
  case NodeKind::Cast: {
    auto* c = as<CastExpr>(e);
    if (!(c->value->dtype.isIntegral() || c->value->dtype.isBool()))
      return full;
    ConstIntBound v = bound(c->value);
    // A value that fits the new type is unchanged; otherwise it wraps.
    return (full.contains(v.min) && full.contains(v.max)) ? v : full;
  }
  case NodeKind::PrimLet:
    return bound(as<PrimLet>(e)->body);
  case NodeKind::PrimCall:
    // A runtime dimension (MakePackedAPI's prologue) is never negative, as
    // the shape variables it binds were known to be before the pass.
    if (as<PrimCall>(e)->op == kArgDimIntrinsic)
      return boundIntersect({0, kPosInf}, full);
    return full;
  default:
    break;
  }
  auto* b = as<BinaryExpr>(e);
  if (!b || t.isBool() || !isIndexType(t))
    return full;
  ConstIntBound x = bound(b->a), y = bound(b->b), r = full;
  switch (b->op()) {
  case NodeKind::Add:
    r = boundAdd(x, y);
    break;
  case NodeKind::Sub:
    r = boundAdd(x, boundNeg(y));
    break;
  case NodeKind::Mul:
    r = boundMul(x, y);
    break;
  case NodeKind::FloorDiv:
    r = boundFloorDiv(x, y);
    break;
  case NodeKind::FloorMod:
    r = boundFloorMod(x, y);
    break;
  case NodeKind::Div:
    // Truncation equals floor division for a non-negative dividend and a
    // positive divisor.
    if (x.min >= 0 && y.min > 0)
      r = boundFloorDiv(x, y);
    break;
  case NodeKind::Min:
    r = {std::min(x.min, y.min), std::min(x.max, y.max)};
    break;
  case NodeKind::Max:
    r = {std::max(x.min, y.min), std::max(x.max, y.max)};
    break;
  default:
    break;
  }
  return r;
}

} // namespace unity::arith::detail
