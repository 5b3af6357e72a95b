// StorageRewrite (see storage_rewrite.h for what it does and why).
//
// Compaction works on one Allocate at a time, bottom-up (inner allocations
// first). `place` walks down from the Allocate's body while the buffer's
// uses stay inside one child: through a sequence whose only user is one
// statement, through other allocations and lets, and into a loop whose
// iterations touch disjoint slices or are each dead on entry
// (deadOnEntry). Slices are computed per access: every loop variable
// between the candidate scope and the access is replaced by `min + t` with
// a fresh `t` in [0, extent) (extents must be constant), the "base" of a
// dimension is the first access's index with all those `t` at 0, and the
// constant bounds of (index - base) over the `t` give the slice
// [base + lo, base + hi]. Iterations of loop v touch disjoint slices when, in
// some dimension, base(v + 1) - base(v) is a constant at least as large as
// the slice's extent. The final scope gets a buffer of the slice's extents,
// and each index becomes index - base - lo.
//
// Reuse works on a chain of Allocates directly around a sequence (what
// compaction leaves for buffers used by several statements): live ranges
// are statement intervals; buffers are packed greedily, in order of first
// use, into pools of one dtype whose members' intervals are disjoint; each
// pool of two or more becomes one 1-D buffer of the largest member's size,
// indexed row-major.
#include "engine/transform/storage_rewrite.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

namespace {

/// The largest tile PromoteAccumulators caches (elements): a register
/// tile is at most 32 vectors of 16 lanes.
constexpr int64_t kMaxPromotedElements = 1024;

/// One load or store of the buffer, with the loops (outer to inner) entered
/// between the scope being examined and the access, and the let variables
/// bound there.
struct Access {
  std::vector<PrimExpr> indices;
  std::vector<const For*> loops;
};

/// Collects the accesses of `buf` under `s`. Sets `opaque` for uses it
/// cannot reason about (a Block still present).
class AccessCollector {
public:
  explicit AccessCollector(const Buffer* buf) : buf_(buf) {}
  std::vector<Access> accesses;
  std::unordered_set<const PrimVar*> innerVars; // loop and let variables under s
  bool opaque = false;

  void stmt(const Stmt& s) {
    if (!s)
      return;
    switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto* op = as<BufferStore>(s);
      for (auto& i : op->indices)
        expr(i);
      expr(op->value);
      if (op->buffer.get() == buf_)
        accesses.push_back({op->indices, loops_});
      break;
    }
    case NodeKind::For: {
      auto* op = as<For>(s);
      expr(op->min);
      expr(op->extent);
      innerVars.insert(op->var.get());
      loops_.push_back(op);
      stmt(op->body);
      loops_.pop_back();
      break;
    }
    case NodeKind::LetStmt: {
      auto* op = as<LetStmt>(s);
      expr(op->value);
      innerVars.insert(op->var.get());
      stmt(op->body);
      break;
    }
    case NodeKind::IfThenElse: {
      auto* op = as<IfThenElse>(s);
      expr(op->cond);
      stmt(op->then);
      stmt(op->otherwise);
      break;
    }
    case NodeKind::SeqStmt:
      for (auto& c : as<SeqStmt>(s)->seq)
        stmt(c);
      break;
    case NodeKind::Evaluate:
      expr(as<Evaluate>(s)->value);
      break;
    case NodeKind::Allocate:
      stmt(as<Allocate>(s)->body);
      break;
    default:
      opaque = true; // a Block: regions we do not rewrite
    }
  }

private:
  void expr(const PrimExpr& e) {
    walkPrimExpr(e, [&](const PrimExpr& x) {
      if (auto* l = as<BufferLoad>(x); l && l->buffer.get() == buf_)
        accesses.push_back({l->indices, loops_});
      if (auto* let = as<PrimLet>(x))
        innerVars.insert(let->var.get());
    });
  }
  const Buffer* buf_;
  std::vector<const For*> loops_;
};

bool uses(const Buffer* buf, const Stmt& s) {
  AccessCollector c(buf);
  c.stmt(s);
  return !c.accesses.empty() || c.opaque;
}

