// Hooks of the code-generating kinds and the one reader of their options.
//
// llvm: JIT for the host, otherwise LLVM IR + assembly + object for the
// triple (compile-only). c: the C source always; compiled with the system C
// compiler and loaded when the target is the host, compile-only otherwise.
// Neither has a graph_to_tir hook (their functions take the generic
// pipeline) nor claims. A host part also sets the engine's thread pool to the
// sub-target's -num-cores: generated kernels run their parallel loops there
// (library kinds hand -num-cores to their library instead).
#include <mutex>

#include "engine/codegen/c_codegen.h"
#include "engine/codegen/codegen.h"
#include "engine/runtime/thread_pool.h"
#include "engine/transform/target_hooks.h"

namespace unity::codegen {

CodegenOptions codegenOptions(const target::Target& t) {
  CodegenOptions co;
  co.triple = t.get("mtriple");
  co.cpu = t.get("mcpu", co.triple.empty() ? "native" : "");
  co.features = t.get("mattr");
  co.optLevel = t.getInt("opt-level", 3);
  co.fastMath = t.getBool("fast-math", false);
  return co;
}

namespace {

std::vector<std::string> namesOf(const NamedPrimFuncs& funcs) {
  std::vector<std::string> out;
  for (auto& [n, _] : funcs)
    out.push_back(n);
  return out;
}

transform::RuntimeModule llvmToRuntime(const NamedPrimFuncs& funcs, const target::Target& t) {
  transform::RuntimeModule r;
  r.functions = namesOf(funcs);
  CodegenOptions co = codegenOptions(t);
  if (t.isHost()) {
    runtime::ThreadPool::setNumThreads(t.numCores());
    // IR, assembly and object of a host module are produced on demand
    // (CompiledModule::llvmIR() ...), not here: most builds never ask.
    r.compiled = compileForHost(funcs, co);
  } else {
    r.artifacts = emitForTarget(funcs, co);
    r.note = "compile-only: " + co.triple;
  }
  return r;
}

transform::RuntimeModule cToRuntime(const NamedPrimFuncs& funcs, const target::Target& t) {
  transform::RuntimeModule r;
  r.functions = namesOf(funcs);
  r.artifacts.cSource = emitCSource(funcs);
  if (t.isHost()) {
    runtime::ThreadPool::setNumThreads(t.numCores());
    r.compiled = compileCForHost(funcs);
  } else {
    r.note = "compile-only: C source for " + t.get("mtriple");
  }
  return r;
}

} // namespace

void registerCodegenKindHooks() {
  static std::once_flag once;
  std::call_once(once, [] {
    // A kind whose hooks someone registered before the first build keeps them.
    if (!transform::findKindHooks("llvm"))
      transform::registerKindHooks("llvm", {nullptr, nullptr, llvmToRuntime});
    if (!transform::findKindHooks("c"))
      transform::registerKindHooks("c", {nullptr, nullptr, cToRuntime});
  });
}

} // namespace unity::codegen
