// Compute-location and cache primitives (cacheRead, cacheWrite, computeAt,
// reverseComputeAt, reverseComputeInline): the loop structure they leave,
// the values (interpreter, which also checks every access against the
// blocks' declared regions, against hand-written references), their
// refusals (which change nothing), replay and the JSON round trip.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/ir/arith.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/transform/call_tir.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule;
using namespace unity::schedule::testing;

namespace {

std::vector<int64_t> extents(const Schedule& s, const std::vector<LoopRV>& loops) {
  std::vector<int64_t> out;
  for (auto& l : loops)
    out.push_back(asConstInt(s.loop(l)->extent).value_or(-1));
  return out;
}

/// D[i, j] = max(sum_k A[i, k] * B[k, j] + bias[j], 0): a matmul with a
/// bias + relu epilogue in its own nest, as FuseTIR + inlining leave it.
struct Epilogue {
  int64_t m, n, k;
  PrimFuncRef f;
  unity::Tensor a, b, bias, want;
  Epilogue(int64_t m, int64_t n, int64_t k) : m(m), n(n), k(k) {
    auto A = te::placeholder({intImm(m), intImm(k)}, DataType::Float32(), "A");
    auto B = te::placeholder({intImm(k), intImm(n)}, DataType::Float32(), "B");
    auto Bias = te::placeholder({intImm(n)}, DataType::Float32(), "bias");
    auto C = te::topi::matmul(A, B, "C");
    auto D = te::compute(
        {intImm(m), intImm(n)},
        [&](const std::vector<PrimExpr>& i) {
          return max(C({i[0], i[1]}) + Bias({i[1]}), floatImm(0.0));
        },
        "D");
    f = te::createPrimFunc({A, B, Bias, D});
    a = randomTensor({m, k}, 1);
    b = randomTensor({k, n}, 2);
    bias = randomTensor({n}, 3);
    want = unity::Tensor(DataType::Float32(), {m, n});
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = bias.getDouble(j);
        for (int64_t r = 0; r < k; ++r)
          s += a.getDouble(i * k + r) * b.getDouble(r * n + j);
        want.setDouble(i * n + j, std::max(0.0, s));
      }
  }
  ::testing::AssertionResult check(const PrimFuncRef& g) const {
    return close(run(g, {a, b, bias}, {m, n}), want);
  }
};

/// Splits C's i by 4 and j by 8 into io, jo, k, ii, ji; returns {io, jo, k}.
std::vector<LoopRV> tileMatmul(Schedule& s) {
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  auto i = s.split(l[0], {-1, 4});
  auto j = s.split(l[1], {-1, 8});
  s.reorder({i[0], j[0], l[2], i[1], j[1]});
  return {i[0], j[0], l[2]};
}

void expectReplays(const PrimFuncRef& f, const Schedule& s) {
  Trace back = Trace::fromJsonString(s.trace().toJsonString());
  EXPECT_EQ(back, s.trace());
  Schedule r = Schedule::replay(f, back);
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  EXPECT_EQ(r.trace(), s.trace());
}

/// Refusals change neither the function nor the trace.
template <class F> std::string refusal(Schedule& s, F&& fn) {
  auto before = s.func();
  size_t steps = s.trace().size();
  std::string err = errorOf(fn);
  EXPECT_TRUE(sameNode(s.func(), before)) << err;
  EXPECT_EQ(s.trace().size(), steps) << err;
  return err;
}

