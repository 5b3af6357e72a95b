// Compute-location and cache primitives: cacheRead, cacheWrite, computeAt,
// reverseComputeAt and reverseComputeInline.
//
// All five move or add whole blocks; none changes what a block computes per
// element. Shared vocabulary:
//  - a block's "nest" is the block with the loops that hold only it; its
//    "parent" is the statement sequence the nest is an element of. A block
//    moves by leaving its parent sequence and re-entering the tree under a
//    loop of another nest of the same sequence, so the blocks it passes over
//    (between the two nests) are checked for conflicting reads and writes.
//  - the region a block accesses "under a loop L" is its declared region
//    with its bindings substituted and every loop between L and the block
//    relaxed over its range: one iteration of L touches [base + lo, base +
//    hi], base depending only on L and the loops outside it (the same
//    method StorageRewrite uses to shrink buffers). Constant-range inner
//    loops and affine indices are relaxed, and one loop of symbolic range
//    (a sequence length n) that the index follows by unit steps: the
//    region then spans n (plus the constant widths of the others). Loops
//    the index does not use are ignored. Anything else is refused.
//  - a moved block keeps its iteration variables, regions, init and body;
//    it gets fresh loops over the part of its domain one iteration of L
//    needs and bindings `v = start + loop`, plus a predicate where that part
//    may pass the edge of its domain or is not rectangular (a binding that
//    is a loop variable of symbolic range equal to the iterator's domain
//    needs none).
//
// computeAt(P, L): P (storing T[v0..vn] at its spatial iterators) moves to
// the start of L's body, over the region of T that the blocks under L read
// in one iteration of L. reverseComputeAt(C, L): the spatial consumer C
// moves to the end of L's body, over the elements whose reads of T (its one
// input written under L) fall in the region written in one iteration of L.
// A read index `v + c` inverts exactly; a flattened one `a * v + w + c`
// (w's domain no wider than a: the wide convolution's `y * Wq + x`) walks
// the written range's positions p with one loop, v = (p - c) / a and
// w = (p - c) % a, predicated to w's domain: its reads are exactly the
// written range, so StorageRewrite can shrink the buffer to it. A blocked
// pair, v / B in one dimension and v % B in another, inverts when the block
// dimension is written whole: v covers B times the outer range. reverseComputeInline(C) folds C's
// expression into the store of its producer. cacheRead/cacheWrite add a copy block and a new buffer
// (an Allocate around the two nests, so StorageRewrite can shrink it after a later computeAt).
#include <algorithm>
#include <optional>
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

using VarMap = std::unordered_map<const PrimVar*, PrimExpr>;

/// The position in `seq` of the element holding the node `target`, given
/// the ancestors of target (outermost first); -1 if seq is not among them.
int elementHolding(const Ref<SeqStmt>& seq, const std::vector<Stmt>& ancestors,
                   const Stmt& target) {
  for (size_t i = 0; i < ancestors.size(); ++i) {
    if (!sameNode(ancestors[i], seq))
      continue;
    const Stmt& child = i + 1 < ancestors.size() ? ancestors[i + 1] : target;
    for (size_t k = 0; k < seq->seq.size(); ++k)
      if (sameNode(seq->seq[k], child))
        return static_cast<int>(k);
  }
  return -1;
}

/// Whether block b (its own statements, not nested blocks) loads or stores buf,
/// or declares it.
bool blockReads(const Block* b, const Buffer* buf) {
  for (auto& r : b->reads)
    if (r.buffer.get() == buf)
      return true;
  bool found = false;
  for (const Stmt& s : {b->init, b->body})
    if (s)
      walkStmt(s, [&](const Stmt& x) {
        auto check = [&](const PrimExpr& e) {
          walkPrimExpr(e, [&](const PrimExpr& y) {
            if (auto* l = as<BufferLoad>(y))
              found = found || l->buffer.get() == buf;
          });
        };
        if (auto* st = as<BufferStore>(x)) {
          check(st->value);
          for (auto& i : st->indices)
            check(i);
        }
      });
  return found;
}

bool blockWrites(const Block* b, const Buffer* buf) {
  for (auto& w : b->writes)
    if (w.buffer.get() == buf)
      return true;
  bool found = false;
  for (const Stmt& s : {b->init, b->body})
    if (s)
      walkStmt(s, [&](const Stmt& x) {
        if (auto* st = as<BufferStore>(x))
          found = found || st->buffer.get() == buf;
      });
  return found;
}

bool isParam(const PrimFuncRef& f, const Buffer* b) {
  for (auto& p : f->params)
    if (p.buffer.get() == b)
      return true;
  return false;
}

bool isTrue(const PrimExpr& p) {
  if (!p)
    return true;
  auto c = asConstInt(p);
  return c && *c != 0;
}

std::string uniqueBlockName(const Stmt& root, const std::string& base) {
  std::string name = base;
  for (int n = 1; !findBlocks(root, name).empty(); ++n)
    name = base + "_" + std::to_string(n);
  return name;
}

/// The loops strictly between loop `f` and the block (from its ancestors).
std::vector<const For*> loopsBelow(const std::vector<Stmt>& ancestors, const For* f) {
  std::vector<const For*> out;
  bool inside = false;
  for (auto& a : ancestors) {
    if (a.get() == f) {
      inside = true;
      continue;
    }
    if (!inside)
      continue;
    if (isa<Block>(a))
      out.clear();
    else if (auto* l = as<For>(a))
      out.push_back(l);
  }
  return out;
}

