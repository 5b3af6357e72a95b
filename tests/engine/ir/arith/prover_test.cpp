// The prover and the bound analysis: cases from the issue, symbolic loop
// ranges, negative cases (what must NOT be provable) and error handling.
#include <gtest/gtest.h>

#include "engine/ir/arith.h"
#include "tests/engine/ir/arith/arith_test_util.h"

using namespace unity;
using namespace unity::ir;
using arith_test::print;

namespace {

constexpr int64_t kInf = INT64_MAX, kNegInf = INT64_MIN;

TEST(ArithProver, IssueCases) {
  auto n = primVar("n");
  EXPECT_TRUE(arith::provablyEqual(n * 2, 2 * n));
  EXPECT_TRUE(arith::provablyEqual((n + 1) - 1, n));

  arith::Analyzer an;
  auto i = primVar("i"), j = primVar("j");
  an.bind(i, Range{intImm(0), intImm(16)});
  EXPECT_TRUE(an.canProve(lt(i, intImm(16))));
  EXPECT_TRUE(an.canProve(ge(i, intImm(0))));
  EXPECT_FALSE(an.canProve(lt(i, intImm(15))));
  an.bind(j, Range{intImm(0), intImm(4)});
  EXPECT_TRUE(an.canProve(lt(i * 4 + j, intImm(64))));
  EXPECT_FALSE(an.canProve(lt(i * 4 + j, intImm(63))));
  EXPECT_TRUE(an.canProve(le(i * 4 + j, intImm(63))));
}

TEST(ArithProver, NegativeCases) {
  auto n = primVar("n"), m = primVar("m");
  EXPECT_FALSE(arith::provablyEqual(n, m));
  EXPECT_FALSE(arith::provablyEqual(n * 2, n + 2));
  arith::Analyzer an;
  an.markNonNegative(n);
  EXPECT_TRUE(an.canProve(ge(n, intImm(0))));
  EXPECT_FALSE(an.canProve(ge(n - 1, intImm(0)))); // n >= 1 is not assumed
  EXPECT_FALSE(an.canProve(gt(n, intImm(0))));
  // Not provable in either direction means "don't know", not false.
  EXPECT_FALSE(an.canProve(lt(n, m)));
  EXPECT_FALSE(an.canProve(ge(n, m)));
  // Once n is known to be at least 1 it is.
  an.bind(n, Range{intImm(1), intImm(100)});
  EXPECT_TRUE(an.canProve(ge(n - 1, intImm(0))));
}

TEST(ArithProver, SymbolicLoopRanges) {
  arith::Analyzer an;
  auto n = primVar("n"), i = primVar("i"), j = primVar("j");
  an.markNonNegative(n);
  an.bind(i, Range{intImm(0), PrimExpr(n)});
  EXPECT_TRUE(an.canProve(lt(i, n)));
  EXPECT_TRUE(an.canProve(le(i, n - 1)));
  EXPECT_FALSE(an.canProve(lt(i, n - 1)));
  EXPECT_TRUE(sameNode(an.simplify(floormod(i, n)), i));
  EXPECT_TRUE(arith_test::print(an.simplify(floordiv(i, n))) == "0");
  EXPECT_TRUE(sameNode(an.simplify(min(i, n)), i));
  // Nested: j in [0, i), i in [0, n) gives j <= n - 2.
  an.bind(j, Range{intImm(0), PrimExpr(i)});
  EXPECT_TRUE(an.canProve(lt(j, n - 1)));
  EXPECT_FALSE(an.canProve(lt(j, n - 2)));
}

TEST(ArithProver, ConstIntBound) {
  arith::Analyzer an;
  auto i = primVar("i"), j = primVar("j"), n = primVar("n"), x = primVar("x");
  auto a = primVar("a", DataType::Int32());
  an.bind(i, Range{intImm(0), intImm(16)});
  an.bind(j, Range{intImm(0), intImm(4)});
  an.markNonNegative(n);
  EXPECT_EQ(an.constIntBound(i * 4 + j), (arith::ConstIntBound{0, 63}));
  EXPECT_EQ(an.constIntBound(i - j), (arith::ConstIntBound{-3, 15}));
  EXPECT_EQ(an.constIntBound(i * j), (arith::ConstIntBound{0, 45}));
  EXPECT_EQ(an.constIntBound(floordiv(i, intImm(4))), (arith::ConstIntBound{0, 3}));
  EXPECT_EQ(an.constIntBound(floordiv(i - 8, intImm(4))), (arith::ConstIntBound{-2, 1}));
  EXPECT_EQ(an.constIntBound(floormod(x, intImm(8))), (arith::ConstIntBound{0, 7}));
  EXPECT_EQ(an.constIntBound(floormod(j, intImm(8))), (arith::ConstIntBound{0, 3}));
  EXPECT_EQ(an.constIntBound(min(i, j)), (arith::ConstIntBound{0, 3}));
  EXPECT_EQ(an.constIntBound(max(i, j + 20)), (arith::ConstIntBound{20, 23}));
  EXPECT_EQ(an.constIntBound(select(lt(x, n), i, j + 30)), (arith::ConstIntBound{0, 33}));
  EXPECT_EQ(an.constIntBound(x), (arith::ConstIntBound{kNegInf, kInf}));
  EXPECT_EQ(an.constIntBound(n), (arith::ConstIntBound{0, kInf}));
  EXPECT_EQ(an.constIntBound(n + 1), (arith::ConstIntBound{1, kInf}));
  EXPECT_EQ(an.constIntBound(x * 0 + 5), (arith::ConstIntBound{5, 5}));
  EXPECT_EQ(an.constIntBound(a), (arith::ConstIntBound{-2147483648LL, 2147483647LL}));
  // Correlated operands: i - i is exactly 0 after simplification.
  EXPECT_EQ(an.constIntBound(i * 4 + j - i * 4), (arith::ConstIntBound{0, 3}));
}

TEST(ArithProver, BindValueSubstitutes) {
  arith::Analyzer an;
  auto x = primVar("x"), y = primVar("y");
  an.bind(x, intImm(4));
  EXPECT_EQ(print(an.simplify(x * 2 + y)), "(y + 8)");
  EXPECT_TRUE(an.canProve(eq(x, intImm(4))));
  an.unbind(x);
  EXPECT_FALSE(an.canProve(eq(x, intImm(4))));
  EXPECT_THROW(an.bind(x, intImm(1, DataType::Int32())), Error);
}

TEST(ArithProver, BadInputThrows) {
  arith::Analyzer an;
  auto x = primVar("x");
  EXPECT_THROW(an.simplify(nullptr), Error);
  EXPECT_THROW(an.canProve(x + 1), Error); // not a bool
  EXPECT_THROW(an.canProve(nullptr), Error);
  EXPECT_THROW(an.simplify(floordiv(x, intImm(0))), Error);
  EXPECT_THROW(an.simplify(floormod(intImm(3), intImm(0))), Error);
  EXPECT_THROW(an.bind(x, Range{nullptr, intImm(3)}), Error);
  EXPECT_THROW(an.bind(primVar("f", DataType::Float32()), Range{intImm(0), intImm(3)}), Error);
  try {
    an.simplify(floordiv(x, intImm(0)));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("floordiv by constant zero"), std::string::npos);
  }
}

TEST(ArithProver, DtypesArePreserved) {
  auto a = primVar("a", DataType::Int32());
  PrimExpr e = arith::simplify(floordiv(a * 8 + 8, intImm(8, DataType::Int32())));
  EXPECT_EQ(e->dtype, DataType::Int32());
  EXPECT_EQ(print(e), "(a + int32(1))");
  EXPECT_TRUE(arith::provablyEqual(a * 2, 2 * a));
  EXPECT_FALSE(arith::provablyEqual(a, cast(DataType::Int32(), primVar("b"))));
}

} // namespace
