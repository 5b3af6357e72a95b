// Struct-info deduction of the indexing, scan, loss and classification
// operators (ops_index.cpp), the trigonometric unaries and the shifts.
#include "op_test_util.h"

using namespace optest;

namespace {
const DataType f32 = DataType::Float32();
const DataType i64 = DataType::Int64();
const DataType boolT = DataType::Bool();

bool has(const std::string& msg, const std::string& part) {
  return msg.find(part) != std::string::npos;
}
} // namespace

TEST(OpIndex, TrigUnariesKeepStructInfoAndRejectIntegers) {
  auto n = primVar("n");
  for (const char* name :
       {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}) {
    Expr x = tensor({n, 3});
    EXPECT_TRUE(sameNode(deduce(name, {x}), x->sinfo)) << name;
    std::string msg = deduceError(name, {tensor({2}, DataType::Int32())});
    EXPECT_TRUE(has(msg, std::string("R.") + name) && has(msg, "float")) << msg;
  }
}

TEST(OpIndex, IsNanIsInfGiveBoolAndNeedFloat) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("isnan", {tensor({n, 2})}), {n, 2}, boolT));
  EXPECT_TRUE(hasShape(deduce("isinf", {tensor({4})}, {{"detect_negative", false}}), {4}, boolT));
  EXPECT_TRUE(has(deduceError("isinf", {tensor({4}, i64)}), "float"));
}

TEST(OpIndex, ShiftsBroadcastAndNeedUnsigned) {
  DataType u8 = DataType::UInt(8);
  EXPECT_TRUE(hasShape(deduce("left_shift", {tensor({3, 1}, u8), tensor({4}, u8)}), {3, 4}, u8));
  std::string msg = deduceError("right_shift", {tensor({3}, i64), tensor({3}, i64)});
  EXPECT_TRUE(has(msg, "R.right_shift") && has(msg, "unsigned")) << msg;
}

TEST(OpIndex, GatherElementsTakesTheIndicesShape) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(
      deduce("gather_elements", {tensor({n, 5}), tensor({n, 2}, i64, "i")}, {{"axis", int64_t(1)}}),
      {n, 2}));
  EXPECT_TRUE(has(deduceError("gather_elements", {tensor({3, 5}), tensor({3}, i64, "i")}),
                  "indices have rank 1, data has rank 2"));
  EXPECT_TRUE(has(deduceError("gather_elements", {tensor({3, 5}), tensor({3, 1}, f32, "i")}),
                  "indices must be an integer tensor"));
  EXPECT_TRUE(has(deduceError("gather_elements", {tensor({3, 5}), tensor({3, 1}, i64, "i")},
                              {{"axis", int64_t(2)}}),
                  "axis"));
}

TEST(OpIndex, GatherNDShapeAndErrors) {
  // data (2, 3, 4), indices (5, 2): each tuple picks a row of 4.
  EXPECT_TRUE(hasShape(deduce("gather_nd", {tensor({2, 3, 4}), tensor({5, 2}, i64, "i")}), {5, 4}));
  // batch_dims = 1: data (2, 3, 4), indices (2, 1) -> (2, 4).
  EXPECT_TRUE(hasShape(deduce("gather_nd", {tensor({2, 3, 4}), tensor({2, 1}, i64, "i")},
                              {{"batch_dims", int64_t(1)}}),
                       {2, 4}));
  EXPECT_TRUE(has(deduceError("gather_nd", {tensor({2, 3}), tensor({5, 3}, i64, "i")}),
                  "indices address 3 dims"));
  auto n = primVar("n");
  EXPECT_TRUE(has(deduceError("gather_nd", {tensor({2, 3}), tensor({5, n}, i64, "i")}),
                  "last dimension of indices must be a constant"));
}

TEST(OpIndex, ScatterKeepsDataAndChecksOperands) {
  Expr d = tensor({4, 3});
  EXPECT_TRUE(sameNode(deduce("scatter_elements", {d, tensor({2, 3}, i64, "i"), tensor({2, 3})},
                              {{"reduction", std::string("add")}}),
                       d->sinfo));
  EXPECT_TRUE(has(deduceError("scatter_elements", {d, tensor({2, 3}, i64, "i"), tensor({2, 2})}),
                  "updates and indices differ in dimension 1"));
  EXPECT_TRUE(has(deduceError("scatter_elements", {d, tensor({2, 3}, i64, "i"), tensor({2, 3})},
                              {{"reduction", std::string("avg")}}),
                  "reduction must be"));
  EXPECT_TRUE(
      sameNode(deduce("scatter_nd", {d, tensor({2, 1}, i64, "i"), tensor({2, 3})}), d->sinfo));
  EXPECT_TRUE(has(deduceError("scatter_nd", {d, tensor({2, 1}, i64, "i"), tensor({2})}),
                  "updates have rank 1, expected 2"));
}

