#pragma once
// build(): the one-call driver. Runs a pass pipeline over a module under a
// recording PassContext, generates code for the target, and returns the
// lowered module, the full pass record and (for host targets) a runnable
// Executable. The CLI, the GUI and the tests all build through this.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/codegen/codegen.h"
#include "engine/ir/module.h"
#include "engine/runtime/executor.h"
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

struct BuildResult {
  ir::IRModule input, lowered;
  target::Target target;                 // the default sub-target for composite builds
  std::string composite;                 // the composite target string ("" for plain builds)
  std::vector<SubTargetArtifacts> parts; // composite builds: one per sub-target
  std::vector<transform::PassRecord> records;
  std::shared_ptr<const codegen::CompiledModule> compiled; // host targets
  std::shared_ptr<runtime::Executable> executable;         // host targets
  codegen::ArtifactSet artifacts;                          // cross targets
  double passesMs = 0, codegenMs = 0;
  bool compileOnly() const { return !executable; }
};

/// The tensor functions of a module that codegen compiles.
codegen::NamedPrimFuncs primFuncsOf(const ir::IRModule& m);

/// A plain target ("llvm -mcpu=native") builds as before. A composite target
/// ("fast: llvm; compat: c; blas: openblas", or any non-llvm kind) stores
/// itself in the module attribute "target", runs Normalize, AssignTargets,
/// PartitionByTarget and each sub-target kind's graph_to_tir hook before the
/// pipeline, gives every tensor function to the sub-target of its callers
/// (copying and renaming a function shared by several sub-targets), and
/// generates code per sub-target with its kind's tir_to_runtime hook. The
/// executable dispatches each kernel to the module that owns it; a kernel of
/// a compile-only (cross) part raises an error naming the part when called.
BuildResult build(const ir::IRModule& m, const BuildOptions& opts = {});

} // namespace unity