/// [min, extent) of e over one iteration of the loop enclosing `inner`:
/// the loops in `inner` range over their (constant) ranges, every other
/// variable is fixed. Null when e is not of the form base + g(inner) with a
/// bounded g.
std::optional<Range> relax(const PrimExpr& e, const std::vector<const For*>& inner) {
  VarMap atMin;
  arith::Analyzer a;
  std::unordered_set<const PrimVar*> innerVars;
  // A loop of symbolic range (a sequence length) relaxes when e moves with
  // it by unit steps and no other such loop: e = v + rest covers
  // [min + rest's low end, + extent + rest's width - 1]. Loops e does not
  // use are ignored whatever their range.
  const For* symbolic = nullptr;
  std::vector<const For*> others;
  for (auto* f : inner) {
    if (!usesVar(e, f->var.get()))
      continue;
    if (!asConstInt(f->min) || !asConstInt(f->extent)) {
      if (symbolic)
        return std::nullopt;
      symbolic = f;
      continue;
    }
    others.push_back(f);
    atMin[f->var.get()] = f->min;
    a.bind(f->var, Range{f->min, f->extent});
    innerVars.insert(f->var.get());
  }
  if (symbolic) {
    PrimExpr rest = arith::simplify(e - PrimExpr(symbolic->var));
    if (usesVar(rest, symbolic->var.get()))
      return std::nullopt;
    auto r = relax(rest, others);
    if (!r)
      return std::nullopt;
    return Range{arith::simplify(r->min + symbolic->min),
                 arith::simplify(r->extent + symbolic->extent - makeConst(r->extent->dtype, 1))};
  }
  PrimExpr base = arith::simplify(substitute(e, atMin));
  PrimExpr diff = arith::simplify(e - base);
  bool outer = false;
  walkPrimExpr(diff, [&](const PrimExpr& x) {
    if (auto* v = as<PrimVar>(x))
      outer = outer || !innerVars.count(v);
    if (isa<BufferLoad>(x))
      outer = true;
  });
  if (outer)
    return std::nullopt;
  auto b = a.constIntBound(diff);
  if (b.min == arith::ConstIntBound::kNegInf || b.max == arith::ConstIntBound::kPosInf)
    return std::nullopt;
  return Range{arith::simplify(base + makeConst(base->dtype, double(b.min))),
               makeConst(base->dtype, double(b.max - b.min + 1))};
}

/// The region of `region` (in the iterators of block b) that b accesses in
/// one iteration of loop f, or null (the reason in *why).
std::optional<std::vector<Range>> regionUnder(const Block* b, const std::vector<Stmt>& ancestors,
                                              const For* f, const std::vector<Range>& region,
                                              std::string* why) {
  VarMap bind;
  for (size_t i = 0; i < b->iters.size(); ++i)
    bind[b->iters[i].var.get()] = b->bindings[i];
  auto inner = loopsBelow(ancestors, f);
  std::vector<Range> out;
  for (size_t d = 0; d < region.size(); ++d) {
    auto ext = asConstInt(region[d].extent);
    auto r = ext ? relax(substitute(region[d].min, bind), inner) : std::nullopt;
    if (!r) {
      *why = "the region block '" + b->name + "' accesses in dimension " + std::to_string(d) +
             " is not an affine index with a constant extent over the loops inside " + loopName(f);
      return std::nullopt;
    }
    out.push_back(
        Range{r->min, arith::simplify(r->extent + makeConst(r->extent->dtype, double(*ext - 1)))});
  }
  return out;
}

/// Per-dimension union of two regions with the same base (nullopt if the
/// bases differ).
std::optional<std::vector<Range>> unite(const std::vector<Range>& a, const std::vector<Range>& b) {
  std::vector<Range> out;
  for (size_t d = 0; d < a.size(); ++d) {
    auto off = asConstInt(arith::simplify(b[d].min - a[d].min));
    if (!off)
      return std::nullopt;
    // Extents a symbolic length apart by a constant (both `n`, or n and
    // n + 2) unite like constant ones, relative to a's extent.
    auto grow = asConstInt(arith::simplify(b[d].extent - a[d].extent));
    if (!grow)
      return std::nullopt;
    int64_t lo = std::min<int64_t>(0, *off), hi = std::max<int64_t>(0, *off + *grow);
    out.push_back(
        Range{arith::simplify(a[d].min + makeConst(a[d].min->dtype, double(lo))),
              arith::simplify(a[d].extent + makeConst(a[d].extent->dtype, double(hi - lo)))});
  }
  return out;
}

/// Calls fn on each loop of `ancestors`, then on `also` when given.
template <class F> void forEachLoop(const std::vector<Stmt>& ancestors, const For* also, F&& fn) {
  for (auto& s : ancestors)
    if (auto* f = as<For>(s))
      fn(f);
  if (also)
    fn(also);
}

/// An analyzer knowing the ranges of the loops in `ancestors` (those with
/// constant bounds; block iterators are not known).
arith::Analyzer loopContext(const std::vector<Stmt>& ancestors, const For* also = nullptr) {
  arith::Analyzer a;
  forEachLoop(ancestors, also, [&](const For* f) {
    if (asConstInt(f->min) && asConstInt(f->extent))
      a.bind(f->var, Range{f->min, f->extent});
  });
  return a;
}

/// The loops of `ancestors` (and `also`) whose range is symbolic, which an
/// Analyzer does not hold: a moved block's bindings in such a loop's
/// variable are known inside its range all the same (buildNest).
using SymbolicRanges = std::vector<std::pair<PrimExpr, Range>>;
SymbolicRanges symbolicLoops(const std::vector<Stmt>& ancestors, const For* also) {
  SymbolicRanges out;
  forEachLoop(ancestors, also, [&](const For* f) {
    if (!asConstInt(f->min) || !asConstInt(f->extent))
      out.emplace_back(PrimExpr(f->var), Range{f->min, f->extent});
  });
  return out;
}

/// What a moved block iterates over for one of its iterators: `extent`
/// positions from `start` (a loop gets built for each), or the whole domain.
struct IterPlan {
  PrimExpr start, extent;
  /// A flattened pair: the iterator is floordiv(start + t, divisor) (outer,
  /// `partner` = the inner one) or floormod(start + t, divisor) of its
  /// partner's loop t (inner: no loop of its own).
  int64_t divisor = 0;
  int partner = -1;
  bool inner = false;
};

