// DefaultSchedule: rule-based schedules for untuned tensor functions, built
// only from schedule primitives (so each result is also a replayable trace).
// Every number below is a knob of target::SchedulePolicy (named in
// [brackets]; the values quoted are the defaults, for AVX-512), derived
// from the machine model of the function's target (transform::
// primFuncTargets: the module's "target" attribute, the host without one).
//
// 1. Inline: every elementwise/injective block writing an intermediate is
//    inlined into its readers (computeInline), repeatedly. Exception
//    [keepSharedTranscendentals]: a producer calling exp, log, tanh, ...
//    that two or more blocks read is kept (softmax's exponentials, summed
//    and then scaled, are computed once). Exception
//    [keepPaddingProducers]: a producer whose value holds a Select
//    (padding) is kept when a reduction reads it — inlined, the bounds
//    test would run at every multiply-add; materialized, it is one cheap
//    pass over the data. [paddingAtConsumer]: the padded copy read by a
//    depthwise convolution (the taps-inside rule below) is then computed
//    one plane at a time under that convolution's parallel channel loop
//    (computeAt, padUnderConsumer), into a buffer of one plane; with
//    several cores and [partitionRows], one chunk of rows per core, the
//    padding per chunk and channel (see rowsFirst).
// 2. Each remaining block, on the loops that hold only it ("own" loops):
//    - spatial only: the innermost loop is vectorized [vectorize] when it
//      runs along the last index of the stored buffer (contiguous writes);
//      a flattened copy whose value takes floormod(v, K) of that index
//      (K >= 8 [minFlatRowWidth]) is first split into rows of K (the
//      divisions move to the row loop), another long constant one (> 256
//      [splitAbove]) is split by 64 [splitFactor] so outer iterations
//      remain. The leading loops are fused until they count >= 4 per core
//      [parallelChunksPerCore x cores] iterations and made parallel
//      [parallelize].
//    - reduction (a register-blocked kernel): x = the spatial loop along
//      the output's last index, u = a spatial loop such that some input
//      read along x does not depend on u (B[k, j] for C[i, j]: u = i; for
//      a convolution the weight-free image read: u = output channel), so
//      one vector load of that input serves U unrolled rows. The tile is
//      V positions along x in whole vectors of [vectorLanes] (1-4
//      [maxTileVectors] vectors dividing x, or all of a short x) by U rows
//      along u (14, 8, 7, 6, 4, 3, 2 [tileRows] dividing u), at most
//      [accumulatorRegisters] accumulators (24 of AVX-512's 32 registers of
//      16 lanes; 12 of AVX2's 16 registers of 8 lanes): the most
//      accumulators wins, then the fewest loads per reduce step
//      (V / lanes + U). Order
//          [other spatial] x_o [r_o] u_o | reduce loops | u_i x_i
//      (j_o k_o i_o k_i i_i j_i for matmul), unroll u_i, vectorize x_i
//      (unroll it on a machine without vectors), and decompose the
//      reduction at the outermost reduce loop so the init is its own
//      vectorized nest. Several reduce loops (convolution: c, ky, kx) stay
//      nested — fused, each step would recompute the taps with a division
//      and a modulo. A single reduction longer than 128
//      [reduceSplitAbove] is split (by the first of
//      [reduceTileCandidates] dividing it) and its outer part moved out of
//      u_o, so the Kt x V slice of the reused input stays in L2 across all
//      u_o tiles (with several cores, only when the loops outside u_o give
//      every core work; otherwise u_o stays outside and parallel). The
//      U x V accumulator tile has addresses invariant in the reduce loops:
//      LLVM keeps it in registers (LICM scalar promotion) across all of
//      them, and the inner body is U * V / lanes fused multiply-adds per
//      V / lanes vector loads and U broadcasts (conv 128x28x28: 24
//      vfmadd231ps zmm, 3 vmovups, 8 vbroadcastss, no store). The outer
//      spatial loops are fused and parallel.
//      When the tile is narrower than the row (V < x's extent) and the
//      input read along x is a parameter each element of which is reused
//      by at least [packMinReuse] 256 output rows (B[k, j] of a matmul with
//      M >= 256), that input is first copied into panels of V columns
//      [packReusedInput] (schedule::packLayout: B_packed[n / V][k][V], a
//      block of its own; [packInTileLoop] first in the body of the
//      column-tile loop x_o, each iteration copying the panel it is about
//      to use on its own thread (lanes vectorized), else one nest before
//      the reduction scheduled by the spatial rule): each reduce step then
//      reads the next V floats of one contiguous stream, where unpacked it
//      reads a row a whole row of B further (4 KiB at n = 1024: every row
//      of the slice in the same L1 sets, and a new page). Matmul 1024^3
//      went from ~145 to ~225-245 GFLOP/s on one EPYC core
//      (docs/benchmarks.md).
//      A few constant taps (at most 49 [maxUnrolledTaps]) and no unrolled
//      rows (no u: a depthwise convolution, whose image read depends on
//      every spatial loop; a pooling window) take the order
//      [other spatial] x_o | x_i | taps instead, x_i vectorized and the
//      taps unrolled: each vector of outputs sums all its taps in
//      registers and is stored once.
//      A convolution whose weight AlterConvLayout packed with output
//      channels innermost (topi::conv2dBlocked) is stored blocked,
//      [n, o / b, y, x, o % b]: x = the b output channels (whole vectors),
//      u = the output column x (7 or 14 of them unrolled for images 7, 14,
//      28, 56 wide), each broadcasting one input value per tap. Its packed
//      weight is read along x but does not depend on the output rows: with
//      several reduce loops (or one, the row's columns unrolled whole: a
//      1x1 kernel over a 7 or 14 wide image) the channel loop is cut so that one slice of
//      the weight (channels x taps x b floats, at most [reduceSliceBytes],
//      a quarter of L1) serves every row tile from L1, the slice loop moved out
//      of the row loop (hoistPoint). The copy back to NCHW is the
//      epilogue of rule 3, one block of b channels at a time.
//      Convolutions reach this rule otherwise in topi's "wide" form (topi_nn.cpp):
//      the padded image flattened per channel, so x runs over flat
//      positions y * Wp + x' and splits into whole vectors whatever the
//      width (14, 28, 56); a direct NCHW convolution of width 14 would
//      leave a scalar remainder per row.
//    - row reductions [rowReductions] (one reduce loop along which an
//      input is read contiguously, while the output's contiguous loop x
//      would read it a row apart per lane: softmax's max and sum, layer
//      norm's sums): the reduce loop is split by one vector (with a tail
//      for other lengths), rfactor gives each lane its partial result,
//      the lane loop is vectorized and the lanes folded per row.
//    - symbolic extents (a sequence length n): a symbolic x or u is moved
//      outermost and cut by splitWithTail into a main nest of whole tiles
//      (n / V by V with V = maxTileVectors * vectorLanes, or n / U by U)
//      and a remainder loop holding a copy of the block. The main block is
//      scheduled by the rule above with the outer half standing for
//      x_o / u_o, so it gets the static tile with no predicate anywhere in
//      it; a symbolic u accepts any U (the tail takes the rest). The copy
//      in the remainder is scheduled without further tail splits (U = 1, a
//      symbolic x vectorized whole). Symbolic reduce loops stay unsplit.
// 3. Epilogue fusion [fuseEpilogues]: a spatial block reading the output
//    of a scheduled reduction (the bias/batch-norm/clip/residual chain after
//    a convolution or matmul, one block once step 1 inlined it) moves under
//    the reduction's innermost spatial loop outside its reduce loops
//    (reverseComputeAt; for the register tile, u_o), after the tile's
//    reduction: it reads the U x V accumulators just stored, in L1, instead
//    of a full-size temporary in a separate pass over memory, and runs in
//    the reduction's parallel loop. Its innermost loop is vectorized when
//    it runs along the stored buffer's last index (fused with the row loop
//    first when the tile holds whole rows shorter than a vector, wholeRows:
//    a blocked 1x1 convolution over a 7x7 image stores 49 contiguous
//    positions per channel, 3 vectors and one lane, instead of 7 lanes per
//    row). The wide convolution's
//    crop, which reads the tile's flat positions p = y * Wq + x, walks
//    those positions (y = p / Wq, x = p % Wq, x < OW), so it reads exactly
//    the tile and StorageRewrite shrinks the full-size temporary to one
//    U x V tile; a tile narrower than a row (V < Wq) or a reduction
//    shorter than [flatEpilogueMinReduction] (256) multiply-adds per
//    output is left alone (measured slower, see fuseEpilogue) unless the
//    walk drops no column (Wq = OW: the stores are contiguous). When the consumer cannot move (a
//    reduction that is not tiled, a tail copy writing the same buffer), it
//    gets rule 2 in its own nest.
//    Anything a rule cannot handle (loops shared by several blocks, a
//    primitive refusing) leaves that block as it was: the schedule is tried
//    on a copy and only kept when every step succeeded.
#include "engine/transform/default_schedule.h"

