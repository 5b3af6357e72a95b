// Well-formedness checker: one scoped walk per module function.
//
// Both levels use the same scheme: a set of variables in scope plus a stack
// recording the order they entered it, so leaving a scope (a SeqExpr, a
// nested function, a loop, a block, a let) pops back to a saved mark. A use
// is checked against the scope; when it fails, what else we know about the
// variable picks the message: bound by some binding of the function (used
// before its definition, or outside the scope that defines it), a
// DataflowVar whose block has ended (escaping its dataflow block), or not
// defined at all. Each undefined variable is reported once per function so
// one mistake does not flood the report. The walk never throws: every
// problem becomes a WellFormedIssue naming the function and the variable,
// binding or block concerned. Symbolic shape variables of the graph level
// are function-wide: defined by the parameters' struct info and match_cast
// patterns, used by every other struct info, shape and prim value.
#include "engine/ir/well_formed.h"

#include <functional>
#include <unordered_set>

#include "engine/ir/functor.h"

namespace unity::ir {
namespace {

/// A scope: membership plus the order of entry, for popping back to a mark.
template <class T> class Scope {
public:
  bool contains(const T* v) const { return in_.count(v) != 0; }
  void add(const T* v) {
    in_.insert(v);
    order_.push_back(v);
  }
  void remove(const T* v) { in_.erase(v); }
  size_t mark() const { return order_.size(); }
  void popTo(size_t mark) {
    while (order_.size() > mark) {
      in_.erase(order_.back());
      order_.pop_back();
    }
  }

private:
  std::unordered_set<const T*> in_;
  std::vector<const T*> order_;
};

bool isCallTir(const Expr& op) {
  auto* o = as<OpRef>(op);
  return o && (o->name == "call_tir" || o->name == "call_tir_inplace");
}

std::string describe(const Expr& e) {
  if (auto* c = as<Call>(e)) {
    if (auto* o = as<OpRef>(c->op))
      return "call of '" + o->name + "'";
    if (auto* g = as<GlobalVar>(c->op))
      return "call of '@" + g->name + "'";
    return "call";
  }
  return std::string("expression ") + kindName(e->kind());
}

// ---------------------------------------------------------------- graph level

/// Calls fn on every PrimVar occurrence in s. Function signatures (FuncSInfo)
/// bind their own variables and are skipped.
void forEachPrimVar(const StructInfo& s, const std::function<void(const PrimVar*)>& fn) {
  auto prim = [&](const PrimExpr& e) {
    walkPrimExpr(e, [&](const PrimExpr& x) {
      if (auto* v = as<PrimVar>(x))
        fn(v);
    });
  };
  if (auto* t = as<TensorSInfo>(s)) {
    if (t->shape)
      for (auto& d : *t->shape)
        prim(d);
  } else if (auto* sh = as<ShapeSInfo>(s)) {
    if (sh->values)
      for (auto& d : *sh->values)
        prim(d);
  } else if (auto* p = as<PrimSInfo>(s)) {
    if (p->value)
      prim(p->value);
  } else if (auto* tu = as<TupleSInfo>(s)) {
    for (auto& f : tu->fields)
      forEachPrimVar(f, fn);
  }
}

class GraphChecker {
public:
  GraphChecker(const IRModuleNode& m, std::string fname, std::vector<WellFormedIssue>& out)
      : module_(m), fname_(std::move(fname)), out_(out) {}

  void check(const Function* f) {
    collectBound(f);
    function(f);
  }

private:
  void report(std::string msg) {
    if (!binding_.empty())
      msg = "in binding '" + binding_ + "': " + msg;
    out_.push_back({fname_, std::move(msg), span_});
  }

  /// Every variable some binding or parameter of the function defines.
  void collectBound(const Function* f) {
    for (auto& p : f->params)
      bound_.insert(p.get());
    struct Collect : ExprVisitor {
      std::unordered_set<const VarNode*>& bound;
      explicit Collect(std::unordered_set<const VarNode*>& b) : bound(b) {}
      void visitBinding(const Binding& b) override {
        bound.insert(b->var.get());
        ExprVisitor::visitBinding(b);
      }
      void visit(const Expr& e) override {
        if (auto* fn = as<Function>(e))
          for (auto& p : fn->params)
            bound.insert(p.get());
        ExprVisitor::visit(e);
      }
    } collect(bound_);
    collect.visit(f->body);
  }