bool mentions(const PrimExpr& e, const std::unordered_set<const PrimVar*>& vars) {
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* v = as<PrimVar>(x); v && vars.count(v))
      found = true;
  });
  return found;
}

/// The slice of a buffer the statement `s` touches, relative to the
/// variables bound outside `s`.
struct Slice {
  std::vector<PrimExpr> base;
  std::vector<int64_t> lo, extent;
};

std::optional<Slice> sliceOf(const Buffer* buf, const Stmt& s) {
  AccessCollector c(buf);
  c.stmt(s);
  if (c.opaque || c.accesses.empty())
    return std::nullopt;
  Slice out;
  size_t nd = buf->shape.size();
  out.lo.assign(nd, std::numeric_limits<int64_t>::max());
  out.extent.assign(nd, 0);
  std::vector<int64_t> hi(nd, std::numeric_limits<int64_t>::min());
  for (size_t ai = 0; ai < c.accesses.size(); ++ai) {
    const Access& a = c.accesses[ai];
    if (a.indices.size() != nd)
      return std::nullopt;
    // Loop variable v -> min + t, t fresh in [0, extent), innermost first so
    // mins that mention outer loop variables are rewritten in turn.
    arith::Analyzer an;
    std::vector<Ref<PrimVar>> fresh;
    std::vector<PrimExpr> idx = a.indices;
    for (auto it = a.loops.rbegin(); it != a.loops.rend(); ++it) {
      const For* loop = *it;
      auto ext = asConstInt(loop->extent);
      if (!ext || *ext <= 0)
        return std::nullopt;
      auto t = make<PrimVar>(loop->var->name + "_t", loop->var->dtype);
      an.bind(t, Range{intImm(0, t->dtype), intImm(*ext, t->dtype)});
      fresh.push_back(t);
      std::unordered_map<const PrimVar*, PrimExpr> sub{{loop->var.get(), loop->min + PrimExpr(t)}};
      for (auto& e : idx)
        e = substitute(e, sub);
    }
    for (size_t d = 0; d < nd; ++d) {
      if (ai == 0) {
        std::unordered_map<const PrimVar*, PrimExpr> zero;
        for (auto& t : fresh)
          zero[t.get()] = intImm(0, t->dtype);
        out.base.push_back(arith::simplify(substitute(idx[d], zero)));
        if (mentions(out.base[d], c.innerVars))
          return std::nullopt; // varies inside s (a let): no fixed base
      }
      if (idx[d]->dtype != out.base[d]->dtype)
        return std::nullopt;
      auto b = an.constIntBound(an.simplify(idx[d] - out.base[d]));
      if (b.min == arith::ConstIntBound::kNegInf || b.max == arith::ConstIntBound::kPosInf)
        return std::nullopt;
      out.lo[d] = std::min(out.lo[d], b.min);
      hi[d] = std::max(hi[d], b.max);
    }
  }
  for (size_t d = 0; d < nd; ++d)
    out.extent[d] = hi[d] - out.lo[d] + 1;
  return out;
}

int64_t sliceBytes(const Slice& s, DataType t) {
  int64_t n = std::max<int64_t>(t.bytes(), 1);
  for (auto e : s.extent) {
    if (e > kMaxStackBytes)
      return kMaxStackBytes + 1;
    n *= e;
    if (n > kMaxStackBytes)
      return n;
  }
  return n;
}

/// True when the iterations of `loop` touch disjoint slices.
bool iterationsDisjoint(const For* loop, const Slice& s) {
  for (size_t d = 0; d < s.base.size(); ++d) {
    std::unordered_map<const PrimVar*, PrimExpr> next{{loop->var.get(), loop->var + 1}};
    auto step = asConstInt(arith::simplify(substitute(s.base[d], next) - s.base[d]));
    if (step && (*step >= s.extent[d] || -*step >= s.extent[d]))
      return true;
  }
  return false;
}

/// Replaces every access of `from` by one of `to` with rewritten indices.
class BufferRebase : public StmtMutator {
public:
  BufferRebase(const Buffer* from, BufferRef to,
               std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)> index)
      : from_(from), to_(std::move(to)), index_(std::move(index)) {}

