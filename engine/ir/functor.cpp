#include "engine/ir/functor.h"

namespace unity::ir {

// ============================================================ PrimExprMutator

bool PrimExprMutator::mutateList(const std::vector<PrimExpr>& in, std::vector<PrimExpr>& out) {
  bool changed = false;
  out.clear();
  out.reserve(in.size());
  for (auto& e : in) {
    out.push_back(e ? mutate(e) : e);
    changed |= !sameNode(out.back(), e);
  }
  return changed;
}

PrimExpr PrimExprMutator::mutate(const PrimExpr& e) {
  if (!e)
    return e;
  switch (e->kind()) {
  case NodeKind::IntImm:
  case NodeKind::FloatImm:
  case NodeKind::PrimVar:
    return visitLeaf(e);
  case NodeKind::Not:
    return visitNot(as<NotExpr>(e), e);
  case NodeKind::Select:
    return visitSelect(as<Select>(e), e);
  case NodeKind::Cast:
    return visitCast(as<CastExpr>(e), e);
  case NodeKind::BufferLoad:
    return visitBufferLoad(as<BufferLoad>(e), e);
  case NodeKind::PrimCall:
    return visitPrimCall(as<PrimCall>(e), e);
  case NodeKind::PrimLet:
    return visitPrimLet(as<PrimLet>(e), e);
  default:
    if (auto* b = as<BinaryExpr>(e))
      return visitBinary(b, e);
    return e;
  }
}

PrimExpr PrimExprMutator::visitBinary(const BinaryExpr* op, const PrimExpr& self) {
  PrimExpr a = mutate(op->a), b = mutate(op->b);
  if (sameNode(a, op->a) && sameNode(b, op->b))
    return self;
  return binary(op->op(), a, b);
}
PrimExpr PrimExprMutator::visitNot(const NotExpr* op, const PrimExpr& self) {
  PrimExpr a = mutate(op->a);
  return sameNode(a, op->a) ? self : logicalNot(a);
}
PrimExpr PrimExprMutator::visitSelect(const Select* op, const PrimExpr& self) {
  PrimExpr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
  if (sameNode(c, op->cond) && sameNode(t, op->t) && sameNode(f, op->f))
    return self;
  return make<Select>(c, t, f);
}
PrimExpr PrimExprMutator::visitCast(const CastExpr* op, const PrimExpr& self) {
  PrimExpr v = mutate(op->value);
  return sameNode(v, op->value) ? self : make<CastExpr>(op->dtype, v);
}
PrimExpr PrimExprMutator::visitBufferLoad(const BufferLoad* op, const PrimExpr& self) {
  BufferRef buf = mutateBuffer(op->buffer);
  std::vector<PrimExpr> idx;
  bool changed = mutateList(op->indices, idx);
  if (!changed && sameNode(buf, op->buffer))
    return self;
  return make<BufferLoad>(buf, std::move(idx));
}
PrimExpr PrimExprMutator::visitPrimCall(const PrimCall* op, const PrimExpr& self) {
  std::vector<PrimExpr> args;
  if (!mutateList(op->args, args))
    return self;
  return make<PrimCall>(op->dtype, op->op, std::move(args));
}
PrimExpr PrimExprMutator::visitPrimLet(const PrimLet* op, const PrimExpr& self) {
  PrimExpr v = mutate(op->value), b = mutate(op->body);
  if (sameNode(v, op->value) && sameNode(b, op->body))
    return self;
  return make<PrimLet>(op->var, v, b);
}

// ================================================================ StmtMutator

Stmt StmtMutator::mutate(const Stmt& s) {
  if (!s)
    return s;
  switch (s->kind()) {
  case NodeKind::BufferStore:
    return visitBufferStore(as<BufferStore>(s), s);
  case NodeKind::For:
    return visitFor(as<For>(s), s);
  case NodeKind::Block:
    return visitBlock(as<Block>(s), s);
  case NodeKind::LetStmt:
    return visitLetStmt(as<LetStmt>(s), s);
  case NodeKind::IfThenElse:
    return visitIfThenElse(as<IfThenElse>(s), s);
  case NodeKind::SeqStmt:
    return visitSeqStmt(as<SeqStmt>(s), s);
  case NodeKind::Evaluate:
    return visitEvaluate(as<Evaluate>(s), s);
  case NodeKind::Allocate:
    return visitAllocate(as<Allocate>(s), s);
  default:
    return s;
  }
}

bool StmtMutator::mutateRegions(const std::vector<BufferRegion>& in,
                                std::vector<BufferRegion>& out) {
  bool changed = false;
  out.clear();
  for (auto& r : in) {
    BufferRegion nr{mutateBuffer(r.buffer), {}};
    changed |= !sameNode(nr.buffer, r.buffer);
    for (auto& rg : r.region) {
      Range n{mutate(rg.min), mutate(rg.extent)};
      changed |= !sameNode(n.min, rg.min) || !sameNode(n.extent, rg.extent);
      nr.region.push_back(std::move(n));
    }
    out.push_back(std::move(nr));
  }
  return changed;
}

Stmt StmtMutator::visitBufferStore(const BufferStore* op, const Stmt& self) {
  BufferRef buf = mutateBuffer(op->buffer);
  PrimExpr v = mutate(op->value);
  std::vector<PrimExpr> idx;
  bool changed = mutateList(op->indices, idx);
  if (!changed && sameNode(buf, op->buffer) && sameNode(v, op->value))
    return self;
  return make<BufferStore>(buf, v, std::move(idx));
}

Stmt StmtMutator::visitFor(const For* op, const Stmt& self) {
  PrimExpr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (sameNode(mn, op->min) && sameNode(ext, op->extent) && sameNode(body, op->body))
    return self;
  return make<For>(op->var, mn, ext, op->forKind, body, op->annotations);
}

Stmt StmtMutator::visitBlock(const Block* op, const Stmt& self) {
  bool changed = false;
  std::vector<IterVar> iters;
  for (auto& iv : op->iters) {
    IterVar n{iv.var, {mutate(iv.dom.min), mutate(iv.dom.extent)}, iv.type};
    changed |= !sameNode(n.dom.min, iv.dom.min) || !sameNode(n.dom.extent, iv.dom.extent);
    iters.push_back(std::move(n));
  }
  std::vector<PrimExpr> bindings;
  changed |= mutateList(op->bindings, bindings);
  std::vector<BufferRegion> reads, writes;
  changed |= mutateRegions(op->reads, reads);
  changed |= mutateRegions(op->writes, writes);
  Stmt init = mutate(op->init), body = mutate(op->body);
  changed |= !sameNode(init, op->init) || !sameNode(body, op->body);
  std::vector<BufferRef> allocs;
  for (auto& a : op->allocs) {
    allocs.push_back(mutateBuffer(a));
    changed |= !sameNode(allocs.back(), a);
  }
  PrimExpr pred = mutate(op->predicate);
  changed |= !sameNode(pred, op->predicate);
  if (!changed)
    return self;
  return make<Block>(op->name, std::move(iters), std::move(bindings), std::move(reads),
                     std::move(writes), init, body, std::move(allocs), pred, op->annotations);
}

Stmt StmtMutator::visitLetStmt(const LetStmt* op, const Stmt& self) {
  PrimExpr v = mutate(op->value);
  Stmt body = mutate(op->body);
  if (sameNode(v, op->value) && sameNode(body, op->body))
    return self;
  return make<LetStmt>(op->var, v, body);
}

Stmt StmtMutator::visitIfThenElse(const IfThenElse* op, const Stmt& self) {
  PrimExpr c = mutate(op->cond);
  Stmt t = mutate(op->then), e = mutate(op->otherwise);
  if (sameNode(c, op->cond) && sameNode(t, op->then) && sameNode(e, op->otherwise))
    return self;
  return make<IfThenElse>(c, t, e);
}

Stmt StmtMutator::visitSeqStmt(const SeqStmt* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> seq;
  for (auto& s : op->seq) {
    Stmt n = mutate(s);
    changed |= !sameNode(n, s);
    if (n)
      seq.push_back(std::move(n)); // a mutator may drop a statement by returning null
  }
  if (!changed)
    return self;
  return seqStmt(std::move(seq));
}

Stmt StmtMutator::visitEvaluate(const Evaluate* op, const Stmt& self) {
  PrimExpr v = mutate(op->value);
  return sameNode(v, op->value) ? self : make<Evaluate>(v);
}

Stmt StmtMutator::visitAllocate(const Allocate* op, const Stmt& self) {
  BufferRef b = mutateBuffer(op->buffer);
  Stmt body = mutate(op->body);
  if (sameNode(b, op->buffer) && sameNode(body, op->body))
    return self;
  return make<Allocate>(b, body);
}

PrimFuncRef mutatePrimFunc(StmtMutator& m, const PrimFuncRef& f) {
  struct Access : StmtMutator {
    using StmtMutator::mutateBuffer;
  };
  bool changed = false;
  std::vector<PrimFunc::Param> params;
  for (auto& p : f->params) {
    PrimFunc::Param np = p;
    if (p.buffer)
      np.buffer = static_cast<Access&>(m).mutateBuffer(p.buffer);
    changed |= !sameNode(np.buffer, p.buffer);
    params.push_back(std::move(np));
  }
  Stmt body = m.mutate(f->body);
  if (!changed && sameNode(body, f->body))
    return f;
  return make<PrimFunc>(std::move(params), body, f->attrs);
}

// ================================================================ StmtVisitor

void StmtVisitor::visit(const PrimExpr& e) {
  if (!e)
    return;
  if (auto* b = as<BinaryExpr>(e)) {
    visit(b->a);
    visit(b->b);
  } else if (auto* n = as<NotExpr>(e)) {
    visit(n->a);
  } else if (auto* s = as<Select>(e)) {
    visit(s->cond);
    visit(s->t);
    visit(s->f);
  } else if (auto* c = as<CastExpr>(e)) {
    visit(c->value);
  } else if (auto* l = as<BufferLoad>(e)) {
    visitBuffer(l->buffer);
    for (auto& i : l->indices)
      visit(i);
  } else if (auto* pc = as<PrimCall>(e)) {
    for (auto& a : pc->args)
      visit(a);
  } else if (auto* let = as<PrimLet>(e)) {
    visit(let->value);
    visit(let->body);
  }
}

void StmtVisitor::visitRegions(const std::vector<BufferRegion>& regions) {
  for (auto& r : regions) {
    visitBuffer(r.buffer);
    for (auto& rg : r.region) {
      visit(rg.min);
      visit(rg.extent);
    }
  }
}

void StmtVisitor::visit(const Stmt& s) {
  if (!s)
    return;
  switch (s->kind()) {
  case NodeKind::BufferStore: {
    auto* op = as<BufferStore>(s);
    visitBuffer(op->buffer);
    visit(op->value);
    for (auto& i : op->indices)
      visit(i);
    break;
  }
  case NodeKind::For: {
    auto* op = as<For>(s);
    visit(op->min);
    visit(op->extent);
    visit(op->body);
    break;
  }
  case NodeKind::Block: {
    auto* op = as<Block>(s);
    for (auto& iv : op->iters) {
      visit(iv.dom.min);
      visit(iv.dom.extent);
    }
    for (auto& b : op->bindings)
      visit(b);
    visitRegions(op->reads);
    visitRegions(op->writes);
    for (auto& a : op->allocs)
      visitBuffer(a);
    visit(op->predicate);
    visit(op->init);
    visit(op->body);
    break;
  }
  case NodeKind::LetStmt: {
    auto* op = as<LetStmt>(s);
    visit(op->value);
    visit(op->body);
    break;
  }
  case NodeKind::IfThenElse: {
    auto* op = as<IfThenElse>(s);
    visit(op->cond);
    visit(op->then);
    visit(op->otherwise);
    break;
  }
  case NodeKind::SeqStmt:
    for (auto& x : as<SeqStmt>(s)->seq)
      visit(x);
    break;
  case NodeKind::Evaluate:
    visit(as<Evaluate>(s)->value);
    break;
  case NodeKind::Allocate: {
    auto* op = as<Allocate>(s);
    visitBuffer(op->buffer);
    visit(op->body);
    break;
  }
  default:
    break;
  }
}

void walkPrimExpr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& fn) {
  struct W : StmtVisitor {
    const std::function<void(const PrimExpr&)>& fn;
    explicit W(const std::function<void(const PrimExpr&)>& f) : fn(f) {}
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (!e)
        return;
      fn(e);
      StmtVisitor::visit(e);
    }
  } w(fn);
  w.visit(e);
}

