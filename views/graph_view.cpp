#include "views/graph_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDrag>
#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QTextBrowser>
#include <QThread>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/support/error.h"
#include "views/chunked_builder.h"
#include "views/graph_items.h"
#include "views/graph_labels.h"
#include "views/graph_minimap.h"
#include "views/session.h"
#include "views/target_drag.h"
#include "views/theme.h"

namespace lowerscope {

using unity::viz::DiffStatus;
using unity::viz::NodeKind;

namespace {

constexpr int kIdKey = 0, kTypeKey = 1;
const QString kNodeType = "node", kClusterType = "cluster";
// The expand/collapse marker of a group: a child of its node (collapsed) or
// of its box (expanded); a click on it toggles the group.
const QString kToggleType = "toggle";
// The full graphs kept for switching back and expanding (a 50,000-node
// graph is tens of MB).
constexpr int kFlatCache = 6;
// Graphs with scope groups above this many nodes are laid out by the
// layered layout (see request()).
constexpr size_t kDotScopedNodes = 80;
// Scenes of graphs up to this many nodes (both sides together) are built in
// one go; bigger ones in time slices (ChunkedBuilder).
constexpr size_t kDrawInOneGoNodes = 300;

const QFont& nodeFont() {
  static const QFont font = [] {
    QFont f("DejaVu Sans");
    f.setPixelSize(11);
    return f;
  }();
  return font;
}

} // namespace

/// The font of edge labels and constants (also used by the layout worker to
/// place the labels).
const QFont& smallFont() {
  static const QFont font = [] {
    QFont f("DejaVu Sans");
    f.setPixelSize(8);
    return f;
  }();
  return font;
}

namespace {

QColor statusColor(DiffStatus s) {
  const ThemeColors& colors = Theme::instance()->colors();
  switch (s) {
  case DiffStatus::Added:
    return colors.added;
  case DiffStatus::Removed:
    return colors.removed;
  case DiffStatus::Changed:
    return colors.changed;
  case DiffStatus::Unchanged:
    break;
  }
  return colors.nodeBorder;
}

QString q(const std::string& s) { return QString::fromStdString(s); }

/// The graph item (node, cluster box or group marker) under `item`,
/// walking up to parents.
QGraphicsItem* graphItem(QGraphicsItem* item) {
  while (item && item->data(kTypeKey).toString().isEmpty())
    item = item->parentItem();
  return item;
}

} // namespace

// --------------------------------------------------------------- the canvas

QRect GraphCanvas::bottomBand() const {
  const QRect v = viewport()->geometry();
  return QRect(v.left(), v.bottom() + 1, v.width(), viewportMargins().bottom());
}

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(Theme::instance()->colors().canvas);
  setRubberBandSelectionMode(Qt::IntersectsItemShape);
  connect(this, &QGraphicsView::rubberBandChanged, this,
          [this](QRect rect, QPointF from, QPointF to) {
            if (!rect.isNull())
              band_ = QRectF(from, to).normalized();
          });
}

void GraphCanvas::fit() {
  // The scene rectangle, not the items': a scene being built in slices has
  // its final rectangle before its items.
  if (!scene() || scene()->sceneRect().isEmpty())
    return;
  fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
  // Do not blow small graphs up past their natural size.
  if (zoom() > 1.0)
    setTransform(QTransform());
  fitted_ = true;
  fitReadable_ = false;
  fitTransform_ = transform();
}

void GraphCanvas::fitReadable(const QRectF& focus) {
  fit();
  if (!scene() || zoom() >= kReadableZoom || focus.isEmpty())
    return; // the whole graph is legible as it is
  // A 40-node graph fitted into a window is a thin line of unreadable boxes:
  // show its start (or the selection) at a readable size instead; the
  // minimap gives the overview.
  setTransform(QTransform::fromScale(kReadableZoom, kReadableZoom));
  const QSizeF view(viewport()->width() / kReadableZoom, viewport()->height() / kReadableZoom);
  const QRectF scene = sceneRect();
  double x = focus.center().x();
  // The focus near the top of the view, with a margin above it.
  const double y = focus.top() - 30 + view.height() / 2;
  x = std::clamp(x, scene.left() + view.width() / 2,
                 std::max(scene.left() + view.width() / 2, scene.right() - view.width() / 2));
  centerOn(x, y);
  fitted_ = true;
  fitReadable_ = true;
  focus_ = focus;
  fitTransform_ = transform();
}

void GraphCanvas::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  // Zoomed since (wheel, keys, or scale() from code): leave it.
  if (fitted_ && transform() == fitTransform_) {
    if (fitReadable_)
      fitReadable(focus_);
    else
      fit();
  }
}

double GraphCanvas::zoom() const { return transform().m11(); }

void GraphCanvas::paintEvent(QPaintEvent* e) {
  // Antialiasing thousands of sub-pixel paths costs most of a frame and
  // shows nothing: only draw smooth once the graph is readable.
  setRenderHint(QPainter::Antialiasing, zoom() >= 0.35);
  QGraphicsView::paintEvent(e);
}

void GraphCanvas::wheelEvent(QWheelEvent* e) {
  double factor = std::pow(1.0015, e->angleDelta().y());
  double z = zoom() * factor;
  if (z < 0.02 || z > 8)
    return;
  fitted_ = false;
  scale(factor, factor);
}

void GraphCanvas::mousePressEvent(QMouseEvent* e) {
  const bool ctrl = e->modifiers() & Qt::ControlModifier;
  const bool shift = e->modifiers() & Qt::ShiftModifier;
  pressNode_ = -1;
  if (QGraphicsItem* it = graphItem(itemAt(e->pos()));
      it && it->data(kTypeKey).toString() == kToggleType && e->button() == Qt::LeftButton) {
    // The group marker: expand (on a collapsed group's node) or collapse
    // (on an expanded group's box) with one click.
    QGraphicsItem* owner = graphItem(it->parentItem());
    if (owner && owner->data(kTypeKey).toString() == kNodeType)
      Q_EMIT nodeDoubleClicked(owner->data(kIdKey).toInt());
    else if (owner)
      Q_EMIT clusterDoubleClicked(owner->data(kIdKey).toInt());
    return;
  }
  if (QGraphicsItem* it = graphItem(itemAt(e->pos())))
    if (it->data(kTypeKey).toString() == kNodeType) {
      int id = it->data(kIdKey).toInt();
      if (ctrl && e->button() == Qt::LeftButton) {
        Q_EMIT nodeToggled(id);
        return;
      }
      Q_EMIT nodeClicked(id);
      if (e->button() == Qt::LeftButton) { // a drag candidate, not a pan
        pressNode_ = id;
        pressPos_ = e->pos();
        return;
      }
    }
  if ((ctrl || shift) && e->button() == Qt::LeftButton) {
    banding_ = true;
    bandAdd_ = ctrl;
    band_ = QRectF();
    setDragMode(QGraphicsView::RubberBandDrag);
  }
  QGraphicsView::mousePressEvent(e);
}

