// evalIntExpr (run-time shape arithmetic) and the comparison helpers it
// shares with the simplifier: comparisons on both sides of the boundary,
// floor division and modulo of negative operands, and the errors for an
// unbound variable and a zero divisor.
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

#include "engine/ir/int_eval.h"
#include "engine/support/error.h"

using namespace unity;
using namespace unity::ir;

namespace {

int64_t eval(const PrimExpr& e, const std::unordered_map<const PrimVar*, int64_t>& env = {}) {
  return evalIntExpr(e, [&](const PrimVar* v) -> std::optional<int64_t> {
    auto it = env.find(v);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  });
}

} // namespace

TEST(IntEval, ComparisonsAtTheBoundary) {
  auto n = primVar("n");
  for (int64_t v : {4, 5, 6}) {
    std::unordered_map<const PrimVar*, int64_t> env{{n.get(), v}};
    PrimExpr five = intImm(5);
    EXPECT_EQ(eval(eq(n, five), env), v == 5 ? 1 : 0) << v;
    EXPECT_EQ(eval(ne(n, five), env), v != 5 ? 1 : 0) << v;
    EXPECT_EQ(eval(lt(n, five), env), v < 5 ? 1 : 0) << v;
    EXPECT_EQ(eval(le(n, five), env), v <= 5 ? 1 : 0) << v;
    EXPECT_EQ(eval(gt(n, five), env), v > 5 ? 1 : 0) << v;
    EXPECT_EQ(eval(ge(n, five), env), v >= 5 ? 1 : 0) << v;
  }
}

TEST(IntEval, FloorDivisionAndModuloRoundTowardMinusInfinity) {
  EXPECT_EQ(eval(floordiv(intImm(-7), intImm(2))), -4);
  EXPECT_EQ(eval(floormod(intImm(-7), intImm(2))), 1);
  EXPECT_EQ(eval(floordiv(intImm(7), intImm(-2))), -4);
  EXPECT_EQ(eval(floormod(intImm(7), intImm(-2))), -1);
  EXPECT_EQ(eval(floordiv(intImm(6), intImm(3))), 2);
  EXPECT_EQ(eval(floormod(intImm(-6), intImm(3))), 0);
  EXPECT_EQ(floorDivInt(-1, 3), -1);
  EXPECT_EQ(floorModInt(-1, 3), 2);
}

TEST(IntEval, UnboundVariableAndZeroDivisorAreErrors) {
  auto n = primVar("n");
  try {
    eval(n + 1);
    FAIL() << "an unbound variable evaluated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(eval(floordiv(intImm(3), intImm(0))), Error);
}

TEST(IntEval, NegatedComparisons) {
  EXPECT_EQ(negateComparison(NodeKind::EQ), NodeKind::NE);
  EXPECT_EQ(negateComparison(NodeKind::NE), NodeKind::EQ);
  EXPECT_EQ(negateComparison(NodeKind::LT), NodeKind::GE);
  EXPECT_EQ(negateComparison(NodeKind::LE), NodeKind::GT);
  EXPECT_EQ(negateComparison(NodeKind::GT), NodeKind::LE);
  EXPECT_EQ(negateComparison(NodeKind::GE), NodeKind::LT);
}
