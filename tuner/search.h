#pragma once
// The search: spends a run's trials over the tasks of a model and, within a
// task, over its design space, measuring every chosen candidate and
// committing each result to the database the moment it arrives.
//
// Within a task (MetaSchedule's evolutionary search, reduced): a population
// of points -- mutations of the best measured points and fresh samples --
// is scheduled, scored by the cost model, evolved for a few generations
// (the best-scored are mutated again), and the batch to measure is taken
// from the top of the scores, each slot replaced with probability epsilon by
// a random unmeasured candidate (exploration: a model trained on few
// measurements is often wrong). A schedule already measured -- in this run
// or any earlier one for the same workload and target -- is never measured
// again. The first batch of a task starts with the default schedule, so
// every task's best is at least as good as the untuned build.
//
// Across tasks (Ansor's gradient task scheduler): after one warm-up batch
// each, the next batch goes to the task where the model's total latency
// (sum of weight x best latency) is expected to drop most per trial,
// estimated from the task's recent improvement and an optimistic term
// (best / trials).
//
// Resume: a run stores its configuration; TuningRun on an existing run id
// reloads its records (trials done, measured schedules, the model's
// training data) and continues until trials_planned.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/database.h"
#include "tuner/measure.h"
#include "tuner/task.h"

namespace unity::tuner {

class CostModel;

struct TuneOptions {
  int trials = 200;             ///< candidates measured in the run, over all tasks
  double timeBudgetSeconds = 0; ///< stop after this much wall time (0: no limit)
  int batchSize = 8;            ///< candidates measured per round of one task
  double epsilon = 0.15;        ///< share of a batch picked at random
  int population = 96;          ///< points scheduled and scored per round
  int generations = 2;          ///< rounds of mutating the best-scored points
  uint64_t seed = 1;
  MeasureSettings measure;
  /// Recorded with the run (new or resumed) as the process working on it,
  /// so another program can steer it (`tune` passes thisProcess()).
  std::optional<RunProcess> process;
};

/// What the search knows of one task.
struct TaskState {
  Task task;
  int64_t workloadId = 0, targetId = 0;
  int trials = 0;            ///< measured in this run
  int errors = 0;            ///< of which failed
  double defaultSeconds = 0; ///< the default schedule's latency (0: not measured yet)
  double bestSeconds = 0;    ///< best valid latency, any run (0: none yet)
  int64_t bestRecord = 0;
  bool exhausted = false; ///< no unmeasured candidate could be found
  double gflops() const { return bestSeconds > 0 ? task.flops / bestSeconds * 1e-9 : 0; }
};

struct Progress {
  int64_t runId = 0;
  int trialsDone = 0, trialsPlanned = 0;
  double elapsedSeconds = 0;
  double etaSeconds = 0; ///< estimated seconds left
  const std::vector<TaskState>* tasks = nullptr;
  /// sum over tasks of weight x latency: best so far, and untuned
  double modelSeconds = 0, defaultModelSeconds = 0;
  /// The record just written (0 for a progress report without one).
  int64_t lastRecord = 0;
  /// The last report: the run has ended (finishRun is done); nothing can
  /// pause or cancel it any more.
  bool finished = false;
};

class TuningRun {
public:
  /// A new run over `tasks` (untunable ones are kept for reporting and never
  /// measured). `config` is stored with the run (what --resume needs).
  TuningRun(Database& db, std::vector<Task> tasks, TuneOptions options, Runner& runner,
            nlohmann::json config);
  /// Continues run `runId` of db with the same tasks (re-extracted by the
  /// caller from the run's configuration).
  TuningRun(Database& db, int64_t runId, std::vector<Task> tasks, TuneOptions options,
            Runner& runner);
  ~TuningRun();

  int64_t runId() const;
  const std::vector<TaskState>& tasks() const;

  /// Runs until the trials are done, the time budget is spent, every task is
  /// exhausted or *cancel becomes true; marks the run finished or cancelled.
  /// onProgress is called after every measured candidate.
  void run(const std::function<void(const Progress&)>& onProgress = {},
           const std::atomic<bool>* cancel = nullptr);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace unity::tuner
