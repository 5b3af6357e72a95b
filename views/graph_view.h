#pragma once
// The dataflow graph of the session's current function at the current step,
// drawn from a Graphviz layout (engine/viz) in a QGraphicsScene.
//
// Layouts are computed off the UI thread (QtConcurrent) and cached per
// (module, function, expanded groups): scrubbing back to a step shows its
// graph at once, and steps whose pass changed nothing share one entry. A
// request that is superseded before it finishes is cancelled.
//
// In "Before / after" mode two scenes sit side by side — the module before
// the current pass and after it — with the graph diff drawn on top: added
// nodes green, removed red, changed amber, unchanged plain. Double-click a
// fused group to expand it (its box double-clicked collapses it again).
// Ctrl+F searches names, ops and source-model origins; the properties panel
// shows the selected node.
//
// Drag-to-target (views/target_drag.h): Ctrl+click toggles nodes in a
// multi-selection, Shift+drag (or a drag from empty space with Ctrl) selects
// with a rubber band; dragging a selected node starts a QDrag carrying the
// selection, which the target palette's sub-targets accept. With a composite
// target the nodes are coloured by sub-target ("Colour by target"), else by
// op pattern.
//
// Readability (as Netron and Model Explorer draw models):
//  - constants are properties of the node that reads them (a line per
//    weight in its box, listed in its properties) unless "weights as nodes"
//    is on (setConstantsAsNodes);
//  - a long graph opens at a readable zoom around the selection or the
//    graph's start (GraphCanvas::fitReadable), not shrunk to a thin column;
//    the minimap gives the overview and "Fit" the whole graph;
//  - groups (fused functions and the model's own name scopes, see
//    engine/viz/graph_hierarchy.h) show their name and member count, with a
//    marker that expands or collapses them on click. A big model opens with
//    its levels collapsed: the worker extracts the full graph once per step
//    (cached), collapses it to the levels shown and lays out only those
//    (dot, or the layered layout above 80 nodes with scope groups: dot's
//    clusters are slow on wide levels). Selecting or finding a node hidden
//    in a collapsed group opens the groups around it.
//  - the properties pane is shown only while a node is selected.
#include <QFutureWatcher>
#include <QGraphicsView>

#include <QHash>
#include <QPen>
#include <QWidget>
#include <algorithm>

#include <atomic>
#include <list>
#include <memory>
#include <set>

#include "engine/viz/graph_diff.h"
#include "engine/viz/graph_hierarchy.h"
#include "engine/viz/graph_layout.h"
#include "views/graph_labels.h"

class QCheckBox;
class QMimeData;
class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QGraphicsPathItem;
class QTextBrowser;

