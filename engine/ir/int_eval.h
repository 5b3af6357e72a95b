#pragma once
// Evaluation of integer (and bool) scalar expressions once every variable
// has a value: shape expressions at run time (executor, reference evaluator).
// Floor division and modulo follow the IR's semantics (round toward -inf).
#include <cstdint>
#include <functional>
#include <optional>

#include "engine/ir/prim_expr.h"

namespace unity::ir {

int64_t floorDivInt(int64_t a, int64_t b); // b != 0
int64_t floorModInt(int64_t a, int64_t b); // b != 0

/// Value of a variable, or nullopt when it is unbound.
using IntLookup = std::function<std::optional<int64_t>(const PrimVar*)>;

/// Evaluates e; throws unity::Error naming the problem (an unbound variable,
/// division by zero, a kind that is not an integer expression).
int64_t evalIntExpr(const PrimExpr& e, const IntLookup& lookup);

} // namespace unity::ir
