#include "app/gui/main_window.h"

#include "app/gui/about.h"
#include "app/gui/application.h"
#include "app/gui/recent_files.h"
#include "engine/ir/tir.h"
#include "engine/viz/graph_layout.h"
#include "lowerscope/version.h"
#include "views/empty_state_widget.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/ir_text_view.h"
#include "views/log_view.h"
#include "views/pass_timeline.h"
#include "views/session.h"
#include "views/source_view.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QUrl>
#include <QVBoxLayout>

namespace lowerscope {

namespace {

// Bump when the dock set changes, so an old saved layout is ignored instead of
// hiding a new dock.
constexpr int kLayoutVersion = 3; // 2: the Code dock, 3: Tuning Records
// Text files beyond this are not loaded into the text view.
constexpr qint64 kMaxTextBytes = 32 * 1024 * 1024;

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kLastDirKey = QStringLiteral("mainWindow/lastOpenDir");
// View > Weights as Nodes (off: constants are properties of their consumers).
const QString kWeightsAsNodesKey = QStringLiteral("graph/weightsAsNodes");

bool looksBinary(const QByteArray& bytes) { return bytes.contains('\0'); }

bool isModelFile(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("uir") || suffix == QLatin1String("onnx") ||
         suffix == QLatin1String("lsession");
}

/// The first local model file among dropped URLs; empty when there is none.
QString droppedModel(const QMimeData* mime) {
  if (!mime || !mime->hasUrls())
    return {};
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile() && isModelFile(url.toLocalFile()))
      return url.toLocalFile();
  return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowIcon(applicationIcon());
  setDockNestingEnabled(true);
  setAcceptDrops(true);
  session_ = new Session(this);
  createPanels();
  createMenus();
  createRecordsActions();
  createStatusWidgets();
  connectSession();
  connectRecords();
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
  emptyGraph_ = new EmptyStateWidget(
      tr("Graph"), tr("Open a model (File \u25b8 Open\u2026) to see its dataflow graph. Fused "
                      "groups and target assignments will show as coloured clusters."));
  emptyGraph_->setObjectName("emptyGraph");
  // The canvas colour, so the centre reads as the drawing area.
  emptyGraph_->setBackgroundRole(QPalette::Base);
  emptyGraph_->setAutoFillBackground(true);
  setCentralWidget(emptyGraph_);

  irText_ = new IrTextView;
  irTextDock_ = addPanel(tr("IR Text"), QStringLiteral("irTextDock"), irText_);

  emptyTimeline_ = new EmptyStateWidget(
      tr("Pass Timeline"), tr("Open a model and press Build to see the pass timeline: one "
                              "row per pass with its time and whether it changed the "
                              "module, and the module before and after it."));
  timelineDock_ = addPanel(tr("Pass Timeline"), QStringLiteral("passTimelineDock"), emptyTimeline_);

  // The real views exist from the start (they observe the empty session) but
  // are shown only once a model is open; see showModelViews().
  graphView_ = new GraphView(session_, this);
  graphView_->setObjectName("graphView");
  graphView_->hide();
  irDiff_ = new IrDiffView(session_, irTextDock_);
  irDiff_->setObjectName("irDiffView");
  irDiff_->hide();
  timeline_ = new PassTimelineView(session_, timelineDock_);
  timeline_->setObjectName("passTimelineView");
  timeline_->hide();

  createTargetPanels(); // the target palette and code docks

  tuningDock_ = addPanel(tr("Tuning"), QStringLiteral("tuningDock"), createTuningPanel());

  createRecordsPanel(); // the tuning records browser

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
  tabifyDockWidget(timelineDock_, recordsDock_);
  tabifyDockWidget(irTextDock_, codeDock_);
  irTextDock_->raise();
  timelineDock_->raise();

