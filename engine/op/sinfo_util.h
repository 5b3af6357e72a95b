#pragma once
// Printing and comparing struct info for diagnostics and the normalizer.
//
// The printer is deliberately small and local (the text/ printer is the
// canonical one): error messages need `Tensor((n, 128), float32)` without
// pulling the whole text format into operator deduction.
#include <string>

#include "engine/ir/expr.h"

namespace unity::op {

/// `n * 2 + 1`, `floordiv(h - 3, 2)`, `7`.
std::string primExprStr(const ir::PrimExpr& e);

/// `Tensor((n, 128), float32)`, `Tensor(ndim=2, float32)`, `Tensor(float32)`,
/// `Tuple(Tensor((2,), int64), Object)`, `Shape((n, 4))`, `Prim(int64)`,
/// `Func(...)`, `Object`; `?` for a missing struct info.
std::string sinfoStr(const ir::StructInfo& s);

/// How an operand prints in an error: its struct info, or `@name` for a
/// global function and `extern "sym"` for an external symbol.
std::string operandStr(const ir::Expr& e);

/// Equal struct info: same kinds, dtypes, ranks, and provably equal dims.
bool sinfoEqual(const ir::StructInfo& a, const ir::StructInfo& b);

/// False when a value of struct info `value` can never match `pattern`:
/// different kinds (unless one is Object), different known dtypes or ranks,
/// or dimensions that are provably different.
bool sinfoCompatible(const ir::StructInfo& pattern, const ir::StructInfo& value);

} // namespace unity::op