void walkStmt(const Stmt& s, const std::function<void(const Stmt&)>& fn) {
  struct W : StmtVisitor {
    const std::function<void(const Stmt&)>& fn;
    explicit W(const std::function<void(const Stmt&)>& f) : fn(f) {}
    using StmtVisitor::visit;
    void visit(const Stmt& s) override {
      if (!s)
        return;
      fn(s);
      StmtVisitor::visit(s);
    }
  } w(fn);
  w.visit(s);
}

namespace {
struct Substituter : StmtMutator {
  const std::unordered_map<const PrimVar*, PrimExpr>& map;
  explicit Substituter(const std::unordered_map<const PrimVar*, PrimExpr>& m) : map(m) {}
  PrimExpr visitLeaf(const PrimExpr& self) override {
    if (auto* v = as<PrimVar>(self)) {
      auto it = map.find(v);
      if (it != map.end())
        return it->second;
    }
    return self;
  }
};
} // namespace

PrimExpr substitute(const PrimExpr& e, const std::unordered_map<const PrimVar*, PrimExpr>& map) {
  if (map.empty())
    return e;
  Substituter s(map);
  return s.mutate(e);
}
Stmt substitute(const Stmt& st, const std::unordered_map<const PrimVar*, PrimExpr>& map) {
  if (map.empty())
    return st;
  Substituter s(map);
  return s.mutate(st);
}

