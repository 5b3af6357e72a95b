// Comparisons and min/max of index expressions, decided from the bound of
// the simplified difference.
//
// `a < b` is true when simplify(a - b) is bounded above by -1 and false when
// bounded below by 0; min(a, b) is a when a - b <= 0 is provable; and so on.
// The difference's bound comes from interval arithmetic first. When that is
// not enough, loop variables with symbolic ranges are substituted by their
// extreme (upper bound where the coefficient is positive, lower bound where
// it is negative), which proves `i < n` for i in [0, n) and chains through
// nested ranges (j in [0, i), i in [0, n)).
#include <algorithm>

#include "engine/ir/arith_internal.h"

namespace unity::arith::detail {

using namespace ir;

ConstIntBound Rewriter::diffBound(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr d = linearArith(NodeKind::Sub, a, b, nullptr);
  return boundSymbolic(d);
}

ConstIntBound Rewriter::boundSymbolic(const PrimExpr& d) {
  ConstIntBound r = bound(d);
  LinearForm f;
  if (!toLinear(d, f))
    return r;
  for (int side : {+1, -1}) {
    LinearForm cur = f;
    for (int round = 0; round < 4; ++round) {
      LinearForm next;
      next.constant = cur.constant;
      bool substituted = false, ok = true;
      for (auto& term : cur.terms) {
        auto* v = as<PrimVar>(term.atom);
        auto it = v ? an_.vars_.find(v) : an_.vars_.end();
        if (it == an_.vars_.end() || !it->second.rangeMin) {
          next.terms.push_back(term);
          continue;
        }
        // Upper bound of d: a positive coefficient takes the variable's max.
        bool takeMax = (term.coef > 0) == (side > 0);
        LinearForm ext;
        ok = ok && toLinear(takeMax ? it->second.rangeMax : it->second.rangeMin, ext) &&
             addScaled(next, ext, term.coef);
        substituted = true;
      }
      if (!substituted || !ok || !normalize(next))
        break;
      cur = std::move(next);
      ConstIntBound b = boundLinear(cur);
      if (side > 0)
        r.max = std::min(r.max, b.max);
      else
        r.min = std::max(r.min, b.min);
    }
  }
  return r;
}

PrimExpr Rewriter::comparison(NodeKind op, const PrimExpr& a, const PrimExpr& b,
                              const PrimExpr& self) {
  ConstIntBound d = diffBound(a, b);
  std::optional<bool> r;
  switch (op) {
  case NodeKind::LT:
    if (d.max < 0)
      r = true;
    if (d.min >= 0)
      r = false;
    break;
  case NodeKind::LE:
    if (d.max <= 0)
      r = true;
    if (d.min > 0)
      r = false;
    break;
  case NodeKind::GT:
    if (d.min > 0)
      r = true;
    if (d.max <= 0)
      r = false;
    break;
  case NodeKind::GE:
    if (d.min >= 0)
      r = true;
    if (d.max < 0)
      r = false;
    break;
  case NodeKind::EQ:
    if (d.min == 0 && d.max == 0)
      r = true;
    if (!d.contains(0))
      r = false;
    break;
  case NodeKind::NE:
    if (d.min == 0 && d.max == 0)
      r = false;
    if (!d.contains(0))
      r = true;
    break;
  default:
    break;
  }
  if (r)
    return boolImm(*r);
  return rebuildBinary(op, a, b, self);
}

PrimExpr Rewriter::minMax(NodeKind op, const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  bool isMin = op == NodeKind::Min;
  ConstIntBound d = diffBound(a, b);
  if (d.max <= 0)
    return isMin ? a : b; // a <= b
  if (d.min >= 0)
    return isMin ? b : a; // a >= b
  PrimExpr x = a, y = b;
  // A constant goes to the right; otherwise the atom order decides.
  if (isa<IntImm>(x) || (!isa<IntImm>(y) && atomLess(y, x)))
    std::swap(x, y);
  // min(min(z, c1), c2) = min(z, min(c1, c2)).
  if (auto c2 = asConstInt(y)) {
    auto* inner = as<BinaryExpr>(x);
    if (inner && inner->op() == op)
      if (auto c1 = asConstInt(inner->b)) {
        int64_t c = isMin ? std::min(*c1, *c2) : std::max(*c1, *c2);
        return minMax(op, inner->a, intImm(c, a->dtype), nullptr);
      }
  }
  if (sameNode(x, a))
    return rebuildBinary(op, a, b, self);
  return binary(op, x, y);
}

} // namespace unity::arith::detail
