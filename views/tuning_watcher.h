#pragma once
// Follows a tuning database from a worker thread and hands the window
// read-only snapshots of it: the runs (history) and, for one run, per-task
// figures and best-so-far curves.
//
// Why watch the file rather than the tuning code: the workbench runs a tuning
// session as a child `lowerscope-cli tune` process (tuning_controller.h), and
// the database is where every measurement lands the moment it is made (one
// committed INSERT per candidate, WAL mode). Reading that file is the one
// way to see a run that gives the same picture whoever started it (this
// window, an earlier window, a shell), survives closing the view, and never
// shares memory with a process that may crash mid-measurement.
//
// Threading: TuningWatcher lives on the UI thread; it owns a QThread in which
// a poller opens its own read connection (a SQLite connection must stay on
// one thread) and, every pollIntervalMs, compares the size and modification
// time of the file and its -wal. Only when they changed (or a refresh was
// asked for) does it read the runs and the followed run's records (after a
// slow read it rests four times as long, so a huge run costs the measuring
// machine at most a fifth of a core), build a
// TuningSnapshot and send it to the UI thread, where snapshotReady() is
// emitted. The UI thread never touches SQLite, so a large database or a
// writer holding the lock cannot block the window. A snapshot is immutable
// and shared (std::shared_ptr<const TuningSnapshot>).
#include <QObject>
#include <QString>
#include <QThread>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tuner/database.h"
#include "tuner/run_process.h"

namespace lowerscope {

/// One task of a run as the database shows it.
struct TuningTaskRow {
  QString name;      ///< the task's first tensor function ("workload N" without task_info)
  QString target;    ///< canonical target string
  QString subTarget; ///< sub-target name of a composite build ("" otherwise)
  double flops = 0;
  int weight = -1; ///< calls per model run; -1: unknown (run without task_info)
  bool tunable = true;
  QString whyNotTunable;
  int trials = 0;         ///< records of this run
  int errors = 0;         ///< of which failed
  double bestSeconds = 0; ///< best ok latency of this run (0: none yet)
  /// The first valid latency of this run: the default schedule when the
  /// run measured it first (the search starts every task with it).
  double firstSeconds = 0;
  int64_t workloadId = 0, targetId = 0;
  double gflops() const { return bestSeconds > 0 ? flops / bestSeconds * 1e-9 : 0; }
};

/// A point of a best-so-far curve: after `trial` records of the run (1-based)
/// and `seconds` since the run started, the best value was `value`.
struct TuningCurvePoint {
  int trial = 0;
  double seconds = 0;
  double value = 0;
};

struct TuningSnapshot {
  QString databasePath;
  QString error;                       ///< why the file could not be read ("" when fine)
  std::vector<unity::tuner::Run> runs; ///< every run, oldest first
  int64_t runId = 0;                   ///< the run shown (0: none)
  std::optional<unity::tuner::Run> run;
  std::vector<TuningTaskRow> tasks;
  /// Per task (same order as tasks): best GFLOP/s so far.
  std::vector<std::vector<TuningCurvePoint>> taskCurves;
  /// The whole model: sum of weight x best latency (seconds), from the first
  /// record after which every tunable task had a valid measurement.
  std::vector<TuningCurvePoint> modelCurve;
  int records = 0, okRecords = 0;
  double elapsedSeconds = 0; ///< started_at to the last record (or ended_at)
  double etaSeconds = -1;    ///< estimated seconds left; -1: unknown
  double secondsPerTrial = 0;
  /// The run's configuration as a short "key: value" text for people.
  QString configSummary;
  /// Per run (same order as runs): where the process recorded with a
  /// running run stands, checked when the snapshot was read (Unknown for a
  /// run that is not running or recorded no process).
  std::vector<unity::tuner::ProcessLiveness> runLiveness;
  /// The shown run's entry of runLiveness.
  unity::tuner::ProcessLiveness liveness = unity::tuner::ProcessLiveness::Unknown;
  /// The shown run is marked running but its process ended without
  /// finishing it (killed, crashed, the machine restarted): `tune --resume`
  /// continues it.
  bool interrupted() const {
    return run && run->status == unity::tuner::RunStatus::Running &&
           liveness == unity::tuner::ProcessLiveness::Gone;
  }
};
using TuningSnapshotPtr = std::shared_ptr<const TuningSnapshot>;

/// Points per curve a snapshot keeps at most (see decimate in the .cpp):
/// about one per 2-4 pixels of a chart in the panel.
inline constexpr size_t kMaxCurvePoints = 160;

/// Where the process of `run` stands now: Unknown unless the run is running
/// and recorded a process.
unity::tuner::ProcessLiveness runLiveness(const unity::tuner::Run& run);
/// A run's state as a person reads it: its status, or for a running run
/// "paused" / "cancelling" (what its process confirmed) or "interrupted"
/// (its process is gone).
QString runStateText(const unity::tuner::Run& run, unity::tuner::ProcessLiveness liveness);

/// Reads a snapshot synchronously (the poller's work; also for tests).
/// runId 0 follows the newest run. Never throws: errors go to `error`.
TuningSnapshotPtr readTuningSnapshot(unity::tuner::Database& db, int64_t runId);

class TuningPoller;

class TuningWatcher : public QObject {
  Q_OBJECT
public:
  explicit TuningWatcher(QObject* parent = nullptr);
  ~TuningWatcher() override;

  /// Follows `path` (must exist; it is never created here) and run `runId`
  /// (0: always the newest run). An empty path stops watching.
  void watch(const QString& path, int64_t runId = 0);
  QString path() const { return path_; }
  int64_t runId() const { return runId_; }
  /// Reads again at the next poll even if the file did not change.
  void refresh();
  void setPollInterval(int ms);
  TuningSnapshotPtr latest() const { return latest_; }
  /// Processes events until a snapshot newer than the call arrives; false on
  /// timeout. For tests and --screenshot.
  bool waitForSnapshot(int timeoutMs);

Q_SIGNALS:
  void snapshotReady(lowerscope::TuningSnapshotPtr snapshot);
  // to the poller (queued into the worker thread)
  void watchRequested(const QString& path, qint64 runId, unsigned generation);
  void refreshRequested();
  void intervalRequested(int ms);

private:
  friend class TuningPoller;
  void onSnapshot(lowerscope::TuningSnapshotPtr snapshot, unsigned generation);

  QThread thread_;
  TuningPoller* poller_ = nullptr;
  QString path_;
  int64_t runId_ = 0;
  unsigned generation_ = 0;
  unsigned received_ = 0; // snapshots received (waitForSnapshot)
  TuningSnapshotPtr latest_;
};

} // namespace lowerscope

Q_DECLARE_METATYPE(lowerscope::TuningSnapshotPtr)
