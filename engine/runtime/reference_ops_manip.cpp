// Reference implementations of the data-movement operators. Each computes
// its output shape from the operand values and then, for every output
// element, the input element it copies (a gather written out per operator):
// reshape and flatten keep the row-major order; slices follow numpy
// (negative indices count from the end, bounds clamp); pad's edge mode
// repeats the border, reflect mirrors without repeating it; resize2d maps an
// output coordinate to the input with the coordinate transformation mode,
// then picks (nearest), interpolates 2x2 (linear) or 4x4 (cubic, Keys
// kernel with parameter cubic_alpha; cubic_exclude drops the taps outside
// the input and renormalizes) neighbours clamped to the border;
// tf_crop_and_resize maps into the `roi` box and gives extrapolation_value
// outside the input.
#include <algorithm>
#include <cmath>

#include "engine/runtime/reference.h"

namespace unity::runtime::reference {

namespace {

Tensor gather(const Tensor& x, const std::vector<int64_t>& outShape,
              const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& src) {
  Tensor out(x.dtype(), outShape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, at(x, src(unravel(i, outShape))));
  return out;
}

Tensor copyWithShape(const Tensor& x, const std::vector<int64_t>& shape) {
  Tensor out(x.dtype(), shape);
  for (int64_t i = 0; i < x.numel(); ++i)
    out.setDouble(i, x.getDouble(i));
  return out;
}

RefValue reshape(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  auto shape = c.shape(1);
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        c.fail("more than one -1 in the target shape");
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      c.fail("negative target dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0)
      c.fail("cannot infer -1: " + std::to_string(x.numel()) + " elements");
    shape[inferred] = x.numel() / known;
  }
  if (numelOf(shape) != x.numel())
    c.fail("element count differs: " + Tensor::shapeStr(x.shape()) + " vs " +
           Tensor::shapeStr(shape));
  return copyWithShape(x, shape);
}

RefValue permuteDims(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  std::vector<int> axes;
  if (c.hasAttr("axes")) {
    auto given = c.attrInts("axes");
    if (static_cast<int>(given.size()) != x.ndim())
      c.fail("axes must have one entry per dimension");
    std::vector<bool> seen(x.ndim(), false);
    for (int64_t a : given) {
      int n = c.axis(a, x.ndim());
      if (seen[n])
        c.fail("axis " + std::to_string(a) + " is repeated");
      seen[n] = true;
      axes.push_back(n);
    }
  } else {
    for (int d = x.ndim() - 1; d >= 0; --d)
      axes.push_back(d);
  }
  std::vector<int64_t> shape;
  for (int a : axes)
    shape.push_back(x.shape()[a]);
  return gather(x, shape, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> in(o.size());
    for (size_t d = 0; d < o.size(); ++d)
      in[axes[d]] = o[d];
    return in;
  });
}

RefValue concat(const OpCall& c) {
  auto xs = c.tensors(0);
  if (xs.empty())
    c.fail("cannot concatenate an empty tuple");
  int axis = c.axis(c.attrInt("axis"), xs[0].ndim());
  std::vector<int64_t> shape = xs[0].shape();
  for (size_t i = 1; i < xs.size(); ++i) {
    if (xs[i].ndim() != xs[0].ndim() || xs[i].dtype() != xs[0].dtype())
      c.fail("tuple fields differ in rank or dtype");
    for (int d = 0; d < xs[0].ndim(); ++d)
      if (d != axis && xs[i].shape()[d] != shape[d])
        c.fail("tuple field " + std::to_string(i) + " differs in dimension " + std::to_string(d));
    shape[axis] += xs[i].shape()[axis];
  }
  Tensor out(xs[0].dtype(), shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    size_t k = 0;
    while (idx[axis] >= xs[k].shape()[axis]) {
      idx[axis] -= xs[k].shape()[axis];
      ++k;
    }
    out.setDouble(i, at(xs[k], idx));
  }
  return out;
}

/// x[begin : begin + len*step : step] along `axis`.
Tensor sliceAxis(const Tensor& x, int axis, int64_t begin, int64_t len, int64_t step) {
  std::vector<int64_t> shape = x.shape();
  shape[axis] = len;
  return gather(x, shape, [&](std::vector<int64_t> o) {
    o[axis] = begin + o[axis] * step;
    return o;
  });
}

RefValue split(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  int axis = c.axis(c.attrInt("axis"), x.ndim());
  int64_t dim = x.shape()[axis];
  const ir::AttrValue* ios = c.call.attrs.find("indices_or_sections");
  if (!ios)
    c.fail("attribute 'indices_or_sections' is required");
  std::vector<RefValue> parts;
  if (auto* n = std::get_if<int64_t>(ios)) {
    if (*n <= 0 || dim % *n != 0)
      c.fail("dimension " + std::to_string(dim) + " does not split into " + std::to_string(*n) +
             " equal sections");
    for (int64_t k = 0; k < *n; ++k)
      parts.emplace_back(sliceAxis(x, axis, k * (dim / *n), dim / *n, 1));
    return RefValue::tuple(std::move(parts));
  }
  auto indices = c.attrInts("indices_or_sections");
  int64_t prev = 0;
  for (size_t k = 0; k <= indices.size(); ++k) {
    int64_t end = k < indices.size() ? indices[k] : dim;
    if (k < indices.size() && end < prev)
      c.fail("split indices must be non-decreasing and non-negative");
    int64_t b = std::min(prev, dim), e = std::min(end, dim);
    parts.emplace_back(sliceAxis(x, axis, b, std::max<int64_t>(e - b, 0), 1));
    prev = end;
  }
  return RefValue::tuple(std::move(parts));
}

RefValue stridedSlice(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  auto axes = c.attrInts("axes"), begin = c.attrInts("begin"), end = c.attrInts("end");
  std::vector<int64_t> strides =
      c.hasAttr("strides") ? c.attrInts("strides") : std::vector<int64_t>(axes.size(), 1);
  if (begin.size() != axes.size() || end.size() != axes.size() || strides.size() != axes.size())
    c.fail("axes, begin, end and strides must have the same length");
  Tensor cur = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    int a = c.axis(axes[i], x.ndim());
    int64_t n = x.shape()[a], s = strides[i];
    if (s == 0)
      c.fail("stride 0");
    auto norm = [n](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v += n;
      return std::clamp(v, lo, hi);
    };
    int64_t b, len;
    if (s > 0) {
      b = norm(begin[i], 0, n);
      int64_t e = norm(end[i], 0, n);
      len = e > b ? (e - b - 1) / s + 1 : 0;
    } else {
      b = norm(begin[i], -1, n - 1);
      int64_t e = norm(end[i], -1, n - 1);
      len = b > e ? (b - e - 1) / -s + 1 : 0;
    }
    cur = sliceAxis(cur, a, b, len, s);
  }
  return cur;
}

