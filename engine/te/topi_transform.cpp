// Data movement: reshape, transpose, concat, split, slices, take, broadcast,
// pad, resize, expand/squeeze. All are single injective computes; guarded
// reads clamp their indices so that both branches of a Select are in bounds.
#include <climits>

#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

namespace {

PrimExpr product(const std::vector<PrimExpr>& shape, size_t from) {
  PrimExpr p = intImm(1);
  for (size_t d = from; d < shape.size(); ++d)
    p = p * shape[d];
  return simp(p);
}

PrimExpr productRange(const std::vector<PrimExpr>& shape, size_t from, size_t to) {
  PrimExpr p = intImm(1);
  for (size_t d = from; d < to; ++d)
    p = p * shape[d];
  return simp(p);
}

/// A run of consecutive input dims [inBegin, inEnd) holding exactly the
/// elements of the output dims [outBegin, outEnd).
struct ReshapeGroup {
  size_t inBegin, inEnd, outBegin, outEnd;
  bool provable;
};

/// Splits a reshape into groups of dims whose products are provably equal
/// (shortest first): (N, 8, 4, W) -> (N, 32, W // 2, 2) is N -> N, (8, 4) ->
/// 32 and W -> (W // 2, 2), the last group taking the rest on the model's
/// promise that the counts agree. Each output index then comes from the
/// indices of its own group only, so no index is divided by a symbolic
/// product of other dims (an integer division per element, where a static
/// shape has a constant one that LLVM strength-reduces).
std::vector<ReshapeGroup> reshapeGroups(const std::vector<PrimExpr>& in,
                                        const std::vector<PrimExpr>& out) {
  std::vector<ReshapeGroup> groups;
  size_t ia = 0, ob = 0;
  while (ia < in.size() && ob < out.size()) {
    bool found = false;
    for (size_t p = ia + 1; p <= in.size() && !found; ++p)
      for (size_t q = ob + 1; q <= out.size() && !found; ++q)
        if (arith::provablyEqual(productRange(in, ia, p), productRange(out, ob, q))) {
          groups.push_back({ia, p, ob, q, true});
          ia = p;
          ob = q;
          found = true;
        }
    if (!found)
      break;
  }
  if (ia < in.size() || ob < out.size()) {
    if (!groups.empty() && (ia == in.size() || ob == out.size())) {
      // Dims left on one side only (unit dims): they join the last group.
      groups.back().inEnd = in.size();
      groups.back().outEnd = out.size();
    } else {
      groups.push_back({ia, in.size(), ob, out.size(), false});
    }
  }
  return groups;
}

std::optional<int64_t> constNumel(const std::vector<PrimExpr>& shape) {
  int64_t n = 1;
  for (auto& d : shape) {
    auto c = asConstInt(d);
    if (!c)
      return std::nullopt;
    n *= *c;
  }
  return n;
}

} // namespace

