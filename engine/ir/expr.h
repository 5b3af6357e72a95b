#pragma once
// Graph level (Relax-like): variables, constants, tuples, calls, shape
// values, control flow, binding blocks, functions.
#include <string>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/struct_info.h"
#include "engine/support/tensor.h"

namespace unity::ir {

/// Base of graph-level expressions. `sinfo` is the deduced struct info; it
/// is null only before normalization (the parser and the normalizer fill it).
class ExprNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::Var, kLast = NodeKind::PrimFunc;
  ExprNode(NodeKind k, StructInfo sinfo) : Node(k), sinfo(std::move(sinfo)) {}
  const StructInfo sinfo;
};
using Expr = Ref<ExprNode>;

/// A graph-level variable; DataflowVar is one that does not escape its
/// dataflow block. Identity is the node; the name is a hint.
class VarNode : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Var, kLast = NodeKind::DataflowVar;
  VarNode(std::string name, StructInfo sinfo, bool dataflow = false);
  const std::string name;
  bool isDataflow() const { return kind() == NodeKind::DataflowVar; }
};
using Var = Ref<VarNode>;
Var makeVar(std::string name, StructInfo sinfo);
Var makeDataflowVar(std::string name, StructInfo sinfo);

class Constant : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Constant, kLast = NodeKind::Constant;
  explicit Constant(Tensor data);
  const Tensor data;
};

class Tuple : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Tuple, kLast = NodeKind::Tuple;
  explicit Tuple(std::vector<Expr> fields, StructInfo sinfo = nullptr);
  const std::vector<Expr> fields;
};

class TupleGetItem : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::TupleGetItem, kLast = NodeKind::TupleGetItem;
  TupleGetItem(Expr tuple, int index, StructInfo sinfo = nullptr);
  const Expr tuple;
  const int index;
};

/// Call of an operator (OpRef), a global function (GlobalVar), an external
/// symbol (ExternFunc) or a function value (Var). `sinfoArgs` carry explicit
/// output struct info where the callee cannot deduce it (call_tir's output).
class Call : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Call, kLast = NodeKind::Call;
  Call(Expr op, std::vector<Expr> args, Attrs attrs = {}, std::vector<StructInfo> sinfoArgs = {},
       StructInfo sinfo = nullptr);
  const Expr op;
  const std::vector<Expr> args;
  const Attrs attrs;
  const std::vector<StructInfo> sinfoArgs;
};

class ShapeExpr : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::ShapeExpr, kLast = NodeKind::ShapeExpr;
  explicit ShapeExpr(std::vector<PrimExpr> values);
  const std::vector<PrimExpr> values;
};

class PrimValue : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimValue, kLast = NodeKind::PrimValue;
  explicit PrimValue(PrimExpr value);
  const PrimExpr value;
};

class StringImm : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::StringImm, kLast = NodeKind::StringImm;
  explicit StringImm(std::string value);
  const std::string value;
};

class If : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::If, kLast = NodeKind::If;
  If(Expr cond, Expr thenBranch, Expr elseBranch, StructInfo sinfo = nullptr);
  const Expr cond, thenBranch, elseBranch; // branches are SeqExprs
};

/// Where a binding came from: a text position and/or the model nodes it
/// stands for ("Conv_12:Conv"). Fusion merges origins. Not part of
/// structural equality.
struct Span {
  std::string file;
  int line = 0, column = 0;
  std::vector<std::string> origins;
  bool empty() const { return line == 0 && origins.empty(); }
  friend bool operator==(const Span&, const Span&) = default;
};

class BindingNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::VarBinding, kLast = NodeKind::MatchCast;
  BindingNode(NodeKind k, Var var, Expr value, Span span);
  const Var var;
  const Expr value;
  const Span span;
};
using Binding = Ref<BindingNode>;

class VarBinding : public BindingNode {
public:
  static constexpr NodeKind kFirst = NodeKind::VarBinding, kLast = NodeKind::VarBinding;
  VarBinding(Var var, Expr value, Span span = {});
};

/// Binds var to value after checking (at run time where needed) that value
/// matches `pattern`; shape variables first seen in the pattern are defined.
class MatchCast : public BindingNode {
public:
  static constexpr NodeKind kFirst = NodeKind::MatchCast, kLast = NodeKind::MatchCast;
  MatchCast(Var var, Expr value, StructInfo pattern, Span span = {});
  const StructInfo pattern;
};

class BindingBlock : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::BindingBlock, kLast = NodeKind::BindingBlock;
  BindingBlock(std::vector<Binding> bindings, bool dataflow);
  const std::vector<Binding> bindings;
  const bool dataflow;
};

class SeqExpr : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::SeqExpr, kLast = NodeKind::SeqExpr;
  SeqExpr(std::vector<Ref<BindingBlock>> blocks, Expr body, StructInfo sinfo = nullptr);
  const std::vector<Ref<BindingBlock>> blocks;
  const Expr body;
};

/// A reference to a function of the module by name.
class GlobalVar : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::GlobalVar, kLast = NodeKind::GlobalVar;
  explicit GlobalVar(std::string name, StructInfo sinfo = nullptr);
  const std::string name;
};

/// A registered operator, by name ("nn.conv2d", "call_tir", "add").
class OpRef : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::OpRef, kLast = NodeKind::OpRef;
  explicit OpRef(std::string name);
  const std::string name;
};
Expr opRef(const std::string& name);

/// Anything a module can hold under a name: Function, ExternFunc, PrimFunc.
class BaseFuncNode : public ExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Function, kLast = NodeKind::PrimFunc;
  BaseFuncNode(NodeKind k, StructInfo sinfo, Attrs attrs)
      : ExprNode(k, std::move(sinfo)), attrs(std::move(attrs)) {}
  const Attrs attrs;
};
using BaseFunc = Ref<BaseFuncNode>;

/// A graph-level function. Attributes: "global_symbol", "target" (a
/// sub-target name), "codegen", "primitive", "op_pattern", ...
class Function : public BaseFuncNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Function, kLast = NodeKind::Function;
  Function(std::vector<Var> params, Expr body, StructInfo retSInfo, Attrs attrs = {},
           bool pure = true);
  const std::vector<Var> params;
  const Expr body; // a SeqExpr after normalization
  const StructInfo retSInfo;
  const bool pure;
};
using FunctionRef = Ref<Function>;

/// An external symbol (a library function such as "cblas_sgemm_wrapper").
class ExternFunc : public BaseFuncNode {
public:
  static constexpr NodeKind kFirst = NodeKind::ExternFunc, kLast = NodeKind::ExternFunc;
  explicit ExternFunc(std::string symbol, StructInfo sinfo = nullptr, Attrs attrs = {});
  const std::string symbol;
};

} // namespace unity::ir
