// The tensor-level lowering passes of the default pipeline (FlattenBuffers,
// LowerIntrinsics, UnrollLoops, VectorizeLoops) on small hand-written
// functions: the property each pass promises (checked by walking the
// result), that an input with nothing to do comes back as the same node, that
// the result is well formed and survives a print/parse round trip, and that it
// computes what the input did (the reference interpreter runs both and checks
// every access against the buffer's bounds).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "engine/build.h"
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/ir/well_formed.h"
#include "engine/te/interpreter.h"
#include "engine/te/te.h"
#include "engine/te/topi.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/registry.h"
#include "engine/transform/tir_lower.h"
#include "tests/engine/te/te_test_util.h"
#include "tests/engine/transform/tir_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::expectSameResults;
using unity::transform::testing::expectWellFormedAndRoundTrips;
using unity::transform::testing::parseFunc;

namespace {

std::vector<const For*> loops(const PrimFuncRef& f) {
  std::vector<const For*> out;
  walkStmt(f->body, [&](const Stmt& s) {
    if (auto* l = as<For>(s))
      out.push_back(l);
  });
  return out;
}

int countCalls(const PrimFuncRef& f, const std::string& op) {
  struct Counter : StmtVisitor {
    const std::string* op = nullptr;
    int n = 0;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (auto* c = as<PrimCall>(e); c && c->op == *op)
        ++n;
      StmtVisitor::visit(e);
    }
  } c;
  c.op = &op;
  c.visit(f->body);
  return c.n;
}

} // namespace

// ------------------------------------------------------------ FlattenBuffers

TEST(FlattenBuffers, AccessesGetOneRowMajorIndexAndTemporariesAFlatShape) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, 4, 3), "float32"), B: T.Buffer((n, 4), "float32")):
    with T.allocate((4, 8), "float32") as tmp:
        for i in T.serial(n):
            for j in T.serial(4):
                tmp[j, 0] = T.float32(0.0)
                for k in T.serial(3):
                    tmp[j, 0] = tmp[j, 0] + A[i, j, k]
                B[i, j] = tmp[j, 0] * T.float32(0.5)
)");
  auto g = transform::flattenBuffers(f);
  ASSERT_NE(g.get(), f.get());
  EXPECT_TRUE(transform::hasFlatBuffers(*g));
  // Parameters keep their declaration (the calling convention).
  EXPECT_EQ(g->params[0].buffer.get(), f->params[0].buffer.get());
  int accesses = 0;
  walkStmt(g->body, [&](const Stmt& s) {
    if (auto* a = as<Allocate>(s)) {
      ASSERT_EQ(a->buffer->ndim(), 1);
      EXPECT_TRUE(isConstInt(a->buffer->shape[0], 32));
    }
    if (auto* st = as<BufferStore>(s)) {
      EXPECT_EQ(st->indices.size(), 1u);
      ++accesses;
    }
  });
  std::function<void(const PrimExpr&)> loadsOf = [&](const PrimExpr& e) {
    walkPrimExpr(e, [&](const PrimExpr& x) {
      if (auto* l = as<BufferLoad>(x)) {
        EXPECT_EQ(l->indices.size(), 1u) << l->buffer->name;
        ++accesses;
      }
    });
  };
  walkStmt(g->body, [&](const Stmt& s) {
    if (auto* st = as<BufferStore>(s))
      loadsOf(st->value);
  });
  EXPECT_EQ(accesses, 3 + 3);
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{5, 4, 3}, {5, 4}});
  // Idempotent: a flattened function has nothing left to flatten.
  EXPECT_EQ(transform::flattenBuffers(g).get(), g.get());
}

