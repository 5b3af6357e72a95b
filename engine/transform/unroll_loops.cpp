// UnrollLoops: `unrolled` loops that are small enough become straight-line
// code in the IR.
//
// Algorithm: a post-order walk (inner loops first, so a nest of unrolled
// loops expands from the inside and the size test sees the expanded inner
// code). For each For of kind Unrolled with a constant extent e:
//   size = number of IR nodes (statements and scalar expressions) in its body;
//   if e * size <= kMaxUnrollNodes, the loop is replaced by the sequence of e
//   copies of its body, copy k with the loop variable replaced by min + k
//   and simplified (so A[i*4 + u] becomes A[i*4 + 2]). Every variable and
//   buffer the body defines (inner loop variables, lets, allocations) is
//   renamed to a fresh node in each copy, so the result keeps the rule that
//   each variable is bound once and prints/parses back to an equal module.
// A loop over the bound, or with a symbolic extent, stays a loop and keeps
// its kind: codegen marks it `llvm.loop.unroll.full` and LLVM decides.
//
// The bound. The default schedule's register tile (default_schedule.cpp) is
// `for u_i in unroll(U) { for x_i in vectorized(V) { C[..] += A[..] * B[..] } }`
// with U <= 8: about 8 x 30 nodes, well under the bound, so it expands to U
// vectorized x_i loops: the same code LLVM's full unroll would make from the
// hint, so unrolling in the IR costs no speed and shows the tile in the
// printed IR.
// The bound (1024 nodes, about 40 statements of ordinary index math) keeps
// the printed IR readable and the LLVM input small: larger bodies are
// unrolled by LLVM after vectorization, where its own cost model applies.
#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/fresh_copy.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;

namespace {

int64_t countNodes(const Stmt& s) {
  struct Counter : StmtVisitor {
    int64_t n = 0;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      ++n;
      StmtVisitor::visit(e);
    }
    void visit(const Stmt& s) override {
      ++n;
      StmtVisitor::visit(s);
    }
  } c;
  c.visit(s);
  return c.n;
}

class Unroller : public StmtMutator {
protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    Stmt s = StmtMutator::visitFor(op, self);
    auto* f = as<For>(s);
    if (f->forKind != ForKind::Unrolled)
      return s;
    auto extent = asConstInt(f->extent);
    if (!extent || *extent < 0)
      return s;
    int64_t size = countNodes(f->body);
    if (*extent > kMaxUnrollNodes || *extent * size > kMaxUnrollNodes)
      return s;
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < *extent; ++k) {
      PrimExpr value = f->min + makeConst(f->min->dtype, double(k));
      FreshCopy copy({{f->var.get(), cast(f->var->dtype, value)}});
      copies.push_back(arith::simplify(copy.mutate(f->body)));
    }
    return seqStmt(std::move(copies));
  }
  Stmt visitBlock(const Block* op, const Stmt&) override {
    throw Error("UnrollLoops: block '" + op->name +
                "' must be lowered first (run LowerBlocks before UnrollLoops)");
  }
};

} // namespace

PrimFuncRef unrollLoops(const PrimFuncRef& f) {
  if (!f)
    throw Error("UnrollLoops: null function");
  Unroller unroller;
  return mutatePrimFunc(unroller, f);
}

} // namespace unity::transform
