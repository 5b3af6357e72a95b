// Struct-info deduction per operator family: constant, symbolic, unknown
// shapes, and the errors (with operator name and operand shapes).
#include "op_test_util.h"

#include "engine/op/sinfo_util.h"

using namespace optest;
using unity::op::sinfoStr;

namespace {
const DataType f32 = DataType::Float32();
const DataType i64 = DataType::Int64();
const DataType boolT = DataType::Bool();
} // namespace

// ------------------------------------------------------------- elementwise

TEST(OpElementwise, UnaryKeepsStructInfo) {
  auto n = primVar("n");
  for (const char* name : {"abs", "exp", "nn.relu", "nn.gelu", "sigmoid", "negative", "rsqrt"}) {
    Expr x = tensor({n, 4});
    StructInfo s = deduce(name, {x});
    EXPECT_TRUE(sameNode(s, x->sinfo)) << name;
  }
  EXPECT_TRUE(hasShape(deduce("clip", {tensor({3})}, {{"min", 0.0}, {"max", 6.0}}), {3}));
  EXPECT_TRUE(hasShape(deduce("nn.leakyrelu", {tensor({3})}, {{"alpha", 0.2}}), {3}));
}

TEST(OpElementwise, FloatOnlyOpsRejectIntegers) {
  std::string msg = deduceError("exp", {tensor({2, 3}, DataType::Int32())});
  EXPECT_NE(msg.find("R.exp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((2, 3), int32)"), std::string::npos) << msg;
  EXPECT_EQ(deduceError("abs", {tensor({2, 3}, DataType::Int32())}), "");
}

TEST(OpElementwise, BroadcastTable) {
  auto n = primVar("n"), m = primVar("m");
  struct Case {
    std::vector<Expr> args;
    std::initializer_list<Dim> expected;
  };
  // Hand-written numpy broadcasting results.
  EXPECT_TRUE(hasShape(deduce("add", {tensor({2, 3}), tensor({2, 3})}), {2, 3}));
  EXPECT_TRUE(hasShape(deduce("add", {tensor({4, 1, 3}), tensor({5, 1})}), {4, 5, 3}));
  EXPECT_TRUE(hasShape(deduce("multiply", {tensor({3}), tensor({2, 1})}), {2, 3}));
  EXPECT_TRUE(hasShape(deduce("subtract", {tensor({n, 1}), tensor({1, 8})}), {n, 8}));
  EXPECT_TRUE(hasShape(deduce("divide", {tensor({n, m}), tensor({n, 1})}), {n, m}));
  EXPECT_TRUE(hasShape(deduce("maximum", {tensor({n * 2}), tensor({n + n})}), {n * 2}));
  EXPECT_TRUE(hasShape(deduce("power", {tensor({}), tensor({7})}), {7}));
}

TEST(OpElementwise, ComparisonsAndLogicGiveBool) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("less", {tensor({n, 3}), tensor({3})}), {n, 3}, boolT));
  EXPECT_TRUE(hasShape(deduce("greater_equal", {tensor({2}), tensor({2})}), {2}, boolT));
  EXPECT_TRUE(
      hasShape(deduce("logical_and", {tensor({2}, boolT), tensor({1}, boolT)}), {2}, boolT));
  EXPECT_NE(deduceError("logical_or", {tensor({2}), tensor({2})}).find("bool"), std::string::npos);
  EXPECT_TRUE(hasShape(deduce("where", {tensor({4, 1}, boolT), tensor({3}), tensor({1})}), {4, 3}));
  EXPECT_NE(deduceError("where", {tensor({4}), tensor({4}), tensor({4})}).find("condition"),
            std::string::npos);
}