#include <map>
#include <set>

#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"
#include "engine/target/machine_model.h"
#include "engine/transform/function_target.h"
#include "engine/transform/inject_prefetch.h"

namespace unity::transform {

using namespace ir;
using schedule::BlockRV;
using schedule::LoopRV;
using schedule::Schedule;

namespace {

using target::SchedulePolicy;

bool hasSelect(const PrimExpr& e) {
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) { found = found || isa<Select>(x); });
  return found;
}

/// True when e calls a transcendental intrinsic: one that costs a
/// polynomial per element (exp, log, tanh, erf, ...), not fabs, floor or a
/// square root.
bool callsTranscendental(const PrimExpr& e) {
  static const std::set<std::string> cheap = {"fabs", "floor", "ceil",  "round", "trunc",
                                              "sqrt", "rsqrt", "isnan", "isinf", "fmod"};
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* c = as<PrimCall>(x))
      found = found || !cheap.count(c->op);
  });
  return found;
}

bool isReduction(const Block* b) {
  if (b->init)
    return true;
  for (auto& it : b->iters)
    if (it.type == IterType::Reduce)
      return true;
  return false;
}

bool isParam(const PrimFuncRef& f, const Buffer* b) {
  for (auto& p : f->params)
    if (p.buffer.get() == b)
      return true;
  return false;
}

bool readsBuffer(const Block* b, const Buffer* buf) {
  bool found = false;
  auto check = [&](const Stmt& s) {
    if (!s)
      return;
    walkStmt(s, [&](const Stmt& x) {
      if (auto* st = as<BufferStore>(x)) {
        for (auto& e : st->indices)
          walkPrimExpr(e, [&](const PrimExpr& y) {
            found = found || (isa<BufferLoad>(y) && as<BufferLoad>(y)->buffer.get() == buf);
          });
        walkPrimExpr(st->value, [&](const PrimExpr& y) {
          found = found || (isa<BufferLoad>(y) && as<BufferLoad>(y)->buffer.get() == buf);
        });
      }
    });
  };
  check(b->init);
  check(b->body);
  return found;
}

/// Inlines injective producers of intermediates until nothing changes.
void inlineProducers(Schedule& s, const SchedulePolicy& p) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& rv : s.getBlocks()) {
      auto b = s.block(rv);
      auto* st = as<BufferStore>(b->body);
      if (isReduction(b.get()) || !st || isParam(s.func(), st->buffer.get()))
        continue;
      bool keep = false;
      if (p.keepPaddingProducers && hasSelect(st->value))
        for (auto* c : schedule::detail::blocksUnder(s.func()->body))
          keep = keep || (c != b.get() && isReduction(c) && readsBuffer(c, st->buffer.get()));
      if (p.keepSharedTranscendentals && callsTranscendental(st->value)) {
        int readers = 0; // leaf blocks only: the root block holds them all
        for (auto& other : s.getBlocks()) {
          auto c = s.block(other);
          readers += c.get() != b.get() && readsBuffer(c.get(), st->buffer.get());
        }
        keep = keep || readers >= 2;
      }
      if (keep)
        continue;
      Schedule attempt = s;
      try {
        attempt.computeInline(rv);
      } catch (const Error&) {
        continue;
      }
      s = attempt;
      changed = true;
      break;
    }
  }
}

struct OwnLoop {
  LoopRV rv;
  Ref<For> f;
  bool spatial = false, reduce = false; // the iterator kinds it feeds
};

/// The loops holding only `rv` (perfectly nested down to it), outermost first.
std::vector<OwnLoop> ownLoops(const Schedule& s, const BlockRV& rv) {
  auto blk = s.block(rv);
  std::vector<OwnLoop> out;
  for (auto& l : s.getLoops(rv)) {
    auto f = s.loop(l);
    auto under = schedule::detail::blocksUnder(f->body);
    if (under.size() != 1) {
      out.clear();
      continue;
    }
    OwnLoop o{l, f};
    for (size_t i = 0; i < blk->iters.size(); ++i)
      if (schedule::detail::usesVar(blk->bindings[i], f->var.get()))
        (blk->iters[i].type == IterType::Reduce ? o.reduce : o.spatial) = true;
    out.push_back(o);
  }
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (!sameNode(out[i].f->body, out[i + 1].f))
      return {};
  if (!out.empty() && !sameNode(out.back().f->body, blk))
    return {};
  return out;
}

/// Whether e is `v + (terms without v)`: v moves e by steps of one.
bool unitTerm(const PrimExpr& e, const PrimVar* v) {
  if (e.get() == v)
    return true;
  auto* add = as<BinaryExpr>(e);
  if (!add || add->kind() != NodeKind::Add)
    return false;
  return (unitTerm(add->a, v) && !schedule::detail::usesVar(add->b, v)) ||
         (unitTerm(add->b, v) && !schedule::detail::usesVar(add->a, v));
}

/// The own loop that moves the stored buffer's last index by one, or -1:
/// the innermost own loop in the binding of that index's iterator, which
/// must be a plain term of it (`i`, or `i_0 * 64 + i_1` after a
/// splitWithTail, or `i_tail + n / 64 * 64` in its tail).
int contiguousLoop(const Block* b, const std::vector<OwnLoop>& loops) {
  auto* st = as<BufferStore>(b->body);
  if (!st || st->indices.empty())
    return -1;
  auto* v = as<PrimVar>(st->indices.back());
  for (size_t i = 0; v && i < b->iters.size(); ++i) {
    if (b->iters[i].var.get() != v)
      continue;
    for (size_t k = loops.size(); k-- > 0;)
      if (schedule::detail::usesVar(b->bindings[i], loops[k].f->var.get()))
        return unitTerm(b->bindings[i], loops[k].f->var.get()) ? static_cast<int>(k) : -1;
  }
  return -1;
}

