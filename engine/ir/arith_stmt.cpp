// Statement simplification: every expression in a statement goes through the
// analyzer, with the facts the statement structure provides in scope.
//
// A for-loop binds its variable to [min, min + extent) while its body is
// simplified; a loop of extent 1 disappears and its variable is substituted
// by min. A block simplifies its bindings in the enclosing scope, then binds
// its iteration variables to their domains for regions, init, body and
// predicate. A let binds its variable to the value's bound. An if-then-else
// whose condition folds to a constant is replaced by the branch taken (an
// absent else becomes the no-op `evaluate(0)`); otherwise a condition that
// compares a variable with a constant narrows that variable's bound in each
// branch. Built on StmtMutator, so an
// unchanged statement is returned as the same Ref.
#include <memory>

#include "engine/ir/arith_internal.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"

namespace unity::arith {

using namespace ir;

namespace detail {

/// Facts a branch condition gives about single variables: within the then
/// branch of `if (i < 8)` i is at most 7, within the else branch at least 8.
/// Only comparisons of a variable with a constant (and conjunctions of them
/// in the then branch) are used. The facts end with the object.
class Facts {
public:
  explicit Facts(Analyzer& an) : an_(an) {}
  ~Facts() {
    while (!scopes_.empty())
      scopes_.pop_back();
  }

  void assume(const PrimExpr& cond, bool holds) {
    auto* b = as<BinaryExpr>(cond);
    if (!b)
      return;
    if (b->op() == NodeKind::And && holds) {
      assume(b->a, true);
      assume(b->b, true);
      return;
    }
    if (!isComparison(b->op()))
      return;
    NodeKind op = holds ? b->op() : negateComparison(b->op());
    PrimExpr lhs = b->a, rhs = b->b;
    if (isa<IntImm>(lhs)) {
      std::swap(lhs, rhs);
      op = mirror(op);
    }
    auto var = cast<PrimVar>(lhs);
    auto c = asConstInt(rhs);
    if (!var || !c || !isIndexType(var->dtype))
      return;
    if (*c == kNegInf || *c == kPosInf)
      return; // c +- 1 would overflow
    ConstIntBound r{kNegInf, kPosInf};
    switch (op) {
    case NodeKind::LT:
      r.max = *c - 1;
      break;
    case NodeKind::LE:
      r.max = *c;
      break;
    case NodeKind::GT:
      r.min = *c + 1;
      break;
    case NodeKind::GE:
      r.min = *c;
      break;
    case NodeKind::EQ:
      r = {*c, *c};
      break;
    default:
      return;
    }
    scopes_.push_back(std::make_unique<ScopedVar>(an_, var));
    scopes_.back()->tighten(r);
  }

private:
  static NodeKind mirror(NodeKind op) {
    switch (op) {
    case NodeKind::LT:
      return NodeKind::GT;
    case NodeKind::LE:
      return NodeKind::GE;
    case NodeKind::GT:
      return NodeKind::LT;
    case NodeKind::GE:
      return NodeKind::LE;
    default:
      return op;
    }
  }
  Analyzer& an_;
  std::vector<std::unique_ptr<ScopedVar>> scopes_;
};

class StmtSimplifier : public StmtMutator {
public:
  explicit StmtSimplifier(Analyzer& an) : an_(an) {}
  using StmtMutator::mutate;
  PrimExpr mutate(const PrimExpr& e) override { return e ? an_.simplify(e) : e; }

protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    PrimExpr mn = mutate(op->min), ext = mutate(op->extent);
    ScopedVar scope(an_, op->var);
    if (isConstInt(ext, 1)) {
      PrimExpr value = mn->dtype == op->var->dtype ? mn : an_.simplify(cast(op->var->dtype, mn));
      an_.bind(op->var, value);
      return mutate(op->body);
    }
    an_.bind(op->var, Range{mn, ext});
    Stmt body = mutate(op->body);
    if (sameNode(mn, op->min) && sameNode(ext, op->extent) && sameNode(body, op->body))
      return self;
    return make<For>(op->var, mn, ext, op->forKind, body, op->annotations);
  }

  Stmt visitBlock(const Block* op, const Stmt& self) override {
    bool changed = false;
    std::vector<PrimExpr> bindings;
    changed |= mutateList(op->bindings, bindings);
    std::vector<IterVar> iters;
    for (auto& iv : op->iters) {
      IterVar n{iv.var, {mutate(iv.dom.min), mutate(iv.dom.extent)}, iv.type};
      changed |= !sameNode(n.dom.min, iv.dom.min) || !sameNode(n.dom.extent, iv.dom.extent);
      iters.push_back(std::move(n));
    }
    // Iteration variables are in scope for everything below; scopes close
    // in reverse order of opening.
    std::vector<std::unique_ptr<ScopedVar>> scopes;
    for (auto& iv : iters) {
      scopes.push_back(std::make_unique<ScopedVar>(an_, iv.var));
      an_.bind(iv.var, iv.dom);
    }
    std::vector<BufferRegion> reads, writes;
    changed |= mutateRegions(op->reads, reads);
    changed |= mutateRegions(op->writes, writes);
    Stmt init = mutate(op->init), body = mutate(op->body);
    PrimExpr pred = mutate(op->predicate);
    changed |=
        !sameNode(init, op->init) || !sameNode(body, op->body) || !sameNode(pred, op->predicate);
    while (!scopes.empty())
      scopes.pop_back();
    if (!changed)
      return self;
    return make<Block>(op->name, std::move(iters), std::move(bindings), std::move(reads),
                       std::move(writes), init, body, op->allocs, pred, op->annotations);
  }

  Stmt visitLetStmt(const LetStmt* op, const Stmt& self) override {
    PrimExpr value = mutate(op->value);
    ScopedVar scope(an_, op->var);
    scope.setBound(an_.constIntBound(value));
    Stmt body = mutate(op->body);
    if (sameNode(value, op->value) && sameNode(body, op->body))
      return self;
    return make<LetStmt>(op->var, value, body);
  }

  Stmt visitIfThenElse(const IfThenElse* op, const Stmt& self) override {
    PrimExpr cond = mutate(op->cond);
    if (auto c = asConstInt(cond)) {
      if (*c)
        return mutate(op->then);
      if (op->otherwise)
        return mutate(op->otherwise);
      return make<Evaluate>(intImm(0, DataType::Int32()));
    }
    Stmt t, e;
    {
      Facts facts(an_);
      facts.assume(cond, true);
      t = mutate(op->then);
    }
    {
      Facts facts(an_);
      facts.assume(cond, false);
      e = mutate(op->otherwise);
    }
    if (sameNode(cond, op->cond) && sameNode(t, op->then) && sameNode(e, op->otherwise))
      return self;
    return make<IfThenElse>(cond, t, e);
  }

private:
  Analyzer& an_;
};

} // namespace detail

Stmt simplify(const Stmt& s, Analyzer& analyzer) {
  if (!s)
    throw Error("arith::simplify: missing statement");
  detail::StmtSimplifier simplifier(analyzer);
  return simplifier.mutate(s);
}

Stmt simplify(const Stmt& s) {
  Analyzer an;
  return simplify(s, an);
}

} // namespace unity::arith
