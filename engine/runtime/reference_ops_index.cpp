// Reference implementations of the indexing, scan, loss and classification
// operators (ops_index.cpp), the trigonometric unaries and the shifts, as
// plain loops written from the ONNX definitions: scatters are the spec's
// sequential update loop, topk a stable sort, einsum a loop over every
// letter assignment. Independent of te/topi on purpose.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>

#include "engine/op/einsum.h"
#include "engine/runtime/reference.h"

namespace unity::runtime::reference {

namespace {

int64_t normIndex(const OpCall& c, int64_t k, int64_t extent) {
  if (k < 0)
    k += extent;
  if (k < 0 || k >= extent)
    c.fail("index " + std::to_string(k) + " is out of range for a dimension of " +
           std::to_string(extent));
  return k;
}

int64_t intAt(const Tensor& t, const std::vector<int64_t>& idx) {
  return static_cast<int64_t>(at(t, idx));
}

RefValue unaryFloat(const OpCall& c, double (*f)(double)) {
  const Tensor& x = c.tensor(0);
  if (!x.dtype().isFloat())
    c.fail("requires a float tensor, got " + x.dtype().str());
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    store(out, i, f(x.getDouble(i)));
  return out;
}

RefValue shift(const OpCall& c, bool left) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  if (!a.dtype().isUInt() || a.dtype() != b.dtype())
    c.fail("requires unsigned operands of one dtype");
  auto shape = broadcastShape(c, a.shape(), b.shape());
  Tensor out(a.dtype(), shape);
  int bits = a.dtype().bits;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    auto x = static_cast<uint64_t>(at(a, broadcastIndex(idx, a.shape())));
    auto s = static_cast<uint64_t>(at(b, broadcastIndex(idx, b.shape())));
    uint64_t r = s >= static_cast<uint64_t>(bits) ? 0 : left ? (x << s) & mask : x >> s;
    store(out, i, static_cast<double>(r));
  }
  return out;
}

double combine(const OpCall& c, const std::string& r, double old, double v) {
  if (r == "none")
    return v;
  if (r == "add")
    return old + v;
  if (r == "mul")
    return old * v;
  if (r == "max")
    return std::max(old, v);
  if (r == "min")
    return std::min(old, v);
  c.fail("unknown reduction '" + r + "'");
}

RefValue gatherElements(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& ind = c.tensor(1);
  if (x.ndim() != ind.ndim())
    c.fail("indices and data ranks differ");
  int a = c.axis(c.attrInt("axis"), x.ndim());
  Tensor out(x.dtype(), ind.shape());
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, ind.shape());
    auto src = idx;
    src[a] = normIndex(c, intAt(ind, idx), x.shape()[a]);
    store(out, i, at(x, src));
  }
  return out;
}

RefValue gatherND(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& ind = c.tensor(1);
  int64_t b = c.attrInt("batch_dims");
  int q = ind.ndim();
  if (q < 1)
    c.fail("indices must have rank >= 1");
  int64_t m = ind.shape().back();
  if (b + m > x.ndim())
    c.fail("indices address too many dims");
  std::vector<int64_t> shape(ind.shape().begin(), ind.shape().end() - 1);
  shape.insert(shape.end(), x.shape().begin() + b + m, x.shape().end());
  Tensor out(x.dtype(), shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    std::vector<int64_t> src(idx.begin(), idx.begin() + b);
    std::vector<int64_t> tuple(idx.begin(), idx.begin() + (q - 1));
    tuple.push_back(0);
    for (int64_t j = 0; j < m; ++j) {
      tuple.back() = j;
      src.push_back(normIndex(c, intAt(ind, tuple), x.shape()[b + j]));
    }
    src.insert(src.end(), idx.begin() + (q - 1), idx.end());
    store(out, i, at(x, src));
  }
  return out;
}

RefValue scatterElements(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& ind = c.tensor(1);
  const Tensor& upd = c.tensor(2);
  int a = c.axis(c.attrInt("axis"), x.ndim());
  std::string r = c.attrString("reduction");
  Tensor out = x.clone();
  for (int64_t i = 0; i < ind.numel(); ++i) {
    auto idx = unravel(i, ind.shape());
    auto dst = idx;
    dst[a] = normIndex(c, intAt(ind, idx), x.shape()[a]);
    int64_t f = ravel(dst, x.shape());
    store(out, f, combine(c, r, out.getDouble(f), at(upd, idx)));
  }
  return out;
}