int64_t constExtent(const Ref<For>& f) { return asConstInt(f->extent).value_or(-1); }

/// The extent of the second innermost own loop when the two innermost own
/// loops walk whole rows of the stored buffer: the innermost is the last
/// index itself over its full (constant) size, the one outside it moves the
/// index before by one and nothing else uses either. Fused, they then
/// store one contiguous run. 0 otherwise.
int64_t wholeRows(const Block* b, const std::vector<OwnLoop>& loops) {
  auto* st = as<BufferStore>(b->body);
  if (!st || st->indices.size() < 2 || loops.size() < 2)
    return 0;
  const PrimVar* x = loops.back().f->var.get();
  const PrimVar* y = loops[loops.size() - 2].f->var.get();
  const auto& shape = st->buffer->shape;
  auto width = asConstInt(shape.back());
  if (!width || *width != constExtent(loops.back().f))
    return 0;
  size_t n = st->indices.size();
  for (size_t k = 0; k < n; ++k) {
    auto* v = as<PrimVar>(st->indices[k]);
    const PrimExpr* bind = nullptr;
    for (size_t i = 0; v && i < b->iters.size(); ++i)
      if (b->iters[i].var.get() == v)
        bind = &b->bindings[i];
    if (!bind)
      return 0;
    bool usesX = schedule::detail::usesVar(*bind, x), usesY = schedule::detail::usesVar(*bind, y);
    if (k == n - 1 ? bind->get() != x : (usesX || (k == n - 2 ? !unitTerm(*bind, y) : usesY)))
      return 0;
  }
  return constExtent(loops[loops.size() - 2].f);
}

/// Fuses the leading loops of `outer` until they count >=
/// p.parallelTarget() iterations and makes the result parallel (nothing
/// when the policy has no parallel loops). Every loop in `outer` must feed
/// only spatial iterators and be perfectly nested. A symbolic extent counts
/// as one: it may be 1 at run time (a batch of one image), so the loops
/// after it are fused in too until the constant ones reach the target —
/// stopping at a symbolic batch would leave every other core idle.
void parallelizeOuter(Schedule& s, const std::vector<LoopRV>& outer, const SchedulePolicy& p) {
  if (outer.empty() || !p.parallelize)
    return;
  int64_t target = p.parallelTarget();
  std::vector<LoopRV> group;
  int64_t count = 1;
  for (auto& l : outer) {
    group.push_back(l);
    int64_t e = constExtent(s.loop(l));
    if (e > 0 && (count *= e) >= target)
      break;
  }
  LoopRV fused = group.size() > 1 ? s.fuse(group) : group[0];
  s.parallel(fused);
}

/// The row width of a flattened copy: the constant K of a floormod(v, K) in
/// the stored value, v the iterator of the stored buffer's last index, K
/// dividing `extent` (the loop's), minWidth <= K < extent; the smallest such K, or
/// -1. Split by K, v = row * K + col turns floordiv(v, K) into the row and
/// floormod(v, K) into the column: the column loop then reads contiguously
/// instead of dividing in every lane (the wide convolution's pad_flat;
/// docs/benchmarks.md, "Code generation and copies").
int64_t flatRowWidth(const Block* b, int64_t extent, int64_t minWidth) {
  auto* st = as<BufferStore>(b->body);
  auto* v = st && !st->indices.empty() ? as<PrimVar>(st->indices.back()) : nullptr;
  if (!v)
    return -1;
  int64_t best = -1;
  walkPrimExpr(st->value, [&](const PrimExpr& e) {
    auto* m = as<BinaryExpr>(e);
    if (!m || m->op() != NodeKind::FloorMod || m->a.get() != v)
      return;
    auto k = asConstInt(m->b);
    if (k && *k >= minWidth && *k < extent && extent % *k == 0 && (best < 0 || *k < best))
      best = *k;
  });
  return best;
}

/// The innermost loop of a tile or row: vectorized, or unrolled when the
/// machine has no vector unit (its few scalars then live in registers).
void vectorizeOrUnroll(Schedule& s, const LoopRV& l, const SchedulePolicy& p) {
  if (p.vectorize)
    s.vectorize(l);
  else if (constExtent(s.loop(l)) > 0)
    s.unroll(l);
}

void scheduleSpatial(Schedule& s, const BlockRV& rv, const SchedulePolicy& p) {
  auto loops = ownLoops(s, rv);
  if (loops.empty())
    return;
  for (auto& l : loops)
    if (l.reduce)
      return;
  auto blk = s.block(rv);
  std::vector<LoopRV> outer;
  for (auto& l : loops)
    outer.push_back(l.rv);
  if (p.vectorize && contiguousLoop(blk.get(), loops) == static_cast<int>(loops.size()) - 1) {
    LoopRV inner = loops.back().rv;
    int64_t e = constExtent(loops.back().f);
    outer.pop_back();
    if (int64_t k = e > 0 ? flatRowWidth(blk.get(), e, p.minFlatRowWidth) : -1; k > 0) {
      auto parts = s.split(inner, {-1, k});
      outer.push_back(parts[0]);
      inner = parts[1];
    } else if (p.splitAbove > 0 && e > p.splitAbove && e % p.splitFactor == 0) {
      auto parts = s.split(inner, {-1, p.splitFactor});
      outer.push_back(parts[0]);
      inner = parts[1];
    }
    if (e != 1)
      s.vectorize(inner);
  }
  parallelizeOuter(s, outer, p);
}

/// Reads of `b` that depend on the iterator bound to loop x (through their
/// load indices), used to pick the unrolled loop.
bool goodUnrollLoop(const Block* b, const For* x, const For* u) {
  auto iterOf = [&](const For* f) -> std::vector<const PrimVar*> {
    std::vector<const PrimVar*> vs;
    for (size_t i = 0; i < b->iters.size(); ++i)
      if (schedule::detail::usesVar(b->bindings[i], f->var.get()))
        vs.push_back(b->iters[i].var.get());
    return vs;
  };
  auto xs = iterOf(x), us = iterOf(u);
  bool good = false;
  walkPrimExpr(as<BufferStore>(b->body)->value, [&](const PrimExpr& e) {
    auto* l = as<BufferLoad>(e);
    if (!l || l->buffer.get() == as<BufferStore>(b->body)->buffer.get())
      return;
    bool dx = false, du = false;
    for (auto& idx : l->indices) {
      dx = dx || schedule::detail::usesAnyVar(idx, xs);
      du = du || schedule::detail::usesAnyVar(idx, us);
    }
    good = good || (dx && !du);
  });
  return good;
}

int64_t largestDivisor(int64_t n, const std::vector<int>& options) {
  for (auto o : options)
    if (o <= n && n % o == 0)
      return o;
  return 1;
}

bool isSymbolic(const Ref<For>& f) { return !asConstInt(f->extent).has_value(); }

