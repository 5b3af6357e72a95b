// The optimizer operators of the `ai.onnx.preview.training` domain (version
// 1): Adagrad, Momentum (standard and Nesterov) and Adam.
//
// Each updates n tensors at once: inputs R (learning rate, scalar), T (update
// count, int64 scalar), then n X (weights), n G (gradients) and n of each
// state (Adagrad: H; Momentum: V; Adam: V, H); outputs the new X and the new
// states in the same grouping. The formulas are elementwise (the operator
// specification's, spelled out below), so each becomes a few broadcasting
// graph operators; the branch on T > 0 (bias correction, Momentum's first
// step) is a `where` on T, read at run time. Defaults are the schema's
// (epsilon 1e-6); test_adam_multiple's data was computed with epsilon 1e-2
// that its node does not set, so it does not match (an ONNX test bug). Scalars (R, the factors
// computed from T) are cast to each X's element type first.
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

struct Ops {
  NodeContext& c;
  Value k(double v, DataType dt) { return NodeContext::scalar(v, dt); }
  Value bin(const char* op, const Value& a, const Value& b) { return c.op(op, {a.expr, b.expr}); }
  Value add(const Value& a, const Value& b) { return bin("add", a, b); }
  Value sub(const Value& a, const Value& b) { return bin("subtract", a, b); }
  Value mul(const Value& a, const Value& b) { return bin("multiply", a, b); }
  Value div(const Value& a, const Value& b) { return bin("divide", a, b); }
  Value cast(const Value& a, DataType dt) { return c.op("astype", {a.expr}, {{"dtype", dt}}); }
  Value sqrt(const Value& a) { return c.op("sqrt", {a.expr}); }
};

/// The number of tensors n updated by a node with `groups` groups of n
/// inputs after R and T.
int updateCount(NodeContext& c, int groups) {
  int rest = c.numInputs() - 2;
  if (rest <= 0 || rest % groups != 0)
    c.unsupported("expects R, T and " + std::to_string(groups) +
                  " groups of the same number of tensors, got " + std::to_string(c.numInputs()) +
                  " inputs");
  if (c.node.output_size() > rest)
    c.unsupported("more outputs than updated tensors and states");
  for (int i = 0; i < 2; ++i)
    if (c.rank(i) != 0)
      c.unsupported(std::string(i == 0 ? "R" : "T") + " must be a scalar");
  if (!c.dtype(2).isFloat())
    c.unsupported("the updated tensors must be float");
  return rest / groups;
}

void convertAdagrad(NodeContext& c) {
  int n = updateCount(c, 3);
  Ops o{c};
  double decay = c.attrFloat("decay_factor", 0.0), eps = c.attrFloat("epsilon", 1e-6),
         norm = c.attrFloat("norm_coefficient", 0.0);
  for (int i = 0; i < n; ++i) {
    DataType dt = c.dtype(2 + i);
    Value x = c.in(2 + i), g = c.in(2 + n + i), h = c.in(2 + 2 * n + i);
    // r = R / (1 + T * decay_factor)
    Value r =
        o.div(o.cast(c.in(0), dt), o.add(o.k(1, dt), o.mul(o.cast(c.in(1), dt), o.k(decay, dt))));
    Value gr = o.add(o.mul(o.k(norm, dt), x), g);
    Value hNew = o.add(h, o.mul(gr, gr));
    Value hs = o.add(o.sqrt(hNew), o.k(eps, dt));
    c.output(i, o.sub(x, o.div(o.mul(r, gr), hs)));
    c.output(n + i, hNew);
  }
}

