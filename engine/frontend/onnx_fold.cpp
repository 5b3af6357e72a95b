// Import-time evaluation of nodes whose inputs are all known.
//
// Exported models compute shapes with small subgraphs (Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape); folding them here turns Reshape's shape
// and Slice's bounds into the constants our operators need. Integers are
// computed in int64 (shape values such as INT64_MAX must stay exact), floats
// in double, and results stored in the node's ONNX output type. Broadcasting
// is numpy's. Outputs larger than kMaxFoldElements are left to the graph.
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"

namespace unity::frontend::detail {

namespace {

constexpr int64_t kMaxFoldElements = 1 << 20;

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::optional<Shape> broadcast(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (auto& s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (o == 1)
        o = d;
      else if (d != 1 && d != o)
        return std::nullopt;
    }
  return out;
}

/// Flat index into a tensor of shape `s` broadcast to `out`, for output flat
/// index `flat`.
int64_t broadcastIndex(const Shape& s, const Shape& out, int64_t flat) {
  int64_t idx = 0, stride = 1;
  for (int i = static_cast<int>(out.size()) - 1; i >= 0; --i) {
    int64_t coord = flat % out[i];
    flat /= out[i];
    int si = i - static_cast<int>(out.size() - s.size());
    if (si >= 0) {
      if (s[si] != 1)
        idx += coord * stride;
      stride *= s[si];
    }
  }
  return idx;
}

bool isIntegral(DataType d) { return d.isIntegral() || d.isBool(); }

/// Elementwise over broadcast inputs; f gets doubles or int64s by `asInt`.
Tensor elementwise(const std::vector<const Tensor*>& in, DataType outType, bool asInt,
                   const std::function<double(const std::vector<double>&)>& fd,
                   const std::function<int64_t(const std::vector<int64_t>&)>& fi) {
  std::vector<Shape> shapes;
  for (auto* t : in)
    shapes.push_back(t->shape());
  auto out = broadcast(shapes);
  if (!out)
    throw Unsupported{"inputs cannot be broadcast together"};
  Tensor r(outType, *out);
  int64_t n = r.numel();
  std::vector<double> dv(in.size());
  std::vector<int64_t> iv(in.size());
  for (int64_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < in.size(); ++j) {
      int64_t at = broadcastIndex(shapes[j], *out, k);
      if (asInt)
        iv[j] = intAt(*in[j], at);
      else
        dv[j] = in[j]->getDouble(at);
    }
    if (asInt && isIntegral(outType))
      setIntAt(r, k, fi(iv));
    else if (asInt)
      r.setDouble(k, static_cast<double>(fi(iv)));
    else
      r.setDouble(k, fd(dv));
  }
  return r;
}

/// Copies elements: out[k] = in[src(k)].
Tensor gatherElements(const Tensor& in, Shape outShape,
                      const std::function<int64_t(int64_t)>& src) {
  Tensor r(in.dtype(), std::move(outShape));
  size_t es = static_cast<size_t>(in.dtype().bytes());
  auto* dst = static_cast<char*>(r.mutableData());
  auto* from = static_cast<const char*>(in.data());
  for (int64_t k = 0; k < r.numel(); ++k)
    std::memcpy(dst + k * es, from + src(k) * es, es);
  return r;
}

Shape strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i)
    st[i] = st[i + 1] * s[i + 1];
  return st;
}

std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(intAt(t, i));
  return v;
}

