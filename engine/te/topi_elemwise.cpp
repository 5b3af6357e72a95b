// Elementwise and broadcasting operators (see topi.h for the broadcasting
// rule on symbolic dims).
#include <cmath>

#include "engine/ir/intrinsics.h"
#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

std::vector<PrimExpr> broadcastShape(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b,
                                     const std::string& op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  for (size_t k = 0; k < n; ++k) {
    // k counts from the right
    PrimExpr da = k < a.size() ? a[a.size() - 1 - k] : nullptr;
    PrimExpr db = k < b.size() ? b[b.size() - 1 - k] : nullptr;
    PrimExpr r;
    if (!da)
      r = db;
    else if (!db)
      r = da;
    else if (isConstInt(da, 1))
      r = db;
    else if (isConstInt(db, 1))
      r = da;
    else if (arith::provablyEqual(da, db))
      r = da;
    else if (asConstInt(da) && asConstInt(db))
      fail(op, "shapes " + shapeStr(a) + " and " + shapeStr(b) + " do not broadcast");
    else if (asConstInt(da))
      r = da;
    else if (asConstInt(db))
      r = db;
    else
      fail(op, "shapes " + shapeStr(a) + " and " + shapeStr(b) +
                   " have unrelated symbolic dims that cannot be broadcast statically");
    out[n - 1 - k] = r;
  }
  return out;
}

std::vector<PrimExpr> broadcastIndex(const Tensor& x, const std::vector<PrimExpr>& outIndex) {
  size_t offset = outIndex.size() - x.ndim();
  std::vector<PrimExpr> idx;
  for (int d = 0; d < x.ndim(); ++d)
    idx.push_back(isConstInt(x.shape()[d], 1) ? intImm(0, outIndex[offset + d]->dtype)
                                              : outIndex[offset + d]);
  return idx;
}

Tensor unary(const Tensor& x, const UnaryFn& f, const std::string& name) {
  requireDefined(x, name, "input");
  return compute(
      x.shape(), [&](const std::vector<PrimExpr>& i) { return f(x(i)); }, name);
}

Tensor binary(const Tensor& a, const Tensor& b, const BinaryFn& f, const std::string& name) {
  requireDefined(a, name, "lhs");
  requireDefined(b, name, "rhs");
  if (!(a.dtype() == b.dtype()))
    fail(name, "operand dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  auto shape = broadcastShape(a.shape(), b.shape(), name);
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        return f(a(broadcastIndex(a, i)), b(broadcastIndex(b, i)));
      },
      name);
}

Tensor add(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return x + y; }, n);
}
Tensor subtract(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return x - y; }, n);
}
Tensor multiply(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return x * y; }, n);
}
Tensor divide(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return x / y; }, n);
}
Tensor floorDivide(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b,
      [](PrimExpr x, PrimExpr y) {
        if (x->dtype.isFloat())
          return call(x->dtype, "floor", {x / y});
        return floordiv(x, y);
      },
      n);
}
Tensor power(const Tensor& a, const Tensor& b, const std::string& n) {
  if (a.dtype().isBool())
    fail(n, "power needs numeric operands, got " + a.dtype().str());
  return binary(
      a, b,
      [](PrimExpr x, PrimExpr y) {
        if (x->dtype.isFloat())
          return call(x->dtype, "pow", {x, y});
        // Integers: through float64, exact for every result below 2^53,
        // rounded so 2.9999999 cannot truncate to 2.
        DataType f64 = DataType::Float(64);
        return cast(x->dtype, call(f64, "round", {call(f64, "pow", {cast(f64, x), cast(f64, y)})}));
      },
      n);
}
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return ir::max(x, y); }, n);
}
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(
      a, b, [](PrimExpr x, PrimExpr y) { return ir::min(x, y); }, n);
}
Tensor equal(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::eq, n);
}
Tensor notEqual(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::ne, n);
}
Tensor less(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::lt, n);
}
Tensor lessEqual(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::le, n);
}
Tensor greater(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::gt, n);
}
Tensor greaterEqual(const Tensor& a, const Tensor& b, const std::string& n) {
  return binary(a, b, ir::ge, n);
}