/// [packReusedInput] The input the tile reads along its columns: a load
/// X[.., v] of a parameter whose last index is the output's last index v
/// (and no other index uses v), e.g. B[k, j] of C[i, j], when every element
/// of it is reused by at least packMinReuse output rows (the constant
/// spatial loops the load does not depend on). Its name, or "".
std::string reusedInput(const Schedule& s, const BlockRV& rv, const std::vector<OwnLoop>& loops,
                        const SchedulePolicy& p) {
  auto blk = s.block(rv);
  auto* st = as<BufferStore>(blk->body);
  auto* v = as<PrimVar>(st->indices.back());
  if (!v)
    return "";
  std::string best;
  int64_t bestReuse = 0;
  walkPrimExpr(st->value, [&](const PrimExpr& e) {
    auto* l = as<BufferLoad>(e);
    if (!l || l->buffer.get() == st->buffer.get() || l->indices.size() < 2 ||
        l->indices.back().get() != v || !isParam(s.func(), l->buffer.get()))
      return;
    std::vector<const PrimVar*> used;
    for (size_t i = 0; i < blk->iters.size(); ++i)
      for (auto& idx : l->indices)
        if (schedule::detail::usesVar(idx, blk->iters[i].var.get()))
          used.push_back(blk->iters[i].var.get());
    for (size_t d = 0; d + 1 < l->indices.size(); ++d)
      if (schedule::detail::usesVar(l->indices[d], v))
        return;
    int64_t reuse = 1;
    for (auto& o : loops) {
      if (!o.spatial)
        continue;
      bool feedsRead = false;
      for (size_t i = 0; i < blk->iters.size(); ++i)
        if (schedule::detail::usesVar(blk->bindings[i], o.f->var.get()))
          for (auto* u : used)
            feedsRead = feedsRead || u == blk->iters[i].var.get();
      int64_t e = constExtent(o.f);
      if (feedsRead)
        continue;
      if (e < 0)
        return; // a symbolic row count: the reuse is unknown
      reuse *= e;
    }
    if (reuse > bestReuse) {
      best = l->buffer->name;
      bestReuse = reuse;
    }
  });
  return bestReuse >= p.packMinReuse ? best : "";
}

/// Packs `buffer` into panels of V for the scheduled block `rv`: the copy
/// goes into the outermost loop above the reduction whose iterations each
/// read one panel of their own, the panel index being the loop variable
/// (the column-tile loop x_o: each iteration, parallel or not, copies its
/// panel on its own thread right before using it; the lane loop
/// vectorized), else before everything (its own parallel, vectorized
/// nest). A refusal leaves the block unpacked.
void packReused(Schedule& s, const BlockRV& rv, const std::string& buffer, int64_t V,
                const SchedulePolicy& p) {
  auto blk = s.block(rv);
  for (auto& l : p.packInTileLoop ? s.getLoops(rv) : std::vector<LoopRV>{}) {
    auto f = s.loop(l);
    bool reduce = false;
    for (size_t i = 0; i < blk->iters.size(); ++i)
      reduce = reduce || (blk->iters[i].type == IterType::Reduce &&
                          schedule::detail::usesVar(blk->bindings[i], f->var.get()));
    if (reduce || f->forKind == ForKind::Vectorized)
      break;
    Schedule attempt = s;
    try {
      BlockRV pack = attempt.packLayout(rv, buffer, V, l);
      // Only where each iteration has a panel of its own (the panel index
      // is the loop itself): a loop fused from rows and columns would copy
      // a panel once per row tile.
      if (!sameNode(attempt.block(pack)->bindings[0], f->var))
        continue;
      auto own = ownLoops(attempt, pack);
      if (p.vectorize && !own.empty())
        attempt.vectorize(own.back().rv);
    } catch (const Error&) {
      continue;
    }
    s = attempt;
    return;
  }
  Schedule attempt = s;
  try {
    scheduleSpatial(attempt, attempt.packLayout(rv, buffer, V), p);
  } catch (const Error&) {
    return;
  }
  s = attempt;
}

/// The number of leading loops of `outer` (a tile's loops outside its
/// reduction, outermost first) that the tile's reused input depends on:
/// the parameter loads along the x loop (`x`: its index in `loops`) that
/// some outer loop does not feed. A reduction slice moved to this position
/// serves all the tiles of the loops after it. outer.size() when there is
/// no such input.
size_t hoistPoint(const Schedule& s, const BlockRV& rv, const std::vector<LoopRV>& outer, int x,
                  const std::vector<OwnLoop>& loops, std::string* input) {
  auto blk = s.block(rv);
  auto* st = as<BufferStore>(blk->body);
  auto itersOf = [&](const PrimVar* loopVar) {
    std::vector<const PrimVar*> vs;
    for (size_t i = 0; i < blk->iters.size(); ++i)
      if (schedule::detail::usesVar(blk->bindings[i], loopVar))
        vs.push_back(blk->iters[i].var.get());
    return vs;
  };
  auto xs = itersOf(loops[x].f->var.get());
  size_t best = outer.size();
  walkPrimExpr(st->value, [&](const PrimExpr& e) {
    auto* l = as<BufferLoad>(e);
    if (!l || l->buffer.get() == st->buffer.get() || !isParam(s.func(), l->buffer.get()))
      return;
    auto uses = [&](const std::vector<const PrimVar*>& vs) {
      for (auto& idx : l->indices)
        if (schedule::detail::usesAnyVar(idx, vs))
          return true;
      return false;
    };
    if (!uses(xs))
      return;
    size_t last = 0;
    bool skipsOne = false;
    for (size_t k = 0; k < outer.size(); ++k) {
      if (uses(itersOf(s.loop(outer[k])->var.get())))
        last = k + 1;
      else
        skipsOne = true;
    }
    if (skipsOne && last < best) {
      best = last;
      *input = l->buffer->name;
    }
  });
  return best;
}

/// Loops that an earlier symbolic-extent split (splitOffTail) already made
/// the outer halves of x and u: they take the places of x_o and u_o.
struct TileHints {
  LoopRV xo, uo;
};

void scheduleReduction(Schedule& s, const BlockRV& rv, const SchedulePolicy& p,
                       bool allowTail = true, TileHints hints = {}, int64_t xTailFactor = 0);

