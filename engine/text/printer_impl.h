#pragma once
// Internal: the printer's state, shared by printer.cpp (module and graph
// level) and printer_tir.cpp (scalar expressions and statements).
//
// Naming: every variable-like node (Var, PrimVar, Buffer) gets a name the
// first time it is printed, unique within its function and distinct from the
// module's function names and the format's keywords (hint `x` becomes x,
// x_1, x_2 ...). A scalar variable that is used before any construct binds it
// is "free": int64 ones appearing first in a type position (struct info,
// buffer declaration) are defined there implicitly, as the parser expects;
// all others get a declaration `n = T.int32()` at the top of the function
// body. Since the parser reads those declarations before the signature, the
// printer renders the body first and assembles header + declarations + body.
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/ir/module.h"

namespace unity::text::detail {

/// Operator precedence of a printed scalar expression (higher binds tighter).
enum Prec { kOr = 1, kAnd, kNot, kCmp, kAdd, kMul, kUnary, kAtom };

class Printer {
public:
  explicit Printer(const ir::IRModuleNode* module = nullptr);

  std::string module(const ir::IRModule& m);
  std::string fragmentExpr(const ir::Expr& e);
  std::string fragmentStmt(const ir::Stmt& s);

  // ---- scalar level (printer_tir.cpp) ----
  std::pair<std::string, int> prim(const ir::PrimExpr& e);
  std::string primStr(const ir::PrimExpr& e) { return prim(e).first; }
  std::string buffer(const ir::BufferRef& b); // T.Buffer((..), "dtype"[, scope=..])
  void stmt(const ir::Stmt& s, int indent, std::string& out);
  void stmtList(const ir::Stmt& s, int indent, std::string& out); // flattens SeqStmt
  std::string primFunc(const std::string& name, const ir::PrimFunc& f);

  // ---- graph level (printer.cpp) ----
  std::string expr(const ir::Expr& e);
  std::string sinfo(const ir::StructInfo& s);
  std::string function(const std::string& name, const ir::Function& f);
  std::string attrValue(const ir::AttrValue& v);
  std::string attrDict(const ir::Attrs& a);
  std::string metadataSection() const;

  // ---- naming ----
  std::string nameOf(const ir::Node* n, const std::string& hint);
  void beginFunction();
  /// Marks a scalar variable bound (loop, let, iteration variable, param).
  std::string bindPrimVar(const ir::PrimVar* v);
  void unbindPrimVar(const ir::PrimVar* v) { bound_.erase(v); }
  bool typePosition = false; // printing struct info or a buffer declaration

private:
  std::string seqBody(const ir::Expr& body, int indent, std::string& out);
  void binding(const ir::Binding& b, int indent, std::string& out, bool inDataflow);
  std::string callStr(const ir::Call* c);
  std::string constant(const ir::Constant* c);
  std::string usePrimVar(const ir::PrimVar* v);

  const ir::IRModuleNode* module_;
  std::set<std::string> reserved_;
  std::unordered_map<const ir::Node*, std::string> names_;
  std::unordered_set<std::string> used_;
  std::unordered_set<const ir::Node*> bound_; // scalar vars bound or defined
  std::vector<std::string> decls_;            // declarations for free vars
  std::vector<Tensor> metadata_;
  std::unordered_map<const void*, int> metaIndex_;
};

/// Names the format gives meaning to; a variable never prints as one of them.
bool isReservedName(const std::string& s);
bool isIdentifier(const std::string& s);
bool isRBuiltin(const std::string& s); // a name after `R.` that is not an operator
std::string formatDouble(double d);    // exact; always has '.', 'e', inf or nan

} // namespace unity::text::detail