protected:
  PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self) override {
    PrimExpr e = StmtMutator::visitBufferLoad(op, self);
    auto* l = as<BufferLoad>(e);
    if (l->buffer.get() != from_)
      return e;
    return make<BufferLoad>(to_, index_(l->indices));
  }
  Stmt visitBufferStore(const BufferStore* op, const Stmt& self) override {
    Stmt s = StmtMutator::visitBufferStore(op, self);
    auto* st = as<BufferStore>(s);
    if (st->buffer.get() != from_)
      return s;
    return make<BufferStore>(to_, st->value, index_(st->indices));
  }

private:
  const Buffer* from_;
  BufferRef to_;
  std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>&)> index_;
};

/// Wraps `s` in the allocation of `buf`, shrunk to the slice `s` touches
/// when `shrink` (inside a loop whose iterations were proven disjoint).
Stmt allocateAround(const BufferRef& buf, const Stmt& s, bool shrink) {
  if (!shrink)
    return make<Allocate>(buf, s);
  auto slice = sliceOf(buf.get(), s);
  if (!slice || sliceBytes(*slice, buf->dtype) > kMaxStackBytes)
    return make<Allocate>(buf, s); // cannot happen after the checks in place()
  std::vector<PrimExpr> shape;
  bool smaller = false;
  for (size_t d = 0; d < slice->extent.size(); ++d) {
    shape.push_back(intImm(slice->extent[d], buf->shape[d]->dtype));
    auto old = asConstInt(buf->shape[d]);
    smaller |=
        !old || *old != slice->extent[d] || slice->lo[d] != 0 || !isConstInt(slice->base[d], 0);
  }
  if (!smaller)
    return make<Allocate>(buf, s);
  auto compact = makeBuffer(buf->name, buf->dtype, shape, buf->scope);
  BufferRebase rebase(buf.get(), compact, [&](const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < idx.size(); ++d)
      out.push_back(arith::simplify(idx[d] - slice->base[d] - intImm(slice->lo[d], idx[d]->dtype)));
    return out;
  });
  return make<Allocate>(compact, rebase.mutate(s));
}

/// The box [base + lo, base + hi] one access touches, relative to `base`
/// (expressions over the variables outside the access's loops), or nothing
/// when an index does not stay a constant distance from its base.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
accessBox(const Access& a, const std::vector<PrimExpr>& base) {
  arith::Analyzer an;
  std::vector<PrimExpr> idx = a.indices;
  for (auto it = a.loops.rbegin(); it != a.loops.rend(); ++it) {
    auto ext = asConstInt((*it)->extent);
    if (!ext || *ext <= 0)
      return std::nullopt;
    auto t = make<PrimVar>((*it)->var->name + "_t", (*it)->var->dtype);
    an.bind(t, Range{intImm(0, t->dtype), intImm(*ext, t->dtype)});
    std::unordered_map<const PrimVar*, PrimExpr> sub{{(*it)->var.get(), (*it)->min + PrimExpr(t)}};
    for (auto& e : idx)
      e = substitute(e, sub);
  }
  std::vector<int64_t> lo, hi;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d]->dtype != base[d]->dtype)
      return std::nullopt;
    auto b = an.constIntBound(an.simplify(idx[d] - base[d]));
    if (b.min == arith::ConstIntBound::kNegInf || b.max == arith::ConstIntBound::kPosInf)
      return std::nullopt;
    lo.push_back(b.min);
    hi.push_back(b.max);
  }
  return std::make_pair(lo, hi);
}

/// A store that writes a distinct element in every iteration of its loops:
/// each loop variable moves exactly one index by exactly 1 per iteration,
/// and no index moves with two of them. Its box then holds exactly
/// product(extents) elements, all written.
bool storeIsDense(const Access& a) {
  std::vector<int> dimsOf(a.loops.size(), 0);
  for (size_t d = 0; d < a.indices.size(); ++d) {
    int moving = 0;
    for (size_t l = 0; l < a.loops.size(); ++l) {
      const For* f = a.loops[l];
      std::unordered_map<const PrimVar*, PrimExpr> next{{f->var.get(), f->var + 1}};
      auto step = asConstInt(arith::simplify(substitute(a.indices[d], next) - a.indices[d]));
      if (!step)
        return false;
      if (*step == 0)
        continue;
      if (*step != 1)
        return false;
      ++moving;
      ++dimsOf[l];
    }
    if (moving > 1)
      return false;
  }
  for (int n : dimsOf)
    if (n != 1)
      return false;
  return true;
}

