// DefaultSchedule's packing of the reused input (policy packReusedInput,
// packMinReuse): which matmuls get B copied into tile-wide panels, and the
// values of packed matmuls of several shapes (tile multiples and not)
// compiled with LLVM and run, against a hand-written reference.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/build.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/default_schedule.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule::testing;

namespace {

/// The loops directly around block `name`, outermost first.
std::vector<const For*> loopsAround(const PrimFuncRef& f, const std::string& name) {
  std::vector<const For*> out;
  for (auto* l : allLoops(f)) {
    auto under = schedule::detail::blocksUnder(l->body);
    if (under.size() == 1 && under[0]->name == name)
      out.push_back(l);
  }
  return out;
}

bool readsBuffer(const Block* b, const std::string& buffer) {
  for (auto& r : b->reads)
    if (r.buffer->name == buffer)
      return true;
  return false;
}

unity::Tensor buildAndRun(const PrimFuncRef& f, const std::vector<unity::Tensor>& inputs, int cores,
                          const std::string& policyJson) {
  BuildOptions opts;
  opts.target = "llvm -num-cores=" + std::to_string(cores);
  opts.config.set("tir.num_cores", int64_t(cores));
  if (!policyJson.empty())
    opts.config.set("tir.schedule_policy", policyJson);
  opts.record = false;
  auto r = build(transform::moduleCallingPrimFunc(f), opts);
  return r.executable->runTensors(inputs).at(0);
}

} // namespace

TEST(DefaultSchedulePack, LargeMatmulReadsBFromTileWidePanels) {
  auto g = transform::defaultSchedule(te::matmulPrimFunc(1024, 1024, 1024), avx512Policy(1));
  auto* pack = findBlock(g, "B_pack");
  ASSERT_NE(pack, nullptr);
  auto* c = findBlock(g, "C");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(readsBuffer(c, "B_packed"));
  EXPECT_FALSE(readsBuffer(c, "B"));
  // The panels are as wide as the tile: 4 vectors of 16 lanes.
  auto* root = as<Block>(g->body);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->allocs.size(), 1u);
  std::vector<int64_t> shape;
  for (auto& d : root->allocs[0]->shape)
    shape.push_back(asConstInt(d).value_or(-1));
  EXPECT_EQ(shape, (std::vector<int64_t>{16, 1024, 64}));
  auto inner = loopsAround(g, "C");
  ASSERT_FALSE(inner.empty());
  EXPECT_EQ(inner.back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(inner.back()->extent), 64);
  // The copy of panel jo runs inside the column-tile loop jo, right before
  // the tile uses it, its rows vectorized.
  auto copy = loopsAround(g, "B_pack");
  ASSERT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy.back()->forKind, ForKind::Vectorized);
  EXPECT_EQ(asConstInt(copy.back()->extent), 64);
  const For* jo = nullptr;
  for (auto* l : allLoops(g))
    if (l->forKind == ForKind::Parallel)
      jo = l;
  ASSERT_NE(jo, nullptr);
  EXPECT_EQ(asConstInt(jo->extent), 16);
  EXPECT_EQ(pack->bindings[0].get(), jo->var.get());
  // With pack_in_tile_loop off, all panels are copied first, in parallel.
  auto before = avx512Policy(1);
  before.packInTileLoop = false;
  auto h = transform::defaultSchedule(te::matmulPrimFunc(1024, 1024, 1024), before);
  auto first = loopsAround(h, "B_pack");
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first.front()->forKind, ForKind::Parallel);
  EXPECT_EQ(first.back()->forKind, ForKind::Vectorized);
}

TEST(DefaultSchedulePack, OnlyWhereThePolicyAndTheReuseSayPack) {
  auto off = avx512Policy(1);
  off.packReusedInput = false;
  EXPECT_EQ(
      findBlock(transform::defaultSchedule(te::matmulPrimFunc(1024, 1024, 1024), off), "B_pack"),
      nullptr);
  // 64 output rows reuse each element of B 64 times: below packMinReuse.
  auto p = avx512Policy(1);
  ASSERT_GT(p.packMinReuse, 64);
  EXPECT_EQ(findBlock(transform::defaultSchedule(te::matmulPrimFunc(64, 1024, 1024), p), "B_pack"),
            nullptr);
  p.packMinReuse = 64;
  EXPECT_NE(findBlock(transform::defaultSchedule(te::matmulPrimFunc(64, 1024, 1024), p), "B_pack"),
            nullptr);
  // A tile as wide as the row: B's rows are already the panels.
  p.packMinReuse = 1;
  EXPECT_EQ(findBlock(transform::defaultSchedule(te::matmulPrimFunc(256, 48, 64), p), "B_pack"),
            nullptr);
}

TEST(DefaultSchedulePack, PolicyKnobsRoundTripThroughJson) {
  auto p = avx512Policy(2);
  p.packReusedInput = false;
  p.packMinReuse = 17;
  auto back = target::SchedulePolicy::fromJSON(p.toJSON());
  EXPECT_EQ(back, p);
  EXPECT_NE(p.toJSON().find("\"pack_min_reuse\":17"), std::string::npos) << p.toJSON();
  EXPECT_THROW(target::SchedulePolicy::fromJSON(R"({"pack_min_reuse": -1})"), Error);
  EXPECT_THROW(target::SchedulePolicy::fromJSON(R"({"pack_reused_input": 3})"), Error);
}