namespace lowerscope {

class ChunkedBuilder;
class GraphMinimap;
class Session;

/// The font of edge labels and constants' text.
const QFont& smallFont();

/// One laid-out graph: what the worker computes and the cache keeps.
/// The full graph of one step and its scope tree: extracted once, then
/// collapsed for every combination of expanded levels.
struct FlatGraph {
  unity::viz::DataflowGraph graph;
  unity::viz::GraphHierarchy hierarchy;
  std::set<std::string> defaultExpanded; // levels open on first show
  double extractMs = 0;
};
using FlatGraphPtr = std::shared_ptr<const FlatGraph>;

struct LaidOutGraph {
  unity::ir::IRModule module; // keeps the key's module alive
  FlatGraphPtr flat;          // the full graph this one is collapsed from
  unity::viz::DataflowGraph graph;
  unity::viz::GraphLayout layout;
  std::vector<EdgeLabel> labels; // the edge labels to draw (placed by the worker)
  QString error;                 // extraction/layout failure, shown instead of a graph
  double extractMs = 0;          // time spent extracting the graph (worker thread)
  double labelsMs = 0;           // time spent placing the edge labels (worker thread)
  double collapseMs = 0;         // time spent collapsing the hierarchy (worker thread)
};
using LaidOutGraphPtr = std::shared_ptr<const LaidOutGraph>;

/// One kernel's entry of the heat overlay (views/graph_heat.h computes them).
struct NodeHeat {
  QColor fill; // the node's fill while the overlay is on
  QString tip; // a line added to the node's tooltip
};

/// A QGraphicsView with wheel zoom, drag panning and fit.
class GraphCanvas : public QGraphicsView {
  Q_OBJECT
public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  /// Fits the whole graph (never above natural size).
  void fit();
  /// Fits the whole graph if it is readable so (zoom >= kReadableZoom), else
  /// shows `focus` (scene coordinates: the selection, or the graph's start)
  /// at kReadableZoom near the top of the view. Kept on resize like fit().
  void fitReadable(const QRectF& focus);
  double zoom() const;
  /// Keeps a band of `pixels` below the graph's viewport (between it and the
  /// scroll bar) that the scene never scrolls under: room for an overlay
  /// such as the heat legend. 0 removes it.
  void setBottomBand(int pixels) { setViewportMargins(0, 0, 0, std::max(0, pixels)); }
  /// The band's rectangle in this widget's coordinates.
  QRect bottomBand() const;
  /// The zoom at which node labels (11 px) are comfortably legible.
  static constexpr double kReadableZoom = 0.8;

Q_SIGNALS:
  void nodeClicked(int node);
  void nodeDoubleClicked(int node);
  void clusterDoubleClicked(int cluster);
  /// Ctrl+click on a node: add it to / remove it from the selection.
  void nodeToggled(int node);
  /// A rubber band ended over `sceneRect`; `add` when Ctrl was held.
  void nodesBoxed(const QRectF& sceneRect, bool add);
  /// A press on a node moved past the drag distance: drag the selection.
  void dragRequested(int node);

protected:
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void paintEvent(QPaintEvent* e) override;
  /// A fitted graph stays fitted when the canvas changes size (docks
  /// resized, before/after toggled), until the user zooms.
  void resizeEvent(QResizeEvent* e) override;

private:
  bool fitted_ = false;
  QTransform fitTransform_;
  bool fitReadable_ = false; // the last fit was fitReadable(focus_)
  QRectF focus_;

private:
  int pressNode_ = -1; // node under a plain press, a drag candidate
  QPoint pressPos_;
  bool banding_ = false, bandAdd_ = false;
  QRectF band_; // last rubber band, scene coordinates
};

class GraphView : public QWidget {
  Q_OBJECT
public:
  explicit GraphView(Session* session, QWidget* parent = nullptr);
  ~GraphView() override;

  void setDiffMode(bool on);
  bool diffMode() const { return diffMode_; }
  /// Expands or collapses a fused group (by function name) or a scope of
  /// the model's hierarchy (by path, "/encoder/layer.3") and redraws.
  void setExpanded(const QString& function, bool expanded);
  /// Whether group `function` (fused function or scope path) is drawn
  /// expanded in the shown graph.
  bool isExpanded(const QString& function) const;
  /// Draw constants as nodes of their own (on) or as properties of the
  /// nodes that read them (off, the default).
  void setConstantsAsNodes(bool on);
  bool constantsAsNodes() const { return constantsAsNodes_; }
  /// The graph item of node `node` of the shown graph (null when not drawn).
  QGraphicsItem* nodeItem(int node) const;
  /// The expand/collapse marker of group `function` in the shown graph
  /// (on its collapsed node or its expanded box), null when none is drawn.
  QGraphicsItem* groupToggle(const QString& function) const;
  /// The properties pane (hidden while nothing is selected).
  QWidget* propertiesPane() const;
  /// Selects the first node (from `from`+1 on) whose name, op or origins contain `text`.
  bool find(const QString& text, bool next = false);
  void selectNode(int node);
  int selectedNode() const { return selected_; }
  bool selectedIsBefore() const { return selectedBefore_; }
  /// Selects (and centres) the node named `name` in the after graph, or in
  /// the before graph when `beforeSide`; false when that graph has none. A
  /// node inside collapsed scope groups opens them and is selected once the
  /// new level is laid out.
  bool selectByName(const QString& name, bool beforeSide = false);
  /// Selects the node that calls module function `function` (a fused group
  /// or a call_tir of it); false when none does.
  bool selectCaller(const QString& function, bool beforeSide = false);
  /// Blocks (processing events) until no layout is pending and the scene is
  /// built; false on timeout.
  bool waitForLayout(int timeoutMs);
  /// True while the scene items are being added (in time slices).
  bool drawing() const;
  /// The builder that adds the scene items (slices, longest slice); tests
  /// pause or step it to look at an unfinished drawing.
  const ChunkedBuilder* builder() const { return builder_; }
  ChunkedBuilder* builder() { return builder_; }

