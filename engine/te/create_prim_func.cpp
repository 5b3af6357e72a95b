// createPrimFunc: a te graph -> a TensorIR PrimFunc (TVM's create_prim_func).
//
// 1. Order: depth-first post-order from the arguments gives every compute
//    after the tensors it reads. Placeholders must be arguments; outputs
//    (compute arguments) must follow the inputs.
// 2. Each compute becomes serial loops (spatial, then reduce) around one
//    Block named after the tensor. The compute's axis variables are replaced
//    by fresh block iteration variables ("v_i0", "v_k") bound to fresh loop
//    variables ("i0", "k"), so two functions built from one graph share no
//    variables. A reduction block has reduce iteration variables and an
//    init statement storing the reducer's identity; its update
//    `C[v] = combine(C[v], source)` reads C, which TVM leaves out of the
//    block's reads, and so do we.
// 3. Read regions, per buffer: every load of the block is one point
//    [index, index+1) per dimension. When all loads of a buffer agree on a
//    dimension's index (same expression, with no load inside it), that point
//    is the region for the dimension; otherwise the region is the whole
//    dimension [0, extent). This is exact for the usual affine accesses and
//    conservative (never too small) for data-dependent ones such as take().
// 4. Everything sits under a root block "root" (no iteration variables) that
//    allocates the non-argument computes.
// 5. Shape variables that are a whole dimension of a parameter buffer are
//    bound from it (implicit, see PrimFunc); any other free variable becomes
//    a trailing scalar parameter, in order of first appearance.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/te/te.h"
#include "engine/te/te_internal.h"

namespace unity::te {

using namespace ir;

namespace {

// Equality on index expressions by node identity of variables and buffers
// (inside one block the same variable is the same node).
bool sameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get())
    return true;
  if (!a || !b || a->kind() != b->kind() || !(a->dtype == b->dtype))
    return false;
  if (auto* x = as<IntImm>(a))
    return x->value == as<IntImm>(b)->value;
  if (auto* x = as<FloatImm>(a))
    return x->value == as<FloatImm>(b)->value;
  if (isa<PrimVar>(a))
    return false; // distinct nodes
  if (auto* x = as<BinaryExpr>(a)) {
    auto* y = as<BinaryExpr>(b);
    return sameExpr(x->a, y->a) && sameExpr(x->b, y->b);
  }
  if (auto* x = as<CastExpr>(a))
    return sameExpr(x->value, as<CastExpr>(b)->value);
  if (auto* x = as<NotExpr>(a))
    return sameExpr(x->a, as<NotExpr>(b)->a);
  if (auto* x = as<Select>(a)) {
    auto* y = as<Select>(b);
    return sameExpr(x->cond, y->cond) && sameExpr(x->t, y->t) && sameExpr(x->f, y->f);
  }
  if (auto* x = as<PrimCall>(a)) {
    auto* y = as<PrimCall>(b);
    if (x->op != y->op)
      return false;
    for (size_t i = 0; i < x->args.size(); ++i)
      if (!sameExpr(x->args[i], y->args[i]))
        return false;
    return true;
  }
  return false; // loads, lets: treated as different (conservative)
}

bool containsLoad(const PrimExpr& e) {
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) { found = found || isa<BufferLoad>(x); });
  return found;
}

