#include "engine/codegen/llvm_info.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/TargetParser/Host.h>

namespace unity::codegen {

std::string llvmVersion() { return LLVM_VERSION_STRING; }
std::string hostTriple() { return llvm::sys::getDefaultTargetTriple(); }
std::string hostCpu() { return std::string(llvm::sys::getHostCPUName()); }

} // namespace unity::codegen
