// Rules for floordiv, floormod and truncating division of index expressions.
//
// For a positive constant divisor c the dividend's linear form splits into
// q*c + r, where q collects the terms whose coefficients c divides (and the
// constant's quotient) and r the rest (with a constant in [0, c)). Then,
// exactly for integers,
//   floordiv(q*c + r, c) = q + floordiv(r, c),   floormod(q*c + r, c) = floormod(r, c),
// and when r's bound lies within one period [k*c, (k+1)*c) the remaining
// division is the constant k (the modulo is r - k*c). This gives
// floordiv(i*8 + j, 8) = i and floormod(i*8 + j, 8) = j for j in [0, 8).
// A common factor g of c and some coefficients, with the other terms in
// [0, g), divides out: floordiv(x*g + j, g*d) = floordiv(x, d) and
// floormod(x*g + j, g*d) = floormod(x, d)*g + j for j in [0, g).
// Nested divisions combine: floordiv(floordiv(x, a), b) = floordiv(x, a*b),
// floormod(floormod(x, a), b) = floormod(x, b) when b divides a. A symbolic
// divisor is handled only when the dividend provably lies in [0, divisor).
#include "engine/ir/arith_internal.h"

#include "engine/support/error.h"
#include <algorithm>
#include <numeric>

namespace unity::arith::detail {

using namespace ir;

namespace {

bool isFinite(ConstIntBound b) { return b.min != kNegInf && b.max != kPosInf; }

/// The one period k with r in [k*c, (k+1)*c), if r's bound has one.
std::optional<int64_t> singlePeriod(ConstIntBound b, int64_t c) {
  if (!isFinite(b))
    return std::nullopt;
  int64_t lo = floorDivInt(b.min, c), hi = floorDivInt(b.max, c);
  if (lo != hi)
    return std::nullopt;
  return lo;
}

const BinaryExpr* asOp(const PrimExpr& e, NodeKind k) {
  auto* b = as<BinaryExpr>(e);
  return b && b->op() == k ? b : nullptr;
}

/// r split as g * big + small by a factor g > 1 of c: big holds the terms
/// whose coefficients g divides (divided by g), small the others and the
/// constant. The candidates g are gcd(c, coefficient) of r's terms, largest
/// first; `fits(small, g)` accepts a split.
template <class Fits>
std::optional<std::tuple<int64_t, LinearForm, LinearForm>> commonFactor(const LinearForm& r,
                                                                        int64_t c, Fits fits) {
  std::vector<int64_t> gs;
  for (auto& term : r.terms) {
    int64_t g = std::gcd(c, term.coef < 0 ? -term.coef : term.coef);
    if (g > 1 && std::find(gs.begin(), gs.end(), g) == gs.end())
      gs.push_back(g);
  }
  std::sort(gs.rbegin(), gs.rend());
  for (int64_t g : gs) {
    LinearForm big, small;
    small.constant = r.constant;
    for (auto& term : r.terms) {
      if (term.coef % g == 0)
        big.terms.push_back({term.atom, term.coef / g});
      else
        small.terms.push_back(term);
    }
    if (fits(small, g))
      return std::tuple{g, std::move(big), std::move(small)};
  }
  return std::nullopt;
}

} // namespace

ConstIntBound Rewriter::remainderBound(const LinearForm& r, DataType t) {
  ConstIntBound b = boundLinear(r);
  if (isFinite(b))
    return b;
  PrimExpr e = fromLinear(r, t);
  return e ? boundIntersect(b, boundSymbolic(e)) : b;
}

PrimExpr Rewriter::floorDiv(const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  if (auto c = asConstInt(b)) {
    if (*c == 0)
      throw Error("arith::simplify: floordiv by constant zero (" + a->dtype.str() + ")");
    return *c > 0 ? floorDivConst(a, b, *c, self) : rebuildBinary(NodeKind::FloorDiv, a, b, self);
  }
  ConstIntBound bb = bound(b);
  if (structEqual(a, b) && !bb.contains(0))
    return intImm(1, a->dtype);
  // 0 <= a < b: the quotient is 0.
  if (bound(a).min >= 0 && diffBound(a, b).max < 0)
    return intImm(0, a->dtype);
  return rebuildBinary(NodeKind::FloorDiv, a, b, self);
}

PrimExpr Rewriter::floorMod(const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  if (auto c = asConstInt(b)) {
    if (*c == 0)
      throw Error("arith::simplify: floormod by constant zero (" + a->dtype.str() + ")");
    return *c > 0 ? floorModConst(a, b, *c, self) : rebuildBinary(NodeKind::FloorMod, a, b, self);
  }
  ConstIntBound bb = bound(b);
  if (structEqual(a, b) && !bb.contains(0))
    return intImm(0, a->dtype);
  if (bound(a).min >= 0 && diffBound(a, b).max < 0)
    return a;
  return rebuildBinary(NodeKind::FloorMod, a, b, self);
}

PrimExpr Rewriter::truncDiv(const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  auto c = asConstInt(b);
  if (c && *c == 0)
    throw Error("arith::simplify: division by constant zero (" + a->dtype.str() + ")");
  if (c && *c == 1)
    return a;
  // For a >= 0 and c > 0 truncation is floor division.
  if (c && *c > 0 && bound(a).min >= 0) {
    PrimExpr f = floorDivConst(a, b, *c, nullptr);
    auto* fd = asOp(f, NodeKind::FloorDiv);
    if (!fd || !structEqual(fd->a, a))
      return f;
  }
  return rebuildBinary(NodeKind::Div, a, b, self);
}

PrimExpr Rewriter::floorDivConst(const PrimExpr& a, const PrimExpr& b, int64_t c,
                                 const PrimExpr& self) {
  DataType t = a->dtype;
  auto keep = [&] { return rebuildBinary(NodeKind::FloorDiv, a, b, self); };
  if (c == 1)
    return a;
  if (auto* inner = asOp(a, NodeKind::FloorDiv)) {
    auto c1 = asConstInt(inner->b);
    int64_t prod;
    if (c1 && *c1 > 0 && !__builtin_mul_overflow(*c1, c, &prod) && fitsType(prod, t))
      return floorDivConst(inner->a, intImm(prod, t), prod, nullptr);
  }
  LinearForm la, q, r;
  if (!toLinear(a, la))
    return keep();
  q.constant = floorDivInt(la.constant, c);
  r.constant = floorModInt(la.constant, c);
  for (auto& term : la.terms) {
    if (term.coef % c == 0)
      q.terms.push_back({term.atom, term.coef / c});
    else
      r.terms.push_back(term);
  }
  if (!normalize(r))
    return keep();
  auto inPeriod = [&](const LinearForm& small, int64_t g) {
    return singlePeriod(remainderBound(small, t), g) == 0;
  };
  if (auto k = singlePeriod(remainderBound(r, t), c)) {
    if (__builtin_add_overflow(q.constant, *k, &q.constant))
      return keep();
  } else if (auto split = commonFactor(r, c, inPeriod)) {
    // r = g * big + small with 0 <= small < g and g | c:
    // floordiv(r, c) = floordiv(big, c / g) (floordiv(x*113 + j, 228*113)
    // = floordiv(x, 228) for j in [0, 113): the phase of a flattened row).
    auto& [g, big, small] = *split;
    PrimExpr rest = fromLinear(big, t);
    if (!rest)
      return keep();
    q.terms.push_back({floorDivConst(rest, intImm(c / g, t), c / g, nullptr), 1});
  } else {
    if (q.terms.empty() && q.constant == 0)
      return keep(); // r is a itself
    PrimExpr rest = fromLinear(r, t);
    if (!rest)
      return keep();
    q.terms.push_back({floordiv(rest, intImm(c, t)), 1});
  }
  if (!normalize(q))
    return keep();
  PrimExpr out = fromLinear(q, t);
  return out ? out : keep();
}

PrimExpr Rewriter::floorModConst(const PrimExpr& a, const PrimExpr& b, int64_t c,
                                 const PrimExpr& self) {
  DataType t = a->dtype;
  auto keep = [&] { return rebuildBinary(NodeKind::FloorMod, a, b, self); };
  if (c == 1)
    return intImm(0, t);
  if (auto* inner = asOp(a, NodeKind::FloorMod)) {
    auto c1 = asConstInt(inner->b);
    if (c1 && *c1 > 0 && *c1 % c == 0)
      return floorModConst(inner->a, b, c, nullptr);
  }
  LinearForm la, r;
  if (!toLinear(a, la))
    return keep();
  r.constant = floorModInt(la.constant, c);
  for (auto& term : la.terms)
    if (term.coef % c != 0)
      r.terms.push_back(term);
  if (!normalize(r))
    return keep();
  if (auto k = singlePeriod(remainderBound(r, t), c)) {
    int64_t shift;
    if (__builtin_mul_overflow(*k, c, &shift) ||
        __builtin_sub_overflow(r.constant, shift, &r.constant))
      return keep();
    PrimExpr out = fromLinear(r, t);
    return out ? out : keep();
  }
  // r = g * big + small with 0 <= small < g and g | c:
  // floormod(r, c) = floormod(big, c / g) * g + small.
  auto inPeriod = [&](const LinearForm& small, int64_t g) {
    return singlePeriod(remainderBound(small, t), g) == 0;
  };
  if (auto split = commonFactor(r, c, inPeriod)) {
    auto& [g, big, small] = *split;
    PrimExpr bigE = fromLinear(big, t);
    if (bigE) {
      LinearForm out = small;
      out.terms.push_back({floorModConst(bigE, intImm(c / g, t), c / g, nullptr), g});
      if (normalize(out))
        if (PrimExpr e = fromLinear(out, t))
          return e;
    }
  }
  if (r.terms.size() == la.terms.size() && r.constant == la.constant)
    return keep();
  PrimExpr rest = fromLinear(r, t);
  return rest ? floormod(rest, b) : keep();
}

} // namespace unity::arith::detail