void GraphCanvas::mouseMoveEvent(QMouseEvent* e) {
  if (pressNode_ >= 0 && (e->buttons() & Qt::LeftButton) &&
      (e->pos() - pressPos_).manhattanLength() >= QApplication::startDragDistance()) {
    int node = pressNode_;
    pressNode_ = -1;
    Q_EMIT dragRequested(node);
    return;
  }
  QGraphicsView::mouseMoveEvent(e);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* e) {
  pressNode_ = -1;
  QGraphicsView::mouseReleaseEvent(e);
  if (banding_) {
    banding_ = false;
    setDragMode(QGraphicsView::ScrollHandDrag);
    if (!band_.isEmpty())
      Q_EMIT nodesBoxed(band_, bandAdd_);
    band_ = QRectF();
  }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* e) {
  QGraphicsItem* it = graphItem(itemAt(e->pos()));
  if (it && it->data(kTypeKey).toString() == kToggleType) {
    // The press already toggled the group; the second click does nothing.
    e->accept();
    return;
  }
  if (it) {
    if (it->data(kTypeKey).toString() == kNodeType)
      Q_EMIT nodeDoubleClicked(it->data(kIdKey).toInt());
    else
      Q_EMIT clusterDoubleClicked(it->data(kIdKey).toInt());
    return;
  }
  QGraphicsView::mouseDoubleClickEvent(e);
}

void GraphCanvas::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Plus || e->key() == Qt::Key_Equal) {
    fitted_ = false;
    scale(1.25, 1.25);
    return;
  }
  if (e->key() == Qt::Key_Minus) {
    fitted_ = false;
    scale(0.8, 0.8);
    return;
  }
  if (e->key() == Qt::Key_0) {
    fit();
    return;
  }
  QGraphicsView::keyPressEvent(e);
}

// ----------------------------------------------------------------- the view

GraphView::GraphView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), functions_(new QComboBox(this)),
      diffBox_(new QCheckBox(tr("Before / after"), this)), search_(new QLineEdit(this)),
      status_(new QLabel(this)), splitter_(new QSplitter(Qt::Horizontal, this)),
      beforeView_(new GraphCanvas(this)), afterView_(new GraphCanvas(this)),
      beforeScene_(new QGraphicsScene(this)), afterScene_(new QGraphicsScene(this)),
      properties_(new QTextBrowser(this)), minimap_(new GraphMinimap(afterView_)),
      beforeMinimap_(new GraphMinimap(beforeView_)),
      targetColors_(new QCheckBox(tr("Colour by target"), this)),
      builder_(new ChunkedBuilder(this)) {
  setObjectName("graphView");
  functions_->setObjectName("graphFunction");
  functions_->setToolTip(tr("Graph-level function to draw"));
  functions_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  diffBox_->setToolTip(tr("Show the module before the current pass next to the one after it, "
                          "with added (green), removed (red) and changed (amber) nodes"));
  search_->setPlaceholderText(tr("Find node (Ctrl+F): name, op or source node"));
  search_->setClearButtonEnabled(true);
  auto* fit = new QPushButton(tr("Fit"), this);
  fit->setToolTip(tr("Fit the graph in the view (0)"));
  beforeView_->setScene(beforeScene_);
  afterView_->setScene(afterScene_);
  beforeView_->setObjectName("graphBefore");
  afterView_->setObjectName("graphAfter");
  beforeView_->hide();
  properties_->setObjectName("graphProperties");
  properties_->setMinimumWidth(160);
  properties_->setOpenLinks(false);

  auto* bar = new QHBoxLayout;
  bar->addWidget(functions_);
  bar->addWidget(diffBox_);
  bar->addWidget(fit);
  bar->addWidget(targetColors_);
  bar->addWidget(search_, 1);
  bar->addWidget(status_);
  splitter_->addWidget(beforeView_);
  splitter_->addWidget(afterView_);
  splitter_->addWidget(properties_);
  splitter_->setStretchFactor(0, 3);
  splitter_->setStretchFactor(1, 3);
  splitter_->setStretchFactor(2, 1);
  splitter_->setSizes({0, 800, 200});
  // No empty pane: the properties show only while a node is selected.
  properties_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(splitter_, 1);

  auto* findShortcut = new QShortcut(QKeySequence::Find, this);
  findShortcut->setContext(Qt::WidgetWithChildrenShortcut);
  connect(findShortcut, &QShortcut::activated, this, &GraphView::focusSearch);
  connect(search_, &QLineEdit::returnPressed, this, [this] { find(search_->text(), true); });
  connect(fit, &QPushButton::clicked, this, [this] {
    afterView_->fit();
    beforeView_->fit();
  });
  connect(diffBox_, &QCheckBox::toggled, this, &GraphView::setDiffMode);
  connect(functions_, &QComboBox::activated, this,
          [this](int i) { session_->setCurrentFunction(functions_->itemText(i)); });
  auto wire = [this](GraphCanvas* c, bool before) {
    connect(c, &GraphCanvas::nodeClicked, this, [this, before](int n) {
      if (before || !multi_.count(n))
        multi_.clear(); // a plain click on a selected node keeps the selection (to drag it)
      selectedBefore_ = before;
      selectNode(n);
    });
    connect(c, &GraphCanvas::nodeDoubleClicked, this, [this, before](int n) {
      LaidOutGraphPtr g = before ? before_ : after_;
      if (g && n < static_cast<int>(g->graph.nodes.size())) {
        const auto& node = g->graph.nodes[n];
        if (node.kind == NodeKind::Cluster && node.collapsed >= 0 &&
            node.collapsed < static_cast<int>(g->graph.clusters.size()))
          setExpanded(q(g->graph.clusters[node.collapsed].function), true);
        else if (node.kind == NodeKind::Cluster)
          setExpanded(q(node.callee), true);
        else if (node.cluster >= 0)
          setExpanded(q(g->graph.clusters[node.cluster].function), false);
      }
    });
    connect(c, &GraphCanvas::clusterDoubleClicked, this, [this, before](int ci) {
      LaidOutGraphPtr g = before ? before_ : after_;
      if (g && ci < static_cast<int>(g->graph.clusters.size()))
        setExpanded(q(g->graph.clusters[ci].function), false);
    });
  };
  wire(afterView_, false);
  wire(beforeView_, true);
  connectDragToTarget();
  connect(session_, &Session::currentStepChanged, this, &GraphView::refresh);
  connect(session_, &Session::currentFunctionChanged, this, &GraphView::refresh);
  connect(session_, &Session::moduleChanged, this, [this] {
    cache_.clear();
    flat_.clear();
    invalidateScenes();
    expanded_.clear();
    collapsed_.clear();
    refresh();
  });
  connect(Theme::instance(), &Theme::changed, this, [this] {
    const QTransform a = afterView_->transform(), b = beforeView_->transform();
    const QPointF ca = afterView_->mapToScene(afterView_->viewport()->rect().center());
    const QPointF cb = beforeView_->mapToScene(beforeView_->viewport()->rect().center());
    invalidateScenes();
    redraw();
    // A palette change keeps the user's zoom and position.
    afterView_->setTransform(a);
    beforeView_->setTransform(b);
    afterView_->centerOn(ca);
    beforeView_->centerOn(cb);
  });
  refresh();
}