// ================================================================ ExprMutator

StructInfo ExprMutator::mutateSInfo(const StructInfo& s) {
  if (!s)
    return s;
  if (auto* t = as<TensorSInfo>(s)) {
    if (!t->shape)
      return s;
    std::vector<PrimExpr> dims;
    bool changed = false;
    for (auto& d : *t->shape) {
      dims.push_back(mutatePrim(d));
      changed |= !sameNode(dims.back(), d);
    }
    return changed ? tensorSInfo(t->dtype, std::move(dims)) : s;
  }
  if (auto* sh = as<ShapeSInfo>(s)) {
    if (!sh->values)
      return s;
    std::vector<PrimExpr> vals;
    bool changed = false;
    for (auto& d : *sh->values) {
      vals.push_back(mutatePrim(d));
      changed |= !sameNode(vals.back(), d);
    }
    return changed ? shapeSInfo(std::move(vals)) : s;
  }
  if (auto* p = as<PrimSInfo>(s)) {
    if (!p->value)
      return s;
    PrimExpr v = mutatePrim(p->value);
    return sameNode(v, p->value) ? s : primSInfo(p->dtype, v);
  }
  if (auto* tu = as<TupleSInfo>(s)) {
    std::vector<StructInfo> fs;
    bool changed = false;
    for (auto& f : tu->fields) {
      fs.push_back(mutateSInfo(f));
      changed |= !sameNode(fs.back(), f);
    }
    return changed ? tupleSInfo(std::move(fs)) : s;
  }
  if (auto* fn = as<FuncSInfo>(s)) {
    bool changed = false;
    std::optional<std::vector<StructInfo>> ps;
    if (fn->params) {
      ps.emplace();
      for (auto& p : *fn->params) {
        ps->push_back(mutateSInfo(p));
        changed |= !sameNode(ps->back(), p);
      }
    }
    StructInfo r = mutateSInfo(fn->ret);
    changed |= !sameNode(r, fn->ret);
    return changed ? make<FuncSInfo>(std::move(ps), r, fn->pure) : s;
  }
  return s;
}

