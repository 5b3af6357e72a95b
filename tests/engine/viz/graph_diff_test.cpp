#include <gtest/gtest.h>

#include "engine/viz/graph_diff.h"
#include "tests/engine/viz/viz_test_util.h"

using namespace unity;
using namespace unity::viz;
using unity::viz::testing::aroundPass;
using unity::viz::testing::example;

namespace {

DiffStatus statusOf(const DataflowGraph& g, const std::vector<DiffStatus>& s,
                    const std::string& name) {
  int id = g.findNode(name);
  EXPECT_GE(id, 0) << name;
  return id < 0 ? DiffStatus::Removed : s[id];
}

} // namespace

TEST(VizGraphDiff, IdenticalGraphsAreUnchanged) {
  DataflowGraph g = extractGraph(example("mlp.uir"), "main");
  GraphDiff d = diffGraphs(g, g);
  EXPECT_EQ(d.afterCounts().unchanged, 11);
  EXPECT_EQ(d.afterCounts().changed + d.afterCounts().added, 0);
  EXPECT_EQ(d.beforeCounts().removed, 0);
}

// LegalizeOps turns each of mlp's five operator calls into call_tir; the
// parameter, the four weights and the output stay.
TEST(VizGraphDiff, LegalizeChangesEveryCall) {
  auto [before, after] = aroundPass("mlp.uir", "LegalizeOps");
  DataflowGraph b = extractGraph(before, "main"), a = extractGraph(after, "main");
  GraphDiff d = diffGraphs(b, a);
  auto ac = d.afterCounts(), bc = d.beforeCounts();
  EXPECT_EQ(ac.changed, 5);
  EXPECT_EQ(ac.unchanged, 6);
  EXPECT_EQ(ac.added, 0);
  EXPECT_EQ(bc.changed, 5);
  EXPECT_EQ(bc.removed, 0);
  EXPECT_EQ(statusOf(a, d.after, "lv2"), DiffStatus::Changed);
  EXPECT_EQ(statusOf(a, d.after, "x"), DiffStatus::Unchanged);
  int lv2 = a.findNode("lv2");
  ASSERT_EQ(d.afterMatch[lv2].size(), 1u);
  EXPECT_EQ(b.nodes[d.afterMatch[lv2][0]].name, "lv2");
}

// FuseOps merges matmul+add+relu (fc1, relu1) and matmul+add (fc2): all five
// calls before are changed, each merged into one of the two groups after.
TEST(VizGraphDiff, FuseOpsMergesIntoGroups) {
  auto [before, after] = aroundPass("mlp.uir", "FuseOps");
  DataflowGraph b = extractGraph(before, "main"), a = extractGraph(after, "main");
  GraphDiff d = diffGraphs(b, a);
  EXPECT_EQ(d.beforeCounts().changed, 5);
  EXPECT_EQ(d.beforeCounts().removed, 0);
  EXPECT_EQ(d.afterCounts().changed, 2);
  EXPECT_EQ(d.afterCounts().added, 0);
  int lv0 = b.findNode("lv0");
  ASSERT_EQ(d.beforeMatch[lv0].size(), 1u);
  EXPECT_EQ(a.nodes[d.beforeMatch[lv0][0]].callee, "fused_matmul_add_relu");
  int gvAfter = a.findNode("gv");
  EXPECT_EQ(d.afterMatch[gvAfter].size(), 2u); // lv3 and gv (both fc2:Gemm)
}

// A pass that changes nothing in main: every node matches.
TEST(VizGraphDiff, AnnotateOpPatternLeavesMainUnchanged) {
  auto [before, after] = aroundPass("cnn.uir", "AnnotateOpPattern");
  GraphDiff d = diffGraphs(extractGraph(before, "main"), extractGraph(after, "main"));
  EXPECT_EQ(d.afterCounts().changed + d.afterCounts().added, 0);
  EXPECT_EQ(d.beforeCounts().changed + d.beforeCounts().removed, 0);
}

TEST(VizGraphDiff, AddedAndRemovedWithoutProvenance) {
  DataflowGraph b, a;
  b.function = a.function = "f";
  GraphNode p;
  p.kind = NodeKind::Param;
  p.name = "x";
  p.key = 1;
  b.nodes.push_back(p);
  a.nodes.push_back(p);
  GraphNode old;
  old.id = 1;
  old.name = "u";
  old.op = "exp";
  old.key = 2;
  b.nodes.push_back(old);
  GraphNode fresh;
  fresh.id = 1;
  fresh.name = "v";
  fresh.op = "log";
  fresh.key = 3;
  a.nodes.push_back(fresh);
  GraphDiff d = diffGraphs(b, a);
  EXPECT_EQ(d.before[1], DiffStatus::Removed);
  EXPECT_EQ(d.after[1], DiffStatus::Added);
  EXPECT_EQ(d.after[0], DiffStatus::Unchanged);
  EXPECT_STREQ(diffStatusName(DiffStatus::Added), "added");
}