GraphView::~GraphView() {
  builder_->cancel();
  invalidateScenes();
  for (auto& c : cancels_)
    c->store(true);
  // Before the canvases are torn down (graph_minimap.h).
  delete minimap_;
  delete beforeMinimap_;
  minimap_ = beforeMinimap_ = nullptr;
}

QString GraphView::statusText() const { return status_->text(); }

void GraphView::focusSearch() {
  search_->setFocus();
  search_->selectAll();
}

void GraphView::setDiffMode(bool on) {
  if (on == diffMode_)
    return;
  diffMode_ = on;
  diffBox_->setChecked(on);
  beforeView_->setVisible(on);
  splitter_->setSizes(on ? QList<int>{500, 500, 200} : QList<int>{0, 800, 200});
  refresh();
}

void GraphView::setExpanded(const QString& function, bool expanded) {
  const std::string name = function.toStdString();
  if (expanded) {
    expanded_.insert(name);
    collapsed_.erase(name);
  } else {
    expanded_.erase(name);
    if (name.size() > 1 && name.front() == '/') // a scope that may be open by default
      collapsed_.insert(name);
  }
  refresh();
}

bool GraphView::isExpanded(const QString& function) const {
  if (!after_)
    return false;
  const std::string name = function.toStdString();
  for (const auto& c : after_->graph.clusters)
    if (c.function == name)
      return c.expanded;
  return false;
}

void GraphView::setConstantsAsNodes(bool on) {
  if (on == constantsAsNodes_)
    return;
  constantsAsNodes_ = on;
  refresh();
}

QGraphicsItem* GraphView::nodeItem(int node) const {
  return node >= 0 && node < static_cast<int>(afterItems_.size()) ? afterItems_[node] : nullptr;
}

QGraphicsItem* GraphView::groupToggle(const QString& function) const {
  for (QGraphicsItem* item : afterScene_->items())
    if (item->data(kTypeKey).toString() == kToggleType &&
        (item->toolTip() == tr("Expand %1").arg(function) ||
         item->toolTip() == tr("Collapse %1").arg(function)))
      return item;
  return nullptr;
}

QWidget* GraphView::propertiesPane() const { return properties_; }

void GraphView::updatePropertiesPane() {
  LaidOutGraphPtr g = selectedBefore_ ? before_ : after_;
  const bool show = g && selected_ >= 0 && selected_ < static_cast<int>(g->graph.nodes.size());
  if (show != properties_->isVisible())
    properties_->setVisible(show);
}

QString GraphView::flatKey(const unity::ir::IRModule& m) const {
  QString key = QString::number(quintptr(m.get())) + "|" + session_->currentFunction() +
                (constantsAsNodes_ ? "|const" : "|props");
  for (auto& e : expanded_)
    if (e.empty() || e.front() != '/') // fused groups change the extraction, scopes do not
      key += "|" + q(e);
  return key;
}

QString GraphView::cacheKey(const unity::ir::IRModule& m) const {
  QString key = flatKey(m);
  for (auto& e : expanded_)
    if (!e.empty() && e.front() == '/')
      key += "|+" + q(e);
  for (auto& c : collapsed_)
    key += "|-" + q(c);
  return key;
}

void GraphView::updateFunctions() {
  unity::ir::IRModule m = session_->currentModule();
  QStringList names;
  if (m)
    for (auto& n : unity::viz::graphFunctions(m))
      names << q(n);
  QStringList old;
  for (int i = 0; i < functions_->count(); ++i)
    old << functions_->itemText(i);
  if (old != names) {
    functions_->clear();
    functions_->addItems(names);
  }
  functions_->setCurrentText(session_->currentFunction());
  functions_->setVisible(names.size() > 1);
}

void GraphView::refresh() {
  multi_.clear(); // node ids belong to the graph shown before
  updateFunctions();
  before_ = after_ = nullptr;
  hasDiff_ = false;
  unity::ir::IRModule m = session_->currentModule();
  unity::ir::IRModule b =
      m && diffMode_ ? session_->moduleBefore(session_->currentStep()) : nullptr;
  const bool none = !m || session_->currentFunction().isEmpty();
  wantAfter_ = none ? QString() : cacheKey(m);
  wantBefore_ = none || !diffMode_ ? QString() : cacheKey(b);
  // Layouts no longer wanted are cancelled; wanted ones in flight go on (a
  // model opening emits several changes: one extraction, not three).
  for (auto it = cancels_.begin(); it != cancels_.end();) {
    if (it.key() == wantAfter_ || it.key() == wantBefore_) {
      ++it;
      continue;
    }
    it.value()->store(true);
    it = cancels_.erase(it);
  }
  if (none) {
    redraw();
    return;
  }
  after_ = cache_.value(wantAfter_);
  if (!after_)
    request(m, false);
  if (diffMode_) {
    before_ = cache_.value(wantBefore_);
    if (!before_ && wantBefore_ != wantAfter_)
      request(b, true);
    else if (!before_)
      before_ = after_;
  }
  redraw();
}