/// Symbolic extents (the sequence length): loop `l` of `rv` (one of its own
/// loops) is moved outermost among them and split by `factor` into a
/// predicate-free main nest and a tail loop (splitWithTail). The main block
/// is then scheduled again with the outer half standing for x_o (asX) or
/// u_o of the tile, so that the register tile of the static case applies
/// to it unchanged; the tail block (the last n % factor iterations) gets
/// the same rule without further tail splits, its own failure leaving it
/// as it is. A tail of x longer than one vector (factor > lanes: up to
/// maxTileVectors - 1 whole vectors and a partial one) is split once more
/// by one vector, so that its whole vectors get a register tile of one
/// vector by U rows and only the last n % lanes positions run untiled: at a
/// short symbolic width (W = 20 with 64-wide tiles) the tail is all there
/// is.
void splitOffTail(Schedule& s, const BlockRV& rv, const std::vector<OwnLoop>& loops, int l,
                  int64_t factor, bool asX, TileHints hints, const SchedulePolicy& p) {
  std::vector<LoopRV> order{loops[l].rv};
  for (size_t k = 0; k < loops.size(); ++k)
    if (static_cast<int>(k) != l)
      order.push_back(loops[k].rv);
  if (l != 0)
    s.reorder(order);
  auto parts = s.splitWithTail(loops[l].rv, factor);
  (asX ? hints.xo : hints.uo) = parts[0];
  scheduleReduction(s, rv, p, true, hints);
  if (parts.size() < 3)
    return;
  bool splitTailAgain = asX && factor > p.vectorLanes;
  for (auto& tb : s.getBlocksUnder(parts[2])) {
    Schedule attempt = s;
    try {
      scheduleReduction(attempt, tb, p, splitTailAgain, {}, p.vectorLanes);
    } catch (const Error&) {
      continue;
    }
    s = attempt;
  }
}

/// Whether a convolution's nest may be split between the threads by output
/// rows: several cores, and the outer loops in the order of the output's
/// first three dimensions (n, channel or channel block, row), as topi
/// writes an NCHW or blocked convolution. Why rows (partitionRows): a 1x1
/// projection reads every channel of its input; split by channels, each
/// thread reads all of it, half from the cache of the core that wrote it
/// (the depthwise layer before, itself split by channels) and got slower
/// on two threads than on one (MobileNetV2's 576 -> 96 at 14x14: 0.176 ms
/// on one thread, 0.187 on two). Split by rows in both kernels, each thread
/// reads the rows it wrote: 0.168 -> 0.119 ms on two threads. Expansions
/// (more outputs than inputs) keep the channel split: by rows, each thread
/// would read every weight (docs/benchmarks.md, "Session 12").
bool rowsFirst(const SchedulePolicy& p, const std::vector<LoopRV>& outer,
               const std::vector<OwnLoop>& loops, const std::vector<size_t>& spatial) {
  return p.partitionRows && p.parallelize && p.cores > 1 && outer.size() >= 3 &&
         spatial.size() >= 4 && sameNode(outer[0].var, loops[0].rv.var) &&
         sameNode(outer[1].var, loops[1].rv.var) && sameNode(outer[2].var, loops[2].rv.var);
}

/// A kept padding producer (inlineProducers) that the taps-inside
/// reduction rv reads moves under rv's outermost loop (the parallel one,
/// over channels): each iteration pads the plane it is about to read into a
/// buffer of one plane (StorageRewrite shrinks it), which stays in L1/L2,
/// instead of a full padded copy of the image written to memory and read
/// back. Its row loop is vectorized. Left as it was when computeAt refuses.
void padUnderConsumer(Schedule& s, const BlockRV& rv, const LoopRV& at, const SchedulePolicy& p) {
  auto blk = s.block(rv);
  for (auto& prv : s.getBlocks()) {
    auto pb = s.block(prv);
    auto* st = as<BufferStore>(pb->body);
    if (pb.get() == blk.get() || isReduction(pb.get()) || !st || !hasSelect(st->value) ||
        !readsBuffer(blk.get(), st->buffer.get()))
      continue;
    Schedule attempt = s;
    try {
      attempt.computeAt(prv, at);
      auto loops = ownLoops(attempt, prv);
      if (!loops.empty() &&
          contiguousLoop(attempt.block(prv).get(), loops) == static_cast<int>(loops.size()) - 1 &&
          constExtent(loops.back().f) != 1)
        vectorizeOrUnroll(attempt, loops.back().rv, p);
    } catch (const Error&) {
      continue;
    }
    s = attempt;
  }
}

/// A row reduction: one reduce loop, innermost, along which some input is
/// read contiguously (its last index is the reduction iterator, which no
/// other index uses), and no input that the reduction walks is read along
/// the output's contiguous loop x. Softmax's max and sum over the last
/// axis, layer norm's sums, a product with a transposed right-hand side.
/// The register tile of the rule below would vectorize x, reading those
/// inputs with a stride of a whole row in every lane (a gather).
bool rowReduction(const Block* b, const std::vector<OwnLoop>& loops,
                  const std::vector<size_t>& reduce) {
  if (reduce.size() != 1 || reduce[0] + 1 != loops.size())
    return false;
  auto* st = as<BufferStore>(b->body);
  auto itersOf = [&](const For* f) {
    std::vector<const PrimVar*> vs;
    for (size_t i = 0; i < b->iters.size(); ++i)
      if (schedule::detail::usesVar(b->bindings[i], f->var.get()))
        vs.push_back(b->iters[i].var.get());
    return vs;
  };
  auto rs = itersOf(loops.back().f.get());
  int x = contiguousLoop(b, loops);
  auto xs = x >= 0 ? itersOf(loops[x].f.get()) : std::vector<const PrimVar*>{};
  bool alongR = false, alongX = false;
  walkPrimExpr(st->value, [&](const PrimExpr& e) {
    auto* l = as<BufferLoad>(e);
    if (!l || l->buffer.get() == st->buffer.get() || l->indices.empty())
      return;
    bool walks = false;
    for (auto& idx : l->indices)
      walks = walks || schedule::detail::usesAnyVar(idx, rs);
    if (!walks)
      return;
    alongX = alongX || (!xs.empty() && schedule::detail::usesAnyVar(l->indices.back(), xs));
    auto* last = as<PrimVar>(l->indices.back());
    bool contiguous = last && std::find(rs.begin(), rs.end(), last) != rs.end();
    for (size_t d = 0; contiguous && d + 1 < l->indices.size(); ++d)
      contiguous = !schedule::detail::usesAnyVar(l->indices[d], rs);
    alongR = alongR || contiguous;
  });
  return alongR && !alongX;
}

/// [rowReductions] A row reduction (rowReduction) is factored along its
/// contiguous axis: the reduce loop k is split by one vector
/// (splitWithTail: k_o, k_i and, for a length that is not a multiple of it
/// (a symbolic sequence length), a tail), rfactor(k_i) gives each lane its
/// own partial result C_rf[.., k_i], summed over k_o with contiguous vector
/// loads (k_i vectorized, its init decomposed before k_o), and the
/// write-back folds the lanes into C under the row loop, where the tail
/// then adds the last elements. The row loops in front are fused and
/// parallel. Softmax over BERT's 4 x 128 x 128 scores on one thread:
/// 0.17 -> 0.046 ms (docs/benchmarks.md, "Session 14").
void scheduleRowReduction(Schedule& s, const BlockRV& rv, const std::vector<OwnLoop>& loops,
                          const SchedulePolicy& p) {
  const OwnLoop& r = loops.back();
  int64_t n = constExtent(r.f);
  if (n >= 0 && n < 2 * p.vectorLanes)
    throw Error("row reduction: " + std::to_string(n) + " elements fill less than two vectors");
  auto parts = s.splitWithTail(r.rv, p.vectorLanes);
  BlockRV rf = s.rfactor(parts[1], -1);
  BlockRV init = s.decomposeReduction(rf, parts[0]);
  s.vectorize(parts[1]);
  s.vectorize(s.getLoops(init).back());
  s.decomposeReduction(rv, s.getLoops(rv).back());
  std::vector<LoopRV> rows;
  for (size_t i = 0; i + 1 < loops.size(); ++i)
    rows.push_back(loops[i].rv);
  parallelizeOuter(s, rows, p);
}

