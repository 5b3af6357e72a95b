// The workbench's linked views, minimap, palettes, export and edge labels,
// driven as a user would (QTest clicks on the offscreen platform).
#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/recent_files.h"
#include "engine/text/parser.h"
#include "engine/viz/graph_layout.h"
#include "engine/viz/graph_model.h"
#include "views/graph_labels.h"
#include "views/graph_minimap.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/session.h"
#include "views/theme.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QXmlStreamReader>

#include <algorithm>
#include <set>

using namespace lowerscope;

namespace {

QString example(const char* name) {
  return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/resources/examples/") + name;
}

/// The first text block of `edit` whose text contains `needle`.
QTextBlock blockContaining(QPlainTextEdit* edit, const QString& needle) {
  for (QTextBlock b = edit->document()->begin(); b.isValid(); b = b.next())
    if (b.text().contains(needle))
      return b;
  return {};
}

/// Clicks the line `block` of `edit` as a user would.
void clickLine(QPlainTextEdit* edit, const QTextBlock& block) {
  QTextCursor c(block);
  edit->setTextCursor(c); // scrolls it into view (not a binding line change yet)
  edit->ensureCursorVisible();
  const QRect r = edit->cursorRect(c);
  QTest::mouseClick(edit->viewport(), Qt::LeftButton, {}, r.center() + QPoint(20, 0));
}

/// Centre of node `id` of the graph shown in `canvas`, in viewport pixels.
QPoint nodeOnScreen(GraphCanvas* canvas, const LaidOutGraph& g, int id) {
  const auto& geo = g.layout.nodes[id];
  return canvas->mapFromScene(QPointF(geo.x, geo.y));
}

QPointF viewCentre(QGraphicsView* view) {
  return view->mapToScene(view->viewport()->rect().center());
}

/// A window of the default size with `file` open and its graph laid out.
class OpenWindow : public ::testing::Test {
protected:
  void open(const char* file) {
    window_.setAttribute(Qt::WA_DontShowOnScreen, true);
    window_.resize(MainWindow::kDefaultSize);
    window_.show();
    QString error;
    ASSERT_TRUE(window_.openFile(example(file), &error)) << error.toStdString();
    ASSERT_TRUE(window_.graphView()->waitForLayout(30000));
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
    Theme::instance()->setChoice(ThemeChoice::Light);
  }
  MainWindow window_;
};

} // namespace

// ---------------------------------------------------------- linked selection

TEST_F(OpenWindow, ClickingANodeScrollsTheTextToItsBinding) {
  open("cnn.uir");
  GraphView* graph = window_.graphView();
  const LaidOutGraph& g = *graph->shown();
  const int a2 = g.graph.findNode("a2");
  ASSERT_GE(a2, 0);
  QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, {},
                    nodeOnScreen(graph->canvas(), g, a2));
  EXPECT_EQ(graph->selectedNode(), a2);
  const QTextCursor c = window_.irDiffView()->after()->textCursor();
  EXPECT_TRUE(c.block().text().trimmed().startsWith("a2 = R.add(c2"))
      << c.block().text().toStdString();
  EXPECT_EQ(c.selectedText().trimmed(), c.block().text().trimmed()) << "the line is selected";
}

TEST_F(OpenWindow, ClickingABindingLineSelectsAndCentresItsNode) {
  open("cnn.uir");
  GraphView* graph = window_.graphView();
  GraphCanvas* canvas = graph->canvas();
  canvas->scale(4, 4); // zoomed in: the node starts out of sight
  canvas->centerOn(0, 0);
  const double zoom = canvas->zoom();
  const LaidOutGraph& g = *graph->shown();
  const int r2 = g.graph.findNode("r2");
  ASSERT_GE(r2, 0);
  QPlainTextEdit* text = window_.irDiffView()->after();
  const QTextBlock line = blockContaining(text, "r2 = R.nn.relu(a2)");
  ASSERT_TRUE(line.isValid());
  clickLine(text, line);
  EXPECT_EQ(graph->selectedNode(), r2);
  EXPECT_FALSE(graph->selectedIsBefore());
  const QPointF centre = viewCentre(canvas);
  EXPECT_NEAR(centre.x(), g.layout.nodes[r2].x, 2);
  EXPECT_NEAR(centre.y(), g.layout.nodes[r2].y, 2);
  // The zoom is the user's: selecting does not re-fit the graph.
  EXPECT_NEAR(canvas->zoom(), zoom, 1e-9);
  // The text stays where the user clicked.
  EXPECT_EQ(text->textCursor().blockNumber(), line.blockNumber());

  // A line that binds nothing leaves the selection alone.
  clickLine(text, blockContaining(text, "with R.dataflow()"));
  EXPECT_EQ(graph->selectedNode(), r2);
}

