// The reference evaluator's graph-level part (see reference.h): an
// environment from variables to values and from shape variables to
// integers, filled binding by binding. Operators dispatch to the tables of
// reference_ops_*.cpp; call_tir runs the callee with the te interpreter.
//
// Shape variables are bound the first time a struct info mentions them as a
// bare dimension (a parameter, a match_cast pattern, a binding's struct
// info); every later mention is evaluated and compared with the value.
#include "engine/runtime/reference.h"

#include <unordered_map>

#include "engine/ir/builtins.h"
#include "engine/ir/int_eval.h"
#include "engine/op/op.h"
#include "engine/support/error.h"
#include "engine/te/interpreter.h"

namespace unity::runtime {

using namespace ir;
using reference::OpCall;
using reference::RefValue;

namespace {

const reference::OpTable& opTable() {
  static const reference::OpTable table = [] {
    reference::OpTable t;
    reference::addElementwiseOps(t);
    reference::addNNOps(t);
    reference::addReduceOps(t);
    reference::addManipOps(t);
    reference::addIndexOps(t);
    return t;
  }();
  return table;
}

constexpr int kMaxDepth = 64;

struct Frame {
  const IRModule& mod;
  std::string fname;
  int depth;
  std::unordered_map<const VarNode*, RefValue> env;
  std::unordered_map<const PrimVar*, int64_t> shapeEnv;

  [[noreturn]] void fail(const Span& span, const std::string& msg) const {
    std::string text = "reference: " + msg + " (in function '" + fname + "')";
    if (span.line > 0)
      throw Error(SourceLoc{span.file, span.line, span.column}, text);
    throw Error(text);
  }

  bool allBound(const PrimExpr& e) const {
    bool ok = true;
    // A small recursive walk: shape expressions are tiny.
    std::function<void(const PrimExpr&)> walk = [&](const PrimExpr& x) {
      if (!x || !ok)
        return;
      if (auto* v = as<PrimVar>(x))
        ok = shapeEnv.count(v) != 0;
      else if (auto* b = as<BinaryExpr>(x)) {
        walk(b->a);
        walk(b->b);
      } else if (auto* s = as<Select>(x)) {
        walk(s->cond);
        walk(s->t);
        walk(s->f);
      } else if (auto* c = as<CastExpr>(x))
        walk(c->value);
      else if (auto* n = as<NotExpr>(x))
        walk(n->a);
    };
    walk(e);
    return ok;
  }

  int64_t evalInt(const PrimExpr& e, const Span& span) const {
    try {
      return evalIntExpr(e, [&](const PrimVar* v) -> std::optional<int64_t> {
        auto it = shapeEnv.find(v);
        if (it == shapeEnv.end())
          return std::nullopt;
        return it->second;
      });
    } catch (const Error& err) {
      fail(span, err.message());
    }
  }

  /// Checks v against s; shape variables met as a bare dimension for the
  /// first time are bound to the value's dimension.
  void match(const StructInfo& s, const RefValue& v, const std::string& what, const Span& span) {
    if (!s)
      return;
    if (auto* t = as<TensorSInfo>(s)) {
      if (!v.isTensor())
        fail(span, what + " must be a tensor");
      const Tensor& x = std::get<Tensor>(v.v);
      if (!t->dtype.isVoid() && t->dtype != x.dtype())
        fail(span,
             what + " has dtype " + x.dtype().str() + ", its struct info says " + t->dtype.str());
      if (t->ndim >= 0 && t->ndim != x.ndim())
        fail(span, what + " has rank " + std::to_string(x.ndim()) + ", its struct info says " +
                       std::to_string(t->ndim));
      if (t->shape)
        matchDims(*t->shape, x.shape(), what, span);
      return;
    }
    if (auto* tu = as<TupleSInfo>(s)) {
      auto* fields = v.asTuple();
      if (!fields || fields->size() != tu->fields.size())
        fail(span, what + " must be a tuple of " + std::to_string(tu->fields.size()) + " fields");
      for (size_t k = 0; k < fields->size(); ++k)
        match(tu->fields[k], (*fields)[k], what + "[" + std::to_string(k) + "]", span);
      return;
    }
    if (auto* sh = as<ShapeSInfo>(s)) {
      auto* dims = v.asShape();
      if (!dims)
        fail(span, what + " must be a shape");
      if (sh->ndim >= 0 && static_cast<int>(dims->size()) != sh->ndim)
        fail(span, what + " must be a shape of rank " + std::to_string(sh->ndim));
      if (sh->values)
        matchDims(*sh->values, *dims, what, span);
      return;
    }
    if (auto* p = as<PrimSInfo>(s); p && p->value) {
      if (auto* i = std::get_if<int64_t>(&v.v))
        matchDims({p->value}, {*i}, what, span);
    }
  }

