// DefaultSchedule row reductions: softmax and layer norm reduce along the
// input's contiguous axis. The schedule factors them along that axis
// (rfactor: one partial result per vector lane, folded per row), so every
// vectorized loop reads the input contiguously; checked on the loop
// structure and on the values (hand-written references, interpreter and
// build + run) for constant and symbolic row lengths, including rows
// shorter than a vector and lengths that leave a tail.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/build.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/te/topi.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;
using schedule::Schedule;

namespace {

/// Softmax over the last axis of rows x n, in double.
unity::Tensor softmaxRef(const unity::Tensor& x, int64_t rows, int64_t n) {
  unity::Tensor out(DataType::Float32(), {rows, n});
  for (int64_t i = 0; i < rows; ++i) {
    double m = -INFINITY, s = 0;
    for (int64_t k = 0; k < n; ++k)
      m = std::max(m, x.getDouble(i * n + k));
    for (int64_t k = 0; k < n; ++k)
      s += std::exp(x.getDouble(i * n + k) - m);
    for (int64_t k = 0; k < n; ++k)
      out.setDouble(i * n + k, std::exp(x.getDouble(i * n + k) - m) / s);
  }
  return out;
}

PrimFuncRef softmaxFunc(const PrimExpr& rows, const PrimExpr& n) {
  auto X = te::placeholder({rows, n}, DataType::Float32(), "X");
  return te::createPrimFunc({X, te::topi::softmax(X, -1, "sm")});
}

/// The loads of `buf` in blocks whose innermost loop is vectorized, as
/// (block, whether the load's last index moves with that loop and no other
/// index does).
std::vector<std::pair<std::string, bool>> vectorReadsOf(const PrimFuncRef& f,
                                                        const std::string& buf) {
  Schedule s(f);
  std::vector<std::pair<std::string, bool>> out;
  for (auto& rv : s.getBlocks()) {
    auto b = s.block(rv);
    auto loops = s.getLoops(rv);
    if (loops.empty() || s.loop(loops.back())->forKind != ForKind::Vectorized)
      continue;
    const PrimVar* lv = s.loop(loops.back())->var.get();
    std::vector<const PrimVar*> moving; // iterators bound through the loop
    for (size_t i = 0; i < b->iters.size(); ++i)
      if (schedule::detail::usesVar(b->bindings[i], lv))
        moving.push_back(b->iters[i].var.get());
    walkStmt(b->body, [&](const Stmt& st) {
      auto* store = as<BufferStore>(st);
      if (!store)
        return;
      walkPrimExpr(store->value, [&](const PrimExpr& e) {
        auto* l = as<BufferLoad>(e);
        if (!l || l->buffer->name != buf)
          return;
        bool ok = schedule::detail::usesAnyVar(l->indices.back(), moving);
        for (size_t d = 0; d + 1 < l->indices.size(); ++d)
          ok = ok && !schedule::detail::usesAnyVar(l->indices[d], moving);
        out.emplace_back(b->name, ok);
      });
    });
  }
  return out;
}

unity::Tensor buildAndRun(const PrimFuncRef& f, const std::vector<unity::Tensor>& inputs,
                          int64_t cores) {
  BuildOptions opts;
  opts.passes = {"Normalize", "DefaultSchedule", "LowerBlocks", "Simplify", "LowerToExecutor"};
  opts.config.set("tir.num_cores", cores);
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  return r.executable->runTensors(inputs).at(0);
}

} // namespace

TEST(DefaultScheduleRows, SoftmaxReadsItsRowsContiguouslyInEveryVectorLoop) {
  auto f = softmaxFunc(intImm(8), intImm(128));
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  auto reads = vectorReadsOf(g, "X");
  // the max and the exponentials each read X in a vector loop (the sum and
  // the scaling read the kept exponentials, keepSharedTranscendentals)
  ASSERT_EQ(reads.size(), 2u);
  for (auto& [block, contiguous] : reads)
    EXPECT_TRUE(contiguous) << block;
  // one partial result per lane for each of the two reductions
  EXPECT_NE(findBlock(g, "sm_maxelem_rf"), nullptr);
  EXPECT_NE(findBlock(g, "sm_expsum_rf"), nullptr);
  auto x = randomTensor({8, 128}, 71);
  EXPECT_TRUE(close(run(g, {x}, {8, 128}), softmaxRef(x, 8, 128)));
}

TEST(DefaultScheduleRows, WithoutTheKnobTheRowsAreGathered) {
  auto f = softmaxFunc(intImm(8), intImm(128));
  auto p = avx512Policy(1);
  p.rowReductions = false;
  auto g = transform::defaultSchedule(f, p);
  EXPECT_EQ(findBlock(g, "sm_maxelem_rf"), nullptr);
  bool gathered = false;
  for (auto& [block, contiguous] : vectorReadsOf(g, "X"))
    gathered = gathered || !contiguous;
  EXPECT_TRUE(gathered);
}

/// The blocks of f whose stored values call `op`.
std::vector<std::string> blocksCalling(const PrimFuncRef& f, const std::string& op) {
  Schedule s(f);
  std::vector<std::string> out;
  for (auto& rv : s.getBlocks()) {
    auto b = s.block(rv);
    bool calls = false;
    walkStmt(b->body, [&](const Stmt& st) {
      if (auto* store = as<BufferStore>(st))
        walkPrimExpr(store->value, [&](const PrimExpr& e) {
          auto* c = as<PrimCall>(e);
          calls = calls || (c && c->op == op);
        });
    });
    if (calls)
      out.push_back(b->name);
  }
  return out;
}