  /// Symbolic shape variables are defined by the parameters' struct info and
  /// by match_cast patterns, for the whole function; any other mention is a use.
  void defineShapeVars(const StructInfo& s) {
    forEachPrimVar(s, [&](const PrimVar* v) { shapeVars_.insert(v); });
  }
  void useShapeVars(const StructInfo& s) {
    forEachPrimVar(s, [&](const PrimVar* v) {
      if (!shapeVars_.count(v) && reportedShapeVars_.insert(v).second)
        report("shape variable '" + v->name +
               "' is not defined (by a parameter's struct info or a match_cast pattern)");
    });
  }

  void define(const Var& v, bool inDataflowBlock) {
    if (defined_.count(v.get()))
      report("variable '" + v->name + "' is defined more than once");
    if (v->isDataflow() && !inDataflowBlock)
      report("dataflow variable '" + v->name + "' is bound outside a dataflow block");
    if (!v->sinfo)
      report("variable '" + v->name + "' has no struct info (module not normalized)");
    useShapeVars(v->sinfo);
    defined_.insert(v.get());
    scope_.add(v.get());
  }

  void use(const VarNode* v) {
    if (scope_.contains(v) || !reported_.insert(v).second)
      return;
    if (ended_.count(v))
      report("dataflow variable '" + v->name + "' is used outside its dataflow block");
    else if (defined_.count(v))
      report("variable '" + v->name + "' is used outside the scope that defines it");
    else if (bound_.count(v))
      report("variable '" + v->name + "' is used before it is defined");
    else
      report("variable '" + v->name + "' is not defined in this function");
  }

  void global(const GlobalVar* g) {
    if (!module_.contains(g->name))
      report("refers to '@" + g->name + "', which is not a function of the module");
  }

  void function(const Function* f) {
    size_t mark = scope_.mark();
    for (auto& p : f->params) {
      defineShapeVars(p->sinfo);
      define(p, false);
    }
    std::string outer = std::exchange(binding_, "");
    expr(f->body);
    // After the body: a result whose shape was read from data (a Reshape to
    // a run-time target, a NonZero) names the variables its match_cast binds.
    useShapeVars(f->retSInfo);
    binding_ = outer;
    scope_.popTo(mark);
  }

  void call(const Call* c) {
    if (auto* g = as<GlobalVar>(c->op)) {
      global(g);
      if (isa<PrimFunc>(module_.lookup(g->name)))
        report("calls tensor-level function '@" + g->name + "' directly (use call_tir)");
    } else if (!isa<OpRef>(c->op) && !isa<ExternFunc>(c->op)) {
      expr(c->op);
    }
    size_t first = 0;
    if (isCallTir(c->op)) {
      first = 1;
      auto* g = c->args.empty() ? nullptr : as<GlobalVar>(c->args[0]);
      if (!g) {
        report("call_tir's first argument must be a GlobalVar naming a PrimFunc, got " +
               (c->args.empty() ? std::string("no arguments") : kindName(c->args[0]->kind())));
      } else {
        global(g);
        BaseFunc target = module_.lookup(g->name);
        if (target && !isa<PrimFunc>(target))
          report("call_tir target '@" + g->name + "' is a " + kindName(target->kind()) +
                 ", not a PrimFunc");
      }
    }
    for (size_t i = first; i < c->args.size(); ++i)
      expr(c->args[i]);
    for (auto& s : c->sinfoArgs)
      useShapeVars(s);
  }

  void expr(const Expr& e) {
    if (!e)
      return report("missing expression");
    bool sinfoExempt =
        isa<VarNode>(e) || isa<GlobalVar>(e) || isa<PrimFunc>(e) || isa<ExternFunc>(e);
    if (!sinfoExempt && !e->sinfo)
      report(describe(e) + " has no struct info (module not normalized)");
    // A SeqExpr's struct info may name what its own match_casts bind: it is
    // checked after its blocks.
    if (!sinfoExempt && !isa<SeqExpr>(e))
      useShapeVars(e->sinfo);
    switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar:
      return use(as<VarNode>(e));
    case NodeKind::Tuple:
      for (auto& f : as<Tuple>(e)->fields)
        expr(f);
      return;
    case NodeKind::TupleGetItem:
      return expr(as<TupleGetItem>(e)->tuple);
    case NodeKind::Call:
      return call(as<Call>(e));
    case NodeKind::If: {
      auto* op = as<If>(e);
      expr(op->cond);
      expr(op->thenBranch);
      return expr(op->elseBranch);
    }
    case NodeKind::SeqExpr: {
      auto* op = as<SeqExpr>(e);
      size_t mark = scope_.mark();
      for (auto& b : op->blocks)
        block(b);
      std::string outer = std::exchange(binding_, "");
      expr(op->body);
      useShapeVars(op->sinfo);
      binding_ = outer;
      scope_.popTo(mark);
      return;
    }
    case NodeKind::GlobalVar:
      return global(as<GlobalVar>(e));
    case NodeKind::Function:
      return function(as<Function>(e));
    default:
      return; // constants, shapes, prim values, strings, ops, extern functions
    }
  }