/// The scheduled function compiled (no DefaultSchedule) and run.
unity::Tensor buildAndRun(const PrimFuncRef& f, const std::vector<unity::Tensor>& inputs) {
  BuildOptions opts;
  opts.passes = {"Normalize",      "LowerBlocks",    "Simplify",        "PartitionLoops",
                 "StorageRewrite", "FlattenBuffers", "LowerIntrinsics", "VectorizeLoops",
                 "MakePackedAPI",  "LowerToExecutor"};
  opts.config.set("tir.num_cores", int64_t(1));
  return build(transform::moduleCallingPrimFunc(f), opts).executable->runTensors(inputs).at(0);
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST(ComputePrimitives, ReverseComputeAtRunsTheEpilogueAfterEachTile) {
  Epilogue e(8, 16, 5);
  Schedule s(e.f);
  auto t = tileMatmul(s);
  s.reverseComputeAt(s.getBlock("D"), t[1]);
  // D now sits under io, jo (after the reduction over the tile) on a 4 x 8
  // tile of its own.
  auto dl = s.getLoops(s.getBlock("D"));
  ASSERT_EQ(dl.size(), 4u);
  EXPECT_EQ(dl[0].var.get(), t[0].var.get());
  EXPECT_EQ(dl[1].var.get(), t[1].var.get());
  EXPECT_EQ(extents(s, dl), (std::vector<int64_t>{2, 2, 4, 8}));
  auto jo = s.loop(t[1]);
  auto* seq = as<SeqStmt>(jo->body);
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  EXPECT_EQ(s.getBlocksUnder(t[2]).size(), 1u);                // k holds C alone: D follows it
  EXPECT_FALSE(s.block(s.getBlock("D"))->predicate.defined()); // tiles divide: exact
  EXPECT_EQ(allLoops(s.func()).size(), 7u);                    // D's old nest is gone
  EXPECT_TRUE(e.check(s.func()));
  EXPECT_EQ(s.trace().instructions().back().kind, "reverse_compute_at");
  expectReplays(e.f, s);
}

TEST(ComputePrimitives, ReverseComputeAtAfterDecomposeAndWithARaggedTile) {
  Epilogue e(10, 12, 3);
  Schedule s(e.f);
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  auto i = s.split(l[0], {-1, 4}); // 3 x 4 > 10: predicated
  s.reorder({i[0], l[1], l[2], i[1]});
  s.decomposeReduction(c, l[2]);
  s.reverseComputeAt(s.getBlock("D"), l[1]);
  auto dl = s.getLoops(s.getBlock("D"));
  EXPECT_EQ(extents(s, dl), (std::vector<int64_t>{3, 12, 4, 1}));
  // The last row tile passes the edge: D keeps to its domain.
  EXPECT_TRUE(s.block(s.getBlock("D"))->predicate.defined());
  EXPECT_TRUE(e.check(s.func()));
  expectReplays(e.f, s);
}

TEST(ComputePrimitives, ReverseComputeAtRefusals) {
  Epilogue e(8, 16, 5);
  Schedule s(e.f);
  auto t = tileMatmul(s);
  auto d = s.getBlock("D");
  // Under k the tile holds partial sums.
  std::string err = refusal(s, [&] { s.reverseComputeAt(d, t[2]); });
  EXPECT_TRUE(has(err, "block 'D'") && has(err, "'k'") && has(err, "partial")) << err;
  // C is the reduction, not a consumer.
  err = refusal(s, [&] { s.reverseComputeAt(s.getBlock("C"), t[1]); });
  EXPECT_TRUE(has(err, "reduction")) << err;
  // A loop of D's own nest.
  err = refusal(s, [&] { s.reverseComputeAt(d, s.getLoops(d)[0]); });
  EXPECT_TRUE(has(err, "own loop nest")) << err;
}

TEST(ComputePrimitives, ReverseComputeAtOverAFlattenedIndex) {
  // W[p] = sum_r A[r, p] over flat positions p = y * 6 + x, and
  // O[y, x] = W[y * 6 + x] * 2 for the 5 valid columns (the wide
  // convolution's crop). Tiles of 8 positions cut rows unevenly.
  auto A = te::placeholder({intImm(3), intImm(24)}, DataType::Float32(), "A");
  auto r = te::reduceAxis(intImm(3), "r");
  auto W = te::compute(
      {intImm(24)},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(A({r.var, i[0]}), {r});
      },
      "W");
  auto O = te::compute(
      {intImm(4), intImm(5)},
      [&](const std::vector<PrimExpr>& i) { return W({i[0] * intImm(6) + i[1]}) * floatImm(2.0); },
      "O");
  auto f = te::createPrimFunc({A, O});
  auto a = randomTensor({3, 24}, 7);
  unity::Tensor want(DataType::Float32(), {4, 5});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) {
      double acc = 0;
      for (int k = 0; k < 3; ++k)
        acc += a.getDouble(k * 24 + y * 6 + x);
      want.setDouble(y * 5 + x, 2 * acc);
    }
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("W"));
  auto p = s.split(l[0], {-1, 8});
  s.reorder({p[0], l[1], p[1]});
  s.reverseComputeAt(s.getBlock("O"), p[0]);
  auto ol = s.getLoops(s.getBlock("O"));
  // O walks the tile's 8 flat positions (row p / 6, column p % 6),
  // predicated to the 5 valid columns.
  ASSERT_EQ(ol.size(), 2u);
  EXPECT_EQ(ol[0].var.get(), p[0].var.get());
  EXPECT_EQ(extents(s, ol), (std::vector<int64_t>{3, 8}));
  EXPECT_TRUE(s.block(s.getBlock("O"))->predicate.defined());
  EXPECT_TRUE(close(run(s.func(), {a}, {4, 5}), want));
  EXPECT_TRUE(close(buildAndRun(s.func(), {a}), want));
  expectReplays(f, s);
}