  /// What is shown (the after side in diff mode); null while laying out.
  LaidOutGraphPtr shown() const { return after_; }
  LaidOutGraphPtr shownBefore() const { return before_; }
  const unity::viz::GraphDiff* diff() const { return hasDiff_ ? &diff_ : nullptr; }
  QGraphicsScene* scene() const { return afterScene_; }
  GraphCanvas* canvas() const { return afterView_; }
  GraphCanvas* beforeCanvas() const { return beforeView_; }
  QGraphicsScene* beforeScene() const { return beforeScene_; }
  /// The overview in the corner of the after (main) canvas.
  GraphMinimap* minimap() const { return minimap_; }
  QString statusText() const;

  // ---- drag-to-target
  /// The selected nodes (the multi-selection, or the single selected node).
  std::vector<int> selectedNodes() const;
  void setSelectedNodes(const std::vector<int>& nodes);
  /// The selection as drag data; null (and `error`) when it cannot be assigned.
  QMimeData* selectionMimeData(QString* error = nullptr) const;
  /// Fill nodes by sub-target (on) or op pattern (off).
  void setColorByTarget(bool on);
  bool colorByTarget() const;
  /// Heat overlay: a node that calls a function named in `byCallee` (a
  /// call_tir of a kernel, a fused group) is filled with its colour and
  /// gets its tooltip line; other operator nodes are drawn in `others`.
  /// An empty map turns the overlay off (colours by pattern or target).
  void setHeat(const QHash<QString, NodeHeat>& byCallee, const QColor& others = {});
  bool heatShown() const { return !heat_.isEmpty(); }
  /// The fill colour of node `node` of the shown graph as drawn.
  QColor nodeFill(int node) const;
  int cacheSize() const { return static_cast<int>(cache_.size()); }
  /// How many drawn scene pairs are kept for switching back (tests).
  int drawnScenes() const { return static_cast<int>(drawn_.size()); }
  static constexpr size_t kSceneCache = 4;
  /// Milliseconds from the start of the last redraw to its last item (diff
  /// + scene items, in slices for big graphs).
  double lastDrawMs() const { return lastDrawMs_; }

Q_SIGNALS:
  /// The user selected a node; line is its binding's text line (0: none).
  void nodeSelected(const QString& name, int line);
  /// The selected node calls module function `callee` (its kernel).
  void kernelSelected(const QString& callee);
  /// A selection could not be dragged (why).
  void dragRefused(const QString& reason);

public Q_SLOTS:
  void refresh();
  void focusSearch();

private:
  struct Request;
  QString cacheKey(const unity::ir::IRModule& m) const;
  void request(const unity::ir::IRModule& m, bool beforeSide);
  void onLayoutDone();
  /// Shows the graphs wanted: cached scenes when these graphs were drawn
  /// before with the same style, else new scenes built by builder_.
  void redraw();
  /// Drawn scenes are kept per (after graph, before graph, mode) for the
  /// last kSceneCache states: switching back to a step swaps scenes in.
  struct DrawnScenes {
    QString key;
    QGraphicsScene* beforeScene = nullptr;
    QGraphicsScene* afterScene = nullptr;
    std::vector<QGraphicsPathItem*> beforeItems, afterItems;
    unity::viz::GraphDiff diff;
    bool hasDiff = false;
    QString status;
    int selected = -1; // the selection the node pens show
    bool selectedBefore = false;
    std::pair<LaidOutGraphPtr, LaidOutGraphPtr> graphs; // what the items point into
  };
  QString scenesKey() const;
  bool showDrawn(const QString& key);
  void rememberDrawn(const QString& key);
  /// Shows empty scenes (detaching cached ones).
  void installEmptyScenes();
  /// Drops the cached scenes (the style changed: theme, colours, targets).
  void invalidateScenes();
  /// Queues the jobs that add `g`'s items to `scene` on builder_.
  void drawInto(QGraphicsScene* scene, const LaidOutGraphPtr& g,
                const std::vector<unity::viz::DiffStatus>* status, bool beforeSide);
  void showProperties();
  void updateFunctions();
  QPen nodePen(const unity::viz::GraphNode& n, const std::vector<unity::viz::DiffStatus>* status,
               bool selected) const;
  /// Re-pens the previously and newly selected nodes without redrawing.
  void restyleSelection(int previous);
  void connectDragToTarget();
  void startSelectionDrag();
  QColor fillFor(const LaidOutGraph& g, const unity::viz::GraphNode& n,
                 const std::vector<QString>& subs) const;