Expr ExprMutator::mutate(const Expr& e) {
  if (!e)
    return e;
  switch (e->kind()) {
  case NodeKind::Var:
  case NodeKind::DataflowVar:
    return visitVar(as<VarNode>(e), e);
  case NodeKind::Tuple:
    return visitTuple(as<Tuple>(e), e);
  case NodeKind::TupleGetItem:
    return visitTupleGetItem(as<TupleGetItem>(e), e);
  case NodeKind::Call:
    return visitCall(as<Call>(e), e);
  case NodeKind::ShapeExpr:
    return visitShapeExpr(as<ShapeExpr>(e), e);
  case NodeKind::PrimValue:
    return visitPrimValue(as<PrimValue>(e), e);
  case NodeKind::If:
    return visitIf(as<If>(e), e);
  case NodeKind::SeqExpr:
    return visitSeqExpr(as<SeqExpr>(e), e);
  case NodeKind::Function:
    return visitFunction(as<Function>(e), e);
  default:
    return visitLeaf(e);
  }
}

Expr ExprMutator::visitVar(const VarNode* op, const Expr& self) {
  auto it = varRemap_.find(op);
  return it == varRemap_.end() ? self : it->second;
}

Expr ExprMutator::visitTuple(const Tuple* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> fs;
  for (auto& f : op->fields) {
    fs.push_back(mutate(f));
    changed |= !sameNode(fs.back(), f);
  }
  return changed ? Expr(make<Tuple>(std::move(fs), op->sinfo)) : self;
}

