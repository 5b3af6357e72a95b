#pragma once
// The lowering hooks a target kind registers as attributes of the kind
// (TVM's RelaxToTIR / TIRToRuntime kind attributes):
//
//  - graphToTir: a factory for a graph-level Pass. build() runs it on the
//    module before the generic pipeline, once per sub-target of that kind; it
//    lowers the functions whose "target" attribute names that sub-target
//    straight to tensor level or to library calls, bypassing the generic path
//    (library kinds claim whole patterns this way).
//  - claims: which graph bindings the kind can take (used by AssignTargets).
//  - tirToRuntime: turns the tensor functions owned by the sub-target into a
//    RuntimeModule: runnable kernels for host targets, emitted artifacts (C
//    source, LLVM IR, assembly, object) always where the kind has them.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/codegen/codegen.h"
#include "engine/ir/expr.h"
#include "engine/target/target.h"
#include "engine/transform/pass.h"

namespace unity::target {

/// What a sub-target's codegen produced.
struct RuntimeModule {
  std::shared_ptr<const codegen::CompiledModule> compiled; // null: compile-only
  codegen::ArtifactSet artifacts;     // llvmIR / assembly / object where produced
  std::string cSource;                // the c kind's source
  std::vector<std::string> functions; // the tensor functions it holds
  std::string note;                   // "compile-only: thumbv7em-none-eabi", ...
};

/// How often each variable is used in its whole function (body included).
using UseCounts = std::unordered_map<const ir::VarNode*, int>;
/// Graph-level pattern claims: the bindings (by index in the block) a kind
/// takes from one binding block, as groups that belong together.
using ClaimFn =
    std::function<std::vector<std::vector<size_t>>(const ir::BindingBlock&, const UseCounts&)>;

struct TargetKindHooks {
  /// (target, sub-target name) -> pass lowering the functions marked for it.
  std::function<transform::PassRef(const Target&, const std::string&)> graphToTir;
  ClaimFn claims;
  std::function<RuntimeModule(const codegen::NamedPrimFuncs&, const Target&)> tirToRuntime;
};

/// Hooks of the built-in kinds (defined next to their implementations).
const TargetKindHooks& llvmKindHooks();
const TargetKindHooks& cKindHooks();
const TargetKindHooks& openblasKindHooks();
const TargetKindHooks& dnnlKindHooks();

} // namespace unity::target
