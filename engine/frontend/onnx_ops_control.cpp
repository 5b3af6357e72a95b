// ONNX control flow: If, Loop, Scan.
//
// If: both branches are converted inline (NodeContext::subgraph, not
// isolated) into the two SeqExprs of a graph-level `if`, which reads outer
// values directly. A condition known at import time imports only the branch
// it selects. The outputs of the branches are joined per dimension: a
// dimension both branches agree on (provably equal, defined outside the
// branches) is kept, any other becomes a fresh shape variable bound by a
// match_cast after the `if` (`if (n, 3) else (2 * n, 3)` gives
// `(res_d0, 3)`), so later nodes still see a shape of known rank.
//
// Loop and Scan: the body becomes a graph-level function of the module (an
// isolated subgraph: the outer values it reads become extra parameters) and
// the node a call of R.loop / R.scan (op/ops_control.cpp), which the
// executor runs: a real run-time loop, since the trip count and the
// condition are run-time values in general and a body may end the loop
// early. A loop-carried value whose shape changes between iterations gets a
// parameter with fresh shape variables in the dimensions that change (the
// body is converted twice: once with the initial value's struct info, then
// generalized). Results whose extents are only known at run time (the
// number of iterations, a generalized dimension) are named by a match_cast
// with fresh shape variables `<output>_d<k>`.
//
// makeSeq (used for every function and branch the importer builds) splits a
// binding list into blocks: an `if` cannot sit in a dataflow block, and a
// dataflow variable used outside its block must be a plain Var.
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "engine/frontend/onnx_convert.h"
#include "engine/ir/functor.h"
#include "engine/op/sinfo_util.h"
#include "engine/support/error.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

/// Rebinds the variables in `escape` as plain Vars and remaps their uses.
struct Escaper : ExprMutator {
  const std::unordered_set<const VarNode*>* escape = nullptr;
  Binding mutateBinding(const Binding& b) override {
    Binding n = ExprMutator::mutateBinding(b);
    if (!escape->count(b->var.get()))
      return n;
    Var nv = makeVar(b->var->name, b->var->sinfo);
    varRemap_[b->var.get()] = nv;
    if (auto* mc = as<MatchCast>(n))
      return make<MatchCast>(nv, mc->value, mc->pattern, mc->span);
    return make<VarBinding>(nv, n->value, n->span);
  }
};

} // namespace

Expr makeSeq(const std::vector<Binding>& bindings, const Expr& body) {
  std::vector<std::pair<bool, std::vector<Binding>>> groups; // (dataflow, bindings)
  for (auto& b : bindings) {
    bool dataflow = !isa<If>(b->value);
    if (groups.empty() || groups.back().first != dataflow)
      groups.push_back({dataflow, {}});
    groups.back().second.push_back(b);
  }
  std::unordered_map<const VarNode*, size_t> defined; // dataflow var -> its group
  for (size_t g = 0; g < groups.size(); ++g)
    for (auto& b : groups[g].second)
      if (b->var->isDataflow())
        defined[b->var.get()] = g;
  std::unordered_set<const VarNode*> escape;
  auto uses = [&](const Expr& e, size_t g) {
    postOrderVisit(e, [&](const Expr& x) {
      auto* v = as<VarNode>(x);
      if (!v)
        return;
      auto it = defined.find(v);
      if (it != defined.end() && it->second != g)
        escape.insert(v);
    });
  };
  for (size_t g = 0; g < groups.size(); ++g)
    for (auto& b : groups[g].second) {
      uses(b->value, g);
      if (!groups[g].first && b->var->isDataflow())
        escape.insert(b->var.get());
    }
  uses(body, groups.size());
  std::vector<Ref<BindingBlock>> blocks;
  for (auto& [dataflow, bs] : groups)
    blocks.push_back(make<BindingBlock>(bs, dataflow));
  Expr seq = make<SeqExpr>(std::move(blocks), body);
  if (escape.empty())
    return seq;
  Escaper e;
  e.escape = &escape;
  return e.mutate(seq);
}

