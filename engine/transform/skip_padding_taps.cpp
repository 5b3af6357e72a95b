// SkipPaddingTaps: the multiply-adds of a convolution (or a pooling sum)
// whose image value falls in the zero padding are not executed.
//
// Why. A padded convolution reads a materialized copy P whose border is
// zero: for a 3x3 kernel with padding 1 over a 7x7 image, 2 of every 21 row
// taps and 2 of every 21 column taps read such a zero, so 18 % of the
// multiply-adds add 0. Those are pure waste once the kernel runs at the
// FMA peak (docs/benchmarks.md, session 16: the padded ResNet rows at
// 97-98 % of the peak stayed at 89-95 % of oneDNN, which skips them; the
// same layers without padding ran at 100-106 % of oneDNN).
//
// What counts as zero. An allocated buffer P with exactly one store,
//   P[v0, ..., vn] = Select(cond(v), X, 0.0)
// where each index is the variable of an enclosing loop that runs over the
// whole dimension (or a constant 0 in a dimension of size 1), so each run
// of that nest writes all of P and P[j] == 0 wherever cond(j) is false.
//
// What may be skipped. A loop L whose body is a chain of loops ending in
// one accumulation A[I] = A[I] + P[E] * w (or w * P[E], or P[E] alone): an
// iteration of L in which cond(E) is false for every iteration of the loops
// inside L adds zero to A and is dropped. For a conjunct of cond(E) that is
// c*l + r >= 0 (or <, <=, >), c = +-1 and r free of the inner loops' and
// of L's variable, L's range becomes [max(min, lo(r)), min(end, hi(r))).
// The sum's remaining terms keep their order, so results are bit-identical
// except where a weight is inf or NaN (0 * inf is NaN; oneDNN skips these
// taps as well).
//
// Making the bounds constant. r depends on outer loop variables (the
// output row y for the row taps ky: ky >= 1 - y). When it depends on one
// enclosing serial loop o of constant range, the pass evaluates the narrowed
// range for every value of o, groups equal ones into segments (rows 0,
// 1..OH-2 and OH-1 for a 3x3 kernel) and cuts o into one loop per segment,
// each a fresh copy of o's body in which L has constant bounds. At most
// kMaxSegments segments; a parallel or vectorized o is never cut (a loop
// with runtime bounds would keep LLVM from holding the accumulators in
// registers across it, and a cut parallel loop would start several
// parallel regions), nor is a loop with more than kMaxEvaluated iterations
// evaluated.
//
// Columns. The column taps kx sit outside the unrolled output columns u
// (the register tile), and their conjunct u + kx - 1 >= 0 involves both. A
// tap loop of at most kMaxPeel iterations with such a conjunct (one inner
// chain loop, affine in it) is peeled into one copy per tap value;
// then the conjunct bounds u alone in each copy (u in [1, 7) for kx = 0),
// and the rule above narrows u (cutting the column-tile loop when the tile
// is narrower than the row). Narrowing is preferred to peeling, so the row
// taps are narrowed before their body becomes a sequence of copies.
//
// What pays. Each cut copies a loop body and each peel unrolls one, so
// code grows (a 28x28 layer cut in rows, column tiles and peeled taps had
// 27 copies of its register tile and took 10x as long in LLVM, 85 -> 878
// ms) while the share of skipped work shrinks with the image (2/(3 H) of
// the row taps). A step is taken only when it drops at least
// kMinSkippedShare (4 %) of the iterations it rewrites: 7x7 and 14x14
// layers (9.5 and 4.8 % of their row taps) are cut, 28x28 and larger are
// left as they were.
//
// The function is simplified after each step (loop ranges bound), which
// folds the max/min of the new bounds in each segment to constants.
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/int_eval.h"
#include "engine/ir/structural.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"
#include "engine/transform/fresh_copy.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;
using schedule::detail::usesAnyVar;
using schedule::detail::usesVar;

namespace {

constexpr int kMaxSegments = 8;
constexpr int64_t kMaxEvaluated = 4096;
constexpr int64_t kMaxPeel = 8;
constexpr int kMaxSteps = 64;
constexpr double kMinSkippedShare = 0.04;

/// A buffer known to be zero wherever `cond` is false; cond is over `dims`
/// (the store's index variable per dimension, null for a constant index).
struct ZeroPadded {
  PrimExpr cond;
  std::vector<const PrimVar*> dims;
};

bool isZeroFloat(const PrimExpr& e) {
  auto* f = as<FloatImm>(e);
  return f && f->value == 0.0;
}

std::vector<const PrimVar*> varsOf(const PrimExpr& e) {
  std::vector<const PrimVar*> out;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* v = as<PrimVar>(x))
      if (std::find(out.begin(), out.end(), v) == out.end())
        out.push_back(v);
  });
  return out;
}

