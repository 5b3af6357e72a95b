#include "views/graph_labels.h"

#include <QFontMetricsF>
#include <QHash>
#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace lowerscope {

namespace {

QString shortDtype(const QString& dtype) {
  static const QRegularExpression re(QStringLiteral("^(float|int|uint|bfloat)(\\d+)$"));
  const QRegularExpressionMatch m = re.match(dtype);
  if (!m.hasMatch())
    return dtype;
  const QString kind = m.captured(1);
  const QString prefix = kind == QLatin1String("float")  ? QStringLiteral("f")
                         : kind == QLatin1String("int")  ? QStringLiteral("i")
                         : kind == QLatin1String("uint") ? QStringLiteral("u")
                                                         : QStringLiteral("bf");
  return prefix + m.captured(2);
}

/// Rectangles bucketed in a uniform grid: "does this box hit any kept box?"
/// in time proportional to the boxes near it.
class RectGrid {
public:
  explicit RectGrid(double cell) : cell_(cell) {}

  void insert(const QRectF& r) {
    const int id = static_cast<int>(rects_.size());
    rects_.push_back(r);
    forCells(r, [&](qint64 key) { cells_[key].push_back(id); });
  }

  bool hits(const QRectF& r) const {
    bool hit = false;
    forCells(r, [&](qint64 key) {
      if (hit)
        return;
      auto it = cells_.constFind(key);
      if (it == cells_.constEnd())
        return;
      for (int id : *it)
        if (rects_[id].intersects(r)) {
          hit = true;
          return;
        }
    });
    return hit;
  }

private:
  template <typename F> void forCells(const QRectF& r, F&& f) const {
    const int x0 = static_cast<int>(std::floor(r.left() / cell_));
    const int x1 = static_cast<int>(std::floor(r.right() / cell_));
    const int y0 = static_cast<int>(std::floor(r.top() / cell_));
    const int y1 = static_cast<int>(std::floor(r.bottom() / cell_));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x)
        f((qint64(y) << 32) ^ qint64(quint32(x)));
  }

  double cell_;
  std::vector<QRectF> rects_;
  QHash<qint64, std::vector<int>> cells_;
};

} // namespace

namespace {

/// Index of the ')' closing the '(' at `open`, or -1.
qsizetype closingParen(const QString& s, qsizetype open) {
  int depth = 0;
  for (qsizetype i = open; i < s.size(); ++i) {
    if (s[i] == QLatin1Char('('))
      ++depth;
    else if (s[i] == QLatin1Char(')') && --depth == 0)
      return i;
  }
  return -1;
}

/// The parts of s separated by commas outside parentheses, trimmed, empty
/// ones dropped ("10," is one part).
QStringList topLevelParts(const QString& s) {
  QStringList parts;
  int depth = 0;
  qsizetype from = 0;
  for (qsizetype i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] == QLatin1Char('('))
      ++depth;
    else if (i < s.size() && s[i] == QLatin1Char(')'))
      --depth;
    if (i == s.size() || (s[i] == QLatin1Char(',') && depth == 0)) {
      const QString part = s.mid(from, i - from).trimmed();
      if (!part.isEmpty())
        parts << part;
      from = i + 1;
    }
  }
  return parts;
}

/// A symbolic dim without the spaces around its operators:
/// "(H + 1) // 2" -> "(H+1)//2".
QString compactDim(QString d) {
  d.remove(QLatin1Char(' '));
  return d;
}

} // namespace

QString shortTypeLabel(const QString& full) {
  // "(d0, d1, ...) dtype" wherever it occurs (tuples hold several); a dim
  // may be an expression with parentheses of its own.
  static const QRegularExpression dtype(QStringLiteral(" (\\w+)"));
  QString out;
  for (qsizetype i = 0; i < full.size();) {
    const qsizetype close = full[i] == QLatin1Char('(') ? closingParen(full, i) : -1;
    if (close < 0) {
      out += full[i++];
      continue;
    }
    const QString inner = full.mid(i + 1, close - i - 1);
    const QRegularExpressionMatch m = dtype.match(full, close + 1, QRegularExpression::NormalMatch,
                                                  QRegularExpression::AnchorAtOffsetMatchOption);
    if (!m.hasMatch()) { // a tuple, or parentheses of something else
      out += QLatin1Char('(') + shortTypeLabel(inner) + QLatin1Char(')');
      i = close + 1;
      continue;
    }
    QStringList dims;
    for (const QString& d : topLevelParts(inner))
      dims << compactDim(d);
    const QString dt = shortDtype(m.captured(1));
    out += dims.isEmpty() ? dt : dims.join(QChar(0x00d7)) + QLatin1Char(' ') + dt;
    i = m.capturedEnd();
  }
  return out;
}

