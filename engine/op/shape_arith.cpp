#include "engine/op/shape_arith.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "engine/ir/arith.h"
#include "engine/support/error.h"

namespace unity::op::arith {

using namespace unity::ir;

bool primEqual(const PrimExpr& a, const PrimExpr& b) {
  if (sameNode(a, b))
    return true;
  if (!a || !b || a->kind() != b->kind() || !(a->dtype == b->dtype))
    return false;
  if (auto* ia = as<IntImm>(a))
    return ia->value == as<IntImm>(b)->value;
  if (auto* fa = as<FloatImm>(a))
    return fa->value == as<FloatImm>(b)->value;
  if (isa<PrimVar>(a))
    return false; // identity only
  if (auto* ba = as<BinaryExpr>(a)) {
    auto* bb = as<BinaryExpr>(b);
    return primEqual(ba->a, bb->a) && primEqual(ba->b, bb->b);
  }
  if (auto* na = as<NotExpr>(a))
    return primEqual(na->a, as<NotExpr>(b)->a);
  if (auto* sa = as<Select>(a)) {
    auto* sb = as<Select>(b);
    return primEqual(sa->cond, sb->cond) && primEqual(sa->t, sb->t) && primEqual(sa->f, sb->f);
  }
  if (auto* ca = as<CastExpr>(a))
    return primEqual(ca->value, as<CastExpr>(b)->value);
  if (auto* pa = as<PrimCall>(a)) {
    auto* pb = as<PrimCall>(b);
    if (pa->op != pb->op || pa->args.size() != pb->args.size())
      return false;
    for (size_t i = 0; i < pa->args.size(); ++i)
      if (!primEqual(pa->args[i], pb->args[i]))
        return false;
    return true;
  }
  return false; // loads, lets: never equal unless the same node
}

PrimExpr toIndex(const PrimExpr& e) {
  if (!e || e->dtype == DataType::Int64())
    return e;
  if (auto c = asConstInt(e); c && e->dtype.isIntegral())
    return intImm(*c);
  return cast(DataType::Int64(), e);
}

namespace {

// Shape arithmetic on constants from a model file: a product or sum outside
// int64 is refused, not wrapped (signed overflow is undefined behaviour;
// found by onnx_import_fuzz).
int64_t mulChecked(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error("shape arithmetic: " + std::to_string(a) + " * " + std::to_string(b) +
                " overflows int64");
  return r;
}
int64_t addChecked(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw Error("shape arithmetic: " + std::to_string(a) + " + " + std::to_string(b) +
                " overflows int64");
  return r;
}

/// constant + sum(coeff * atom)
struct Linear {
  int64_t constant = 0;
  std::vector<std::pair<PrimExpr, int64_t>> terms;

