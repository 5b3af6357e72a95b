// PartitionLoops: a vectorized loop over a padded read is cut into its
// border iterations and an interior where the bounds test always holds
// (TVM's LoopPartition, reduced to what padding needs).
//
// Why. A padded copy reads `Select(inside, X[clamp(i - p)], 0)`: the index is
// clamped so the load stays in bounds when the Select drops it. The clamp
// (max/min) is not affine in the loop variable, so LLVM vectorizes the copy
// with a gather per vector; in the interior the clamp is the identity and
// the test is true, and the read is a contiguous (or strided) load.
//
// Algorithm. Walking the lowered function with every enclosing loop's range
// bound in an analyzer, for each `vectorized` loop x with constant min and
// extent whose body holds a Select: every conjunct of each Select condition
// that involves x must be a linear comparison c*x + r OP 0 (c = +-1 or +-2,
// r free of x; the loops inside x, a convolution's taps, range over their
// whole extent);
// each gives the x-interval where it holds for every value r can take (the
// outer loops' ranges), [lo, hi) is their intersection. When it leaves at
// least one border iteration and at least two interior ones, the loop
// becomes
//   x in [min, lo): the body (serial), x in [lo, hi): the body (vectorized),
//   x in [hi, min + extent): the body (serial),
// each a copy with fresh variables, and the function is simplified with the
// loop ranges bound: in the interior the x conjuncts fold to true and the
// clamps of x to x. Any cut gives the same results (the three loops run the
// same iterations in order); the analysis only picks a useful one. A loop
// with a conjunct it cannot read is left as it is.
#include <optional>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"
#include "engine/transform/fresh_copy.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;
using schedule::detail::usesVar;

