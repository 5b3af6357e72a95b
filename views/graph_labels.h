#pragma once
// Which shape/dtype edge labels the graph view draws, and where.
//
// Dense graphs (a transformer block: one value read by q, k and v; weights
// next to every matmul) put many labels on top of each other and of the
// nodes. The placement here keeps a label only where it is readable:
//  - labels are short ("1×128×768 f32" for "(1, 128, 768) float32"); the
//    full type stays in the edge's tooltip and the node's properties;
//  - a value read by several consumers is labelled once (on its first edge
//    that has room), not once per edge;
//  - a label goes right of its edge's midpoint, else left of it, else it is
//    dropped: it never overlaps a node box or another label.
// Collision tests use a uniform grid, so placement is linear in the number
// of edges (5,000-node graphs stay fast). Labels are drawn with a level of
// detail: below a few pixels on screen they are not painted at all.
#include <QFont>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

#include "engine/viz/graph_layout.h"
#include "engine/viz/graph_model.h"

namespace lowerscope {

struct EdgeLabel {
  int edge = -1; // index in DataflowGraph::edges
  QRectF rect;   // where the text goes (scene coordinates, its bounding box)
  QString text;  // short form
  QString full;  // the type as the engine prints it
};

/// "(1, 128, 768) float32" -> "1×128×768 f32"; symbolic dims without the
/// spaces around their operators ("(N, (H + 1) // 2) float32" ->
/// "N×(H+1)//2 f32"); tuples shortened field by field; anything else
/// unchanged.
QString shortTypeLabel(const QString& full);

/// Characters an edge label shows at most: exporters' shape variables
/// (`p2o_DynamicDimension_1`) make symbolic shapes long, and a label wider
/// than the graph runs off the view.
inline constexpr qsizetype kMaxEdgeLabelChars = 36;
/// text cut to kMaxEdgeLabelChars with a trailing "…" (the whole type
/// stays the label's tooltip).
QString elideEdgeLabel(const QString& text);

/// "1 node", "2,162 nodes".
QString groupCountText(int count);

/// An expanded group's title as drawn in the header of its box, fitted into
/// the box: "layer.3 · 2,162 nodes"; when that is wider than the box, the
/// name is elided before the count is dropped ("feature… · 12 nodes", then
/// "features.1…"). The full name and count are the box's tooltip.
struct ClusterTitle {
  QString text;
  QRectF rect; ///< scene rectangle of the text, inside the box's header
};
ClusterTitle clusterTitle(const unity::viz::GraphCluster& cluster,
                          const unity::viz::ClusterGeometry& box, const QFont& font);
/// Where the title starts, right of the collapse marker (▾).
inline constexpr double kClusterTitleIndent = 16;

/// The labels to draw for `g` laid out as `layout`, text measured in `font`
/// (expanded groups' titles, in the same font, are kept clear as nodes are).
std::vector<EdgeLabel> placeEdgeLabels(const unity::viz::DataflowGraph& g,
                                       const unity::viz::GraphLayout& layout, const QFont& font);

} // namespace lowerscope
