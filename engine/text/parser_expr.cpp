// Parser, graph-level expressions, struct info and attribute values.
//
// Expressions are atoms (variables, function names, tuples, `R.` builtins,
// operators `R.nn.relu`) followed by calls `f(args, key=value)` and tuple
// indexing `t[0]`. Struct info is read with implicit definition of new
// shape variables switched on (see parser_impl.h).
#include <cmath>
#include <cstdint>
#include <functional>

#include <fmt/format.h>

#include "engine/text/parser_impl.h"
#include "engine/text/printer_impl.h"
#include "engine/text/tensor_text.h"

namespace unity::text::detail {

using namespace ir;

Expr Parser::expr() {
  DepthGuard g(*this, peek());
  return postfix(atom());
}

Expr Parser::postfix(Expr e) {
  while (true) {
    if (isOp("(")) {
      const Token& at = next();
      e = callArgs(at, e);
    } else if (isOp("[")) {
      const Token& at = next();
      const Token& it = peek();
      int64_t i = intLiteral("as a tuple index");
      if (i < 0 || i > INT32_MAX)
        fail(it, "tuple index out of range");
      expectOp("]", "to close the tuple index");
      Expr t = e;
      e = located(at, [&] { return Expr(make<TupleGetItem>(t, int(i))); });
    } else {
      return e;
    }
  }
}

Expr Parser::callArgs(const Token& at, Expr callee) {
  std::vector<Expr> args;
  Attrs attrs;
  std::vector<StructInfo> sinfoArgs;
  bool sawKw = false;
  while (!isOp(")")) {
    if (peek().kind == Tok::Name && isOp("=", 1)) {
      sawKw = true;
      const Token& k = next();
      next();
      if (k.text == "out_sinfo") {
        sinfoArgs = {sinfo()};
      } else if (k.text == "sinfo_args") {
        expectOp("[", "to open sinfo_args");
        while (!isOp("]")) {
          sinfoArgs.push_back(sinfo());
          if (!acceptOp(","))
            break;
        }
        expectOp("]", "to close sinfo_args");
      } else if (k.text == "attrs") {
        Attrs more = attrDict();
        for (auto& [key, v] : more)
          attrs.set(key, v);
      } else {
        if (attrs.has(k.text))
          fail(k, "attribute '" + k.text + "' given twice");
        attrs.set(k.text, attrValue());
      }
    } else {
      if (sawKw)
        fail(peek(), "positional argument after keyword arguments");
      args.push_back(expr());
    }
    if (!acceptOp(","))
      break;
  }
  expectOp(")", "to close the call");
  return located(at, [&] { return Expr(make<Call>(callee, args, attrs, sinfoArgs)); });
}

Expr Parser::atom() {
  const Token& t = peek();
  if (isOp("(")) {
    next();
    std::vector<Expr> fields;
    bool comma = false;
    while (!isOp(")")) {
      fields.push_back(expr());
      if (!acceptOp(","))
        break;
      comma = true;
    }
    expectOp(")", "to close the tuple");
    if (fields.size() == 1 && !comma)
      return fields[0];
    return located(t, [&] { return Expr(make<Tuple>(fields)); });
  }
  if (isName("R") && isOp(".", 1)) {
    next();
    next();
    const Token& n = expectName("after 'R.'");
    return rBuiltin(n, n.text);
  }
  if (t.kind == Tok::Name && !isReservedName(t.text)) {
    next();
    if (const Entry* e = lookup(t.text)) {
      if (e->var)
        return e->var;
      if (e->prim)
        fail(t,
             "'" + t.text + "' is a scalar variable; use R.prim_value(" + t.text + ") as a value");
      fail(t, "'" + t.text + "' is a buffer, not a graph-level value");
    }
    if (globals_.count(t.text))
      return make<GlobalVar>(t.text);
    fail(t, "undefined variable '" + t.text + "'");
  }
  if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::String)
    fail(t,
         "a literal is not a graph-level value; use R.const(...), R.prim_value(...) or R.str(...)");
  fail(t, "expected an expression, found " + (t.kind == Tok::Name || t.kind == Tok::Op
                                                  ? "'" + t.text + "'"
                                                  : std::string("end of line")));
}

static const Token& stringArg(Parser& p, const char* what) {
  const Token& s = p.next();
  if (s.kind != Tok::String)
    p.fail(s, std::string("expected a string ") + what);
  return s;
}