TEST(ComputePrimitives, ReverseComputeAtOverABlockedLayout) {
  // Wb[ob, p, oi] = sum_r A[r, p] * (ob * 4 + oi) (channels blocked by 4,
  // the block innermost) and O[o, p] = Wb[o / 4, p, o % 4] + 1 in the plain
  // layout (the blocked convolution's copy back to NCHW). Under Wb's loop
  // over ob, one iteration writes a whole block, so O covers channels
  // ob * 4 .. ob * 4 + 3; under p only part of each block would be written
  // per iteration of a loop over oi split off it, which is refused.
  auto A = te::placeholder({intImm(3), intImm(5)}, DataType::Float32(), "A");
  auto r = te::reduceAxis(intImm(3), "r");
  auto Wb = te::compute(
      {intImm(2), intImm(5), intImm(4)},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(A({r.var, i[1]}) * cast(DataType::Float32(), i[0] * intImm(4) + i[2]), {r});
      },
      "Wb");
  auto O = te::compute(
      {intImm(8), intImm(5)},
      [&](const std::vector<PrimExpr>& i) {
        return Wb({floordiv(i[0], intImm(4)), i[1], floormod(i[0], intImm(4))}) + floatImm(1.0);
      },
      "O");
  auto f = te::createPrimFunc({A, O});
  auto a = randomTensor({3, 5}, 8);
  unity::Tensor want(DataType::Float32(), {8, 5});
  for (int o = 0; o < 8; ++o)
    for (int p = 0; p < 5; ++p) {
      double acc = 0;
      for (int k = 0; k < 3; ++k)
        acc += a.getDouble(k * 5 + p) * o;
      want.setDouble(o * 5 + p, acc + 1);
    }
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("Wb"));
  s.reverseComputeAt(s.getBlock("O"), l[0]);
  auto ol = s.getLoops(s.getBlock("O"));
  ASSERT_EQ(ol.size(), 3u);
  EXPECT_EQ(ol[0].var.get(), l[0].var.get());
  EXPECT_EQ(extents(s, ol), (std::vector<int64_t>{2, 4, 5}));
  EXPECT_FALSE(s.block(s.getBlock("O"))->predicate.defined());
  EXPECT_TRUE(close(run(s.func(), {a}, {8, 5}), want));
  EXPECT_TRUE(close(buildAndRun(s.func(), {a}), want));
  expectReplays(f, s);

  Schedule t(f);
  auto tl = t.getLoops(t.getBlock("Wb"));
  auto oi = t.split(tl[2], {2, 2});
  t.reorder({tl[0], oi[0], tl[1], tl[3], oi[1]});
  std::string err = refusal(t, [&] { t.reverseComputeAt(t.getBlock("O"), oi[0]); });
  EXPECT_TRUE(has(err, "o % 4") || has(err, "% 4")) << err;
  EXPECT_TRUE(has(err, "only a part")) << err;
}

