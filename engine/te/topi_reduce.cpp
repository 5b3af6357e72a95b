// Reductions, softmax and normalizations.
//
// A reduction is one compute whose whole body is te::sum/max/...; anything
// computed from a reduced value (a mean's division, softmax's exp) is a
// further compute, so these operators produce several blocks. Variance uses
// the two-pass formula (mean first, then the mean of squared deviations),
// which is what a careful hand-written loop computes too.
#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

namespace {

std::vector<bool> axisMask(const std::vector<int>& axes, int ndim, const std::string& op) {
  std::vector<bool> mask(ndim, axes.empty());
  for (int a : axes) {
    int n = normAxis(a, ndim, op);
    if (mask[n])
      fail(op, "axis " + std::to_string(a) + " is listed twice");
    mask[n] = true;
  }
  return mask;
}

std::vector<PrimExpr> reducedShape(const Tensor& x, const std::vector<bool>& mask, bool keepdims) {
  std::vector<PrimExpr> out;
  for (int d = 0; d < x.ndim(); ++d)
    if (!mask[d])
      out.push_back(x.shape()[d]);
    else if (keepdims)
      out.push_back(intImm(1, x.shape()[d]->dtype));
  return out;
}

/// The index into a reduced tensor (as made by reducedShape) for a full index.
std::vector<PrimExpr> reducedIndex(const std::vector<PrimExpr>& full, const std::vector<bool>& mask,
                                   bool keepdims) {
  std::vector<PrimExpr> out;
  for (size_t d = 0; d < full.size(); ++d)
    if (!mask[d])
      out.push_back(full[d]);
    else if (keepdims)
      out.push_back(intImm(0, full[d]->dtype));
  return out;
}

/// compute(reducedShape) of r over the masked axes of f(full index).
Tensor reduceWith(const Tensor& x, Reducer r, const std::vector<bool>& mask, bool keepdims,
                  const std::function<PrimExpr(const std::vector<PrimExpr>&)>& f,
                  const std::string& name) {
  std::vector<ReduceAxis> raxes;
  for (int d = 0; d < x.ndim(); ++d)
    if (mask[d])
      raxes.push_back(reduceAxis(x.shape()[d], "k" + std::to_string(d)));
  return compute(
      reducedShape(x, mask, keepdims),
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> full;
        size_t pos = 0, k = 0;
        for (int d = 0; d < x.ndim(); ++d) {
          if (mask[d]) {
            full.push_back(raxes[k++].var);
            if (keepdims)
              ++pos;
          } else {
            full.push_back(i[pos++]);
          }
        }
        PrimExpr v = f(full);
        if (raxes.empty())
          return v; // reduction over no axis (rank 0): identity copy
        return te::reduce(r, v, raxes);
      },
      name);
}

PrimExpr count(const Tensor& x, const std::vector<bool>& mask) {
  PrimExpr n = intImm(1);
  for (int d = 0; d < x.ndim(); ++d)
    if (mask[d])
      n = n * x.shape()[d];
  return simp(n);
}

} // namespace

Tensor reduce(const Tensor& x, Reducer r, std::vector<int> axes, bool keepdims,
              const std::string& name) {
  std::string n = name.empty() ? std::string("T_") + reducerName(r) : name;
  requireDefined(x, n, "input");
  auto mask = axisMask(axes, x.ndim(), n);
  return reduceWith(
      x, r, mask, keepdims, [&](auto& i) { return x(i); }, n);
}
Tensor sum(const Tensor& x, std::vector<int> a, bool k, const std::string& n) {
  return reduce(x, Reducer::Sum, std::move(a), k, n);
}
Tensor max(const Tensor& x, std::vector<int> a, bool k, const std::string& n) {
  return reduce(x, Reducer::Max, std::move(a), k, n);
}
Tensor min(const Tensor& x, std::vector<int> a, bool k, const std::string& n) {
  return reduce(x, Reducer::Min, std::move(a), k, n);
}
Tensor prod(const Tensor& x, std::vector<int> a, bool k, const std::string& n) {
  return reduce(x, Reducer::Prod, std::move(a), k, n);
}

Tensor mean(const Tensor& x, std::vector<int> axes, bool keepdims, const std::string& name) {
  requireDefined(x, name, "input");
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  auto mask = axisMask(axes, x.ndim(), name);
  Tensor s = reduceWith(
      x, Reducer::Sum, mask, keepdims, [&](auto& i) { return x(i); }, name + "_sum");
  PrimExpr n = ir::cast(x.dtype(), count(x, mask));
  return compute(
      s.shape(), [&](auto& i) { return s(i) / n; }, name);
}

static Tensor argReduce(const Tensor& x, int axis, bool keepdims, bool isMax,
                        const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  std::vector<bool> mask(x.ndim(), false);
  mask[a] = true;
  Tensor m = reduceWith(
      x, isMax ? Reducer::Max : Reducer::Min, mask, keepdims, [&](auto& i) { return x(i); },
      name + (isMax ? "_max" : "_min"));
  PrimExpr extent = ir::cast(DataType::Int64(), x.shape()[a]);
  return reduceWith(
      x, Reducer::Min, mask, keepdims,
      [&](const std::vector<PrimExpr>& full) {
        PrimExpr k = ir::cast(DataType::Int64(), full[a]);
        return select(eq(x(full), m(reducedIndex(full, mask, keepdims))), k, extent);
      },
      name);
}
Tensor argmax(const Tensor& x, int axis, bool keepdims, const std::string& name) {
  return argReduce(x, axis, keepdims, true, name);
}
Tensor argmin(const Tensor& x, int axis, bool keepdims, const std::string& name) {
  return argReduce(x, axis, keepdims, false, name);
}