Expr Parser::rBuiltin(const Token& at, const std::string& name) {
  auto open = [&] { expectOp("(", ("after R." + name).c_str()); };
  auto close = [&] { expectOp(")", ("to close R." + name + "(").c_str()); };
  if (name == "const")
    return constant(at);
  if (name == "shape") {
    open();
    auto values = primList("[", "]");
    close();
    return make<ShapeExpr>(values);
  }
  if (name == "prim_value") {
    open();
    PrimExpr v = prim();
    close();
    return make<PrimValue>(v);
  }
  if (name == "str") {
    open();
    std::string s = stringArg(*this, "in R.str(...)").text;
    close();
    return make<StringImm>(s);
  }
  if (name == "op") {
    open();
    std::string s = stringArg(*this, "naming the operator").text;
    close();
    return opRef(s);
  }
  if (name == "global_var") {
    open();
    std::string s = stringArg(*this, "naming the function").text;
    close();
    return make<GlobalVar>(s);
  }
  if (name == "ExternFunc") {
    open();
    std::string sym = stringArg(*this, "naming the symbol").text;
    StructInfo s;
    Attrs attrs;
    while (acceptOp(",")) {
      if (isOp(")"))
        break;
      const Token& k = expectName("keyword sinfo= or attrs=");
      expectOp("=", "after the keyword");
      if (k.text == "sinfo")
        s = sinfo();
      else if (k.text == "attrs")
        attrs = attrDict();
      else
        fail(k, "unknown keyword '" + k.text + "' for R.ExternFunc");
    }
    close();
    return make<ExternFunc>(sym, s, attrs);
  }
  if (name == "match_cast")
    fail(at, "R.match_cast(...) is only allowed as the value of a binding");
  static const std::set<std::string> sinfoNames = {"Tensor", "Tuple",  "Shape",
                                                   "Prim",   "Object", "Callable"};
  if (sinfoNames.count(name))
    fail(at, "struct info R." + name + " is not a value");
  if (isRBuiltin(name))
    fail(at, "R." + name + " is not allowed here");
  // An operator: a dotted path.
  std::string op = name;
  while (isOp(".") && peek(1).kind == Tok::Name) {
    next();
    op += "." + next().text;
  }
  return opRef(op);
}

Expr Parser::constant(const Token& at) {
  expectOp("(", "after R.const");
  if (isName("metadata")) {
    next();
    expectOp("[", "after 'metadata'");
    const Token& it = peek();
    int64_t k = intLiteral("as the metadata index");
    expectOp("]", "after the metadata index");
    expectOp(")", "to close R.const(");
    auto f = metadata_.find(k);
    if (f == metadata_.end())
      fail(it, fmt::format("metadata[{}] is not defined in the metadata section", k));
    return make<Constant>(f->second);
  }
  // A scalar or nested list literal; collect element spellings and the shape.
  std::vector<std::pair<Token, std::string>> elems; // token, spelling (with sign)
  std::vector<int64_t> shape;
  size_t leafDepth = SIZE_MAX; // nesting depth of the scalars, fixed by the first one
  std::function<void(size_t)> level = [&](size_t dim) {
    DepthGuard g(*this, peek());
    if (isOp("[")) {
      const Token& open = next();
      if (dim >= leafDepth)
        fail(open, "ragged nested list");
      int64_t n = 0;
      while (!isOp("]")) {
        level(dim + 1);
        ++n;
        if (!acceptOp(","))
          break;
      }
      expectOp("]", "to close the list");
      if (n == 0)
        fail(open, "empty lists are not constants; use the metadata section");
      if (shape.size() <= dim)
        shape.resize(dim + 1, -1);
      if (shape[dim] == -1)
        shape[dim] = n;
      else if (shape[dim] != n)
        fail(open, "ragged nested list: rows differ in length");
      return;
    }
    std::string sign = acceptOp("-") ? "-" : "";
    const Token& v = next();
    if (v.kind != Tok::Int && v.kind != Tok::Float &&
        !(v.kind == Tok::Name && (v.text == "True" || v.text == "False")))
      fail(v, "expected a number in the constant");
    if (leafDepth == SIZE_MAX)
      leafDepth = dim;
    if (dim != leafDepth)
      fail(v, "ragged nested list");
    elems.emplace_back(v, sign + v.text);
    if (int64_t(elems.size()) > kMaxConstantElements)
      fail(v, "constant too large");
  };
  level(0);
  DataType dtype = DataType::Float32();
  if (acceptOp(",")) {
    if (isName("dtype")) {
      next();
      expectOp("=", "after 'dtype'");
    }
    dtype = dtypeString(next());
  }
  expectOp(")", "to close R.const(");
  if (dtype.isVoid() || dtype.isHandle() || dtype.lanes != 1)
    fail(at, "constant dtype must be a scalar numeric type");
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  if (numel != int64_t(elems.size()))
    fail(at, "ragged nested list");
  Tensor t(dtype, shape);
  for (size_t i = 0; i < elems.size(); ++i)
    if (!storeElement(t, int64_t(i), elems[i].second, elems[i].first.kind == Tok::Float))
      fail(elems[i].first,
           fmt::format("'{}' is not a valid {} value", elems[i].second, dtype.str()));
  return make<Constant>(t);
}

