#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/viz/layered_layout.h"
#include "tests/engine/viz/viz_test_util.h"

using namespace unity;
using namespace unity::viz;
using unity::viz::testing::aroundPass;
using unity::viz::testing::example;

namespace {

int addNode(DataflowGraph& g, NodeKind kind, const std::string& name, const std::string& op) {
  GraphNode n;
  n.id = static_cast<int>(g.nodes.size());
  n.kind = kind;
  n.name = name;
  n.op = op;
  g.nodes.push_back(n);
  return n.id;
}

/// A graph shaped like bench/gen_transformer_model.py's: `blocks` pre-norm
/// transformer blocks (q/k/v fan-out, residual skip edges, one constant node
/// per weight use): 38 nodes a block.
DataflowGraph transformer(int blocks) {
  DataflowGraph g;
  g.function = "main";
  int prev = addNode(g, NodeKind::Param, "x", "");
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "l" + std::to_string(b) + "_";
    auto op = [&](const std::string& name, const std::string& what, std::vector<int> ins,
                  int constants = 0) {
      int v = addNode(g, NodeKind::Op, p + name, what);
      for (int c = 0; c < constants; ++c)
        ins.push_back(addNode(g, NodeKind::Constant, "const", "const"));
      for (int in : ins)
        g.edges.push_back({in, v, "(s, 64) float32"});
      return v;
    };
    int ln1 = op("ln1", "nn.layer_norm", {prev}, 2);
    int q = op("q", "matmul", {ln1}, 1), k = op("k", "matmul", {ln1}, 1),
        v = op("v", "matmul", {ln1}, 1);
    int qt = op("qt", "permute_dims", {op("qh", "reshape", {q})});
    int kt = op("kt", "permute_dims", {op("kh", "reshape", {k})});
    int vt = op("vt", "permute_dims", {op("vh", "reshape", {v})});
    int scaled = op("scaled", "multiply", {op("scores", "matmul", {qt, kt})}, 1);
    int ctx = op("ctx", "matmul", {op("attn", "nn.softmax", {scaled}), vt});
    int o = op("o", "matmul", {op("ctx2", "reshape", {op("ctx_t", "permute_dims", {ctx})})}, 1);
    int res1 = op("res1", "add", {prev, o});
    int h2 = op("h2", "add", {op("h1", "matmul", {op("ln2", "nn.layer_norm", {res1}, 2)}, 1)}, 1);
    int h4 = op("h4", "add", {op("h3", "matmul", {op("g", "nn.gelu", {h2})}, 1)}, 1);
    prev = op("out", "add", {res1, h4});
  }
  int out = addNode(g, NodeKind::Output, "output", "");
  g.edges.push_back({prev, out, "(s, 64) float32"});
  return g;
}

LayoutOptions layered() {
  LayoutOptions o;
  o.engine = LayoutEngine::Layered;
  return o;
}

struct Box {
  double x0, y0, x1, y1;
};

Box boxOf(const NodeGeometry& n) {
  return {n.x - n.width / 2, n.y - n.height / 2, n.x + n.width / 2, n.y + n.height / 2};
}

/// Pairs of node boxes that overlap (by more than rounding), found with a
/// sweep over the boxes sorted by their left side.
std::vector<std::pair<int, int>> overlaps(const GraphLayout& L) {
  std::vector<int> order(L.nodes.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return boxOf(L.nodes[a]).x0 < boxOf(L.nodes[b]).x0; });
  std::vector<std::pair<int, int>> out;
  const double eps = 0.01;
  for (size_t i = 0; i < order.size(); ++i) {
    Box a = boxOf(L.nodes[order[i]]);
    for (size_t j = i + 1; j < order.size(); ++j) {
      Box b = boxOf(L.nodes[order[j]]);
      if (b.x0 >= a.x1 - eps)
        break;
      if (b.y0 < a.y1 - eps && a.y0 < b.y1 - eps)
        out.push_back({order[i], order[j]});
    }
  }
  return out;
}

