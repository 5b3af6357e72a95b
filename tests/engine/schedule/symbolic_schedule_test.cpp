// Symbolic extents: the splitWithTail primitive (a predicate-free main nest
// plus a remainder loop) and the default schedule's register tile applied to
// matmuls whose row count (or column count) is a shape variable. Checked on
// the structure and on the values at sizes that are and are not multiples of
// the tile (interpreter and build + run against hand-written references).
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/te/topi.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;
using schedule::LoopRV;
using schedule::Schedule;

namespace {

/// C[i, j] = sum_k A[i, k] * B[k, j] with M = the shape variable n.
PrimFuncRef symbolicMatmul(int64_t n, int64_t k) {
  return te::matmulPrimFunc(primVar("n"), intImm(n), intImm(k));
}

/// S[h, i, j] = sum_d Q[h, i, d] * K[h, d, j] with i, j < n (attention scores).
PrimFuncRef symbolicScores(int64_t heads, int64_t d) {
  auto n = primVar("n");
  auto Q = te::placeholder({intImm(heads), n, intImm(d)}, DataType::Float32(), "Q");
  auto K = te::placeholder({intImm(heads), intImm(d), n}, DataType::Float32(), "K");
  return te::createPrimFunc({Q, K, te::topi::matmul(Q, K, "S")});
}

unity::Tensor scoresRef(const unity::Tensor& q, const unity::Tensor& k) {
  int64_t h = q.shape()[0], n = q.shape()[1], d = q.shape()[2];
  unity::Tensor s(DataType::Float32(), {h, n, n});
  for (int64_t b = 0; b < h; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t r = 0; r < d; ++r)
          acc += q.getDouble((b * n + i) * d + r) * k.getDouble((b * d + r) * n + j);
        s.setDouble((b * n + i) * n + j, acc);
      }
  return s;
}

/// The function built for the executor (Normalize .. LowerToExecutor with
/// the default schedule); the graph's shapes share f's shape variable.
std::shared_ptr<runtime::Executable> buildExe(const PrimFuncRef& f) {
  BuildOptions opts;
  opts.passes = {"Normalize", "DefaultSchedule", "LowerBlocks", "Simplify", "LowerToExecutor"};
  opts.config.set("tir.num_cores", int64_t(2));
  return build(transform::moduleCallingPrimFunc(f), opts).executable;
}

bool hasPredicate(const PrimFuncRef& f) {
  for (auto* b : allBlocks(f))
    if (b->predicate && !isConstInt(b->predicate, 1))
      return true;
  return false;
}

/// The loops around block `name` of f, outermost first.
std::vector<Ref<For>> loopsOf(const PrimFuncRef& f, const std::string& name) {
  Schedule s(f);
  std::vector<Ref<For>> out;
  for (auto& l : s.getLoops(s.getBlock(name)))
    out.push_back(s.loop(l));
  return out;
}

} // namespace

TEST(SplitWithTail, SymbolicExtentGivesAMainNestAndATail) {
  auto f = symbolicMatmul(5, 3);
  Schedule s(f);
  auto loops = s.getLoops(s.getBlock("C"));
  auto parts = s.splitWithTail(loops[0], 4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_FALSE(asConstInt(s.loop(parts[0])->extent).has_value()); // n / 4
  EXPECT_EQ(asConstInt(s.loop(parts[1])->extent), 4);
  EXPECT_FALSE(asConstInt(s.loop(parts[2])->extent).has_value()); // n % 4
  EXPECT_FALSE(hasPredicate(s.func()));
  // The tail holds a renamed copy with its own loop variables.
  auto tail = s.getBlocksUnder(parts[2]);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].name, "C_tail");
  EXPECT_EQ(s.getLoops(tail[0]).size(), 3u);
  EXPECT_NE(s.getLoops(tail[0])[1].var.get(), s.getLoops(s.getBlock("C"))[2].var.get());
  // The other primitives work on both nests.
  s.vectorize(s.getLoops(s.getBlock("C"))[2]);
  s.unroll(parts[1]);
  s.decomposeReduction(tail[0], s.getLoops(tail[0])[2]);
  for (int64_t n : {1, 3, 4, 7, 8, 9}) {
    auto a = randomTensor({n, 3}, 10), b = randomTensor({3, 5}, 11);
    EXPECT_TRUE(close(run(s.func(), {a, b}, {n, 5}), matmulRef(a, b))) << "n=" << n;
  }
}

