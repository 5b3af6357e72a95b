// LowerIntrinsics: math intrinsics without a direct hardware or LLVM form are
// rewritten into TIR arithmetic, so both code generators (LLVM and C) compile
// one shared expansion and the user sees it in the pass record.
//
// Algorithm: one expression mutator over the body; each PrimCall of a float32
// or float64 argument is rewritten bottom-up (arguments first) by a table:
//   rsqrt(x)   -> 1 / sqrt(x)
//   sigmoid(x) -> 1 / (1 + exp(0 - x))
//   erf(x)     -> float32 only: the rational approximation of Eigen and TVM's
//                 fast_erf: x clamped to [-4, 4], erf(x) ~ x P(x^2) / Q(x^2)
//                 with P of degree 6 and Q of degree 4 (max abs error 4.2e-7
//                 against the exact erf, a few float32 ulps); NaN stays NaN.
//                 mul/add/div/min/max only, so the loop vectorizes, where the
//                 libm call erff runs one element at a time (GELU makes erf a
//                 large share of a BERT layer). float64 keeps the libm call
//                 (exact).
// An argument that is not a variable or a constant and is used more than once
// by the expansion is bound once with a PrimLet. What remains after the pass
// maps one to one onto LLVM intrinsics (exp, log, sqrt, fabs, floor, pow,
// ...), instructions (fmod -> frem, isnan/isinf -> fcmp) or libm calls that
// have no cheaper exact form (tanh, tan, asin, erf for float64, ...).
//
// The code generators still lower rsqrt, sigmoid and erf themselves (short
// formulas / libm erf) so a custom pipeline without this pass compiles; only
// the default pipeline's visible expansion is vectorizable for erf.
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;

namespace {

PrimExpr cst(DataType t, double v) { return makeConst(t, v); }

/// Calls body(x) with x = e, or a PrimLet-bound variable when e is neither a
/// variable nor a constant (the expansion uses its argument several times).
template <class F> PrimExpr withBound(const PrimExpr& e, const char* name, F&& body) {
  if (isa<PrimVar>(e) || isa<IntImm>(e) || isa<FloatImm>(e))
    return body(e);
  auto v = primVar(name, e->dtype);
  return make<PrimLet>(v, e, body(PrimExpr(v)));
}

PrimExpr erfFloat32(const PrimExpr& v) {
  return withBound(v, "erf_x", [](const PrimExpr& a) {
    DataType t = a->dtype;
    PrimExpr x = ir::max(ir::min(a, cst(t, 4.0)), cst(t, -4.0));
    PrimExpr x2 = x * x;
    PrimExpr p = cst(t, -2.72614225801306e-10);
    for (double c : {2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
                     -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02})
      p = x2 * p + cst(t, c);
    PrimExpr q = cst(t, -1.45660718464996e-05);
    for (double c : {-2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
                     -1.42647390514189e-02})
      q = x2 * q + cst(t, c);
    return select(call(DataType::Bool(), "isnan", {a}), a, x * p / q);
  });
}

class IntrinsicLowerer : public StmtMutator {
protected:
  PrimExpr visitPrimCall(const PrimCall* op, const PrimExpr& self) override {
    PrimExpr e = StmtMutator::visitPrimCall(op, self);
    auto* c = as<PrimCall>(e);
    if (!c || c->args.size() != 1)
      return e;
    const PrimExpr& x = c->args[0];
    DataType t = x->dtype;
    if (!t.isFloat() || (t.bits != 32 && t.bits != 64) || c->dtype != t)
      return e; // codegen reports unsupported types
    if (c->op == "rsqrt")
      return cst(t, 1.0) / call(t, "sqrt", {x});
    if (c->op == "sigmoid")
      return cst(t, 1.0) / (cst(t, 1.0) + call(t, "exp", {cst(t, 0.0) - x}));
    if (c->op == "erf" && t.bits == 32)
      return erfFloat32(x);
    return e;
  }
};

} // namespace

PrimFuncRef lowerIntrinsics(const PrimFuncRef& f) {
  if (!f)
    throw Error("LowerIntrinsics: null function");
  IntrinsicLowerer lowerer;
  return mutatePrimFunc(lowerer, f);
}

PrimExpr lowerIntrinsics(const PrimExpr& e) {
  IntrinsicLowerer lowerer;
  return lowerer.mutate(e);
}

} // namespace unity::transform
