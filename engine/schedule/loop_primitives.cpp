// Loop primitives: split, fuse, reorder and the loop kinds.
//
// Each one rewrites a For chain and substitutes the old loop variables in
// the body by expressions of the new ones, so block bindings (and any
// nested extent) follow. Index expressions are simplified on the spot to
// keep the printed IR readable; LowerBlocks + Simplify do the rest.
//  - split(l, [f0..fn]): l = min + ((l0*f1 + l1)*f2 + l2)...; when the
//    product P exceeds the extent E, the blocks under l get the predicate
//    fused < E (an exact split needs none).
//  - splitWithTail(l, f): a loop of any extent E (symbolic included) becomes
//    a main nest `for l0 < E / f: for l1 < f: body[l := min + l0*f + l1]`
//    followed by a tail nest `for lt < E % f: body'[l := min + E/f*f + lt]`
//    (/ and % floored). The tail is a copy of the body with fresh loop and
//    iteration variables and its blocks renamed "<name>_tail": no block
//    gets a predicate, so the main nest has the same branch-free shape as a
//    constant split and a register tile inside it stays in registers. A
//    constant E divisible by f gets no tail.
//  - fuse(l0..ln): li = min_i + (f / stride_i) % ext_i (no % for the first,
//    no / for the last).
//  - reorder: the loops of a perfectly nested chain are permuted; loops not
//    named keep their positions.
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/arith.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using namespace ir;
using namespace detail;

namespace {

/// Adds `cond` to the predicate of the outermost blocks under s. Fails when
/// a store under s is outside every block (it could not be guarded).
Stmt predicateBlocks(const Stmt& s, const PrimExpr& cond, const std::string& loop) {
  struct Adder : StmtMutator {
    PrimExpr cond;
    std::string loop;
    using StmtMutator::mutate;
    Stmt visitBlock(const Block* op, const Stmt&) override {
      PrimExpr p = op->predicate ? logicalAnd(op->predicate, cond) : cond;
      return make<Block>(op->name, op->iters, op->bindings, op->reads, op->writes, op->init,
                         op->body, op->allocs, p, op->annotations);
    }
    Stmt visitBufferStore(const BufferStore* op, const Stmt&) override {
      throw Error("schedule: split: loop '" + loop + "' holds a store to '" + op->buffer->name +
                  "' outside any block; a non-exact split cannot guard it");
    }
  } a;
  a.cond = cond;
  a.loop = loop;
  return a.mutate(s);
}

/// Copies a statement with fresh loop and block iteration variables and
/// renames its blocks through `rename`; fails on blocks that allocate (the
/// copy would share their buffers).
struct FreshCopy : StmtMutator {
  std::unordered_map<const PrimVar*, PrimExpr> map;
  std::function<std::string(const std::string&)> rename;
  std::string loop;
  using StmtMutator::mutate;
  PrimExpr visitLeaf(const PrimExpr& self) override { return substitute(self, map); }
  Stmt visitFor(const For* op, const Stmt&) override {
    auto nv = primVar(op->var->name, op->var->dtype);
    map[op->var.get()] = nv;
    return make<For>(nv, mutate(op->min), mutate(op->extent), op->forKind, mutate(op->body),
                     op->annotations);
  }
  Stmt visitLetStmt(const LetStmt* op, const Stmt&) override {
    auto nv = primVar(op->var->name, op->var->dtype);
    PrimExpr value = mutate(op->value);
    map[op->var.get()] = nv;
    return make<LetStmt>(nv, value, mutate(op->body));
  }
  Stmt visitBlock(const Block* op, const Stmt&) override {
    if (!op->allocs.empty())
      throw Error("schedule: splitWithTail: block '" + op->name + "' under loop '" + loop +
                  "' allocates buffers; its tail copy would share them");
    std::vector<IterVar> iters;
    for (auto& iv : op->iters) {
      auto nv = primVar(iv.var->name, iv.var->dtype);
      map[iv.var.get()] = nv;
      iters.push_back(IterVar{nv, {mutate(iv.dom.min), mutate(iv.dom.extent)}, iv.type});
    }
    std::vector<PrimExpr> bindings;
    mutateList(op->bindings, bindings);
    std::vector<BufferRegion> reads, writes;
    mutateRegions(op->reads, reads);
    mutateRegions(op->writes, writes);
    Stmt init = op->init ? mutate(op->init) : op->init;
    Stmt body = mutate(op->body);
    PrimExpr pred = op->predicate ? mutate(op->predicate) : op->predicate;
    return make<Block>(rename(op->name), std::move(iters), std::move(bindings), std::move(reads),
                       std::move(writes), init, body, op->allocs, pred, op->annotations);
  }
};

} // namespace

