// ONNX elementwise operators -> our unary/binary operators. Activations our
// registry lacks (Elu, Selu, Softplus, HardSigmoid, PRelu, ...) are composed
// from existing operators with scalar constants of the input's dtype.
// Variadic Sum/Mean/Max/Min fold into a chain of binary calls.
#include <cmath>
#include <limits>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/ir/structural.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Expr sc(NodeContext& c, double v, int like = 0) {
  return NodeContext::scalar(v, c.dtype(like)).expr;
}

OpConverter unary(const std::string& op) {
  return {[op](NodeContext& c) { c.output(0, c.op(op, {c.expr(0)})); }, {}};
}

} // namespace

/// Operand B of a binary operator, reshaped for the pre-opset-7 `broadcast`
/// / `axis` attributes: with broadcast=1 and `axis`, B's dims line up with
/// A's from `axis` on, so B gets trailing unit dims and numpy broadcasting
/// does the rest; without `axis` it is suffix matching, which numpy
/// broadcasting already is. From opset 7 both attributes are refused.
Value legacyBroadcastB(NodeContext& c) {
  Value b = c.in(1);
  if (c.opset >= 7) {
    for (const char* a : {"broadcast", "axis"})
      if (c.hasAttr(a))
        c.unsupported(std::string("attribute '") + a +
                      "' exists only before opset 7 (model opset " + std::to_string(c.opset) + ")");
    return b;
  }
  if (!c.hasAttr("axis") || c.attrInt("broadcast", 0) == 0)
    return b;
  int ra = c.rank(0), rb = c.rank(1);
  int axis = normAxis(c, c.attrInt("axis", 0), ra);
  int trailing = ra - axis - rb;
  if (trailing < 0)
    c.unsupported("opset " + std::to_string(c.opset) + " broadcast: B of rank " +
                  std::to_string(rb) + " does not fit A of rank " + std::to_string(ra) +
                  " at axis " + std::to_string(axis));
  if (trailing == 0)
    return b;
  std::vector<int64_t> axes;
  for (int i = 0; i < trailing; ++i)
    axes.push_back(rb + i);
  if (b.data) {
    auto shape = b.data->shape();
    shape.insert(shape.end(), trailing, 1);
    return NodeContext::constant(b.data->reshaped(shape));
  }
  return c.op("expand_dims", {b.expr}, {{"axis", axes}});
}