void convertMomentum(NodeContext& c) {
  int n = updateCount(c, 3);
  Ops o{c};
  // All four attributes are required by the specification.
  for (const char* a : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!c.hasAttr(a))
      c.unsupported(std::string("the required attribute '") + a + "' is missing");
  double alpha = c.attrFloat("alpha", 0.0), beta = c.attrFloat("beta", 0.0),
         norm = c.attrFloat("norm_coefficient", 0.0);
  std::string mode = c.attrString("mode");
  if (mode != "standard" && mode != "nesterov")
    c.unsupported("unknown mode '" + mode + "' (standard or nesterov)");
  // The gradient's coefficient is 1 on the first update (T == 0).
  Value first = c.op("greater", {c.expr(1), NodeContext::scalar(0, c.dtype(1)).expr});
  for (int i = 0; i < n; ++i) {
    DataType dt = c.dtype(2 + i);
    Value x = c.in(2 + i), g = c.in(2 + n + i), v = c.in(2 + 2 * n + i);
    Value b = c.op("where", {first.expr, o.k(beta, dt).expr, o.k(1, dt).expr});
    Value r = o.cast(c.in(0), dt);
    Value gr = o.add(o.mul(o.k(norm, dt), x), g);
    Value vNew = o.add(o.mul(o.k(alpha, dt), v), o.mul(b, gr));
    Value step = mode == "standard" ? vNew : o.add(gr, o.mul(o.k(alpha, dt), vNew));
    c.output(i, o.sub(x, o.mul(r, step)));
    c.output(n + i, vNew);
  }
}

void convertAdam(NodeContext& c) {
  int n = updateCount(c, 4);
  Ops o{c};
  double alpha = c.attrFloat("alpha", 0.9), beta = c.attrFloat("beta", 0.999),
         eps = c.attrFloat("epsilon", 1e-6), norm = c.attrFloat("norm_coefficient", 0.0),
         post = c.attrFloat("norm_coefficient_post", 0.0);
  // The learning rate with the bias correction sqrt(1 - beta^T) / (1 - alpha^T)
  // from the first update on (T > 0), in float64.
  DataType f64 = DataType::Float(64);
  Value t = o.cast(c.in(1), f64);
  Value corr = o.div(o.sqrt(o.sub(o.k(1, f64), c.op("power", {o.k(beta, f64).expr, t.expr}))),
                     o.sub(o.k(1, f64), c.op("power", {o.k(alpha, f64).expr, t.expr})));
  Value later = c.op("greater", {c.expr(1), NodeContext::scalar(0, c.dtype(1)).expr});
  Value r64 = o.cast(c.in(0), f64);
  Value rAdj = c.op("where", {later.expr, o.mul(r64, corr).expr, r64.expr});
  for (int i = 0; i < n; ++i) {
    DataType dt = c.dtype(2 + i);
    Value x = c.in(2 + i), g = c.in(2 + n + i), v = c.in(2 + 2 * n + i), h = c.in(2 + 3 * n + i);
    Value gr = o.add(o.mul(o.k(norm, dt), x), g);
    Value vNew = o.add(o.mul(o.k(alpha, dt), v), o.mul(o.k(1 - alpha, dt), gr));
    Value hNew = o.add(o.mul(o.k(beta, dt), h), o.mul(o.k(1 - beta, dt), o.mul(gr, gr)));
    Value hs = o.add(o.sqrt(hNew), o.k(eps, dt));
    Value xNew = o.sub(x, o.mul(o.cast(rAdj, dt), o.div(vNew, hs)));
    c.output(i, o.mul(o.k(1 - post, dt), xNew));
    c.output(n + i, vNew);
    c.output(2 * n + i, hNew);
  }
}

} // namespace

void addTrainingConverters(ConverterTable& t) {
  t["ai.onnx.preview.training.Adagrad"] = {convertAdagrad,
                                           {"decay_factor", "epsilon", "norm_coefficient"}};
  t["ai.onnx.preview.training.Momentum"] = {convertMomentum,
                                            {"alpha", "beta", "mode", "norm_coefficient"}};
  t["ai.onnx.preview.training.Adam"] = {
      convertAdam, {"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"}};
}

} // namespace unity::frontend::detail
