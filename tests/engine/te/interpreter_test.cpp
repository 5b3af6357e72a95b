// The reference interpreter on hand-built PrimFuncs: arithmetic semantics,
// shape binding, and each checked failure.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/support/error.h"
#include "engine/te/interpreter.h"

using namespace unity;
using namespace unity::ir;

namespace {

// out[0] = value (with no loads), in a function of one int buffer.
PrimFuncRef scalarFunc(PrimExpr value) {
  auto out = makeBuffer("out", value->dtype, {intImm(1)});
  Stmt body = make<BufferStore>(out, value, std::vector<PrimExpr>{intImm(0)});
  return make<PrimFunc>(std::vector<PrimFunc::Param>{{out, nullptr}}, body);
}

double run(PrimExpr value) {
  unity::Tensor out(value->dtype, {1});
  te::interpretPrimFunc(scalarFunc(value), {&out});
  return out.getDouble(0);
}

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(TeInterpreter, IntegerDivisionAndWrapAround) {
  EXPECT_EQ(run(intImm(-7) / intImm(2)), -3);          // truncating
  EXPECT_EQ(run(floordiv(intImm(-7), intImm(2))), -4); // floor
  EXPECT_EQ(run(floormod(intImm(-7), intImm(2))), 1);
  EXPECT_EQ(run(floormod(intImm(7), intImm(-2))), -1);
  DataType i8 = DataType::Int(8);
  EXPECT_EQ(run(intImm(100, i8) + intImm(100, i8)), -56); // 200 wraps in int8
  DataType u8 = DataType::UInt(8);
  EXPECT_EQ(run(intImm(3, u8) - intImm(5, u8)), 254);
  EXPECT_EQ(run(cast(DataType::Int32(), floatImm(-2.7))), -2);
  EXPECT_THROW(run(intImm(1) / intImm(0)), Error);
  EXPECT_THROW(run(floormod(intImm(1), intImm(0))), Error);
}

TEST(TeInterpreter, FloatOpsRoundToTheirType) {
  // 1 + 2^-30 is exact in double but rounds to 1 in float32.
  EXPECT_EQ(run(floatImm(1.0) + floatImm(std::ldexp(1.0, -30))), 1.0);
  DataType f64 = DataType::Float(64);
  EXPECT_GT(run(floatImm(1.0, f64) + floatImm(std::ldexp(1.0, -30), f64)), 1.0);
  EXPECT_NEAR(run(call(DataType::Float32(), "sigmoid", {floatImm(0.0)})), 0.5, 1e-7);
  EXPECT_EQ(run(call(DataType::Float32(), "round", {floatImm(2.5)})), 2.0); // half to even
  EXPECT_EQ(run(select(lt(intImm(1), intImm(2)), floatImm(3.0), floatImm(4.0))), 3.0);
  EXPECT_EQ(run(cast(DataType::Float32(), gt(floatImm(1.0), floatImm(0.5)))), 1.0);
}

TEST(TeInterpreter, LoopsLetsAndConditionals) {
  // out[i] = i < 2 ? i * i : let t = i + 1 in t * 10, for i in [0, 4)
  auto out = makeBuffer("out", DataType::Int64(), {intImm(4)});
  auto i = primVar("i");
  auto t = primVar("t");
  Stmt thenS = make<BufferStore>(out, i * i, std::vector<PrimExpr>{i});
  Stmt elseS = make<LetStmt>(t, i + 1, make<BufferStore>(out, t * 10, std::vector<PrimExpr>{i}));
  Stmt body = make<For>(i, intImm(0), intImm(4), ForKind::Serial,
                        make<IfThenElse>(lt(i, intImm(2)), thenS, elseS));
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{out, nullptr}}, body);
  unity::Tensor o(DataType::Int64(), {4});
  te::interpretPrimFunc(f, {&o});
  EXPECT_EQ(o.getDouble(0), 0);
  EXPECT_EQ(o.getDouble(1), 1);
  EXPECT_EQ(o.getDouble(2), 30);
  EXPECT_EQ(o.getDouble(3), 40);
}