TEST(OpIndex, OneHotInsertsDepthAtAxis) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(
      deduce("one_hot", {tensor({n, 2}, i64, "i")}, {{"depth", int64_t(5)}, {"dtype", f32}}),
      {n, 2, 5}));
  EXPECT_TRUE(hasShape(deduce("one_hot", {tensor({n, 2}, i64, "i")},
                              {{"depth", int64_t(5)}, {"axis", int64_t(0)}, {"dtype", i64}}),
                       {5, n, 2}, i64));
  EXPECT_TRUE(
      has(deduceError("one_hot", {tensor({2}, i64, "i")}, {{"depth", int64_t(0)}, {"dtype", f32}}),
          "depth must be >= 1"));
  // A depth given as a shape operand (symbolic: bound at run time).
  auto d = primVar("d");
  EXPECT_TRUE(hasShape(deduce("one_hot", {tensor({n, 2}, i64, "i"), make<ShapeExpr>(dims({d}))},
                              {{"axis", int64_t(1)}, {"dtype", f32}}),
                       {n, d, 2}));
  EXPECT_TRUE(has(deduceError("one_hot", {tensor({2}, i64, "i"), make<ShapeExpr>(dims({d}))},
                              {{"depth", int64_t(3)}, {"dtype", f32}}),
                  "not both"));
  EXPECT_TRUE(has(deduceError("one_hot", {tensor({2}, i64, "i"), make<ShapeExpr>(dims({d, 2}))},
                              {{"dtype", f32}}),
                  "needs 1 value"));
  EXPECT_TRUE(
      has(deduceError("one_hot", {tensor({2}, i64, "i")}, {{"dtype", f32}}), "needs the depth"));
}

TEST(OpIndex, TriluCumsumTopK) {
  auto n = primVar("n");
  Expr x = tensor({n, 4});
  EXPECT_TRUE(sameNode(deduce("trilu", {x}, {{"k", int64_t(-1)}}), x->sinfo));
  EXPECT_TRUE(has(deduceError("trilu", {tensor({4})}), "rank >= 2"));
  EXPECT_TRUE(sameNode(deduce("cumsum", {x}, {{"axis", int64_t(1)}}), x->sinfo));
  EXPECT_TRUE(has(deduceError("cumsum", {x}, {{"axis", int64_t(3)}}), "axis"));
  StructInfo t = deduce("topk", {x}, {{"k", int64_t(2)}});
  auto* tup = as<TupleSInfo>(t);
  ASSERT_TRUE(tup);
  ASSERT_EQ(tup->fields.size(), 2u);
  EXPECT_TRUE(hasShape(tup->fields[0], {n, 2}));
  EXPECT_TRUE(hasShape(tup->fields[1], {n, 2}, i64));
  EXPECT_TRUE(has(deduceError("topk", {x}, {{"k", int64_t(5)}}), "k = 5 exceeds the axis size 4"));
}

TEST(OpIndex, NllLossShapesAndErrors) {
  auto n = primVar("n");
  Expr p = tensor({n, 3, 2}), t = tensor({n, 2}, i64, "t"), w = tensor({3}, f32, "w");
  EXPECT_TRUE(hasShape(deduce("nn.nll_loss", {p, t, w}), {}));
  EXPECT_TRUE(
      hasShape(deduce("nn.nll_loss", {p, t}, {{"reduction", std::string("none")}}), {n, 2}));
  EXPECT_TRUE(
      has(deduceError("nn.nll_loss", {p, tensor({n}, i64, "t")}), "targets must have rank 2"));
  EXPECT_TRUE(has(deduceError("nn.nll_loss", {p, t, tensor({4}, f32, "w")}),
                  "weights length differs from C: 3 vs 4"));
  EXPECT_TRUE(has(deduceError("nn.nll_loss", {p, tensor({n, 2}, f32, "t")}),
                  "targets must be an integer tensor"));
  EXPECT_TRUE(has(deduceError("nn.nll_loss", {p, t}, {{"reduction", std::string("avg")}}),
                  "reduction must be none, sum or mean"));
  EXPECT_TRUE(has(deduceError("nn.nll_loss", {tensor({3}), tensor({}, i64, "t")}),
                  "predictions must be (N, C, ...)"));
}

TEST(OpIndex, EinsumShapesAndErrors) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("einsum", {tensor({n, 3}), tensor({3, 5}, f32, "y")},
                              {{"subscripts", std::string("ij,jk->ik")}}),
                       {n, 5}));
  // Implicit output: letters used once, alphabetically.
  EXPECT_TRUE(hasShape(deduce("einsum", {tensor({4, 3}), tensor({3, 5}, f32, "y")},
                              {{"subscripts", std::string("kj,ji")}}),
                       {5, 4}));
  EXPECT_TRUE(hasShape(
      deduce("einsum", {tensor({2, 3, 3})}, {{"subscripts", std::string("bii->bi")}}), {2, 3}));
  EXPECT_TRUE(has(deduceError("einsum", {tensor({2, 3}), tensor({4, 5}, f32, "y")},
                              {{"subscripts", std::string("ij,jk->ik")}}),
                  "letter 'j' has two sizes: 3 vs 4"));
  EXPECT_TRUE(has(deduceError("einsum", {tensor({2, 3})}, {{"subscripts", std::string("...i->i")}}),
                  "ellipsis"));
  EXPECT_TRUE(has(deduceError("einsum", {tensor({2, 3})}, {{"subscripts", std::string("ijk->i")}}),
                  "operand 0 has rank 2 but 'ijk' has 3 letters"));
  EXPECT_TRUE(has(deduceError("einsum", {tensor({2, 3})}, {{"subscripts", std::string("ij->z")}}),
                  "output letter 'z'"));
}
