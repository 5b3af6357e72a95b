// Legalization table: elementwise and broadcasting operators (topi).
#include <map>
#include <optional>

#include "engine/te/topi.h"
#include "engine/transform/legalize.h"

namespace unity::transform::detail {

using namespace ir;
namespace topi = te::topi;
using Outs = std::vector<te::Tensor>;

namespace {

LegalizeFn unary(std::function<te::Tensor(const te::Tensor&)> f) {
  return [f](const LegalizeArgs& a) { return Outs{f(a.inputs[0])}; };
}
LegalizeFn binary(std::function<te::Tensor(const te::Tensor&, const te::Tensor&)> f) {
  return [f](const LegalizeArgs& a) { return Outs{f(a.inputs[0], a.inputs[1])}; };
}
LegalizeFn mapUnary(const std::string& name, topi::UnaryFn f) {
  return [name, f](const LegalizeArgs& a) { return Outs{topi::unary(a.inputs[0], f, name)}; };
}
LegalizeFn mapBinary(const std::string& name, topi::BinaryFn f) {
  return [name, f](const LegalizeArgs& a) {
    return Outs{topi::binary(a.inputs[0], a.inputs[1], f, name)};
  };
}
PrimExpr c(const PrimExpr& like, double v) { return makeConst(like->dtype, v); }

} // namespace

void addElementwiseLegalizations(std::map<std::string, LegalizeFn>& t) {
  for (const char* name :
       {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "tanh", "asinh", "acosh", "atanh", "sigmoid"})
    t[name] = unary([name](const te::Tensor& x) { return topi::intrinsic(x, name); });
  t["erf"] = unary([](auto& x) { return topi::erf(x); });
  for (const char* name : {"floor", "ceil", "round"})
    t[name] = [name](const LegalizeArgs& a) {
      const te::Tensor& x = a.inputs[0];
      if (!x.dtype().isFloat())
        return Outs{topi::unary(
            x, [](PrimExpr v) { return v; }, name)};
      return Outs{topi::intrinsic(x, name)};
    };
  t["abs"] = unary([](auto& x) { return topi::abs(x); });
  t["negative"] = unary([](auto& x) { return topi::negative(x); });
  t["reciprocal"] = mapUnary("T_reciprocal", [](PrimExpr v) { return c(v, 1) / v; });
  t["sign"] = mapUnary("T_sign", [](PrimExpr v) {
    return select(gt(v, c(v, 0)), c(v, 1), select(lt(v, c(v, 0)), c(v, -1), c(v, 0)));
  });
  t["logical_not"] = mapUnary("T_logical_not", [](PrimExpr v) { return logicalNot(v); });
  t["nn.relu"] = unary([](auto& x) { return topi::relu(x); });
  t["nn.gelu"] = unary([](auto& x) { return topi::gelu(x); });
  t["nn.gelu_tanh"] = unary([](auto& x) { return topi::geluTanh(x); });
  t["nn.silu"] = unary([](auto& x) { return topi::silu(x); });
  t["nn.hardswish"] = mapUnary("T_hardswish", [](PrimExpr v) {
    return v * ir::min(ir::max(v + c(v, 3), c(v, 0)), c(v, 6)) / c(v, 6);
  });
  t["nn.leakyrelu"] = [](const LegalizeArgs& a) {
    double alpha = a.attrFloat("alpha");
    return Outs{topi::unary(
        a.inputs[0], [alpha](PrimExpr v) { return select(gt(v, c(v, 0)), v, v * c(v, alpha)); },
        "T_leakyrelu")};
  };
  t["clip"] = [](const LegalizeArgs& a) {
    return Outs{topi::clip(a.inputs[0], a.attrFloat("min"), a.attrFloat("max"))};
  };
  t["astype"] = [](const LegalizeArgs& a) {
    // The text parser gives dtype attributes as strings ("int32").
    const AttrValue* v = a.attr("dtype");
    std::optional<DataType> dt;
    if (auto* d = v ? std::get_if<DataType>(v) : nullptr)
      dt = *d;
    else if (auto* s = v ? std::get_if<std::string>(v) : nullptr)
      dt = DataType::parse(*s);
    if (!dt)
      return Outs{};
    return Outs{topi::cast(a.inputs[0], *dt)};
  };

  t["add"] = binary([](auto& x, auto& y) { return topi::add(x, y); });
  t["subtract"] = binary([](auto& x, auto& y) { return topi::subtract(x, y); });
  t["multiply"] = binary([](auto& x, auto& y) { return topi::multiply(x, y); });
  t["divide"] = binary([](auto& x, auto& y) { return topi::divide(x, y); });
  t["floor_divide"] = binary([](auto& x, auto& y) { return topi::floorDivide(x, y); });
  t["power"] = binary([](auto& x, auto& y) { return topi::power(x, y); });
  t["maximum"] = binary([](auto& x, auto& y) { return topi::maximum(x, y); });
  t["minimum"] = binary([](auto& x, auto& y) { return topi::minimum(x, y); });
  t["mod"] = mapBinary("T_mod", [](PrimExpr x, PrimExpr y) {
    if (x->dtype.isFloat())
      return x - call(x->dtype, "floor", {x / y}) * y;
    return floormod(x, y);
  });
  t["equal"] = binary([](auto& x, auto& y) { return topi::equal(x, y); });
  t["not_equal"] = binary([](auto& x, auto& y) { return topi::notEqual(x, y); });
  t["less"] = binary([](auto& x, auto& y) { return topi::less(x, y); });
  t["less_equal"] = binary([](auto& x, auto& y) { return topi::lessEqual(x, y); });
  t["greater"] = binary([](auto& x, auto& y) { return topi::greater(x, y); });
  t["greater_equal"] = binary([](auto& x, auto& y) { return topi::greaterEqual(x, y); });
  t["logical_and"] =
      mapBinary("T_logical_and", [](PrimExpr x, PrimExpr y) { return logicalAnd(x, y); });
  t["logical_or"] =
      mapBinary("T_logical_or", [](PrimExpr x, PrimExpr y) { return logicalOr(x, y); });
  t["where"] = [](const LegalizeArgs& a) {
    return Outs{topi::where(a.inputs[0], a.inputs[1], a.inputs[2])};
  };
}

} // namespace unity::transform::detail