  resizeDocks({paletteDock_, irTextDock_}, {190, 500}, Qt::Horizontal);
  resizeDocks({timelineDock_}, {260}, Qt::Vertical);
  resizeDocks({timelineDock_, logDock_}, {640, 500}, Qt::Horizontal);
}

QList<QDockWidget*> MainWindow::docks() const {
  return {irTextDock_, timelineDock_, paletteDock_, tuningDock_, recordsDock_, logDock_, codeDock_};
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
  createSessionActions(file);
  file->addSeparator();
  exportAction_ = file->addAction(tr("&Export Graph\u2026"), this, &MainWindow::showExportDialog);
  exportAction_->setObjectName("exportGraphAction");
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  exportAction_->setStatusTip(tr("Save the graph shown as SVG, PNG or Graphviz DOT"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  createEditMenu();

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : docks())
    view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
  // Weights and constants are drawn inside the node that reads them (as
  // Netron does); this brings them back as nodes of their own.
  weightsAsNodesAction_ = view->addAction(tr("&Weights as Nodes"));
  weightsAsNodesAction_->setObjectName("weightsAsNodes");
  weightsAsNodesAction_->setCheckable(true);
  weightsAsNodesAction_->setToolTip(
      tr("Draw weights and other constants as nodes of their own instead of as properties of "
         "the node that uses them"));
  weightsAsNodesAction_->setChecked(QSettings().value(kWeightsAsNodesKey, false).toBool());
  graphView_->setConstantsAsNodes(weightsAsNodesAction_->isChecked());
  connect(weightsAsNodesAction_, &QAction::toggled, this, [this](bool on) {
    QSettings().setValue(kWeightsAsNodesKey, on);
    graphView_->setConstantsAsNodes(on);
  });
  QMenu* theme = view->addMenu(tr("&Theme"));
  theme->setObjectName("themeMenu");
  themeGroup_ = new QActionGroup(this);
  themeGroup_->setExclusive(true);
  const std::pair<ThemeChoice, QString> themes[] = {{ThemeChoice::Light, tr("&Light")},
                                                    {ThemeChoice::Dark, tr("&Dark")},
                                                    {ThemeChoice::System, tr("&System")}};
  for (const auto& [choice, label] : themes) {
    QAction* a = theme->addAction(label);
    a->setCheckable(true);
    a->setData(themeChoiceName(choice));
    a->setObjectName(QStringLiteral("theme_") + themeChoiceName(choice));
    a->setChecked(choice == Theme::instance()->choice());
    themeGroup_->addAction(a);
    connect(a, &QAction::triggered, this, [this, c = choice] { setTheme(c, true); });
  }

  QMenu* build = menuBar()->addMenu(tr("&Build"));
  buildAction_ = build->addAction(tr("&Build"), this, &MainWindow::startBuild);
  buildAction_->setObjectName("buildAction");
  buildAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  buildAction_->setStatusTip(
      tr("Run the default pipeline on the open model and record every pass"));
  cancelAction_ = build->addAction(tr("&Cancel Build"), session_, &Session::cancelBuild);
  cancelAction_->setObjectName("cancelBuildAction");
  createTuningActions(build);
  updateActions();

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
  auto fail = [&](const QString& reason, bool logIt) {
    const QString message = tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), reason);
    if (logIt)
      log_->error(message);
    if (error)
      *error = message;
    return false;
  };
  if (!info.exists())
    return fail(tr("no such file"), true);
  if (info.isDir())
    return fail(tr("it is a directory"), true);
  QFile file(info.absoluteFilePath());
  if (!file.open(QIODevice::ReadOnly))
    return fail(file.errorString(), true);
  if (!isModelFile(path))
    return fail(tr("not a model file (expected .uir text IR, .onnx or a .lsession)"), true);
  if (info.suffix().compare(QStringLiteral("lsession"), Qt::CaseInsensitive) == 0)
    return openSessionFile(info.absoluteFilePath(), error);

  // The session parses or imports; its errorOccurred already put the located
  // message in the log.
  QString reason;
  if (!session_->open(info.absoluteFilePath(), &reason)) {
    const QString name = info.fileName();
    if (!hasModel()) {
      // Still useful before any model is open: show what the file is.
      if (info.suffix().compare(QStringLiteral("onnx"), Qt::CaseInsensitive) == 0 ||
          info.size() > kMaxTextBytes)
        irText_->showEmptyState(tr("%1 could not be loaded; see the Log.").arg(name));
      else if (const QByteArray bytes = file.readAll(); looksBinary(bytes))
        irText_->showEmptyState(tr("%1 is a binary file, not text IR.").arg(name));
      else
        irText_->setText(name, QString::fromUtf8(bytes));
    }
    logDock_->raise();
    return fail(reason, false);
  }