  void updatePropertiesPane();
  /// Where a long graph opens: the selection, else its first nodes.
  QRectF focusRect(const LaidOutGraphPtr& g, bool beforeSide) const;
  QString flatKey(const unity::ir::IRModule& m) const;

  Session* session_;
  QComboBox* functions_;
  QCheckBox* diffBox_;
  QLineEdit* search_;
  QLabel* status_;
  QSplitter* splitter_;
  GraphCanvas* beforeView_;
  GraphCanvas* afterView_;
  QGraphicsScene* beforeScene_;
  QGraphicsScene* afterScene_;
  QTextBrowser* properties_;
  GraphMinimap* minimap_;
  GraphMinimap* beforeMinimap_;
  // The node items drawn, indexed by node id (null where none was drawn).
  std::vector<QGraphicsPathItem*> afterItems_, beforeItems_;
  QCheckBox* targetColors_;
  QHash<QString, NodeHeat> heat_; // by callee; empty: no heat overlay
  QColor heatOthers_;
  std::set<int> multi_; // the multi-selection (after side)

  bool diffMode_ = false;
  std::set<std::string> expanded_;  // fused groups and scopes opened by the user
  std::set<std::string> collapsed_; // scopes open by default that the user closed
  bool constantsAsNodes_ = false;
  QString revealName_; // selectByName of a node in a collapsed group: select once laid out
  bool revealing_ = false;
  void selectRevealed();
  QHash<QString, LaidOutGraphPtr> cache_;
  QHash<QString, FlatGraphPtr> flat_; // full graphs per (module, function, fused groups)
  LaidOutGraphPtr before_, after_;
  unity::viz::GraphDiff diff_;
  bool hasDiff_ = false;
  int selected_ = -1;
  bool selectedBefore_ = false;
  int pending_ = 0;
  // Requests in flight by cache key: a refresh that still wants one lets it
  // finish instead of starting it again.
  QHash<QString, std::shared_ptr<std::atomic<bool>>> cancels_;
  QString wantAfter_, wantBefore_; // cache keys the view waits for
  double lastDrawMs_ = 0;
  ChunkedBuilder* builder_;
  std::list<DrawnScenes> drawn_; // most recently shown first
  bool currentCached_ = false;   // beforeScene_/afterScene_ belong to drawn_
};

} // namespace lowerscope