namespace {

bool usesOnly(const PrimExpr& e, const std::unordered_set<const PrimVar*>& known) {
  bool ok = true;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* v = as<PrimVar>(x); v && !known.count(v))
      ok = false;
  });
  return ok;
}

void collectVars(const StructInfo& s, std::unordered_set<const PrimVar*>& out) {
  if (auto* t = as<TensorSInfo>(s); t && t->shape)
    for (auto& d : *t->shape)
      walkPrimExpr(d, [&](const PrimExpr& x) {
        if (auto* v = as<PrimVar>(x))
          out.insert(v);
      });
  if (auto* tu = as<TupleSInfo>(s))
    for (auto& f : tu->fields)
      collectVars(f, out);
}

/// Shape variables a subgraph defines itself (its match_casts): not valid
/// outside it.
std::unordered_set<const PrimVar*> localVars(const std::vector<Binding>& bindings) {
  std::unordered_set<const PrimVar*> out;
  for (auto& b : bindings)
    if (auto* mc = as<MatchCast>(b))
      collectVars(mc->pattern, out);
  return out;
}

const TensorSInfo* tensorOf(NodeContext& c, const Value& v, const std::string& what) {
  auto* t = as<TensorSInfo>(v.sinfo);
  if (!t)
    c.unsupported(what + " is a " + op::sinfoStr(v.sinfo) +
                  "; only tensors are supported (no sequence or optional values)");
  if (t->dtype.isVoid() || t->ndim < 0)
    c.unsupported(what + " has unknown element type or rank");
  return t;
}

/// A result of known rank seen from outside its subgraph: its dims valid
/// there are kept, the others become fresh variables `<name>_d<k>` bound by
/// a match_cast. `dims` null: every dim is fresh.
Value nameExtents(NodeContext& c, Value v, DataType dt, int ndim,
                  const std::vector<std::optional<PrimExpr>>& dims, const std::string& name) {
  std::vector<PrimExpr> pattern;
  bool fresh = false;
  for (int d = 0; d < ndim; ++d) {
    if (d < static_cast<int>(dims.size()) && dims[d]) {
      pattern.push_back(*dims[d]);
    } else {
      pattern.push_back(primVar(sanitizeName(name) + "_d" + std::to_string(d)));
      fresh = true;
    }
  }
  if (!fresh && op::sinfoEqual(v.sinfo, tensorSInfo(dt, pattern)))
    return v;
  return c.matchCast(v, tensorSInfo(dt, pattern));
}

// ---- If ----

