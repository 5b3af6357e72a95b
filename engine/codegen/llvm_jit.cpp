// Host compilation: generate, optimize with the host TargetMachine, hand the
// module to an ORC LLJIT, and resolve every kernel's address up front (so
// that any LLVM failure surfaces in compileForHost, not at the first call).
//
// Kernels are compiled on all hardware threads, because LLVM's optimization
// and code generation are nearly all of a build's time (docs/benchmarks.md,
// "Build time"): they are split into groups of about equal size (IR
// statements), and each group is generated, optimized and compiled to an
// object file in its own LLVMContext on its own thread; the JIT then only
// links the objects. Kernels do not call each other, so a group is a
// complete module. The optimized IR of each group is kept; llvmIR(),
// assembly() and object() link them back into one module first.
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

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "engine/codegen/codegen.h"
#include "engine/codegen/llvm_codegen.h"
#include "engine/codegen/llvm_target.h"
#include "engine/ir/functor.h"
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
             std::vector<std::string> irs,
             std::map<std::string, std::pair<KernelFn, ir::PrimFuncRef>> kernels)
      : jit_(std::move(jit)), target_(std::move(target)), optLevel_(optLevel), irs_(std::move(irs)),
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
  /// One module's IR: with several groups they are linked (once, on the
  /// first call) so that the text is a valid module again (`build --emit`
  /// writes it as module.ll).
  std::string llvmIR() const override {
    if (irs_.size() == 1)
      return irs_[0];
    std::call_once(linkOnce_, [&] {
      llvm::LLVMContext ctx;
      linked_ = detail::printModule(*reparse(ctx));
    });
    return linked_;
  }
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
  /// The kept IR of every group, parsed again and linked into one module
  /// (the JIT consumed the originals; internal names that collide are
  /// renamed by the linker).
  std::unique_ptr<llvm::Module> reparse(llvm::LLVMContext& ctx) const {
    std::unique_ptr<llvm::Module> all;
    for (auto& ir : irs_) {
      llvm::SMDiagnostic diag;
      auto m = llvm::parseAssemblyString(ir, diag, ctx);
      if (!m)
        throw Error("codegen: internal error, cannot re-read module IR: " +
                    diag.getMessage().str());
      if (!all)
        all = std::move(m);
      else if (llvm::Linker::linkModules(*all, std::move(m)))
        throw Error("codegen: internal error, cannot link the kernel groups into one module");
    }
    return all;
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  detail::ResolvedTarget target_;
  int optLevel_;
  std::vector<std::string> irs_;
  mutable std::once_flag linkOnce_;
  mutable std::string linked_;
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

/// Statements and expressions in f's body: the cost estimate of a kernel.
int64_t sizeOf(const ir::PrimFuncRef& f) {
  int64_t n = 0;
  ir::walkStmt(f->body, [&](const ir::Stmt&) { ++n; });
  return n;
}

/// funcs in at most `k` groups of about equal size (largest first, each to
/// the lightest group), in the original order within a group.
std::vector<NamedPrimFuncs> groupKernels(const NamedPrimFuncs& funcs, size_t k) {
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t i = 0; i < funcs.size(); ++i)
    order.push_back({sizeOf(funcs[i].second), i});
  std::sort(order.rbegin(), order.rend());
  std::vector<int64_t> load(k, 0);
  std::vector<std::vector<size_t>> members(k);
  for (auto& [size, i] : order) {
    size_t g = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[g] += size + 1;
    members[g].push_back(i);
  }
  std::vector<NamedPrimFuncs> out;
  for (auto& m : members) {
    if (m.empty())
      continue;
    std::sort(m.begin(), m.end());
    NamedPrimFuncs g;
    for (size_t i : m)
      g.push_back(funcs[i]);
    out.push_back(std::move(g));
  }
  return out;
}

/// One group compiled: its optimized IR and its object file.
struct GroupCode {
  std::string ir;
  std::vector<char> object;
  std::exception_ptr error;
};

void compileGroup(const NamedPrimFuncs& funcs, const detail::ResolvedTarget& target,
                  const CodegenOptions& opts, GroupCode& out) {
  try {
    llvm::LLVMContext ctx;
    auto tm = detail::createTargetMachine(target, opts.optLevel);
    std::unique_ptr<llvm::Module> m = detail::generateModule(ctx, funcs, opts);
    detail::optimizeModule(*m, *tm, opts.optLevel);
    out.ir = detail::printModule(*m);
    out.object = detail::emitObjectBytes(*m, *tm);
  } catch (...) {
    out.error = std::current_exception();
  }
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

  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<NamedPrimFuncs> groups = groupKernels(funcs, std::min(threads, funcs.size()));
  if (groups.empty())
    groups.emplace_back();
  std::vector<GroupCode> code(groups.size());
  {
    std::vector<std::thread> workers;
    for (size_t g = 1; g < groups.size(); ++g)
      workers.emplace_back([&, g] { compileGroup(groups[g], target, opts, code[g]); });
    compileGroup(groups[0], target, opts, code[0]);
    for (auto& w : workers)
      w.join();
  }
  for (auto& c : code)
    if (c.error)
      std::rethrow_exception(c.error);

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  jtmb.addFeatures(splitFeatures(target.features));
  jtmb.setCodeGenOptLevel(tm->getOptLevel());
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit)
    throw Error("codegen: cannot create the JIT: " + describe(jit.takeError()));
  defineRuntimeSymbols(**jit);
  std::vector<std::string> irs;
  for (size_t g = 0; g < code.size(); ++g) {
    auto buf = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(code[g].object.data(), code[g].object.size()),
        "kernels" + std::to_string(g) + ".o");
    if (auto err = (*jit)->addObjectFile(std::move(buf)))
      throw Error("codegen: the JIT rejected the object code: " + describe(std::move(err)));
    irs.push_back(std::move(code[g].ir));
  }

  std::map<std::string, std::pair<CompiledModule::KernelFn, ir::PrimFuncRef>> kernels;
  for (auto& [name, f] : funcs) {
    auto addr = (*jit)->lookup(detail::kernelSymbol(name));
    if (!addr)
      throw Error("codegen: cannot materialize kernel '" + name +
                  "': " + describe(addr.takeError()));
    kernels[name] = {addr->toPtr<CompiledModule::KernelFn>(), f};
  }
  return std::make_unique<HostModule>(std::move(*jit), target, opts.optLevel, std::move(irs),
                                      std::move(kernels));
}

} // namespace unity::codegen
