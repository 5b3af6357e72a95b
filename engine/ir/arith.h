#pragma once
// The arithmetic simplifier and prover for index and shape expressions.
//
// An Analyzer holds what is known about variables (loop ranges, shape
// variables that are non-negative, variables equal to an expression) and
// answers three kinds of questions with it:
//  - simplify(e): an equivalent, canonical expression. Integer +, -, * by
//    constants become a sum of monomials with integer coefficients over
//    variables and non-linear atoms (floordiv, min, products of variables,
//    loads...), ordered deterministically (by first variable name, then by a
//    structural order; never by pointer). floordiv/floormod, min/max and
//    comparisons are rewritten with the help of constant bounds. Float
//    expressions are only constant-folded.
//  - canProve(cond): true only when cond is provably true (false means "don't
//    know" as well as "false").
//  - constIntBound(e): an interval [min, max] that surely contains e, by
//    interval arithmetic over the bound variables.
// Everything assumes integer arithmetic does not overflow (as TVM does).
// simplify returns the very same Ref when nothing simplifies.
#include <climits>
#include <cstdint>
#include <unordered_map>

#include "engine/ir/prim_expr.h"
#include "engine/ir/tir.h"

namespace unity::arith {

/// A closed interval of integers; INT64_MIN / INT64_MAX stand for -inf/+inf.
struct ConstIntBound {
  int64_t min, max;
  static constexpr int64_t kNegInf = INT64_MIN;
  static constexpr int64_t kPosInf = INT64_MAX;
  bool isConst() const { return min == max; }
  bool contains(int64_t v) const { return min <= v && v <= max; }
  friend bool operator==(const ConstIntBound&, const ConstIntBound&) = default;
};

namespace detail {
class Rewriter;
class ScopedVar;
class StmtSimplifier;
} // namespace detail

class Analyzer {
public:
  /// v ranges over [r.min, r.min + r.extent). Replaces what was known about v.
  void bind(const ir::Ref<ir::PrimVar>& v, const ir::Range& r);
  /// v == value: v is substituted by (the simplified) value.
  void bind(const ir::Ref<ir::PrimVar>& v, const ir::PrimExpr& value);
  /// v >= 0 (shape variables). v >= 1 is NOT assumed.
  void markNonNegative(const ir::Ref<ir::PrimVar>& v);
  /// Forgets everything bound about v (leaving a loop's scope).
  void unbind(const ir::Ref<ir::PrimVar>& v);

  ir::PrimExpr simplify(const ir::PrimExpr& e);
  /// True only if cond (a bool expression) is provably true.
  bool canProve(const ir::PrimExpr& cond);
  bool canProveEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
  ConstIntBound constIntBound(const ir::PrimExpr& e);

private:
  friend class detail::Rewriter;
  friend class detail::ScopedVar;
  friend class detail::StmtSimplifier;
  struct VarInfo {
    ir::Ref<ir::PrimVar> var; // keeps the key alive
    ConstIntBound bound;
    ir::PrimExpr value;              // substitution, or null
    ir::PrimExpr rangeMin, rangeMax; // symbolic inclusive range, or null
  };
  std::unordered_map<const ir::PrimVar*, VarInfo> vars_;
};

/// simplify with an empty context.
ir::PrimExpr simplify(const ir::PrimExpr& e);
/// canProveEqual with an empty context.
bool provablyEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
/// Simplifies every expression in s, with loop variables bound to their
/// ranges and block iteration variables to their domains; drops loops of
/// extent 1 (substituting min) and folds if-then-else with a provable
/// condition. Returns the same Ref when nothing changes.
ir::Stmt simplify(const ir::Stmt& s);
/// The same in a given context (e.g. shape variables marked non-negative).
ir::Stmt simplify(const ir::Stmt& s, Analyzer& analyzer);

} // namespace unity::arith