TEST(OpElementwise, BroadcastErrorsNameOpAndOperands) {
  auto n = primVar("n"), m = primVar("m");
  std::string msg = deduceError("add", {tensor({2, 3}), tensor({4})});
  EXPECT_NE(msg.find("R.add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot broadcast"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((2, 3), float32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((4,), float32)"), std::string::npos) << msg;

  msg = deduceError("multiply", {tensor({n, 3}), tensor({m, 3})});
  EXPECT_NE(msg.find("cannot broadcast"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((n, 3), float32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((m, 3), float32)"), std::string::npos) << msg;

  msg = deduceError("add", {tensor({2}), tensor({2}, i64)});
  EXPECT_NE(msg.find("dtypes differ"), std::string::npos) << msg;
}

TEST(OpElementwise, UnknownShapesPropagate) {
  StructInfo s = deduce("add", {tensorRank(2), tensor({3})});
  auto* t = as<TensorSInfo>(s);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ndim, 2);
  EXPECT_FALSE(t->hasShape());
  s = deduce("add", {tensorRank(-1), tensor({3})});
  EXPECT_EQ(as<TensorSInfo>(s)->ndim, -1);
}

TEST(OpElementwise, Astype) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("astype", {tensor({n, 2})}, {{"dtype", DataType::Float(16)}}), {n, 2},
                       DataType::Float(16)));
  EXPECT_TRUE(hasShape(deduce("astype", {tensor({2})}, {{"dtype", std::string("int8")}}), {2},
                       DataType::Int(8)));
  EXPECT_NE(deduceError("astype", {tensor({2})}).find("missing required attribute 'dtype'"),
            std::string::npos);
}

// ----------------------------------------------------------------- schema

TEST(OpSchema, ArgCountAttrNamesAndTypesAreChecked) {
  std::string msg = deduceError("add", {tensor({2})});
  EXPECT_NE(msg.find("R.add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expects 2 operands, got 1"), std::string::npos) << msg;

  msg = deduceError("nn.softmax", {tensor({2, 3})}, {{"axes", int64_t(1)}});
  EXPECT_NE(msg.find("unknown attribute 'axes'"), std::string::npos) << msg;

  msg = deduceError("nn.softmax", {tensor({2, 3})}, {{"axis", std::string("last")}});
  EXPECT_NE(msg.find("attribute 'axis' must be of type int"), std::string::npos) << msg;

  msg = deduceError("sum", {tensor({2, 3})}, {{"keepdims", 2.5}});
  EXPECT_NE(msg.find("'keepdims' must be of type bool"), std::string::npos) << msg;

  msg = deduceError("no_such_op", {tensor({2})});
  EXPECT_NE(msg.find("unknown operator"), std::string::npos) << msg;

  msg = deduceError("exp", {makeVar("s", shapeSInfo(dims({2})))});
  EXPECT_NE(msg.find("must be a tensor"), std::string::npos) << msg;
}

TEST(OpSchema, ErrorsCarryTheSpanLocation) {
  Expr c = op::callOp("add", {tensor({2}), tensor({3})});
  Span span{"model.ir", 12, 7, {}};
  try {
    op::deduceStructInfo(*as<Call>(c), span);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.loc().file, "model.ir");
    EXPECT_EQ(e.loc().line, 12);
    EXPECT_EQ(e.loc().column, 7);
  }
}

// ---------------------------------------------------------------- matmul

TEST(OpMatmul, ShapesTable) {
  auto n = primVar("n"), b = primVar("b");
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({n, 784}), tensor({784, 128})}), {n, 128}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({b, 4, 5}), tensor({5, 6})}), {b, 4, 6}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({2, 1, 4, 5}), tensor({3, 5, 6})}), {2, 3, 4, 6}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({5}), tensor({5, 6})}), {6}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({4, 5}), tensor({5})}), {4}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({5}), tensor({5})}), {}));
  EXPECT_TRUE(hasShape(deduce("matmul", {tensor({2, 3}), tensor({3, 4})}, {{"out_dtype", i64}}),
                       {2, 4}, i64));
}

TEST(OpMatmul, MismatchedReductionIsAnError) {
  std::string msg = deduceError("matmul", {tensor({4, 5}), tensor({6, 7})});
  EXPECT_NE(msg.find("R.matmul"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reduction dimensions differ: 5 vs 6"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((4, 5), float32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((6, 7), float32)"), std::string::npos) << msg;
}

TEST(OpMatmul, DenseAndLinear) {
  auto n = primVar("n");
  for (const char* name : {"nn.dense", "linear"}) {
    EXPECT_TRUE(hasShape(deduce(name, {tensor({n, 784}), tensor({128, 784})}), {n, 128})) << name;
    EXPECT_TRUE(
        hasShape(deduce(name, {tensor({2, n, 16}), tensor({8, 16}), tensor({8})}), {2, n, 8}))
        << name;
    EXPECT_NE(deduceError(name, {tensor({n, 10}), tensor({128, 784})}).find("input units differ"),
              std::string::npos);
    EXPECT_NE(deduceError(name, {tensor({1, 4}), tensor({8, 4}), tensor({7})}).find("bias"),
              std::string::npos);
  }
}

// ------------------------------------------------------------ convolution

TEST(OpConv, Conv2dConstantShapes) {
  // 1x3x224x224, 64x3x7x7, stride 2, pad 3: (224 + 6 - 7) // 2 + 1 = 112.
  Attrs a{{"strides", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{3, 3, 3, 3}}};
  EXPECT_TRUE(hasShape(deduce("nn.conv2d", {tensor({1, 3, 224, 224}), tensor({64, 3, 7, 7})}, a),
                       {1, 64, 112, 112}));
  // No padding, dilation 2: 32 - 2*(3-1) = 28.
  EXPECT_TRUE(hasShape(deduce("nn.conv2d", {tensor({1, 8, 32, 32}), tensor({4, 8, 3, 3})},
                              {{"dilation", std::vector<int64_t>{2, 2}}}),
                       {1, 4, 28, 28}));
  // Groups: depthwise 32 channels, weight (32, 1, 3, 3), asymmetric padding [1, 0, 1, 0].
  EXPECT_TRUE(
      hasShape(deduce("nn.conv2d", {tensor({1, 32, 10, 10}), tensor({32, 1, 3, 3})},
                      {{"groups", int64_t(32)}, {"padding", std::vector<int64_t>{1, 0, 1, 0}}}),
               {1, 32, 10, 8}));
  EXPECT_TRUE(hasShape(deduce("nn.conv1d", {tensor({2, 4, 20}), tensor({6, 4, 5})},
                              {{"strides", std::vector<int64_t>{3}}}),
                       {2, 6, 6}));
}

