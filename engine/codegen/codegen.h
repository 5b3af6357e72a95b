#pragma once
// Native code generation for lowered tensor-level functions (LLVM-free API).
// The modules it returns implement runtime::CompiledModule
// (engine/runtime/module.h).
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
#include "engine/runtime/module.h"
#include "engine/target/target.h"

namespace unity::codegen {

struct CodegenOptions {
  std::string triple;         // empty: the host
  std::string cpu = "native"; // "native": the host CPU (generic for a cross triple)
  std::string features;       // "+avx2,-fma"; for "native" the host features are added
  int optLevel = 3;           // 0..3, LLVM's default pipelines
  bool fastMath = false;      // fast-math flags on every float operation
};

// The module interface codegen produces lives in runtime (module.h); these
// names are used unqualified throughout codegen.
using runtime::ArtifactSet;
using runtime::CompiledModule;
using runtime::KernelFn;
using runtime::kKernelAllocFailed;
using runtime::kKernelBadArgCount;
using runtime::kKernelOk;
using runtime::kKernelShapeMismatch;
using runtime::NamedPrimFuncs;

/// The options of the code-generating kinds (llvm, c) from a target's
/// attributes: -mtriple, -mcpu (default "native" for the host, generic for a
/// foreign triple), -mattr, -opt-level (default 3), -fast-math. The one place
/// these attributes are read.
CodegenOptions codegenOptions(const target::Target& t);

std::unique_ptr<CompiledModule> compileForHost(const NamedPrimFuncs& funcs,
                                               const CodegenOptions& opts = {});

/// The symbol a kernel gets: its name, unless that clashes with a C library
/// or runtime symbol the generated code may call ("exp", "tanhf", "memset",
/// "unity_*"); then name + "_kernel".
std::string kernelSymbol(const std::string& name);

/// Compiles for opts.triple (host when empty) without executing anything.
ArtifactSet emitForTarget(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::string emitLLVMIR(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::string emitAssembly(const NamedPrimFuncs& funcs, const CodegenOptions& opts);
std::vector<char> emitObject(const NamedPrimFuncs& funcs, const CodegenOptions& opts);

/// Registers the hooks of the code-generating kinds `llvm` and `c`
/// (transform::registerKindHooks; kind_hooks.cpp), where none are registered
/// yet. build() calls it; idempotent.
void registerCodegenKindHooks();

} // namespace unity::codegen