RefValue scatterND(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& ind = c.tensor(1);
  const Tensor& upd = c.tensor(2);
  std::string r = c.attrString("reduction");
  int q = ind.ndim();
  int64_t m = ind.shape().back();
  std::vector<int64_t> outer(ind.shape().begin(), ind.shape().end() - 1);
  std::vector<int64_t> slice(x.shape().begin() + m, x.shape().end());
  Tensor out = x.clone();
  for (int64_t o = 0; o < numelOf(outer); ++o) {
    auto oi = unravel(o, outer);
    std::vector<int64_t> dst;
    auto t = oi;
    t.push_back(0);
    for (int64_t j = 0; j < m; ++j) {
      t.back() = j;
      dst.push_back(normIndex(c, intAt(ind, t), x.shape()[j]));
    }
    for (int64_t s = 0; s < numelOf(slice); ++s) {
      auto si = unravel(s, slice);
      auto full = dst;
      full.insert(full.end(), si.begin(), si.end());
      auto ui = oi;
      ui.insert(ui.end(), si.begin(), si.end());
      int64_t f = ravel(full, x.shape());
      store(out, f, combine(c, r, out.getDouble(f), at(upd, ui)));
    }
  }
  (void)q;
  return out;
}

RefValue oneHot(const OpCall& c) {
  const Tensor& ind = c.tensor(0);
  int64_t depth;
  if (c.args.size() > 1) {
    auto d = c.shape(1);
    if (d.size() != 1)
      c.fail("the depth operand needs 1 value");
    depth = d[0];
  } else {
    depth = c.attrInt("depth");
  }
  if (depth < 1)
    c.fail("depth must be >= 1, got " + std::to_string(depth));
  int a = c.axis(c.attrInt("axis"), ind.ndim() + 1);
  std::vector<int64_t> shape = ind.shape();
  shape.insert(shape.begin() + a, depth);
  Tensor out(c.attrDType("dtype"), shape);
  double on = c.attrFloat("on_value"), off = c.attrFloat("off_value");
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    int64_t cls = idx[a];
    idx.erase(idx.begin() + a);
    int64_t k = intAt(ind, idx);
    if (k < 0)
      k += depth;
    store(out, i, k == cls ? on : off);
  }
  return out;
}

RefValue trilu(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  if (x.ndim() < 2)
    c.fail("requires rank >= 2");
  int64_t k = c.attrInt("k");
  if (c.args.size() > 1) { // k given as a 0-d operand
    const Tensor& kt = c.tensor(1);
    if (kt.numel() != 1)
      c.fail("k must hold one value");
    k = static_cast<int64_t>(kt.getDouble(0));
  }
  bool upper = c.attrBool("upper");
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.shape());
    int64_t d = idx[x.ndim() - 1] - idx[x.ndim() - 2];
    store(out, i, (upper ? d >= k : d <= k) ? x.getDouble(i) : 0.0);
  }
  return out;
}

RefValue cumsum(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  int a = c.axis(c.attrInt("axis"), x.ndim());
  bool excl = c.attrBool("exclusive"), rev = c.attrBool("reverse");
  Tensor out(x.dtype(), x.shape());
  int64_t n = x.shape()[a];
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.shape());
    if (idx[a] != 0)
      continue; // one running sum per line along the axis
    double s = 0;
    for (int64_t step = 0; step < n; ++step) {
      idx[a] = rev ? n - 1 - step : step;
      double v = at(x, idx);
      if (!excl)
        s += v;
      store(out, ravel(idx, x.shape()), s);
      if (excl)
        s += v;
    }
  }
  return out;
}

RefValue topk(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  int a = c.axis(c.attrInt("axis"), x.ndim());
  int64_t k = c.attrInt("k"), n = x.shape()[a];
  if (k > n)
    c.fail("k exceeds the axis size");
  bool largest = c.attrBool("largest");
  std::vector<int64_t> shape = x.shape();
  shape[a] = k;
  Tensor vals(x.dtype(), shape), inds(DataType::Int64(), shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.shape());
    if (idx[a] != 0)
      continue;
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto val = [&](int64_t j) {
      auto t = idx;
      t[a] = j;
      return at(x, t);
    };
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
      return largest ? val(p) > val(q) : val(p) < val(q);
    });
    for (int64_t j = 0; j < k; ++j) {
      auto t = idx;
      t[a] = j;
      int64_t f = ravel(t, shape);
      store(vals, f, val(order[j]));
      store(inds, f, static_cast<double>(order[j]));
    }
  }
  return RefValue::tuple({RefValue(vals), RefValue(inds)});
}

