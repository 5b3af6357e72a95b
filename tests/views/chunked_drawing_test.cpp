// Big graphs are drawn in time slices (views/chunked_builder.h): the jobs
// all run, once each and in order, across several event-loop turns; a
// cancelled run stops; the graph view ends with one item per node and edge.
// Switching back to a step shows the scenes and texts drawn for it before.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QGraphicsPathItem>
#include <QPlainTextEdit>
#include <QThread>

#include <string>
#include <vector>

#include "app/gui/main_window.h"
#include "app/gui/recent_files.h"
#include "engine/text/parser.h"
#include "views/chunked_builder.h"
#include "views/graph_items.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/session.h"
#include "views/theme.h"

using namespace lowerscope;

namespace {

/// Busy-waits `us` microseconds (a job that takes time).
void spin(int us) {
  QElapsedTimer t;
  t.start();
  while (t.nsecsElapsed() < us * 1000LL) {
  }
}

bool processUntil(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
  return true;
}

/// A .uir chain of `count` elementwise ops (like bench/gen_chain_model.py).
std::string chainModel(int count) {
  std::string s = "@R.function\ndef main(x: R.Tensor((n, 64), \"float32\")) -> R.Tensor((n, 64), "
                  "\"float32\"):\n    with R.dataflow():\n";
  std::string prev = "x";
  const char* ops[] = {"R.nn.relu", "R.tanh"};
  for (int i = 0; i < count; ++i) {
    std::string name = i + 1 == count ? "gv" : "lv" + std::to_string(i);
    s += "        " + name + " = " + ops[i % 2] + "(" + prev + ")\n";
    prev = name;
  }
  s += "        R.output(gv)\n    return gv\n";
  return s;
}

} // namespace

TEST(ChunkedBuilder, RunsEveryJobOnceInOrderAcrossSlices) {
  ChunkedBuilder b;
  b.setBudgetMs(2);
  std::vector<std::pair<int, size_t>> ran;
  int finished = 0;
  QObject::connect(&b, &ChunkedBuilder::finished, [&] { ++finished; });
  b.addPhase(300, [&](size_t i) {
    spin(50);
    ran.push_back({0, i});
  });
  b.addPhase(0, [&](size_t) { ADD_FAILURE() << "an empty phase ran"; });
  b.addPhase(200, [&](size_t i) {
    spin(50);
    ran.push_back({1, i});
  });
  EXPECT_EQ(b.total(), 500u);
  b.start();
  // 500 jobs of 50 us do not fit in one 2 ms slice: the rest waits for the
  // event loop.
  EXPECT_TRUE(b.running());
  EXPECT_LT(ran.size(), 500u);
  ASSERT_TRUE(processUntil([&] { return !b.running(); }, 20000));
  EXPECT_EQ(finished, 1);
  ASSERT_EQ(ran.size(), 500u);
  for (size_t k = 0; k < ran.size(); ++k)
    EXPECT_EQ(ran[k], (std::pair<int, size_t>{k < 300 ? 0 : 1, k < 300 ? k : k - 300}));
  EXPECT_GT(b.slices(), 2);
  EXPECT_EQ(b.done(), 500u);
}

TEST(ChunkedBuilder, CancelStopsTheRun) {
  ChunkedBuilder b;
  b.setBudgetMs(1);
  int ran = 0, finished = 0;
  QObject::connect(&b, &ChunkedBuilder::finished, [&] { ++finished; });
  b.addPhase(1000, [&](size_t) {
    spin(50);
    ++ran;
  });
  b.start();
  ASSERT_TRUE(b.running());
  const int before = ran;
  b.cancel();
  EXPECT_FALSE(b.running());
  for (int i = 0; i < 20; ++i)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  EXPECT_EQ(ran, before);
  EXPECT_EQ(finished, 0);
}

TEST(ChunkedBuilder, RunAllFinishesAtOnce) {
  ChunkedBuilder b;
  b.setBudgetMs(0.01);
  int ran = 0, finished = 0;
  QObject::connect(&b, &ChunkedBuilder::finished, [&] { ++finished; });
  b.addPhase(100, [&](size_t) { ++ran; });
  b.runAll();
  EXPECT_EQ(ran, 100);
  EXPECT_EQ(finished, 1);
  EXPECT_FALSE(b.running());
}

TEST(ChunkedBuilder, MaxJobsPerSliceEndsASliceEarly) {
  ChunkedBuilder b;
  b.setBudgetMs(1e6); // the count, not the clock, ends each slice
  b.setMaxJobsPerSlice(7);
  int ran = 0;
  b.addPhase(30, [&](size_t) { ++ran; });
  b.start();
  EXPECT_EQ(ran, 7);
  EXPECT_TRUE(b.running());
  ASSERT_TRUE(processUntil([&] { return !b.running(); }, 20000));
  EXPECT_EQ(ran, 30);
  EXPECT_EQ(b.slices(), 5); // 7 + 7 + 7 + 7 + 2
}

TEST(ChunkedBuilder, APausedRunAdvancesOnlyByStep) {
  ChunkedBuilder b;
  b.setMaxJobsPerSlice(4);
  b.setPaused(true);
  int ran = 0, finished = 0;
  QObject::connect(&b, &ChunkedBuilder::finished, [&] { ++finished; });
  b.addPhase(10, [&](size_t) { ++ran; });
  b.start();
  EXPECT_TRUE(b.running());
  EXPECT_EQ(ran, 0) << "start() only arms a paused run";
  for (int i = 0; i < 20; ++i)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  EXPECT_EQ(ran, 0) << "the event loop does not advance a paused run";
  b.step();
  EXPECT_EQ(ran, 4);
  b.step();
  EXPECT_EQ(ran, 8);
  EXPECT_TRUE(b.running());
  EXPECT_EQ(finished, 0);
  // Unpaused, the event loop finishes it.
  b.setPaused(false);
  ASSERT_TRUE(processUntil([&] { return !b.running(); }, 20000));
  EXPECT_EQ(ran, 10);
  EXPECT_EQ(finished, 1);
}

