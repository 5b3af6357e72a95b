// Printer, module and graph level. A module prints as module attributes,
// then its functions in order (graph functions `@R.function`, tensor
// functions `@T.prim_func`, external symbols `name = R.ExternFunc(..)`),
// then the metadata section holding the bytes of large constants.
//
// Graph functions print their body SeqExpr as statements: a dataflow block
// is `with R.dataflow():` ending in `R.output(..)` (the non-dataflow vars it
// binds); other blocks are plain bindings; the result is `return e`. An `If`
// bound to `y` prints as an if statement whose branches end in `y = ...`.
// Struct info is printed on variables only (that is what the parser reads
// back; everything else is deduced by normalization).
#include <cctype>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "engine/support/error.h"
#include "engine/text/lexer.h"
#include "engine/text/printer.h"
#include "engine/text/printer_impl.h"
#include "engine/text/tensor_text.h"

namespace unity::text {
namespace detail {

using namespace ir;

static std::string ind(int n) { return std::string(size_t(n) * 4, ' '); }

static const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "and",   "as",     "assert", "break",  "class",    "continue",     "def",      "del",
      "elif",  "else",   "except", "False",  "finally",  "for",          "from",     "global",
      "if",    "import", "in",     "is",     "lambda",   "None",         "nonlocal", "not",
      "or",    "pass",   "raise",  "return", "True",     "try",          "while",    "with",
      "yield", "R",      "T",      "I",      "metadata", "module_attrs", "inf",      "nan"};
  return k;
}

bool isReservedName(const std::string& s) { return keywords().count(s) != 0; }

bool isIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

std::string formatDouble(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

// Names after `R.` that are part of the format, not operators.
bool isRBuiltin(const std::string& s) {
  static const std::set<std::string> b = {
      "const",  "shape",       "prim_value", "str",    "match_cast", "ExternFunc",
      "op",     "global_var",  "dataflow",   "output", "func_attr",  "function",
      "Tensor", "Tuple",       "Shape",      "Prim",   "Object",     "Callable",
      "dtype",  "tensor_data", "floats",     "strs"};
  return b.count(s) != 0;
}

static bool isOpPath(const std::string& name) {
  size_t start = 0;
  bool first = true;
  while (true) {
    size_t dot = name.find('.', start);
    std::string part =
        name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!isIdentifier(part) || isReservedName(part) || (first && isRBuiltin(part)))
      return false;
    if (dot == std::string::npos)
      return true;
    start = dot + 1;
    first = false;
  }
}

Printer::Printer(const IRModuleNode* module) : module_(module) {
  reserved_ = keywords();
  if (module)
    for (auto& [name, f] : module->functions)
      reserved_.insert(name);
  beginFunction();
}

void Printer::beginFunction() {
  names_.clear();
  used_.clear();
  used_.insert(reserved_.begin(), reserved_.end());
  bound_.clear();
  decls_.clear();
}

std::string Printer::nameOf(const Node* n, const std::string& hint) {
  auto it = names_.find(n);
  if (it != names_.end())
    return it->second;
  std::string base;
  for (char c : hint)
    base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (base.empty())
    base = "v";
  if (std::isdigit(static_cast<unsigned char>(base[0])))
    base = "v" + base;
  std::string name = base;
  for (int i = 1; used_.count(name); ++i)
    name = base + "_" + std::to_string(i);
  used_.insert(name);
  names_.emplace(n, name);
  return name;
}

