#pragma once
// Internals shared by the arith_*.cpp files: structural order and equality,
// interval helpers, the linear form, and the Rewriter that implements
// Analyzer::simplify. Not part of the public API.
#include <string>
#include <vector>

#include "engine/ir/arith.h"
#include "engine/ir/int_eval.h"

namespace unity::arith::detail {

// ------------------------------------------------------------ arith_order.cpp

/// Structural equality; variables and buffers compare by identity.
bool structEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
/// A deterministic total order (never by pointer): kind, dtype, then fields;
/// variables by name. Distinct variables with equal names compare equal.
int compareExpr(const ir::PrimExpr& a, const ir::PrimExpr& b);
/// The order of atoms in a sum: by the first variable name (pre-order),
/// then by compareExpr.
bool atomLess(const ir::PrimExpr& a, const ir::PrimExpr& b);

// ------------------------------------------------------------ arith_bound.cpp

constexpr int64_t kNegInf = ConstIntBound::kNegInf;
constexpr int64_t kPosInf = ConstIntBound::kPosInf;

/// The values a dtype can hold (int64: everything).
ConstIntBound dtypeRange(DataType t);
/// Interval arithmetic with -inf/+inf; results saturate to infinity.
ConstIntBound boundAdd(ConstIntBound a, ConstIntBound b);
ConstIntBound boundNeg(ConstIntBound a);
ConstIntBound boundMul(ConstIntBound a, ConstIntBound b);
ConstIntBound boundScale(ConstIntBound a, int64_t k);
ConstIntBound boundFloorDiv(ConstIntBound a, ConstIntBound b);
ConstIntBound boundFloorMod(ConstIntBound a, ConstIntBound b);
ConstIntBound boundUnion(ConstIntBound a, ConstIntBound b);
ConstIntBound boundIntersect(ConstIntBound a, ConstIntBound b);

/// Exact floor division / modulo (b != 0; the caller checks overflow cases).
using ir::floorDivInt;
using ir::floorModInt;

// ----------------------------------------------------------- arith_linear.cpp

struct Term {
  ir::PrimExpr atom;
  int64_t coef;
};
/// sum(coef * atom) + constant, over one integer dtype.
struct LinearForm {
  std::vector<Term> terms;
  int64_t constant = 0;
  bool isConst() const { return terms.empty(); }
};

/// Splits a (simplified) integer expression into its linear form: Add, Sub
/// and Mul by a constant are opened, anything else is an atom. False on
/// coefficient overflow.
bool toLinear(const ir::PrimExpr& e, LinearForm& out);
/// acc += k * x; false on overflow.
bool addScaled(LinearForm& acc, const LinearForm& x, int64_t k);
/// Merges equal atoms, folds floordiv(x,c)*c + floormod(x,c) into x, drops
/// zero terms and sorts by atomLess. False on overflow.
bool normalize(LinearForm& f);
/// The expression of a normalized form in dtype t; null when a coefficient
/// does not fit t.
ir::PrimExpr fromLinear(const LinearForm& f, DataType t);

// ---------------------------------------------------- arith_simplify*.cpp

/// Implements Analyzer::simplify and the bound analysis: one instance per
/// query, reading the analyzer's variable facts.
class Rewriter {
public:
  explicit Rewriter(Analyzer& an) : an_(an) {}

  ir::PrimExpr simplify(const ir::PrimExpr& e);
  ConstIntBound bound(const ir::PrimExpr& e);
  ConstIntBound boundLinear(const LinearForm& f);
  /// Interval bound tightened by substituting symbolic loop ranges.
  ConstIntBound boundSymbolic(const ir::PrimExpr& simplifiedDiff);
  /// The bound of simplify(a - b) (integers).
  ConstIntBound diffBound(const ir::PrimExpr& a, const ir::PrimExpr& b);

private:
  ir::PrimExpr visit(const ir::PrimExpr& e);
  ir::PrimExpr visitBinary(const ir::BinaryExpr* op, const ir::PrimExpr& self);
  ir::PrimExpr visitNot(const ir::NotExpr* op, const ir::PrimExpr& self);
  ir::PrimExpr visitSelect(const ir::Select* op, const ir::PrimExpr& self);
  ir::PrimExpr visitCast(const ir::CastExpr* op, const ir::PrimExpr& self);
  ir::PrimExpr visitLet(const ir::PrimLet* op, const ir::PrimExpr& self);

  // arith_simplify.cpp
  ir::PrimExpr foldFloat(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                         const ir::PrimExpr& self);
  ir::PrimExpr linearArith(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                           const ir::PrimExpr& self);
  ir::PrimExpr logic(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                     const ir::PrimExpr& self);
  // arith_divmod.cpp
  ir::PrimExpr floorDiv(const ir::PrimExpr& a, const ir::PrimExpr& b, const ir::PrimExpr& self);
  ir::PrimExpr floorMod(const ir::PrimExpr& a, const ir::PrimExpr& b, const ir::PrimExpr& self);
  ir::PrimExpr truncDiv(const ir::PrimExpr& a, const ir::PrimExpr& b, const ir::PrimExpr& self);
  ir::PrimExpr floorDivConst(const ir::PrimExpr& a, const ir::PrimExpr& b, int64_t c,
                             const ir::PrimExpr& self);
  ir::PrimExpr floorModConst(const ir::PrimExpr& a, const ir::PrimExpr& b, int64_t c,
                             const ir::PrimExpr& self);
  /// The bound of a linear remainder, tightened symbolically when needed.
  ConstIntBound remainderBound(const LinearForm& r, DataType t);
  // arith_compare.cpp
  ir::PrimExpr minMax(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                      const ir::PrimExpr& self);
  ir::PrimExpr comparison(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                          const ir::PrimExpr& self);

  Analyzer& an_;
};

/// Saves what the analyzer knows about a variable and restores it when the
/// scope ends (loops, lets, blocks).
class ScopedVar {
public:
  ScopedVar(Analyzer& an, const ir::Ref<ir::PrimVar>& v);
  ~ScopedVar();
  ScopedVar(const ScopedVar&) = delete;
  ScopedVar& operator=(const ScopedVar&) = delete;
  /// Within the scope v is only known to lie in b.
  void setBound(ConstIntBound b);
  /// Within the scope v is also known to lie in b (other facts are kept).
  void tighten(ConstIntBound b);

private:
  Analyzer& an_;
  ir::Ref<ir::PrimVar> var_;
  bool had_ = false;
  Analyzer::VarInfo saved_;
};

/// Integer constant folding of a binary arithmetic op; nullopt when the
/// result overflows t. Throws unity::Error on division by zero.
std::optional<int64_t> foldIntConst(ir::NodeKind op, int64_t x, int64_t y, DataType t);

/// a OP b, or self when a and b are self's operands.
ir::PrimExpr rebuildBinary(ir::NodeKind op, const ir::PrimExpr& a, const ir::PrimExpr& b,
                           const ir::PrimExpr& self);
/// Signed scalar integers get the integer rewrites; everything else only folds.
inline bool isIndexType(DataType t) { return t.isInt() && t.lanes == 1; }
/// Whether v fits dtype t (an integral or bool type).
bool fitsType(int64_t v, DataType t);

} // namespace unity::arith::detail
