// The simplifier's driver and its rules for +, -, *, logic, not, select,
// cast and let (division, min/max and comparisons live in their own files).
//
// Rewriting is bottom-up: operands are simplified first, then the node's rule
// runs on the simplified operands. Constants fold for every type (floats with
// the precision of their dtype, integers only when the result fits the
// dtype). Signed scalar integers (index types) also get the canonical linear
// form. After each node the result is compared structurally with the input;
// when equal the input Ref itself is returned, so an unchanged expression
// stays the same node.
#include <cmath>

#include "engine/ir/arith_internal.h"
#include "engine/support/error.h"

namespace unity::arith::detail {

using namespace ir;

PrimExpr rebuildBinary(NodeKind op, const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  if (auto* s = as<BinaryExpr>(self))
    if (s->op() == op && sameNode(s->a, a) && sameNode(s->b, b))
      return self;
  return binary(op, a, b);
}

std::optional<int64_t> foldIntConst(NodeKind op, int64_t x, int64_t y, DataType t) {
  auto divByZero = [&] {
    throw Error(std::string("arith::simplify: ") + binaryOpSymbol(op) + " by constant zero (" +
                t.str() + ")");
  };
  int64_t r = 0;
  switch (op) {
  case NodeKind::Add:
    if (__builtin_add_overflow(x, y, &r))
      return std::nullopt;
    break;
  case NodeKind::Sub:
    if (__builtin_sub_overflow(x, y, &r))
      return std::nullopt;
    break;
  case NodeKind::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      return std::nullopt;
    break;
  case NodeKind::Div:
  case NodeKind::FloorDiv:
    if (y == 0)
      divByZero();
    if (x == INT64_MIN && y == -1)
      return std::nullopt;
    r = op == NodeKind::Div ? x / y : floorDivInt(x, y);
    break;
  case NodeKind::FloorMod:
    if (y == 0)
      divByZero();
    r = y == -1 ? 0 : floorModInt(x, y);
    break;
  case NodeKind::Min:
    r = std::min(x, y);
    break;
  case NodeKind::Max:
    r = std::max(x, y);
    break;
  default:
    return std::nullopt;
  }
  if (!fitsType(r, t))
    return std::nullopt;
  return r;
}

namespace {

/// v rounded to the precision of float type t; nullopt for unsupported widths.
std::optional<double> roundTo(double v, DataType t) {
  if (t.bits == 64)
    return v;
  if (t.bits == 32)
    return double(float(v));
  return std::nullopt;
}

} // namespace

PrimExpr Rewriter::simplify(const PrimExpr& e) {
  PrimExpr r = visit(e);
  if (!sameNode(r, e) && structEqual(r, e))
    return e;
  return r;
}

PrimExpr Rewriter::visit(const PrimExpr& e) {
  switch (e->kind()) {
  case NodeKind::IntImm:
  case NodeKind::FloatImm:
    return e;
  case NodeKind::PrimVar: {
    auto it = an_.vars_.find(as<PrimVar>(e));
    return (it != an_.vars_.end() && it->second.value) ? it->second.value : e;
  }
  case NodeKind::Not:
    return visitNot(as<NotExpr>(e), e);
  case NodeKind::Select:
    return visitSelect(as<Select>(e), e);
  case NodeKind::Cast:
    return visitCast(as<CastExpr>(e), e);
  case NodeKind::PrimLet:
    return visitLet(as<PrimLet>(e), e);
  case NodeKind::BufferLoad: {
    auto* op = as<BufferLoad>(e);
    std::vector<PrimExpr> idx;
    bool changed = false;
    for (auto& i : op->indices) {
      idx.push_back(simplify(i));
      changed |= !sameNode(idx.back(), i);
    }
    return changed ? make<BufferLoad>(op->buffer, std::move(idx)) : e;
  }
  case NodeKind::PrimCall: {
    auto* op = as<PrimCall>(e);
    std::vector<PrimExpr> args;
    bool changed = false;
    for (auto& a : op->args) {
      args.push_back(simplify(a));
      changed |= !sameNode(args.back(), a);
    }
    return changed ? make<PrimCall>(op->dtype, op->op, std::move(args)) : e;
  }
  default:
    break;
  }
  if (auto* b = as<BinaryExpr>(e))
    return visitBinary(b, e);
  return e;
}

PrimExpr Rewriter::visitBinary(const BinaryExpr* op, const PrimExpr& self) {
  PrimExpr a = simplify(op->a), b = simplify(op->b);
  DataType t = a->dtype;
  NodeKind k = op->op();
  if (t.lanes != 1)
    return rebuildBinary(k, a, b, self);
  if (t.isFloat())
    return foldFloat(k, a, b, self);
  if (k == NodeKind::And || k == NodeKind::Or)
    return logic(k, a, b, self);
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (isComparison(k)) {
    if (ca && cb)
      return boolImm(compareValues(k, *ca, *cb));
    if (structEqual(a, b))
      return boolImm(k == NodeKind::EQ || k == NodeKind::LE || k == NodeKind::GE);
    return isIndexType(t) ? comparison(k, a, b, self) : rebuildBinary(k, a, b, self);
  }
  if (!t.isIntegral())
    return rebuildBinary(k, a, b, self);
  if (ca && cb)
    if (auto r = foldIntConst(k, *ca, *cb, t))
      return intImm(*r, t);
  if (!isIndexType(t))
    return rebuildBinary(k, a, b, self);
  switch (k) {
  case NodeKind::Add:
  case NodeKind::Sub:
  case NodeKind::Mul:
    return linearArith(k, a, b, self);
  case NodeKind::FloorDiv:
    return floorDiv(a, b, self);
  case NodeKind::FloorMod:
    return floorMod(a, b, self);
  case NodeKind::Div:
    return truncDiv(a, b, self);
  case NodeKind::Min:
  case NodeKind::Max:
    return minMax(k, a, b, self);
  default:
    return rebuildBinary(k, a, b, self);
  }
}

PrimExpr Rewriter::foldFloat(NodeKind op, const PrimExpr& a, const PrimExpr& b,
                             const PrimExpr& self) {
  auto *fa = as<FloatImm>(a), *fb = as<FloatImm>(b);
  if (!fa || !fb)
    return rebuildBinary(op, a, b, self);
  double x = fa->value, y = fb->value, r;
  if (isComparison(op))
    return boolImm(compareValues(op, x, y));
  switch (op) {
  case NodeKind::Add:
    r = x + y;
    break;
  case NodeKind::Sub:
    r = x - y;
    break;
  case NodeKind::Mul:
    r = x * y;
    break;
  case NodeKind::Div:
    r = x / y;
    break;
  case NodeKind::Min:
    r = std::fmin(x, y);
    break;
  case NodeKind::Max:
    r = std::fmax(x, y);
    break;
  default:
    return rebuildBinary(op, a, b, self);
  }
  auto rounded = roundTo(r, a->dtype);
  return rounded ? floatImm(*rounded, a->dtype) : rebuildBinary(op, a, b, self);
}

PrimExpr Rewriter::linearArith(NodeKind op, const PrimExpr& a, const PrimExpr& b,
                               const PrimExpr& self) {
  LinearForm la, lb, r;
  if (!toLinear(a, la) || !toLinear(b, lb))
    return rebuildBinary(op, a, b, self);
  bool ok = true;
  if (op == NodeKind::Add || op == NodeKind::Sub) {
    r = la;
    ok = addScaled(r, lb, op == NodeKind::Add ? 1 : -1);
  } else if (lb.isConst()) {
    ok = addScaled(r, la, lb.constant);
  } else if (la.isConst()) {
    ok = addScaled(r, lb, la.constant);
  } else {
    // A product of two non-constants is one atom; constant factors of
    // single-term operands move to the coefficient: (x*2)*(y*3) = (x*y)*6.
    PrimExpr x = a, y = b;
    int64_t k = 1;
    if (la.terms.size() == 1 && la.constant == 0) {
      x = la.terms[0].atom;
      k = la.terms[0].coef;
    }
    if (lb.terms.size() == 1 && lb.constant == 0) {
      y = lb.terms[0].atom;
      ok = !__builtin_mul_overflow(k, lb.terms[0].coef, &k);
    }
    if (atomLess(y, x))
      std::swap(x, y);
    PrimExpr atom = (sameNode(x, a) && sameNode(y, b)) ? rebuildBinary(op, a, b, self) : x * y;
    r.terms.push_back({atom, k});
  }
  if (!ok || !normalize(r))
    return rebuildBinary(op, a, b, self);
  PrimExpr out = fromLinear(r, a->dtype);
  return out ? out : rebuildBinary(op, a, b, self);
}

PrimExpr Rewriter::logic(NodeKind op, const PrimExpr& a, const PrimExpr& b, const PrimExpr& self) {
  bool isAnd = op == NodeKind::And;
  // The absorbing constant is false for `and`, true for `or`.
  for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    if (auto c = asConstInt(x))
      return (*c != 0) == isAnd ? y : x;
  }
  if (structEqual(a, b))
    return a;
  return rebuildBinary(op, a, b, self);
}

