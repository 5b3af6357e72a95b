#include "views/graph_minimap.h"

#include <QEvent>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

#include "views/graph_view.h"
#include "views/theme.h"

namespace lowerscope {

namespace {
constexpr int kMaxWidth = 200, kMaxHeight = 160, kMinSide = 48, kMargin = 8, kInset = 3;
} // namespace

GraphMinimap::GraphMinimap(QGraphicsView* view)
    : QWidget(view), view_(view), watchedView_(view), watchedViewport_(view->viewport()) {
  setObjectName("graphMinimap");
  setToolTip(tr("Overview: click or drag to move the view"));
  setCursor(Qt::PointingHandCursor);
  setAttribute(Qt::WA_OpaquePaintEvent, false);
  view->installEventFilter(this);
  view->viewport()->installEventFilter(this);
  for (QScrollBar* bar : {view->horizontalScrollBar(), view->verticalScrollBar()}) {
    connect(bar, &QScrollBar::valueChanged, this, &GraphMinimap::scheduleSync);
    connect(bar, &QScrollBar::rangeChanged, this, &GraphMinimap::scheduleSync);
  }
  connect(Theme::instance(), &Theme::changed, this, [this] {
    dirty_ = true;
    update();
  });
  hide();
}

void GraphMinimap::setGraph(std::shared_ptr<const LaidOutGraph> graph,
                            const std::vector<unity::viz::DiffStatus>* status) {
  graph_ = graph && graph->error.isEmpty() ? std::move(graph) : nullptr;
  status_ = status ? *status : std::vector<unity::viz::DiffStatus>{};
  dirty_ = true;
  place();
  sync();
}

QRectF GraphMinimap::visibleSceneRect() const {
  return view_->mapToScene(view_->viewport()->rect()).boundingRect();
}

QRectF GraphMinimap::mapArea() const {
  const QRectF box = QRectF(rect()).adjusted(kInset, kInset, -kInset, -kInset);
  if (view_->sceneRect().isEmpty())
    return box;
  const QRectF scene = view_->sceneRect();
  const double s = std::min(box.width() / scene.width(), box.height() / scene.height());
  const QSizeF size(scene.width() * s, scene.height() * s);
  return QRectF(box.center() - QPointF(size.width() / 2, size.height() / 2), size);
}

QPointF GraphMinimap::toScene(const QPointF& p) const {
  const QRectF area = mapArea(), scene = view_->sceneRect();
  if (area.isEmpty() || scene.isEmpty())
    return {};
  return {scene.left() + (p.x() - area.left()) * scene.width() / area.width(),
          scene.top() + (p.y() - area.top()) * scene.height() / area.height()};
}

QPointF GraphMinimap::fromScene(const QPointF& p) const {
  const QRectF area = mapArea(), scene = view_->sceneRect();
  if (area.isEmpty() || scene.isEmpty())
    return {};
  return {area.left() + (p.x() - scene.left()) * area.width() / scene.width(),
          area.top() + (p.y() - scene.top()) * area.height() / scene.height()};
}

bool GraphMinimap::isUseful() const {
  if (!graph_ || view_->sceneRect().isEmpty())
    return false;
  // Everything on screen (with a little slack for rounding): nothing to do.
  const QRectF visible = visibleSceneRect().adjusted(-2, -2, 2, 2);
  return !visible.contains(view_->sceneRect());
}

void GraphMinimap::scheduleSync() {
  // Scroll bars change one after the other while the view zooms: look once
  // the view has settled.
  if (syncPending_)
    return;
  syncPending_ = true;
  QMetaObject::invokeMethod(this, &GraphMinimap::sync, Qt::QueuedConnection);
}

void GraphMinimap::sync() {
  syncPending_ = false;
  const bool show = isUseful();
  if (show != isVisible()) {
    setVisible(show);
    if (show)
      place();
  }
  if (show)
    update();
}

void GraphMinimap::place() {
  // The graph's aspect ratio within kMaxWidth x kMaxHeight.
  QSize size(kMaxWidth, kMaxHeight);
  const QRectF scene = view_->sceneRect();
  if (!scene.isEmpty()) {
    const double s =
        std::min(double(kMaxWidth) / scene.width(), double(kMaxHeight) / scene.height());
    size = QSize(std::max(kMinSide, int(scene.width() * s) + 2 * kInset),
                 std::max(kMinSide, int(scene.height() * s) + 2 * kInset));
  }
  const QRect vp = view_->viewport()->geometry();
  if (size != this->size())
    resize(size);
  move(vp.right() - size.width() - kMargin + 1, vp.bottom() - size.height() - kMargin + 1);
  raise();
}

void GraphMinimap::render() {
  dirty_ = false;
  const qreal dpr = devicePixelRatioF();
  image_ = QImage((QSizeF(size()) * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
  image_.setDevicePixelRatio(dpr);
  image_.fill(Qt::transparent);
  const ThemeColors& colors = Theme::instance()->colors();
  QPainter p(&image_);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(colors.clusterBorder, 1));
  p.setBrush(colors.minimapBackground);
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
  if (!graph_)
    return;
  const auto& G = graph_->graph;
  const auto& L = graph_->layout;
  p.setRenderHint(QPainter::Antialiasing, false);
  // Edges as straight lines between node centres: enough to see the flow.
  if (G.edges.size() <= 20000) {
    QColor edge = colors.edge;
    edge.setAlpha(110);
    p.setPen(QPen(edge, 0));
    std::vector<QLineF> lines;
    lines.reserve(G.edges.size());
    for (const auto& e : G.edges)
      if (e.from < static_cast<int>(L.nodes.size()) && e.to < static_cast<int>(L.nodes.size()))
        lines.emplace_back(fromScene({L.nodes[e.from].x, L.nodes[e.from].y}),
                           fromScene({L.nodes[e.to].x, L.nodes[e.to].y}));
    p.drawLines(lines.data(), static_cast<int>(lines.size()));
  }
  p.setPen(Qt::NoPen);
  for (const auto& n : G.nodes) {
    if (n.id >= static_cast<int>(L.nodes.size()))
      continue;
    const auto& geo = L.nodes[n.id];
    QRectF r(fromScene({geo.x - geo.width / 2, geo.y - geo.height / 2}),
             fromScene({geo.x + geo.width / 2, geo.y + geo.height / 2}));
    // At least a dot, so every node shows.
    if (r.width() < 1.5)
      r.adjust(-(1.5 - r.width()) / 2, 0, (1.5 - r.width()) / 2, 0);
    if (r.height() < 1.5)
      r.adjust(0, -(1.5 - r.height()) / 2, 0, (1.5 - r.height()) / 2);
    QColor fill = colors.nodeFill(QColor(QString::fromStdString(unity::viz::nodeColor(n))));
    if (n.id < static_cast<int>(status_.size())) {
      switch (status_[n.id]) {
      case unity::viz::DiffStatus::Added:
        fill = colors.added;
        break;
      case unity::viz::DiffStatus::Removed:
        fill = colors.removed;
        break;
      case unity::viz::DiffStatus::Changed:
        fill = colors.changed;
        break;
      case unity::viz::DiffStatus::Unchanged:
        break;
      }
    }
    p.fillRect(r, fill);
  }
}

void GraphMinimap::paintEvent(QPaintEvent*) {
  if (dirty_ || image_.size() != (QSizeF(size()) * devicePixelRatioF()).toSize())
    render();
  QPainter p(this);
  p.drawImage(0, 0, image_);
  if (!graph_)
    return;
  const QRectF visible = visibleSceneRect();
  QRectF frame(fromScene(visible.topLeft()), fromScene(visible.bottomRight()));
  frame = frame.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  if (frame.isEmpty())
    return;
  const ThemeColors& colors = Theme::instance()->colors();
  QColor fill = colors.minimapFrame;
  fill.setAlpha(40);
  p.setPen(QPen(colors.minimapFrame, 1.5));
  p.setBrush(fill);
  p.drawRect(frame);
}

void GraphMinimap::moveViewTo(const QPointF& widgetPos) {
  if (!graph_)
    return;
  view_->centerOn(toScene(widgetPos));
}

void GraphMinimap::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    moveViewTo(e->position());
    e->accept();
    return;
  }
  QWidget::mousePressEvent(e);
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) {
    moveViewTo(e->position());
    e->accept();
    return;
  }
  QWidget::mouseMoveEvent(e);
}

void GraphMinimap::resizeEvent(QResizeEvent* e) {
  dirty_ = true;
  QWidget::resizeEvent(e);
}

bool GraphMinimap::eventFilter(QObject* watched, QEvent* e) {
  // Type and identity first: see the header on events of a dying canvas.
  if ((e->type() == QEvent::Resize || e->type() == QEvent::Show) &&
      (watched == watchedView_ || watched == watchedViewport_)) {
    place();
    scheduleSync();
  }
  return QWidget::eventFilter(watched, e);
}

} // namespace lowerscope
