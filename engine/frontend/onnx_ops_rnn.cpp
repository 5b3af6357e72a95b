// ONNX recurrent operators (RNN, GRU, LSTM): unrolled over a static
// sequence length, or an R.scan over a symbolic one.
//
// Static length T: the recurrence is written out step by step: the input
// projection of every time step is one `linear` over the whole (T, B, I)
// input (bias folded in), split into T slices; each step then adds its
// hidden projection `linear(H_prev, R)`, splits the gates and combines them
// with elementwise operators. The importer stays linear in T (about 10 to
// 20 bindings a step; at most kMaxSteps steps are unrolled).
//
// Symbolic length (dimension 0 of X, or 1 with layout=1): the same step is
// emitted once with parameters for x_t, H_prev and C_prev and outlined into
// a graph-level function (its other parameters are the outer values it
// reads: R, biases, peepholes), the body of an R.scan over the input
// projection (backwards for the reverse direction; Y stacked in time
// order). sequence_lens is then refused (the step has no time index).
// Batch size may be symbolic either way.
//
// Semantics follow the ONNX specification (opsets 7 and 14; layout exists
// from 14):
// - directions forward / reverse / bidirectional; with bidirectional, the
//   activations list holds the forward entries then the reverse ones;
// - gate order in W, R and B: RNN i; GRU z, r, h; LSTM i, o, f, c; P is
//   i, o, f (peepholes);
// - GRU linear_before_reset=1 applies the reset gate after the hidden
//   projection (and its bias Rbh); LSTM input_forget=1 couples f = 1 - i;
// - clip bounds every activation's input to [-clip, clip];
// - sequence_lens is applied at run time by masking: a step past a batch
//   entry's length keeps its state and writes zeros to Y, so Y_h / Y_c are
//   the states after each entry's last valid step (for the reverse
//   direction, the steps t >= length are skipped before the valid ones);
// - activation_alpha / activation_beta are consumed in the order of the
//   activations list, one value by each activation that takes it (as ONNX
//   Runtime does); a missing value takes the activation operator's default.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"
#include "engine/ir/functor.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

enum class Kind { RNN, GRU, LSTM };

/// Unrolling is linear in the steps (10 to 20 bindings each); a longer
/// sequence would make an unreasonably large graph.
constexpr int64_t kMaxSteps = 4096;

struct Activation {
  std::string name; // lower case
  double alpha = 0, beta = 0;
};

