#pragma once
// Tensor-level lowering passes that run between scheduling and codegen.
//
// After these passes a PrimFunc contains only loops, lets, ifs, stores,
// allocations and evaluations: the form engine/codegen consumes. The default
// pipeline runs them as registered passes, so each step shows in the pass
// record: LowerBlocks, Simplify, PartitionLoops, StorageRewrite, FlattenBuffers,
// LowerIntrinsics, UnrollLoops, VectorizeLoops, MakePackedAPI
// (builtin_passes.cpp).
//
// Codegen accepts both forms of buffer access: flattened (one row-major
// index, after FlattenBuffers; the function has attribute "buffers_flat") and
// multi-dimensional (a custom pipeline without FlattenBuffers), for which it
// computes the row-major offset itself with the same Horner rule.
#include <cstdint>

#include "engine/ir/arith.h"
#include "engine/ir/tir.h"

namespace unity::transform {

/// The PrimFunc attribute FlattenBuffers sets: every buffer access of the
/// function has exactly one (row-major) index, whatever the buffer's rank.
inline constexpr const char* kBuffersFlatAttr = "buffers_flat";

/// Removes every Block node:
///  - each block iteration variable is replaced by its binding (cast to the
///    variable's dtype when they differ);
///  - the reduction init runs under `if (binding_r0 == min_r0 && ...)` over
///    the reduce iteration variables (no reduce vars: always), before the body;
///  - alloc_buffers become Allocate nodes around the block's statements;
///  - a predicate becomes an IfThenElse around all of that.
/// Returns `f` itself when it contains no block.
ir::PrimFuncRef lowerBlocks(const ir::PrimFuncRef& f);
ir::Stmt lowerBlocks(const ir::Stmt& s);

/// An analyzer that knows the shape variables of f's buffer parameters are
/// non-negative (Simplify, FlattenBuffers and PartitionLoops start from it).
arith::Analyzer shapeAnalyzer(const ir::PrimFunc& f);

/// Simplifies the index math of f (arith::simplify over the body, with the
/// shape variables of its buffer parameters known to be non-negative).
/// Returns `f` itself when nothing simplifies.
ir::PrimFuncRef simplifyIndexMath(const ir::PrimFuncRef& f);

/// SkipPaddingTaps (see skip_padding_taps.cpp): the iterations of a loop
/// whose only statement accumulates a product with a zero-padded temporary
/// are dropped where the value read lies in the padding (a convolution's
/// border taps); an enclosing serial loop is cut into segments so that the
/// narrowed bounds are constants. Returns `f` itself when no loop qualifies.
ir::PrimFuncRef skipPaddingTaps(const ir::PrimFuncRef& f);

/// PartitionLoops (see partition_loops.cpp): a vectorized loop whose Select
/// conditions bound its variable (a padded read) is cut into serial border
/// loops and a vectorized interior where the test holds, then simplified
/// (the interior's clamps and tests fold away). Returns `f` itself when no
/// loop qualifies.
ir::PrimFuncRef partitionLoops(const ir::PrimFuncRef& f);

/// FlattenBuffers (see flatten_buffers.cpp): allocations of rank >= 2 become
/// 1-D buffers of the product size; every access of a buffer of rank >= 2
/// gets one row-major index. Parameter buffers keep their N-d declaration
/// (the calling convention). Sets kBuffersFlatAttr; returns `f` itself when
/// nothing needs flattening. Throws on a remaining Block.
ir::PrimFuncRef flattenBuffers(const ir::PrimFuncRef& f);
/// True when f carries kBuffersFlatAttr.
bool hasFlatBuffers(const ir::PrimFunc& f);

/// LowerIntrinsics (see lower_intrinsics.cpp): rsqrt, sigmoid and float32
/// erf become TIR arithmetic over exp/sqrt (erf: a rational approximation,
/// max abs error 4.2e-7). Returns `f` itself when there is none.
ir::PrimFuncRef lowerIntrinsics(const ir::PrimFuncRef& f);
ir::PrimExpr lowerIntrinsics(const ir::PrimExpr& e);

/// Unrolled loops whose constant extent times body size (IR nodes) is at
/// most this many become straight-line code (UnrollLoops).
inline constexpr int64_t kMaxUnrollNodes = 1024;
/// UnrollLoops (see unroll_loops.cpp): small `unrolled` loops with a constant
/// extent become copies of their body; others keep the LLVM hint. Returns
/// `f` itself when no loop qualifies.
ir::PrimFuncRef unrollLoops(const ir::PrimFuncRef& f);

/// The loop annotation VectorizeLoops leaves on a loop it made serial: why.
inline constexpr const char* kVectorizeRejectedAttr = "vectorize_rejected";
/// VectorizeLoops (see vectorize_loops.cpp): a `vectorized` loop that cannot
/// be vectorized (nested loop, allocation, scalar libm call, extent < 2)
/// becomes serial with kVectorizeRejectedAttr; legal ones are kept. Returns
/// `f` itself when every marked loop is legal.
ir::PrimFuncRef vectorizeLoops(const ir::PrimFuncRef& f);

/// The PrimFunc attribute MakePackedAPI sets, and its one value: the shape
/// prologue of the packed entry (shape variables bound from the runtime
/// dimensions, every other dimension checked) is explicit IR in the body.
inline constexpr const char* kCallingConvAttr = "calling_conv";
inline constexpr const char* kCallingConvPacked = "packed";
/// MakePackedAPI (see make_packed_api.cpp): binds each shape variable of the
/// buffer parameters with `let v = arg_dim(i, k)` at the top of the body and
/// checks every other dimension with `assert_dim(arg_dim(i, k) == d, i, k)`;
/// sets kCallingConvAttr. Returns `f` itself when it is already packed.
/// Throws when a shape variable occurs only inside compound dimensions.
ir::PrimFuncRef makePackedAPI(const ir::PrimFuncRef& f);
/// True when f carries calling_conv = "packed".
bool hasPackedAPI(const ir::PrimFunc& f);
/// arg_dim(param, dim) and assert_dim(cond, param, dim) (engine/ir/intrinsics.h).
ir::PrimExpr argDim(int64_t param, int64_t dim);
ir::PrimExpr assertDim(ir::PrimExpr cond, int64_t param, int64_t dim);

/// What codegen runs on each function: lowerBlocks, then simplifyIndexMath.
ir::PrimFuncRef lowerForCodegen(const ir::PrimFuncRef& f);

} // namespace unity::transform