/// True when every element of `buf` that s reads was written earlier by s
/// itself, so s can run on a fresh copy of the buffer: s is a sequence whose
/// leading statements only store (dense stores, no conditionals, pairwise
/// disjoint boxes that together fill one box) and whose later statements
/// only read inside that box; or a loop, allocation or let around such an s.
/// A padded copy computed under a loop (computeAt) and then read there is
/// this: iterations that read overlapping rows (a halo) still each write
/// every row they read, so each can have a private buffer.
bool deadOnEntry(const Buffer* buf, const Stmt& s) {
  switch (s->kind()) {
  case NodeKind::For:
    return deadOnEntry(buf, as<For>(s)->body);
  case NodeKind::Allocate:
    return deadOnEntry(buf, as<Allocate>(s)->body);
  case NodeKind::LetStmt: {
    auto* op = as<LetStmt>(s);
    return !uses(buf, make<Evaluate>(op->value)) && deadOnEntry(buf, op->body);
  }
  case NodeKind::SeqStmt:
    break;
  default:
    return false;
  }
  const auto& seq = as<SeqStmt>(s)->seq;
  std::vector<Access> stores, loads;
  bool reading = false;
  for (auto& st : seq) {
    AccessCollector c(buf);
    c.stmt(st);
    if (c.opaque)
      return false;
    if (c.accesses.empty())
      continue;
    size_t nStores = 0;
    walkStmt(st, [&](const Stmt& x) {
      if (auto* w = as<BufferStore>(x); w && w->buffer.get() == buf)
        ++nStores;
    });
    if (nStores == c.accesses.size() && !reading) {
      bool branches = false;
      walkStmt(st, [&](const Stmt& x) { branches |= x->kind() == NodeKind::IfThenElse; });
      if (branches)
        return false;
      stores.insert(stores.end(), c.accesses.begin(), c.accesses.end());
    } else if (nStores == 0 && !stores.empty()) {
      reading = true;
      loads.insert(loads.end(), c.accesses.begin(), c.accesses.end());
    } else {
      return false; // a statement that reads before all writes are done, or mixes them
    }
  }
  if (stores.empty() || loads.empty())
    return false;
  std::unordered_map<const PrimVar*, PrimExpr> zero;
  for (auto* f : stores[0].loops)
    zero[f->var.get()] = f->min;
  std::vector<PrimExpr> base;
  for (auto& i : stores[0].indices)
    base.push_back(arith::simplify(substitute(i, zero)));
  size_t nd = base.size();
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> boxes;
  std::vector<int64_t> lo(nd, std::numeric_limits<int64_t>::max()),
      hi(nd, std::numeric_limits<int64_t>::min());
  int64_t written = 0;
  for (auto& a : stores) {
    if (a.indices.size() != nd || !storeIsDense(a))
      return false;
    auto box = accessBox(a, base);
    if (!box)
      return false;
    int64_t n = 1;
    for (auto* f : a.loops)
      n *= *asConstInt(f->extent); // accessBox checked they are constant
    written += n;
    for (size_t d = 0; d < nd; ++d) {
      lo[d] = std::min(lo[d], box->first[d]);
      hi[d] = std::max(hi[d], box->second[d]);
    }
    for (auto& other : boxes) {
      bool apart = false;
      for (size_t d = 0; d < nd; ++d)
        apart |= box->second[d] < other.first[d] || other.second[d] < box->first[d];
      if (!apart)
        return false;
    }
    boxes.push_back(*box);
  }
  int64_t volume = 1;
  for (size_t d = 0; d < nd; ++d)
    volume *= hi[d] - lo[d] + 1;
  if (written != volume)
    return false;
  for (auto& a : loads) {
    if (a.indices.size() != nd)
      return false;
    auto box = accessBox(a, base);
    if (!box)
      return false;
    for (size_t d = 0; d < nd; ++d)
      if (box->first[d] < lo[d] || box->second[d] > hi[d])
        return false;
  }
  return true;
}

