// Element-wise comparison of output tensors (see compare.h for the rule).
#include "engine/runtime/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace unity::runtime {

namespace {

/// IEEE half -> double (Tensor::getDouble reads no float16).
double halfToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(man + 1024, exp - 25);
  return sign ? -v : v;
}

/// Folds `d` (one tensor's comparison, itself the `index`-th) into `into`.
void merge(TensorDifference& into, const TensorDifference& d, size_t index) {
  if (into.firstMismatch < 0 && d.firstMismatch >= 0) {
    into.firstMismatch = d.firstMismatch;
    into.firstMismatchTensor = index;
  }
  into.elements += d.elements;
  into.mismatches += d.mismatches;
  into.maxAbs = std::max(into.maxAbs, d.maxAbs);
  into.maxRel = std::max(into.maxRel, d.maxRel);
}

} // namespace

double elementAsDouble(const Tensor& t, int64_t i) {
  if (t.dtype().isFloat() && t.dtype().bits == 16)
    return halfToDouble(t.dataAs<uint16_t>()[i]);
  return t.getDouble(i);
}

TensorDifference compareTensors(const Tensor& got, const Tensor& want, const Tolerance& tol) {
  TensorDifference r;
  if (got.shape() != want.shape()) {
    r.structural =
        "shape " + Tensor::shapeStr(got.shape()) + ", expected " + Tensor::shapeStr(want.shape());
    return r;
  }
  if (!(got.dtype() == want.dtype())) {
    r.structural = "dtype " + got.dtype().str() + ", expected " + want.dtype().str();
    return r;
  }
  const bool isFloat = want.dtype().isFloat();
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = elementAsDouble(got, i), w = elementAsDouble(want, i);
    bool ok;
    if (!isFloat) {
      ok = g == w;
    } else if (std::isnan(g) || std::isnan(w)) {
      ok = std::isnan(g) && std::isnan(w);
    } else if (std::isinf(g) || std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w);
    }
    if (std::isfinite(g) && std::isfinite(w)) {
      const double d = std::fabs(g - w);
      r.maxAbs = std::max(r.maxAbs, d);
      if (w != 0)
        r.maxRel = std::max(r.maxRel, d / std::fabs(w));
    } else if (!ok) {
      r.maxAbs = std::numeric_limits<double>::infinity();
    }
    ++r.elements;
    if (!ok && r.mismatches++ == 0)
      r.firstMismatch = i;
  }
  return r;
}

TensorDifference compareTensorLists(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                    const Tolerance& tol) {
  TensorDifference r;
  if (got.size() != want.size()) {
    r.structural = std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
    return r;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    TensorDifference d = compareTensors(got[k], want[k], tol);
    if (!d.structural.empty()) {
      r.structural = "output " + std::to_string(k) + ": " + d.structural;
      return r;
    }
    merge(r, d, k);
  }
  return r;
}

} // namespace unity::runtime