  currentFile_ = info.absoluteFilePath();
  showModelViews();
  addRecentFile(currentFile_);
  rebuildRecentMenu();
  updateTitle();
  updateActions();
  statusBar()->showMessage(tr("Opened %1 (%2). Press %3 to build.")
                               .arg(info.fileName(), QLocale().formattedDataSize(info.size()),
                                    buildAction_->shortcut().toString(QKeySequence::NativeText)),
                           8000);
  return true;
}

bool MainWindow::hasModel() const { return session_->hasModule(); }

void MainWindow::showModelViews() {
  if (centralWidget() == graphView_)
    return;
  // Keep the empty states (children of the window, hidden) rather than
  // deleting them: tests and a future "close model" can bring them back.
  QWidget* empty = takeCentralWidget();
  empty->setParent(this);
  empty->hide();
  setCentralWidget(graphView_);
  graphView_->show();

  irText_->hide();
  irTextDock_->setWidget(irDiff_);
  irText_->setParent(irTextDock_);
  irDiff_->show();

  emptyTimeline_->hide();
  timelineDock_->setWidget(timeline_);
  emptyTimeline_->setParent(timelineDock_);
  timeline_->show();
}

void MainWindow::createStatusWidgets() {
  buildLabel_ = new QLabel;
  buildProgress_ = new QProgressBar;
  buildProgress_->setObjectName("buildProgress");
  buildProgress_->setRange(0, 0); // the pass count is known only afterwards: busy
  buildProgress_->setMaximumWidth(160);
  buildProgress_->setMaximumHeight(16);
  cancelButton_ = new QPushButton(tr("Cancel"));
  cancelButton_->setObjectName("cancelBuildButton");
  cancelButton_->setToolTip(tr("Stop the build before the next pass"));
  connect(cancelButton_, &QPushButton::clicked, session_, &Session::cancelBuild);
  statusBar()->addPermanentWidget(buildLabel_);
  statusBar()->addPermanentWidget(buildProgress_);
  statusBar()->addPermanentWidget(cancelButton_);
  for (QWidget* w : {static_cast<QWidget*>(buildLabel_), static_cast<QWidget*>(buildProgress_),
                     static_cast<QWidget*>(cancelButton_)})
    w->hide();
}

void MainWindow::connectSession() {
  connect(session_, &Session::info, log_, &LogView::info);
  connect(session_, &Session::errorOccurred, this,
          [this](const QString& message, const QString& file, int line, int column) {
            QString where = QDir::toNativeSeparators(file);
            if (line > 0)
              where += QStringLiteral(":%1:%2").arg(line).arg(column);
            QString text = where.isEmpty() ? message : where + QStringLiteral(": ") + message;
            if (file.isEmpty())
              log_->error(text);
            else
              log_->appendLocated(LogLevel::Error, text, file, line, column);
          });
  connect(log_, &LogView::locationActivated, this, &MainWindow::showSourceLocation);
  connect(session_, &Session::buildStarted, this, [this] {
    buildLabel_->setText(tr("Building\u2026"));
    for (QWidget* w : {static_cast<QWidget*>(buildLabel_), static_cast<QWidget*>(buildProgress_),
                       static_cast<QWidget*>(cancelButton_)})
      w->show();
    updateActions();
  });
  connect(session_, &Session::buildProgress, this, [this](int count, const QString& pass) {
    buildLabel_->setText(tr("Pass %1: %2").arg(count).arg(pass));
  });
  connect(session_, &Session::buildFinished, this, &MainWindow::onBuildFinished);
  // A new model starts without a history: nothing to compare.
  connect(session_, &Session::moduleChanged, this, [this] {
    graphView_->setDiffMode(false);
    irDiff_->setDiffMode(false);
  });
  connect(graphView_->canvas(), &GraphCanvas::nodeDoubleClicked, this,
          &MainWindow::onGraphNodeDoubleClicked);
  // Linked selection: a node chosen in the graph scrolls the text to its
  // binding; a binding line chosen in the text selects its node.
  connect(graphView_, &GraphView::nodeSelected, this, [this](const QString& name, int) {
    if (linkingFromText_)
      return;
    irDiff_->revealName(name, session_->currentFunction(),
                        graphView_->selectedIsBefore() && irDiff_->diffMode());
  });
  connect(irDiff_, &IrDiffView::bindingSelected, this, &MainWindow::onBindingSelected);
  connectTargets();
}

