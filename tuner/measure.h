#pragma once
// Measuring schedule candidates: build each one, run it on the task's random
// inputs, check its outputs against the untuned (DefaultSchedule) kernel's,
// and time it -- in a worker process, so that a candidate that crashes,
// hangs or computes garbage costs that candidate only and the run goes on.
//
// The seam (MetaSchedule's Builder / Runner): a MeasureJob is plain data --
// the workload, the target string and the trace -- that serializes to JSON,
// so a runner may hand it to another machine (a cluster worker parses the
// workload text, replays the trace and calls measureInProcess there).
// Builder compiles a scheduled function for a target; Runner takes a batch
// of jobs and reports each result as it arrives. LocalRunner runs every job
// in a fork()ed child of this process, one at a time (two timing runs never
// share the machine's cores), killed after the timeout.
//
// Timing (engine/support/measure.h): warm-up calls, then repeats until both a
// count and a minimum time are reached, optionally with the caches flushed
// before each call; the worker sizes the kernel thread pool from the
// settings (the target's -num-cores). A one-thread kernel is timed on the
// thread's CPU clock, which a busy neighbour does not inflate; a
// multi-threaded one on the wall clock, which is what a caller waits.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/tir.h"
#include "engine/runtime/compare.h"
#include "engine/runtime/module.h"
#include "engine/schedule/trace.h"
#include "engine/support/tensor.h"
#include "tuner/database.h"
#include "tuner/features.h"

namespace unity::tuner {

struct MeasureSettings {
  int warmup = 1;
  int repeats = 3;
  double minSeconds = 0.05; ///< repeat until the timed calls add up to this much
  int maxRepeats = 100;
  bool flushCache = false;
  double timeoutSeconds = 10; ///< per candidate: build, check and timing together
  int threads = 1;            ///< kernel threads (the target's cores)
  runtime::Tolerance tolerance{1e-3, 1e-3};
  /// The size every free shape variable of a workload with symbolic extents
  /// (a batch n, a sequence length) takes when it is measured: its inputs
  /// and outputs are allocated at that size and the kernel is called with
  /// it. The schedule found is applied to the symbolic function, so it runs
  /// at every size; the size tuned at is the one it is best for.
  int64_t symbolicExtent = kDefaultSymbolicExtent;

  nlohmann::json toJson() const;
  static MeasureSettings fromJson(const nlohmann::json& j);
};

/// One candidate to measure: what a worker needs, nothing of the caller's.
struct MeasureJob {
  ir::PrimFuncRef workload; ///< the unscheduled function (tuner::workloadOf)
  std::string target;       ///< target string
  schedule::Trace trace;    ///< the schedule, replayed on the workload

  /// {"workload": text IR, "target": ..., "trace": ...}
  nlohmann::json toJson() const;
  static MeasureJob fromJson(const nlohmann::json& j);
};

struct MeasureResult {
  RecordStatus status = RecordStatus::Ok;
  std::string errorKind;     ///< "" when ok; e.g. "schedule", "build", "SIGSEGV", "timeout"
  std::string errorMessage;  ///< the whole message, never dropped
  std::vector<double> times; ///< seconds per timed call (ok only)
  double buildSeconds = 0;
  std::string node; ///< host name of the machine that measured

  double meanSeconds() const;
  nlohmann::json toJson() const;
  static MeasureResult fromJson(const nlohmann::json& j);
};

/// Random inputs of a workload (floats uniform in [-1, 1], integers 0: valid
/// indices for gathers) and the outputs of its DefaultSchedule kernel on
/// them: what every candidate's outputs are checked against.
struct TaskReference {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

class Builder {
public:
  virtual ~Builder() = default;
  /// Compiles a scheduled function (the kernel is named "kernel"); throws
  /// unity::Error when it cannot.
  virtual std::shared_ptr<const runtime::CompiledModule> build(const ir::PrimFuncRef& scheduled,
                                                               const std::string& target) const = 0;
};

/// Builds through unity::build(): the default pipeline's tensor passes after
/// DefaultSchedule, then the target's code generation.
class LocalBuilder : public Builder {
public:
  std::shared_ptr<const runtime::CompiledModule> build(const ir::PrimFuncRef& scheduled,
                                                       const std::string& target) const override;
};

/// Inputs from `seed` and the untuned kernel's outputs (built with builder),
/// with every free shape variable of the workload at `symbolicExtent`.
TaskReference makeReference(const ir::PrimFuncRef& workload, const std::string& target,
                            uint64_t seed, const Builder& builder, int threads = 1,
                            int64_t symbolicExtent = kDefaultSymbolicExtent);

/// The shape of buffer parameter `index` of f with every free shape variable
/// at `symbolicExtent`; unity::Error naming the parameter and dimension when
/// a dimension does not reduce to a positive constant.
std::vector<int64_t> concreteShape(const ir::PrimFuncRef& f, size_t index, int64_t symbolicExtent);

/// Everything a worker does for one job, in this process: replay the trace,
/// build, run once and compare with the reference, then time. Never throws
/// for a bad candidate: the failure is the result.
MeasureResult measureInProcess(const MeasureJob& job, const TaskReference& ref,
                               const MeasureSettings& settings, const Builder& builder);

class Runner {
public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  /// True when candidates are measured on other machines, which build
  /// their own reference: the caller then passes an empty TaskReference and
  /// the target need not run here.
  virtual bool measuresRemotely() const { return false; }
  /// Called by TuningRun before its first batch (also when resuming): a
  /// remote runner keys its files by the run and cleans up what a killed
  /// earlier process of the same run left behind.
  virtual void beginRun(int64_t runId) { (void)runId; }
  /// TuningRun::run's cancel flag (nullptr: none). A runner whose batches
  /// take long (a cluster queue) checks it and returns early, having
  /// reported only what was measured; the others finish the batch.
  virtual void setCancelFlag(const std::atomic<bool>* cancel) { (void)cancel; }
  /// Measures every job of one task (all share `ref`), calling onResult as
  /// each finishes (in this thread); returns when all have.
  virtual void run(const std::vector<MeasureJob>& jobs, const TaskReference& ref,
                   const MeasureSettings& settings,
                   const std::function<void(size_t, const MeasureResult&)>& onResult) = 0;
};

/// One fork()ed child per job, one at a time, killed after the timeout.
class LocalRunner : public Runner {
public:
  explicit LocalRunner(std::shared_ptr<const Builder> builder = std::make_shared<LocalBuilder>())
      : builder_(std::move(builder)) {}
  std::string name() const override { return "local"; }
  void run(const std::vector<MeasureJob>& jobs, const TaskReference& ref,
           const MeasureSettings& settings,
           const std::function<void(size_t, const MeasureResult&)>& onResult) override;

private:
  std::shared_ptr<const Builder> builder_;
};

/// This machine's host name (records say where they were measured).
std::string hostName();

} // namespace unity::tuner
