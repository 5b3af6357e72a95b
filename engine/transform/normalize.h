#pragma once
// Normalize: fill in the struct info of every graph-level expression.
#include "engine/ir/module.h"

namespace unity::transform {

/// Fills the struct info of every graph-level expression and bound variable
/// (creating new Var nodes where a variable lacked struct info or it changed,
/// and remapping their uses), checks match_cast patterns statically where
/// possible, wraps a non-SeqExpr function body into a SeqExpr and deduces a
/// function's return struct info when absent. Calls of global functions take
/// the callee's return struct info. Returns the very same module when nothing
/// changes. Errors are unity::Error carrying the binding's span.
ir::IRModule normalize(const ir::IRModule& m);

/// The same for one expression, without a module (calls of global functions
/// take the GlobalVar's own struct info, or Object).
ir::Expr normalizeExpr(const ir::Expr& e);

} // namespace unity::transform
