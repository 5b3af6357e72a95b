#pragma once
// Running jobs in child processes, so that a crash, a hang or a runaway
// allocation in one job costs that job only: the ONNX conformance harness
// runs every test case this way, and the tuner builds and times its
// candidates this way (a bad schedule may generate code that faults).
//
// A job is either a callable run in a fork()ed copy of this process (its
// return value is the payload) or a command line exec()ed in a child (its
// standard output is the payload). runIsolated() keeps up to `workers`
// children alive at once, reads their payload and standard error through
// pipes while they run (so a chatty child never blocks on a full pipe),
// kills a child that passes its timeout (SIGKILL to its process group, so
// anything it started dies with it), and reports each job as it finishes --
// through the callback, in finishing order -- and all of them, in job order,
// at the end. The parent is single-threaded here: it polls the pipes and
// reaps children with waitpid.
//
// A fork job runs in a copy of the caller, so it sees the caller's memory
// (no serialization of the work to do) but also inherits its state: fork
// from a process with other threads copies only the forking one, and the
// child must not wait on locks those threads held. Exec jobs start clean;
// prefer them when the caller runs thread pools.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace unity {

struct IsolatedJob {
  /// Run in a forked child; the returned bytes are the payload. An exception
  /// escaping it is the job's error (its message goes to the job's stderr).
  std::function<std::string()> run;
  /// Or, when `run` is empty: argv of a program to exec (found in PATH like
  /// execvp); its standard output is the payload.
  std::vector<std::string> command;
  /// Seconds before the child is killed; 0 takes the pool's default.
  double timeoutSeconds = 0;
};

enum class JobStatus {
  Ok,       ///< exited with status 0
  Error,    ///< exited with a non-zero status (or could not be started)
  Crashed,  ///< killed by a signal it did not get from the pool
  TimedOut, ///< ran past its timeout and was killed
};
const char* jobStatusName(JobStatus s); ///< "ok", "error", "crashed", "timed out"

struct JobResult {
  std::size_t index = 0; ///< position of the job in the list given to runIsolated
  JobStatus status = JobStatus::Error;
  std::string payload;    ///< return value (fork job) or standard output (exec job)
  std::string stderrText; ///< what the child wrote to standard error
  int exitCode = -1;      ///< the exit status when it exited, else -1
  int signal = 0;         ///< the signal that ended it when it crashed or timed out
  double seconds = 0;     ///< wall time from start to the end of the child
  /// One line for people: "ok", "exit code 3", "crashed: SIGSEGV (Segmentation
  /// fault)", "timed out after 2.0 s".
  std::string describe() const;
};

struct WorkerPoolOptions {
  int workers = 1;                                    ///< children alive at once
  double timeoutSeconds = 0;                          ///< default per-job timeout; 0: none
  std::size_t maxCaptureBytes = std::size_t(1) << 20; ///< per stream; the rest is read and dropped
};

/// Runs every job in its own child process, at most options.workers at once,
/// and returns their results in job order. onFinished (when given) is called
/// in this thread as each job ends. Throws unity::Error only when the pool
/// itself cannot work (no pipe or fork possible); a job's failure is its
/// result.
std::vector<JobResult> runIsolated(const std::vector<IsolatedJob>& jobs,
                                   const WorkerPoolOptions& options,
                                   const std::function<void(const JobResult&)>& onFinished = {});

/// "SIGSEGV" for SIGSEGV, "signal 42" for an unnamed one.
std::string signalName(int sig);

} // namespace unity
