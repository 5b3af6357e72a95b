#pragma once
// Library kernels: hand-written implementations of whole graph patterns that
// library target kinds (openblas, dnnl, the example kind) hand to a real
// library instead of generated code.
//
// A library kind lowers a claimed pattern to call_tir of a PrimFunc whose
// parameters describe the operands (buffers with their shapes, then int64
// scalars for static attributes such as strides) and whose attribute
// "library_kernel" names one of the kernels below; its body is empty, it is
// never compiled. LibraryModule then serves that PrimFunc's name with the
// kernel, so the executor and runtime::callKernel (which checks every shape
// against the PrimFunc first) call it like any compiled kernel.
//
// Kernels follow the packed convention of engine/codegen/README.md.
#include <map>
#include <string>
#include <vector>

#include "engine/runtime/module.h"

namespace unity::runtime {

/// The kernel registered under `symbol` ("openblas.dense", "dnnl.conv2d",
/// ...); null when unknown.
KernelFn findLibraryKernel(const std::string& symbol);
/// Adds (or replaces) a library kernel (how a new library kind plugs in).
void registerLibraryKernel(const std::string& symbol, KernelFn fn);
std::vector<std::string> libraryKernelNames();

/// The thread counts the libraries will use for their next kernel on this
/// thread: OpenBLAS's global count and the OpenMP runtime's (oneDNN's)
/// omp_get_max_threads() (-1 when no OpenMP runtime is loaded). Library
/// kernels set them from their sub-target's -num-cores before each call.
struct LibraryThreadSettings {
  int openblas = 0;
  int openmp = -1;
};
LibraryThreadSettings libraryThreadSettings();

/// Status returned by a library kernel whose library reported an error.
constexpr int32_t kKernelLibraryError = -4;

/// The kernels of one library sub-target: each PrimFunc must carry a
/// "library_kernel" attribute naming a registered kernel (unity::Error
/// otherwise, naming the function).
class LibraryModule : public CompiledModule {
public:
  explicit LibraryModule(const NamedPrimFuncs& funcs);
  KernelFn lookup(const std::string& name) const override;
  ir::PrimFuncRef function(const std::string& name) const override;
  std::vector<std::string> names() const override;
  std::string llvmIR() const override { return {}; }
  std::string assembly() const override { return {}; }
  std::vector<char> object() const override { return {}; }
  /// "name -> library kernel" lines, for reports.
  std::string describe() const;

private:
  std::map<std::string, std::pair<KernelFn, ir::PrimFuncRef>> kernels_;
  std::vector<std::string> order_;
};

} // namespace unity::runtime
