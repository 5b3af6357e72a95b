#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/recent_files.h"
#include "views/empty_state_widget.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/ir_text_view.h"
#include "views/log_view.h"
#include "views/pass_timeline.h"
#include "views/session.h"
#include "views/source_view.h"
#include "views/tuning_run_view.h"

#include "engine/ir/tir.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSlider>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QUrl>

using lowerscope::EmptyStateWidget;
using lowerscope::MainWindow;

namespace {

QDockWidget* dockTitled(const MainWindow& w, const QString& title) {
  for (QDockWidget* d : w.findChildren<QDockWidget*>())
    if (d->windowTitle() == title)
      return d;
  return nullptr;
}

QMenu* menuTitled(const MainWindow& w, const QString& title) {
  for (QAction* a : w.menuBar()->actions())
    if (a->menu() && a->text().remove('&') == title)
      return a->menu();
  return nullptr;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(bytes);
  return path;
}

QString example(const char* name) {
  return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/resources/examples/") + name;
}

class MainWindowTest : public ::testing::Test {
protected:
  void SetUp() override { lowerscope::clearRecentFiles(); }
};

} // namespace

TEST_F(MainWindowTest, HasTheWorkbenchDocks) {
  MainWindow w;
  QStringList titles;
  QSet<QString> names;
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    titles << d->windowTitle();
    EXPECT_FALSE(d->objectName().isEmpty()) << "saveState() needs dock object names";
    names.insert(d->objectName());
  }
  titles.sort();
  EXPECT_EQ(titles, (QStringList{"Code", "IR Text", "Log", "Pass Timeline", "Target Palette",
                                 "Tuning", "Tuning Records"}));
  EXPECT_EQ(names.size(), 7) << "dock object names must be unique";
  EXPECT_EQ(w.docks().size(), 7);
}

TEST_F(MainWindowTest, GraphIsTheCentralArea) {
  MainWindow w;
  auto* graph = qobject_cast<EmptyStateWidget*>(w.centralWidget());
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph, w.emptyGraph());
  EXPECT_EQ(graph->title(), "Graph");
  EXPECT_TRUE(graph->message().contains("graph"));
}

TEST_F(MainWindowTest, EmptyPanelsSayWhatWillAppear) {
  MainWindow w;
  QDockWidget* timeline = dockTitled(w, "Pass Timeline");
  ASSERT_NE(timeline, nullptr);
  auto* empty = qobject_cast<EmptyStateWidget*>(timeline->widget());
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->title(), "Pass Timeline");
  // The Tuning panel is the run view from the start; until a database is
  // shown it says how to get one.
  QDockWidget* tuning = dockTitled(w, "Tuning");
  ASSERT_NE(tuning, nullptr);
  auto* view = qobject_cast<lowerscope::TuningRunView*>(tuning->widget());
  ASSERT_NE(view, nullptr);
  EXPECT_FALSE(view->isShowingDatabase());
  EXPECT_EQ(view->emptyState()->title(), "Tuning");
  EXPECT_TRUE(view->emptyState()->message().contains("will appear") &&
              view->emptyState()->message().contains("Tune..."))
      << view->emptyState()->message().toStdString();
  EXPECT_TRUE(dockTitled(w, "Pass Timeline")
                  ->findChild<EmptyStateWidget*>()
                  ->message()
                  .contains("press Build to see the pass timeline"));
  EXPECT_FALSE(w.irTextView()->hasText());
}

TEST_F(MainWindowTest, LogStartsWithTheComponentVersions) {
  MainWindow w;
  const QString log = w.logView()->toPlainText();
  EXPECT_TRUE(log.contains("Lowerscope")) << log.toStdString();
  EXPECT_TRUE(log.contains(QString("Qt ") + qVersion())) << log.toStdString();
  EXPECT_TRUE(log.contains("LLVM ")) << log.toStdString();
}

TEST_F(MainWindowTest, MenusOfferFileEditViewBuildHelp) {
  MainWindow w;
  QStringList menus;
  for (QAction* a : w.menuBar()->actions())
    menus << a->text().remove('&');
  EXPECT_EQ(menus, (QStringList{"File", "Edit", "View", "Build", "Help"}));

  QMenu* view = menuTitled(w, "View");
  ASSERT_NE(view, nullptr);
  for (QDockWidget* d : w.docks())
    EXPECT_TRUE(view->actions().contains(d->toggleViewAction())) << d->objectName().toStdString();

  // Nothing to build before a model is open.
  auto* build = w.findChild<QAction*>("buildAction");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
  EXPECT_FALSE(build->isEnabled());
  EXPECT_FALSE(w.startBuild());
}

