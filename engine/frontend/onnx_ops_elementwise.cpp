// ONNX elementwise operators -> our unary/binary operators. Activations our
// registry lacks (Elu, Selu, Softplus, HardSigmoid, PRelu, ...) are composed
// from existing operators with scalar constants of the input's dtype.
// Variadic Sum/Mean/Max/Min fold into a chain of binary calls.
#include <cmath>
#include <limits>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Expr sc(NodeContext& c, double v, int like = 0) {
  return NodeContext::scalar(v, c.dtype(like)).expr;
}

OpConverter unary(const std::string& op) {
  return {[op](NodeContext& c) { c.output(0, c.op(op, {c.expr(0)})); }, {}};
}

OpConverter binary(const std::string& op) {
  return {[op](NodeContext& c) { c.output(0, c.op(op, {c.expr(0), c.expr(1)})); }, {}};
}

/// Sum/Max/Min/Mean over any number of inputs.
OpConverter variadic(const std::string& op, bool mean = false) {
  return {[op, mean](NodeContext& c) {
            if (c.numInputs() < 1)
              c.unsupported("needs at least one input");
            Value acc = c.in(0);
            for (int i = 1; i < c.numInputs(); ++i)
              acc = c.op(op, {acc.expr, c.expr(i)});
            if (mean && c.numInputs() > 1)
              acc = c.op("divide", {acc.expr, sc(c, c.numInputs())});
            else if (c.numInputs() == 1)
              acc = c.op("astype", {acc.expr}, {{"dtype", c.dtype(0)}});
            c.output(0, acc);
          },
          {}};
}

void convertClip(NodeContext& c) {
  DataType dt = c.dtype(0);
  double lo = -std::numeric_limits<double>::infinity(),
         hi = std::numeric_limits<double>::infinity();
  Expr loT, hiT; // dynamic bounds
  if (c.opset < 11) {
    lo = c.attrFloat("min", lo);
    hi = c.attrFloat("max", hi);
  } else {
    if (c.has(1)) {
      if (c.constant(1))
        lo = c.constScalar(1, "min");
      else
        loT = c.expr(1);
    }
    if (c.has(2)) {
      if (c.constant(2))
        hi = c.constScalar(2, "max");
      else
        hiT = c.expr(2);
    }
  }
  Value x = c.in(0);
  if (dt.isFloat() && !loT && !hiT) {
    double big = std::numeric_limits<float>::max();
    c.output(0, c.op("clip", {x.expr}, {{"min", std::max(lo, -big)}, {"max", std::min(hi, big)}}));
    return;
  }
  if (loT)
    x = c.op("maximum", {x.expr, loT});
  else if (std::isfinite(lo))
    x = c.op("maximum", {x.expr, sc(c, lo)});
  if (hiT)
    x = c.op("minimum", {x.expr, hiT});
  else if (std::isfinite(hi))
    x = c.op("minimum", {x.expr, sc(c, hi)});
  if (sameNode(x.expr, c.expr(0)))
    x = c.op("astype", {x.expr}, {{"dtype", dt}});
  c.output(0, x);
}

void convertCast(NodeContext& c) {
  auto dt = dtypeFromOnnx(static_cast<int>(c.attrInt("to", 0)));
  if (!dt)
    c.unsupported("cast to ONNX type " + std::to_string(c.attrInt("to", 0)) + " is not supported");
  c.output(0, c.op("astype", {c.expr(0)}, {{"dtype", *dt}}));
}

/// where(x > 0, x, alpha * (exp(x) - 1)) and relatives.
void convertElu(NodeContext& c, double alpha, double gamma) {
  Expr x = c.expr(0);
  Value e = c.op("exp", {x});
  Value em1 = c.op("subtract", {e.expr, sc(c, 1)});
  Value neg = c.op("multiply", {em1.expr, sc(c, alpha * gamma)});
  Value pos = gamma == 1.0 ? c.in(0) : c.op("multiply", {x, sc(c, gamma)});
  Value cond = c.op("greater", {x, sc(c, 0)});
  c.output(0, c.op("where", {cond.expr, pos.expr, neg.expr}));
}

} // namespace

