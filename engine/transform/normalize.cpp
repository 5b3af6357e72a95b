// Normalize: one recursive walk over each graph-level function that gives
// every expression its struct info.
//
// Leaves (constants, shapes, prim values, strings) carry struct info from
// construction. A tuple's is the tuple of its fields', a tuple item's the
// field of its tuple's, an operator call's is deduced by the operator
// registry (op::deduceStructInfo), a call of a global function takes that
// function's return struct info (the callee is normalized first, on demand;
// recursion falls back to its declared return) with the callee's shape
// variables bound from the arguments (a callee `(m, 16) -> (m, 8)` called
// with `(n, 16)` returns `(n, 8)`; an argument that provably contradicts a
// parameter is an error), an `if` joins its branches.
//
// Bindings: the value is normalized first; the variable must then carry the
// value's struct info (for match_cast: the pattern's). When it lacks it, or
// it differs, a new Var node is made and every later use is remapped to it.
// An annotation that contradicts the deduced struct info is an error; a
// match_cast whose pattern can never match its value is an error.
//
// Sharing: nothing is rebuilt unless a child changed or struct info was
// missing, so normalizing a normalized module returns the very same module.
#include "engine/transform/normalize.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/op/shape_arith.h"
#include "engine/op/sinfo_util.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace unity::ir;

namespace {

class Normalizer {
public:
  /// Signature (FuncSInfo with parameters) of global function `name`, or its
  /// return struct info alone when the parameters are not known (may
  /// normalize the function first).
  std::function<StructInfo(const std::string&)> globalRet;

  Expr visit(const Expr& e) {
    if (!e)
      return e;
    switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar:
      return visitVar(as<VarNode>(e), e);
    case NodeKind::Tuple:
      return visitTuple(as<Tuple>(e), e);
    case NodeKind::TupleGetItem:
      return visitTupleGetItem(as<TupleGetItem>(e), e);
    case NodeKind::Call:
      return visitCall(as<Call>(e), e);
    case NodeKind::If:
      return visitIf(as<If>(e), e);
    case NodeKind::SeqExpr:
      return visitSeq(as<SeqExpr>(e), e);
    case NodeKind::Function:
      return visitFunction(as<Function>(e), e);
    default:
      return e; // constants, shapes, prim values, strings, globals, ops, externs
    }
  }

  Expr visitFunction(const Function* f, const Expr& self) {
    bool changed = false;
    std::vector<Var> params;
    for (auto& p : f->params) {
      if (!p->sinfo)
        throw Error(
            fmt::format("normalize: parameter '{}' of a function has no struct info", p->name));
      params.push_back(p);
    }
    Expr body = f->body;
    if (!isa<SeqExpr>(body)) {
      body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{}, body);
      changed = true;
    }
    Expr nb = visit(body);
    changed |= !sameNode(nb, f->body);
    StructInfo ret = f->retSInfo;
    if (!ret) {
      ret = nb->sinfo;
      changed = true;
    } else if (!op::sinfoCompatible(ret, nb->sinfo)) {
      throw Error(fmt::format("normalize: function body has {} but the declared return is {}",
                              op::sinfoStr(nb->sinfo), op::sinfoStr(ret)));
    }
    if (!changed)
      return self;
    return make<Function>(std::move(params), nb, ret, f->attrs, f->pure);
  }

