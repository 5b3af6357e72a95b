#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/recent_files.h"
#include "views/empty_state_widget.h"
#include "views/ir_text_view.h"
#include "views/log_view.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTemporaryDir>

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
  EXPECT_EQ(titles, (QStringList{"IR Text", "Log", "Pass Timeline", "Target Palette", "Tuning"}));
  EXPECT_EQ(names.size(), 5) << "dock object names must be unique";
  EXPECT_EQ(w.docks().size(), 5);
}

TEST_F(MainWindowTest, GraphIsTheCentralArea) {
  MainWindow w;
  auto* graph = qobject_cast<EmptyStateWidget*>(w.centralWidget());
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph, w.graphView());
  EXPECT_EQ(graph->title(), "Graph");
  EXPECT_TRUE(graph->message().contains("graph"));
}

TEST_F(MainWindowTest, EmptyPanelsSayWhatWillAppear) {
  MainWindow w;
  const QStringList emptyPanels{"Pass Timeline", "Target Palette", "Tuning"};
  for (const QString& title : emptyPanels) {
    QDockWidget* dock = dockTitled(w, title);
    ASSERT_NE(dock, nullptr) << title.toStdString();
    auto* empty = qobject_cast<EmptyStateWidget*>(dock->widget());
    ASSERT_NE(empty, nullptr) << title.toStdString();
    EXPECT_EQ(empty->title(), title);
    EXPECT_TRUE(empty->message().contains("will appear") || empty->message().contains("to see"))
        << empty->message().toStdString();
  }
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

TEST_F(MainWindowTest, MenusOfferFileViewBuildHelp) {
  MainWindow w;
  QStringList menus;
  for (QAction* a : w.menuBar()->actions())
    menus << a->text().remove('&');
  EXPECT_EQ(menus, (QStringList{"File", "View", "Build", "Help"}));

  QMenu* view = menuTitled(w, "View");
  ASSERT_NE(view, nullptr);
  for (QDockWidget* d : w.docks())
    EXPECT_TRUE(view->actions().contains(d->toggleViewAction())) << d->objectName().toStdString();

  // The window builds through its session, which does not exist yet; the action
  // must say so by being disabled, not pretend.
  auto* build = w.findChild<QAction*>("buildAction");
  ASSERT_NE(build, nullptr);
  EXPECT_FALSE(build->isEnabled());
}

TEST_F(MainWindowTest, OpeningTextIrShowsItAndRemembersIt) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "mlp.uir", "@main = fn() {}\n");
  MainWindow w;
  QString error;
  ASSERT_TRUE(w.openFile(path, &error)) << error.toStdString();
  EXPECT_EQ(w.currentFile(), path);
  EXPECT_TRUE(w.windowTitle().startsWith("mlp.uir"));
  EXPECT_TRUE(w.irTextView()->hasText());
  EXPECT_EQ(w.irTextView()->text(), "@main = fn() {}\n");
  EXPECT_TRUE(w.graphView()->message().contains("mlp.uir"));
  EXPECT_TRUE(w.logView()->toPlainText().contains("Opened " + path));
  EXPECT_EQ(lowerscope::recentFiles(), QStringList{path});
}

TEST_F(MainWindowTest, OpeningOnnxDoesNotDumpBinaryAsText) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "model.onnx", QByteArray("\x08\x07\x12\x00\x01", 5));
  MainWindow w;
  ASSERT_TRUE(w.openFile(path));
  EXPECT_FALSE(w.irTextView()->hasText());
  EXPECT_TRUE(w.irTextView()->emptyState()->message().contains("ONNX"));
}

TEST_F(MainWindowTest, OpeningAMissingFileFailsAndKeepsTheCurrentOne) {
  QTemporaryDir dir;
  const QString good = writeFile(dir, "a.uir", "x\n");
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
