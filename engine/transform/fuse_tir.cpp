// FuseTIR: each primitive function made by FuseOps (a block of call_tir
// bindings) becomes one PrimFunc.
//
// The fused PrimFunc has one buffer per tensor parameter of the primitive
// function, then one per output. Every call_tir inside is inlined: the
// callee's parameter buffers are replaced by the buffers of the actual
// arguments (a parameter, or an intermediate allocated for the result of an
// earlier call), the callee's implicit shape variables are matched against
// the actual buffers' shapes, and every variable and buffer the callee
// defines (loops, block iterators, lets, local buffers) is copied fresh, so
// calling one PrimFunc twice in a group yields two independent loop nests.
// Intermediates, and the callees' own root-block buffers, are local
// allocations around the sequence of nests; the
// default schedule and the tuner later inline or fuse the loops.
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/fuse_ops.h"

namespace unity::transform {

using namespace ir;

namespace {

/// Copies a statement with fresh definitions and given buffer/var maps.
struct Inliner : StmtMutator {
  std::unordered_map<const Buffer*, BufferRef> bufMap;
  std::unordered_map<const PrimVar*, PrimExpr> varMap;

  Ref<PrimVar> fresh(const Ref<PrimVar>& v) {
    auto nv = primVar(v->name, v->dtype);
    varMap[v.get()] = nv;
    return nv;
  }
  BufferRef freshBuffer(const BufferRef& b) {
    std::vector<PrimExpr> shape;
    for (auto& d : b->shape)
      shape.push_back(mutate(d));
    auto nb = makeBuffer(b->name, b->dtype, std::move(shape), b->scope);
    bufMap[b.get()] = nb;
    return nb;
  }
  PrimExpr visitLeaf(const PrimExpr& self) override {
    if (auto* v = as<PrimVar>(self))
      if (auto it = varMap.find(v); it != varMap.end())
        return it->second;
    return self;
  }
  BufferRef mutateBuffer(const BufferRef& b) override {
    auto it = bufMap.find(b.get());
    return it == bufMap.end() ? b : it->second;
  }
  Stmt visitFor(const For* op, const Stmt&) override {
    PrimExpr mn = mutate(op->min), ext = mutate(op->extent);
    auto v = fresh(op->var);
    return make<For>(v, mn, ext, op->forKind, mutate(op->body), op->annotations);
  }
  Stmt visitLetStmt(const LetStmt* op, const Stmt&) override {
    PrimExpr val = mutate(op->value);
    auto v = fresh(op->var);
    return make<LetStmt>(v, val, mutate(op->body));
  }
  Stmt visitAllocate(const Allocate* op, const Stmt&) override {
    auto b = freshBuffer(op->buffer);
    return make<Allocate>(b, mutate(op->body));
  }
  Stmt visitBlock(const Block* op, const Stmt& self) override {
    for (auto& a : op->allocs)
      freshBuffer(a);
    std::vector<IterVar> iters;
    for (auto& iv : op->iters) {
      Range dom{mutate(iv.dom.min), mutate(iv.dom.extent)};
      iters.push_back({fresh(iv.var), dom, iv.type});
    }
    (void)self;
    std::vector<PrimExpr> bindings;
    mutateList(op->bindings, bindings);
    std::vector<BufferRegion> reads, writes;
    mutateRegions(op->reads, reads);
    mutateRegions(op->writes, writes);
    std::vector<BufferRef> allocs;
    for (auto& a : op->allocs)
      allocs.push_back(mutateBuffer(a));
    return make<Block>(op->name, std::move(iters), std::move(bindings), std::move(reads),
                       std::move(writes), mutate(op->init), mutate(op->body), std::move(allocs),
                       mutate(op->predicate), op->annotations);
  }
};

std::vector<PrimExpr> shapeOf(const StructInfo& s, const std::string& what) {
  auto* t = as<TensorSInfo>(s);
  if (!t || !t->shape)
    throw Error("FuseTIR: " + what + " has no known tensor shape");
  return *t->shape;
}

/// Builds the fused PrimFunc for one primitive function; null if the group
/// cannot be fused (then the primitive function is left as it is).
PrimFuncRef fuseGroup(const IRModule& m, const Function* fn, const std::string& name) {
  auto* seq = as<SeqExpr>(fn->body);
  if (!seq)
    return nullptr;
  std::unordered_map<const VarNode*, BufferRef> bufOf;
  std::vector<PrimFunc::Param> params, scalarParams;
  for (auto& p : fn->params) {
    // FuseOps' trailing shape parameter: shape variables no tensor
    // parameter binds become the fused kernel's scalar parameters (after
    // the buffers), passed by the call as tir_vars.
    if (auto* sh = as<ShapeSInfo>(p->sinfo)) {
      if (!sh->values)
        return nullptr;
      for (auto& d : *sh->values) {
        auto* pv = as<PrimVar>(d);
        if (!pv)
          return nullptr;
        scalarParams.push_back({nullptr, cast<PrimVar>(d)});
      }
      continue;
    }
    auto* t = as<TensorSInfo>(p->sinfo);
    if (!t || !t->shape || t->dtype.isVoid())
      return nullptr;
    auto b = makeBuffer(p->name, t->dtype, *t->shape);
    bufOf[p.get()] = b;
    params.push_back({b, nullptr});
  }
  // Result variables of the function (one, or the fields of a tuple).
  std::vector<const VarNode*> results;
  std::unordered_map<const VarNode*, const Tuple*> tuples;
  for (auto& blk : seq->blocks)
    for (auto& b : blk->bindings)
      if (auto* t = as<Tuple>(b->value))
        tuples[b->var.get()] = t;
  if (auto* rv = as<VarNode>(seq->body)) {
    if (auto it = tuples.find(rv); it != tuples.end()) {
      for (auto& f : it->second->fields) {
        auto* fv = as<VarNode>(f);
        if (!fv)
          return nullptr;
        results.push_back(fv);
      }
    } else {
      results.push_back(rv);
    }
  } else {
    return nullptr;
  }
  std::vector<BufferRef> outputs(results.size()), locals;
  std::vector<Stmt> stmts;
  for (auto& blk : seq->blocks) {
    for (auto& b : blk->bindings) {
      if (isa<Tuple>(b->value))
        continue;
      auto* call = asCallTIR(b->value);
      if (!call)
        return nullptr;
      auto* callee = as<PrimFunc>(m->lookup(as<GlobalVar>(call->args[0])->name));
      auto* argTuple = as<Tuple>(call->args[1]);
      if (!callee || !argTuple || call->sinfoArgs.size() != 1 ||
          !isa<TensorSInfo>(call->sinfoArgs[0]))
        return nullptr;
      // The buffer receiving this call's result.
      BufferRef dst;
      auto* out = as<TensorSInfo>(call->sinfoArgs[0]);
      for (size_t k = 0; k < results.size(); ++k)
        if (results[k] == b->var.get()) {
          if (!outputs[k])
            outputs[k] =
                makeBuffer(b->var->name, out->dtype, shapeOf(call->sinfoArgs[0], "output"));
          dst = outputs[k];
        }
      if (!dst) {
        dst = makeBuffer(b->var->name, out->dtype, shapeOf(call->sinfoArgs[0], "intermediate"),
                         "global");
        locals.push_back(dst);
      }
      bufOf[b->var.get()] = dst;
      // Actual buffers for the callee's buffer params: inputs then output.
      std::vector<BufferRef> actual;
      for (auto& a : argTuple->fields) {
        auto* av = as<VarNode>(a);
        if (!av || !bufOf.count(av))
          return nullptr; // constants etc. are not fused
        actual.push_back(bufOf[av]);
      }
      actual.push_back(dst);
      // The callee's scalar parameters (shape variables no buffer dim binds,
      // such as H of a (H + 1) // 2 extent) take the call's tir_vars, which
      // are expressions over the group's shape variables: bound by the
      // inputs' dims or by the function's shape parameter.
      std::vector<PrimExpr> scalars;
      if (call->args.size() > 2) {
        auto* sh = as<ShapeExpr>(call->args[2]);
        if (!sh)
          return nullptr;
        scalars = sh->values;
      }
      Inliner in;
      size_t bi = 0, si = 0;
      for (auto& p : callee->params) {
        if (!p.buffer) {
          if (!p.scalar || si >= scalars.size())
            return nullptr;
          in.varMap[p.scalar.get()] = scalars[si++];
          continue;
        }
        if (bi >= actual.size() || p.buffer->ndim() != actual[bi]->ndim())
          return nullptr;
        const BufferRef& formal = p.buffer;
        for (int d = 0; d < formal->ndim(); ++d)
          if (auto* sv = as<PrimVar>(formal->shape[d]); sv && !in.varMap.count(sv))
            in.varMap[sv] = actual[bi]->shape[d];
        in.bufMap[formal.get()] = actual[bi++];
      }
      if (bi != actual.size() || si != scalars.size())
        return nullptr;
      // A callee's root block (no iterators) only scopes its intermediates;
      // hoist them to the fused function so that later scheduling (inlining
      // a producer into a consumer of another callee) never moves a use out
      // of its buffer's scope.
      Stmt inlined = in.mutate(callee->body);
      if (auto* root = as<Block>(inlined);
          root && root->iters.empty() && !root->init && !root->predicate) {
        for (auto& a : root->allocs)
          locals.push_back(a);
        inlined = root->body;
      }
      // A function of several stages (a packed matmul or convolution and
      // its copy back) is a sequence itself: spliced in, not nested, so
      // the text form (which has no nested sequence) reads back the same.
      if (auto* seq = as<SeqStmt>(inlined))
        stmts.insert(stmts.end(), seq->seq.begin(), seq->seq.end());
      else
        stmts.push_back(inlined);
    }
  }
  for (auto& o : outputs) {
    if (!o)
      return nullptr;
    params.push_back({o, nullptr});
  }
  for (auto& sp : scalarParams)
    params.push_back(sp);
  Stmt body = seqStmt(std::move(stmts));
  for (auto it = locals.rbegin(); it != locals.rend(); ++it)
    body = make<Allocate>(*it, body);
  Attrs attrs{{"global_symbol", name},
              {"num_outputs", int64_t(outputs.size())},
              {"op_pattern", fn->attrs.getInt("op_pattern", pattern::kOpaque)},
              {"fused", true}};
  return make<PrimFunc>(std::move(params), body, attrs);
}

/// Rewrites calls of fused functions into call_tir.
struct CallRewriter : ExprMutator {
  const std::unordered_map<std::string, StructInfo>& fused;
  explicit CallRewriter(const std::unordered_map<std::string, StructInfo>& f) : fused(f) {}
  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    auto* c = as<Call>(e);
    auto* gv = as<GlobalVar>(c->op);
    if (!gv)
      return e;
    auto it = fused.find(gv->name);
    if (it == fused.end())
      return e;
    // Tensor arguments in the tuple; a shape argument (FuseOps' shape
    // parameter) becomes the call's tir_vars.
    std::vector<Expr> tensors;
    std::vector<PrimExpr> tirVars;
    for (auto& a : c->args) {
      if (auto* sh = as<ShapeExpr>(a))
        tirVars.insert(tirVars.end(), sh->values.begin(), sh->values.end());
      else
        tensors.push_back(a);
    }
    std::vector<Expr> args{Expr(make<GlobalVar>(gv->name)), Expr(make<Tuple>(tensors))};
    if (!tirVars.empty())
      args.push_back(Expr(make<ShapeExpr>(tirVars)));
    return make<Call>(opRef("call_tir"), std::move(args), Attrs{},
                      std::vector<StructInfo>{it->second}, c->sinfo);
  }
};

} // namespace

IRModule fuseTIR(const IRModule& m) {
  std::unordered_map<std::string, StructInfo> fused; // name -> result sinfo
  std::vector<IRModuleNode::Entry> out;
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (fn && fn->attrs.getBool("primitive", false)) {
      if (PrimFuncRef pf = fuseGroup(m, fn, name)) {
        fused[name] = fn->retSInfo;
        out.emplace_back(name, pf);
        continue;
      }
    }
    out.emplace_back(name, f);
  }
  if (fused.empty())
    return m;
  CallRewriter rw(fused);
  for (auto& [name, f] : out)
    if (isa<Function>(f))
      f = cast<BaseFuncNode>(rw.mutate(f));
  return makeModule(std::move(out), m->attrs);
}

PassRef fuseTIRPass() {
  return makePass({"FuseTIR", PassLevel::Graph, 1, {"FuseOps"}},
                  [](const IRModule& m, PassContext&) { return fuseTIR(m); });
}

} // namespace unity::transform
