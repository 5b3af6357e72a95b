// Grouping a dataflow graph by the scopes of its source names
// (engine/viz/graph_hierarchy.h): the scope tree, the levels open on first
// show, and the collapsed graph with its merged edges.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/viz/graph_hierarchy.h"

using namespace unity::viz;

namespace {

/// A chain x -> ops... -> output; each op named after the source node
/// `origins[i]` (an ONNX node name and its op type).
DataflowGraph chain(const std::vector<std::string>& origins) {
  DataflowGraph g;
  g.function = "main";
  auto add = [&](NodeKind kind, const std::string& name, const std::string& origin) {
    GraphNode n;
    n.id = static_cast<int>(g.nodes.size());
    n.kind = kind;
    n.name = name;
    n.op = kind == NodeKind::Op ? "op" : name;
    if (!origin.empty())
      n.origins = {origin};
    g.nodes.push_back(n);
    if (n.id > 0)
      g.edges.push_back({n.id - 1, n.id, "t"});
    return n.id;
  };
  add(NodeKind::Param, "x", "");
  for (size_t i = 0; i < origins.size(); ++i)
    add(NodeKind::Op, "v" + std::to_string(i), origins[i]);
  add(NodeKind::Output, "output", "");
  return g;
}

/// Two layers of an encoder, each with an attention of two ops and an MLP
/// of three, and a head outside the encoder.
DataflowGraph encoder() {
  std::vector<std::string> o;
  for (int l = 0; l < 2; ++l) {
    const std::string L = "/model/encoder/layer." + std::to_string(l);
    o.push_back(L + "/attention/MatMul:MatMul");
    o.push_back(L + "/attention/Softmax:Softmax");
    o.push_back(L + "/mlp/fc1/MatMul:MatMul");
    o.push_back(L + "/mlp/Gelu:Gelu");
    o.push_back(L + "/mlp/fc2/MatMul:MatMul");
  }
  o.push_back("/head/Gemm:Gemm");
  o.push_back("/head/Softmax:Softmax");
  return chain(o);
}

const Scope* scope(const GraphHierarchy& h, const std::string& path) {
  int i = h.find(path);
  return i < 0 ? nullptr : &h.scopes[i];
}

int countKind(const DataflowGraph& g, NodeKind k) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](auto& n) { return n.kind == k; }));
}

const GraphNode* named(const DataflowGraph& g, const std::string& name) {
  for (auto& n : g.nodes)
    if (n.name == name)
      return &n;
  return nullptr;
}

} // namespace

TEST(VizGraphHierarchy, ScopeOfANodeIsItsSourceNameWithoutTheLastPart) {
  GraphNode n;
  n.origins = {"/encoder/layer.3/attention/MatMul:MatMul"};
  EXPECT_EQ(nodeScope(n), "/encoder/layer.3/attention");
  n.origins = {"/MatMul:MatMul"};
  EXPECT_EQ(nodeScope(n), "");
  n.origins = {"conv1:Conv"}; // not a scoped name
  EXPECT_EQ(nodeScope(n), "");
  // A fused binding of several source nodes: the scope they share.
  n.origins = {"/layer1/layer1.0/conv2/conv/Conv:Conv", "/layer1/layer1.0/Add:Add",
               "/layer1/layer1.0/relu/Relu:Relu"};
  EXPECT_EQ(nodeScope(n), "/layer1/layer1.0");
  n.origins = {"/layer1/layer1.0/Add:Add", "/layer10/Add:Add"};
  EXPECT_EQ(nodeScope(n), "") << "layer1 and layer10 share no scope";
  n.origins.clear();
  n.name = "/stem/conv/Conv_output_0";
  EXPECT_EQ(nodeScope(n), "/stem/conv");
}

TEST(VizGraphHierarchy, ScopesNestAndSingleChildWrappersFold) {
  GraphHierarchy h = buildHierarchy(encoder());
  // "/model" only wraps "/model/encoder": folded into it.
  EXPECT_EQ(scope(h, "/model"), nullptr);
  const Scope* enc = scope(h, "/model/encoder");
  ASSERT_NE(enc, nullptr);
  EXPECT_EQ(enc->name, "model/encoder");
  EXPECT_EQ(enc->parent, -1);
  EXPECT_EQ(enc->size, 10);
  ASSERT_EQ(enc->children.size(), 2u);
  const Scope& layer1 = h.scopes[enc->children[1]];
  EXPECT_EQ(layer1.path, "/model/encoder/layer.1");
  EXPECT_EQ(layer1.name, "layer.1");
  EXPECT_EQ(layer1.size, 5);
  EXPECT_EQ(layer1.depth, 1);
  // "/.../mlp/fc1" holds one node: no group of its own, its node is the MLP's.
  EXPECT_EQ(scope(h, "/model/encoder/layer.1/mlp/fc1"), nullptr);
  const Scope* mlp = scope(h, "/model/encoder/layer.1/mlp");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(mlp->nodes.size(), 3u);
  EXPECT_EQ(h.scopeOf[8], h.find("/model/encoder/layer.1/mlp")); // v7: fc1/MatMul of layer 1
  // Parameters and the output belong to no scope.
  EXPECT_EQ(h.scopeOf.front(), -1);
  EXPECT_EQ(h.scopeOf.back(), -1);
  EXPECT_EQ(h.roots.size(), 2u); // encoder, head
}

TEST(VizGraphHierarchy, AGraphWithoutScopedNamesHasNoHierarchy) {
  GraphHierarchy h = buildHierarchy(chain({"fc1:Gemm", "relu:Relu", "fc2:Gemm"}));
  EXPECT_TRUE(h.empty());
  EXPECT_TRUE(defaultExpandedScopes(h).empty());
}