namespace {

int64_t floorDiv(int64_t a, int64_t b) { // b > 0
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// The coefficient of v in e when e is c*v + (terms free of v), through +, -
/// and multiplication by constants; nullopt otherwise (v under a division,
/// a min, a product with another variable...).
std::optional<int64_t> linearCoef(const PrimExpr& e, const PrimVar* v) {
  if (e.get() == v)
    return 1;
  if (isa<IntImm>(e) || isa<PrimVar>(e))
    return 0;
  auto* b = as<BinaryExpr>(e);
  if (!b)
    return std::nullopt;
  switch (b->op()) {
  case NodeKind::Add:
  case NodeKind::Sub: {
    auto ca = linearCoef(b->a, v), cb = linearCoef(b->b, v);
    if (!ca || !cb)
      return std::nullopt;
    return b->op() == NodeKind::Add ? *ca + *cb : *ca - *cb;
  }
  case NodeKind::Mul: {
    auto ka = asConstInt(b->a), kb = asConstInt(b->b);
    if (kb) {
      auto c = linearCoef(b->a, v);
      return c ? std::optional<int64_t>(*c * *kb) : std::nullopt;
    }
    if (ka) {
      auto c = linearCoef(b->b, v);
      return c ? std::optional<int64_t>(*c * *ka) : std::nullopt;
    }
    bool uses = false;
    walkPrimExpr(e, [&](const PrimExpr& x) { uses = uses || x.get() == v; });
    return uses ? std::nullopt : std::optional<int64_t>(0);
  }
  default: {
    bool uses = false;
    walkPrimExpr(e, [&](const PrimExpr& x) { uses = uses || x.get() == v; });
    return uses ? std::nullopt : std::optional<int64_t>(0);
  }
  }
}

struct Interval {
  int64_t lo, hi; // [lo, hi)
};

/// Narrows `iv` to where the comparison `cmp` holds for every value of its
/// other variables; false when cmp involves x in a way this cannot read.
bool narrow(const PrimExpr& cmp, const Ref<PrimVar>& x, arith::Analyzer& an, Interval& iv) {
  auto* b = as<BinaryExpr>(cmp);
  if (!b || !isComparison(b->op()) || b->op() == NodeKind::EQ || b->op() == NodeKind::NE ||
      !b->a->dtype.isInt())
    return false;
  // Normalize to d >= 0.
  PrimExpr d;
  switch (b->op()) {
  case NodeKind::GE:
    d = b->a - b->b;
    break;
  case NodeKind::GT:
    d = b->a - b->b - makeConst(b->a->dtype, 1);
    break;
  case NodeKind::LE:
    d = b->b - b->a;
    break;
  case NodeKind::LT:
    d = b->b - b->a - makeConst(b->a->dtype, 1);
    break;
  default:
    return false;
  }
  auto c = linearCoef(d, x.get());
  // Unit and stride-2 steps. In the interior a stride-2 read (the 3x3/2
  // depthwise convolution reading its image directly, a tap at x * 2 + kx)
  // is affine, and LLVM's loop vectorizer loads it as whole vectors it
  // deinterleaves; clamped, it was a gather per vector (MobileNetV2's
  // 96x112x112 depthwise layer: 17 -> 25-35 GFLOP/s, docs/benchmarks.md,
  // session 17). Larger steps are left alone.
  if (!c || (*c != 1 && *c != -1 && *c != 2 && *c != -2))
    return false;
  // d = c*x + r: the smallest r is the worst case.
  PrimExpr r = arith::simplify(d - makeConst(d->dtype, double(*c)) * PrimExpr(x));
  auto rb = an.constIntBound(r);
  if (rb.min == arith::ConstIntBound::kNegInf || rb.min == arith::ConstIntBound::kPosInf)
    return false;
  if (*c > 0) // x >= ceil(-rmin / c)
    iv.lo = std::max(iv.lo, ceilDiv(-rb.min, *c));
  else // -|c| x >= -rmin: x <= floor(rmin / |c|)
    iv.hi = std::min(iv.hi, floorDiv(rb.min, -*c) + 1);
  return true;
}

/// The interior of loop x over [min, min + extent) for the Selects of body,
/// or nullopt when there is no Select on x or one of its conjuncts on x
/// cannot be read.
std::optional<Interval> interior(const Stmt& body, const Ref<PrimVar>& x, Interval whole,
                                 arith::Analyzer& an) {
  Interval iv = whole;
  bool any = false, ok = true;
  struct Finder : StmtVisitor {
    std::vector<const Select*> selects;
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (auto* s = as<Select>(e))
        selects.push_back(s);
      StmtVisitor::visit(e);
    }
  } find;
  find.visit(body);
  for (const Select* s : find.selects) {
    std::vector<PrimExpr> todo{s->cond};
    while (ok && !todo.empty()) {
      PrimExpr c = todo.back();
      todo.pop_back();
      if (auto* a = as<BinaryExpr>(c); a && a->op() == NodeKind::And) {
        todo.push_back(a->a);
        todo.push_back(a->b);
        continue;
      }
      if (!usesVar(c, x.get()))
        continue;
      any = true;
      ok = narrow(c, x, an, iv);
    }
  }
  if (!any || !ok)
    return std::nullopt;
  return iv;
}

class Partitioner : public StmtMutator {
public:
  explicit Partitioner(arith::Analyzer& an) : an_(an) {}
  bool changed = false;

protected:
  Stmt visitFor(const For* op, const Stmt& self) override {
    auto mn = asConstInt(op->min), ext = asConstInt(op->extent);
    if (mn && ext)
      an_.bind(op->var, Range{op->min, op->extent});
    Stmt s = StmtMutator::visitFor(op, self);
    if (mn && ext)
      an_.unbind(op->var);
    auto* f = as<For>(s);
    if (!mn || !ext || f->forKind != ForKind::Vectorized)
      return s;
    Interval whole{*mn, *mn + *ext};
    if (mn && ext)
      an_.bind(f->var, Range{f->min, f->extent});
    // The loops inside (a depthwise convolution's unrolled taps) range over
    // their whole extent in every iteration of x.
    std::vector<Ref<PrimVar>> inner;
    walkStmt(f->body, [&](const Stmt& st) {
      if (auto* l = as<For>(st); l && asConstInt(l->min) && asConstInt(l->extent)) {
        an_.bind(l->var, Range{l->min, l->extent});
        inner.push_back(l->var);
      }
    });
    auto iv = interior(f->body, f->var, whole, an_);
    for (auto& v : inner)
      an_.unbind(v);
    an_.unbind(f->var);
    if (!iv)
      return s;
    int64_t lo = std::max(iv->lo, whole.lo), hi = std::min(iv->hi, whole.hi);
    if (hi - lo < 2 || (lo == whole.lo && hi == whole.hi))
      return s;
    DataType t = f->var->dtype;
    auto piece = [&](int64_t from, int64_t to, ForKind kind) {
      auto v = primVar(f->var->name, t);
      FreshCopy copy({{f->var.get(), PrimExpr(v)}});
      return Stmt(make<For>(v, makeConst(t, double(from)), makeConst(t, double(to - from)), kind,
                            copy.mutate(f->body), f->annotations));
    };
    std::vector<Stmt> parts;
    if (lo > whole.lo)
      parts.push_back(piece(whole.lo, lo, ForKind::Serial));
    parts.push_back(piece(lo, hi, ForKind::Vectorized));
    if (hi < whole.hi)
      parts.push_back(piece(hi, whole.hi, ForKind::Serial));
    changed = true;
    return seqStmt(std::move(parts));
  }
  Stmt visitBlock(const Block* op, const Stmt&) override {
    throw Error("PartitionLoops: block '" + op->name +
                "' must be lowered first (run LowerBlocks before PartitionLoops)");
  }

private:
  arith::Analyzer& an_;
};

} // namespace

PrimFuncRef partitionLoops(const PrimFuncRef& f) {
  if (!f)
    throw Error("PartitionLoops: null function");
  arith::Analyzer an = shapeAnalyzer(*f);
  Partitioner p(an);
  PrimFuncRef g = mutatePrimFunc(p, f);
  if (!p.changed)
    return f;
  // Fold the interior's bounds tests and clamps (loop ranges bound).
  return spliceNestedSeqs(simplifyIndexMath(g));
}

} // namespace unity::transform