RefValue take(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& idx = c.tensor(1);
  if (!idx.dtype().isIntegral())
    c.fail("indices must be an integer tensor");
  bool flat = !c.hasAttr("axis");
  Tensor src = flat ? x.reshaped({x.numel()}) : x;
  int axis = flat ? 0 : c.axis(c.attrInt("axis"), x.ndim());
  int64_t n = src.shape()[axis];
  std::vector<int64_t> shape(src.shape().begin(), src.shape().begin() + axis);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), src.shape().begin() + axis + 1, src.shape().end());
  int k = idx.ndim();
  return gather(src, shape, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> in(o.begin(), o.begin() + axis);
    int64_t j =
        static_cast<int64_t>(at(idx, std::vector<int64_t>(o.begin() + axis, o.begin() + axis + k)));
    if (j < -n || j >= n)
      c.fail("index " + std::to_string(j) + " is out of range for a dimension of " +
             std::to_string(n));
    in.push_back(j < 0 ? j + n : j);
    in.insert(in.end(), o.begin() + axis + k, o.end());
    return in;
  });
}

RefValue squeeze(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  std::vector<bool> drop(x.ndim(), false);
  if (c.hasAttr("axis")) {
    for (int64_t a : c.attrInts("axis")) {
      int n = c.axis(a, x.ndim());
      if (x.shape()[n] != 1)
        c.fail("cannot squeeze axis " + std::to_string(n) + " of size " +
               std::to_string(x.shape()[n]));
      drop[n] = true;
    }
  } else {
    for (int d = 0; d < x.ndim(); ++d)
      drop[d] = x.shape()[d] == 1;
  }
  std::vector<int64_t> shape;
  for (int d = 0; d < x.ndim(); ++d)
    if (!drop[d])
      shape.push_back(x.shape()[d]);
  return copyWithShape(x, shape);
}