TEST(SplitWithTail, ConstantExtents) {
  auto f = te::matmulPrimFunc(8, 3, 2);
  Schedule exact(f);
  auto parts = exact.splitWithTail(exact.getLoops(exact.getBlock("C"))[0], 4);
  EXPECT_EQ(parts.size(), 2u); // 8 = 2 * 4: no tail
  EXPECT_EQ(allBlocks(exact.func()).size(), 1u);

  auto g = te::matmulPrimFunc(10, 3, 2);
  Schedule s(g);
  parts = s.splitWithTail(s.getLoops(s.getBlock("C"))[0], 4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(asConstInt(s.loop(parts[0])->extent), 2);
  EXPECT_EQ(asConstInt(s.loop(parts[2])->extent), 2);
  auto a = randomTensor({10, 2}, 12), b = randomTensor({2, 3}, 13);
  EXPECT_TRUE(close(run(s.func(), {a, b}, {10, 3}), matmulRef(a, b)));
  EXPECT_NE(errorOf([&] { s.splitWithTail(parts[1], 0); }).find("factor 0 is not positive"),
            std::string::npos);
}

TEST(SplitWithTail, TraceReplaysAndTailNamesStayUnique) {
  auto f = symbolicMatmul(6, 4);
  Schedule s(f);
  auto parts = s.splitWithTail(s.getLoops(s.getBlock("C"))[0], 4);
  // Splitting the tail's loop again names the second copy C_tail_tail.
  auto again = s.splitWithTail(s.getLoops(s.getBlock("C_tail"))[1], 4);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(s.getBlocksUnder(again[2])[0].name, "C_tail_tail");
  s.vectorize(s.getLoops(s.getBlock("C"))[2]);
  auto json = s.trace().toJsonString();
  EXPECT_NE(json.find("split_tail"), std::string::npos);
  Schedule r = Schedule::replay(f, schedule::Trace::fromJsonString(json));
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  for (int64_t n : {2, 13}) {
    auto a = randomTensor({n, 4}, 14), b = randomTensor({4, 6}, 15);
    EXPECT_TRUE(close(run(r.func(), {a, b}, {n, 6}), matmulRef(a, b))) << "n=" << n;
  }
}

TEST(DefaultScheduleSymbolic, MatmulWithSymbolicRowsGetsTheStaticTile) {
  // n x 768 * 768 x 768: the static rule's tile on the main nest,
  // unpredicated. Any U fits a symbolic row count (the rows left over go to
  // a tail nest), so 64 x 6 (24 accumulators, 10 loads per step) wins over
  // the 48 x 8 that M = 128 gets (24 accumulators, 11 loads).
  auto f = symbolicMatmul(768, 768);
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  EXPECT_FALSE(hasPredicate(g));
  auto inner = loopsOf(g, "C");
  ASSERT_GE(inner.size(), 3u);
  EXPECT_EQ(inner.back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(inner.back()->extent), 64);
  EXPECT_EQ(inner[inner.size() - 2]->forKind, ForKind::Unrolled);
  EXPECT_EQ(asConstInt(inner[inner.size() - 2]->extent), 6);
  auto tail = loopsOf(g, "C_tail");
  EXPECT_EQ(tail.back()->forKind, ForKind::Vectorized);

  // Values, with rows that are and are not multiples of the tile.
  auto small = symbolicMatmul(96, 20);
  auto h = transform::defaultSchedule(small, avx512Policy(2));
  EXPECT_EQ(countLoops(h, ForKind::Unrolled), 1);
  EXPECT_FALSE(hasPredicate(h));
  auto b = randomTensor({20, 96}, 21);
  auto exe = buildExe(small);
  for (int64_t n : {1, 7, 8, 9, 129}) {
    auto a = randomTensor({n, 20}, 20);
    auto want = matmulRef(a, b);
    EXPECT_TRUE(close(run(h, {a, b}, {n, 96}), want)) << "interpreter, n=" << n;
    EXPECT_TRUE(close(exe->runTensors({a, b}).at(0), want)) << "build, n=" << n;
  }
}

TEST(DefaultScheduleSymbolic, AttentionScoresWithSymbolicRowsAndColumns) {
  // Both the output's last axis (x) and the rows (u) are symbolic: x splits
  // by 4 vectors, the rows by the tile's U, each leaving a tail.
  auto f = symbolicScores(2, 16);
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  EXPECT_FALSE(hasPredicate(g));
  auto inner = loopsOf(g, "S");
  EXPECT_EQ(inner.back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(inner.back()->extent), 64);
  EXPECT_EQ(inner[inner.size() - 2]->forKind, ForKind::Unrolled);
  EXPECT_GE(allBlocks(g).size(), 4u); // main, row tail, column tail, inits
  auto exe = buildExe(f);
  for (int64_t n : {1, 7, 64, 70}) { // 70 = 64 + 6: both tails
    auto q = randomTensor({2, n, 16}, 30), k = randomTensor({2, 16, n}, 31);
    auto want = scoresRef(q, k);
    EXPECT_TRUE(close(run(g, {q, k}, {2, n, n}), want)) << "interpreter, n=" << n;
    EXPECT_TRUE(close(exe->runTensors({q, k}).at(0), want)) << "build, n=" << n;
  }
}