/// Builds the nest for block `blk` with its iterators bound as planned, the
/// given extra predicate conjuncts, and conjuncts keeping each iterator in
/// its domain where `ctx` cannot prove it. Loops are named after the
/// iterators ("v_i0" -> "i0").
Stmt buildNest(const Block* blk, const std::vector<IterPlan>& plan, std::vector<PrimExpr> conds,
               arith::Analyzer& ctx, SymbolicRanges sym = {}) {
  std::vector<Ref<PrimVar>> vars(blk->iters.size());
  std::vector<PrimExpr> bindings(blk->iters.size());
  auto strip = [](const std::string& n) { return n.rfind("v_", 0) == 0 ? n.substr(2) : n; };
  for (size_t k = 0; k < blk->iters.size(); ++k) {
    if (plan[k].inner)
      continue;
    auto& it = blk->iters[k];
    std::string name = strip(it.var->name);
    if (plan[k].divisor)
      name += "_" + strip(blk->iters[plan[k].partner].var->name);
    auto v = primVar(name, it.var->dtype);
    vars[k] = v;
    ctx.bind(v, Range{makeConst(v->dtype, 0), plan[k].extent});
    if (!asConstInt(plan[k].extent))
      sym.emplace_back(PrimExpr(v), Range{makeConst(v->dtype, 0), plan[k].extent});
    if (!plan[k].divisor) {
      bindings[k] = arith::simplify(plan[k].start + PrimExpr(v));
      continue;
    }
    PrimExpr flat = plan[k].start + PrimExpr(v), a = makeConst(v->dtype, double(plan[k].divisor));
    bindings[k] = arith::simplify(floordiv(flat, a));
    bindings[plan[k].partner] = arith::simplify(floormod(flat, a));
  }
  // b = s + d with s a variable of symbolic range r and d provably 0 (the
  // loops of extent 1 under it): b lies in [lo, hi) when r does.
  auto inSymbolic = [&](const PrimExpr& b, const PrimExpr& lo, const PrimExpr& hi) {
    for (auto& [var, r] : sym) {
      const PrimVar* pv = as<PrimVar>(var);
      if (!usesVar(b, pv))
        continue;
      PrimExpr d = arith::simplify(b - var);
      auto bound = ctx.constIntBound(d);
      if (usesVar(d, pv) || bound.min != 0 || bound.max != 0)
        return false;
      PrimExpr end = arith::simplify(r.min + r.extent);
      return (arith::provablyEqual(r.min, lo) || ctx.canProve(ge(r.min, lo))) &&
             (arith::provablyEqual(end, hi) || ctx.canProve(le(end, hi)));
    }
    return false;
  };
  for (size_t k = 0; k < blk->iters.size(); ++k) {
    auto& it = blk->iters[k];
    const PrimExpr& b = bindings[k];
    PrimExpr lo = it.dom.min, hi = arith::simplify(it.dom.min + it.dom.extent);
    if (inSymbolic(b, lo, hi))
      continue;
    if (!ctx.canProve(ge(b, lo)))
      conds.push_back(ge(b, lo));
    if (!ctx.canProve(lt(b, hi)))
      conds.push_back(lt(b, hi));
  }
  PrimExpr pred;
  for (auto& c : conds)
    pred = pred ? logicalAnd(pred, c) : c;
  Stmt s = make<Block>(blk->name, blk->iters, bindings, blk->reads, blk->writes, blk->init,
                       blk->body, blk->allocs, pred, blk->annotations);
  for (size_t k = vars.size(); k-- > 0;)
    if (vars[k])
      s = make<For>(vars[k], makeConst(vars[k]->dtype, 0), plan[k].extent, ForKind::Serial, s);
  return s;
}

/// e as c + sum coef_k * iters[k] with integer coefficients (null when e is
/// not affine in the iterators).
struct Affine {
  PrimExpr constant;
  std::vector<std::pair<size_t, int64_t>> terms; // (iterator index, coefficient)
};

std::optional<Affine> affineIn(const PrimExpr& e, const std::vector<IterVar>& iters) {
  Affine a;
  VarMap zero;
  for (auto& it : iters)
    zero[it.var.get()] = makeConst(it.var->dtype, 0);
  a.constant = arith::simplify(substitute(e, zero));
  for (auto& it : iters)
    if (usesVar(a.constant, it.var.get()))
      return std::nullopt;
  PrimExpr rebuilt = a.constant;
  for (size_t k = 0; k < iters.size(); ++k) {
    const PrimVar* v = iters[k].var.get();
    if (!usesVar(e, v))
      continue;
    VarMap one = zero, two = zero;
    one[v] = makeConst(v->dtype, 1);
    two[v] = makeConst(v->dtype, 2);
    auto c1 = asConstInt(arith::simplify(substitute(e, one) - a.constant));
    auto c2 = asConstInt(arith::simplify(substitute(e, two) - a.constant));
    if (!c1 || !c2 || *c2 != 2 * *c1)
      return std::nullopt;
    if (*c1 != 0)
      a.terms.push_back({k, *c1});
    rebuilt = rebuilt + makeConst(v->dtype, double(*c1)) * PrimExpr(iters[k].var);
  }
  if (!isConstInt(arith::simplify(e - rebuilt), 0))
    return std::nullopt;
  return a;
}