/// True when the allocation of the buffer named `name` in s sits inside a
/// loop of s and fits the stack budget (a compacted slice).
bool allocatedUnderLoop(const Stmt& s, const std::string& name, bool underLoop = false) {
  bool found = false, result = false;
  std::function<void(const Stmt&, bool)> walk = [&](const Stmt& t, bool loop) {
    if (!t || found)
      return;
    switch (t->kind()) {
    case NodeKind::Allocate: {
      auto* a = as<Allocate>(t);
      if (a->buffer->name == name) {
        found = true;
        int64_t bytes = std::max<int64_t>(a->buffer->dtype.bytes(), 1);
        for (auto& d : a->buffer->shape) {
          auto c = asConstInt(d);
          bytes = c && bytes <= kMaxStackBytes ? bytes * *c : kMaxStackBytes + 1;
        }
        result = loop && bytes <= kMaxStackBytes;
        return;
      }
      walk(a->body, loop);
      break;
    }
    case NodeKind::For:
      walk(as<For>(t)->body, true);
      break;
    case NodeKind::LetStmt:
      walk(as<LetStmt>(t)->body, loop);
      break;
    case NodeKind::SeqStmt:
      for (auto& c : as<SeqStmt>(t)->seq)
        walk(c, loop);
      break;
    case NodeKind::IfThenElse:
      walk(as<IfThenElse>(t)->then, loop);
      walk(as<IfThenElse>(t)->otherwise, loop);
      break;
    default:
      break;
    }
  };
  walk(s, underLoop);
  return result;
}

/// Places the allocation of `buf` as deep inside `s` as is safe.
Stmt place(const BufferRef& buf, const Stmt& s, bool insideLoop) {
  switch (s->kind()) {
  case NodeKind::SeqStmt: {
    auto* op = as<SeqStmt>(s);
    int user = -1, count = 0;
    for (size_t i = 0; i < op->seq.size(); ++i)
      if (uses(buf.get(), op->seq[i])) {
        user = static_cast<int>(i);
        ++count;
      }
    if (count == 0)
      return s; // never used: the allocation goes
    if (count > 1)
      return allocateAround(buf, s, insideLoop);
    std::vector<Stmt> seq = op->seq;
    seq[user] = place(buf, seq[user], insideLoop);
    return make<SeqStmt>(seq);
  }
  case NodeKind::For: {
    auto* op = as<For>(s);
    if (op->forKind == ForKind::Vectorized)
      break;
    auto slice = sliceOf(buf.get(), op->body);
    if (!slice || !(iterationsDisjoint(op, *slice) || deadOnEntry(buf.get(), op->body)))
      break;
    // Too large for one iteration's stack here, it may still fit deeper
    // (a loop inside whose iterations take smaller disjoint slices).
    Stmt inner = place(buf, op->body, true);
    if (sliceBytes(*slice, buf->dtype) > kMaxStackBytes && !allocatedUnderLoop(inner, buf->name))
      break;
    return make<For>(op->var, op->min, op->extent, op->forKind, inner, op->annotations);
  }
  case NodeKind::Allocate: {
    auto* op = as<Allocate>(s);
    return make<Allocate>(op->buffer, place(buf, op->body, insideLoop));
  }
  case NodeKind::LetStmt: {
    auto* op = as<LetStmt>(s);
    if (uses(buf.get(), make<Evaluate>(op->value)))
      break;
    return make<LetStmt>(op->var, op->value, place(buf, op->body, insideLoop));
  }
  default:
    break;
  }
  if (!uses(buf.get(), s))
    return s;
  return allocateAround(buf, s, insideLoop);
}

// ------------------------------------------------------------------ reuse

std::optional<int64_t> constElems(const Buffer* b) {
  int64_t n = 1;
  for (auto& d : b->shape) {
    auto c = asConstInt(d);
    if (!c || *c < 0)
      return std::nullopt;
    n *= *c;
  }
  return n;
}