TEST(OpConv, Conv2dSymbolicShapes) {
  auto n = primVar("n"), h = primVar("h"), w = primVar("w");
  // Stride 1, pad 1, kernel 3: spatial dims unchanged, exactly h and w.
  StructInfo s = deduce("nn.conv2d", {tensor({n, 3, h, w}), tensor({16, 3, 3, 3})},
                        {{"padding", std::vector<int64_t>{1, 1, 1, 1}}});
  ASSERT_TRUE(hasShape(s, {n, 16, h, w}));
  auto* t = as<TensorSInfo>(s);
  EXPECT_TRUE(sameNode((*t->shape)[2], h)) << "not simplified to h";
  // Stride 2 without padding: floordiv(h - 3, 2) + 1.
  s = deduce("nn.conv2d", {tensor({n, 3, h, w}), tensor({16, 3, 3, 3})},
             {{"strides", std::vector<int64_t>{2, 2}}});
  EXPECT_TRUE(hasShape(s, {n, 16, floordiv(h - 3, intImm(2)) + 1, floordiv(w - 3, intImm(2)) + 1}));
}

TEST(OpConv, Conv2dErrors) {
  std::string msg = deduceError("nn.conv2d", {tensor({1, 3, 8, 8}), tensor({4, 5, 3, 3})});
  EXPECT_NE(msg.find("R.nn.conv2d"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input channels"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((1, 3, 8, 8), float32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tensor((4, 5, 3, 3), float32)"), std::string::npos) << msg;

  msg = deduceError("nn.conv2d", {tensor({3, 8, 8}), tensor({4, 3, 3, 3})});
  EXPECT_NE(msg.find("rank 4, got 3"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 3, 2, 2}), tensor({4, 3, 3, 3})});
  EXPECT_NE(msg.find("larger than the padded input"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 3, 8, 8}), tensor({4, 3, 3, 3})},
                    {{"data_layout", std::string("NHWC")}});
  EXPECT_NE(msg.find("NCHW"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 3, 8, 8}), tensor({4, 3, 3, 3})},
                    {{"padding", std::vector<int64_t>{1, 1, 1}}});
  EXPECT_NE(msg.find("'padding' needs"), std::string::npos) << msg;
}

TEST(OpConv, Conv2dWinograd) {
  // F(4x4, 3x3): weight [36, C, K], matrices [10, 6]; a 3x3 window.
  Attrs pad{{"padding", std::vector<int64_t>{1, 1, 1, 1}}};
  EXPECT_TRUE(hasShape(deduce("nn.conv2d_winograd",
                              {tensor({2, 8, 14, 13}), tensor({36, 8, 16}), tensor({10, 6})}, pad),
                       {2, 16, 14, 13}));
  EXPECT_TRUE(hasShape(
      deduce("nn.conv2d_winograd", {tensor({1, 8, 14, 13}), tensor({16, 8, 4}), tensor({6, 4})}),
      {1, 4, 12, 11}));
  std::string msg = deduceError("nn.conv2d_winograd",
                                {tensor({1, 8, 14, 14}), tensor({36, 8, 16}), tensor({9, 6})});
  EXPECT_NE(msg.find("R.nn.conv2d_winograd"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2a - 2, a]"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d_winograd",
                    {tensor({1, 8, 14, 14}), tensor({16, 8, 16}), tensor({10, 6})});
  EXPECT_NE(msg.find("a * a = 36"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d_winograd",
                    {tensor({1, 4, 14, 14}), tensor({36, 8, 16}), tensor({10, 6})});
  EXPECT_NE(msg.find("input channels"), std::string::npos) << msg;
  msg =
      deduceError("nn.conv2d_winograd", {tensor({1, 8, 14, 14}), tensor({36, 8}), tensor({10, 6})});
  EXPECT_NE(msg.find("rank 3, got 2"), std::string::npos) << msg;
}

TEST(OpConv, Conv2dPackedKernelLayout) {
  // OIHW16o: weight [O / 16, I, KH, KW, 16], O = 2 * 16.
  Attrs a{{"kernel_layout", std::string("OIHW16o")}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}};
  EXPECT_TRUE(hasShape(deduce("nn.conv2d", {tensor({1, 8, 14, 14}), tensor({2, 8, 3, 3, 16})}, a),
                       {1, 32, 14, 14}));
  EXPECT_EQ(op::packedKernelBlock("OIHW16o"), 16);
  EXPECT_EQ(op::packedKernelBlock("OIHW"), 0);
  EXPECT_EQ(op::packedKernelBlock("OIHW0o"), 0);
  EXPECT_EQ(op::packedKernelBlock("OIHWxo"), 0);
  // The last dimension must be the block, the rank 5, groups 1.
  std::string msg = deduceError("nn.conv2d", {tensor({1, 8, 14, 14}), tensor({2, 8, 3, 3, 8})}, a);
  EXPECT_NE(msg.find("block 16"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 8, 14, 14}), tensor({32, 8, 3, 3})}, a);
  EXPECT_NE(msg.find("rank 5"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 8, 14, 14}), tensor({2, 4, 3, 3, 16})},
                    a.with("groups", int64_t(2)));
  EXPECT_NE(msg.find("groups = 1"), std::string::npos) << msg;
  msg = deduceError("nn.conv2d", {tensor({1, 8, 14, 14}), tensor({2, 8, 3, 3, 16})},
                    a.with("kernel_layout", std::string("HWIO")));
  EXPECT_NE(msg.find("OIHW<b>o"), std::string::npos) << msg;
}

