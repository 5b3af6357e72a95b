// Elementwise and broadcasting operators: unary math, activations, binary
// arithmetic, comparisons, logic, where, astype.
//
// Unary ops keep the operand's struct info (the very same node). Binary ops
// broadcast numpy-style over symbolic shapes (deduce_util's broadcastShapes):
// a 1 stretches, otherwise dims must be provably equal. When a shape is
// unknown the result keeps what is known: the larger rank, or nothing.
#include <fmt/format.h>

#include "engine/op/deduce_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

/// Unary: same struct info; `floatOnly` rejects integer tensors (exp, log...).
DeduceFn unary(bool floatOnly, bool boolOnly = false) {
  return [floatOnly, boolOnly](const Call& call, const DeduceContext& ctx) -> StructInfo {
    const TensorSInfo& x = tensorArg(call, ctx, 0);
    if (floatOnly && !x.dtype.isVoid() && !x.dtype.isFloat())
      fail(call, ctx, fmt::format("requires a float tensor, got {}", x.dtype.str()));
    if (boolOnly && !x.dtype.isVoid() && !x.dtype.isBool())
      fail(call, ctx, fmt::format("requires a bool tensor, got {}", x.dtype.str()));
    return call.args[0]->sinfo;
  };
}

/// Broadcast of the shapes of operands `idx` with result dtype `dtype`.
StructInfo broadcastResult(const Call& call, const DeduceContext& ctx,
                           const std::vector<size_t>& idx, DataType dtype) {
  std::vector<PrimExpr> shape;
  int ndim = 0;
  bool known = true;
  for (size_t i : idx) {
    const TensorSInfo& t = tensorArg(call, ctx, i);
    if (t.ndim < 0)
      return tensorSInfo(dtype, -1);
    ndim = std::max(ndim, t.ndim);
    if (!t.shape)
      known = false;
    else if (known)
      shape = i == idx.front() ? *t.shape : broadcastShapes(call, ctx, shape, *t.shape);
  }
  if (!known)
    return tensorSInfo(dtype, ndim);
  return tensorOf(dtype, std::move(shape));
}

enum class BinaryKind { Arith, Compare, Logic, Shift };

DeduceFn binaryOp(BinaryKind kind) {
  return [kind](const Call& call, const DeduceContext& ctx) -> StructInfo {
    const TensorSInfo& a = tensorArg(call, ctx, 0);
    const TensorSInfo& b = tensorArg(call, ctx, 1);
    DataType t = unifyDType(call, ctx, a.dtype, b.dtype);
    if (kind == BinaryKind::Logic && !t.isVoid() && !t.isBool())
      fail(call, ctx, fmt::format("requires bool tensors, got {}", t.str()));
    if (kind == BinaryKind::Shift && !t.isVoid() && !t.isUInt())
      fail(call, ctx, fmt::format("requires unsigned integer tensors, got {}", t.str()));
    DataType out = kind == BinaryKind::Compare ? DataType::Bool() : t;
    return broadcastResult(call, ctx, {0, 1}, out);
  };
}

StructInfo deduceWhere(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& c = tensorArg(call, ctx, 0);
  if (!c.dtype.isVoid() && !c.dtype.isBool())
    fail(call, ctx, fmt::format("condition must be a bool tensor, got {}", c.dtype.str()));
  DataType t = unifyDType(call, ctx, tensorArg(call, ctx, 1).dtype, tensorArg(call, ctx, 2).dtype);
  return broadcastResult(call, ctx, {0, 1, 2}, t);
}

StructInfo deduceAstype(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  DataType t = attrDType(call, ctx, "dtype");
  if (x.shape)
    return tensorSInfo(t, *x.shape);
  return tensorSInfo(t, x.ndim);
}

StructInfo deduceClip(const Call& call, const DeduceContext& ctx) {
  if (attrFloat(call, ctx, "min") > attrFloat(call, ctx, "max"))
    fail(call, ctx, "attribute 'min' is greater than 'max'");
  return unary(false)(call, ctx);
}

void unaryOp(const std::string& name, bool floatOnly, const std::string& doc,
             std::vector<AttrSpec> attrs = {}) {
  registerOp({name, 1, 1, OpPattern::ElemWise, std::move(attrs), unary(floatOnly), doc});
}

} // namespace

