#pragma once
// Measuring candidates on a Slurm cluster. SlurmRunner writes a batch into
// the spool directory (a file system the submitting machine and the nodes
// share), submits it as a job array with sbatch, and while the array runs
// reads the result files and hands each result to the caller the moment it
// is there -- so the tuning run's single database writer commits it at once.
//
//   SPOOL/run-RUN/batch-XXXXXX/task-K.json     the candidates of array task K
//   SPOOL/run-RUN/batch-XXXXXX/result-K.jsonl  one line per measured candidate
//   SPOOL/run-RUN/batch-XXXXXX/slurm-K.out     the worker's output
//   SPOOL/run-RUN/jobs                         the id of the array in flight
//
// Candidate i of a batch of n goes to array task i % k, k = min(n,
// maxJobs); each task is `lowerscope-cli tune-worker`, which builds the
// workload's reference on its node and measures its candidates one at a
// time (a forked child each, as LocalRunner does) on the cores Slurm gave
// it (--cpus-per-task = the target's thread count; with CR_Core no two
// tasks share a core). A candidate is plain data: the workload's text,
// the target and the trace (MeasureJob's JSON), never a path into the
// submitting process.
//
// Faults. A candidate without a result when its array task has ended --
// the worker died or was cancelled, the task timed out, its node failed --
// is submitted again once (a new array of the missing ones); still missing,
// it is reported as a `run_error` whose kind is "slurm" and whose message
// says what happened to both attempts. The batch always finishes. A
// submission that sbatch refuses (no such partition, bad --time) throws
// unity::Error with sbatch's message.
//
// Resume. While an array is in flight its id is in SPOOL/run-RUN/jobs; a
// later process beginning the same run (beginRun: `tune --resume` after the
// first was killed) cancels that job first, so no orphaned array keeps nodes
// busy. Committed records are the database's business: nothing here needs
// to survive the submitting process.
//
// Polling uses squeue (`-t all`: states of finished array tasks stay known
// for MinJobAge); a job squeue no longer knows has ended, and its tasks'
// final states come from sacct when the cluster keeps accounting. A retry
// may land on any node of the partition (the failed one too, once it is
// back): excluding it could leave a one-node partition nothing to run on.
// An array that stays pending (a partition whose nodes are all down) keeps
// the run waiting; Ctrl-C and `--resume` later, which cancels it.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tuner/measure.h"
#include "tuner/runner.h"

namespace unity::tuner {

struct SlurmStats {
  int submissions = 0;             ///< sbatch calls that were accepted
  int retried = 0;                 ///< candidates submitted a second time
  int failed = 0;                  ///< candidates reported as slurm errors
  std::vector<std::string> jobIds; ///< in submission order
};

class SlurmRunner : public Runner {
public:
  /// Throws unity::Error when options.spool is empty or cannot be created.
  explicit SlurmRunner(RunnerOptions options);
  /// Cancels an array still running (an exception left run()).
  ~SlurmRunner() override;

  std::string name() const override { return "slurm"; }
  bool measuresRemotely() const override { return true; }
  void beginRun(int64_t runId) override;
  /// When *cancel becomes true, the array in flight is cancelled and run()
  /// returns without reporting the candidates that had no result yet.
  void setCancelFlag(const std::atomic<bool>* cancel) override { cancel_ = cancel; }
  /// `ref` is not used: each worker builds its own reference on its node.
  void run(const std::vector<MeasureJob>& jobs, const TaskReference& ref,
           const MeasureSettings& settings,
           const std::function<void(size_t, const MeasureResult&)>& onResult) override;

  const SlurmStats& stats() const { return stats_; }
  /// The job id of the array now running ("" between batches).
  const std::string& activeJob() const { return active_; }

private:
  RunnerOptions opt_;
  std::string runDir_;
  std::string active_;
  const std::atomic<bool>* cancel_ = nullptr;
  SlurmStats stats_;
};

/// The worker (`lowerscope-cli tune-worker --jobs FILE --out FILE`): measures
/// every candidate of a task file SlurmRunner wrote and appends one JSON line
/// per result to `outPath` ({"index": i, "result": MeasureResult}), written
/// and fsync'ed as each finishes. Candidates already in `outPath` are
/// skipped (a requeued task continues). Results carry the node's name
/// (SLURMD_NODENAME, else the host name). Throws unity::Error for an
/// unreadable task file; a candidate's failure is its result.
void runWorker(const std::string& jobsPath, const std::string& outPath);

/// The name records of this node get: SLURMD_NODENAME when Slurm set it,
/// else hostName().
std::string workerNodeName();

} // namespace unity::tuner