TEST(OpConv, Conv2dTranspose) {
  // (8 - 1) * 2 - 2 + 1 * (3 - 1) + 1 + 1 = 16.
  EXPECT_TRUE(hasShape(deduce("nn.conv2d_transpose", {tensor({1, 4, 8, 8}), tensor({4, 2, 3, 3})},
                              {{"strides", std::vector<int64_t>{2, 2}},
                               {"padding", std::vector<int64_t>{1, 1, 1, 1}},
                               {"output_padding", std::vector<int64_t>{1, 1}}}),
                       {1, 2, 16, 16}));
  auto h = primVar("h");
  EXPECT_TRUE(hasShape(deduce("nn.conv2d_transpose", {tensor({1, 4, h, 5}), tensor({4, 2, 3, 3})}),
                       {1, 2, h + 2, 7}));
}

TEST(OpPool, PoolingShapes) {
  Attrs a{{"pool_size", std::vector<int64_t>{3, 3}},
          {"strides", std::vector<int64_t>{2, 2}},
          {"padding", std::vector<int64_t>{1, 1, 1, 1}}};
  // (112 + 2 - 3) // 2 + 1 = 56.
  EXPECT_TRUE(hasShape(deduce("nn.max_pool2d", {tensor({1, 64, 112, 112})}, a), {1, 64, 56, 56}));
  // 7x7 input, 2x2 windows, stride 2: floor 3, ceil 4.
  Attrs b{{"pool_size", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_TRUE(hasShape(deduce("nn.avg_pool2d", {tensor({1, 1, 7, 7})}, b), {1, 1, 3, 3}));
  EXPECT_TRUE(hasShape(deduce("nn.avg_pool2d", {tensor({1, 1, 7, 7})}, b.with("ceil_mode", true)),
                       {1, 1, 4, 4}));
  EXPECT_TRUE(hasShape(deduce("nn.global_avg_pool2d", {tensor({2, 8, 7, 7})}), {2, 8, 1, 1}));
  EXPECT_TRUE(hasShape(deduce("nn.adaptive_avg_pool2d", {tensor({2, 8, 7, 7})},
                              {{"output_size", std::vector<int64_t>{3, 2}}}),
                       {2, 8, 3, 2}));
  EXPECT_NE(deduceError("nn.max_pool2d", {tensor({1, 1, 7, 7})}).find("'pool_size'"),
            std::string::npos);
}

TEST(OpPool, Pooling3dShapes) {
  // (8 + 1 + 1 - 3) // 2 + 1 = 4 per axis; depth 5 without padding: 2.
  Attrs a{{"pool_size", std::vector<int64_t>{3, 3, 3}},
          {"strides", std::vector<int64_t>{2, 2, 2}},
          {"padding", std::vector<int64_t>{0, 1, 1, 0, 1, 1}},
          {"layout", std::string("NCDHW")}};
  EXPECT_TRUE(hasShape(deduce("nn.max_pool3d", {tensor({2, 3, 5, 8, 8})}, a), {2, 3, 2, 4, 4}));
  // 2-tap windows, stride 2 over (5, 4, 3): floor (2, 2, 1), ceil (3, 2, 2).
  Attrs b{{"pool_size", std::vector<int64_t>{2, 2, 2}},
          {"strides", std::vector<int64_t>{2, 2, 2}},
          {"layout", std::string("NCDHW")}};
  EXPECT_TRUE(hasShape(deduce("nn.avg_pool3d", {tensor({1, 1, 5, 4, 3})}, b), {1, 1, 2, 2, 1}));
  EXPECT_TRUE(
      hasShape(deduce("nn.avg_pool3d", {tensor({1, 1, 5, 4, 3})}, b.with("ceil_mode", true)),
               {1, 1, 3, 2, 2}));
  // Dilation 2 widens a 2-tap window to 3: (7 - 3) // 1 + 1 = 5.
  EXPECT_TRUE(hasShape(
      deduce("nn.max_pool2d", {tensor({1, 1, 7, 7})},
             {{"pool_size", std::vector<int64_t>{2, 2}}, {"dilation", std::vector<int64_t>{2, 2}}}),
      {1, 1, 5, 5}));
  std::string msg = deduceError("nn.max_pool3d", {tensor({1, 1, 7, 7})}, a);
  EXPECT_NE(msg.find("rank 5, got 4"), std::string::npos) << msg;
  msg =
      deduceError("nn.avg_pool3d", {tensor({1, 1, 4, 4, 4})},
                  {{"pool_size", std::vector<int64_t>{2, 2, 2}}, {"layout", std::string("NCHW")}});
  EXPECT_NE(msg.find("only layout \"NCDHW\""), std::string::npos) << msg;
  msg =
      deduceError("nn.max_pool3d", {tensor({1, 1, 2, 2, 2})},
                  {{"pool_size", std::vector<int64_t>{3, 3, 3}}, {"layout", std::string("NCDHW")}});
  EXPECT_NE(msg.find("larger than the padded input"), std::string::npos) << msg;
}

TEST(OpConv, Conv3dShapesAndErrors) {
  auto d = primVar("d");
  // (d + 2 - 3) // 1 + 1 = d; (8 - 3) // 2 + 1 = 3.
  StructInfo s = deduce("nn.conv3d", {tensor({1, 4, d, 8, 8}), tensor({6, 2, 3, 3, 3})},
                        {{"strides", std::vector<int64_t>{1, 2, 2}},
                         {"padding", std::vector<int64_t>{1, 0, 0, 1, 0, 0}},
                         {"groups", int64_t(2)},
                         {"data_layout", std::string("NCDHW")},
                         {"kernel_layout", std::string("OIDHW")}});
  EXPECT_TRUE(hasShape(s, {1, 6, d, 3, 3}));
  // Transposed: (4 - 1) * 2 - 0 + (3 - 1) + 1 = 9 per axis.
  EXPECT_TRUE(
      hasShape(deduce("nn.conv3d_transpose", {tensor({1, 2, 4, 4, 4}), tensor({2, 5, 3, 3, 3})},
                      {{"strides", std::vector<int64_t>{2, 2, 2}},
                       {"data_layout", std::string("NCDHW")},
                       {"kernel_layout", std::string("IODHW")}}),
               {1, 5, 9, 9, 9}));
  std::string msg =
      deduceError("nn.conv3d", {tensor({1, 3, 4, 4, 4}), tensor({2, 4, 3, 3, 3})},
                  {{"data_layout", std::string("NCDHW")}, {"kernel_layout", std::string("OIDHW")}});
  EXPECT_NE(msg.find("input channels"), std::string::npos) << msg;
  msg =
      deduceError("nn.conv3d", {tensor({1, 3, 4, 4}), tensor({2, 3, 3, 3, 3})},
                  {{"data_layout", std::string("NCDHW")}, {"kernel_layout", std::string("OIDHW")}});
  EXPECT_NE(msg.find("rank 5, got 4"), std::string::npos) << msg;
}

TEST(OpNorm, NormalizationAndSoftmax) {
  auto n = primVar("n");
  Expr x = tensor({n, 16, 8, 8});
  StructInfo s =
      deduce("nn.batch_norm", {x, tensor({16}), tensor({16}), tensor({16}), tensor({16})});
  EXPECT_TRUE(sameNode(s, x->sinfo));
  std::string msg =
      deduceError("nn.batch_norm", {x, tensor({15}), tensor({16}), tensor({16}), tensor({16})});
  EXPECT_NE(msg.find("gamma size differs"), std::string::npos) << msg;

  Expr y = tensor({n, 10, 32});
  EXPECT_TRUE(sameNode(deduce("nn.layer_norm", {y, tensor({32}), tensor({32})},
                              {{"axes", std::vector<int64_t>{-1}}}),
                       y->sinfo));
  msg = deduceError("nn.layer_norm", {y, tensor({10}), tensor({32})},
                    {{"axes", std::vector<int64_t>{-1}}});
  EXPECT_NE(msg.find("gamma dimension 0"), std::string::npos) << msg;

  EXPECT_TRUE(sameNode(deduce("nn.softmax", {y}, {{"axis", int64_t(1)}}), y->sinfo));
  msg = deduceError("nn.log_softmax", {y}, {{"axis", int64_t(3)}});
  EXPECT_NE(msg.find("axis 3 is out of range"), std::string::npos) << msg;
}

// ------------------------------------------------------------ reductions

TEST(OpReduce, ReductionTable) {
  auto n = primVar("n");
  Expr x = tensor({n, 3, 4});
  EXPECT_TRUE(hasShape(deduce("sum", {x}, {{"axis", std::vector<int64_t>{1}}}), {n, 4}));
  EXPECT_TRUE(hasShape(deduce("mean", {x}, {{"axis", std::vector<int64_t>{-1, 0}}}), {3}));
  EXPECT_TRUE(hasShape(deduce("max", {x}, {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}}),
                       {n, 1, 4}));
  EXPECT_TRUE(hasShape(deduce("prod", {x}), {}));
  EXPECT_TRUE(hasShape(deduce("min", {x}, {{"keepdims", true}}), {1, 1, 1}));
  EXPECT_TRUE(hasShape(deduce("argmax", {x}, {{"axis", int64_t(2)}}), {n, 3}, i64));
  EXPECT_TRUE(hasShape(deduce("argmin", {x}), {}, i64));
  std::string msg = deduceError("sum", {x}, {{"axis", std::vector<int64_t>{1, 1}}});
  EXPECT_NE(msg.find("repeated"), std::string::npos) << msg;
  msg = deduceError("sum", {x}, {{"axis", std::vector<int64_t>{3}}});
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
}

// --------------------------------------------------------- manipulation

TEST(OpManip, ReshapeInfersMinusOne) {
  auto n = primVar("n");
  Expr x = tensor({n, 4, 6});
  EXPECT_TRUE(hasShape(deduce("reshape", {x, make<ShapeExpr>(dims({n * 2, -1}))}), {n * 2, 12}));
  EXPECT_TRUE(hasShape(deduce("reshape", {x, make<ShapeExpr>(dims({-1, 6}))}), {n * 4, 6}));
  EXPECT_TRUE(
      hasShape(deduce("reshape", {tensor({2, 3, 4}), make<ShapeExpr>(dims({4, -1}))}), {4, 6}));
  EXPECT_TRUE(hasShape(deduce("reshape", {tensor({2, 3, 4}), make<ShapeExpr>(dims({24}))}), {24}));
  std::string msg = deduceError("reshape", {tensor({2, 3, 4}), make<ShapeExpr>(dims({5, 5}))});
  EXPECT_NE(msg.find("element count differs: 24 vs 25"), std::string::npos) << msg;
  msg = deduceError("reshape", {tensor({2, 3, 4}), make<ShapeExpr>(dims({5, -1}))});
  EXPECT_NE(msg.find("cannot infer -1"), std::string::npos) << msg;
  msg = deduceError("reshape", {tensor({6}), make<ShapeExpr>(dims({-1, -1}))});
  EXPECT_NE(msg.find("more than one -1"), std::string::npos) << msg;
}

TEST(OpManip, PermuteConcatSplit) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("permute_dims", {tensor({n, 2, 3})}), {3, 2, n}));
  EXPECT_TRUE(hasShape(
      deduce("permute_dims", {tensor({n, 2, 3})}, {{"axes", std::vector<int64_t>{0, 2, 1}}}),
      {n, 3, 2}));
  EXPECT_NE(deduceError("permute_dims", {tensor({n, 2, 3})}, {{"axes", std::vector<int64_t>{0, 1}}})
                .find("axes has 2 entries"),
            std::string::npos);

  Expr tup =
      make<Tuple>(std::vector<Expr>{tensor({n, 2}), tensor({n, 5})},
                  tupleSInfo({tensorSInfo(f32, dims({n, 2})), tensorSInfo(f32, dims({n, 5}))}));
  EXPECT_TRUE(hasShape(deduce("concat", {tup}, {{"axis", int64_t(1)}}), {n, 7}));
  std::string msg = deduceError("concat", {tup}, {{"axis", int64_t(0)}});
  EXPECT_NE(msg.find("differs in dimension 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Tuple(Tensor((n, 2), float32), Tensor((n, 5), float32))"), std::string::npos)
      << msg;

  StructInfo s = deduce("split", {tensor({n, 12})},
                        {{"indices_or_sections", int64_t(3)}, {"axis", int64_t(1)}});
  auto* ts = as<TupleSInfo>(s);
  ASSERT_NE(ts, nullptr);
  ASSERT_EQ(ts->fields.size(), 3u);
  for (auto& f : ts->fields)
    EXPECT_TRUE(hasShape(f, {n, 4}));
  s = deduce("split", {tensor({10, n})}, {{"indices_or_sections", std::vector<int64_t>{2, 7}}});
  ts = as<TupleSInfo>(s);
  ASSERT_EQ(ts->fields.size(), 3u);
  EXPECT_TRUE(hasShape(ts->fields[0], {2, n}));
  EXPECT_TRUE(hasShape(ts->fields[1], {5, n}));
  EXPECT_TRUE(hasShape(ts->fields[2], {3, n}));
  EXPECT_NE(deduceError("split", {tensor({10})}, {{"indices_or_sections", int64_t(3)}})
                .find("equal sections"),
            std::string::npos);
}

