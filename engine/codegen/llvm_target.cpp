// Target machines, the optimization pipeline and machine-code emission.
//
// The pipeline is LLVM's own per-module default (PassBuilder) at the chosen
// level, built with the target machine so that cost models (vectorizer width,
// unrolling) see the real CPU: "-mcpu=native" means the host CPU name and its
// detected feature list, which is what makes AVX-512 code possible here.
#include "engine/codegen/llvm_target.h"

#include <mutex>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>

#include "engine/support/error.h"

namespace unity::codegen::detail {

void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Cross targets we emit objects for: InitializeNativeTarget covers only
    // the host's, so each of these is initialised by name.
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
  });
}

static bool isHostTriple(const std::string& triple) {
  return triple.empty() ||
         llvm::Triple::normalize(triple) == llvm::Triple::normalize(llvm::sys::getProcessTriple());
}

target::MachineModel codegenMachine(const CodegenOptions& opts) {
  target::MachineQuery q;
  q.triple = opts.triple;
  q.cpu = opts.cpu;
  q.mattr = opts.features;
  q.runsHere = isHostTriple(opts.triple);
  return target::machineModel(q);
}

ResolvedTarget resolveTarget(const CodegenOptions& opts) {
  ResolvedTarget t;
  std::string host = llvm::sys::getProcessTriple();
  t.triple = opts.triple.empty() ? host : llvm::Triple::normalize(opts.triple);
  t.isHost = isHostTriple(opts.triple);
  std::string features;
  if (opts.cpu.empty() || opts.cpu == "native") {
    if (t.isHost) {
      t.cpu = std::string(llvm::sys::getHostCPUName());
      for (auto& f : llvm::sys::getHostCPUFeatures()) {
        if (!features.empty())
          features += ",";
        features += (f.second ? "+" : "-") + f.first().str();
      }
    } else {
      t.cpu = "generic";
    }
  } else {
    t.cpu = opts.cpu;
  }
  // LLVM tunes AVX-512 CPUs (skylake-avx512 ... and the host here) to
  // prefer 256-bit vectors (frequency concerns of mixed code). Our kernels
  // are long dense loops where the full width pays (docs/benchmarks.md,
  // "Full-width vectors"), and the default schedule tiles for the machine
  // model's 512-bit vectors.
  // "+prefer-256-bit" in -mattr restores LLVM's choice (and makes the
  // model 256-bit).
  if (codegenMachine(opts).vectorBits == 512 &&
      opts.features.find("prefer-256-bit") == std::string::npos)
    features += std::string(features.empty() ? "" : ",") + "-prefer-256-bit";
  // Explicit features come last so they override the detected ones.
  if (!opts.features.empty())
    features += std::string(features.empty() ? "" : ",") + opts.features;
  t.features = features;
  return t;
}

static llvm::CodeGenOptLevel codeGenLevel(int optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const ResolvedTarget& t, int optLevel) {
  initializeLLVMTargets();
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, err);
  if (!target)
    throw Error("codegen: unknown target triple '" + t.triple + "': " + err);
  llvm::Triple triple(t.triple);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(t.triple, t.cpu, ""));
  if (t.cpu != "generic" && (!sti || !sti->isCPUStringValid(t.cpu)))
    throw Error("codegen: CPU '" + t.cpu + "' is not known for target '" + t.triple + "'");
  llvm::TargetOptions to;
  // Fuse a*b+c into FMA in the backend, as TVM and GCC do by default
  // (-ffp-contract=fast); other fast-math relaxations stay opt-in.
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::optional<llvm::Reloc::Model> reloc;
  if (triple.isOSBinFormatELF() && triple.getOS() != llvm::Triple::UnknownOS)
    reloc = llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      t.triple, t.cpu, t.features, to, reloc, std::nullopt, codeGenLevel(optLevel)));
  if (!tm)
    throw Error("codegen: cannot create a target machine for '" + t.triple + "'");
  return tm;
}

void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel) {
  m.setTargetTriple(tm.getTargetTriple().str());
  m.setDataLayout(tm.createDataLayout());
  std::string verifyErrors;
  llvm::raw_string_ostream vos(verifyErrors);
  if (llvm::verifyModule(m, &vos))
    throw Error("codegen: internal error, generated LLVM IR is invalid: " + verifyErrors);

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  pto.LoopUnrolling = optLevel >= 1;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm;
  if (level == llvm::OptimizationLevel::O0) {
    mpm = pb.buildO0DefaultPipeline(level);
  } else {
    // Inline the always-inline `.compute` / `.parN.body` functions first, on
    // the IR as generated, where every access is one getelementptr off its
    // buffer parameter. The inliner turns the parameters' `noalias` into
    // scoped alias metadata only for accesses whose underlying object it can
    // find, and that search gives up after six getelementptrs; inside the
    // default pipeline the callee is inlined after InstCombine has split
    // each flattened index into a chain of them, so the loads of a padded
    // image would lose their scope and every reduction that reads one would
    // need runtime overlap checks and keep its accumulators in memory.
    mpm.addPass(llvm::AlwaysInlinerPass());
    mpm.addPass(pb.buildPerModuleDefaultPipeline(level));
  }
  mpm.run(m, mam);
}

static void emitTo(llvm::Module& m, llvm::TargetMachine& tm, llvm::raw_pwrite_stream& os,
                   llvm::CodeGenFileType type) {
  m.setTargetTriple(tm.getTargetTriple().str());
  m.setDataLayout(tm.createDataLayout());
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    throw Error("codegen: target '" + tm.getTargetTriple().str() + "' cannot emit this file type");
  pm.run(m);
}

std::string emitAssemblyText(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  emitTo(m, tm, os, llvm::CodeGenFileType::AssemblyFile);
  return std::string(buf.begin(), buf.end());
}

std::vector<char> emitObjectBytes(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  emitTo(m, tm, os, llvm::CodeGenFileType::ObjectFile);
  return std::vector<char>(buf.begin(), buf.end());
}

std::string printModule(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

} // namespace unity::codegen::detail
