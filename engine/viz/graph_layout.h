#pragma once
// Layout of a DataflowGraph behind one interface (GraphLayouter) with two
// implementations, and export as DOT, SVG or PNG.
//
// - GraphvizLayouter (this file): Graphviz `dot`, the polished one.
// - LayeredLayouter (layered_layout.h): a fast Sugiyama-style layout for
//   graphs above LayoutOptions::layeredAbove nodes (1,500 by default), where
//   dot takes tens of seconds.
// layoutGraph() picks one by node count (LayoutOptions::engine overrides).
// Both give nodes the same sizes (estimateNodeSize: DejaVu Sans advance
// widths, no font engine), so a graph looks alike either way.
//
// Graphviz:
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
  std::string engine; // the GraphLayouter that made it: "dot" or "layered"
  double width = 0, height = 0;
  std::vector<NodeGeometry> nodes; // indexed like DataflowGraph::nodes
  std::vector<EdgeGeometry> edges; // indexed like DataflowGraph::edges
  std::vector<ClusterGeometry>
      clusters;  // indexed like DataflowGraph::clusters (zero for collapsed)
  double ms = 0; // time spent in the layout engine
};

enum class LayoutEngine { Auto, Graphviz, Layered };

struct LayoutOptions {
  // Bounds on dot's effort (graph attributes of the same names). Graphs of
  // more than kBigGraphNodes nodes laid out by dot get a fixed budget of
  // kBigGraphSimplexIterations network-simplex iterations instead of
  // nslimit x nodes.
  double nslimit = 4, nslimit1 = 4, mclimit = 0.5;
  int searchsize = 30;
  std::string rankdir = "TB"; // TB, BT, LR or RL
  bool edgeLabels = false;    // reserve room for edge labels (slower; exports use them)
  /// Let Graphviz measure the node labels (with Pango: ~40% of dot's time on
  /// big graphs). Off, nodes get estimateNodeSize() and dot sees no text.
  bool measureLabels = false;
  LayoutEngine engine = LayoutEngine::Auto;
  /// Auto: graphs with more nodes than this get the layered layout.
  size_t layeredAbove = 1500;
  const std::atomic<bool>* cancel = nullptr;
};

constexpr size_t kBigGraphNodes = 1500;
constexpr double kBigGraphSimplexIterations = 200;

/// A layout algorithm. Implementations are stateless and may be called from
/// any thread.
class GraphLayouter {
public:
  virtual ~GraphLayouter() = default;
  virtual std::string name() const = 0;
  /// Lays the graph out. Returns nullopt when `opts.cancel` was set before
  /// or during the layout. Throws unity::Error on a malformed graph or when
  /// the engine fails.
  virtual std::optional<GraphLayout> layout(const DataflowGraph& g,
                                            const LayoutOptions& opts) const = 0;
};

class GraphvizLayouter : public GraphLayouter {
public:
  std::string name() const override { return "dot"; }
  std::optional<GraphLayout> layout(const DataflowGraph& g,
                                    const LayoutOptions& opts) const override;
};

/// The implementation layoutGraph() uses for `g` under `opts`.
const GraphLayouter& chooseLayouter(const DataflowGraph& g, const LayoutOptions& opts);

/// Width of `text` (one line) in DejaVu Sans at `fontSize` points, from the
/// font's advance widths (non-ASCII characters count as 0.6 em).
double textWidth(const std::string& text, double fontSize);
/// The box of node `n` (centre at 0): its label's lines in the font size,
/// margins and minimum size the DOT output gives it; ellipses for
/// parameters and the output.
NodeGeometry estimateNodeSize(const GraphNode& n);

struct DotOptions {
  bool edgeLabels = true;
  std::string rankdir = "TB";
  // Layout bounds written into the graph.
  double nslimit = 4, nslimit1 = 4, mclimit = 0.5;
  int searchsize = 30;
  /// Nodes without label text, sized by estimateNodeSize (fixedsize): what
  /// the layout uses when it does not measure labels.
  bool sizedNodes = false;
};

/// The graph as DOT text: nodes n<id> with label, shape and fill colour by
/// kind and op pattern; edges with "id" = edge index; expanded clusters as
/// subgraph cluster_<index>.
std::string toDot(const DataflowGraph& g, const DotOptions& opts = {});

/// Lays the graph out with chooseLayouter(g, opts). Returns nullopt when
/// `cancel` was set before or during the layout. Throws unity::Error when
/// the engine fails.
std::optional<GraphLayout> layoutGraph(const DataflowGraph& g, const LayoutOptions& opts = {});

/// Renders the graph: "dot" (toDot text), "svg" or "png" (Graphviz output
/// bytes). Throws unity::Error naming the format when it is not one of those.
std::string renderGraph(const DataflowGraph& g, const std::string& format,
                        const DotOptions& opts = {});

/// Fill colour of a node ("#rrggbb"), by kind and op pattern (a placeholder
/// R.unsupported of an import for viewing stands out in red); the GUI uses
/// the same palette.
std::string nodeColor(const GraphNode& n);
/// Name of an op-pattern value ("elemwise", "broadcast", ... "opaque"), "" for -1.
std::string opPatternLabel(int pattern);

} // namespace unity::viz
