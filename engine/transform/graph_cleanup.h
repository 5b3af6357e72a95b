#pragma once
// Graph-level clean-up passes: dead-code elimination and binding
// canonicalisation. Both keep every untouched node shared.
#include "engine/transform/pass.h"

namespace unity::transform {

/// Dead-code elimination.
///  * In every graph-level Function, a VarBinding whose variable is never
///    used (by later bindings, the result, or nested functions) is removed.
///    Graph-level functions are pure, so this never drops an effect.
///    MatchCast bindings are kept: they check shapes at run time.
///  * Functions unreachable from the module's entry functions are removed.
///    Entry functions are the graph-level Functions without the "primitive"
///    attribute (fused sub-functions carry it); when a module has no entry
///    function (a library of tensor functions), nothing is removed.
ir::IRModule deadCodeElimination(const ir::IRModule& m);

/// Canonicalize bindings: `y = x` (an alias of another variable) is removed
/// and y's uses become x — except when y is the output of a dataflow block
/// and x is local to it (then the alias is what exports x); `a = t[i]` where
/// t is bound to a literal tuple becomes `a = <field i>`, which often turns
/// into an alias in turn.
ir::IRModule canonicalizeBindings(const ir::IRModule& m);

PassRef deadCodeEliminationPass();
PassRef canonicalizeBindingsPass();

} // namespace unity::transform
