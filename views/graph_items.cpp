#include "views/graph_items.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lowerscope {

double LodTextItem::screenHeight(double levelOfDetail) const {
  if (fontHeight_ < 0)
    fontHeight_ = QFontMetricsF(font()).height();
  return fontHeight_ * scale() * levelOfDetail;
}

void LodTextItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                        QWidget* widget) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  // worldTransform() already includes this item's own scale().
  if (fontHeight_ < 0)
    fontHeight_ = QFontMetricsF(font()).height();
  if (fontHeight_ * lod < kMinTextPixels)
    return;
  QGraphicsSimpleTextItem::paint(painter, option, widget);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  if (lod >= kSimpleBelow) {
    QGraphicsPathItem::paint(painter, option, widget);
    return;
  }
  // A thick pen marks a diff status or the selection: keep it visible.
  painter->setPen(pen().widthF() > 1.5 ? pen() : QPen(Qt::NoPen));
  painter->setBrush(brush());
  painter->drawRect(path().boundingRect());
}

EdgeItem::EdgeItem(const QPainterPath& path, const QPolygonF& head)
    : QGraphicsPathItem(path), head_(head) {
  for (int i = 0; i < path.elementCount(); ++i) {
    const QPainterPath::Element& e = path.elementAt(i);
    if (e.isMoveTo() || e.isLineTo() ||
        (e.type == QPainterPath::CurveToDataElement &&
         (i + 1 == path.elementCount() ||
          path.elementAt(i + 1).type != QPainterPath::CurveToDataElement)))
      coarse_ << QPointF(e.x, e.y);
  }
  bounds_ = QGraphicsPathItem::boundingRect().united(head_.boundingRect());
}

QRectF EdgeItem::boundingRect() const { return bounds_; }

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  if (lod < kSimpleBelow) {
    painter->setPen(pen());
    painter->drawPolyline(coarse_);
    return;
  }
  QGraphicsPathItem::paint(painter, option, widget);
  if (!head_.isEmpty()) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(pen().color());
    painter->drawPolygon(head_);
  }
}

} // namespace lowerscope
