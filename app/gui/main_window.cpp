#include "app/gui/main_window.h"

#include "app/gui/about.h"
#include "app/gui/application.h"
#include "app/gui/recent_files.h"
#include "lowerscope/version.h"
#include "views/empty_state_widget.h"
#include "views/ir_text_view.h"
#include "views/log_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace lowerscope {

namespace {

// Bump when the dock set changes, so an old saved layout is ignored instead of
// hiding a new dock.
constexpr int kLayoutVersion = 1;
// Text files beyond this are not loaded into the text view.
constexpr qint64 kMaxTextBytes = 32 * 1024 * 1024;

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kLastDirKey = QStringLiteral("mainWindow/lastOpenDir");

bool looksBinary(const QByteArray& bytes) { return bytes.contains('\0'); }

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowIcon(applicationIcon());
  setDockNestingEnabled(true);
  createPanels();
  createMenus();
  resetLayout();
  resize(kDefaultSize);
  updateTitle();
  statusBar()->showMessage(tr("Open a model with File \u25b8 Open\u2026 (%1)")
                               .arg(QKeySequence(QKeySequence::Open).toString()));

  QStringList versions;
  for (const ComponentVersion& c : componentVersions())
    versions << c.name + QLatin1Char(' ') + c.version;
  log_->info(tr("Lowerscope %1 (%2)")
                 .arg(QStringLiteral(LOWERSCOPE_VERSION), versions.join(QStringLiteral(", "))));
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addPanel(const QString& title, const QString& objectName,
                                  QWidget* content) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  dock->setWidget(content);
  return dock;
}

void MainWindow::createPanels() {
  graph_ = new EmptyStateWidget(
      tr("Graph"), tr("Open a model (File \u25b8 Open\u2026) to see its dataflow graph. Fused "
                      "groups and target assignments will show as coloured clusters."));
  graph_->setObjectName("graphView");
  // The canvas colour, so the centre reads as the drawing area.
  graph_->setBackgroundRole(QPalette::Base);
  graph_->setAutoFillBackground(true);
  setCentralWidget(graph_);

  irText_ = new IrTextView;
  irTextDock_ = addPanel(tr("IR Text"), QStringLiteral("irTextDock"), irText_);

  timelineDock_ =
      addPanel(tr("Pass Timeline"), QStringLiteral("passTimelineDock"),
               new EmptyStateWidget(tr("Pass Timeline"),
                                    tr("Open a model and press Build to see the pass timeline: one "
                                       "row per pass with its time and whether it changed the "
                                       "module, and the module before and after it.")));

  paletteDock_ = addPanel(
      tr("Target Palette"), QStringLiteral("targetPaletteDock"),
      new EmptyStateWidget(tr("Target Palette"),
                           tr("The sub-targets of the composite target will appear here. Drag a "
                              "selected subgraph onto one to assign it to that target.")));

  tuningDock_ = addPanel(
      tr("Tuning"), QStringLiteral("tuningDock"),
      new EmptyStateWidget(tr("Tuning"), tr("Build a model to list its tuning tasks. Tuning "
                                            "runs, their progress and the best schedule of "
                                            "each task will appear here.")));

  log_ = new LogView;
  logDock_ = addPanel(tr("Log"), QStringLiteral("logDock"), log_);
}

void MainWindow::resetLayout() {
  // The palette runs the full height on the left; the bottom panel spans the
  // graph and the IR text.
  setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);

  for (QDockWidget* dock : docks()) {
    dock->setFloating(false);
    dock->show();
  }
  addDockWidget(Qt::LeftDockWidgetArea, paletteDock_);
  addDockWidget(Qt::RightDockWidgetArea, irTextDock_);
  addDockWidget(Qt::BottomDockWidgetArea, timelineDock_);
  addDockWidget(Qt::BottomDockWidgetArea, logDock_, Qt::Horizontal);
  tabifyDockWidget(timelineDock_, tuningDock_);
  timelineDock_->raise();

  resizeDocks({paletteDock_, irTextDock_}, {250, 460}, Qt::Horizontal);
  resizeDocks({timelineDock_}, {260}, Qt::Vertical);
  resizeDocks({timelineDock_, logDock_}, {640, 500}, Qt::Horizontal);
}

