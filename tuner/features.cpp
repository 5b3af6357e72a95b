// Features and FLOP counts of scheduled tensor functions (see features.h).
//
// One walk (Collector) visits the function's statements with the loops
// around them and turns each BufferStore into a StoreRec: its loops, how
// often it runs, its operation counts and its accesses, the indices
// rewritten from block iterators into loop variables (through the block
// bindings, so what is measured is the loop structure the schedule made).
// The feature pass then measures each access at each loop level with
// interval arithmetic (the data that level touches) and with point
// evaluations (the stride each loop moves it by), and writes the
// fixed list of features through one emitter, which also produces the names.
#include "tuner/features.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/ir/int_eval.h"
#include "engine/ir/intrinsics.h"
#include "engine/ir/structural.h"
#include "engine/support/error.h"

namespace unity::tuner {

using namespace ir;

namespace {

/// log2(1 + x) for counts and byte sizes (x < 0 counts as 0).
double lg(double x) { return std::log2(1.0 + std::max(0.0, x)); }

// Cache sizes of the traffic estimates: a typical L1 data cache and L2.
constexpr double kL1Bytes = 32.0 * 1024;
constexpr double kL2Bytes = 1024.0 * 1024;
// The log-stride of an access whose stride is unknown (a gather).
constexpr double kUnknownStrideLog = 24;
// Reads described one by one (the largest by bytes touched); more are summed.
constexpr int kReadSlots = 3;

struct OpCounts {
  double addSub = 0, mul = 0, div = 0, minMax = 0, cmp = 0, math = 0;
  double select = 0, cast = 0, intArith = 0, intDivMod = 0;
  double flops() const { return addSub + mul + div + minMax + cmp + math; }
};

void countOps(const PrimExpr& e, OpCounts& c) {
  walkPrimExpr(e, [&](const PrimExpr& x) {
    double lanes = x->dtype.lanes;
    if (auto* b = as<BinaryExpr>(x)) {
      bool fl = b->a->dtype.isFloat();
      switch (b->op()) {
      case NodeKind::Add:
      case NodeKind::Sub:
        (fl ? c.addSub : c.intArith) += lanes;
        break;
      case NodeKind::Mul:
        (fl ? c.mul : c.intArith) += lanes;
        break;
      case NodeKind::Div:
      case NodeKind::FloorDiv:
      case NodeKind::FloorMod:
        (fl ? c.div : c.intDivMod) += lanes;
        break;
      case NodeKind::Min:
      case NodeKind::Max:
        (fl ? c.minMax : c.intArith) += lanes;
        break;
      case NodeKind::EQ:
      case NodeKind::NE:
      case NodeKind::LT:
      case NodeKind::LE:
      case NodeKind::GT:
      case NodeKind::GE:
        (fl ? c.cmp : c.intArith) += lanes;
        break;
      default: // And, Or
        break;
      }
    } else if (isa<Select>(x)) {
      c.select += lanes;
    } else if (isa<CastExpr>(x)) {
      c.cast += lanes;
    } else if (auto* call = as<PrimCall>(x)) {
      auto* info = findIntrinsic(call->op);
      if (info && info->math && x->dtype.isFloat())
        c.math += lanes;
    }
  });
}

struct LoopCtx {
  Ref<For> loop;
  int64_t extent;
};

struct AccessRec {
  BufferRef buffer;
  std::vector<PrimExpr> indices; // in loop variables and free shape variables
};

struct StoreRec {
  std::vector<LoopCtx> loops; // outermost first
  double trips = 0;           // executions per call
  OpCounts ops;               // per execution
  AccessRec write;
  std::vector<AccessRec> reads; // loads, except the store's own element
  bool selfRead = false;        // reads the element it writes (a reduction update)
  bool predicated = false;
};

/// The statements of a function as StoreRecs, and its intermediate buffers.
class Collector {
public:
  explicit Collector(int64_t symbolic) : sym_(symbolic) {}

  std::vector<StoreRec> stores;
  std::vector<BufferRef> allocs;

