#pragma once
// The closed list of math intrinsics a PrimCall may name. Codegen maps each
// to an LLVM intrinsic or a libm call; the reference interpreter to <cmath>.
#include <string_view>

namespace unity::ir {

struct IntrinsicInfo {
  const char* name;
  int arity;
};

/// Null when `name` is not an intrinsic.
const IntrinsicInfo* findIntrinsic(std::string_view name);

} // namespace unity::ir