void scheduleReduction(Schedule& s, const BlockRV& rv, const SchedulePolicy& p, bool allowTail,
                       TileHints hints, int64_t xTailFactor) {
  const int64_t lanes = p.vectorLanes, maxTile = p.maxTileVectors * lanes;
  auto loops = ownLoops(s, rv);
  auto blk = s.block(rv);
  if (loops.empty() || !as<BufferStore>(blk->body))
    return;
  std::vector<size_t> spatial, reduce;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].spatial && loops[i].reduce)
      return;
    (loops[i].reduce ? reduce : spatial).push_back(i);
  }
  if (reduce.empty())
    return;
  if (p.rowReductions && p.vectorize && allowTail && !hints.xo.var && !hints.uo.var &&
      rowReduction(blk.get(), loops, reduce)) {
    Schedule attempt = s;
    try {
      scheduleRowReduction(attempt, rv, loops, p);
      s = attempt;
      return;
    } catch (const Error&) {
      // too short, or a primitive refused: the register tile below
    }
  }
  int x = contiguousLoop(blk.get(), loops);
  int64_t ex = x >= 0 ? constExtent(loops[x].f) : -1;
  bool symX = x >= 0 && isSymbolic(loops[x].f);
  if (symX && allowTail)
    return splitOffTail(s, rv, loops, x, xTailFactor > 0 ? xTailFactor : maxTile, true, hints, p);
  if (symX)
    ex = maxTile; // a remainder: one vectorized loop, tiled as if a whole tile long
  if (x < 0 || ex < 2) {
    // No contiguous spatial loop to vectorize: keep the order, hoist the
    // init and parallelize the spatial loops in front of the reduction.
    s.decomposeReduction(rv, loops[reduce[0]].rv);
    std::vector<LoopRV> outer;
    for (size_t i = 0; i < reduce[0]; ++i)
      outer.push_back(loops[i].rv);
    parallelizeOuter(s, outer, p);
    return;
  }
  int u = -1;
  for (size_t k : spatial)
    if (static_cast<int>(k) != x && (constExtent(loops[k].f) >= 2 || isSymbolic(loops[k].f)) &&
        !sameNode(loops[k].rv.var, hints.xo.var) && !sameNode(loops[k].rv.var, hints.uo.var) &&
        goodUnrollLoop(blk.get(), loops[x].f.get(), loops[k].f.get()))
      u = static_cast<int>(k);
  // A symbolic u takes any U: the split leaves a tail (splitOffTail).
  bool symU = u >= 0 && isSymbolic(loops[u].f);

  // The tile: V positions along x (whole vectors), U rows along u, at most
  // p.accumulatorRegisters accumulators; the most accumulators wins (FMAs
  // per reduce step), then the fewest loads per step (V / lanes + U).
  int64_t eu = u >= 0 ? constExtent(loops[u].f) : 1;
  int64_t V = ex, U = 1, bestAcc = -1, bestLoads = 0;
  std::vector<int64_t> vs;
  if (ex <= maxTile)
    vs.push_back(ex);
  for (int64_t m = p.maxTileVectors; m >= 1; --m)
    if (m * lanes < ex && ex % (m * lanes) == 0)
      vs.push_back(m * lanes);
  if (vs.empty())
    vs.push_back(ex); // no whole-vector factor: vectorize the whole loop
  for (int64_t v : vs) {
    int64_t regs = (v + lanes - 1) / lanes;
    for (int64_t c : p.tileRows) {
      if (c * regs > p.accumulatorRegisters || (!symU && eu % c != 0) || (c > 1 && u < 0) ||
          (c > 1 && symU && !allowTail))
        continue;
      int64_t acc = c * regs, loads = regs + c;
      if (acc > bestAcc || (acc == bestAcc && loads < bestLoads)) {
        V = v;
        U = c;
        bestAcc = acc;
        bestLoads = loads;
      }
      break; // the largest fitting U for this V
    }
  }
  if (symU && U > 1)
    return splitOffTail(s, rv, loops, u, U, false, hints, p);
  std::string packed;
  if (p.packReusedInput && allowTail && !symX && !symU && !hints.xo.var && !hints.uo.var && V < ex)
    packed = reusedInput(s, rv, loops, p);
  LoopRV xo = hints.xo, xi = loops[x].rv, uo = hints.uo, ui;
  bool splitX = !symX && V<ex, splitU = U> 1 && U < constExtent(loops[u].f);
  if (splitX) {
    auto parts = s.split(loops[x].rv, {-1, V});
    xo = parts[0];
    xi = parts[1];
  }
  if (u >= 0) {
    if (splitU) {
      auto parts = s.split(loops[u].rv, {-1, U});
      uo = parts[0];
      ui = parts[1];
    } else if (U > 1) {
      ui = loops[u].rv;
    } else {
      uo = loops[u].rv;
    }
  }
  // A tile as wide as the whole row with nothing else to share between
  // the cores (a matrix-vector product: the classifier of a CNN, M = 1)
  // is cut into one chunk of columns per core, outermost and parallel;
  // otherwise it ran on one thread (MobileNetV2's 1280 -> 1000: 0.31 ms on
  // one thread, 0.26 on two).
  if (!splitX && !symX && !hints.xo.var && !hints.uo.var && p.parallelize && p.cores > 1 &&
      ex % p.cores == 0 && ex / p.cores >= 4 * lanes) {
    int64_t others = 1;
    for (size_t k : spatial)
      if (static_cast<int>(k) != x)
        others *= isSymbolic(loops[k].f) ? p.cores : std::max<int64_t>(1, constExtent(loops[k].f));
    if (others < p.cores) {
      auto parts = s.split(loops[x].rv, {p.cores, -1});
      xo = parts[0];
      xi = parts[1];
    }
  }
  std::vector<LoopRV> order, outer;
  for (size_t k : spatial)
    if (static_cast<int>(k) != x && static_cast<int>(k) != u &&
        !sameNode(loops[k].rv.var, hints.xo.var) && !sameNode(loops[k].rv.var, hints.uo.var))
      outer.push_back(loops[k].rv);
  if (hints.xo.var && splitX)
    outer.push_back(hints.xo);
  if (xo.var)
    outer.push_back(xo);
  if (uo.var)
    outer.push_back(uo);
  order = outer;
  std::vector<LoopRV> red;
  for (size_t k : reduce)
    red.push_back(loops[k].rv);
  // A few constant taps and no row tile (a depthwise convolution: ky, kx
  // and nothing else) go inside the vectorized x loop, unrolled: each
  // vector of outputs is summed over all taps in registers and stored
  // once, with constant tap offsets and no loop overhead.
  int64_t taps = 1;
  for (auto& l : red) {
    int64_t e = constExtent(s.loop(l));
    taps = e < 0 ? p.maxUnrolledTaps + 1 : taps * e;
  }
  bool tapsInside = red.size() > 1 && taps <= p.maxUnrolledTaps && !ui.var;
  // [partitionRows] A depthwise convolution whose rows divide evenly
  // between the cores runs one chunk of rows per core, outermost and
  // parallel, then its channels: [n, y_o (cores), c, y_i, x | taps], and
  // its padded copy is computed per chunk and channel (the rows of the
  // chunk and the halo, private to the iteration: StorageRewrite).
  int64_t rowsExt = spatial.size() == 4 ? constExtent(loops[2].f) : -1;
  bool dwRows = tapsInside && rowsFirst(p, outer, loops, spatial) && spatial.size() == 4 &&
                rowsExt > 0 && rowsExt % p.cores == 0 && rowsExt / p.cores >= 2;
  LoopRV rowChunk, chanLoop;
  if (dwRows) {
    chanLoop = outer[1];
    auto parts = s.split(outer[2], {p.cores, -1});
    rowChunk = parts[0];
    std::vector<LoopRV> o{outer[0], parts[0], outer[1], parts[1]};
    o.insert(o.end(), outer.begin() + 3, outer.end());
    order = o;
  }
  if (tapsInside) {
    order.push_back(xi);
    order.insert(order.end(), red.begin(), red.end());
    s.reorder(order);
    s.decomposeReduction(rv, red[0]);
    for (auto& l : red)
      s.unroll(l);
    vectorizeOrUnroll(s, xi, p);
    if (dwRows)
      s.parallel(s.fuse({outer[0], rowChunk}));
    else
      parallelizeOuter(s, outer, p);
    if (p.paddingAtConsumer && !outer.empty())
      padUnderConsumer(s, rv, dwRows ? chanLoop : s.getLoops(rv).front(), p);
    return;
  }
  // [partitionRows] A packed convolution that reduces more channels than
  // it outputs (a 1x1 projection after a depthwise layer) runs its rows
  // outermost, so the threads split it by output rows (see rowsFirst).
  if (rowsFirst(p, outer, loops, spatial) && spatial.size() == 5 && !reduce.empty() &&
      constExtent(loops[1].f) * constExtent(loops[4].f) < constExtent(loops[reduce[0]].f) &&
      constExtent(loops[2].f) >= p.parallelTarget()) {
    std::swap(outer[1], outer[2]);
    order = outer;
  }
  order.insert(order.end(), red.begin(), red.end());
  if (ui.var)
    order.push_back(ui);
  order.push_back(xi);
  s.reorder(order);
  // Several reduce loops (convolution: c, ky, kx) stay nested: fused, every
  // step would recompute the taps with a division and a modulo.
  LoopRV r = red[0];
  // A long reduction is cut so that the slice of the reused input (B's
  // rows k_o*Kt .. +Kt of the V columns) stays in L2 across all u_o tiles:
  // r_o moves out of u_o. Unsplit, the K x V panel of a large matrix
  // (rows a power-of-two stride apart) thrashes the cache.
  // Not when the loops outside u_o leave fewer iterations than cores (a
  // 1x1 convolution over a 7x7 image is one x tile): the parallel loop
  // would give the other cores nothing to do, and 2 threads would run
  // slower than 1; u_o then stays outside the reduction and is parallel.
  int64_t er = constExtent(s.loop(r));
  int64_t outside = 1;
  for (size_t k = 0; k + 1 < outer.size(); ++k) {
    int64_t e = constExtent(s.loop(outer[k]));
    outside = e < 0 ? p.cores : outside * e; // a symbolic extent counts as many
  }
  bool keepParallel = p.parallelize && p.cores > 1 && outside < p.cores;
  if (red.size() == 1 && p.reduceSplitAbove > 0 && er > p.reduceSplitAbove && uo.var &&
      !keepParallel) {
    int64_t kt = largestDivisor(er, p.reduceTileCandidates);
    if (kt > 1 && kt < er) {
      auto parts = s.split(r, {-1, kt});
      s.reorder({parts[0], uo});
      r = parts[0];
      outer.pop_back(); // u_o is now inside r_o
    }
  } else if ((red.size() > 1 || (ui.var && !uo.var)) && p.reduceSplitAbove > 0 && !hints.xo.var &&
             !hints.uo.var) {
    // Several reduce loops (a convolution's channels and taps), or one
    // under a row tile unrolled whole (a packed 1x1 convolution over a 7 or
    // 14 wide image), whose reused input (the one read along x: a packed
    // weight) does not depend on some outer tile loops (the output rows):
    // every tile of those loops reads the whole K x V slice again, which
    // for a deep layer (512 channels x 9 taps x 32 lanes: 590 KB) does not
    // stay in L2, and for a 960-channel 1x1 (123 KB) not in L1. The
    // channel loop is cut so one slice (Kt x taps x V floats, at most
    // [reduceSliceBytes], in L1) serves all those tiles: its outer part
    // moves out of them.
    std::string input;
    size_t keep = hoistPoint(s, rv, outer, x, loops, &input);
    int64_t steps = 1;
    for (size_t k = 1; k < red.size(); ++k)
      steps *= std::max<int64_t>(1, constExtent(s.loop(red[k])));
    int64_t bytes = steps * V * 4;
    int64_t kt = std::min<int64_t>(er - 1, p.reduceSliceBytes / bytes);
    while (kt > 1 && er % kt != 0)
      --kt;
    if (keep < outer.size() && er * bytes > p.reduceSliceBytes && kt > 1 &&
        !(p.parallelize && p.cores > 1 && keep == 0)) {
      auto parts = s.split(r, {-1, kt});
      std::vector<LoopRV> moved{parts[0]};
      moved.insert(moved.end(), outer.begin() + keep, outer.end());
      s.reorder(moved);
      r = parts[0];
      outer.resize(keep);
      // The next slice is fetched while the row tiles reuse this one
      // (InjectPrefetch) [prefetchSlices].
      if (p.prefetchSlices)
        s.annotate(r, kPrefetchNextAnnotation, input);
    }
  }
  BlockRV init = s.decomposeReduction(rv, r);
  if (ui.var)
    s.unroll(ui);
  vectorizeOrUnroll(s, xi, p);
  auto initLoops = s.getLoops(init);
  if (p.vectorize && !initLoops.empty() && initLoops.size() > outer.size())
    s.vectorize(initLoops.back());
  parallelizeOuter(s, outer, p);
  if (!packed.empty())
    packReused(s, rv, packed, V, p);
}

