// Graphs a person can read (issue 16): weights as properties of their
// consumers with a toggle, groups that show their name and size and open on
// a click, a long graph opened at a readable zoom, no empty properties pane,
// and a 50,000-node model that opens with its layers collapsed. Driven as a
// user would, on the offscreen platform.
#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/recent_files.h"
#include "engine/viz/graph_model.h"
#include "views/graph_items.h"
#include "views/graph_view.h"
#include "views/session.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace lowerscope;
using unity::viz::NodeKind;

namespace {

QString source(const char* path) { return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/") + path; }

int countKind(const LaidOutGraph& g, NodeKind k) {
  return static_cast<int>(std::count_if(g.graph.nodes.begin(), g.graph.nodes.end(),
                                        [&](auto& n) { return n.kind == k; }));
}

/// The text drawn in node `id`'s box.
QString nodeText(GraphView* view, int id) {
  QGraphicsItem* item = view->nodeItem(id);
  if (!item)
    return {};
  for (QGraphicsItem* child : item->childItems())
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(child); t && t->text().size() > 1)
      return t->text();
  return {};
}

/// Clicks `item` (scrolled into view first) on `canvas`.
void clickItem(GraphCanvas* canvas, QGraphicsItem* item) {
  canvas->centerOn(item);
  QCoreApplication::processEvents();
  const QPointF centre = item->sceneBoundingRect().center();
  QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, canvas->mapFromScene(centre));
}

/// ONNX-style scoped transformer like bench/gen_scoped_transformer.py writes
/// (same operators and origins), with zero weights.
QString scopedTransformer(int layers, int heads, int experts) {
  QString t = "# unity IR module\n\n@R.function\n"
              "def main(x: R.Tensor((16, 64), \"float32\")) -> R.Tensor((16, 64), \"float32\"):\n"
              "    R.func_attr({\"global_symbol\": \"main\"})\n    with R.dataflow():\n";
  auto emit = [&](const QString& var, const QString& expr, const QString& scope, const char* op) {
    t += QStringLiteral("        %1 = %2  # @origin(\"%3/%4:%4\")\n")
             .arg(var, expr, scope, QLatin1String(op));
  };
  auto c = [](int i) { return QStringLiteral("R.const(metadata[%1])").arg(i); };
  QString prev = "x";
  for (int i = 0; i < layers; ++i) {
    const QString L = QStringLiteral("/encoder/layer.%1").arg(i), p = QStringLiteral("l%1_").arg(i);
    emit(p + "ln1",
         QStringLiteral("R.nn.layer_norm(%1, %2, %3, axes=[-1], epsilon=1e-05)")
             .arg(prev, c(0), c(1)),
         L + "/attention/norm", "LayerNormalization");
    QString acc = prev;
    for (int h = 0; h < heads; ++h) {
      const QString S = L + QStringLiteral("/attention/head.%1").arg(h),
                    q = p + QStringLiteral("a%1_").arg(h);
      for (const char* v : {"q", "k", "v"}) {
        emit(q + v + "0", QStringLiteral("R.matmul(%1ln1, %2)").arg(p, c(2)), S + "/" + v,
             "MatMul");
        emit(q + v, QStringLiteral("R.add(%1%2, %3)").arg(q + v, "0", c(3)), S + "/" + v, "Add");
      }
      emit(q + "s", QStringLiteral("R.matmul(%1q, R.permute_dims(%1k, axes=[1, 0]))").arg(q), S,
           "MatMul");
      emit(q + "p", QStringLiteral("R.nn.softmax(%1s, axis=-1)").arg(q), S, "Softmax");
      emit(q + "o", QStringLiteral("R.matmul(R.matmul(%1p, %1v), %2)").arg(q, c(4)), S, "MatMul");
      emit(q + "acc", QStringLiteral("R.add(%1, %2o)").arg(acc, q), S, "Add");
      acc = q + "acc";
    }
    emit(p + "ln2",
         QStringLiteral("R.nn.layer_norm(%1, %2, %3, axes=[-1], epsilon=1e-05)")
             .arg(acc, c(0), c(1)),
         L + "/mlp/norm", "LayerNormalization");
    for (int e = 0; e < experts; ++e) {
      const QString S = L + QStringLiteral("/mlp/expert.%1").arg(e),
                    q = p + QStringLiteral("e%1_").arg(e);
      emit(q + "h", QStringLiteral("R.add(R.matmul(%1ln2, %2), %3)").arg(p, c(5), c(6)), S + "/fc1",
           "Gemm");
      emit(q + "g", QStringLiteral("R.nn.gelu(%1h)").arg(q), S, "Gelu");
      emit(q + "d", QStringLiteral("R.add(R.matmul(%1g, %2), %3)").arg(q, c(7), c(8)), S + "/fc2",
           "Gemm");
      emit(q + "acc", QStringLiteral("R.add(%1, %2d)").arg(acc, q), S, "Add");
      acc = q + "acc";
    }
    prev = acc;
  }
  t += "        gv: R.Tensor((16, 64), \"float32\") = R.add(" + prev + ", " + c(8) +
       ")\n        R.output(gv)\n    return gv\n\n# metadata\n";
  const std::vector<std::vector<int>> shapes = {{64},      {64},  {64, 16},  {16}, {16, 64},
                                                {64, 128}, {128}, {128, 64}, {64}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    int count = 1;
    QStringList dims;
    for (int d : shapes[i]) {
      count *= d;
      dims << QString::number(d);
    }
    t += QStringLiteral("metadata[%1] = R.tensor_data(\"float32\", (%2%3), \"%4\")\n")
             .arg(i)
             .arg(dims.join(", "), shapes[i].size() == 1 ? "," : "",
                  QString::fromLatin1(QByteArray(count * 4, '\0').toBase64()));
  }
  return t;
}

