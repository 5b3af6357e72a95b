#pragma once
// Tensor-level lowering passes that run between scheduling and codegen.
//
// After these passes a PrimFunc contains only loops, lets, ifs, stores,
// allocations and evaluations: the form engine/codegen consumes.
//
// Buffers stay multi-dimensional: codegen computes row-major offsets itself
// (int64 index math, from the buffer's possibly symbolic shape), so there is
// no separate flatten pass; that keeps the lowered IR readable in the GUI and
// lets codegen see the original indices.
#include "engine/ir/tir.h"

namespace unity::transform {

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

/// Simplifies the index math of f (arith::simplify over the body, with the
/// shape variables of its buffer parameters known to be non-negative).
/// Returns `f` itself when nothing simplifies.
ir::PrimFuncRef simplifyIndexMath(const ir::PrimFuncRef& f);

/// What codegen runs on each function: lowerBlocks, then simplifyIndexMath.
ir::PrimFuncRef lowerForCodegen(const ir::PrimFuncRef& f);

} // namespace unity::transform
