#pragma once
// Graphics items of the graph canvas that know their level of detail.
//
// A 5,000-node graph fitted in the window shows its text a pixel high:
// painting it costs most of the frame and shows nothing. LodTextItem skips
// painting while its text would be smaller than kMinTextPixels on screen;
// zooming in brings it back. The scene keeps the item, so search, tooltips
// and exports are unaffected.
#include <QGraphicsSimpleTextItem>

namespace lowerscope {

class LodTextItem : public QGraphicsSimpleTextItem {
public:
  static constexpr double kMinTextPixels = 4.5;

  using QGraphicsSimpleTextItem::QGraphicsSimpleTextItem;
  /// The on-screen height of the text at `levelOfDetail` (the painter's scale).
  double screenHeight(double levelOfDetail) const;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
};

} // namespace lowerscope
