#pragma once
// Visitors and mutators over both IR levels.
//
// Mutators follow Halide's IRMutator rule: when no child changed, return the
// very same Ref (never a rebuilt copy). Passes built on them therefore share
// every untouched subtree with their input, and "did this pass change
// anything?" starts as a pointer compare.
//
// Dispatch is a switch over NodeKind (no double dispatch); override the
// visitXxx hooks you care about and call the base to recurse.
#include <functional>
#include <unordered_map>

#include "engine/ir/expr.h"
#include "engine/ir/module.h"
#include "engine/ir/tir.h"

namespace unity::ir {

// ---------------------------------------------------------------- tensor level

class PrimExprMutator {
public:
  virtual ~PrimExprMutator() = default;
  virtual PrimExpr mutate(const PrimExpr& e);

protected:
  virtual PrimExpr visitLeaf(const PrimExpr& self) { return self; } // imms and vars
  virtual PrimExpr visitBinary(const BinaryExpr* op, const PrimExpr& self);
  virtual PrimExpr visitNot(const NotExpr* op, const PrimExpr& self);
  virtual PrimExpr visitSelect(const Select* op, const PrimExpr& self);
  virtual PrimExpr visitCast(const CastExpr* op, const PrimExpr& self);
  virtual PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self);
  virtual PrimExpr visitPrimCall(const PrimCall* op, const PrimExpr& self);
  virtual PrimExpr visitPrimLet(const PrimLet* op, const PrimExpr& self);
  /// Hook to substitute buffers (default: keep).
  virtual BufferRef mutateBuffer(const BufferRef& b) { return b; }

  /// Mutates each element; returns true when any changed.
  bool mutateList(const std::vector<PrimExpr>& in, std::vector<PrimExpr>& out);
};

class StmtMutator : public PrimExprMutator {
public:
  using PrimExprMutator::mutate;
  virtual Stmt mutate(const Stmt& s);

protected:
  virtual Stmt visitBufferStore(const BufferStore* op, const Stmt& self);
  virtual Stmt visitFor(const For* op, const Stmt& self);
  virtual Stmt visitBlock(const Block* op, const Stmt& self);
  virtual Stmt visitLetStmt(const LetStmt* op, const Stmt& self);
  virtual Stmt visitIfThenElse(const IfThenElse* op, const Stmt& self);
  virtual Stmt visitSeqStmt(const SeqStmt* op, const Stmt& self);
  virtual Stmt visitEvaluate(const Evaluate* op, const Stmt& self);
  virtual Stmt visitAllocate(const Allocate* op, const Stmt& self);

  bool mutateRegions(const std::vector<BufferRegion>& in, std::vector<BufferRegion>& out);
};

/// Applies a StmtMutator to a whole PrimFunc (parameter buffers through
/// mutateBuffer, then the body); returns `f` itself when nothing changed.
PrimFuncRef mutatePrimFunc(StmtMutator& m, const PrimFuncRef& f);

/// Read-only traversal of both tensor-level families, pre-order.
class StmtVisitor {
public:
  virtual ~StmtVisitor() = default;
  virtual void visit(const PrimExpr& e);
  virtual void visit(const Stmt& s);

protected:
  virtual void visitBuffer(const BufferRef&) {}
  void visitRegions(const std::vector<BufferRegion>& regions);
};

/// Calls fn on every PrimExpr node under e (pre-order).
void walkPrimExpr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& fn);
/// Calls fn on every statement under s (pre-order).
void walkStmt(const Stmt& s, const std::function<void(const Stmt&)>& fn);

/// Replaces variables by expressions (capture-free: our variables are unique
/// nodes, so no renaming is needed).
PrimExpr substitute(const PrimExpr& e, const std::unordered_map<const PrimVar*, PrimExpr>& map);
Stmt substitute(const Stmt& s, const std::unordered_map<const PrimVar*, PrimExpr>& map);

// ----------------------------------------------------------------- graph level

class ExprMutator {
public:
  virtual ~ExprMutator() = default;
  virtual Expr mutate(const Expr& e);
  /// Returns null to drop the binding.
  virtual Binding mutateBinding(const Binding& b);
  virtual Ref<BindingBlock> mutateBlock(const Ref<BindingBlock>& b);
  /// Shapes and scalars inside graph-level exprs and struct info.
  virtual PrimExpr mutatePrim(const PrimExpr& e) { return e; }
  virtual StructInfo mutateSInfo(const StructInfo& s);

protected:
  virtual Expr visitVar(const VarNode* op, const Expr& self);
  virtual Expr visitLeaf(const Expr& self) { return self; } // constants, ops, globals, strings
  virtual Expr visitTuple(const Tuple* op, const Expr& self);
  virtual Expr visitTupleGetItem(const TupleGetItem* op, const Expr& self);
  virtual Expr visitCall(const Call* op, const Expr& self);
  virtual Expr visitShapeExpr(const ShapeExpr* op, const Expr& self);
  virtual Expr visitPrimValue(const PrimValue* op, const Expr& self);
  virtual Expr visitIf(const If* op, const Expr& self);
  virtual Expr visitSeqExpr(const SeqExpr* op, const Expr& self);
  virtual Expr visitFunction(const Function* op, const Expr& self);

  /// Variables re-bound by this mutator: uses of the key become the value.
  std::unordered_map<const VarNode*, Expr> varRemap_;
};

class ExprVisitor {
public:
  virtual ~ExprVisitor() = default;
  virtual void visit(const Expr& e);
  virtual void visitBinding(const Binding& b);
  virtual void visitBlock(const Ref<BindingBlock>& b);
  virtual void visitPrim(const PrimExpr&) {}
  virtual void visitSInfo(const StructInfo&) {}
};

/// Calls fn on every graph-level expression under e (post-order).
void postOrderVisit(const Expr& e, const std::function<void(const Expr&)>& fn);

} // namespace unity::ir