void convertIf(NodeContext& c) {
  const onnx::GraphProto& thenG = c.graphAttr("then_branch");
  const onnx::GraphProto& elseG = c.graphAttr("else_branch");
  if (thenG.output_size() != elseG.output_size())
    throw Error("then_branch has " + std::to_string(thenG.output_size()) +
                " outputs but else_branch has " + std::to_string(elseG.output_size()));
  if (c.node.output_size() > thenG.output_size())
    throw Error("the node has " + std::to_string(c.node.output_size()) +
                " outputs but its branches " + std::to_string(thenG.output_size()));
  if (c.rank(0) > 1 || !(c.dtype(0).isBool() || c.dtype(0).isIntegral()))
    c.unsupported("the condition must be a bool scalar");
  if (const Tensor* k = c.constant(0)) {
    if (k->numel() != 1)
      c.unsupported("the condition must hold one value");
    Subgraph s = c.subgraph(k->getDouble(0) != 0 ? thenG : elseG, {}, false);
    c.append(s.bindings);
    for (int i = 0; i < c.node.output_size(); ++i)
      c.output(i, s.outputs[i]);
    return;
  }
  Expr cond = c.in(0).expr;
  if (c.rank(0) == 1)
    cond = c.op("reshape", {cond, make<ShapeExpr>(std::vector<PrimExpr>{})}).expr;
  Subgraph t = c.subgraph(thenG, {}, false), e = c.subgraph(elseG, {}, false);
  auto tLocal = localVars(t.bindings), eLocal = localVars(e.bindings);
  size_t n = t.outputs.size();
  std::vector<Expr> tOut, eOut;
  std::vector<std::vector<std::optional<PrimExpr>>> dims(n);
  std::vector<DataType> dts(n);
  std::vector<int> ranks(n);
  std::vector<ContainerRef> conts(n);
  for (size_t k = 0; k < n; ++k) {
    if (t.outputs[k].container || e.outputs[k].container) {
      // Sequences or optionals: element types joined.
      conts[k] = joinContainers(t.outputs[k].container, e.outputs[k].container);
      if (!conts[k])
        c.unsupported("branch output " + std::to_string(k) +
                      " is a different kind of value in the two branches");
      tOut.push_back(t.outputs[k].expr);
      eOut.push_back(e.outputs[k].expr);
      continue;
    }
    auto* a = tensorOf(c, t.outputs[k], "then_branch output " + std::to_string(k));
    auto* b = tensorOf(c, e.outputs[k], "else_branch output " + std::to_string(k));
    if (a->dtype != b->dtype)
      throw Error("branch output " + std::to_string(k) + " is " + a->dtype.str() +
                  " in then_branch but " + b->dtype.str() + " in else_branch");
    if (a->ndim != b->ndim)
      c.unsupported("branch output " + std::to_string(k) + " has rank " + std::to_string(a->ndim) +
                    " in then_branch but " + std::to_string(b->ndim) + " in else_branch");
    dts[k] = a->dtype;
    ranks[k] = a->ndim;
    bool all = a->shape && b->shape;
    for (int d = 0; all && d < a->ndim; ++d) {
      const PrimExpr &x = (*a->shape)[d], &y = (*b->shape)[d];
      bool valid = true;
      walkPrimExpr(x, [&](const PrimExpr& p) {
        if (auto* v = as<PrimVar>(p); v && (tLocal.count(v) || eLocal.count(v)))
          valid = false;
      });
      dims[k].push_back(valid && sameDim(x, y) ? std::optional<PrimExpr>(x) : std::nullopt);
    }
    tOut.push_back(t.outputs[k].expr);
    eOut.push_back(e.outputs[k].expr);
  }
  auto seqOf = [&](const Subgraph& s, const std::vector<Expr>& outs) {
    Expr body = outs.size() == 1 ? outs[0] : Expr(make<Tuple>(outs));
    return makeSeq(s.bindings, body);
  };
  // The struct info normalize gives the `if`: equal branches keep theirs.
  std::vector<StructInfo> ifInfo;
  for (size_t k = 0; k < n; ++k)
    ifInfo.push_back(conts[k] ? objectSInfo()
                     : op::sinfoEqual(t.outputs[k].sinfo, e.outputs[k].sinfo)
                         ? t.outputs[k].sinfo
                         : tensorSInfo(dts[k], ranks[k]));
  StructInfo s = n == 1 ? ifInfo[0] : tupleSInfo(ifInfo);
  Value res = c.bindPlain(make<If>(cond, seqOf(t, tOut), seqOf(e, eOut), s), s);
  for (int k = 0; k < c.node.output_size(); ++k) {
    Value item = n == 1 ? res : c.tupleItem(res, k);
    if (conts[k]) {
      item.container = conts[k];
      c.output(k, item);
      continue;
    }
    c.output(k, nameExtents(c, item, dts[k], ranks[k], dims[k], c.node.output(k)));
  }
}

// ---- Loop and Scan ----

/// A body converted into a graph-level function of the module.
struct Body {
  Expr fn;                         // its GlobalVar
  std::vector<StructInfo> params;  // as finally converted (carried ones generalized)
  std::vector<ContainerRef> conts; // of the parameters (sequences, optionals)
  std::vector<Value> outputs;
  std::vector<std::string> captured;
};