std::string Printer::attrValue(const AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v))
    return *b ? "True" : "False";
  if (auto* i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v))
    return formatDouble(*d);
  if (auto* s = std::get_if<std::string>(&v))
    return quoteString(*s);
  if (auto* t = std::get_if<DataType>(&v))
    return "R.dtype(" + quoteString(t->str()) + ")";
  std::vector<std::string> parts;
  if (auto* xs = std::get_if<std::vector<int64_t>>(&v)) {
    for (auto x : *xs)
      parts.push_back(std::to_string(x));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  if (auto* xs = std::get_if<std::vector<double>>(&v)) {
    if (xs->empty())
      return "R.floats([])";
    for (auto x : *xs)
      parts.push_back(formatDouble(x));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  auto& xs = std::get<std::vector<std::string>>(v);
  if (xs.empty())
    return "R.strs([])";
  for (auto& x : xs)
    parts.push_back(quoteString(x));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::string Printer::attrDict(const Attrs& a) {
  std::vector<std::string> parts;
  for (auto& [k, v] : a)
    parts.push_back(quoteString(k) + ": " + attrValue(v));
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

std::string Printer::sinfo(const StructInfo& s) {
  if (!s)
    return "None";
  bool saved = typePosition;
  typePosition = true;
  std::string out;
  auto dims = [&](const std::vector<PrimExpr>& ds, bool tuple) {
    std::vector<std::string> parts;
    for (auto& d : ds)
      parts.push_back(primStr(d));
    if (tuple && parts.size() == 1)
      return "(" + parts[0] + ",)";
    std::string joined = fmt::format("{}", fmt::join(parts, ", "));
    return tuple ? "(" + joined + ")" : "[" + joined + "]";
  };
  switch (s->kind()) {
  case NodeKind::ObjectSInfo:
    out = "R.Object";
    break;
  case NodeKind::PrimSInfo: {
    auto* p = as<PrimSInfo>(s);
    out = "R.Prim(" + quoteString(p->dtype.str());
    if (p->value)
      out += ", value=" + primStr(p->value);
    out += ")";
    break;
  }
  case NodeKind::ShapeSInfo: {
    auto* p = as<ShapeSInfo>(s);
    out = p->values ? "R.Shape(" + dims(*p->values, false) + ")"
                    : fmt::format("R.Shape(ndim={})", p->ndim);
    break;
  }
  case NodeKind::TensorSInfo: {
    auto* t = as<TensorSInfo>(s);
    std::vector<std::string> args;
    if (t->shape) {
      args.push_back(dims(*t->shape, true));
      if (!t->dtype.isVoid())
        args.push_back(quoteString(t->dtype.str()));
    } else {
      if (t->ndim != -1)
        args.push_back(fmt::format("ndim={}", t->ndim));
      if (!t->dtype.isVoid())
        args.push_back("dtype=" + quoteString(t->dtype.str()));
    }
    out = fmt::format("R.Tensor({})", fmt::join(args, ", "));
    break;
  }
  case NodeKind::TupleSInfo: {
    std::vector<std::string> parts;
    for (auto& f : as<TupleSInfo>(s)->fields)
      parts.push_back(sinfo(f));
    out = fmt::format("R.Tuple({})", fmt::join(parts, ", "));
    break;
  }
  case NodeKind::FuncSInfo: {
    auto* f = as<FuncSInfo>(s);
    std::string params = "None";
    if (f->params) {
      std::vector<std::string> parts;
      for (auto& p : *f->params)
        parts.push_back(sinfo(p));
      params = fmt::format("[{}]", fmt::join(parts, ", "));
    }
    out =
        fmt::format("R.Callable({}, {}{})", params, sinfo(f->ret), f->pure ? "" : ", purity=False");
    break;
  }
  default:
    out = "<?>";
  }
  typePosition = saved;
  return out;
}

std::string Printer::constant(const Constant* c) {
  const Tensor& t = c->data;
  if (canInlineConstant(t)) {
    int64_t next = 0;
    // Nested lists in row-major order.
    std::function<std::string(int)> level = [&](int dim) -> std::string {
      if (dim == t.ndim())
        return formatElement(t, next++);
      std::vector<std::string> parts;
      for (int64_t i = 0; i < t.shape()[dim]; ++i)
        parts.push_back(level(dim + 1));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    };
    return fmt::format("R.const({}, {})", level(0), quoteString(t.dtype().str()));
  }
  auto [it, fresh] = metaIndex_.emplace(t.data(), static_cast<int>(metadata_.size()));
  if (fresh)
    metadata_.push_back(t);
  return fmt::format("R.const(metadata[{}])", it->second);
}

std::string Printer::metadataSection() const {
  if (metadata_.empty())
    return {};
  std::string out = "# metadata\n";
  for (size_t i = 0; i < metadata_.size(); ++i) {
    const Tensor& t = metadata_[i];
    out += fmt::format("metadata[{}] = R.tensor_data({}, {}, \"{}\")\n", i,
                       quoteString(t.dtype().str()), Tensor::shapeStr(t.shape()),
                       base64Encode(t.data(), t.nbytes()));
  }
  return out;
}

std::string Printer::callStr(const Call* c) {
  std::string callee;
  if (auto* op = as<OpRef>(c->op))
    callee = isOpPath(op->name) ? "R." + op->name : "R.op(" + quoteString(op->name) + ")";
  else
    callee = expr(c->op);
  std::vector<std::string> args;
  for (auto& a : c->args)
    args.push_back(expr(a));
  bool kwargs = true;
  for (auto& [k, v] : c->attrs)
    if (!isIdentifier(k) || isReservedName(k) || k == "out_sinfo" || k == "sinfo_args" ||
        k == "attrs")
      kwargs = false;
  if (kwargs)
    for (auto& [k, v] : c->attrs)
      args.push_back(k + "=" + attrValue(v));
  else
    args.push_back("attrs=" + attrDict(c->attrs));
  if (c->sinfoArgs.size() == 1) {
    args.push_back("out_sinfo=" + sinfo(c->sinfoArgs[0]));
  } else if (!c->sinfoArgs.empty()) {
    std::vector<std::string> parts;
    for (auto& s : c->sinfoArgs)
      parts.push_back(sinfo(s));
    args.push_back(fmt::format("sinfo_args=[{}]", fmt::join(parts, ", ")));
  }
  return fmt::format("{}({})", callee, fmt::join(args, ", "));
}

static std::string externFunc(Printer& p, const ExternFunc* f) {
  std::string out = "R.ExternFunc(" + quoteString(f->symbol);
  if (f->sinfo)
    out += ", sinfo=" + p.sinfo(f->sinfo);
  if (!f->attrs.empty())
    out += ", attrs=" + p.attrDict(f->attrs);
  return out + ")";
}

std::string Printer::expr(const Expr& e) {
  switch (e->kind()) {
  case NodeKind::Var:
  case NodeKind::DataflowVar:
    return nameOf(e.get(), as<VarNode>(e)->name);
  case NodeKind::Constant:
    return constant(as<Constant>(e));
  case NodeKind::Tuple: {
    std::vector<std::string> parts;
    for (auto& f : as<Tuple>(e)->fields)
      parts.push_back(expr(f));
    if (parts.size() == 1)
      return "(" + parts[0] + ",)";
    return fmt::format("({})", fmt::join(parts, ", "));
  }
  case NodeKind::TupleGetItem: {
    auto* t = as<TupleGetItem>(e);
    return fmt::format("{}[{}]", expr(t->tuple), t->index);
  }
  case NodeKind::Call:
    return callStr(as<Call>(e));
  case NodeKind::ShapeExpr: {
    std::vector<std::string> parts;
    for (auto& v : as<ShapeExpr>(e)->values)
      parts.push_back(primStr(v));
    return fmt::format("R.shape([{}])", fmt::join(parts, ", "));
  }
  case NodeKind::PrimValue:
    return "R.prim_value(" + primStr(as<PrimValue>(e)->value) + ")";
  case NodeKind::StringImm:
    return "R.str(" + quoteString(as<StringImm>(e)->value) + ")";
  case NodeKind::GlobalVar: {
    auto& name = as<GlobalVar>(e)->name;
    if (module_ && module_->contains(name) && isIdentifier(name) && !isReservedName(name))
      return name;
    return "R.global_var(" + quoteString(name) + ")";
  }
  case NodeKind::OpRef:
    return "R.op(" + quoteString(as<OpRef>(e)->name) + ")";
  case NodeKind::ExternFunc:
    return externFunc(*this, as<ExternFunc>(e));
  default:
    throw Error(fmt::format("text printer: a {} prints only as a binding's value or a function "
                            "body, not nested inside an expression",
                            kindName(e->kind())));
  }
}

static void originComment(const Span& span, std::string& out) {
  if (!span.origins.empty()) {
    std::vector<std::string> parts;
    for (auto& o : span.origins)
      parts.push_back(quoteString(o));
    out += fmt::format("  # @origin({})", fmt::join(parts, ", "));
  }
}

void Printer::binding(const Binding& b, int indent, std::string& out, bool) {
  std::string pad = ind(indent);
  if (auto* iff = as<If>(b->value); iff && b->kind() == NodeKind::VarBinding) {
    std::string cond = expr(iff->cond);
    std::string name = nameOf(b->var.get(), b->var->name);
    std::string ann = b->var->sinfo ? ": " + sinfo(b->var->sinfo) : "";
    out += pad + "if " + cond + ":";
    originComment(b->span, out);
    out += "\n";
    std::string r = seqBody(iff->thenBranch, indent + 1, out);
    out += ind(indent + 1) + name + ann + " = " + r + "\n";
    out += pad + "else:\n";
    r = seqBody(iff->elseBranch, indent + 1, out);
    out += ind(indent + 1) + name + " = " + r + "\n";
    return;
  }
  std::string value = expr(b->value);
  if (auto* mc = as<MatchCast>(b))
    value = "R.match_cast(" + value + ", " + sinfo(mc->pattern) + ")";
  std::string name = nameOf(b->var.get(), b->var->name);
  std::string ann = b->var->sinfo ? ": " + sinfo(b->var->sinfo) : "";
  out += pad + name + ann + " = " + value;
  originComment(b->span, out);
  out += "\n";
}

std::string Printer::seqBody(const Expr& body, int indent, std::string& out) {
  auto* seq = as<SeqExpr>(body);
  if (!seq)
    return expr(body);
  for (auto& block : seq->blocks) {
    if (!block->dataflow) {
      for (auto& b : block->bindings)
        binding(b, indent, out, false);
      continue;
    }
    out += ind(indent) + "with R.dataflow():\n";
    std::vector<std::string> outputs;
    for (auto& b : block->bindings) {
      binding(b, indent + 1, out, true);
      if (!b->var->isDataflow())
        outputs.push_back(nameOf(b->var.get(), b->var->name));
    }
    out += fmt::format("{}R.output({})\n", ind(indent + 1), fmt::join(outputs, ", "));
  }
  return expr(seq->body);
}

std::string Printer::function(const std::string& name, const Function& f) {
  beginFunction();
  std::vector<std::string> params;
  for (auto& p : f.params) {
    std::string n = nameOf(p.get(), p->name);
    params.push_back(p->sinfo ? n + ": " + sinfo(p->sinfo) : n);
  }
  std::string ret = f.retSInfo ? " -> " + sinfo(f.retSInfo) : "";
  std::string body;
  std::string result = seqBody(f.body, 1, body);
  body += ind(1) + "return " + result + "\n";
  std::string out = fmt::format("@R.function{}\ndef {}({}){}:\n", f.pure ? "" : "(pure=False)",
                                name, fmt::join(params, ", "), ret);
  if (!f.attrs.empty())
    out += ind(1) + "R.func_attr(" + attrDict(f.attrs) + ")\n";
  for (auto& d : decls_)
    out += ind(1) + d + "\n";
  return out + body;
}

std::string Printer::module(const IRModule& m) {
  std::string out = "# unity IR module\n";
  if (!m->attrs.empty())
    out += "module_attrs(" + attrDict(m->attrs) + ")\n";
  for (auto& [name, f] : m->functions) {
    if (!isIdentifier(name) || isReservedName(name))
      throw Error("text printer: function name '" + name + "' is not an identifier");
    out += "\n";
    if (auto* fn = as<Function>(f))
      out += function(name, *fn);
    else if (auto* pf = as<PrimFunc>(f))
      out += primFunc(name, *pf);
    else if (auto* ef = as<ExternFunc>(f)) {
      beginFunction();
      out += name + " = " + externFunc(*this, ef) + "\n";
    }
  }
  if (!metadata_.empty())
    out += "\n" + metadataSection();
  return out;
}

std::string Printer::fragmentExpr(const Expr& e) {
  std::string out;
  if (auto* fn = as<Function>(e))
    out = function("func", *fn);
  else if (auto* pf = as<PrimFunc>(e))
    out = primFunc("func", *pf);
  else if (isa<SeqExpr>(e)) {
    std::string r = seqBody(e, 0, out);
    out += "return " + r + "\n";
  } else
    out = expr(e);
  std::string meta = metadataSection();
  return meta.empty() ? out : out + "\n" + meta;
}

std::string Printer::fragmentStmt(const Stmt& s) {
  std::string out;
  stmtList(s, 0, out);
  return out;
}

} // namespace detail

std::string printModule(const ir::IRModule& m) { return detail::Printer(m.get()).module(m); }
std::string printExpr(const ir::Expr& e) { return detail::Printer().fragmentExpr(e); }
std::string printPrimExpr(const ir::PrimExpr& e) {
  detail::Printer p;
  p.typePosition = true; // a fragment declares nothing
  return p.primStr(e);
}
std::string printStmt(const ir::Stmt& s) { return detail::Printer().fragmentStmt(s); }
std::string printStructInfo(const ir::StructInfo& s) { return detail::Printer().sinfo(s); }

} // namespace unity::text