  void matchDims(const std::vector<PrimExpr>& want, const std::vector<int64_t>& got,
                 const std::string& what, const Span& span) {
    for (size_t d = 0; d < want.size(); ++d)
      if (auto* pv = as<PrimVar>(want[d]); pv && !shapeEnv.count(pv))
        shapeEnv[pv] = got[d];
    for (size_t d = 0; d < want.size(); ++d) {
      if (!allBound(want[d]))
        continue; // e.g. `n * 2` where n is not known yet: nothing to check
      int64_t w = evalInt(want[d], span);
      if (w != got[d])
        fail(span, what + " has shape " + Tensor::shapeStr(got) + ": dimension " +
                       std::to_string(d) + " is " + std::to_string(got[d]) +
                       ", its struct info says " + std::to_string(w));
    }
  }

  Tensor allocate(const StructInfo& s, const Span& span) {
    auto* t = as<TensorSInfo>(s);
    if (!t || !t->shape || t->dtype.isVoid())
      fail(span, "cannot allocate an output of unknown shape or dtype");
    std::vector<int64_t> shape;
    for (auto& d : *t->shape) {
      int64_t x = evalInt(d, span);
      if (x < 0)
        fail(span, "negative output dimension " + std::to_string(x));
      shape.push_back(x);
    }
    return Tensor(t->dtype, shape);
  }

  std::vector<Tensor> tensorsOf(const RefValue& v, const Span& span, const std::string& what) {
    std::vector<Tensor> out;
    if (v.isTensor())
      return {std::get<Tensor>(v.v)};
    auto* fs = v.asTuple();
    if (!fs)
      fail(span, what + " must be a tensor or a tuple of tensors");
    for (auto& f : *fs) {
      if (!f.isTensor())
        fail(span, what + " must contain only tensors");
      out.push_back(std::get<Tensor>(f.v));
    }
    return out;
  }

  PrimFuncRef primFunc(const Expr& callee, const Span& span) {
    auto* gv = as<GlobalVar>(callee);
    if (!gv)
      fail(span, "call_tir's callee must be a global tensor function");
    auto pf = cast<PrimFunc>(mod->lookup(gv->name));
    if (!pf)
      fail(span, "'" + gv->name + "' is not a tensor function of the module");
    return pf;
  }

  std::vector<int64_t> scalarsOf(const Call* c, size_t index, const Span& span) {
    if (c->args.size() <= index)
      return {};
    RefValue v = eval(c->args[index], span);
    if (auto* s = v.asShape())
      return *s;
    if (auto* i = std::get_if<int64_t>(&v.v))
      return {*i};
    fail(span, "the tensor function's scalar arguments must be a shape");
  }

  void interpret(const PrimFuncRef& pf, std::vector<Tensor> ins, std::vector<Tensor>& outs,
                 const std::vector<int64_t>& scalars) {
    std::vector<Tensor*> ptrs;
    for (auto& t : ins)
      ptrs.push_back(&t);
    for (auto& t : outs)
      ptrs.push_back(&t);
    te::interpretPrimFunc(pf, ptrs, scalars);
  }