  void visit(const Stmt& s) {
    if (!s)
      return;
    if (auto* f = as<For>(s)) {
      loops_.push_back({cast<For>(s), evalExtent(f->extent)});
      visit(f->body);
      loops_.pop_back();
    } else if (auto* b = as<Block>(s)) {
      visitBlock(b);
    } else if (auto* st = as<BufferStore>(s)) {
      visitStore(st);
    } else if (auto* seq = as<SeqStmt>(s)) {
      for (auto& x : seq->seq)
        visit(x);
    } else if (auto* let = as<LetStmt>(s)) {
      subst_[let->var.get()] = sub(let->value);
      visit(let->body);
    } else if (auto* ite = as<IfThenElse>(s)) {
      // Both branches are counted: an upper bound on the work.
      visit(ite->then);
      visit(ite->otherwise);
    } else if (auto* al = as<Allocate>(s)) {
      allocs.push_back(al->buffer);
      visit(al->body);
    }
  }

private:
  PrimExpr sub(const PrimExpr& e) const { return subst_.empty() ? e : substitute(e, subst_); }

  int64_t evalExtent(const PrimExpr& e) const {
    try {
      // A loop variable in an extent (rare) takes the symbolic value too.
      int64_t v = evalIntExpr(sub(e), [&](const PrimVar*) { return std::optional<int64_t>(sym_); });
      return std::max<int64_t>(v, 0);
    } catch (const Error&) {
      return sym_;
    }
  }

  void visitBlock(const Block* b) {
    allocs.insert(allocs.end(), b->allocs.begin(), b->allocs.end());
    std::vector<PrimExpr> bound;
    for (size_t i = 0; i < b->iters.size() && i < b->bindings.size(); ++i)
      bound.push_back(sub(b->bindings[i]));
    for (size_t i = 0; i < bound.size(); ++i)
      subst_[b->iters[i].var.get()] = bound[i];
    bool savedPred = predicated_;
    predicated_ = predicated_ || b->predicate.defined();
    if (b->init) {
      // The init runs once per output element: not for every iteration of
      // the loops that move only reduce iterators.
      double savedDiv = divisor_;
      for (auto& l : loops_) {
        bool spatial = false, reduce = false;
        for (size_t i = 0; i < bound.size(); ++i) {
          bool uses = false;
          walkPrimExpr(bound[i],
                       [&](const PrimExpr& x) { uses = uses || x.get() == l.loop->var.get(); });
          if (uses)
            (b->iters[i].type == IterType::Reduce ? reduce : spatial) = true;
        }
        if (reduce && !spatial && l.extent > 0)
          divisor_ *= static_cast<double>(l.extent);
      }
      visit(b->init);
      divisor_ = savedDiv;
    }
    visit(b->body);
    predicated_ = savedPred;
  }

  void visitStore(const BufferStore* st) {
    StoreRec r;
    r.loops = loops_;
    double trips = 1;
    for (auto& l : loops_)
      trips *= static_cast<double>(l.extent);
    r.trips = trips / divisor_;
    r.predicated = predicated_;
    countOps(st->value, r.ops);
    for (auto& i : st->indices)
      countOps(i, r.ops);
    r.write.buffer = st->buffer;
    for (auto& i : st->indices)
      r.write.indices.push_back(sub(i));
    walkPrimExpr(st->value, [&](const PrimExpr& x) {
      auto* ld = as<BufferLoad>(x);
      if (!ld)
        return;
      bool self = sameNode(ld->buffer, st->buffer) && ld->indices.size() == st->indices.size();
      for (size_t i = 0; self && i < ld->indices.size(); ++i)
        self = structuralEqual(ld->indices[i], st->indices[i]);
      if (self) {
        r.selfRead = true;
        return;
      }
      AccessRec a{ld->buffer, {}};
      for (auto& i : ld->indices)
        a.indices.push_back(sub(i));
      r.reads.push_back(std::move(a));
    });
    stores.push_back(std::move(r));
  }