PrimExpr Rewriter::visitNot(const NotExpr* op, const PrimExpr& self) {
  PrimExpr a = simplify(op->a);
  if (auto c = asConstInt(a))
    return boolImm(*c == 0);
  if (auto* n = as<NotExpr>(a))
    return n->a;
  // !(x < y) is x >= y for integers (not for floats: NaN).
  if (auto* b = as<BinaryExpr>(a))
    if (isComparison(b->op()) && !b->a->dtype.isFloat())
      return binary(negateComparison(b->op()), b->a, b->b);
  return sameNode(a, op->a) ? self : logicalNot(a);
}

PrimExpr Rewriter::visitSelect(const Select* op, const PrimExpr& self) {
  PrimExpr c = simplify(op->cond), t = simplify(op->t), f = simplify(op->f);
  if (auto v = asConstInt(c))
    return *v ? t : f;
  if (structEqual(t, f))
    return t;
  if (sameNode(c, op->cond) && sameNode(t, op->t) && sameNode(f, op->f))
    return self;
  return select(c, t, f);
}

PrimExpr Rewriter::visitCast(const CastExpr* op, const PrimExpr& self) {
  PrimExpr v = simplify(op->value);
  DataType to = op->dtype;
  if (v->dtype == to)
    return v;
  if (to.lanes == 1 && v->dtype.lanes == 1) {
    if (auto c = asConstInt(v)) {
      int64_t x = *c;
      if (to.isBool())
        return boolImm(x != 0);
      if (to.isFloat()) {
        if (auto r = roundTo(double(x), to))
          return floatImm(*r, to);
      } else if (to.bits < 64) {
        // Integer casts wrap to the target width (two's complement).
        uint64_t mask = (uint64_t(1) << to.bits) - 1, low = uint64_t(x) & mask;
        if (to.isInt() && (low >> (to.bits - 1)))
          return intImm(int64_t(low | ~mask), to);
        return intImm(int64_t(low), to);
      } else if (to.isInt() || x >= 0) {
        return intImm(x, to);
      }
    } else if (auto* f = as<FloatImm>(v)) {
      double x = f->value;
      if (to.isBool())
        return boolImm(x != 0);
      if (to.isFloat()) {
        if (auto r = roundTo(x, to))
          return floatImm(*r, to);
      } else if (std::isfinite(x)) {
        double tr = std::trunc(x);
        ConstIntBound range = dtypeRange(to);
        // Only values well inside int64 convert exactly.
        if (std::fabs(tr) < 9.0e18 && range.contains(int64_t(tr)))
          return intImm(int64_t(tr), to);
      }
    }
  }
  return sameNode(v, op->value) ? self : make<CastExpr>(to, v);
}

PrimExpr Rewriter::visitLet(const PrimLet* op, const PrimExpr& self) {
  PrimExpr value = simplify(op->value);
  ScopedVar scope(an_, op->var);
  if (isa<IntImm>(value) || isa<PrimVar>(value)) {
    // Cheap values are substituted and the let disappears.
    an_.vars_[op->var.get()] = {op->var, bound(value), value, nullptr, nullptr};
    return simplify(op->body);
  }
  scope.setBound(bound(value));
  PrimExpr body = simplify(op->body);
  if (sameNode(value, op->value) && sameNode(body, op->body))
    return self;
  return make<PrimLet>(op->var, value, body);
}

} // namespace unity::arith::detail
