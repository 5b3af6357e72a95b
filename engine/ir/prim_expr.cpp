#include "engine/ir/prim_expr.h"

#include "engine/ir/intrinsics.h"
#include "engine/ir/tir.h"
#include "engine/support/error.h"

namespace unity::ir {

static void require(bool ok, const std::string& what) {
  if (!ok)
    throw Error("invalid IR: " + what);
}

IntImm::IntImm(DataType dtype, int64_t value)
    : PrimExprNode(NodeKind::IntImm, dtype), value(value) {
  require(dtype.isIntegral() || dtype.isBool(), "IntImm of non-integer type " + dtype.str());
}

FloatImm::FloatImm(DataType dtype, double value)
    : PrimExprNode(NodeKind::FloatImm, dtype), value(value) {
  require(dtype.isFloat(), "FloatImm of non-float type " + dtype.str());
}

PrimVar::PrimVar(std::string name, DataType dtype)
    : PrimExprNode(NodeKind::PrimVar, dtype), name(std::move(name)) {}

static DataType binaryResultType(NodeKind op, const PrimExpr& a, const PrimExpr& b) {
  require(a && b, std::string("binary '") + binaryOpSymbol(op) + "' with a missing operand");
  require(a->dtype == b->dtype, std::string("operands of '") + binaryOpSymbol(op) +
                                    "' differ in type: " + a->dtype.str() + " vs " +
                                    b->dtype.str());
  if (isComparison(op))
    return DataType::Bool(a->dtype.lanes);
  if (op == NodeKind::And || op == NodeKind::Or) {
    require(a->dtype.isBool(), std::string("logical '") + binaryOpSymbol(op) + "' of non-bool");
    return a->dtype;
  }
  if (op == NodeKind::FloorDiv || op == NodeKind::FloorMod)
    require(a->dtype.isIntegral(), std::string(binaryOpSymbol(op)) + " of non-integer type");
  return a->dtype;
}

BinaryExpr::BinaryExpr(NodeKind op, PrimExpr a, PrimExpr b)
    : PrimExprNode(op, binaryResultType(op, a, b)), a(std::move(a)), b(std::move(b)) {
  require(op >= NodeKind::Add && op <= NodeKind::Or, "BinaryExpr with non-binary kind");
}

const char* binaryOpSymbol(NodeKind op) {
  switch (op) {
  case NodeKind::Add:
    return "+";
  case NodeKind::Sub:
    return "-";
  case NodeKind::Mul:
    return "*";
  case NodeKind::Div:
    return "/";
  case NodeKind::FloorDiv:
    return "//";
  case NodeKind::FloorMod:
    return "%";
  case NodeKind::Min:
    return "min";
  case NodeKind::Max:
    return "max";
  case NodeKind::EQ:
    return "==";
  case NodeKind::NE:
    return "!=";
  case NodeKind::LT:
    return "<";
  case NodeKind::LE:
    return "<=";
  case NodeKind::GT:
    return ">";
  case NodeKind::GE:
    return ">=";
  case NodeKind::And:
    return "and";
  case NodeKind::Or:
    return "or";
  default:
    return "?";
  }
}

bool isComparison(NodeKind op) { return op >= NodeKind::EQ && op <= NodeKind::GE; }

NodeKind negateComparison(NodeKind op) {
  switch (op) {
  case NodeKind::EQ:
    return NodeKind::NE;
  case NodeKind::NE:
    return NodeKind::EQ;
  case NodeKind::LT:
    return NodeKind::GE;
  case NodeKind::LE:
    return NodeKind::GT;
  case NodeKind::GT:
    return NodeKind::LE;
  default:
    return NodeKind::LT;
  }
}

NotExpr::NotExpr(PrimExpr a)
    : PrimExprNode(NodeKind::Not, a ? a->dtype : DataType()), a(std::move(a)) {
  require(this->a && this->a->dtype.isBool(), "'not' of non-bool");
}

Select::Select(PrimExpr cond, PrimExpr t, PrimExpr f)
    : PrimExprNode(NodeKind::Select, t ? t->dtype : DataType()), cond(std::move(cond)),
      t(std::move(t)), f(std::move(f)) {
  require(this->cond && this->t && this->f, "select with a missing operand");
  require(this->cond->dtype.isBool(), "select condition is not bool");
  require(this->t->dtype == this->f->dtype,
          "select branches differ in type: " + this->t->dtype.str() + " vs " +
              this->f->dtype.str());
}

CastExpr::CastExpr(DataType dtype, PrimExpr value)
    : PrimExprNode(NodeKind::Cast, dtype), value(std::move(value)) {
  require(this->value != nullptr, "cast of nothing");
}

BufferLoad::BufferLoad(Ref<Buffer> buffer, std::vector<PrimExpr> indices)
    : PrimExprNode(NodeKind::BufferLoad, buffer ? buffer->dtype : DataType()),
      buffer(std::move(buffer)), indices(std::move(indices)) {
  require(this->buffer != nullptr, "load from a missing buffer");
  // One index for any rank is a flat row-major access (FlattenBuffers); the
  // well-formedness checker allows it only in functions marked buffers_flat.
  require(
      static_cast<int>(this->indices.size()) == this->buffer->ndim() || this->indices.size() == 1,
      "load from buffer '" + this->buffer->name + "' with " + std::to_string(this->indices.size()) +
          " indices for " + std::to_string(this->buffer->ndim()) + " dimensions");
}

PrimCall::PrimCall(DataType dtype, std::string op, std::vector<PrimExpr> args)
    : PrimExprNode(NodeKind::PrimCall, dtype), op(std::move(op)), args(std::move(args)) {
  const IntrinsicInfo* info = findIntrinsic(this->op);
  require(info != nullptr, "unknown intrinsic '" + this->op + "'");
  require(static_cast<int>(this->args.size()) == info->arity,
          "intrinsic '" + this->op + "' takes " + std::to_string(info->arity) + " arguments");
  if (this->op == kPrefetchIntrinsic) {
    require(this->args[0] && this->args[0]->kind() == NodeKind::BufferLoad,
            "intrinsic 'prefetch' takes one buffer element B[...]");
  } else if (this->op == kReinterpretIntrinsic) {
    require(this->args[0] && this->args[0]->dtype.bits == dtype.bits &&
                this->args[0]->dtype.lanes == dtype.lanes,
            "intrinsic 'reinterpret' keeps the width: " +
                (this->args[0] ? this->args[0]->dtype.str() : std::string("?")) + " is not " +
                dtype.str());
  } else if (!info->math) {
    // arg_dim(i, k) / assert_dim(c, i, k): the argument and dimension are constants.
    for (size_t k = this->args.size() - 2; k < this->args.size(); ++k)
      require(this->args[k] && this->args[k]->kind() == NodeKind::IntImm,
              "intrinsic '" + this->op + "' takes constant argument and dimension indices");
  }
}

PrimLet::PrimLet(Ref<PrimVar> var, PrimExpr value, PrimExpr body)
    : PrimExprNode(NodeKind::PrimLet, body ? body->dtype : DataType()), var(std::move(var)),
      value(std::move(value)), body(std::move(body)) {
  require(this->var && this->value && this->body, "let with a missing part");
}

// ---- helpers ----
PrimExpr intImm(int64_t v, DataType t) { return make<IntImm>(t, v); }
PrimExpr floatImm(double v, DataType t) { return make<FloatImm>(t, v); }
PrimExpr boolImm(bool v) { return make<IntImm>(DataType::Bool(), v ? 1 : 0); }
Ref<PrimVar> primVar(std::string name, DataType t) { return make<PrimVar>(std::move(name), t); }
PrimExpr binary(NodeKind op, PrimExpr a, PrimExpr b) {
  return make<BinaryExpr>(op, std::move(a), std::move(b));
}
PrimExpr floordiv(PrimExpr a, PrimExpr b) { return binary(NodeKind::FloorDiv, a, b); }
PrimExpr floormod(PrimExpr a, PrimExpr b) { return binary(NodeKind::FloorMod, a, b); }
PrimExpr min(PrimExpr a, PrimExpr b) { return binary(NodeKind::Min, a, b); }
PrimExpr max(PrimExpr a, PrimExpr b) { return binary(NodeKind::Max, a, b); }
PrimExpr select(PrimExpr c, PrimExpr t, PrimExpr f) { return make<Select>(c, t, f); }
PrimExpr cast(DataType t, PrimExpr v) {
  if (v && v->dtype == t)
    return v;
  return make<CastExpr>(t, std::move(v));
}
PrimExpr call(DataType t, std::string op, std::vector<PrimExpr> args) {
  return make<PrimCall>(t, std::move(op), std::move(args));
}
PrimExpr logicalAnd(PrimExpr a, PrimExpr b) { return binary(NodeKind::And, a, b); }
PrimExpr logicalOr(PrimExpr a, PrimExpr b) { return binary(NodeKind::Or, a, b); }
PrimExpr logicalNot(PrimExpr a) { return make<NotExpr>(std::move(a)); }

PrimExpr makeConst(DataType t, double v) {
  if (t.isFloat())
    return floatImm(v, t);
  if (t.isBool())
    return boolImm(v != 0);
  return intImm(static_cast<int64_t>(v), t);
}

PrimExpr operator+(PrimExpr a, PrimExpr b) { return binary(NodeKind::Add, a, b); }
PrimExpr operator-(PrimExpr a, PrimExpr b) { return binary(NodeKind::Sub, a, b); }
PrimExpr operator*(PrimExpr a, PrimExpr b) { return binary(NodeKind::Mul, a, b); }
PrimExpr operator/(PrimExpr a, PrimExpr b) { return binary(NodeKind::Div, a, b); }
PrimExpr operator+(PrimExpr a, int64_t b) { return a + makeConst(a->dtype, double(b)); }
PrimExpr operator-(PrimExpr a, int64_t b) { return a - makeConst(a->dtype, double(b)); }
PrimExpr operator*(PrimExpr a, int64_t b) { return a * makeConst(a->dtype, double(b)); }
PrimExpr operator+(int64_t a, PrimExpr b) { return makeConst(b->dtype, double(a)) + b; }
PrimExpr operator*(int64_t a, PrimExpr b) { return makeConst(b->dtype, double(a)) * b; }
PrimExpr operator-(PrimExpr a) { return makeConst(a->dtype, 0) - a; }
PrimExpr eq(PrimExpr a, PrimExpr b) { return binary(NodeKind::EQ, a, b); }
PrimExpr ne(PrimExpr a, PrimExpr b) { return binary(NodeKind::NE, a, b); }
PrimExpr lt(PrimExpr a, PrimExpr b) { return binary(NodeKind::LT, a, b); }
PrimExpr le(PrimExpr a, PrimExpr b) { return binary(NodeKind::LE, a, b); }
PrimExpr gt(PrimExpr a, PrimExpr b) { return binary(NodeKind::GT, a, b); }
PrimExpr ge(PrimExpr a, PrimExpr b) { return binary(NodeKind::GE, a, b); }

std::optional<int64_t> asConstInt(const PrimExpr& e) {
  if (auto* i = as<IntImm>(e))
    return i->value;
  return std::nullopt;
}
bool isConstInt(const PrimExpr& e, int64_t v) {
  auto c = asConstInt(e);
  return c && *c == v;
}

} // namespace unity::ir
