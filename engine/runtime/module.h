#pragma once
// The module interface between code generation and execution.
//
// A CompiledModule serves kernels by name: generated code (the LLVM JIT, the
// C compiler's shared object), hand-written library kernels, or a dispatch
// over several of them (CompositeModule). Every kernel follows the packed
// calling convention of engine/codegen/README.md:
//
//   int32_t name(void** args, int64_t* shapes, int32_t nargs);
//
// The interface lives in runtime, below codegen and transform, because the
// executor consumes it and codegen, the library kinds and the build driver
// all produce it; no implementation detail of any producer appears here.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/tir.h"

namespace unity::runtime {

/// Return codes of kernels (0 is success).
enum KernelStatus : int32_t {
  kKernelOk = 0,
  kKernelBadArgCount = -1,   // nargs differs from the function's parameter count
  kKernelShapeMismatch = -2, // a runtime dimension contradicts the buffer's shape
  kKernelAllocFailed = -3,   // unity_alloc returned null for a local buffer
};

/// A kernel entry point (the packed convention).
using KernelFn = int32_t (*)(void** args, int64_t* shapes, int32_t nargs);

/// Tensor functions under the names they are compiled as, in module order.
using NamedPrimFuncs = std::vector<std::pair<std::string, ir::PrimFuncRef>>;

/// Kernels ready to call on this machine. Owns the code; function pointers
/// stay valid as long as the module lives.
class CompiledModule {
public:
  using KernelFn = runtime::KernelFn;
  virtual ~CompiledModule() = default;

  /// The kernel's entry point; throws unity::Error for an unknown name.
  virtual KernelFn lookup(const std::string& name) const = 0;
  /// The (lowered) function compiled under `name`; null when unknown.
  virtual ir::PrimFuncRef function(const std::string& name) const = 0;
  virtual std::vector<std::string> names() const = 0;

  /// The optimized LLVM IR of the whole module ("" when there is none).
  virtual std::string llvmIR() const = 0;
  /// Host assembly and object code of the same module (generated on demand;
  /// empty when the module has none).
  virtual std::string assembly() const = 0;
  virtual std::vector<char> object() const = 0;
};

/// Everything emitted for one target (what exists is filled).
struct ArtifactSet {
  std::string triple, cpu;
  std::string llvmIR; // optimized
  std::string assembly;
  std::vector<char> object; // ELF / Mach-O / COFF as the triple implies
  std::string cSource;      // the c kind's source
  /// Function name -> its symbol in the object (see codegen::kernelSymbol).
  std::vector<std::pair<std::string, std::string>> symbols;
};

} // namespace unity::runtime
