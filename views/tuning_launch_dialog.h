#pragma once
// The dialog that starts a tuning run from a built model (Build > Tune...).
//
// It lists the model's tasks (tuner::extractTasks for the chosen target:
// name, FLOPs, weight, the latency the database already holds for it, the
// sub-target) with check boxes, and the run's settings: trial budget, time
// budget, target, database file (default in the XDG data folder, any file
// can be chosen), threads and timeout. The runner box (where candidates are
// measured) is its own group so another runner can be added there without
// touching the rest (tuning_controller.h, TuningRunnerChoice).
//
// The tasks are extracted off the UI thread: the dialog asks for them with
// tasksWanted(target, database) and the owner answers with setTasks() (the
// window runs readTuningTaskChoices in a BackgroundJob); until then the
// table says it is reading them and Start is disabled.
#include <QDialog>

#include <vector>

#include "engine/ir/module.h"
#include "views/tuning_controller.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace lowerscope {

/// One task as the dialog lists it.
struct TuningTaskChoice {
  QString name;
  QStringList functions; ///< what --tasks names
  QString target, subTarget;
  double flops = 0;
  int weight = 0;
  bool tunable = true;
  QString whyNotTunable;
  bool symbolic = false;     ///< symbolic extents: measured at the dialog's size
  double currentSeconds = 0; ///< best ok latency in the database (0: none)
};

/// The tasks of `model` built for `target`, with the best latency each has
/// in `database` (when the file exists). Slow (a build up to the schedule):
/// call it off the UI thread. Throws unity::Error for a bad target or model.
std::vector<TuningTaskChoice> readTuningTaskChoices(const unity::ir::IRModule& model,
                                                    const QString& target, const QString& database);

class TuningLaunchDialog : public QDialog {
  Q_OBJECT
public:
  explicit TuningLaunchDialog(QWidget* parent = nullptr);

  /// The file `tune` will read (shown; not editable here) and the target.
  void setModel(const QString& modelFile, const QString& target);
  void setDatabase(const QString& path);
  QString database() const;
  QString target() const;
  /// The tasks to list (replaces "reading..."); an error text instead when
  /// they could not be read.
  void setTasks(const std::vector<TuningTaskChoice>& tasks);
  void setTasksError(const QString& error);
  /// Checks only the tasks of this sub-target ("" : all).
  void checkSubTarget(const QString& subTarget);
  void setTaskChecked(int row, bool on);
  int taskCount() const;

  void setTrials(int n);
  void setTimeBudget(double seconds);
  void setThreads(int n);
  void setTimeout(double seconds);
  /// The size symbolic extents are measured at (enabled while a listed
  /// task has them).
  void setSymbolicSize(int n);
  /// Picks the runner ("local" or "slurm"; the Slurm one only when this
  /// machine has sbatch) and, for Slurm, its partitions ("P" or "SUB=P",
  /// comma-separated as typed).
  void setRunner(const QString& id, const QString& partitions = {});

  /// What the dialog describes, for TuningController::start.
  TuningLaunch launch() const;
  /// The default database: <XDG data>/tuning/<model stem>.db.
  static QString defaultDatabasePath(const QString& modelFile);

  QTableWidget* taskTable() const { return table_; }

Q_SIGNALS:
  /// The target or the database changed: the owner reads the tasks again.
  void tasksWanted(const QString& target, const QString& database);

private:
  void updateStart();
  void browseDatabase();

  QString model_;
  std::vector<TuningTaskChoice> tasks_;
  QLabel* modelLabel_ = nullptr;
  QLineEdit* target_ = nullptr;
  QComboBox* subTarget_ = nullptr;
  QLineEdit* database_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* tasksNote_ = nullptr;
  QSpinBox* trials_ = nullptr;
  QDoubleSpinBox* budget_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QDoubleSpinBox* timeout_ = nullptr;
  QSpinBox* symbolicSize_ = nullptr;
  QComboBox* runner_ = nullptr;
  QLineEdit* partitions_ = nullptr;
  QSpinBox* maxJobs_ = nullptr;
  QLineEdit* jobTime_ = nullptr;
  QLineEdit* spool_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

} // namespace lowerscope
