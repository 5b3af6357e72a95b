// Randomized soundness check: random integer expressions over two variables
// with small ranges are evaluated at every point of the ranges before and
// after simplification; the values must agree. Fixed seed, so a failure
// reproduces.
#include <gtest/gtest.h>

#include <random>

#include "engine/ir/arith.h"
#include "tests/engine/ir/arith/arith_test_util.h"

using namespace unity;
using namespace unity::ir;
using arith_test::eval;
using arith_test::print;

namespace {

class ExprGen {
public:
  ExprGen(uint32_t seed, Ref<PrimVar> x, Ref<PrimVar> y) : rng_(seed), x_(x), y_(y) {}

  PrimExpr intExpr(int depth) {
    if (depth == 0 || pick(5) == 0)
      return leaf();
    switch (pick(12)) {
    case 0:
    case 1:
      return intExpr(depth - 1) + intExpr(depth - 1);
    case 2:
      return intExpr(depth - 1) - intExpr(depth - 1);
    case 3:
      return intExpr(depth - 1) * constant(-4, 4);
    case 4:
      return intExpr(depth - 1) * intExpr(depth - 1);
    case 5:
      return floordiv(intExpr(depth - 1), nonZero());
    case 6:
      return floormod(intExpr(depth - 1), nonZero());
    case 7:
      return min(intExpr(depth - 1), intExpr(depth - 1));
    case 8:
      return max(intExpr(depth - 1), intExpr(depth - 1));
    case 9:
      return select(boolExpr(depth - 1), intExpr(depth - 1), intExpr(depth - 1));
    case 10:
      return floordiv(intExpr(depth - 1), PrimExpr(y_) + 1); // y >= 0: never zero
    default:
      return intExpr(depth - 1) / nonZero();
    }
  }

  PrimExpr boolExpr(int depth) {
    PrimExpr a = intExpr(depth), b = intExpr(depth);
    switch (pick(8)) {
    case 0:
      return lt(a, b);
    case 1:
      return le(a, b);
    case 2:
      return gt(a, b);
    case 3:
      return ge(a, b);
    case 4:
      return eq(a, b);
    case 5:
      return ne(a, b);
    case 6:
      return logicalAnd(lt(a, b), ne(a, intExpr(0)));
    default:
      return logicalNot(logicalOr(eq(a, b), lt(b, a)));
    }
  }

private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  PrimExpr constant(int lo, int hi) {
    return intImm(std::uniform_int_distribution<int>(lo, hi)(rng_));
  }
  PrimExpr nonZero() {
    int v = std::uniform_int_distribution<int>(1, 6)(rng_);
    return intImm(pick(4) == 0 ? -v : v);
  }
  PrimExpr leaf() {
    switch (pick(3)) {
    case 0:
      return x_;
    case 1:
      return y_;
    default:
      return constant(-6, 6);
    }
  }
  std::mt19937 rng_;
  Ref<PrimVar> x_, y_;
};

void checkAgrees(arith::Analyzer& an, const PrimExpr& e, const Ref<PrimVar>& x,
                 const Ref<PrimVar>& y, int xlo, int xhi, int ylo, int yhi) {
  PrimExpr s = an.simplify(e);
  ASSERT_EQ(s->dtype, e->dtype);
  // The result is a fixed point: simplifying it again changes nothing.
  EXPECT_TRUE(sameNode(an.simplify(s), s))
      << "not idempotent:\n  " << print(s) << "\n  " << print(an.simplify(s));
  for (int xv = xlo; xv <= xhi; ++xv)
    for (int yv = ylo; yv <= yhi; ++yv) {
      std::map<const PrimVar*, int64_t> env{{x.get(), xv}, {y.get(), yv}};
      ASSERT_EQ(eval(e, env), eval(s, env))
          << "x=" << xv << " y=" << yv << "\n  input:      " << print(e)
          << "\n  simplified: " << print(s);
    }
}

TEST(ArithRandom, SimplifiedExpressionsEvaluateTheSameWithBounds) {
  auto x = primVar("x"), y = primVar("y");
  arith::Analyzer an;
  an.bind(x, Range{intImm(-5), intImm(11)}); // x in [-5, 5]
  an.bind(y, Range{intImm(0), intImm(7)});   // y in [0, 6]
  ExprGen gen(20240517u, x, y);
  int changed = 0;
  for (int t = 0; t < 400; ++t) {
    PrimExpr e =
        t % 4 == 3 ? select(gen.boolExpr(2), gen.intExpr(3), gen.intExpr(2)) : gen.intExpr(4);
    changed += !sameNode(an.simplify(e), e);
    checkAgrees(an, e, x, y, -5, 5, 0, 6);
    if (HasFatalFailure())
      return;
  }
  // The generator must exercise the rewrites, not just pass through.
  EXPECT_GT(changed, 200);
}

TEST(ArithRandom, SimplifiedExpressionsEvaluateTheSameWithoutContext) {
  // y stays non-negative so that floordiv(_, y + 1) is defined.
  auto x = primVar("x"), y = primVar("y");
  arith::Analyzer an;
  an.markNonNegative(y);
  ExprGen gen(7u, x, y);
  for (int t = 0; t < 300; ++t) {
    checkAgrees(an, gen.intExpr(4), x, y, -7, 7, 0, 7);
    if (HasFatalFailure())
      return;
  }
}

TEST(ArithRandom, BooleanConditionsAgree) {
  auto x = primVar("x"), y = primVar("y");
  arith::Analyzer an;
  an.bind(x, Range{intImm(-3), intImm(7)});
  an.bind(y, Range{intImm(0), intImm(5)});
  ExprGen gen(99u, x, y);
  for (int t = 0; t < 300; ++t) {
    checkAgrees(an, gen.boolExpr(3), x, y, -3, 3, 0, 4);
    if (HasFatalFailure())
      return;
  }
}

} // namespace