/// The indices of every load of buf in s (nullopt if two loads differ).
std::optional<std::vector<PrimExpr>> uniqueLoadIndices(const Stmt& s, const Buffer* buf,
                                                       int* count) {
  std::optional<std::vector<PrimExpr>> out;
  bool differ = false;
  *count = 0;
  walkStmt(s, [&](const Stmt& x) {
    auto visit = [&](const PrimExpr& e) {
      walkPrimExpr(e, [&](const PrimExpr& y) {
        auto* l = as<BufferLoad>(y);
        if (!l || l->buffer.get() != buf)
          return;
        ++*count;
        if (!out) {
          out = l->indices;
          return;
        }
        for (size_t d = 0; d < l->indices.size(); ++d)
          differ = differ || !arith::provablyEqual(l->indices[d], (*out)[d]);
      });
    };
    if (auto* st = as<BufferStore>(x)) {
      visit(st->value);
      for (auto& i : st->indices)
        visit(i);
    }
  });
  if (differ)
    return std::nullopt;
  return out;
}

/// Replaces a buffer by another in loads, stores and regions.
struct BufferSwap : StmtMutator {
  const Buffer* from = nullptr;
  BufferRef to;
  using StmtMutator::mutate;
  BufferRef mutateBuffer(const BufferRef& b) override { return b.get() == from ? to : b; }
};

/// A copy nest dst[v] = src[v] over the whole shape of src.
Stmt copyNest(const std::string& name, const BufferRef& src, const BufferRef& dst) {
  std::vector<IterVar> iters;
  std::vector<Ref<PrimVar>> loops;
  std::vector<PrimExpr> idx, bindings;
  std::vector<Range> point;
  for (int d = 0; d < src->ndim(); ++d) {
    DataType t = src->shape[d]->dtype;
    auto v = primVar("v_ax" + std::to_string(d), t);
    auto l = primVar("ax" + std::to_string(d), t);
    iters.push_back(IterVar{v, Range{makeConst(t, 0), src->shape[d]}, IterType::Spatial});
    loops.push_back(l);
    idx.push_back(v);
    bindings.push_back(l);
    point.push_back(Range{v, makeConst(t, 1)});
  }
  Stmt s = make<Block>(name, iters, bindings, std::vector<BufferRegion>{BufferRegion{src, point}},
                       std::vector<BufferRegion>{BufferRegion{dst, point}}, Stmt(),
                       make<BufferStore>(dst, make<BufferLoad>(src, idx), idx));
  for (int d = src->ndim(); d-- > 0;)
    s = make<For>(loops[d], makeConst(loops[d]->dtype, 0), src->shape[d], ForKind::Serial, s);
  return s;
}

int64_t scopeCode(const std::string& scope) { return scope == "local" ? 1 : 0; }

/// The blocks under the elements [from, to) of seq.
std::vector<const Block*> blocksBetween(const Ref<SeqStmt>& seq, size_t from, size_t to) {
  std::vector<const Block*> out;
  for (size_t k = from; k < to && k < seq->seq.size(); ++k)
    for (auto* b : blocksUnder(seq->seq[k]))
      out.push_back(b);
  return out;
}

/// The outermost of the loops right above the block at loc, the block
/// itself when no loop is: the whole nest a cache copy goes before or after.
Stmt loopNestTop(const Located& loc) {
  Stmt top = loc.node;
  for (size_t i = loc.ancestors.size(); i-- > 0;) {
    if (!isa<For>(loc.ancestors[i]))
      break;
    top = loc.ancestors[i];
  }
  return top;
}

/// cacheRead/cacheWrite's own arguments: a known scope and the index of one
/// of the block's `count` read or write regions (`kind`); `fail` otherwise.
template <class Fail>
void checkCacheArgs(const std::string& scope, int index, size_t count, const char* kind,
                    Fail&& fail) {
  if (scope != "global" && scope != "local")
    fail("cannot cache into scope '" + scope + "' (only \"global\" or \"local\")");
  if (index < 0 || index >= static_cast<int>(count))
    fail("has " + std::to_string(count) + " " + kind + " regions; index " + std::to_string(index) +
         " is out of range");
}

} // namespace

// ---------------------------------------------------------------- caches

BlockRV Schedule::cacheRead(const BlockRV& rv, int readIndex, const std::string& scope) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: cacheRead: block '" + name + "' " + why);
  };
  checkCacheArgs(scope, readIndex, blk->reads.size(), "read", fail);
  BufferRef src = blk->reads[readIndex].buffer;
  if (blockWrites(blk.get(), src.get()))
    fail("writes '" + src->name + "' as well as reading it");
  // The copy goes right before the consumer's whole loop nest.
  Stmt top = loopNestTop(findBlocks(func_->body, name)[0]);
  for (auto* b : blocksUnder(top))
    if (blockWrites(b, src.get()))
      fail("reads '" + src->name + "', which block '" + b->name +
           "' in the same loop nest writes; a copy before the nest would be stale");
  auto cache = makeBuffer(src->name + "_" + scope, src->dtype, src->shape, scope);
  std::string copyName = uniqueBlockName(func_->body, src->name + "_" + scope);
  Stmt copy = copyNest(copyName, src, cache);
  BufferSwap sw;
  sw.from = src.get();
  sw.to = cache;
  Stmt consumer = sw.mutate(Stmt(blk));
  Stmt newTop = replaceStmt(top, blk.get(), consumer);
  Stmt repl = make<Allocate>(cache, make<SeqStmt>(std::vector<Stmt>{copy, newTop}));
  setBody(replaceStmt(func_->body, top.get(), repl));
  trace_.append({"cache_read", {name}, {}, {readIndex, scopeCode(scope)}});
  return BlockRV{copyName};
}