TEST(FlattenBuffers, SymbolicShapesGiveSymbolicStrides) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((m, n), "float32"), B: T.Buffer((n, m), "float32")):
    for i in T.serial(m):
        for j in T.serial(n):
            B[j, i] = A[i, j]
)");
  auto g = transform::flattenBuffers(f);
  ASSERT_NE(g.get(), f.get());
  auto ls = loops(g);
  ASSERT_EQ(ls.size(), 2u);
  auto* store = as<BufferStore>(ls[1]->body);
  ASSERT_TRUE(store);
  auto* load = as<BufferLoad>(store->value);
  ASSERT_TRUE(load);
  PrimExpr i = ls[0]->var, j = ls[1]->var;
  PrimExpr m = f->params[0].buffer->shape[0], n = f->params[0].buffer->shape[1];
  // B[j, i] -> B[j * m + i], A[i, j] -> A[i * n + j]: symbolic strides.
  ASSERT_EQ(store->indices.size(), 1u);
  ASSERT_EQ(load->indices.size(), 1u);
  EXPECT_TRUE(arith::provablyEqual(store->indices[0], j * m + i));
  EXPECT_TRUE(arith::provablyEqual(load->indices[0], i * n + j));
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{3, 5}, {5, 3}});
}

TEST(FlattenBuffers, DivModPairOverASymbolicRowIsTheFlatPosition) {
  // A[c, q // (w + 2), q % (w + 2)] over rows of w + 2: the pair addresses
  // element q of the flattened (rows, w + 2) plane, so the flat index is
  // c * (h * (w + 2)) + q with no division left (the wide convolution's
  // read of its padded image). A pair over another extent is not folded.
  auto f = parseFunc(R"(
@T.prim_func
def f(S: T.Buffer((h, w), "float32"), A: T.Buffer((2, h, w + 2), "float32"), B: T.Buffer((2, h, w + 2), "float32"), C: T.Buffer((2, 5), "float32")):
    for c in T.serial(2):
        for q in T.serial(5):
            C[c, q] = A[c, q // (w + 2), q % (w + 2)] + B[c, q // (w + 1), q % (w + 1)]
)");
  auto g = transform::flattenBuffers(f);
  auto ls = loops(g);
  ASSERT_EQ(ls.size(), 2u);
  auto* store = as<BufferStore>(ls[1]->body);
  ASSERT_TRUE(store);
  auto* add = as<BinaryExpr>(store->value);
  ASSERT_TRUE(add);
  auto* a = as<BufferLoad>(add->a);
  auto* b = as<BufferLoad>(add->b);
  ASSERT_TRUE(a && b);
  PrimExpr c = ls[0]->var, q = ls[1]->var;
  PrimExpr h = f->params[1].buffer->shape[1], w2 = f->params[1].buffer->shape[2];
  ASSERT_EQ(a->indices.size(), 1u);
  EXPECT_TRUE(arith::provablyEqual(a->indices[0], c * (h * w2) + q))
      << text::printPrimExpr(a->indices[0]);
  bool divides = false;
  walkPrimExpr(a->indices[0], [&](const PrimExpr& e) {
    auto* x = as<BinaryExpr>(e);
    divides = divides || (x && (x->op() == NodeKind::FloorDiv || x->op() == NodeKind::FloorMod));
  });
  EXPECT_FALSE(divides) << text::printPrimExpr(a->indices[0]);
  bool keptB = false;
  walkPrimExpr(b->indices[0], [&](const PrimExpr& e) {
    keptB = keptB || (isa<BinaryExpr>(e) && as<BinaryExpr>(e)->op() == NodeKind::FloorDiv);
  });
  EXPECT_TRUE(keptB) << "a pair over w + 1 does not address rows of w + 2";
  expectWellFormedAndRoundTrips(g);
  // h = 3, w = 1: rows of 3 (and of 2 for B), q up to 4 reaches the
  // second (third) row.
  expectSameResults(f, g, {{3, 1}, {2, 3, 3}, {2, 3, 3}, {2, 5}});
}

TEST(FlattenBuffers, OneDimensionalFunctionIsUnchanged) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    with T.allocate((8,), "float32") as t:
        for i in T.serial(8):
            t[i] = A[i]
            B[i] = t[i]
)");
  EXPECT_EQ(transform::flattenBuffers(f).get(), f.get());
}