void GraphView::request(const unity::ir::IRModule& m, bool) {
  QString key = cacheKey(m);
  if (cancels_.contains(key))
    return; // already being laid out
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  cancels_.insert(key, cancel);
  const QString fkey = flatKey(m);
  std::string function = session_->currentFunction().toStdString();
  unity::viz::ExtractOptions opts;
  opts.expanded = expanded_;
  opts.constants = constantsAsNodes_;
  opts.cancel = cancel.get();
  FlatGraphPtr flat = flat_.value(fkey);
  std::set<std::string> open, closed = collapsed_;
  for (auto& e : expanded_)
    if (!e.empty() && e.front() == '/')
      open.insert(e);
  ++pending_;
  auto* watcher = new QFutureWatcher<LaidOutGraphPtr>(this);
  connect(watcher, &QFutureWatcher<LaidOutGraphPtr>::finished, this,
          [this, watcher, key, fkey, cancel] {
            --pending_;
            if (auto it = cancels_.find(key); it != cancels_.end() && it.value() == cancel)
              cancels_.erase(it);
            LaidOutGraphPtr r = watcher->result();
            watcher->deleteLater();
            if (!r)
              return; // cancelled
            cache_.insert(key, r);
            if (r->flat) {
              if (!flat_.contains(fkey)) {
                if (flat_.size() >= kFlatCache)
                  flat_.clear();
                flat_.insert(fkey, r->flat);
              }
            }
            bool wanted = false;
            if (key == wantAfter_) {
              after_ = r;
              wanted = true;
            }
            if (key == wantBefore_) {
              before_ = r;
              wanted = true;
            }
            if (diffMode_ && wantBefore_ == wantAfter_)
              before_ = after_;
            if (wanted)
              redraw();
            if (wanted && after_ && (!diffMode_ || before_))
              selectRevealed();
          });
  watcher->setFuture(QtConcurrent::run([m, function, opts, cancel, flat, open,
                                        closed]() -> LaidOutGraphPtr {
    auto out = std::make_shared<LaidOutGraph>();
    out->module = m;
    try {
      auto t0 = std::chrono::steady_clock::now();
      auto since = [](auto start) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
      };
      // The full graph once per step (cached by the view), then the levels
      // shown: a big model lays out a few hundred boxes, not every node.
      if (flat) {
        out->flat = flat;
      } else {
        auto full = std::make_shared<FlatGraph>();
        full->graph = unity::viz::extractGraph(m, function, opts);
        if (cancel->load())
          return nullptr;
        full->hierarchy = unity::viz::buildHierarchy(full->graph);
        full->defaultExpanded = unity::viz::defaultExpandedScopes(full->hierarchy);
        full->extractMs = since(t0);
        out->flat = full;
      }
      out->extractMs = flat ? 0 : out->flat->extractMs;
      t0 = std::chrono::steady_clock::now();
      if (out->flat->hierarchy.empty()) {
        out->graph = out->flat->graph;
      } else {
        std::set<std::string> shown = out->flat->defaultExpanded;
        shown.insert(open.begin(), open.end());
        for (auto& c : closed)
          shown.erase(c);
        out->graph = unity::viz::collapseHierarchy(out->flat->graph, out->flat->hierarchy, shown);
      }
      out->collapseMs = since(t0);
      unity::viz::LayoutOptions lo;
      lo.cancel = cancel.get();
      // dot up to 1,500 nodes, the layered layout above (graph_layout.h).
      // dot's cluster handling is slow on wide levels of scope groups (the
      // 96 experts of an MLP: seconds): those get the layered layout, which
      // keeps a group's members together at a fraction of the cost.
      if (!out->flat->hierarchy.empty() && out->graph.nodes.size() > kDotScopedNodes)
        lo.engine = unity::viz::LayoutEngine::Layered;
      auto layout = unity::viz::layoutGraph(out->graph, lo);
      if (!layout)
        return nullptr;
      out->layout = std::move(*layout);
      t0 = std::chrono::steady_clock::now();
      out->labels = placeEdgeLabels(out->graph, out->layout, smallFont());
      out->labelsMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    } catch (const std::exception& e) {
      out->error = QString::fromUtf8(e.what());
    }
    return out;
  }));
}

bool GraphView::waitForLayout(int timeoutMs) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  while (pending_ > 0 || builder_->running()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    // While only the worker runs, do not spin: on a loaded machine this
    // thread would take the core the layout needs.
    if (pending_ > 0 && !builder_->running())
      QThread::msleep(1);
  }
  return true;
}

void GraphView::installEmptyScenes() {
  if (currentCached_) { // the shown scenes belong to the cache: detach them
    beforeScene_ = new QGraphicsScene(this);
    afterScene_ = new QGraphicsScene(this);
    beforeView_->setScene(beforeScene_);
    afterView_->setScene(afterScene_);
    currentCached_ = false;
  } else {
    beforeScene_->clear();
    afterScene_->clear();
  }
}

void GraphView::invalidateScenes() {
  for (DrawnScenes& d : drawn_) {
    if (d.afterScene == afterScene_) { // shown: becomes the working pair again
      currentCached_ = false;
      continue;
    }
    delete d.beforeScene;
    delete d.afterScene;
  }
  drawn_.clear();
}

QString GraphView::scenesKey() const {
  return wantAfter_ + "\n" + (diffMode_ ? wantBefore_ : QString()) + "\n" +
         (diffMode_ ? "diff" : "single");
}

bool GraphView::showDrawn(const QString& key) {
  auto hit = std::find_if(drawn_.begin(), drawn_.end(),
                          [&](const DrawnScenes& d) { return d.key == key; });
  if (hit == drawn_.end() || !multi_.empty())
    return false;
  drawn_.splice(drawn_.begin(), drawn_, hit);
  DrawnScenes& d = drawn_.front();
  if (!currentCached_) { // the (empty) working pair is not needed
    beforeScene_->deleteLater();
    afterScene_->deleteLater();
  }
  beforeScene_ = d.beforeScene;
  afterScene_ = d.afterScene;
  beforeView_->setScene(beforeScene_);
  afterView_->setScene(afterScene_);
  currentCached_ = true;
  beforeItems_ = d.beforeItems;
  afterItems_ = d.afterItems;
  hasDiff_ = d.hasDiff;
  if (hasDiff_)
    diff_ = d.diff;
  status_->setText(d.status);
  // The scenes keep the pens of the selection they were left with.
  const int drawnSelected = d.selected;
  const bool drawnBefore = d.selectedBefore;
  const bool keepSide = selectedBefore_;
  selectedBefore_ = drawnBefore;
  restyleSelection(drawnSelected); // re-pens the old one on both sides...
  selectedBefore_ = keepSide;
  restyleSelection(-1); // ...and the current one on its side
  afterView_->fitReadable(focusRect(after_, false));
  if (diffMode_)
    beforeView_->fitReadable(focusRect(before_, true));
  minimap_->setGraph(after_, hasDiff_ ? &diff_.after : nullptr);
  if (diffMode_)
    beforeMinimap_->setGraph(before_, hasDiff_ ? &diff_.before : nullptr);
  if (selected_ >= 0)
    showProperties();
  return true;
}

void GraphView::rememberDrawn(const QString& key) {
  if (!multi_.empty())
    return; // a multi-selection is not kept across steps: do not cache its pens
  DrawnScenes d;
  d.key = key;
  d.beforeScene = beforeScene_;
  d.afterScene = afterScene_;
  d.beforeItems = beforeItems_;
  d.afterItems = afterItems_;
  d.hasDiff = hasDiff_;
  if (hasDiff_)
    d.diff = diff_;
  d.status = status_->text();
  d.selected = selected_;
  d.selectedBefore = selectedBefore_;
  d.graphs = {before_, after_};
  drawn_.push_front(std::move(d));
  currentCached_ = true;
  while (drawn_.size() > kSceneCache) {
    delete drawn_.back().beforeScene;
    delete drawn_.back().afterScene;
    drawn_.pop_back();
  }
}

