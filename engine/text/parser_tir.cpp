// Parser, tensor level: scalar expressions (Python precedence: or < and <
// not < comparisons < + - < * / // % < unary -), statements and PrimFuncs.
//
// Unmarked literals are int64 (`3`) or float32 (`1.5`) but adopt the dtype of
// the other operand of a binary operator, so `i + 1` works for an int32 `i`;
// the printer always marks non-default literals (`T.int32(1)`) so nothing
// depends on that convenience. A scalar let written `x: T.int32 = v` takes
// the rest of its statement list as its body (TVMScript style).
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "engine/ir/intrinsics.h"
#include "engine/text/parser.h"
#include "engine/text/parser_impl.h"
#include "engine/text/printer.h"
#include "engine/text/printer_impl.h"

namespace unity::text::detail {

using namespace ir;

static constexpr int kMaxHeight = 1000;

std::optional<DataType> Parser::dtypeName(const Token& t) const {
  if (t.kind != Tok::Name)
    return std::nullopt;
  return DataType::parse(t.text);
}

DataType Parser::dtypeString(const Token& t) {
  if (t.kind != Tok::String)
    fail(t, "expected a dtype string such as \"float32\"");
  auto d = DataType::parse(t.text);
  if (!d)
    fail(t, "unknown dtype '" + t.text + "'");
  return *d;
}

// A bare literal takes dtype t (where that keeps its value meaning).
static PE retype(const PE& p, DataType t) {
  if (!p.bare || p.e->dtype == t)
    return p;
  if (auto* i = as<IntImm>(p.e)) {
    if (t.isIntegral())
      return {intImm(i->value, t), false, 1};
    if (t.isFloat())
      return {floatImm(double(i->value), t), false, 1};
  }
  if (auto* f = as<FloatImm>(p.e))
    if (t.isFloat())
      return {floatImm(f->value, t), false, 1};
  return p;
}

static void unify(PE& a, PE& b) {
  if (a.e->dtype == b.e->dtype)
    return;
  if (b.bare && !a.bare)
    b = retype(b, a.e->dtype);
  else if (a.bare && !b.bare)
    a = retype(a, b.e->dtype);
}

PE Parser::binaryOf(const Token& at, NodeKind op, PE a, PE b) {
  unify(a, b);
  int h = std::max(a.height, b.height) + 1;
  if (h > kMaxHeight)
    fail(at, fmt::format("expression too deep (more than {} levels)", kMaxHeight));
  return {located(at, [&] { return binary(op, a.e, b.e); }), false, h};
}

PE Parser::primExpr() {
  DepthGuard g(*this, peek());
  return orExpr();
}

PE Parser::orExpr() {
  PE a = andExpr();
  while (isName("or")) {
    const Token& t = next();
    a = binaryOf(t, NodeKind::Or, a, andExpr());
  }
  return a;
}

PE Parser::andExpr() {
  PE a = notExpr();
  while (isName("and")) {
    const Token& t = next();
    a = binaryOf(t, NodeKind::And, a, notExpr());
  }
  return a;
}

PE Parser::notExpr() {
  if (!isName("not"))
    return cmpExpr();
  const Token& t = next();
  DepthGuard g(*this, t);
  PE a = notExpr();
  return {located(t, [&] { return logicalNot(a.e); }), false, a.height + 1};
}

PE Parser::cmpExpr() {
  PE a = addExpr();
  static const std::pair<const char*, NodeKind> ops[] = {
      {"==", NodeKind::EQ}, {"!=", NodeKind::NE}, {"<", NodeKind::LT},
      {"<=", NodeKind::LE}, {">", NodeKind::GT},  {">=", NodeKind::GE}};
  for (auto& [s, k] : ops)
    if (isOp(s)) {
      const Token& t = next();
      PE r = binaryOf(t, k, a, addExpr());
      for (auto& [s2, k2] : ops)
        if (isOp(s2))
          fail(peek(), "comparisons do not chain; add parentheses");
      return r;
    }
  return a;
}

PE Parser::addExpr() {
  PE a = mulExpr();
  while (isOp("+") || isOp("-")) {
    const Token& t = next();
    a = binaryOf(t, t.text == "+" ? NodeKind::Add : NodeKind::Sub, a, mulExpr());
  }
  return a;
}

PE Parser::mulExpr() {
  PE a = unaryExpr();
  while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
    const Token& t = next();
    NodeKind k = t.text == "*"    ? NodeKind::Mul
                 : t.text == "/"  ? NodeKind::Div
                 : t.text == "//" ? NodeKind::FloorDiv
                                  : NodeKind::FloorMod;
    a = binaryOf(t, k, a, unaryExpr());
  }
  return a;
}

