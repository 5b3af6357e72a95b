#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "engine/codegen/codegen.h"
#include "engine/runtime/kernel_call.h"
#include "engine/support/error.h"
#include "tests/engine/codegen/kernel_builders.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::testing;
using unity::codegen::compileForHost;
using unity::codegen::NamedPrimFuncs;
using unity::runtime::callKernel;

namespace {

Tensor filled(DataType t, std::vector<int64_t> shape, double (*f)(int64_t)) {
  Tensor x(t, std::move(shape));
  for (int64_t i = 0; i < x.numel(); ++i)
    x.setDouble(i, f(i));
  return x;
}

} // namespace

TEST(Codegen, ElementwiseAddWithSymbolicLength) {
  auto m = compileForHost({{"add", elementwiseAdd()}});
  for (int64_t n : {1, 7, 1000}) {
    Tensor a = filled(DataType::Float32(), {n}, [](int64_t i) { return 0.5 * double(i); });
    Tensor b = filled(DataType::Float32(), {n}, [](int64_t i) { return 3.0 - double(i); });
    Tensor c(DataType::Float32(), {n});
    callKernel(*m, "add", {&a, &b, &c});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_FLOAT_EQ(c.getDouble(i), 3.0 - 0.5 * double(i)) << i;
  }
}

TEST(Codegen, ReductionBlockWithInitComputesRowSums) {
  auto m = compileForHost({{"rowsum", rowSumBlock()}});
  Tensor a = filled(DataType::Float32(), {3, 5}, [](int64_t i) { return double(i); });
  Tensor s = filled(DataType::Float32(), {3}, [](int64_t) { return 99.0; }); // init must reset
  callKernel(*m, "rowsum", {&a, &s});
  EXPECT_FLOAT_EQ(s.getDouble(0), 0 + 1 + 2 + 3 + 4);
  EXPECT_FLOAT_EQ(s.getDouble(1), 5 + 6 + 7 + 8 + 9);
  EXPECT_FLOAT_EQ(s.getDouble(2), 10 + 11 + 12 + 13 + 14);
}

TEST(Codegen, ParallelVectorizedMatmulMatchesNaiveLoop) {
  constexpr int64_t n = 512;
  auto m = compileForHost({{"matmul", matmulParallelVectorized(n)}});
  Tensor a =
      filled(DataType::Float32(), {n, n}, [](int64_t i) { return double((i * 7) % 13) - 6.0; });
  Tensor b =
      filled(DataType::Float32(), {n, n}, [](int64_t i) { return double((i * 5) % 11) * 0.25; });
  Tensor c(DataType::Float32(), {n, n});
  callKernel(*m, "matmul", {&a, &b, &c}); // warm-up
  auto t0 = std::chrono::steady_clock::now();
  callKernel(*m, "matmul", {&a, &b, &c});
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ info     ] 512^3 matmul (i parallel, j vectorized): %.2f ms, %.1f GFLOP/s\n",
              sec * 1e3, 2.0 * n * n * n / sec * 1e-9);

  const float* A = a.dataAs<float>();
  const float* B = b.dataAs<float>();
  std::vector<float> ref(n * n, 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j)
        ref[i * n + j] += A[i * n + k] * B[k * n + j];
  const float* C = c.dataAs<float>();
  for (int64_t i = 0; i < n * n; ++i)
    ASSERT_NEAR(C[i], ref[i], 1e-4 * std::max(1.0f, std::fabs(ref[i]))) << i;
  // The vectorize hint must have produced vector code on this host.
  EXPECT_NE(m->llvmIR().find("x float>"), std::string::npos);
  EXPECT_NE(m->llvmIR().find("@unity_parallel_for"), std::string::npos);
}

TEST(Codegen, FloorDivAndFloorModFollowFloorSemanticsForNegatives) {
  for (DataType t : {DataType::Int64(), DataType::Int32()}) {
    auto n = primVar("n");
    auto A = makeBuffer("A", t, {n}), B = makeBuffer("B", t, {n});
    auto Q = makeBuffer("Q", t, {n}), R = makeBuffer("R", t, {n});
    auto i = primVar("i");
    Stmt body = seqStmt({store(Q, floordiv(load(A, {i}), load(B, {i})), {i}),
                         store(R, floormod(load(A, {i}), load(B, {i})), {i})});
    auto m = compileForHost({{"fdm", primFunc({bufParam(A), bufParam(B), bufParam(Q), bufParam(R)},
                                              loop(i, n, body))}});
    // a, b, floor(a/b), a - b*floor(a/b)
    const double cases[][4] = {{7, 2, 3, 1},    {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1},
                               {-8, 2, -4, 0},  {0, 3, 0, 0},   {6, -3, -2, 0},  {-1, 5, -1, 4},
                               {1, -5, -1, -4}, {-5, -5, 1, 0}};
    int64_t count = std::size(cases);
    Tensor a(t, {count}), b(t, {count}), q(t, {count}), r(t, {count});
    for (int64_t k = 0; k < count; ++k) {
      a.setDouble(k, cases[k][0]);
      b.setDouble(k, cases[k][1]);
    }
    callKernel(*m, "fdm", {&a, &b, &q, &r});
    for (int64_t k = 0; k < count; ++k) {
      EXPECT_EQ(q.getDouble(k), cases[k][2])
          << cases[k][0] << " // " << cases[k][1] << " " << t.str();
      EXPECT_EQ(r.getDouble(k), cases[k][3])
          << cases[k][0] << " % " << cases[k][1] << " " << t.str();
    }
  }
}