std::vector<PrimExpr> Parser::primList(const char* open, const char* close) {
  expectOp(open, "to open the list");
  std::vector<PrimExpr> out;
  while (!isOp(close)) {
    out.push_back(prim());
    if (!acceptOp(","))
      break;
  }
  expectOp(close, "to close the list");
  return out;
}

StructInfo Parser::sinfo() {
  DepthGuard g(*this, peek());
  bool saved = implicitDefs;
  implicitDefs = true;
  struct Restore {
    bool& f;
    bool v;
    ~Restore() { f = v; }
  } restore{implicitDefs, saved};
  if (isName("None")) {
    next();
    return nullptr;
  }
  if (!isName("R") || !isOp(".", 1))
    fail(peek(), "expected struct info (R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object, R.Callable)");
  next();
  next();
  const Token& k = expectName("after 'R.'");
  if (k.text == "Object")
    return objectSInfo();
  std::map<std::string, Token> kws;
  if (k.text == "Tensor") {
    expectOp("(", "after R.Tensor");
    std::optional<std::vector<PrimExpr>> shape;
    std::optional<DataType> dtype;
    std::optional<int64_t> ndim;
    int positional = 0;
    while (!isOp(")")) {
      if (peek().kind == Tok::Name && isOp("=", 1)) {
        const Token& kw = next();
        next();
        if (kw.text == "dtype")
          dtype = dtypeString(next());
        else if (kw.text == "ndim")
          ndim = intLiteral("as ndim");
        else
          fail(kw, "unknown keyword '" + kw.text + "' for R.Tensor");
      } else if (positional == 0 && (isOp("(") || isOp("["))) {
        shape = isOp("(") ? primList("(", ")") : primList("[", "]");
        ++positional;
      } else if (peek().kind == Tok::String && !dtype) {
        dtype = dtypeString(next());
        ++positional;
      } else {
        fail(peek(), "expected a shape tuple, a dtype string or ndim=/dtype= in R.Tensor(...)");
      }
      if (!acceptOp(","))
        break;
    }
    expectOp(")", "to close R.Tensor(");
    DataType dt = dtype ? *dtype : DataType::Void();
    if (shape) {
      if (ndim && *ndim != int64_t(shape->size()))
        fail(k, "ndim does not match the shape's length");
      return located(k, [&] { return StructInfo(make<TensorSInfo>(dt, *shape)); });
    }
    int64_t n = ndim ? *ndim : -1;
    if (n < -1 || n > 1 << 16)
      fail(k, "ndim out of range");
    return make<TensorSInfo>(dt, int(n));
  }
  if (k.text == "Shape") {
    expectOp("(", "after R.Shape");
    if (isOp("[") || isOp("(")) {
      auto values = isOp("[") ? primList("[", "]") : primList("(", ")");
      expectOp(")", "to close R.Shape(");
      return shapeSInfo(values);
    }
    int64_t n = -1;
    if (isName("ndim")) {
      next();
      expectOp("=", "after 'ndim'");
      n = intLiteral("as ndim");
      if (n < -1 || n > 1 << 16)
        fail(k, "ndim out of range");
    }
    expectOp(")", "to close R.Shape(");
    return make<ShapeSInfo>(int(n));
  }
  if (k.text == "Prim") {
    expectOp("(", "after R.Prim");
    std::optional<DataType> dtype;
    PrimExpr value;
    while (!isOp(")")) {
      if (isName("value") && isOp("=", 1)) {
        next(), next();
        value = prim();
      } else if (isName("dtype") && isOp("=", 1)) {
        next(), next();
        dtype = dtypeString(next());
      } else {
        dtype = dtypeString(next());
      }
      if (!acceptOp(","))
        break;
    }
    expectOp(")", "to close R.Prim(");
    if (!dtype && !value)
      fail(k, "R.Prim needs a dtype or a value");
    return primSInfo(dtype ? *dtype : value->dtype, value);
  }
  if (k.text == "Tuple") {
    expectOp("(", "after R.Tuple");
    std::vector<StructInfo> fields;
    while (!isOp(")")) {
      fields.push_back(sinfo());
      if (!acceptOp(","))
        break;
    }
    expectOp(")", "to close R.Tuple(");
    return tupleSInfo(fields);
  }
  if (k.text == "Callable") {
    expectOp("(", "after R.Callable");
    std::optional<std::vector<StructInfo>> params;
    if (isName("None")) {
      next();
    } else {
      expectOp("[", "to open the parameter list of R.Callable (or None)");
      params.emplace();
      while (!isOp("]")) {
        params->push_back(sinfo());
        if (!acceptOp(","))
          break;
      }
      expectOp("]", "to close the parameter list");
    }
    expectOp(",", "before the result of R.Callable");
    StructInfo ret = sinfo();
    bool pure = true;
    if (acceptOp(",")) {
      const Token& kw = expectName("keyword 'purity'");
      if (kw.text != "purity")
        fail(kw, "unknown keyword '" + kw.text + "' for R.Callable");
      expectOp("=", "after 'purity'");
      if (!isName("True") && !isName("False"))
        fail(peek(), "expected True or False");
      pure = next().text == "True";
    }
    expectOp(")", "to close R.Callable(");
    return make<FuncSInfo>(params, ret, pure);
  }
  fail(k, "unknown struct info 'R." + k.text + "'");
}

