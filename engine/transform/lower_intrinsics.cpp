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
//   exp(x)     -> float32 only: 2^n exp(r) with n = round(x / ln 2) and
//                 r = x - n ln 2 (ln 2 in two parts), exp(r) by Cephes'
//                 expf polynomial (degree 7 in r, a few float32 ulps), 2^n
//                 built from exponent bits (reinterpret) as two factors so
//                 results reach the largest float and the denormals; inf
//                 above 88.72, 0 below -103.97, NaN stays NaN. LLVM has no
//                 vector exp without a vector math library: the call ran
//                 one element at a time (expf), softmax 18x slower than ONNX
//                 Runtime's. sigmoid(x) of float32 uses it too.
// An argument that is not a variable or a constant and is used more than once
// by the expansion is bound once with a PrimLet. What remains after the pass
// maps one to one onto LLVM intrinsics (exp of float64, log, sqrt, fabs, floor, pow,
// ...), instructions (fmod -> frem, isnan/isinf -> fcmp) or libm calls that
// have no cheaper exact form (tanh, tan, asin, erf for float64, ...).
//
// The code generators still lower rsqrt, sigmoid and erf themselves (short
// formulas / libm erf) so a custom pipeline without this pass compiles; only
// the default pipeline's visible expansion is vectorizable for erf.
#include <limits>

#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
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

/// 2^k for an int32 k in [-126, 127]: the float32 whose exponent field is
/// k + 127.
PrimExpr powerOfTwo(const PrimExpr& k) {
  return call(DataType::Float32(), kReinterpretIntrinsic,
              {(k + intImm(127, DataType::Int32())) * intImm(1 << 23, DataType::Int32())});
}

PrimExpr expFloat32(const PrimExpr& v) {
  return withBound(v, "exp_x", [](const PrimExpr& a) {
    DataType t = a->dtype, i32 = DataType::Int32();
    // exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 in
    // [-ln 2 / 2, ln 2 / 2] (ln 2 in two parts, Cody and Waite), exp(r) by
    // Cephes' expf polynomial. x is clamped where 2^n stays within two
    // float32 factors 2^a 2^b (n = a + b, each in [-75, 64]): results from
    // the largest float to the denormals, as libm's.
    PrimExpr x = ir::max(ir::min(a, cst(t, 88.72283935546875)), cst(t, -103.972084));
    return withBound(x, "exp_c", [&](const PrimExpr& xc) {
      return withBound(call(t, "floor", {xc * cst(t, 1.44269504088896341) + cst(t, 0.5)}), "exp_n",
                       [&](const PrimExpr& n) {
                         return withBound(
                             xc - n * cst(t, 0.693359375) + n * cst(t, 2.12194440e-4), "exp_r",
                             [&](const PrimExpr& r) {
                               PrimExpr p = cst(t, 1.9875691500e-4);
                               for (double c : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                                                1.6666665459e-1, 5.0000001201e-1})
                                 p = p * r + cst(t, c);
                               p = p * r * r + r + cst(t, 1.0);
                               return withBound(cast(i32, n), "exp_k", [&](const PrimExpr& k) {
                                 PrimExpr half = floordiv(k, intImm(2, i32));
                                 PrimExpr y = p * powerOfTwo(half) * powerOfTwo(k - half);
                                 y = select(binary(NodeKind::GT, a, cst(t, 88.72283935546875)),
                                            cst(t, std::numeric_limits<double>::infinity()), y);
                                 return select(call(DataType::Bool(), "isnan", {a}), a, y);
                               });
                             });
                       });
    });
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
    if (c->op == "sigmoid") {
      PrimExpr e = t.bits == 32 ? expFloat32(cst(t, 0.0) - x) : call(t, "exp", {cst(t, 0.0) - x});
      return cst(t, 1.0) / (cst(t, 1.0) + e);
    }
    if (c->op == "erf" && t.bits == 32)
      return erfFloat32(x);
    if (c->op == "exp" && t.bits == 32)
      return expFloat32(x);
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