void GraphView::redraw() {
  const auto started = std::chrono::steady_clock::now();
  builder_->cancel();
  installEmptyScenes();
  afterItems_.clear();
  beforeItems_.clear();
  minimap_->setGraph(nullptr);
  beforeMinimap_->setGraph(nullptr);
  afterView_->setBackgroundBrush(Theme::instance()->colors().canvas);
  beforeView_->setBackgroundBrush(Theme::instance()->colors().canvas);
  hasDiff_ = false;
  if (!session_->hasModule()) {
    status_->setText(tr("Open a model to see its graph"));
    properties_->clear();
    updatePropertiesPane();
    return;
  }
  if (wantAfter_.isEmpty()) {
    status_->setText(tr("No graph-level function at this step"));
    return;
  }
  bool ready = after_ && (!diffMode_ || before_);
  if (!ready) {
    status_->setText(tr("Laying out..."));
    return;
  }
  // Scenes drawn before for the same graphs (a step switched back to):
  // shown as they are.
  const QString key = scenesKey();
  if (showDrawn(key)) {
    lastDrawMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return;
  }
  const std::vector<DiffStatus>* afterStatus = nullptr;
  const std::vector<DiffStatus>* beforeStatus = nullptr;
  if (diffMode_ && before_->error.isEmpty() && after_->error.isEmpty()) {
    diff_ = unity::viz::diffGraphs(before_->graph, after_->graph);
    hasDiff_ = true;
    afterStatus = &diff_.after;
    beforeStatus = &diff_.before;
    drawInto(beforeScene_, before_, beforeStatus, true);
  }
  drawInto(afterScene_, after_, afterStatus, false);
  if (!after_->error.isEmpty()) {
    status_->setText(after_->error);
  } else if (hasDiff_) {
    auto a = diff_.afterCounts();
    auto b = diff_.beforeCounts();
    status_->setText(tr("%1 nodes: %2 added, %3 removed, %4 changed")
                         .arg(after_->graph.nodes.size())
                         .arg(a.added)
                         .arg(b.removed)
                         .arg(a.changed));
  } else {
    status_->setText(tr("%1 nodes, %2 edges, layout %3 ms (%4)")
                         .arg(after_->graph.nodes.size())
                         .arg(after_->graph.edges.size())
                         .arg(after_->layout.ms, 0, 'f', 0)
                         .arg(q(after_->layout.engine)));
  }
  // The scene rectangles are set: fit now, so the view does not jump when
  // the items arrive.
  afterView_->fitReadable(focusRect(after_, false));
  if (diffMode_)
    beforeView_->fitReadable(focusRect(before_, true));
  minimap_->setGraph(after_, afterStatus);
  if (diffMode_)
    beforeMinimap_->setGraph(before_, beforeStatus);
  builder_->addPhase(1, [this, started, key](size_t) {
    rememberDrawn(key);
    if (selected_ >= 0)
      showProperties();
    lastDrawMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
  });
  // Small scenes in one go (nothing to gain, and callers see the items at
  // once); big ones in slices (chunked_builder.h).
  const size_t nodes = after_->graph.nodes.size() + (diffMode_ ? before_->graph.nodes.size() : 0);
  if (nodes <= kDrawInOneGoNodes)
    builder_->runAll();
  else
    builder_->start();
}

bool GraphView::drawing() const { return builder_->running(); }

QRectF GraphView::focusRect(const LaidOutGraphPtr& g, bool beforeSide) const {
  if (!g || g->layout.nodes.empty())
    return {};
  auto box = [&](int i) {
    const auto& geo = g->layout.nodes[i];
    return QRectF(geo.x - geo.width / 2, geo.y - geo.height / 2, geo.width, geo.height);
  };
  if (selected_ >= 0 && selectedBefore_ == beforeSide &&
      selected_ < static_cast<int>(g->layout.nodes.size()))
    return box(selected_);
  // The graph's start: its topmost nodes (the parameters, in program order).
  QRectF start;
  double top = 1e300;
  for (size_t i = 0; i < g->layout.nodes.size(); ++i)
    top = std::min(top, g->layout.nodes[i].y);
  for (size_t i = 0; i < g->layout.nodes.size(); ++i)
    if (g->layout.nodes[i].y <= top + 1)
      start = start.isNull() ? box(static_cast<int>(i)) : start.united(box(static_cast<int>(i)));
  return start;
}

QPen GraphView::nodePen(const unity::viz::GraphNode& n, const std::vector<DiffStatus>* status,
                        bool selected) const {
  const ThemeColors& colors = Theme::instance()->colors();
  if (selected)
    return QPen(colors.selection, 3.5);
  if (status && n.id < static_cast<int>(status->size()) && (*status)[n.id] != DiffStatus::Unchanged)
    return QPen(statusColor((*status)[n.id]), 3.5);
  return QPen(colors.nodeBorder, n.kind == NodeKind::Cluster ? 2 : 1);
}