TEST(Codegen, SelectMinMaxAndCasts) {
  auto n = primVar("n");
  auto A = makeBuffer("A", DataType::Float32(), {n});
  auto B = makeBuffer("B", DataType::Float32(), {n});
  auto Sel = makeBuffer("Sel", DataType::Float32(), {n});
  auto I = makeBuffer("I", DataType::Int32(), {n});   // trunc toward zero
  auto U = makeBuffer("U", DataType::UInt(8), {n});   // int64 -> uint8 wraps
  auto Bo = makeBuffer("Bo", DataType::Bool(), {n});  // float -> bool
  auto F = makeBuffer("F", DataType::Float(64), {n}); // bool -> int -> double
  auto i = primVar("i");
  PrimExpr va = load(A, {i}), vb = load(B, {i});
  Stmt body = seqStmt({
      store(Sel, select(gt(va, floatImm(0.0)), min(va, vb), max(va, vb)), {i}),
      store(I, cast(DataType::Int32(), va), {i}),
      store(U, cast(DataType::UInt(8), cast(DataType::Int64(), va) + intImm(256)), {i}),
      store(Bo, cast(DataType::Bool(), va), {i}),
      store(F,
            cast(DataType::Float(64), cast(DataType::Int32(), load(Bo, {i}))) +
                floatImm(0.5, DataType::Float(64)),
            {i}),
  });
  auto m = compileForHost({{"mix", primFunc({bufParam(A), bufParam(B), bufParam(Sel), bufParam(I),
                                             bufParam(U), bufParam(Bo), bufParam(F)},
                                            loop(i, n, body))}});
  std::vector<float> av{2.7f, -2.7f, 0.0f, 300.0f}, bv{1.0f, 5.0f, -1.0f, 400.0f};
  Tensor a = Tensor::fromFloats({4}, av), bb = Tensor::fromFloats({4}, bv);
  Tensor sel(DataType::Float32(), {4}), ii(DataType::Int32(), {4}), u(DataType::UInt(8), {4}),
      bo(DataType::Bool(), {4}), f(DataType::Float(64), {4});
  callKernel(*m, "mix", {&a, &bb, &sel, &ii, &u, &bo, &f});
  // select(a > 0, min, max)
  EXPECT_FLOAT_EQ(sel.getDouble(0), 1.0f);
  EXPECT_FLOAT_EQ(sel.getDouble(1), 5.0f);
  EXPECT_FLOAT_EQ(sel.getDouble(2), 0.0f);
  EXPECT_FLOAT_EQ(sel.getDouble(3), 300.0f);
  EXPECT_EQ(ii.getDouble(0), 2);
  EXPECT_EQ(ii.getDouble(1), -2);
  EXPECT_EQ(u.getDouble(0), 2 + 256 - 256);     // 258 mod 256
  EXPECT_EQ(u.getDouble(1), 254);               // -2 + 256
  EXPECT_EQ(u.getDouble(3), (300 + 256) % 256); // 556 mod 256 = 44
  EXPECT_EQ(bo.getDouble(0), 1);
  EXPECT_EQ(bo.getDouble(2), 0);
  EXPECT_EQ(f.getDouble(1), 1.5);
  EXPECT_EQ(f.getDouble(2), 0.5);
}