std::optional<Tensor> foldBinary(const std::string& op, const Tensor& a, const Tensor& b) {
  bool ints = isIntegral(a.dtype()) && isIntegral(b.dtype());
  using VD = std::vector<double>;
  using VI = std::vector<int64_t>;
  auto arith = [&](auto fd, auto fi) {
    return elementwise(
        {&a, &b}, a.dtype(), ints, [fd](const VD& v) { return fd(v[0], v[1]); },
        [fi](const VI& v) { return fi(v[0], v[1]); });
  };
  auto cmp = [&](auto f) {
    return elementwise(
        {&a, &b}, DataType::Bool(), ints, [f](const VD& v) { return double(f(v[0], v[1])); },
        [f](const VI& v) { return int64_t(f(v[0], v[1])); });
  };
  if (op == "Add")
    return arith([](double x, double y) { return x + y; },
                 [](int64_t x, int64_t y) { return x + y; });
  if (op == "Sub")
    return arith([](double x, double y) { return x - y; },
                 [](int64_t x, int64_t y) { return x - y; });
  if (op == "Mul")
    return arith([](double x, double y) { return x * y; },
                 [](int64_t x, int64_t y) { return x * y; });
  if (op == "Div") {
    if (ints)
      for (int64_t i = 0; i < b.numel(); ++i)
        if (intAt(b, i) == 0)
          return std::nullopt; // leave the division by zero to run time
    return arith([](double x, double y) { return x / y; },
                 [](int64_t x, int64_t y) { return x / y; });
  }
  if (op == "Equal")
    return cmp([](auto x, auto y) { return x == y; });
  if (op == "Less")
    return cmp([](auto x, auto y) { return x < y; });
  if (op == "Greater")
    return cmp([](auto x, auto y) { return x > y; });
  return std::nullopt;
}

std::optional<Tensor> foldSlice(NodeContext& c, const Tensor& x) {
  if (c.opset < 10)
    return std::nullopt;
  auto starts = c.constInts(1, "starts"), ends = c.constInts(2, "ends");
  std::vector<int64_t> axes, steps;
  if (c.has(3))
    axes = c.constInts(3, "axes");
  if (c.has(4))
    steps = c.constInts(4, "steps");
  int rank = x.ndim();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return std::nullopt;
  Shape begin(rank, 0), step(rank, 1), out = x.shape();
  for (size_t k = 0; k < axes.size(); ++k) {
    int a = normAxis(c, axes[k], rank);
    int64_t d = x.shape()[a], s = steps[k];
    if (s == 0)
      return std::nullopt;
    auto norm = [&](int64_t v) {
      if (v < 0)
        v += d;
      return s > 0 ? std::clamp<int64_t>(v, 0, d) : std::clamp<int64_t>(v, -1, d - 1);
    };
    int64_t b = norm(starts[k]), e = norm(ends[k]);
    int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
    begin[a] = b;
    step[a] = s;
    out[a] = std::max<int64_t>(len, 0);
  }
  Shape inSt = strides(x.shape()), outSt = strides(out);
  return gatherElements(x, out, [&](int64_t k) {
    int64_t src = 0;
    for (int i = 0; i < rank; ++i) {
      int64_t coord = (k / outSt[i]) % out[i];
      src += (begin[i] + coord * step[i]) * inSt[i];
    }
    return src;
  });
}

std::optional<Tensor> foldGather(NodeContext& c, const Tensor& x, const Tensor& idx) {
  int rank = x.ndim();
  int axis = normAxis(c, c.attrInt("axis", 0), rank);
  Shape out;
  for (int i = 0; i < axis; ++i)
    out.push_back(x.shape()[i]);
  for (int64_t d : idx.shape())
    out.push_back(d);
  for (int i = axis + 1; i < rank; ++i)
    out.push_back(x.shape()[i]);
  int64_t dim = x.shape()[axis];
  int64_t inner = 1;
  for (int i = axis + 1; i < rank; ++i)
    inner *= x.shape()[i];
  int64_t nIdx = idx.numel();
  for (int64_t i = 0; i < nIdx; ++i) {
    int64_t v = intAt(idx, i);
    if (v < -dim || v >= dim)
      c.unsupported("index " + std::to_string(v) + " is out of range for a dimension of " +
                    std::to_string(dim));
  }
  return gatherElements(x, out, [&](int64_t k) {
    int64_t in = k % inner, rest = k / inner;
    int64_t j = rest % nIdx, outer = rest / nIdx;
    int64_t v = intAt(idx, j);
    if (v < 0)
      v += dim;
    return (outer * dim + v) * inner + in;
  });
}