TEST(FlattenBuffers, WellFormedCheckerStillRejectsStrayFlatAccessesElsewhere) {
  // One index for a 2-D buffer is only well formed in a flattened function.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
    for i in T.serial(8):
        B[i] = A[i]
)");
  EXPECT_FALSE(checkWellFormed(makeModule({{"f", f}})).empty());
  auto marked =
      make<PrimFunc>(f->params, f->body, f->attrs.with(transform::kBuffersFlatAttr, true));
  EXPECT_TRUE(checkWellFormed(makeModule({{"f", marked}})).empty());
}

/// A module whose kernel has symbolic 2-D buffers and a 2-D temporary.
const char* kKernelModule = R"(
@R.function
def main(x: R.Tensor((n, 6), "float32")) -> R.Tensor((n, 6), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        gv: R.Tensor((n, 6), "float32") = R.call_tir(f, (x,), out_sinfo=R.Tensor((n, 6), "float32"))
        R.output(gv)
    return gv

@T.prim_func
def f(A: T.Buffer((n, 6), "float32"), B: T.Buffer((n, 6), "float32")):
    T.func_attr({"global_symbol": "f", "num_outputs": 1})
    with T.allocate((n, 6), "float32") as tmp:
        for i in T.serial(n):
            for j in T.serial(6):
                tmp[i, j] = T.sigmoid(A[i, j]) * T.float32(2.0)
            for j2 in T.serial(6):
                B[i, j2] = tmp[i, 5 - j2] + T.erf(A[i, j2])
)";

TEST(FlattenBuffers, CodegenRunsFlattenedAndUnflattenedFunctionsAlike) {
  IRModule m = text::parseModule(kKernelModule, "tir_passes_test");
  BuildOptions flat, plain;
  flat.passes = {"Normalize", "FlattenBuffers", "LowerIntrinsics", "LowerToExecutor"};
  plain.passes = {"Normalize", "LowerToExecutor"};
  std::vector<Tensor> in{randomTensor({7, 6}, 3, -3.0, 3.0)};
  for (const char* target : {"llvm", "c"}) {
    flat.target = plain.target = target;
    BuildResult a = build(m, flat), b = build(m, plain);
    ASSERT_TRUE(a.executable && b.executable) << target;
    EXPECT_TRUE(transform::hasFlatBuffers(*cast<PrimFunc>(a.lowered->lookup("f"))));
    auto ra = a.executable->runTensors(in), rb = b.executable->runTensors(in);
    ASSERT_EQ(ra.size(), 1u);
    // erf: the rational approximation against libm, 4.2e-7 apart at most.
    EXPECT_TRUE(allClose(ra[0], rb[0], 1e-6)) << target;
  }
}

// ----------------------------------------------------------- LowerIntrinsics

TEST(LowerIntrinsics, Float32ErfIsWithinHalfAMicroOfTheExactErfAndKeepsNaN) {
  // Dense over [-6, 6] (the approximation clamps at +-4) plus the specials.
  std::vector<float> v;
  for (int i = -6000; i <= 6000; ++i)
    v.push_back(float(i) / 1000.0f);
  for (float s : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN})
    v.push_back(s);
  int64_t n = int64_t(v.size());
  auto X = te::placeholder({intImm(n)}, DataType::Float32(), "X");
  PrimFuncRef f = transform::lowerBlocks(te::createPrimFunc({X, te::topi::erf(X)}));
  ASSERT_EQ(countCalls(f, "erf"), 1);
  PrimFuncRef g = transform::lowerIntrinsics(f);
  EXPECT_EQ(countCalls(g, "erf"), 0);
  expectWellFormedAndRoundTrips(g);
  Tensor x = Tensor::fromFloats({n}, v), y(DataType::Float32(), {n});
  te::interpretPrimFunc(g, {&x, &y});
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(v[size_t(i)])) {
      EXPECT_TRUE(std::isnan(y.getDouble(i)));
      continue;
    }
    double err = std::fabs(y.getDouble(i) - std::erf(double(v[size_t(i)])));
    worst = std::max(worst, err);
    EXPECT_LE(err, 5e-7) << "erf(" << v[size_t(i)] << ")";
  }
  EXPECT_GT(worst, 0.0); // an approximation, not the libm call
}

