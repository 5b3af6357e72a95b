#pragma once
// Helpers for the te tests: seeded random tensors, element access by
// multi-index, and approximate comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/support/tensor.h"

namespace unity::te::testing {

inline unity::Tensor randomTensor(std::vector<int64_t> shape, uint32_t seed, double lo = -1.0,
                                  double hi = 1.0, DataType dtype = DataType::Float32()) {
  unity::Tensor t(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = dist(rng);
    t.setDouble(i, dtype.isFloat() ? v : std::floor(v));
  }
  return t;
}

inline int64_t flat(const unity::Tensor& t, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t d = 0; d < idx.size(); ++d)
    f = f * t.shape()[d] + idx[d];
  return f;
}
inline double at(const unity::Tensor& t, const std::vector<int64_t>& idx) {
  return t.getDouble(flat(t, idx));
}
inline void set(unity::Tensor& t, const std::vector<int64_t>& idx, double v) {
  t.setDouble(flat(t, idx), v);
}

/// Every element of `got` within tol (absolute + relative) of `want`.
inline ::testing::AssertionResult allClose(const unity::Tensor& got, const unity::Tensor& want,
                                           double tol = 1e-5) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << unity::Tensor::shapeStr(got.shape())
                                         << " vs " << unity::Tensor::shapeStr(want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) || std::isnan(b) || std::fabs(a - b) > tol * (1 + std::fabs(b)))
      return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", want " << b;
  }
  return ::testing::AssertionSuccess();
}

} // namespace unity::te::testing