/// Rule 3: moves a consumer of a scheduled reduction under the
/// reduction's innermost loop outside its reduce loops (or, failing that,
/// the next loop out). False when nothing moved.
bool fuseEpilogue(Schedule& s, const BlockRV& rv, const SchedulePolicy& p) {
  auto blk = s.block(rv);
  if (!as<BufferStore>(blk->body) || isReduction(blk.get()))
    return false;
  const Block* prod = nullptr;
  for (auto* b : schedule::detail::blocksUnder(s.func()->body)) {
    auto* st = as<BufferStore>(b->body);
    if (b != blk.get() && st && isReduction(b) && !isParam(s.func(), st->buffer.get()) &&
        readsBuffer(blk.get(), st->buffer.get()))
      prod = b;
  }
  if (!prod)
    return false;
  auto loops = s.getLoops(BlockRV{prod->name});
  size_t r0 = loops.size();
  for (size_t i = 0; i < loops.size() && r0 == loops.size(); ++i)
    for (size_t k = 0; k < prod->iters.size(); ++k)
      if (prod->iters[k].type == IterType::Reduce &&
          schedule::detail::usesVar(prod->bindings[k], loops[i].var.get()))
        r0 = i;
  for (size_t i = r0; i-- > 0;) {
    Schedule attempt = s;
    try {
      attempt.reverseComputeAt(rv, loops[i]);
    } catch (const Error&) {
      continue;
    }
    auto own = ownLoops(attempt, rv);
    auto moved = attempt.block(rv);
    if (own.empty())
      return false;
    // The wide convolution's crop walks the tile's flat positions
    // (y, x) = (p / Wq, p % Wq): a division and a scattered store per
    // output. It keeps its own nest after a short reduction
    // [flatEpilogueMinReduction] (the walk costs more than the pass it
    // saves: examples/cnn.uir 1.5x slower) and when the tile is narrower
    // than one image row, which writes each output row in pieces from
    // tiles far apart in time (ResNet 64 x 56 x 56: 0.90x). A walk that
    // drops no column (Wq = OW: an unpadded 1x1 convolution reading the
    // image directly) stores contiguously and moves whatever the
    // reduction: MobileNetV2's 24x56x56 -> 144 went from 68-70 to 100-108
    // GFLOP/s (bench_kernels, interleaved).
    int64_t e = constExtent(own.back().f);
    bool narrow = false, flat = false, cropped = false;
    const PrimVar* walk = own.back().f->var.get();
    for (size_t j = 0; j < moved->bindings.size(); ++j)
      walkPrimExpr(moved->bindings[j], [&](const PrimExpr& x) {
        auto* m = as<BinaryExpr>(x);
        int64_t k = 0; // the modulus of a FloorMod over the walk, else 0
        if (m && m->op() == NodeKind::FloorMod && schedule::detail::usesVar(m->a, walk))
          k = asConstInt(m->b).value_or(0);
        narrow = narrow || (k && e < k);
        flat = flat || k;
        // The walk drops columns (x = p % Wq < OW) unless the row it walks
        // is exactly the output's: then y * OW + x is p itself and the
        // stores are contiguous (an unpadded 1x1 convolution read directly).
        cropped = cropped || (k && asConstInt(moved->iters[j].dom.extent) != k);
      });
    int64_t macs = 1;
    for (size_t k = 0; k < prod->iters.size(); ++k)
      if (prod->iters[k].type == IterType::Reduce)
        macs *= asConstInt(prod->iters[k].dom.extent).value_or(1 << 20);
    if (narrow || (flat && cropped && macs < p.flatEpilogueMinReduction))
      return false;
    // The innermost loop: along the stored buffer's last index, or over
    // the flat positions (contiguous reads of the tile; the stores follow
    // the rows).
    bool contiguous = contiguousLoop(moved.get(), own) == static_cast<int>(own.size()) - 1;
    // A consumer that reads the tile transposed (Winograd's NHWC result
    // read back into NCHW) moves with one position of its stored rows per
    // tile step: its loop along them has extent 1 and every other loop
    // stores a whole row apart, a scalar store each. It keeps its own
    // nest, vectorized along its rows (a gather from the temporary per
    // vector): ResNet-18's 64x56x56 Winograd layer with its bias, residual
    // and relu 0.75 -> 0.56 ms (docs/benchmarks.md, "Session 19").
    bool scalarRows = false;
    for (auto& l : own)
      scalarRows = scalarRows || constExtent(l.f) != 1;
    if (p.vectorize && contiguous && e == 1 && scalarRows)
      return false;
    LoopRV inner = own.back().rv;
    if (p.vectorize && contiguous && e > 0 && e < p.vectorLanes && own.size() >= 2)
      if (auto rows = wholeRows(moved.get(), own); rows > 1) {
        // Rows shorter than a vector that the tile covers whole (a 7x7
        // image under one tile of a blocked 1x1 convolution): one loop over
        // the y * W + x positions, so the vector runs across rows (49 =
        // 3 x 16 + 1) instead of 7 of 16 lanes per row.
        inner = attempt.fuse({own[own.size() - 2].rv, own.back().rv});
        e *= rows;
      }
    if (p.vectorize && e != 1 && (moved->predicate || contiguous))
      attempt.vectorize(inner);
    s = attempt;
    return true;
  }
  return false;
}

} // namespace

