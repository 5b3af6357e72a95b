#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "engine/viz/graph_layout.h"
#include "tests/engine/viz/viz_test_util.h"

using namespace unity;
using namespace unity::viz;
using unity::viz::testing::aroundPass;
using unity::viz::testing::example;

namespace {

size_t countOf(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1))
    ++n;
  return n;
}

/// A chain of `n` nodes (param -> op -> op -> ... -> output).
DataflowGraph chain(int n) {
  DataflowGraph g;
  g.function = "chain";
  for (int i = 0; i < n; ++i) {
    GraphNode node;
    node.id = i;
    node.kind = i == 0 ? NodeKind::Param : i == n - 1 ? NodeKind::Output : NodeKind::Op;
    node.name = "v" + std::to_string(i);
    node.op = "add";
    node.opPattern = 0;
    g.nodes.push_back(node);
    if (i > 0)
      g.edges.push_back({i - 1, i, "(8,) float32"});
  }
  return g;
}

void expectInside(const GraphLayout& L, const NodeGeometry& n) {
  EXPECT_GT(n.width, 0);
  EXPECT_GT(n.height, 0);
  EXPECT_GE(n.x - n.width / 2, -1);
  EXPECT_GE(n.y - n.height / 2, -1);
  EXPECT_LE(n.x + n.width / 2, L.width + 1);
  EXPECT_LE(n.y + n.height / 2, L.height + 1);
}

} // namespace

TEST(VizGraphLayout, EveryNodeAndEdgeGetsGeometry) {
  DataflowGraph g = extractGraph(example("cnn.uir"), "main");
  auto L = layoutGraph(g);
  ASSERT_TRUE(L.has_value());
  ASSERT_EQ(L->nodes.size(), g.nodes.size());
  ASSERT_EQ(L->edges.size(), g.edges.size());
  for (auto& n : L->nodes)
    expectInside(*L, n);
  for (auto& e : L->edges) {
    EXPECT_GE(e.points.size(), 4u);
    EXPECT_EQ((e.points.size() - 1) % 3, 0u);
  }
  // Top to bottom: the parameter is above the output.
  EXPECT_LT(L->nodes[g.findNode("x")].y, L->nodes[g.findNode("output")].y);
}

TEST(VizGraphLayout, ExpandedClusterGetsABox) {
  ir::IRModule fused = aroundPass("mlp.uir", "FuseOps").second;
  ExtractOptions o;
  o.expanded = {"fused_matmul_add_relu"};
  DataflowGraph g = extractGraph(fused, "main", o);
  auto L = layoutGraph(g);
  ASSERT_TRUE(L.has_value());
  for (size_t ci = 0; ci < g.clusters.size(); ++ci) {
    const ClusterGeometry& c = L->clusters[ci];
    if (!g.clusters[ci].expanded) {
      EXPECT_EQ(c.width, 0);
      continue;
    }
    EXPECT_GT(c.width, 0);
    for (int m : g.clusters[ci].members) {
      const NodeGeometry& n = L->nodes[m];
      EXPECT_GE(n.x, c.x);
      EXPECT_LE(n.x, c.x + c.width);
      EXPECT_GE(n.y, c.y);
      EXPECT_LE(n.y, c.y + c.height);
    }
  }
}

TEST(VizGraphLayout, CancelledLayoutReturnsNothing) {
  std::atomic<bool> cancel{true};
  LayoutOptions o;
  o.cancel = &cancel;
  EXPECT_FALSE(layoutGraph(chain(10), o).has_value());
}

TEST(VizGraphLayout, LongChainLaysOut) {
  DataflowGraph g = chain(500);
  auto t0 = std::chrono::steady_clock::now();
  auto L = layoutGraph(g);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(L.has_value());
  ASSERT_EQ(L->nodes.size(), 500u);
  for (int i = 1; i < 500; ++i)
    EXPECT_GT(L->nodes[i].y, L->nodes[i - 1].y);
  std::printf("[ info ] 500-node chain: %.3f s (graphviz %.1f ms)\n", s, L->ms);
}

TEST(VizGraphLayout, DotSvgAndPng) {
  DataflowGraph g = extractGraph(example("mlp.uir"), "main");
  std::string dot = renderGraph(g, "dot");
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_EQ(countOf(dot, "->"), g.edges.size());
  EXPECT_NE(dot.find("label=\"(n, 784) float32\""), std::string::npos);
  // Graphviz parses the DOT back: the SVG has one node group per node.
  std::string svg = renderGraph(g, "svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(countOf(svg, "class=\"node\""), g.nodes.size());
  EXPECT_EQ(countOf(svg, "class=\"edge\""), g.edges.size());
  std::string png = renderGraph(g, "png");
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 4), "\x89PNG");
  EXPECT_THROW(renderGraph(g, "gif"), Error);
}

TEST(VizGraphLayout, LabelsAreEscaped) {
  DataflowGraph g = chain(2);
  g.nodes[0].name = "a\"b\\c";
  std::string svg = renderGraph(g, "svg");
  EXPECT_NE(svg.find("a&quot;b\\c"), std::string::npos);
}

TEST(VizGraphLayout, PaletteFollowsPattern) {
  GraphNode a, b;
  a.opPattern = 0;
  b.opPattern = 4;
  EXPECT_NE(nodeColor(a), nodeColor(b));
  EXPECT_EQ(opPatternLabel(3), "reduce");
  EXPECT_EQ(opPatternLabel(-1), "");
}
