#pragma once
// FreshCopy: a copy of a lowered statement in which every variable and
// buffer it defines (loop variables, lets, allocations) is a fresh node, so
// that pasting several copies into one function keeps the rule that each
// variable is bound once (UnrollLoops, PartitionLoops).
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

/// A copy of a statement with every variable and buffer it defines replaced
/// by a fresh node, and `subst` applied to the free variables.
class FreshCopy : public StmtMutator {
public:
  explicit FreshCopy(std::unordered_map<const PrimVar*, PrimExpr> subst)
      : vars_(std::move(subst)) {}

  using StmtMutator::mutate;

protected:
  PrimExpr visitLeaf(const PrimExpr& self) override {
    if (auto* v = as<PrimVar>(self)) {
      auto it = vars_.find(v);
      if (it != vars_.end())
        return it->second;
    }
    return self;
  }
  BufferRef mutateBuffer(const BufferRef& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }
  Ref<PrimVar> fresh(const Ref<PrimVar>& v) {
    auto n = primVar(v->name, v->dtype);
    vars_[v.get()] = n;
    return n;
  }

  Stmt visitFor(const For* op, const Stmt&) override {
    PrimExpr mn = mutate(op->min), ext = mutate(op->extent);
    auto v = fresh(op->var);
    return make<For>(v, mn, ext, op->forKind, mutate(op->body), op->annotations);
  }
  Stmt visitLetStmt(const LetStmt* op, const Stmt&) override {
    PrimExpr value = mutate(op->value);
    auto v = fresh(op->var);
    return make<LetStmt>(v, value, mutate(op->body));
  }
  PrimExpr visitPrimLet(const PrimLet* op, const PrimExpr&) override {
    PrimExpr value = mutate(op->value);
    auto v = fresh(op->var);
    return make<PrimLet>(v, value, mutate(op->body));
  }
  Stmt visitAllocate(const Allocate* op, const Stmt&) override {
    const BufferRef& b = op->buffer;
    std::vector<PrimExpr> shape;
    mutateList(b->shape, shape);
    BufferRef nb = makeBuffer(b->name, b->dtype, shape, b->scope);
    buffers_[b.get()] = nb;
    return make<Allocate>(nb, mutate(op->body));
  }
  Stmt visitBlock(const Block* op, const Stmt&) override {
    throw Error("block '" + op->name + "' must be lowered first (run LowerBlocks before copying)");
  }

private:
  std::unordered_map<const PrimVar*, PrimExpr> vars_;
  std::unordered_map<const Buffer*, BufferRef> buffers_;
};

} // namespace unity::transform