TEST_F(MainWindowTest, OpeningAnExampleShowsTheWorkbenchViews) {
  const QString path = example("mlp.uir");
  MainWindow w;
  QString error;
  ASSERT_TRUE(w.openFile(path, &error)) << error.toStdString();
  EXPECT_EQ(w.currentFile(), path);
  EXPECT_TRUE(w.windowTitle().startsWith("mlp.uir"));
  EXPECT_TRUE(w.hasModel());
  EXPECT_EQ(w.centralWidget(), w.graphView());
  EXPECT_EQ(dockTitled(w, "IR Text")->widget(), w.irDiffView());
  EXPECT_EQ(dockTitled(w, "Pass Timeline")->widget(), w.timelineView());
  EXPECT_TRUE(w.buildAction()->isEnabled());
  EXPECT_TRUE(w.irDiffView()->after()->toPlainText().contains("@R.function"));
  ASSERT_TRUE(w.graphView()->waitForLayout(30000));
  ASSERT_NE(w.graphView()->shown(), nullptr);
  EXPECT_TRUE(w.graphView()->shown()->error.isEmpty())
      << w.graphView()->shown()->error.toStdString();
  EXPECT_FALSE(w.graphView()->shown()->graph.nodes.empty());
  EXPECT_TRUE(w.logView()->toPlainText().contains("Opened " + path));
  EXPECT_EQ(lowerscope::recentFiles(), QStringList{path});
}

TEST_F(MainWindowTest, AFileThatDoesNotParseIsLoggedWithItsLocation) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "bad.uir", "@main = fn() {}\n");
  MainWindow w;
  QString error;
  EXPECT_FALSE(w.openFile(path, &error));
  EXPECT_TRUE(error.contains("bad.uir")) << error.toStdString();
  EXPECT_FALSE(w.hasModel());
  // Still the empty state, which shows the text that failed.
  EXPECT_EQ(w.centralWidget(), w.emptyGraph());
  EXPECT_EQ(w.irTextView()->text(), "@main = fn() {}\n");
  EXPECT_FALSE(w.buildAction()->isEnabled());
  EXPECT_TRUE(w.logView()->toPlainText().contains("error: " + path + ":1:"))
      << w.logView()->toPlainText().toStdString();
  EXPECT_TRUE(lowerscope::recentFiles().isEmpty());
}

TEST_F(MainWindowTest, ActivatingALocatedErrorShowsTheSourceAtThatLine) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "bad2.uir", "# a comment\n\n@R.function\ndef main(:\n");
  MainWindow w;
  EXPECT_FALSE(w.openFile(path));
  // The log entry of the error carries its location; activating it opens
  // the source window on that line.
  int block = -1;
  QString file;
  int line = 0, column = 0;
  for (int b = 0; b < w.logView()->document()->blockCount(); ++b)
    if (w.logView()->locationAt(b, &file, &line, &column)) {
      block = b;
      break;
    }
  ASSERT_GE(block, 0) << w.logView()->toPlainText().toStdString();
  EXPECT_EQ(file, path);
  EXPECT_EQ(line, 4);
  Q_EMIT w.logView()->locationActivated(file, line, column);
  auto* window = w.findChild<QDialog*>("sourceWindow");
  ASSERT_TRUE(window);
  EXPECT_TRUE(window->isVisible());
  auto* source = window->findChild<lowerscope::SourceView*>();
  ASSERT_TRUE(source);
  EXPECT_EQ(source->highlightedLine(), 4);
  EXPECT_EQ(source->textCursor().block().text(), "def main(:");
}

TEST_F(MainWindowTest, OpeningABrokenOnnxFileFailsWithoutDumpingBinary) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "model.onnx", QByteArray("\x08\x07\x12\x00\x01", 5));
  MainWindow w;
  EXPECT_FALSE(w.openFile(path));
  EXPECT_FALSE(w.irTextView()->hasText());
  EXPECT_TRUE(w.logView()->toPlainText().contains("model.onnx"));
}

TEST_F(MainWindowTest, OpeningAMissingFileFailsAndKeepsTheCurrentOne) {
  QTemporaryDir dir;
  const QString good = example("mlp.uir");
  MainWindow w;
  ASSERT_TRUE(w.openFile(good));
  QString error;
  EXPECT_FALSE(w.openFile(dir.filePath("missing.uir"), &error));
  EXPECT_TRUE(error.contains("missing.uir"));
  EXPECT_TRUE(error.contains("no such file"));
  EXPECT_EQ(w.currentFile(), good);
  EXPECT_TRUE(w.logView()->toPlainText().contains("error: Cannot open"));
  EXPECT_FALSE(w.openFile(dir.path(), &error));
  EXPECT_TRUE(error.contains("directory"));
  const QString text = writeFile(dir, "notes.txt", "hello\n");
  EXPECT_FALSE(w.openFile(text, &error));
  EXPECT_TRUE(error.contains("not a model file")) << error.toStdString();
  // A parse failure keeps the open model too.
  const QString bad = writeFile(dir, "bad.uir", "x\n");
  EXPECT_FALSE(w.openFile(bad, &error));
  EXPECT_EQ(w.currentFile(), good);
  EXPECT_EQ(w.session()->path(), good);
}