TEST(DefaultSchedulePack, PackedMatmulsComputeTheProduct) {
  // Tile multiples and not: N = 80 takes a 16-wide tile (5 panels), M =
  // 257 has no row tile, K = 129 is not sliced, N = 1000 has no whole-vector
  // tile (no packing: the row is one tile).
  for (auto [m, n, k] :
       {std::tuple{256, 256, 256}, std::tuple{260, 96, 33}, std::tuple{257, 80, 129},
        std::tuple{12, 128, 10}, std::tuple{9, 1000, 3}}) {
    auto f = te::matmulPrimFunc(m, n, k);
    auto a = randomTensor({m, k}, 21), b = randomTensor({k, n}, 22);
    auto want = matmulRef(a, b);
    for (int cores : {1, 2})
      for (const char* pol :
           {R"({"pack_min_reuse": 1})", R"({"pack_min_reuse": 1, "pack_in_tile_loop": false})"})
        EXPECT_TRUE(close(buildAndRun(f, {a, b}, cores, pol), want))
            << m << "x" << n << "x" << k << " on " << cores << " core(s), " << pol;
  }
}

TEST(DefaultSchedulePack, PackingDoesNotChangeTheResult) {
  auto f = te::matmulPrimFunc(256, 192, 160);
  auto a = randomTensor({256, 160}, 31), b = randomTensor({160, 192}, 32);
  auto packed = buildAndRun(f, {a, b}, 1, R"({"pack_min_reuse": 1})");
  auto plain = buildAndRun(f, {a, b}, 1, R"({"pack_reused_input": false})");
  EXPECT_TRUE(close(packed, plain, 1e-5));
  EXPECT_TRUE(close(packed, matmulRef(a, b)));
}

TEST(DefaultSchedulePack, ConvolutionsAndSymbolicRowCountsAreNotPacked) {
  // The bench's convolution layers read the image through flattened or
  // padded indices (never a plain output index) and the weights along the
  // output channel: nothing is copied, so their schedules are the ones
  // measured before packing existed. A symbolic row count (a batch) leaves
  // the reuse unknown: no copy either.
  struct Conv {
    int64_t c, hw, f, k, stride, groups;
  };
  for (auto cv : {Conv{64, 56, 64, 3, 1, 1}, Conv{256, 14, 256, 3, 1, 1}, Conv{3, 224, 64, 7, 2, 1},
                  Conv{64, 56, 128, 1, 2, 1}, Conv{960, 7, 160, 1, 1, 1},
                  Conv{24, 56, 144, 1, 1, 1}, Conv{144, 56, 144, 3, 1, 144}}) {
    auto X = te::placeholder({intImm(1), intImm(cv.c), intImm(cv.hw), intImm(cv.hw)},
                             DataType::Float32(), "X");
    auto W = te::placeholder({intImm(cv.f), intImm(cv.c / cv.groups), intImm(cv.k), intImm(cv.k)},
                             DataType::Float32(), "W");
    te::topi::Conv2dParams p;
    p.padding = {cv.k / 2, cv.k / 2, cv.k / 2, cv.k / 2};
    p.strides = {cv.stride, cv.stride};
    p.groups = cv.groups;
    auto f = te::createPrimFunc({X, W, te::topi::conv2d(X, W, p, "conv")});
    auto pol = avx512Policy(1);
    pol.packMinReuse = 1;
    auto g = transform::defaultSchedule(f, pol);
    ASSERT_FALSE(sameNode(f, g)) << cv.c << "x" << cv.hw;
    for (auto* b : allBlocks(g))
      EXPECT_EQ(b->name.find("_pack"), std::string::npos) << b->name << " in conv " << cv.c;
  }
  auto g = transform::defaultSchedule(te::matmulPrimFunc(primVar("n"), intImm(1024), intImm(1024)),
                                      avx512Policy(1));
  EXPECT_EQ(findBlock(g, "B_pack"), nullptr);
}

TEST(DefaultSchedulePack, EachPanelIsCopiedOnce) {
  // However the loops end up (2 cores: a 2-panel column loop fused with the
  // row tiles into one parallel loop), the copy runs once per element of
  // the packed buffer, never once per row tile.
  for (auto [m, n, k, cores] : {std::tuple{256, 128, 64, 2}, std::tuple{256, 128, 64, 1},
                                std::tuple{512, 256, 32, 2}, std::tuple{1024, 1024, 64, 2}}) {
    auto g = transform::defaultSchedule(te::matmulPrimFunc(m, n, k), avx512Policy(cores));
    auto* pack = findBlock(g, "B_pack");
    ASSERT_NE(pack, nullptr) << m << "x" << n << "x" << k;
    int64_t runs = 1;
    for (auto* l : allLoops(g)) {
      auto under = schedule::detail::blocksUnder(l->body);
      if (std::find(under.begin(), under.end(), pack) != under.end())
        runs *= asConstInt(l->extent).value_or(-1);
    }
    EXPECT_EQ(runs, int64_t(n) * k) << m << "x" << n << "x" << k << " on " << cores;
  }
}