std::vector<BufferRegion> readRegions(const std::vector<PrimExpr>& exprs, const Buffer* exclude) {
  std::vector<BufferRef> order;
  std::unordered_map<const Buffer*, std::vector<const BufferLoad*>> loads;
  for (auto& e : exprs)
    walkPrimExpr(e, [&](const PrimExpr& x) {
      auto* load = as<BufferLoad>(x);
      if (!load || load->buffer.get() == exclude)
        return;
      auto& v = loads[load->buffer.get()];
      if (v.empty())
        order.push_back(load->buffer);
      v.push_back(load);
    });
  std::vector<BufferRegion> out;
  for (auto& buf : order) {
    auto& v = loads[buf.get()];
    BufferRegion r{buf, {}};
    for (int d = 0; d < buf->ndim(); ++d) {
      const PrimExpr& first = v[0]->indices[d];
      bool point = !containsLoad(first);
      for (size_t i = 1; point && i < v.size(); ++i)
        point = sameExpr(first, v[i]->indices[d]);
      if (point)
        r.region.push_back(Range{first, makeConst(first->dtype, 1)});
      else
        r.region.push_back(Range{makeConst(buf->shape[d]->dtype, 0), buf->shape[d]});
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string stripPrefix(const std::string& s) { return s.rfind("v_", 0) == 0 ? s.substr(2) : s; }

Stmt lowerCompute(const TensorData& t) {
  std::unordered_map<const PrimVar*, PrimExpr> subst;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> bindings, index;
  std::vector<Ref<PrimVar>> loopVars;
  std::vector<Range> loopRanges;
  auto addIter = [&](const Ref<PrimVar>& axis, const Range& dom, IterType type) {
    auto bv = primVar("v_" + stripPrefix(axis->name), axis->dtype);
    auto lv = primVar(stripPrefix(axis->name), axis->dtype);
    subst[axis.get()] = bv;
    iters.push_back(IterVar{bv, dom, type});
    bindings.push_back(lv);
    loopVars.push_back(lv);
    loopRanges.push_back(dom);
    return bv;
  };
  for (size_t i = 0; i < t.axes.size(); ++i)
    index.push_back(
        addIter(t.axes[i], Range{makeConst(t.shape[i]->dtype, 0), t.shape[i]}, IterType::Spatial));
  Stmt body, init;
  std::vector<BufferRegion> reads;
  if (t.reduce) {
    for (auto& a : t.reduce->axes)
      addIter(a.var, a.dom, IterType::Reduce);
    PrimExpr src = substitute(t.reduce->source, subst);
    init = make<BufferStore>(t.buffer, reducerIdentity(t.reduce->reducer, t.dtype), index);
    PrimExpr acc = make<BufferLoad>(t.buffer, index);
    body = make<BufferStore>(t.buffer, reducerCombine(t.reduce->reducer, acc, src), index);
    reads = readRegions({src}, t.buffer.get());
  } else {
    PrimExpr value = substitute(t.body, subst);
    body = make<BufferStore>(t.buffer, value, index);
    reads = readRegions({value}, nullptr);
  }
  BufferRegion write{t.buffer, {}};
  for (auto& i : index)
    write.region.push_back(Range{i, makeConst(i->dtype, 1)});
  Stmt s = make<Block>(t.name, iters, bindings, reads, std::vector<BufferRegion>{write}, init, body,
                       std::vector<BufferRef>{}, nullptr, t.attrs);
  for (size_t i = loopVars.size(); i-- > 0;)
    s = make<For>(loopVars[i], loopRanges[i].min, loopRanges[i].extent, ForKind::Serial, s);
  return s;
}

} // namespace

PrimFuncRef createPrimFunc(const std::vector<Tensor>& args, Attrs attrs) {
  // 1. argument checks and order.
  std::unordered_set<const TensorData*> argSet;
  int numOutputs = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined())
      throw Error("te: createPrimFunc argument " + std::to_string(i) + " is undefined");
    if (!argSet.insert(args[i].data()).second)
      throw Error("te: createPrimFunc: tensor '" + args[i].name() + "' is passed twice");
    if (args[i].isPlaceholder()) {
      if (numOutputs > 0)
        throw Error("te: createPrimFunc: input '" + args[i].name() +
                    "' follows an output; pass inputs first, then outputs");
    } else {
      ++numOutputs;
    }
  }
  if (numOutputs == 0)
    throw Error("te: createPrimFunc: no output (compute) tensor among the arguments");

  std::vector<const TensorData*> order;
  std::unordered_set<const TensorData*> seen;
  std::function<void(const TensorData*)> visit = [&](const TensorData* t) {
    if (!seen.insert(t).second)
      return;
    for (auto& in : t->inputs)
      visit(in.data());
    if (t->placeholder && !argSet.count(t)) {
      std::string user;
      for (auto* u : order)
        for (auto& in : u->inputs)
          if (in.data() == t && user.empty())
            user = u->name;
      throw Error("te: createPrimFunc: placeholder '" + t->name + "' is read" +
                  (user.empty() ? std::string() : " by '" + user + "'") +
                  " but is not an argument of the function");
    }
    order.push_back(t);
  };
  for (auto& a : args)
    visit(a.data());

  // 2. blocks, intermediates.
  std::vector<Stmt> stmts;
  std::vector<BufferRef> allocs;
  for (auto* t : order) {
    if (t->placeholder)
      continue;
    stmts.push_back(lowerCompute(*t));
    if (!argSet.count(t))
      allocs.push_back(t->buffer);
  }
  Stmt root = make<Block>("root", std::vector<IterVar>{}, std::vector<PrimExpr>{},
                          std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, nullptr,
                          seqStmt(stmts), allocs);

  // 3. parameters: buffers, then scalars for variables no buffer dimension binds.
  std::vector<PrimFunc::Param> params;
  std::unordered_set<const PrimVar*> bound;
  for (auto& a : args) {
    params.push_back(PrimFunc::Param{a.buffer(), nullptr});
    for (auto& d : a.shape())
      if (auto* v = as<PrimVar>(d))
        bound.insert(v);
  }
  std::unordered_set<const PrimVar*> defined(bound), scalarSeen;
  walkStmt(root, [&](const Stmt& s) {
    if (auto* f = as<For>(s))
      defined.insert(f->var.get());
    if (auto* b = as<Block>(s))
      for (auto& iv : b->iters)
        defined.insert(iv.var.get());
    if (auto* l = as<LetStmt>(s))
      defined.insert(l->var.get());
  });
  auto collectFree = [&](const PrimExpr& e) {
    walkPrimExpr(e, [&](const PrimExpr& x) {
      if (auto* l = as<PrimLet>(x))
        defined.insert(l->var.get());
      auto v = cast<PrimVar>(x);
      if (v && !defined.count(v.get()) && scalarSeen.insert(v.get()).second)
        params.push_back(PrimFunc::Param{nullptr, v});
    });
  };
  for (auto& a : args)
    for (auto& d : a.shape())
      collectFree(d);
  for (auto& b : allocs)
    for (auto& d : b->shape)
      collectFree(d);
  struct ExprWalker : StmtVisitor {
    std::function<void(const PrimExpr&)> fn;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (e)
        fn(e); // fn walks the whole expression itself
    }
  } walker;
  walker.fn = collectFree;
  walker.visit(root);

  if (numOutputs != 1)
    attrs.set("num_outputs", int64_t(numOutputs));
  return make<PrimFunc>(std::move(params), root, std::move(attrs));
}

} // namespace unity::te