TEST(ComputePrimitives, ComputeAtComputesTheRowsATileReads) {
  // T = A * 2 feeds C = T x B; T moves under C's row tile: 4 rows of T
  // per tile instead of all of them up front.
  auto A = te::placeholder({intImm(8), intImm(6)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(6), intImm(5)}, DataType::Float32(), "B");
  auto T = te::compute(
      {intImm(8), intImm(6)},
      [&](const std::vector<PrimExpr>& i) {
        return A({i[0], i[1]}) * floatImm(2.0);
      },
      "T");
  auto C = te::topi::matmul(T, B, "C");
  auto f = te::createPrimFunc({A, B, C});
  auto a = randomTensor({8, 6}, 4), b = randomTensor({6, 5}, 5);
  unity::Tensor a2(DataType::Float32(), {8, 6}); // (a copy would share a's storage)
  for (int64_t i = 0; i < a2.numel(); ++i)
    a2.setDouble(i, 2 * a.getDouble(i));
  auto want = matmulRef(a2, b);

  Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  auto i = s.split(l[0], {-1, 4});
  std::string err = refusal(s, [&] { s.computeAt(s.getBlock("C"), i[0]); });
  EXPECT_TRUE(has(err, "parameter")) << err;
  err = refusal(s, [&] { s.computeAt(s.getBlock("T"), s.getLoops(s.getBlock("T"))[0]); });
  EXPECT_TRUE(has(err, "own loop nest")) << err;
  s.computeAt(s.getBlock("T"), i[0]);
  auto tl = s.getLoops(s.getBlock("T"));
  ASSERT_EQ(tl.size(), 3u);
  EXPECT_EQ(tl[0].var.get(), i[0].var.get());
  EXPECT_EQ(extents(s, tl), (std::vector<int64_t>{2, 4, 6}));
  // T comes first in the tile.
  EXPECT_EQ(s.getBlocksUnder(i[0])[0].name, "T");
  EXPECT_TRUE(close(run(s.func(), {a, b}, {8, 5}), want));
  EXPECT_EQ(s.trace().instructions().back().kind, "compute_at");
  expectReplays(f, s);
}

TEST(ComputePrimitives, ComputeAtUnderARowOfSymbolicLength) {
  // S[i] = sum_k T[i, k], T = X * 2, over m rows of n (both symbolic): T
  // moves under S's row loop and computes one row of n per iteration, with
  // no predicate (its bindings stay inside the symbolic ranges).
  auto m = primVar("m"), n = primVar("n");
  auto X = te::placeholder({m, n}, DataType::Float32(), "X");
  auto T = te::compute(
      {m, n}, [&](const std::vector<PrimExpr>& i) { return X(i) * floatImm(2.0); }, "T");
  auto k = te::reduceAxis(n, "k");
  auto S = te::compute(
      {m},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(T({i[0], k.var}), {k});
      },
      "S");
  auto f = te::createPrimFunc({X, S});
  Schedule s(f);
  auto row = s.getLoops(s.getBlock("S"))[0];
  s.computeAt(s.getBlock("T"), row);
  auto tl = s.getLoops(s.getBlock("T"));
  ASSERT_EQ(tl.size(), 3u); // the row loop, one row, n columns
  EXPECT_EQ(tl[0].var.get(), row.var.get());
  EXPECT_TRUE(arith::provablyEqual(s.loop(tl[2])->extent, n));
  EXPECT_FALSE(s.block(s.getBlock("T"))->predicate);
  EXPECT_EQ(s.getBlocksUnder(row)[0].name, "T");
  for (int64_t rows : {1, 3})
    for (int64_t len : {1, 5, 37}) {
      auto x = randomTensor({rows, len}, 6 + static_cast<uint32_t>(len));
      unity::Tensor want(DataType::Float32(), {rows});
      for (int64_t i = 0; i < rows; ++i) {
        double acc = 0;
        for (int64_t j = 0; j < len; ++j)
          acc += 2 * x.getDouble(i * len + j);
        want.setDouble(i, acc);
      }
      EXPECT_TRUE(close(run(s.func(), {x}, {rows}), want)) << rows << "x" << len;
      EXPECT_TRUE(close(buildAndRun(s.func(), {x}), want)) << rows << "x" << len;
    }
  expectReplays(f, s);
}

