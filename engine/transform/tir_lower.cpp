// lowerBlocks: a bottom-up rewrite of Block nodes into plain statements.
//
// Blocks are visited after their children (nested blocks are lowered first,
// so their bindings can refer to outer loop variables only). A block's
// iteration variables are substituted by their bindings everywhere in init,
// body and predicate; since variables are unique nodes the substitution is
// capture-free. The reduction init is guarded by "every reduce iteration
// variable is at the start of its domain", which, expressed through the
// bindings, is true exactly on the first iteration of the reduction loops
// for each spatial point (TVM's LowerInitBlock). Read/write regions are
// scheduling information only and are dropped.
#include "engine/transform/tir_lower.h"

#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

namespace {

class BlockLowerer : public StmtMutator {
protected:
  Stmt visitBlock(const Block* op, const Stmt& self) override {
    // Lower nested blocks first.
    Stmt body = mutate(op->body);
    Stmt init = op->init ? mutate(op->init) : Stmt();
    (void)self;

    std::unordered_map<const PrimVar*, PrimExpr> bind;
    PrimExpr initCond;
    for (size_t i = 0; i < op->iters.size(); ++i) {
      const IterVar& iv = op->iters[i];
      PrimExpr value = op->bindings[i];
      if (!value)
        throw Error("lowerBlocks: block '" + op->name +
                    "' has no binding for iteration variable '" + iv.var->name + "'");
      if (!value->dtype.isIntegral())
        throw Error("lowerBlocks: block '" + op->name + "' binds iteration variable '" +
                    iv.var->name + "' to a non-integer " + value->dtype.str());
      value = cast(iv.var->dtype, value);
      bind[iv.var.get()] = value;
      if (iv.type == IterType::Reduce) {
        PrimExpr atStart = eq(value, cast(iv.var->dtype, iv.dom.min));
        initCond = initCond ? logicalAnd(initCond, atStart) : atStart;
      }
    }

    body = substitute(body, bind);
    Stmt result = body;
    if (init) {
      init = substitute(init, bind);
      Stmt guarded = initCond ? make<IfThenElse>(initCond, init) : init;
      result = seqStmt({guarded, body});
    }
    for (auto it = op->allocs.rbegin(); it != op->allocs.rend(); ++it)
      result = make<Allocate>(*it, result);
    if (op->predicate && !isConstInt(op->predicate, 1)) {
      if (!op->predicate->dtype.isBool())
        throw Error("lowerBlocks: predicate of block '" + op->name + "' is " +
                    op->predicate->dtype.str() + ", not bool");
      result = make<IfThenElse>(substitute(op->predicate, bind), result);
    }
    return result;
  }
};

} // namespace

Stmt lowerBlocks(const Stmt& s) {
  BlockLowerer lowerer;
  return lowerer.mutate(s);
}

PrimFuncRef lowerBlocks(const PrimFuncRef& f) {
  if (!f)
    throw Error("lowerBlocks: null function");
  BlockLowerer lowerer;
  return mutatePrimFunc(lowerer, f);
}

arith::Analyzer shapeAnalyzer(const PrimFunc& f) {
  arith::Analyzer analyzer;
  for (auto& p : f.params)
    if (p.buffer)
      for (auto& d : p.buffer->shape)
        if (auto v = cast<PrimVar>(d))
          analyzer.markNonNegative(v);
  return analyzer;
}

PrimFuncRef simplifyIndexMath(const PrimFuncRef& f) {
  if (!f)
    throw Error("simplifyIndexMath: null function");
  arith::Analyzer analyzer = shapeAnalyzer(*f);
  Stmt body = arith::simplify(f->body, analyzer);
  if (sameNode(body, f->body))
    return f;
  return make<PrimFunc>(f->params, body, f->attrs);
}

PrimFuncRef lowerForCodegen(const PrimFuncRef& f) { return simplifyIndexMath(lowerBlocks(f)); }

} // namespace unity::transform