TEST(LowerIntrinsics, Float32ExpIsWithinFourUlpsOfLibmDownToTheDenormals) {
  // Dense over [-110, 95] (overflow above 88.72, denormal results below
  // -87.34, zero below -103.97) plus the specials, through the interpreter
  // and the LLVM and C code generators of the default pipeline.
  std::vector<float> v;
  for (int i = -11000; i <= 9500; ++i)
    v.push_back(float(i) / 100.0f + 0.003f);
  for (float s : {0.0f, -0.0f, 1e-30f, -1e-30f, 88.72f, 88.7228f, 88.73f, -87.3f, -103.9f, -104.0f,
                  1e30f, -1e30f, INFINITY, -INFINITY, NAN})
    v.push_back(s);
  int64_t n = int64_t(v.size());
  auto X = te::placeholder({intImm(n)}, DataType::Float32(), "X");
  auto Y = te::topi::unary(
      X, [](const PrimExpr& x) { return call(x->dtype, "exp", {x}); }, "Y");
  PrimFuncRef f = transform::lowerBlocks(te::createPrimFunc({X, Y}));
  ASSERT_EQ(countCalls(f, "exp"), 1);
  PrimFuncRef g = transform::lowerIntrinsics(f);
  EXPECT_EQ(countCalls(g, "exp"), 0);
  expectWellFormedAndRoundTrips(g);
  Tensor x = Tensor::fromFloats({n}, v), interpreted(DataType::Float32(), {n});
  te::interpretPrimFunc(g, {&x, &interpreted});
  std::vector<std::pair<std::string, Tensor>> results{{"interpreter", interpreted}};
  for (const char* target : {"llvm", "c"}) {
    BuildOptions opts;
    opts.target = target;
    results.emplace_back(
        target, build(transform::moduleCallingPrimFunc(f), opts).executable->runTensors({x}).at(0));
  }
  for (auto& [who, y] : results) {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      float in = v[size_t(i)], got = float(y.getDouble(i)), want = std::exp(in);
      if (std::isnan(in)) {
        EXPECT_TRUE(std::isnan(got)) << who;
        continue;
      }
      if (std::isinf(want) || want == 0.0f) {
        EXPECT_EQ(got, want) << who << ": exp(" << in << ")";
        continue;
      }
      // Four units in the last place of the exact result (the smallest
      // denormal where the result is one).
      double ulp = std::max(double(std::nextafter(want, INFINITY) - want), 1.4e-45);
      double err = std::fabs(double(got) - double(want)) / ulp;
      worst = std::max(worst, err);
      EXPECT_LE(err, 4.0) << who << ": exp(" << in << ") = " << got << ", libm " << want;
    }
    EXPECT_GT(worst, 0.0) << who; // the expansion, not the libm call
  }
}

TEST(LowerIntrinsics, RsqrtAndSigmoidBecomeArithmeticOverSqrtAndExp) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in T.serial(16):
        B[i] = T.sigmoid(A[i]) + T.rsqrt(T.fabs(A[i]) + T.float32(0.5))
)");
  auto g = transform::lowerIntrinsics(f);
  ASSERT_NE(g.get(), f.get());
  EXPECT_EQ(countCalls(g, "sigmoid"), 0);
  EXPECT_EQ(countCalls(g, "rsqrt"), 0);
  EXPECT_EQ(countCalls(g, "exp"), 0); // float32 exp is expanded too (below)
  EXPECT_EQ(countCalls(g, "reinterpret"), 2);
  EXPECT_EQ(countCalls(g, "sqrt"), 1);
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{16}, {16}}, 1e-6);
}

TEST(LowerIntrinsics, NothingToExpandReturnsTheSameFunction) {
  // float64 exp maps onto an LLVM intrinsic, float64 erf onto libm: both stay.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float64"), B: T.Buffer((4,), "float64")):
    for i in T.serial(4):
        B[i] = T.erf(A[i]) + T.exp(A[i])
)");
  EXPECT_EQ(transform::lowerIntrinsics(f).get(), f.get());
}

// ------------------------------------------------------------ PartitionLoops

