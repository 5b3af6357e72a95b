#pragma once
// C source code generation for lowered tensor-level functions (the `c`
// target kind), and a host module that compiles that source with the system
// C compiler and loads it, so the kernels run like the LLVM JIT's.
//
// Every kernel gets the packed calling convention of engine/codegen/README.md
// (`int32_t name(void** args, int64_t* shapes, int32_t nargs)`, same checks,
// same status codes), so the executor and runtime::callKernel treat both
// backends alike. The source is self-contained C99 (+ the GNU statement
// expression for PrimLet) over <stdint.h>, <stdbool.h>, <math.h>, <stdlib.h>.
#include <memory>
#include <string>

#include "engine/codegen/codegen.h"

namespace unity::codegen {

/// The C source of a set of functions (each is first lowered with
/// transform::lowerForCodegen). Throws unity::Error naming the function and
/// the construct it cannot translate (vector types, float16, handles, blocks
/// left after lowering ...).
std::string emitCSource(const NamedPrimFuncs& funcs);

/// The C symbol of kernel `name` (kernelSymbol with characters outside
/// [A-Za-z0-9_] replaced by '_').
std::string cSymbol(const std::string& name);

struct CCompileOptions {
  std::string compiler; // empty: $CC, else "cc"
  std::string flags = "-O3";
};

/// Compiles emitCSource(funcs) into a shared library in a temporary
/// directory (cc -O3 -shared -fPIC) and dlopens it. The module's llvmIR() is
/// empty; assembly()/object() run the C compiler again with -S / -c.
/// Throws unity::Error with the compiler's messages when compilation fails.
std::unique_ptr<CompiledModule> compileCForHost(const NamedPrimFuncs& funcs,
                                                const CCompileOptions& opts = {});

} // namespace unity::codegen