namespace {

OpConverter binary(const std::string& op) {
  return {[op](NodeContext& c) {
            c.output(0, c.op(op, {c.expr(0), legacyBroadcastB(c).expr}));
          },
          {"broadcast", "axis"}};
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
  auto* to = c.attr("to");
  int code = 0;
  if (to && to->type() == onnx::AttributeProto::STRING && c.opset < 6) {
    // Opsets 1..5 name the type ("FLOAT", "INT64", ...).
    onnx::TensorProto::DataType d;
    if (!onnx::TensorProto::DataType_Parse(to->s(), &d))
      c.unsupported("opset " + std::to_string(c.opset) + " Cast to unknown type '" + to->s() + "'");
    code = d;
  } else {
    code = static_cast<int>(c.attrInt("to", 0));
  }
  auto dt = dtypeFromOnnx(code);
  if (!dt)
    c.unsupported("cast to ONNX type " + std::to_string(code) + " is not supported");
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

/// Dropout is an identity here (mask all true): in inference mode, and in
/// training mode with a ratio of 0. Training with a non-zero ratio drops at
/// random, which is not supported: refused at import when the ratio and
/// training_mode are constants, else checked when the graph runs (a run-time
/// training_mode that is true with a non-zero ratio is an error then).
void convertDropout(NodeContext& c) {
  // Opsets 1..6: is_test defaults to 0, i.e. training (random) dropout;
  // only the test mode is an identity.
  if (c.opset < 7 && c.attrInt("is_test", 0) == 0)
    c.unsupported("opset " + std::to_string(c.opset) +
                  " Dropout with is_test=0 (training mode) is not supported");
  if (c.opset >= 7 && c.hasAttr("is_test"))
    c.unsupported("attribute 'is_test' exists only before opset 7");
  bool trainingRunTime = c.has(2) && !c.constant(2);
  bool ratioRunTime = c.opset >= 12 && c.has(1) && !c.constant(1);
  bool training = c.has(2) && !trainingRunTime && c.constScalar(2, "training_mode") != 0;
  double ratio = c.attrFloat("ratio", 0.5);
  if (c.opset >= 12)
    ratio = c.has(1) && !ratioRunTime ? c.constScalar(1, "Dropout's ratio") : 0.5;
  if (training && !ratioRunTime && ratio != 0)
    c.unsupported("training mode with a non-zero ratio is random and not supported");
  if ((trainingRunTime && (ratioRunTime || ratio != 0)) || (training && ratioRunTime)) {
    // Checked at run time: not training, or a ratio of 0. A failed check is
    // the value -1, which the executor refuses (with the message below) when
    // it reads it as a shape.
    auto scalarOf = [&](int i) {
      return c.op("reshape", {c.expr(i), make<ShapeExpr>(std::vector<PrimExpr>{})}).expr;
    };
    DataType b = DataType::Bool();
    Expr train = trainingRunTime ? c.op("astype", {scalarOf(2)}, {{"dtype", b}}).expr
                                 : NodeContext::scalar(1, b).expr;
    Expr zeroRatio =
        ratioRunTime ? c.op("equal", {scalarOf(1), NodeContext::scalar(0, c.dtype(1)).expr}).expr
                     : NodeContext::scalar(ratio == 0 ? 1 : 0, b).expr;
    Expr ok = c.op("logical_or", {c.op("logical_not", {train}).expr, zeroRatio}).expr;
    DataType i64 = DataType::Int64();
    Value flag =
        c.op("where", {ok, NodeContext::scalar(0, i64).expr, NodeContext::scalar(-1, i64).expr});
    flag = c.op("reshape", {flag.expr, make<ShapeExpr>(std::vector<PrimExpr>{intImm(1)})});
    c.runtimeShape(flag, c.node.output(0) + "_dropout_check", {intImm(0)},
                   "Dropout in training mode with a non-zero ratio is random and not "
                   "supported (training_mode is true and ratio is not 0)");
  }
  c.output(0, c.in(0));
  if (c.node.output_size() > 1 && !c.node.output(1).empty()) {
    // Nothing is dropped: the mask is all true (opset >= 10: bool; before:
    // ones of the input's type).
    DataType mt = c.opset >= 10 ? DataType::Bool() : c.dtype(0);
    Value one = NodeContext::scalar(1, mt);
    c.output(1, c.op("broadcast_to", {one.expr, make<ShapeExpr>(c.shape(0))}));
  }
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
  const std::pair<const char*, const char*> binaries[] = {{"Add", "add"},
                                                          {"Sub", "subtract"},
                                                          {"Mul", "multiply"},
                                                          {"Div", "divide"},
                                                          {"Equal", "equal"},
                                                          {"Greater", "greater"},
                                                          {"GreaterOrEqual", "greater_equal"},
                                                          {"Less", "less"},
                                                          {"LessOrEqual", "less_equal"},
                                                          {"And", "logical_and"},
                                                          {"Or", "logical_or"},
                                                          {"Xor", "not_equal"}};
  for (auto& [onnx, ours] : binaries)
    t[onnx] = binary(ours);
  // Pow's exponent may have another type than the base (T1 != T); the
  // result has the base's type. Integer powers are computed in float64 and
  // converted back (exact while the result fits 2^53).
  t["Pow"] = {[](NodeContext& c) {
                DataType bt = c.dtype(0), et = c.dtype(1);
                Value e = legacyBroadcastB(c);
                if (bt.isFloat()) {
                  if (!(et == bt))
                    e = c.op("astype", {e.expr}, {{"dtype", bt}});
                  c.output(0, c.op("power", {c.expr(0), e.expr}));
                  return;
                }
                DataType f64 = DataType::Float(64);
                Value b = c.op("astype", {c.expr(0)}, {{"dtype", f64}});
                e = c.op("astype", {e.expr}, {{"dtype", f64}});
                Value p = c.op("power", {b.expr, e.expr});
                c.output(0, c.op("astype", {p.expr}, {{"dtype", bt}}));
              },
              {"broadcast", "axis"}};
  t["Sum"] = variadic("add");
  t["Mean"] = variadic("add", true);
  t["Max"] = variadic("maximum");
  t["Min"] = variadic("minimum");

  t["Mod"] = {[](NodeContext& c) {
                bool fmod = c.attrInt("fmod", 0) != 0;
                if (!fmod && c.dtype(0).isFloat())
                  c.unsupported("fmod=0 requires integer inputs");
                // float16 is computed in float32 (codegen's floor has no float16
                // form); fmod's result is exact, so rounding back is exact too.
                DataType dt = c.dtype(0);
                bool widen = dt.isFloat() && dt.bits == 16;
                Value x = c.in(0), y = c.in(1);
                if (widen) {
                  x = c.op("astype", {x.expr}, {{"dtype", DataType::Float32()}});
                  y = c.op("astype", {y.expr}, {{"dtype", DataType::Float32()}});
                }
                Value r = c.op("mod", {x.expr, y.expr}); // sign of the divisor
                if (!fmod) {
                  c.output(0, r);
                  return;
                }
                // C fmod has the sign of the dividend: where the floor
                // remainder is non-zero and the operands' signs differ,
                // subtract the divisor once.
                Value zero = NodeContext::constant(Tensor(widen ? DataType::Float32() : dt, {}));
                Value xNeg = c.op("less", {x.expr, zero.expr});
                Value yNeg = c.op("less", {y.expr, zero.expr});
                Value differ = c.op("not_equal", {xNeg.expr, yNeg.expr});
                Value nonZero = c.op("not_equal", {r.expr, zero.expr});
                Value fix = c.op("logical_and", {differ.expr, nonZero.expr});
                Value adjusted = c.op("subtract", {r.expr, y.expr});
                Value out = c.op("where", {fix.expr, adjusted.expr, r.expr});
                if (widen)
                  out = c.op("astype", {out.expr}, {{"dtype", dt}});
                c.output(0, out);
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
  t["Dropout"] = {convertDropout, {"ratio", "seed", "is_test"}};
  t["LeakyRelu"] = {
      [](NodeContext& c) {
        c.output(0, c.op("nn.leakyrelu", {c.expr(0)}, {{"alpha", c.attrFloat("alpha", 0.01)}}));
      },
      {"alpha"}};
  t["PRelu"] = {[](NodeContext& c) {
                  Value slope = c.in(1);
                  // Opsets 1..6: a 1-D slope of C values is per channel
                  // (axis 1), not numpy-broadcast against the last axis.
                  if (c.opset < 7 && c.rank(1) == 1 && c.rank(0) > 2) {
                    auto xs = c.shape(0), ss = c.shape(1);
                    if (!isConstInt(ss[0], 1)) {
                      if (!structuralEqual(xs[1], ss[0]))
                        c.unsupported("opset " + std::to_string(c.opset) +
                                      " PRelu: slope length differs from the channel count");
                      std::vector<int64_t> axes;
                      for (int i = 1; i < c.rank(0) - 1; ++i)
                        axes.push_back(i);
                      slope = c.op("expand_dims", {slope.expr}, {{"axis", axes}});
                    }
                  }
                  Value scaled = c.op("multiply", {c.expr(0), slope.expr});
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
