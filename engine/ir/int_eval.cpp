#include "engine/ir/int_eval.h"

#include <algorithm>

#include "engine/support/error.h"

namespace unity::ir {

int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floorModInt(int64_t a, int64_t b) { return a - floorDivInt(a, b) * b; }

int64_t evalIntExpr(const PrimExpr& e, const IntLookup& lookup) {
  if (auto* i = as<IntImm>(e))
    return i->value;
  if (auto* v = as<PrimVar>(e)) {
    if (auto value = lookup(v))
      return *value;
    throw Error("shape variable '" + v->name + "' is not bound");
  }
  if (auto* b = as<BinaryExpr>(e)) {
    int64_t x = evalIntExpr(b->a, lookup), y = evalIntExpr(b->b, lookup);
    if (isComparison(b->op()))
      return compareValues(b->op(), x, y);
    switch (b->op()) {
    case NodeKind::Add:
      return x + y;
    case NodeKind::Sub:
      return x - y;
    case NodeKind::Mul:
      return x * y;
    case NodeKind::Div:
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
      if (y == 0)
        throw Error("division by zero in a shape expression");
      if (b->op() == NodeKind::Div)
        return x / y;
      return b->op() == NodeKind::FloorDiv ? floorDivInt(x, y) : floorModInt(x, y);
    case NodeKind::Min:
      return std::min(x, y);
    case NodeKind::Max:
      return std::max(x, y);
    case NodeKind::And:
      return x && y;
    case NodeKind::Or:
      return x || y;
    default:
      break;
    }
  }
  if (auto* s = as<Select>(e))
    return evalIntExpr(s->cond, lookup) ? evalIntExpr(s->t, lookup) : evalIntExpr(s->f, lookup);
  if (auto* c = as<CastExpr>(e))
    return evalIntExpr(c->value, lookup);
  if (auto* n = as<NotExpr>(e))
    return !evalIntExpr(n->a, lookup);
  throw Error(std::string("cannot evaluate a scalar expression of kind ") + kindName(e->kind()));
}

} // namespace unity::ir