namespace {
struct UnaryCase {
  const char* name;
  double (*ref)(double);
  double lo, hi; // domain sampled
};
double sigmoidRef(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double rsqrtRef(double x) { return 1.0 / std::sqrt(x); }
} // namespace

TEST(Codegen, EveryIntrinsicMatchesCMath) {
  const UnaryCase unary[] = {
      {"exp", [](double x) { return std::exp(x); }, -5, 5},
      {"log", [](double x) { return std::log(x); }, 0.1, 10},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0, 10},
      {"rsqrt", rsqrtRef, 0.1, 10},
      {"tanh", [](double x) { return std::tanh(x); }, -3, 3},
      {"sigmoid", sigmoidRef, -6, 6},
      {"erf", [](double x) { return std::erf(x); }, -2, 2},
      {"fabs", [](double x) { return std::fabs(x); }, -3, 3},
      {"floor", [](double x) { return std::floor(x); }, -3.3, 3.3},
      {"ceil", [](double x) { return std::ceil(x); }, -3.3, 3.3},
      {"round",
       [](double x) {
         return std::nearbyint(x); /* half to even */
       },
       -3.5, 3.5},
      {"trunc", [](double x) { return std::trunc(x); }, -3.3, 3.3},
      {"sin", [](double x) { return std::sin(x); }, -3, 3},
      {"cos", [](double x) { return std::cos(x); }, -3, 3},
      {"tan", [](double x) { return std::tan(x); }, -1, 1},
      {"asin", [](double x) { return std::asin(x); }, -0.9, 0.9},
      {"acos", [](double x) { return std::acos(x); }, -0.9, 0.9},
      {"atan", [](double x) { return std::atan(x); }, -3, 3},
      {"sinh", [](double x) { return std::sinh(x); }, -2, 2},
      {"cosh", [](double x) { return std::cosh(x); }, -2, 2},
      {"asinh", [](double x) { return std::asinh(x); }, -2, 2},
      {"acosh", [](double x) { return std::acosh(x); }, 1, 4},
      {"atanh", [](double x) { return std::atanh(x); }, -0.9, 0.9},
      {"log2", [](double x) { return std::log2(x); }, 0.1, 10},
      {"log1p", [](double x) { return std::log1p(x); }, -0.5, 3},
      {"expm1", [](double x) { return std::expm1(x); }, -2, 2},
  };
  constexpr int64_t kPoints = 9;
  for (DataType t : {DataType::Float32(), DataType::Float(64)}) {
    NamedPrimFuncs funcs;
    for (auto& c : unary) {
      auto X = makeBuffer("X", t, {intImm(kPoints)}), Y = makeBuffer("Y", t, {intImm(kPoints)});
      auto i = primVar("i");
      funcs.push_back({c.name, primFunc({bufParam(X), bufParam(Y)},
                                        loop(i, intImm(kPoints),
                                             store(Y, call(t, c.name, {load(X, {i})}), {i})))});
    }
    // Binary ones: pow, fmod, atan2 on (x, 1.5 - x).
    for (const char* name : {"pow", "fmod", "atan2"}) {
      auto X = makeBuffer("X", t, {intImm(kPoints)}), Y = makeBuffer("Y", t, {intImm(kPoints)});
      auto i = primVar("i");
      PrimExpr x = load(X, {i});
      funcs.push_back(
          {name, primFunc({bufParam(X), bufParam(Y)},
                          loop(i, intImm(kPoints),
                               store(Y, call(t, name, {x, makeConst(t, 1.5) - x}), {i})))});
    }
    // isnan / isinf produce bool.
    for (const char* name : {"isnan", "isinf"}) {
      auto X = makeBuffer("X", t, {intImm(4)}), Y = makeBuffer("Y", DataType::Bool(), {intImm(4)});
      auto i = primVar("i");
      funcs.push_back(
          {name, primFunc({bufParam(X), bufParam(Y)},
                          loop(i, intImm(4),
                               store(Y, call(DataType::Bool(), name, {load(X, {i})}), {i})))});
    }
    auto m = compileForHost(funcs);
    double tol = t.bits == 32 ? 2e-6 : 1e-13;
    for (auto& c : unary) {
      Tensor x(t, {kPoints}), y(t, {kPoints});
      for (int64_t k = 0; k < kPoints; ++k)
        x.setDouble(k, c.lo + (c.hi - c.lo) * double(k) / (kPoints - 1));
      callKernel(*m, c.name, {&x, &y});
      for (int64_t k = 0; k < kPoints; ++k) {
        double want = c.ref(x.getDouble(k));
        EXPECT_NEAR(y.getDouble(k), want, tol * std::max(1.0, std::fabs(want)))
            << c.name << "(" << x.getDouble(k) << ") " << t.str();
      }
    }
    double (*binRef[])(double, double) = {[](double a, double b) { return std::pow(a, b); },
                                          [](double a, double b) { return std::fmod(a, b); },
                                          [](double a, double b) { return std::atan2(a, b); }};
    const char* binNames[] = {"pow", "fmod", "atan2"};
    for (int bi = 0; bi < 3; ++bi) {
      Tensor x(t, {kPoints}), y(t, {kPoints});
      for (int64_t k = 0; k < kPoints; ++k)
        x.setDouble(k, 0.25 + 0.5 * double(k));
      callKernel(*m, binNames[bi], {&x, &y});
      for (int64_t k = 0; k < kPoints; ++k) {
        double xv = x.getDouble(k);
        double want = binRef[bi](xv, (t.bits == 32 ? double(float(1.5 - xv)) : 1.5 - xv));
        EXPECT_NEAR(y.getDouble(k), want, tol * std::max(1.0, std::fabs(want)))
            << binNames[bi] << "(" << xv << ")";
      }
    }
    for (const char* name : {"isnan", "isinf"}) {
      Tensor x(t, {4}), y(DataType::Bool(), {4});
      x.setDouble(0, 1.0);
      x.setDouble(1, std::nan(""));
      x.setDouble(2, INFINITY);
      x.setDouble(3, -INFINITY);
      callKernel(*m, name, {&x, &y});
      bool nan = std::strcmp(name, "isnan") == 0;
      EXPECT_EQ(y.getDouble(0), 0) << name;
      EXPECT_EQ(y.getDouble(1), nan ? 1 : 0) << name;
      EXPECT_EQ(y.getDouble(2), nan ? 0 : 1) << name;
      EXPECT_EQ(y.getDouble(3), nan ? 0 : 1) << name;
    }
  }
}

