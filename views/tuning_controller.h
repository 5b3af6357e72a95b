#pragma once
// Starts, pauses, continues, cancels and resumes tuning runs for the window.
//
// A run is a child `lowerscope-cli tune` process, started detached, its
// output going to a log file that this object follows. Why a process and
// not a thread of the window:
//  - crash isolation: a schedule that miscompiles, a runaway measurement or
//    an out-of-memory kill ends the tuner, never the workbench;
//  - one code path: the GUI and the command line run exactly the same
//    search, write the same database and print the same log;
//  - a run outlives its view and even the window (detached): closing the
//    Tuning panel or the workbench does not stop it, and the run view
//    reattaches through the database (tuning_watcher.h), where a run started
//    from a shell shows up the same way.
// Control goes through signals the CLI handles between two candidates (see
// app/cli/tune_commands.cpp): SIGUSR1 pauses, SIGUSR2 continues, SIGTERM
// finishes the batch being measured and marks the run cancelled; Resume
// starts `tune --resume RUN`. The state the CLI reached is read back from
// its "tune: ..." log lines, so the buttons never claim a state the process
// has not confirmed. A run this object did not start (one started before the
// window was restarted, or from a shell) is steered with the same signals
// through the process the run recorded in the database (signalRun): pid,
// host and a start token, checked just before the signal so that a pid
// reused by another process is never signalled (tuner/run_process.h); its
// state is then what the process recorded in the run's `control` column.
//
// Nothing here blocks: the log and the process are polled by a QTimer
// (reading a few new bytes of a local file), and waitUntilIdle() is for tests.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <cstdint>

#include "tuner/database.h"

namespace lowerscope {

/// Which machine measures the candidates: "local" (this machine, one forked
/// child per candidate) or "slurm" (job arrays on a Slurm cluster, `tune
/// --runner slurm`, tuner/slurm_runner.h; docs/cluster.md).
struct TuningRunnerChoice {
  QString id = QStringLiteral("local");
  /// slurm: partitions, each "P" (every task) or "SUBTARGET=P" (the tasks
  /// of one sub-target of a composite target); empty: the cluster's default.
  QStringList partitions;
  int maxJobs = 0;            ///< slurm: array tasks at once; 0: tune's default
  QString jobTime;            ///< slurm: time limit per array task ("10:00"); empty: default
  QString spool;              ///< slurm: shared folder for jobs and results; empty: next to the db
  QStringList extraArguments; ///< further `tune` options, appended as they are
};

/// Everything `lowerscope-cli tune` needs for a new run.
struct TuningLaunch {
  QString model;         ///< model file (.uir or .onnx)
  QString target;        ///< target string ("llvm", composite "a: llvm; b: c")
  QString database;      ///< tuning database file (created when absent)
  QStringList functions; ///< tensor functions to tune; empty: all
  int trials = 64;
  double timeBudgetSeconds = 0; ///< 0: no limit
  int threads = 0;              ///< kernel threads (sets -num-cores); 0: the target's
  double timeoutSeconds = 10;
  int batch = 0; ///< candidates per round; 0: tune's default
  /// Size of every free shape variable when a symbolic task is measured
  /// (`--symbolic-size`); 0: tune's default (128).
  qint64 symbolicSize = 0;
  TuningRunnerChoice runner;

  /// The `tune` arguments (after the program name); empty with `error` set
  /// when the launch is not valid (no model, no database, unknown runner).
  QStringList arguments(QString* error = nullptr) const;
};

class TuningController : public QObject {
  Q_OBJECT
public:
  enum class State { Idle, Starting, Running, Paused, Cancelling };
  Q_ENUM(State)

  explicit TuningController(QObject* parent = nullptr);
  ~TuningController() override;

  /// The lowerscope-cli executable: $LOWERSCOPE_CLI, else next to this
  /// program, else on PATH; empty when none is found.
  static QString findCli();
  void setCliPath(const QString& path) { cli_ = path; }
  QString cliPath() const { return cli_; }
  /// Where run logs go (default: the data folder's tuning-logs).
  void setLogDirectory(const QString& dir) { logDir_ = dir; }
  QString logDirectory() const;

  /// Starts a new run; false (and `error`) when one of ours is still active,
  /// the launch is invalid or the process cannot be started.
  bool start(const TuningLaunch& launch, QString* error = nullptr);
  /// Continues run `runId` of `database` (`tune --resume`).
  bool resume(const QString& database, int64_t runId, QString* error = nullptr);
  /// Pause / continue / cancel the active run; false when there is none (or
  /// it is not in a state where that applies).
  bool pause();
  bool unpause();
  bool cancel();

  enum class Signal { Pause, Continue, Cancel };
  /// Sends `signal` to the process recorded with `run` in its database,
  /// whoever started it: only when the run is running and that very process
  /// still runs on this machine (liveness checked now). False, with `error`
  /// saying why, otherwise.
  static bool signalRun(const unity::tuner::Run& run, Signal signal, QString* error = nullptr);

  State state() const { return state_; }
  bool isActive() const { return state_ != State::Idle; }
  /// The run the active (or last) process works on; 0 until its first line.
  int64_t runId() const { return runId_; }
  QString database() const { return database_; }
  QString logPath() const { return logPath_; }
  qint64 pid() const { return pid_; }
  /// The log of the active (or last) process so far.
  QString output() const { return output_; }

  /// Processes events until no run of ours is active; false on timeout.
  bool waitUntilIdle(int timeoutMs);
  /// Processes events until the active process has said its run id.
  bool waitForRunId(int timeoutMs);

Q_SIGNALS:
  void stateChanged(lowerscope::TuningController::State state);
  /// The process said which run it works on (new or resumed).
  void runStarted(qint64 runId, const QString& database);
  void outputLine(const QString& line);
  /// The process ended; `message` is its last lines when it failed to run.
  void finished(bool ok, const QString& message);

private:
  bool launch(const QStringList& args, const QString& database, QString* error);
  void poll();
  void readLog();
  void setState(State s);

  QString cli_;
  QString logDir_;
  QString database_;
  QString logPath_;
  qint64 logOffset_ = 0;
  QString partialLine_;
  QString output_;
  qint64 pid_ = 0;
  int64_t runId_ = 0;
  State state_ = State::Idle;
  QTimer timer_;
};

} // namespace lowerscope