TEST(OpManip, SliceTakeSqueezeExpand) {
  auto n = primVar("n");
  Attrs sl{{"axes", std::vector<int64_t>{1}},
           {"begin", std::vector<int64_t>{1}},
           {"end", std::vector<int64_t>{8}},
           {"strides", std::vector<int64_t>{2}}};
  // indices 1, 3, 5, 7 of 10 -> 4; clamped end on a size-5 axis: 1, 3 -> 2.
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({n, 10})}, sl), {n, 4}));
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({n, 5})}, sl), {n, 2}));
  Attrs neg{{"axes", std::vector<int64_t>{0}},
            {"begin", std::vector<int64_t>{-1}},
            {"end", std::vector<int64_t>{-11}},
            {"strides", std::vector<int64_t>{-1}}};
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({10})}, neg), {10})); // reversal
  Attrs huge{{"axes", std::vector<int64_t>{0}},
             {"begin", std::vector<int64_t>{0}},
             {"end", std::vector<int64_t>{10}},
             {"strides", std::vector<int64_t>{INT64_MAX}}};
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({10})}, huge), {1})); // no overflow
  Attrs sym{{"axes", std::vector<int64_t>{0}},
            {"begin", std::vector<int64_t>{2}},
            {"end", std::vector<int64_t>{int64_t(1) << 40}}};
  // Bounds clamp on a symbolic dim as on a constant one: for n < 2 the
  // slice is empty, never negative.
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({n})}, sym),
                       {ir::max(n - ir::min(n, intImm(2)), intImm(0))}));
  // ONNX's "to the end" is INT32_MAX as often as INT64_MAX.
  Attrs toEnd{{"axes", std::vector<int64_t>{0}},
              {"begin", std::vector<int64_t>{0}},
              {"end", std::vector<int64_t>{INT32_MAX}}};
  EXPECT_TRUE(hasShape(deduce("strided_slice", {tensor({n, 3})}, toEnd), {n, 3}));

  EXPECT_TRUE(
      hasShape(deduce("take", {tensor({n, 5, 6}), tensor({3, 2}, i64)}, {{"axis", int64_t(1)}}),
               {n, 3, 2, 6}));
  EXPECT_NE(deduceError("take", {tensor({4}), tensor({2})}).find("integer"), std::string::npos);

  EXPECT_TRUE(hasShape(deduce("squeeze", {tensor({1, n, 1})}, {{"axis", std::vector<int64_t>{0}}}),
                       {n, 1}));
  EXPECT_TRUE(hasShape(deduce("squeeze", {tensor({1, 4, 1})}), {4}));
  EXPECT_NE(
      deduceError("squeeze", {tensor({2, 4})}, {{"axis", std::vector<int64_t>{0}}}).find("size 2"),
      std::string::npos);
  EXPECT_TRUE(
      hasShape(deduce("expand_dims", {tensor({n, 4})}, {{"axis", std::vector<int64_t>{0, -1}}}),
               {1, n, 4, 1}));
}