Tensor reshape(const Tensor& x, std::vector<PrimExpr> shape, const std::string& name) {
  requireDefined(x, name, "input");
  for (auto& d : shape)
    if (!d || !d->dtype.isIntegral())
      fail(name, "the new shape has a missing or non-integer dim");
  auto a = constNumel(x.shape()), b = constNumel(shape);
  if (a && b && *a != *b)
    fail(name, "cannot reshape " + shapeStr(x.shape()) + " (" + std::to_string(*a) +
                   " elements) to " + shapeStr(shape) + " (" + std::to_string(*b) + " elements)");
  // Symbolic counts that are not provably equal ((N, 8, 4, W) to
  // (N, 32, W // 2, 2), equal for even W) are the model's promise, as in
  // the deduction; the leading source index is then clamped so that a
  // broken promise reads wrong values, never outside the input.
  bool provable = (a && b) || arith::provablyEqual(product(x.shape(), 0), product(shape, 0));
  if (x.ndim() > 0 && !shape.empty() && !(a && b)) {
    auto groups = reshapeGroups(x.shape(), shape);
    return compute(
        shape,
        [&, groups](const std::vector<PrimExpr>& i) {
          const auto& in = x.shape();
          std::vector<PrimExpr> xi(in.size());
          for (auto& g : groups) {
            PrimExpr lin = intImm(0);
            for (size_t d = g.outBegin; d < g.outEnd; ++d)
              lin = lin + i[d] * productRange(shape, d + 1, g.outEnd);
            for (size_t d = g.inBegin; d < g.inEnd; ++d) {
              PrimExpr q = floordiv(lin, productRange(in, d + 1, g.inEnd));
              if (d == g.inBegin && !g.provable && !provable)
                q = min(q, in[d] - intImm(1));
              xi[d] = d == g.inBegin ? q : floormod(q, in[d]);
            }
          }
          return x(xi);
        },
        name);
  }
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr lin = intImm(0);
        for (size_t d = 0; d < i.size(); ++d)
          lin = lin + i[d] * product(shape, d + 1);
        std::vector<PrimExpr> xi;
        int n = x.ndim();
        for (int d = 0; d < n; ++d) {
          PrimExpr q = floordiv(lin, product(x.shape(), d + 1));
          if (d == 0 && !provable)
            q = min(q, x.shape()[0] - intImm(1));
          xi.push_back(d == 0 ? q : floormod(q, x.shape()[d]));
        }
        return x(xi);
      },
      name);
}

Tensor transpose(const Tensor& x, std::vector<int> axes, const std::string& name) {
  requireDefined(x, name, "input");
  int n = x.ndim();
  if (axes.empty())
    for (int d = n - 1; d >= 0; --d)
      axes.push_back(d);
  if (static_cast<int>(axes.size()) != n)
    fail(name, "axes must list every one of the " + std::to_string(n) + " dims");
  std::vector<bool> seen(n, false);
  for (int& a : axes) {
    a = normAxis(a, n, name);
    if (seen[a])
      fail(name, "axis " + std::to_string(a) + " is listed twice");
    seen[a] = true;
  }
  std::vector<PrimExpr> shape;
  for (int a : axes)
    shape.push_back(x.shape()[a]);
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi(n);
        for (int d = 0; d < n; ++d)
          xi[axes[d]] = i[d];
        return x(xi);
      },
      name);
}

Tensor concat(const std::vector<Tensor>& xs, int axis, const std::string& name) {
  if (xs.empty())
    fail(name, "no inputs");
  for (auto& t : xs)
    requireDefined(t, name, "input");
  int n = xs[0].ndim();
  int a = normAxis(axis, n, name);
  std::vector<PrimExpr> offsets{intImm(0)};
  for (auto& t : xs) {
    if (t.ndim() != n)
      fail(name, "inputs differ in rank");
    if (!(t.dtype() == xs[0].dtype()))
      fail(name, "inputs differ in dtype");
    for (int d = 0; d < n; ++d) {
      auto p = asConstInt(t.shape()[d]), q = asConstInt(xs[0].shape()[d]);
      if (d != a && p && q && *p != *q)
        fail(name, "input shapes " + shapeStr(xs[0].shape()) + " and " + shapeStr(t.shape()) +
                       " differ off the axis");
    }
    offsets.push_back(simp(offsets.back() + t.shape()[a]));
  }
  std::vector<PrimExpr> shape = xs[0].shape();
  shape[a] = offsets.back();
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        auto read = [&](size_t k) {
          std::vector<PrimExpr> xi = i;
          xi[a] =
              k + 1 == xs.size() && k == 0 ? i[a] : clampIndex(i[a] - offsets[k], xs[k].shape()[a]);
          return xs[k](xi);
        };
        PrimExpr v = read(xs.size() - 1);
        for (size_t k = xs.size() - 1; k-- > 0;)
          v = select(lt(i[a], offsets[k + 1]), read(k), v);
        return v;
      },
      name);
}

