#pragma once
// PrimFunc -> LLVM IR. Internal to engine/codegen; LLVM types are only
// forward-declared so this header stays LLVM-free.
#include <memory>
#include <string>

#include "engine/codegen/codegen.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace unity::codegen::detail {

/// The symbol of kernel `name`: the name itself, unless it would clash with
/// a C library or runtime symbol the generated code may call (libm names such
/// as "exp" or "tanhf", "memset", "unity_*"); then `name + "_kernel"`.
std::string kernelSymbol(const std::string& name);

/// One LLVM module holding a packed kernel (README.md) per function. The
/// functions must be free of Block nodes. Throws unity::Error naming the
/// function and the cause for anything it cannot compile.
std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext& ctx, const NamedPrimFuncs& funcs,
                                             const CodegenOptions& opts);

} // namespace unity::codegen::detail