private:
  std::unordered_map<const VarNode*, Var> remap_;
  Span span_; // of the binding being normalized

  [[noreturn]] void fail(const std::string& msg) const {
    if (span_.empty())
      throw Error("normalize: " + msg);
    throw Error(SourceLoc{span_.file, span_.line, span_.column}, "normalize: " + msg);
  }

  Expr visitVar(const VarNode* v, const Expr& self) {
    auto it = remap_.find(v);
    if (it != remap_.end())
      return it->second;
    if (!self->sinfo)
      fail(fmt::format("variable '{}' has no struct info", v->name));
    return self;
  }

  Expr visitTuple(const Tuple* t, const Expr& self) {
    bool changed = !t->sinfo;
    std::vector<Expr> fields;
    std::vector<StructInfo> sinfos;
    for (auto& f : t->fields) {
      fields.push_back(visit(f));
      changed |= !sameNode(fields.back(), f);
      sinfos.push_back(fields.back()->sinfo);
    }
    if (!changed)
      return self;
    return make<Tuple>(std::move(fields), tupleSInfo(std::move(sinfos)));
  }

  Expr visitTupleGetItem(const TupleGetItem* t, const Expr& self) {
    Expr tup = visit(t->tuple);
    if (sameNode(tup, t->tuple) && t->sinfo)
      return self;
    StructInfo s;
    if (auto* ts = as<TupleSInfo>(tup->sinfo)) {
      if (t->index >= static_cast<int>(ts->fields.size()))
        fail(fmt::format("tuple index {} out of range for {}", t->index, op::sinfoStr(tup->sinfo)));
      s = ts->fields[t->index];
    } else if (isa<ObjectSInfo>(tup->sinfo)) {
      s = objectSInfo();
    } else {
      fail(fmt::format("tuple item {} of a non-tuple {}", t->index, op::sinfoStr(tup->sinfo)));
    }
    return make<TupleGetItem>(tup, t->index, s);
  }

  Expr visitCall(const Call* c, const Expr& self) {
    Expr callee = visit(c->op);
    bool changed = !sameNode(callee, c->op);
    std::vector<Expr> args;
    for (auto& a : c->args) {
      args.push_back(visit(a));
      changed |= !sameNode(args.back(), a);
    }
    if (!changed && c->sinfo)
      return self;
    auto call = make<Call>(callee, args, c->attrs, c->sinfoArgs);
    StructInfo s;
    if (isa<OpRef>(callee)) {
      s = op::deduceStructInfo(*call, span_);
    } else if (auto* g = as<GlobalVar>(callee)) {
      s = globalRet ? globalRet(g->name) : nullptr;
      if (!s && isa<FuncSInfo>(g->sinfo))
        s = g->sinfo;
      if (auto* sig = as<FuncSInfo>(s))
        s = instantiate(*sig, args, "@" + g->name);
      if (!s)
        s = objectSInfo();
    } else if (isa<ExternFunc>(callee)) {
      s = c->sinfoArgs.empty() ? objectSInfo() : c->sinfoArgs[0];
    } else if (auto* fs = as<FuncSInfo>(callee->sinfo)) {
      if (fs->params && fs->params->size() != args.size())
        fail(fmt::format("function value called with {} arguments, expects {}", args.size(),
                         fs->params->size()));
      s = fs->ret;
    } else {
      fail("callee is not callable: " + op::operandStr(callee));
    }
    return make<Call>(callee, std::move(args), c->attrs, c->sinfoArgs, s);
  }

  /// The return struct info of a call of `sig` with `args`: shape variables
  /// of the parameters bound to the arguments' dims, then substituted.
  StructInfo instantiate(const FuncSInfo& sig, const std::vector<Expr>& args,
                         const std::string& callee) {
    if (!sig.params)
      return sig.ret;
    if (sig.params->size() != args.size())
      fail(fmt::format("{} called with {} arguments, expects {}", callee, args.size(),
                       sig.params->size()));
    std::unordered_map<const PrimVar*, PrimExpr> bound;
    auto bindDims = [&](const std::vector<PrimExpr>& want, const std::vector<PrimExpr>& got,
                        size_t argIndex) {
      if (want.size() != got.size())
        return;
      for (size_t d = 0; d < want.size(); ++d) {
        if (auto* v = as<PrimVar>(want[d]); v && !bound.count(v)) {
          bound[v] = got[d];
          continue;
        }
        auto w = asConstInt(substitute(want[d], bound)), a = asConstInt(got[d]);
        if (w && a && *w != *a)
          fail(fmt::format("argument {} of {}: dimension {} is {}, the parameter expects {}",
                           argIndex, callee, d, *a, *w));
      }
    };
    std::function<void(const StructInfo&, const StructInfo&, size_t)> bind =
        [&](const StructInfo& want, const StructInfo& got, size_t k) {
          if (!want || !got)
            return;
          if (!op::sinfoCompatible(want, got))
            fail(fmt::format("argument {} of {} is {}, the parameter expects {}", k, callee,
                             op::sinfoStr(got), op::sinfoStr(want)));
          if (auto* tw = as<TensorSInfo>(want)) {
            auto* tg = as<TensorSInfo>(got);
            if (tg && tw->shape && tg->shape)
              bindDims(*tw->shape, *tg->shape, k);
          } else if (auto* sw = as<ShapeSInfo>(want)) {
            auto* sg = as<ShapeSInfo>(got);
            if (sg && sw->values && sg->values)
              bindDims(*sw->values, *sg->values, k);
          } else if (auto* pw = as<PrimSInfo>(want)) {
            auto* pg = as<PrimSInfo>(got);
            if (pg && pw->value && pg->value)
              bindDims({pw->value}, {pg->value}, k);
          } else if (auto* uw = as<TupleSInfo>(want)) {
            auto* ug = as<TupleSInfo>(got);
            if (ug && ug->fields.size() == uw->fields.size())
              for (size_t i = 0; i < uw->fields.size(); ++i)
                bind(uw->fields[i], ug->fields[i], k);
          }
        };
    for (size_t k = 0; k < args.size(); ++k)
      bind((*sig.params)[k], args[k]->sinfo, k);
    if (bound.empty())
      return sig.ret;
    return substituteSInfo(sig.ret, bound);
  }

  static StructInfo substituteSInfo(const StructInfo& s,
                                    const std::unordered_map<const PrimVar*, PrimExpr>& map) {
    auto dims = [&](const std::vector<PrimExpr>& in) {
      std::vector<PrimExpr> out;
      for (auto& d : in)
        out.push_back(arith::simplify(substitute(d, map)));
      return out;
    };
    if (auto* t = as<TensorSInfo>(s))
      return t->shape ? make<TensorSInfo>(t->dtype, dims(*t->shape)) : s;
    if (auto* sh = as<ShapeSInfo>(s))
      return sh->values ? make<ShapeSInfo>(dims(*sh->values)) : s;
    if (auto* p = as<PrimSInfo>(s))
      return p->value ? make<PrimSInfo>(p->dtype, arith::simplify(substitute(p->value, map))) : s;
    if (auto* u = as<TupleSInfo>(s)) {
      std::vector<StructInfo> fields;
      for (auto& f : u->fields)
        fields.push_back(substituteSInfo(f, map));
      return make<TupleSInfo>(fields);
    }
    return s;
  }

  StructInfo join(const StructInfo& a, const StructInfo& b) {
    if (op::sinfoEqual(a, b))
      return a;
    if (isa<ObjectSInfo>(a) || isa<ObjectSInfo>(b))
      return objectSInfo();
    if (a->kind() != b->kind())
      fail(
          fmt::format("branches of if differ in kind: {} vs {}", op::sinfoStr(a), op::sinfoStr(b)));
    if (auto* ta = as<TensorSInfo>(a)) {
      auto* tb = as<TensorSInfo>(b);
      DataType t = ta->dtype == tb->dtype ? ta->dtype : DataType::Void();
      return tensorSInfo(t, ta->ndim == tb->ndim ? ta->ndim : -1);
    }
    if (auto* ua = as<TupleSInfo>(a)) {
      auto* ub = as<TupleSInfo>(b);
      if (ua->fields.size() != ub->fields.size())
        fail(fmt::format("branches of if are tuples of different sizes: {} vs {}", op::sinfoStr(a),
                         op::sinfoStr(b)));
      std::vector<StructInfo> fs;
      for (size_t i = 0; i < ua->fields.size(); ++i)
        fs.push_back(join(ua->fields[i], ub->fields[i]));
      return tupleSInfo(std::move(fs));
    }
    if (auto* sa = as<ShapeSInfo>(a)) {
      auto* sb = as<ShapeSInfo>(b);
      return make<ShapeSInfo>(sa->ndim == sb->ndim ? sa->ndim : -1);
    }
    if (auto* pa = as<PrimSInfo>(a)) {
      auto* pb = as<PrimSInfo>(b);
      return primSInfo(pa->dtype == pb->dtype ? pa->dtype : DataType::Void());
    }
    return objectSInfo(); // functions with different signatures
  }

  Expr branch(const Expr& e) {
    if (isa<SeqExpr>(e))
      return visit(e);
    return visit(make<SeqExpr>(std::vector<Ref<BindingBlock>>{}, e));
  }

  Expr visitIf(const If* i, const Expr& self) {
    Expr cond = visit(i->cond);
    auto* ct = as<TensorSInfo>(cond->sinfo);
    auto* cp = as<PrimSInfo>(cond->sinfo);
    if (!(cp && (cp->dtype.isBool() || cp->dtype.isVoid())) && !(ct && ct->ndim <= 0) &&
        !isa<ObjectSInfo>(cond->sinfo))
      fail("if condition must be a bool scalar, got " + op::sinfoStr(cond->sinfo));
    Expr t = branch(i->thenBranch), f = branch(i->elseBranch);
    if (sameNode(cond, i->cond) && sameNode(t, i->thenBranch) && sameNode(f, i->elseBranch) &&
        i->sinfo)
      return self;
    return make<If>(cond, t, f, join(t->sinfo, f->sinfo));
  }

  Expr visitSeq(const SeqExpr* s, const Expr& self) {
    bool changed = false;
    std::vector<Ref<BindingBlock>> blocks;
    for (auto& b : s->blocks) {
      blocks.push_back(visitBlock(b));
      changed |= !sameNode(blocks.back(), b);
    }
    span_ = {};
    Expr body = visit(s->body);
    changed |= !sameNode(body, s->body);
    if (!changed && s->sinfo)
      return self;
    return make<SeqExpr>(std::move(blocks), body, body->sinfo);
  }

  Ref<BindingBlock> visitBlock(const Ref<BindingBlock>& blk) {
    bool changed = false;
    std::vector<Binding> out;
    for (auto& b : blk->bindings) {
      out.push_back(visitBinding(b));
      changed |= !sameNode(out.back(), b);
    }
    return changed ? make<BindingBlock>(std::move(out), blk->dataflow) : blk;
  }

  Binding visitBinding(const Binding& b) {
    span_ = b->span;
    Expr value = visit(b->value);
    auto* mc = as<MatchCast>(b);
    StructInfo want = value->sinfo;
    if (mc) {
      if (!op::sinfoCompatible(mc->pattern, value->sinfo))
        fail(fmt::format("match_cast of '{}': value {} can never match {}", b->var->name,
                         op::sinfoStr(value->sinfo), op::sinfoStr(mc->pattern)));
      want = mc->pattern;
    } else if (b->var->sinfo && !op::sinfoCompatible(b->var->sinfo, value->sinfo)) {
      fail(fmt::format("variable '{}' is annotated {} but its value has {}", b->var->name,
                       op::sinfoStr(b->var->sinfo), op::sinfoStr(value->sinfo)));
    }
    Var var = b->var;
    if (!var->sinfo || !op::sinfoEqual(var->sinfo, want)) {
      var = make<VarNode>(var->name, want, var->isDataflow());
      remap_[b->var.get()] = var;
    }
    if (sameNode(var, b->var) && sameNode(value, b->value))
      return b;
    if (mc)
      return make<MatchCast>(var, value, mc->pattern, b->span);
    return make<VarBinding>(var, value, b->span);
  }
};

} // namespace

