// Cross emission: the same generated and optimized module, printed as LLVM
// IR, assembly and an object file for any triple LLVM was built with. Nothing
// is executed, so the runtime symbols stay undefined references, to be
// provided by whatever links the object (see engine/runtime/c_runtime_api.h).
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "engine/codegen/codegen.h"
#include "engine/codegen/llvm_codegen.h"
#include "engine/codegen/llvm_target.h"

namespace unity::codegen {

ArtifactSet emitForTarget(const NamedPrimFuncs& funcs, const CodegenOptions& opts) {
  detail::ResolvedTarget target = detail::resolveTarget(opts);
  auto tm = detail::createTargetMachine(target, opts.optLevel);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = detail::generateModule(ctx, funcs, opts);
  detail::optimizeModule(*m, *tm, opts.optLevel);

  ArtifactSet out;
  out.triple = target.triple;
  out.cpu = target.cpu;
  out.llvmIR = detail::printModule(*m);
  for (auto& [name, f] : funcs)
    out.symbols.emplace_back(name, kernelSymbol(name));
  // Machine-code passes may touch the IR: give each emission its own copy.
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*m);
  out.assembly = detail::emitAssemblyText(*copy, *tm);
  out.object = detail::emitObjectBytes(*m, *tm);
  return out;
}

std::string kernelSymbol(const std::string& name) { return detail::kernelSymbol(name); }

std::string emitLLVMIR(const NamedPrimFuncs& funcs, const CodegenOptions& opts) {
  detail::ResolvedTarget target = detail::resolveTarget(opts);
  auto tm = detail::createTargetMachine(target, opts.optLevel);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = detail::generateModule(ctx, funcs, opts);
  detail::optimizeModule(*m, *tm, opts.optLevel);
  return detail::printModule(*m);
}

std::string emitAssembly(const NamedPrimFuncs& funcs, const CodegenOptions& opts) {
  return emitForTarget(funcs, opts).assembly;
}

std::vector<char> emitObject(const NamedPrimFuncs& funcs, const CodegenOptions& opts) {
  return emitForTarget(funcs, opts).object;
}

} // namespace unity::codegen