/// Distance from `p` to the outline of node box `n` (0 on it).
double distanceToOutline(const NodeGeometry& n, Point p, NodeKind kind) {
  if (kind == NodeKind::Param || kind == NodeKind::Output) {
    // On the ellipse: (dx/a)^2 + (dy/b)^2 = 1, as a relative error in points.
    double dx = (p.x - n.x) / (n.width / 2), dy = (p.y - n.y) / (n.height / 2);
    return std::abs(std::sqrt(dx * dx + dy * dy) - 1) * std::min(n.width, n.height) / 2;
  }
  Box b = boxOf(n);
  double outside =
      std::hypot(std::max({b.x0 - p.x, 0.0, p.x - b.x1}), std::max({b.y0 - p.y, 0.0, p.y - b.y1}));
  if (outside > 0)
    return outside;
  return std::min({p.x - b.x0, b.x1 - p.x, p.y - b.y0, b.y1 - p.y});
}

/// Checks every edge of `L`: Bezier-shaped point list, starting on its
/// source's outline and (arrow tip) ending on its target's.
void expectEdgesAttached(const DataflowGraph& g, const GraphLayout& L) {
  ASSERT_EQ(L.edges.size(), g.edges.size());
  int bad = 0;
  for (size_t e = 0; e < g.edges.size() && bad < 5; ++e) {
    const EdgeGeometry& eg = L.edges[e];
    const GraphEdge& ed = g.edges[e];
    ASSERT_GE(eg.points.size(), 4u) << "edge " << e;
    EXPECT_EQ((eg.points.size() - 1) % 3, 0u) << "edge " << e;
    ASSERT_TRUE(eg.hasArrow) << "edge " << e;
    double d0 = distanceToOutline(L.nodes[ed.from], eg.points.front(), g.nodes[ed.from].kind);
    double d1 = distanceToOutline(L.nodes[ed.to], eg.arrowTip, g.nodes[ed.to].kind);
    if (d0 > 0.5 || d1 > 0.5) {
      ++bad;
      ADD_FAILURE() << "edge " << e << " (" << ed.from << " -> " << ed.to << "): start is " << d0
                    << " pt from its source's outline, tip " << d1 << " pt from its target's";
    }
    // The arrow head sits between the curve's end and the tip.
    double gap = std::hypot(eg.arrowTip.x - eg.points.back().x, eg.arrowTip.y - eg.points.back().y);
    EXPECT_GT(gap, 0.5) << "edge " << e;
    EXPECT_LE(gap, 6.01) << "edge " << e;
  }
}

void expectInsideCanvas(const GraphLayout& L) {
  for (size_t i = 0; i < L.nodes.size(); ++i) {
    Box b = boxOf(L.nodes[i]);
    ASSERT_GE(b.x0, 0) << "node " << i;
    ASSERT_GE(b.y0, 0) << "node " << i;
    ASSERT_LE(b.x1, L.width) << "node " << i;
    ASSERT_LE(b.y1, L.height) << "node " << i;
  }
}

} // namespace

TEST(VizLayeredLayout, BigTransformerHasNoOverlapsAndAttachedEdges) {
  DataflowGraph g = transformer(132); // 5,018 nodes, as in bench_workbench
  ASSERT_EQ(g.nodes.size(), 5018u);
  auto t0 = std::chrono::steady_clock::now();
  auto L = layoutGraph(g); // Auto: above the threshold, so layered
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(L.has_value());
  EXPECT_EQ(L->engine, "layered");
  ASSERT_EQ(L->nodes.size(), g.nodes.size());
  EXPECT_TRUE(overlaps(*L).empty()) << overlaps(*L).size() << " overlapping pairs, first "
                                    << overlaps(*L)[0].first << " and " << overlaps(*L)[0].second;
  expectEdgesAttached(g, *L);
  expectInsideCanvas(*L);
  // Data flows down: every edge's target is below its source (no cycles here).
  for (auto& e : g.edges)
    EXPECT_LT(L->nodes[e.from].y, L->nodes[e.to].y);
  std::printf("[ info ] 5,018-node layered layout: %.3f s (engine %.1f ms)\n", s, L->ms);
}

TEST(VizLayeredLayout, ConstantsSitRightAboveTheirConsumer) {
  DataflowGraph g = transformer(3);
  auto L = layoutGraph(g, layered());
  ASSERT_TRUE(L.has_value());
  // Longest-path layering alone would put every constant on the top layer;
  // balancing moves each to the layer above its consumer.
  double rowGap = 0;
  int constants = 0;
  for (auto& e : g.edges) {
    if (g.nodes[e.from].kind != NodeKind::Constant)
      continue;
    ++constants;
    rowGap = std::max(rowGap, L->nodes[e.to].y - L->nodes[e.from].y);
  }
  ASSERT_GT(constants, 0);
  EXPECT_LT(rowGap, 80) << "a constant is more than one layer above its consumer";
}

