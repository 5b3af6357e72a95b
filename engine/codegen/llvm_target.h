#pragma once
// Target selection, optimization and emission helpers shared by the JIT and
// the cross emitter. Internal to engine/codegen; LLVM types are only
// forward-declared so this header stays LLVM-free.
#include <memory>
#include <string>
#include <vector>

#include "engine/codegen/codegen.h"
#include "engine/target/machine_model.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace unity::codegen::detail {

/// A target with "host"/"native" resolved to concrete names.
struct ResolvedTarget {
  std::string triple, cpu, features;
  bool isHost = false;
};

/// The machine model of opts (target::machineModel of its triple, cpu and
/// features; "runs here" when the triple is empty or the host's): what the
/// default schedule tiled for, so codegen tunes for the same machine.
target::MachineModel codegenMachine(const CodegenOptions& opts);

/// Initializes the native, ARM and AArch64 backends once.
void initializeLLVMTargets();

/// Resolves opts: empty triple -> host triple; cpu "native" -> host CPU name
/// plus host features (or "generic" for a cross triple). A machine model
/// with 512-bit vectors adds "-prefer-256-bit" (unless the features name
/// it), so LLVM's vectorizer uses the width the schedule tiled for.
ResolvedTarget resolveTarget(const CodegenOptions& opts);

/// A TargetMachine for t; throws unity::Error for an unknown triple/cpu.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const ResolvedTarget& t, int optLevel);

/// Sets the module's triple and data layout from tm, then runs LLVM's default
/// pipeline for optLevel (O0 still runs the always-inliner).
void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel);

/// Machine code of m as assembly text or object bytes.
std::string emitAssemblyText(llvm::Module& m, llvm::TargetMachine& tm);
std::vector<char> emitObjectBytes(llvm::Module& m, llvm::TargetMachine& tm);

/// The textual IR of m.
std::string printModule(const llvm::Module& m);

} // namespace unity::codegen::detail
