// Printer, tensor level: scalar expressions with minimal parentheses,
// statements as indented blocks, PrimFuncs (see printer_impl.h for naming).
//
// Forms whose obvious spelling would lose information print explicitly:
// a loop or block axis starting elsewhere than 0 prints `extent=`/`min=`
// keywords (never `start, stop`, which would need arithmetic to invert);
// a buffer region dimension prints as a point, `lo:hi` with literals,
// `0:e`, `m:m + e`, or `T.Range(m, e)`, whichever the parser inverts exactly.
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "engine/ir/intrinsics.h"
#include "engine/text/lexer.h"
#include "engine/text/printer_impl.h"

namespace unity::text::detail {

using namespace ir;

static std::string ind(int n) { return std::string(size_t(n) * 4, ' '); }

static int binaryPrec(NodeKind k) {
  switch (k) {
  case NodeKind::Or:
    return kOr;
  case NodeKind::And:
    return kAnd;
  case NodeKind::Add:
  case NodeKind::Sub:
    return kAdd;
  case NodeKind::Mul:
  case NodeKind::Div:
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod:
    return kMul;
  default:
    return kCmp;
  }
}

static std::string dtypeCall(DataType t, const std::string& arg) {
  return fmt::format("T.{}({})", t.str(), arg);
}

std::string Printer::usePrimVar(const PrimVar* v) {
  std::string name = nameOf(v, v->name);
  if (bound_.count(v))
    return name;
  bound_.insert(v);
  // Free so far: int64 vars in a type position are defined there implicitly
  // (the parser does the same); anything else needs a declaration.
  if (!(typePosition && v->dtype == DataType::Int64()))
    decls_.push_back(fmt::format("{} = T.{}()", name, v->dtype.str()));
  return name;
}

std::string Printer::bindPrimVar(const PrimVar* v) {
  bound_.insert(v);
  return nameOf(v, v->name);
}

std::pair<std::string, int> Printer::prim(const PrimExpr& e) {
  if (!e)
    return {"None", kAtom};
  switch (e->kind()) {
  case NodeKind::IntImm: {
    auto* i = as<IntImm>(e);
    if (i->dtype == DataType::Int64())
      return {std::to_string(i->value), i->value < 0 ? kUnary : kAtom};
    if (i->dtype == DataType::Bool() && (i->value == 0 || i->value == 1))
      return {i->value ? "True" : "False", kAtom};
    return {dtypeCall(i->dtype, std::to_string(i->value)), kAtom};
  }
  case NodeKind::FloatImm: {
    auto* f = as<FloatImm>(e);
    std::string v = formatDouble(f->value);
    if (!std::isfinite(f->value))
      v = quoteString(v);
    return {dtypeCall(f->dtype, v), kAtom};
  }
  case NodeKind::PrimVar:
    return {usePrimVar(as<PrimVar>(e)), kAtom};
  case NodeKind::Not: {
    auto [a, p] = prim(as<NotExpr>(e)->a);
    return {"not " + (p < kNot ? "(" + a + ")" : a), kNot};
  }
  case NodeKind::Select: {
    auto* s = as<Select>(e);
    return {fmt::format("T.Select({}, {}, {})", primStr(s->cond), primStr(s->t), primStr(s->f)),
            kAtom};
  }
  case NodeKind::Cast: {
    auto* c = as<CastExpr>(e);
    return {fmt::format("T.Cast(\"{}\", {})", c->dtype.str(), primStr(c->value)), kAtom};
  }
  case NodeKind::BufferLoad: {
    auto* l = as<BufferLoad>(e);
    std::vector<std::string> idx;
    for (auto& i : l->indices)
      idx.push_back(primStr(i));
    std::string name = nameOf(l->buffer.get(), l->buffer->name);
    return {
        fmt::format("{}[{}]", name, idx.empty() ? "()" : fmt::format("{}", fmt::join(idx, ", "))),
        kAtom};
  }
  case NodeKind::PrimCall: {
    auto* c = as<PrimCall>(e);
    std::vector<std::string> args;
    for (auto& a : c->args)
      args.push_back(primStr(a));
    if (c->args.empty() || c->args[0]->dtype != c->dtype)
      args.push_back(fmt::format("dtype=\"{}\"", c->dtype.str()));
    return {fmt::format("T.{}({})", c->op, fmt::join(args, ", ")), kAtom};
  }
  case NodeKind::PrimLet: {
    auto* l = as<PrimLet>(e);
    std::string value = primStr(l->value);
    std::string name = bindPrimVar(l->var.get());
    std::string body = primStr(l->body);
    unbindPrimVar(l->var.get());
    std::string dt = l->var->dtype != l->value->dtype
                         ? fmt::format(", dtype=\"{}\"", l->var->dtype.str())
                         : std::string();
    return {fmt::format("T.let({}, {}, {}{})", name, value, body, dt), kAtom};
  }
  default:
    break;
  }
  auto* b = as<BinaryExpr>(e);
  if (!b)
    return {"<?>", kAtom};
  if (b->op() == NodeKind::Min || b->op() == NodeKind::Max)
    return {fmt::format("T.{}({}, {})", b->op() == NodeKind::Min ? "min" : "max", primStr(b->a),
                        primStr(b->b)),
            kAtom};
  int p = binaryPrec(b->op());
  auto [ls, lp] = prim(b->a);
  auto [rs, rp] = prim(b->b);
  bool lParen = p == kCmp ? lp <= p : lp < p;
  bool rParen = rp <= p;
  return {fmt::format("{} {} {}", lParen ? "(" + ls + ")" : ls, binaryOpSymbol(b->op()),
                      rParen ? "(" + rs + ")" : rs),
          p};
}

std::string Printer::buffer(const BufferRef& b) {
  bool saved = typePosition;
  typePosition = true;
  std::vector<std::string> dims;
  for (auto& d : b->shape)
    dims.push_back(primStr(d));
  typePosition = saved;
  std::string shape =
      dims.size() == 1 ? "(" + dims[0] + ",)" : fmt::format("({})", fmt::join(dims, ", "));
  std::string scope = b->scope == "global" ? "" : ", scope=" + quoteString(b->scope);
  return fmt::format("({}, \"{}\"{})", shape, b->dtype.str(), scope);
}

static bool isZeroOf(const PrimExpr& e, DataType t) {
  auto* i = as<IntImm>(e);
  return i && i->value == 0 && i->dtype == t;
}

std::string Printer::primFunc(const std::string& name, const PrimFunc& f) {
  beginFunction();
  std::vector<std::string> params;
  for (auto& p : f.params) {
    if (p.buffer) {
      std::string decl = buffer(p.buffer);
      params.push_back(nameOf(p.buffer.get(), p.buffer->name) + ": T.Buffer" + decl);
    } else {
      bound_.insert(p.scalar.get());
      params.push_back(nameOf(p.scalar.get(), p.scalar->name) + ": T." + p.scalar->dtype.str());
    }
  }
  std::string body;
  stmtList(f.body, 1, body);
  std::string out = fmt::format("@T.prim_func\ndef {}({}):\n", name, fmt::join(params, ", "));
  if (!f.attrs.empty())
    out += ind(1) + "T.func_attr(" + attrDict(f.attrs) + ")\n";
  for (auto& d : decls_)
    out += ind(1) + d + "\n";
  return out + body;
}

void Printer::stmtList(const Stmt& s, int indent, std::string& out) {
  std::vector<Stmt> items;
  if (auto* seq = as<SeqStmt>(s))
    items = seq->seq;
  else
    items.push_back(s);
  if (items.empty()) {
    out += ind(indent) + "pass\n";
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    auto* let = as<LetStmt>(items[i]);
    if (let && i + 1 == items.size()) {
      // The last let of a list: its body is the rest of the list.
      std::string value = primStr(let->value);
      std::string name = bindPrimVar(let->var.get());
      out += fmt::format("{}{}: T.{} = {}\n", ind(indent), name, let->var->dtype.str(), value);
      stmtList(let->body, indent, out);
      unbindPrimVar(let->var.get());
    } else {
      stmt(items[i], indent, out);
    }
  }
}

static std::string regionDim(Printer& p, const Range& r) {
  DataType md = r.min->dtype, ed = r.extent->dtype;
  auto* mi = as<IntImm>(r.min);
  auto* ei = as<IntImm>(r.extent);
  if (ei && ei->value == 1 && ed == md)
    return p.primStr(r.min);
  if (mi && ei && md == ed && md.isInt() && ei->value >= 0 && mi->value <= INT64_MAX - ei->value) {
    PrimExpr stop = make<IntImm>(md, mi->value + ei->value);
    return p.primStr(r.min) + ":" + p.primStr(stop);
  }
  if (md == ed) {
    bool zeroMin = mi && mi->value == 0;
    if (zeroMin && !ei)
      return p.primStr(r.min) + ":" + p.primStr(r.extent);
    if (!zeroMin) {
      auto [es, ep] = p.prim(r.extent);
      return p.primStr(r.min) + ":" + p.primStr(r.min) + " + " + (ep <= kAdd ? "(" + es + ")" : es);
    }
  }
  return fmt::format("T.Range({}, {})", p.primStr(r.min), p.primStr(r.extent));
}

static std::string regions(Printer& p, const std::vector<BufferRegion>& rs) {
  std::vector<std::string> out;
  for (auto& r : rs) {
    std::vector<std::string> dims;
    for (auto& d : r.region)
      dims.push_back(regionDim(p, d));
    out.push_back(fmt::format("{}[{}]", p.nameOf(r.buffer.get(), r.buffer->name),
                              dims.empty() ? "()" : fmt::format("{}", fmt::join(dims, ", "))));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

void Printer::stmt(const Stmt& s, int indent, std::string& out) {
  std::string pad = ind(indent);
  switch (s->kind()) {
  case NodeKind::BufferStore: {
    auto* st = as<BufferStore>(s);
    std::vector<std::string> idx;
    for (auto& i : st->indices)
      idx.push_back(primStr(i));
    out += fmt::format("{}{}[{}] = {}\n", pad, nameOf(st->buffer.get(), st->buffer->name),
                       idx.empty() ? "()" : fmt::format("{}", fmt::join(idx, ", ")),
                       primStr(st->value));
    return;
  }
  case NodeKind::For: {
    auto* f = as<For>(s);
    std::vector<std::string> args;
    if (isZeroOf(f->min, f->extent->dtype)) {
      args.push_back(primStr(f->extent));
    } else {
      args.push_back(primStr(f->min));
      args.push_back("extent=" + primStr(f->extent));
    }
    if (f->var->dtype != f->extent->dtype)
      args.push_back(fmt::format("dtype=\"{}\"", f->var->dtype.str()));
    if (!f->annotations.empty())
      args.push_back("annotations=" + attrDict(f->annotations));
    std::string name = bindPrimVar(f->var.get());
    out += fmt::format("{}for {} in T.{}({}):\n", pad, name, forKindName(f->forKind),
                       fmt::join(args, ", "));
    stmtList(f->body, indent + 1, out);
    unbindPrimVar(f->var.get());
    return;
  }
  case NodeKind::Block: {
    auto* b = as<Block>(s);
    out += fmt::format("{}with T.block({}):\n", pad, quoteString(b->name));
    std::string in = ind(indent + 1);
    std::vector<std::string> axes;
    for (size_t i = 0; i < b->iters.size(); ++i) {
      auto& iv = b->iters[i];
      std::vector<std::string> args{primStr(iv.dom.extent), primStr(b->bindings[i])};
      if (!isZeroOf(iv.dom.min, iv.dom.extent->dtype))
        args.push_back("min=" + primStr(iv.dom.min));
      if (iv.var->dtype != iv.dom.extent->dtype)
        args.push_back(fmt::format("dtype=\"{}\"", iv.var->dtype.str()));
      axes.push_back(fmt::format("T.axis.{}({})",
                                 iv.type == IterType::Reduce ? "reduce" : "spatial",
                                 fmt::join(args, ", ")));
    }
    for (size_t i = 0; i < b->iters.size(); ++i)
      out += in + bindPrimVar(b->iters[i].var.get()) + " = " + axes[i] + "\n";
    if (b->predicate)
      out += in + "T.where(" + primStr(b->predicate) + ")\n";
    if (!b->reads.empty())
      out += in + "T.reads(" + regions(*this, b->reads) + ")\n";
    if (!b->writes.empty())
      out += in + "T.writes(" + regions(*this, b->writes) + ")\n";
    if (!b->annotations.empty())
      out += in + "T.block_attr(" + attrDict(b->annotations) + ")\n";
    for (auto& a : b->allocs) {
      std::string decl = buffer(a);
      out += in + nameOf(a.get(), a->name) + " = T.alloc_buffer" + decl + "\n";
    }
    if (b->init) {
      out += in + "with T.init():\n";
      stmtList(b->init, indent + 2, out);
    }
    stmtList(b->body, indent + 1, out);
    for (auto& iv : b->iters)
      unbindPrimVar(iv.var.get());
    return;
  }
  case NodeKind::LetStmt: {
    auto* l = as<LetStmt>(s);
    std::string value = primStr(l->value);
    std::string dt = l->var->dtype != l->value->dtype
                         ? fmt::format(", dtype=\"{}\"", l->var->dtype.str())
                         : std::string();
    std::string name = bindPrimVar(l->var.get());
    out += fmt::format("{}with T.LetStmt({}{}) as {}:\n", pad, value, dt, name);
    stmtList(l->body, indent + 1, out);
    unbindPrimVar(l->var.get());
    return;
  }
  case NodeKind::IfThenElse: {
    auto* i = as<IfThenElse>(s);
    out += pad + "if " + primStr(i->cond) + ":\n";
    stmtList(i->then, indent + 1, out);
    if (i->otherwise) {
      out += pad + "else:\n";
      stmtList(i->otherwise, indent + 1, out);
    }
    return;
  }
  case NodeKind::SeqStmt:
    stmtList(s, indent, out);
    return;
  case NodeKind::Evaluate:
    out += pad + "T.evaluate(" + primStr(as<Evaluate>(s)->value) + ")\n";
    return;
  case NodeKind::Allocate: {
    auto* a = as<Allocate>(s);
    std::string decl = buffer(a->buffer);
    out += fmt::format("{}with T.allocate{} as {}:\n", pad, decl,
                       nameOf(a->buffer.get(), a->buffer->name));
    stmtList(a->body, indent + 1, out);
    return;
  }
  default:
    out += pad + "<?>\n";
  }
}

} // namespace unity::text::detail