TEST_F(OpenWindow, ALineInsideAFusedFunctionSelectsTheNodeThatCallsIt) {
  open("cnn.uir");
  build("FuseOps");
  GraphView* graph = window_.graphView();
  ASSERT_TRUE(graph->diffMode());
  const LaidOutGraph& after = *graph->shown();
  int caller = -1;
  std::string callee;
  for (const auto& n : after.graph.nodes)
    if (n.kind == unity::viz::NodeKind::Cluster) {
      caller = n.id;
      callee = n.callee;
      break;
    }
  ASSERT_GE(caller, 0) << "FuseOps makes fused groups";
  QPlainTextEdit* text = window_.irDiffView()->after();
  const QTextBlock def = blockContaining(text, "def " + QString::fromStdString(callee) + "(");
  ASSERT_TRUE(def.isValid());
  // The first binding inside the fused function.
  QTextBlock b = def.next();
  while (b.isValid() && !window_.irDiffView()->bindingAt(false, b.blockNumber()).name.size())
    b = b.next();
  ASSERT_TRUE(b.isValid());
  EXPECT_EQ(window_.irDiffView()->bindingAt(false, b.blockNumber()).function,
            QString::fromStdString(callee));
  clickLine(text, b);
  EXPECT_EQ(graph->selectedNode(), caller);
  EXPECT_EQ(text->textCursor().blockNumber(), b.blockNumber()) << "the text did not jump away";

  // In the before text (left), a binding selects the node in the before graph.
  QPlainTextEdit* before = window_.irDiffView()->before();
  const QTextBlock c1 = blockContaining(before, "c1: R.Tensor");
  ASSERT_TRUE(c1.isValid()) << before->toPlainText().left(600).toStdString();
  clickLine(before, c1);
  EXPECT_TRUE(graph->selectedIsBefore());
  ASSERT_NE(graph->shownBefore(), nullptr);
  EXPECT_EQ(graph->selectedNode(), graph->shownBefore()->graph.findNode("c1"));
}

TEST_F(OpenWindow, SearchFindsANodeByOpAndCentresIt) {
  open("transformer.uir");
  GraphView* graph = window_.graphView();
  graph->canvas()->scale(3, 3);
  ASSERT_TRUE(graph->find("softmax"));
  const LaidOutGraph& g = *graph->shown();
  const auto& n = g.graph.nodes[graph->selectedNode()];
  EXPECT_EQ(n.op, "nn.softmax");
  const auto& geo = g.layout.nodes[n.id];
  const QRectF visible =
      graph->canvas()->mapToScene(graph->canvas()->viewport()->rect()).boundingRect();
  EXPECT_TRUE(visible.contains(QPointF(geo.x, geo.y)));
  // The IR text follows the search too.
  EXPECT_TRUE(window_.irDiffView()->after()->textCursor().block().text().contains("R.nn.softmax"));
}

// -------------------------------------------------------------------- minimap