std::vector<LoopRV> Schedule::splitWithTail(const LoopRV& rv, int64_t factor) {
  auto f = loop(rv);
  const std::string name = f->var->name;
  LoopLocator where = locate(rv);
  if (factor < 1)
    throw Error("schedule: splitWithTail: loop '" + name + "': factor " + std::to_string(factor) +
                " is not positive");
  DataType t = f->var->dtype;
  PrimExpr fac = makeConst(t, double(factor));
  PrimExpr mainExt = arith::simplify(floordiv(f->extent, fac));
  PrimExpr tailExt = arith::simplify(floormod(f->extent, fac));
  auto outer = primVar(name + "_0", t), inner = primVar(name + "_1", t);
  PrimExpr idx = outer * fac + PrimExpr(inner);
  PrimExpr orig = isConstInt(f->min, 0) ? idx : f->min + idx;
  Stmt mainBody = substitute(f->body, {{f->var.get(), arith::simplify(orig)}});
  Stmt mainNest = make<For>(outer, makeConst(t, 0), mainExt, ForKind::Serial,
                            make<For>(inner, makeConst(t, 0), fac, ForKind::Serial, mainBody));
  std::vector<LoopRV> out{LoopRV{outer}, LoopRV{inner}};
  Stmt replacement = mainNest;
  if (!isConstInt(tailExt, 0)) {
    std::unordered_set<std::string> taken;
    for (auto* b : blocksUnder(func_->body))
      taken.insert(b->name);
    FreshCopy copy;
    copy.loop = name;
    copy.rename = [&](const std::string& n) {
      std::string c = n + "_tail";
      for (int k = 1; taken.count(c); ++k)
        c = n + "_tail" + std::to_string(k);
      taken.insert(c);
      return c;
    };
    auto tail = primVar(name + "_tail", t);
    PrimExpr start = arith::simplify(mainExt * fac);
    PrimExpr tidx = isConstInt(f->min, 0) ? start + PrimExpr(tail) : f->min + start + tail;
    Stmt tailBody = copy.mutate(substitute(f->body, {{f->var.get(), arith::simplify(tidx)}}));
    replacement = make<SeqStmt>(std::vector<Stmt>{
        mainNest, make<For>(tail, makeConst(t, 0), tailExt, ForKind::Serial, tailBody)});
    out.push_back(LoopRV{tail});
  }
  setBody(replaceStmt(func_->body, f.get(), replacement));
  trace_.append({"split_tail", {}, {where}, {factor}});
  return out;
}

std::vector<LoopRV> Schedule::split(const LoopRV& rv, std::vector<int64_t> factors) {
  return splitImpl(rv, std::move(factors), {});
}

/// `inputs` (when not empty) are the factors as the trace records them:
/// references to sampled values.
std::vector<LoopRV> Schedule::splitImpl(const LoopRV& rv, std::vector<int64_t> factors,
                                        std::vector<ValueRef> inputs) {
  auto f = loop(rv);
  const std::string name = f->var->name;
  LoopLocator where = locate(rv);
  auto ext = asConstInt(f->extent);
  if (!ext)
    throw Error("schedule: split: loop '" + name +
                "' has a non-constant extent; only constant extents can be split");
  if (factors.size() < 2)
    throw Error("schedule: split: loop '" + name + "' needs at least two factors, got " +
                intList(factors));
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i] == -1) {
      if (inferred >= 0)
        throw Error("schedule: split: loop '" + name + "': more than one factor is -1 in " +
                    intList(factors));
      inferred = static_cast<int>(i);
    } else if (factors[i] <= 0) {
      throw Error("schedule: split: loop '" + name + "': factor " + std::to_string(factors[i]) +
                  " is neither positive nor -1");
    } else {
      known *= factors[i];
    }
  }
  if (inferred >= 0)
    factors[inferred] = std::max<int64_t>(1, (*ext + known - 1) / known);
  int64_t product = 1;
  for (auto x : factors)
    product *= x;
  if (product < *ext)
    throw Error("schedule: split: the factors " + intList(factors) + " of loop '" + name +
                "' multiply to " + std::to_string(product) + ", less than its extent " +
                std::to_string(*ext));

  DataType t = f->var->dtype;
  std::vector<Ref<PrimVar>> vars;
  for (size_t i = 0; i < factors.size(); ++i)
    vars.push_back(primVar(name + "_" + std::to_string(i), t));
  PrimExpr idx = vars[0];
  for (size_t i = 1; i < vars.size(); ++i)
    idx = idx * makeConst(t, double(factors[i])) + PrimExpr(vars[i]);
  PrimExpr orig = isConstInt(f->min, 0) ? idx : f->min + idx;
  Stmt body = substitute(f->body, {{f->var.get(), arith::simplify(orig)}});
  if (product != *ext)
    body = predicateBlocks(body, lt(idx, makeConst(t, double(*ext))), name);
  for (size_t i = vars.size(); i-- > 0;)
    body = make<For>(vars[i], makeConst(t, 0), makeConst(t, double(factors[i])), ForKind::Serial,
                     body);
  setBody(replaceStmt(func_->body, f.get(), body));
  if (inputs.empty())
    trace_.append({"split", {}, {where}, factors});
  else
    trace_.append({"split", {}, {where}, {}, std::move(inputs)});
  std::vector<LoopRV> out;
  for (auto& v : vars)
    out.push_back(LoopRV{v});
  return out;
}