  RefValue callTIR(const Call* c, const Span& span) {
    if (c->args.size() < 2 || c->sinfoArgs.size() != 1)
      fail(span, "malformed call_tir (needs a function, arguments and one output struct info)");
    PrimFuncRef pf = primFunc(c->args[0], span);
    auto ins = tensorsOf(eval(c->args[1], span), span, "call_tir's arguments");
    const StructInfo& out = c->sinfoArgs[0];
    auto* tu = as<TupleSInfo>(out);
    std::vector<Tensor> outs;
    for (auto& s : tu ? tu->fields : std::vector<StructInfo>{out})
      outs.push_back(allocate(s, span));
    interpret(pf, ins, outs, scalarsOf(c, 2, span));
    if (!tu)
      return RefValue(outs[0]);
    std::vector<RefValue> fs(outs.begin(), outs.end());
    return RefValue::tuple(std::move(fs));
  }

  RefValue evalOp(const Call* c, const std::string& name, const Span& span) {
    if (name == "call_tir")
      return callTIR(c, span);
    const op::OpInfo* info = op::findOp(name);
    if (!info)
      fail(span, "unknown operator R." + name);
    auto it = opTable().find(name);
    if (it == opTable().end())
      fail(span, "operator R." + name + " has no reference implementation");
    OpCall call{*c, *info, {}};
    for (auto& a : c->args)
      call.args.push_back(eval(a, span));
    try {
      return it->second(call);
    } catch (const Error& e) {
      if (e.loc().known() || span.line == 0)
        throw;
      throw Error(SourceLoc{span.file, span.line, span.column}, e.message());
    }
  }

  RefValue evalCall(const Call* c, const Span& span) {
    if (auto* op = as<OpRef>(c->op))
      return evalOp(c, op->name, span);
    if (auto* ext = as<ExternFunc>(c->op)) {
      if (ext->symbol == ir::kAllocTensor)
        return RefValue(allocate(c->sinfoArgs.empty() ? c->sinfo : c->sinfoArgs[0], span));
      if (ext->symbol == ir::kCallTIRDps) {
        if (c->args.size() < 3)
          fail(span, "malformed call_tir_dps");
        PrimFuncRef pf = primFunc(c->args[0], span);
        auto ins = tensorsOf(eval(c->args[1], span), span, "call_tir_dps's arguments");
        auto outs = tensorsOf(eval(c->args[2], span), span, "call_tir_dps's outputs");
        interpret(pf, ins, outs, scalarsOf(c, 3, span));
        return RefValue();
      }
      fail(span, "external function '" + ext->symbol + "' has no reference implementation");
    }
    if (auto* gv = as<GlobalVar>(c->op)) {
      std::vector<RefValue> args;
      for (auto& a : c->args)
        args.push_back(eval(a, span));
      return runFunction(mod, gv->name, args, depth + 1);
    }
    fail(span, std::string("cannot call a ") + kindName(c->op->kind()));
  }