static std::vector<Tensor> splitBy(const Tensor& x, const std::vector<PrimExpr>& bounds, int a,
                                   const std::string& name) {
  std::vector<Tensor> out;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    std::vector<PrimExpr> shape = x.shape();
    shape[a] = simp(bounds[k + 1] - bounds[k]);
    PrimExpr off = bounds[k];
    out.push_back(compute(
        shape,
        [&](const std::vector<PrimExpr>& i) {
          std::vector<PrimExpr> xi = i;
          xi[a] = isConstInt(off, 0) ? i[a] : i[a] + off;
          return x(xi);
        },
        name + (bounds.size() > 2 ? "_" + std::to_string(k) : "")));
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t sections, int axis, const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  if (sections < 1)
    fail(name, "sections must be positive");
  const PrimExpr& D = x.shape()[a];
  if (auto c = asConstInt(D); c && *c % sections != 0)
    fail(name, "dim " + std::to_string(*c) + " is not divisible into " + std::to_string(sections) +
                   " sections");
  PrimExpr part = simp(floordiv(D, i64(sections)));
  std::vector<PrimExpr> bounds;
  for (int64_t k = 0; k <= sections; ++k)
    bounds.push_back(simp(part * k));
  return splitBy(x, bounds, a, name);
}

std::vector<Tensor> splitAt(const Tensor& x, std::vector<int64_t> indices, int axis,
                            const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  const PrimExpr& D = x.shape()[a];
  std::vector<PrimExpr> bounds{i64(0)};
  int64_t prev = 0;
  for (int64_t v : indices) {
    if (v < prev)
      fail(name, "split indices must be ascending and non-negative");
    // Past the end clamps to the end, as numpy and the deduction do:
    // splitting 5 at [2, 9] gives 2, 3 and 0 elements.
    auto c = asConstInt(D);
    bounds.push_back(i64(c ? std::min(v, *c) : v));
    prev = v;
  }
  bounds.push_back(D);
  return splitBy(x, bounds, a, name);
}

Tensor stridedSlice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
                    std::vector<int64_t> strides, std::vector<int> axes, const std::string& name) {
  requireDefined(x, name, "input");
  if (begin.size() != end.size())
    fail(name, "begin and end differ in length");
  if (strides.empty())
    strides.assign(begin.size(), 1);
  if (strides.size() != begin.size())
    fail(name, "strides and begin differ in length");
  if (axes.empty())
    for (size_t d = 0; d < begin.size(); ++d)
      axes.push_back(static_cast<int>(d));
  if (axes.size() != begin.size())
    fail(name, "axes and begin differ in length");
  int n = x.ndim();
  std::vector<PrimExpr> shape = x.shape(), start(n, i64(0));
  std::vector<int64_t> step(n, 1);
  std::vector<bool> seen(n, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    int a = normAxis(axes[k], n, name);
    if (seen[a])
      fail(name, "axis " + std::to_string(a) + " is sliced twice");
    seen[a] = true;
    int64_t b = begin[k], e = end[k], s = strides[k];
    if (s == 0)
      fail(name, "stride 0 on axis " + std::to_string(a));
    step[a] = s;
    const PrimExpr& D = x.shape()[a];
    if (auto c = asConstInt(D)) {
      int64_t dim = *c;
      auto norm = [&](int64_t v) {
        if (v < 0)
          v += dim;
        return s > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
      };
      b = norm(b);
      e = norm(e);
      int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
      shape[a] = i64(std::max<int64_t>(len, 0));
      start[a] = i64(b);
    } else {
      if (s < 0)
        fail(name, "negative stride on symbolic dim " + std::to_string(a) + " is not supported");
      PrimExpr pb = b < 0 ? ir::max(D + b, i64(0)) : ir::min(i64(b), D);
      PrimExpr pe = e >= INT32_MAX ? D : e < 0 ? ir::max(D + e, i64(0)) : ir::min(i64(e), D);
      shape[a] = simp(ir::max(floordiv(pe - pb + (s - 1), i64(s)), i64(0)));
      start[a] = simp(pb);
    }
  }
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi;
        for (int d = 0; d < n; ++d)
          xi.push_back(seen[d] ? simp(start[d] + i[d] * step[d]) : i[d]);
        return x(xi);
      },
      name);
}

