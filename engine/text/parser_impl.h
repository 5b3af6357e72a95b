#pragma once
// Internal: the recursive-descent parser's state, shared by parser.cpp
// (module, graph level, struct info, attributes) and parser_tir.cpp (scalar
// expressions, statements, PrimFuncs).
//
// The token stream is a vector, so looking ahead or jumping back is an index
// assignment. Three things use that: (1) module function names are collected
// first, so calls may refer to functions defined later; (2) the metadata
// section at the end is read before the functions that use it; (3) a
// function's declarations (`n = T.int32()` at the top of its body) are read
// before its signature, which may use them.
//
// Scopes map names to graph variables, scalar variables and buffers. Scalar
// variables first met in a type position (struct info, buffer declaration)
// are defined implicitly as int64 in the function's outermost scope.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/module.h"
#include "engine/text/lexer.h"

namespace unity::text::detail {

struct Entry {
  ir::Var var;               // graph-level variable
  ir::Ref<ir::PrimVar> prim; // scalar / shape variable
  ir::BufferRef buffer;
};

/// A parsed scalar expression with what the parser needs to know about it.
struct PE {
  ir::PrimExpr e;
  bool bare = false; // an unmarked literal (`3`, `1.5`) that may adopt a dtype
  int height = 1;    // tree height, bounded so printing cannot overflow the stack
};

/// One `name[: ann] = value` statement of a graph function, before its
/// variable is created (the caller knows whether it is a dataflow var).
struct RawBinding {
  Token nameTok;
  ir::StructInfo ann;
  ir::Expr value;
  ir::StructInfo pattern; // set for match_cast
  ir::Span span;
};

class Parser {
public:
  Parser(std::string_view source, std::string file);
  ir::IRModule parseModule();

  // ---- tokens ----
  const Token& peek(size_t k = 0) const;
  const Token& next();
  bool isOp(const char* op, size_t k = 0) const;
  bool isName(const char* name, size_t k = 0) const;
  bool acceptOp(const char* op);
  const Token& expectOp(const char* op, const char* context);
  const Token& expectName(const char* context);
  void expectNewline(const char* context);
  [[noreturn]] void fail(const Token& at, const std::string& msg) const;
  /// Runs fn; an IR constructor's error (no location) is rethrown at `at`.
  template <class F> auto located(const Token& at, F&& fn) -> decltype(fn());
  /// `R.` or `T.` followed by a name: returns the name's token index or 0.
  bool isPrefixed(const char* ns, const char* name, size_t k = 0) const;

  struct DepthGuard {
    DepthGuard(Parser& p, const Token& at);
    ~DepthGuard() { --p.depth_; }
    Parser& p;
  };

  // ---- scopes ----
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  const Entry* lookup(const std::string& name) const;
  void define(const std::string& name, Entry e) { scopes_.back()[name] = std::move(e); }
  void defineInFunction(const std::string& name, Entry e) { scopes_.front()[name] = std::move(e); }

  // ---- scalar level (parser_tir.cpp) ----
  PE primExpr();
  ir::PrimExpr prim() { return primExpr().e; }
  ir::PrimFuncRef primFunc(size_t sigPos);
  bool declaration(); // `n = T.int32()`; false (nothing consumed) if not one
  ir::BufferRef bufferDecl(const std::string& name, const Token& at, bool allowShapeOnly);
  ir::Stmt stmtList();
  std::optional<DataType> dtypeName(const Token& t) const;
  DataType dtypeString(const Token& t);

  // ---- graph level (parser.cpp) ----
  ir::Expr expr();
  ir::StructInfo sinfo();
  ir::AttrValue attrValue();
  ir::Attrs attrDict();
  int64_t intLiteral(const char* context);

  bool implicitDefs = false;

private:
  PE orExpr();
  PE andExpr();
  PE notExpr();
  PE cmpExpr();
  PE addExpr();
  PE mulExpr();
  PE unaryExpr();
  PE atomExpr();
  PE tCall(const Token& at, const std::string& fn);
  PE binaryOf(const Token& at, ir::NodeKind op, PE a, PE b);
  ir::Stmt stmtListRest(int& count);
  ir::Stmt statement(bool& isPass, bool& isLet);
  /// The variable a let named `name` binds: a fresh one, or in a packed
  /// function the parameter shape variable of that name not yet bound.
  ir::Ref<ir::PrimVar> letVar(const Token& name, DataType t);
  ir::Stmt forStmt();
  ir::Stmt blockStmt();
  ir::Range regionDim();
  std::vector<ir::BufferRegion> regionList();
  ir::BufferRef lookupBuffer(const Token& t);

  void topLevelScan();
  void metadataLine();
  ir::FunctionRef function(bool pure, size_t sigPos);
  size_t skipToBody();
  void funcHeader(const char* ns, ir::Attrs& attrs);
  ir::Expr seqBody(bool isFunctionBody, std::vector<ir::Ref<ir::BindingBlock>>& blocks);
  RawBinding rawBinding();
  ir::Binding ifBinding(bool dataflow, const std::set<std::string>& outputs);
  void bindingsUntilDedent(std::vector<ir::Ref<ir::BindingBlock>>& blocks, ir::Expr* ret,
                           RawBinding* last);
  ir::Ref<ir::BindingBlock> dataflowBlock();
  std::set<std::string> scanOutputs() const;
  ir::Expr postfix(ir::Expr e);
  ir::Expr atom();
  ir::Expr rBuiltin(const Token& at, const std::string& name);
  ir::Expr constant(const Token& at);
  ir::Expr callArgs(const Token& at, ir::Expr callee);
  std::vector<ir::PrimExpr> primList(const char* open, const char* close);
  ir::AttrValue attrList();
  ir::Span spanAt(const Token& t) const;

  std::string_view src_;
  std::string file_;
  LexResult lex_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::unordered_map<std::string, Entry>> scopes_;
  /// In a function with calling_conv = "packed" (MakePackedAPI): the shape
  /// variables of its buffer parameters that no T.LetStmt has bound yet. The
  /// prologue's `with T.LetStmt(T.arg_dim(i, k)) as n:` binds that very
  /// variable rather than a new one.
  std::set<const ir::PrimVar*> packedShapeVars_;
  std::set<std::string> globals_;
  std::map<int64_t, Tensor> metadata_;
  std::vector<size_t> metadataLines_;
};

template <class F> auto Parser::located(const Token& at, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    if (e.loc().known())
      throw;
    fail(at, e.message());
  }
}

} // namespace unity::text::detail
