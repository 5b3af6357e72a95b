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

#include <cstdint>

#include <memory>

#include "views/model_latency.h"
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

class BackgroundJob;
class CodeView;
class HeatLegend;
struct ModelHeat;
class TuningRecordsView;
class EmptyStateWidget;
class GraphView;
class IrDiffView;
class IrTextView;
class LogView;
class PassTimelineView;
class Session;
class TargetPalette;
class TuningController;
class TuningLaunchDialog;
class TuningRunView;
struct TuningLaunch;

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

  // ---- tuning records, heat overlay, Apply best (main_window_records.cpp)
  TuningRecordsView* recordsView() const { return recordsView_; }
  QDockWidget* recordsDock() const { return recordsDock_; }
  /// Opens a tuning database in the records browser (read off the UI thread;
  /// a bad file shows its error there and in the log). Also the database of
  /// the heat overlay and of Apply best.
  void openTuningDatabase(const QString& path);
  QString tuningDatabase() const;
  /// The heat overlay on the graph (needs a model and a tuning database).
  void setHeatOverlay(bool on);
  bool heatOverlay() const;
  QAction* heatAction() const { return heatAction_; }
  QAction* applyBestAction() const { return applyBestAction_; }
  /// Rebuilds the model with the open tuning database's best schedules and
  /// times it before and after (the records browser shows the figures).
  /// False when there is no model or no readable database.
  bool applyBest();
  /// The last before/after timing (empty before an Apply best ends).
  const LatencyComparison& lastLatency() const { return latency_; }
  /// The kernels' tuned costs behind the overlay (null before computed).
  std::shared_ptr<const ModelHeat> modelHeat() const { return heat_; }
  /// Processes events until the records load, the heat computation and an
  /// Apply best (builds and timing) are done; false on timeout.
  bool waitForTuning(int timeoutMs);
  /// Shows and raises the Tuning Records dock; `large`: gives it most of
  /// the window's height (screenshots of the browser).
  void showRecordsBrowser(bool large);
  /// One line on the tuning state for --screenshot's report ("" when no
  /// database is open).
  QString describeTuning() const;

  /// Shows the step `spec` names ("7", "FuseOps") with before/after views;
  /// false (and `error`) when the history has no such step.
  bool selectStep(const QString& spec, QString* error = nullptr);
  /// Shows function `name`: a graph-level function in the graph view, a
  /// PrimFunc as its loop nest in the IR view. False (and `error`) when the
  /// current module has no function of that name.
  bool selectFunction(const QString& name, QString* error = nullptr);

  // ---- tuning (main_window_tuning.cpp)
  TuningRunView* tuningView() const { return tuningView_; }
  TuningController* tuningController() const { return tuningController_; }
  QDockWidget* tuningDock() const { return tuningDock_; }
  QAction* tuneAction() const { return tuneAction_; }
  /// Shows the Tuning panel on `database`, following run `runId` (0: the
  /// newest run). The file must exist.
  bool showTuningDatabase(const QString& database, int64_t runId = 0, QString* error = nullptr);
  /// Opens the Tune... dialog (non-modal) for the open model; its tasks are
  /// read off the UI thread. Null without a model.
  TuningLaunchDialog* showTuneDialog();
  /// Starts a tuning run and shows it; false (logged, and `error`) when it
  /// cannot start.
  bool startTuning(const TuningLaunch& launch, QString* error = nullptr);
  /// The model file `lowerscope-cli tune` reads for this session: the file
  /// opened when it is the session's input as is, else the input with its
  /// target assignments written as text IR in the data folder. Empty (and
  /// `error`) when it cannot be written.
  QString tuningModelFile(QString* error = nullptr);
  /// For --screenshot with --tuning-db: waits until the run view shows the
  /// database, and returns what it shows in one line.
  bool waitForTuningView(int timeoutMs, QString* error = nullptr);
  QString describeTuningView() const;

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
  // tuning (main_window_tuning.cpp)
  QWidget* createTuningPanel();
  void createTuningActions(QMenu* build);
  void showOpenTuningDatabaseDialog();
  // tuning records (main_window_records.cpp)
  void createRecordsPanel();
  void createRecordsActions();
  void connectRecords();
  void refreshHeat();
  void runPendingHeat();
  void onBuildFinishedForTuning(bool ok);

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
  TuningRunView* tuningView_ = nullptr;
  TuningController* tuningController_ = nullptr;
  QAction* tuneAction_ = nullptr;
  QString lastTuningDatabase_;
  // tuning records (main_window_records.cpp)
  TuningRecordsView* recordsView_ = nullptr;
  QDockWidget* recordsDock_ = nullptr;
  HeatLegend* heatLegend_ = nullptr;
  QAction* heatAction_ = nullptr;
  QAction* applyBestAction_ = nullptr;
  QAction* noTuningAction_ = nullptr;
  BackgroundJob* heatJob_ = nullptr;
  BackgroundJob* latencyJob_ = nullptr;
  std::shared_ptr<const ModelHeat> heat_;
  bool heatPending_ = false;
  bool applyRequested_ = false; // Apply best waits for the heat job's build
  /// Apply best: 0 idle, 1 building without the database first, 2 building
  /// with it, then the timing job.
  int applyStage_ = 0;
  std::shared_ptr<const unity::BuildResult> plainBuild_; // last build without a database
  LatencyComparison latency_;
  QString currentFile_;
  bool persistSettings_ = false;
  bool linkingFromText_ = false; // a text click selects a node: do not scroll the text back
};

} // namespace lowerscope
