#pragma once
// Facts about the LLVM this engine was built against, for --version and the
// About box. The header itself is LLVM-free so anyone may include it.
#include <string>

namespace unity::codegen {

/// LLVM's version string, e.g. "19.1.7".
std::string llvmVersion();
/// The host's default target triple and CPU name as LLVM sees them.
std::string hostTriple();
std::string hostCpu();

} // namespace unity::codegen