RefValue einsum(const OpCall& c) {
  op::EinsumEquation eq = op::splitEinsum(c.attrString("subscripts"));
  if (eq.text.find('.') != std::string::npos)
    c.fail("ellipsis is not supported");
  const std::vector<std::string>& ins = eq.inputs;
  std::string out = eq.output ? *eq.output : op::implicitEinsumOutput(ins);
  if (ins.size() != c.args.size())
    c.fail("operand count differs from the equation");
  std::map<char, int64_t> size;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Tensor& t = c.tensor(i);
    if (static_cast<size_t>(t.ndim()) != ins[i].size())
      c.fail("operand rank differs from its subscripts");
    for (size_t d = 0; d < ins[i].size(); ++d)
      size[ins[i][d]] = t.shape()[d];
  }
  std::string letters;
  for (auto& [ch, n] : size)
    letters += ch;
  std::vector<int64_t> all, shape;
  for (char ch : letters)
    all.push_back(size[ch]);
  for (char ch : out)
    shape.push_back(size.at(ch));
  Tensor res(c.tensor(0).dtype(), shape);
  std::vector<double> acc(static_cast<size_t>(numelOf(shape)), 0.0);
  for (int64_t f = 0; f < numelOf(all); ++f) {
    auto v = unravel(f, all);
    std::map<char, int64_t> val;
    for (size_t l = 0; l < letters.size(); ++l)
      val[letters[l]] = v[l];
    double p = 1;
    for (size_t i = 0; i < ins.size(); ++i) {
      std::vector<int64_t> idx;
      for (char ch : ins[i])
        idx.push_back(val[ch]);
      p *= at(c.tensor(i), idx);
    }
    std::vector<int64_t> o;
    for (char ch : out)
      o.push_back(val[ch]);
    acc[static_cast<size_t>(ravel(o, shape))] += p;
  }
  for (size_t i = 0; i < acc.size(); ++i)
    store(res, static_cast<int64_t>(i), acc[i]);
  return res;
}

RefValue nllLoss(const OpCall& c) {
  const Tensor& p = c.tensor(0);
  const Tensor& t = c.tensor(1);
  const Tensor* w = c.args.size() > 2 ? &c.tensor(2) : nullptr;
  std::string r = c.attrString("reduction");
  bool hasIgnore = c.hasAttr("ignore_index");
  int64_t ignore = hasIgnore ? c.attrInt("ignore_index") : 0;
  if (p.ndim() < 2 || t.ndim() != p.ndim() - 1)
    c.fail("predictions must be (N, C, ...) and targets (N, ...)");
  int64_t C = p.shape()[1];
  Tensor none(p.dtype(), t.shape());
  double num = 0, den = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    auto idx = unravel(i, t.shape());
    int64_t cls = intAt(t, idx);
    if (hasIgnore && cls == ignore)
      continue; // contributes 0 and no weight
    if (cls < 0 || cls >= C)
      c.fail("target " + std::to_string(cls) + " is out of range [0, " + std::to_string(C) + ")");
    double wt = w ? w->getDouble(cls) : 1.0;
    auto pi = idx;
    pi.insert(pi.begin() + 1, cls);
    double l = -at(p, pi) * wt;
    store(none, i, l);
    num += l;
    den += wt;
  }
  if (r == "none")
    return none;
  Tensor out(p.dtype(), {});
  store(out, 0, r == "sum" ? num : num / den);
  return out;
}

RefValue classify(const OpCall& c, bool nan) {
  const Tensor& x = c.tensor(0);
  if (!x.dtype().isFloat())
    c.fail("requires a float tensor, got " + x.dtype().str());
  bool pos = nan || c.attrBool("detect_positive"), neg = nan || c.attrBool("detect_negative");
  Tensor out(DataType::Bool(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = x.getDouble(i);
    bool r = nan ? std::isnan(v) : std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
    store(out, i, r ? 1.0 : 0.0);
  }
  return out;
}

} // namespace

void addIndexOps(OpTable& t) {
  const std::pair<const char*, double (*)(double)> trig[] = {
      {"tan", [](double x) { return std::tan(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"asinh", [](double x) { return std::asinh(x); }},
      {"acosh", [](double x) { return std::acosh(x); }},
      {"atanh", [](double x) { return std::atanh(x); }}};
  for (auto& entry : trig) // not a structured binding: clang 14 cannot capture one
    t[entry.first] = [f = entry.second](const OpCall& c) { return unaryFloat(c, f); };
  t["left_shift"] = [](const OpCall& c) { return shift(c, true); };
  t["right_shift"] = [](const OpCall& c) { return shift(c, false); };
  t["gather_elements"] = gatherElements;
  t["gather_nd"] = gatherND;
  t["scatter_elements"] = scatterElements;
  t["scatter_nd"] = scatterND;
  t["one_hot"] = oneHot;
  t["trilu"] = trilu;
  t["cumsum"] = cumsum;
  t["topk"] = topk;
  t["einsum"] = einsum;
  t["nn.nll_loss"] = nllLoss;
  t["isnan"] = [](const OpCall& c) { return classify(c, true); };
  t["isinf"] = [](const OpCall& c) { return classify(c, false); };
}

} // namespace unity::runtime::reference
