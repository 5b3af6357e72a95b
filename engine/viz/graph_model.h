#pragma once
// The dataflow graph of one graph-level function, as the graph view, the
// `render` command and the graph diff see it.
//
// Nodes are the function's parameters, every binding (one node per bound
// variable), the constants it uses (one node per use, so a weight sits next
// to its consumer instead of drawing long edges) and one output node for the
// returned value. An edge runs from the node that produces a value to each
// node that uses it and is labelled with the value's shape and dtype.
//
// A call of a fused group — a primitive graph-level function made by FuseOps,
// or a PrimFunc marked "fused" by FuseTIR — is a *cluster*: collapsed, it is
// one node; expanded (its callee named in ExtractOptions::expanded), the
// callee's own nodes take its place inside a box, wired straight to the
// caller's producers and consumers. A fused PrimFunc expands into its blocks,
// connected through the buffers they write and read. Only one level is
// expanded at a time: nested groups inside an expanded one stay collapsed.
//
// Constants can instead be properties of the node that uses them
// (ExtractOptions::constants off): no node, no edge, and the consumer lists
// them in GraphNode::constants (operand position, shape and dtype), as
// Netron draws weights inside the operator's box. Its label then carries one
// short line per constant, so the box is sized for them.
#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/module.h"

namespace unity::viz {

enum class NodeKind {
  Param,    // a function parameter
  Constant, // a constant operand
  Op,       // a binding: operator call, call_tir, call of a function, tuple, ...
  Cluster,  // a collapsed fused group
  Block,    // a block of an expanded fused PrimFunc
  Output,   // the returned value
};
const char* nodeKindName(NodeKind k);

/// A constant operand drawn as a property of its consumer.
struct ConstantOperand {
  int operand = 0;  // position among the consumer's operands (0-based)
  std::string type; // "(16, 3, 3, 3) float32"
};

struct GraphNode {
  int id = 0;
  NodeKind kind = NodeKind::Op;
  std::string name;   // variable / parameter / block name ("const" for constants)
  std::string op;     // "nn.conv2d", "call_tir", "tuple", callee name for direct calls, ...
  std::string callee; // the called module function (call_tir target or direct callee), if any
  std::vector<std::pair<std::string, std::string>> attrs; // key attributes, printed
  std::string type;                 // struct info of the value, printed ("(1, 16, 32, 32) float32")
  int opPattern = -1;               // TVM op-pattern lattice value, -1 when unknown
  std::vector<std::string> origins; // source model nodes (Span.origins)
  int line = 0;                     // text line of the binding, 0 when unknown
  int cluster = -1;                 // index of the expanded cluster that contains this node
  int collapsed = -1;               // for NodeKind::Cluster: its index in DataflowGraph::clusters
  uint64_t key = 0; // structural key: equal for bindings that compute the same thing
  ir::Expr value;   // the bound value (a binding) or the constant; null otherwise
  std::vector<ConstantOperand> constants; // constants it reads, when not drawn as nodes
  int members = 0;                        // NodeKind::Cluster: how many nodes the group stands for

  /// What the graph shows in the box: name and op on two lines, then one
  /// line per constant property (at most kLabelConstants) and, for a
  /// collapsed group, its member count.
  std::string label() const;
  static constexpr size_t kLabelConstants = 3;
};

struct GraphEdge {
  int from = 0, to = 0;
  std::string label; // shape and dtype of the value flowing along it
};

struct GraphCluster {
  std::string function; // the fused function's name, or the scope's path ("/encoder/layer.3")
  bool expanded = false;
  int node = -1;            // collapsed: the node that stands for it
  std::vector<int> members; // expanded: its nodes (direct members, not nested groups')
  int opPattern = -1;
  bool scope = false; // a level of the model's own hierarchy (graph_hierarchy.h)
  int size = 0;       // how many nodes it holds (all levels below it)
  int parent = -1;    // expanded scope group that contains this one, -1 none
};

struct DataflowGraph {
  std::string function; // the function shown
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<GraphCluster> clusters;

  /// The first node named `name`, or -1.
  int findNode(const std::string& name) const;
  std::vector<int> inputsOf(int node) const;
  std::vector<int> outputsOf(int node) const;
};

struct ExtractOptions {
  std::set<std::string> expanded; // fused functions to show expanded
  bool constants = true;          // draw constant operands as nodes (else GraphNode::constants)
  /// Checked every few hundred bindings: once set, extraction stops early
  /// and returns an incomplete graph, which the caller drops.
  const std::atomic<bool>* cancel = nullptr;
};

/// "(16, 3, 3, 3) float32" -> "16×3×3×3 f32" (UTF-8), "float32" -> "f32";
/// anything else unchanged.
std::string compactType(const std::string& type);

/// The graph of graph-level function `function` of `m`. Throws unity::Error
/// when there is no such function or it is not a graph-level Function.
DataflowGraph extractGraph(const ir::IRModule& m, const std::string& function,
                           const ExtractOptions& opts = {});

/// Graph-level functions worth showing on their own, in module order: every
/// Function that is not a fused primitive (those show as clusters). Falls back
/// to all Functions when every one is primitive.
std::vector<std::string> graphFunctions(const ir::IRModule& m);

/// The function to show by default: "main" when present, else the first of
/// graphFunctions(), else "".
std::string defaultGraphFunction(const ir::IRModule& m);

/// "(1, 16, 32, 32) float32" for a tensor, a tuple of those, "shape(...)" ...
std::string typeLabel(const ir::StructInfo& s);

} // namespace unity::viz