class Readable : public ::testing::Test {
protected:
  void open(const QString& path) {
    window_.setAttribute(Qt::WA_DontShowOnScreen, true);
    window_.resize(MainWindow::kDefaultSize);
    window_.show();
    QString error;
    ASSERT_TRUE(window_.openFile(path, &error)) << error.toStdString();
    ASSERT_TRUE(window_.graphView()->waitForLayout(120000));
    ASSERT_NE(window_.graphView()->shown(), nullptr);
    QCoreApplication::processEvents();
  }
  void build(const char* pass) {
    window_.session()->setCodegen(false);
    ASSERT_TRUE(window_.startBuild());
    ASSERT_TRUE(window_.session()->waitForBuild(120000));
    QString error;
    ASSERT_TRUE(window_.selectStep(pass, &error)) << error.toStdString();
    ASSERT_TRUE(window_.graphView()->waitForLayout(30000));
    QCoreApplication::processEvents();
  }
  void TearDown() override {
    clearRecentFiles();
    QSettings().remove("graph/weightsAsNodes");
  }
  MainWindow window_;
};

} // namespace

TEST_F(Readable, WeightsArePropertiesOfTheirNodeUntilToggled) {
  QSettings().remove("graph/weightsAsNodes");
  open(source("docs/images/resnet_cnn.onnx"));
  GraphView* view = window_.graphView();
  LaidOutGraphPtr g = view->shown();
  EXPECT_EQ(countKind(*g, NodeKind::Constant), 0) << "no grey weight nodes by default";
  QAction* toggle = window_.weightsAsNodesAction();
  ASSERT_NE(toggle, nullptr);
  EXPECT_FALSE(toggle->isChecked());
  // The first convolution lists its weight (16 x 3 x 3 x 3) in its box.
  int conv = -1;
  for (auto& n : g->graph.nodes)
    if (n.op == "nn.conv2d" && conv < 0)
      conv = n.id;
  ASSERT_GE(conv, 0);
  ASSERT_FALSE(g->graph.nodes[conv].constants.empty());
  EXPECT_EQ(g->graph.nodes[conv].constants[0].type, "(16, 3, 3, 3) float32");
  EXPECT_TRUE(nodeText(view, conv).contains(QStringLiteral("16\u00D73\u00D73\u00D73 f32")))
      << nodeText(view, conv).toStdString();

  toggle->trigger();
  ASSERT_TRUE(view->waitForLayout(30000));
  EXPECT_TRUE(view->constantsAsNodes());
  EXPECT_GE(countKind(*view->shown(), NodeKind::Constant), 10) << "weights are nodes again";
  EXPECT_TRUE(QSettings().value("graph/weightsAsNodes").toBool()) << "the choice persists";
  // A new window starts with the saved choice.
  MainWindow second;
  EXPECT_TRUE(second.weightsAsNodesAction()->isChecked());
  EXPECT_TRUE(second.graphView()->constantsAsNodes());

  toggle->trigger();
  ASSERT_TRUE(view->waitForLayout(30000));
  EXPECT_EQ(countKind(*view->shown(), NodeKind::Constant), 0);
}