QString elideEdgeLabel(const QString& text) {
  if (text.size() <= kMaxEdgeLabelChars)
    return text;
  return text.left(kMaxEdgeLabelChars - 1) + QChar(0x2026);
}

QString groupCountText(int count) {
  return count == 1 ? QObject::tr("1 node") : QObject::tr("%L1 nodes").arg(count);
}

ClusterTitle clusterTitle(const unity::viz::GraphCluster& cluster,
                          const unity::viz::ClusterGeometry& box, const QFont& font) {
  const QFontMetricsF fm(font);
  QString name = QString::fromStdString(cluster.function);
  if (cluster.scope)
    name = name.section('/', -1);
  const int size = cluster.size > 0 ? cluster.size : static_cast<int>(cluster.members.size());
  const QString tail = QStringLiteral(" \u00B7 ") + groupCountText(size);
  const double room = std::max(0.0, box.width - kClusterTitleIndent - 4);
  QString text = name + tail;
  if (fm.horizontalAdvance(text) > room) {
    // The name elided, the count kept, while at least 3 letters of the name show.
    const QString elided = fm.elidedText(name, Qt::ElideRight, room - fm.horizontalAdvance(tail));
    text = elided.size() >= 4 ? elided + tail : fm.elidedText(name, Qt::ElideRight, room);
  }
  ClusterTitle t;
  t.text = text;
  t.rect = QRectF(box.x + kClusterTitleIndent, box.y + 2, fm.horizontalAdvance(text), fm.height());
  return t;
}

std::vector<EdgeLabel> placeEdgeLabels(const unity::viz::DataflowGraph& g,
                                       const unity::viz::GraphLayout& layout, const QFont& font) {
  std::vector<EdgeLabel> labels;
  const QFontMetricsF metrics(font);
  RectGrid taken(48);
  for (size_t i = 0; i < g.nodes.size() && i < layout.nodes.size(); ++i) {
    const auto& n = layout.nodes[i];
    taken.insert(
        QRectF(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height).adjusted(-1, -1, 1, 1));
  }
  for (size_t i = 0; i < g.clusters.size() && i < layout.clusters.size(); ++i)
    if (g.clusters[i].expanded && layout.clusters[i].width > 0)
      taken.insert(
          clusterTitle(g.clusters[i], layout.clusters[i], font).rect.adjusted(-2, -1, 2, 1));
  // Values already labelled: (producer, label text).
  std::set<std::pair<int, std::string>> done;
  const double gap = 3;
  for (size_t i = 0; i < g.edges.size() && i < layout.edges.size(); ++i) {
    const auto& e = g.edges[i];
    const auto& geo = layout.edges[i];
    if (e.label.empty() || geo.points.empty())
      continue;
    if (done.count({e.from, e.label}))
      continue;
    EdgeLabel label;
    label.edge = static_cast<int>(i);
    label.full = QString::fromStdString(e.label);
    label.text = elideEdgeLabel(shortTypeLabel(label.full));
    const QRectF box = metrics.boundingRect(label.text);
    const QSizeF size(box.width() + 1, metrics.height());
    const QPointF at(geo.labelPos.x, geo.labelPos.y);
    const QRectF right(QPointF(at.x() + gap, at.y() - size.height() / 2), size);
    const QRectF left(QPointF(at.x() - gap - size.width(), at.y() - size.height() / 2), size);
    for (const QRectF& r : {right, left}) {
      if (taken.hits(r))
        continue;
      label.rect = r;
      taken.insert(r);
      done.insert({e.from, e.label});
      labels.push_back(label);
      break;
    }
  }
  return labels;
}

} // namespace lowerscope
