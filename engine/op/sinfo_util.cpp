#include "engine/op/sinfo_util.h"

#include <fmt/format.h>

#include "engine/ir/tir.h"
#include "engine/op/shape_arith.h"

namespace unity::op {

using namespace unity::ir;

namespace {

bool isInfix(NodeKind k) {
  return k != NodeKind::FloorDiv && k != NodeKind::FloorMod && k != NodeKind::Min &&
         k != NodeKind::Max;
}

int precedence(const PrimExpr& e) {
  auto* b = as<BinaryExpr>(e);
  if (!b || !isInfix(b->op()))
    return 100;
  switch (b->op()) {
  case NodeKind::Mul:
  case NodeKind::Div:
    return 5;
  case NodeKind::Add:
  case NodeKind::Sub:
    return 4;
  case NodeKind::And:
    return 2;
  case NodeKind::Or:
    return 1;
  default:
    return 3; // comparisons
  }
}

std::string joinDims(const std::vector<PrimExpr>& dims) {
  std::vector<std::string> parts;
  for (auto& d : dims)
    parts.push_back(primExprStr(d));
  if (parts.size() == 1)
    return "(" + parts[0] + ",)";
  return fmt::format("({})", fmt::join(parts, ", "));
}

std::string dtypeStr(DataType t) { return t.isVoid() ? "?" : t.str(); }

} // namespace

std::string primExprStr(const PrimExpr& e) {
  if (!e)
    return "?";
  if (auto* i = as<IntImm>(e))
    return e->dtype.isBool() ? (i->value ? "True" : "False") : std::to_string(i->value);
  if (auto* f = as<FloatImm>(e))
    return fmt::format("{}", f->value);
  if (auto* v = as<PrimVar>(e))
    return v->name;
  if (auto* b = as<BinaryExpr>(e)) {
    if (!isInfix(b->op()))
      return fmt::format("{}({}, {})",
                         b->op() == NodeKind::FloorDiv   ? "floordiv"
                         : b->op() == NodeKind::FloorMod ? "floormod"
                         : b->op() == NodeKind::Min      ? "min"
                                                         : "max",
                         primExprStr(b->a), primExprStr(b->b));
    int p = precedence(e);
    std::string l = primExprStr(b->a), r = primExprStr(b->b);
    if (precedence(b->a) < p)
      l = "(" + l + ")";
    // Right operand: parenthesize at equal precedence too (a - (b - c)).
    if (precedence(b->b) <= p && precedence(b->b) != 100)
      r = "(" + r + ")";
    return fmt::format("{} {} {}", l, binaryOpSymbol(b->op()), r);
  }
  if (auto* n = as<NotExpr>(e))
    return "not " + primExprStr(n->a);
  if (auto* s = as<Select>(e))
    return fmt::format("select({}, {}, {})", primExprStr(s->cond), primExprStr(s->t),
                       primExprStr(s->f));
  if (auto* c = as<CastExpr>(e))
    return fmt::format("{}({})", c->dtype.str(), primExprStr(c->value));
  if (auto* c = as<PrimCall>(e)) {
    std::vector<std::string> args;
    for (auto& a : c->args)
      args.push_back(primExprStr(a));
    return fmt::format("{}({})", c->op, fmt::join(args, ", "));
  }
  if (auto* l = as<BufferLoad>(e)) {
    std::vector<std::string> idx;
    for (auto& i : l->indices)
      idx.push_back(primExprStr(i));
    return fmt::format("{}[{}]", l->buffer->name, fmt::join(idx, ", "));
  }
  return kindName(e->kind());
}

std::string sinfoStr(const StructInfo& s) {
  if (!s)
    return "?";
  if (auto* t = as<TensorSInfo>(s)) {
    if (t->shape)
      return fmt::format("Tensor({}, {})", joinDims(*t->shape), dtypeStr(t->dtype));
    if (t->ndim >= 0)
      return fmt::format("Tensor(ndim={}, {})", t->ndim, dtypeStr(t->dtype));
    return fmt::format("Tensor({})", dtypeStr(t->dtype));
  }
  if (auto* tu = as<TupleSInfo>(s)) {
    std::vector<std::string> parts;
    for (auto& f : tu->fields)
      parts.push_back(sinfoStr(f));
    return fmt::format("Tuple({})", fmt::join(parts, ", "));
  }
  if (auto* sh = as<ShapeSInfo>(s)) {
    if (sh->values)
      return fmt::format("Shape({})", joinDims(*sh->values));
    return sh->ndim >= 0 ? fmt::format("Shape(ndim={})", sh->ndim) : "Shape";
  }
  if (auto* p = as<PrimSInfo>(s)) {
    if (p->value)
      return fmt::format("Prim({}, {})", primExprStr(p->value), dtypeStr(p->dtype));
    return fmt::format("Prim({})", dtypeStr(p->dtype));
  }
  if (auto* f = as<FuncSInfo>(s)) {
    std::vector<std::string> ps;
    if (f->params)
      for (auto& p : *f->params)
        ps.push_back(sinfoStr(p));
    return fmt::format("Func([{}], {})", f->params ? fmt::format("{}", fmt::join(ps, ", ")) : "...",
                       sinfoStr(f->ret));
  }
  return "Object";
}

std::string operandStr(const Expr& e) {
  if (auto* g = as<GlobalVar>(e))
    return "@" + g->name;
  if (auto* x = as<ExternFunc>(e))
    return "extern \"" + x->symbol + "\"";
  if (auto* o = as<OpRef>(e))
    return "R." + o->name;
  if (!e)
    return "?";
  return sinfoStr(e->sinfo);
}

namespace {
bool dimsEqual(const std::optional<std::vector<PrimExpr>>& a,
               const std::optional<std::vector<PrimExpr>>& b) {
  if (a.has_value() != b.has_value())
    return false;
  if (!a)
    return true;
  if (a->size() != b->size())
    return false;
  for (size_t i = 0; i < a->size(); ++i)
    if (!arith::provablyEqual((*a)[i], (*b)[i]))
      return false;
  return true;
}
bool dimsCompatible(const std::optional<std::vector<PrimExpr>>& a,
                    const std::optional<std::vector<PrimExpr>>& b) {
  if (!a || !b)
    return true;
  if (a->size() != b->size())
    return false;
  for (size_t i = 0; i < a->size(); ++i)
    if (arith::provablyDifferent((*a)[i], (*b)[i]))
      return false;
  return true;
}
} // namespace

bool sinfoEqual(const StructInfo& a, const StructInfo& b) {
  if (sameNode(a, b))
    return true;
  if (!a || !b || a->kind() != b->kind())
    return false;
  if (auto* ta = as<TensorSInfo>(a)) {
    auto* tb = as<TensorSInfo>(b);
    return ta->dtype == tb->dtype && ta->ndim == tb->ndim && dimsEqual(ta->shape, tb->shape);
  }
  if (auto* sa = as<ShapeSInfo>(a)) {
    auto* sb = as<ShapeSInfo>(b);
    return sa->ndim == sb->ndim && dimsEqual(sa->values, sb->values);
  }
  if (auto* pa = as<PrimSInfo>(a)) {
    auto* pb = as<PrimSInfo>(b);
    if (!(pa->dtype == pb->dtype) || bool(pa->value) != bool(pb->value))
      return false;
    return !pa->value || arith::primEqual(pa->value, pb->value);
  }
  if (auto* ua = as<TupleSInfo>(a)) {
    auto* ub = as<TupleSInfo>(b);
    if (ua->fields.size() != ub->fields.size())
      return false;
    for (size_t i = 0; i < ua->fields.size(); ++i)
      if (!sinfoEqual(ua->fields[i], ub->fields[i]))
        return false;
    return true;
  }
  if (auto* fa = as<FuncSInfo>(a)) {
    auto* fb = as<FuncSInfo>(b);
    if (fa->params.has_value() != fb->params.has_value() || fa->pure != fb->pure)
      return false;
    if (fa->params) {
      if (fa->params->size() != fb->params->size())
        return false;
      for (size_t i = 0; i < fa->params->size(); ++i)
        if (!sinfoEqual((*fa->params)[i], (*fb->params)[i]))
          return false;
    }
    return sinfoEqual(fa->ret, fb->ret);
  }
  return true; // Object
}

bool sinfoCompatible(const StructInfo& pattern, const StructInfo& value) {
  if (!pattern || !value || isa<ObjectSInfo>(pattern) || isa<ObjectSInfo>(value))
    return true;
  if (pattern->kind() != value->kind())
    return false;
  if (auto* tp = as<TensorSInfo>(pattern)) {
    auto* tv = as<TensorSInfo>(value);
    if (!tp->dtype.isVoid() && !tv->dtype.isVoid() && !(tp->dtype == tv->dtype))
      return false;
    if (tp->ndim >= 0 && tv->ndim >= 0 && tp->ndim != tv->ndim)
      return false;
    return dimsCompatible(tp->shape, tv->shape);
  }
  if (auto* sp = as<ShapeSInfo>(pattern)) {
    auto* sv = as<ShapeSInfo>(value);
    if (sp->ndim >= 0 && sv->ndim >= 0 && sp->ndim != sv->ndim)
      return false;
    return dimsCompatible(sp->values, sv->values);
  }
  if (auto* pp = as<PrimSInfo>(pattern)) {
    auto* pv = as<PrimSInfo>(value);
    if (!pp->dtype.isVoid() && !pv->dtype.isVoid() && !(pp->dtype == pv->dtype))
      return false;
    return !pp->value || !pv->value || !arith::provablyDifferent(pp->value, pv->value);
  }
  if (auto* up = as<TupleSInfo>(pattern)) {
    auto* uv = as<TupleSInfo>(value);
    if (up->fields.size() != uv->fields.size())
      return false;
    for (size_t i = 0; i < up->fields.size(); ++i)
      if (!sinfoCompatible(up->fields[i], uv->fields[i]))
        return false;
    return true;
  }
  return true; // functions: checked at call sites
}

} // namespace unity::op
