#pragma once
// A small overview of the whole graph in the corner of a graph canvas, with
// the part the canvas shows framed. Clicking or dragging in it moves the
// canvas there.
//
// The overview is painted from the layout (node boxes in their fill colour,
// diff-status colours for changed nodes, straight edges), not by rendering
// the scene, so it costs a few milliseconds even for 5,000 nodes; it is
// cached as an image and rebuilt only when the graph, the theme or the
// minimap's size changes. The frame follows the canvas's scroll bars and
// zoom. The minimap hides itself while the canvas shows the whole graph.
//
// The minimap is a child of its canvas, so it never outlives it, but the
// canvas's destructors run before Qt deletes the children: while they run,
// the canvas is no longer a QGraphicsView and events it still receives (a
// child removed, a leave) reach the minimap's event filter. The filter
// therefore compares the watched object by identity and reads the canvas
// only for the two events it handles, and the canvas is kept as a plain
// pointer (a QPointer would cast the dying object on every test). Owners
// that can, delete the minimap first (GraphView's destructor does).
#include <QImage>
#include <QWidget>

#include <memory>
#include <vector>

#include "engine/viz/graph_diff.h"
#include "engine/viz/graph_layout.h"

class QGraphicsView;

namespace lowerscope {

struct LaidOutGraph;

class GraphMinimap : public QWidget {
  Q_OBJECT
public:
  /// Overlays `view` (becomes its child, in the bottom-right corner).
  explicit GraphMinimap(QGraphicsView* view);

  /// The graph to show (null: none) and, in before/after mode, the diff
  /// status of each node (null: plain).
  void setGraph(std::shared_ptr<const LaidOutGraph> graph,
                const std::vector<unity::viz::DiffStatus>* status = nullptr);
  bool hasGraph() const { return bool(graph_); }

  /// The scene rectangle the canvas shows, in scene coordinates.
  QRectF visibleSceneRect() const;
  /// Minimap widget coordinates <-> scene coordinates.
  QPointF toScene(const QPointF& widgetPos) const;
  QPointF fromScene(const QPointF& scenePos) const;
  /// False while the canvas shows the whole graph (nothing to navigate).
  bool isUseful() const;

public Q_SLOTS:
  /// Re-reads the canvas position (called on scroll, zoom and resize).
  void sync();
  /// sync() once control returns to the event loop.
  void scheduleSync();

protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  bool eventFilter(QObject* watched, QEvent* e) override;

private:
  void place();
  void render();
  QRectF mapArea() const; // where the graph is drawn inside the widget
  void moveViewTo(const QPointF& widgetPos);

  QGraphicsView* const view_; // the parent: valid for this object's lifetime
  // The canvas and its viewport as QObjects, taken while the canvas is
  // whole: the event filter's identity test needs no cast.
  QObject* const watchedView_;
  QObject* const watchedViewport_;
  std::shared_ptr<const LaidOutGraph> graph_;
  std::vector<unity::viz::DiffStatus> status_;
  QImage image_;
  bool dirty_ = true;
  bool syncPending_ = false;
};

} // namespace lowerscope
