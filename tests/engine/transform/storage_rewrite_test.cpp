// StorageRewrite on hand-written lowered kernels: where each temporary ends
// up and with what shape (expectations written by hand), and that the
// rewritten kernel computes what the original did (the reference
// interpreter checks every access against the buffer's bounds and fills
// temporaries with NaN, so a wrong rebase or a wrongly shared buffer shows).
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/te/interpreter.h"
#include "engine/text/parser.h"
#include "engine/transform/storage_rewrite.h"
#include "tests/engine/te/te_test_util.h"
#include "tests/engine/transform/tir_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::expectSameResults;
using unity::transform::testing::parseFunc;

namespace {

/// The Allocate nodes of f with the loop variables around each (outer first).
struct Placed {
  std::string buffer;
  std::vector<int64_t> shape; // -1 for a symbolic dim
  std::vector<std::string> loops;
};
std::vector<Placed> allocations(const PrimFuncRef& f) {
  std::vector<Placed> out;
  std::vector<std::string> loops;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (!s)
      return;
    if (auto* fo = as<For>(s)) {
      loops.push_back(fo->var->name);
      walk(fo->body);
      loops.pop_back();
    } else if (auto* a = as<Allocate>(s)) {
      Placed p{a->buffer->name, {}, loops};
      for (auto& d : a->buffer->shape)
        p.shape.push_back(asConstInt(d).value_or(-1));
      out.push_back(p);
      walk(a->body);
    } else if (auto* q = as<SeqStmt>(s)) {
      for (auto& c : q->seq)
        walk(c);
    } else if (auto* l = as<LetStmt>(s)) {
      walk(l->body);
    } else if (auto* i = as<IfThenElse>(s)) {
      walk(i->then);
      walk(i->otherwise);
    }
  };
  walk(f->body);
  return out;
}

} // namespace

TEST(StorageRewrite, RowTemporaryMovesIntoTheParallelLoopAndShrinks) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, 64), "float32"), B: T.Buffer((n, 64), "float32")):
    with T.allocate((n, 64), "float32") as tmp:
        for i in T.parallel(n):
            for j in T.serial(64):
                tmp[i, j] = A[i, j] * T.float32(2.0)
            for j2 in T.vectorized(64):
                B[i, j2] = tmp[i, j2] + T.float32(1.0)
)");
  auto g = transform::storageRewrite(f);
  ASSERT_NE(g.get(), f.get());
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].loops, std::vector<std::string>{"i"});
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1, 64}));
  expectSameResults(f, g, {{5, 64}, {5, 64}});
}

TEST(StorageRewrite, TileOffsetsAreRebased) {
  // Each iteration of io touches rows [io*4, io*4+4): a (4, 8) tile.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    with T.allocate((16, 8), "float32") as tmp:
        for io in T.serial(4):
            for ii in T.serial(4):
                for j in T.serial(8):
                    tmp[io * 4 + ii, j] = A[io * 4 + ii, j] + T.float32(3.0)
            for ii2 in T.serial(4):
                for j2 in T.serial(8):
                    B[io * 4 + ii2, j2] = tmp[io * 4 + 3 - ii2, j2]
)");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].loops, std::vector<std::string>{"io"});
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{4, 8}));
  expectSameResults(f, g, {{16, 8}, {16, 8}});
}

TEST(StorageRewrite, ValuesCarriedAcrossIterationsKeepTheirScope) {
  // acc is read by every iteration of k: it must not move into k's body.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    with T.allocate((8,), "float32") as acc:
        for i in T.serial(8):
            acc[i] = T.float32(0.0)
            for k in T.serial(16):
                acc[i] = acc[i] + A[i, k]
            B[i] = acc[i] * T.float32(0.5)
)");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  // Into i (each i owns acc[i]), not into k.
  EXPECT_EQ(placed[0].loops, std::vector<std::string>{"i"});
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1}));
  expectSameResults(f, g, {{8, 16}, {8}});

  // Sharing one element between the rows: no loop owns it, nothing moves in.
  auto h = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    with T.allocate((1,), "float32") as carry:
        carry[0] = T.float32(0.0)
        for i in T.serial(8):
            for k in T.serial(16):
                carry[0] = carry[0] + A[i, k]
            B[i] = carry[0]
)");
  auto h2 = transform::storageRewrite(h);
  auto hp = allocations(h2);
  ASSERT_EQ(hp.size(), 1u);
  EXPECT_TRUE(hp[0].loops.empty());
  expectSameResults(h, h2, {{8, 16}, {8}});
}

