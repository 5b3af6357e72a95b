// A hand-written table of simplifier cases. Each expectation is built by hand
// and checked twice: structurally (the test's own printer) and with the
// prover (canProveEqual).
#include <gtest/gtest.h>

#include "engine/ir/arith.h"
#include "tests/engine/ir/arith/arith_test_util.h"

using namespace unity;
using namespace unity::ir;
using arith_test::print;

namespace {

struct Case {
  const char* name;
  PrimExpr input, expected;
};

class ArithSimplify : public ::testing::Test {
protected:
  void SetUp() override {
    an.bind(i, Range{intImm(0), intImm(16)});
    an.bind(j, Range{intImm(0), intImm(8)});
    an.bind(k, Range{intImm(0), intImm(4)});
    an.markNonNegative(n);
    an.markNonNegative(m);
  }
  void check(const std::vector<Case>& cases) {
    for (auto& c : cases) {
      SCOPED_TRACE(c.name);
      PrimExpr out = an.simplify(c.input);
      EXPECT_EQ(print(out), print(c.expected)) << "input " << print(c.input);
      EXPECT_EQ(out->dtype, c.expected->dtype);
      EXPECT_TRUE(an.canProveEqual(out, c.expected));
    }
  }

  arith::Analyzer an;
  Ref<PrimVar> i = primVar("i"), j = primVar("j"), k = primVar("k");
  Ref<PrimVar> n = primVar("n"), m = primVar("m");
  Ref<PrimVar> x = primVar("x"), y = primVar("y");
  Ref<PrimVar> a32 = primVar("a", DataType::Int32());
  Ref<PrimVar> f = primVar("f", DataType::Float32());
  PrimExpr c(int64_t v) { return intImm(v); }
};

TEST_F(ArithSimplify, LinearCanonicalForm) {
  check({
      {"n*2 stays", n * 2, n * 2},
      {"2*n", 2 * n, n * 2},
      {"(n+1)-1", (n + 1) - 1, n},
      {"x*4+y-x*4", x * 4 + y - x * 4, y},
      {"x+x", x + x, x * 2},
      {"x-x", x - x, c(0)},
      {"(x+2)*3", (x + 2) * 3, x * 3 + 6},
      {"y+x ordered by name", y + x, x + y},
      {"x*3-x*5", x * 3 - x * 5, x * c(-2)},
      {"5-x", c(5) - x, c(5) - x},
      {"-x+y puts the positive term first", (c(0) - x) + y, y - x},
      {"x*0", x * 0, c(0)},
      {"x*y - y*x", x * y - y * x, c(0)},
      {"(x*2)*(y*3)", (x * 2) * (y * 3), (x * y) * 6},
      {"int32 stays int32", a32 * 2 + a32, a32 * 3},
      {"(x+1)+(y-1)", (x + 1) + (y - 1), x + y},
      {"x - (y + 3)", x - (y + 3), x - y - 3},
  });
}

TEST_F(ArithSimplify, ConstantFolding) {
  check({
      {"3+4", c(3) + c(4), c(7)},
      {"7*6", c(7) * c(6), c(42)},
      {"floordiv(7,2)", floordiv(c(7), c(2)), c(3)},
      {"floordiv(-7,2)", floordiv(c(-7), c(2)), c(-4)},
      {"floormod(-7,2)", floormod(c(-7), c(2)), c(1)},
      {"floordiv(7,-2)", floordiv(c(7), c(-2)), c(-4)},
      {"floormod(7,-2)", floormod(c(7), c(-2)), c(-1)},
      {"truncdiv(-7,2)", c(-7) / c(2), c(-3)},
      {"min(3,-2)", min(c(3), c(-2)), c(-2)},
      {"max(3,-2)", max(c(3), c(-2)), c(3)},
      {"3<4", lt(c(3), c(4)), boolImm(true)},
      {"3==4", eq(c(3), c(4)), boolImm(false)},
      {"int32 overflow is not folded", intImm(2147483647, DataType::Int32()) + 1,
       intImm(2147483647, DataType::Int32()) + 1},
      {"float add", floatImm(1.5) + floatImm(2.25), floatImm(3.75)},
      {"float div", floatImm(1.0) / floatImm(4.0), floatImm(0.25)},
      {"float compare", lt(floatImm(1.0), floatImm(2.0)), boolImm(true)},
      {"float var is not rewritten", f * floatImm(1.0) + floatImm(0.0),
       f * floatImm(1.0) + floatImm(0.0)},
      {"cast int64->int32", cast(DataType::Int32(), c(300)), intImm(300, DataType::Int32())},
      {"cast wraps to int8", cast(DataType::Int(8), c(300)), intImm(44, DataType::Int(8))},
      {"cast int->float", cast(DataType::Float32(), c(3)), floatImm(3.0)},
      {"cast float->int truncates", cast(DataType::Int32(), floatImm(-2.7)),
       intImm(-2, DataType::Int32())},
  });
}

TEST_F(ArithSimplify, DivisionAndModulo) {
  check({
      {"floordiv(i*8+j,8)", floordiv(i * 8 + j, c(8)), i},
      {"floormod(i*8+j,8)", floormod(i * 8 + j, c(8)), j},
      {"floordiv(x,1)", floordiv(x, c(1)), x},
      {"floormod(x,1)", floormod(x, c(1)), c(0)},
      {"nested floordiv", floordiv(floordiv(x, c(4)), c(8)), floordiv(x, c(32))},
      {"floordiv(x*8+y,8)", floordiv(x * 8 + y, c(8)), x + floordiv(y, c(8))},
      {"floordiv(i,16)", floordiv(i, c(16)), c(0)},
      {"floormod(i,16)", floormod(i, c(16)), i},
      {"floordiv(x+9,8)", floordiv(x + 9, c(8)), floordiv(x + 1, c(8)) + 1},
      {"floormod(x*8+3,8)", floormod(x * 8 + 3, c(8)), c(3)},
      {"floordiv(i*4+3,4)", floordiv(i * 4 + 3, c(4)), i},
      {"nested floormod", floormod(floormod(x, c(16)), c(4)), floormod(x, c(4))},
      {"div/mod recombine", floordiv(x, c(4)) * 4 + floormod(x, c(4)), x},
      {"floormod(i*8+j,4)", floormod(i * 8 + j, c(4)), floormod(j, c(4))},
      {"truncdiv of non-negative", (i * 8 + j) / c(8), i},
      {"floordiv(i+1,i+1)", floordiv(i + 1, i + 1), c(1)},
      {"floordiv(j+8,8) folds the period", floordiv(j + 8, c(8)), c(1)},
      {"floordiv unchanged", floordiv(x, c(3)), floordiv(x, c(3))},
      // A factor shared by the divisor and a coefficient divides out when
      // the other terms stay in [0, factor): the row of a flattened image.
      {"floordiv(x*8+j,32)", floordiv(x * 8 + j, c(32)), floordiv(x, c(4))},
      {"floormod(x*8+j,32)", floormod(x * 8 + j, c(32)), j + floormod(x, c(4)) * 8},
      // g = 2 divides out (1 < 2); then i in [0, 16) is not below 8.
      {"floordiv(x*16+i*2+1,64)", floordiv(x * 16 + i * 2 + 1, c(64)), floordiv(i + x * 8, c(32))},
      {"floordiv(x*8+j+1,32) unchanged", floordiv(x * 8 + j + 1, c(32)),
       floordiv(j + x * 8 + 1, c(32))},
      {"floormod(x*8+y,32) unchanged", floormod(x * 8 + y, c(32)), floormod(x * 8 + y, c(32))},
  });
}

TEST_F(ArithSimplify, MinMaxComparisonsLogic) {
  check({
      {"min(i,16)", min(i, c(16)), i},
      {"max(i,16)", max(i, c(16)), c(16)},
      {"min(x,x)", min(x, x), x},
      {"min(j,i+8)", min(j, i + 8), j},
      {"max(y,x) ordered", max(y, x), max(x, y)},
      {"min(min(x,5),3)", min(min(x, c(5)), c(3)), min(x, c(3))},
      {"min(3,x)", min(c(3), x), min(x, c(3))},
      {"i<16", lt(i, c(16)), boolImm(true)},
      {"i>=16", ge(i, c(16)), boolImm(false)},
      {"i*4+k<64", lt(i * 4 + k, c(64)), boolImm(true)},
      {"x+1>x", gt(x + 1, x), boolImm(true)},
      {"x==x+1", eq(x, x + 1), boolImm(false)},
      {"n>=0", ge(n, c(0)), boolImm(true)},
      {"n-1>=0 stays", ge(n - 1, c(0)), ge(n - 1, c(0))},
      {"true and p", logicalAnd(boolImm(true), lt(x, y)), lt(x, y)},
      {"false or p", logicalOr(boolImm(false), lt(x, y)), lt(x, y)},
      {"false and p", logicalAnd(lt(x, y), boolImm(false)), boolImm(false)},
      {"not <", logicalNot(lt(x, y)), ge(x, y)},
      {"not not", logicalNot(logicalNot(lt(x, y))), lt(x, y)},
      {"select const", select(boolImm(true), x, y), x},
      {"select same branches", select(lt(x, y), c(3), c(3)), c(3)},
      {"select provable", select(lt(i, c(16)), x, y), x},
  });
}

TEST_F(ArithSimplify, UnchangedExpressionIsTheSameNode) {
  for (PrimExpr e : {PrimExpr(n * 2 + 1), floordiv(x, c(3)), PrimExpr(x + y), max(x, y),
                     PrimExpr(f * floatImm(2.0)), lt(x, y)}) {
    SCOPED_TRACE(print(e));
    EXPECT_TRUE(sameNode(an.simplify(e), e));
  }
  PrimExpr changed = 2 * n;
  EXPECT_FALSE(sameNode(an.simplify(changed), changed));
}

TEST_F(ArithSimplify, OrderDoesNotDependOnCreationOrder) {
  // Variables created in reverse alphabetical order still print by name.
  auto b = primVar("b"), a = primVar("a");
  EXPECT_EQ(print(arith::simplify(b + a)), "(a + b)");
  EXPECT_EQ(print(arith::simplify(a + b)), "(a + b)");
  EXPECT_EQ(print(arith::simplify(b * 3 + a * 2 + b)), "((a * 2) + (b * 4))");
}

} // namespace