void MainWindow::onBindingSelected(const QString& function, const QString& name, bool beforeSide) {
  const bool before = beforeSide && graphView_->diffMode();
  linkingFromText_ = true;
  // A line of the graph's function is a node; a line inside another
  // function (a fused group, a PrimFunc) selects the node that calls it.
  if (function.isEmpty() || function == session_->currentFunction())
    graphView_->selectByName(name, before);
  else
    graphView_->selectCaller(function, before);
  linkingFromText_ = false;
}

bool MainWindow::startBuild() {
  if (!session_->startBuild()) {
    if (!hasModel())
      statusBar()->showMessage(tr("Open a model first"), 5000);
    return false;
  }
  return true;
}

void MainWindow::onBuildFinished(bool ok, const QString& summary) {
  for (QWidget* w : {static_cast<QWidget*>(buildLabel_), static_cast<QWidget*>(buildProgress_),
                     static_cast<QWidget*>(cancelButton_)})
    w->hide();
  updateActions();
  statusBar()->showMessage(summary, 10000);
  if (!ok) {
    // Failures are already logged with their location; a cancel is not.
    if (session_->builds()->lastCancelled())
      log_->warning(summary);
    logDock_->raise();
    return;
  }
  // A history exists: every pass now has a before and an after to compare.
  graphView_->setDiffMode(true);
  irDiff_->setDiffMode(true);
  timelineDock_->raise();
}

void MainWindow::onGraphNodeDoubleClicked(int node) {
  // A call_tir node's callee is a PrimFunc: show its loop nest. (Fused
  // groups expand in the graph view itself.)
  LaidOutGraphPtr g = graphView_->shown();
  if (!g || node < 0 || node >= static_cast<int>(g->graph.nodes.size()))
    return;
  const std::string& callee = g->graph.nodes[node].callee;
  unity::ir::IRModule m = session_->currentModule();
  if (callee.empty() || !m || !m->contains(callee))
    return;
  if (unity::ir::isa<unity::ir::PrimFunc>(m->lookup(callee))) {
    irDiff_->setFunction(QString::fromStdString(callee));
    irTextDock_->show();
    irTextDock_->raise();
    widenTextForLoopNest();
  }
}

void MainWindow::widenTextForLoopNest() {
  // A loop nest is deep and wide, and two of them sit side by side in
  // before/after mode: give the text most of the width if it has less.
  if (irTextDock_->isFloating() || dockWidgetArea(irTextDock_) == Qt::BottomDockWidgetArea)
    return;
  const int wanted = width() * 11 / 20;
  if (irTextDock_->width() < wanted)
    resizeDocks({irTextDock_}, {wanted}, Qt::Horizontal);
}

bool MainWindow::selectStep(const QString& spec, QString* error) {
  if (!session_->hasHistory()) {
    if (error)
      *error = tr("pass '%1': the model has not been built").arg(spec);
    return false;
  }
  const int step = session_->findStep(spec, error);
  if (step < 0)
    return false;
  session_->setCurrentStep(step);
  return true;
}

bool MainWindow::selectFunction(const QString& name, QString* error) {
  unity::ir::IRModule m = session_->currentModule();
  if (!m || !m->contains(name.toStdString())) {
    if (error)
      *error = tr("function '%1': the module at step %2 (%3) has no function of that name")
                   .arg(name)
                   .arg(session_->currentStep())
                   .arg(session_->stepName(session_->currentStep()));
    return false;
  }
  if (unity::ir::isa<unity::ir::PrimFunc>(m->lookup(name.toStdString()))) {
    irDiff_->setFunction(name);
    irTextDock_->raise();
    widenTextForLoopNest();
  } else {
    session_->setCurrentFunction(name);
  }
  return true;
}

