#pragma once
// build(): the one-call driver. Runs a pass pipeline over a module under a
// recording PassContext, generates code for the target, and returns the
// lowered module, the full pass record and (for host targets) a runnable
// Executable. The CLI, the GUI and the tests all build through this.
//
// Every target is handled as a composite: a plain target string is one
// implicit sub-target named after its kind, and every sub-target's code is
// made by its kind's tir_to_runtime hook (engine/transform/target_hooks.h),
// llvm included. The steps, in order (build.cpp):
//   1. resolve the target; store it in the module attribute "target";
//   2. AnnotateTarget with BuildOptions::assignments (when there are any);
//   3. for a composite: Normalize, AssignTargets, PartitionByTarget and each
//      sub-target kind's graph_to_tir pass;
//   4. the pipeline (or BuildOptions::passes);
//   5. for a composite: AssignPrimFuncTargets;
//   6. code generation per sub-target, and the executable.
// Steps 2-5 are passes under one recording context, so `r.records` (what
// `build --dump-passes` writes and the GUI's timeline shows) numbers them
// the same for every caller.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/module.h"
#include "engine/runtime/executor.h"
#include "engine/runtime/module.h"
#include "engine/target/target.h"
#include "engine/transform/record.h"

namespace unity {

struct BuildOptions {
  std::string target = "llvm";
  std::string pipeline = "default";
  std::vector<std::string> passes; // when non-empty, used instead of the pipeline
  bool record = true;
  int optLevel = 3;
  ir::Attrs config; // PassContext config
  std::vector<std::string> disabledPasses;
  const std::atomic<bool>* cancel = nullptr;
  /// Called before every pass (name, depth) — the GUI's progress.
  std::function<void(const std::string&, int)> onPass;
  bool codegen = true; // false: stop after the passes
  /// Target assignments: binding or source-model node name -> sub-target
  /// name (transform::annotateByName). When there are any, the build is a
  /// composite one (a plain target is its one sub-target, named after its
  /// kind), the names are checked against the target's sub-targets, and
  /// AnnotateTarget applies them as the first recorded pass.
  std::vector<std::pair<std::string, std::string>> assignments;
  /// Where the assignments came from (the --assign file): prefixes their
  /// error messages.
  std::string assignmentsSource;
};

/// What one sub-target of a composite build produced.
struct SubTargetArtifacts {
  std::string name;                   // sub-target name
  std::string target;                 // its target string
  std::vector<std::string> functions; // tensor functions it owns
  bool compileOnly = false;           // true: emitted, never run here
  std::string cSource, llvmIR, assembly;
  std::vector<char> object;
  std::string note;
};

/// A build is *composite* when its target is written as one ("fast: llvm;
/// compat: c; blas: openblas") or it has assignments; otherwise *plain*
/// ("llvm -mcpu=native", "c", "cortex-m7").
struct BuildResult {
  ir::IRModule input, lowered;
  target::Target target;                 // the default sub-target for composite builds
  std::string composite;                 // the composite target string ("" for plain builds)
  std::vector<SubTargetArtifacts> parts; // composite builds: one per sub-target
  std::vector<transform::PassRecord> records;
  /// Plain builds: the target's own module (host targets; null for a cross
  /// target). Composite builds: a runtime::CompositeModule dispatching each
  /// kernel to its sub-target's module.
  std::shared_ptr<const runtime::CompiledModule> compiled;
  std::shared_ptr<runtime::Executable> executable; // whenever `compiled` is set
  runtime::ArtifactSet artifacts; // plain builds: what the target emitted (cross code, C source)
  double passesMs = 0, codegenMs = 0;
  bool compileOnly() const { return !executable; }
};

/// The tensor functions of a module that codegen compiles.
runtime::NamedPrimFuncs primFuncsOf(const ir::IRModule& m);

/// Builds m (see the steps at the top of this file). Every build stores its
/// target in the module attribute "target" (the target string of a plain
/// build, the composite string otherwise), so passes can resolve the target
/// of each function: the module's target plus the function's "target"
/// attribute (a sub-target name; the default sub-target without one). A
/// composite executable dispatches each kernel to the module that owns it; a
/// kernel of a compile-only (cross) part raises an error naming the part
/// when called. Throws unity::Error (a module holding R.unsupported
/// placeholders of an import for viewing, listing them; bad target, unknown
/// pipeline or pass, bad assignment, a pass's error) and
/// transform::Cancelled.
BuildResult build(const ir::IRModule& m, const BuildOptions& opts = {});

} // namespace unity
