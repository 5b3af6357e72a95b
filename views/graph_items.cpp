#include "views/graph_items.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lowerscope {

double LodTextItem::screenHeight(double levelOfDetail) const {
  return QFontMetricsF(font()).height() * scale() * levelOfDetail;
}

void LodTextItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                        QWidget* widget) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  // worldTransform() already includes this item's own scale().
  if (QFontMetricsF(font()).height() * lod < kMinTextPixels)
    return;
  QGraphicsSimpleTextItem::paint(painter, option, widget);
}

} // namespace lowerscope