void MainWindow::updateActions() {
  const bool building = session_->isBuilding();
  buildAction_->setEnabled(hasModel() && !building);
  cancelAction_->setEnabled(building);
  if (exportAction_)
    exportAction_->setEnabled(hasModel());
  if (tuneAction_)
    tuneAction_->setEnabled(hasModel());
}

QAction* MainWindow::themeAction(ThemeChoice choice) const {
  for (QAction* a : themeGroup_->actions())
    if (a->data().toString() == themeChoiceName(choice))
      return a;
  return nullptr;
}

void MainWindow::setTheme(ThemeChoice choice, bool persist) {
  Theme::instance()->setChoice(choice);
  if (QAction* a = themeAction(choice))
    a->setChecked(true);
  if (persist)
    Theme::saveChoice(choice);
}

bool MainWindow::exportGraph(const QString& path, QString* error) {
  auto fail = [&](const QString& reason) {
    if (error)
      *error = tr("Cannot export to %1: %2").arg(QDir::toNativeSeparators(path), reason);
    return false;
  };
  const LaidOutGraphPtr g = graphView_->shown();
  if (!g)
    return fail(tr("no graph is shown"));
  if (!g->error.isEmpty())
    return fail(g->error);
  const QString format = QFileInfo(path).suffix().toLower();
  if (format != QLatin1String("svg") && format != QLatin1String("png") &&
      format != QLatin1String("dot"))
    return fail(tr("unknown format '%1' (use .svg, .png or .dot)").arg(format));
  std::string bytes;
  try {
    bytes = unity::viz::renderGraph(g->graph, format.toStdString());
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) || !file.commit())
    return fail(file.errorString());
  log_->info(tr("Exported the graph of %1 to %2")
                 .arg(QString::fromStdString(g->graph.function), QDir::toNativeSeparators(path)));
  return true;
}

void MainWindow::showExportDialog() {
  if (!hasModel())
    return;
  QSettings settings;
  const QString dir = settings.value(kLastDirKey).toString();
  const QString suggested =
      QDir(dir).filePath(QFileInfo(currentFile_).completeBaseName() + QStringLiteral("-") +
                         session_->stepName(session_->currentStep()) + QStringLiteral(".svg"));
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Graph"), suggested,
      tr("SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot)"));
  if (path.isEmpty())
    return;
  QString error;
  if (!exportGraph(path, &error))
    QMessageBox::warning(this, tr("Export Graph"), error);
  else
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 8000);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!droppedModel(event->mimeData()).isEmpty())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = droppedModel(event->mimeData());
  if (path.isEmpty())
    return;
  event->acceptProposedAction();
  QString error;
  if (!openFile(path, &error))
    statusBar()->showMessage(error, 10000);
}

void MainWindow::showSourceLocation(const QString& file, int line, int column) {
  // One source window, reused: the file at the error, its line highlighted.
  auto* window = findChild<QDialog*>(QStringLiteral("sourceWindow"));
  if (!window) {
    window = new QDialog(this);
    window->setObjectName(QStringLiteral("sourceWindow"));
    window->resize(760, 520);
    auto* layout = new QVBoxLayout(window);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new SourceView(window));
  }
  auto* view = window->findChild<SourceView*>();
  view->showLocation(file, line, column);
  window->setWindowTitle(line > 0
                             ? tr("%1 \u2014 line %2").arg(QFileInfo(file).fileName()).arg(line)
                             : QFileInfo(file).fileName());
  window->show();
  window->raise();
}

void MainWindow::showOpenDialog() {
  QSettings settings;
  const QString start = currentFile_.isEmpty() ? settings.value(kLastDirKey).toString()
                                               : QFileInfo(currentFile_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), start,
      tr("Models and sessions (*.uir *.onnx *.lsession);;Text IR (*.uir);;ONNX models (*.onnx);;"
         "Sessions (*.lsession);;All files (*)"));
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
  setTheme(Theme::savedChoice(), false);
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
