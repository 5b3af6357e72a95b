#pragma once
// The lowering hooks of target kinds (TVM's RelaxToTIR / TIRToRuntime kind
// attributes), registered per kind name:
//
//  - graphToTir: a factory for a graph-level Pass. build() runs it on the
//    module before the generic pipeline, once per sub-target of that kind; it
//    lowers the functions whose "target" attribute names that sub-target
//    straight to tensor level or to library calls, bypassing the generic path
//    (library kinds claim whole patterns this way).
//  - claims: which graph bindings the kind can take (used by AssignTargets).
//  - tirToRuntime: turns the tensor functions owned by a sub-target into a
//    RuntimeModule: runnable kernels for host targets, emitted artifacts (C
//    source, LLVM IR, assembly, object) where the kind has them.
//
// The registry lives in transform because a hook is a Pass factory and a
// function returning runtime types; target/ keeps only the kinds' attribute
// schemas. Who registers: the library kinds (openblas, dnnl, and the example
// kind of docs/adding-a-target-kind.md) are registered here on first use;
// the code-generating kinds (llvm, c) by codegen::registerCodegenKindHooks,
// which build() calls. Registration is by explicit calls, never by static
// initialisers (the engine is a static library; the linker would drop them).
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/expr.h"
#include "engine/runtime/module.h"
#include "engine/target/target.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// What a sub-target's codegen produced.
struct RuntimeModule {
  std::shared_ptr<const runtime::CompiledModule> compiled; // null: compile-only
  runtime::ArtifactSet artifacts;     // C source / LLVM IR / assembly / object where produced
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
  std::function<PassRef(const target::Target&, const std::string&)> graphToTir;
  ClaimFn claims;
  std::function<RuntimeModule(const runtime::NamedPrimFuncs&, const target::Target&)> tirToRuntime;
};

/// Adds (or replaces) the hooks of kind `kind` (a kind registered with
/// target::registerTargetKind). Pointers handed out by findKindHooks stay
/// valid across replacement.
void registerKindHooks(const std::string& kind, TargetKindHooks hooks);
/// The hooks of a kind; null when it has none.
const TargetKindHooks* findKindHooks(const std::string& kind);

} // namespace unity::transform
