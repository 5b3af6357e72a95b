#pragma once
// The closed list of intrinsics a PrimCall may name.
//  - Math intrinsics (exp, erf, pow, ...): codegen maps each to an LLVM
//    intrinsic or a libm call; the reference interpreter to <cmath>.
//  - Calling-convention intrinsics, which MakePackedAPI writes into the
//    prologue of a function with attribute calling_conv = "packed":
//      arg_dim(i, k)           int64: dimension k of the buffer passed as
//                              argument i (i counts every parameter);
//      assert_dim(c, i, k)     bool: when c is false the call fails with the
//                              shape-mismatch status; i and k name the
//                              argument and dimension the check is about.
//    Both take int64 constants for i and k and may appear only in the
//    prologue (top-level lets and evaluations before the body).
#include <string_view>

namespace unity::ir {

struct IntrinsicInfo {
  const char* name;
  int arity;
  bool math = true; // false: a calling-convention intrinsic
};

inline constexpr const char* kArgDimIntrinsic = "arg_dim";
inline constexpr const char* kAssertDimIntrinsic = "assert_dim";

/// Null when `name` is not an intrinsic.
const IntrinsicInfo* findIntrinsic(std::string_view name);

} // namespace unity::ir