namespace {
/// Whether e uses v inside a min or max (a clamp) or a Select condition.
bool clampsOrTests(const Stmt& s, const PrimVar* v) {
  bool found = false;
  walkStmt(s, [&](const Stmt& st) {
    auto* store = as<BufferStore>(st);
    if (!store)
      return;
    walkPrimExpr(store->value, [&](const PrimExpr& e) {
      auto* b = as<BinaryExpr>(e);
      PrimExpr inner = b && (b->op() == NodeKind::Min || b->op() == NodeKind::Max) ? e
                       : isa<Select>(e) ? as<Select>(e)->cond
                                        : PrimExpr();
      if (inner)
        walkPrimExpr(inner, [&](const PrimExpr& x) { found = found || x.get() == v; });
    });
  });
  return found;
}

/// The last vectorized loop of g (the cut's interior) runs over [min, min +
/// extent) with no clamp or bounds test of its variable left.
void expectInterior(const PrimFuncRef& g, int64_t min, int64_t extent) {
  const For* interior = nullptr;
  for (const For* l : loops(g))
    if (l->forKind == ForKind::Vectorized)
      interior = l;
  ASSERT_NE(interior, nullptr);
  EXPECT_EQ(asConstInt(interior->min).value_or(-1), min);
  EXPECT_EQ(asConstInt(interior->extent).value_or(-1), extent);
  EXPECT_FALSE(clampsOrTests(interior->body, interior->var.get()));
}
} // namespace

TEST(PartitionLoops, PaddedCopySplitsIntoBordersAndATestFreeInterior) {
  // pad 1 on both sides of 10 columns and 6 rows: the column loop's
  // interior is [1, 11); its clamps and tests on j fold away there.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((6, 10), "float32"), B: T.Buffer((8, 12), "float32")):
    for i in T.parallel(8):
        for j in T.vectorized(12):
            B[i, j] = T.Select(i - 1 >= 0 and i - 1 < 6 and (j - 1 >= 0 and j - 1 < 10), A[T.max(T.min(i - 1, 5), 0), T.max(T.min(j - 1, 9), 0)], T.float32(0.0))
)");
  auto g = transform::partitionLoops(f);
  ASSERT_NE(g.get(), f.get());
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{6, 10}, {8, 12}});
  expectInterior(g, 1, 10);
  // The row test stays (it is the outer loop's), so does the result.
  EXPECT_TRUE(clampsOrTests(f->body, loops(f).back()->var.get()));
}

TEST(PartitionLoops, LoopsItCannotReadOrThatNeedNoCutStayAsTheyAre) {
  // A stride-3 column test (coefficient 3), a test through floormod, and a
  // Select whose test does not bound the loop: nothing to cut.
  for (const char* text : {R"(
@T.prim_func
def f(A: T.Buffer((30,), "float32"), B: T.Buffer((12,), "float32")):
    for j in T.vectorized(12):
        B[j] = T.Select(j * 3 - 1 >= 0 and j * 3 - 1 < 30, A[T.max(T.min(j * 3 - 1, 29), 0)], T.float32(0.0))
)",
                           R"(
@T.prim_func
def f(A: T.Buffer((12,), "float32"), B: T.Buffer((12,), "float32")):
    for j in T.vectorized(12):
        B[j] = T.Select(j % 3 < 2, A[j], T.float32(0.0))
)",
                           R"(
@T.prim_func
def f(A: T.Buffer((12,), "float32"), B: T.Buffer((12,), "float32")):
    for j in T.vectorized(12):
        B[j] = T.Select(A[j] > T.float32(0.0), A[j], T.float32(0.0))
)"}) {
    auto f = parseFunc(text);
    EXPECT_EQ(transform::partitionLoops(f).get(), f.get()) << text;
  }
}

