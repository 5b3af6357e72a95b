// The canonical linear form of integer expressions.
//
// An integer expression built from +, - and * by constants is a sum of
// monomials `coef * atom` plus a constant, where an atom is a variable or
// anything non-linear (floordiv, min, a product of two non-constants, a
// load...). The simplifier opens Add/Sub/Mul-by-constant into this form,
// merges equal atoms (structEqual), folds `floordiv(x,c)*c*k + floormod(x,c)*k`
// back into `x*k`, drops zero terms, sorts the atoms deterministically and
// rebuilds the expression. So `n*2` and `2*n` both print `n*2`, and
// `x*4 + y - x*4` is `y`. All coefficient arithmetic is overflow-checked; an
// overflow makes the caller keep the expression as it was.
#include <algorithm>

#include "engine/ir/arith_internal.h"

namespace unity::arith::detail {

using namespace ir;

namespace {

bool addTo(LinearForm& acc, const PrimExpr& e, int64_t k) {
  if (k == 0)
    return true;
  if (auto c = asConstInt(e)) {
    int64_t v;
    return !__builtin_mul_overflow(*c, k, &v) &&
           !__builtin_add_overflow(acc.constant, v, &acc.constant);
  }
  if (auto* b = as<BinaryExpr>(e)) {
    switch (b->op()) {
    case NodeKind::Add:
      return addTo(acc, b->a, k) && addTo(acc, b->b, k);
    case NodeKind::Sub: {
      int64_t nk;
      return !__builtin_sub_overflow(int64_t(0), k, &nk) && addTo(acc, b->a, k) &&
             addTo(acc, b->b, nk);
    }
    case NodeKind::Mul: {
      int64_t nk;
      if (auto c = asConstInt(b->b))
        return !__builtin_mul_overflow(*c, k, &nk) && addTo(acc, b->a, nk);
      if (auto c = asConstInt(b->a))
        return !__builtin_mul_overflow(*c, k, &nk) && addTo(acc, b->b, nk);
      break;
    }
    default:
      break;
    }
  }
  acc.terms.push_back({e, k});
  return true;
}

bool mergeEqualAtoms(LinearForm& f) {
  std::vector<Term> merged;
  for (auto& t : f.terms) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const Term& m) { return structEqual(m.atom, t.atom); });
    if (it == merged.end()) {
      merged.push_back(t);
    } else if (__builtin_add_overflow(it->coef, t.coef, &it->coef)) {
      return false;
    }
  }
  std::erase_if(merged, [](const Term& t) { return t.coef == 0; });
  f.terms = std::move(merged);
  return true;
}

/// Finds floormod(x, c)*k + floordiv(x, c)*(k*c) and replaces the pair by
/// x*k. Returns true when a pair was folded.
bool foldDivModPair(LinearForm& f, bool& ok) {
  for (size_t i = 0; i < f.terms.size(); ++i) {
    auto* mod = as<BinaryExpr>(f.terms[i].atom);
    if (!mod || mod->op() != NodeKind::FloorMod)
      continue;
    auto c = asConstInt(mod->b);
    if (!c || *c <= 0)
      continue;
    int64_t k = f.terms[i].coef, want;
    if (__builtin_mul_overflow(k, *c, &want))
      continue;
    for (size_t j = 0; j < f.terms.size(); ++j) {
      auto* div = as<BinaryExpr>(f.terms[j].atom);
      if (!div || div->op() != NodeKind::FloorDiv || f.terms[j].coef != want ||
          !isConstInt(div->b, *c) || !structEqual(div->a, mod->a))
        continue;
      LinearForm x;
      if (!toLinear(mod->a, x))
        continue;
      f.terms.erase(f.terms.begin() + std::max(i, j));
      f.terms.erase(f.terms.begin() + std::min(i, j));
      ok = addScaled(f, x, k);
      return true;
    }
  }
  return false;
}

PrimExpr scaled(const PrimExpr& atom, int64_t k, DataType t) {
  return k == 1 ? atom : atom * intImm(k, t);
}

} // namespace

bool toLinear(const PrimExpr& e, LinearForm& out) {
  out = LinearForm{};
  return addTo(out, e, 1);
}

bool addScaled(LinearForm& acc, const LinearForm& x, int64_t k) {
  int64_t v;
  if (__builtin_mul_overflow(x.constant, k, &v) ||
      __builtin_add_overflow(acc.constant, v, &acc.constant))
    return false;
  for (auto& t : x.terms) {
    if (__builtin_mul_overflow(t.coef, k, &v))
      return false;
    if (v != 0)
      acc.terms.push_back({t.atom, v});
  }
  return true;
}

bool normalize(LinearForm& f) {
  if (!mergeEqualAtoms(f))
    return false;
  bool ok = true;
  for (int guard = 0; guard < 64 && foldDivModPair(f, ok); ++guard) {
    if (!ok || !mergeEqualAtoms(f))
      return false;
  }
  if (!ok)
    return false;
  std::stable_sort(f.terms.begin(), f.terms.end(),
                   [](const Term& a, const Term& b) { return atomLess(a.atom, b.atom); });
  return true;
}

PrimExpr fromLinear(const LinearForm& f, DataType t) {
  if (!fitsType(f.constant, t))
    return nullptr;
  for (auto& term : f.terms)
    if (!fitsType(term.coef, t) || term.coef == kNegInf ||
        (term.coef < 0 && !fitsType(-term.coef, t)))
      return nullptr;
  if (f.terms.empty())
    return intImm(f.constant, t);

  // Terms in sorted order, except that a positive term leads when there is
  // one (`j - i`, not `i*-1 + j`).
  std::vector<const Term*> order;
  for (auto& term : f.terms)
    order.push_back(&term);
  auto firstPos =
      std::find_if(order.begin(), order.end(), [](const Term* x) { return x->coef > 0; });
  if (firstPos != order.end())
    std::rotate(order.begin(), firstPos, firstPos + 1);

  PrimExpr acc;
  if (order.front()->coef < 0 && f.constant > 0)
    acc = intImm(f.constant, t);
  for (const Term* term : order) {
    if (!acc)
      acc = scaled(term->atom, term->coef, t);
    else if (term->coef > 0)
      acc = acc + scaled(term->atom, term->coef, t);
    else
      acc = acc - scaled(term->atom, -term->coef, t);
  }
  if (order.front()->coef < 0 && f.constant > 0)
    return acc;
  if (f.constant > 0)
    return acc + intImm(f.constant, t);
  if (f.constant < 0) {
    if (f.constant == kNegInf || !fitsType(-f.constant, t))
      return acc + intImm(f.constant, t);
    return acc - intImm(-f.constant, t);
  }
  return acc;
}

} // namespace unity::arith::detail