TEST(VizGraphHierarchy, CollapsedScopeIsOneNodeWithItsCountAndMergedEdges) {
  DataflowGraph g = encoder();
  GraphHierarchy h = buildHierarchy(g);
  std::vector<int> shownOf;
  DataflowGraph c = collapseHierarchy(g, h, {}, &shownOf);
  // x, encoder, head, output.
  ASSERT_EQ(c.nodes.size(), 4u);
  EXPECT_EQ(countKind(c, NodeKind::Cluster), 2);
  const GraphNode* enc = named(c, "model/encoder");
  ASSERT_NE(enc, nullptr);
  EXPECT_EQ(enc->kind, NodeKind::Cluster);
  EXPECT_EQ(enc->members, 10);
  ASSERT_GE(enc->collapsed, 0);
  EXPECT_TRUE(c.clusters[enc->collapsed].scope);
  EXPECT_FALSE(c.clusters[enc->collapsed].expanded);
  EXPECT_EQ(c.clusters[enc->collapsed].function, "/model/encoder");
  EXPECT_NE(enc->label().find("10 nodes"), std::string::npos) << enc->label();
  // The chain's 12 edges become x -> encoder -> head -> output.
  EXPECT_EQ(c.edges.size(), 3u);
  for (size_t i = 1; i <= 10; ++i)
    EXPECT_EQ(shownOf[i], enc->id);
}

TEST(VizGraphHierarchy, ExpandingALevelShowsItsChildrenInABox) {
  DataflowGraph g = encoder();
  GraphHierarchy h = buildHierarchy(g);
  DataflowGraph c = collapseHierarchy(g, h, {"/model/encoder", "/model/encoder/layer.0"});
  // layer.0 open: its attention and MLP are collapsed groups; layer.1 is one group.
  EXPECT_NE(named(c, "attention"), nullptr);
  EXPECT_NE(named(c, "mlp"), nullptr);
  EXPECT_NE(named(c, "layer.1"), nullptr);
  EXPECT_EQ(named(c, "layer.0"), nullptr);
  EXPECT_EQ(named(c, "v0"), nullptr);
  // Open scopes are expanded clusters, nested as in the model.
  const GraphCluster* enc = nullptr;
  const GraphCluster* layer0 = nullptr;
  int encIndex = -1;
  for (size_t i = 0; i < c.clusters.size(); ++i) {
    if (c.clusters[i].function == "/model/encoder") {
      enc = &c.clusters[i];
      encIndex = static_cast<int>(i);
    }
    if (c.clusters[i].function == "/model/encoder/layer.0")
      layer0 = &c.clusters[i];
  }
  ASSERT_NE(enc, nullptr);
  ASSERT_NE(layer0, nullptr);
  EXPECT_TRUE(enc->expanded);
  EXPECT_TRUE(layer0->expanded);
  EXPECT_EQ(layer0->parent, encIndex);
  EXPECT_EQ(layer0->size, 5);
  // Its members are the attention and MLP groups.
  ASSERT_EQ(layer0->members.size(), 2u);
  EXPECT_EQ(c.nodes[layer0->members[0]].name, "attention");
  // A scope is open only when its parents are: layer.0 alone shows nothing.
  DataflowGraph closed = collapseHierarchy(g, h, {"/model/encoder/layer.0"});
  EXPECT_EQ(closed.nodes.size(), 4u);
  // Every edge joins two shown nodes, none is a self-loop or a duplicate.
  for (auto& e : c.edges)
    EXPECT_NE(e.from, e.to);
}

TEST(VizGraphHierarchy, DefaultOpensWholeLevelsWithinTheBudget) {
  DataflowGraph g = encoder();
  GraphHierarchy h = buildHierarchy(g);
  // As if the graph were big (openAllUpTo 0): x, encoder, head, output = 4;
  // opening both roots swaps the encoder for its 2 layers and the head for
  // its 2 nodes: 6.
  EXPECT_EQ(defaultExpandedScopes(h, 6, 0), (std::set<std::string>{"/model/encoder", "/head"}));
  EXPECT_TRUE(defaultExpandedScopes(h, 5, 0).empty());
  // The next level (the layers: 8 nodes) is opened whole or not at all.
  EXPECT_EQ(defaultExpandedScopes(h, 7, 0).size(), 2u);
  EXPECT_EQ(defaultExpandedScopes(h, 8, 0).size(), 4u);
  EXPECT_EQ(defaultExpandedScopes(h, 1000, 0).size(), h.scopes.size());
  // A graph this small (14 nodes) is read whole: every scope opens.
  EXPECT_EQ(defaultExpandedScopes(h).size(), h.scopes.size());
  EXPECT_EQ(defaultExpandedScopes(h, 0, 13).size(), 0u);
}

TEST(VizGraphHierarchy, ExpandedFusedGroupKeepsItsBoxInsideItsScope) {
  DataflowGraph g = chain(
      {"/block/a/MatMul:MatMul", "/block/a/Add:Add", "/block/b/Relu:Relu", "/block/b/Neg:Neg"});
  // v0 and v1 are the members of an expanded fused group.
  GraphCluster fused;
  fused.function = "fused_matmul_add";
  fused.expanded = true;
  g.clusters.push_back(fused);
  g.nodes[1].cluster = g.nodes[2].cluster = 0;
  g.clusters[0].members = {1, 2};
  GraphHierarchy h = buildHierarchy(g);
  DataflowGraph c = collapseHierarchy(g, h, {"/block", "/block/a", "/block/b"});
  ASSERT_GE(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].function, "fused_matmul_add");
  EXPECT_EQ(c.clusters[0].members.size(), 2u);
  ASSERT_GE(c.clusters[0].parent, 0);
  EXPECT_EQ(c.clusters[c.clusters[0].parent].function, "/block/a");
}
