#pragma once
// Tuning tasks: the distinct tensor functions of a model, each with what the
// search needs to spend its trials well (TVM MetaSchedule's ExtractedTask,
// Ansor's SearchTask).
//
// extractTasks() builds the model with the caller's target and options up to
// (not including) DefaultSchedule, so the tensor functions are exactly the
// ones the real build would schedule: legalized, fused, unscheduled. Every
// PrimFunc becomes a workload: the function with its attributes stripped
// (names, op_pattern, sub-target name: nothing that changes the generated
// code; `num_outputs` is kept), keyed by ir::structuralHashHex, which ignores
// variable and buffer names and is stable across processes, machines and
// builds (tests/tuner/task_test.cpp pins a golden value). Functions with the
// same workload on the same target merge into one task whose weight is their
// total number of calls per model run. The target of a task is the canonical
// string of the (sub-)target its functions compile for, so a composite build
// gives one task per workload and sub-target, and the database keys records
// by (workload, target): a schedule tuned for one machine is never applied
// to another.
#include <string>
#include <vector>

#include "engine/build.h"
#include "engine/ir/module.h"
#include "engine/ir/tir.h"
#include "tuner/features.h"

namespace unity::tuner {

struct Task {
  /// The first function (module order) of this workload: the task's name.
  std::string name;
  /// Every function of the lowered module that is this workload.
  std::vector<std::string> functions;
  /// The unscheduled function with its attributes normalized (see above).
  ir::PrimFuncRef workload;
  std::string hash;      ///< structuralHashHex(workload)
  std::string target;    ///< canonical target string it compiles for
  std::string subTarget; ///< sub-target name of a composite build ("" for a plain one)
  double flops = 0;      ///< floating-point operations of one call (at symbolicExtent)
  /// The workload has free shape variables (a batch n, a sequence length):
  /// it is measured, and its FLOPs counted, with each at symbolicExtent.
  bool symbolic = false;
  int64_t symbolicExtent = 0; ///< that size (0 for a static workload)
  int weight = 0;             ///< calls per model run (0: called by no graph function)
  /// False when the task cannot be measured here, with the reason: a
  /// cross target, a scalar parameter.
  bool tunable = true;
  std::string whyNotTunable;
};

/// The function as a workload: attributes other than num_outputs removed.
ir::PrimFuncRef workloadOf(const ir::PrimFuncRef& f);
/// structuralHashHex(workloadOf(f)).
std::string workloadHash(const ir::PrimFuncRef& f);
/// The workload printed as a text-IR module holding it as `@main` (what the
/// database stores and a remote worker parses back with parseWorkload).
std::string workloadText(const ir::PrimFuncRef& workload);
/// Inverse of workloadText; unity::Error on text that is not such a module.
ir::PrimFuncRef parseWorkload(const std::string& text);

/// The tasks of `model` built with `options` (target, assignments, config,
/// disabled passes; its pipeline must be "default"), in the order of their
/// first function in the lowered module. Workloads with symbolic extents
/// are tasks like the others, measured with every free shape variable at
/// `symbolicExtent` (the value MeasureSettings::symbolicExtent must carry).
std::vector<Task> extractTasks(const ir::IRModule& model, const BuildOptions& options,
                               int64_t symbolicExtent = kDefaultSymbolicExtent);

} // namespace unity::tuner