Tensor take(const Tensor& x, const Tensor& indices, int axis, const std::string& name) {
  requireDefined(x, name, "data");
  requireDefined(indices, name, "indices");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  int a = normAxis(axis, x.ndim(), name);
  std::vector<PrimExpr> shape(x.shape().begin(), x.shape().begin() + a);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + a + 1, x.shape().end());
  int m = indices.ndim();
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> ii(i.begin() + a, i.begin() + a + m);
        PrimExpr D = ir::cast(DataType::Int64(), x.shape()[a]);
        PrimExpr k = ir::cast(DataType::Int64(), indices(ii));
        k = select(lt(k, i64(0)), k + D, k);
        std::vector<PrimExpr> xi(i.begin(), i.begin() + a);
        xi.push_back(ir::cast(x.shape()[a]->dtype, clampIndex(k, D)));
        xi.insert(xi.end(), i.begin() + a + m, i.end());
        return x(xi);
      },
      name);
}

Tensor broadcastTo(const Tensor& x, std::vector<PrimExpr> shape, const std::string& name) {
  requireDefined(x, name, "input");
  if (static_cast<int>(shape.size()) < x.ndim())
    fail(name, "cannot broadcast to a lower rank");
  auto b = broadcastShape(x.shape(), shape, name);
  for (size_t d = 0; d < shape.size(); ++d)
    if (auto p = asConstInt(b[d]), q = asConstInt(shape[d]); p && q && *p != *q)
      fail(name, "cannot broadcast " + shapeStr(x.shape()) + " to " + shapeStr(shape));
  return compute(
      shape, [&](const std::vector<PrimExpr>& i) { return x(broadcastIndex(x, i)); }, name);
}

Tensor pad(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after, double value,
           const std::string& name) {
  requireDefined(x, name, "input");
  int n = x.ndim();
  if (static_cast<int>(before.size()) != n || static_cast<int>(after.size()) != n)
    fail(name, "needs padding before and after for each of the " + std::to_string(n) + " dims");
  std::vector<PrimExpr> shape;
  for (int d = 0; d < n; ++d) {
    if (before[d] < 0 || after[d] < 0)
      fail(name, "negative padding");
    shape.push_back(simp(x.shape()[d] + (before[d] + after[d])));
  }
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr inside;
        std::vector<PrimExpr> xi;
        for (int d = 0; d < n; ++d) {
          if (before[d] == 0 && after[d] == 0) {
            xi.push_back(i[d]);
            continue;
          }
          PrimExpr j = before[d] ? i[d] - before[d] : i[d];
          PrimExpr ok = logicalAnd(ge(j, i64(0)), lt(j, x.shape()[d]));
          inside = inside ? logicalAnd(inside, ok) : ok;
          xi.push_back(clampIndex(j, x.shape()[d]));
        }
        if (!inside)
          return x(xi);
        return select(inside, x(xi), cst(x.dtype(), value));
      },
      name);
}

