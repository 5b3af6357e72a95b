// The printer's output for small hand-built IR, compared with hand-written
// text.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/text/printer.h"

using namespace unity;
using namespace unity::ir;

TEST(TextPrinter, SmallModuleMatchesHandWrittenText) {
  auto n = primVar("n");
  StructInfo xs = tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{PrimExpr(n), intImm(4)});
  Var x = makeVar("x", xs);
  Var lv = makeDataflowVar("lv", xs);
  Var gv = makeVar("gv", xs);
  Span origin;
  origin.origins = {"Relu_0:Relu"};
  auto df = make<BindingBlock>(
      std::vector<Binding>{
          make<VarBinding>(lv, make<Call>(opRef("nn.relu"), std::vector<Expr>{x}), origin),
          make<VarBinding>(gv, make<Call>(opRef("add"), std::vector<Expr>{lv, x},
                                          Attrs{{"axis", int64_t(-1)}}))},
      true);
  auto body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{df}, gv);
  auto main =
      make<Function>(std::vector<Var>{x}, body, xs, Attrs{{"global_symbol", std::string("main")}});

  auto A = makeBuffer("A", DataType::Float32(), {PrimExpr(n)});
  auto i = primVar("i");
  auto vi = primVar("vi");
  Stmt store =
      make<BufferStore>(A, make<BufferLoad>(A, std::vector<PrimExpr>{PrimExpr(vi)}) * floatImm(2.0),
                        std::vector<PrimExpr>{PrimExpr(vi)});
  Stmt block = make<Block>("scale", std::vector<IterVar>{{vi, {intImm(0), n}, IterType::Spatial}},
                           std::vector<PrimExpr>{PrimExpr(i)},
                           std::vector<BufferRegion>{{A, {{vi, intImm(1)}}}},
                           std::vector<BufferRegion>{{A, {{vi, intImm(1)}}}}, nullptr, store);
  Stmt loop = make<For>(i, intImm(0), n, ForKind::Serial, block);
  auto prim = make<PrimFunc>(std::vector<PrimFunc::Param>{{A, nullptr}}, loop);

  IRModule m = makeModule({{"main", main}, {"scale", prim}});
  const char* expected = R"(# unity IR module

@R.function
def main(x: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        lv: R.Tensor((n, 4), "float32") = R.nn.relu(x)  # @origin("Relu_0:Relu")
        gv: R.Tensor((n, 4), "float32") = R.add(lv, x, axis=-1)
        R.output(gv)
    return gv

@T.prim_func
def scale(A: T.Buffer((n,), "float32")):
    for i in T.serial(n):
        with T.block("scale"):
            vi = T.axis.spatial(n, i)
            T.reads(A[vi])
            T.writes(A[vi])
            A[vi] = A[vi] * T.float32(2.0)
)";
  EXPECT_EQ(text::printModule(m), expected);
}

TEST(TextPrinter, DistinctVariablesWithOneHintGetDistinctNames) {
  auto a = primVar("x"), b = primVar("x");
  EXPECT_EQ(text::printPrimExpr(a + b), "x + x_1");
  EXPECT_EQ(text::printPrimExpr(a + a), "x + x");
}

TEST(TextPrinter, ParenthesizesByPrecedenceOnly) {
  auto a = primVar("a"), b = primVar("b"), c = primVar("c");
  EXPECT_EQ(text::printPrimExpr((a + b) * c), "(a + b) * c");
  EXPECT_EQ(text::printPrimExpr(a + b * c), "a + b * c");
  EXPECT_EQ(text::printPrimExpr(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(text::printPrimExpr((a - b) - c), "a - b - c");
  EXPECT_EQ(text::printPrimExpr(floordiv(a, b) + floormod(a, c)), "a // b + a % c");
  EXPECT_EQ(text::printPrimExpr(logicalNot(logicalAnd(lt(a, b), le(b, c)))),
            "not (a < b and b <= c)");
  EXPECT_EQ(text::printPrimExpr(max(a, intImm(-3))), "T.max(a, -3)");
}

TEST(TextPrinter, LiteralsCarryTheirDtypeExactly) {
  EXPECT_EQ(text::printPrimExpr(intImm(3, DataType::Int32())), "T.int32(3)");
  EXPECT_EQ(text::printPrimExpr(intImm(3)), "3");
  EXPECT_EQ(text::printPrimExpr(boolImm(true)), "True");
  EXPECT_EQ(text::printPrimExpr(floatImm(0.1)), "T.float32(0.1)");
  EXPECT_EQ(text::printPrimExpr(floatImm(1e300, DataType::Float(64))), "T.float64(1e+300)");
  EXPECT_EQ(text::printPrimExpr(floatImm(-INFINITY)), "T.float32(\"-inf\")");
  EXPECT_EQ(text::printPrimExpr(cast(DataType::Float32(), primVar("i"))), "T.Cast(\"float32\", i)");
}

TEST(TextPrinter, StructInfoOfEveryKind) {
  auto n = primVar("n");
  EXPECT_EQ(
      text::printStructInfo(tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{PrimExpr(n)})),
      "R.Tensor((n,), \"float32\")");
  EXPECT_EQ(text::printStructInfo(tensorSInfo(DataType::Float32(), 2)),
            "R.Tensor(ndim=2, dtype=\"float32\")");
  EXPECT_EQ(text::printStructInfo(tensorSInfo(DataType::Void(), -1)), "R.Tensor()");
  EXPECT_EQ(text::printStructInfo(shapeSInfo({n, intImm(4)})), "R.Shape([n, 4])");
  EXPECT_EQ(text::printStructInfo(make<ShapeSInfo>(3)), "R.Shape(ndim=3)");
  EXPECT_EQ(text::printStructInfo(primSInfo(DataType::Int64(), n)), "R.Prim(\"int64\", value=n)");
  EXPECT_EQ(text::printStructInfo(tupleSInfo({objectSInfo()})), "R.Tuple(R.Object)");
  EXPECT_EQ(text::printStructInfo(make<FuncSInfo>(std::nullopt, objectSInfo(), false)),
            "R.Callable(None, R.Object, purity=False)");
}

TEST(TextPrinter, SmallConstantsInlineLargeOnesInMetadata) {
  float v[] = {1.5f, -2.0f, 0.1f, 3.0f};
  Expr small = make<Constant>(Tensor::fromFloats({2, 2}, v));
  EXPECT_EQ(text::printExpr(small), "R.const([[1.5, -2], [0.1, 3]], \"float32\")");
  Tensor big(DataType::Float32(), {5, 5});
  std::string s = text::printExpr(make<Constant>(big));
  EXPECT_EQ(s.substr(0, s.find('\n')), "R.const(metadata[0])");
  EXPECT_NE(s.find("metadata[0] = R.tensor_data(\"float32\", (5, 5), \"AAAA"), std::string::npos);
}
