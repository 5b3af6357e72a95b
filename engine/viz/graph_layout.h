#pragma once
// Graphviz `dot` layout of a DataflowGraph, and export as DOT, SVG or PNG.
//
// The graph is written as DOT (toDot), read back with cgraph and laid out
// by libgvc's dot engine with bounded effort (nslimit, nslimit1, mclimit,
// searchsize: dot's network simplex and crossing minimisation otherwise take
// minutes on graphs with long skip edges). Positions, sizes, edge splines and
// cluster boxes are read from the laid-out graph and returned in points with
// y growing downward, ready for a QGraphicsScene.
//
// Graphviz is not thread-safe: every call into it holds one process-wide
// mutex. A layout cannot be interrupted inside dot, so cancellation is a flag
// checked before the layout starts and after it ends; callers run layouts in
// a worker thread and drop cancelled results.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "engine/viz/graph_model.h"

namespace unity::viz {

struct Point {
  double x = 0, y = 0;
};

struct NodeGeometry {
  double x = 0, y = 0;          // centre
  double width = 0, height = 0; // box size
};

struct EdgeGeometry {
  /// Cubic Bezier control points: p0, then (c1, c2, p) triples, as Graphviz
  /// gives them. The arrow head, when there is one, goes from the last point
  /// to `arrowTip`.
  std::vector<Point> points;
  bool hasArrow = false;
  Point arrowTip;
  Point labelPos; // where the shape/dtype label goes (midpoint of the spline)
};

struct ClusterGeometry {
  double x = 0, y = 0, width = 0, height = 0; // top-left corner and size
};

struct GraphLayout {
  double width = 0, height = 0;
  std::vector<NodeGeometry> nodes; // indexed like DataflowGraph::nodes
  std::vector<EdgeGeometry> edges; // indexed like DataflowGraph::edges
  std::vector<ClusterGeometry>
      clusters;  // indexed like DataflowGraph::clusters (zero for collapsed)
  double ms = 0; // time spent in Graphviz
};

struct LayoutOptions {
  // Bounds on dot's effort (graph attributes of the same names).
  double nslimit = 4, nslimit1 = 4, mclimit = 0.5;
  int searchsize = 30;
  std::string rankdir = "TB";
  bool edgeLabels = false; // reserve room for edge labels (slower; exports use them)
  const std::atomic<bool>* cancel = nullptr;
};

struct DotOptions {
  bool edgeLabels = true;
  std::string rankdir = "TB";
  // Layout bounds written into the graph.
  double nslimit = 4, nslimit1 = 4, mclimit = 0.5;
  int searchsize = 30;
};

/// The graph as DOT text: nodes n<id> with label, shape and fill colour by
/// kind and op pattern; edges with "id" = edge index; expanded clusters as
/// subgraph cluster_<index>.
std::string toDot(const DataflowGraph& g, const DotOptions& opts = {});

/// Lays the graph out. Returns nullopt when `cancel` was set before or
/// during the layout. Throws unity::Error when Graphviz fails.
std::optional<GraphLayout> layoutGraph(const DataflowGraph& g, const LayoutOptions& opts = {});

/// Renders the graph: "dot" (toDot text), "svg" or "png" (Graphviz output
/// bytes). Throws unity::Error naming the format when it is not one of those.
std::string renderGraph(const DataflowGraph& g, const std::string& format,
                        const DotOptions& opts = {});

/// Fill colour of a node ("#rrggbb"), by kind and op pattern; the GUI uses
/// the same palette.
std::string nodeColor(const GraphNode& n);
/// Name of an op-pattern value ("elemwise", "broadcast", ... "opaque"), "" for -1.
std::string opPatternLabel(int pattern);

} // namespace unity::viz
