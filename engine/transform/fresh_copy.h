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

/// Splices every SeqStmt nested directly in another into it: a pass that
/// replaces a loop by a sequence of loops (PartitionLoops, SkipPaddingTaps),
/// or a simplification that drops a unit loop around a sequence, would
/// otherwise leave a nesting the parser never produces, and the printed
/// function would not read back as the same structure.
inline PrimFuncRef spliceNestedSeqs(const PrimFuncRef& f) {
  struct Splicer : StmtMutator {
    Stmt visitSeqStmt(const SeqStmt* op, const Stmt& self) override {
      std::vector<Stmt> seq;
      bool changed = false;
      for (auto& s : op->seq) {
        Stmt m = mutate(s);
        changed = changed || !sameNode(m, s);
        if (auto* inner = as<SeqStmt>(m)) {
          seq.insert(seq.end(), inner->seq.begin(), inner->seq.end());
          changed = true;
        } else {
          seq.push_back(m);
        }
      }
      return changed ? seqStmt(std::move(seq)) : self;
    }
  } s;
  return mutatePrimFunc(s, f);
}

} // namespace unity::transform
