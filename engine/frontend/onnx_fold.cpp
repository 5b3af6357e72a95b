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
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/op/shape_arith.h"

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

// ---- symbolic shape values ----
//
// The same shape subgraphs when the shapes are symbolic: each operand is a
// list of integer expressions (a symbolic shape value or a small constant of
// rank 0 or 1) and the result is one too, simplified. Float casts keep the
// expressions (the values are integers); an operation whose result is not
// an integer expression (a float division that is not exact, a comparison)
// is not folded, and the converter then computes it at run time.
namespace unity::frontend::detail {

using namespace ir;

namespace {

struct SymOperand {
  std::vector<PrimExpr> elems;
  bool scalar;
  DataType dtype;
};

std::optional<SymOperand> symOperand(NodeContext& c, int i) {
  auto elems = c.symInts(i);
  if (!elems)
    return std::nullopt;
  auto* t = as<TensorSInfo>(c.value(i).sinfo);
  if (!t || t->ndim > 1 || t->ndim < 0)
    return std::nullopt;
  if (const Tensor* k = c.constant(i); k && !isIntegral(k->dtype())) {
    for (int64_t j = 0; j < k->numel(); ++j) // a float constant must hold integers
      if (k->getDouble(j) != std::floor(k->getDouble(j)) || std::abs(k->getDouble(j)) > 1e15)
        return std::nullopt;
  }
  return SymOperand{*elems, t->ndim == 0, t->dtype};
}

std::optional<PrimExpr> symBinary(const std::string& op, const PrimExpr& a, const PrimExpr& b,
                                  bool isFloat) {
  if (op == "Add")
    return a + b;
  if (op == "Sub")
    return a - b;
  if (op == "Mul")
    return a * b;
  if (op == "Max")
    return ir::max(a, b);
  if (op == "Min")
    return ir::min(a, b);
  if (op == "Div" || op == "Mod") {
    auto cb = asConstInt(b);
    if (cb && *cb == 0)
      return std::nullopt; // left to run time
    if (op == "Mod")
      return isFloat ? std::nullopt : std::optional<PrimExpr>(floormod(a, b));
    if (!isFloat)
      return floordiv(a, b); // shape values are non-negative: floor = truncation
    // A float division stays an integer expression only when exact.
    auto q = op::arith::divideExact(a, b);
    if (q)
      return *q;
    auto ca = asConstInt(a);
    if (ca && cb && *ca % *cb == 0)
      return intImm(*ca / *cb);
    return std::nullopt;
  }
  return std::nullopt;
}

/// A comparison of two dims decided at import time: 1 or 0 when the shape
/// variables' non-negativity proves it (N == -1 is false), else nullopt.
std::optional<int64_t> symCompare(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  arith::Analyzer an;
  for (auto* e : {&a, &b})
    walkPrimExpr(*e, [&](const PrimExpr& x) {
      if (auto v = cast<PrimVar>(x))
        an.markNonNegative(v);
    });
  PrimExpr yes, no;
  if (op == "Equal") {
    yes = eq(a, b);
    no = ne(a, b);
  } else if (op == "Less") {
    yes = lt(a, b);
    no = ge(a, b);
  } else if (op == "Greater") {
    yes = gt(a, b);
    no = le(a, b);
  } else {
    return std::nullopt;
  }
  if (an.canProve(yes))
    return 1;
  if (an.canProve(no))
    return 0;
  return std::nullopt;
}

bool foldSymbolicImpl(NodeContext& c) {
  const std::string& op = c.node.op_type();
  int n = c.numInputs();
  if (n == 0 || c.node.output_size() != 1 || !c.has(0))
    return false;
  bool anySym = false;
  for (int i = 0; i < n; ++i)
    if (c.has(i)) {
      const Value& v = c.value(i);
      if (!v.sym && !v.data)
        return false;
      anySym |= v.sym.has_value();
    }
  if (!anySym)
    return false;
  auto x = symOperand(c, 0);
  if (!x)
    return false;
  auto done = [&](std::vector<PrimExpr> elems, bool scalar, DataType dt) {
    c.output(0, NodeContext::symbolic(std::move(elems), scalar, dt));
    return true;
  };
  bool isFloat = x->dtype.isFloat();
  if (op == "Identity")
    return done(x->elems, x->scalar, x->dtype);
  if (op == "Cast") {
    auto to = dtypeFromOnnx(static_cast<int>(c.attrInt("to", 0)));
    if (!to || to->isBool() || !(to->isIntegral() || to->isFloat()))
      return false;
    return done(x->elems, x->scalar, *to);
  }
  if (op == "Neg")
    return done(
        [&] {
          std::vector<PrimExpr> r;
          for (auto& e : x->elems)
            r.push_back(intImm(0) - e);
          return r;
        }(),
        x->scalar, x->dtype);
  if ((op == "Floor" || op == "Ceil" || op == "Round") && isFloat)
    return done(x->elems, x->scalar, x->dtype); // the values are integers
  if (op == "Squeeze" || op == "Unsqueeze") {
    std::vector<int64_t> axes;
    if (c.opset < 13)
      axes = c.attrInts("axes");
    else if (c.has(1)) {
      const Tensor* a = c.constant(1);
      if (!a)
        return false;
      axes = ints(*a);
    }
    for (auto a : axes)
      if (a != 0 && a != -1)
        return false;
    if (op == "Squeeze" && !x->scalar && x->elems.size() == 1 && axes.size() <= 1)
      return done(x->elems, true, x->dtype);
    if (op == "Unsqueeze" && x->scalar && axes.size() == 1)
      return done(x->elems, false, x->dtype);
    return false;
  }
  if (op == "Reshape" && c.opset >= 5) {
    const Tensor* target = c.constant(1);
    if (!target || target->ndim() != 1 || target->numel() > 1)
      return false;
    if (target->numel() == 0)
      return x->elems.size() == 1 && done(x->elems, true, x->dtype);
    int64_t d = intAt(*target, 0);
    if (d != -1 && d != static_cast<int64_t>(x->elems.size()))
      return false;
    return done(x->elems, false, x->dtype);
  }
  if (op == "Concat") {
    std::vector<PrimExpr> r;
    for (int i = 0; i < n; ++i) {
      auto p = symOperand(c, i);
      if (!p || p->scalar)
        return false;
      r.insert(r.end(), p->elems.begin(), p->elems.end());
    }
    int64_t axis = c.attrInt("axis", 0);
    if (axis != 0 && axis != -1)
      return false;
    return done(r, false, x->dtype);
  }
  if (op == "Gather") {
    const Tensor* idx = c.constant(1);
    if (x->scalar || !idx || idx->ndim() > 1)
      return false;
    int64_t axis = c.attrInt("axis", 0);
    if (axis != 0 && axis != -1)
      return false;
    int64_t len = static_cast<int64_t>(x->elems.size());
    std::vector<PrimExpr> r;
    for (int64_t k = 0; k < idx->numel(); ++k) {
      int64_t v = intAt(*idx, k);
      if (v < -len || v >= len)
        c.unsupported("index " + std::to_string(v) + " is out of range for a shape of " +
                      std::to_string(len) + " values");
      r.push_back(x->elems[v < 0 ? v + len : v]);
    }
    return done(r, idx->ndim() == 0, x->dtype);
  }
  if (op == "Slice" && c.opset >= 10) {
    if (x->scalar)
      return false;
    for (int i = 1; i < n; ++i)
      if (c.has(i) && !c.constant(i))
        return false;
    auto starts = c.constInts(1, "starts"), ends = c.constInts(2, "ends");
    std::vector<int64_t> axes = c.has(3) ? c.constInts(3, "axes") : std::vector<int64_t>{0};
    std::vector<int64_t> steps = c.has(4) ? c.constInts(4, "steps") : std::vector<int64_t>{1};
    if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1 || steps.size() != 1 ||
        (axes[0] != 0 && axes[0] != -1) || steps[0] == 0)
      return false;
    int64_t d = static_cast<int64_t>(x->elems.size()), s = steps[0];
    auto norm = [&](int64_t v) {
      if (v < 0)
        v += d;
      return s > 0 ? std::clamp<int64_t>(v, 0, d) : std::clamp<int64_t>(v, -1, d - 1);
    };
    std::vector<PrimExpr> r;
    for (int64_t k = norm(starts[0]), e = norm(ends[0]); s > 0 ? k < e : k > e; k += s)
      r.push_back(x->elems[k]);
    return done(r, false, x->dtype);
  }
  // Exporters guard shapes with Where(Equal(shape, -1), ...) (PyTorch's
  // expand): decided here when the dims' non-negativity proves it.
  if ((op == "Equal" || op == "Less" || op == "Greater") && n == 2) {
    auto y = symOperand(c, 1);
    if (!y)
      return false;
    size_t la = x->elems.size(), lb = y->elems.size();
    if (la != lb && la != 1 && lb != 1)
      return false;
    size_t len = la == 0 || lb == 0 ? 0 : std::max(la, lb);
    std::vector<PrimExpr> r;
    for (size_t k = 0; k < len; ++k) {
      auto v = symCompare(op, x->elems[la == 1 ? 0 : k], y->elems[lb == 1 ? 0 : k]);
      if (!v)
        return false;
      r.push_back(intImm(*v));
    }
    return done(r, x->scalar && y->scalar, DataType::Bool());
  }
  if (op == "Where" && n == 3) {
    const Tensor* cond = c.constant(0);
    auto a = symOperand(c, 1), b = symOperand(c, 2);
    if (!cond || cond->ndim() > 1 || !a || !b || !(a->dtype == b->dtype))
      return false;
    size_t lc = static_cast<size_t>(cond->numel()), la = a->elems.size(), lb = b->elems.size();
    size_t len = std::max({lc, la, lb});
    for (size_t l : {lc, la, lb})
      if (l != len && l != 1)
        return false;
    std::vector<PrimExpr> r;
    for (size_t k = 0; k < len; ++k)
      r.push_back(intAt(*cond, static_cast<int64_t>(lc == 1 ? 0 : k)) != 0
                      ? a->elems[la == 1 ? 0 : k]
                      : b->elems[lb == 1 ? 0 : k]);
    return done(r, cond->ndim() == 0 && a->scalar && b->scalar, a->dtype);
  }
  static const std::set<std::string> binary = {"Add", "Sub", "Mul", "Div", "Mod", "Max", "Min"};
  if (binary.count(op)) {
    if ((op == "Max" || op == "Min") && n != 2)
      return false;
    if (op == "Mod" && c.attrInt("fmod", 0))
      return false;
    auto y = symOperand(c, 1);
    if (!y || n != 2)
      return false;
    size_t la = x->elems.size(), lb = y->elems.size();
    if (la != lb && la != 1 && lb != 1)
      return false;
    size_t len = std::max(la, lb);
    if (la == 0 || lb == 0)
      len = 0;
    std::vector<PrimExpr> r;
    for (size_t k = 0; k < len; ++k) {
      auto v = symBinary(op, x->elems[la == 1 ? 0 : k], y->elems[lb == 1 ? 0 : k], isFloat);
      if (!v)
        return false;
      r.push_back(*v);
    }
    return done(r, x->scalar && y->scalar, x->dtype);
  }
  return false;
}

} // namespace

bool foldSymbolic(NodeContext& c) {
  if (c.opset < 7)
    return false;
  return foldSymbolicImpl(c);
}

} // namespace unity::frontend::detail
