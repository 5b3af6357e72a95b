#include "engine/ir/expr.h"

#include "engine/support/error.h"

namespace unity::ir {

static void require(bool ok, const std::string& what) {
  if (!ok)
    throw Error("invalid IR: " + what);
}

VarNode::VarNode(std::string name, StructInfo sinfo, bool dataflow)
    : ExprNode(dataflow ? NodeKind::DataflowVar : NodeKind::Var, std::move(sinfo)),
      name(std::move(name)) {}

Var makeVar(std::string name, StructInfo sinfo) {
  return make<VarNode>(std::move(name), std::move(sinfo), false);
}
Var makeDataflowVar(std::string name, StructInfo sinfo) {
  return make<VarNode>(std::move(name), std::move(sinfo), true);
}

static StructInfo constantSInfo(const Tensor& t) {
  require(t.defined(), "constant without data");
  return tensorSInfo(t.dtype(), t.shape());
}

Constant::Constant(Tensor data)
    : ExprNode(NodeKind::Constant, constantSInfo(data)), data(std::move(data)) {}

Tuple::Tuple(std::vector<Expr> fields, StructInfo sinfo)
    : ExprNode(NodeKind::Tuple, std::move(sinfo)), fields(std::move(fields)) {
  for (auto& f : this->fields)
    require(f != nullptr, "tuple with a missing field");
}

TupleGetItem::TupleGetItem(Expr tuple, int index, StructInfo sinfo)
    : ExprNode(NodeKind::TupleGetItem, std::move(sinfo)), tuple(std::move(tuple)), index(index) {
  require(this->tuple != nullptr, "tuple item of nothing");
  require(index >= 0, "negative tuple index");
}

Call::Call(Expr op, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfoArgs,
           StructInfo sinfo)
    : ExprNode(NodeKind::Call, std::move(sinfo)), op(std::move(op)), args(std::move(args)),
      attrs(std::move(attrs)), sinfoArgs(std::move(sinfoArgs)) {
  require(this->op != nullptr, "call without a callee");
  for (auto& a : this->args)
    require(a != nullptr, "call with a missing argument");
}

ShapeExpr::ShapeExpr(std::vector<PrimExpr> values)
    : ExprNode(NodeKind::ShapeExpr, shapeSInfo(values)), values(std::move(values)) {}

PrimValue::PrimValue(PrimExpr value)
    : ExprNode(NodeKind::PrimValue, primSInfo(value ? value->dtype : DataType(), value)),
      value(std::move(value)) {
  require(this->value != nullptr, "prim value of nothing");
}

StringImm::StringImm(std::string value)
    : ExprNode(NodeKind::StringImm, objectSInfo()), value(std::move(value)) {}

If::If(Expr cond, Expr thenBranch, Expr elseBranch, StructInfo sinfo)
    : ExprNode(NodeKind::If, std::move(sinfo)), cond(std::move(cond)),
      thenBranch(std::move(thenBranch)), elseBranch(std::move(elseBranch)) {
  require(this->cond && this->thenBranch && this->elseBranch, "if with a missing part");
}

BindingNode::BindingNode(NodeKind k, Var var, Expr value, Span span)
    : Node(k), var(std::move(var)), value(std::move(value)), span(std::move(span)) {
  require(this->var && this->value, "binding with a missing variable or value");
}

VarBinding::VarBinding(Var var, Expr value, Span span)
    : BindingNode(NodeKind::VarBinding, std::move(var), std::move(value), std::move(span)) {}

MatchCast::MatchCast(Var var, Expr value, StructInfo pattern, Span span)
    : BindingNode(NodeKind::MatchCast, std::move(var), std::move(value), std::move(span)),
      pattern(std::move(pattern)) {
  require(this->pattern != nullptr, "match_cast without a pattern");
}

BindingBlock::BindingBlock(std::vector<Binding> bindings, bool dataflow)
    : Node(NodeKind::BindingBlock), bindings(std::move(bindings)), dataflow(dataflow) {}

SeqExpr::SeqExpr(std::vector<Ref<BindingBlock>> blocks, Expr body, StructInfo sinfo)
    : ExprNode(NodeKind::SeqExpr, sinfo ? std::move(sinfo) : (body ? body->sinfo : nullptr)),
      blocks(std::move(blocks)), body(std::move(body)) {
  require(this->body != nullptr, "sequence without a result");
}

GlobalVar::GlobalVar(std::string name, StructInfo sinfo)
    : ExprNode(NodeKind::GlobalVar, std::move(sinfo)), name(std::move(name)) {}

OpRef::OpRef(std::string name) : ExprNode(NodeKind::OpRef, objectSInfo()), name(std::move(name)) {}
Expr opRef(const std::string& name) { return make<OpRef>(name); }

static StructInfo functionSInfo(const std::vector<Var>& params, const StructInfo& ret, bool pure) {
  std::vector<StructInfo> ps;
  for (auto& p : params) {
    require(p != nullptr, "function with a missing parameter");
    ps.push_back(p->sinfo ? p->sinfo : objectSInfo());
  }
  return make<FuncSInfo>(std::move(ps), ret ? ret : objectSInfo(), pure);
}

Function::Function(std::vector<Var> params, Expr body, StructInfo retSInfo, Attrs attrs, bool pure)
    : BaseFuncNode(NodeKind::Function, functionSInfo(params, retSInfo, pure), std::move(attrs)),
      params(std::move(params)), body(std::move(body)), retSInfo(std::move(retSInfo)), pure(pure) {
  require(this->body != nullptr, "function without a body");
}

ExternFunc::ExternFunc(std::string symbol, StructInfo sinfo, Attrs attrs)
    : BaseFuncNode(NodeKind::ExternFunc, std::move(sinfo), std::move(attrs)),
      symbol(std::move(symbol)) {}

} // namespace unity::ir
