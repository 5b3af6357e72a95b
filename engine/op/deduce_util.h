#pragma once
// Internal helpers shared by the operator families (ops_*.cpp): registration,
// error reporting, typed access to arguments and attributes, axis handling,
// and numpy-style broadcasting of symbolic shapes.
//
// Every helper that can fail throws through fail(), so all deduction errors
// look alike: "R.<op>: <problem>; operands: [0] Tensor((n, 3), float32), ...;
// attrs: axis=1", located at the binding's span.
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/expr.h"
#include "engine/op/op.h"
#include "engine/op/shape_arith.h"

namespace unity::op::detail {

void registerOp(OpInfo info);

// One per family file; called once, in order, by the registry.
void registerElementwiseOps();
void registerNNOps();
void registerReduceOps();
void registerManipulationOps();
void registerLoweringOps();
void registerIndexOps();
void registerControlOps();
void registerSequenceOps();

/// Throws unity::Error for `call` with the message described above.
[[noreturn]] void fail(const ir::Call& call, const DeduceContext& ctx, const std::string& problem);

/// Argument i as a tensor; fails when it is absent or not a tensor.
const ir::TensorSInfo& tensorArg(const ir::Call& call, const DeduceContext& ctx, size_t i);
/// Argument i's values as a shape (a ShapeExpr or a value of Shape struct
/// info); nullopt when only the rank is known (then *ndim is set, -1 when
/// even that is unknown).
std::optional<std::vector<ir::PrimExpr>> shapeArg(const ir::Call& call, const DeduceContext& ctx,
                                                  size_t i, int* ndim);

// Attribute access with the registered default applied.
int64_t attrInt(const ir::Call& call, const DeduceContext& ctx, const std::string& name);
double attrFloat(const ir::Call& call, const DeduceContext& ctx, const std::string& name);
bool attrBool(const ir::Call& call, const DeduceContext& ctx, const std::string& name);
std::string attrString(const ir::Call& call, const DeduceContext& ctx, const std::string& name);
std::vector<int64_t> attrInts(const ir::Call& call, const DeduceContext& ctx,
                              const std::string& name);
/// Void when absent and the spec has no default.
DataType attrDType(const ir::Call& call, const DeduceContext& ctx, const std::string& name);
/// True when the attribute is given in the call (not defaulted).
bool hasAttr(const ir::Call& call, const std::string& name);

/// An axis in [-ndim, ndim) as a non-negative index; fails otherwise.
int normalizeAxis(const ir::Call& call, const DeduceContext& ctx, int64_t axis, int ndim);
/// Like normalizeAxis for a list; fails on repeated axes.
std::vector<int> normalizeAxes(const ir::Call& call, const DeduceContext& ctx,
                               const std::vector<int64_t>& axes, int ndim);

/// numpy broadcasting of two shapes (right-aligned; 1 stretches; otherwise
/// the dims must be provably equal). `what` names the operands in errors.
std::vector<ir::PrimExpr> broadcastShapes(const ir::Call& call, const DeduceContext& ctx,
                                          const std::vector<ir::PrimExpr>& a,
                                          const std::vector<ir::PrimExpr>& b);

/// The common dtype of two operands: fails when both are known and differ;
/// Void when either is unknown.
DataType unifyDType(const ir::Call& call, const DeduceContext& ctx, DataType a, DataType b);

/// Fails when dimension `a` is not provably equal to `b`.
void requireEqualDim(const ir::Call& call, const DeduceContext& ctx, const ir::PrimExpr& a,
                     const ir::PrimExpr& b, const std::string& what);

/// A tensor struct info with every dim simplified.
ir::StructInfo tensorOf(DataType dtype, std::vector<ir::PrimExpr> shape);

/// Expands a spatial attribute of length 1 to `n` entries; fails on any
/// other length than 1 or n.
std::vector<int64_t> expandSpatial(const ir::Call& call, const DeduceContext& ctx,
                                   const std::string& name, std::vector<int64_t> v, size_t n);

} // namespace unity::op::detail