/// Shares storage between the allocations directly around a sequence.
Stmt reuse(const std::vector<BufferRef>& chain, const SeqStmt* seq) {
  struct Live {
    BufferRef buf;
    int first = -1, last = -1;
    int64_t elems = 0;
  };
  std::vector<Live> live;
  for (auto& b : chain) {
    Live l{b};
    for (size_t i = 0; i < seq->seq.size(); ++i)
      if (uses(b.get(), seq->seq[i])) {
        if (l.first < 0)
          l.first = static_cast<int>(i);
        l.last = static_cast<int>(i);
      }
    auto n = constElems(b.get());
    l.elems = n ? *n : -1;
    live.push_back(l);
  }
  std::stable_sort(live.begin(), live.end(),
                   [](const Live& a, const Live& b) { return a.first < b.first; });
  // pools[k]: indices into live; greedy first fit by dtype and interval.
  std::vector<std::vector<size_t>> pools;
  for (size_t i = 0; i < live.size(); ++i) {
    bool placed = false;
    if (live[i].elems >= 0 && live[i].first >= 0)
      for (auto& p : pools) {
        const Live& head = live[p.front()];
        if (head.elems < 0 || head.buf->dtype != live[i].buf->dtype)
          continue;
        bool overlap = false;
        for (size_t j : p)
          overlap |= !(live[j].last < live[i].first || live[i].last < live[j].first);
        if (!overlap) {
          p.push_back(i);
          placed = true;
          break;
        }
      }
    if (!placed)
      pools.push_back({i});
  }
  Stmt body = make<SeqStmt>(seq->seq);
  std::vector<BufferRef> allocs;
  for (auto& p : pools) {
    if (p.size() == 1) {
      allocs.push_back(live[p[0]].buf);
      continue;
    }
    int64_t size = 0;
    for (size_t j : p)
      size = std::max(size, live[j].elems);
    const BufferRef& first = live[p.front()].buf;
    auto pool = makeBuffer(first->name, first->dtype, {intImm(size)}, first->scope);
    for (size_t j : p) {
      const Buffer* b = live[j].buf.get();
      BufferRebase flat(b, pool, [b](const std::vector<PrimExpr>& idx) {
        PrimExpr off;
        for (size_t d = 0; d < idx.size(); ++d) {
          PrimExpr i =
              idx[d]->dtype == DataType::Int64() ? idx[d] : cast(DataType::Int64(), idx[d]);
          PrimExpr dim = b->shape[d]->dtype == DataType::Int64()
                             ? b->shape[d]
                             : cast(DataType::Int64(), b->shape[d]);
          off = off ? off * dim + i : i;
        }
        return std::vector<PrimExpr>{arith::simplify(off ? off : intImm(0))};
      });
      body = flat.mutate(body);
    }
    allocs.push_back(pool);
  }
  // Keep the original nesting order for the buffers that stayed.
  for (auto it = allocs.rbegin(); it != allocs.rend(); ++it)
    body = make<Allocate>(*it, body);
  return body;
}

class Rewriter : public StmtMutator {
public:
  bool opaque = false;

protected:
  Stmt visitAllocate(const Allocate* op, const Stmt& self) override {
    Stmt inner = StmtMutator::visitAllocate(op, self); // inner allocations first
    auto* a = as<Allocate>(inner);
    Stmt placed = place(a->buffer, a->body, false);
    // Reuse, when this allocation heads a chain directly around a sequence.
    std::vector<BufferRef> chain;
    Stmt cur = placed;
    while (auto* al = as<Allocate>(cur)) {
      chain.push_back(al->buffer);
      cur = al->body;
    }
    if (chain.size() >= 2)
      if (auto* seq = as<SeqStmt>(cur))
        return reuse(chain, seq);
    return placed;
  }
  Stmt visitBlock(const Block* op, const Stmt& self) override {
    opaque = true;
    return StmtMutator::visitBlock(op, self);
  }
};

bool hasBlock(const Stmt& s) {
  bool found = false;
  walkStmt(s, [&](const Stmt& x) { found |= x->kind() == NodeKind::Block; });
  return found;
}

} // namespace