/// Body outputs the model declares with a static shape that the body's
/// operators could not prove (a Slice by the iteration number gives a
/// length only known at run time): a match_cast to the declared shape,
/// checked at run time, keeps the loop-carried value's shape stable.
void declareOutputs(NodeContext& c, const onnx::GraphProto& g, Subgraph& s) {
  for (int k = 0; k < g.output_size() && k < static_cast<int>(s.outputs.size()); ++k) {
    auto& type = g.output(k).type();
    auto* t = as<TensorSInfo>(s.outputs[k].sinfo);
    if (!t || !type.has_tensor_type() || !type.tensor_type().has_shape())
      continue;
    auto& dims = type.tensor_type().shape().dim();
    if (dims.size() != t->ndim)
      continue;
    std::vector<int64_t> shape;
    for (auto& d : dims)
      if (d.has_dim_value() && d.dim_value() >= 0)
        shape.push_back(d.dim_value());
    if (static_cast<int>(shape.size()) != t->ndim)
      continue;
    StructInfo pattern = tensorSInfo(t->dtype, shape);
    if (op::sinfoEqual(pattern, s.outputs[k].sinfo))
      continue;
    Var v = makeDataflowVar(sanitizeName(g.output(k).name()), pattern);
    Span span;
    span.origins = {c.origin()};
    s.bindings.push_back(make<MatchCast>(v, s.outputs[k].expr, pattern, span));
    s.outputs[k] = Value{v, pattern, std::nullopt, std::nullopt};
  }
}

/// Converts `g` as an isolated function with parameters of struct info
/// `params`; params[pAt..pAt+n) are loop-carried, returned again as outputs
/// [oAt..oAt+n). A carried dimension the body changes becomes a fresh
/// shape variable and the body is converted again.
Body buildBody(NodeContext& c, const onnx::GraphProto& g, std::vector<StructInfo> params,
               std::vector<ContainerRef> conts, size_t pAt, size_t n, size_t oAt,
               const std::string& hint) {
  std::unordered_set<const PrimVar*> fresh;
  for (int pass = 0;; ++pass) {
    std::vector<Value> inputs;
    std::vector<Var> vars;
    for (size_t i = 0; i < params.size(); ++i) {
      Var v = makeVar(sanitizeName(g.input(static_cast<int>(i)).name()), params[i]);
      vars.push_back(v);
      inputs.push_back(Value{v, params[i], std::nullopt, std::nullopt, conts[i]});
    }
    Subgraph s = c.subgraph(g, inputs, true);
    declareOutputs(c, g, s);
    if (s.outputs.size() < oAt + n)
      throw Error("the body has " + std::to_string(s.outputs.size()) +
                  " outputs, expected at least " + std::to_string(oAt + n));
    bool changed = false;
    for (size_t k = 0; k < n; ++k) {
      std::string what = "loop-carried value " + std::to_string(k);
      if (conts[pAt + k] || s.outputs[oAt + k].container) {
        // A sequence or optional: its element type joined with the body's.
        ContainerRef j = joinContainers(conts[pAt + k], s.outputs[oAt + k].container);
        if (!j)
          c.unsupported(what + " changes its kind of value in the body");
        if (!sameContainer(j, conts[pAt + k])) {
          conts[pAt + k] = j;
          changed = true;
        }
        continue;
      }
      auto* a = as<TensorSInfo>(params[pAt + k]);
      auto* b = tensorOf(c, s.outputs[oAt + k], what + " (body output)");
      if (a->dtype != b->dtype || a->ndim != b->ndim)
        c.unsupported(what + " changes from " + op::sinfoStr(params[pAt + k]) + " to " +
                      op::sinfoStr(s.outputs[oAt + k].sinfo) + " in the body");
      if (!a->shape)
        continue;
      std::vector<PrimExpr> dims = *a->shape;
      bool ch = false;
      for (size_t d = 0; d < dims.size(); ++d) {
        auto* pv = as<PrimVar>(dims[d]);
        if ((pv && fresh.count(pv)) || (b->shape && sameDim(dims[d], (*b->shape)[d])))
          continue;
        auto v = primVar(sanitizeName(g.input(static_cast<int>(pAt + k)).name()) + "_d" +
                         std::to_string(d));
        fresh.insert(v.get());
        dims[d] = v;
        ch = true;
      }
      if (ch) {
        params[pAt + k] = tensorSInfo(a->dtype, dims);
        changed = true;
      }
    }
    if (changed && pass < 2)
      continue;
    std::vector<Expr> outs;
    std::vector<StructInfo> outInfo;
    for (auto& o : s.outputs) {
      outs.push_back(o.expr);
      outInfo.push_back(o.sinfo);
    }
    vars.insert(vars.end(), s.capturedParams.begin(), s.capturedParams.end());
    Expr body = makeSeq(s.bindings, make<Tuple>(outs, tupleSInfo(outInfo)));
    BaseFunc fn = make<Function>(vars, body, nullptr);
    return Body{c.addFunction(hint, fn), params, conts, std::move(s.outputs),
                std::move(s.captured)};
  }
}