/// The buffers of f that the rule in the header calls zero-padded.
std::unordered_map<const Buffer*, ZeroPadded> zeroPaddedBuffers(const PrimFunc& f) {
  struct Collector : StmtVisitor {
    std::unordered_set<const Buffer*> allocated;
    std::unordered_map<const Buffer*, int> stores;
    std::unordered_map<const Buffer*, ZeroPadded> found;
    std::vector<const For*> loops;
    int conditional = 0; // enclosing IfThenElse statements
    using StmtVisitor::visit;
    void visit(const Stmt& s) override {
      if (auto* a = as<Allocate>(s))
        allocated.insert(a->buffer.get());
      if (isa<IfThenElse>(s)) {
        ++conditional;
        StmtVisitor::visit(s);
        --conditional;
        return;
      }
      if (auto* l = as<For>(s)) {
        loops.push_back(l);
        StmtVisitor::visit(s);
        loops.pop_back();
        return;
      }
      if (auto* st = as<BufferStore>(s)) {
        ++stores[st->buffer.get()];
        if (auto z = candidate(st))
          found[st->buffer.get()] = *z;
      }
      StmtVisitor::visit(s);
    }
    std::optional<ZeroPadded> candidate(const BufferStore* st) {
      auto* sel = as<Select>(st->value);
      const Buffer& b = *st->buffer;
      // Under an if, the nest may not write all of P.
      if (!sel || conditional || !isZeroFloat(sel->f) || !b.dtype.isFloat() ||
          st->indices.size() != b.shape.size())
        return std::nullopt;
      ZeroPadded z{sel->cond, {}};
      for (size_t d = 0; d < st->indices.size(); ++d) {
        auto dim = asConstInt(b.shape[d]);
        if (!dim)
          return std::nullopt;
        const PrimExpr& ix = st->indices[d];
        if (auto c = asConstInt(ix)) {
          if (*c != 0 || *dim != 1)
            return std::nullopt;
          z.dims.push_back(nullptr);
          continue;
        }
        auto* v = as<PrimVar>(ix);
        const For* loop = nullptr;
        for (const For* l : loops)
          if (v && l->var.get() == v)
            loop = l;
        if (!loop || asConstInt(loop->min).value_or(-1) != 0 ||
            asConstInt(loop->extent).value_or(-1) != *dim ||
            std::find(z.dims.begin(), z.dims.end(), v) != z.dims.end())
          return std::nullopt;
        z.dims.push_back(v);
      }
      for (const PrimVar* v : varsOf(sel->cond))
        if (std::find(z.dims.begin(), z.dims.end(), v) == z.dims.end())
          return std::nullopt;
      return z;
    }
  } c;
  c.visit(f.body);
  std::unordered_map<const Buffer*, ZeroPadded> out;
  for (auto& [b, z] : c.found)
    if (c.allocated.count(b) && c.stores[b] == 1)
      out[b] = z;
  return out;
}

/// The padded read of an accumulation A[I] = A[I] + P[E] (* w), or null.
const BufferLoad* paddedRead(const BufferStore& st,
                             const std::unordered_map<const Buffer*, ZeroPadded>& zp) {
  auto* add = as<BinaryExpr>(st.value);
  if (!add || add->op() != NodeKind::Add || !st.buffer->dtype.isFloat())
    return nullptr;
  auto* acc = as<BufferLoad>(add->a);
  if (!acc || acc->buffer.get() != st.buffer.get() || acc->indices.size() != st.indices.size())
    return nullptr;
  for (size_t i = 0; i < st.indices.size(); ++i)
    if (!structuralEqual(acc->indices[i], st.indices[i]))
      return nullptr;
  auto padded = [&](const PrimExpr& e) -> const BufferLoad* {
    auto* l = as<BufferLoad>(e);
    return l && zp.count(l->buffer.get()) ? l : nullptr;
  };
  if (auto* l = padded(add->b))
    return l;
  if (auto* m = as<BinaryExpr>(add->b); m && m->op() == NodeKind::Mul) {
    if (auto* l = padded(m->a))
      return l;
    return padded(m->b);
  }
  return nullptr;
}