TEST_F(OpenWindow, MinimapShowsWhenZoomedInAndMovesTheView) {
  open("transformer.uir");
  GraphView* graph = window_.graphView();
  GraphCanvas* canvas = graph->canvas();
  GraphMinimap* map = graph->minimap();
  ASSERT_NE(map, nullptr);
  canvas->fit();
  QCoreApplication::processEvents();
  EXPECT_FALSE(map->isVisible()) << "the whole graph is on screen: nothing to navigate";

  canvas->scale(5, 5);
  canvas->centerOn(0, 0);
  QCoreApplication::processEvents();
  ASSERT_TRUE(map->isVisible());
  // It sits inside the canvas, in the bottom-right corner.
  EXPECT_TRUE(canvas->rect().contains(map->geometry()));
  EXPECT_GT(map->geometry().center().x(), canvas->width() / 2);
  EXPECT_GT(map->geometry().center().y(), canvas->height() / 2);

  // A click moves the view's centre to the clicked place.
  const QPoint target(map->width() / 2, map->height() * 3 / 4);
  const QPointF scene = map->toScene(target);
  QTest::mouseClick(map, Qt::LeftButton, {}, target);
  QPointF centre = viewCentre(canvas);
  const double tolerance = 2 + 1 / canvas->zoom(); // one screen pixel
  const QRectF sceneRect = canvas->sceneRect();
  // Unless the scroll range stops it, the view is centred on the point.
  EXPECT_NEAR(centre.y(), std::clamp(scene.y(), sceneRect.top(), sceneRect.bottom()),
              canvas->viewport()->height() / canvas->zoom() / 2 + tolerance);
  EXPECT_GT(centre.y(), sceneRect.center().y()) << "moved to the lower half";

  // Dragging follows the mouse.
  const QPoint top(map->width() / 2, 4);
  QTest::mousePress(map, Qt::LeftButton, {}, target);
  QMouseEvent move(QEvent::MouseMove, QPointF(top), map->mapToGlobal(QPointF(top)), Qt::NoButton,
                   Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(map, &move);
  QTest::mouseRelease(map, Qt::LeftButton, {}, top);
  centre = viewCentre(canvas);
  EXPECT_LT(centre.y(), sceneRect.center().y()) << "dragged to the top";
  // The frame drawn in the minimap is where the canvas looks.
  const QRectF visible = map->visibleSceneRect();
  EXPECT_TRUE(visible.contains(centre));
  // To look at it: LOWERSCOPE_TEST_SHOTS=DIR test_views --gtest_filter=*Minimap*
  if (const QString dir = qEnvironmentVariable("LOWERSCOPE_TEST_SHOTS"); !dir.isEmpty())
    window_.grab().save(dir + "/minimap.png");
}

// -------------------------------------------------------------------- palettes

TEST_F(OpenWindow, DarkPaletteAppliesEverywhereAndPersists) {
  open("cnn.uir");
  QAction* dark = window_.themeAction(ThemeChoice::Dark);
  ASSERT_NE(dark, nullptr);
  EXPECT_TRUE(window_.themeAction(ThemeChoice::Light));
  EXPECT_TRUE(window_.themeAction(ThemeChoice::System));
  dark->trigger();
  QCoreApplication::processEvents(); // palette-change events reach the widgets
  EXPECT_TRUE(dark->isChecked());
  EXPECT_FALSE(window_.themeAction(ThemeChoice::Light)->isChecked());
  EXPECT_EQ(QSettings().value(Theme::settingsKey()).toString(), "dark");

  // Widgets: a dark window and text background.
  EXPECT_LT(QApplication::palette().color(QPalette::Window).lightness(), 80);
  EXPECT_LT(window_.irDiffView()->after()->palette().color(QPalette::Base).lightness(), 80);
  // Graph: dark canvas, dark node fills with light text on them.
  GraphView* graph = window_.graphView();
  ASSERT_TRUE(graph->waitForLayout(30000));
  EXPECT_LT(graph->canvas()->backgroundBrush().color().lightness(), 60);
  int nodes = 0;
  for (QGraphicsItem* item : graph->scene()->items()) {
    auto* shape = dynamic_cast<QGraphicsPathItem*>(item);
    if (!shape || shape->data(1).toString() != "node")
      continue;
    ++nodes;
    EXPECT_LT(shape->brush().color().lightness(), 110);
    for (QGraphicsItem* child : shape->childItems())
      if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(child)) {
        EXPECT_GT(t->brush().color().lightness(), 180);
        // Readable: the text and its fill differ clearly.
        EXPECT_GT(t->brush().color().lightness() - shape->brush().color().lightness(), 100);
      }
  }
  EXPECT_EQ(nodes, static_cast<int>(graph->shown()->graph.nodes.size()));
  // IR highlighting: "def" in the dark keyword colour.
  const QTextBlock def = blockContaining(window_.irDiffView()->after(), "def main");
  ASSERT_TRUE(def.isValid());
  bool keyword = false;
  for (const QTextLayout::FormatRange& r : def.layout()->formats())
    keyword = keyword || (r.start == 0 && r.length == 3 &&
                          r.format.foreground().color() == ThemeColors::darkColors().keyword);
  EXPECT_TRUE(keyword);

  // A new window (next start) comes up dark from the settings.
  {
    Theme::instance()->setChoice(ThemeChoice::Light);
    MainWindow next;
    next.restoreSettings();
    EXPECT_EQ(Theme::instance()->choice(), ThemeChoice::Dark);
    EXPECT_TRUE(next.themeAction(ThemeChoice::Dark)->isChecked());
    EXPECT_LT(QApplication::palette().color(QPalette::Window).lightness(), 80);
  }

  // And back to light, which is saved too.
  window_.themeAction(ThemeChoice::Light)->trigger();
  EXPECT_EQ(QSettings().value(Theme::settingsKey()).toString(), "light");
  EXPECT_GT(QApplication::palette().color(QPalette::Window).lightness(), 200);
  EXPECT_GT(graph->canvas()->backgroundBrush().color().lightness(), 240);
}

