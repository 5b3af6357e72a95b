// compareTensors / compareTensorLists (engine/runtime/compare.h): the
// tolerance rule, NaN and infinity handling, the largest absolute and
// relative differences, and the structural differences that stop a
// comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/runtime/compare.h"

using namespace unity;
using unity::runtime::compareTensorLists;
using unity::runtime::compareTensors;
using unity::runtime::Tolerance;

namespace {

Tensor floats(std::vector<float> v) {
  return Tensor::fromFloats({static_cast<int64_t>(v.size())}, v);
}

Tensor ints(std::vector<int> v) {
  Tensor t(DataType::Int32(), {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

TEST(CompareTensors, EqualTensorsAreTheSame) {
  auto d = compareTensors(floats({1, -2, 3.5f}), floats({1, -2, 3.5f}));
  EXPECT_TRUE(d.same());
  EXPECT_EQ(d.elements, 3);
  EXPECT_EQ(d.mismatches, 0);
  EXPECT_EQ(d.firstMismatch, -1);
  EXPECT_EQ(d.maxAbs, 0);
  EXPECT_EQ(d.maxRel, 0);
}

TEST(CompareTensors, ToleranceScalesWithTheExpectedValue) {
  Tolerance tol{/*rtol=*/1e-3, /*atol=*/1e-6};
  // 1000 +- 0.5 is within 1e-3 relative; 1 +- 0.5 is not.
  auto d = compareTensors(floats({1000.5f, 1.5f}), floats({1000, 1}), tol);
  EXPECT_FALSE(d.same());
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.firstMismatch, 1);
  EXPECT_DOUBLE_EQ(d.maxAbs, 0.5);
  EXPECT_DOUBLE_EQ(d.maxRel, 0.5);
  EXPECT_TRUE(compareTensors(floats({1000.5f}), floats({1000}), tol).same());
}

TEST(CompareTensors, RelativeDifferenceSkipsZeroExpectations) {
  auto d = compareTensors(floats({1e-5f, 2.2f}), floats({0, 2}));
  EXPECT_NEAR(d.maxAbs, 0.2, 1e-6);
  EXPECT_NEAR(d.maxRel, 0.1, 1e-6) << "the zero expectation has no relative error";
  EXPECT_EQ(d.mismatches, 1);
}

TEST(CompareTensors, NaNMatchesOnlyNaN) {
  EXPECT_TRUE(compareTensors(floats({kNaN, 1}), floats({kNaN, 1})).same());
  auto d = compareTensors(floats({1, kNaN}), floats({1, 2}));
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.firstMismatch, 1);
  EXPECT_TRUE(std::isinf(d.maxAbs)) << "a NaN where a number was expected is as far as it gets";
  EXPECT_EQ(compareTensors(floats({2}), floats({kNaN})).mismatches, 1);
}

TEST(CompareTensors, InfinitiesMatchOnlyTheSameInfinity) {
  EXPECT_TRUE(compareTensors(floats({kInf, -kInf}), floats({kInf, -kInf})).same());
  EXPECT_EQ(compareTensors(floats({kInf}), floats({-kInf})).mismatches, 1);
  EXPECT_EQ(compareTensors(floats({3e38f}), floats({kInf})).mismatches, 1);
}

TEST(CompareTensors, IntegersCompareExactly) {
  Tolerance loose{/*rtol=*/0.5, /*atol=*/10};
  auto d = compareTensors(ints({1, 2, 3}), ints({1, 2, 4}), loose);
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.firstMismatch, 2);
  EXPECT_DOUBLE_EQ(d.maxAbs, 1);
}

TEST(CompareTensors, ShapeAndDtypeDifferencesAreStructural) {
  Tensor a = Tensor::fromFloats({2, 2}, std::vector<float>{1, 2, 3, 4});
  Tensor b = Tensor::fromFloats({4}, std::vector<float>{1, 2, 3, 4});
  auto d = compareTensors(a, b);
  EXPECT_FALSE(d.same());
  EXPECT_NE(d.structural.find("shape"), std::string::npos) << d.structural;
  auto e = compareTensors(ints({1}), floats({1}));
  EXPECT_FALSE(e.same());
  EXPECT_NE(e.structural.find("dtype"), std::string::npos) << e.structural;
}

TEST(CompareTensorLists, MergesCountsAndMaximaOverAllOutputs) {
  auto d = compareTensorLists({floats({1, 2}), floats({10, 20.5f})},
                              {floats({1, 2.25f}), floats({10, 20})});
  EXPECT_EQ(d.elements, 4);
  EXPECT_EQ(d.mismatches, 2);
  EXPECT_EQ(d.firstMismatchTensor, 0u);
  EXPECT_EQ(d.firstMismatch, 1);
  EXPECT_DOUBLE_EQ(d.maxAbs, 0.5);
  EXPECT_DOUBLE_EQ(d.maxRel, 0.25 / 2.25);
}

TEST(CompareTensorLists, DifferentCountsOrShapesAreStructural) {
  auto n = compareTensorLists({floats({1})}, {floats({1}), floats({2})});
  EXPECT_FALSE(n.same());
  EXPECT_NE(n.structural.find("1 outputs, expected 2"), std::string::npos) << n.structural;
  auto s = compareTensorLists({floats({1}), floats({1, 2})}, {floats({1}), floats({1})});
  EXPECT_NE(s.structural.find("output 1"), std::string::npos) << s.structural;
}