RefValue expandDims(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  auto given = c.attrInts("axis");
  int outNdim = x.ndim() + static_cast<int>(given.size());
  std::vector<bool> isNew(outNdim, false);
  for (int64_t a : given) {
    int n = c.axis(a, outNdim);
    if (isNew[n])
      c.fail("axis " + std::to_string(a) + " is repeated");
    isNew[n] = true;
  }
  std::vector<int64_t> shape;
  int next = 0;
  for (int d = 0; d < outNdim; ++d)
    shape.push_back(isNew[d] ? 1 : x.shape()[next++]);
  return copyWithShape(x, shape);
}

RefValue broadcastTo(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  auto shape = c.shape(1);
  if (x.ndim() > static_cast<int>(shape.size()))
    c.fail("cannot broadcast to a lower rank");
  size_t off = shape.size() - x.ndim();
  for (int d = 0; d < x.ndim(); ++d)
    if (x.shape()[d] != 1 && x.shape()[d] != shape[off + d])
      c.fail("cannot broadcast " + Tensor::shapeStr(x.shape()) + " to " + Tensor::shapeStr(shape));
  return gather(x, shape,
                [&](const std::vector<int64_t>& o) { return broadcastIndex(o, x.shape()); });
}

RefValue arange(const OpCall& c) {
  auto shape = c.shape(0);
  if (shape.size() != 1)
    c.fail("arange takes a rank-1 shape");
  Tensor out(DataType::Int64(), shape);
  for (int64_t i = 0; i < shape[0]; ++i)
    out.setDouble(i, static_cast<double>(i));
  return RefValue(out);
}

RefValue pad(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  auto pw = c.attrInts("pad_width");
  std::string mode = c.attrString("pad_mode");
  if (static_cast<int>(pw.size()) != 2 * x.ndim())
    c.fail("pad_width needs two entries per axis");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    c.fail("unknown pad_mode \"" + mode + "\"");
  double value = c.attrFloat("pad_value");
  std::vector<int64_t> shape;
  for (int d = 0; d < x.ndim(); ++d) {
    if (pw[2 * d] < 0 || pw[2 * d + 1] < 0)
      c.fail("pad_width entries must be non-negative");
    shape.push_back(x.shape()[d] + pw[2 * d] + pw[2 * d + 1]);
  }
  Tensor out(x.dtype(), shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    bool outside = false;
    for (int d = 0; d < x.ndim(); ++d) {
      int64_t n = x.shape()[d], j = idx[d] - pw[2 * d];
      if (j >= 0 && j < n) {
        idx[d] = j;
        continue;
      }
      if (mode == "constant" || n == 0) {
        outside = true;
        break;
      }
      if (mode == "edge") {
        idx[d] = std::clamp<int64_t>(j, 0, n - 1);
        continue;
      }
      while (j < 0 || j >= n) // reflect about the first and last element
        j = n == 1 ? 0 : j < 0 ? -j : 2 * (n - 1) - j;
      idx[d] = j;
    }
    store(out, i, outside ? value : at(x, idx));
  }
  return out;
}

/// Input coordinate of output coordinate o for one axis; `scale` is the
/// output/input ratio (the given one when `given`, else out / in).
double sourceCoord(const OpCall& c, const std::string& mode, int64_t o, int64_t in, int64_t out,
                   double scale, bool given) {
  double inv = 1.0 / scale;
  if (mode == "half_pixel")
    return (o + 0.5) * inv - 0.5;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (o + 0.5) * inv - 0.5 : 0.0;
  if (mode == "align_corners") {
    // A given scale makes the resized length in * scale, unrounded (the
    // ONNX reference's formula); otherwise it is the output size.
    double len = given ? in * scale : static_cast<double>(out);
    return len > 1 ? o * static_cast<double>(in - 1) / (len - 1) : 0.0;
  }
  if (mode == "asymmetric")
    return o * inv;
  if (mode == "tf_half_pixel_for_nn")
    return (o + 0.5) * inv;
  c.fail("unknown coordinate_transformation_mode \"" + mode + "\"");
}