TEST_F(Readable, CollapsedGroupShowsNameAndCountAndOpensOnClick) {
  open(source("resources/examples/mlp.uir"));
  build("FuseOps");
  GraphView* view = window_.graphView();
  LaidOutGraphPtr g = view->shown();
  const int lv2 = g->graph.findNode("lv2");
  ASSERT_GE(lv2, 0);
  ASSERT_EQ(g->graph.nodes[lv2].kind, NodeKind::Cluster);
  const QString function = "fused_matmul_add_relu";
  EXPECT_FALSE(view->isExpanded(function)) << "collapsed by default";
  const QString text = nodeText(view, lv2);
  EXPECT_TRUE(text.contains(function)) << text.toStdString();
  EXPECT_TRUE(text.contains("3 nodes")) << text.toStdString();

  // One click on its marker opens it...
  QGraphicsItem* open = view->groupToggle(function);
  ASSERT_NE(open, nullptr);
  clickItem(view->canvas(), open);
  ASSERT_TRUE(view->waitForLayout(30000));
  EXPECT_TRUE(view->isExpanded(function));
  int inner = 0;
  for (auto& n : view->shown()->graph.nodes)
    inner += n.cluster >= 0;
  EXPECT_EQ(inner, 3);
  // ...and its box, titled with the name and the count, closes it again.
  QGraphicsItem* close = view->groupToggle(function);
  ASSERT_NE(close, nullptr);
  ASSERT_NE(close->parentItem(), nullptr);
  // The title lies inside the box's frame, in its header (above the members).
  const QRectF frame = close->parentItem()->sceneBoundingRect();
  double topMember = frame.bottom();
  for (auto& n : view->shown()->graph.nodes)
    if (n.cluster >= 0)
      topMember = std::min(topMember, view->shown()->layout.nodes[n.id].y -
                                          view->shown()->layout.nodes[n.id].height / 2);
  // A name wider than the box is elided ("fused_matmul_a… · 3 nodes"); the
  // whole name is the tooltip.
  auto isTitle = [&](const QString& text) {
    const QString name = text.section(QStringLiteral(" \u00B7 "), 0, 0);
    return text.endsWith(QStringLiteral(" \u00B7 3 nodes")) &&
           (name == function || (name.endsWith(QChar(0x2026)) && name.size() > 4 &&
                                 function.startsWith(name.chopped(1))));
  };
  bool titled = false;
  QStringList texts;
  for (QGraphicsItem* item : view->canvas()->scene()->items())
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item))
      texts << t->text();
  for (QGraphicsItem* item : view->canvas()->scene()->items())
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item); t && isTitle(t->text())) {
      ASSERT_NE(t->parentItem(), nullptr);
      EXPECT_TRUE(t->parentItem()->toolTip().contains(function));
      const QRectF r = t->sceneBoundingRect();
      EXPECT_TRUE(frame.contains(r)) << "title outside its frame";
      EXPECT_LE(r.bottom(), topMember) << "title over a member";
      titled = true;
    }
  EXPECT_TRUE(titled) << texts.join(" | ").toStdString();
  clickItem(view->canvas(), close);
  ASSERT_TRUE(view->waitForLayout(30000));
  EXPECT_FALSE(view->isExpanded(function));
}

TEST_F(Readable, NoEmptyPropertiesPane) {
  open(source("resources/examples/cnn.uir"));
  GraphView* view = window_.graphView();
  EXPECT_FALSE(view->propertiesPane()->isVisible()) << "nothing selected: no pane";
  view->selectNode(view->shown()->graph.findNode("c1"));
  EXPECT_TRUE(view->propertiesPane()->isVisible());
  view->selectNode(-1);
  EXPECT_FALSE(view->propertiesPane()->isVisible());
}