TEST(StorageRewrite, OnlyUserOfASequenceGetsTheAllocationAndUnusedOnesGo) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    with T.allocate((32,), "float32") as unused:
        with T.allocate((32,), "float32") as tmp:
            for i in T.serial(32):
                B[i] = A[i]
            for j in T.serial(32):
                tmp[j] = B[j] * T.float32(2.0)
                B[j] = tmp[j] + A[j]
)");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].buffer, "tmp");
  EXPECT_EQ(placed[0].loops, std::vector<std::string>{"j"});
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1}));
  expectSameResults(f, g, {{32}, {32}});
}

TEST(StorageRewrite, TooLargeForTheStackStaysOutside) {
  // One row is 32768 floats = 128 KiB > kMaxStackBytes.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((2, 32768), "float32"), B: T.Buffer((2, 32768), "float32")):
    with T.allocate((2, 32768), "float32") as tmp:
        for i in T.serial(2):
            for j in T.serial(32768):
                tmp[i, j] = A[i, j]
            for j2 in T.serial(32768):
                B[i, j2] = tmp[i, j2]
)");
  auto g = transform::storageRewrite(f);
  EXPECT_EQ(g.get(), f.get()) << "nothing to change";

  // Nor does it go through i into c when one iteration of c is too large
  // as well: no allocation of a whole slice inside a loop.
  auto h = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((2, 2, 32768), "float32"), B: T.Buffer((2, 2, 32768), "float32")):
    with T.allocate((2, 2, 32768), "float32") as tmp:
        for i in T.serial(2):
            for c in T.serial(2):
                for j in T.serial(32768):
                    tmp[i, c, j] = A[i, c, j]
                for j2 in T.serial(32768):
                    B[i, c, j2] = tmp[i, c, j2]
)");
  auto placed = allocations(transform::storageRewrite(h));
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_TRUE(placed[0].loops.empty());
}

TEST(StorageRewrite, AHaloCopyRewrittenInEveryIterationBecomesPrivate) {
  // Each (io, c) pads rows [io*3, io*3 + 5) of channel c (a 3x3 window's
  // halo: the two chunks of io overlap by two rows) in three stores that
  // together fill the box, then reads only inside it: the buffer is dead on
  // entry to every iteration, so each gets its own (1, 5, 8) copy although
  // the iterations of io touch overlapping rows. The large middle loop
  // alone (c = 4 channels of 8 x 8) takes it past one iteration of io.
  const std::string kernel = R"(
@T.prim_func
def f(A: T.Buffer((4, 6, 6), "float32"), B: T.Buffer((4, 6, 6), "float32")):
    with T.allocate((4, 8, 8), "float32") as pad:
        for io in T.parallel(2):
            for c in T.serial(4):
                for r in T.serial(ROWS):
                    pad[c, io * 3 + r, 0] = T.float32(0.0)
                    for x in T.serial(6):
                        pad[c, io * 3 + r, x + 1] = T.Select(io * 3 + r - 1 >= 0 and io * 3 + r - 1 < 6, A[c, T.max(T.min(io * 3 + r - 1, 5), 0), x], T.float32(0.0))
                    pad[c, io * 3 + r, 7] = T.float32(0.0)
                for ii in T.serial(3):
                    for x2 in T.serial(6):
                        B[c, io * 3 + ii, x2] = pad[c, io * 3 + ii, x2] + pad[c, io * 3 + ii + 1, x2 + 1] + pad[c, io * 3 + ii + 2, x2 + 2]
)";
  auto withRows = [&](const std::string& rows) {
    std::string t = kernel;
    t.replace(t.find("ROWS"), 4, rows);
    return parseFunc(t);
  };
  auto f = withRows("5");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].loops, (std::vector<std::string>{"io", "c"}));
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1, 5, 8}));
  expectSameResults(f, g, {{4, 6, 6}, {4, 6, 6}});

  // Four rows written, five read: the fifth comes from the iteration
  // before, so the buffer may not be private to io (within io, each c still
  // owns its channel).
  auto h = withRows("4");
  auto placedH = allocations(transform::storageRewrite(h));
  ASSERT_EQ(placedH.size(), 1u);
  EXPECT_TRUE(placedH[0].loops.empty());
}