TEST(Codegen, LocalAllocateOnStackAndHeap) {
  // out[i] = 2 * in[n-1-i] through a local buffer; T1 is small and constant
  // (stack), T2 has a symbolic size (heap via unity_alloc).
  auto n = primVar("n");
  auto In = makeBuffer("In", DataType::Float32(), {n}),
       Out = makeBuffer("Out", DataType::Float32(), {n});
  auto T1 = makeBuffer("T1", DataType::Float32(), {intImm(1)}, "local");
  auto T2 = makeBuffer("T2", DataType::Float32(), {n}, "local");
  auto i = primVar("i"), j = primVar("j");
  Stmt fill =
      loop(i, n,
           make<Allocate>(T1, seqStmt({store(T1, load(In, {i}) * floatImm(2.0), {intImm(0)}),
                                       store(T2, load(T1, {intImm(0)}), {i})})));
  Stmt reverse = loop(j, n, store(Out, load(T2, {n - 1 - j}), {j}));
  auto m = compileForHost({{"rev", primFunc({bufParam(In), bufParam(Out)},
                                            make<Allocate>(T2, seqStmt({fill, reverse})))}});
  for (int64_t len : {1, 5, 20000}) {
    Tensor in = filled(DataType::Float32(), {len}, [](int64_t k) { return double(k); });
    Tensor out(DataType::Float32(), {len});
    callKernel(*m, "rev", {&in, &out});
    for (int64_t k = 0; k < len; ++k)
      ASSERT_EQ(out.getDouble(k), 2.0 * double(len - 1 - k)) << k;
  }
  std::string ir = m->llvmIR();
  EXPECT_NE(ir.find("@unity_alloc"), std::string::npos);
}

TEST(Codegen, HeapTemporaryDoesNotAliasOtherBuffers) {
  // S[j] += T[j] over a heap temporary T (symbolic size) and a stack
  // temporary S that escapes into a parallel loop's closure. unity_alloc
  // returns a fresh object, so LLVM vectorizes the loop without a runtime
  // overlap check between T and S (and can keep an accumulator tile in
  // registers across a reduction that reads such a temporary).
  auto n = primVar("n");
  auto In = makeBuffer("In", DataType::Float32(), {n}),
       Out = makeBuffer("Out", DataType::Float32(), {intImm(64)});
  auto T = makeBuffer("T", DataType::Float32(), {n}, "local");
  auto S = makeBuffer("S", DataType::Float32(), {intImm(64)}, "local");
  auto i = primVar("i"), j = primVar("j"), k = primVar("k"), p = primVar("p");
  Stmt fillT = loop(i, n, store(T, load(In, {i}) * floatImm(2.0), {i}));
  Stmt fillS = loop(k, intImm(64), store(S, floatImm(1.0), {k}), ForKind::Parallel);
  Stmt acc = loop(j, intImm(64), store(S, load(S, {j}) + load(T, {j}), {j}), ForKind::Vectorized);
  Stmt copy = loop(p, intImm(64), store(Out, load(S, {p}), {p}), ForKind::Parallel);
  auto m = compileForHost(
      {{"acc",
        primFunc({bufParam(In), bufParam(Out)},
                 make<Allocate>(T, make<Allocate>(S, seqStmt({fillT, fillS, acc, copy}))))}});
  Tensor in = filled(DataType::Float32(), {70}, [](int64_t q) { return double(q); });
  Tensor out(DataType::Float32(), {64});
  callKernel(*m, "acc", {&in, &out});
  for (int64_t q = 0; q < 64; ++q)
    ASSERT_EQ(out.getDouble(q), 1.0 + 2.0 * double(q)) << q;
  std::string ir = m->llvmIR();
  EXPECT_NE(ir.find("x float>"), std::string::npos) << "the loop was not vectorized";
  // LoopVersioning's alias domain: present only when a loop was versioned
  // on a runtime overlap check.
  EXPECT_EQ(ir.find("LVerDomain"), std::string::npos)
      << "the vectorizer needed a runtime overlap check between T and S";
}

TEST(Codegen, ScalarParamsLetIfAndUnrolledLoops) {
  // Y[i] = (i < limit) ? X[i] * s : -1 with s a float scalar param, via let.
  auto limit = primVar("limit");
  auto s = primVar("s", DataType::Float32());
  auto X = makeBuffer("X", DataType::Float32(), {intImm(8)}),
       Y = makeBuffer("Y", DataType::Float32(), {intImm(8)});
  auto i = primVar("i"), v = primVar("v", DataType::Float32());
  Stmt body = make<LetStmt>(
      v, load(X, {i}) * PrimExpr(s),
      make<IfThenElse>(lt(i, limit), store(Y, v, {i}), store(Y, floatImm(-1.0), {i})));
  auto f = primFunc({bufParam(X), scalarParam(limit), scalarParam(s), bufParam(Y)},
                    loop(i, intImm(8), body, ForKind::Unrolled));
  auto m = compileForHost({{"scaled", f}});
  Tensor x = filled(DataType::Float32(), {8}, [](int64_t k) { return double(k); });
  Tensor y(DataType::Float32(), {8});
  callKernel(*m, "scaled", {&x, int64_t{5}, 0.5, &y});
  for (int64_t k = 0; k < 8; ++k)
    EXPECT_EQ(y.getDouble(k), k < 5 ? 0.5 * double(k) : -1.0) << k;
}

