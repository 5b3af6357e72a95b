// Host compilation: generate, optimize with the host TargetMachine, hand the
// module to an ORC LLJIT, and resolve every kernel's address up front (so
// that any LLVM failure surfaces in compileForHost, not at the first call).
//
// Symbols: the runtime entries (unity_parallel_for, unity_alloc, unity_free)
// are defined in the JIT by address, so they resolve even when the
// executable does not export them; everything else (libm: expf, tanhf, ...)
// is looked up in the process, where libm is always loaded.
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <sstream>

#include "engine/codegen/codegen.h"
#include "engine/codegen/llvm_codegen.h"
#include "engine/codegen/llvm_target.h"
#include "engine/runtime/c_runtime_api.h"
#include "engine/support/error.h"

namespace unity::codegen {

namespace {

std::string describe(llvm::Error err) { return llvm::toString(std::move(err)); }

std::vector<std::string> splitFeatures(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

class HostModule : public CompiledModule {
public:
  HostModule(std::unique_ptr<llvm::orc::LLJIT> jit, detail::ResolvedTarget target, int optLevel,
             std::string ir, std::map<std::string, std::pair<KernelFn, ir::PrimFuncRef>> kernels)
      : jit_(std::move(jit)), target_(std::move(target)), optLevel_(optLevel), ir_(std::move(ir)),
        kernels_(std::move(kernels)) {}

  KernelFn lookup(const std::string& name) const override {
    auto it = kernels_.find(name);
    if (it == kernels_.end())
      throw Error("compiled module has no kernel named '" + name + "'");
    return it->second.first;
  }
  ir::PrimFuncRef function(const std::string& name) const override {
    auto it = kernels_.find(name);
    return it == kernels_.end() ? ir::PrimFuncRef() : it->second.second;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (auto& [name, k] : kernels_)
      out.push_back(name);
    return out;
  }
  std::string llvmIR() const override { return ir_; }
  std::string assembly() const override {
    llvm::LLVMContext ctx;
    auto m = reparse(ctx);
    auto tm = detail::createTargetMachine(target_, optLevel_);
    return detail::emitAssemblyText(*m, *tm);
  }
  std::vector<char> object() const override {
    llvm::LLVMContext ctx;
    auto m = reparse(ctx);
    auto tm = detail::createTargetMachine(target_, optLevel_);
    return detail::emitObjectBytes(*m, *tm);
  }

private:
  /// The kept IR text, parsed again: the JIT owns (and consumed) the original.
  std::unique_ptr<llvm::Module> reparse(llvm::LLVMContext& ctx) const {
    llvm::SMDiagnostic diag;
    auto m = llvm::parseAssemblyString(ir_, diag, ctx);
    if (!m)
      throw Error("codegen: internal error, cannot re-read module IR: " + diag.getMessage().str());
    return m;
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  detail::ResolvedTarget target_;
  int optLevel_;
  std::string ir_;
  std::map<std::string, std::pair<KernelFn, ir::PrimFuncRef>> kernels_;
};

void defineRuntimeSymbols(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](const char* name, auto* fn) {
    symbols[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                                          llvm::JITSymbolFlags::Exported |
                                              llvm::JITSymbolFlags::Callable};
  };
  add("unity_parallel_for", &unity_parallel_for);
  add("unity_alloc", &unity_alloc);
  add("unity_free", &unity_free);
  if (auto err = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))))
    throw Error("codegen: cannot define runtime symbols in the JIT: " + describe(std::move(err)));
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!gen)
    throw Error("codegen: cannot search the process for symbols: " + describe(gen.takeError()));
  jit.getMainJITDylib().addGenerator(std::move(*gen));
}

} // namespace

std::unique_ptr<CompiledModule> compileForHost(const NamedPrimFuncs& funcs,
                                               const CodegenOptions& opts) {
  if (!opts.triple.empty()) {
    detail::ResolvedTarget t = detail::resolveTarget(opts);
    if (!t.isHost)
      throw Error("codegen: cannot run code for '" + opts.triple +
                  "' on this host; use emitForTarget for cross targets");
  }
  detail::initializeLLVMTargets();
  detail::ResolvedTarget target = detail::resolveTarget(opts);
  auto tm = detail::createTargetMachine(target, opts.optLevel);

  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> m = detail::generateModule(*ctx, funcs, opts);
  detail::optimizeModule(*m, *tm, opts.optLevel);
  std::string ir = detail::printModule(*m);

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  jtmb.addFeatures(splitFeatures(target.features));
  jtmb.setCodeGenOptLevel(tm->getOptLevel());
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit)
    throw Error("codegen: cannot create the JIT: " + describe(jit.takeError()));
  defineRuntimeSymbols(**jit);
  m->setDataLayout((*jit)->getDataLayout());
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    throw Error("codegen: the JIT rejected the module: " + describe(std::move(err)));

  std::map<std::string, std::pair<CompiledModule::KernelFn, ir::PrimFuncRef>> kernels;
  for (auto& [name, f] : funcs) {
    auto addr = (*jit)->lookup(detail::kernelSymbol(name));
    if (!addr)
      throw Error("codegen: cannot materialize kernel '" + name +
                  "': " + describe(addr.takeError()));
    kernels[name] = {addr->toPtr<CompiledModule::KernelFn>(), f};
  }
  return std::make_unique<HostModule>(std::move(*jit), target, opts.optLevel, std::move(ir),
                                      std::move(kernels));
}

} // namespace unity::codegen