TEST(PartitionLoops, StridedTapsInsideTheLoopAreCut) {
  // A 3x3/2 depthwise row reading its image directly: the column tests
  // j * 2 + kx - 1 hold for every tap from j = 1 on (kx ranges over the
  // inner tap loop), so the interior is [1, 6) with no clamp of j left.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((12,), "float32"), W: T.Buffer((3,), "float32"), B: T.Buffer((6,), "float32")):
    for j in T.vectorized(6):
        B[j] = T.float32(0.0)
        for kx in T.unroll(3):
            B[j] = B[j] + T.Select(j * 2 + kx - 1 >= 0 and j * 2 + kx - 1 < 12, A[T.max(T.min(j * 2 + kx - 1, 11), 0)], T.float32(0.0)) * W[kx]
)");
  auto g = transform::partitionLoops(f);
  ASSERT_NE(g.get(), f.get());
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{12}, {3}, {6}});
  expectInterior(g, 1, 5);
}

// --------------------------------------------------------------- UnrollLoops

TEST(UnrollLoops, SmallConstantLoopBecomesCopiesWithFreshInnerVariables) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for u in T.unroll(4):
        for x in T.vectorized(8):
            B[u, x] = A[u, x] * T.float32(3.0)
)");
  auto g = transform::unrollLoops(f);
  ASSERT_NE(g.get(), f.get());
  auto ls = loops(g);
  ASSERT_EQ(ls.size(), 4u); // four copies of the x loop, no u loop
  for (size_t k = 0; k < ls.size(); ++k) {
    EXPECT_EQ(ls[k]->forKind, ForKind::Vectorized);
    for (size_t j = 0; j < k; ++j)
      EXPECT_NE(ls[k]->var.get(), ls[j]->var.get()) << "each copy binds its own variable";
    auto* st = as<BufferStore>(ls[k]->body);
    ASSERT_TRUE(st);
    EXPECT_TRUE(isConstInt(st->indices[0], int64_t(k)));
  }
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{4, 8}, {4, 8}});
}

TEST(UnrollLoops, LargeOrSymbolicLoopsStayLoops) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, 4096), "float32"), B: T.Buffer((n, 4096), "float32")):
    for i in T.unroll(n):
        for j in T.unroll(4096):
            B[i, j] = A[i, j] + T.float32(1.0)
)");
  // 4096 copies exceed kMaxUnrollNodes; n is unknown.
  EXPECT_EQ(transform::unrollLoops(f).get(), f.get());
}

// ------------------------------------------------------------ VectorizeLoops

TEST(VectorizeLoops, LegalLoopsKeepTheirMarkIncludingTailsAndSymbolicExtents) {
  // 13 is no multiple of any vector width: LLVM adds the scalar remainder.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, 13), "float32"), B: T.Buffer((n, 13), "float32")):
    for i in T.serial(n):
        for j in T.vectorized(13):
            if A[i, j] > T.float32(0.0):
                B[i, j] = T.exp(A[i, j])
    for i2 in T.vectorized(n):
        B[i2, 0] = T.sqrt(T.fabs(A[i2, 0]))
)");
  EXPECT_EQ(transform::vectorizeLoops(f).get(), f.get());
}

TEST(VectorizeLoops, ShortUnrolledLoopsInsideKeepTheMarkLongOnesDoNot) {
  // The taps of a depthwise convolution left as an unrolled loop (too large
  // for UnrollLoops): LLVM unrolls 25 iterations before it vectorizes, so
  // x keeps its mark; 100 iterations (over the bound) or a serial loop are
  // still refused.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((8, 128), "float32"), B: T.Buffer((8, 8), "float32")):
    for x in T.vectorized(8):
        B[0, x] = T.float32(0.0)
        for t in T.unroll(25):
            B[0, x] = B[0, x] + A[0, x + t]
    for x2 in T.vectorized(8):
        B[1, x2] = T.float32(0.0)
        for t2 in T.unroll(100):
            B[1, x2] = B[1, x2] + A[1, x2 + t2]
    for x3 in T.vectorized(8):
        B[2, x3] = T.float32(0.0)
        for t3 in T.serial(25):
            B[2, x3] = B[2, x3] + A[2, x3 + t3]
)");
  auto g = transform::vectorizeLoops(f);
  std::map<std::string, const For*> byName;
  for (auto* l : loops(g))
    byName[l->var->name] = l;
  ASSERT_TRUE(byName.count("x") && byName.count("x2") && byName.count("x3"));
  EXPECT_EQ(byName["x"]->forKind, ForKind::Vectorized);
  EXPECT_EQ(byName["x2"]->forKind, ForKind::Serial);
  EXPECT_NE(byName["x2"]->annotations.getString(transform::kVectorizeRejectedAttr).find("t2"),
            std::string::npos);
  EXPECT_EQ(byName["x3"]->forKind, ForKind::Serial);
  expectSameResults(f, g, {{8, 128}, {8, 8}});
}