TEST_F(MainWindowTest, BuildRunsOffTheUiThreadAndFillsTheTimeline) {
  MainWindow w;
  ASSERT_TRUE(w.openFile(example("mlp.uir")));
  auto* progress = w.findChild<QProgressBar*>("buildProgress");
  auto* cancel = w.findChild<QPushButton*>("cancelBuildButton");
  ASSERT_NE(progress, nullptr);
  ASSERT_NE(cancel, nullptr);
  EXPECT_TRUE(progress->isHidden());
  w.buildAction()->trigger();
  ASSERT_TRUE(w.session()->isBuilding());
  EXPECT_FALSE(w.buildAction()->isEnabled()) << "one build at a time";
  EXPECT_FALSE(progress->isHidden());
  EXPECT_FALSE(cancel->isHidden());
  ASSERT_TRUE(w.session()->waitForBuild(120000));
  EXPECT_TRUE(progress->isHidden());
  EXPECT_TRUE(w.buildAction()->isEnabled());
  ASSERT_TRUE(w.session()->hasHistory()) << w.logView()->toPlainText().toStdString();
  EXPECT_EQ(w.timelineView()->slider()->maximum() + 1, w.session()->stepCount());
  EXPECT_TRUE(w.logView()->toPlainText().contains("Built: "));

  // Choosing a pass shows it before and after.
  QString error;
  ASSERT_TRUE(w.selectStep("FuseOps", &error)) << error.toStdString();
  EXPECT_EQ(w.session()->stepName(w.session()->currentStep()), "FuseOps");
  EXPECT_TRUE(w.graphView()->diffMode());
  EXPECT_TRUE(w.irDiffView()->diffMode());
  ASSERT_TRUE(w.graphView()->waitForLayout(30000));
  ASSERT_NE(w.graphView()->diff(), nullptr);
  EXPECT_GT(w.irDiffView()->deletedLines() + w.irDiffView()->insertedLines(), 0);
  EXPECT_FALSE(w.selectStep("NoSuchPass", &error));
  EXPECT_TRUE(error.contains("NoSuchPass")) << error.toStdString();
}

TEST_F(MainWindowTest, CancellingABuildIsLoggedAndLeavesNoHistory) {
  MainWindow w;
  ASSERT_TRUE(w.openFile(example("cnn.uir")));
  ASSERT_TRUE(w.startBuild());
  w.findChild<QPushButton*>("cancelBuildButton")->click();
  ASSERT_TRUE(w.session()->waitForBuild(120000));
  // The cancel flag is checked before each pass; a build can only finish
  // first if it already ran its last pass, which the log then says.
  const QString log = w.logView()->toPlainText();
  if (w.session()->hasHistory())
    EXPECT_TRUE(log.contains("Built: ")) << log.toStdString();
  else
    EXPECT_TRUE(log.contains("warning: Build cancelled")) << log.toStdString();
  EXPECT_TRUE(w.buildAction()->isEnabled());
}

TEST_F(MainWindowTest, ChoosingAPrimFuncShowsItsLoopNest) {
  MainWindow w;
  ASSERT_TRUE(w.openFile(example("mlp.uir")));
  ASSERT_TRUE(w.startBuild());
  ASSERT_TRUE(w.session()->waitForBuild(120000));
  QString error;
  ASSERT_TRUE(w.selectStep("LegalizeOps", &error)) << error.toStdString();
  const auto module = w.session()->currentModule();
  QString prim;
  for (const auto& [name, f] : module->functions)
    if (unity::ir::isa<unity::ir::PrimFunc>(f))
      prim = QString::fromStdString(name);
  ASSERT_FALSE(prim.isEmpty()) << "LegalizeOps makes PrimFuncs";
  const QString graphFunction = w.session()->currentFunction();
  ASSERT_TRUE(w.selectFunction(prim, &error)) << error.toStdString();
  EXPECT_EQ(w.irDiffView()->function(), prim);
  EXPECT_TRUE(w.irDiffView()->after()->toPlainText().contains("for ")) << "a loop nest";
  EXPECT_EQ(w.session()->currentFunction(), graphFunction) << "the graph keeps its function";
  EXPECT_FALSE(w.selectFunction("no_such_function", &error));
  EXPECT_TRUE(error.contains("no_such_function"));
}

TEST_F(MainWindowTest, DroppingAModelFileOpensIt) {
  MainWindow w;
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(example("mlp.uir"))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &drop);
  EXPECT_EQ(w.currentFile(), example("mlp.uir"));

  QMimeData text;
  text.setUrls({QUrl::fromLocalFile("/tmp/picture.png")});
  QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
  refused.ignore();
  QApplication::sendEvent(&w, &refused);
  EXPECT_FALSE(refused.isAccepted());
}

TEST_F(MainWindowTest, LayoutIsSavedAndRestored) {
  {
    MainWindow w;
    w.restoreSettings(); // nothing saved yet: defaults
    EXPECT_EQ(w.size(), MainWindow::kDefaultSize);
    w.resize(1000, 700);
    dockTitled(w, "Tuning")->hide();
    w.saveSettings();
  }
  MainWindow restored;
  restored.restoreSettings();
  EXPECT_EQ(restored.size(), QSize(1000, 700));
  EXPECT_TRUE(dockTitled(restored, "Tuning")->isHidden());
  EXPECT_FALSE(dockTitled(restored, "Log")->isHidden());

  restored.resetLayout();
  for (QDockWidget* d : restored.docks())
    EXPECT_FALSE(d->isHidden()) << d->objectName().toStdString();
}