BlockRV Schedule::cacheWrite(const BlockRV& rv, int writeIndex, const std::string& scope) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: cacheWrite: block '" + name + "' " + why);
  };
  checkCacheArgs(scope, writeIndex, blk->writes.size(), "write", fail);
  BufferRef dst = blk->writes[writeIndex].buffer;
  // Every other access to dst would still see the original buffer, which
  // holds nothing until the copy after this block's nest.
  for (auto* b : blocksUnder(func_->body))
    if (b != blk.get() && !(b->iters.empty() && b->writes.empty()) && blockWrites(b, dst.get()))
      fail("writes '" + dst->name + "', which block '" + b->name +
           "' writes too (cache before decomposing a reduction)");
  Stmt top = loopNestTop(findBlocks(func_->body, name)[0]);
  for (auto* b : blocksUnder(top))
    if (b != blk.get() && blockReads(b, dst.get()))
      fail("writes '" + dst->name + "', which block '" + b->name +
           "' in the same loop nest reads; it would read the original before the copy");
  auto cache = makeBuffer(dst->name + "_" + scope, dst->dtype, dst->shape, scope);
  std::string copyName = uniqueBlockName(func_->body, dst->name + "_" + scope);
  Stmt copy = copyNest(copyName, cache, dst);
  BufferSwap sw;
  sw.from = dst.get();
  sw.to = cache;
  Stmt newTop = replaceStmt(top, blk.get(), sw.mutate(Stmt(blk)));
  Stmt repl = make<Allocate>(cache, make<SeqStmt>(std::vector<Stmt>{newTop, copy}));
  setBody(replaceStmt(func_->body, top.get(), repl));
  trace_.append({"cache_write", {name}, {}, {writeIndex, scopeCode(scope)}});
  return BlockRV{copyName};
}

// ---------------------------------------------------------------- compute location

namespace {

/// The buffers loaded in s.
std::vector<const Buffer*> loadedBuffers(const Stmt& s) {
  std::vector<const Buffer*> out;
  walkStmt(s, [&](const Stmt& x) {
    auto visit = [&](const PrimExpr& e) {
      walkPrimExpr(e, [&](const PrimExpr& y) {
        if (auto* l = as<BufferLoad>(y);
            l && std::find(out.begin(), out.end(), l->buffer.get()) == out.end())
          out.push_back(l->buffer.get());
      });
    };
    if (auto* st = as<BufferStore>(x)) {
      visit(st->value);
      for (auto& i : st->indices)
        visit(i);
    }
  });
  return out;
}

bool isRootBlock(const Block* b) { return b->iters.empty() && b->writes.empty(); }

/// `seq` with `extra` added before (front) or after its statements, flat.
Stmt withStmt(const Stmt& body, const Stmt& extra, bool front) {
  std::vector<Stmt> seq;
  if (auto* s = as<SeqStmt>(body))
    seq = s->seq;
  else
    seq.push_back(body);
  seq.insert(front ? seq.begin() : seq.end(), extra);
  return seqStmt(std::move(seq));
}

/// The store that is the whole body of a block computeAt or
/// reverseComputeAt moves; `fail` gets the reason when the body is anything
/// else, the block allocates buffers or is predicated.
template <class Fail> const BufferStore* movableStore(const Block* blk, Fail&& fail) {
  auto* st = as<BufferStore>(blk->body);
  if (!st)
    fail("its body is not a single buffer store");
  if (!blk->allocs.empty())
    fail("it allocates buffers of its own");
  if (!isTrue(blk->predicate))
    fail("it is predicated");
  return st;
}

/// Where a block's nest would leave from and go to when it moves under a
/// loop: its nest, the loop with its ancestors, the position of the loop's
/// element in the nest's sequence and the blocks under the loop.
struct Move {
  Nest nest;
  Located loop;
  int loopIndex = -1;
  std::vector<const Block*> under;
  bool isUnder(const Block* b) const {
    return std::find(under.begin(), under.end(), b) != under.end();
  }
};

/// The Move of block `name` under loop f; `fail` gets the reason when the
/// nest is not an element of a sequence or the loop is not in another
/// element of the same sequence.
template <class Fail>
Move planMove(const Stmt& root, const std::string& name, const For* f, Fail&& fail) {
  Move m;
  m.nest = nestOf(findBlocks(root, name)[0]);
  if (!m.nest.parent)
    fail("its loop nest is not an element of a statement sequence");
  m.loop = findLoop(root, f->var.get());
  m.loopIndex = elementHolding(m.nest.parent, m.loop.ancestors, m.loop.node);
  if (m.loopIndex < 0)
    fail("the loop is not in the sequence that holds the block's loop nest");
  if (m.loopIndex == static_cast<int>(m.nest.index))
    fail("the loop is in the block's own loop nest");
  m.under = blocksUnder(f->body);
  return m;
}

/// Widens `region` (nullopt: nothing yet) by every region of buf in
/// `accesses` (block b's reads or writes), as b accesses it in one iteration
/// of loop f. Returns why not (empty when done): a region is not affine in
/// the loops inside f, or its base differs from the others' (`verb` says
/// whether the blocks "read" or "write" them).
std::string widenRegion(std::optional<std::vector<Range>>& region, const Stmt& root, const Block* b,
                        const std::vector<BufferRegion>& accesses, const Buffer* buf, const For* f,
                        const std::string& verb) {
  auto bloc = findBlocks(root, b->name)[0];
  for (auto& acc : accesses) {
    if (acc.buffer.get() != buf)
      continue;
    std::string why;
    auto r = regionUnder(b, bloc.ancestors, f, acc.region, &why);
    if (!r)
      return why;
    if (!region) {
      region = r;
      continue;
    }
    region = unite(*region, *r);
    if (!region)
      return "the blocks under the loop " + verb + " regions of '" + buf->name +
             "' that do not share a base";
  }
  return "";
}

/// root with `nest` put at the start (front) or end of loop f's body and the
/// statement `from` (the nest's old place) removed.
Stmt moveUnder(const Stmt& root, const For* f, const Stmt& nest, bool front, const Stmt& from) {
  Stmt moved = make<For>(f->var, f->min, f->extent, f->forKind, withStmt(f->body, nest, front),
                         f->annotations);
  return replaceStmt(replaceStmt(root, f, moved), from.get(), Stmt());
}

} // namespace