void registerElementwiseOps() {
  // Unary math.
  unaryOp("abs", false, "|x|");
  unaryOp("negative", false, "-x");
  unaryOp("exp", true, "e^x");
  unaryOp("log", true, "natural logarithm");
  unaryOp("sqrt", true, "square root");
  unaryOp("rsqrt", true, "1 / sqrt(x)");
  unaryOp("sin", true, "sine");
  unaryOp("cos", true, "cosine");
  unaryOp("tan", true, "tangent");
  unaryOp("asin", true, "arc sine");
  unaryOp("acos", true, "arc cosine");
  unaryOp("atan", true, "arc tangent");
  unaryOp("sinh", true, "hyperbolic sine");
  unaryOp("cosh", true, "hyperbolic cosine");
  unaryOp("tanh", true, "hyperbolic tangent");
  unaryOp("asinh", true, "inverse hyperbolic sine");
  unaryOp("acosh", true, "inverse hyperbolic cosine");
  unaryOp("atanh", true, "inverse hyperbolic tangent");
  unaryOp("sigmoid", true, "1 / (1 + e^-x)");
  unaryOp("erf", true, "Gauss error function");
  unaryOp("floor", false, "round down");
  unaryOp("ceil", false, "round up");
  unaryOp("round", false, "round half to even");
  unaryOp("sign", false, "-1, 0 or 1");
  unaryOp("reciprocal", true, "1 / x");
  registerOp({"logical_not", 1, 1, OpPattern::ElemWise, {}, unary(false, true), "not x (bool)"});

  // Activations.
  unaryOp("nn.relu", false, "max(x, 0)");
  unaryOp("nn.gelu", true, "x * Phi(x) (erf form)");
  unaryOp("nn.gelu_tanh", true, "gelu, tanh approximation");
  unaryOp("nn.silu", true, "x * sigmoid(x)");
  unaryOp("nn.hardswish", true, "x * relu6(x + 3) / 6");
  unaryOp("nn.leakyrelu", true, "x if x > 0 else alpha * x",
          {{"alpha", Type::Float, false, 0.01, "slope for x < 0"}});
  registerOp({"clip",
              1,
              1,
              OpPattern::ElemWise,
              {{"min", Type::Float, true, 0.0, "lower bound"},
               {"max", Type::Float, true, 0.0, "upper bound"}},
              deduceClip,
              "min(max(x, min), max)"});

  // Binary arithmetic (numpy broadcasting).
  for (auto [name, doc] :
       std::initializer_list<std::pair<const char*, const char*>>{{"add", "a + b"},
                                                                  {"subtract", "a - b"},
                                                                  {"multiply", "a * b"},
                                                                  {"divide", "a / b"},
                                                                  {"floor_divide", "floor(a / b)"},
                                                                  {"power", "a ^ b"},
                                                                  {"maximum", "max(a, b)"},
                                                                  {"minimum", "min(a, b)"},
                                                                  {"mod", "a mod b (sign of b)"}})
    registerOp({name, 2, 2, OpPattern::Broadcast, {}, binaryOp(BinaryKind::Arith), doc});

  for (auto [name, doc] :
       std::initializer_list<std::pair<const char*, const char*>>{{"equal", "a == b"},
                                                                  {"not_equal", "a != b"},
                                                                  {"less", "a < b"},
                                                                  {"less_equal", "a <= b"},
                                                                  {"greater", "a > b"},
                                                                  {"greater_equal", "a >= b"}})
    registerOp({name,
                2,
                2,
                OpPattern::Broadcast,
                {},
                binaryOp(BinaryKind::Compare),
                std::string(doc) + " (bool result)"});

  registerOp(
      {"logical_and", 2, 2, OpPattern::Broadcast, {}, binaryOp(BinaryKind::Logic), "a and b"});
  registerOp({"logical_or", 2, 2, OpPattern::Broadcast, {}, binaryOp(BinaryKind::Logic), "a or b"});
  registerOp({"left_shift",
              2,
              2,
              OpPattern::Broadcast,
              {},
              binaryOp(BinaryKind::Shift),
              "a << b (unsigned; shifts of the bit width or more give 0)"});
  registerOp({"right_shift",
              2,
              2,
              OpPattern::Broadcast,
              {},
              binaryOp(BinaryKind::Shift),
              "a >> b (unsigned; shifts of the bit width or more give 0)"});
  registerOp({"where", 3, 3, OpPattern::Broadcast, {}, deduceWhere, "cond ? a : b, broadcast"});
  registerOp({"astype",
              1,
              1,
              OpPattern::ElemWise,
              {{"dtype", Type::DType, true, std::string(), "target element type"}},
              deduceAstype,
              "element type conversion"});
}

} // namespace unity::op::detail