  int64_t sym_;
  std::vector<LoopCtx> loops_;
  std::unordered_map<const PrimVar*, PrimExpr> subst_;
  double divisor_ = 1;
  bool predicated_ = false;
};

Collector collect(const PrimFuncRef& f, int64_t symbolic, const char* what) {
  if (!f)
    throw Error(std::string(what) + ": no function (null PrimFunc)");
  if (symbolic < 1)
    throw Error(std::string(what) + ": the symbolic extent must be at least 1, got " +
                std::to_string(symbolic));
  Collector c(symbolic);
  c.visit(f->body);
  return c;
}

// ------------------------------------------------------------------ accesses

/// A closed interval of integers (as doubles: exact below 2^53, and no
/// overflow to worry about).
struct Interval {
  double lo, hi;
};

using IntervalEnv = std::unordered_map<const PrimVar*, Interval>;

/// Interval arithmetic over an index expression: the values it can take
/// while each variable stays in its interval (free variables take `sym`).
/// Cheap and conservative; nullopt for anything that is not integer index
/// arithmetic (a load in an index: a gather). The analyzer's
/// constIntBound would be tighter on correlated terms but simplifies first,
/// which costs milliseconds per function; index expressions of schedules
/// are sums of independent loop terms, where intervals are exact.
std::optional<Interval> bound(const PrimExpr& e, const IntervalEnv& env, double sym) {
  if (auto c = asConstInt(e))
    return Interval{static_cast<double>(*c), static_cast<double>(*c)};
  if (auto* v = as<PrimVar>(e)) {
    auto it = env.find(v);
    return it != env.end() ? it->second : Interval{sym, sym};
  }
  if (auto* c = as<CastExpr>(e))
    return bound(c->value, env, sym);
  if (auto* s = as<Select>(e)) {
    auto t = bound(s->t, env, sym), f = bound(s->f, env, sym);
    if (!t || !f)
      return std::nullopt;
    return Interval{std::min(t->lo, f->lo), std::max(t->hi, f->hi)};
  }
  auto* b = as<BinaryExpr>(e);
  if (!b || !e->dtype.isIntegral())
    return std::nullopt;
  auto x = bound(b->a, env, sym), y = bound(b->b, env, sym);
  if (!x || !y)
    return std::nullopt;
  switch (b->op()) {
  case NodeKind::Add:
    return Interval{x->lo + y->lo, x->hi + y->hi};
  case NodeKind::Sub:
    return Interval{x->lo - y->hi, x->hi - y->lo};
  case NodeKind::Mul: {
    double p[] = {x->lo * y->lo, x->lo * y->hi, x->hi * y->lo, x->hi * y->hi};
    return Interval{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
  }
  case NodeKind::Div:
  case NodeKind::FloorDiv:
    if (y->lo != y->hi || y->lo <= 0)
      return std::nullopt;
    return Interval{std::floor(x->lo / y->lo), std::floor(x->hi / y->lo)};
  case NodeKind::FloorMod: {
    if (y->lo != y->hi || y->lo <= 0)
      return std::nullopt;
    double k = y->lo;
    if (std::floor(x->lo / k) == std::floor(x->hi / k)) // within one period
      return Interval{x->lo - k * std::floor(x->lo / k), x->hi - k * std::floor(x->hi / k)};
    return Interval{0, k - 1};
  }
  case NodeKind::Min:
    return Interval{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
  case NodeKind::Max:
    return Interval{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
  default:
    return std::nullopt;
  }
}

/// One access measured against its store's loop nest.
struct AccessStats {
  bool present = false;
  double elemBytes = 0;
  std::vector<double> footprint; // bytes touched by loops l.. (size loops + 1)
  std::vector<double> stride;    // flat elements loop l moves it by; NaN unknown
  double trafficL1 = 0, trafficL2 = 0;
};

class StoreAnalysis {
public:
  StoreAnalysis(const StoreRec& s, int64_t symbolic) : s_(s), sym_(symbolic) {}

  AccessStats measure(const AccessRec& a) {
    AccessStats st;
    st.present = true;
    st.elemBytes = a.buffer->dtype.bytes();
    size_t n = s_.loops.size(), nd = a.indices.size();
    std::vector<double> shape(nd), rowStride(nd);
    for (size_t d = 0; d < nd && d < a.buffer->shape.size(); ++d)
      shape[d] = static_cast<double>(std::max<int64_t>(1, evalFree(a.buffer->shape[d])));
    double acc = 1;
    for (size_t d = nd; d-- > 0;) {
      rowStride[d] = acc;
      acc *= shape[d];
    }
    // Footprint per level: the interval of each index while loops l.. run.
    st.footprint.assign(n + 1, st.elemBytes);
    IntervalEnv env;
    for (size_t l = 0; l <= n; ++l) {
      for (size_t k = 0; k < n; ++k) {
        double e = k >= l ? static_cast<double>(std::max<int64_t>(1, s_.loops[k].extent)) : 1;
        env[s_.loops[k].loop->var.get()] = Interval{0, e - 1};
      }
      double elems = 1;
      for (size_t d = 0; d < nd; ++d) {
        auto b = bound(a.indices[d], env, static_cast<double>(sym_));
        double span = b ? std::min(shape[d], b->hi - b->lo + 1) : shape[d];
        elems *= std::max(1.0, span);
      }
      st.footprint[l] = elems * st.elemBytes;
    }
    // Strides at the middle of every loop (a clamped padding index moves there).
    st.stride.assign(n, 0);
    std::unordered_map<const PrimVar*, int64_t> point;
    for (auto& l : s_.loops)
      point[l.loop->var.get()] = l.extent / 2;
    auto flat = [&](const std::unordered_map<const PrimVar*, int64_t>& p) {
      double v = 0;
      for (size_t d = 0; d < nd; ++d)
        v += rowStride[d] * static_cast<double>(evalIntExpr(a.indices[d], lookup(p)));
      return v;
    };
    try {
      double base = flat(point);
      for (size_t k = 0; k < n; ++k) {
        if (s_.loops[k].extent < 2)
          continue;
        auto p = point;
        p[s_.loops[k].loop->var.get()] +=
            (s_.loops[k].extent / 2 + 1 < s_.loops[k].extent) ? 1 : -1;
        double d = flat(p) - base;
        st.stride[k] = std::fabs(d);
      }
    } catch (const Error&) {
      st.stride.assign(n, std::numeric_limits<double>::quiet_NaN()); // a gather
    }
    // Traffic: the outermost level whose data fits, loaded once per
    // iteration of the loops outside it.
    auto traffic = [&](double cache) {
      double outside = 1;
      for (size_t l = 0; l <= n; ++l) {
        if (st.footprint[l] <= cache || l == n)
          return st.footprint[l] * outside;
        outside *= static_cast<double>(std::max<int64_t>(1, s_.loops[l].extent));
      }
      return st.footprint[n] * outside;
    };
    st.trafficL1 = traffic(kL1Bytes);
    st.trafficL2 = traffic(kL2Bytes);
    return st;
  }

private:
  IntLookup lookup(const std::unordered_map<const PrimVar*, int64_t>& p) const {
    return [&p, this](const PrimVar* v) -> std::optional<int64_t> {
      auto it = p.find(v);
      return it != p.end() ? it->second : sym_;
    };
  }

  int64_t evalFree(const PrimExpr& e) const {
    try {
      return evalIntExpr(e, [&](const PrimVar*) { return std::optional<int64_t>(sym_); });
    } catch (const Error&) {
      return sym_;
    }
  }

  const StoreRec& s_;
  int64_t sym_;
};

// ------------------------------------------------------------------ emitter

/// Collects (name, value) pairs in a fixed order; the names of an empty
/// analysis are the feature names.
struct Sink {
  std::vector<std::string> names;
  std::vector<float> values;
  void add(const std::string& name, double v) {
    names.push_back(name);
    values.push_back(std::isfinite(v) ? static_cast<float>(v) : 0.0f);
  }
};

double strideLog(double s) { return std::isnan(s) ? kUnknownStrideLog : lg(s); }

void emitAccess(Sink& out, const std::string& p, const AccessStats& a, const StoreRec* s) {
  size_t n = a.present ? a.stride.size() : 0;
  out.add(p + "present", a.present ? 1 : 0);
  out.add(p + "bytes", a.present ? lg(a.footprint[0]) : 0);
  // How often each byte is touched on average.
  out.add(p + "reuse", a.present && s ? lg(s->trips * a.elemBytes / a.footprint[0]) : 0);
  out.add(p + "inner_stride", n ? strideLog(a.stride[n - 1]) : 0);
  double nz = 0;
  for (size_t k = n; k-- > 0;)
    if (std::isnan(a.stride[k]) || a.stride[k] != 0) {
      nz = strideLog(a.stride[k]);
      break;
    }
  out.add(p + "inner_nonzero_stride", nz);
  // The stride along the vectorized loop decides the vector access kind.
  double vc = 0, vb = 0, vs = 0;
  for (size_t k = n; k-- > 0;)
    if (s->loops[k].loop->forKind == ForKind::Vectorized) {
      double st = a.stride[k];
      (std::isnan(st) || st > 1 ? vs : st == 1 ? vc : vb) = 1;
      break;
    }
  out.add(p + "vec_contiguous", vc);
  out.add(p + "vec_broadcast", vb);
  out.add(p + "vec_strided", vs);
  // Bytes one step of the innermost serial (or parallel) loop touches:
  // the unrolled and vectorized body, the register working set.
  double step = 0;
  if (a.present) {
    size_t l = 0;
    for (size_t k = 0; k < n; ++k)
      if (s->loops[k].loop->forKind == ForKind::Serial ||
          s->loops[k].loop->forKind == ForKind::Parallel)
        l = k + 1;
    step = lg(a.footprint[l]);
  }
  out.add(p + "bytes_per_step", step);
  out.add(p + "traffic_l1", a.present ? lg(a.trafficL1) : 0);
  out.add(p + "traffic_l2", a.present ? lg(a.trafficL2) : 0);
}

struct StoreSummary {
  double flops = 0, trafficL1 = 0, trafficL2 = 0;
};

struct Analysis {
  std::vector<StoreRec> stores;
  std::vector<BufferRef> allocs;
  int cores = 1;
  int64_t sym = kDefaultSymbolicExtent;
};

void emit(Sink& out, const Analysis& an) {
  // The main store: the most work (flops, else executions).
  const StoreRec* main = nullptr;
  size_t mainIdx = 0;
  for (size_t i = 0; i < an.stores.size(); ++i) {
    auto& s = an.stores[i];
    auto work = [](const StoreRec& r) { return r.trips * (1 + r.ops.flops()); };
    if (!main || work(s) > work(*main)) {
      main = &s;
      mainIdx = i;
    }
  }
  std::vector<StoreSummary> sums(an.stores.size());
  AccessStats write;
  std::vector<AccessStats> reads(kReadSlots);
  double otherReadBytes = 0;
  for (size_t i = 0; i < an.stores.size(); ++i) {
    auto& s = an.stores[i];
    StoreAnalysis sa(s, an.sym);
    AccessStats w = sa.measure(s.write);
    std::vector<AccessStats> rs;
    for (auto& r : s.reads)
      rs.push_back(sa.measure(r));
    sums[i].flops = s.trips * s.ops.flops();
    sums[i].trafficL1 = w.trafficL1;
    sums[i].trafficL2 = w.trafficL2;
    for (auto& r : rs) {
      sums[i].trafficL1 += r.trafficL1;
      sums[i].trafficL2 += r.trafficL2;
    }
    if (i == mainIdx) {
      write = w;
      std::stable_sort(rs.begin(), rs.end(), [](const AccessStats& a, const AccessStats& b) {
        return a.footprint[0] > b.footprint[0];
      });
      for (size_t k = 0; k < rs.size(); ++k)
        if (k < static_cast<size_t>(kReadSlots))
          reads[k] = rs[k];
        else
          otherReadBytes += rs[k].footprint[0];
    }
  }

  // ---- function level
  double totalFlops = 0, totalL1 = 0, totalL2 = 0, allTrips = 0, parTrips = 0, vecTrips = 0;
  int maxDepth = 0;
  for (size_t i = 0; i < an.stores.size(); ++i) {
    auto& s = an.stores[i];
    totalFlops += sums[i].flops;
    totalL1 += sums[i].trafficL1;
    totalL2 += sums[i].trafficL2;
    allTrips += s.trips;
    bool par = false, vec = false;
    for (auto& l : s.loops) {
      par = par || l.loop->forKind == ForKind::Parallel;
      vec = vec || l.loop->forKind == ForKind::Vectorized;
    }
    parTrips += par ? s.trips : 0;
    vecTrips += vec ? s.trips : 0;
    maxDepth = std::max(maxDepth, static_cast<int>(s.loops.size()));
  }
  double allocBytes = 0, allocMax = 0;
  for (auto& b : an.allocs) {
    double bytes = b->dtype.bytes();
    for (auto& d : b->shape)
      bytes *= static_cast<double>(asConstInt(d).value_or(an.sym));
    allocBytes += bytes;
    allocMax = std::max(allocMax, bytes);
  }
  out.add("fn.flops", lg(totalFlops));
  out.add("fn.stores", static_cast<double>(an.stores.size()));
  out.add("fn.max_depth", maxDepth);
  out.add("fn.allocs", static_cast<double>(an.allocs.size()));
  out.add("fn.alloc_bytes", lg(allocBytes));
  out.add("fn.alloc_max_bytes", lg(allocMax));
  out.add("fn.traffic_l1", lg(totalL1));
  out.add("fn.traffic_l2", lg(totalL2));
  out.add("fn.parallel_fraction", allTrips > 0 ? parTrips / allTrips : 0);
  out.add("fn.vector_fraction", allTrips > 0 ? vecTrips / allTrips : 0);
  out.add("fn.cores", lg(an.cores));

  // ---- the other stores, summed
  double oTrips = 0, oFlops = 0, oL1 = 0, oL2 = 0, oVec = 0, oPar = 0;
  for (size_t i = 0; i < an.stores.size(); ++i) {
    if (i == mainIdx)
      continue;
    auto& s = an.stores[i];
    oTrips += s.trips;
    oFlops += sums[i].flops;
    oL1 += sums[i].trafficL1;
    oL2 += sums[i].trafficL2;
    bool par = false, vec = false;
    for (auto& l : s.loops) {
      par = par || l.loop->forKind == ForKind::Parallel;
      vec = vec || l.loop->forKind == ForKind::Vectorized;
    }
    oVec += vec ? s.trips : 0;
    oPar += par ? s.trips : 0;
  }
  out.add("other.trips", lg(oTrips));
  out.add("other.flops", lg(oFlops));
  out.add("other.traffic_l1", lg(oL1));
  out.add("other.traffic_l2", lg(oL2));
  out.add("other.vector_fraction", oTrips > 0 ? oVec / oTrips : 0);
  out.add("other.parallel_fraction", oTrips > 0 ? oPar / oTrips : 0);

  // ---- the main store: loops
  size_t n = main ? main->loops.size() : 0;
  double nSerial = 0, nPar = 0, nVec = 0, nUnroll = 0, lanes = 1, unroll = 1, par = 1;
  double innerSerial = 0;
  for (size_t k = 0; k < n; ++k) {
    auto& l = main->loops[k];
    double e = static_cast<double>(l.extent);
    switch (l.loop->forKind) {
    case ForKind::Serial:
      ++nSerial;
      innerSerial = e;
      break;
    case ForKind::Parallel:
      ++nPar;
      par *= e;
      break;
    case ForKind::Vectorized:
      ++nVec;
      lanes *= e;
      break;
    case ForKind::Unrolled:
      ++nUnroll;
      unroll *= e;
      break;
    }
  }
  ForKind innerKind = n ? main->loops[n - 1].loop->forKind : ForKind::Serial;
  double cores = std::max(1, an.cores);
  out.add("main.trips", main ? lg(main->trips) : 0);
  out.add("main.depth", static_cast<double>(n));
  out.add("main.serial_loops", nSerial);
  out.add("main.parallel_loops", nPar);
  out.add("main.vectorized_loops", nVec);
  out.add("main.unrolled_loops", nUnroll);
  out.add("main.inner_extent", n ? lg(static_cast<double>(main->loops[n - 1].extent)) : 0);
  out.add("main.inner_serial", n && innerKind == ForKind::Serial);
  out.add("main.inner_parallel", n && innerKind == ForKind::Parallel);
  out.add("main.inner_vectorized", n && innerKind == ForKind::Vectorized);
  out.add("main.inner_unrolled", n && innerKind == ForKind::Unrolled);
  out.add("main.inner_serial_extent", lg(innerSerial));
  out.add("main.vector_lanes", nVec ? lg(lanes) : 0);
  out.add("main.unroll_product", nUnroll ? lg(unroll) : 0);
  out.add("main.parallel_extent", nPar ? lg(par) : 0);
  out.add("main.parallel_chunks_per_core", nPar ? lg(par / cores) : 0);
  // Share of the cores busy over the parallel loop (1: the chunks divide evenly).
  out.add("main.parallel_balance", par / (std::ceil(par / cores) * cores));

  // ---- the main store: arithmetic per execution, and in total
  OpCounts ops = main ? main->ops : OpCounts{};
  out.add("main.op_add_sub", lg(ops.addSub));
  out.add("main.op_mul", lg(ops.mul));
  out.add("main.op_div", lg(ops.div));
  out.add("main.op_min_max", lg(ops.minMax));
  out.add("main.op_cmp", lg(ops.cmp));
  out.add("main.op_math", lg(ops.math));
  out.add("main.op_select", lg(ops.select));
  out.add("main.op_cast", lg(ops.cast));
  out.add("main.op_int", lg(ops.intArith));
  out.add("main.op_int_div_mod", lg(ops.intDivMod));
  double mainFlops = main ? sums[mainIdx].flops : 0;
  out.add("main.flops", lg(mainFlops));
  out.add("main.predicated", main && main->predicated);
  out.add("main.reduction", main && main->selfRead);

  // ---- the main store: the accumulator tile. The innermost loop that does
  // not move the written element (a reduce loop) runs over a tile of
  // outputs held across it: its bytes, how many iterations of such loops
  // reuse it in a row, and the bytes written back when it leaves.
  double accBytes = 0, accReuse = 1, writeBack = 0;
  if (main && write.present) {
    int r = -1;
    for (size_t k = n; k-- > 0;)
      if (main->loops[k].extent > 1 && write.footprint[k] == write.footprint[k + 1]) {
        r = static_cast<int>(k);
        break;
      }
    if (r >= 0) {
      accBytes = write.footprint[r + 1];
      int k = r;
      while (k >= 0 && write.footprint[k] == write.footprint[k + 1])
        accReuse *= static_cast<double>(std::max<int64_t>(1, main->loops[k--].extent));
      double outside = 1;
      for (int j = 0; j <= k; ++j)
        outside *= static_cast<double>(std::max<int64_t>(1, main->loops[j].extent));
      writeBack = accBytes * outside;
    }
  }
  out.add("main.acc_bytes", lg(accBytes));
  out.add("main.acc_reuse", lg(accReuse));
  out.add("main.acc_write_back_bytes", lg(writeBack));

  // ---- the main store: memory
  double mL1 = main ? sums[mainIdx].trafficL1 : 0, mL2 = main ? sums[mainIdx].trafficL2 : 0;
  out.add("main.traffic_l1", lg(mL1));
  out.add("main.traffic_l2", lg(mL2));
  // Arithmetic intensity against each cache level (signed log ratio).
  out.add("main.intensity_l1", std::log2((1 + mainFlops) / (1 + mL1)));
  out.add("main.intensity_l2", std::log2((1 + mainFlops) / (1 + mL2)));
  out.add("main.reads", main ? static_cast<double>(main->reads.size()) : 0);
  out.add("main.other_read_bytes", lg(otherReadBytes));
  emitAccess(out, "write.", write, main);
  for (int k = 0; k < kReadSlots; ++k)
    emitAccess(out, "read" + std::to_string(k) + ".", reads[k], main);
}

} // namespace

double estimateFlops(const PrimFuncRef& f, int64_t symbolicExtent) {
  Collector c = collect(f, symbolicExtent, "estimateFlops");
  double total = 0;
  for (auto& s : c.stores)
    total += s.trips * s.ops.flops();
  return total;
}

std::vector<float> extractFeatures(const PrimFuncRef& scheduled, const FeatureOptions& options) {
  Collector c = collect(scheduled, options.symbolicExtent, "extractFeatures");
  if (options.cores < 1)
    throw Error("extractFeatures: cores must be at least 1, got " + std::to_string(options.cores));
  Analysis an{std::move(c.stores), std::move(c.allocs), options.cores, options.symbolicExtent};
  Sink out;
  emit(out, an);
  return out.values;
}

const std::vector<std::string>& featureNames() {
  static const std::vector<std::string> names = [] {
    Sink out;
    emit(out, Analysis{});
    return out.names;
  }();
  return names;
}

size_t featureCount() { return featureNames().size(); }

} // namespace unity::tuner