void Schedule::reverseComputeAt(const BlockRV& rv, const LoopRV& lrv) {
  auto blk = block(rv);
  auto f = loop(lrv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: reverseComputeAt: block '" + name + "' cannot move under loop " +
                loopName(f.get()) + ": " + why);
  };
  if (blk->init)
    fail("it is a reduction (it has an init)");
  for (auto& it : blk->iters)
    if (it.type == IterType::Reduce)
      fail("it has the reduction iterator '" + it.var->name + "'");
  auto* st = movableStore(blk.get(), fail);
  Move mv = planMove(func_->body, name, f.get(), fail);
  const Nest& n = mv.nest;
  const int fi = mv.loopIndex;
  if (fi > static_cast<int>(n.index))
    fail("the loop comes after the block (computeAt moves a producer forward)");
  LoopLocator where = locate(lrv);
  const auto& under = mv.under;
  auto loads = loadedBuffers(blk->body);
  const Buffer* buf = nullptr;
  for (auto* l : loads)
    for (auto* b : under)
      if (blockWrites(b, l) && buf != l) {
        if (buf)
          fail("it reads '" + buf->name + "' and '" + l->name +
               "', both written under the loop; it can follow only one producer");
        buf = l;
      }
  if (!buf)
    fail("it reads nothing that a block under the loop writes");
  auto between = blocksBetween(n.parent, fi + 1, n.index);
  const Buffer* out = st->buffer.get();
  for (auto* b : blocksUnder(func_->body)) {
    if (b == blk.get() || isRootBlock(b))
      continue;
    if (blockWrites(b, buf) && !mv.isUnder(b))
      fail("'" + buf->name + "' is also written by block '" + b->name + "', outside the loop");
    bool passed = mv.isUnder(b) || std::find(between.begin(), between.end(), b) != between.end();
    if (!passed)
      continue;
    if (blockReads(b, out) || blockWrites(b, out))
      fail("block '" + b->name + "', which it would move before, accesses its output '" +
           out->name + "'");
    for (auto* l : loads)
      if (l != buf && blockWrites(b, l))
        fail("block '" + b->name + "', which it would move before, writes its input '" + l->name +
             "'");
  }
  // The producer's reduction must be complete at the end of one iteration.
  std::vector<const PrimVar*> outerVars{f->var.get()};
  for (auto& a : mv.loop.ancestors)
    if (auto* l = as<For>(a))
      outerVars.push_back(l->var.get());
  std::optional<std::vector<Range>> region;
  for (auto* b : under) {
    if (!blockWrites(b, buf))
      continue;
    for (size_t i = 0; i < b->iters.size(); ++i)
      if (b->iters[i].type == IterType::Reduce && usesAnyVar(b->bindings[i], outerVars))
        fail("the loop (or one outside it) feeds the reduction iterator '" + b->iters[i].var->name +
             "' of block '" + b->name + "'; the block would read partial results");
    if (auto why = widenRegion(region, func_->body, b, b->writes, buf, f.get(), "write");
        !why.empty())
      fail(why);
  }
  if (!region)
    fail("no block under the loop declares a write of '" + buf->name + "'");
  int count = 0;
  auto idx = uniqueLoadIndices(blk->body, buf, &count);
  if (!idx)
    fail("it reads '" + buf->name + "' at different indices");
  arith::Analyzer ctx = loopContext(mv.loop.ancestors, f.get());
  std::vector<std::optional<IterPlan>> plan(blk->iters.size());
  std::vector<PrimExpr> conds;
  // v / B in one dimension and v % B in another (a layout blocked by B: the
  // blocked convolution's [n, o / b, y, x, o % b]): the iterator v of that
  // pair, and B.
  auto divMod = [&](const PrimExpr& e, NodeKind kind) -> std::optional<std::pair<size_t, int64_t>> {
    auto* m = as<BinaryExpr>(e);
    auto B = m && m->op() == kind ? asConstInt(m->b) : std::nullopt;
    for (size_t k = 0; B && *B > 0 && k < blk->iters.size(); ++k)
      if (m->a.get() == blk->iters[k].var.get())
        return std::pair<size_t, int64_t>{k, *B};
    return std::nullopt;
  };
  auto partnerOf = [&](size_t d, NodeKind kind) {
    auto dm =
        divMod((*idx)[d], kind == NodeKind::FloorDiv ? NodeKind::FloorMod : NodeKind::FloorDiv);
    for (size_t e = 0; dm && e < idx->size(); ++e)
      if (e != d && divMod((*idx)[e], kind) == dm)
        return static_cast<int>(e);
    return -1;
  };
  for (size_t d = 0; d < idx->size(); ++d) {
    const PrimExpr &lo = (*region)[d].min, &ext = (*region)[d].extent;
    PrimExpr hi = arith::simplify(lo + ext);
    auto busy = [&](size_t k) {
      if (plan[k])
        fail("its iterator '" + blk->iters[k].var->name + "' indexes several dimensions of '" +
             buf->name + "'");
    };
    // The block dimension (v % B) must be written whole in one iteration;
    // v then runs over B times the outer dimension's (v / B) range.
    if (auto dm = divMod((*idx)[d], NodeKind::FloorMod);
        dm && partnerOf(d, NodeKind::FloorDiv) >= 0) {
      if (!isConstInt(lo, 0) || !isConstInt(ext, dm->second))
        fail("it reads '" + buf->name + "' in dimension " + std::to_string(d) + " at '" +
             blk->iters[dm->first].var->name + " % " + std::to_string(dm->second) +
             "', of which one iteration of the loop writes only a part");
      continue;
    }
    if (auto dm = divMod((*idx)[d], NodeKind::FloorDiv);
        dm && partnerOf(d, NodeKind::FloorMod) >= 0) {
      busy(dm->first);
      PrimExpr B = makeConst(lo->dtype, dm->second);
      plan[dm->first] = IterPlan{arith::simplify(lo * B), arith::simplify(ext * B)};
      continue;
    }
    auto aff = affineIn((*idx)[d], blk->iters);
    if (!aff)
      fail("it reads '" + buf->name + "' in dimension " + std::to_string(d) +
           " at an index that is not affine in its iterators");
    auto& t = aff->terms;
    if (t.empty()) {
      conds.push_back(ge((*idx)[d], lo));
      conds.push_back(lt((*idx)[d], hi));
    } else if (t.size() == 1 && t[0].second == 1) {
      busy(t[0].first);
      plan[t[0].first] = IterPlan{arith::simplify(lo - aff->constant), ext};
    } else if (t.size() == 2 && (t[0].second == 1 || t[1].second == 1)) {
      // a * v + w + c with w in [0, W), W <= a (flat positions of rows of
      // a, W of them used).
      auto [w, one] = t[0].second == 1 ? t[0] : t[1];
      auto [v, a] = t[0].second == 1 ? t[1] : t[0];
      (void)one;
      auto wext = asConstInt(blk->iters[w].dom.extent);
      if (a < 1 || !isConstInt(blk->iters[w].dom.min, 0) || !wext || *wext > a)
        fail("it reads '" + buf->name + "' in dimension " + std::to_string(d) +
             " at a flattened index whose inner iterator '" + blk->iters[w].var->name +
             "' is not in [0, " + std::to_string(a) + ")");
      busy(v);
      busy(w);
      // The range's positions one by one: v = (p - c) / a, w = (p - c) % a
      // for p in [lo, hi), w kept below its extent. Its reads are exactly
      // the written range (so StorageRewrite can shrink the buffer to it).
      IterPlan outer{arith::simplify(lo - aff->constant), ext};
      outer.divisor = a;
      outer.partner = static_cast<int>(w);
      plan[v] = outer;
      IterPlan in{makeConst(lo->dtype, 0), makeConst(lo->dtype, 1)};
      in.inner = true;
      plan[w] = in;
    } else {
      fail("it reads '" + buf->name + "' in dimension " + std::to_string(d) +
           " at an index that is neither `v + c` nor `a * v + w + c` in its iterators");
    }
  }
  std::vector<IterPlan> full;
  for (size_t k = 0; k < plan.size(); ++k)
    full.push_back(plan[k] ? *plan[k] : IterPlan{blk->iters[k].dom.min, blk->iters[k].dom.extent});
  Stmt nest = buildNest(blk.get(), full, conds, ctx, symbolicLoops(mv.loop.ancestors, f.get()));
  setBody(moveUnder(func_->body, f.get(), nest, false, n.top));
  trace_.append({"reverse_compute_at", {name}, {where}, {}});
}

