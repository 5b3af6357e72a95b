#pragma once
// Native code generation for lowered tensor-level functions (LLVM-free API).
//
// A set of PrimFuncs becomes one LLVM module in which every function is a
// kernel with the packed calling convention described in README.md:
//
//   int32_t name(void** args, int64_t* shapes, int32_t nargs);
//
// compileForHost JIT-compiles the module for this machine and hands back
// function pointers; emitForTarget produces LLVM IR, assembly and an object
// file for any triple LLVM knows (cross targets are never executed).
//
// Functions may still contain Block nodes: transform::lowerForCodegen
// (lowerBlocks + index simplification) runs on each of them first.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/tir.h"

namespace unity::codegen {

struct CodegenOptions {
  std::string triple;         // empty: the host
  std::string cpu = "native"; // "native": the host CPU (generic for a cross triple)
  std::string features;       // "+avx2,-fma"; for "native" the host features are added
  int optLevel = 3;           // 0..3, LLVM's default pipelines
  bool fastMath = false;      // fast-math flags on every float operation
};

/// Return codes of generated kernels (0 is success).
enum KernelStatus : int32_t {
  kKernelOk = 0,
  kKernelBadArgCount = -1,   // nargs differs from the function's parameter count
  kKernelShapeMismatch = -2, // a runtime dimension contradicts the buffer's shape
  kKernelAllocFailed = -3,   // unity_alloc returned null for a local buffer
};

using NamedPrimFuncs = std::vector<std::pair<std::string, ir::PrimFuncRef>>;

/// Kernels JIT-compiled for the host. Owns the code; function pointers stay
/// valid as long as the module lives.
class CompiledModule {
public:
  using KernelFn = int32_t (*)(void** args, int64_t* shapes, int32_t nargs);
  virtual ~CompiledModule() = default;

  /// The kernel's entry point; throws unity::Error for an unknown name.
  virtual KernelFn lookup(const std::string& name) const = 0;
  /// The (lowered) function compiled under `name`; null when unknown.
  virtual ir::PrimFuncRef function(const std::string& name) const = 0;
  virtual std::vector<std::string> names() const = 0;

  /// The optimized LLVM IR of the whole module.
  virtual std::string llvmIR() const = 0;
  /// Host assembly and object code of the same module (generated on demand).
  virtual std::string assembly() const = 0;
  virtual std::vector<char> object() const = 0;
};

std::unique_ptr<CompiledModule> compileForHost(const NamedPrimFuncs& funcs,
                                               const CodegenOptions& opts = {});

/// Everything emitted for one target.
struct ArtifactSet {
  std::string triple, cpu;
  std::string llvmIR; // optimized
  std::string assembly;
  std::vector<char> object; // ELF / Mach-O / COFF as the triple implies
  /// Function name -> its symbol in the object (see kernelSymbol).
  std::vector<std::pair<std::string, std::string>> symbols;
};

/// The symbol a kernel gets: its name, unless that clashes with a C library
/// or runtime symbol the generated code may call ("exp", "tanhf", "memset",
/// "unity_*"); then name + "_kernel".
std::string kernelSymbol(const std::string& name);

/// Compiles for opts.triple (host when empty) without executing anything.
ArtifactSet emitForTarget(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::string emitLLVMIR(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::string emitAssembly(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::vector<char> emitObject(const NamedPrimFuncs& funcs, const CodegenOptions& opts);

} // namespace unity::codegen