Tensor padMode(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after,
               const std::string& mode, const std::string& name) {
  requireDefined(x, name, "input");
  if (mode != "edge" && mode != "reflect")
    fail(name, "unknown pad mode '" + mode + "' (edge and reflect are)");
  int n = x.ndim();
  if (static_cast<int>(before.size()) != n || static_cast<int>(after.size()) != n)
    fail(name, "needs padding before and after for each of the " + std::to_string(n) + " dims");
  std::vector<PrimExpr> shape;
  for (int d = 0; d < n; ++d) {
    if (before[d] < 0 || after[d] < 0)
      fail(name, "negative padding");
    if (auto e = asConstInt(x.shape()[d]); e && *e == 0 && before[d] + after[d] > 0)
      fail(name, "cannot " + mode + "-pad the empty dim " + std::to_string(d));
    shape.push_back(simp(x.shape()[d] + (before[d] + after[d])));
  }
  // Edge: the index clamped into [0, n). Reflect: a triangle wave of
  // period 2 (n - 1) folds any offset back into [0, n) (numpy's reflect,
  // repeated when the pad exceeds the dim; a dim of 1 gives index 0).
  auto source = [&](const PrimExpr& j, const PrimExpr& extent) -> PrimExpr {
    if (mode == "edge")
      return clampIndex(j, extent);
    PrimExpr last = simp(extent - 1);
    PrimExpr period = simp(ir::max(last * 2, i64(1)));
    PrimExpr m = floormod(j, period);
    PrimExpr dist = last - m;
    return last - ir::max(dist, i64(0) - dist);
  };
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi;
        for (int d = 0; d < n; ++d)
          xi.push_back(before[d] == 0 && after[d] == 0
                           ? i[d]
                           : source(before[d] ? i[d] - before[d] : i[d], x.shape()[d]));
        return x(xi);
      },
      name);
}

Tensor resize2d(const Tensor& x, PrimExpr outH, PrimExpr outW, const std::string& method,
                const std::string& coordinateMode, const std::string& nearestMode,
                const std::string& name) {
  ResizeParams p;
  p.method = method;
  p.coordinateMode = coordinateMode;
  p.nearestMode = nearestMode;
  return resize2d(x, std::move(outH), std::move(outW), p, name);
}

