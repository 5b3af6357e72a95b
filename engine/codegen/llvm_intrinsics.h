#pragma once
// Lowering of math intrinsics (ir/intrinsics.h) to LLVM. Internal to
// engine/codegen; LLVM types are forward-declared only.
#include <string>
#include <vector>

#include "engine/support/dtype.h"

namespace llvm {
class IRBuilderBase;
class Value;
} // namespace llvm

namespace unity::codegen::detail {

/// Emits `op(args...)`; args are already lowered values of type argType (a
/// float type), the result has resultType (argType, or bool for isnan/isinf).
/// `where` names the function for error messages. Throws unity::Error for
/// non-float arguments or float types without a libm counterpart.
llvm::Value* emitIntrinsic(llvm::IRBuilderBase& b, const std::string& op,
                           const std::vector<llvm::Value*>& args, DataType argType,
                           DataType resultType, const std::string& where);

/// The names of all intrinsics (ir/intrinsics.h), for reserving symbols.
std::vector<std::string> intrinsicNames();

} // namespace unity::codegen::detail