TEST(ComputePrimitives, CacheReadThenComputeAtMakesATileCopy) {
  auto f = te::matmulPrimFunc(8, 6, 5);
  auto a = randomTensor({8, 5}, 8), b = randomTensor({5, 6}, 9);
  auto want = matmulRef(a, b);
  Schedule s(f);
  auto c = s.getBlock("C");
  std::string err = refusal(s, [&] { s.cacheRead(c, 7, "local"); });
  EXPECT_TRUE(has(err, "out of range") && has(err, "'C'")) << err;
  err = refusal(s, [&] { s.cacheRead(c, 0, "shared"); });
  EXPECT_TRUE(has(err, "scope 'shared'")) << err;
  ASSERT_EQ(s.block(c)->reads[0].buffer->name, "A");
  auto copy = s.cacheRead(c, 0, "local");
  EXPECT_EQ(copy.name, "A_local");
  EXPECT_EQ(s.getBlocks().size(), 2u);
  EXPECT_EQ(s.getBlocks()[0].name, "A_local"); // right before C's nest
  EXPECT_EQ(s.block(c)->reads[0].buffer->name, "A_local");
  EXPECT_EQ(s.block(c)->reads[0].buffer->scope, "local");
  EXPECT_TRUE(close(run(s.func(), {a, b}, {8, 6}), want));
  // Composed with computeAt: a 2 x 5 slice of A per row tile.
  auto i = s.split(s.getLoops(c)[0], {-1, 2});
  s.computeAt(copy, i[0]);
  EXPECT_EQ(extents(s, s.getLoops(copy)), (std::vector<int64_t>{4, 2, 5}));
  EXPECT_TRUE(close(run(s.func(), {a, b}, {8, 6}), want));
  EXPECT_TRUE(close(buildAndRun(s.func(), {a, b}), want));
  EXPECT_EQ(s.trace().instructions()[0].kind, "cache_read");
  expectReplays(f, s);
}

TEST(ComputePrimitives, CacheWriteThenReverseComputeAtWritesBackPerTile) {
  auto f = te::matmulPrimFunc(8, 16, 5);
  auto a = randomTensor({8, 5}, 10), b = randomTensor({5, 16}, 11);
  auto want = matmulRef(a, b);
  Schedule s(f);
  auto c = s.getBlock("C");
  auto copy = s.cacheWrite(c, 0, "local");
  EXPECT_EQ(copy.name, "C_local");
  EXPECT_EQ(s.getBlocks().size(), 2u);
  EXPECT_EQ(s.getBlocks()[1].name, "C_local"); // after C's nest
  EXPECT_EQ(s.block(c)->writes[0].buffer->name, "C_local");
  EXPECT_TRUE(close(run(s.func(), {a, b}, {8, 16}), want));
  auto t = tileMatmul(s);
  s.reverseComputeAt(copy, t[1]);
  EXPECT_EQ(extents(s, s.getLoops(copy)), (std::vector<int64_t>{2, 2, 4, 8}));
  EXPECT_TRUE(close(run(s.func(), {a, b}, {8, 16}), want));
  EXPECT_TRUE(close(buildAndRun(s.func(), {a, b}), want));
  expectReplays(f, s);
}

TEST(ComputePrimitives, CacheWriteRefusesASplitReduction) {
  auto f = te::matmulPrimFunc(4, 4, 4);
  Schedule s(f);
  auto c = s.getBlock("C");
  s.decomposeReduction(c, s.getLoops(c)[2]);
  std::string err = refusal(s, [&] { s.cacheWrite(c, 0, "local"); });
  EXPECT_TRUE(has(err, "'C_init'") && has(err, "writes too")) << err;
  err = refusal(s, [&] { s.cacheWrite(c, 1, "local"); });
  EXPECT_TRUE(has(err, "out of range")) << err;
}

TEST(ComputePrimitives, ReverseComputeInlineFoldsTheConsumerIntoTheProducer) {
  auto A = te::placeholder({intImm(3), intImm(8)}, DataType::Float32(), "A");
  auto B = te::placeholder({intImm(3), intImm(8)}, DataType::Float32(), "B");
  auto Bias = te::placeholder({intImm(8)}, DataType::Float32(), "bias");
  auto T = te::topi::add(A, B, "T");
  // R[i, j] = max(T[i, j] + bias[j], 0)
  auto R = te::compute(
      {intImm(3), intImm(8)},
      [&](const std::vector<PrimExpr>& i) {
        return max(T({i[0], i[1]}) + Bias({i[1]}), floatImm(0.0));
      },
      "R");
  auto f = te::createPrimFunc({A, B, Bias, R});
  auto a = randomTensor({3, 8}, 12), b = randomTensor({3, 8}, 13), bias = randomTensor({8}, 14);
  unity::Tensor want(DataType::Float32(), {3, 8});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 8; ++j)
      want.setDouble(i * 8 + j, std::max(0.0, a.getDouble(i * 8 + j) + b.getDouble(i * 8 + j) +
                                                  bias.getDouble(j)));
  Schedule s(f);
  s.reverseComputeInline(s.getBlock("R"));
  auto blocks = s.getBlocks();
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].name, "T");
  auto* st = as<BufferStore>(s.block(blocks[0])->body);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->buffer->name, "R");
  EXPECT_EQ(allLoops(s.func()).size(), 2u);
  walkStmt(s.func()->body, [&](const Stmt& x) {
    if (auto* blk = as<Block>(x)) {
      for (auto& al : blk->allocs) {
        EXPECT_NE(al->name, "T");
      }
    }
  });
  EXPECT_TRUE(close(run(s.func(), {a, b, bias}, {3, 8}), want));
  EXPECT_TRUE(close(buildAndRun(s.func(), {a, b, bias}), want));
  EXPECT_EQ(s.trace().instructions().back().kind, "reverse_compute_inline");
  expectReplays(f, s);
}

