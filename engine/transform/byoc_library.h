#pragma once
// Shared machinery of library target kinds (openblas, dnnl, and the example
// kind of docs/adding-a-target-kind.md): pattern claims on graph bindings and
// the graph_to_tir pass that lowers a claimed chain to one library kernel.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/expr.h"
#include "engine/transform/pass.h"
#include "engine/transform/target_hooks.h"

namespace unity::transform {

/// A chain head -> [add bias] -> [nn.relu] handed to one library kernel.
struct LibraryPattern {
  std::string kind;
  std::function<bool(const ir::Call*)> head;          // is this call a chain head?
  std::function<bool(const ir::Expr&)> bias;          // is this operand a bias?
  std::function<std::string(const ir::Call*)> kernel; // library kernel name
  /// The int64 static parameters of the kernel (last input tensor).
  std::function<std::vector<int64_t>(const ir::Call*, bool relu)> params;
  /// false: a claim is the head alone (no bias / relu appended).
  bool extend = true;
  /// true: the sub-target's thread count is appended to the params (the
  /// kernel hands it to its library; 0: the library's own default). How
  /// `-num-cores` of an openblas / dnnl sub-target reaches the library.
  bool numThreadsParam = false;
};
const LibraryPattern& openblasPattern();
const LibraryPattern& dnnlPattern();

/// How often each variable is used (read) in `body`; binding definitions do
/// not count.
UseCounts countUses(const ir::Expr& body);
/// `e` as a call of operator `name`, or null.
const ir::Call* opCall(const ir::Expr& e, const char* name);
/// The chains of a block (binding indices), each intermediate single-use.
std::vector<std::vector<size_t>> claimChains(const LibraryPattern& p, const ir::BindingBlock& b,
                                             const UseCounts& uses);
/// Lowers every function whose "target" is `sub` to call_tir of PrimFuncs
/// carrying "library_kernel", one per chain: the function's bindings must be
/// covered exactly by claimChains (PartitionByTarget may outline several
/// adjacent claims of one sub-target into one function). Throws unity::Error
/// naming the function when some binding is not part of a supported chain.
/// `numThreads` is appended to the params of a pattern with numThreadsParam
/// (0: the library's default).
PassRef libraryGraphToTirPass(const LibraryPattern& p, const std::string& sub, int numThreads = 0);
/// The thread count a library sub-target asks for: its -num-cores, 0 when
/// it has none (the library's default, OPENBLAS_NUM_THREADS / OMP_NUM_THREADS
/// or every core).
int libraryThreadsOf(const target::Target& t);
/// tir_to_runtime of library kinds: a runtime::LibraryModule.
RuntimeModule libraryRuntime(const runtime::NamedPrimFuncs& funcs, const target::Target&);

/// Hooks of the library kinds openblas and dnnl. (The worked example of
/// docs/adding-a-target-kind.md, example_relu, lives outside the engine in
/// docs/examples/ and registers itself.)
const TargetKindHooks& openblasKindHooks();
const TargetKindHooks& dnnlKindHooks();
/// (kind, hooks) of each of them, for the hooks registry's first use.
std::vector<std::pair<std::string, TargetKindHooks>> libraryKindHooks();

} // namespace unity::transform
