#pragma once
// The Tuning panel: the live view of one tuning run and the history of the
// database's runs.
//
// Top: the run's state, a progress bar with the elapsed time and an ETA, and
// Pause / Continue / Cancel / Resume. Middle: the per-task table
// (TuningTaskModel) beside two best-so-far charts (Qt Charts): per task,
// best GFLOP/s, and for the whole model, the sum of weight x best latency;
// both against trials or against time (a switch). Bottom: the history
// (TuningRunsModel); a double-click shows that run.
//
// Everything shown comes from the database through a TuningWatcher (reads
// off the UI thread), so the view shows any run of the file, whoever
// started it, and can be closed and opened again without touching the run.
// The buttons act through a TuningController for the runs it started; a
// run started elsewhere (before the window was restarted, or from a shell)
// is steered through the process it recorded in the database
// (TuningController::signalRun), when that process still runs on this
// machine. A running run whose process is gone shows as interrupted, with
// Resume offered.
#include <QWidget>

#include "views/tuning_watcher.h"

class QAbstractButton;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTimer;
class QValueAxis;

namespace lowerscope {

class EmptyStateWidget;
class TuningController;
class TuningRunsModel;
class TuningTaskModel;

class TuningRunView : public QWidget {
  Q_OBJECT
public:
  enum class XAxis { Trials, Time };

  explicit TuningRunView(QWidget* parent = nullptr);
  ~TuningRunView() override;

  /// The controller whose runs the buttons steer (not owned; may be null).
  void setController(TuningController* controller);
  /// Shows `database`, following run `runId` (0: the newest run).
  void showDatabase(const QString& database, int64_t runId = 0);
  /// Follows another run of the database shown.
  void showRun(int64_t runId);
  QString database() const;
  /// The run shown (from the latest snapshot; 0 when none).
  int64_t shownRun() const;

  void setXAxis(XAxis axis);
  XAxis xAxis() const { return xAxis_; }

  TuningWatcher* watcher() const { return watcher_; }
  TuningTaskModel* taskModel() const { return tasks_; }
  TuningRunsModel* runsModel() const { return runs_; }
  EmptyStateWidget* emptyState() const { return empty_; }
  QChart* taskChart() const { return taskChart_; }
  QChart* modelChart() const { return modelChart_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* stateLabel() const { return state_; }
  QPushButton* pauseButton() const { return pause_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* resumeButton() const { return resume_; }
  QTableView* historyView() const { return history_; }
  /// True once a database is shown (the empty state is gone).
  bool isShowingDatabase() const;

Q_SIGNALS:
  /// Each snapshot applied to the widgets (after they changed).
  void updated();

protected:
  void showEvent(QShowEvent* event) override;

private:
  void apply(const TuningSnapshotPtr& snapshot);
  void updateCharts();
  void updateControls();
  void updateStateLine();
  void onPauseClicked();
  void onCancelClicked();
  void onResumeClicked();
  /// The run shown is the active run of controller_.
  bool ownRun() const;
  /// The run shown runs in a process that this window did not start and
  /// that signalRun can reach.
  bool attachedRun() const;

  TuningWatcher* watcher_ = nullptr;
  TuningController* controller_ = nullptr;
  TuningTaskModel* tasks_ = nullptr;
  TuningRunsModel* runs_ = nullptr;
  QSortFilterProxyModel* sortedTasks_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  EmptyStateWidget* empty_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* state_ = nullptr;
  QLabel* config_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* pause_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* resume_ = nullptr;
  QComboBox* axisChoice_ = nullptr;
  QTableView* table_ = nullptr;
  QTableView* history_ = nullptr;
  QChart* taskChart_ = nullptr;
  QChart* modelChart_ = nullptr;
  QChartView* taskChartView_ = nullptr;
  QChartView* modelChartView_ = nullptr;
  QTimer* clock_ = nullptr;
  TuningSnapshotPtr snapshot_;
  qint64 snapshotAtMs_ = 0; // when the snapshot arrived (the live elapsed time)
  XAxis xAxis_ = XAxis::Trials;
  bool chartsStale_ = false; // a snapshot arrived while hidden
  int64_t cancelAsked_ = 0;  // an attached run asked to cancel (until it says so)
};

} // namespace lowerscope