QList<QDockWidget*> MainWindow::docks() const {
  return {irTextDock_, timelineDock_, paletteDock_, tuningDock_, logDock_};
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::showOpenDialog);
  open->setShortcut(QKeySequence::Open);
  open->setStatusTip(tr("Open a model: text IR (.uir) or ONNX (.onnx)"));
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName("recentMenu");
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : docks())
    view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);

  QMenu* build = menuBar()->addMenu(tr("&Build"));
  QAction* buildAction = build->addAction(tr("&Build"));
  buildAction->setObjectName("buildAction");
  buildAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  // Builds belong to the window's session (module, target, pass history),
  // which the pass timeline and tuning views share. Until that exists the
  // action stays disabled rather than doing half a build out of sight;
  // `lowerscope-cli build FILE` builds today.
  buildAction->setEnabled(false);
  buildAction->setStatusTip(
      tr("Build the open model (from the window: not wired yet; use lowerscope-cli build FILE)"));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* about = help->addAction(tr("&About Lowerscope"), this, &MainWindow::showAbout);
  about->setMenuRole(QAction::AboutRole);
  QAction* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
  aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (const QString& path : files) {
    QAction* action = recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] {
      QString error;
      if (!openFile(path, &error)) {
        removeRecentFile(path);
        QMessageBox::warning(this, tr("Open Recent"), error);
      }
    });
    action->setStatusTip(path);
  }
  if (!files.isEmpty())
    recentMenu_->addSeparator();
  QAction* clear = recentMenu_->addAction(tr("&Clear List"), this, [] { clearRecentFiles(); });
  clear->setEnabled(!files.isEmpty());
  recentMenu_->setEnabled(!files.isEmpty());
}

bool MainWindow::openFile(const QString& path, QString* error) {
  const QFileInfo info(path);
  auto fail = [&](const QString& reason) {
    const QString message = tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), reason);
    log_->error(message);
    if (error)
      *error = message;
    return false;
  };
  if (!info.exists())
    return fail(tr("no such file"));
  if (info.isDir())
    return fail(tr("it is a directory"));
  QFile file(info.absoluteFilePath());
  if (!file.open(QIODevice::ReadOnly))
    return fail(file.errorString());

  currentFile_ = info.absoluteFilePath();
  const QString name = info.fileName();
  const bool onnx = info.suffix().compare(QStringLiteral("onnx"), Qt::CaseInsensitive) == 0;
  if (onnx) {
    irText_->showEmptyState(
        tr("%1 is an ONNX model: its IR text will appear here once it is imported.").arg(name));
  } else if (info.size() > kMaxTextBytes) {
    irText_->showEmptyState(tr("%1 is too large (%2) to show as text.")
                                .arg(name, QLocale().formattedDataSize(info.size())));
  } else {
    const QByteArray bytes = file.readAll();
    if (looksBinary(bytes))
      irText_->showEmptyState(tr("%1 is a binary file, not text IR.").arg(name));
    else
      irText_->setText(name, QString::fromUtf8(bytes));
  }
  graph_->setMessage(tr("The dataflow graph of %1 will appear here.").arg(name));

  addRecentFile(currentFile_);
  rebuildRecentMenu();
  updateTitle();
  irTextDock_->raise();
  log_->info(
      tr("Opened %1 (%2)")
          .arg(QDir::toNativeSeparators(currentFile_), QLocale().formattedDataSize(info.size())));
  statusBar()->showMessage(tr("Opened %1").arg(name), 5000);
  return true;
}

void MainWindow::showOpenDialog() {
  QSettings settings;
  const QString start = currentFile_.isEmpty() ? settings.value(kLastDirKey).toString()
                                               : QFileInfo(currentFile_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), start,
      tr("Models (*.uir *.onnx);;Text IR (*.uir);;ONNX models (*.onnx);;All files (*)"));
  if (path.isEmpty())
    return;
  settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
  QString error;
  if (!openFile(path, &error))
    QMessageBox::warning(this, tr("Open Model"), error);
}

void MainWindow::showAbout() {
  QMessageBox box(this);
  box.setWindowTitle(tr("About Lowerscope"));
  box.setIconPixmap(applicationIcon().pixmap(96, 96));
  box.setTextFormat(Qt::RichText);
  box.setText(aboutText());
  box.exec();
}

void MainWindow::updateTitle() {
  setWindowTitle(currentFile_.isEmpty()
                     ? tr("Lowerscope")
                     : tr("%1 \u2014 Lowerscope").arg(QFileInfo(currentFile_).fileName()));
}

void MainWindow::restoreSettings() {
  QSettings settings;
  if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
    resize(kDefaultSize);
  restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
  persistSettings_ = true;
}

void MainWindow::saveSettings() const {
  QSettings settings;
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, saveState(kLayoutVersion));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (persistSettings_)
    saveSettings();
  event->accept();
}

} // namespace lowerscope
