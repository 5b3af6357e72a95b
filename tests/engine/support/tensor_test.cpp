// Tensor::setDouble into integer element types: values outside the type's
// range are converted without undefined behaviour (truncated toward zero,
// then wrapped modulo 2^bits as numpy's astype does; NaN gives 0; beyond the
// 64-bit range saturates). Under the asan preset (UBSan) a plain
// static_cast of such a double fails the run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

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

// Tensor storage starts on a cache line: the kernels access whole vectors
// at multiples of the vector from a tensor's start, and operator new's
// 16-byte alignment (glibc's large blocks start 16 bytes into a page) made
// every 64-byte access straddle two lines.
TEST(TensorStorage, StartsOnACacheLineAtEverySize) {
  for (int64_t n : {int64_t(1), int64_t(17), int64_t(4097), int64_t(1) << 22}) {
    Tensor t(DataType::Float32(), {n});
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0u) << n;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.clone().data()) % 64, 0u) << n;
    auto bytes = std::make_shared<unity::TensorBytes>(static_cast<size_t>(n) * 4);
    Tensor v = Tensor::view(DataType::Float32(), {n}, bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u) << n;
  }
}