void GraphView::drawInto(QGraphicsScene* scene, const LaidOutGraphPtr& graph,
                         const std::vector<DiffStatus>* status, bool beforeSide) {
  if (!graph->error.isEmpty()) {
    scene->addSimpleText(graph->error)->setBrush(Theme::instance()->colors().nodeText);
    return;
  }
  // The jobs run later: they capture the graph by pointer (before_/after_
  // keep it alive until the next redraw, which cancels them first).
  const LaidOutGraph* g = graph.get();
  auto subs = std::make_shared<const std::vector<QString>>(
      colorByTarget() ? nodeSubTargets(g->module, g->graph) : std::vector<QString>{});
  scene->setSceneRect(-20, -20, g->layout.width + 40, g->layout.height + 40);
  (beforeSide ? beforeItems_ : afterItems_).assign(g->graph.nodes.size(), nullptr);

  // Every job adds the items of one cluster, edge, label or node.
  builder_->addPhase(
      std::min(g->graph.clusters.size(), g->layout.clusters.size()), [=, this](size_t ci) {
        const auto& G = g->graph;
        const auto& L = g->layout;
        const ThemeColors& colors = Theme::instance()->colors();
        const auto& c = L.clusters[ci];
        if (!G.clusters[ci].expanded || c.width <= 0)
          return;
        const auto& gc = G.clusters[ci];
        auto* box = scene->addRect(QRectF(c.x, c.y, c.width, c.height),
                                   QPen(colors.clusterBorder, 1, Qt::DashLine), colors.clusterFill);
        // Nested scopes above their parents' boxes.
        int depth = 0;
        for (int p = gc.parent; p >= 0 && depth < 16; p = G.clusters[p].parent)
          ++depth;
        box->setZValue(-3 + depth * 0.01);
        box->setData(kIdKey, int(ci));
        box->setData(kTypeKey, kClusterType);
        const int size = gc.size > 0 ? gc.size : static_cast<int>(gc.members.size());
        box->setToolTip(tr("%1: %2 (click \u25BE or double-click to collapse)")
                            .arg(q(gc.function), groupCountText(size)));
        // "▾ layer.3 · 2,083 nodes": the marker collapses the group.
        auto* toggle = new LodTextItem(QStringLiteral("\u25BE"), box);
        toggle->setFont(nodeFont());
        toggle->setBrush(colors.clusterText);
        toggle->setPos(c.x + 3, c.y);
        toggle->setData(kIdKey, int(ci));
        toggle->setData(kTypeKey, kToggleType);
        toggle->setToolTip(tr("Collapse %1").arg(q(gc.function)));
        toggle->setCursor(Qt::PointingHandCursor);
        // The title in the box's header, fitted to its width, on a chip of the
        // box's fill drawn over the edges that enter the box from above (and
        // kept clear of edge labels by placeEdgeLabels).
        const ClusterTitle t = clusterTitle(gc, c, smallFont());
        auto* chip = scene->addRect(t.rect.adjusted(-2, -1, 2, 1), Qt::NoPen, colors.clusterFill);
        chip->setZValue(-0.9); // above edges (-1), below nodes
        chip->setData(kIdKey, int(ci));
        chip->setData(kTypeKey, kClusterType);
        chip->setToolTip(box->toolTip());
        auto* title = new LodTextItem(t.text, chip);
        title->setFont(smallFont());
        title->setBrush(colors.clusterText);
        title->setPos(t.rect.topLeft());
      });

  builder_->addPhase(std::min(g->graph.edges.size(), g->layout.edges.size()), [=](size_t i) {
    const auto& G = g->graph;
    const auto& L = g->layout;
    const ThemeColors& colors = Theme::instance()->colors();
    const auto& e = L.edges[i];
    if (e.points.empty())
      return;
    QPainterPath path(QPointF(e.points[0].x, e.points[0].y));
    for (size_t k = 1; k + 2 < e.points.size(); k += 3)
      path.cubicTo(QPointF(e.points[k].x, e.points[k].y),
                   QPointF(e.points[k + 1].x, e.points[k + 1].y),
                   QPointF(e.points[k + 2].x, e.points[k + 2].y));
    QPolygonF head;
    if (e.hasArrow) {
      QPointF tip(e.arrowTip.x, e.arrowTip.y), from(e.points.back().x, e.points.back().y);
      QLineF line(tip, from);
      double len = std::max(1e-6, line.length());
      QPointF dir = (from - tip) / len, normal(-dir.y(), dir.x());
      head = QPolygonF({tip, tip + dir * 7 + normal * 3.5, tip + dir * 7 - normal * 3.5});
    }
    auto* item = new EdgeItem(path, head);
    item->setPen(QPen(colors.edge, 1));
    item->setZValue(-1);
    item->setToolTip(q(G.edges[i].label));
    scene->addItem(item);
  });

  // Shape/dtype labels where they fit (graph_labels.h, placed by the layout
  // worker): short, one per value, never over a node or another label; the
  // full type is the tooltip.
  builder_->addPhase(g->labels.size(), [=](size_t i) {
    const ThemeColors& colors = Theme::instance()->colors();
    const EdgeLabel& label = g->labels[i];
    auto* t = new LodTextItem(label.text);
    t->setFont(smallFont());
    t->setBrush(colors.edgeLabel);
    t->setPos(label.rect.topLeft());
    t->setZValue(-1);
    t->setToolTip(label.full);
    scene->addItem(t);
  });

  builder_->addPhase(std::min(g->graph.nodes.size(), g->layout.nodes.size()), [=, this](size_t i) {
    const auto& G = g->graph;
    const auto& L = g->layout;
    const ThemeColors& colors = Theme::instance()->colors();
    const auto& n = G.nodes[i];
    const auto& geo = L.nodes[i];
    QRectF r(geo.x - geo.width / 2, geo.y - geo.height / 2, geo.width, geo.height);
    QPainterPath shape;
    if (n.kind == NodeKind::Param || n.kind == NodeKind::Output)
      shape.addEllipse(r);
    else
      shape.addRoundedRect(r, 5, 5);
    bool isSelected =
        (n.id == selected_ && beforeSide == selectedBefore_) || (!beforeSide && multi_.count(n.id));
    auto* item = new NodeItem(shape);
    if (n.kind == NodeKind::Cluster) // a group looks like a stack of boxes
      item->setPath([&] {
        QPainterPath stack;
        stack.addRoundedRect(r.translated(3, 3), 5, 5);
        return stack.subtracted(shape).united(shape);
      }());
    item->setPen(nodePen(n, status, isSelected));
    item->setBrush(colors.nodeFill(fillFor(*g, n, *subs)));
    scene->addItem(item);
    (beforeSide ? beforeItems_ : afterItems_)[i] = item;
    item->setData(kIdKey, n.id);
    item->setData(kTypeKey, kNodeType);
    const unity::viz::GraphCluster* group =
        n.kind == NodeKind::Cluster && n.collapsed >= 0 &&
                n.collapsed < static_cast<int>(G.clusters.size())
            ? &G.clusters[n.collapsed]
            : nullptr;
    QString tip = group && group->scope ? q(group->function) : q(n.name) + " : " + q(n.op);
    if (!n.type.empty())
      tip += "\n" + q(n.type);
    for (const auto& c : n.constants)
      tip += "\n" + tr("constant operand %1: %2").arg(c.operand).arg(q(c.type));
    if (group)
      tip += "\n" +
             tr("%1, %2 (click \u25B8 or double-click to expand)")
                 .arg(group->scope ? tr("group") : tr("fused group"), groupCountText(n.members));
    if (!subs->empty() && !(*subs)[n.id].isEmpty())
      tip += "\n" + tr("target: %1").arg((*subs)[n.id]);
    if (auto h = heat_.find(q(n.callee)); h != heat_.end() && !n.callee.empty())
      tip += "\n" + h->tip;
    item->setToolTip(tip);
    auto* text = new LodTextItem(q(n.label()), item);
    text->setFont(n.kind == NodeKind::Constant ? smallFont() : nodeFont());
    text->setBrush(colors.nodeText);
    QRectF tb = text->boundingRect();
    // A group's lines ("layer.3", "▸ 2162 nodes") keep clear of its frame:
    // a 4 px inset on the left, where the stacked outline has its notch.
    const double inset = n.kind == NodeKind::Cluster ? 4 : 2;
    double fitScale = std::min(1.0, (geo.width - 2 * inset) / std::max(1.0, tb.width()));
    text->setScale(fitScale);
    text->setPos(n.kind == NodeKind::Cluster ? r.left() + inset : geo.x - tb.width() * fitScale / 2,
                 geo.y - tb.height() * fitScale / 2);
    if (group) {
      // Its last line, "▸ 3 nodes", expands it on a click: a transparent
      // hit area over that line.
      const QString label = text->text();
      const int lines = static_cast<int>(label.count('\n')) + 1;
      const double lineHeight = tb.height() / lines;
      const double width = QFontMetricsF(text->font()).horizontalAdvance(label.section('\n', -1));
      auto* toggle = new QGraphicsRectItem(
          QRectF(text->pos().x(), text->pos().y() + (lines - 1) * lineHeight * fitScale,
                 width * fitScale, lineHeight * fitScale),
          item);
      toggle->setPen(Qt::NoPen);
      toggle->setData(kIdKey, n.id);
      toggle->setData(kTypeKey, kToggleType);
      toggle->setToolTip(tr("Expand %1").arg(q(group->function)));
      toggle->setCursor(Qt::PointingHandCursor);
    }
  });
}