/// The conjuncts of the condition under which the value P[E] may be nonzero.
std::vector<PrimExpr> readConjuncts(const BufferLoad& load, const ZeroPadded& z) {
  std::unordered_map<const PrimVar*, PrimExpr> map;
  for (size_t d = 0; d < z.dims.size(); ++d)
    if (z.dims[d])
      map[z.dims[d]] = load.indices[d];
  std::vector<PrimExpr> out, todo{substitute(z.cond, map)};
  while (!todo.empty()) {
    PrimExpr c = todo.back();
    todo.pop_back();
    if (auto* a = as<BinaryExpr>(c); a && a->op() == NodeKind::And) {
      todo.push_back(a->a);
      todo.push_back(a->b);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// A comparison as d >= 0, or null when it is not an integer inequality.
PrimExpr asNonNegative(const PrimExpr& cmp) {
  auto* b = as<BinaryExpr>(cmp);
  if (!b || !b->a->dtype.isInt())
    return PrimExpr();
  PrimExpr one = makeConst(b->a->dtype, 1);
  switch (b->op()) {
  case NodeKind::GE:
    return b->a - b->b;
  case NodeKind::GT:
    return b->a - b->b - one;
  case NodeKind::LE:
    return b->b - b->a;
  case NodeKind::LT:
    return b->b - b->a - one;
  default:
    return PrimExpr();
  }
}

/// The coefficient of v in d when d is affine in v (c*v + terms free of
/// v, c a nonzero constant), found as d(v + 1) - d(v); 0 when d does not
/// use v; nullopt otherwise.
std::optional<int64_t> affineCoef(const PrimExpr& d, const Ref<PrimVar>& v) {
  if (!usesVar(d, v.get()))
    return 0;
  PrimExpr step =
      arith::simplify(substitute(d, {{v.get(), PrimExpr(v) + makeConst(v->dtype, 1)}}) - d);
  auto c = asConstInt(step);
  if (!c || *c == 0)
    return std::nullopt;
  PrimExpr rest = arith::simplify(d - makeConst(v->dtype, double(*c)) * PrimExpr(v));
  if (usesVar(rest, v.get()))
    return std::nullopt;
  return c;
}

/// A conjunct k*l + rest >= 0 on the loop variable l.
struct Bound {
  int64_t k;
  PrimExpr rest;
};

/// One rewrite the pass can make.
struct Step {
  enum Kind { None, Narrow, Cut, Peel } kind = None;
  const For* loop = nullptr;  // L (Narrow, Cut) or the loop to peel
  const For* outer = nullptr; // o (Cut)
  struct Segment {
    int64_t from, to, lo, hi; // o in [from, to): L in [lo, hi)
  };
  std::vector<Segment> segments; // Cut; Narrow: one, with from = to = 0
};

class Finder : public StmtVisitor {
public:
  explicit Finder(const std::unordered_map<const Buffer*, ZeroPadded>& zp) : zp_(zp) {}
  Step narrow, peel;

  using StmtVisitor::visit;
  void visit(const Stmt& s) override {
    if (narrow.kind != Step::None)
      return;
    auto* l = as<For>(s);
    if (!l) {
      StmtVisitor::visit(s);
      return;
    }
    consider(l);
    loops_.push_back(l);
    StmtVisitor::visit(s);
    loops_.pop_back();
  }

private:
  const std::unordered_map<const Buffer*, ZeroPadded>& zp_;
  std::vector<const For*> loops_; // enclosing L, outermost first

  void consider(const For* l) {
    auto mn = asConstInt(l->min), ext = asConstInt(l->extent);
    if (!mn || !ext || *ext < 2 ||
        (l->forKind != ForKind::Serial && l->forKind != ForKind::Unrolled))
      return;
    std::vector<const For*> chain;
    Stmt body = l->body;
    while (auto* inner = as<For>(body)) {
      chain.push_back(inner);
      body = inner->body;
    }
    auto* st = as<BufferStore>(body);
    if (!st)
      return;
    const BufferLoad* read = paddedRead(*st, zp_);
    if (!read)
      return;
    std::vector<const PrimVar*> chainVars;
    for (const For* c : chain)
      chainVars.push_back(c->var.get());
    std::vector<Bound> bounds;
    std::vector<PrimExpr> peelTests; // d >= 0 involving l and `across`
    const For* across = nullptr;
    for (const PrimExpr& c : readConjuncts(*read, zp_.at(read->buffer.get()))) {
      PrimExpr d = asNonNegative(c);
      if (!d || !usesVar(d, l->var.get()))
        continue;
      auto k = affineCoef(d, l->var);
      if (!k || *k == 0)
        continue;
      PrimExpr rest = arith::simplify(d - makeConst(d->dtype, double(*k)) * PrimExpr(l->var));
      if (usesAnyVar(rest, chainVars)) {
        // Peelable: exactly one inner chain loop, affine in it.
        const For* user = nullptr;
        int users = 0;
        for (const For* ch : chain)
          if (usesVar(rest, ch->var.get())) {
            ++users;
            user = ch;
          }
        if (users == 1 && (!across || across == user) && affineCoef(rest, user->var) &&
            asConstInt(user->min) && asConstInt(user->extent)) {
          across = user;
          peelTests.push_back(d);
        }
        continue;
      }
      bounds.push_back({*k, rest});
    }
    if (!bounds.empty())
      considerNarrowing(l, *mn, *mn + *ext, bounds);
    if (narrow.kind == Step::None && peel.kind == Step::None && across && *ext <= kMaxPeel &&
        peelShare(l, across, peelTests) >= kMinSkippedShare)
      peel = Step{Step::Peel, l, nullptr, {}};
  }

  /// The loop among the enclosing ones whose variable is v, if it may be cut.
  const For* cuttable(const PrimVar* v) const {
    for (const For* c : loops_)
      if (c->var.get() == v)
        return (c->forKind == ForKind::Serial || c->forKind == ForKind::Unrolled) &&
                       asConstInt(c->min) && asConstInt(c->extent) &&
                       *asConstInt(c->extent) <= kMaxEvaluated
                   ? c
                   : nullptr;
    return nullptr;
  }

  /// The share of the (o, l, j) iterations that peeling l would let the
  /// narrowing of j drop: where one of `tests` (d >= 0 over l, j and at most
  /// one enclosing loop o) is false. 0 when that cannot be evaluated.
  double peelShare(const For* l, const For* j, const std::vector<PrimExpr>& tests) const {
    const For* o = nullptr;
    for (auto& d : tests)
      for (const PrimVar* v : varsOf(d)) {
        if (v == l->var.get() || v == j->var.get() || (o && v == o->var.get()))
          continue;
        if (o || !(o = cuttable(v)))
          return 0;
      }
    auto range = [](const For* f) {
      int64_t mn = f ? *asConstInt(f->min) : 0;
      return std::pair{mn, mn + (f ? *asConstInt(f->extent) : 1)};
    };
    auto [o0, o1] = range(o);
    auto [l0, l1] = range(l);
    auto [j0, j1] = range(j);
    int64_t dropped = 0, total = 0;
    std::unordered_map<const PrimVar*, int64_t> val;
    IntLookup lookup = [&](const PrimVar* v) -> std::optional<int64_t> {
      auto it = val.find(v);
      return it == val.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    for (int64_t ov = o0; ov < o1; ++ov)
      for (int64_t lv = l0; lv < l1; ++lv)
        for (int64_t jv = j0; jv < j1; ++jv) {
          if (o)
            val[o->var.get()] = ov;
          val[l->var.get()] = lv;
          val[j->var.get()] = jv;
          bool dead = false;
          for (auto& d : tests)
            dead = dead || evalIntExpr(d, lookup) < 0;
          dropped += dead;
          ++total;
        }
    return total ? double(dropped) / double(total) : 0;
  }

  void considerNarrowing(const For* l, int64_t begin, int64_t end,
                         const std::vector<Bound>& bounds) {
    std::vector<const PrimVar*> vars;
    for (auto& b : bounds)
      for (const PrimVar* v : varsOf(b.rest))
        if (std::find(vars.begin(), vars.end(), v) == vars.end())
          vars.push_back(v);
    if (vars.size() > 1)
      return;
    const For* o = nullptr;
    if (!vars.empty() && !(o = cuttable(vars[0])))
      return;
    auto range = [&](std::optional<int64_t> value) {
      IntLookup lookup = [&](const PrimVar* v) -> std::optional<int64_t> {
        if (o && v == o->var.get())
          return value;
        return std::nullopt;
      };
      int64_t lo = begin, hi = end;
      for (auto& b : bounds) {
        int64_t r = evalIntExpr(b.rest, lookup);
        if (b.k > 0) // l >= ceil(-r / k)
          lo = std::max(lo, -floorDivInt(r, b.k));
        else // l <= floor(r / |k|)
          hi = std::min(hi, floorDivInt(r, -b.k) + 1);
      }
      return std::pair{lo, hi};
    };
    std::vector<Step::Segment> segs;
    bool narrower = false;
    auto add = [&](int64_t v, std::pair<int64_t, int64_t> r) {
      if (r.second <= r.first)
        return false; // every tap in the padding: left alone
      narrower = narrower || r.first > begin || r.second < end;
      if (!segs.empty() && segs.back().lo == r.first && segs.back().hi == r.second &&
          segs.back().to == v)
        segs.back().to = v + 1;
      else
        segs.push_back({v, v + 1, r.first, r.second});
      return true;
    };
    if (!o) {
      if (!add(0, range(std::nullopt)))
        return;
    } else {
      int64_t omn = *asConstInt(o->min), oext = *asConstInt(o->extent);
      for (int64_t v = omn; v < omn + oext; ++v)
        if (!add(v, range(v)) || int(segs.size()) > kMaxSegments)
          return;
    }
    if (!narrower)
      return;
    int64_t dropped = 0, total = 0;
    for (auto& g : segs) {
      dropped += (g.to - g.from) * ((end - begin) - (g.hi - g.lo));
      total += (g.to - g.from) * (end - begin);
    }
    if (double(dropped) < kMinSkippedShare * double(total))
      return;
    if (segs.size() == 1)
      narrow = Step{Step::Narrow, l, nullptr, segs};
    else
      narrow = Step{Step::Cut, l, o, segs};
  }
};

/// Replaces loop `target` by one over [lo, hi).
class Rebound : public StmtMutator {
public:
  Rebound(const For* target, int64_t lo, int64_t hi) : target_(target), lo_(lo), hi_(hi) {}

protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    if (op != target_)
      return StmtMutator::visitFor(op, self);
    DataType t = op->var->dtype;
    return make<For>(op->var, makeConst(t, double(lo_)), makeConst(t, double(hi_ - lo_)),
                     op->forKind, op->body, op->annotations);
  }

private:
  const For* target_;
  int64_t lo_, hi_;
};

/// Applies a step: rewrites the loop it names.
class Apply : public StmtMutator {
public:
  explicit Apply(const Step& s) : s_(s) {}

protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    if (s_.kind == Step::Narrow && op == s_.loop) {
      Rebound r(op, s_.segments[0].lo, s_.segments[0].hi);
      return r.mutate(self);
    }
    if (s_.kind == Step::Peel && op == s_.loop) {
      int64_t mn = *asConstInt(op->min), ext = *asConstInt(op->extent);
      std::vector<Stmt> copies;
      for (int64_t k = mn; k < mn + ext; ++k) {
        FreshCopy copy({{op->var.get(), makeConst(op->var->dtype, double(k))}});
        copies.push_back(copy.mutate(op->body));
      }
      return seqStmt(std::move(copies));
    }
    if (s_.kind == Step::Cut && op == s_.outer) {
      DataType t = op->var->dtype;
      std::vector<Stmt> parts;
      for (auto& g : s_.segments) {
        Rebound r(s_.loop, g.lo, g.hi);
        Stmt body = r.mutate(op->body);
        auto v = primVar(op->var->name, t);
        FreshCopy copy({{op->var.get(), PrimExpr(v)}});
        parts.push_back(make<For>(v, makeConst(t, double(g.from)),
                                  makeConst(t, double(g.to - g.from)), op->forKind,
                                  copy.mutate(body), op->annotations));
      }
      return seqStmt(std::move(parts));
    }
    return StmtMutator::visitFor(op, self);
  }
  Stmt visitBlock(const Block* op, const Stmt&) override {
    throw Error("SkipPaddingTaps: block '" + op->name +
                "' must be lowered first (run LowerBlocks before SkipPaddingTaps)");
  }

private:
  const Step& s_;
};

} // namespace

PrimFuncRef skipPaddingTaps(const PrimFuncRef& f) {
  if (!f)
    throw Error("SkipPaddingTaps: null function");
  PrimFuncRef g = f;
  for (int step = 0; step < kMaxSteps; ++step) {
    auto zp = zeroPaddedBuffers(*g);
    if (zp.empty())
      break;
    Finder find(zp);
    try {
      find.visit(g->body);
    } catch (const Error&) {
      break; // an index the evaluator cannot compute: leave the rest as it is
    }
    const Step& s = find.narrow.kind != Step::None ? find.narrow : find.peel;
    if (s.kind == Step::None)
      break;
    Apply apply(s);
    PrimFuncRef next = mutatePrimFunc(apply, g);
    if (next.get() == g.get())
      break;
    g = spliceNestedSeqs(simplifyIndexMath(next));
  }
  return g;
}

} // namespace unity::transform
