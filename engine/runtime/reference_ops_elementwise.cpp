// Reference implementations of the elementwise operators: unary math and
// activations (computed in double, stored in the operand's dtype), binary
// arithmetic with numpy broadcasting (integers in int64: divide truncates,
// floor_divide and mod floor, mod takes the sign of the divisor),
// comparisons and logic (bool results), where, astype, clip.
#include <cmath>
#include <numbers>

#include "engine/runtime/reference.h"

namespace unity::runtime::reference {

namespace {

using D1 = std::function<double(double)>;
using D2 = std::function<double(double, double)>;
using I2 = std::function<int64_t(int64_t, int64_t)>;

RefValue mapUnary(const OpCall& c, const D1& f, bool floatOnly = false) {
  const Tensor& x = c.tensor(0);
  if (floatOnly && !x.dtype().isFloat())
    c.fail("requires a float tensor, got " + x.dtype().str());
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    store(out, i, f(x.getDouble(i)));
  return out;
}

int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// a OP b over the broadcast shape; `fi` (when given) is used for integer
/// and bool operands, `fd` for floats; `boolOut` makes a bool result.
RefValue mapBinary(const OpCall& c, const D2& fd, const I2& fi, bool boolOut = false) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  if (a.dtype() != b.dtype())
    c.fail("operand dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  auto shape = broadcastShape(c, a.shape(), b.shape());
  Tensor out(boolOut ? DataType::Bool() : a.dtype(), shape);
  bool integral = !a.dtype().isFloat();
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    double x = at(a, broadcastIndex(idx, a.shape())), y = at(b, broadcastIndex(idx, b.shape()));
    if (integral && fi)
      store(out, i, static_cast<double>(fi(static_cast<int64_t>(x), static_cast<int64_t>(y))));
    else
      store(out, i, fd(x, y));
  }
  return out;
}

RefValue compare(const OpCall& c, const std::function<bool(double, double)>& f) {
  return mapBinary(
      c, [f](double x, double y) { return f(x, y) ? 1.0 : 0.0; }, nullptr, true);
}

RefValue logic(const OpCall& c, const std::function<bool(bool, bool)>& f) {
  if (!c.tensor(0).dtype().isBool() || !c.tensor(1).dtype().isBool())
    c.fail("requires bool tensors");
  return mapBinary(
      c, [f](double x, double y) { return f(x != 0, y != 0) ? 1.0 : 0.0; }, nullptr, true);
}

void requireNonZero(const OpCall& c, int64_t b) {
  if (b == 0)
    c.fail("integer division by zero");
}

RefValue where(const OpCall& c) {
  const Tensor& cond = c.tensor(0);
  const Tensor& a = c.tensor(1);
  const Tensor& b = c.tensor(2);
  if (!cond.dtype().isBool())
    c.fail("condition must be a bool tensor, got " + cond.dtype().str());
  if (a.dtype() != b.dtype())
    c.fail("operand dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  auto shape = broadcastShape(c, broadcastShape(c, cond.shape(), a.shape()), b.shape());
  Tensor out(a.dtype(), shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(i, shape);
    bool pick = at(cond, broadcastIndex(idx, cond.shape())) != 0;
    const Tensor& src = pick ? a : b;
    store(out, i, at(src, broadcastIndex(idx, src.shape())));
  }
  return out;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

void addElementwiseOps(OpTable& t) {
  auto unary = [&t](const char* name, D1 f, bool floatOnly) {
    t[name] = [f, floatOnly](const OpCall& c) { return mapUnary(c, f, floatOnly); };
  };
  unary(
      "abs", [](double x) { return std::fabs(x); }, false);
  unary(
      "negative", [](double x) { return -x; }, false);
  unary(
      "exp", [](double x) { return std::exp(x); }, true);
  unary(
      "log", [](double x) { return std::log(x); }, true);
  unary(
      "sqrt", [](double x) { return std::sqrt(x); }, true);
  unary(
      "rsqrt", [](double x) { return 1.0 / std::sqrt(x); }, true);
  unary(
      "sin", [](double x) { return std::sin(x); }, true);
  unary(
      "cos", [](double x) { return std::cos(x); }, true);
  unary(
      "tanh", [](double x) { return std::tanh(x); }, true);
  unary("sigmoid", sigmoid, true);
  unary(
      "erf", [](double x) { return std::erf(x); }, true);
  unary(
      "floor", [](double x) { return std::floor(x); }, false);
  unary(
      "ceil", [](double x) { return std::ceil(x); }, false);
  unary(
      "round", [](double x) { return std::nearbyint(x); }, false); // half to even
  unary(
      "sign", [](double x) { return x > 0   ? 1.0
                                    : x < 0 ? -1.0
                                            : 0.0; }, false);
  unary(
      "reciprocal", [](double x) { return 1.0 / x; }, true);
  unary(
      "nn.relu", [](double x) { return x > 0 ? x : 0.0; }, false);
  unary(
      "nn.gelu", [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }, true);
  unary(
      "nn.gelu_tanh",
      [](double x) {
        double k = std::sqrt(2.0 / std::numbers::pi);
        return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
      },
      true);
  unary(
      "nn.silu", [](double x) { return x * sigmoid(x); }, true);
  unary(
      "nn.hardswish", [](double x) { return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; },
      true);
  t["nn.leakyrelu"] = [](const OpCall& c) {
    double alpha = c.attrFloat("alpha");
    return mapUnary(
        c, [alpha](double x) { return x > 0 ? x : alpha * x; }, true);
  };
  t["clip"] = [](const OpCall& c) {
    double lo = c.attrFloat("min"), hi = c.attrFloat("max");
    if (lo > hi)
      c.fail("attribute 'min' is greater than 'max'");
    return mapUnary(c, [lo, hi](double x) { return std::min(std::max(x, lo), hi); });
  };
  t["logical_not"] = [](const OpCall& c) {
    if (!c.tensor(0).dtype().isBool())
      c.fail("requires a bool tensor");
    return mapUnary(c, [](double x) { return x != 0 ? 0.0 : 1.0; });
  };
  t["astype"] = [](const OpCall& c) {
    const Tensor& x = c.tensor(0);
    DataType to = c.attrDType("dtype");
    if (to.isVoid())
      c.fail("attribute 'dtype' is required");
    Tensor out(to, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i)
      store(out, i, x.getDouble(i));
    return RefValue(out);
  };

  t["add"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return x + y; }, [](int64_t x, int64_t y) { return x + y; });
  };
  t["subtract"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return x - y; }, [](int64_t x, int64_t y) { return x - y; });
  };
  t["multiply"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return x * y; }, [](int64_t x, int64_t y) { return x * y; });
  };
  t["divide"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return x / y; },
        [&c](int64_t x, int64_t y) {
          requireNonZero(c, y);
          return x / y; // truncating, as the IR's Div on integers
        });
  };
  t["floor_divide"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return std::floor(x / y); },
        [&c](int64_t x, int64_t y) {
          requireNonZero(c, y);
          return floorDivInt(x, y);
        });
  };
  t["mod"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return x - std::floor(x / y) * y; },
        [&c](int64_t x, int64_t y) {
          requireNonZero(c, y);
          return x - floorDivInt(x, y) * y;
        });
  };
  t["power"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return std::pow(x, y); }, nullptr);
  };
  t["maximum"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return std::max(x, y); },
        [](int64_t x, int64_t y) { return std::max(x, y); });
  };
  t["minimum"] = [](const OpCall& c) {
    return mapBinary(
        c, [](double x, double y) { return std::min(x, y); },
        [](int64_t x, int64_t y) { return std::min(x, y); });
  };
  t["equal"] = [](const OpCall& c) {
    return compare(c, [](double x, double y) { return x == y; });
  };
  t["not_equal"] = [](const OpCall& c) {
    return compare(c, [](double x, double y) { return x != y; });
  };
  t["less"] = [](const OpCall& c) { return compare(c, [](double x, double y) { return x < y; }); };
  t["less_equal"] = [](const OpCall& c) {
    return compare(c, [](double x, double y) { return x <= y; });
  };
  t["greater"] = [](const OpCall& c) {
    return compare(c, [](double x, double y) { return x > y; });
  };
  t["greater_equal"] = [](const OpCall& c) {
    return compare(c, [](double x, double y) { return x >= y; });
  };
  t["logical_and"] = [](const OpCall& c) {
    return logic(c, [](bool x, bool y) { return x && y; });
  };
  t["logical_or"] = [](const OpCall& c) { return logic(c, [](bool x, bool y) { return x || y; }); };
  t["where"] = where;
}

} // namespace unity::runtime::reference