  void addTerm(const PrimExpr& atom, int64_t coeff) {
    if (coeff == 0)
      return;
    for (auto& [a, c] : terms)
      if (primEqual(a, atom)) {
        c = addChecked(c, coeff);
        return;
      }
    terms.emplace_back(atom, coeff);
  }
  void add(const Linear& o, int64_t scale) {
    constant = addChecked(constant, mulChecked(o.constant, scale));
    for (auto& [a, c] : o.terms)
      addTerm(a, mulChecked(c, scale));
  }
  void prune() {
    std::erase_if(terms, [](auto& t) { return t.second == 0; });
  }
  bool isConst() const { return terms.empty(); }
};

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == -1 && a == INT64_MIN)
    throw Error("shape arithmetic: " + std::to_string(a) + " // -1 overflows int64");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

PrimExpr rebuild(const Linear& l);

Linear linearize(const PrimExpr& e);

/// Simplifies an expression that is not a sum: folds constants inside it.
PrimExpr simplifyAtom(const PrimExpr& e) {
  auto* b = as<BinaryExpr>(e);
  if (!b) {
    if (auto* c = as<CastExpr>(e)) {
      PrimExpr v = simplify(c->value);
      if (auto k = asConstInt(v); k && c->dtype.isIntegral())
        return intImm(*k, c->dtype);
      return sameNode(v, c->value) ? e : cast(c->dtype, v);
    }
    return e;
  }
  PrimExpr x = simplify(b->a), y = simplify(b->b);
  auto cx = asConstInt(x), cy = asConstInt(y);
  switch (b->op()) {
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: {
    if (cy && *cy != 0) {
      if (cx) {
        int64_t v = b->op() == NodeKind::FloorDiv ? floorDiv(*cx, *cy) : floorMod(*cx, *cy);
        return intImm(v, e->dtype);
      }
      if (*cy == 1)
        return b->op() == NodeKind::FloorDiv ? x : intImm(0, e->dtype);
      // Exact when every coefficient and the constant are multiples of cy.
      Linear l = linearize(x);
      bool exact = l.constant % *cy == 0;
      for (auto& t : l.terms)
        exact = exact && t.second % *cy == 0;
      if (exact) {
        if (b->op() == NodeKind::FloorMod)
          return intImm(0, e->dtype);
        l.constant /= *cy;
        for (auto& t : l.terms)
          t.second /= *cy;
        return rebuild(l);
      }
    }
    break;
  }
  case NodeKind::Min:
  case NodeKind::Max:
    if (cx && cy)
      return intImm(b->op() == NodeKind::Min ? std::min(*cx, *cy) : std::max(*cx, *cy), e->dtype);
    if (primEqual(x, y))
      return x;
    break;
  default:
    break;
  }
  if (sameNode(x, b->a) && sameNode(y, b->b))
    return e;
  return binary(b->op(), x, y);
}

Linear linearize(const PrimExpr& e) {
  Linear l;
  if (auto c = asConstInt(e)) {
    l.constant = *c;
    return l;
  }
  if (auto* b = as<BinaryExpr>(e)) {
    switch (b->op()) {
    case NodeKind::Add:
      l = linearize(b->a);
      l.add(linearize(b->b), 1);
      l.prune();
      return l;
    case NodeKind::Sub:
      l = linearize(b->a);
      l.add(linearize(b->b), -1);
      l.prune();
      return l;
    case NodeKind::Mul: {
      Linear x = linearize(b->a), y = linearize(b->b);
      if (y.isConst()) {
        l.add(x, y.constant);
        l.prune();
        return l;
      }
      if (x.isConst()) {
        l.add(y, x.constant);
        l.prune();
        return l;
      }
      // Product of two symbolic terms: an atom of the simplified factors,
      // with a pure coefficient pulled out when each side is one term.
      PrimExpr fa = rebuild(x), fb = rebuild(y);
      if (x.constant == 0 && y.constant == 0 && x.terms.size() == 1 && y.terms.size() == 1) {
        l.addTerm(binary(NodeKind::Mul, x.terms[0].first, y.terms[0].first),
                  mulChecked(x.terms[0].second, y.terms[0].second));
        return l;
      }
      l.addTerm(binary(NodeKind::Mul, fa, fb), 1);
      return l;
    }
    default:
      break;
    }
  }
  PrimExpr atom = simplifyAtom(e);
  if (auto c = asConstInt(atom)) {
    l.constant = *c;
    return l;
  }
  if (isa<BinaryExpr>(atom) &&
      (as<BinaryExpr>(atom)->op() == NodeKind::Add || as<BinaryExpr>(atom)->op() == NodeKind::Sub ||
       as<BinaryExpr>(atom)->op() == NodeKind::Mul))
    return linearize(atom); // an exact division produced a sum
  l.addTerm(atom, 1);
  return l;
}

PrimExpr rebuild(const Linear& l) {
  PrimExpr out;
  DataType t = DataType::Int64();
  for (auto& [atom, coeff] : l.terms) {
    t = atom->dtype;
    if (!out) {
      out = coeff == 1 ? atom : atom * makeConst(atom->dtype, double(coeff));
      continue;
    }
    int64_t mag = coeff < 0 ? -coeff : coeff;
    PrimExpr term = mag == 1 ? atom : atom * makeConst(atom->dtype, double(mag));
    out = coeff < 0 ? out - term : out + term;
  }
  if (!out)
    return intImm(l.constant, t);
  if (l.constant > 0)
    out = out + intImm(l.constant, out->dtype);
  if (l.constant < 0)
    out = out - intImm(-l.constant, out->dtype);
  return out;
}

/// coefficient * product(factors)
struct Monomial {
  int64_t coeff = 1;
  std::vector<PrimExpr> factors;
};

std::optional<Monomial> monomial(const PrimExpr& e) {
  Linear l = linearize(e);
  Monomial m;
  if (l.isConst()) {
    m.coeff = l.constant;
    return m;
  }
  if (l.constant != 0 || l.terms.size() != 1)
    return std::nullopt;
  m.coeff = l.terms[0].second;
  // Split products of atoms into their factors.
  std::vector<PrimExpr> stack{l.terms[0].first};
  while (!stack.empty()) {
    PrimExpr f = stack.back();
    stack.pop_back();
    auto* b = as<BinaryExpr>(f);
    if (b && b->op() == NodeKind::Mul) {
      stack.push_back(b->a);
      stack.push_back(b->b);
    } else {
      m.factors.push_back(f);
    }
  }
  return m;
}

} // namespace

PrimExpr simplify(const PrimExpr& e) {
  if (!e || !e->dtype.isIntegral())
    return e;
  if (isa<IntImm>(e) || isa<PrimVar>(e))
    return e;
  return unity::arith::simplify(e);
}

bool provablyEqual(const PrimExpr& a, const PrimExpr& b) {
  if (primEqual(a, b))
    return true;
  if (!a || !b || !a->dtype.isIntegral() || !b->dtype.isIntegral())
    return false;
  if (unity::arith::provablyEqual(toIndex(a), toIndex(b)))
    return true;
  // The local linear form also merges structurally equal non-linear atoms.
  Linear l = linearize(toIndex(a));
  l.add(linearize(toIndex(b)), -1);
  l.prune();
  return l.isConst() && l.constant == 0;
}

bool provablyDifferent(const PrimExpr& a, const PrimExpr& b) {
  if (!a || !b || !a->dtype.isIntegral() || !b->dtype.isIntegral())
    return false;
  Linear l = linearize(toIndex(a));
  l.add(linearize(toIndex(b)), -1);
  l.prune();
  return l.isConst() && l.constant != 0;
}

PrimExpr product(const std::vector<PrimExpr>& dims) {
  PrimExpr p = intImm(1);
  for (auto& d : dims)
    p = p * toIndex(d);
  return simplify(p);
}

std::optional<PrimExpr> divideExact(const PrimExpr& a, const PrimExpr& b) {
  auto ma = monomial(toIndex(a)), mb = monomial(toIndex(b));
  if (!ma || !mb || mb->coeff == 0 || ma->coeff % mb->coeff != 0)
    return std::nullopt;
  std::vector<PrimExpr> rest = ma->factors;
  for (auto& f : mb->factors) {
    auto it = std::find_if(rest.begin(), rest.end(), [&](auto& r) { return primEqual(r, f); });
    if (it == rest.end())
      return std::nullopt;
    rest.erase(it);
  }
  PrimExpr out = intImm(ma->coeff / mb->coeff);
  for (auto& f : rest)
    out = out * f;
  return simplify(out);
}

PrimExpr ceildiv(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr x = toIndex(a), y = toIndex(b);
  return simplify(floordiv(x + (y - intImm(1)), y));
}

} // namespace unity::op::arith