TEST(VizLayeredLayout, CyclesAndSelfLoopsStillLayOut) {
  DataflowGraph g;
  g.function = "cyclic";
  for (int i = 0; i < 4; ++i)
    addNode(g, NodeKind::Op, "v" + std::to_string(i), "add");
  g.edges = {{0, 1, ""}, {1, 2, ""}, {2, 0, ""}, {2, 3, ""}, {3, 3, ""}};
  auto L = layoutGraph(g, layered());
  ASSERT_TRUE(L.has_value());
  EXPECT_TRUE(overlaps(*L).empty());
  expectEdgesAttached(g, *L);
}

TEST(VizLayeredLayout, ExpandedClusterBoxHoldsItsMembers) {
  ir::IRModule fused = aroundPass("mlp.uir", "FuseOps").second;
  ExtractOptions o;
  o.expanded = {"fused_matmul_add_relu"};
  DataflowGraph g = extractGraph(fused, "main", o);
  auto L = layoutGraph(g, layered());
  ASSERT_TRUE(L.has_value());
  EXPECT_TRUE(overlaps(*L).empty());
  expectEdgesAttached(g, *L);
  bool sawExpanded = false;
  for (size_t ci = 0; ci < g.clusters.size(); ++ci) {
    const ClusterGeometry& c = L->clusters[ci];
    if (!g.clusters[ci].expanded) {
      EXPECT_EQ(c.width, 0);
      continue;
    }
    sawExpanded = true;
    for (int m : g.clusters[ci].members) {
      Box b = boxOf(L->nodes[m]);
      EXPECT_GE(b.x0, c.x);
      EXPECT_LE(b.x1, c.x + c.width);
      EXPECT_GE(b.y0, c.y);
      EXPECT_LE(b.y1, c.y + c.height);
    }
  }
  EXPECT_TRUE(sawExpanded);
}

TEST(VizLayeredLayout, LeftToRight) {
  DataflowGraph g = extractGraph(example("cnn.uir"), "main");
  LayoutOptions o = layered();
  o.rankdir = "LR";
  auto L = layoutGraph(g, o);
  ASSERT_TRUE(L.has_value());
  EXPECT_LT(L->nodes[g.findNode("x")].x, L->nodes[g.findNode("output")].x);
  EXPECT_TRUE(overlaps(*L).empty());
  expectEdgesAttached(g, *L);
  expectInsideCanvas(*L);
  o.rankdir = "diagonal";
  EXPECT_THROW(layoutGraph(g, o), Error);
}

TEST(VizLayeredLayout, BadEdgeIsAnErrorNamingIt) {
  DataflowGraph g;
  g.function = "f";
  addNode(g, NodeKind::Op, "a", "add");
  g.edges = {{0, 7, ""}};
  try {
    layoutGraph(g, layered());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("edge 0 (0 -> 7)"), std::string::npos) << e.what();
  }
}

TEST(VizLayeredLayout, Cancelled) {
  std::atomic<bool> cancel{true};
  LayoutOptions o = layered();
  o.cancel = &cancel;
  EXPECT_FALSE(layoutGraph(transformer(2), o).has_value());
}

TEST(VizLayeredLayout, ChosenByNodeCount) {
  DataflowGraph small = transformer(2), big = transformer(40); // 78 and 1,522 nodes
  LayoutOptions o;
  EXPECT_EQ(chooseLayouter(small, o).name(), "dot");
  EXPECT_EQ(chooseLayouter(big, o).name(), "layered");
  o.layeredAbove = 50;
  EXPECT_EQ(chooseLayouter(small, o).name(), "layered");
  o.engine = LayoutEngine::Graphviz;
  EXPECT_EQ(chooseLayouter(big, o).name(), "dot");
}

TEST(VizLayeredLayout, NodeSizesFollowTheLabel) {
  GraphNode a, b, c;
  a.name = "lv";
  a.op = "add";
  b.name = "a_much_longer_binding_name";
  b.op = "add";
  c = b;
  c.op = "";
  EXPECT_GT(estimateNodeSize(b).width, estimateNodeSize(a).width);
  EXPECT_GT(estimateNodeSize(b).height, estimateNodeSize(c).height); // two lines vs one
  EXPECT_GT(textWidth("mmm", 10), textWidth("iii", 10));
  EXPECT_DOUBLE_EQ(textWidth("ab", 20), 2 * textWidth("ab", 10));
}