// Resize: per output position and axis, a source coordinate (computed in
// float64, as the ONNX reference does) from the coordinate mode and the
// axis' scale (output / input: the given one, read from the run-time
// parameters when there are any, else out / in), then
//  - nearest: the rounded coordinate;
//  - linear: the two neighbours floor(c), floor(c) + 1 weighted 1 - t, t;
//  - cubic: the four neighbours floor(c) - 1 .. floor(c) + 2 weighted by
//    Keys' kernel with parameter alpha at t = c - floor(c); with
//    cubicExclude the weights of neighbours outside the input are dropped
//    and the rest renormalized.
// Reads clamp to the input (edge extension), both axes are separable.
// tf_crop_and_resize maps into the crop box (`roi`, or the run-time
// parameters) instead, and positions that fall outside the input take the
// extrapolation value.
Tensor resize2d(const Tensor& x, PrimExpr outH, PrimExpr outW, const ResizeParams& p,
                const std::string& name) {
  requireDefined(x, name, "input");
  if (x.ndim() != 4)
    fail(name, "expects NCHW data, got " + shapeStr(x.shape()));
  if (!x.dtype().isFloat())
    fail(name, "needs a float input");
  const std::string &method = p.method, &mode = p.coordinateMode, &nearestMode = p.nearestMode;
  if (method != "nearest" && method != "linear" && method != "cubic")
    fail(name, "unknown method '" + method + "'");
  if (mode != "half_pixel" && mode != "align_corners" && mode != "asymmetric" &&
      mode != "pytorch_half_pixel" && mode != "tf_half_pixel_for_nn" &&
      mode != "tf_crop_and_resize")
    fail(name, "unknown coordinate transformation mode '" + mode + "'");
  bool crop = mode == "tf_crop_and_resize";
  if (p.params.defined()) {
    if (!p.params.dtype().isFloat() || p.params.ndim() != 1 ||
        !isConstInt(p.params.shape()[0], crop ? 4 : 2))
      fail(name, std::string("the run-time parameters must be a 1-D float tensor of ") +
                     (crop ? "4 values (the crop box)" : "2 values (the scales)") + ", got " +
                     p.params.dtype().str() + " " + shapeStr(p.params.shape()));
  } else if (crop && p.roi.size() != 4) {
    fail(name, "tf_crop_and_resize needs a roi of 4 values");
  }
  if (nearestMode != "floor" && nearestMode != "ceil" && nearestMode != "round_prefer_floor" &&
      nearestMode != "round_prefer_ceil")
    fail(name, "unknown nearest mode '" + nearestMode + "'");
  if (!outH || !outW || !outH->dtype.isIntegral() || !outW->dtype.isIntegral())
    fail(name, "output size must be integers");
  if (p.scaleH < 0 || p.scaleW < 0)
    fail(name, "scales must be positive");
  DataType t = x.dtype(), f64 = DataType::Float(64);
  auto f = [&](const PrimExpr& e) { return ir::cast(f64, e); };
  auto c64 = [&](double v) { return cst(f64, v); };
  // Value k of the run-time parameters, as float64.
  auto param = [&](int k) { return f(p.params(i64(k))); };
  // The scale of an axis: the run-time one, the given one, else null (out / in).
  auto scaleOf = [&](int axis) -> PrimExpr {
    if (p.params.defined() && !crop)
      return param(axis);
    double s = axis == 0 ? p.scaleH : p.scaleW;
    return s > 0 ? c64(s) : PrimExpr();
  };
  // Source coordinate (float64) of output position o along a dim in -> out.
  auto coord = [&](const PrimExpr& o, const PrimExpr& in, const PrimExpr& out, int axis) {
    PrimExpr scale = scaleOf(axis);
    PrimExpr inv;
    if (!scale)
      inv = f(in) / f(out);
    else if (auto* k = as<ir::FloatImm>(scale))
      inv = c64(1.0 / k->value);
    else
      inv = c64(1.0) / scale;
    if (crop) { // start * (in - 1) + o * (end - start) * (in - 1) / (out - 1)
      PrimExpr start = p.params.defined() ? param(axis) : c64(p.roi[axis]);
      PrimExpr end = p.params.defined() ? param(2 + axis) : c64(p.roi[2 + axis]);
      PrimExpr last = f(in - 1);
      return select(gt(out, i64(1)),
                    start * last + f(o) * (end - start) * last / f(ir::max(out - 1, i64(1))),
                    c64(0.5) * (start + end) * last);
    }
    if (mode == "half_pixel")
      return (f(o) + c64(0.5)) * inv - c64(0.5);
    if (mode == "pytorch_half_pixel")
      return select(gt(out, i64(1)), (f(o) + c64(0.5)) * inv - c64(0.5), c64(0.0));
    if (mode == "tf_half_pixel_for_nn")
      return (f(o) + c64(0.5)) * inv;
    if (mode == "align_corners") {
      // With a given scale the resized length is in * scale, unrounded (the
      // ONNX reference's formula).
      if (scale)
        return select(gt(f(in) * scale, c64(1.0)), f(o) * (f(in - 1) / (f(in) * scale - c64(1.0))),
                      c64(0.0));
      return f(o) * (f(in - 1) / f(ir::max(out - 1, i64(1))));
    }
    return f(o) * inv;
  };
  auto toIndex = [&](const PrimExpr& c) { return ir::cast(DataType::Int64(), c); };
  const PrimExpr &H = x.shape()[2], &W = x.shape()[3];
  // Neighbours (clamped indices) and their weights (in t) along one axis.
  struct Taps {
    std::vector<PrimExpr> idx, w;
  };
  auto taps = [&](const PrimExpr& c, const PrimExpr& extent) {
    Taps r;
    PrimExpr fl = call(f64, "floor", {c});
    PrimExpr base = toIndex(fl);
    PrimExpr tt = c - fl;
    if (method == "linear") {
      r.idx = {clampIndex(base, extent), clampIndex(base + 1, extent)};
      r.w = {ir::cast(t, c64(1.0) - tt), ir::cast(t, tt)};
      return r;
    }
    // Keys' cubic kernel at distances 1 + t, t, 1 - t, 2 - t.
    double a = p.cubicAlpha;
    PrimExpr t2 = tt * tt, t3 = t2 * tt;
    std::vector<PrimExpr> w = {
        c64(a) * (t3 - c64(2) * t2 + tt),
        c64(a + 2) * t3 - c64(a + 3) * t2 + c64(1),
        c64(-(a + 2)) * t3 + c64(3 + 2 * a) * t2 - c64(a) * tt,
        c64(-a) * t3 + c64(a) * t2,
    };
    if (p.cubicExclude) {
      PrimExpr total;
      for (int k = 0; k < 4; ++k) {
        PrimExpr j = base + (k - 1);
        w[k] = select(logicalAnd(ge(j, i64(0)), lt(j, extent)), w[k], c64(0));
        total = total ? total + w[k] : w[k];
      }
      for (auto& wk : w)
        wk = wk / total;
    }
    for (int k = 0; k < 4; ++k) {
      r.idx.push_back(clampIndex(base + (k - 1), extent));
      r.w.push_back(ir::cast(t, w[k]));
    }
    return r;
  };
  return compute(
      {x.shape()[0], x.shape()[1], outH, outW},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr cy = coord(i[2], H, outH, 0), cx = coord(i[3], W, outW, 1);
        // tf_crop_and_resize: positions outside the input take the
        // extrapolation value.
        auto outside = [&](PrimExpr value) {
          if (!crop)
            return value;
          auto in = [&](const PrimExpr& c, const PrimExpr& extent) {
            return logicalAnd(ge(c, c64(0)), ir::le(c, f(extent - 1)));
          };
          return select(logicalAnd(in(cy, H), in(cx, W)), value, cst(t, p.extrapolationValue));
        };
        if (method == "nearest") {
          auto pick = [&](const PrimExpr& c) {
            if (nearestMode == "floor")
              return call(f64, "floor", {c});
            if (nearestMode == "ceil")
              return call(f64, "ceil", {c});
            if (nearestMode == "round_prefer_floor")
              return call(f64, "ceil", {c - c64(0.5)});
            return call(f64, "floor", {c + c64(0.5)});
          };
          return outside(
              x(i[0], i[1], clampIndex(toIndex(pick(cy)), H), clampIndex(toIndex(pick(cx)), W)));
        }
        Taps ty = taps(cy, H), tx = taps(cx, W);
        PrimExpr acc;
        for (size_t a = 0; a < ty.idx.size(); ++a) {
          PrimExpr row;
          for (size_t b = 0; b < tx.idx.size(); ++b) {
            PrimExpr term = x(i[0], i[1], ty.idx[a], tx.idx[b]) * tx.w[b];
            row = row ? row + term : term;
          }
          acc = acc ? acc + row * ty.w[a] : row * ty.w[a];
        }
        return outside(acc);
      },
      name);
}

Tensor expandDims(const Tensor& x, int axis, const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim() + 1, name);
  std::vector<PrimExpr> shape = x.shape();
  shape.insert(shape.begin() + a, i64(1));
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi = i;
        xi.erase(xi.begin() + a);
        return x(xi);
      },
      name);
}

Tensor squeeze(const Tensor& x, std::vector<int> axes, const std::string& name) {
  requireDefined(x, name, "input");
  int n = x.ndim();
  std::vector<bool> drop(n, false);
  if (axes.empty()) {
    for (int d = 0; d < n; ++d)
      drop[d] = isConstInt(x.shape()[d], 1);
  } else {
    for (int a : axes) {
      int d = normAxis(a, n, name);
      if (!isConstInt(x.shape()[d], 1))
        fail(name, "dim " + std::to_string(d) + " is not of size 1");
      drop[d] = true;
    }
  }
  std::vector<PrimExpr> shape;
  for (int d = 0; d < n; ++d)
    if (!drop[d])
      shape.push_back(x.shape()[d]);
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi;
        size_t k = 0;
        for (int d = 0; d < n; ++d)
          xi.push_back(drop[d] ? i64(0) : i[k++]);
        return x(xi);
      },
      name);
}

} // namespace unity::te::topi