LoopRV Schedule::fuse(const std::vector<LoopRV>& loops) {
  if (loops.size() < 2)
    throw Error("schedule: fuse needs at least two loops, got " + std::to_string(loops.size()));
  std::vector<Ref<For>> fors;
  for (auto& l : loops)
    fors.push_back(loop(l));
  std::vector<LoopLocator> locs;
  for (auto& l : loops)
    locs.push_back(locate(l));
  std::vector<const PrimVar*> outerVars;
  std::string name;
  for (size_t i = 0; i < fors.size(); ++i) {
    if (i > 0 && !sameNode(fors[i - 1]->body, fors[i]))
      throw Error("schedule: fuse: loop '" + fors[i]->var->name +
                  "' is not the whole body of loop '" + fors[i - 1]->var->name +
                  "' (fused loops must be perfectly nested, listed outermost first)");
    if (usesAnyVar(fors[i]->min, outerVars) || usesAnyVar(fors[i]->extent, outerVars))
      throw Error("schedule: fuse: the range of loop '" + fors[i]->var->name +
                  "' depends on an outer fused loop");
    if (!(fors[i]->var->dtype == fors[0]->var->dtype))
      throw Error("schedule: fuse: loops '" + fors[0]->var->name + "' and '" + fors[i]->var->name +
                  "' have different index types");
    outerVars.push_back(fors[i]->var.get());
    name += fors[i]->var->name + "_";
  }
  DataType t = fors[0]->var->dtype;
  auto fv = primVar(name + "fused", t);
  std::unordered_map<const PrimVar*, PrimExpr> subst;
  PrimExpr stride = makeConst(t, 1);
  for (size_t i = fors.size(); i-- > 0;) {
    PrimExpr e = fv;
    if (!isConstInt(stride, 1))
      e = floordiv(e, stride);
    if (i > 0)
      e = floormod(e, fors[i]->extent);
    if (!isConstInt(fors[i]->min, 0))
      e = fors[i]->min + e;
    subst[fors[i]->var.get()] = arith::simplify(e);
    stride = arith::simplify(stride * fors[i]->extent);
  }
  Stmt body = substitute(fors.back()->body, subst);
  Stmt fused = make<For>(fv, makeConst(t, 0), stride, ForKind::Serial, body);
  setBody(replaceStmt(func_->body, fors[0].get(), fused));
  trace_.append({"fuse", {}, locs, {}});
  return LoopRV{fv};
}