  void block(const Ref<BindingBlock>& b) {
    if (!b)
      return report("missing binding block");
    std::string outerBinding = binding_;
    Span outerSpan = span_;
    for (auto& x : b->bindings) {
      binding_ = x->var ? x->var->name : "?";
      span_ = x->span;
      expr(x->value);
      if (auto* mc = as<MatchCast>(x))
        defineShapeVars(mc->pattern);
      define(x->var, b->dataflow);
    }
    binding_ = outerBinding;
    span_ = outerSpan;
    if (!b->dataflow)
      return;
    for (auto& x : b->bindings)
      if (x->var->isDataflow()) {
        scope_.remove(x->var.get());
        ended_.insert(x->var.get());
      }
  }

  const IRModuleNode& module_;
  std::string fname_;
  std::vector<WellFormedIssue>& out_;
  Scope<VarNode> scope_;
  std::unordered_set<const VarNode*> bound_, defined_, ended_, reported_;
  std::unordered_set<const PrimVar*> shapeVars_, reportedShapeVars_;
  std::string binding_; // the binding being checked, for messages
  Span span_;
};

// --------------------------------------------------------------- tensor level

class TirChecker {
public:
  TirChecker(std::string fname, std::vector<WellFormedIssue>& out)
      : fname_(std::move(fname)), out_(out) {}

  void check(const PrimFunc* f) {
    // FlattenBuffers (engine/transform) marks functions whose accesses use
    // one row-major index whatever the buffer's rank.
    flat_ = f->attrs.getBool("buffers_flat", false);
    // MakePackedAPI (engine/transform) marks functions whose prologue binds
    // the shape variables with lets: the signature does not define them.
    bool packed = f->attrs.getString("calling_conv") == "packed";
    for (auto& p : f->params) {
      if (p.scalar)
        defineVar(p.scalar.get());
      if (p.buffer) {
        // Shape variables of parameter buffers are bound from the runtime shapes.
        for (auto& d : p.buffer->shape)
          if (!packed)
            walkPrimExpr(d, [&](const PrimExpr& e) {
              if (auto* v = as<PrimVar>(e); v && !vars_.contains(v))
                vars_.add(v);
            });
        buffers_.add(p.buffer.get());
      }
    }
    stmt(f->body);
  }

private:
  void report(std::string msg) {
    if (!block_.empty())
      msg = "in block '" + block_ + "': " + msg;
    out_.push_back({fname_, std::move(msg), {}});
  }

  void defineVar(const PrimVar* v) {
    if (vars_.contains(v))
      report("scalar variable '" + v->name + "' is defined again while in scope");
    vars_.add(v);
  }

  void defineBuffer(const BufferRef& b) {
    for (auto& d : b->shape)
      prim(d);
    if (buffers_.contains(b.get()))
      report("buffer '" + b->name + "' is allocated again while in scope");
    buffers_.add(b.get());
  }

  void useBuffer(const BufferRef& b, size_t indices, const char* what) {
    if (!b)
      return report(std::string(what) + " of a missing buffer");
    if (!buffers_.contains(b.get()) && reportedBuffers_.insert(b.get()).second)
      report("buffer '" + b->name + "' is neither a parameter nor allocated in scope");
    if (indices != static_cast<size_t>(b->ndim()) && !(flat_ && indices == 1))
      report(std::string(what) + " of buffer '" + b->name + "' has " + std::to_string(indices) +
             " indices for " + std::to_string(b->ndim()) + " dimensions");
  }

  void prims(const std::vector<PrimExpr>& es) {
    for (auto& e : es)
      prim(e);
  }

  void prim(const PrimExpr& e) {
    if (!e)
      return report("missing scalar expression");
    if (auto* v = as<PrimVar>(e)) {
      if (!vars_.contains(v) && reportedVars_.insert(v).second)
        report("scalar variable '" + v->name +
               "' is not defined (not a parameter, loop, block iterator or let variable in scope)");
      return;
    }
    if (auto* l = as<BufferLoad>(e)) {
      useBuffer(l->buffer, l->indices.size(), "load");
      return prims(l->indices);
    }
    if (auto* let = as<PrimLet>(e)) {
      prim(let->value);
      size_t mark = vars_.mark();
      defineVar(let->var.get());
      prim(let->body);
      return vars_.popTo(mark);
    }
    if (auto* b = as<BinaryExpr>(e)) {
      prim(b->a);
      return prim(b->b);
    }
    if (auto* n = as<NotExpr>(e))
      return prim(n->a);
    if (auto* s = as<Select>(e)) {
      prim(s->cond);
      prim(s->t);
      return prim(s->f);
    }
    if (auto* c = as<CastExpr>(e))
      return prim(c->value);
    if (auto* c = as<PrimCall>(e))
      return prims(c->args);
  }