int64_t Parser::intLiteral(const char* context) {
  bool neg = acceptOp("-");
  const Token& t = peek();
  if (t.kind != Tok::Int)
    fail(t, fmt::format("expected an integer {}", context));
  next();
  // Accumulate negatively so that INT64_MIN is representable.
  int64_t v = 0;
  for (char c : t.text) {
    int d = c - '0';
    if (v < (INT64_MIN + d) / 10)
      fail(t, "integer literal out of range");
    v = v * 10 - d;
  }
  if (!neg) {
    if (v == INT64_MIN)
      fail(t, "integer literal out of range");
    v = -v;
  }
  return v;
}

static double floatValue(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

PE Parser::unaryExpr() {
  if (isOp("-")) {
    if (peek(1).kind == Tok::Int)
      return {intImm(intLiteral("")), true, 1};
    const Token& t = next();
    if (peek().kind == Tok::Float)
      return {floatImm(-floatValue(next().text)), true, 1};
    DepthGuard g(*this, t);
    PE a = unaryExpr();
    PE zero{intImm(0), true, 1};
    return binaryOf(t, NodeKind::Sub, zero, a);
  }
  return atomExpr();
}

BufferRef Parser::lookupBuffer(const Token& t) {
  const Entry* e = lookup(t.text);
  if (!e)
    fail(t, "undefined buffer '" + t.text + "'");
  if (!e->buffer)
    fail(t, "'" + t.text + "' is not a buffer");
  return e->buffer;
}

PE Parser::atomExpr() {
  const Token& t = peek();
  if (t.kind == Tok::Int)
    return {intImm(intLiteral("")), true, 1};
  if (t.kind == Tok::Float) {
    next();
    return {floatImm(floatValue(t.text)), true, 1};
  }
  if (isOp("(")) {
    next();
    PE e = primExpr();
    expectOp(")", "to close '('");
    return e;
  }
  if (isName("True") || isName("False")) {
    next();
    return {boolImm(t.text == "True"), false, 1};
  }
  if (isPrefixed("T", nullptr)) {
    next();
    next();
    const Token& fn = next();
    return tCall(fn, fn.text);
  }
  if (t.kind != Tok::Name)
    fail(t, "expected a scalar expression");
  next();
  const Entry* e = lookup(t.text);
  if (e && e->buffer) {
    if (!isOp("["))
      fail(t, "buffer '" + t.text + "' used as a value; index it as " + t.text + "[...]");
    next();
    std::vector<PrimExpr> idx;
    int h = 1;
    if (isOp("(") && isOp(")", 1)) {
      next();
      next();
    } else {
      do {
        PE i = primExpr();
        h = std::max(h, i.height + 1);
        idx.push_back(i.e);
      } while (acceptOp(","));
    }
    expectOp("]", "to close the buffer index");
    BufferRef b = e->buffer;
    return {located(t, [&] { return PrimExpr(make<BufferLoad>(b, idx)); }), false, h};
  }
  if (e && e->prim)
    return {e->prim, false, 1};
  if (e && e->var)
    fail(t, "'" + t.text + "' is a graph-level variable, not a scalar");
  if (implicitDefs && !isReservedName(t.text)) {
    auto v = primVar(t.text);
    defineInFunction(t.text, Entry{nullptr, v, nullptr});
    return {v, false, 1};
  }
  fail(t, "undefined variable '" + t.text + "'");
}

// Keyword argument `name=` at the current position?
static bool kwarg(const Parser& p) { return p.peek().kind == Tok::Name && p.isOp("=", 1); }

PE Parser::tCall(const Token& at, const std::string& fn) {
  expectOp("(", ("after T." + fn).c_str());
  std::vector<PE> args;
  std::map<std::string, Token> kw;
  std::vector<Token> argToks;
  auto parseArgs = [&](bool literalStrings) {
    while (!isOp(")")) {
      if (kwarg(*this)) {
        const Token& k = next();
        next();
        kw[k.text] = peek();
        next();
        if (k.text != "dtype")
          fail(k, "unknown keyword '" + k.text + "' for T." + fn);
      } else if (literalStrings && peek().kind == Tok::String) {
        argToks.push_back(next());
        args.push_back({nullptr, false, 1});
      } else {
        argToks.push_back(peek());
        args.push_back(primExpr());
      }
      if (!acceptOp(","))
        break;
    }
    expectOp(")", ("to close T." + fn + "(").c_str());
  };
  auto arity = [&](size_t n) {
    if (args.size() != n)
      fail(at,
           fmt::format("T.{} takes {} argument{}, got {}", fn, n, n == 1 ? "" : "s", args.size()));
  };
  auto height = [&] {
    int h = 1;
    for (auto& a : args)
      if (a.e)
        h = std::max(h, a.height + 1);
    return h;
  };
  if (auto dt = DataType::parse(fn); dt && fn != "void") {
    // T.int32(3), T.float32(1.5), T.float32("inf"), T.bool(True), or a cast.
    parseArgs(true);
    if (args.empty())
      fail(at, "T." + fn + "() declares a variable; write it as 'name = T." + fn +
                   "()' at the top of a function body");
    arity(1);
    if (!args[0].e) {
      std::string s = argToks[0].text;
      if (!dt->isFloat() || (s != "inf" && s != "-inf" && s != "nan"))
        fail(argToks[0], "expected a number, or \"inf\"/\"-inf\"/\"nan\" for a float");
      double v = s == "nan" ? NAN : (s == "inf" ? INFINITY : -INFINITY);
      return {located(at, [&] { return floatImm(v, *dt); }), false, 1};
    }
    PE& a = args[0];
    if (auto* i = as<IntImm>(a.e); i && (a.bare || a.e->dtype.isBool())) {
      if (dt->isFloat())
        return {located(at, [&] { return floatImm(double(i->value), *dt); }), false, 1};
      return {located(at, [&] { return PrimExpr(make<IntImm>(*dt, i->value)); }), false, 1};
    }
    if (auto* f = as<FloatImm>(a.e); f && a.bare) {
      if (!dt->isFloat())
        fail(argToks[0], "a float literal cannot be a " + fn);
      return {located(at, [&] { return floatImm(f->value, *dt); }), false, 1};
    }
    return {located(at, [&] { return PrimExpr(make<CastExpr>(*dt, a.e)); }), false, height()};
  }
  static const std::map<std::string, NodeKind> binaries = {
      {"floordiv", NodeKind::FloorDiv}, {"floormod", NodeKind::FloorMod}, {"min", NodeKind::Min},
      {"max", NodeKind::Max},           {"And", NodeKind::And},           {"Or", NodeKind::Or}};
  if (auto it = binaries.find(fn); it != binaries.end()) {
    parseArgs(false);
    arity(2);
    return binaryOf(at, it->second, args[0], args[1]);
  }
  if (fn == "Not") {
    parseArgs(false);
    arity(1);
    return {located(at, [&] { return logicalNot(args[0].e); }), false, height()};
  }
  if (fn == "Select") {
    parseArgs(false);
    arity(3);
    unify(args[1], args[2]);
    return {located(at, [&] { return select(args[0].e, args[1].e, args[2].e); }), false, height()};
  }
  if (fn == "Cast") {
    const Token& d = peek();
    DataType t = dtypeString(next());
    (void)d;
    expectOp(",", "after the dtype of T.Cast");
    parseArgs(false);
    arity(1);
    return {located(at, [&] { return PrimExpr(make<CastExpr>(t, args[0].e)); }), false, height()};
  }
  if (fn == "let") {
    const Token& name = expectName("as the variable of T.let");
    expectOp(",", "after the variable of T.let");
    PE value = primExpr();
    expectOp(",", "after the value of T.let");
    // The dtype keyword comes after the body, but the variable is needed
    // while parsing it: look ahead for `dtype="..."` at this nesting level.
    DataType vt = value.e->dtype;
    size_t save = pos_;
    int d = 0;
    for (size_t k = pos_; k < lex_.tokens.size(); ++k) {
      const Token& tk = lex_.tokens[k];
      if (tk.kind == Tok::End || tk.kind == Tok::Newline)
        break;
      if (tk.kind == Tok::Op && (tk.text == "(" || tk.text == "[" || tk.text == "{"))
        ++d;
      if (tk.kind == Tok::Op && (tk.text == ")" || tk.text == "]" || tk.text == "}")) {
        if (d-- == 0)
          break;
      }
      if (d == 0 && tk.kind == Tok::Name && tk.text == "dtype" && k + 2 < lex_.tokens.size() &&
          lex_.tokens[k + 1].text == "=") {
        vt = dtypeString(lex_.tokens[k + 2]);
        break;
      }
    }
    pos_ = save;
    auto v = primVar(name.text, vt);
    pushScope();
    define(name.text, Entry{nullptr, v, nullptr});
    PE body = primExpr();
    popScope();
    if (acceptOp(",")) {
      const Token& k = expectName("keyword");
      if (k.text != "dtype")
        fail(k, "unknown keyword '" + k.text + "' for T.let");
      expectOp("=", "after 'dtype'");
      next();
    }
    expectOp(")", "to close T.let(");
    int h = std::max(value.height, body.height) + 1;
    return {located(at, [&] { return PrimExpr(make<PrimLet>(v, value.e, body.e)); }), false, h};
  }
  if (const IntrinsicInfo* info = findIntrinsic(fn)) {
    parseArgs(false);
    arity(size_t(info->arity));
    DataType t = args[0].e->dtype;
    if (args.size() == 2) {
      unify(args[0], args[1]);
      t = args[0].e->dtype;
    }
    if (kw.count("dtype"))
      t = dtypeString(kw["dtype"]);
    if (fn == kPrefetchIntrinsic)
      t = DataType::Int32();
    std::vector<PrimExpr> xs;
    for (auto& a : args)
      xs.push_back(a.e);
    return {located(at, [&] { return call(t, fn, xs); }), false, height()};
  }
  fail(at, "unknown function 'T." + fn + "'");
}

// ------------------------------------------------------------------ statements

bool Parser::declaration() {
  // NAME = T . dtype ( ) NEWLINE
  if (peek().kind != Tok::Name || !isOp("=", 1) || !isName("T", 2) || !isOp(".", 3) ||
      !dtypeName(peek(4)) || !isOp("(", 5) || !isOp(")", 6))
    return false;
  const Token& name = next();
  next();
  next();
  next();
  DataType t = *dtypeName(next());
  next();
  next();
  expectNewline("after the declaration");
  defineInFunction(name.text, Entry{nullptr, primVar(name.text, t), nullptr});
  return true;
}

BufferRef Parser::bufferDecl(const std::string& name, const Token& at, bool) {
  // (shape), "dtype"[, scope="..."] )   -- the caller consumed 'T.Buffer('
  bool saved = implicitDefs;
  implicitDefs = true;
  std::vector<PrimExpr> shape;
  if (isOp("[")) {
    shape = primList("[", "]");
  } else {
    shape = primList("(", ")");
  }
  implicitDefs = saved;
  expectOp(",", "after the buffer shape");
  DataType dtype = dtypeString(next());
  std::string scope = "global";
  if (acceptOp(",")) {
    const Token& k = expectName("keyword 'scope'");
    if (k.text != "scope")
      fail(k, "unknown keyword '" + k.text + "' for a buffer");
    expectOp("=", "after 'scope'");
    const Token& s = next();
    if (s.kind != Tok::String)
      fail(s, "expected the scope as a string");
    scope = s.text;
  }
  expectOp(")", "to close the buffer declaration");
  return located(at, [&] { return makeBuffer(name, dtype, shape, scope); });
}

PrimFuncRef Parser::primFunc(size_t sigPos) {
  Attrs attrs;
  size_t bodyPos = skipToBody();
  pushScope();
  funcHeader("T", attrs);
  bodyPos = pos_;
  pos_ = sigPos;
  expectOp("(", "to open the parameter list");
  std::vector<PrimFunc::Param> params;
  while (!isOp(")")) {
    const Token& name = expectName("as a parameter name");
    expectOp(":", "after the parameter name (tensor function parameters need a type)");
    if (isPrefixed("T", "Buffer")) {
      const Token& at = peek();
      next();
      next();
      next();
      expectOp("(", "after T.Buffer");
      BufferRef b = bufferDecl(name.text, at, true);
      define(name.text, Entry{nullptr, nullptr, b});
      params.push_back({b, nullptr});
    } else {
      if (!isName("T") || !isOp(".", 1))
        fail(peek(), "expected T.Buffer(...) or a scalar type such as T.int32");
      next();
      next();
      const Token& dt = next();
      auto t = dtypeName(dt);
      if (!t)
        fail(dt, "unknown dtype '" + dt.text + "'");
      Ref<PrimVar> v;
      if (const Entry* e = lookup(name.text); e && e->prim) {
        // Already met in an earlier buffer's shape or declared: the same variable.
        if (e->prim->dtype != *t)
          fail(dt, fmt::format("'{}' was defined as {} but is declared {} here", name.text,
                               e->prim->dtype.str(), t->str()));
        v = e->prim;
      } else {
        v = primVar(name.text, *t);
        define(name.text, Entry{nullptr, v, nullptr});
      }
      params.push_back({nullptr, v});
    }
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the parameter list");
  packedShapeVars_.clear();
  if (attrs.getString("calling_conv") == "packed")
    for (auto& p : params)
      if (p.buffer)
        for (auto& d : p.buffer->shape)
          if (auto* v = as<PrimVar>(d))
            packedShapeVars_.insert(v);
  pos_ = bodyPos;
  Stmt body = stmtList();
  popScope();
  packedShapeVars_.clear();
  return located(peek(), [&] { return make<PrimFunc>(params, body, attrs); });
}

Ref<PrimVar> Parser::letVar(const Token& name, DataType t) {
  const Entry* e = lookup(name.text);
  if (e && e->prim && packedShapeVars_.erase(e->prim.get())) {
    // The packed prologue binds a parameter's shape variable itself.
    if (e->prim->dtype != t)
      fail(name, fmt::format("shape variable '{}' is {} but bound to a {} value", name.text,
                             e->prim->dtype.str(), t.str()));
    return e->prim;
  }
  return primVar(name.text, t);
}

Stmt Parser::stmtList() {
  int count = 0;
  return stmtListRest(count);
}

// Statements until the DEDENT that closes the current block (consumed).
Stmt Parser::stmtListRest(int& count) {
  DepthGuard g(*this, peek());
  std::vector<Stmt> out;
  while (peek().kind != Tok::Dedent && peek().kind != Tok::End) {
    bool isPass = false, isLet = false;
    const Token& start = peek();
    Stmt s = statement(isPass, isLet);
    ++count;
    if (isLet) {
      // `x: T.int32 = v`: the rest of the list is the body.
      auto* l = as<LetStmt>(s);
      pushScope();
      define(l->var->name, Entry{nullptr, l->var, nullptr});
      int rest = 0;
      Stmt body = stmtListRest(rest);
      popScope();
      if (rest == 0)
        fail(start,
             "let '" + l->var->name + "' needs a body: statements after it in the same block");
      out.push_back(make<LetStmt>(l->var, l->value, body));
      return out.size() == 1 ? out[0] : make<SeqStmt>(out);
    }
    if (!isPass)
      out.push_back(s);
  }
  if (peek().kind == Tok::Dedent)
    next();
  if (out.empty())
    return make<SeqStmt>(std::vector<Stmt>{});
  return seqStmt(out);
}

// Parses `:` NEWLINE INDENT and the indented statements of a nested block.
static Stmt nestedBlock(Parser& p, const char* what) {
  p.expectOp(":", what);
  p.expectNewline(what);
  if (p.peek().kind != Tok::Indent)
    p.fail(p.peek(), std::string("expected an indented block ") + what);
  p.next();
  return p.stmtList();
}

Stmt Parser::statement(bool& isPass, bool& isLet) {
  const Token& t = peek();
  if (isName("pass")) {
    next();
    expectNewline("after 'pass'");
    isPass = true;
    return nullptr;
  }
  if (isName("for"))
    return forStmt();
  if (isName("if")) {
    next();
    PrimExpr cond = prim();
    pushScope();
    Stmt then = nestedBlock(*this, "after the if condition");
    popScope();
    Stmt otherwise;
    if (isName("else")) {
      next();
      pushScope();
      otherwise = nestedBlock(*this, "after 'else'");
      popScope();
    }
    return located(t, [&] { return Stmt(make<IfThenElse>(cond, then, otherwise)); });
  }
  if (isName("with")) {
    if (isPrefixed("T", "block", 1))
      return blockStmt();
    next();
    if (isPrefixed("T", "LetStmt")) {
      next();
      next();
      next();
      expectOp("(", "after T.LetStmt");
      PrimExpr value = prim();
      DataType vt = value->dtype;
      if (acceptOp(",")) {
        const Token& k = expectName("keyword 'dtype'");
        if (k.text != "dtype")
          fail(k, "unknown keyword '" + k.text + "' for T.LetStmt");
        expectOp("=", "after 'dtype'");
        vt = dtypeString(next());
      }
      expectOp(")", "to close T.LetStmt(");
      if (!isName("as"))
        fail(peek(), "expected 'as name' after T.LetStmt(...)");
      next();
      const Token& name = expectName("after 'as'");
      Ref<PrimVar> v = letVar(name, vt);
      pushScope();
      define(name.text, Entry{nullptr, v, nullptr});
      Stmt body = nestedBlock(*this, "after T.LetStmt(...)");
      popScope();
      return located(t, [&] { return Stmt(make<LetStmt>(v, value, body)); });
    }
    if (isPrefixed("T", "allocate")) {
      const Token& at = peek();
      next();
      next();
      next();
      expectOp("(", "after T.allocate");
      size_t save = pos_;
      // The buffer's name follows `as` after the declaration; read it first.
      int d = 1;
      while (d > 0 && peek().kind != Tok::End) {
        if (isOp("(") || isOp("[") || isOp("{"))
          ++d;
        if (isOp(")") || isOp("]") || isOp("}"))
          --d;
        next();
      }
      if (!isName("as"))
        fail(peek(), "expected 'as name' after T.allocate(...)");
      next();
      const Token& name = expectName("after 'as'");
      size_t after = pos_;
      pos_ = save;
      BufferRef b = bufferDecl(name.text, at, false);
      pos_ = after;
      pushScope();
      define(name.text, Entry{nullptr, nullptr, b});
      Stmt body = nestedBlock(*this, "after T.allocate(...)");
      popScope();
      return located(t, [&] { return Stmt(make<Allocate>(b, body)); });
    }
    if (isPrefixed("T", "init"))
      fail(peek(), "'with T.init()' is only allowed among the first statements of a T.block");
    fail(peek(), "expected T.block(...), T.LetStmt(...) or T.allocate(...) after 'with'");
  }
  if (isPrefixed("T", "evaluate")) {
    next();
    next();
    next();
    expectOp("(", "after T.evaluate");
    PrimExpr v = prim();
    expectOp(")", "to close T.evaluate(");
    expectNewline("after T.evaluate(...)");
    return make<Evaluate>(v);
  }
  for (const char* h : {"reads", "writes", "where", "block_attr", "func_attr"})
    if (isPrefixed("T", h))
      fail(peek(), std::string("T.") + h + "(...) is only allowed at the start of a " +
                       (std::string(h) == "func_attr" ? "function body" : "T.block"));
  if (t.kind == Tok::Name && isOp(":", 1)) {
    // x: T.int32 = value
    next();
    next();
    if (!isName("T") || !isOp(".", 1))
      fail(peek(), "expected a scalar type such as T.int32");
    next();
    next();
    const Token& dt = next();
    auto vt = dtypeName(dt);
    if (!vt)
      fail(dt, "unknown dtype '" + dt.text + "'");
    expectOp("=", "after the let variable's type");
    PrimExpr value = prim();
    expectNewline("after the let value");
    isLet = true;
    // The body is filled in by the caller (the rest of the list).
    return make<LetStmt>(letVar(t, *vt), value, make<SeqStmt>(std::vector<Stmt>{}));
  }
  if (t.kind == Tok::Name && isOp("[", 1)) {
    BufferRef b = lookupBuffer(t);
    next();
    next();
    std::vector<PrimExpr> idx;
    if (isOp("(") && isOp(")", 1)) {
      next();
      next();
    } else {
      do
        idx.push_back(prim());
      while (acceptOp(","));
    }
    expectOp("]", "to close the buffer index");
    expectOp("=", "in a buffer store");
    PE v = primExpr();
    expectNewline("after the stored value");
    v = retype(v, b->dtype);
    return located(t, [&] { return Stmt(make<BufferStore>(b, v.e, idx)); });
  }
  if (t.kind == Tok::Name && isOp("=", 1) && isPrefixed("T", "alloc_buffer", 2))
    fail(t, "T.alloc_buffer is only allowed at the start of a T.block");
  fail(t, "expected a statement (for, if, with, a buffer store 'A[i] = v', 'x: T.int32 = v', "
          "T.evaluate(...) or pass)");
}

Stmt Parser::forStmt() {
  const Token& t = next(); // for
  const Token& name = expectName("as the loop variable");
  if (!isName("in"))
    fail(peek(), "expected 'in' after the loop variable");
  next();
  if (!isName("T") || !isOp(".", 1))
    fail(peek(), "expected T.serial/T.parallel/T.vectorized/T.unroll");
  next();
  next();
  const Token& kindTok = next();
  static const std::map<std::string, ForKind> kinds = {{"serial", ForKind::Serial},
                                                       {"parallel", ForKind::Parallel},
                                                       {"vectorized", ForKind::Vectorized},
                                                       {"unroll", ForKind::Unrolled}};
  auto kit = kinds.find(kindTok.text);
  if (kit == kinds.end())
    fail(kindTok,
         "unknown loop kind 'T." + kindTok.text + "' (serial, parallel, vectorized, unroll)");
  expectOp("(", "after the loop kind");
  std::vector<PE> pos;
  std::optional<PE> extentKw;
  std::optional<DataType> vt;
  Attrs ann;
  while (!isOp(")")) {
    if (kwarg(*this)) {
      const Token& k = next();
      next();
      if (k.text == "extent")
        extentKw = primExpr();
      else if (k.text == "dtype")
        vt = dtypeString(next());
      else if (k.text == "annotations")
        ann = attrDict();
      else
        fail(k, "unknown keyword '" + k.text + "' for a loop");
    } else {
      pos.push_back(primExpr());
    }
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the loop range");
  PE min, extent;
  if (extentKw) {
    if (pos.size() != 1)
      fail(kindTok, "with extent=, give exactly one positional argument (the start)");
    min = pos[0];
    extent = *extentKw; // no unification: min and extent may differ in dtype
  } else if (pos.size() == 1) {
    extent = pos[0];
    min = {intImm(0, extent.e->dtype), false, 1};
  } else if (pos.size() == 2) {
    // Python range semantics: (start, stop).
    min = pos[0];
    PE stop = pos[1];
    unify(min, stop);
    auto* a = as<IntImm>(min.e);
    auto* b = as<IntImm>(stop.e);
    if (a && b && a->dtype == b->dtype)
      extent = {
          located(kindTok, [&] { return PrimExpr(make<IntImm>(a->dtype, b->value - a->value)); }),
          false, 1};
    else if (a && a->value == 0 && a->dtype == stop.e->dtype)
      extent = stop;
    else
      extent = binaryOf(kindTok, NodeKind::Sub, stop, min);
  } else {
    fail(kindTok, "a loop takes (extent), (start, stop) or (start, extent=...)");
  }
  auto v = primVar(name.text, vt ? *vt : extent.e->dtype);
  pushScope();
  define(name.text, Entry{nullptr, v, nullptr});
  Stmt body = nestedBlock(*this, "after the loop header");
  popScope();
  return located(t, [&] { return Stmt(make<For>(v, min.e, extent.e, kit->second, body, ann)); });
}

Range Parser::regionDim() {
  if (isPrefixed("T", "Range")) {
    next();
    next();
    next();
    expectOp("(", "after T.Range");
    PrimExpr m = prim();
    expectOp(",", "between the min and extent of T.Range");
    PrimExpr e = prim();
    expectOp(")", "to close T.Range(");
    return {m, e};
  }
  const Token& at = peek();
  PE a = primExpr();
  if (!acceptOp(":"))
    return {a.e, intImm(1, a.e->dtype)};
  PE b = primExpr();
  auto* ai = as<IntImm>(a.e);
  auto* bi = as<IntImm>(b.e);
  if (ai && bi && ai->dtype == bi->dtype)
    return {a.e,
            located(at, [&] { return PrimExpr(make<IntImm>(ai->dtype, bi->value - ai->value)); })};
  if (ai && ai->value == 0 && ai->dtype == b.e->dtype)
    return {a.e, b.e};
  if (auto* add = as<BinaryExpr>(b.e);
      add && add->op() == NodeKind::Add && printPrimExpr(add->a) == printPrimExpr(a.e))
    return {a.e, add->b};
  return {a.e, binaryOf(at, NodeKind::Sub, b, a).e};
}

std::vector<BufferRegion> Parser::regionList() {
  std::vector<BufferRegion> out;
  while (!isOp(")")) {
    const Token& name = expectName("as a buffer in a region");
    BufferRegion r{lookupBuffer(name), {}};
    expectOp("[", "after the buffer name of a region");
    if (isOp("(") && isOp(")", 1)) {
      next();
      next();
    } else {
      do
        r.region.push_back(regionDim());
      while (acceptOp(","));
    }
    expectOp("]", "to close the region");
    if (int(r.region.size()) != r.buffer->ndim())
      fail(name, fmt::format("region of '{}' has {} dimensions, the buffer {}", name.text,
                             r.region.size(), r.buffer->ndim()));
    out.push_back(std::move(r));
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the region list");
  expectNewline("after the region list");
  return out;
}

Stmt Parser::blockStmt() {
  const Token& t = next(); // with
  next();
  next();
  next(); // T . block
  expectOp("(", "after T.block");
  const Token& nameTok = next();
  if (nameTok.kind != Tok::String)
    fail(nameTok, "expected the block name as a string");
  expectOp(")", "to close T.block(");
  expectOp(":", "after T.block(...)");
  expectNewline("after T.block(...):");
  if (peek().kind != Tok::Indent)
    fail(peek(), "expected an indented block body");
  next();
  pushScope();
  std::vector<IterVar> iters;
  std::vector<PrimExpr> bindings;
  std::vector<BufferRegion> reads, writes;
  std::vector<BufferRef> allocs;
  PrimExpr pred;
  Attrs ann;
  Stmt init;
  while (true) {
    const Token& s = peek();
    if (s.kind == Tok::Name && isOp("=", 1) && isPrefixed("T", "axis", 2)) {
      next();
      next();
      next();
      next();
      next(); // T . axis
      expectOp(".", "after T.axis");
      const Token& kind = expectName("spatial or reduce");
      if (kind.text != "spatial" && kind.text != "reduce")
        fail(kind, "unknown axis kind 'T.axis." + kind.text + "' (spatial, reduce)");
      expectOp("(", "after the axis kind");
      PE extent = primExpr();
      expectOp(",", "between the axis extent and its binding");
      PrimExpr binding = prim();
      std::optional<PE> min;
      std::optional<DataType> vt;
      while (acceptOp(",")) {
        if (isOp(")"))
          break;
        const Token& k = expectName("keyword min= or dtype=");
        expectOp("=", "after the keyword");
        if (k.text == "min")
          min = primExpr();
        else if (k.text == "dtype")
          vt = dtypeString(next());
        else
          fail(k, "unknown keyword '" + k.text + "' for T.axis");
      }
      expectOp(")", "to close T.axis");
      expectNewline("after T.axis(...)");
      PE m = min ? *min : PE{intImm(0, extent.e->dtype), false, 1};
      auto v = primVar(s.text, vt ? *vt : extent.e->dtype);
      iters.push_back(IterVar{v, Range{m.e, extent.e},
                              kind.text == "reduce" ? IterType::Reduce : IterType::Spatial});
      bindings.push_back(binding);
      define(s.text, Entry{nullptr, v, nullptr});
    } else if (isPrefixed("T", "where")) {
      next(), next(), next();
      expectOp("(", "after T.where");
      pred = prim();
      expectOp(")", "to close T.where(");
      expectNewline("after T.where(...)");
    } else if (isPrefixed("T", "reads") || isPrefixed("T", "writes")) {
      next(), next();
      bool r = next().text == "reads";
      expectOp("(", "after T.reads/T.writes");
      (r ? reads : writes) = regionList();
    } else if (isPrefixed("T", "block_attr")) {
      next(), next(), next();
      expectOp("(", "after T.block_attr");
      ann = attrDict();
      expectOp(")", "to close T.block_attr(");
      expectNewline("after T.block_attr(...)");
    } else if (s.kind == Tok::Name && isOp("=", 1) && isPrefixed("T", "alloc_buffer", 2)) {
      next(), next(), next(), next(), next();
      expectOp("(", "after T.alloc_buffer");
      BufferRef b = bufferDecl(s.text, s, false);
      expectNewline("after T.alloc_buffer(...)");
      define(s.text, Entry{nullptr, nullptr, b});
      allocs.push_back(b);
    } else if (isName("with") && isPrefixed("T", "init", 1)) {
      next(), next(), next(), next();
      expectOp("(", "after T.init");
      expectOp(")", "to close T.init(");
      pushScope();
      init = nestedBlock(*this, "after T.init()");
      popScope();
    } else {
      break;
    }
  }
  if (peek().kind == Tok::Dedent)
    fail(peek(), "block '" + nameTok.text + "' has no body");
  Stmt body = stmtList();
  popScope();
  return located(t, [&] {
    return Stmt(
        make<Block>(nameTok.text, iters, bindings, reads, writes, init, body, allocs, pred, ann));
  });
}

} // namespace unity::text::detail