TEST(DefaultScheduleRows, SoftmaxComputesEachExponentialOnce) {
  auto f = softmaxFunc(intImm(8), intImm(128));
  auto x = randomTensor({8, 128}, 74);
  auto want = softmaxRef(x, 8, 128);
  auto kept = transform::defaultSchedule(f, avx512Policy(1));
  // one block computes exp(x - max); the sum and the scaling read its buffer
  EXPECT_EQ(blocksCalling(kept, "exp"), std::vector<std::string>{"sm_exp"});
  EXPECT_TRUE(close(run(kept, {x}, {8, 128}), want));
  // without the knob the exponential is inlined into both readers
  auto p = avx512Policy(1);
  p.keepSharedTranscendentals = false;
  auto inlined = transform::defaultSchedule(f, p);
  EXPECT_EQ(blocksCalling(inlined, "exp").size(), 2u);
  EXPECT_EQ(findBlock(inlined, "sm_exp"), nullptr);
  EXPECT_TRUE(close(run(inlined, {x}, {8, 128}), want));
}

TEST(DefaultScheduleRows, AnExponentialWithOneReaderIsStillInlined) {
  // sigmoid-like x * exp(x): a single reader, nothing computed twice
  auto X = te::placeholder({intImm(4), intImm(64)}, DataType::Float32(), "X");
  auto e = te::compute(
      X.shape(), [&](auto& i) { return call(DataType::Float32(), "exp", {X(i)}); }, "e");
  auto y = te::compute(
      X.shape(), [&](auto& i) { return X(i) * e(i); }, "y");
  auto g = transform::defaultSchedule(te::createPrimFunc({X, y}), avx512Policy(1));
  EXPECT_EQ(findBlock(g, "e"), nullptr);
  EXPECT_EQ(blocksCalling(g, "exp"), std::vector<std::string>{"y"});
}

TEST(DefaultScheduleRows, SymbolicRowLengthsWithTailsAndShortRowsAreCorrect) {
  auto n = primVar("n");
  auto f = softmaxFunc(intImm(3), n);
  auto g = transform::defaultSchedule(f, avx512Policy(2));
  EXPECT_NE(findBlock(g, "sm_maxelem_rf"), nullptr);
  EXPECT_NE(findBlock(g, "sm_maxelem_tail"), nullptr);
  for (int64_t len : {1, 5, 16, 37, 128}) {
    auto x = randomTensor({3, len}, 72 + static_cast<uint32_t>(len));
    auto want = softmaxRef(x, 3, len);
    EXPECT_TRUE(close(run(g, {x}, {3, len}), want)) << len;
    EXPECT_TRUE(close(buildAndRun(f, {x}, 2), want)) << len;
  }
}

TEST(DefaultScheduleRows, RowsShorterThanTwoVectorsKeepTheTile) {
  auto f = softmaxFunc(intImm(64), intImm(24));
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  EXPECT_EQ(findBlock(g, "sm_maxelem_rf"), nullptr);
  auto x = randomTensor({64, 24}, 73);
  EXPECT_TRUE(close(run(g, {x}, {64, 24}), softmaxRef(x, 64, 24)));
}

TEST(DefaultScheduleRows, LayerNormSumsAreFactoredAndCorrect) {
  int64_t rows = 5, n = 256;
  auto X = te::placeholder({intImm(rows), intImm(n)}, DataType::Float32(), "X");
  auto G = te::placeholder({intImm(n)}, DataType::Float32(), "G");
  auto B = te::placeholder({intImm(n)}, DataType::Float32(), "B");
  auto f = te::createPrimFunc({X, G, B, te::topi::layerNorm(X, G, B, {1}, 1e-5, "ln")});
  auto g = transform::defaultSchedule(f, avx2Policy(2));
  auto reads = vectorReadsOf(g, "X");
  ASSERT_FALSE(reads.empty());
  for (auto& [block, contiguous] : reads)
    EXPECT_TRUE(contiguous) << block;
  auto x = randomTensor({rows, n}, 74), gamma = randomTensor({n}, 75), beta = randomTensor({n}, 76);
  unity::Tensor want(DataType::Float32(), {rows, n});
  for (int64_t i = 0; i < rows; ++i) {
    double s = 0, q = 0;
    for (int64_t k = 0; k < n; ++k)
      s += x.getDouble(i * n + k);
    double mean = s / double(n);
    for (int64_t k = 0; k < n; ++k)
      q += (x.getDouble(i * n + k) - mean) * (x.getDouble(i * n + k) - mean);
    double inv = 1.0 / std::sqrt(q / double(n) + 1e-5);
    for (int64_t k = 0; k < n; ++k)
      want.setDouble(i * n + k, (x.getDouble(i * n + k) - mean) * inv * gamma.getDouble(k) +
                                    beta.getDouble(k));
  }
  EXPECT_TRUE(close(run(g, {x, gamma, beta}, {rows, n}), want));
  EXPECT_TRUE(close(buildAndRun(f, {x, gamma, beta}, 2), want));
}

TEST(DefaultScheduleRows, AMatmulKeepsItsRegisterTile) {
  // C[i, j] = sum_k A[i, k] B[k, j] reads A along k, but B along j: the
  // register tile along j stays.
  auto f = te::matmulPrimFunc(64, 64, 64);
  auto g = transform::defaultSchedule(f, avx512Policy(1));
  for (auto* b : allBlocks(g))
    EXPECT_EQ(b->name.find("_rf"), std::string::npos) << b->name;
}
