// The default schedule's partition_rows knob: with several cores, the
// depthwise layer and the 1x1 projection of a MobileNet block (1x1
// expansion, depthwise 3x3, 1x1 projection) are split between the threads
// by output rows, so the projection reads the rows the same thread wrote;
// the depthwise layer's padded copy is then per chunk and channel
// (StorageRewrite makes the halo copy private). The expansion keeps the
// channel split. Values equal the one-core build either way.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "../te/te_test_util.h"
#include "engine/build.h"
#include "engine/ir/functor.h"
#include "tests/engine/transform/graph_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::allClose;
using unity::te::testing::randomTensor;
using unity::transform::testing::withConstants;

namespace {

/// x [1, 64, 14, 14] -> relu(1x1 to 128) -> relu(depthwise 3x3, pad 1) ->
/// 1x1 to 64, the weights constants.
IRModule mobileNetBlock() {
  return withConstants(R"(
@R.function
def main(x: R.Tensor((1, 64, 14, 14), "float32"), w1: R.Tensor((128, 64, 1, 1), "float32"),
         w2: R.Tensor((128, 1, 3, 3), "float32"), w3: R.Tensor((64, 128, 1, 1), "float32")):
    with R.dataflow():
        a = R.nn.relu(R.nn.conv2d(x, w1))
        b = R.nn.relu(R.nn.conv2d(a, w2, padding=[1, 1, 1, 1], groups=128))
        c = R.nn.conv2d(b, w3)
        R.output(c)
    return c
)",
                       {randomTensor({128, 64, 1, 1}, 21), randomTensor({128, 1, 3, 3}, 22),
                        randomTensor({64, 128, 1, 1}, 23)});
}

/// Per kernel of the lowered module: the extent of its first parallel loop
/// and whether an allocation named pad_temp sits inside that loop.
struct KernelShape {
  int64_t parallelExtent = -1;
  bool padTemp = false, padInsideParallel = false;
};
std::map<std::string, KernelShape> kernelShapes(const IRModule& lowered) {
  std::map<std::string, KernelShape> out;
  for (auto& [name, f] : lowered->functions) {
    auto* pf = as<PrimFunc>(f);
    if (!pf)
      continue;
    KernelShape k;
    std::function<void(const Stmt&, bool)> walk = [&](const Stmt& s, bool inParallel) {
      if (!s)
        return;
      if (auto* fo = as<For>(s)) {
        bool par = fo->forKind == ForKind::Parallel;
        if (par && k.parallelExtent < 0)
          k.parallelExtent = asConstInt(fo->extent).value_or(-2);
        walk(fo->body, inParallel || par);
      } else if (auto* a = as<Allocate>(s)) {
        if (a->buffer->name == "pad_temp") {
          k.padTemp = true;
          k.padInsideParallel = inParallel;
        }
        walk(a->body, inParallel);
      } else if (auto* q = as<SeqStmt>(s)) {
        for (auto& c : q->seq)
          walk(c, inParallel);
      } else if (auto* l = as<LetStmt>(s)) {
        walk(l->body, inParallel);
      } else if (auto* i = as<IfThenElse>(s)) {
        walk(i->then, inParallel);
        walk(i->otherwise, inParallel);
      }
    };
    walk(pf->body, false);
    out[name] = k;
  }
  return out;
}

BuildResult buildBlock(const IRModule& m, int cores, bool rows) {
  BuildOptions o;
  o.target = "llvm -mcpu=skylake-avx512 -num-cores=" + std::to_string(cores);
  if (!rows)
    o.config.set("tir.schedule_policy", std::string(R"({"partition_rows": false})"));
  return build(m, o);
}

} // namespace

TEST(PartitionRows, EveryKernelOfAMobileNetBlockSplitsByRows) {
  IRModule m = mobileNetBlock();
  auto x = randomTensor({1, 64, 14, 14}, 31);
  BuildOptions one;
  one.target = "llvm -num-cores=1";
  auto want = build(m, one).executable->runTensors({x}).at(0);
  for (bool rows : {true, false}) {
    SCOPED_TRACE(rows);
    auto r = buildBlock(m, 2, rows);
    auto shapes = kernelShapes(r.lowered);
    int dw = 0;
    std::set<int64_t> parallelExtents;
    for (auto& [name, k] : shapes) {
      SCOPED_TRACE(name);
      if (k.padTemp) {
        ++dw;
        // Rows: one chunk of 7 rows per core, padding per chunk and channel
        // inside it. Channels: 128 iterations, a padded plane in each.
        EXPECT_EQ(k.parallelExtent, rows ? 2 : 128);
        EXPECT_TRUE(k.padInsideParallel);
      } else if (name.find("conv2d") != std::string::npos) {
        // Blocks of 32 output channels x rows: the expansion's 4 x 14
        // either way (by rows each thread would read every weight), the
        // projection's 2 x 14, or its 14 rows alone split by rows.
        parallelExtents.insert(k.parallelExtent);
      }
    }
    EXPECT_EQ(dw, 1);
    EXPECT_EQ(parallelExtents, (std::set<int64_t>{56, rows ? 14 : 28}));
    ASSERT_TRUE(r.executable);
    EXPECT_TRUE(allClose(r.executable->runTensors({x}).at(0), want, 1e-4));
  }
}

TEST(PartitionRows, OneCoreAndRowsThatDoNotSplitEvenlyKeepTheChannelSplit) {
  IRModule m = mobileNetBlock();
  // One core: nothing to align; the depthwise layer keeps its plane per
  // channel (the parallel loop over 128 channels runs on the one thread).
  auto shapes = kernelShapes(buildBlock(m, 1, true).lowered);
  for (auto& [name, k] : shapes) {
    if (k.padTemp) {
      EXPECT_EQ(k.parallelExtent, 128) << name;
    }
  }
  // Three cores do not divide 14 rows: the depthwise layer keeps channels.
  shapes = kernelShapes(buildBlock(m, 3, true).lowered);
  for (auto& [name, k] : shapes) {
    if (k.padTemp) {
      EXPECT_EQ(k.parallelExtent, 128) << name;
    }
  }
}