// ---------------------------------------------------------------- attributes

AttrValue Parser::attrValue() {
  DepthGuard g(*this, peek());
  const Token& t = peek();
  if (isName("True") || isName("False"))
    return next().text == "True";
  if (t.kind == Tok::String)
    return next().text;
  bool neg = isOp("-");
  const Token& n = peek(neg ? 1 : 0);
  if (n.kind == Tok::Int)
    return intLiteral("");
  if (n.kind == Tok::Float || (n.kind == Tok::Name && (n.text == "inf" || n.text == "nan"))) {
    if (neg)
      next();
    next();
    double v = n.text == "inf"   ? INFINITY
               : n.text == "nan" ? NAN
                                 : std::strtod(n.text.c_str(), nullptr);
    return neg ? -v : v;
  }
  if (isOp("["))
    return attrList();
  if (isPrefixed("R", "dtype")) {
    next(), next(), next();
    expectOp("(", "after R.dtype");
    DataType d = dtypeString(next());
    expectOp(")", "to close R.dtype(");
    return d;
  }
  if (isPrefixed("R", "floats") || isPrefixed("R", "strs")) {
    next(), next();
    bool floats = next().text == "floats";
    expectOp("(", "after R.floats/R.strs");
    const Token& at = peek();
    AttrValue v = attrList();
    expectOp(")", "to close R.floats/R.strs(");
    if (auto* xs = std::get_if<std::vector<int64_t>>(&v)) {
      if (!floats && !xs->empty())
        fail(at, "R.strs needs strings");
      std::vector<double> d(xs->begin(), xs->end());
      if (floats)
        return d;
      return std::vector<std::string>{};
    }
    if (floats != std::holds_alternative<std::vector<double>>(v))
      fail(at, floats ? "R.floats needs numbers" : "R.strs needs strings");
    return v;
  }
  fail(t, "expected an attribute value (bool, number, string, list, R.dtype(...))");
}

AttrValue Parser::attrList() {
  const Token& open = expectOp("[", "to open the list");
  std::vector<AttrValue> items;
  std::vector<Token> toks;
  while (!isOp("]")) {
    toks.push_back(peek());
    items.push_back(attrValue());
    if (!acceptOp(","))
      break;
  }
  expectOp("]", "to close the list");
  bool anyFloat = false, allNum = true, allStr = true;
  for (auto& v : items) {
    anyFloat |= std::holds_alternative<double>(v);
    allNum &= std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    allStr &= std::holds_alternative<std::string>(v);
  }
  if (items.empty())
    return std::vector<int64_t>{};
  if (allStr) {
    std::vector<std::string> out;
    for (auto& v : items)
      out.push_back(std::get<std::string>(v));
    return out;
  }
  if (!allNum)
    fail(open, "a list attribute holds only numbers or only strings");
  if (anyFloat) {
    std::vector<double> out;
    for (auto& v : items)
      out.push_back(std::holds_alternative<double>(v) ? std::get<double>(v)
                                                      : double(std::get<int64_t>(v)));
    return out;
  }
  std::vector<int64_t> out;
  for (auto& v : items)
    out.push_back(std::get<int64_t>(v));
  return out;
}

Attrs Parser::attrDict() {
  expectOp("{", "to open the attribute dictionary");
  Attrs a;
  while (!isOp("}")) {
    const Token& k = next();
    if (k.kind != Tok::String)
      fail(k, "expected a string key in the attribute dictionary");
    expectOp(":", "after the attribute key");
    if (a.has(k.text))
      fail(k, "attribute '" + k.text + "' given twice");
    a.set(k.text, attrValue());
    if (!acceptOp(","))
      break;
  }
  expectOp("}", "to close the attribute dictionary");
  return a;
}

} // namespace unity::text::detail