  RefValue eval(const Expr& e, const Span& span) {
    if (!e)
      fail(span, "missing expression");
    switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar: {
      auto it = env.find(as<VarNode>(e));
      if (it == env.end())
        fail(span, "variable '" + as<VarNode>(e)->name + "' is used before it has a value");
      return it->second;
    }
    case NodeKind::Constant:
      return RefValue(as<Constant>(e)->data);
    case NodeKind::Tuple: {
      std::vector<RefValue> fs;
      for (auto& f : as<Tuple>(e)->fields)
        fs.push_back(eval(f, span));
      return RefValue::tuple(std::move(fs));
    }
    case NodeKind::TupleGetItem: {
      auto* t = as<TupleGetItem>(e);
      RefValue tv = eval(t->tuple, span);
      auto* fs = tv.asTuple();
      if (!fs)
        fail(span, "indexing a value that is not a tuple");
      if (t->index < 0 || t->index >= static_cast<int>(fs->size()))
        fail(span, "tuple index " + std::to_string(t->index) + " out of range for a tuple of " +
                       std::to_string(fs->size()));
      return (*fs)[t->index];
    }
    case NodeKind::ShapeExpr: {
      std::vector<int64_t> dims;
      for (auto& d : as<ShapeExpr>(e)->values)
        dims.push_back(evalInt(d, span));
      return RefValue::shape(std::move(dims));
    }
    case NodeKind::PrimValue: {
      const PrimExpr& p = as<PrimValue>(e)->value;
      RefValue v;
      if (auto* f = as<FloatImm>(p))
        v.v = f->value;
      else
        v.v = evalInt(p, span);
      return v;
    }
    case NodeKind::StringImm: {
      RefValue v;
      v.v = as<StringImm>(e)->value;
      return v;
    }
    case NodeKind::Call:
      return evalCall(as<Call>(e), span);
    case NodeKind::SeqExpr: {
      auto* s = as<SeqExpr>(e);
      for (auto& blk : s->blocks)
        for (auto& b : blk->bindings) {
          RefValue v = eval(b->value, b->span);
          std::string what = "the value of '" + b->var->name + "'";
          if (auto* mc = as<MatchCast>(b))
            match(mc->pattern, v, what + " (match_cast)", b->span);
          match(b->var->sinfo, v, what, b->span);
          env[b->var.get()] = std::move(v);
        }
      return eval(s->body, span);
    }
    case NodeKind::If: {
      auto* i = as<If>(e);
      RefValue c = eval(i->cond, span);
      bool cond = false;
      if (c.isTensor() && std::get<Tensor>(c.v).numel() == 1)
        cond = std::get<Tensor>(c.v).getDouble(0) != 0;
      else if (auto* iv = std::get_if<int64_t>(&c.v))
        cond = *iv != 0;
      else
        fail(span, "the condition of an if must be a scalar");
      return eval(cond ? i->thenBranch : i->elseBranch, span);
    }
    default:
      fail(span, std::string("cannot evaluate a ") + kindName(e->kind()));
    }
  }

  static RefValue runFunction(const IRModule& mod, const std::string& name,
                              const std::vector<RefValue>& args, int depth) {
    auto* fn = as<Function>(mod->lookup(name));
    if (!fn)
      throw Error("reference: no graph-level function '" + name + "' in the module");
    if (depth > kMaxDepth)
      throw Error("reference: call depth exceeds " + std::to_string(kMaxDepth) + " in function '" +
                  name + "'");
    if (args.size() != fn->params.size())
      throw Error("reference: function '" + name + "' takes " + std::to_string(fn->params.size()) +
                  " arguments, got " + std::to_string(args.size()));
    Frame f{mod, name, depth, {}, {}};
    for (size_t i = 0; i < args.size(); ++i) {
      f.match(fn->params[i]->sinfo, args[i], "argument '" + fn->params[i]->name + "'", Span{});
      f.env[fn->params[i].get()] = args[i];
    }
    RefValue out = f.eval(fn->body, Span{});
    f.match(fn->retSInfo, out, "the result", Span{});
    return out;
  }
};

void flatten(const RefValue& v, std::vector<Tensor>& out) {
  if (v.isTensor())
    out.push_back(std::get<Tensor>(v.v));
  else if (auto* fs = v.asTuple())
    for (auto& f : *fs)
      flatten(f, out);
}

} // namespace

std::vector<Tensor> referenceRun(const IRModule& m, const std::vector<Tensor>& inputs,
                                 const std::string& fn) {
  if (!m)
    throw Error("reference: no module");
  std::vector<RefValue> args(inputs.begin(), inputs.end());
  RefValue out = Frame::runFunction(m, fn, args, 0);
  std::vector<Tensor> tensors;
  flatten(out, tensors);
  return tensors;
}

std::vector<std::string> referenceOps() {
  std::vector<std::string> names;
  for (auto& [name, _] : opTable())
    names.push_back(name);
  names.push_back("call_tir");
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace unity::runtime