void addElementwiseConverters(ConverterTable& t) {
  const std::pair<const char*, const char*> unaries[] = {
      {"Relu", "nn.relu"}, {"Exp", "exp"},         {"Log", "log"},
      {"Sqrt", "sqrt"},    {"Tanh", "tanh"},       {"Sigmoid", "sigmoid"},
      {"Erf", "erf"},      {"Abs", "abs"},         {"Neg", "negative"},
      {"Floor", "floor"},  {"Ceil", "ceil"},       {"Reciprocal", "reciprocal"},
      {"Sin", "sin"},      {"Cos", "cos"},         {"Sign", "sign"},
      {"Round", "round"},  {"Not", "logical_not"}, {"HardSwish", "nn.hardswish"}};
  for (auto& [onnx, ours] : unaries)
    t[onnx] = unary(ours);
  const std::pair<const char*, const char*> binaries[] = {
      {"Add", "add"},         {"Sub", "subtract"},
      {"Mul", "multiply"},    {"Div", "divide"},
      {"Pow", "power"},       {"Equal", "equal"},
      {"Greater", "greater"}, {"GreaterOrEqual", "greater_equal"},
      {"Less", "less"},       {"LessOrEqual", "less_equal"},
      {"And", "logical_and"}, {"Or", "logical_or"},
      {"Xor", "not_equal"}};
  for (auto& [onnx, ours] : binaries)
    t[onnx] = binary(ours);
  t["Sum"] = variadic("add");
  t["Mean"] = variadic("add", true);
  t["Max"] = variadic("maximum");
  t["Min"] = variadic("minimum");

  t["Mod"] = {[](NodeContext& c) {
                if (c.attrInt("fmod", 0) != 0)
                  c.unsupported("fmod=1 (C fmod semantics) is not supported");
                if (c.dtype(0).isFloat())
                  c.unsupported("fmod=0 requires integer inputs");
                c.output(0, c.op("mod", {c.expr(0), c.expr(1)}));
              },
              {"fmod"}};
  t["Where"] = {[](NodeContext& c) {
                  c.output(0, c.op("where", {c.expr(0), c.expr(1), c.expr(2)}));
                },
                {}};
  t["Cast"] = {convertCast, {"to", "saturate"}};
  t["CastLike"] = {[](NodeContext& c) {
                     c.output(0, c.op("astype", {c.expr(0)}, {{"dtype", c.dtype(1)}}));
                   },
                   {"saturate"}};
  t["Clip"] = {convertClip, {"min", "max"}};
  t["Identity"] = {[](NodeContext& c) { c.output(0, c.in(0)); }, {}};
  t["Dropout"] = {[](NodeContext& c) {
                    if (c.attrInt("training_mode", 0) ||
                        (c.has(2) && c.constant(2) && c.constScalar(2, "training_mode") != 0))
                      c.unsupported("training mode is not supported");
                    if (c.has(2) && !c.constant(2))
                      c.unsupported("dynamic training_mode is not supported");
                    if (c.node.output_size() > 1 && !c.node.output(1).empty())
                      c.unsupported("the mask output is not supported");
                    c.output(0, c.in(0));
                  },
                  {"ratio", "seed", "is_test"}};
  t["LeakyRelu"] = {
      [](NodeContext& c) {
        c.output(0, c.op("nn.leakyrelu", {c.expr(0)}, {{"alpha", c.attrFloat("alpha", 0.01)}}));
      },
      {"alpha"}};
  t["PRelu"] = {[](NodeContext& c) {
                  Value scaled = c.op("multiply", {c.expr(0), c.expr(1)});
                  Value cond = c.op("less", {c.expr(0), sc(c, 0)});
                  c.output(0, c.op("where", {cond.expr, scaled.expr, c.expr(0)}));
                },
                {}};
  t["Elu"] = {[](NodeContext& c) { convertElu(c, c.attrFloat("alpha", 1.0), 1.0); }, {"alpha"}};
  t["Selu"] = {[](NodeContext& c) {
                 convertElu(c, c.attrFloat("alpha", 1.67326319217681884765625),
                            c.attrFloat("gamma", 1.05070102214813232421875));
               },
               {"alpha", "gamma"}};
  t["ThresholdedRelu"] = {
      [](NodeContext& c) {
        Value cond = c.op("greater", {c.expr(0), sc(c, c.attrFloat("alpha", 1.0))});
        c.output(0, c.op("where", {cond.expr, c.expr(0), sc(c, 0)}));
      },
      {"alpha"}};
  t["HardSigmoid"] = {[](NodeContext& c) {
                        Value y = c.op("multiply", {c.expr(0), sc(c, c.attrFloat("alpha", 0.2))});
                        y = c.op("add", {y.expr, sc(c, c.attrFloat("beta", 0.5))});
                        c.output(0, c.op("clip", {y.expr}, {{"min", 0.0}, {"max", 1.0}}));
                      },
                      {"alpha", "beta"}};
  t["Softplus"] = {[](NodeContext& c) {
                     Value e = c.op("exp", {c.expr(0)});
                     Value p = c.op("add", {e.expr, sc(c, 1)});
                     c.output(0, c.op("log", {p.expr}));
                   },
                   {}};
  t["Softsign"] = {[](NodeContext& c) {
                     Value a = c.op("abs", {c.expr(0)});
                     Value p = c.op("add", {a.expr, sc(c, 1)});
                     c.output(0, c.op("divide", {c.expr(0), p.expr}));
                   },
                   {}};
  t["Gelu"] = {[](NodeContext& c) {
                 std::string approx = c.attrString("approximate", "none");
                 if (approx != "none" && approx != "tanh")
                   c.unsupported("approximate='" + approx + "'");
                 c.output(0, c.op(approx == "tanh" ? "nn.gelu_tanh" : "nn.gelu", {c.expr(0)}));
               },
               {"approximate"}};
}

} // namespace unity::frontend::detail
