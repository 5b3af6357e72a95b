// tir_to_runtime hooks of the code-generating kinds. llvm: JIT for the host,
// otherwise LLVM IR + assembly + object for the triple (compile-only). c: the
// C source always; compiled with the system C compiler and loaded when the
// target is the host, compile-only otherwise. Neither has a graph_to_tir
// hook: their functions take the generic pipeline.
#include "engine/codegen/c_codegen.h"
#include "engine/target/target_hooks.h"

namespace unity::target {

namespace {
codegen::CodegenOptions llvmOptions(const Target& t) {
  codegen::CodegenOptions co;
  co.triple = t.get("mtriple");
  co.cpu = t.get("mcpu", co.triple.empty() ? "native" : "");
  co.features = t.get("mattr");
  co.optLevel = t.getInt("opt-level", 3);
  co.fastMath = t.getBool("fast-math", false);
  return co;
}
std::vector<std::string> namesOf(const codegen::NamedPrimFuncs& funcs) {
  std::vector<std::string> out;
  for (auto& [n, _] : funcs)
    out.push_back(n);
  return out;
}
} // namespace

const TargetKindHooks& llvmKindHooks() {
  static const TargetKindHooks h{
      nullptr, nullptr, [](const codegen::NamedPrimFuncs& funcs, const Target& t) {
        RuntimeModule r;
        r.functions = namesOf(funcs);
        auto co = llvmOptions(t);
        if (t.isHost()) {
          std::shared_ptr<const codegen::CompiledModule> m = codegen::compileForHost(funcs, co);
          r.artifacts.llvmIR = m->llvmIR();
          r.compiled = m;
        } else {
          r.artifacts = codegen::emitForTarget(funcs, co);
          r.note = "compile-only: " + co.triple;
        }
        return r;
      }};
  return h;
}

const TargetKindHooks& cKindHooks() {
  static const TargetKindHooks h{nullptr, nullptr,
                                 [](const codegen::NamedPrimFuncs& funcs, const Target& t) {
                                   RuntimeModule r;
                                   r.functions = namesOf(funcs);
                                   r.cSource = codegen::emitCSource(funcs);
                                   if (t.isHost())
                                     r.compiled = codegen::compileCForHost(funcs);
                                   else
                                     r.note = "compile-only: C source for " + t.get("mtriple");
                                   return r;
                                 }};
  return h;
}

} // namespace unity::target