TEST(Theme, ChoicesRoundTripThroughTheirNames) {
  for (ThemeChoice c : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark})
    EXPECT_EQ(parseThemeChoice(themeChoiceName(c)), c);
  EXPECT_EQ(parseThemeChoice("DARK"), ThemeChoice::Dark);
  EXPECT_FALSE(parseThemeChoice("sepia").has_value());
  QSettings().setValue(Theme::settingsKey(), "sepia");
  EXPECT_EQ(Theme::savedChoice(), ThemeChoice::System) << "unreadable: the default";
  QSettings().remove(Theme::settingsKey());
}

TEST(Theme, DarkNodeFillsKeepTheirHue) {
  const ThemeColors dark = ThemeColors::darkColors();
  const ThemeColors light = ThemeColors::lightColors();
  for (const char* hex : {"#c3fae8", "#d3f9d8", "#fff3bf", "#ffd8a8", "#ffc9c9", "#cfe2ff"}) {
    const QColor pastel(hex);
    EXPECT_EQ(light.nodeFill(pastel), pastel);
    const QColor shade = dark.nodeFill(pastel);
    EXPECT_LT(shade.lightness(), 90) << hex;
    EXPECT_NEAR(shade.hslHueF(), pastel.hslHueF(), 0.02) << hex;
  }
}

// ---------------------------------------------------------------------- export

TEST_F(OpenWindow, ExportWritesAValidSvgPngAndDot) {
  open("cnn.uir");
  QTemporaryDir dir;
  QString error;
  const QString svg = dir.filePath("cnn.svg");
  ASSERT_TRUE(window_.exportGraph(svg, &error)) << error.toStdString();
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&f);
  int texts = 0;
  bool svgRoot = false;
  QStringList labels;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      svgRoot = svgRoot || xml.name() == QLatin1String("svg");
      if (xml.name() == QLatin1String("text")) {
        ++texts;
        labels << xml.readElementText();
      }
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_TRUE(svgRoot);
  EXPECT_TRUE(labels.contains("nn.conv2d")) << labels.join(",").toStdString();
  EXPECT_GE(texts, static_cast<int>(window_.graphView()->shown()->graph.nodes.size()));

  const QString png = dir.filePath("cnn.png");
  ASSERT_TRUE(window_.exportGraph(png, &error)) << error.toStdString();
  QFile p(png);
  ASSERT_TRUE(p.open(QIODevice::ReadOnly));
  EXPECT_TRUE(p.read(8).startsWith("\x89PNG"));

  const QString dot = dir.filePath("cnn.dot");
  ASSERT_TRUE(window_.exportGraph(dot, &error)) << error.toStdString();
  QFile d(dot);
  ASSERT_TRUE(d.open(QIODevice::ReadOnly));
  EXPECT_TRUE(d.readAll().startsWith("digraph \"main\""));

  EXPECT_FALSE(window_.exportGraph(dir.filePath("cnn.bmp"), &error));
  EXPECT_TRUE(error.contains("cnn.bmp")) << error.toStdString();
  EXPECT_TRUE(error.contains("unknown format 'bmp'")) << error.toStdString();
  EXPECT_FALSE(window_.exportGraph(dir.filePath("no/such/dir/x.svg"), &error));
  EXPECT_TRUE(error.contains("x.svg")) << error.toStdString();
}

TEST(MainWindowExport, NothingToExportBeforeAModelIsOpen) {
  MainWindow w;
  EXPECT_FALSE(w.exportAction()->isEnabled());
  QString error;
  EXPECT_FALSE(w.exportGraph("/tmp/never.svg", &error));
  EXPECT_TRUE(error.contains("no graph is shown")) << error.toStdString();
}

// ------------------------------------------------------------------ edge labels