int64_t nearestIndex(const OpCall& c, const std::string& rounding, double v) {
  if (rounding == "round")
    return static_cast<int64_t>(std::round(v));
  if (rounding == "floor")
    return static_cast<int64_t>(std::floor(v));
  if (rounding == "ceil")
    return static_cast<int64_t>(std::ceil(v));
  if (rounding == "round_prefer_floor")
    return static_cast<int64_t>(std::ceil(v - 0.5));
  if (rounding == "round_prefer_ceil")
    return static_cast<int64_t>(std::floor(v + 0.5));
  c.fail("unknown rounding_method \"" + rounding + "\"");
}

/// Keys' cubic kernel with parameter a at distances 1 + t, t, 1 - t, 2 - t.
std::vector<double> cubicWeights(double t, double a) {
  double t2 = t * t, t3 = t2 * t;
  return {a * (t3 - 2 * t2 + t), (a + 2) * t3 - (3 + a) * t2 + 1,
          -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t, -a * t3 + a * t2};
}

RefValue resize2d(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  if (c.attrString("layout") != "NCHW" || x.ndim() != 4)
    c.fail("only 4-D NCHW tensors are supported");
  auto size = c.args.size() > 1 ? c.shape(1) : c.attrInts("size");
  if (size.size() == 1)
    size.assign(2, size[0]);
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0)
    c.fail("size must be two positive values");
  std::string method = c.attrString("method"),
              mode = c.attrString("coordinate_transformation_mode");
  std::string rounding = c.attrString("rounding_method");
  if (rounding.empty())
    rounding = mode == "align_corners" ? "round" : "floor";
  DataType dtype = c.attrDType("out_dtype");
  if (dtype.isVoid())
    dtype = x.dtype();
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t OH = size[0], OW = size[1];
  double scaleH = static_cast<double>(OH) / H, scaleW = static_cast<double>(OW) / W;
  bool givenScales = c.hasAttr("scales");
  auto floats = [&](const char* name) {
    const ir::AttrValue* v = c.call.attrs.find(name);
    std::vector<double> r;
    if (auto* d = v ? std::get_if<std::vector<double>>(v) : nullptr)
      r = *d;
    else if (auto* n = v ? std::get_if<std::vector<int64_t>>(v) : nullptr)
      r.assign(n->begin(), n->end());
    return r;
  };
  bool crop = mode == "tf_crop_and_resize";
  std::vector<double> roi = floats("roi");
  // Operand 2: the crop box or the scales, given at run time.
  std::vector<double> params;
  if (c.args.size() > 2) {
    const Tensor& t = c.tensor(2);
    for (int64_t k = 0; k < t.numel(); ++k)
      params.push_back(t.getDouble(k));
    if (params.size() != (crop ? 4u : 2u))
      c.fail(std::string("operand 2 must hold the ") + (crop ? "crop box (4" : "scales (2") +
             " values)");
    if (crop)
      roi = params;
  }
  if (crop && roi.size() != 4)
    c.fail("tf_crop_and_resize needs a roi of 4 values");
  double extrapolation = c.attrFloat("extrapolation_value");
  if (c.hasAttr("scales") || (!crop && !params.empty())) {
    givenScales = true;
    std::vector<double> sc = params.empty() ? floats("scales") : params;
    if (sc.size() != 2 || !(sc[0] > 0) || !(sc[1] > 0))
      c.fail("scales must be two positive values");
    scaleH = sc[0];
    scaleW = sc[1];
  }
  double alpha = c.attrFloat("cubic_alpha");
  bool exclude = c.attrBool("cubic_exclude");
  Tensor out(dtype, {N, C, OH, OW});
  auto px = [&](int64_t n, int64_t ch, int64_t y, int64_t xx) {
    return at(x, {n, ch, std::clamp<int64_t>(y, 0, H - 1), std::clamp<int64_t>(xx, 0, W - 1)});
  };
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto o = unravel(i, out.shape());
    double sy, sx;
    if (crop) {
      auto cropCoord = [](int64_t oi, int64_t in, int64_t out, double start, double end) {
        return out > 1 ? start * (in - 1) + oi * (end - start) * (in - 1) / (out - 1)
                       : 0.5 * (start + end) * (in - 1);
      };
      sy = cropCoord(o[2], H, OH, roi[0], roi[2]);
      sx = cropCoord(o[3], W, OW, roi[1], roi[3]);
      if (sy < 0 || sy > H - 1 || sx < 0 || sx > W - 1) {
        store(out, i, extrapolation);
        continue;
      }
    } else {
      sy = sourceCoord(c, mode, o[2], H, OH, scaleH, givenScales);
      sx = sourceCoord(c, mode, o[3], W, OW, scaleW, givenScales);
    }
    double v;
    if (method == "nearest_neighbor") {
      v = px(o[0], o[1], nearestIndex(c, rounding, sy), nearestIndex(c, rounding, sx));
    } else if (method == "linear") {
      int64_t y0 = static_cast<int64_t>(std::floor(sy)), x0 = static_cast<int64_t>(std::floor(sx));
      double ly = sy - y0, lx = sx - x0;
      double top = px(o[0], o[1], y0, x0) * (1 - lx) + px(o[0], o[1], y0, x0 + 1) * lx;
      double bottom = px(o[0], o[1], y0 + 1, x0) * (1 - lx) + px(o[0], o[1], y0 + 1, x0 + 1) * lx;
      v = top * (1 - ly) + bottom * ly;
    } else if (method == "cubic") {
      int64_t y0 = static_cast<int64_t>(std::floor(sy)), x0 = static_cast<int64_t>(std::floor(sx));
      auto wy = cubicWeights(sy - y0, alpha), wx = cubicWeights(sx - x0, alpha);
      if (exclude) { // drop the taps outside the input, renormalize
        auto keepInside = [](std::vector<double>& w, int64_t first, int64_t n) {
          double total = 0;
          for (int k = 0; k < 4; ++k) {
            if (first + k < 0 || first + k >= n)
              w[k] = 0;
            total += w[k];
          }
          for (double& wk : w)
            wk /= total;
        };
        keepInside(wy, y0 - 1, H);
        keepInside(wx, x0 - 1, W);
      }
      v = 0;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          v += wy[a] * wx[b] * px(o[0], o[1], y0 - 1 + a, x0 - 1 + b);
    } else {
      c.fail("unknown method \"" + method + "\"");
    }
    store(out, i, v);
  }
  return out;
}

} // namespace