void Schedule::computeAt(const BlockRV& rv, const LoopRV& lrv) {
  auto blk = block(rv);
  auto f = loop(lrv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: computeAt: block '" + name + "' cannot move under loop " +
                loopName(f.get()) + ": " + why);
  };
  auto* st = movableStore(blk.get(), fail);
  const BufferRef& buf = st->buffer;
  if (isParam(func_, buf.get()))
    fail("it writes '" + buf->name +
         "', a parameter of the function, all of which must be computed");
  // Store indices: the spatial iterators, each once (dimension d -> iterator).
  std::vector<int> iterOfDim;
  size_t spatial = 0;
  for (auto& it : blk->iters)
    spatial += it.type == IterType::Spatial;
  for (auto& x : st->indices) {
    int k = -1;
    for (size_t i = 0; i < blk->iters.size(); ++i)
      if (x.get() == blk->iters[i].var.get() && blk->iters[i].type == IterType::Spatial)
        k = static_cast<int>(i);
    if (k < 0 || std::find(iterOfDim.begin(), iterOfDim.end(), k) != iterOfDim.end())
      fail("it stores to '" + buf->name +
           "' at indices that are not its spatial iterators, each once");
    iterOfDim.push_back(k);
  }
  if (iterOfDim.size() != spatial)
    fail("it has spatial iterators that do not index '" + buf->name + "'");
  Move mv = planMove(func_->body, name, f.get(), fail);
  const Nest& n = mv.nest;
  const int fi = mv.loopIndex;
  if (fi < static_cast<int>(n.index))
    fail("the loop comes before the block (reverseComputeAt moves a consumer back)");
  LoopLocator where = locate(lrv);
  auto between = blocksBetween(n.parent, n.index + 1, fi);
  auto loads = loadedBuffers(blk->body);
  if (blk->init)
    for (auto* l : loadedBuffers(blk->init))
      loads.push_back(l);
  std::vector<const Block*> readers;
  for (auto* b : blocksUnder(func_->body)) {
    if (b == blk.get() || isRootBlock(b))
      continue;
    if (blockWrites(b, buf.get()))
      fail("'" + buf->name + "' is also written by block '" + b->name + "'");
    if (blockReads(b, buf.get())) {
      if (!mv.isUnder(b))
        fail("block '" + b->name + "', outside the loop, reads '" + buf->name + "'");
      readers.push_back(b);
    }
    bool passed = mv.isUnder(b) || std::find(between.begin(), between.end(), b) != between.end();
    for (auto* l : loads)
      if (passed && l != buf.get() && blockWrites(b, l))
        fail("block '" + b->name + "', which it would move after, writes its input '" + l->name +
             "'");
  }
  if (readers.empty())
    fail("no block under the loop reads '" + buf->name + "'");
  std::optional<std::vector<Range>> region;
  for (auto* b : readers)
    if (auto why = widenRegion(region, func_->body, b, b->reads, buf.get(), f.get(), "read");
        !why.empty())
      fail(why);
  if (!region)
    fail("no block under the loop declares a read of '" + buf->name + "'");
  arith::Analyzer ctx = loopContext(mv.loop.ancestors, f.get());
  std::vector<IterPlan> plan;
  for (auto& it : blk->iters)
    plan.push_back(IterPlan{it.dom.min, it.dom.extent});
  for (size_t d = 0; d < iterOfDim.size(); ++d)
    plan[iterOfDim[d]] = IterPlan{(*region)[d].min, (*region)[d].extent};
  Stmt nest = buildNest(blk.get(), plan, {}, ctx, symbolicLoops(mv.loop.ancestors, f.get()));
  setBody(moveUnder(func_->body, f.get(), nest, true, n.top));
  trace_.append({"compute_at", {name}, {where}, {}});
}

