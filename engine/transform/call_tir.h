#pragma once
// Recognising `R.call_tir(gv, (args...), out_sinfo=...)` bindings, shared by
// the passes that rewrite them (FuseOps, FuseTIR, LowerToExecutor).
#include <string>

#include "engine/ir/expr.h"
#include "engine/ir/module.h"
#include "engine/ir/tir.h"

namespace unity::transform {

/// The call when e is call_tir of a global function with an argument tuple
/// expression; null otherwise.
const ir::Call* asCallTIR(const ir::Expr& e);

/// A module whose `main(inputs...)` is one call_tir of `f` (stored as
/// `name`): every parameter of f but the last is an input tensor, the last
/// one the output. How a single tensor function is built and run through
/// the executor (tests, bench_kernels).
ir::IRModule moduleCallingPrimFunc(const ir::PrimFuncRef& f, const std::string& name = "kernel");

} // namespace unity::transform