Expr ExprMutator::visitTupleGetItem(const TupleGetItem* op, const Expr& self) {
  Expr t = mutate(op->tuple);
  return sameNode(t, op->tuple) ? self : Expr(make<TupleGetItem>(t, op->index, op->sinfo));
}

Expr ExprMutator::visitCall(const Call* op, const Expr& self) {
  Expr callee = mutate(op->op);
  bool changed = !sameNode(callee, op->op);
  std::vector<Expr> args;
  for (auto& a : op->args) {
    args.push_back(mutate(a));
    changed |= !sameNode(args.back(), a);
  }
  std::vector<StructInfo> sargs;
  for (auto& s : op->sinfoArgs) {
    sargs.push_back(mutateSInfo(s));
    changed |= !sameNode(sargs.back(), s);
  }
  StructInfo si = mutateSInfo(op->sinfo);
  changed |= !sameNode(si, op->sinfo);
  if (!changed)
    return self;
  return make<Call>(callee, std::move(args), op->attrs, std::move(sargs), si);
}

Expr ExprMutator::visitShapeExpr(const ShapeExpr* op, const Expr& self) {
  bool changed = false;
  std::vector<PrimExpr> vals;
  for (auto& v : op->values) {
    vals.push_back(mutatePrim(v));
    changed |= !sameNode(vals.back(), v);
  }
  return changed ? Expr(make<ShapeExpr>(std::move(vals))) : self;
}

Expr ExprMutator::visitPrimValue(const PrimValue* op, const Expr& self) {
  PrimExpr v = mutatePrim(op->value);
  return sameNode(v, op->value) ? self : Expr(make<PrimValue>(v));
}

Expr ExprMutator::visitIf(const If* op, const Expr& self) {
  Expr c = mutate(op->cond), t = mutate(op->thenBranch), f = mutate(op->elseBranch);
  if (sameNode(c, op->cond) && sameNode(t, op->thenBranch) && sameNode(f, op->elseBranch))
    return self;
  return make<If>(c, t, f, op->sinfo);
}