std::string lower(std::string s) {
  for (char& ch : s)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

Expr sc(double v, DataType dt) { return NodeContext::scalar(v, dt).expr; }

/// The activations list (defaults per kind), with their alpha/beta values.
std::vector<Activation> activations(NodeContext& c, Kind kind, int numDir) {
  std::vector<std::string> dflt;
  switch (kind) {
  case Kind::RNN:
    dflt = {"Tanh"};
    break;
  case Kind::GRU:
    dflt = {"Sigmoid", "Tanh"};
    break;
  case Kind::LSTM:
    dflt = {"Sigmoid", "Tanh", "Tanh"};
    break;
  }
  size_t per = dflt.size();
  std::vector<std::string> names;
  if (auto* a = c.attr("activations")) {
    if (a->type() != onnx::AttributeProto::STRINGS)
      c.unsupported("attribute 'activations' must be a list of strings");
    for (auto& s : a->strings())
      names.push_back(s);
    if (names.size() != per * numDir)
      c.unsupported("attribute 'activations' has " + std::to_string(names.size()) +
                    " entries, expected " + std::to_string(per * numDir) + " (" +
                    std::to_string(per) + " per direction)");
  } else {
    for (int d = 0; d < numDir; ++d)
      names.insert(names.end(), dflt.begin(), dflt.end());
  }
  std::vector<double> alphas = c.attrFloats("activation_alpha");
  std::vector<double> betas = c.attrFloats("activation_beta");
  size_t ai = 0, bi = 0;
  std::vector<Activation> out;
  for (auto& n : names) {
    Activation act{lower(n)};
    // (uses alpha, default alpha, uses beta, default beta)
    struct Params {
      const char* name;
      bool a;
      double da;
      bool b;
      double db;
    };
    static const Params table[] = {
        {"relu", false, 0, false, 0},         {"tanh", false, 0, false, 0},
        {"sigmoid", false, 0, false, 0},      {"affine", true, 1.0, true, 0.0},
        {"leakyrelu", true, 0.01, false, 0},  {"thresholdedrelu", true, 1.0, false, 0},
        {"scaledtanh", true, 1.0, true, 1.0}, {"hardsigmoid", true, 0.2, true, 0.5},
        {"elu", true, 1.0, false, 0},         {"softsign", false, 0, false, 0},
        {"softplus", false, 0, false, 0},
    };
    const Params* p = nullptr;
    for (auto& e : table)
      if (act.name == e.name)
        p = &e;
    if (!p)
      c.unsupported("activation '" + n + "' is not supported");
    if (p->a)
      act.alpha = ai < alphas.size() ? alphas[ai++] : p->da;
    if (p->b)
      act.beta = bi < betas.size() ? betas[bi++] : p->db;
    out.push_back(act);
  }
  return out;
}

class Unroller {
public:
  Unroller(NodeContext& c, Kind kind) : c_(c), kind_(kind) {}

  void run() {
    gates_ = kind_ == Kind::RNN ? 1 : kind_ == Kind::GRU ? 3 : 4;
    if (c_.rank(0) != 3)
      c_.unsupported("X must have rank 3");
    dt_ = c_.dtype(0);
    if (!dt_.isFloat())
      c_.unsupported("X must be a floating-point tensor");
    layout_ = c_.attrInt("layout", 0);
    if (layout_ != 0 && layout_ != 1)
      c_.unsupported("layout=" + std::to_string(layout_));
    std::string dir = c_.attrString("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
      c_.unsupported("direction='" + dir + "'");
    numDir_ = dir == "bidirectional" ? 2 : 1;
    reverseOnly_ = dir == "reverse";
    auto xs = c_.shape(0);
    PrimExpr tDim = xs[layout_ == 0 ? 0 : 1];
    batch_ = xs[layout_ == 0 ? 1 : 0];
    auto t = asConstInt(tDim);
    seqLen_ = tDim;
    if (!t && c_.has(4))
      c_.unsupported("sequence_lens with a symbolic sequence length (dimension " +
                     std::to_string(layout_ == 0 ? 0 : 1) + " of X) is not supported");
    symbolicSteps_ = !t;
    steps_ = t ? *t : 1;
    if (steps_ < 1)
      c_.unsupported("the sequence length must be at least 1");
    if (steps_ > kMaxSteps)
      c_.unsupported("the sequence length " + std::to_string(steps_) +
                     " is too long to unroll (at most " + std::to_string(kMaxSteps) +
                     " steps until graph-level loops exist)");
    hidden_ = c_.attrInt("hidden_size", -1);
    if (hidden_ < 0) { // optional in the spec: read it from R (num_dir, G*H, H)
      auto rs = c_.shape(2);
      auto h = rs.size() == 3 ? asConstInt(rs[2]) : std::nullopt;
      if (!h)
        c_.unsupported("hidden_size is not given and R's last dimension is not static");
      hidden_ = *h;
    }
    if (hidden_ < 1 || hidden_ > (int64_t(1) << 30))
      c_.unsupported("hidden_size " + std::to_string(hidden_) + " is out of range");
    checkWeight(1, "W", {numDir_, gates_ * hidden_, -1});
    checkWeight(2, "R", {numDir_, gates_ * hidden_, hidden_});
    if (c_.has(3))
      checkWeight(3, "B", {numDir_, 2 * gates_ * hidden_});
    if (c_.has(7) && kind_ == Kind::LSTM)
      checkWeight(7, "P", {numDir_, 3 * hidden_});
    acts_ = activations(c_, kind_, numDir_);
    if (c_.hasAttr("clip")) {
      clip_ = c_.attrFloat("clip", 0);
      if (!(clip_ > 0))
        c_.unsupported("clip must be positive");
    }
    linearBeforeReset_ = kind_ == Kind::GRU && c_.attrInt("linear_before_reset", 0) != 0;
    inputForget_ = kind_ == Kind::LSTM && c_.attrInt("input_forget", 0) != 0;

    // X as (T, B, I).
    Value x = c_.in(0);
    if (layout_ == 1)
      x = c_.op("permute_dims", {x.expr}, {{"axes", std::vector<int64_t>{1, 0, 2}}});
    if (c_.has(4))
      lens_ = c_.in(4);

    std::vector<Value> ys, hs, cs;
    for (int d = 0; d < numDir_; ++d) {
      Direction r = direction(x, d, reverseOnly_ || d == 1);
      ys.push_back(r.stacked ? *r.stacked : stack(r.y, 0)); // (T, B, H)
      hs.push_back(r.h);
      cs.push_back(r.c);
    }
    bool wantY = c_.node.output_size() > 0 && !c_.node.output(0).empty();
    if (wantY) {
      for (auto& y : ys) // (T, 1, B, H)
        y = c_.op("expand_dims", {y.expr}, {{"axis", std::vector<int64_t>{1}}});
      Value y = concat(ys, 1);
      if (layout_ == 1) // (B, T, D, H)
        y = c_.op("permute_dims", {y.expr}, {{"axes", std::vector<int64_t>{2, 0, 1, 3}}});
      c_.output(0, y);
    }
    c_.output(1, finalState(hs));
    if (kind_ == Kind::LSTM)
      c_.output(2, finalState(cs));
  }

private:
  struct Direction {
    std::vector<Value> y;         // per time index, (B, H)
    std::optional<Value> stacked; // or all of them, (T, B, H) (a symbolic T)
    Value h, c;
  };

  /// Checks a weight's rank and its static dims (-1: any).
  void checkWeight(int i, const char* what, const std::vector<int64_t>& want) {
    auto s = c_.shape(i);
    bool ok = s.size() == want.size();
    for (size_t k = 0; ok && k < want.size(); ++k)
      if (auto v = asConstInt(s[k]); v && want[k] >= 0)
        ok = *v == want[k];
    if (!ok) {
      std::string w;
      for (auto v : want)
        w += (w.empty() ? "" : ", ") + (v < 0 ? std::string("*") : std::to_string(v));
      c_.unsupported(std::string(what) + " must have shape (" + w + ")");
    }
  }

  /// Row d of a (num_dir, ...) operand, as (...).
  Value dirSlice(int input, int d) {
    Value v = c_.in(input);
    if (numDir_ == 1)
      return c_.op("squeeze", {v.expr}, {{"axis", std::vector<int64_t>{0}}});
    Value s = c_.op("strided_slice", {v.expr},
                    {{"axes", std::vector<int64_t>{0}},
                     {"begin", std::vector<int64_t>{d}},
                     {"end", std::vector<int64_t>{d + 1}}});
    return c_.op("squeeze", {s.expr}, {{"axis", std::vector<int64_t>{0}}});
  }

  /// [begin, end) of the last axis.
  Value lastAxis(const Value& v, int64_t begin, int64_t end) {
    auto* ts = as<TensorSInfo>(v.sinfo);
    int64_t axis = ts && ts->ndim > 0 ? ts->ndim - 1 : 0;
    return c_.op("strided_slice", {v.expr},
                 {{"axes", std::vector<int64_t>{axis}},
                  {"begin", std::vector<int64_t>{begin}},
                  {"end", std::vector<int64_t>{end}}});
  }

  /// Initial state (initial_h / initial_c) of direction d as (B, H), zeros when absent.
  Value initialState(int input, int d) {
    if (!c_.has(input))
      return c_.op("broadcast_to",
                   {sc(0, dt_), make<ShapeExpr>(std::vector<PrimExpr>{batch_, intImm(hidden_)})});
    if (layout_ == 0)
      return dirSlice(input, d);
    // (B, D, H): take column d.
    Value v = c_.in(input);
    Value s = c_.op("strided_slice", {v.expr},
                    {{"axes", std::vector<int64_t>{1}},
                     {"begin", std::vector<int64_t>{d}},
                     {"end", std::vector<int64_t>{d + 1}}});
    return c_.op("squeeze", {s.expr}, {{"axis", std::vector<int64_t>{1}}});
  }

  Value act(const Activation& a, Value x) {
    if (clip_ > 0)
      x = c_.op("clip", {x.expr}, {{"min", -clip_}, {"max", clip_}});
    const std::string& n = a.name;
    if (n == "relu")
      return c_.op("nn.relu", {x.expr});
    if (n == "tanh")
      return c_.op("tanh", {x.expr});
    if (n == "sigmoid")
      return c_.op("sigmoid", {x.expr});
    if (n == "affine") {
      Value y = c_.op("multiply", {x.expr, sc(a.alpha, dt_)});
      return c_.op("add", {y.expr, sc(a.beta, dt_)});
    }
    if (n == "leakyrelu")
      return c_.op("nn.leakyrelu", {x.expr}, {{"alpha", a.alpha}});
    if (n == "thresholdedrelu") {
      Value cond = c_.op("greater", {x.expr, sc(a.alpha, dt_)});
      return c_.op("where", {cond.expr, x.expr, sc(0, dt_)});
    }
    if (n == "scaledtanh") {
      Value y = c_.op("multiply", {x.expr, sc(a.beta, dt_)});
      y = c_.op("tanh", {y.expr});
      return c_.op("multiply", {y.expr, sc(a.alpha, dt_)});
    }
    if (n == "hardsigmoid") {
      Value y = c_.op("multiply", {x.expr, sc(a.alpha, dt_)});
      y = c_.op("add", {y.expr, sc(a.beta, dt_)});
      return c_.op("clip", {y.expr}, {{"min", 0.0}, {"max", 1.0}});
    }
    if (n == "elu") {
      Value e = c_.op("exp", {x.expr});
      e = c_.op("subtract", {e.expr, sc(1, dt_)});
      e = c_.op("multiply", {e.expr, sc(a.alpha, dt_)});
      Value cond = c_.op("greater", {x.expr, sc(0, dt_)});
      return c_.op("where", {cond.expr, x.expr, e.expr});
    }
    if (n == "softsign") {
      Value d = c_.op("abs", {x.expr});
      d = c_.op("add", {d.expr, sc(1, dt_)});
      return c_.op("divide", {x.expr, d.expr});
    }
    // softplus
    Value e = c_.op("exp", {x.expr});
    e = c_.op("add", {e.expr, sc(1, dt_)});
    return c_.op("log", {e.expr});
  }

  Value add(const Value& a, const Value& b) { return c_.op("add", {a.expr, b.expr}); }
  Value mul(const Value& a, const Value& b) { return c_.op("multiply", {a.expr, b.expr}); }

  Value concat(const std::vector<Value>& vs, int64_t axis) {
    if (vs.size() == 1)
      return vs[0];
    std::vector<Expr> fields;
    std::vector<StructInfo> infos;
    for (auto& v : vs) {
      fields.push_back(v.expr);
      infos.push_back(v.sinfo);
    }
    return c_.op("concat", {make<Tuple>(fields, tupleSInfo(infos))}, {{"axis", axis}});
  }

  /// Stacks (B, H) values along a new axis.
  Value stack(const std::vector<Value>& vs, int64_t axis) {
    std::vector<Value> ex;
    for (auto& v : vs)
      ex.push_back(c_.op("expand_dims", {v.expr}, {{"axis", std::vector<int64_t>{axis}}}));
    return concat(ex, axis);
  }

  /// Y_h / Y_c from the per-direction final states: (D, B, H), or (B, D, H) with layout 1.
  Value finalState(const std::vector<Value>& per) { return stack(per, layout_ == 0 ? 0 : 1); }

  Direction direction(const Value& x, int d, bool reverse) {
    const int64_t H = hidden_;
    const std::vector<Activation> acts(acts_.begin() + d * (acts_.size() / numDir_),
                                       acts_.begin() + (d + 1) * (acts_.size() / numDir_));
    Value w = dirSlice(1, d), r = dirSlice(2, d);
    // Input projection of every step at once, with the biases that are
    // plain additions (all of them but GRU's Rb, which the reset gate scales).
    std::vector<Expr> xwArgs{x.expr, w.expr};
    std::optional<Value> rb;
    if (c_.has(3)) {
      Value b = dirSlice(3, d);
      Value wb = lastAxis(b, 0, gates_ * H);
      Value rbAll = lastAxis(b, gates_ * H, 2 * gates_ * H);
      if (kind_ == Kind::GRU) {
        xwArgs.push_back(wb.expr);
        rb = rbAll;
      } else {
        xwArgs.push_back(add(wb, rbAll).expr);
      }
    }
    Value xw = c_.op("linear", xwArgs); // (T, B, G*H)
    std::vector<Value> xt(steps_);
    if (symbolicSteps_) {
      // filled per step by the scan (see below)
    } else if (steps_ == 1) {
      xt[0] = c_.op("squeeze", {xw.expr}, {{"axis", std::vector<int64_t>{0}}});
    } else {
      Value parts =
          c_.op("split", {xw.expr}, {{"indices_or_sections", steps_}, {"axis", int64_t(0)}});
      for (int64_t t = 0; t < steps_; ++t) {
        Value p = c_.tupleItem(parts, static_cast<int>(t));
        xt[t] = c_.op("squeeze", {p.expr}, {{"axis", std::vector<int64_t>{0}}});
      }
    }
    std::optional<Value> pi, po, pf;
    if (kind_ == Kind::LSTM && c_.has(7)) {
      Value p = dirSlice(7, d);
      pi = lastAxis(p, 0, H);
      po = lastAxis(p, H, 2 * H);
      pf = lastAxis(p, 2 * H, 3 * H);
    }
    // GRU: the hidden projection of z and r, and that of h, are separate
    // (h's input is r * H_prev unless linear_before_reset).
    std::optional<Value> rZR, rH, rbZR, rbH;
    if (kind_ == Kind::GRU) {
      rZR = c_.op("strided_slice", {r.expr},
                  {{"axes", std::vector<int64_t>{0}},
                   {"begin", std::vector<int64_t>{0}},
                   {"end", std::vector<int64_t>{2 * H}}});
      rH = c_.op("strided_slice", {r.expr},
                 {{"axes", std::vector<int64_t>{0}},
                  {"begin", std::vector<int64_t>{2 * H}},
                  {"end", std::vector<int64_t>{3 * H}}});
      if (rb) {
        rbZR = lastAxis(*rb, 0, 2 * H);
        rbH = lastAxis(*rb, 2 * H, 3 * H);
      }
    }

    Direction out;
    out.y.resize(steps_);
    Value h = initialState(5, d);
    Value cell;
    if (kind_ == Kind::LSTM)
      cell = initialState(6, d);
    // One step: the gates from x_t (B, G*H), H_prev and C_prev.
    auto step = [&](const Value& x, const Value& h, const Value& cell) {
      Value hNew, cNew;
      switch (kind_) {
      case Kind::RNN: {
        Value g = add(x, c_.op("linear", {h.expr, r.expr}));
        hNew = act(acts[0], g);
        break;
      }
      case Kind::GRU: {
        std::vector<Expr> args{h.expr, rZR->expr};
        if (rbZR)
          args.push_back(rbZR->expr);
        Value hzr = c_.op("linear", args); // (B, 2H)
        Value xz = lastAxis(x, 0, H), xr = lastAxis(x, H, 2 * H), xh = lastAxis(x, 2 * H, 3 * H);
        Value z = act(acts[0], add(xz, lastAxis(hzr, 0, H)));
        Value rg = act(acts[0], add(xr, lastAxis(hzr, H, 2 * H)));
        Value pre;
        if (linearBeforeReset_) {
          std::vector<Expr> hargs{h.expr, rH->expr};
          if (rbH)
            hargs.push_back(rbH->expr);
          pre = add(xh, mul(rg, c_.op("linear", hargs)));
        } else {
          Value hh = c_.op("linear", {mul(rg, h).expr, rH->expr});
          if (rbH)
            hh = add(hh, *rbH);
          pre = add(xh, hh);
        }
        Value hc = act(acts[1], pre);
        // H = (1 - z) * hc + z * H_prev = hc + z * (H_prev - hc)
        Value diff = c_.op("subtract", {h.expr, hc.expr});
        hNew = add(hc, mul(z, diff));
        break;
      }
      case Kind::LSTM: {
        Value g = add(x, c_.op("linear", {h.expr, r.expr})); // (B, 4H): i, o, f, c
        Value gi = lastAxis(g, 0, H), go = lastAxis(g, H, 2 * H), gf = lastAxis(g, 2 * H, 3 * H),
              gc = lastAxis(g, 3 * H, 4 * H);
        if (pi)
          gi = add(gi, mul(*pi, cell));
        Value i = act(acts[0], gi);
        Value f;
        if (inputForget_) {
          f = c_.op("subtract", {sc(1, dt_), i.expr});
        } else {
          if (pf)
            gf = add(gf, mul(*pf, cell));
          f = act(acts[0], gf);
        }
        Value cc = act(acts[1], gc);
        cNew = add(mul(f, cell), mul(i, cc));
        if (po)
          go = add(go, mul(*po, cNew));
        Value o = act(acts[0], go);
        hNew = mul(o, act(acts[2], cNew));
        break;
      }
      }
      return std::pair<Value, Value>{hNew, cNew};
    };
    if (symbolicSteps_)
      return scanned(out, xw, h, cell, reverse, step);
    for (int64_t s = 0; s < steps_; ++s) {
      int64_t t = reverse ? steps_ - 1 - s : s;
      auto [hNew, cNew] = step(xt[t], h, cell);
      if (lens_) {
        // Entries whose sequence has ended keep their state; Y gets zeros.
        Value tv = NodeContext::scalar(static_cast<double>(t), lensDtype());
        Value live = c_.op("less", {tv.expr, lens_->expr});                            // (B)
        live = c_.op("expand_dims", {live.expr}, {{"axis", std::vector<int64_t>{1}}}); // (B, 1)
        out.y[t] = c_.op("where", {live.expr, hNew.expr, sc(0, dt_)});
        h = c_.op("where", {live.expr, hNew.expr, h.expr});
        if (kind_ == Kind::LSTM)
          cell = c_.op("where", {live.expr, cNew.expr, cell.expr});
      } else {
        out.y[t] = hNew;
        h = hNew;
        cell = cNew;
      }
    }
    out.h = h;
    out.c = cell;
    return out;
  }

  /// A symbolic sequence length: the step becomes the body of an R.scan
  /// over x (T, B, G*H) (backwards for the reverse direction, its outputs
  /// stacked in time order). The step is emitted once with parameters for
  /// x_t, H_prev and C_prev, then outlined into a function whose other
  /// parameters are the outer values it reads (weights, peepholes).
  template <class Step>
  Direction scanned(Direction out, const Value& xw, const Value& h0, const Value& c0, bool reverse,
                    Step& step) {
    bool lstm = kind_ == Kind::LSTM;
    StructInfo bh = tensorSInfo(dt_, std::vector<PrimExpr>{batch_, intImm(hidden_)});
    StructInfo bg = tensorSInfo(dt_, std::vector<PrimExpr>{batch_, intImm(gates_ * hidden_)});
    Var hv = makeVar("h_prev", bh), cv = makeVar("c_prev", bh), xv = makeVar("x_t", bg);
    size_t mark = c_.bindingCount();
    auto [hNew, cNew] =
        step(Value{xv, bg, std::nullopt, std::nullopt}, Value{hv, bh, std::nullopt, std::nullopt},
             Value{cv, bh, std::nullopt, std::nullopt});
    std::vector<Binding> bindings = c_.takeBindings(mark);
    std::vector<Expr> results{hNew.expr};
    if (lstm)
      results.push_back(cNew.expr);
    results.push_back(hNew.expr);
    // The outer values the step reads become parameters.
    std::set<const VarNode*> defined{hv.get(), cv.get(), xv.get()};
    for (auto& b : bindings)
      defined.insert(b->var.get());
    std::vector<Var> freeVars;
    std::set<const VarNode*> seen;
    auto collect = [&](const Expr& e) {
      postOrderVisit(e, [&](const Expr& x) {
        auto* v = as<VarNode>(x);
        if (v && !defined.count(v) && seen.insert(v).second)
          freeVars.push_back(cast<VarNode>(x));
      });
    };
    for (auto& b : bindings)
      collect(b->value);
    for (auto& r : results)
      collect(r);
    struct Remap : ExprMutator {
      void set(const VarNode* from, Expr to) { varRemap_[from] = std::move(to); }
    } remap;
    std::vector<Var> params{hv};
    if (lstm)
      params.push_back(cv);
    params.push_back(xv);
    std::vector<Expr> captured;
    std::vector<StructInfo> capturedInfo;
    for (auto& v : freeVars) {
      Var p = makeVar(v->name, v->sinfo);
      remap.set(v.get(), p);
      params.push_back(p);
      captured.push_back(v);
      capturedInfo.push_back(v->sinfo);
    }
    std::vector<StructInfo> resultInfo;
    for (auto& r : results)
      resultInfo.push_back(r->sinfo);
    Expr body = remap.mutate(makeSeq(bindings, make<Tuple>(results, tupleSInfo(resultInfo))));
    Expr fn = c_.addFunction(c_.name() + "_step", make<Function>(params, body, nullptr));
    std::vector<Expr> states{h0.expr};
    std::vector<StructInfo> stateInfo{h0.sinfo};
    if (lstm) {
      states.push_back(c0.expr);
      stateInfo.push_back(c0.sinfo);
    }
    std::vector<StructInfo> outInfo = stateInfo;
    outInfo.push_back(tensorSInfo(dt_, std::vector<PrimExpr>{seqLen_, batch_, intImm(hidden_)}));
    StructInfo rs = tupleSInfo(outInfo);
    int64_t dir = reverse ? 1 : 0;
    Attrs attrs{{"num_scan_outputs", int64_t(1)},
                {"scan_input_axes", std::vector<int64_t>{0}},
                {"scan_input_directions", std::vector<int64_t>{dir}},
                {"scan_output_axes", std::vector<int64_t>{0}},
                {"scan_output_directions", std::vector<int64_t>{dir}}};
    Value r = c_.bind(make<Call>(opRef("scan"),
                                 std::vector<Expr>{fn, make<Tuple>(states, tupleSInfo(stateInfo)),
                                                   make<Tuple>(std::vector<Expr>{xw.expr},
                                                               tupleSInfo({xw.sinfo})),
                                                   make<Tuple>(captured, tupleSInfo(capturedInfo))},
                                 attrs, std::vector<StructInfo>{rs}, rs),
                      rs);
    out.h = c_.tupleItem(r, 0);
    if (lstm)
      out.c = c_.tupleItem(r, 1);
    out.stacked = c_.tupleItem(r, lstm ? 2 : 1);
    return out;
  }

  DataType lensDtype() {
    DataType d = c_.dtype(4);
    if (!d.isIntegral())
      c_.unsupported("sequence_lens must be an integer tensor");
    return d;
  }

  NodeContext& c_;
  Kind kind_;
  int gates_ = 1;
  DataType dt_;
  int64_t layout_ = 0;
  int numDir_ = 1;
  bool reverseOnly_ = false;
  PrimExpr batch_;
  int64_t steps_ = 0, hidden_ = 0;
  bool symbolicSteps_ = false; // the recurrence is an R.scan (see scanned)
  PrimExpr seqLen_;
  std::vector<Activation> acts_;
  double clip_ = 0;
  bool linearBeforeReset_ = false, inputForget_ = false;
  std::optional<Value> lens_;
};

const std::vector<std::string> kCommonAttrs{
    "activation_alpha", "activation_beta", "activations", "clip",
    "direction",        "hidden_size",     "layout"};

std::vector<std::string> attrsWith(std::vector<std::string> extra) {
  extra.insert(extra.end(), kCommonAttrs.begin(), kCommonAttrs.end());
  return extra;
}

} // namespace

void addRecurrentConverters(ConverterTable& t) {
  t["RNN"] = {[](NodeContext& c) { Unroller(c, Kind::RNN).run(); }, attrsWith({})};
  t["GRU"] = {[](NodeContext& c) { Unroller(c, Kind::GRU).run(); },
              attrsWith({"linear_before_reset"})};
  t["LSTM"] = {[](NodeContext& c) { Unroller(c, Kind::LSTM).run(); }, attrsWith({"input_forget"})};
}

} // namespace unity::frontend::detail