TEST(OpManip, BroadcastToFlattenPadResize) {
  auto n = primVar("n");
  EXPECT_TRUE(hasShape(deduce("broadcast_to", {tensor({1, 4}), make<ShapeExpr>(dims({n, 3, 4}))}),
                       {n, 3, 4}));
  EXPECT_NE(deduceError("broadcast_to", {tensor({2, 4}), make<ShapeExpr>(dims({3, 4}))})
                .find("cannot broadcast"),
            std::string::npos);
  EXPECT_TRUE(hasShape(deduce("flatten", {tensor({n, 3, 4})}), {n * 12}));
  EXPECT_TRUE(hasShape(deduce("nn.batch_flatten", {tensor({n, 3, 4})}), {n, 12}));
  EXPECT_TRUE(hasShape(
      deduce("nn.pad", {tensor({n, 3})}, {{"pad_width", std::vector<int64_t>{0, 0, 1, 2}}}),
      {n, 6}));
  EXPECT_NE(deduceError("nn.pad", {tensor({n, 3})}, {{"pad_width", std::vector<int64_t>{1, 1}}})
                .find("needs 4"),
            std::string::npos);
  EXPECT_TRUE(hasShape(
      deduce("image.resize2d", {tensor({n, 3, 10, 10})},
             {{"size", std::vector<int64_t>{20, 30}}, {"method", std::string("nearest_neighbor")}}),
      {n, 3, 20, 30}));
  EXPECT_NE(deduceError("image.resize2d", {tensor({1, 3, 4, 4})},
                        {{"size", std::vector<int64_t>{8, 8}}, {"method", std::string("bilinear")}})
                .find("method"),
            std::string::npos);
  // Explicit scales only change the coordinate mapping, not the shape.
  EXPECT_TRUE(hasShape(deduce("image.resize2d", {tensor({1, 3, 4, 5})},
                              {{"size", std::vector<int64_t>{2, 3}},
                               {"method", std::string("cubic")},
                               {"scales", std::vector<double>{0.6, 0.6}}}),
                       {1, 3, 2, 3}));
  std::string msg = deduceError(
      "image.resize2d", {tensor({1, 3, 4, 4})},
      {{"size", std::vector<int64_t>{2, 2}}, {"scales", std::vector<double>{0.5, -0.5}}});
  EXPECT_NE(msg.find("'scales' must be positive"), std::string::npos) << msg;
  msg = deduceError("image.resize2d", {tensor({1, 3, 4, 4})},
                    {{"size", std::vector<int64_t>{2, 2}}, {"scales", std::vector<double>{0.5}}});
  EXPECT_NE(msg.find("'scales' needs 2 values"), std::string::npos) << msg;
  msg = deduceError("image.resize2d", {tensor({1, 3, 4, 4})},
                    {{"size", std::vector<int64_t>{2, 2}},
                     {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}});
  EXPECT_NE(msg.find("needs attribute 'roi'"), std::string::npos) << msg;
  // Operand 2: scales (2 values) or, with tf_crop_and_resize, the crop box
  // (4 values), read at run time; the size comes from operand 1.
  auto h = primVar("h"), w = primVar("w");
  EXPECT_TRUE(hasShape(deduce("image.resize2d",
                              {tensor({1, 3, 4, 4}), make<ShapeExpr>(dims({h, w})), tensor({2})},
                              {{"method", std::string("cubic")}}),
                       {1, 3, h, w}));
  EXPECT_TRUE(hasShape(
      deduce("image.resize2d", {tensor({1, 3, 4, 4}), make<ShapeExpr>(dims({3, 3})), tensor({4})},
             {{"coordinate_transformation_mode", std::string("tf_crop_and_resize")}}),
      {1, 3, 3, 3}));
  msg = deduceError("image.resize2d",
                    {tensor({1, 3, 4, 4}), make<ShapeExpr>(dims({h, w})), tensor({4})});
  EXPECT_NE(msg.find("needs 2 values, got 4"), std::string::npos) << msg;
  msg = deduceError("image.resize2d", {tensor({1, 3, 4, 4}), make<ShapeExpr>(dims({h, w})),
                                       tensor({2}, DataType::Int64())});
  EXPECT_NE(msg.find("must be a float tensor"), std::string::npos) << msg;
  msg = deduceError("image.resize2d",
                    {tensor({1, 3, 4, 4}), make<ShapeExpr>(dims({h, w})), tensor({2})},
                    {{"scales", std::vector<double>{2.0, 2.0}}});
  EXPECT_NE(msg.find("not both"), std::string::npos) << msg;
}