void Schedule::reverseComputeInline(const BlockRV& rv) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: reverseComputeInline: block '" + name + "' " + why);
  };
  if (blk->init)
    fail("is a reduction (it has an init)");
  auto* st = inlinedStore(blk.get(), fail);
  if (!isTrue(blk->predicate))
    fail("is predicated");
  // The producer: the one block writing a buffer this block loads.
  const Block* prod = nullptr;
  const Buffer* buf = nullptr;
  auto all = blocksUnder(func_->body);
  for (auto* l : loadedBuffers(blk->body))
    for (auto* b : all) {
      if (b == blk.get() || isRootBlock(b) || !blockWrites(b, l))
        continue;
      if (buf && buf != l)
        fail("reads '" + buf->name + "' and '" + l->name +
             "', both written by other blocks; it can be inlined into one producer only");
      if (prod && prod != b)
        fail("reads '" + l->name + "', which blocks '" + prod->name + "' and '" + b->name +
             "' both write");
      buf = l;
      prod = b;
    }
  if (!prod)
    fail("reads nothing that another block writes");
  const std::string& pname = prod->name;
  if (isParam(func_, buf))
    fail("reads '" + buf->name + "', a parameter of the function (it must stay written)");
  if (prod->init)
    fail("reads '" + buf->name + "' from block '" + pname +
         "', a reduction: its value is final only after the last update");
  for (auto& it : prod->iters)
    if (it.type == IterType::Reduce)
      fail("reads '" + buf->name + "' from block '" + pname +
           "', which has the reduction iterator '" + it.var->name + "'");
  auto* pst = as<BufferStore>(prod->body);
  if (!pst || pst->buffer.get() != buf)
    fail("reads '" + buf->name + "' from block '" + pname + "', which is not a single store to it");
  for (auto* b : all)
    if (b != blk.get() && b != prod && !isRootBlock(b) && blockReads(b, buf))
      fail("reads '" + buf->name + "', which block '" + b->name + "' reads too");
  // The consumer reads exactly the element its iterators name, and its
  // iterators cover the buffer.
  int count = 0;
  auto idx = uniqueLoadIndices(blk->body, buf, &count);
  if (!idx)
    fail("reads '" + buf->name + "' at different indices");
  if (idx->size() != blk->iters.size())
    fail("has " + std::to_string(blk->iters.size()) + " iterators but reads the " +
         std::to_string(idx->size()) + "-dimensional '" + buf->name + "'");
  VarMap m;
  for (size_t d = 0; d < idx->size(); ++d) {
    const IterVar* it = nullptr;
    for (auto& x : blk->iters)
      if ((*idx)[d].get() == x.var.get())
        it = &x;
    if (!it || m.count(it->var.get()))
      fail("reads '" + buf->name + "' at indices that are not its iterators, each once");
    if (!isConstInt(it->dom.min, 0) || !arith::provablyEqual(it->dom.extent, buf->shape[d]))
      fail("iterates '" + it->var->name + "' over a range other than dimension " +
           std::to_string(d) + " of '" + buf->name + "'");
    m[it->var.get()] = pst->indices[d];
  }
  auto cloc = findBlocks(func_->body, name)[0];
  auto ploc = findBlocks(func_->body, pname)[0];
  Nest cn = nestOf(cloc), pn = nestOf(ploc);
  if (!cn.parent || !sameNode(cn.parent, pn.parent) || pn.index >= cn.index)
    fail("is not in a loop nest after that of its producer '" + pname + "' in one sequence");
  auto between = blocksBetween(cn.parent, pn.index, cn.index);
  auto loads = loadedBuffers(blk->body);
  for (auto* b : between) {
    if (b == prod)
      continue;
    if (blockReads(b, st->buffer.get()) || blockWrites(b, st->buffer.get()))
      fail("writes '" + st->buffer->name + "', which block '" + b->name + "' before it accesses");
    for (auto* l : loads)
      if (l != buf && blockWrites(b, l))
        fail("reads '" + l->name + "', which block '" + b->name + "' before it writes");
  }
  // out[idx(v := e)] = value(v := e)[buf[e] := producer's value].
  struct LoadToValue : StmtMutator {
    const Buffer* buf;
    PrimExpr value;
    using StmtMutator::mutate;
    PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self) override {
      if (op->buffer.get() == buf)
        return value;
      return StmtMutator::visitBufferLoad(op, self);
    }
  } lv;
  lv.buf = buf;
  lv.value = pst->value;
  Stmt store = lv.mutate(substitute(blk->body, m));
  auto subRegions = [&](const std::vector<BufferRegion>& in, std::vector<BufferRegion>& out) {
    for (auto& r : in) {
      if (r.buffer.get() == buf)
        continue;
      out.push_back(BufferRegion{r.buffer, substituteRegion(r.region, m)});
    }
  };
  std::vector<BufferRegion> reads = prod->reads, writes;
  subRegions(blk->reads, reads);
  subRegions(blk->writes, writes);
  Stmt fusedBlock = make<Block>(prod->name, prod->iters, prod->bindings, reads, writes, Stmt(),
                                store, prod->allocs, prod->predicate, prod->annotations);
  Stmt body = replaceStmt(func_->body, prod, fusedBlock);
  body = replaceStmt(body, cn.top.get(), Stmt());
  setBody(removeAllocation(body, buf));
  trace_.append({"reverse_compute_inline", {name}, {}, {}});
}

} // namespace unity::schedule
