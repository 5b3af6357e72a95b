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
//  - prefetch(B[i, ...]): int32 0; a hint to bring the cache line holding
//    that element of B closer (LLVM's llvm.prefetch, C's __builtin_prefetch;
//    the interpreter ignores it). Its argument is a BufferLoad whose value
//    is never read, only its address computed. InjectPrefetch writes it.
#include <cstdint>
#include <string>
#include <string_view>

namespace unity::ir {

struct IntrinsicInfo {
  const char* name;
  int arity;
  bool math = true; // false: a calling-convention intrinsic
};

inline constexpr const char* kArgDimIntrinsic = "arg_dim";
inline constexpr const char* kAssertDimIntrinsic = "assert_dim";
inline constexpr const char* kPrefetchIntrinsic = "prefetch";
/// reinterpret(x): the bits of x read as the call's type, of the same width
/// (int32 <-> float32, int64 <-> float64). LowerIntrinsics builds powers of
/// two with it (exp); LLVM bitcast, C memcpy.
inline constexpr const char* kReinterpretIntrinsic = "reinterpret";

/// Null when `name` is not an intrinsic.
const IntrinsicInfo* findIntrinsic(std::string_view name);

class PrimFunc;
class PrimCall;
/// What an arg_dim / assert_dim call in f names: parameter `param` and its
/// dimension `dim`. `error` is non-empty, and says why, when the indices are
/// not constants or name no dimension of a buffer parameter of f. The LLVM
/// and C code generators and the interpreter share this check.
struct PackedArgDim {
  int64_t param = -1, dim = -1;
  std::string error;
};
PackedArgDim packedArgDim(const PrimFunc& f, const PrimCall& call);

} // namespace unity::ir
