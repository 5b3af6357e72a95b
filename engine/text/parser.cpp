// Parser, module and graph level (see parser_impl.h for the overall scheme
// and docs/text-format.md for the grammar).
//
// A graph function body is a list of statements: plain bindings (grouped
// into one non-dataflow block per maximal run), `with R.dataflow():` blocks
// (their bindings make DataflowVars except the names listed in the block's
// final `R.output(...)`, found by a look-ahead), `if` statements (each branch
// ends with an assignment to the same name, which becomes the branch result)
// and a final `return`.
#include "engine/text/parser.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "engine/text/parser_impl.h"
#include "engine/text/printer_impl.h"
#include "engine/text/tensor_text.h"

namespace unity::text {
namespace detail {

using namespace ir;

Parser::Parser(std::string_view source, std::string file) : src_(source), file_(std::move(file)) {
  lex_ = lex(source, file_);
}

// ---------------------------------------------------------------- tokens

const Token& Parser::peek(size_t k) const {
  size_t i = std::min(pos_ + k, lex_.tokens.size() - 1);
  return lex_.tokens[i];
}

const Token& Parser::next() {
  const Token& t = lex_.tokens[pos_];
  if (pos_ + 1 < lex_.tokens.size())
    ++pos_;
  return t;
}

bool Parser::isOp(const char* op, size_t k) const {
  const Token& t = peek(k);
  return t.kind == Tok::Op && t.text == op;
}

bool Parser::isName(const char* name, size_t k) const {
  const Token& t = peek(k);
  return t.kind == Tok::Name && t.text == name;
}

bool Parser::isPrefixed(const char* ns, const char* name, size_t k) const {
  return isName(ns, k) && isOp(".", k + 1) && peek(k + 2).kind == Tok::Name &&
         (!name || peek(k + 2).text == name);
}

bool Parser::acceptOp(const char* op) {
  if (!isOp(op))
    return false;
  next();
  return true;
}

static std::string describe(const Token& t) {
  switch (t.kind) {
  case Tok::Newline:
    return "end of line";
  case Tok::Indent:
    return "indentation";
  case Tok::Dedent:
    return "end of block";
  case Tok::End:
    return "end of file";
  case Tok::String:
    return "string \"" + t.text + "\"";
  default:
    return "'" + t.text + "'";
  }
}

const Token& Parser::expectOp(const char* op, const char* context) {
  if (!isOp(op))
    fail(peek(), fmt::format("expected '{}' {}, found {}", op, context, describe(peek())));
  return next();
}

const Token& Parser::expectName(const char* context) {
  if (peek().kind != Tok::Name)
    fail(peek(), fmt::format("expected a name {}, found {}", context, describe(peek())));
  return next();
}

void Parser::expectNewline(const char* context) {
  if (peek().kind != Tok::Newline)
    fail(peek(), fmt::format("expected end of line {}, found {}", context, describe(peek())));
  next();
}

void Parser::fail(const Token& at, const std::string& msg) const {
  throw Error(SourceLoc{file_, at.line, at.col}, msg, sourceLine(src_, at.line));
}

Parser::DepthGuard::DepthGuard(Parser& p, const Token& at) : p(p) {
  if (++p.depth_ > kMaxNestingDepth) {
    --p.depth_;
    p.fail(at, fmt::format("nesting too deep (more than {} levels)", kMaxNestingDepth));
  }
}

const Entry* Parser::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end())
      return &f->second;
  }
  return nullptr;
}

Span Parser::spanAt(const Token& t) const {
  Span s;
  s.file = file_;
  s.line = t.line;
  s.column = t.col;
  if (auto it = lex_.originsByLine.find(t.line); it != lex_.originsByLine.end())
    s.origins = it->second;
  return s;
}

// ---------------------------------------------------------------- module