TEST(StorageRewrite, ACopyWrittenUnderAConditionOrReadFirstIsNotPrivate) {
  // Written under an if (maybe not every element), or read before it is
  // written: an iteration may see the previous one's values, so tmp stays
  // outside the loop.
  for (const char* text : {R"(
@T.prim_func
def f(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):
    with T.allocate((4,), "float32") as tmp:
        for i in T.serial(8):
            for r in T.serial(4):
                if i > 0:
                    tmp[r] = A[i, r]
            B[i] = tmp[0] + tmp[3]
)",
                           R"(
@T.prim_func
def f(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):
    with T.allocate((4,), "float32") as tmp:
        for i in T.serial(8):
            B[i] = tmp[0] + tmp[3]
            for r in T.serial(4):
                tmp[r] = A[i, r]
)"}) {
    auto placed = allocations(transform::storageRewrite(parseFunc(text)));
    ASSERT_EQ(placed.size(), 1u) << text;
    EXPECT_TRUE(placed[0].loops.empty()) << text;
  }
}

TEST(StorageRewrite, TooLargeForOneOuterIterationFitsOneInnerOne) {
  // One iteration of i touches 16 x 2048 floats (128 KiB, over the stack
  // budget), one iteration of c a row of 2048 (8 KiB): the allocation goes
  // through i into c instead of staying outside both.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((2, 16, 2048), "float32"), B: T.Buffer((2, 16, 2048), "float32")):
    with T.allocate((2, 16, 2048), "float32") as tmp:
        for i in T.parallel(2):
            for c in T.serial(16):
                for j in T.serial(2048):
                    tmp[i, c, j] = A[i, c, j] * T.float32(2.0)
                for j2 in T.serial(2048):
                    B[i, c, j2] = tmp[i, c, 2047 - j2]
)");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].loops, (std::vector<std::string>{"i", "c"}));
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1, 1, 2048}));
  expectSameResults(f, g, {{2, 16, 2048}, {2, 16, 2048}});
}

TEST(StorageRewrite, DisjointLifetimesShareOneBuffer) {
  // t1 lives in statements 0-1, t2 in 2-3, t3 overlaps both and stays apart.
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    with T.allocate((8, 8), "float32") as t1:
        with T.allocate((32,), "float32") as t2:
            with T.allocate((64,), "float32") as t3:
                for i in T.serial(64):
                    t1[i // 8, i % 8] = A[i] + T.float32(1.0)
                    t3[i] = A[i]
                for i1 in T.serial(64):
                    B[i1] = t1[i1 // 8, i1 % 8] * t3[i1]
                for i2 in T.serial(32):
                    t2[i2] = B[i2 * 2] - t3[i2]
                for i3 in T.serial(64):
                    B[i3] = B[i3] + t2[i3 // 2]
)");
  auto g = transform::storageRewrite(f);
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 2u);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto& p : placed) {
    EXPECT_TRUE(p.loops.empty());
    shapes[p.buffer] = p.shape;
  }
  // The pool takes the first member's name and the larger size (64 > 32).
  EXPECT_EQ(shapes, (std::map<std::string, std::vector<int64_t>>{{"t1", {64}}, {"t3", {64}}}));
  expectSameResults(f, g, {{64}, {64}});
}

