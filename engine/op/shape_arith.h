#pragma once
// Symbolic arithmetic for shape deduction: keeps deduced shapes readable
// ((n + 2 - 3) // 1 + 1 -> n), decides equality of dimensions, and divides
// element counts exactly. simplify() and provablyEqual() delegate to the
// engine's simplifier (engine/ir/arith.h); the local linear form below backs
// provablyDifferent(), exact monomial division, and a structural fallback.
//
// Algorithm: an integer expression is brought into a *linear form* -- a
// constant plus a sum of atoms with integer coefficients, where an atom is
// anything that is not a sum or a product with a constant (a variable, a
// floordiv, a product of two symbolic terms). Equal atoms (structurally) are
// merged. Two expressions are provably equal when their linear forms' difference
// is the constant 0. floordiv/floormod by a constant that divides every
// coefficient is exact. Products of dimensions (element counts) are handled as
// *monomials* -- coefficient times a multiset of atoms -- which gives exact
// symbolic division for reshape's -1: (n*4*6) / (n*2) = 12.
//
// Everything works on int64 shape expressions; other integer dtypes are cast.
#include <optional>
#include <vector>

#include "engine/ir/prim_expr.h"

namespace unity::op::arith {

/// Structural equality of scalar expressions (variables by identity).
bool primEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);

/// Canonical, constant-folded form of an integer expression.
ir::PrimExpr simplify(const ir::PrimExpr& e);

/// True when a == b holds for every value of the variables (as far as the
/// linear form can tell; false means "not proven", not "different").
bool provablyEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);

/// True when a and b are certainly different (their difference is a non-zero
/// constant).
bool provablyDifferent(const ir::PrimExpr& a, const ir::PrimExpr& b);

/// Product of dimensions, simplified (1 for an empty list).
ir::PrimExpr product(const std::vector<ir::PrimExpr>& dims);

/// a / b when it is exact as monomials (coefficient divides, every symbolic
/// factor of b occurs in a); nullopt otherwise.
std::optional<ir::PrimExpr> divideExact(const ir::PrimExpr& a, const ir::PrimExpr& b);

/// ceil(a / b) for b > 0, simplified.
ir::PrimExpr ceildiv(const ir::PrimExpr& a, const ir::PrimExpr& b);

/// The expression cast to int64 (shape arithmetic is done in int64).
ir::PrimExpr toIndex(const ir::PrimExpr& e);

} // namespace unity::op::arith