void GraphView::restyleSelection(int previous) {
  auto restyle = [this](int node, bool beforeSide) {
    LaidOutGraphPtr g = beforeSide ? before_ : after_;
    const auto& items = beforeSide ? beforeItems_ : afterItems_;
    if (!g || node < 0 || node >= static_cast<int>(items.size()) || !items[node])
      return;
    const std::vector<DiffStatus>* status =
        hasDiff_ ? (beforeSide ? &diff_.before : &diff_.after) : nullptr;
    items[node]->setPen(
        nodePen(g->graph.nodes[node], status, node == selected_ && beforeSide == selectedBefore_));
  };
  // The side of the previous selection is not kept: re-pen it on both.
  restyle(previous, false);
  restyle(previous, true);
  restyle(selected_, selectedBefore_);
  if (currentCached_ && !drawn_.empty()) { // the shown scenes now carry this selection
    drawn_.front().selected = selected_;
    drawn_.front().selectedBefore = selectedBefore_;
  }
}

void GraphView::selectNode(int node) {
  // Only the two nodes whose pen changes are touched: a full redraw would
  // be slow on big graphs and would lose the user's zoom.
  restyleSelection(std::exchange(selected_, node));
  showProperties();
  LaidOutGraphPtr g = selectedBefore_ ? before_ : after_;
  if (g && node >= 0 && node < static_cast<int>(g->graph.nodes.size())) {
    const auto& n = g->graph.nodes[node];
    if (node < static_cast<int>(g->layout.nodes.size())) {
      // Scroll only when the node is (partly) out of sight, so a click does
      // not move what the user is looking at.
      GraphCanvas* c = selectedBefore_ ? beforeView_ : afterView_;
      const auto& geo = g->layout.nodes[node];
      c->ensureVisible(QRectF(geo.x - geo.width / 2, geo.y - geo.height / 2, geo.width, geo.height),
                       30, 30);
    }
    Q_EMIT nodeSelected(q(n.name), n.line);
    if (!n.callee.empty())
      Q_EMIT kernelSelected(q(n.callee));
  }
}

bool GraphView::selectByName(const QString& name, bool beforeSide) {
  LaidOutGraphPtr g = beforeSide ? before_ : after_;
  if (!g || name.isEmpty() || (beforeSide && !diffMode_))
    return false;
  const int node = g->graph.findNode(name.toStdString());
  if (node < 0 && !beforeSide && !revealing_ && g->flat && !g->flat->hierarchy.empty()) {
    // Inside a collapsed group: open the groups around it, select it once
    // that level is laid out.
    const int full = g->flat->graph.findNode(name.toStdString());
    const auto& h = g->flat->hierarchy;
    if (full < 0 || full >= static_cast<int>(h.scopeOf.size()) || h.scopeOf[full] < 0)
      return false;
    for (int sc = h.scopeOf[full]; sc >= 0; sc = h.scopes[sc].parent) {
      expanded_.insert(h.scopes[sc].path);
      collapsed_.erase(h.scopes[sc].path);
    }
    revealName_ = name;
    refresh();
    if (after_ && (!diffMode_ || before_)) // laid out before: shown at once
      selectRevealed();
    return true;
  }
  if (node < 0)
    return false;
  if (node == selected_ && beforeSide == selectedBefore_)
    return true; // already there; do not echo nodeSelected back
  selectedBefore_ = beforeSide;
  selectNode(node);
  if (node < static_cast<int>(g->layout.nodes.size()))
    (beforeSide ? beforeView_ : afterView_)
        ->centerOn(g->layout.nodes[node].x, g->layout.nodes[node].y);
  return true;
}

void GraphView::selectRevealed() {
  if (revealName_.isEmpty())
    return;
  const QString name = std::exchange(revealName_, QString());
  revealing_ = true; // opened for it: no second reveal if it is still hidden
  selectByName(name);
  revealing_ = false;
}

bool GraphView::selectCaller(const QString& function, bool beforeSide) {
  LaidOutGraphPtr g = beforeSide ? before_ : after_;
  if (!g || function.isEmpty() || (beforeSide && !diffMode_))
    return false;
  const std::string callee = function.toStdString();
  for (const auto& n : g->graph.nodes) {
    if (n.callee != callee)
      continue;
    if (n.id == selected_ && beforeSide == selectedBefore_)
      return true;
    selectedBefore_ = beforeSide;
    selectNode(n.id);
    if (n.id < static_cast<int>(g->layout.nodes.size()))
      (beforeSide ? beforeView_ : afterView_)
          ->centerOn(g->layout.nodes[n.id].x, g->layout.nodes[n.id].y);
    return true;
  }
  return false;
}

bool GraphView::find(const QString& text, bool next) {
  if (!after_ || text.isEmpty())
    return false;
  const auto& nodes = after_->graph.nodes;
  int count = static_cast<int>(nodes.size());
  int start = next && !selectedBefore_ ? selected_ + 1 : 0;
  for (int k = 0; k < count; ++k) {
    const auto& n = nodes[(start + k) % count];
    bool hit = q(n.name).contains(text, Qt::CaseInsensitive) ||
               q(n.op).contains(text, Qt::CaseInsensitive) ||
               q(n.callee).contains(text, Qt::CaseInsensitive);
    for (auto& o : n.origins)
      hit = hit || q(o).contains(text, Qt::CaseInsensitive);
    if (hit) {
      selectedBefore_ = false;
      selectNode(n.id);
      return true;
    }
  }
  // Not among the shown nodes: the first match inside a collapsed group is
  // revealed (its groups open).
  if (after_->flat && !after_->flat->hierarchy.empty()) {
    const auto& h = after_->flat->hierarchy;
    const auto& all = after_->flat->graph.nodes;
    for (size_t i = 0; i < all.size() && i < h.scopeOf.size(); ++i) {
      const auto& n = all[i];
      if (h.scopeOf[i] < 0 || n.name.empty())
        continue;
      bool hit = q(n.name).contains(text, Qt::CaseInsensitive) ||
                 q(n.op).contains(text, Qt::CaseInsensitive);
      for (auto& o : n.origins)
        hit = hit || q(o).contains(text, Qt::CaseInsensitive);
      if (hit && after_->graph.findNode(n.name) < 0)
        return selectByName(q(n.name));
    }
  }
  status_->setText(tr("No node matches '%1'").arg(text));
  return false;
}