/// Shape variables of the outer scope that the node's operands use.
std::unordered_set<const PrimVar*> outerVars(NodeContext& c, const Body& b) {
  std::unordered_set<const PrimVar*> known;
  for (int i = 0; i < c.numInputs(); ++i)
    if (c.has(i))
      collectVars(c.value(i).sinfo, known);
  for (auto& n : b.captured) // the outer values the body reads
    if (Expr e = c.exprOf(n))
      collectVars(e->sinfo, known);
  return known;
}

std::vector<std::optional<PrimExpr>> validDims(const StructInfo& s,
                                               const std::unordered_set<const PrimVar*>& known) {
  std::vector<std::optional<PrimExpr>> out;
  auto* t = as<TensorSInfo>(s);
  if (!t || !t->shape)
    return out;
  for (auto& d : *t->shape)
    out.push_back(usesOnly(d, known) ? std::optional<PrimExpr>(d) : std::nullopt);
  return out;
}

StructInfo fromDims(DataType dt, int ndim, const std::vector<std::optional<PrimExpr>>& dims) {
  if (static_cast<int>(dims.size()) != ndim)
    return tensorSInfo(dt, ndim);
  std::vector<PrimExpr> shape;
  for (auto& d : dims) {
    if (!d)
      return tensorSInfo(dt, ndim);
    shape.push_back(*d);
  }
  return tensorSInfo(dt, shape);
}

/// Binds the call and sets the node's outputs, naming unknown extents.
void finishControl(NodeContext& c, const std::string& opName, std::vector<Expr> args, Attrs attrs,
                   const std::vector<DataType>& dts, const std::vector<int>& ranks,
                   const std::vector<std::vector<std::optional<PrimExpr>>>& dims,
                   const std::vector<ContainerRef>& conts = {}) {
  auto contOf = [&](size_t k) { return k < conts.size() ? conts[k] : nullptr; };
  std::vector<StructInfo> fields;
  for (size_t k = 0; k < dts.size(); ++k)
    fields.push_back(contOf(k) ? objectSInfo() : fromDims(dts[k], ranks[k], dims[k]));
  StructInfo s = tupleSInfo(fields);
  Value r = c.bind(
      make<Call>(opRef(opName), std::move(args), std::move(attrs), std::vector<StructInfo>{s}, s),
      s);
  for (int k = 0; k < c.node.output_size() && k < static_cast<int>(dts.size()); ++k) {
    if (c.node.output(k).empty())
      continue;
    Value item = c.tupleItem(r, k);
    if (contOf(k)) {
      item.container = contOf(k);
      c.output(k, item);
      continue;
    }
    c.output(k, nameExtents(c, item, dts[k], ranks[k], dims[k], c.node.output(k)));
  }
}