namespace {

/// The buffers stored under s, in order of first store.
std::vector<BufferRef> storedBuffers(const Stmt& s) {
  std::vector<BufferRef> out;
  walkStmt(s, [&](const Stmt& x) {
    if (auto* st = as<BufferStore>(x))
      if (std::none_of(out.begin(), out.end(),
                       [&](const BufferRef& b) { return b.get() == st->buffer.get(); }))
        out.push_back(st->buffer);
  });
  return out;
}

/// The one store of buf under s (null when there are several or none).
const BufferStore* onlyStore(const Buffer* buf, const Stmt& s) {
  const BufferStore* found = nullptr;
  int n = 0;
  walkStmt(s, [&](const Stmt& x) {
    if (auto* st = as<BufferStore>(x); st && st->buffer.get() == buf) {
      found = st;
      ++n;
    }
  });
  return n == 1 ? found : nullptr;
}

/// The loops under s that enclose the store `st`, outermost first, into
/// `out`; false when st is not reached through loops, sequences,
/// allocations and lets alone (under a condition it may not run, so it
/// does not cover its box).
bool loopsAround(const Stmt& s, const BufferStore* st, std::vector<const For*>& path,
                 std::vector<const For*>& out) {
  if (!s)
    return false;
  if (s.get() == st) {
    out = path;
    return true;
  }
  if (auto* f = as<For>(s)) {
    path.push_back(f);
    bool found = loopsAround(f->body, st, path, out);
    path.pop_back();
    return found;
  }
  if (auto* q = as<SeqStmt>(s)) {
    for (auto& c : q->seq)
      if (loopsAround(c, st, path, out))
        return true;
    return false;
  }
  if (auto* a = as<Allocate>(s))
    return loopsAround(a->body, st, path, out);
  if (auto* l = as<LetStmt>(s))
    return loopsAround(l->body, st, path, out);
  return false;
}

/// A loop nest over `extents` (outermost first; the innermost vectorized
/// when longer than one) around body(t...), the loop variables passed in.
Stmt boxNest(const std::vector<int64_t>& extents, const std::string& prefix,
             const std::function<Stmt(const std::vector<PrimExpr>&)>& body) {
  std::vector<Ref<PrimVar>> vars;
  std::vector<PrimExpr> idx;
  for (size_t d = 0; d < extents.size(); ++d) {
    auto v = make<PrimVar>(prefix + std::to_string(d), DataType::Int64());
    vars.push_back(v);
    idx.push_back(extents[d] == 1 ? intImm(0) : PrimExpr(v));
  }
  Stmt s = body(idx);
  int innermost = -1;
  for (size_t d = 0; d < extents.size(); ++d)
    if (extents[d] > 1)
      innermost = static_cast<int>(d);
  for (size_t d = extents.size(); d-- > 0;)
    if (extents[d] > 1)
      s = make<For>(vars[d], intImm(0), intImm(extents[d]),
                    static_cast<int>(d) == innermost ? ForKind::Vectorized : ForKind::Serial, s);
  return s;
}

class AccumulatorPromoter : public StmtMutator {
protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    if (op->forKind == ForKind::Serial)
      for (auto& buf : storedBuffers(op->body))
        if (auto s = promote(op, buf))
          return *s;
    return StmtMutator::visitFor(op, self);
  }

private:
  std::optional<Stmt> promote(const For* op, const BufferRef& buf) {
    if (auto e = asConstInt(op->extent); e && *e <= 0)
      return std::nullopt; // runs no iteration
    auto slice = sliceOf(buf.get(), op->body);
    if (!slice)
      return std::nullopt;
    size_t nd = slice->base.size();
    std::unordered_set<const PrimVar*> self{op->var.get()};
    int first = -1;
    int64_t volume = 1;
    for (size_t d = 0; d < nd; ++d) {
      if (mentions(slice->base[d], self))
        return std::nullopt; // moves with the loop: not an accumulator
      if (slice->extent[d] > 1 && first < 0)
        first = static_cast<int>(d);
      volume *= slice->extent[d];
    }
    bool symbolicStride = false;
    for (size_t d = static_cast<size_t>(std::max(first, 0)) + 1; first >= 0 && d < nd; ++d)
      symbolicStride = symbolicStride || !asConstInt(buf->shape[d]);
    if (!symbolicStride || volume > kMaxPromotedElements ||
        sliceBytes(*slice, buf->dtype) > kMaxStackBytes)
      return std::nullopt;
    // One store, dense over the box: each dimension the base plus at most
    // one loop (step one, over the dimension's whole extent), no loop twice.
    const BufferStore* st = onlyStore(buf.get(), op->body);
    if (!st)
      return std::nullopt;
    std::vector<const For*> path, around;
    if (!loopsAround(op->body, st, path, around))
      return std::nullopt; // conditional, or under a statement not followed
    std::unordered_set<const PrimVar*> used;
    for (size_t d = 0; d < nd; ++d) {
      PrimExpr off = arith::simplify(st->indices[d] - slice->base[d]);
      if (slice->extent[d] == 1) {
        if (!isConstInt(off, slice->lo[d]))
          return std::nullopt;
        continue;
      }
      const For* loop = nullptr;
      int loops = 0;
      for (auto* f : around)
        if (mentions(off, {f->var.get()})) {
          loop = f;
          ++loops;
        }
      if (loops != 1 || used.count(loop->var.get()) || !isConstInt(loop->min, 0) ||
          asConstInt(loop->extent) != slice->extent[d] ||
          !arith::provablyEqual(off, PrimExpr(loop->var) + intImm(slice->lo[d], off->dtype)))
        return std::nullopt;
      used.insert(loop->var.get());
    }
    auto acc = makeBuffer(
        buf->name + "_acc", buf->dtype,
        [&] {
          std::vector<PrimExpr> shape;
          for (auto e : slice->extent)
            shape.push_back(intImm(e));
          return shape;
        }(),
        "local");
    auto at = [&](const std::vector<PrimExpr>& t) {
      std::vector<PrimExpr> idx;
      for (size_t d = 0; d < nd; ++d)
        idx.push_back(arith::simplify(slice->base[d] + intImm(slice->lo[d], slice->base[d]->dtype) +
                                      cast(slice->base[d]->dtype, t[d])));
      return idx;
    };
    Stmt in = boxNest(slice->extent, buf->name + "_in", [&](const std::vector<PrimExpr>& t) {
      return make<BufferStore>(acc, make<BufferLoad>(buf, at(t)), t);
    });
    Stmt out = boxNest(slice->extent, buf->name + "_out", [&](const std::vector<PrimExpr>& t) {
      return make<BufferStore>(buf, make<BufferLoad>(acc, t), at(t));
    });
    BufferRebase rebase(buf.get(), acc, [&](const std::vector<PrimExpr>& idx) {
      std::vector<PrimExpr> r;
      for (size_t d = 0; d < idx.size(); ++d)
        r.push_back(arith::simplify(idx[d] - slice->base[d] - intImm(slice->lo[d], idx[d]->dtype)));
      return r;
    });
    Stmt loop = make<For>(op->var, op->min, op->extent, op->forKind, rebase.mutate(op->body),
                          op->annotations);
    Stmt s = make<Allocate>(acc, make<SeqStmt>(std::vector<Stmt>{in, loop, out}));
    if (!asConstInt(op->extent))
      s = make<IfThenElse>(arith::simplify(gt(op->extent, intImm(0, op->extent->dtype))), s);
    return s;
  }
};

} // namespace

namespace {
/// f with its body rewritten by a fresh M; f itself when nothing changed or
/// the function is still in scheduling form (LowerBlocks first).
template <class M> PrimFuncRef rewriteLowered(const PrimFuncRef& f, const char* pass) {
  if (!f)
    throw Error(std::string(pass) + ": null function");
  if (hasBlock(f->body))
    return f;
  M m;
  Stmt body = m.mutate(f->body);
  if (sameNode(body, f->body) || structuralEqual(body, f->body))
    return f;
  return make<PrimFunc>(f->params, body, f->attrs);
}
} // namespace

PrimFuncRef promoteAccumulators(const PrimFuncRef& f) {
  return rewriteLowered<AccumulatorPromoter>(f, "PromoteAccumulators");
}

PrimFuncRef storageRewrite(const PrimFuncRef& f) {
  return rewriteLowered<Rewriter>(f, "StorageRewrite");
}

} // namespace unity::transform