TEST(Codegen, LoopMetadataAtO0) {
  auto N = intImm(16);
  auto A = makeBuffer("A", DataType::Float32(), {N});
  auto i = primVar("i"), j = primVar("j");
  Stmt body = seqStmt({loop(i, N, store(A, floatImm(1.0), {i}), ForKind::Vectorized),
                       loop(j, N, store(A, floatImm(2.0), {j}), ForKind::Unrolled)});
  codegen::CodegenOptions opts;
  opts.optLevel = 0;
  std::string ir = codegen::emitLLVMIR({{"meta", primFunc({bufParam(A)}, body)}}, opts);
  EXPECT_NE(ir.find("llvm.loop.vectorize.enable"), std::string::npos);
  EXPECT_NE(ir.find("llvm.loop.unroll.full"), std::string::npos);
  EXPECT_NE(ir.find("define i32 @meta(ptr"), std::string::npos);
}

/// Y[i] = X[stride * i] + 1 over n elements, the loop vectorized.
PrimFuncRef vectorAddOne(int64_t n, int64_t stride) {
  auto X = makeBuffer("X", DataType::Float32(), {intImm(n * stride)}),
       Y = makeBuffer("Y", DataType::Float32(), {intImm(n)});
  auto i = primVar("i");
  Stmt body = store(Y, load(X, {PrimExpr(i) * intImm(stride)}) + floatImm(1.0), {i});
  return primFunc({bufParam(X), bufParam(Y)}, loop(i, intImm(n), body, ForKind::Vectorized));
}

TEST(Codegen, ShortVectorLoopsGetAMaskedTailWhereTheMachineHasMasks) {
  // 14 contiguous floats on AVX-512: one masked vector of 16, not LLVM's own
  // choice of 4 + 4 + 4 + 2 (the rows of a 14-wide depthwise convolution).
  auto irFor = [](int64_t n, int64_t stride, const std::string& cpu) {
    codegen::CodegenOptions opts;
    opts.triple = "x86_64-unknown-linux-gnu";
    opts.cpu = cpu;
    opts.optLevel = 0; // the loop metadata as emitted
    return codegen::emitLLVMIR({{"k", vectorAddOne(n, stride)}}, opts);
  };
  const std::string predicate = "llvm.loop.vectorize.predicate.enable";
  std::string masked = irFor(14, 1, "skylake-avx512");
  EXPECT_NE(masked.find(predicate), std::string::npos) << masked;
  EXPECT_NE(masked.find("!\"llvm.loop.vectorize.width\", i32 16"), std::string::npos) << masked;
  EXPECT_NE(irFor(7, 1, "skylake-avx512").find("!\"llvm.loop.vectorize.width\", i32 8"),
            std::string::npos);
  // A strided read would become masked gathers; whole vectors need no mask;
  // long loops keep LLVM's vector body and remainder; AVX2 has no cheap masks.
  EXPECT_EQ(irFor(14, 2, "skylake-avx512").find(predicate), std::string::npos);
  EXPECT_EQ(irFor(32, 1, "skylake-avx512").find(predicate), std::string::npos);
  EXPECT_EQ(irFor(100, 1, "skylake-avx512").find(predicate), std::string::npos);
  EXPECT_EQ(irFor(14, 1, "haswell").find(predicate), std::string::npos);
  // Values on this machine, whichever form it gets.
  for (int64_t n : {3, 7, 14, 28, 49}) {
    auto m = compileForHost({{"k", vectorAddOne(n, 1)}});
    Tensor x = filled(DataType::Float32(), {n}, [](int64_t k) { return double(k) * 0.5; });
    Tensor y(DataType::Float32(), {n});
    callKernel(*m, "k", {&x, &y});
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(y.getDouble(k), double(k) * 0.5 + 1.0) << n << " " << k;
  }
}

/// fn's optimized LLVM IR for an AVX-512 x86-64 CPU (whatever the host).
std::string avx512IR(const std::string& name, const PrimFuncRef& fn) {
  codegen::CodegenOptions opts;
  opts.triple = "x86_64-unknown-linux-gnu";
  opts.cpu = "skylake-avx512";
  return codegen::emitLLVMIR({{name, fn}}, opts);
}

