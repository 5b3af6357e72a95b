#include "engine/transform/inject_prefetch.h"

#include <unordered_map>
#include <vector>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule_internal.h"

namespace unity::transform {

using namespace ir;
using schedule::detail::usesVar;

namespace {

constexpr int64_t kCacheLineBytes = 64;
/// At most this many prefetch statements for one anchor loop iteration;
/// more and the anchor gets none (its loads are not a compact slice).
constexpr size_t kMaxPrefetches = 64;

/// The loads of buffer `name` in s, with the loops of s (in walk order, so
/// the prefetches come out in the same order on every build).
void collect(const Stmt& s, const std::string& name, std::vector<const BufferLoad*>& loads,
             std::vector<const For*>& loops) {
  walkStmt(s, [&](const Stmt& x) {
    if (auto* f = as<For>(x))
      loops.push_back(f);
    auto visitExpr = [&](const PrimExpr& e) {
      walkPrimExpr(e, [&](const PrimExpr& y) {
        if (auto* l = as<BufferLoad>(y); l && l->buffer->name == name)
          loads.push_back(l);
      });
    };
    if (auto* st = as<BufferStore>(x)) {
      visitExpr(st->value);
      for (auto& i : st->indices)
        visitExpr(i);
    }
  });
}

struct Injector : StmtMutator {
  struct Slice {
    const PrimVar* var;
    PrimExpr next; // min(var + 1, last)
    std::string buffer;
    bool anchored = false; // a loop inside already got the prefetches
  };
  std::vector<Slice> slices;       // the annotated loops around the current point
  std::vector<const For*> between; // loops between the innermost one and this point

  /// One prefetch per distinct cache line that the loads of the slice's
  /// buffer in `body` read over all iterations of the loops in it, with the
  /// slice variable advanced; empty when they do not form a compact slice
  /// (a symbolic inner loop, too many lines).
  std::vector<Stmt> prefetches(const Stmt& body, const Slice& sl) {
    std::vector<const BufferLoad*> loads;
    std::vector<const For*> loops;
    collect(body, sl.buffer, loads, loops);
    std::vector<Stmt> out;
    std::vector<PrimExpr> seen;
    for (auto* l : loads) {
      std::vector<std::unordered_map<const PrimVar*, PrimExpr>> points{{{sl.var, sl.next}}};
      int64_t step = kCacheLineBytes / std::max<int64_t>(1, l->buffer->dtype.bytes());
      for (const For* f : loops) {
        const PrimVar* v = f->var.get();
        bool used = false;
        for (auto& i : l->indices)
          used = used || usesVar(i, v);
        if (!used)
          continue;
        auto ext = asConstInt(f->extent);
        if (!ext)
          return {};
        // The innermost index runs along a cache line: one element per
        // line of the vectorized loop; every iteration of the others.
        int64_t stride = f->forKind == ForKind::Vectorized ? step : 1;
        std::vector<std::unordered_map<const PrimVar*, PrimExpr>> more;
        for (auto& p : points)
          for (int64_t k = 0; k < *ext; k += stride) {
            auto q = p;
            q[v] = arith::simplify(f->min + intImm(k, f->var->dtype));
            more.push_back(q);
          }
        points = std::move(more);
        if (points.size() > kMaxPrefetches)
          return {};
      }
      for (auto& p : points) {
        std::vector<PrimExpr> idx;
        for (auto& i : l->indices)
          idx.push_back(arith::simplify(substitute(i, p)));
        PrimExpr load = make<BufferLoad>(l->buffer, idx);
        bool dup = false;
        for (auto& x : seen)
          dup = dup || structuralEqual(x, load);
        if (dup)
          continue;
        seen.push_back(load);
        out.push_back(make<Evaluate>(
            make<PrimCall>(DataType::Int32(), kPrefetchIntrinsic, std::vector<PrimExpr>{load})));
        if (out.size() > kMaxPrefetches)
          return {};
      }
    }
    return out;
  }

  Stmt visitFor(const For* op, const Stmt& self) override {
    std::string buf = op->annotations.getString(kPrefetchNextAnnotation);
    if (!buf.empty()) {
      PrimExpr last = arith::simplify(op->min + op->extent - intImm(1, op->extent->dtype));
      slices.push_back(
          {op->var.get(), min(PrimExpr(op->var) + intImm(1, op->var->dtype), last), buf});
      auto outer = std::move(between);
      between.clear();
      Stmt body = mutate(op->body);
      between = std::move(outer);
      slices.pop_back();
      return make<For>(op->var, op->min, op->extent, op->forKind, body,
                       op->annotations.without(kPrefetchNextAnnotation));
    }
    if (slices.empty() || slices.back().anchored)
      return StmtMutator::visitFor(op, self);
    Slice& sl = slices.back();
    // The anchor: the outermost loop under the slice loop that the loads'
    // addresses depend on (the slice's channels). Its body starts with the
    // prefetches of everything one of its iterations reads in the next
    // slice, outside the loops of the register tile, so their code stays
    // free of branches.
    std::vector<const BufferLoad*> loads;
    std::vector<const For*> loops;
    collect(op->body, sl.buffer, loads, loops);
    bool anchor = false;
    for (auto* l : loads)
      for (auto& i : l->indices)
        anchor = anchor || usesVar(i, op->var.get());
    if (!anchor) {
      between.push_back(op);
      Stmt out = StmtMutator::visitFor(op, self);
      between.pop_back();
      return out;
    }
    std::vector<Stmt> seq = prefetches(op->body, sl);
    sl.anchored = true;
    Stmt body = mutate(op->body);
    sl.anchored = false;
    if (seq.empty())
      return sameNode(body, op->body)
                 ? self
                 : make<For>(op->var, op->min, op->extent, op->forKind, body, op->annotations);
    // The loops in between (the output rows, which all read the same slice)
    // take turns: row r prefetches the anchor iterations that are r modulo
    // the row count, so the lines are asked for at an even pace over the
    // rows instead of in one burst; further such loops (column tiles) only
    // in their first iteration.
    PrimExpr cond;
    for (size_t k = 0; k < between.size(); ++k) {
      const For* f = between[k];
      PrimExpr c = eq(f->var, f->min);
      auto rows = asConstInt(f->extent);
      if (k == 0 && rows && *rows > 1)
        c = eq(floormod(op->var - op->min, intImm(*rows, op->var->dtype)), f->var - f->min);
      cond = cond ? logicalAnd(cond, c) : c;
    }
    Stmt fetch = seqStmt(std::move(seq));
    if (cond)
      fetch = make<IfThenElse>(cond, fetch);
    return make<For>(op->var, op->min, op->extent, op->forKind, seqStmt({fetch, body}),
                     op->annotations);
  }
};

} // namespace

PrimFuncRef injectPrefetch(const PrimFuncRef& f) {
  Injector inj;
  return mutatePrimFunc(inj, f);
}

} // namespace unity::transform
