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

/// "(1, 128, 768) float32" -> "1×128×768 f32"; tuples shortened field by
/// field; anything else unchanged.
QString shortTypeLabel(const QString& full);

/// The labels to draw for `g` laid out as `layout`, text measured in `font`.
std::vector<EdgeLabel> placeEdgeLabels(const unity::viz::DataflowGraph& g,
                                       const unity::viz::GraphLayout& layout, const QFont& font);

} // namespace lowerscope
