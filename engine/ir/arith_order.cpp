// Structural equality and a deterministic order of PrimExprs.
//
// The simplifier merges equal atoms of a sum with structEqual (variables by
// identity) and then sorts them with atomLess, so its output depends only on
// the input's structure and variable names, never on where nodes live in
// memory. Two distinct variables with the same name compare equal in the
// order; the stable sort then keeps their input order.
#include <bit>

#include "engine/ir/arith_internal.h"

namespace unity::arith::detail {

using namespace ir;

namespace {

int cmp3(auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); }

int compareDtype(DataType a, DataType b) {
  if (int c = cmp3(int(a.code), int(b.code)))
    return c;
  if (int c = cmp3(a.bits, b.bits))
    return c;
  return cmp3(a.lanes, b.lanes);
}

int compareList(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (int c = cmp3(a.size(), b.size()))
    return c;
  for (size_t i = 0; i < a.size(); ++i)
    if (int c = compareExpr(a[i], b[i]))
      return c;
  return 0;
}

bool equalList(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structEqual(a[i], b[i]))
      return false;
  return true;
}

/// The name of the first variable in pre-order, or "" when there is none.
const std::string* firstVarName(const PrimExpr& e) {
  if (!e)
    return nullptr;
  if (auto* v = as<PrimVar>(e))
    return &v->name;
  if (auto* b = as<BinaryExpr>(e)) {
    if (auto* n = firstVarName(b->a))
      return n;
    return firstVarName(b->b);
  }
  if (auto* n = as<NotExpr>(e))
    return firstVarName(n->a);
  if (auto* s = as<Select>(e)) {
    for (auto* p : {&s->cond, &s->t, &s->f})
      if (auto* n = firstVarName(*p))
        return n;
    return nullptr;
  }
  if (auto* c = as<CastExpr>(e))
    return firstVarName(c->value);
  if (auto* l = as<BufferLoad>(e)) {
    for (auto& i : l->indices)
      if (auto* n = firstVarName(i))
        return n;
    return nullptr;
  }
  if (auto* c = as<PrimCall>(e)) {
    for (auto& a : c->args)
      if (auto* n = firstVarName(a))
        return n;
    return nullptr;
  }
  if (auto* l = as<PrimLet>(e))
    return &l->var->name;
  return nullptr;
}

} // namespace

bool structEqual(const PrimExpr& a, const PrimExpr& b) {
  if (sameNode(a, b))
    return true;
  if (!a || !b || a->kind() != b->kind() || !(a->dtype == b->dtype))
    return false;
  switch (a->kind()) {
  case NodeKind::IntImm:
    return as<IntImm>(a)->value == as<IntImm>(b)->value;
  case NodeKind::FloatImm:
    return std::bit_cast<uint64_t>(as<FloatImm>(a)->value) ==
           std::bit_cast<uint64_t>(as<FloatImm>(b)->value);
  case NodeKind::PrimVar:
    return false; // identity, checked above
  case NodeKind::Not:
    return structEqual(as<NotExpr>(a)->a, as<NotExpr>(b)->a);
  case NodeKind::Select: {
    auto *x = as<Select>(a), *y = as<Select>(b);
    return structEqual(x->cond, y->cond) && structEqual(x->t, y->t) && structEqual(x->f, y->f);
  }
  case NodeKind::Cast:
    return structEqual(as<CastExpr>(a)->value, as<CastExpr>(b)->value);
  case NodeKind::BufferLoad: {
    auto *x = as<BufferLoad>(a), *y = as<BufferLoad>(b);
    return sameNode(x->buffer, y->buffer) && equalList(x->indices, y->indices);
  }
  case NodeKind::PrimCall: {
    auto *x = as<PrimCall>(a), *y = as<PrimCall>(b);
    return x->op == y->op && equalList(x->args, y->args);
  }
  case NodeKind::PrimLet: {
    auto *x = as<PrimLet>(a), *y = as<PrimLet>(b);
    return sameNode(x->var, y->var) && structEqual(x->value, y->value) &&
           structEqual(x->body, y->body);
  }
  default: {
    auto *x = as<BinaryExpr>(a), *y = as<BinaryExpr>(b);
    return x && y && structEqual(x->a, y->a) && structEqual(x->b, y->b);
  }
  }
}

int compareExpr(const PrimExpr& a, const PrimExpr& b) {
  if (sameNode(a, b))
    return 0;
  if (!a || !b)
    return a ? 1 : -1;
  if (int c = cmp3(int(a->kind()), int(b->kind())))
    return c;
  if (int c = compareDtype(a->dtype, b->dtype))
    return c;
  switch (a->kind()) {
  case NodeKind::IntImm:
    return cmp3(as<IntImm>(a)->value, as<IntImm>(b)->value);
  case NodeKind::FloatImm:
    return cmp3(std::bit_cast<int64_t>(as<FloatImm>(a)->value),
                std::bit_cast<int64_t>(as<FloatImm>(b)->value));
  case NodeKind::PrimVar:
    return as<PrimVar>(a)->name.compare(as<PrimVar>(b)->name);
  case NodeKind::Not:
    return compareExpr(as<NotExpr>(a)->a, as<NotExpr>(b)->a);
  case NodeKind::Select: {
    auto *x = as<Select>(a), *y = as<Select>(b);
    if (int c = compareExpr(x->cond, y->cond))
      return c;
    if (int c = compareExpr(x->t, y->t))
      return c;
    return compareExpr(x->f, y->f);
  }
  case NodeKind::Cast:
    return compareExpr(as<CastExpr>(a)->value, as<CastExpr>(b)->value);
  case NodeKind::BufferLoad: {
    auto *x = as<BufferLoad>(a), *y = as<BufferLoad>(b);
    if (int c = x->buffer->name.compare(y->buffer->name))
      return c;
    return compareList(x->indices, y->indices);
  }
  case NodeKind::PrimCall: {
    auto *x = as<PrimCall>(a), *y = as<PrimCall>(b);
    if (int c = x->op.compare(y->op))
      return c;
    return compareList(x->args, y->args);
  }
  case NodeKind::PrimLet: {
    auto *x = as<PrimLet>(a), *y = as<PrimLet>(b);
    if (int c = x->var->name.compare(y->var->name))
      return c;
    if (int c = compareExpr(x->value, y->value))
      return c;
    return compareExpr(x->body, y->body);
  }
  default: {
    auto *x = as<BinaryExpr>(a), *y = as<BinaryExpr>(b);
    if (int c = compareExpr(x->a, y->a))
      return c;
    return compareExpr(x->b, y->b);
  }
  }
}

bool atomLess(const PrimExpr& a, const PrimExpr& b) {
  const std::string* na = firstVarName(a);
  const std::string* nb = firstVarName(b);
  // Atoms without variables (e.g. loads at constant indices) go last.
  if (na && !nb)
    return true;
  if (!na && nb)
    return false;
  if (na && nb)
    if (int c = na->compare(*nb))
      return c < 0;
  return compareExpr(a, b) < 0;
}

} // namespace unity::arith::detail