// ------------------------------------------------------------- lowering

TEST(OpLowering, CallTirTakesItsDeclaredOutput) {
  auto n = primVar("n");
  Expr args =
      make<Tuple>(std::vector<Expr>{tensor({n, 4})}, tupleSInfo({tensorSInfo(f32, dims({n, 4}))}));
  StructInfo out = tensorSInfo(f32, dims({n, 4}));
  StructInfo s = deduce("call_tir", {make<GlobalVar>("relu_kernel"), args}, {}, {out});
  EXPECT_TRUE(sameNode(s, out));
  std::string msg = deduceError("call_tir", {make<GlobalVar>("k"), args});
  EXPECT_NE(msg.find("exactly one output"), std::string::npos) << msg;
  msg = deduceError("call_tir", {tensor({2}), args}, {}, {out});
  EXPECT_NE(msg.find("GlobalVar"), std::string::npos) << msg;
  Expr lib = make<ExternFunc>("cblas_sgemm");
  EXPECT_TRUE(sameNode(deduce("call_dps_library", {lib, args}, {}, {out}), out));
  msg = deduceError("call_dps_library", {lib, args}, {}, {shapeSInfo(dims({2}))});
  EXPECT_NE(msg.find("tensor or a tuple of tensors"), std::string::npos) << msg;
}

// ----------------------------------------------------------- printing

TEST(OpSInfoStr, PrintsStructInfo) {
  auto n = primVar("n");
  EXPECT_EQ(sinfoStr(tensorSInfo(f32, dims({n, 128}))), "Tensor((n, 128), float32)");
  EXPECT_EQ(sinfoStr(tensorSInfo(f32, dims({n * 2 + 1}))), "Tensor((n * 2 + 1,), float32)");
  EXPECT_EQ(sinfoStr(tensorSInfo(i64, 3)), "Tensor(ndim=3, int64)");
  EXPECT_EQ(sinfoStr(tupleSInfo({tensorSInfo(f32, dims({2})), objectSInfo()})),
            "Tuple(Tensor((2,), float32), Object)");
  EXPECT_EQ(op::primExprStr(floordiv(n - 3, intImm(2)) + 1), "floordiv(n - 3, 2) + 1");
  EXPECT_EQ(op::primExprStr(n * (n + 1)), "n * (n + 1)");
}