Binding ExprMutator::mutateBinding(const Binding& b) {
  Expr v = mutate(b->value);
  if (auto* mc = as<MatchCast>(b)) {
    StructInfo p = mutateSInfo(mc->pattern);
    if (sameNode(v, b->value) && sameNode(p, mc->pattern))
      return b;
    return make<MatchCast>(b->var, v, p, b->span);
  }
  if (sameNode(v, b->value))
    return b;
  return make<VarBinding>(b->var, v, b->span);
}

Ref<BindingBlock> ExprMutator::mutateBlock(const Ref<BindingBlock>& blk) {
  bool changed = false;
  std::vector<Binding> bs;
  for (auto& b : blk->bindings) {
    Binding n = mutateBinding(b);
    changed |= !sameNode(n, b);
    if (n)
      bs.push_back(std::move(n));
  }
  return changed ? make<BindingBlock>(std::move(bs), blk->dataflow) : blk;
}

Expr ExprMutator::visitSeqExpr(const SeqExpr* op, const Expr& self) {
  bool changed = false;
  std::vector<Ref<BindingBlock>> blocks;
  for (auto& b : op->blocks) {
    auto n = mutateBlock(b);
    changed |= !sameNode(n, b);
    if (n && !n->bindings.empty())
      blocks.push_back(std::move(n));
    else
      changed = true;
  }
  Expr body = mutate(op->body);
  changed |= !sameNode(body, op->body);
  if (!changed)
    return self;
  return make<SeqExpr>(std::move(blocks), body, body->sinfo ? body->sinfo : op->sinfo);
}

Expr ExprMutator::visitFunction(const Function* op, const Expr& self) {
  Expr body = mutate(op->body);
  StructInfo ret = mutateSInfo(op->retSInfo);
  if (sameNode(body, op->body) && sameNode(ret, op->retSInfo))
    return self;
  return make<Function>(op->params, body, ret, op->attrs, op->pure);
}

// ================================================================ ExprVisitor

void ExprVisitor::visit(const Expr& e) {
  if (!e)
    return;
  visitSInfo(e->sinfo);
  switch (e->kind()) {
  case NodeKind::Tuple:
    for (auto& f : as<Tuple>(e)->fields)
      visit(f);
    break;
  case NodeKind::TupleGetItem:
    visit(as<TupleGetItem>(e)->tuple);
    break;
  case NodeKind::Call: {
    auto* c = as<Call>(e);
    visit(c->op);
    for (auto& a : c->args)
      visit(a);
    for (auto& s : c->sinfoArgs)
      visitSInfo(s);
    break;
  }
  case NodeKind::ShapeExpr:
    for (auto& v : as<ShapeExpr>(e)->values)
      visitPrim(v);
    break;
  case NodeKind::PrimValue:
    visitPrim(as<PrimValue>(e)->value);
    break;
  case NodeKind::If: {
    auto* i = as<If>(e);
    visit(i->cond);
    visit(i->thenBranch);
    visit(i->elseBranch);
    break;
  }
  case NodeKind::SeqExpr: {
    auto* s = as<SeqExpr>(e);
    for (auto& b : s->blocks)
      visitBlock(b);
    visit(s->body);
    break;
  }
  case NodeKind::Function: {
    auto* f = as<Function>(e);
    for (auto& p : f->params)
      visit(p);
    visit(f->body);
    break;
  }
  default:
    break;
  }
}

void ExprVisitor::visitBinding(const Binding& b) {
  visit(b->value);
  if (auto* mc = as<MatchCast>(b))
    visitSInfo(mc->pattern);
  visit(b->var);
}

void ExprVisitor::visitBlock(const Ref<BindingBlock>& b) {
  for (auto& x : b->bindings)
    visitBinding(x);
}

void postOrderVisit(const Expr& e, const std::function<void(const Expr&)>& fn) {
  struct V : ExprVisitor {
    const std::function<void(const Expr&)>& fn;
    explicit V(const std::function<void(const Expr&)>& f) : fn(f) {}
    void visit(const Expr& e) override {
      if (!e)
        return;
      ExprVisitor::visit(e);
      fn(e);
    }
  } v(fn);
  v.visit(e);
}

} // namespace unity::ir