Schedule scheduleWithPolicy(const PrimFuncRef& f, const SchedulePolicy& policy) {
  Schedule s(f);
  if (s.getBlocks().empty())
    return s;
  inlineProducers(s, policy);
  for (auto& rv : s.getBlocks()) {
    Schedule attempt = s;
    try {
      if (isReduction(attempt.block(rv).get()))
        scheduleReduction(attempt, rv, policy);
      else if (!policy.fuseEpilogues || !fuseEpilogue(attempt, rv, policy))
        scheduleSpatial(attempt, rv, policy);
    } catch (const Error&) {
      continue; // this block keeps its loops (see the file comment)
    }
    s = attempt;
  }
  return s;
}

PrimFuncRef defaultSchedule(const PrimFuncRef& f, const SchedulePolicy& policy) {
  if (!f || f->attrs.has("tuned"))
    return f;
  Schedule s = scheduleWithPolicy(f, policy);
  return sameNode(s.func(), f) ? f : s.func();
}

SchedulePolicy schedulePolicyFor(const target::Target& t, const Attrs& config) {
  SchedulePolicy p = SchedulePolicy::forMachine(target::machineModel(t));
  if (config.has("tir.num_cores"))
    p.cores = static_cast<int>(std::max<int64_t>(1, config.getInt("tir.num_cores", 1)));
  if (auto json = config.getString("tir.schedule_policy"); !json.empty())
    p = p.withJSON(json);
  return p;
}

namespace {
/// Each PrimFunc of m scheduled with policyOf(its name).
template <typename F> IRModule scheduleModule(const IRModule& m, F&& policyOf) {
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, fn] : m->functions) {
    BaseFunc nf = fn;
    if (auto pf = cast<PrimFunc>(fn))
      nf = defaultSchedule(pf, policyOf(name));
    changed = changed || !sameNode(nf, fn);
    out.emplace_back(name, nf);
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}
} // namespace

IRModule defaultSchedule(const IRModule& m, const Attrs& config) {
  auto targets = primFuncTargets(m);
  std::map<std::string, SchedulePolicy> policies; // by target string: one model per target
  return scheduleModule(m, [&](const std::string& name) -> const SchedulePolicy& {
    const target::Target& t = targets.at(name);
    auto it = policies.find(t.str());
    if (it == policies.end())
      it = policies.emplace(t.str(), schedulePolicyFor(t, config)).first;
    return it->second;
  });
}

IRModule defaultSchedule(const IRModule& m, const SchedulePolicy& policy) {
  return scheduleModule(m, [&](const std::string&) -> const SchedulePolicy& { return policy; });
}

PassRef defaultSchedulePass() {
  return makePass(
      {"DefaultSchedule", PassLevel::Tensor, 1, {}},
      [](const IRModule& m, PassContext& ctx) { return defaultSchedule(m, ctx.config); });
}

} // namespace unity::transform