std::optional<Tensor> foldConcat(NodeContext& c) {
  int rank = c.constant(0)->ndim();
  int axis = normAxis(c, c.attrInt("axis", 0), rank);
  Shape out = c.constant(0)->shape();
  out[axis] = 0;
  std::vector<const Tensor*> parts;
  for (int i = 0; i < c.numInputs(); ++i) {
    const Tensor* t = c.constant(i);
    if (t->ndim() != rank || !(t->dtype() == c.constant(0)->dtype()))
      return std::nullopt;
    parts.push_back(t);
    out[axis] += t->shape()[axis];
  }
  int64_t inner = 1, outer = 1;
  for (int i = axis + 1; i < rank; ++i)
    inner *= out[i];
  for (int i = 0; i < axis; ++i)
    outer *= out[i];
  Tensor r(parts[0]->dtype(), out);
  size_t es = static_cast<size_t>(r.dtype().bytes());
  auto* dst = static_cast<char*>(r.mutableData());
  for (int64_t o = 0; o < outer; ++o)
    for (auto* p : parts) {
      size_t n = static_cast<size_t>(p->shape()[axis] * inner) * es;
      if (n)
        std::memcpy(dst, static_cast<const char*>(p->data()) + o * n, n);
      dst += n;
    }
  return r;
}

Tensor castTensor(const Tensor& x, DataType to) {
  Tensor r(to, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (isIntegral(x.dtype()) && isIntegral(to))
      setIntAt(r, i, to.isBool() ? intAt(x, i) != 0 : intAt(x, i));
    else if (to.isBool())
      r.setDouble(i, x.getDouble(i) != 0);
    else if (isIntegral(to))
      setIntAt(r, i, static_cast<int64_t>(std::trunc(x.getDouble(i))));
    else
      r.setDouble(i, x.getDouble(i));
  }
  return r;
}