TEST(Codegen, AShortMaskedRowLoopStaysTheVectorizedLoop) {
  // MobileNetV2's 960x7x7 depthwise convolution with its bias and clip, as
  // the default schedule lowers it: per channel, rows r of a 9-wide padded
  // plane P into a 7-float local accumulator row, then the clipped row out.
  //   for r in 0..5: for c vectorized(7):
  //     acc[c] = 0; acc[c] += P[r * 9 + c + t] * w[t] (t < 9); Y[r * 7 + c] = clip(acc[c] + b)
  // Before the short loop was kept rolled until the vectorizer ran, LLVM
  // unrolled c first and then vectorized r across rows, five lanes of gathers
  // (3x slower: 0.104 against 0.034 ms a call in the model).
  const int64_t R = 5, C = 7, T = 9;
  auto P = makeBuffer("P", DataType::Float32(), {intImm(R * 9 + 20)}),
       W = makeBuffer("W", DataType::Float32(), {intImm(T)}),
       B = makeBuffer("B", DataType::Float32(), {intImm(1)}),
       Y = makeBuffer("Y", DataType::Float32(), {intImm(R * C)});
  auto acc = makeBuffer("acc", DataType::Float32(), {intImm(C)}, "local");
  auto r = primVar("r"), c = primVar("c");
  std::vector<Stmt> body{store(acc, floatImm(0.0), {c})};
  for (int64_t t = 0; t < T; ++t) {
    PrimExpr tap = load(P, {r * intImm(9) + c + intImm(t / 3 * 9 + t % 3)}) * load(W, {intImm(t)});
    body.push_back(store(acc, load(acc, {c}) + tap, {c}));
  }
  PrimExpr v = load(acc, {c}) + load(B, {intImm(0)});
  body.push_back(store(Y, min(max(v, floatImm(0.0)), floatImm(6.0)), {r * intImm(C) + c}));
  auto fn =
      primFunc({bufParam(P), bufParam(W), bufParam(B), bufParam(Y)},
               make<Allocate>(acc, loop(r, intImm(R),
                                        loop(c, intImm(C), seqStmt(body), ForKind::Vectorized))));
  std::string ir = avx512IR("dw", fn);
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("masked.store"), std::string::npos) << ir;
  // And the values, on this machine.
  auto m = compileForHost({{"dw", fn}});
  Tensor p =
      filled(DataType::Float32(), {R * 9 + 20}, [](int64_t k) { return 0.1 * double(k % 13); });
  Tensor w = filled(DataType::Float32(), {T}, [](int64_t k) { return 0.5 - 0.1 * double(k); });
  Tensor b = filled(DataType::Float32(), {1}, [](int64_t) { return 0.25; });
  Tensor y(DataType::Float32(), {R * C});
  callKernel(*m, "dw", {&p, &w, &b, &y});
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      float a = 0;
      for (int64_t t = 0; t < T; ++t)
        a += p.dataAs<float>()[i * 9 + j + t / 3 * 9 + t % 3] * w.dataAs<float>()[t];
      EXPECT_NEAR(y.getDouble(i * C + j), std::min(std::max(a + 0.25f, 0.0f), 6.0f), 1e-5)
          << i << " " << j;
    }
}

TEST(Codegen, AShortStridedRowLoopStaysTheVectorizedLoop) {
  // MobileNetV2's 576-channel 3x3/2 depthwise layer (14x14 -> 7x7) reads
  // its image directly: per output row r, the 6 interior columns c read
  // X[(2 r + ky) * 14 + 2 c + kx]. Its short strided loop gets no masked
  // tail; LLVM unrolled it and vectorized the 7 rows around it, gathers in
  // and scatters out (0.080 ms a call against 0.035 once kept rolled).
  const int64_t R = 7, C = 6;
  auto X = makeBuffer("X", DataType::Float32(), {intImm(16 * 14)}),
       W = makeBuffer("W", DataType::Float32(), {intImm(9)}),
       Y = makeBuffer("Y", DataType::Float32(), {intImm(R * 7)});
  auto r = primVar("r"), c = primVar("c");
  PrimExpr at = r * intImm(7) + c + intImm(1);
  std::vector<Stmt> body{store(Y, floatImm(0.0), {at})};
  for (int64_t t = 0; t < 9; ++t) {
    PrimExpr x =
        load(X, {(r * intImm(2) + intImm(t / 3)) * intImm(14) + c * intImm(2) + intImm(t % 3 + 1)});
    body.push_back(store(Y, load(Y, {at}) + x * load(W, {intImm(t)}), {at}));
  }
  auto fn = primFunc({bufParam(X), bufParam(W), bufParam(Y)},
                     loop(r, intImm(R), loop(c, intImm(C), seqStmt(body), ForKind::Vectorized)));
  std::string ir = avx512IR("dws2", fn);
  EXPECT_EQ(ir.find("masked.scatter"), std::string::npos) << ir;
  auto m = compileForHost({{"dws2", fn}});
  Tensor x = filled(DataType::Float32(), {16 * 14}, [](int64_t k) { return 0.1 * double(k % 11); });
  Tensor w = filled(DataType::Float32(), {9}, [](int64_t k) { return 0.3 - 0.05 * double(k); });
  Tensor y = filled(DataType::Float32(), {R * 7}, [](int64_t) { return -7.0; });
  callKernel(*m, "dws2", {&x, &w, &y});
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < 7; ++j) {
      float a = j == 0 ? -7.0f : 0.0f; // column 0 is not written
      for (int64_t t = 0; j > 0 && t < 9; ++t)
        a += x.dataAs<float>()[(i * 2 + t / 3) * 14 + (j - 1) * 2 + t % 3 + 1] *
             w.dataAs<float>()[t];
      EXPECT_NEAR(y.getDouble(i * 7 + j), a, 1e-5) << i << " " << j;
    }
}

