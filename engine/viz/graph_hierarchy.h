#pragma once
// The model's own hierarchy over a DataflowGraph, and the graph shown when
// some of its levels are collapsed.
//
// Exporters name ONNX nodes after the module that made them:
// "/encoder/layer.3/attention/query/MatMul". Those names (a node's first
// source origin, else its own name when it starts with '/') give a tree of
// scopes: /encoder, /encoder/layer.3, /encoder/layer.3/attention, ... A
// 50,000-node transformer drawn flat is one unreadable column; drawn with its
// layers collapsed it is a few dozen boxes, each expandable on its own. Like
// Model Explorer's layers, a collapsed scope is one node ("layer.3", 2,083
// nodes) whose edges are the union of its members' edges to the outside.
//
// collapseHierarchy() builds the shown graph from the full one in linear
// time; the layout then only sees the shown nodes (a few hundred at most on
// open), so expanding a level lays out that level's nodes plus the
// collapsed boxes around it, never the 50,000. Scopes with a single child
// and no nodes of their own ("/encoder" above its layers) are folded into
// that child, and a scope of one node is no group at all.
#include <set>
#include <string>
#include <vector>

#include "engine/viz/graph_model.h"

namespace unity::viz {

struct Scope {
  std::string path;          // "/encoder/layer.3" (always starts with '/')
  std::string name;          // last component: "layer.3"
  int parent = -1;           // enclosing scope, -1 for top-level scopes
  int depth = 0;             // 0 for top-level scopes
  std::vector<int> children; // nested scopes, in order of first node
  std::vector<int> nodes;    // nodes directly in it (not in a child)
  int size = 0;              // nodes in it and every scope below
};

struct GraphHierarchy {
  std::vector<Scope> scopes;
  std::vector<int> scopeOf; // node id -> innermost scope, -1 for top-level nodes
  std::vector<int> roots;   // top-level scopes

  int find(const std::string& path) const;
  bool empty() const { return scopes.empty(); }
};

/// The scope path of node `n` ("/encoder/layer.3/attention" for an origin
/// "/encoder/layer.3/attention/MatMul:MatMul"; the scope its origins share
/// when it has several), "" when it has none.
std::string nodeScope(const GraphNode& n);

/// The scope tree of `g`'s nodes (see above). Fused groups expanded in `g`
/// keep their own boxes; parameters, the output and constants belong to no
/// scope (constants take their consumer's scope).
GraphHierarchy buildHierarchy(const DataflowGraph& g);

/// The scopes to show expanded on open. A graph of at most `openAllUpTo`
/// nodes is small enough to read whole: every scope. A bigger one opens
/// whole levels, from the top, while the number of drawn nodes stays within
/// `budget`: a 24-layer model shows its layers, collapsed.
std::set<std::string> defaultExpandedScopes(const GraphHierarchy& h, size_t budget = 40,
                                            size_t openAllUpTo = 200);

/// The graph shown with the scopes in `expanded` open and every other scope
/// collapsed into one NodeKind::Cluster node (GraphCluster::scope). An open
/// scope becomes an expanded GraphCluster holding its shown nodes (nested
/// open scopes have it as parent), so the layout boxes it. Shown nodes keep
/// their fields; `shownOf`, when given, maps each node of `g` to the node
/// that shows it.
DataflowGraph collapseHierarchy(const DataflowGraph& g, const GraphHierarchy& h,
                                const std::set<std::string>& expanded,
                                std::vector<int>* shownOf = nullptr);

} // namespace unity::viz