TEST_F(Readable, LongGraphOpensAtAReadableZoomAtItsStart) {
  // 6 small layers, all open (a graph of under 200 nodes is shown whole):
  // far too tall to fit legibly.
  QTemporaryDir dir;
  const QString path = dir.filePath("long.uir");
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(scopedTransformer(6, 1, 1).toUtf8());
  f.close();
  open(path);
  GraphView* view = window_.graphView();
  GraphCanvas* canvas = view->canvas();
  EXPECT_GE(canvas->zoom(), GraphCanvas::kReadableZoom - 1e-9);
  // The parameter (the graph's start) is on screen.
  LaidOutGraphPtr g = view->shown();
  const int x = g->graph.findNode("x");
  ASSERT_GE(x, 0);
  const QRectF visible = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
  EXPECT_TRUE(visible.contains(QPointF(g->layout.nodes[x].x, g->layout.nodes[x].y)));
  // "Fit" still shows the whole graph.
  canvas->fit();
  EXPECT_LT(canvas->zoom(), GraphCanvas::kReadableZoom);
}

TEST_F(Readable, FiftyThousandNodeModelOpensWithItsLayersCollapsed) {
  QTemporaryDir dir;
  const QString path = dir.filePath("big.uir");
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  // 24 layers x (2 norms + 48 heads x 10 + 401 experts x 4) + 1 = 50,065
  // operator nodes, plus the parameter and the output.
  f.write(scopedTransformer(24, 48, 401).toUtf8());
  f.close();
  open(path);
  GraphView* view = window_.graphView();
  LaidOutGraphPtr g = view->shown();
  ASSERT_NE(g->flat, nullptr);
  EXPECT_GE(g->flat->graph.nodes.size(), 50000u);
  // Drawn: x, the encoder's 24 layers as groups, the output.
  int layers = 0;
  for (auto& n : g->graph.nodes)
    layers += n.kind == NodeKind::Cluster && QString::fromStdString(n.name).startsWith("layer.");
  EXPECT_EQ(layers, 24);
  EXPECT_LE(g->graph.nodes.size(), 30u);
  int drawnNodes = 0;
  for (QGraphicsItem* item : view->scene()->items())
    drawnNodes += dynamic_cast<NodeItem*>(item) != nullptr;
  EXPECT_EQ(drawnNodes, static_cast<int>(g->graph.nodes.size()));
  EXPECT_LT(view->scene()->items().size(), 500) << "not 50,000 nodes' worth of items";

  // Expanding one layer draws that layer's level only.
  view->setExpanded("/encoder/layer.3", true);
  ASSERT_TRUE(view->waitForLayout(60000));
  EXPECT_TRUE(view->isExpanded("/encoder/layer.3"));
  EXPECT_FALSE(view->isExpanded("/encoder/layer.4"));
  EXPECT_LE(view->shown()->graph.nodes.size(), 40u);

  // Selecting a node hidden in collapsed groups (a click on its IR line)
  // opens the groups around it and selects it.
  ASSERT_EQ(view->shown()->graph.findNode("l7_a3_p"), -1);
  EXPECT_TRUE(view->selectByName("l7_a3_p"));
  ASSERT_TRUE(view->waitForLayout(60000));
  EXPECT_TRUE(view->isExpanded("/encoder/layer.7"));
  EXPECT_TRUE(view->isExpanded("/encoder/layer.7/attention/head.3"));
  EXPECT_FALSE(view->isExpanded("/encoder/layer.7/attention/head.4"));
  const int selected = view->selectedNode();
  ASSERT_GE(selected, 0);
  EXPECT_EQ(view->shown()->graph.nodes[selected].name, "l7_a3_p");
  EXPECT_LE(view->shown()->graph.nodes.size(), 120u) << "one layer's path opened, not the model";

  // Find (Ctrl+F) reaches into collapsed groups the same way.
  EXPECT_TRUE(view->find("l20_e5_g"));
  ASSERT_TRUE(view->waitForLayout(60000));
  EXPECT_TRUE(view->isExpanded("/encoder/layer.20/mlp/expert.5"));
  ASSERT_GE(view->selectedNode(), 0);
  EXPECT_EQ(view->shown()->graph.nodes[view->selectedNode()].name, "l20_e5_g");
}