TEST(StorageRewrite, InTheDefaultPipelineAndThroughCodegen) {
  // A module whose kernel has a compactable temporary, built with and
  // without the pass: same results from native code.
  const char* text = R"(
@R.function
def main(x: R.Tensor((n, 64), "float32")) -> R.Tensor((n, 64), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        gv: R.Tensor((n, 64), "float32") = R.call_tir(f, (x,), out_sinfo=R.Tensor((n, 64), "float32"))
        R.output(gv)
    return gv

@T.prim_func
def f(A: T.Buffer((n, 64), "float32"), B: T.Buffer((n, 64), "float32")):
    T.func_attr({"global_symbol": "f", "num_outputs": 1})
    with T.allocate((n, 64), "float32") as tmp:
        for i in T.parallel(n):
            for j in T.serial(64):
                tmp[i, j] = A[i, j] * T.float32(2.0)
            for j2 in T.serial(64):
                B[i, j2] = tmp[i, 63 - j2] + A[i, j2]
)";
  IRModule m = text::parseModule(text, "storage_rewrite_test");
  BuildOptions with, without;
  with.passes = {"Normalize", "StorageRewrite", "LowerToExecutor"};
  without.passes = {"Normalize", "LowerToExecutor"};
  BuildResult a = build(m, with), b = build(m, without);
  auto placed = allocations(cast<PrimFunc>(a.lowered->lookup("f")));
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{1, 64}));
  std::vector<Tensor> in{randomTensor({7, 64}, 3)};
  auto ra = a.executable->runTensors(in), rb = b.executable->runTensors(in);
  ASSERT_EQ(ra.size(), 1u);
  EXPECT_TRUE(allClose(ra[0], rb[0], 1e-6));

  // The C backend puts the compacted temporary on its stack.
  BuildOptions c = with;
  c.target = "c";
  BuildResult cb = build(m, c);
  ASSERT_TRUE(cb.executable);
  EXPECT_TRUE(allClose(cb.executable->runTensors(in)[0], rb[0], 1e-6));
}

// ---- PromoteAccumulators

namespace {

/// A 4 x 16 register tile of C = A B over an n x n output, the reduction
/// loop k over K: C's rows lie n floats apart. `extraRead` adds a read of
/// the row below the tile (outside the box the store covers).
std::string tileKernel(bool symbolicRows, bool extraRead = false) {
  std::string n = symbolicRows ? "n" : "32";
  std::string text = R"(
@T.prim_func
def f(A: T.Buffer((N, K), "float32"), B: T.Buffer((K, N), "float32"), C: T.Buffer((N, N), "float32")):
    for io in T.parallel(N // 4):
        for jo in T.serial(N // 16):
            for ii0 in T.serial(4):
                for j0 in T.vectorized(16):
                    C[io * 4 + ii0, jo * 16 + j0] = T.float32(0.0)
            for k in T.serial(K):
                for ii in T.unroll(4):
                    for j in T.vectorized(16):
                        C[io * 4 + ii, jo * 16 + j] = C[io * 4 + ii, jo * 16 + j] + A[io * 4 + ii, k] * B[k, jo * 16 + j]EXTRA
)";
  auto put = [&](const std::string& from, const std::string& to) {
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
      text.replace(p, from.size(), to);
  };
  put("EXTRA", extraRead ? " + C[io * 4 + 4, jo * 16 + j]" : "");
  put("N", n);
  return text;
}

} // namespace

TEST(PromoteAccumulators, ATileWithSymbolicRowStrideAccumulatesLocally) {
  auto f = parseFunc(tileKernel(true));
  auto g = transform::promoteAccumulators(f);
  ASSERT_NE(g.get(), f.get());
  auto placed = allocations(g);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].buffer, "C_acc");
  EXPECT_EQ(placed[0].shape, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(placed[0].loops, (std::vector<std::string>{"io", "jo"})); // around k, per tile
  // n = 40: 10 x 2 tiles and 8 columns no tile covers (left as they were);
  // K = 0: no reduction step, the guard skips the copies.
  for (auto shapes : std::vector<std::vector<std::vector<int64_t>>>{
           {{40, 24}, {24, 40}, {40, 40}}, {{32, 0}, {0, 32}, {32, 32}}, {{3, 5}, {5, 3}, {3, 3}}})
    expectSameResults(f, g, shapes);
}

