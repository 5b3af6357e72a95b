// Tensor::setDouble into integer element types: values outside the type's
// range are converted without undefined behaviour (truncated toward zero,
// then wrapped modulo 2^bits as numpy's astype does; NaN gives 0; beyond the
// 64-bit range saturates). Under the asan preset (UBSan) a plain
// static_cast of such a double fails the run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/support/tensor.h"

namespace {

using unity::DataType;
using unity::Tensor;

double roundTrip(DataType t, double v) {
  Tensor x(t, {1});
  x.setDouble(0, v);
  return x.getDouble(0);
}

TEST(TensorSetDouble, InRangeValuesTruncateTowardZero) {
  EXPECT_EQ(roundTrip(DataType::Int(32), -1.5), -1.0);
  EXPECT_EQ(roundTrip(DataType::Int(32), 2.9), 2.0);
  EXPECT_EQ(roundTrip(DataType::UInt(8), 255.7), 255.0);
  EXPECT_EQ(roundTrip(DataType::Int(64), -9.0e15), -9.0e15);
}

TEST(TensorSetDouble, OutOfRangeValuesWrapLikeNumpy) {
  // numpy: np.array([-1.5]).astype(np.uint16) -> 65535; 300 -> uint8 44.
  EXPECT_EQ(roundTrip(DataType::UInt(16), -1.5), 65535.0);
  EXPECT_EQ(roundTrip(DataType::UInt(8), 300.0), 44.0);
  EXPECT_EQ(roundTrip(DataType::Int(8), 200.0), -56.0);
  EXPECT_EQ(roundTrip(DataType::UInt(32), -1.0), 4294967295.0);
}

TEST(TensorSetDouble, NanGivesZeroAndHugeValuesSaturate) {
  EXPECT_EQ(roundTrip(DataType::Int(32), std::nan("")), 0.0);
  EXPECT_EQ(roundTrip(DataType::UInt(16), std::nan("")), 0.0);
  EXPECT_EQ(roundTrip(DataType::Int(64), -1.0e300), double(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(roundTrip(DataType::UInt(8), std::numeric_limits<double>::infinity()), 255.0);
}

} // namespace