TEST(TeInterpreter, ChecksArgumentsAgainstBufferShapes) {
  auto n = primVar("n");
  auto A = makeBuffer("A", DataType::Float32(), {n, intImm(2)});
  auto B = makeBuffer("B", DataType::Float32(), {n});
  auto i = primVar("i");
  Stmt body =
      make<For>(i, intImm(0), n, ForKind::Serial,
                make<BufferStore>(B, make<BufferLoad>(A, std::vector<PrimExpr>{i, intImm(1)}),
                                  std::vector<PrimExpr>{i}));
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{A, nullptr}, {B, nullptr}}, body,
                          Attrs{{"global_symbol", std::string("copy_col")}});
  unity::Tensor a(DataType::Float32(), {3, 2}), b(DataType::Float32(), {3});
  a.setDouble(5, 7.0);
  te::interpretPrimFunc(f, {&a, &b});
  EXPECT_EQ(b.getDouble(2), 7.0);

  unity::Tensor b4(DataType::Float32(), {4});
  std::string msg = errorOf([&] { te::interpretPrimFunc(f, {&a, &b4}); });
  EXPECT_NE(msg.find("copy_col"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'B'"), std::string::npos) << msg;
  unity::Tensor bi(DataType::Int32(), {3});
  EXPECT_NE(errorOf([&] { te::interpretPrimFunc(f, {&a, &bi}); }).find("dtype"), std::string::npos);
  EXPECT_THROW(te::interpretPrimFunc(f, {&a}), Error);
  unity::Tensor a1(DataType::Float32(), {3});
  EXPECT_NE(errorOf([&] { te::interpretPrimFunc(f, {&a1, &b}); }).find("rank"), std::string::npos);
}

TEST(TeInterpreter, OutOfBoundsAccessIsAnError) {
  auto A = makeBuffer("A", DataType::Float32(), {intImm(3)});
  auto i = primVar("i");
  Stmt body = make<For>(i, intImm(0), intImm(4), ForKind::Serial,
                        make<BufferStore>(A, floatImm(0.0), std::vector<PrimExpr>{i}));
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{A, nullptr}}, body);
  unity::Tensor a(DataType::Float32(), {3});
  std::string msg = errorOf([&] { te::interpretPrimFunc(f, {&a}); });
  EXPECT_NE(msg.find("out of bounds"), std::string::npos) << msg;
}

namespace {
// B[v] = A[v + shift] inside a block whose declared read is A[v:v+1].
PrimFuncRef shiftedBlock(int64_t shift, int64_t loopExtent) {
  auto A = makeBuffer("A", DataType::Float32(), {intImm(4)});
  auto B = makeBuffer("B", DataType::Float32(), {intImm(4)});
  auto v = primVar("v_i");
  auto i = primVar("i");
  Stmt store = make<BufferStore>(B, make<BufferLoad>(A, std::vector<PrimExpr>{v + shift}),
                                 std::vector<PrimExpr>{PrimExpr(v)});
  Stmt blk = make<Block>(
      "B", std::vector<IterVar>{{v, Range{intImm(0), intImm(3)}, IterType::Spatial}},
      std::vector<PrimExpr>{PrimExpr(i)}, std::vector<BufferRegion>{{A, {Range{v, intImm(1)}}}},
      std::vector<BufferRegion>{{B, {Range{v, intImm(1)}}}}, nullptr, store);
  Stmt loop = make<For>(i, intImm(0), intImm(loopExtent), ForKind::Serial, blk);
  return make<PrimFunc>(std::vector<PrimFunc::Param>{{A, nullptr}, {B, nullptr}}, loop);
}
} // namespace

TEST(TeInterpreter, BlockRegionsAndDomainsAreChecked) {
  unity::Tensor a(DataType::Float32(), {4}), b(DataType::Float32(), {4});
  EXPECT_NO_THROW(te::interpretPrimFunc(shiftedBlock(0, 3), {&a, &b}));
  std::string msg = errorOf([&] { te::interpretPrimFunc(shiftedBlock(1, 3), {&a, &b}); });
  EXPECT_NE(msg.find("outside its declared read regions"), std::string::npos) << msg;
  te::InterpretOptions lax;
  lax.checkRegions = false;
  EXPECT_NO_THROW(te::interpretPrimFunc(shiftedBlock(1, 3), {&a, &b}, {}, lax));
  msg = errorOf([&] { te::interpretPrimFunc(shiftedBlock(0, 4), {&a, &b}); });
  EXPECT_NE(msg.find("outside its domain"), std::string::npos) << msg;
}

TEST(TeInterpreter, ReadingAnUnwrittenIntermediateGivesNaN) {
  auto T = makeBuffer("T", DataType::Float32(), {intImm(2)});
  auto out = makeBuffer("out", DataType::Float32(), {intImm(1)});
  Stmt store = make<BufferStore>(out, make<BufferLoad>(T, std::vector<PrimExpr>{intImm(1)}),
                                 std::vector<PrimExpr>{intImm(0)});
  Stmt root = make<Block>("root", std::vector<IterVar>{}, std::vector<PrimExpr>{},
                          std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, nullptr, store,
                          std::vector<BufferRef>{T});
  auto f = make<PrimFunc>(std::vector<PrimFunc::Param>{{out, nullptr}}, root);
  unity::Tensor o(DataType::Float32(), {1});
  te::interpretPrimFunc(f, {&o});
  EXPECT_TRUE(std::isnan(o.getDouble(0)));
}