void addManipOps(OpTable& t) {
  t["reshape"] = reshape;
  t["permute_dims"] = permuteDims;
  t["concat"] = concat;
  t["split"] = split;
  t["strided_slice"] = stridedSlice;
  t["take"] = take;
  t["squeeze"] = squeeze;
  t["expand_dims"] = expandDims;
  t["broadcast_to"] = broadcastTo;
  t["arange"] = arange;
  t["flatten"] = [](const OpCall& c) {
    const Tensor& x = c.tensor(0);
    return RefValue(copyWithShape(x, {x.numel()}));
  };
  t["nn.batch_flatten"] = [](const OpCall& c) {
    const Tensor& x = c.tensor(0);
    if (x.ndim() == 0)
      c.fail("needs a tensor of rank >= 1");
    int64_t n = x.shape()[0];
    return RefValue(copyWithShape(x, {n, n ? x.numel() / n : 0}));
  };
  t["nn.pad"] = pad;
  t["image.resize2d"] = resize2d;
  t["tensor_to_shape"] = [](const OpCall& c) {
    const Tensor& x = c.tensor(0);
    if (x.ndim() != 1)
      c.fail("needs a 1-D tensor");
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < x.numel(); ++i) {
      auto d = static_cast<int64_t>(x.getDouble(i));
      if (d < 0) {
        std::string err = c.attrString("error");
        c.fail(err.empty() ? "negative value " + std::to_string(d) + " in a shape" : err);
      }
      dims.push_back(d);
    }
    return RefValue::shape(std::move(dims));
  };
  t["shape_to_tensor"] = [](const OpCall& c) {
    auto v = c.shape(0);
    Tensor out(DataType::Int64(), {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i)
      store(out, static_cast<int64_t>(i), static_cast<double>(v[i]));
    return RefValue(out);
  };
}

} // namespace unity::runtime::reference
