#pragma once
// Recognising `R.call_tir(gv, (args...), out_sinfo=...)` bindings, shared by
// the passes that rewrite them (FuseOps, FuseTIR, LowerToExecutor).
#include "engine/ir/expr.h"

namespace unity::transform {

/// The call when e is call_tir of a global function with an argument tuple
/// expression; null otherwise.
const ir::Call* asCallTIR(const ir::Expr& e);

} // namespace unity::transform