namespace {
/// What softmax and logSoftmax start with: x checked (defined, floating-point),
/// the mask of the reduced axis and the maximum along it (`name`_maxelem).
struct AxisMax {
  std::vector<bool> mask;
  Tensor mx;
};

AxisMax axisMax(const Tensor& x, int axis, const std::string& name) {
  requireDefined(x, name, "input");
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  std::vector<bool> mask(x.ndim(), false);
  mask[normAxis(axis, x.ndim(), name)] = true;
  Tensor mx = reduceWith(
      x, Reducer::Max, mask, false, [&](auto& i) { return x(i); }, name + "_maxelem");
  return {std::move(mask), mx};
}
} // namespace

Tensor softmax(const Tensor& x, int axis, const std::string& name) {
  AxisMax m = axisMax(x, axis, name); // the lambdas below capture mask and mx
  const std::vector<bool>& mask = m.mask;
  const Tensor& mx = m.mx;
  Tensor ex = compute(
      x.shape(),
      [&](auto& i) { return call(x.dtype(), "exp", {x(i) - mx(reducedIndex(i, mask, false))}); },
      name + "_exp");
  Tensor sm = reduceWith(
      x, Reducer::Sum, mask, false, [&](auto& i) { return ex(i); }, name + "_expsum");
  // One reciprocal per row, then a multiply per element: the reciprocal is
  // invariant in the innermost loop, so LLVM hoists it, while a division per
  // element (vdivps, 10-20 cycles a vector on AVX-512) took half the kernel.
  // The result differs from exp / sum by at most one rounding; ONNX Runtime's
  // softmax scales the same way.
  return compute(
      x.shape(),
      [&](auto& i) { return ex(i) * (cst(x.dtype(), 1.0) / sm(reducedIndex(i, mask, false))); },
      name);
}

Tensor logSoftmax(const Tensor& x, int axis, const std::string& name) {
  AxisMax m = axisMax(x, axis, name); // the lambdas below capture mask and mx
  const std::vector<bool>& mask = m.mask;
  const Tensor& mx = m.mx;
  Tensor sm = reduceWith(
      x, Reducer::Sum, mask, false,
      [&](auto& i) { return call(x.dtype(), "exp", {x(i) - mx(reducedIndex(i, mask, false))}); },
      name + "_expsum");
  return compute(
      x.shape(),
      [&](auto& i) {
        auto r = reducedIndex(i, mask, false);
        return x(i) - mx(r) - call(x.dtype(), "log", {sm(r)});
      },
      name);
}

Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, std::vector<int> axes,
                 double eps, const std::string& name) {
  requireDefined(x, name, "input");
  requireDefined(gamma, name, "gamma");
  requireDefined(beta, name, "beta");
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  if (axes.empty())
    fail(name, "no axes to normalize over");
  auto mask = axisMask(axes, x.ndim(), name);
  std::vector<PrimExpr> normShape;
  for (int d = 0; d < x.ndim(); ++d)
    if (mask[d])
      normShape.push_back(x.shape()[d]);
  for (const Tensor* p : {&gamma, &beta}) {
    if (p->ndim() != static_cast<int>(normShape.size()))
      fail(name,
           "gamma/beta have shape " + shapeStr(p->shape()) + ", expected " + shapeStr(normShape));
    for (size_t d = 0; d < normShape.size(); ++d) {
      auto a = asConstInt(p->shape()[d]), b = asConstInt(normShape[d]);
      if (a && b && *a != *b)
        fail(name,
             "gamma/beta have shape " + shapeStr(p->shape()) + ", expected " + shapeStr(normShape));
    }
    if (!(p->dtype() == x.dtype()))
      fail(name, "gamma/beta dtype differs from the input");
  }
  DataType t = x.dtype();
  PrimExpr n = ir::cast(t, count(x, mask));
  Tensor s = reduceWith(
      x, Reducer::Sum, mask, false, [&](auto& i) { return x(i); }, name + "_sum");
  Tensor sq = reduceWith(
      x, Reducer::Sum, mask, false,
      [&](auto& i) {
        PrimExpr d = x(i) - s(reducedIndex(i, mask, false)) / n;
        return d * d;
      },
      name + "_sqsum");
  return compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        auto r = reducedIndex(i, mask, false);
        std::vector<PrimExpr> gi;
        for (size_t d = 0; d < i.size(); ++d)
          if (mask[d])
            gi.push_back(i[d]);
        PrimExpr norm = (x(i) - s(r) / n) * call(t, "rsqrt", {sq(r) / n + cst(t, eps)});
        return norm * gamma(gi) + beta(gi);
      },
      name);
}

Tensor batchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                 const Tensor& var, int axis, double eps, const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  for (const Tensor* p : {&gamma, &beta, &mean, &var}) {
    requireDefined(*p, name, "parameter");
    if (p->ndim() != 1)
      fail(name, "parameter '" + p->name() + "' must be 1-D, has shape " + shapeStr(p->shape()));
    auto c = asConstInt(p->shape()[0]), e = asConstInt(x.shape()[a]);
    if (c && e && *c != *e)
      fail(name, "parameter '" + p->name() + "' has " + std::to_string(*c) + " elements for " +
                     std::to_string(*e) + " channels");
    if (!(p->dtype() == x.dtype()))
      fail(name, "parameter '" + p->name() + "' dtype differs from the input");
  }
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  DataType t = x.dtype();
  return compute(
      x.shape(),
      [&](auto& i) {
        PrimExpr c = i[a];
        return (x(i) - mean(c)) * call(t, "rsqrt", {var(c) + cst(t, eps)}) * gamma(c) + beta(c);
      },
      name);
}

} // namespace unity::te::topi