IRModule normalize(const IRModule& m) {
  if (!m)
    throw Error("normalize: no module");
  std::unordered_map<std::string, BaseFunc> done;
  std::unordered_set<std::string> inProgress;
  std::function<BaseFunc(const std::string&)> normalizeFunc;

  auto globalRet = [&](const std::string& name) -> StructInfo {
    BaseFunc f = m->lookup(name);
    if (!f)
      throw Error(fmt::format("normalize: call of unknown global function @{}", name));
    if (auto* fn = as<Function>(f)) {
      if (inProgress.count(name))
        return fn->retSInfo ? fn->retSInfo : objectSInfo(); // recursion
      BaseFunc nf = normalizeFunc(name);
      auto* f2 = as<Function>(nf);
      std::vector<StructInfo> params;
      for (auto& p : f2->params)
        params.push_back(p->sinfo);
      return make<FuncSInfo>(params, f2->retSInfo, f2->pure);
    }
    if (isa<PrimFunc>(f))
      throw Error(fmt::format("normalize: tensor-level function @{} must be called through "
                              "call_tir",
                              name));
    return objectSInfo();
  };

  normalizeFunc = [&](const std::string& name) -> BaseFunc {
    if (auto it = done.find(name); it != done.end())
      return it->second;
    BaseFunc f = m->lookup(name);
    auto* fn = as<Function>(f);
    if (!fn)
      return done[name] = f;
    inProgress.insert(name);
    Normalizer n;
    n.globalRet = globalRet;
    Expr out;
    try {
      out = n.visitFunction(fn, f);
    } catch (const Error& e) {
      inProgress.erase(name);
      // Name the function; keep the location.
      throw Error(e.loc(), fmt::format("in @{}: {}", name, e.message()));
    }
    inProgress.erase(name);
    return done[name] = cast<BaseFuncNode>(out);
  };

  bool changed = false;
  std::vector<IRModuleNode::Entry> entries;
  for (auto& [name, f] : m->functions) {
    BaseFunc nf = normalizeFunc(name);
    changed |= !sameNode(nf, f);
    entries.emplace_back(name, nf);
  }
  if (!changed)
    return m;
  return makeModule(std::move(entries), m->attrs);
}

Expr normalizeExpr(const Expr& e) {
  if (!e)
    throw Error("normalize: no expression");
  Normalizer n;
  return n.visit(e);
}

} // namespace unity::transform