// Finds the first token of each top-level line: function names are known
// before any body is parsed, and metadata lines are read first.
void Parser::topLevelScan() {
  int depth = 0;
  auto& toks = lex_.tokens;
  for (size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind == Tok::Indent)
      ++depth;
    if (t.kind == Tok::Dedent)
      --depth;
    bool lineStart = i == 0 || toks[i - 1].kind == Tok::Newline || toks[i - 1].kind == Tok::Dedent;
    if (depth != 0 || !lineStart || t.kind != Tok::Name)
      continue;
    std::string name;
    const Token* at = nullptr;
    if (t.text == "def" && i + 1 < toks.size() && toks[i + 1].kind == Tok::Name) {
      at = &toks[i + 1];
    } else if (t.text == "metadata") {
      metadataLines_.push_back(i);
      continue;
    } else if (i + 1 < toks.size() && toks[i + 1].kind == Tok::Op && toks[i + 1].text == "=") {
      at = &t;
    }
    if (!at)
      continue;
    if (isReservedName(at->text))
      fail(*at, "'" + at->text + "' is reserved and cannot name a function");
    if (!globals_.insert(at->text).second)
      fail(*at, "function '" + at->text + "' is defined twice");
  }
}

void Parser::metadataLine() {
  const Token& start = next(); // metadata
  expectOp("[", "after 'metadata'");
  const Token& idxTok = peek();
  int64_t idx = intLiteral("as the metadata index");
  expectOp("]", "after the metadata index");
  expectOp("=", "after metadata[...]");
  if (!isPrefixed("R", "tensor_data"))
    fail(peek(), "expected R.tensor_data(...) in the metadata section");
  next(), next(), next();
  expectOp("(", "after R.tensor_data");
  DataType dtype = dtypeString(next());
  expectOp(",", "after the dtype");
  expectOp("(", "to open the shape");
  std::vector<int64_t> shape;
  int64_t numel = 1;
  while (!isOp(")")) {
    const Token& d = peek();
    int64_t v = intLiteral("as a dimension");
    if (v < 0)
      fail(d, "negative dimension");
    if (v > 0 && numel > kMaxConstantElements / v)
      fail(d, "constant too large");
    numel *= v;
    shape.push_back(v);
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the shape");
  expectOp(",", "after the shape");
  const Token& data = next();
  if (data.kind != Tok::String)
    fail(data, "expected the base64 data as a string");
  expectOp(")", "to close R.tensor_data(");
  expectNewline("after the metadata entry");
  auto bytes = base64Decode(data.text);
  if (!bytes)
    fail(data, "metadata data is not valid base64");
  if (dtype.isVoid() || dtype.isHandle())
    fail(start, "metadata dtype must be a numeric type");
  Tensor t(dtype, shape);
  if (bytes->size() != t.nbytes())
    fail(data, fmt::format("metadata[{}] holds {} bytes, but {} of shape {} needs {}", idx,
                           bytes->size(), dtype.str(), Tensor::shapeStr(shape), t.nbytes()));
  if (!bytes->empty())
    std::memcpy(t.mutableData(), bytes->data(), bytes->size());
  if (!metadata_.emplace(idx, t).second)
    fail(idxTok, fmt::format("metadata[{}] is defined twice", idx));
}

IRModule Parser::parseModule() {
  topLevelScan();
  for (size_t p : metadataLines_) {
    pos_ = p;
    metadataLine();
  }
  pos_ = 0;
  std::vector<IRModuleNode::Entry> funcs;
  Attrs attrs;
  bool haveAttrs = false;
  while (peek().kind != Tok::End) {
    const Token& t = peek();
    if (t.kind == Tok::Indent)
      fail(t, "unexpected indentation");
    if (t.kind == Tok::Newline || t.kind == Tok::Dedent) {
      next();
      continue;
    }
    if (isName("metadata")) {
      while (peek().kind != Tok::Newline && peek().kind != Tok::End)
        next();
      continue;
    }
    if (isName("module_attrs")) {
      if (haveAttrs)
        fail(t, "module_attrs given twice");
      haveAttrs = true;
      next();
      expectOp("(", "after module_attrs");
      attrs = attrDict();
      expectOp(")", "to close module_attrs(");
      expectNewline("after module_attrs(...)");
      continue;
    }
    if (isOp("@")) {
      next();
      bool prim = false, pure = true;
      if (isPrefixed("T", "prim_func")) {
        prim = true;
        next(), next(), next();
      } else if (isPrefixed("R", "function")) {
        next(), next(), next();
        if (acceptOp("(")) {
          const Token& k = expectName("keyword 'pure'");
          if (k.text != "pure")
            fail(k, "unknown keyword '" + k.text + "' for R.function");
          expectOp("=", "after 'pure'");
          if (!isName("True") && !isName("False"))
            fail(peek(), "expected True or False");
          pure = next().text == "True";
          expectOp(")", "to close R.function(");
        }
      } else {
        fail(peek(), "expected @R.function or @T.prim_func");
      }
      expectNewline("after the decorator");
      if (!isName("def"))
        fail(peek(), "expected 'def' after the decorator");
      next();
      const Token& name = expectName("as the function name");
      size_t sigPos = pos_;
      BaseFunc f = prim ? BaseFunc(primFunc(sigPos)) : BaseFunc(function(pure, sigPos));
      funcs.emplace_back(name.text, f);
      continue;
    }
    if (t.kind == Tok::Name && isOp("=", 1)) {
      next(), next();
      if (!isPrefixed("R", "ExternFunc"))
        fail(peek(), "expected R.ExternFunc(...) at the top level");
      scopes_.clear();
      pushScope();
      Expr e = expr();
      popScope();
      expectNewline("after R.ExternFunc(...)");
      funcs.emplace_back(t.text, cast<BaseFuncNode>(e));
      continue;
    }
    if (isName("def"))
      fail(t, "a function needs a decorator: @R.function or @T.prim_func");
    fail(t, "expected a function (@R.function, @T.prim_func), module_attrs(...) or "
            "'name = R.ExternFunc(...)'");
  }
  return located(peek(), [&] { return makeModule(funcs, attrs); });
}

// ---------------------------------------------------------------- functions

// From the '(' of a signature, skips to the first token of the body.
size_t Parser::skipToBody() {
  int d = 0;
  do {
    const Token& t = next();
    if (t.kind == Tok::End)
      fail(t, "unexpected end of file in a function signature");
    if (t.kind == Tok::Op && (t.text == "(" || t.text == "[" || t.text == "{"))
      ++d;
    if (t.kind == Tok::Op && (t.text == ")" || t.text == "]" || t.text == "}"))
      --d;
  } while (d > 0);
  if (acceptOp("->"))
    while (!(isOp(":") && peek(1).kind == Tok::Newline) && peek().kind != Tok::Newline &&
           peek().kind != Tok::End)
      next();
  expectOp(":", "to end the function signature");
  expectNewline("after the function signature");
  if (peek().kind != Tok::Indent)
    fail(peek(), "expected an indented function body");
  next();
  return pos_;
}

// Function attributes and declarations at the top of a body.
void Parser::funcHeader(const char* ns, Attrs& attrs) {
  while (true) {
    if (isPrefixed(ns, "func_attr")) {
      next(), next(), next();
      expectOp("(", "after func_attr");
      attrs = attrDict();
      expectOp(")", "to close func_attr(");
      expectNewline("after func_attr(...)");
    } else if (!declaration()) {
      return;
    }
  }
}

FunctionRef Parser::function(bool pure, size_t sigPos) {
  scopes_.clear();
  pushScope();
  skipToBody();
  Attrs attrs;
  funcHeader("R", attrs);
  size_t bodyPos = pos_;
  pos_ = sigPos;
  expectOp("(", "to open the parameter list");
  std::vector<Var> params;
  while (!isOp(")")) {
    const Token& name = expectName("as a parameter name");
    StructInfo s;
    if (acceptOp(":"))
      s = sinfo();
    auto v = makeVar(name.text, s);
    define(name.text, Entry{v, nullptr, nullptr});
    params.push_back(v);
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the parameter list");
  StructInfo ret;
  if (acceptOp("->"))
    ret = sinfo();
  pos_ = bodyPos;
  std::vector<Ref<BindingBlock>> blocks;
  const Token& at = peek();
  Expr result = seqBody(true, blocks);
  Expr body = located(at, [&] { return Expr(make<SeqExpr>(blocks, result)); });
  popScope();
  return located(at, [&] { return make<Function>(params, body, ret, attrs, pure); });
}

std::set<std::string> Parser::scanOutputs() const {
  // From the first token of a dataflow block's body: names in its R.output(...).
  std::set<std::string> out;
  int depth = 0;
  auto& toks = lex_.tokens;
  for (size_t i = pos_; i < toks.size(); ++i) {
    if (toks[i].kind == Tok::Indent)
      ++depth;
    if (toks[i].kind == Tok::Dedent && depth-- == 0)
      break;
    if (depth == 0 && toks[i].kind == Tok::Name && toks[i].text == "R" && i + 3 < toks.size() &&
        toks[i + 2].text == "output" && toks[i + 3].text == "(")
      for (size_t k = i + 4; k < toks.size() && toks[k].text != ")"; ++k)
        if (toks[k].kind == Tok::Name)
          out.insert(toks[k].text);
  }
  return out;
}

RawBinding Parser::rawBinding() {
  RawBinding b;
  b.nameTok = next();
  b.span = spanAt(b.nameTok);
  if (acceptOp(":"))
    b.ann = sinfo();
  expectOp("=", "in a binding");
  if (isPrefixed("R", "match_cast")) {
    next(), next(), next();
    expectOp("(", "after R.match_cast");
    b.value = expr();
    expectOp(",", "between the value and the pattern of R.match_cast");
    b.pattern = sinfo();
    expectOp(")", "to close R.match_cast(");
  } else {
    b.value = expr();
  }
  expectNewline("after the binding");
  return b;
}

static Binding makeBinding(Parser& p, RawBinding& r, bool dataflow,
                           const std::set<std::string>& outs) {
  bool dfVar = dataflow && !outs.count(r.nameTok.text);
  Var v = dfVar ? makeDataflowVar(r.nameTok.text, r.ann) : makeVar(r.nameTok.text, r.ann);
  p.define(r.nameTok.text, Entry{v, nullptr, nullptr});
  if (r.pattern)
    return make<MatchCast>(v, r.value, r.pattern, r.span);
  return make<VarBinding>(v, r.value, r.span);
}

// Parses statements up to the DEDENT closing this block (consumed). With
// `ret`, the list must end in `return e`; with `last`, its final statement
// must be a plain binding, which is handed back instead of being bound.
void Parser::bindingsUntilDedent(std::vector<Ref<BindingBlock>>& blocks, Expr* ret,
                                 RawBinding* last) {
  DepthGuard g(*this, peek());
  std::vector<Binding> plain;
  auto flush = [&] {
    if (!plain.empty())
      blocks.push_back(make<BindingBlock>(plain, false));
    plain.clear();
  };
  static const std::set<std::string> none;
  while (true) {
    const Token& t = peek();
    if (t.kind == Tok::Dedent || t.kind == Tok::End) {
      if (ret)
        fail(t, "a function body must end with 'return'");
      if (t.kind == Tok::Dedent)
        next();
      break;
    }
    if (isName("return")) {
      if (!ret)
        fail(t, "'return' is only allowed at the end of a function body");
      next();
      *ret = expr();
      expectNewline("after the returned value");
      if (peek().kind != Tok::Dedent && peek().kind != Tok::End)
        fail(peek(), "statements after 'return'");
      if (peek().kind == Tok::Dedent)
        next();
      break;
    }
    if (isName("with")) {
      if (!isPrefixed("R", "dataflow", 1))
        fail(peek(1), "expected R.dataflow() after 'with'");
      flush();
      blocks.push_back(dataflowBlock());
      continue;
    }
    if (isName("if")) {
      plain.push_back(ifBinding(false, none));
      continue;
    }
    if (isPrefixed("R", "output"))
      fail(t, "R.output(...) outside a dataflow block");
    if (t.kind != Tok::Name || isReservedName(t.text) || !(isOp("=", 1) || isOp(":", 1)))
      fail(t, "expected a binding 'name = value', 'with R.dataflow():', 'if' or 'return'");
    RawBinding r = rawBinding();
    if (last && (peek().kind == Tok::Dedent || peek().kind == Tok::End)) {
      if (r.pattern)
        fail(r.nameTok, "a branch must end with a plain binding, not R.match_cast");
      *last = std::move(r);
      if (peek().kind == Tok::Dedent)
        next();
      break;
    }
    plain.push_back(located(r.nameTok, [&] { return makeBinding(*this, r, false, none); }));
  }
  flush();
}

Ref<BindingBlock> Parser::dataflowBlock() {
  const Token& t = next(); // with
  next(), next(), next();  // R . dataflow
  expectOp("(", "after R.dataflow");
  expectOp(")", "to close R.dataflow(");
  expectOp(":", "after R.dataflow()");
  expectNewline("after R.dataflow():");
  if (peek().kind != Tok::Indent)
    fail(peek(), "expected an indented dataflow block");
  next();
  DepthGuard g(*this, t);
  std::set<std::string> outs = scanOutputs();
  std::vector<Binding> bindings;
  std::set<std::string> bound;
  while (peek().kind != Tok::Dedent && peek().kind != Tok::End) {
    const Token& s = peek();
    if (isPrefixed("R", "output")) {
      next(), next(), next();
      expectOp("(", "after R.output");
      while (!isOp(")")) {
        const Token& n = expectName("in R.output(...)");
        if (!bound.count(n.text))
          fail(n, "R.output names '" + n.text + "', which this dataflow block does not bind");
        if (!acceptOp(","))
          break;
      }
      expectOp(")", "to close R.output(");
      expectNewline("after R.output(...)");
      if (peek().kind != Tok::Dedent && peek().kind != Tok::End)
        fail(peek(), "R.output(...) must be the last statement of a dataflow block");
      break;
    }
    if (isName("if")) {
      bindings.push_back(ifBinding(true, outs));
    } else {
      if (s.kind != Tok::Name || isReservedName(s.text) || !(isOp("=", 1) || isOp(":", 1)))
        fail(s, "expected a binding 'name = value' or R.output(...) in a dataflow block");
      RawBinding r = rawBinding();
      bindings.push_back(located(r.nameTok, [&] { return makeBinding(*this, r, true, outs); }));
    }
    bound.insert(bindings.back()->var->name);
  }
  if (peek().kind == Tok::Dedent)
    next();
  return make<BindingBlock>(bindings, true);
}

Binding Parser::ifBinding(bool dataflow, const std::set<std::string>& outs) {
  const Token& t = next(); // if
  Span span = spanAt(t);
  Expr cond = expr();
  auto branch = [&](const char* what) {
    expectOp(":", what);
    expectNewline(what);
    if (peek().kind != Tok::Indent)
      fail(peek(), std::string("expected an indented block ") + what);
    next();
    pushScope();
    std::vector<Ref<BindingBlock>> blocks;
    RawBinding last;
    const Token& at = peek();
    bindingsUntilDedent(blocks, nullptr, &last);
    popScope();
    if (!last.value)
      fail(at, "each branch of an if must end with an assignment 'name = value'");
    Expr seq = located(at, [&] { return Expr(make<SeqExpr>(blocks, last.value)); });
    return std::make_pair(seq, last);
  };
  auto thenPart = branch("after the if condition");
  Expr thenSeq = thenPart.first;
  RawBinding& thenLast = thenPart.second;
  if (!isName("else"))
    fail(peek(), "an if binding needs an 'else' branch");
  next();
  auto elsePart = branch("after 'else'");
  Expr elseSeq = elsePart.first;
  RawBinding& elseLast = elsePart.second;
  if (thenLast.nameTok.text != elseLast.nameTok.text)
    fail(elseLast.nameTok, fmt::format("both branches must assign the same variable: '{}' vs '{}'",
                                       thenLast.nameTok.text, elseLast.nameTok.text));
  RawBinding r;
  r.nameTok = thenLast.nameTok;
  r.ann = thenLast.ann ? thenLast.ann : elseLast.ann;
  r.span = span;
  r.value = located(t, [&] { return Expr(make<If>(cond, thenSeq, elseSeq)); });
  return makeBinding(*this, r, dataflow, outs);
}

Expr Parser::seqBody(bool, std::vector<Ref<BindingBlock>>& blocks) {
  Expr ret;
  bindingsUntilDedent(blocks, &ret, nullptr);
  return ret;
}

} // namespace detail

ir::IRModule parseModule(std::string_view source, const std::string& fileName) {
  return detail::Parser(source, fileName).parseModule();
}

ir::IRModule parseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(SourceLoc{path, 0, 0}, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseModule(ss.str(), path);
}

} // namespace unity::text
