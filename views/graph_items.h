#pragma once
// Graphics items of the graph canvas that know their level of detail.
//
// A 5,000-node graph fitted in the window shows its text a pixel high and
// its boxes a few pixels wide: painting every glyph, rounded outline and
// Bezier curve costs most of a frame (~170 ms) and shows nothing. So:
//  - LodTextItem skips painting while its text would be smaller than
//    kMinTextPixels on screen;
//  - NodeItem paints a plain filled rectangle (no rounded outline) while
//    the scale is below kSimpleBelow;
//  - EdgeItem paints its curve as the polyline through its on-curve points
//    below kSimpleBelow, and its arrow head (part of the item: one item per
//    edge) only above it.
// Zooming in brings the details back. The scene keeps every item, so
// search, tooltips, selection and exports are unaffected.
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QPolygonF>

namespace lowerscope {

/// Below this view scale, nodes and edges are drawn simplified.
constexpr double kSimpleBelow = 0.3;

class LodTextItem : public QGraphicsSimpleTextItem {
public:
  static constexpr double kMinTextPixels = 4.5;

  using QGraphicsSimpleTextItem::QGraphicsSimpleTextItem;
  /// The on-screen height of the text at `levelOfDetail` (the painter's scale).
  double screenHeight(double levelOfDetail) const;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
  mutable double fontHeight_ = -1; // the font's line height, measured once
};

class NodeItem : public QGraphicsPathItem {
public:
  using QGraphicsPathItem::QGraphicsPathItem;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
};

class EdgeItem : public QGraphicsPathItem {
public:
  /// `path` is the curve; `head` the arrow head (empty: none).
  EdgeItem(const QPainterPath& path, const QPolygonF& head);
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const QPolygonF& head() const { return head_; }

private:
  QPolygonF head_, coarse_; // coarse_: the curve's on-curve points
  QRectF bounds_;
};

} // namespace lowerscope
