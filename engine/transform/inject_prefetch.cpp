#include "engine/transform/inject_prefetch.h"

#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/ir/structural.h"

namespace unity::transform {

using namespace ir;

namespace {

constexpr int64_t kCacheLineBytes = 64;

struct Injector : StmtMutator {
  struct Slice {
    const PrimVar* var;
    PrimExpr next; // min(var + 1, last)
    std::string buffer;
  };
  std::vector<Slice> slices;     // the annotated loops around the current point
  std::vector<const For*> inner; // loops inside the innermost annotated one

  /// The prefetches for a register tile rooted at `tile` (a loop): one per
  /// distinct cache line of the loads of the annotated buffer in it.
  std::vector<Stmt> prefetches(const Stmt& tile, const Slice& sl) {
    std::vector<const BufferLoad*> loads;
    std::unordered_map<const PrimVar*, const For*> tileLoops;
    walkStmt(tile, [&](const Stmt& s) {
      if (auto* f = as<For>(s))
        tileLoops[f->var.get()] = f;
      auto visitExpr = [&](const PrimExpr& e) {
        walkPrimExpr(e, [&](const PrimExpr& x) {
          if (auto* l = as<BufferLoad>(x); l && l->buffer->name == sl.buffer)
            loads.push_back(l);
        });
      };
      if (auto* st = as<BufferStore>(s)) {
        visitExpr(st->value);
        for (auto& i : st->indices)
          visitExpr(i);
      }
    });
    std::vector<Stmt> out;
    std::vector<PrimExpr> seen;
    for (auto* l : loads) {
      // The loops of the tile: vectorized ones walk whole cache lines,
      // others take their first iteration.
      std::vector<std::unordered_map<const PrimVar*, PrimExpr>> points{{{sl.var, sl.next}}};
      for (auto& [v, f] : tileLoops) {
        bool used = false;
        for (auto& i : l->indices)
          walkPrimExpr(i, [&, v = v](const PrimExpr& x) { used = used || x.get() == v; });
        if (!used)
          continue;
        int64_t step = kCacheLineBytes / std::max<int64_t>(1, l->buffer->dtype.bytes());
        auto ext = asConstInt(f->extent);
        std::vector<PrimExpr> values{f->min};
        if (f->forKind == ForKind::Vectorized && ext)
          for (int64_t k = step; k < *ext; k += step)
            values.push_back(arith::simplify(f->min + intImm(k)));
        std::vector<std::unordered_map<const PrimVar*, PrimExpr>> more;
        for (auto& p : points)
          for (auto& val : values) {
            auto q = p;
            q[v] = val;
            more.push_back(q);
          }
        points = std::move(more);
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
      Stmt body = mutate(op->body);
      slices.pop_back();
      return make<For>(op->var, op->min, op->extent, op->forKind, body,
                       op->annotations.without(kPrefetchNextAnnotation));
    }
    bool tile = op->forKind == ForKind::Unrolled || op->forKind == ForKind::Vectorized;
    if (slices.empty() || !tile)
      return StmtMutator::visitFor(op, self);
    std::vector<Stmt> seq = prefetches(self, slices.back());
    if (seq.empty())
      return self;
    seq.push_back(self);
    return seqStmt(std::move(seq));
  }
};

} // namespace

PrimFuncRef injectPrefetch(const PrimFuncRef& f) {
  Injector inj;
  return mutatePrimFunc(inj, f);
}

} // namespace unity::transform
