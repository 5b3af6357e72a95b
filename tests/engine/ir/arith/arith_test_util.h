#pragma once
// Helpers for the arith tests: a tiny printer (so expectations can be checked
// structurally without the text printer) and a reference evaluator.
#include <map>
#include <sstream>
#include <string>

#include "engine/ir/prim_expr.h"
#include "engine/support/error.h"

namespace arith_test {

using namespace unity;
using namespace unity::ir;

/// Fully parenthesized form: "((i*8) + j)", "floordiv(x, 8)", "int32(3)"
/// marks non-int64 integer constants.
inline std::string print(const PrimExpr& e) {
  if (!e)
    return "<null>";
  std::ostringstream os;
  if (auto* i = as<IntImm>(e)) {
    if (e->dtype.isBool())
      return i->value ? "true" : "false";
    if (e->dtype == DataType::Int64())
      return std::to_string(i->value);
    return e->dtype.str() + "(" + std::to_string(i->value) + ")";
  }
  if (auto* f = as<FloatImm>(e)) {
    os << e->dtype.str() << "(" << f->value << ")";
    return os.str();
  }
  if (auto* v = as<PrimVar>(e))
    return v->name;
  if (auto* b = as<BinaryExpr>(e)) {
    switch (b->op()) {
    case NodeKind::FloorDiv:
      return "floordiv(" + print(b->a) + ", " + print(b->b) + ")";
    case NodeKind::FloorMod:
      return "floormod(" + print(b->a) + ", " + print(b->b) + ")";
    case NodeKind::Min:
      return "min(" + print(b->a) + ", " + print(b->b) + ")";
    case NodeKind::Max:
      return "max(" + print(b->a) + ", " + print(b->b) + ")";
    default:
      return "(" + print(b->a) + " " + binaryOpSymbol(b->op()) + " " + print(b->b) + ")";
    }
  }
  if (auto* n = as<NotExpr>(e))
    return "!" + print(n->a);
  if (auto* s = as<Select>(e))
    return "select(" + print(s->cond) + ", " + print(s->t) + ", " + print(s->f) + ")";
  if (auto* c = as<CastExpr>(e))
    return e->dtype.str() + "(" + print(c->value) + ")";
  return std::string("<") + kindName(e->kind()) + ">";
}

/// Evaluates an integer/bool expression over variable values (exact int64,
/// floor semantics for floordiv/floormod, truncation for '/').
inline int64_t eval(const PrimExpr& e, const std::map<const PrimVar*, int64_t>& env) {
  if (auto* i = as<IntImm>(e))
    return i->value;
  if (auto* v = as<PrimVar>(e)) {
    auto it = env.find(v);
    if (it == env.end())
      throw Error("eval: unbound variable " + v->name);
    return it->second;
  }
  if (auto* n = as<NotExpr>(e))
    return !eval(n->a, env);
  if (auto* s = as<Select>(e))
    return eval(s->cond, env) ? eval(s->t, env) : eval(s->f, env);
  auto* b = as<BinaryExpr>(e);
  if (!b)
    throw Error(std::string("eval: unsupported ") + kindName(e->kind()));
  int64_t x = eval(b->a, env), y = eval(b->b, env);
  auto floordivI = [](int64_t p, int64_t q) {
    int64_t r = p / q;
    return (p % q != 0 && ((p < 0) != (q < 0))) ? r - 1 : r;
  };
  switch (b->op()) {
  case NodeKind::Add:
    return x + y;
  case NodeKind::Sub:
    return x - y;
  case NodeKind::Mul:
    return x * y;
  case NodeKind::Div:
    if (y == 0)
      throw Error("eval: division by zero");
    return x / y;
  case NodeKind::FloorDiv:
    if (y == 0)
      throw Error("eval: division by zero");
    return floordivI(x, y);
  case NodeKind::FloorMod:
    if (y == 0)
      throw Error("eval: division by zero");
    return x - floordivI(x, y) * y;
  case NodeKind::Min:
    return std::min(x, y);
  case NodeKind::Max:
    return std::max(x, y);
  case NodeKind::EQ:
    return x == y;
  case NodeKind::NE:
    return x != y;
  case NodeKind::LT:
    return x < y;
  case NodeKind::LE:
    return x <= y;
  case NodeKind::GT:
    return x > y;
  case NodeKind::GE:
    return x >= y;
  case NodeKind::And:
    return x && y;
  case NodeKind::Or:
    return x || y;
  default:
    throw Error("eval: unsupported binary");
  }
}

} // namespace arith_test
