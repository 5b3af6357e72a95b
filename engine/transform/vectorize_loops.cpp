// VectorizeLoops: legalization of `vectorized` loops.
//
// A schedule marks a loop `vectorized`; codegen turns the mark into LLVM's
// `llvm.loop.vectorize.enable` hint (the C backend into `#pragma GCC ivdep`),
// and LLVM's loop vectorizer picks the width. This pass decides, for each
// marked loop, whether that request can be honoured, and makes the answer
// visible in the IR instead of leaving it to a compiler remark nobody reads.
//
// Algorithm: a post-order walk over the statements; for each For of kind
// Vectorized, the first rule that fails turns it into a serial loop with the
// annotation "vectorize_rejected" = <reason>:
//   1. the extent is a constant below 2 (nothing to vectorize);
//   2. the body holds another loop (only innermost loops vectorize; an
//      enclosing loop would need the inner one fully unrolled first),
//      except an `unrolled` loop of at most 64 constant iterations, which
//      LLVM unrolls fully before it vectorizes;
//   3. the body allocates a buffer (a fresh buffer per lane is not a vector);
//   4. the body calls an intrinsic that becomes a scalar libm call (tanh,
//      tan, asin, ..., erf for float64): without a vector math library
//      LLVM cannot widen it and the loop would stay scalar anyway;
//   5. the loop variable is not an integer.
// Everything else keeps its mark (the same node). Tails: a legal loop whose
// extent is not a multiple of the hardware vector width (or is symbolic)
// stays vectorized, because LLVM's vectorizer already emits the vector loop
// plus a scalar remainder loop (or a masked tail where the target profits);
// splitting the tail off here would only duplicate that, without knowing the
// width LLVM picks (codegen asks for a masked tail itself where the machine
// has mask registers; see loopMetadata in llvm_codegen.cpp). Conditional
// statements and non-contiguous accesses stay legal too: LLVM predicates
// them (masked loads/stores, gathers).
// The pass runs after LowerIntrinsics, so rsqrt, sigmoid and float32 erf
// are already plain arithmetic and do not block vectorization.
#include <optional>
#include <string>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;

namespace {

/// Iterations of an unrolled loop that may sit in a vectorized loop's body
/// (fullyUnrolled): the largest tap loop of the default schedule's
/// depthwise and pooling kernels (7x7: 49 taps) fits.
constexpr int64_t kMaxUnrolledInVectorLoop = 64;

/// Intrinsics that codegen lowers to an LLVM intrinsic, an instruction or a
/// short formula, all of which LLVM's vectorizer widens.
bool vectorizableIntrinsic(const PrimCall* c) {
  static const char* const kWidens[] = {
      "exp", "log", "log2", "sqrt", "fabs",  "floor", "ceil",  "round",   "trunc",
      "sin", "cos", "pow",  "fmod", "isnan", "isinf", "rsqrt", "sigmoid", "reinterpret"};
  for (const char* n : kWidens)
    if (c->op == n)
      return true;
  // erf: float32 only after LowerIntrinsics expanded it; a remaining call is
  // the libm one.
  return false;
}

/// An unrolled loop of a few constant iterations: LLVM unrolls it fully
/// (codegen marks it `llvm.loop.unroll.full`) before its loop vectorizer
/// runs, so the loop around it is then innermost. UnrollLoops leaves such
/// loops in the IR when their body is large (the 5x5 taps of a depthwise
/// convolution with symbolic index arithmetic).
bool fullyUnrolled(const For* f) {
  auto e = asConstInt(f->extent);
  return f->forKind == ForKind::Unrolled && e && *e <= kMaxUnrolledInVectorLoop;
}

/// Why the body of a vectorized loop cannot be vectorized, or nothing.
std::optional<std::string> rejection(const For* loop) {
  if (auto c = asConstInt(loop->extent); c && *c < 2)
    return "extent " + std::to_string(*c) + " leaves nothing to vectorize";
  if (!loop->var->dtype.isIntegral() || loop->var->dtype.isBool())
    return "the loop variable is " + loop->var->dtype.str();
  std::optional<std::string> why;
  walkStmt(loop->body, [&](const Stmt& s) {
    if (why)
      return;
    if (auto* f = as<For>(s); f && !fullyUnrolled(f))
      why = "holds the loop over '" + f->var->name + "' (only innermost loops vectorize)";
    else if (auto* a = as<Allocate>(s))
      why = "allocates buffer '" + a->buffer->name + "' in its body";
  });
  if (why)
    return why;
  struct CallFinder : StmtVisitor {
    std::optional<std::string> why;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (why)
        return;
      if (auto* c = as<PrimCall>(e); c && !vectorizableIntrinsic(c)) {
        why = "calls '" + c->op + "', a scalar math library function";
        return;
      }
      StmtVisitor::visit(e);
    }
  } calls;
  calls.visit(loop->body);
  return calls.why;
}

class VectorizeLegalizer : public StmtMutator {
protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    Stmt s = StmtMutator::visitFor(op, self);
    auto* f = as<For>(s);
    if (f->forKind != ForKind::Vectorized)
      return s;
    std::optional<std::string> why = rejection(f);
    if (!why)
      return s;
    return make<For>(f->var, f->min, f->extent, ForKind::Serial, f->body,
                     f->annotations.with(kVectorizeRejectedAttr, *why));
  }
};

} // namespace

PrimFuncRef vectorizeLoops(const PrimFuncRef& f) {
  if (!f)
    throw Error("VectorizeLoops: null function");
  VectorizeLegalizer legalizer;
  return mutatePrimFunc(legalizer, f);
}

} // namespace unity::transform