TEST(Codegen, RowsOfATileAtConstantDistancesAreAllVectorized) {
  // BERT's attention product probs x V ([4 heads, 128, 128] x [4, 128, 64])
  // as the default schedule lowers it for two cores: a fused parallel loop f
  // over tiles of U = 4 rows of 64 columns (head f / 32),
  //   C[f * 256 + j + u * 64] += A[f * 512 + k + u * 128] * B[f / 32 * 8192 + j + k * 64]
  // j vectorized. Emitted as one integer index, LLVM turned f * 256 + j + 64
  // into an `or` the loop vectorizer could not follow: rows 1 to 3 stayed
  // scalar, 20x slower than on one core.
  const int64_t F = 128, U = 4, K = 128, W = 64, per = 32;
  auto A = makeBuffer("A", DataType::Float32(), {intImm(F * U * K)});
  auto B = makeBuffer("B", DataType::Float32(), {intImm(F / per * K * W)});
  auto C = makeBuffer("C", DataType::Float32(), {intImm(F * U * W)});
  auto f = primVar("f"), k = primVar("k"), z = primVar("z");
  std::vector<Stmt> rows;
  for (int64_t u = 0; u < U; ++u) {
    auto j = primVar("j" + std::to_string(u));
    PrimExpr at = f * intImm(U * W) + j + intImm(u * W);
    PrimExpr a = load(A, {f * intImm(U * K) + k + intImm(u * K)});
    PrimExpr b = load(B, {floordiv(f, intImm(per)) * intImm(K * W) + j + k * intImm(W)});
    rows.push_back(loop(j, intImm(W), store(C, load(C, {at}) + a * b, {at}), ForKind::Vectorized));
  }
  Stmt zero =
      loop(z, intImm(U * W), store(C, floatImm(0.0), {f * intImm(U * W) + z}), ForKind::Vectorized);
  auto fn = primFunc(
      {bufParam(A), bufParam(B), bufParam(C)},
      loop(f, intImm(F), seqStmt({zero, loop(k, intImm(K), seqStmt(rows))}), ForKind::Parallel));
  std::string ir = avx512IR("tile", fn);
  EXPECT_EQ(ir.find("store float "), std::string::npos) << ir;
  EXPECT_NE(ir.find("store <16 x float>"), std::string::npos) << ir;
  // Values on this machine.
  auto m = compileForHost({{"tile", fn}});
  Tensor a = filled(DataType::Float32(), {F * U * K}, [](int64_t i) { return double(i % 7) - 3; });
  Tensor b =
      filled(DataType::Float32(), {F / per * K * W}, [](int64_t i) { return double(i % 5) * 0.5; });
  Tensor c(DataType::Float32(), {F * U * W});
  callKernel(*m, "tile", {&a, &b, &c});
  for (int64_t r = 0; r < F * U; ++r)
    for (int64_t j = 0; j < W; ++j) {
      double want = 0;
      for (int64_t kk = 0; kk < K; ++kk)
        want += a.getDouble(r * K + kk) * b.getDouble((r / (U * per)) * K * W + kk * W + j);
      ASSERT_EQ(c.getDouble(r * W + j), want) << r << " " << j;
    }
}

TEST(Codegen, KernelChecksArgCountAndShapesItself) {
  auto m = compileForHost({{"matmul", matmulParallelVectorized(4)}});
  auto fn = m->lookup("matmul");
  std::vector<float> a(16), b(16), c(16);
  void* args[3] = {a.data(), b.data(), c.data()};
  int64_t good[6] = {4, 4, 4, 4, 4, 4}, bad[6] = {4, 4, 4, 5, 4, 4};
  EXPECT_EQ(fn(args, good, 2), codegen::kKernelBadArgCount);
  EXPECT_EQ(fn(args, bad, 3), codegen::kKernelShapeMismatch);
  EXPECT_EQ(fn(args, good, 3), codegen::kKernelOk);
}

TEST(Codegen, BadInputIsAnErrorNotACrash) {
  // Unbound variable.
  auto A = makeBuffer("A", DataType::Float32(), {intImm(4)});
  auto i = primVar("i"), ghost = primVar("ghost");
  auto f = primFunc({bufParam(A)}, loop(i, intImm(4), store(A, floatImm(1.0), {PrimExpr(ghost)})));
  try {
    compileForHost({{"ghosty", f}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ghost"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ghosty"), std::string::npos) << e.what();
  }
  // Intrinsic on integers.
  auto I = makeBuffer("I", DataType::Int32(), {intImm(4)});
  auto g =
      primFunc({bufParam(I)},
               loop(i, intImm(4), store(I, call(DataType::Int32(), "exp", {load(I, {i})}), {i})));
  EXPECT_THROW(compileForHost({{"iexp", g}}), Error);
  // Duplicate names, unknown kernels, cross triple on the host.
  EXPECT_THROW(compileForHost({{"a", elementwiseAdd()}, {"a", elementwiseAdd()}}), Error);
  auto m = compileForHost({{"add", elementwiseAdd()}});
  EXPECT_THROW(m->lookup("nope"), Error);
  codegen::CodegenOptions cross;
  cross.triple = "thumbv7em-none-eabi";
  EXPECT_THROW(compileForHost({{"add", elementwiseAdd()}}, cross), Error);
  cross.triple = "no-such-triple-xyz";
  EXPECT_THROW(codegen::emitForTarget({{"add", elementwiseAdd()}}, cross), Error);
}