TEST(EdgeLabels, ShortFormsOfTypes) {
  EXPECT_EQ(shortTypeLabel("(1, 128, 768) float32"), QString::fromUtf8("1×128×768 f32"));
  EXPECT_EQ(shortTypeLabel("(n, 64) float16"), QString::fromUtf8("n×64 f16"));
  EXPECT_EQ(shortTypeLabel("(10,) int64"), "10 i64");
  EXPECT_EQ(shortTypeLabel("() float32"), "f32");
  EXPECT_EQ(shortTypeLabel("((2, 3) float32, (4,) uint8)"), QString::fromUtf8("(2×3 f32, 4 u8)"));
  EXPECT_EQ(shortTypeLabel("(s, 4, 16) bool"), QString::fromUtf8("s×4×16 bool"));
  EXPECT_EQ(shortTypeLabel("shape"), "shape");
  // Symbolic dims with parentheses of their own (an exporter's strided
  // shapes), inside a tuple too.
  EXPECT_EQ(shortTypeLabel("(N, 16, (H + 1) // 2, ((W + 1) // 2 + 1) // 2) float32"),
            QString::fromUtf8("N×16×(H+1)//2×((W+1)//2+1)//2 f32"));
  EXPECT_EQ(shortTypeLabel("((n * 2, 3) float32, (m + 1,) int64)"),
            QString::fromUtf8("(n*2×3 f32, m+1 i64)"));
}

TEST(EdgeLabels, LongLabelsAreElidedAndKeepTheWholeTypeAsTooltip) {
  const QString full = "(p2o_DynamicDimension_0, 16, (p2o_DynamicDimension_1 + 1) // 2, "
                       "(p2o_DynamicDimension_2 + 1) // 2) float32";
  const QString label = elideEdgeLabel(shortTypeLabel(full));
  EXPECT_EQ(label.size(), kMaxEdgeLabelChars);
  EXPECT_TRUE(label.endsWith(QChar(0x2026))) << label.toStdString();
  EXPECT_TRUE(label.startsWith(QString::fromUtf8("p2o_DynamicDimension_0×16×(")))
      << label.toStdString();
  EXPECT_EQ(elideEdgeLabel("1×128×768 f32"), QString::fromUtf8("1×128×768 f32"));
  // Placed labels: the elided text, the whole type kept for the tooltip.
  unity::viz::DataflowGraph g;
  g.nodes.resize(2);
  for (int i = 0; i < 2; ++i) {
    g.nodes[i].id = i;
    g.nodes[i].name = i == 0 ? "a" : "b";
    g.nodes[i].op = "relu";
  }
  g.edges.push_back({0, 1, full.toStdString()});
  unity::viz::LayoutOptions o;
  o.edgeLabels = true;
  auto L = unity::viz::layoutGraph(g, o);
  ASSERT_TRUE(L.has_value());
  auto labels = placeEdgeLabels(g, *L, QFont());
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].text, label);
  EXPECT_EQ(labels[0].full, full);
}

TEST(EdgeLabels, NeverOverlapNodesOrEachOtherOnADenseGraph) {
  auto m = unity::text::parseFile(example("transformer.uir").toStdString());
  auto g = unity::viz::extractGraph(m, "main");
  auto layout = unity::viz::layoutGraph(g);
  ASSERT_TRUE(layout.has_value());
  QFont font("DejaVu Sans");
  font.setPixelSize(8);
  const auto labels = placeEdgeLabels(g, *layout, font);
  ASSERT_FALSE(labels.empty());
  // Fewer labels than edges: ln1 feeds q, k and v and is labelled once.
  EXPECT_LT(labels.size(), g.edges.size());
  std::set<std::pair<int, std::string>> values;
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto& e = g.edges[labels[i].edge];
    EXPECT_TRUE(values.insert({e.from, e.label}).second) << "one label per value";
    EXPECT_EQ(labels[i].full.toStdString(), e.label);
    for (size_t j = i + 1; j < labels.size(); ++j)
      EXPECT_FALSE(labels[i].rect.intersects(labels[j].rect))
          << labels[i].text.toStdString() << " / " << labels[j].text.toStdString();
    for (const auto& n : layout->nodes)
      EXPECT_FALSE(labels[i].rect.intersects(
          QRectF(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height)))
          << labels[i].text.toStdString();
  }
  const int ln1 = g.findNode("ln1");
  ASSERT_GE(ln1, 0);
  EXPECT_GE(g.outputsOf(ln1).size(), 3u);
}