void Schedule::reorder(const std::vector<LoopRV>& loops) {
  if (loops.size() < 2)
    throw Error("schedule: reorder needs at least two loops, got " + std::to_string(loops.size()));
  std::vector<Ref<For>> fors;
  std::vector<LoopLocator> locs;
  for (auto& l : loops) {
    fors.push_back(loop(l));
    locs.push_back(locate(l));
  }
  for (size_t i = 0; i < fors.size(); ++i)
    for (size_t j = i + 1; j < fors.size(); ++j)
      if (fors[i].get() == fors[j].get())
        throw Error("schedule: reorder: loop '" + fors[i]->var->name + "' is listed twice");
  // The outermost listed loop is the one whose subtree holds all the others.
  auto depth = [&](const Ref<For>& f) {
    return findLoop(func_->body, f->var.get()).ancestors.size();
  };
  size_t outer = 0, inner = 0;
  for (size_t i = 1; i < fors.size(); ++i) {
    if (depth(fors[i]) < depth(fors[outer]))
      outer = i;
    if (depth(fors[i]) > depth(fors[inner]))
      inner = i;
  }
  std::vector<Ref<For>> chain{fors[outer]};
  while (chain.back().get() != fors[inner].get()) {
    auto next = cast<For>(chain.back()->body);
    if (!next) {
      std::string names;
      for (auto& f : fors)
        names += (names.empty() ? "'" : ", '") + f->var->name + "'";
      throw Error("schedule: reorder: loops " + names +
                  " are not one perfectly nested chain (the body of loop '" +
                  chain.back()->var->name + "' is not a single loop)");
    }
    chain.push_back(next);
  }
  std::vector<size_t> slots;
  for (auto& f : fors) {
    auto it = std::find_if(chain.begin(), chain.end(),
                           [&](const Ref<For>& c) { return c.get() == f.get(); });
    if (it == chain.end())
      throw Error("schedule: reorder: loop '" + f->var->name + "' is not in the nest of loop '" +
                  chain.front()->var->name + "'");
    slots.push_back(static_cast<size_t>(it - chain.begin()));
  }
  std::vector<const PrimVar*> chainVars;
  for (auto& c : chain)
    chainVars.push_back(c->var.get());
  for (auto& c : chain)
    if (usesAnyVar(c->min, chainVars) || usesAnyVar(c->extent, chainVars))
      throw Error("schedule: reorder: the range of loop '" + c->var->name +
                  "' depends on another loop of the nest");
  std::sort(slots.begin(), slots.end());
  auto order = chain;
  for (size_t k = 0; k < fors.size(); ++k)
    order[slots[k]] = fors[k];
  Stmt body = chain.back()->body;
  for (size_t i = order.size(); i-- > 0;)
    body = make<For>(order[i]->var, order[i]->min, order[i]->extent, order[i]->forKind, body,
                     order[i]->annotations);
  setBody(replaceStmt(func_->body, chain.front().get(), body));
  trace_.append({"reorder", {}, locs, {}});
}

namespace {
const char* primitiveName(ForKind k) {
  switch (k) {
  case ForKind::Parallel:
    return "parallel";
  case ForKind::Vectorized:
    return "vectorize";
  case ForKind::Unrolled:
    return "unroll";
  default:
    return "serial";
  }
}
} // namespace

namespace {
void checkSpatialOnly(const For* f, ForKind kind) {
  for (auto* b : blocksUnder(f->body))
    for (size_t i = 0; i < b->iters.size(); ++i)
      if (b->iters[i].type == IterType::Reduce && usesVar(b->bindings[i], f->var.get()))
        throw Error(std::string("schedule: ") + primitiveName(kind) + ": loop '" + f->var->name +
                    "' feeds the reduction iterator '" + b->iters[i].var->name + "' of block '" +
                    b->name + "'; only loops over spatial iterators can be " +
                    (kind == ForKind::Parallel ? "parallel" : "vectorized"));
}

/// root with loop f of kind `kind` (all else of f kept).
Stmt withLoopKind(const Stmt& root, const For* f, ForKind kind) {
  return replaceStmt(root, f, make<For>(f->var, f->min, f->extent, kind, f->body, f->annotations));
}
} // namespace

void Schedule::parallel(const LoopRV& rv) {
  auto f = loop(rv);
  checkSpatialOnly(f.get(), ForKind::Parallel);
  LoopLocator where = locate(rv);
  setBody(withLoopKind(func_->body, f.get(), ForKind::Parallel));
  trace_.append({"parallel", {}, {where}, {}});
}

void Schedule::vectorize(const LoopRV& rv) {
  auto f = loop(rv);
  checkSpatialOnly(f.get(), ForKind::Vectorized);
  LoopLocator where = locate(rv);
  setBody(withLoopKind(func_->body, f.get(), ForKind::Vectorized));
  trace_.append({"vectorize", {}, {where}, {}});
}

void Schedule::unroll(const LoopRV& rv) {
  auto f = loop(rv);
  LoopLocator where = locate(rv);
  setBody(withLoopKind(func_->body, f.get(), ForKind::Unrolled));
  trace_.append({"unroll", {}, {where}, {}});
}

} // namespace unity::schedule