Expr tupleOf(const std::vector<Expr>& xs) {
  std::vector<StructInfo> s;
  for (auto& x : xs)
    s.push_back(x->sinfo);
  return make<Tuple>(xs, tupleSInfo(s));
}

void convertLoop(NodeContext& c) {
  const onnx::GraphProto& body = c.graphAttr("body");
  int nCarried = c.numInputs() - 2;
  if (nCarried < 0)
    throw Error("Loop needs the inputs M and cond (either may be empty)");
  if (body.input_size() != nCarried + 2)
    throw Error("the body has " + std::to_string(body.input_size()) + " inputs, expected " +
                std::to_string(nCarried + 2) + " (iteration number, condition and " +
                std::to_string(nCarried) + " loop-carried values)");
  int nScan = body.output_size() - 1 - nCarried;
  if (nScan < 0)
    throw Error("the body has " + std::to_string(body.output_size()) +
                " outputs, expected at least " + std::to_string(1 + nCarried) +
                " (condition and loop-carried values)");
  if (c.node.output_size() > nCarried + nScan)
    throw Error("the node has " + std::to_string(c.node.output_size()) +
                " outputs, the body gives " + std::to_string(nCarried + nScan));
  Expr trip, cond;
  if (c.has(0)) {
    if (c.rank(0) > 1 || !c.dtype(0).isIntegral())
      c.unsupported("the trip count M must be an integer scalar");
    trip = c.in(0).expr;
  } else {
    Tensor t(DataType::Int64(), {}); // absent: no bound
    *t.mutableDataAs<int64_t>() = std::numeric_limits<int64_t>::max();
    trip = NodeContext::constant(t).expr;
  }
  if (c.has(1)) {
    if (c.rank(1) > 1)
      c.unsupported("the condition must be a bool scalar");
    cond = c.in(1).expr;
  } else {
    cond = NodeContext::scalar(1, DataType::Bool()).expr;
  }
  std::vector<StructInfo> params{tensorSInfo(DataType::Int64(), std::vector<int64_t>{}),
                                 tensorSInfo(DataType::Bool(), std::vector<int64_t>{})};
  std::vector<Expr> initial;
  std::vector<ContainerRef> conts(2);
  for (int k = 0; k < nCarried; ++k) {
    if (!c.value(2 + k).container)
      tensorOf(c, c.value(2 + k), "loop-carried value " + std::to_string(k));
    initial.push_back(c.in(2 + k).expr);
    params.push_back(c.in(2 + k).sinfo);
    conts.push_back(c.in(2 + k).container);
  }
  Body b =
      buildBody(c, body, params, conts, 2, static_cast<size_t>(nCarried), 1, c.name() + "_body");
  auto known = outerVars(c, b);
  std::vector<Expr> captured;
  for (auto& n : b.captured)
    captured.push_back(c.exprOf(n));
  // With a constant trip count and a condition that never changes, the
  // number of iterations is known.
  std::optional<PrimExpr> count;
  const Tensor* m = c.has(0) ? c.constant(0) : nullptr;
  const Tensor* c0 = c.has(1) ? c.constant(1) : nullptr;
  bool condTrue = !c.has(1) || (c0 && c0->numel() == 1 && c0->getDouble(0) != 0);
  const Value& condOut = b.outputs[0];
  bool condKept = (condOut.data && condOut.data->numel() == 1 && condOut.data->getDouble(0) != 0) ||
                  (isa<VarNode>(condOut.expr) &&
                   as<VarNode>(condOut.expr)->name == sanitizeName(body.input(1).name()) &&
                   !as<VarNode>(condOut.expr)->isDataflow());
  if (m && m->numel() == 1 && condTrue && condKept)
    count = intImm(std::max<int64_t>(0, intAt(*m, 0)));
  std::vector<DataType> dts;
  std::vector<int> ranks;
  std::vector<std::vector<std::optional<PrimExpr>>> dims;
  std::vector<ContainerRef> outConts;
  for (int k = 0; k < nCarried; ++k) {
    outConts.push_back(b.conts[2 + k]);
    if (b.conts[2 + k]) {
      dts.push_back(DataType::Void());
      ranks.push_back(-1);
      dims.emplace_back();
      continue;
    }
    auto* t = as<TensorSInfo>(b.params[2 + k]);
    dts.push_back(t->dtype);
    ranks.push_back(t->ndim);
    dims.push_back(validDims(b.params[2 + k], known));
  }
  for (int j = 0; j < nScan; ++j) {
    auto* t = tensorOf(c, b.outputs[1 + nCarried + j], "scan output " + std::to_string(j));
    dts.push_back(t->dtype);
    ranks.push_back(t->ndim + 1);
    auto d = validDims(b.outputs[1 + nCarried + j].sinfo, known);
    if (static_cast<int>(d.size()) != t->ndim)
      d.assign(t->ndim, std::nullopt);
    d.insert(d.begin(), count);
    dims.push_back(d);
  }
  finishControl(c, "loop", {b.fn, trip, cond, tupleOf(initial), tupleOf(captured)},
                Attrs{{"num_scan_outputs", int64_t(nScan)}}, dts, ranks, dims, outConts);
}