TEST(Codegen, HostModuleGivesAssemblyAndObject) {
  auto m = compileForHost({{"add", elementwiseAdd()}});
  EXPECT_NE(m->assembly().find("add"), std::string::npos);
  std::vector<char> obj = m->object();
  ASSERT_GE(obj.size(), 4u);
  EXPECT_EQ(std::memcmp(obj.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
}

TEST(Codegen, ManyKernelsCompileInGroupsAndLinkBackForAssembly) {
  // Kernels are compiled in groups on several threads (one module each);
  // every kernel runs, and the IR, assembly and object are one module again
  // with every kernel's symbol.
  codegen::NamedPrimFuncs funcs;
  for (int k = 0; k < 5; ++k)
    funcs.push_back({"add" + std::to_string(k), elementwiseAdd()});
  funcs.push_back({"rowsum", rowSumBlock()});
  funcs.push_back({"mm", matmulParallelVectorized(32)});
  auto m = compileForHost(funcs);
  std::string ir = m->llvmIR(), asmText = m->assembly();
  size_t triples = 0;
  for (size_t at = ir.find("target triple"); at != std::string::npos;
       at = ir.find("target triple", at + 1))
    ++triples;
  EXPECT_EQ(triples, 1u) << "the IR is not one module";
  for (auto& [name, f] : funcs) {
    EXPECT_NE(ir.find("@" + name + "("), std::string::npos) << name;
    EXPECT_NE(asmText.find(name + ":"), std::string::npos) << name;
  }
  for (int k = 0; k < 5; ++k) {
    Tensor a = filled(DataType::Float32(), {7}, [](int64_t i) { return double(i); });
    Tensor b = filled(DataType::Float32(), {7}, [](int64_t i) { return 2.0 * double(i); });
    Tensor c(DataType::Float32(), {7});
    callKernel(*m, "add" + std::to_string(k), {&a, &b, &c});
    for (int64_t i = 0; i < 7; ++i)
      ASSERT_EQ(c.getDouble(i), 3.0 * double(i)) << k;
  }
  std::vector<char> obj = m->object();
  ASSERT_GE(obj.size(), 4u);
  EXPECT_EQ(std::memcmp(obj.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
}

TEST(Codegen, CrossEmissionForCortexM7AndAArch64) {
  NamedPrimFuncs funcs{{"vadd", elementwiseAdd()}, {"mm", matmulParallelVectorized(8)}};
  codegen::CodegenOptions m7;
  m7.triple = "thumbv7em-none-eabi";
  m7.cpu = "cortex-m7";
  codegen::ArtifactSet arm = codegen::emitForTarget(funcs, m7);
  ASSERT_GE(arm.object.size(), 20u);
  EXPECT_EQ(std::memcmp(arm.object.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ(arm.object[4], 1); // ELFCLASS32
  EXPECT_NE(arm.assembly.find("vadd:"), std::string::npos);
  EXPECT_NE(arm.assembly.find("mm:"), std::string::npos);
  EXPECT_NE(arm.llvmIR.find("thumbv7em"), std::string::npos);

  codegen::CodegenOptions a64;
  a64.triple = "aarch64-linux-gnu";
  codegen::ArtifactSet arm64 = codegen::emitForTarget(funcs, a64);
  EXPECT_EQ(std::memcmp(arm64.object.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ(arm64.object[4], 2); // ELFCLASS64
  EXPECT_EQ(arm64.cpu, "generic");
  EXPECT_NE(arm64.assembly.find("vadd:"), std::string::npos);
  EXPECT_NE(codegen::emitAssembly(funcs, a64).find("unity_parallel_for"), std::string::npos);
  m7.cpu = "not-a-cpu";
  EXPECT_THROW(codegen::emitObject(funcs, m7), Error);
}

TEST(Codegen, KernelNamesThatClashWithLibcGetASuffixedSymbol) {
  EXPECT_EQ(codegen::kernelSymbol("vadd"), "vadd");
  EXPECT_EQ(codegen::kernelSymbol("exp"), "exp_kernel");
  EXPECT_EQ(codegen::kernelSymbol("tanhf"), "tanhf_kernel");
  EXPECT_EQ(codegen::kernelSymbol("memset"), "memset_kernel");
  EXPECT_EQ(codegen::kernelSymbol("unity_alloc"), "unity_alloc_kernel");
  codegen::CodegenOptions a64;
  a64.triple = "aarch64-linux-gnu";
  auto art = codegen::emitForTarget({{"exp", elementwiseAdd()}}, a64);
  ASSERT_EQ(art.symbols.size(), 1u);
  EXPECT_EQ(art.symbols[0].second, "exp_kernel");
  EXPECT_NE(art.assembly.find("exp_kernel:"), std::string::npos);
}

TEST(Codegen, FastMathFlagsOnlyWhenAsked) {
  codegen::CodegenOptions opts;
  opts.optLevel = 0;
  std::string strict = codegen::emitLLVMIR({{"add", elementwiseAdd()}}, opts);
  EXPECT_EQ(strict.find("fadd fast"), std::string::npos);
  EXPECT_NE(strict.find("fadd float"), std::string::npos);
  opts.fastMath = true;
  std::string fast = codegen::emitLLVMIR({{"add", elementwiseAdd()}}, opts);
  EXPECT_NE(fast.find("fadd fast"), std::string::npos);
}

TEST(Codegen, MismatchedLetIsAnError) {
  auto A = makeBuffer("A", DataType::Float32(), {intImm(1)});
  auto v = primVar("v", DataType::Int32());
  auto f =
      primFunc({bufParam(A)}, make<LetStmt>(v, intImm(1), store(A, floatImm(0.0), {intImm(0)})));
  EXPECT_THROW(compileForHost({{"badlet", f}}), Error);
}
