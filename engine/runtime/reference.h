#pragma once
// The reference evaluator: a slow, literal interpreter of the graph level
// that the compiled pipeline is checked against.
//
// referenceRun() walks a (normalized or not) module's graph function binding
// by binding: variables, constants, tuples, shape and prim values,
// match_cast (checking and binding shape variables), if, calls of other
// graph functions, and every registered operator, each implemented directly
// as nested loops over doubles (floats) or int64 (integers) in
// reference_ops_*.cpp. It never uses te, legalization or codegen, so a
// disagreement with build() points at the lowering. It also runs call_tir
// (and the executor's alloc_tensor / call_tir_dps form) through the te
// interpreter, so a module stopped anywhere in the pipeline can be checked.
//
// Every value bound to a variable that carries struct info is checked
// against it (dtype, rank, each dimension evaluated with the shape variables
// bound so far), which also catches wrong shape deductions. Every failure is
// a unity::Error "reference: ..." naming the function, binding and cause.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "engine/ir/module.h"
#include "engine/support/tensor.h"

namespace unity::op {
struct OpInfo;
}

namespace unity::runtime {

/// Runs graph function `fn` of m on the input tensors and returns its
/// output tensors (a tuple result is flattened, in order).
std::vector<Tensor> referenceRun(const ir::IRModule& m, const std::vector<Tensor>& inputs,
                                 const std::string& fn = "main");

/// Names of the operators the reference implements, sorted.
std::vector<std::string> referenceOps();

namespace reference {

/// A run-time value of the reference evaluator.
struct RefValue {
  std::variant<std::monostate, Tensor, std::vector<RefValue>, std::vector<int64_t>, int64_t, double,
               std::string>
      v;
  RefValue() = default;
  RefValue(Tensor t) : v(std::move(t)) {}
  static RefValue tuple(std::vector<RefValue> fields);
  static RefValue shape(std::vector<int64_t> dims);
  bool isTensor() const { return std::holds_alternative<Tensor>(v); }
  const std::vector<RefValue>* asTuple() const { return std::get_if<std::vector<RefValue>>(&v); }
  const std::vector<int64_t>* asShape() const { return std::get_if<std::vector<int64_t>>(&v); }
};

/// One operator call as the implementations see it: evaluated operands, the
/// call (attributes) and the registry entry (attribute defaults).
struct OpCall {
  const ir::Call& call;
  const op::OpInfo& info;
  std::vector<RefValue> args;

  /// Operand i as a tensor / tuple of tensors / shape; throws otherwise.
  const Tensor& tensor(size_t i) const;
  std::vector<Tensor> tensors(size_t i) const;
  std::vector<int64_t> shape(size_t i) const;
  /// Attribute values, with the registry's default when absent.
  int64_t attrInt(const std::string& name) const;
  double attrFloat(const std::string& name) const;
  bool attrBool(const std::string& name) const;
  std::string attrString(const std::string& name) const;
  std::vector<int64_t> attrInts(const std::string& name) const;
  DataType attrDType(const std::string& name) const; // Void when absent and none
  /// Given explicitly, or with a default that is not "none".
  bool hasAttr(const std::string& name) const;
  /// Throws unity::Error "reference: R.<op>: <msg>".
  [[noreturn]] void fail(const std::string& msg) const;
  /// Axis in [-ndim, ndim) made non-negative; fails otherwise.
  int axis(int64_t a, int ndim) const;
};

using OpImpl = std::function<RefValue(const OpCall&)>;
using OpTable = std::map<std::string, OpImpl>;

void addElementwiseOps(OpTable& t);
void addNNOps(OpTable& t);
void addReduceOps(OpTable& t);
void addManipOps(OpTable& t);
void addIndexOps(OpTable& t);

// ---- small helpers shared by the operator files (reference_util.cpp) ----

/// Row-major strides of a shape.
std::vector<int64_t> stridesOf(const std::vector<int64_t>& shape);
int64_t numelOf(const std::vector<int64_t>& shape);
/// Flat index -> multi-index of a shape.
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape);
/// Multi-index -> flat index.
int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape);
/// Element of x at a multi-index, as double.
double at(const Tensor& x, const std::vector<int64_t>& idx);
/// numpy broadcast of two shapes; throws via c.fail when they do not broadcast.
std::vector<int64_t> broadcastShape(const OpCall& c, const std::vector<int64_t>& a,
                                    const std::vector<int64_t>& b);
/// The index into a tensor of `shape` for an index of the broadcast output.
std::vector<int64_t> broadcastIndex(const std::vector<int64_t>& outIdx,
                                    const std::vector<int64_t>& shape);
/// Stores v converted to t's dtype (floats rounded to the storage type,
/// integers truncated toward zero, bool = v != 0).
void store(Tensor& t, int64_t flat, double v);

} // namespace reference
} // namespace unity::runtime