TEST(ChunkedDrawing, BigGraphEndsWithOneItemPerNodeAndEdge) {
  Session session;
  GraphView view(&session);
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1000, 700);
  view.show();
  // A slice ends after 200 jobs at the latest, so the drawing takes several
  // whatever the machine's speed.
  view.builder()->setMaxJobsPerSlice(200);
  session.setModule(unity::text::parseModule(chainModel(700)), "chain700.uir");
  ASSERT_TRUE(view.waitForLayout(120000));
  ASSERT_NE(view.shown(), nullptr);
  const LaidOutGraph& g = *view.shown();
  ASSERT_TRUE(g.error.isEmpty()) << g.error.toStdString();
  ASSERT_EQ(g.graph.nodes.size(), 702u); // x, 700 bindings, output
  // Drawn in several slices, not in one go.
  EXPECT_GT(view.builder()->slices(), 1);
  EXPECT_FALSE(view.drawing());
  size_t nodeItems = 0, edgePaths = 0, arrows = 0;
  std::vector<int> seen(g.graph.nodes.size(), 0);
  for (QGraphicsItem* item : view.scene()->items()) {
    if (item->data(1).toString() == "node") {
      ++nodeItems;
      ++seen[item->data(0).toInt()];
    } else if (auto* edge = dynamic_cast<EdgeItem*>(item)) {
      ++edgePaths;
      arrows += !edge->head().isEmpty();
    }
  }
  EXPECT_EQ(nodeItems, g.graph.nodes.size());
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()))
      << "every node drawn exactly once";
  EXPECT_EQ(edgePaths, g.graph.edges.size());
  EXPECT_EQ(arrows, g.graph.edges.size());
}

TEST(ChunkedDrawing, ANewModuleCancelsAnUnfinishedDrawing) {
  Session session;
  GraphView view(&session);
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1000, 700);
  view.show();
  // Paused, the drawing stops after its first slice we step: unfinished
  // however fast the machine is.
  ChunkedBuilder* builder = view.builder();
  builder->setPaused(true);
  builder->setMaxJobsPerSlice(100);
  session.setModule(unity::text::parseModule(chainModel(900)), "chain900.uir");
  ASSERT_TRUE(processUntil([&] { return view.drawing(); }, 120000)); // laid out, drawing armed
  builder->step();
  ASSERT_TRUE(view.drawing());
  ASSERT_GT(builder->done(), 0u);
  ASSERT_LT(builder->done(), builder->total());
  // Mid-drawing, another model: the old jobs must not add to the new scene.
  session.setModule(unity::text::parseModule(chainModel(400)), "chain400.uir");
  builder->setPaused(false);
  ASSERT_TRUE(view.waitForLayout(120000));
  size_t nodeItems = 0;
  for (QGraphicsItem* item : view.scene()->items())
    nodeItems += item->data(1).toString() == "node";
  EXPECT_EQ(nodeItems, 402u);
}

TEST(PassSwitch, SwitchingBackReusesTheDrawnScenesAndTexts) {
  MainWindow w;
  w.setAttribute(Qt::WA_DontShowOnScreen, true);
  w.resize(MainWindow::kDefaultSize);
  w.show();
  QString error;
  ASSERT_TRUE(
      w.openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/resources/examples/mlp.uir"), &error))
      << error.toStdString();
  Session* s = w.session();
  s->setCodegen(false);
  ASSERT_TRUE(w.startBuild());
  ASSERT_TRUE(s->waitForBuild(120000));
  GraphView* graph = w.graphView();
  IrDiffView* text = w.irDiffView();
  ASSERT_TRUE(graph->diffMode());
  const int a = s->findStep("FuseOps"), b = a - 1;
  ASSERT_GT(b, 0);
  s->setCurrentStep(a);
  ASSERT_TRUE(graph->waitForLayout(60000));
  QGraphicsScene* sceneA = graph->scene();
  QPlainTextEdit* textA = text->after();
  const QString statusA = graph->statusText();
  const int insertedA = text->insertedLines();
  s->setCurrentStep(b);
  ASSERT_TRUE(graph->waitForLayout(60000));
  EXPECT_NE(graph->scene(), sceneA);
  EXPECT_NE(text->after(), textA);
  // Back to FuseOps: the same scene and editor, showing the same thing.
  s->setCurrentStep(a);
  ASSERT_TRUE(graph->waitForLayout(60000));
  EXPECT_EQ(graph->scene(), sceneA);
  EXPECT_EQ(text->after(), textA);
  EXPECT_EQ(graph->statusText(), statusA);
  EXPECT_EQ(text->insertedLines(), insertedA);
  EXPECT_GE(graph->drawnScenes(), 2);
  // A new palette redraws: the cached scenes are dropped.
  Theme::instance()->setChoice(ThemeChoice::Dark);
  ASSERT_TRUE(graph->waitForLayout(60000));
  EXPECT_EQ(graph->drawnScenes(), 1);
  Theme::instance()->setChoice(ThemeChoice::Light);
  clearRecentFiles();
}
