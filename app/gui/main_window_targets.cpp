// MainWindow, the target part: the target palette and code docks, Edit ▸
// Undo/Redo over the session's assignment stack, File ▸ Save/Open Session,
// and the wiring between graph selection, palette and code view. Kept apart
// from main_window.cpp so the window's other panels evolve independently.
#include "app/gui/main_window.h"

#include "app/gui/recent_files.h"
#include "views/code_view.h"
#include "views/graph_view.h"
#include "views/log_view.h"
#include "views/session.h"
#include "views/target_palette.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>

namespace lowerscope {

void MainWindow::createTargetPanels() {
  palette_ = new TargetPalette(session_);
  paletteDock_ = addPanel(tr("Target Palette"), QStringLiteral("targetPaletteDock"), palette_);
  codeView_ = new CodeView(session_);
  codeDock_ = addPanel(tr("Code"), QStringLiteral("codeDock"), codeView_);
}

void MainWindow::createSessionActions(QMenu* file) {
  file->addSeparator();
  QAction* open = file->addAction(tr("Open &Session\u2026"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Session"), QFileInfo(currentFile_).absolutePath(),
        tr("Lowerscope sessions (*.lsession);;All files (*)"));
    if (path.isEmpty())
      return;
    QString error;
    if (!openSessionFile(path, &error))
      QMessageBox::warning(this, tr("Open Session"), error);
  });
  open->setObjectName("openSessionAction");
  QAction* save =
      file->addAction(tr("Save &Session\u2026"), this, &MainWindow::showSaveSessionDialog);
  save->setObjectName("saveSessionAction");
  save->setShortcut(QKeySequence::Save);
  save->setStatusTip(tr("Save the model path, composite target and target assignments"));
}

void MainWindow::createEditMenu() {
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QUndoStack* stack = session_->undoStack();
  undoAction_ = stack->createUndoAction(this, tr("&Undo"));
  undoAction_->setObjectName("undoAction");
  undoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redoAction_ = stack->createRedoAction(this, tr("&Redo"));
  redoAction_->setObjectName("redoAction");
  redoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  edit->addAction(undoAction_);
  edit->addAction(redoAction_);
}

void MainWindow::connectTargets() {
  // Build ▸ Run and Compare: the last build against all-llvm (issue #7's check).
  for (QAction* a : menuBar()->actions()) {
    if (!a->menu() || a->text().remove('&') != tr("Build"))
      continue;
    a->menu()->addSeparator();
    QAction* run = a->menu()->addAction(tr("&Run and Compare with llvm"), this, [this] {
      if (session_->compareWithLlvm())
        statusBar()->showMessage(tr("Running\u2026"), 3000);
    });
    run->setObjectName("runCompareAction");
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    run->setStatusTip(tr("Run the last build and an all-llvm build of the same model on the same "
                         "inputs and log the largest output difference"));
  }
  connect(session_, &Session::comparisonFinished, this,
          [this](bool, double, const QString& report) {
            statusBar()->showMessage(report, 10000);
            logDock_->raise();
          });
  connect(graphView_, &GraphView::kernelSelected, codeView_,
          [this](const QString& callee) { codeView_->showKernel(callee); });
  connect(graphView_, &GraphView::dragRefused, this, [this](const QString& reason) {
    log_->warning(tr("Cannot drag the selection: %1").arg(reason));
  });
}

bool MainWindow::openSessionFile(const QString& path, QString* error) {
  QString reason;
  if (!session_->openSession(path, &reason)) {
    logDock_->raise();
    if (error)
      *error = reason;
    return false;
  }
  currentFile_ = session_->path();
  showModelViews();
  addRecentFile(QFileInfo(path).absoluteFilePath());
  updateTitle();
  updateActions();
  statusBar()->showMessage(tr("Opened session %1").arg(QFileInfo(path).fileName()), 8000);
  return true;
}

bool MainWindow::saveSessionFile(const QString& path, QString* error) {
  QString reason;
  if (!session_->saveSession(path, &reason)) {
    log_->error(reason);
    if (error)
      *error = reason;
    return false;
  }
  log_->info(tr("Saved session %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

void MainWindow::showSaveSessionDialog() {
  if (!hasModel()) {
    statusBar()->showMessage(tr("Open a model first"), 5000);
    return;
  }
  QString start = session_->sessionPath();
  if (start.isEmpty())
    start = QFileInfo(currentFile_).absolutePath() + QLatin1Char('/') +
            QFileInfo(currentFile_).completeBaseName() + QStringLiteral(".lsession");
  QString path = QFileDialog::getSaveFileName(this, tr("Save Session"), start,
                                              tr("Lowerscope sessions (*.lsession)"));
  if (path.isEmpty())
    return;
  if (QFileInfo(path).suffix().isEmpty())
    path += QStringLiteral(".lsession");
  QString error;
  if (!saveSessionFile(path, &error))
    QMessageBox::warning(this, tr("Save Session"), error);
}

bool MainWindow::showCodePart(const QString& part) {
  codeDock_->show();
  codeDock_->raise();
  return codeView_->selectPart(part);
}

} // namespace lowerscope