TEST(PromoteAccumulators, ConstantRowStridesAndPartialBoxesAreLeftAlone) {
  // LLVM keeps a tile with constant row strides in registers by itself.
  auto f = parseFunc(tileKernel(false));
  EXPECT_EQ(transform::promoteAccumulators(f).get(), f.get());
  // A read of the row below the tile: the box is larger than what the
  // store covers, so a copy back would write elements the loop never
  // wrote (another tile's, on another thread).
  auto h = parseFunc(tileKernel(true, true));
  EXPECT_EQ(transform::promoteAccumulators(h).get(), h.get());
}

TEST(PromoteAccumulators, StoresThatMoveWithTheLoopAreNotAccumulators) {
  auto f = parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, n), "float32"), C: T.Buffer((n, n), "float32")):
    for i in T.serial(n // 4):
        for k in T.serial(n):
            for ii in T.serial(4):
                C[i * 4 + ii, k] = A[i * 4 + ii, k] * T.float32(2.0)
)");
  EXPECT_EQ(transform::promoteAccumulators(f).get(), f.get());
}

TEST(PromoteAccumulators, InTheDefaultPipelineTheAttentionScoresMatchTheUnpromotedBuild) {
  // Q K^T with a symbolic sequence length: the main tile of the default
  // schedule has rows seq floats apart.
  const char* text = R"(
@R.function
def main(q: R.Tensor((1, 2, seq, 64), "float32"), k: R.Tensor((1, 2, 64, seq), "float32")) -> R.Tensor((1, 2, seq, seq), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        s: R.Tensor((1, 2, seq, seq), "float32") = R.matmul(q, k)
        R.output(s)
    return s
)";
  IRModule m = text::parseModule(text, "promote_test");
  BuildOptions with, without;
  with.config.set("tir.num_cores", int64_t(2));
  without = with;
  without.disabledPasses = {"PromoteAccumulators"};
  BuildResult a = build(m, with), b = build(m, without);
  int promoted = 0;
  for (auto& [name, fn] : a.lowered->functions)
    if (auto pf = cast<PrimFunc>(fn))
      walkStmt(pf->body, [&](const Stmt& s) {
        if (auto* al = as<Allocate>(s); al && al->buffer->name.ends_with("_acc"))
          ++promoted;
      });
  EXPECT_GE(promoted, 1);
  for (int64_t seq : {1, 37, 128}) {
    std::vector<Tensor> in{randomTensor({1, 2, seq, 64}, 5), randomTensor({1, 2, 64, seq}, 6)};
    EXPECT_TRUE(allClose(a.executable->runTensors(in)[0], b.executable->runTensors(in)[0], 1e-5))
        << seq;
  }
}

TEST(PromoteAccumulators, AConditionalStoreIsNotPromoted) {
  // Under a condition the store may skip elements of its box, which a copy
  // back would then overwrite with what it read before the loop. The same
  // kernel without the condition is promoted (the refusal is the
  // condition's).
  auto kernel = [](bool conditional) {
    std::string store = "C[io * 4 + ii, jo * 16 + j] = C[io * 4 + ii, jo * 16 + j] + "
                        "A[io * 4 + ii, k] * B[k, jo * 16 + j]";
    std::string body = conditional ? "                        if A[io * 4 + ii, k] > "
                                     "T.float32(0.0):\n                            " +
                                         store
                                   : "                        " + store;
    return parseFunc(R"(
@T.prim_func
def f(A: T.Buffer((n, K), "float32"), B: T.Buffer((K, n), "float32"), C: T.Buffer((n, n), "float32")):
    for io in T.parallel(n // 4):
        for jo in T.serial(n // 16):
            for k in T.serial(K):
                for ii in T.unroll(4):
                    for j in T.vectorized(16):
)" + body + "\n");
  };
  auto f = kernel(true), g = kernel(false);
  EXPECT_EQ(transform::promoteAccumulators(f).get(), f.get());
  EXPECT_NE(transform::promoteAccumulators(g).get(), g.get());
}