TEST(ComputePrimitives, ReverseComputeInlineRefusals) {
  {
    Epilogue e(4, 4, 4); // D reads the reduction C
    Schedule s(e.f);
    std::string err = refusal(s, [&] { s.reverseComputeInline(s.getBlock("D")); });
    EXPECT_TRUE(has(err, "block 'D'") && has(err, "reduction")) << err;
  }
  {
    // A stencil reads two elements of T.
    auto A = te::placeholder({intImm(6)}, DataType::Float32(), "A");
    auto T = te::topi::relu(A, "T");
    auto S = te::compute(
        {intImm(5)},
        [&](const std::vector<PrimExpr>& i) { return T({i[0]}) + T({i[0] + intImm(1)}); }, "S");
    Schedule s(te::createPrimFunc({A, S}));
    std::string err = refusal(s, [&] { s.reverseComputeInline(s.getBlock("S")); });
    EXPECT_TRUE(has(err, "at different indices")) << err;
  }
  {
    // A consumer smaller than its input: it does not cover T.
    auto A = te::placeholder({intImm(6)}, DataType::Float32(), "A");
    auto T = te::topi::relu(A, "T");
    auto S = te::compute(
        {intImm(5)}, [&](const std::vector<PrimExpr>& i) { return T({i[0]}); }, "S");
    Schedule s(te::createPrimFunc({A, S}));
    std::string err = refusal(s, [&] { s.reverseComputeInline(s.getBlock("S")); });
    EXPECT_TRUE(has(err, "over a range other than dimension 0")) << err;
  }
}

TEST(ComputePrimitives, TraceOfAllFiveRoundTrips) {
  Epilogue e(8, 16, 5);
  Schedule s(e.f);
  auto c = s.getBlock("C");
  auto rd = s.cacheRead(c, 1, "global");
  auto t = tileMatmul(s);
  s.computeAt(rd, t[1]);
  s.reverseComputeAt(s.getBlock("D"), t[1]);
  EXPECT_TRUE(e.check(s.func()));
  EXPECT_TRUE(close(buildAndRun(s.func(), {e.a, e.b, e.bias}), e.want));
  std::string text = s.trace().str();
  EXPECT_TRUE(has(text, "cache_read(C, [1, 0])")) << text;
  EXPECT_TRUE(has(text, "compute_at(B_global, C[1])")) << text;
  EXPECT_TRUE(has(text, "reverse_compute_at(D, B_global[1])")) << text;
  expectReplays(e.f, s);
}

TEST(ComputePrimitives, MalformedInstructionsAreReplayErrors) {
  Epilogue e(4, 4, 4);
  auto err = [&](const std::string& json) {
    return errorOf([&] { Schedule::replay(e.f, Trace::fromJsonString(json)); });
  };
  std::string m = err(R"({"instructions": [{"kind": "cache_read", "blocks": ["C"],
                                            "decision": [0]}]})");
  EXPECT_TRUE(has(m, "instruction 0 (cache_read)") && has(m, "scope 0 or 1")) << m;
  m = err(R"({"instructions": [{"kind": "reverse_compute_at", "blocks": ["D"]}]})");
  EXPECT_TRUE(has(m, "expects 1 loop(s), got 0")) << m;
  m = err(R"({"instructions": [{"kind": "reverse_compute_inline", "blocks": ["nope"]}]})");
  EXPECT_TRUE(has(m, "no block named 'nope'")) << m;
}
