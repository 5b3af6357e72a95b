// The schedule of a dynamic model's kernels: the convolution of the
// recognizer model (tests/onnx/models/recognizer_seq, input (N, 4, 4, W))
// has a symbolic output width, and after DefaultSchedule it must keep the
// register tile of the static case -- unrolled rows and a vectorized loop
// of constant width over every position (the wide form with symbolic
// rows computes whole blocks of positions, so nothing is left to an
// untiled remainder) -- rather than one untiled loop over the symbolic
// extent. And the shape subgraph's run-time
// kernels fuse: the dynamic build has about as many kernels as the static
// one. Structure only, no timing.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"

using namespace unity;
using namespace unity::ir;

namespace {

std::string modelPath(const std::string& name) {
  return (std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "tests/onnx/models" / name / "model.onnx")
      .string();
}

/// The module after the first DefaultSchedule of a recorded build.
IRModule scheduledModule(const BuildResult& r) {
  for (auto& rec : r.records)
    if (rec.name == "DefaultSchedule" && rec.finished)
      return rec.after;
  throw Error("the build recorded no DefaultSchedule");
}

/// Every block named `name` (or starting with it when `prefix`) with the
/// loops enclosing it, outermost first.
struct BlockSite {
  const Block* block;
  std::vector<const For*> loops;
};

void collectSites(const Stmt& s, std::vector<const For*>& stack, std::vector<BlockSite>& out) {
  if (!s)
    return;
  if (auto* f = as<For>(s)) {
    stack.push_back(f);
    collectSites(f->body, stack, out);
    stack.pop_back();
  } else if (auto* b = as<Block>(s)) {
    out.push_back({b, stack});
    collectSites(b->init, stack, out);
    collectSites(b->body, stack, out);
  } else if (auto* q = as<SeqStmt>(s)) {
    for (auto& x : q->seq)
      collectSites(x, stack, out);
  } else if (auto* a = as<Allocate>(s)) {
    collectSites(a->body, stack, out);
  } else if (auto* l = as<LetStmt>(s)) {
    collectSites(l->body, stack, out);
  } else if (auto* i = as<IfThenElse>(s)) {
    collectSites(i->then, stack, out);
    collectSites(i->otherwise, stack, out);
  }
}

std::vector<BlockSite> sitesIn(const IRModule& m) {
  std::vector<BlockSite> out;
  for (auto& [name, f] : m->functions)
    if (auto* pf = as<PrimFunc>(f)) {
      std::vector<const For*> stack;
      collectSites(pf->body, stack, out);
    }
  return out;
}

bool hasLoop(const BlockSite& s, ForKind kind, bool constExtent) {
  for (auto* l : s.loops)
    if (l->forKind == kind && (!constExtent || asConstInt(l->extent)))
      return true;
  return false;
}

bool symbolicExtentAbove(const BlockSite& s) {
  for (auto* l : s.loops)
    if (!asConstInt(l->extent))
      return true;
  return false;
}

size_t primFuncCount(const IRModule& m) {
  size_t n = 0;
  for (auto& [name, f] : m->functions)
    n += isa<PrimFunc>(f);
  return n;
}

} // namespace

TEST(OnnxDynamicSchedule, SymbolicWidthConvolutionKeepsTheRegisterTile) {
  IRModule m = frontend::importOnnx(modelPath("recognizer_seq"));
  BuildOptions opts;
  opts.codegen = false;
  BuildResult r = build(m, opts);
  IRModule s = scheduledModule(r);
  std::vector<BlockSite> main, tails;
  for (auto& site : sitesIn(s)) {
    if (site.block->name == "conv2d_nchw_wide")
      main.push_back(site);
    else if (site.block->name.rfind("conv2d_nchw", 0) == 0 &&
             site.block->name.find("tail") != std::string::npos)
      tails.push_back(site);
  }
  // The convolution over the symbolic width takes the wide form with
  // symbolic rows: its positions come in whole blocks of constant width.
  ASSERT_EQ(main.size(), 1u) << "one wide convolution nest";
  // The nest: unrolled rows (output channels) and a vectorized constant
  // block of positions, under a loop over the symbolic number of blocks.
  EXPECT_TRUE(hasLoop(main[0], ForKind::Unrolled, true));
  EXPECT_TRUE(hasLoop(main[0], ForKind::Vectorized, true));
  EXPECT_TRUE(symbolicExtentAbove(main[0]));
  // Whole blocks: no remainder nest, so no position runs outside the tile.
  EXPECT_TRUE(tails.empty()) << tails.size() << " tail nests, first " << tails[0].block->name;
}

TEST(OnnxDynamicSchedule, RunTimeShapeComputationsFuseLikeStaticOnes) {
  // Range over W // 2, the Tile and the reshape by computed dims: the
  // dynamic build fuses groups whose variables hide in compound dims (W in
  // W // 2, passed as a scalar), so it has at most two kernels more than
  // the build with N and W fixed (the index vector and the float count that
  // a static build folds to constants).
  BuildOptions opts;
  opts.codegen = false;
  BuildResult dyn = build(frontend::importOnnx(modelPath("recognizer_seq")), opts);
  frontend::ImportOptions fixed;
  fixed.dimValues = {{"N", 3}, {"W", 20}};
  BuildResult sta = build(frontend::importOnnx(modelPath("recognizer_seq"), fixed), opts);
  size_t nd = primFuncCount(dyn.lowered), ns = primFuncCount(sta.lowered);
  EXPECT_LE(nd, ns + 2) << nd << " dynamic kernels, " << ns << " static";
}