std::optional<Tensor> foldOne(NodeContext& c) {
  const std::string& op = c.node.op_type();
  const Tensor& x = *c.constant(0);
  if (op == "Identity")
    return x;
  if (op == "Cast") {
    auto to = dtypeFromOnnx(static_cast<int>(c.attrInt("to", 0)));
    return to ? std::optional<Tensor>(castTensor(x, *to)) : std::nullopt;
  }
  if (op == "Shape" || op == "Size")
    return std::nullopt; // the converter handles static shapes
  if (op == "Neg") {
    Tensor r = x.clone();
    for (int64_t i = 0; i < r.numel(); ++i)
      isIntegral(r.dtype()) ? setIntAt(r, i, -intAt(x, i)) : r.setDouble(i, -x.getDouble(i));
    return r;
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    std::vector<int64_t> axes =
        c.opset < 13 ? c.attrInts("axes") : (c.has(1) ? ints(*c.constant(1)) : Shape{});
    Shape s = x.shape();
    if (op == "Squeeze") {
      int rank = x.ndim();
      std::vector<bool> drop(rank, axes.empty());
      for (int64_t a : axes)
        drop[normAxis(c, a, rank)] = true;
      Shape out;
      for (int i = 0; i < rank; ++i)
        if (!(drop[i] && s[i] == 1))
          out.push_back(s[i]);
      return x.reshaped(out);
    }
    int outRank = x.ndim() + static_cast<int>(axes.size());
    std::vector<bool> ins(outRank, false);
    for (int64_t a : axes)
      ins[normAxis(c, a, outRank)] = true;
    Shape out;
    size_t next = 0;
    for (int i = 0; i < outRank; ++i)
      out.push_back(ins[i] ? 1 : s[next++]);
    return x.reshaped(out);
  }
  if (op == "Reshape" && c.opset >= 5) {
    auto target = ints(*c.constant(1));
    Shape out;
    int infer = -1;
    int64_t known = 1;
    for (size_t i = 0; i < target.size(); ++i) {
      int64_t d = target[i];
      if (d == 0 && !c.attrInt("allowzero", 0))
        d = i < x.shape().size() ? x.shape()[i] : 0;
      if (d == -1)
        infer = static_cast<int>(i);
      else
        known *= d;
      out.push_back(d);
    }
    if (infer >= 0)
      out[infer] = known ? x.numel() / known : 0;
    if (numel(out) != x.numel())
      c.unsupported("cannot reshape " + Tensor::shapeStr(x.shape()) + " to " +
                    Tensor::shapeStr(out));
    return x.reshaped(out);
  }
  if (op == "Concat")
    return foldConcat(c);
  if (op == "Gather")
    return foldGather(c, x, *c.constant(1));
  if (op == "Slice")
    return foldSlice(c, x);
  if (op == "ConstantOfShape") {
    Shape s = ints(x);
    for (int64_t d : s)
      if (d < 0)
        c.unsupported("negative dimension in ConstantOfShape");
    Tensor v = c.hasAttr("value") ? c.attrTensor("value") : Tensor(DataType::Float32(), {});
    if (v.numel() != 1)
      c.unsupported("ConstantOfShape's value must hold one element");
    if (numel(s) > kMaxFoldElements)
      return std::nullopt;
    Tensor r(v.dtype(), s);
    size_t es = static_cast<size_t>(v.dtype().bytes());
    for (int64_t i = 0; i < r.numel(); ++i)
      std::memcpy(static_cast<char*>(r.mutableData()) + i * es, v.data(), es);
    return r;
  }
  if (op == "Range") {
    const Tensor &s = x, &l = *c.constant(1), &d = *c.constant(2);
    double start = s.getDouble(0), limit = l.getDouble(0), delta = d.getDouble(0);
    if (delta == 0)
      c.unsupported("Range with delta 0");
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
    if (n > kMaxFoldElements)
      return std::nullopt;
    Tensor r(s.dtype(), {n});
    for (int64_t i = 0; i < n; ++i) {
      if (isIntegral(s.dtype()))
        setIntAt(r, i, intAt(s, 0) + i * intAt(d, 0));
      else
        r.setDouble(i, start + double(i) * delta);
    }
    return r;
  }
  if (op == "Where") {
    const Tensor &a = *c.constant(1), &b = *c.constant(2);
    bool asInt = isIntegral(a.dtype());
    return elementwise(
        {&x, &a, &b}, a.dtype(), asInt,
        [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; },
        [](const std::vector<int64_t>& v) { return v[0] != 0 ? v[1] : v[2]; });
  }
  if (c.numInputs() == 2)
    return foldBinary(op, x, *c.constant(1));
  return std::nullopt;
}

} // namespace

bool foldNode(NodeContext& c) {
  static const std::set<std::string> foldable = {
      "Identity", "Cast",   "Neg",    "Squeeze",        "Unsqueeze",
      "Reshape",  "Concat", "Gather", "Slice",          "Add",
      "Sub",      "Mul",    "Div",    "Equal",          "Less",
      "Greater",  "Where",  "Range",  "ConstantOfShape"};
  if (!foldable.count(c.node.op_type()) || c.numInputs() == 0 || c.node.output_size() != 1)
    return false;
  // Opsets 1..6 have legacy attribute forms (broadcast/axis, Concat's
  // default axis, Cast's string type): leave those nodes to the converters.
  if (c.opset < 7)
    return false;
  int64_t total = 0;
  for (int i = 0; i < c.numInputs(); ++i) {
    if (!c.has(i))
      continue;
    const Tensor* t = c.constant(i);
    if (!t)
      return false;
    total += t->numel();
  }
  if (!c.has(0) || total > kMaxFoldElements)
    return false;
  auto r = foldOne(c);
  if (!r)
    return false;
  c.output(0, NodeContext::constant(std::move(*r)));
  return true;
}

} // namespace unity::frontend::detail
