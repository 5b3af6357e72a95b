// Reference implementations of the reductions. Every input element is
// visited once in row-major order and folded into the output element it
// maps to (reduced axes dropped, or kept as 0 with keepdims). An absent
// `axis` reduces every axis; an explicit empty list reduces none (that is
// what the struct-info deduction says). argmax/argmin give the index of the
// first extreme element along one axis, or in the flattened tensor.
#include <algorithm>
#include <cmath>

#include "engine/runtime/reference.h"

namespace unity::runtime::reference {

namespace {

enum class Kind { Sum, Mean, Max, Min, Prod };

std::vector<bool> reducedAxes(const OpCall& c, const Tensor& x, const std::vector<int64_t>* axes) {
  std::vector<bool> red(x.ndim(), axes == nullptr);
  if (axes)
    for (int64_t a : *axes) {
      int n = c.axis(a, x.ndim());
      if (red[n])
        c.fail("axis " + std::to_string(a) + " is repeated");
      red[n] = true;
    }
  return red;
}

std::vector<int64_t> reducedShape(const Tensor& x, const std::vector<bool>& red, bool keepdims) {
  std::vector<int64_t> shape;
  for (int d = 0; d < x.ndim(); ++d) {
    if (!red[d])
      shape.push_back(x.shape()[d]);
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

/// The flat output index of input index `idx`.
int64_t outFlat(const std::vector<int64_t>& idx, const std::vector<bool>& red,
                const std::vector<int64_t>& outShape, bool keepdims) {
  std::vector<int64_t> o;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (!red[d])
      o.push_back(idx[d]);
    else if (keepdims)
      o.push_back(0);
  }
  return ravel(o, outShape);
}

RefValue reduce(const OpCall& c, Kind kind) {
  const Tensor& x = c.tensor(0);
  std::vector<int64_t> axes;
  bool given = c.hasAttr("axis");
  if (given)
    axes = c.attrInts("axis");
  auto red = reducedAxes(c, x, given ? &axes : nullptr);
  bool keep = c.attrBool("keepdims");
  auto shape = reducedShape(x, red, keep);
  int64_t n = numelOf(shape);
  std::vector<double> acc(n, kind == Kind::Prod ? 1.0 : 0.0);
  std::vector<int64_t> count(n, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = outFlat(unravel(i, x.shape()), red, shape, keep);
    double v = x.getDouble(i);
    switch (kind) {
    case Kind::Sum:
    case Kind::Mean:
      acc[o] += v;
      break;
    case Kind::Prod:
      acc[o] *= v;
      break;
    case Kind::Max:
      acc[o] = count[o] == 0 ? v : std::max(acc[o], v);
      break;
    case Kind::Min:
      acc[o] = count[o] == 0 ? v : std::min(acc[o], v);
      break;
    }
    count[o]++;
  }
  Tensor out(x.dtype(), shape);
  for (int64_t o = 0; o < n; ++o) {
    if ((kind == Kind::Max || kind == Kind::Min) && count[o] == 0)
      c.fail("reduction over an empty axis has no identity");
    double v = acc[o];
    if (kind == Kind::Mean)
      v = count[o] ? v / static_cast<double>(count[o]) : NAN;
    store(out, o, v);
  }
  return out;
}

RefValue argExtreme(const OpCall& c, bool isMax) {
  const Tensor& x = c.tensor(0);
  bool keep = c.attrBool("keepdims");
  bool given = c.hasAttr("axis");
  std::vector<int64_t> axes;
  if (given)
    axes = {c.attrInt("axis")};
  auto red = reducedAxes(c, x, given ? &axes : nullptr);
  auto shape = reducedShape(x, red, keep);
  int64_t n = numelOf(shape);
  std::vector<double> best(n, 0);
  std::vector<int64_t> arg(n, -1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.shape());
    int64_t o = outFlat(idx, red, shape, keep);
    // Position along the reduced axis, or in the flattened tensor.
    int64_t pos = given ? idx[c.axis(axes[0], x.ndim())] : i;
    double v = x.getDouble(i);
    bool better = isMax ? v > best[o] : v < best[o];
    if (arg[o] < 0 || better) {
      best[o] = v;
      arg[o] = pos;
    }
  }
  Tensor out(DataType::Int64(), shape);
  for (int64_t o = 0; o < n; ++o) {
    if (arg[o] < 0)
      c.fail("reduction over an empty axis");
    out.setDouble(o, static_cast<double>(arg[o]));
  }
  return out;
}

} // namespace

void addReduceOps(OpTable& t) {
  t["sum"] = [](const OpCall& c) { return reduce(c, Kind::Sum); };
  t["mean"] = [](const OpCall& c) { return reduce(c, Kind::Mean); };
  t["max"] = [](const OpCall& c) { return reduce(c, Kind::Max); };
  t["min"] = [](const OpCall& c) { return reduce(c, Kind::Min); };
  t["prod"] = [](const OpCall& c) { return reduce(c, Kind::Prod); };
  t["argmax"] = [](const OpCall& c) { return argExtreme(c, true); };
  t["argmin"] = [](const OpCall& c) { return argExtreme(c, false); };
}

} // namespace unity::runtime::reference