void convertScan(NodeContext& c) {
  const onnx::GraphProto& body = c.graphAttr("body");
  int64_t nIn = c.attrInt("num_scan_inputs", -1);
  if (nIn < 1)
    throw Error("Scan needs the attribute num_scan_inputs >= 1");
  // Scan-8: operand 0 is sequence_lens, and every state and scan input has
  // a leading batch axis (the scan axis is then 1).
  bool batched = c.opset < 9;
  int first = batched ? 1 : 0;
  if (batched && c.has(0))
    c.unsupported("Scan-8's sequence_lens is not supported");
  int nStates = c.numInputs() - first - static_cast<int>(nIn);
  if (nStates < 0)
    throw Error("num_scan_inputs is " + std::to_string(nIn) + " but the node has " +
                std::to_string(c.numInputs()) + " inputs");
  if (body.input_size() != c.numInputs() - first)
    throw Error("the body has " + std::to_string(body.input_size()) + " inputs, expected " +
                std::to_string(c.numInputs() - first));
  int nScan = body.output_size() - nStates;
  if (nScan < 0)
    throw Error("the body has " + std::to_string(body.output_size()) + " outputs, fewer than the " +
                std::to_string(nStates) + " states");
  std::vector<int64_t> inAxes, inDirs, outAxes, outDirs;
  if (batched) {
    inAxes.assign(nIn, 0);
    outAxes.assign(nScan, 0);
    inDirs = c.attrInts("directions", std::vector<int64_t>(nIn, 0));
    outDirs.assign(nScan, 0);
  } else {
    inAxes = c.attrInts("scan_input_axes", std::vector<int64_t>(nIn, 0));
    inDirs = c.attrInts("scan_input_directions", std::vector<int64_t>(nIn, 0));
    outAxes = c.attrInts("scan_output_axes", std::vector<int64_t>(nScan, 0));
    outDirs = c.attrInts("scan_output_directions", std::vector<int64_t>(nScan, 0));
  }
  if (static_cast<int64_t>(inAxes.size()) != nIn || static_cast<int64_t>(inDirs.size()) != nIn ||
      static_cast<int>(outAxes.size()) != nScan || static_cast<int>(outDirs.size()) != nScan)
    throw Error("scan_input_axes/directions need one entry per scan input and "
                "scan_output_axes/directions one per scan output");
  // Without the batch axis (Scan-8), as the body sees them.
  auto unbatched = [&](const TensorSInfo* t) -> StructInfo {
    if (!batched)
      return tensorSInfo(t->dtype, *t->shape);
    if (t->ndim < 1)
      c.unsupported("Scan-8 operands need a batch axis");
    return tensorSInfo(t->dtype, std::vector<PrimExpr>(t->shape->begin() + 1, t->shape->end()));
  };
  std::optional<PrimExpr> batch;
  std::vector<StructInfo> params;
  std::vector<Expr> states, inputs;
  for (int k = 0; k < nStates; ++k) {
    int i = first + k;
    auto* t = tensorOf(c, c.value(i), "state " + std::to_string(k));
    states.push_back(c.in(i).expr);
    if (!t->shape)
      c.unsupported("state " + std::to_string(k) + " has unknown shape");
    if (batched && !batch)
      batch = (*t->shape)[0];
    params.push_back(unbatched(t));
  }
  std::optional<PrimExpr> length;
  for (int j = 0; j < nIn; ++j) {
    int i = first + nStates + j;
    auto* t = tensorOf(c, c.value(i), "scan input " + std::to_string(j));
    if (!t->shape)
      c.unsupported("scan input " + std::to_string(j) + " has unknown shape");
    StructInfo us = unbatched(t);
    auto* u = as<TensorSInfo>(us);
    if (batched && !batch)
      batch = (*t->shape)[0];
    int axis = normAxis(c, inAxes[j], u->ndim);
    inAxes[j] = axis;
    inputs.push_back(c.in(i).expr);
    std::vector<PrimExpr> slice = *u->shape;
    if (!length)
      length = slice[axis];
    slice.erase(slice.begin() + axis);
    params.push_back(tensorSInfo(t->dtype, slice));
  }
  Body b = buildBody(c, body, params, std::vector<ContainerRef>(params.size()), 0,
                     static_cast<size_t>(nStates), 0, c.name() + "_body");
  auto known = outerVars(c, b);
  std::vector<Expr> captured;
  for (auto& n : b.captured)
    captured.push_back(c.exprOf(n));
  auto withBatch = [&](std::vector<std::optional<PrimExpr>> d) {
    if (batched)
      d.insert(d.begin(), batch && usesOnly(*batch, known) ? batch : std::nullopt);
    return d;
  };
  std::vector<DataType> dts;
  std::vector<int> ranks;
  std::vector<std::vector<std::optional<PrimExpr>>> dims;
  for (int k = 0; k < nStates; ++k) {
    auto* t = as<TensorSInfo>(b.params[k]);
    dts.push_back(t->dtype);
    ranks.push_back(t->ndim + (batched ? 1 : 0));
    dims.push_back(withBatch(validDims(b.params[k], known)));
  }
  for (int j = 0; j < nScan; ++j) {
    auto* t = tensorOf(c, b.outputs[nStates + j], "scan output " + std::to_string(j));
    int axis = normAxis(c, outAxes[j], t->ndim + 1);
    outAxes[j] = axis;
    dts.push_back(t->dtype);
    ranks.push_back(t->ndim + 1 + (batched ? 1 : 0));
    auto d = validDims(b.outputs[nStates + j].sinfo, known);
    if (static_cast<int>(d.size()) != t->ndim)
      d.assign(t->ndim, std::nullopt);
    std::optional<PrimExpr> len;
    if (length && usesOnly(*length, known))
      len = length;
    d.insert(d.begin() + axis, len);
    dims.push_back(withBatch(d));
  }
  Attrs attrs{{"num_scan_outputs", int64_t(nScan)},
              {"scan_input_axes", inAxes},
              {"scan_input_directions", inDirs},
              {"scan_output_axes", outAxes},
              {"scan_output_directions", outDirs}};
  if (batched)
    attrs = attrs.with("batched", true);
  finishControl(c, "scan", {b.fn, tupleOf(states), tupleOf(inputs), tupleOf(captured)},
                std::move(attrs), dts, ranks, dims);
}

} // namespace

void addControlConverters(ConverterTable& t) {
  t["If"] = {convertIf, {"then_branch", "else_branch"}};
  t["Loop"] = {convertLoop, {"body"}};
  t["Scan"] = {convertScan,
               {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                "scan_output_axes", "scan_output_directions", "directions"}};
}

} // namespace unity::frontend::detail
