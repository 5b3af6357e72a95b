#pragma once
// The workbench window: the graph in the centre, docks around it (IR text,
// pass timeline, target palette, tuning, log), all over one Session (the
// document). Each panel starts with an empty state that says what will appear
// there; the first model opened swaps in the real views (GraphView,
// IrDiffView, PassTimelineView), which from then on follow the session's
// current step and function. Builds run off the UI thread through the
// session; the status bar shows their progress and a Cancel button, and
// located errors go to the log as file:line:col.
#include <QMainWindow>
#include <QSize>

#include "views/theme.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QUndoStack;
class QPushButton;

namespace lowerscope {

class CodeView;
class EmptyStateWidget;
class GraphView;
class IrDiffView;
class IrTextView;
class LogView;
class PassTimelineView;
class Session;
class TargetPalette;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  static constexpr QSize kDefaultSize{1400, 900};

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens `path` (.uir or .onnx) as the session's model. On failure logs the
  /// reason (with its location), leaves the current model as it was, returns
  /// false and sets `error` if given.
  bool openFile(const QString& path, QString* error = nullptr);
  /// True once a model is open: the real views replace the empty states.
  bool hasModel() const;
  QString currentFile() const { return currentFile_; }

  /// Restores geometry, dock layout and state saved by a previous session
  /// and makes closing the window save them again. Not called for
  /// screenshots, which must not depend on (or change) the user's settings.
  void restoreSettings();
  void saveSettings() const;
  /// Puts every dock back where a fresh install has it, and shows it.
  void resetLayout();

  QList<QDockWidget*> docks() const;
  Session* session() const { return session_; }
  /// The centre before a model is open.
  EmptyStateWidget* emptyGraph() const { return emptyGraph_; }
  /// The IR text placeholder before a model is open (says what a file is).
  IrTextView* irTextView() const { return irText_; }
  GraphView* graphView() const { return graphView_; }
  IrDiffView* irDiffView() const { return irDiff_; }
  PassTimelineView* timelineView() const { return timeline_; }
  LogView* logView() const { return log_; }
  QAction* buildAction() const { return buildAction_; }
  /// View ▸ Theme ▸ Light / Dark / System.
  QAction* themeAction(ThemeChoice choice) const;
  QAction* exportAction() const { return exportAction_; }
  /// View > Weights as Nodes (persisted; off by default).
  QAction* weightsAsNodesAction() const { return weightsAsNodesAction_; }

  /// Applies a palette to the whole application; `persist` also saves it
  /// in the settings (the menu does; --theme for screenshots does not).
  void setTheme(ThemeChoice choice, bool persist);
  /// Writes the graph shown (the after side) as SVG, PNG or DOT, chosen by
  /// the file's suffix, laid out by Graphviz like `lowerscope-cli render`.
  /// False (and `error`) when there is no graph or the file cannot be written.
  bool exportGraph(const QString& path, QString* error = nullptr);

  // ---- targets (main_window_targets.cpp)
  TargetPalette* targetPalette() const { return palette_; }
  CodeView* codeView() const { return codeView_; }
  QDockWidget* codeDock() const { return codeDock_; }
  QAction* undoAction() const { return undoAction_; }
  QAction* redoAction() const { return redoAction_; }
  /// Opens a .lsession file (model, composite target, assignments); on
  /// failure logs and returns false with `error`.
  bool openSessionFile(const QString& path, QString* error = nullptr);
  bool saveSessionFile(const QString& path, QString* error = nullptr);
  /// Shows the Code dock with sub-target `part`; false when the build has none.
  bool showCodePart(const QString& part);

  /// Shows the step `spec` names ("7", "FuseOps") with before/after views;
  /// false (and `error`) when the history has no such step.
  bool selectStep(const QString& spec, QString* error = nullptr);
  /// Shows function `name`: a graph-level function in the graph view, a
  /// PrimFunc as its loop nest in the IR view. False (and `error`) when the
  /// current module has no function of that name.
  bool selectFunction(const QString& name, QString* error = nullptr);

public Q_SLOTS:
  void showOpenDialog();
  void showExportDialog();
  void showAbout();
  void showSaveSessionDialog();
  /// Starts a build of the open model off the UI thread; false when there is
  /// no model or a build runs already.
  bool startBuild();

protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  QDockWidget* addPanel(const QString& title, const QString& objectName, QWidget* content);
  void createPanels();
  void createMenus();
  void rebuildRecentMenu();
  void createStatusWidgets();
  void connectSession();
  void showModelViews();
  void onBuildFinished(bool ok, const QString& summary);
  void onGraphNodeDoubleClicked(int node);
  /// Opens the source window at a located log entry.
  void showSourceLocation(const QString& file, int line, int column);
  void onBindingSelected(const QString& function, const QString& name, bool beforeSide);
  void widenTextForLoopNest();
  void updateActions();
  void updateTitle();
  // targets (main_window_targets.cpp)
  void createTargetPanels();
  void createSessionActions(QMenu* file);
  void createEditMenu();
  void connectTargets();

  Session* session_ = nullptr;
  EmptyStateWidget* emptyGraph_ = nullptr;
  IrTextView* irText_ = nullptr;
  QWidget* emptyTimeline_ = nullptr;
  GraphView* graphView_ = nullptr;
  IrDiffView* irDiff_ = nullptr;
  PassTimelineView* timeline_ = nullptr;
  LogView* log_ = nullptr;
  QAction* buildAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* weightsAsNodesAction_ = nullptr;
  QActionGroup* themeGroup_ = nullptr;
  QLabel* buildLabel_ = nullptr;
  QProgressBar* buildProgress_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QDockWidget* irTextDock_ = nullptr;
  QDockWidget* timelineDock_ = nullptr;
  QDockWidget* paletteDock_ = nullptr;
  QDockWidget* tuningDock_ = nullptr;
  QDockWidget* logDock_ = nullptr;
  QDockWidget* codeDock_ = nullptr;
  TargetPalette* palette_ = nullptr;
  CodeView* codeView_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QString currentFile_;
  bool persistSettings_ = false;
  bool linkingFromText_ = false; // a text click selects a node: do not scroll the text back
};

} // namespace lowerscope
