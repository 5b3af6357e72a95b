// Shape arithmetic on constants a model file supplies: a product or sum that
// leaves int64 is refused with unity::Error naming the operands (it used to
// wrap, undefined behaviour found by onnx_import_fuzz), while the same shapes
// within range still simplify.
#include <gtest/gtest.h>

#include "engine/ir/prim_expr.h"
#include "engine/op/shape_arith.h"
#include "engine/support/error.h"

using namespace unity;
using namespace unity::ir;

namespace {

TEST(ShapeArithOverflow, ProductOutsideInt64IsAnError) {
  auto n = primVar("n", DataType::Int64());
  PrimExpr big = intImm(int64_t(8796093022207)); // 2^43 - 1
  PrimExpr e = (n * intImm(6291453)) * big;      // coefficient 6291453 * (2^43 - 1) > 2^63
  try {
    op::arith::provablyEqual(e, n); // compares linear forms: folds the coefficients
    FAIL() << "no error for a coefficient outside int64";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("overflows int64"), std::string::npos) << err.what();
  }
  // In range the coefficients fold.
  EXPECT_TRUE(op::arith::provablyEqual((n * intImm(3)) * intImm(4), n * intImm(12)));
}

TEST(ShapeArithOverflow, SumOutsideInt64IsAnError) {
  auto n = primVar("n", DataType::Int64());
  PrimExpr e = (n + intImm(INT64_MAX)) + intImm(INT64_MAX);
  EXPECT_THROW(op::arith::provablyEqual(e, n), Error);
}

} // namespace