TEST(VectorizeLoops, IllegalLoopsBecomeSerialWithTheReason) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in T.vectorized(8):
        for j in T.serial(8):
            B[i, j] = A[i, j]
    for i2 in T.serial(8):
        for j2 in T.vectorized(8):
            B[i2, j2] = T.tanh(A[i2, j2])
    for i3 in T.vectorized(1):
        B[i3, 0] = A[i3, 0]
    for i4 in T.serial(8):
        for j4 in T.vectorized(8):
            with T.allocate((1,), "float32") as t:
                t[0] = A[i4, j4]
                B[i4, j4] = t[0]
)");
  auto g = transform::vectorizeLoops(f);
  ASSERT_NE(g.get(), f.get());
  std::map<std::string, std::string> reasons;
  for (auto* l : loops(g)) {
    EXPECT_NE(l->forKind, ForKind::Vectorized) << l->var->name;
    reasons[l->var->name] = l->annotations.getString(transform::kVectorizeRejectedAttr);
  }
  EXPECT_NE(reasons["i"].find("innermost"), std::string::npos) << reasons["i"];
  EXPECT_NE(reasons["j2"].find("tanh"), std::string::npos) << reasons["j2"];
  EXPECT_NE(reasons["i3"].find("extent 1"), std::string::npos) << reasons["i3"];
  EXPECT_NE(reasons["j4"].find("allocates"), std::string::npos) << reasons["j4"];
  EXPECT_EQ(reasons["j"], "");
  expectWellFormedAndRoundTrips(g);
  expectSameResults(f, g, {{8, 8}, {8, 8}});
}

// ------------------------------------------------------------------ pipeline

TEST(TirPasses, DefaultPipelineRecordsEachTensorPassBeforeLowerToExecutor) {
  auto* p = transform::findPipeline("default");
  ASSERT_NE(p, nullptr);
  const std::vector<std::string> tail = {"SkipPaddingTaps",     "PartitionLoops", "StorageRewrite",
                                         "PromoteAccumulators", "FlattenBuffers", "LowerIntrinsics",
                                         "UnrollLoops",         "VectorizeLoops", "MakePackedAPI",
                                         "LowerToExecutor"};
  ASSERT_GE(p->passes.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(p->passes.end() - long(tail.size()), p->passes.end()), tail);
  for (auto& name : tail)
    EXPECT_NE(transform::findPass(name), nullptr) << name;

  IRModule m = text::parseModule(kKernelModule, "tir_passes_test");
  BuildOptions opts; // the default pipeline, recorded
  BuildResult r = build(m, opts);
  std::map<std::string, bool> changed;
  for (auto& rec : r.records)
    changed[rec.name] = changed[rec.name] || rec.changed;
  EXPECT_TRUE(changed["FlattenBuffers"]);
  EXPECT_TRUE(changed["LowerIntrinsics"]); // sigmoid and erf
  EXPECT_TRUE(changed["MakePackedAPI"]);
  auto f = cast<PrimFunc>(r.lowered->lookup("f"));
  ASSERT_TRUE(f);
  EXPECT_TRUE(transform::hasFlatBuffers(*f));
  EXPECT_TRUE(transform::hasPackedAPI(*f));
  EXPECT_EQ(countCalls(f, "erf"), 0);
  std::vector<Tensor> in{randomTensor({5, 6}, 9, -3.0, 3.0)};
  auto out = r.executable->runTensors(in);
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      double a = in[0].getDouble(i * 6 + j), a5 = in[0].getDouble(i * 6 + 5 - j);
      double want = 2.0 / (1.0 + std::exp(-a5)) + std::erf(a);
      EXPECT_NEAR(out[0].getDouble(i * 6 + j), want, 2e-6);
    }
}