  void regions(const std::vector<BufferRegion>& rs, const char* what) {
    for (auto& r : rs) {
      useBuffer(r.buffer, r.region.size(), what);
      for (auto& rg : r.region) {
        prim(rg.min);
        prim(rg.extent);
      }
    }
  }

  void block(const Block* op) {
    if (op->bindings.size() != op->iters.size())
      report("block '" + op->name + "' has " + std::to_string(op->iters.size()) +
             " iteration variables but " + std::to_string(op->bindings.size()) + " bindings");
    prims(op->bindings); // evaluated where the block sits
    for (auto& iv : op->iters) {
      prim(iv.dom.min);
      prim(iv.dom.extent);
    }
    std::string outer = std::exchange(block_, op->name);
    size_t varMark = vars_.mark(), bufMark = buffers_.mark();
    for (auto& iv : op->iters)
      defineVar(iv.var.get());
    for (auto& b : op->allocs)
      defineBuffer(b);
    regions(op->reads, "read region");
    regions(op->writes, "write region");
    if (op->predicate)
      prim(op->predicate);
    if (op->init)
      stmt(op->init);
    stmt(op->body);
    vars_.popTo(varMark);
    buffers_.popTo(bufMark);
    block_ = outer;
  }

  void stmt(const Stmt& s) {
    if (!s)
      return report("missing statement");
    switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto* op = as<BufferStore>(s);
      useBuffer(op->buffer, op->indices.size(), "store");
      prim(op->value);
      return prims(op->indices);
    }
    case NodeKind::For: {
      auto* op = as<For>(s);
      prim(op->min);
      prim(op->extent);
      size_t mark = vars_.mark();
      defineVar(op->var.get());
      stmt(op->body);
      return vars_.popTo(mark);
    }
    case NodeKind::Block:
      return block(as<Block>(s));
    case NodeKind::LetStmt: {
      auto* op = as<LetStmt>(s);
      prim(op->value);
      size_t mark = vars_.mark();
      defineVar(op->var.get());
      stmt(op->body);
      return vars_.popTo(mark);
    }
    case NodeKind::IfThenElse: {
      auto* op = as<IfThenElse>(s);
      prim(op->cond);
      stmt(op->then);
      if (op->otherwise)
        stmt(op->otherwise);
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : as<SeqStmt>(s)->seq)
        stmt(x);
      return;
    case NodeKind::Evaluate:
      return prim(as<Evaluate>(s)->value);
    case NodeKind::Allocate: {
      auto* op = as<Allocate>(s);
      size_t mark = buffers_.mark();
      defineBuffer(op->buffer);
      stmt(op->body);
      return buffers_.popTo(mark);
    }
    default:
      return report(std::string("unexpected statement kind ") + kindName(s->kind()));
    }
  }

  std::string fname_;
  std::vector<WellFormedIssue>& out_;
  Scope<PrimVar> vars_;
  Scope<Buffer> buffers_;
  std::unordered_set<const PrimVar*> reportedVars_;
  std::unordered_set<const Buffer*> reportedBuffers_;
  std::string block_; // the innermost block, for messages
  bool flat_ = false; // the function's buffers are flattened
};

} // namespace

std::vector<WellFormedIssue> checkWellFormed(const IRModule& m) {
  std::vector<WellFormedIssue> out;
  if (!m) {
    out.push_back({"", "the module is missing", {}});
    return out;
  }
  for (auto& [name, f] : m->functions) {
    if (auto* fn = as<Function>(f))
      GraphChecker(*m, name, out).check(fn);
    else if (auto* pf = as<PrimFunc>(f))
      TirChecker(name, out).check(pf);
  }
  return out;
}

std::string issueStr(const WellFormedIssue& issue) {
  std::string s = issue.function + ": " + issue.message;
  if (issue.span.line > 0)
    s += " at " + (issue.span.file.empty() ? std::string("<input>") : issue.span.file) + ":" +
         std::to_string(issue.span.line) + ":" + std::to_string(issue.span.column);
  return s;
}

} // namespace unity::ir