Tensor intrinsic(const Tensor& x, const std::string& fn, const std::string& name) {
  std::string n = name.empty() ? "T_" + fn : name;
  const IntrinsicInfo* info = findIntrinsic(fn);
  if (!info || !info->math || info->arity != 1)
    fail(n, "'" + fn + "' is not a unary intrinsic");
  if (!x.dtype().isFloat())
    fail(n, "'" + fn + "' needs a float input, got " + x.dtype().str());
  return unary(
      x, [&](PrimExpr v) { return call(v->dtype, fn, {v}); }, n);
}

Tensor negative(const Tensor& x, const std::string& n) {
  return unary(
      x, [](PrimExpr v) { return -v; }, n);
}
Tensor abs(const Tensor& x, const std::string& n) {
  return unary(
      x,
      [](PrimExpr v) {
        if (v->dtype.isFloat())
          return call(v->dtype, "fabs", {v});
        if (v->dtype.isUInt())
          return v;
        return select(lt(v, cst(v->dtype, 0)), -v, v);
      },
      n);
}
Tensor relu(const Tensor& x, const std::string& n) {
  return unary(
      x, [](PrimExpr v) { return ir::max(v, cst(v->dtype, 0)); }, n);
}
Tensor sigmoid(const Tensor& x, const std::string& n) { return intrinsic(x, "sigmoid", n); }

/// erf(v) as the intrinsic call. The float32 rational approximation that
/// vectorizes (max abs error 4.2e-7) is applied later, visibly, by the
/// tensor-level pass LowerIntrinsics (engine/transform/lower_intrinsics.cpp),
/// so every backend compiles the same expansion; float64 stays exact.
static PrimExpr erfExpr(const PrimExpr& v) { return call(v->dtype, "erf", {v}); }

Tensor erf(const Tensor& x, const std::string& n) {
  if (!x.dtype().isFloat())
    fail(n, "needs a float input");
  return unary(x, erfExpr, n);
}

Tensor gelu(const Tensor& x, const std::string& n) {
  if (!x.dtype().isFloat())
    fail(n, "needs a float input");
  return unary(
      x,
      [](PrimExpr v) {
        DataType t = v->dtype;
        PrimExpr e = erfExpr(v * cst(t, M_SQRT1_2));
        return v * cst(t, 0.5) * (cst(t, 1.0) + e);
      },
      n);
}
Tensor geluTanh(const Tensor& x, const std::string& n) {
  if (!x.dtype().isFloat())
    fail(n, "needs a float input");
  return unary(
      x,
      [](PrimExpr v) {
        DataType t = v->dtype;
        PrimExpr inner = cst(t, std::sqrt(2.0 / M_PI)) * (v + cst(t, 0.044715) * v * v * v);
        return cst(t, 0.5) * v * (cst(t, 1.0) + call(t, "tanh", {inner}));
      },
      n);
}
Tensor silu(const Tensor& x, const std::string& n) {
  if (!x.dtype().isFloat())
    fail(n, "needs a float input");
  return unary(
      x, [](PrimExpr v) { return v * call(v->dtype, "sigmoid", {v}); }, n);
}
Tensor clip(const Tensor& x, double lo, double hi, const std::string& n) {
  if (lo > hi)
    fail(n, "lower bound " + std::to_string(lo) + " exceeds upper bound " + std::to_string(hi));
  return unary(
      x, [&](PrimExpr v) { return ir::min(ir::max(v, cst(v->dtype, lo)), cst(v->dtype, hi)); }, n);
}
Tensor cast(const Tensor& x, DataType dtype, const std::string& n) {
  if (!dtype.isScalar() || dtype.isVoid() || dtype.isHandle())
    fail(n, "cannot cast to " + dtype.str());
  return unary(
      x, [&](PrimExpr v) { return ir::cast(dtype, v); }, n);
}

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b, const std::string& n) {
  requireDefined(c, n, "condition");
  requireDefined(a, n, "lhs");
  requireDefined(b, n, "rhs");
  if (!(a.dtype() == b.dtype()))
    fail(n, "branch dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  auto shape = broadcastShape(broadcastShape(c.shape(), a.shape(), n), b.shape(), n);
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr cond = c(broadcastIndex(c, i));
        if (!cond->dtype.isBool())
          cond = ne(cond, cst(cond->dtype, 0));
        return select(cond, a(broadcastIndex(a, i)), b(broadcastIndex(b, i)));
      },
      n);
}

} // namespace unity::te::topi
