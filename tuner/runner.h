#pragma once
// Choosing where candidates are measured: RunnerOptions says which Runner a
// tuning run uses and how it is set up, makeRunner builds it. The command
// line (`tune --runner local|slurm --partition ... --max-jobs ...`) and the
// GUI's launch dialog fill the same struct, and `tune --resume` rebuilds the
// runner from its JSON form stored in the run's configuration.
//
// Runners: "local" (LocalRunner, measure.h: a forked child per candidate on
// this machine, the default, needs nothing else) and "slurm" (SlurmRunner,
// slurm_runner.h: batches go to a Slurm cluster as job arrays whose tasks
// are `lowerscope-cli tune-worker`).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/measure.h"
#include "tuner/task.h"

namespace unity::tuner {

struct RunnerOptions {
  std::string kind = "local"; ///< "local" or "slurm"

  // --- slurm only
  /// Partition of every candidate whose sub-target has none of its own
  /// ("": the cluster's default partition).
  std::string partition;
  /// Sub-target name (of the run's composite target) -> partition whose
  /// nodes are that machine: `--partition m7=boards`.
  std::map<std::string, std::string> subTargetPartitions;
  /// The run's target string: resolves the names of subTargetPartitions to
  /// the canonical sub-target strings the candidates carry.
  std::string target;
  /// Array tasks of one batch (and of Slurm's `%N` throttle): a batch of n
  /// candidates is split over min(n, maxJobs) tasks, each measuring its
  /// share one candidate at a time on the cores it was given.
  int maxJobs = 4;
  /// sbatch --time of each array task ("MM", "HH:MM:SS", "D-HH"); "":
  /// estimated from the candidates per task and the measurement timeout.
  std::string jobTime;
  /// Directory that the submitting machine and every node see at the same
  /// path (a shared file system): batches, results and worker logs.
  std::string spool;
  /// lowerscope-cli as the nodes run it ("": this process's executable,
  /// which must then be on the shared file system or installed at the same
  /// path on every node).
  std::string workerProgram;
  double pollSeconds = 0.5;             ///< how often squeue is asked (result files: every 50 ms)
  std::vector<std::string> extraSbatch; ///< more sbatch arguments (e.g. "--account=X")

  nlohmann::json toJson() const;
  /// Throws unity::Error naming the bad field.
  static RunnerOptions fromJson(const nlohmann::json& j);
};

/// Adds one `--partition` value: "P" sets the default partition, "NAME=P"
/// the partition of sub-target NAME. Throws unity::Error on an empty part.
void addPartitionSpec(RunnerOptions& options, const std::string& spec);

/// The partition of candidates for `target` (a canonical sub-target
/// string): the one named for its sub-target, else the default. Throws
/// unity::Error when a sub-target name is not a part of options.target.
std::string partitionFor(const RunnerOptions& options, const std::string& target);

/// Makes the tasks of sub-targets that have a partition of their own
/// tunable when extractTasks refused them only because their target does
/// not run on this machine (a board farm measures them); sets their FLOPs.
/// Does nothing for a runner that measures here. Returns how many changed.
int enableRemoteSubTargets(std::vector<Task>& tasks, const RunnerOptions& options);

/// The runner options ask for; throws unity::Error for an unknown kind or
/// incomplete options (a slurm runner without a spool directory).
std::unique_ptr<Runner> makeRunner(const RunnerOptions& options);

/// The names makeRunner accepts, for help texts and the GUI's choice.
std::vector<std::string> runnerKinds();

} // namespace unity::tuner
