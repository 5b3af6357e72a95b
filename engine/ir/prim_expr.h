#pragma once
// Scalar expressions of the tensor level, also used for symbolic shapes at the
// graph level (a dimension `n` is a PrimVar shared by both levels).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/node.h"
#include "engine/support/dtype.h"

namespace unity::ir {

class Buffer;

class PrimExprNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::IntImm, kLast = NodeKind::PrimLet;
  PrimExprNode(NodeKind k, DataType dtype) : Node(k), dtype(dtype) {}
  const DataType dtype;
};
using PrimExpr = Ref<PrimExprNode>;

class IntImm : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::IntImm, kLast = NodeKind::IntImm;
  IntImm(DataType dtype, int64_t value);
  const int64_t value;
};

class FloatImm : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::FloatImm, kLast = NodeKind::FloatImm;
  FloatImm(DataType dtype, double value);
  const double value;
};

/// A scalar variable: loop variable, let variable, shape variable (`n`).
/// Identity is the node itself; the name is only a hint for printing.
class PrimVar : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimVar, kLast = NodeKind::PrimVar;
  PrimVar(std::string name, DataType dtype = DataType::Int64());
  const std::string name;
};
using PrimVarRef = Ref<PrimVar>;

/// a OP b for every binary kind (Add ... Or). Both operands share one dtype;
/// comparisons and logic produce bool.
class BinaryExpr : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Add, kLast = NodeKind::Or;
  BinaryExpr(NodeKind op, PrimExpr a, PrimExpr b);
  const PrimExpr a, b;
  NodeKind op() const { return kind(); }
};
const char* binaryOpSymbol(NodeKind op); // "+", "floordiv", ...
bool isComparison(NodeKind op);
/// The comparison (EQ ... GE) that holds exactly when `op` does not:
/// EQ <-> NE, LT <-> GE, LE <-> GT.
NodeKind negateComparison(NodeKind op);
/// x OP y for a comparison kind `op` (EQ ... GE) on two values.
template <class T> bool compareValues(NodeKind op, T x, T y) {
  switch (op) {
  case NodeKind::EQ:
    return x == y;
  case NodeKind::NE:
    return x != y;
  case NodeKind::LT:
    return x < y;
  case NodeKind::LE:
    return x <= y;
  case NodeKind::GT:
    return x > y;
  default:
    return x >= y;
  }
}

class NotExpr : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Not, kLast = NodeKind::Not;
  explicit NotExpr(PrimExpr a);
  const PrimExpr a;
};

class Select : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Select, kLast = NodeKind::Select;
  Select(PrimExpr cond, PrimExpr t, PrimExpr f);
  const PrimExpr cond, t, f;
};

class CastExpr : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Cast, kLast = NodeKind::Cast;
  CastExpr(DataType dtype, PrimExpr value);
  const PrimExpr value;
};

class BufferLoad : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::BufferLoad, kLast = NodeKind::BufferLoad;
  BufferLoad(Ref<Buffer> buffer, std::vector<PrimExpr> indices);
  const Ref<Buffer> buffer;
  const std::vector<PrimExpr> indices;
};

/// Call of a math intrinsic by name (see intrinsics.h for the closed list).
class PrimCall : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimCall, kLast = NodeKind::PrimCall;
  PrimCall(DataType dtype, std::string op, std::vector<PrimExpr> args);
  const std::string op;
  const std::vector<PrimExpr> args;
};

class PrimLet : public PrimExprNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimLet, kLast = NodeKind::PrimLet;
  PrimLet(Ref<PrimVar> var, PrimExpr value, PrimExpr body);
  const Ref<PrimVar> var;
  const PrimExpr value, body;
};

// ---- construction helpers (no simplification; see arith/ for that) ----
PrimExpr intImm(int64_t v, DataType t = DataType::Int64());
PrimExpr floatImm(double v, DataType t = DataType::Float32());
PrimExpr boolImm(bool v);
Ref<PrimVar> primVar(std::string name, DataType t = DataType::Int64());
PrimExpr binary(NodeKind op, PrimExpr a, PrimExpr b);
PrimExpr floordiv(PrimExpr a, PrimExpr b);
PrimExpr floormod(PrimExpr a, PrimExpr b);
PrimExpr min(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
PrimExpr select(PrimExpr c, PrimExpr t, PrimExpr f);
PrimExpr cast(DataType t, PrimExpr v);
PrimExpr call(DataType t, std::string op, std::vector<PrimExpr> args);
PrimExpr logicalAnd(PrimExpr a, PrimExpr b);
PrimExpr logicalOr(PrimExpr a, PrimExpr b);
PrimExpr logicalNot(PrimExpr a);

/// Operators for concise construction (the te builder and tests use them).
/// An int literal operand takes the dtype of the other side.
PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator/(PrimExpr a, PrimExpr b);
PrimExpr operator+(PrimExpr a, int64_t b);
PrimExpr operator-(PrimExpr a, int64_t b);
PrimExpr operator*(PrimExpr a, int64_t b);
PrimExpr operator+(int64_t a, PrimExpr b);
PrimExpr operator*(int64_t a, PrimExpr b);
PrimExpr operator-(PrimExpr a);
PrimExpr operator==(PrimExpr a, PrimExpr b) = delete; // ambiguous with identity
PrimExpr eq(PrimExpr a, PrimExpr b);
PrimExpr ne(PrimExpr a, PrimExpr b);
PrimExpr lt(PrimExpr a, PrimExpr b);
PrimExpr le(PrimExpr a, PrimExpr b);
PrimExpr gt(PrimExpr a, PrimExpr b);
PrimExpr ge(PrimExpr a, PrimExpr b);

/// The constant value if `e` is an IntImm.
std::optional<int64_t> asConstInt(const PrimExpr& e);
bool isConstInt(const PrimExpr& e, int64_t v);
/// A literal of type t with value v (int or float).
PrimExpr makeConst(DataType t, double v);

} // namespace unity::ir