void GraphView::showProperties() {
  LaidOutGraphPtr g = selectedBefore_ ? before_ : after_;
  updatePropertiesPane();
  if (!g || selected_ < 0 || selected_ >= static_cast<int>(g->graph.nodes.size())) {
    properties_->clear();
    return;
  }
  const auto& n = g->graph.nodes[selected_];
  QString html = "<h3>" + q(n.name).toHtmlEscaped() + "</h3><table>";
  auto row = [&](const QString& k, const QString& v) {
    if (!v.isEmpty())
      html += "<tr><td><b>" + k + "</b></td><td>" + v.toHtmlEscaped() + "</td></tr>";
  };
  row(tr("kind"), unity::viz::nodeKindName(n.kind));
  row(tr("op"), q(n.op));
  row(tr("callee"), q(n.callee));
  row(tr("type"), q(n.type));
  row(tr("pattern"), q(unity::viz::opPatternLabel(n.opPattern)));
  QStringList origins;
  for (auto& o : n.origins)
    origins << q(o);
  row(tr("source"), origins.join(", "));
  if (n.line > 0)
    row(tr("line"), QString::number(n.line));
  for (auto& [k, v] : n.attrs)
    row(q(k), q(v));
  for (const auto& c : n.constants)
    row(tr("constant %1").arg(c.operand), q(c.type));
  if (n.kind == NodeKind::Cluster && n.members > 0)
    row(tr("members"), groupCountText(n.members));
  if (hasDiff_) {
    const auto& st = selectedBefore_ ? diff_.before : diff_.after;
    const auto& match = selectedBefore_ ? diff_.beforeMatch : diff_.afterMatch;
    LaidOutGraphPtr other = selectedBefore_ ? after_ : before_;
    row(tr("diff"), unity::viz::diffStatusName(st[selected_]));
    QStringList names;
    for (int m : match[selected_])
      names << q(other->graph.nodes[m].name);
    row(selectedBefore_ ? tr("after") : tr("before"), names.join(", "));
  }
  html += "</table>";
  properties_->setHtml(html);
}

} // namespace lowerscope

// ---------------------------------------------------------- drag-to-target

namespace lowerscope {

void GraphView::connectDragToTarget() {
  targetColors_->setObjectName("graphTargetColors");
  targetColors_->setToolTip(tr("Fill nodes with the colour of their sub-target (legend in the "
                               "Target Palette); off: colour by op pattern"));
  targetColors_->setChecked(true);
  targetColors_->setVisible(!session_->compositeTarget().isEmpty());
  connect(targetColors_, &QCheckBox::toggled, this, [this] {
    invalidateScenes();
    redraw();
  });
  connect(session_, &Session::targetChanged, this, [this] {
    targetColors_->setVisible(!session_->compositeTarget().isEmpty());
    invalidateScenes();
    redraw();
  });
  connect(afterView_, &GraphCanvas::nodeToggled, this, [this](int n) {
    if (multi_.empty() && selected_ >= 0 && !selectedBefore_)
      multi_.insert(selected_);
    if (!multi_.erase(n))
      multi_.insert(n);
    selectedBefore_ = false;
    selected_ = n;
    redraw();
  });
  connect(afterView_, &GraphCanvas::nodesBoxed, this, [this](const QRectF& rect, bool add) {
    if (!after_)
      return;
    if (!add)
      multi_.clear();
    for (size_t i = 0; i < after_->layout.nodes.size() && i < after_->graph.nodes.size(); ++i)
      if (rect.contains(QPointF(after_->layout.nodes[i].x, after_->layout.nodes[i].y)))
        multi_.insert(static_cast<int>(i));
    selectedBefore_ = false;
    redraw();
  });
  connect(afterView_, &GraphCanvas::dragRequested, this, [this](int n) {
    if (!multi_.count(n) && n != selected_)
      setSelectedNodes({n});
    startSelectionDrag();
  });
}

std::vector<int> GraphView::selectedNodes() const {
  if (!multi_.empty())
    return {multi_.begin(), multi_.end()};
  if (selected_ >= 0 && !selectedBefore_)
    return {selected_};
  return {};
}

void GraphView::setSelectedNodes(const std::vector<int>& nodes) {
  multi_.clear();
  for (int n : nodes)
    if (after_ && n >= 0 && n < static_cast<int>(after_->graph.nodes.size()))
      multi_.insert(n);
  selectedBefore_ = false;
  selected_ = multi_.empty() ? -1 : *multi_.begin();
  redraw();
}

QMimeData* GraphView::selectionMimeData(QString* error) const {
  if (!after_) {
    if (error)
      *error = tr("no graph is shown");
    return nullptr;
  }
  DraggedBindings d =
      draggedBindings(after_->graph, selectedNodes(), session_->currentStep(), error);
  if (d.names.isEmpty())
    return nullptr;
  return toMimeData(d);
}

void GraphView::startSelectionDrag() {
  QString error;
  QMimeData* mime = selectionMimeData(&error);
  if (!mime) {
    status_->setText(error);
    Q_EMIT dragRefused(error);
    return;
  }
  auto* drag = new QDrag(this);
  drag->setMimeData(mime);
  QPixmap pixmap(140, 22);
  pixmap.fill(QColor("#1c7ed6"));
  QPainter p(&pixmap);
  p.setPen(Qt::white);
  p.drawText(pixmap.rect(), Qt::AlignCenter, tr("%n node(s)", "", int(selectedNodes().size())));
  p.end();
  drag->setPixmap(pixmap);
  drag->exec(Qt::CopyAction);
}

void GraphView::setColorByTarget(bool on) { targetColors_->setChecked(on); }

bool GraphView::colorByTarget() const {
  return targetColors_->isChecked() && !session_->compositeTarget().isEmpty();
}

void GraphView::setHeat(const QHash<QString, NodeHeat>& byCallee, const QColor& others) {
  heat_ = byCallee;
  heatOthers_ = others;
  invalidateScenes();
  redraw();
}

QColor GraphView::fillFor(const LaidOutGraph& g, const unity::viz::GraphNode& n,
                          const std::vector<QString>& subs) const {
  const bool isOperator =
      n.kind != NodeKind::Param && n.kind != NodeKind::Output && n.kind != NodeKind::Constant;
  if (!heat_.isEmpty() && isOperator) {
    auto h = n.callee.empty() ? heat_.end() : heat_.find(q(n.callee));
    if (h != heat_.end())
      return h->fill;
    if (heatOthers_.isValid())
      return heatOthers_;
  }
  QColor pattern(q(unity::viz::nodeColor(n)));
  if (n.kind == NodeKind::Cluster && n.collapsed >= 0 &&
      n.collapsed < static_cast<int>(g.graph.clusters.size()) &&
      g.graph.clusters[n.collapsed].scope)
    return QColor("#d0ebff"); // a level of the model's hierarchy: light blue
  if (subs.empty() || n.id >= static_cast<int>(subs.size()) || n.kind == NodeKind::Param ||
      n.kind == NodeKind::Output || n.kind == NodeKind::Constant)
    return pattern;
  QString sub = subs[n.id].isEmpty() ? session_->defaultSubTarget() : subs[n.id];
  int index = session_->subTargets().indexOf(sub);
  return index < 0 ? pattern : subTargetColor(index);
}

QColor GraphView::nodeFill(int node) const {
  if (!after_ || node < 0 || node >= static_cast<int>(after_->graph.nodes.size()))
    return {};
  std::vector<QString> subs =
      colorByTarget() ? nodeSubTargets(after_->module, after_->graph) : std::vector<QString>{};
  return fillFor(*after_, after_->graph.nodes[node], subs);
}

} // namespace lowerscope
