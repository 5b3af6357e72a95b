// Sampling instructions and annotations: the knobs the tuner turns.
//
// A sampling instruction draws a decision from the schedule's random engine
// (or, on replay, takes the recorded one and checks it is legal for the
// function) and records it in the trace. Its outputs carry their origin
// (ExprRV = ValueRef with the instruction's index; LoopRV::sample), so an
// instruction that uses them records a reference instead of a constant:
// replaying a trace whose decision was changed then changes the split
// factors, the annotation value or the loop a later instruction works on.
//
//  - samplePerfectTile(l, n, m): n factors of l's constant extent whose
//    product is the extent, the innermost at most m. The innermost is drawn
//    uniformly among the divisors <= m, then each prime factor of the rest
//    goes to one of the n-1 outer positions, uniformly.
//  - sampleCategorical(c, p): index i with probability p[i] / sum(p); the
//    decision is the index, the output c[i].
//  - sampleComputeLocation(b): uniformly one of computeLocationCandidates(b)
//    or the root (decision -1).
//
// The random engine is SplitMix64 with our own integer and real draws (no
// std distributions, whose results differ between standard libraries), so a
// seed samples the same decisions on every machine.
#include <cmath>

#include "engine/ir/arith.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using namespace ir;
using namespace detail;

namespace {

std::vector<int64_t> primeFactors(int64_t x) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= x; ++p)
    while (x % p == 0) {
      out.push_back(p);
      x /= p;
    }
  if (x > 1)
    out.push_back(x);
  return out;
}

bool recordable(const AttrValue& v) {
  return std::holds_alternative<bool>(v) || std::holds_alternative<int64_t>(v) ||
         std::holds_alternative<double>(v) || std::holds_alternative<std::string>(v);
}

} // namespace

uint64_t Schedule::nextRandom() {
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {
/// Uniform in [0, n) without modulo bias.
template <class Next> uint64_t below(Next&& next, uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    uint64_t r = next();
    if (r < limit)
      return r % n;
  }
}
} // namespace

int64_t Schedule::value(const ExprRV& v) const {
  if (!v.isRef())
    return v.value;
  auto ref = traceRef(v);
  auto& in = trace_.instructions()[ref.inst];
  if (in.kind == "sample_perfect_tile")
    return in.decision.at(ref.output);
  return in.params.at(in.decision.at(0)); // sample_categorical
}

ValueRef Schedule::traceRef(const ExprRV& v) const {
  if (!v.isRef())
    return ValueRef{v.value};
  auto& insts = trace_.instructions();
  if (static_cast<size_t>(v.inst) >= insts.size())
    throw Error("schedule: the value refers to instruction " + std::to_string(v.inst) +
                ", which this schedule's trace does not have");
  auto& in = insts[v.inst];
  int64_t outputs = in.kind == "sample_perfect_tile"  ? static_cast<int64_t>(in.decision.size())
                    : in.kind == "sample_categorical" ? 1
                                                      : 0;
  if (v.output < 0 || v.output >= outputs)
    throw Error("schedule: the value refers to output " + std::to_string(v.output) +
                " of instruction " + std::to_string(v.inst) + " (" + in.kind + "), which has " +
                std::to_string(outputs) + " value output(s)");
  return ValueRef{0, v.inst, v.output};
}

// ---------------------------------------------------------------- split

std::vector<LoopRV> Schedule::split(const LoopRV& loop, std::span<const ExprRV> factors) {
  std::vector<int64_t> values;
  std::vector<ValueRef> inputs;
  bool sampled = false;
  for (auto& f : factors) {
    values.push_back(value(f));
    inputs.push_back(traceRef(f));
    sampled = sampled || f.isRef();
  }
  if (!sampled)
    inputs.clear();
  return splitImpl(loop, std::move(values), std::move(inputs));
}

// ---------------------------------------------------------------- annotate

void Schedule::annotateImpl(const LoopRV* lrv, const BlockRV* brv, const std::string& key,
                            const AttrValue& value, std::vector<ValueRef> inputs) {
  std::string what = lrv ? "loop" : "block";
  if (key.empty())
    throw Error("schedule: annotate: the key is empty");
  if (!recordable(value))
    throw Error("schedule: annotate: key '" + key +
                "': only bool, integer, float and string values can be recorded, got " +
                attrValueStr(value));
  Instruction in{"annotate", {}, {}, {}, std::move(inputs)};
  in.key = key;
  if (in.inputs.empty())
    in.value = value;
  if (lrv) {
    auto f = loop(*lrv);
    in.loops = {locate(*lrv)};
    setBody(replaceStmt(func_->body, f.get(),
                        make<For>(f->var, f->min, f->extent, f->forKind, f->body,
                                  f->annotations.with(key, value))));
  } else {
    auto b = block(*brv);
    in.blocks = {b->name};
    setBody(replaceStmt(func_->body, b.get(),
                        make<Block>(b->name, b->iters, b->bindings, b->reads, b->writes, b->init,
                                    b->body, b->allocs, b->predicate,
                                    b->annotations.with(key, value))));
  }
  trace_.append(std::move(in));
}

void Schedule::annotate(const LoopRV& loop, const std::string& key, const AttrValue& value) {
  annotateImpl(&loop, nullptr, key, value, {});
}
void Schedule::annotate(const BlockRV& block, const std::string& key, const AttrValue& value) {
  annotateImpl(nullptr, &block, key, value, {});
}
void Schedule::annotate(const LoopRV& loop, const std::string& key, const ExprRV& v) {
  annotateImpl(&loop, nullptr, key, AttrValue(value(v)),
               v.isRef() ? std::vector<ValueRef>{traceRef(v)} : std::vector<ValueRef>{});
}
void Schedule::annotate(const BlockRV& block, const std::string& key, const ExprRV& v) {
  annotateImpl(nullptr, &block, key, AttrValue(value(v)),
               v.isRef() ? std::vector<ValueRef>{traceRef(v)} : std::vector<ValueRef>{});
}

// ---------------------------------------------------------------- sampling

std::vector<ExprRV> Schedule::samplePerfectTile(const LoopRV& loop, int n,
                                                int64_t maxInnermostFactor) {
  return perfectTile(loop, n, maxInnermostFactor, nullptr);
}

std::vector<ExprRV> Schedule::perfectTile(const LoopRV& rv, int n, int64_t maxInner,
                                          const std::vector<int64_t>* decision) {
  auto f = loop(rv);
  const std::string name = "schedule: sample_perfect_tile: loop '" + f->var->name + "'";
  auto ext = asConstInt(f->extent);
  if (!ext || *ext < 1)
    throw Error(name + " has no constant positive extent");
  if (n < 1 || n > 16)
    throw Error(name + ": n is " + std::to_string(n) + "; it must be in [1, 16]");
  if (maxInner < 1)
    throw Error(name + ": max_innermost is " + std::to_string(maxInner) + "; it must be positive");
  LoopLocator where = locate(rv);
  std::vector<int64_t> d;
  if (decision) {
    d = *decision;
    if (d.size() != static_cast<size_t>(n))
      throw Error(name + ": the decision " + intList(d) +
                  " does not have n = " + std::to_string(n) + " factors");
    int64_t product = 1;
    for (auto x : d) {
      if (x < 1)
        throw Error(name + ": the decision " + intList(d) + " has a factor below 1");
      if (product > *ext / x)
        throw Error(name + ": the decision " + intList(d) + " multiplies to more than the extent " +
                    std::to_string(*ext));
      product *= x;
    }
    if (product != *ext)
      throw Error(name + ": the decision " + intList(d) + " multiplies to " +
                  std::to_string(product) + ", not the extent " + std::to_string(*ext));
    if (d.back() > maxInner)
      throw Error(name + ": the innermost factor of the decision " + intList(d) +
                  " exceeds max_innermost = " + std::to_string(maxInner));
  } else {
    std::vector<int64_t> inner; // divisors of the extent <= maxInner, ascending
    std::vector<int64_t> large;
    for (int64_t x = 1; x * x <= *ext; ++x)
      if (*ext % x == 0) {
        inner.push_back(x);
        if (x * x != *ext)
          large.push_back(*ext / x);
      }
    inner.insert(inner.end(), large.rbegin(), large.rend());
    std::erase_if(inner, [&](int64_t x) { return x > maxInner || (n == 1 && x != *ext); });
    if (inner.empty())
      throw Error(name + ": extent " + std::to_string(*ext) +
                  " cannot be one factor of at most max_innermost = " + std::to_string(maxInner));
    auto next = [this] { return nextRandom(); };
    d.assign(n, 1);
    d.back() = inner[below(next, inner.size())];
    for (auto p : primeFactors(*ext / d.back()))
      d[below(next, n - 1)] *= p;
  }
  int index = static_cast<int>(trace_.size());
  trace_.append({"sample_perfect_tile", {}, {where}, d, {}, {n, maxInner, *ext}});
  std::vector<ExprRV> out;
  for (int k = 0; k < n; ++k)
    out.push_back(ExprRV{d[k], index, k});
  return out;
}

ExprRV Schedule::sampleCategorical(const std::vector<int64_t>& candidates,
                                   const std::vector<double>& probabilities) {
  return categorical(candidates, probabilities, nullptr);
}

ExprRV Schedule::categorical(const std::vector<int64_t>& cands, const std::vector<double>& probs,
                             const std::vector<int64_t>* decision) {
  const std::string name = "schedule: sample_categorical";
  if (cands.empty())
    throw Error(name + ": no candidates");
  if (probs.size() != cands.size())
    throw Error(name + ": " + std::to_string(cands.size()) + " candidates but " +
                std::to_string(probs.size()) + " probabilities");
  double sum = 0;
  for (double p : probs) {
    if (!std::isfinite(p) || p < 0)
      throw Error(name + ": probability " + attrValueStr(p) + " is not a finite number >= 0");
    sum += p;
  }
  if (sum <= 0)
    throw Error(name + ": the probabilities sum to 0");
  int64_t idx = 0;
  if (decision) {
    if (decision->size() != 1 || (*decision)[0] < 0 ||
        (*decision)[0] >= static_cast<int64_t>(cands.size()))
      throw Error(name + ": the decision " + intList(*decision) + " is not one index into the " +
                  std::to_string(cands.size()) + " candidates " + intList(cands));
    idx = (*decision)[0];
  } else {
    double u = static_cast<double>(nextRandom() >> 11) * 0x1.0p-53 * sum;
    idx = static_cast<int64_t>(cands.size()) - 1;
    double acc = 0;
    for (size_t i = 0; i < cands.size(); ++i) {
      acc += probs[i];
      if (u < acc && probs[i] > 0) {
        idx = static_cast<int64_t>(i);
        break;
      }
    }
    while (probs[idx] == 0) // rounding at the top end: the last possible candidate
      --idx;
  }
  int index = static_cast<int>(trace_.size());
  Instruction in{"sample_categorical", {}, {}, {idx}, {}, cands};
  in.probs = probs;
  trace_.append(std::move(in));
  return ExprRV{cands[idx], index, 0};
}

std::vector<LoopRV> Schedule::computeLocationCandidates(const BlockRV& rv) const {
  auto blk = block(rv);
  std::vector<const Buffer*> written;
  for (auto& w : blk->writes)
    written.push_back(w.buffer.get());
  auto reads = [&](const Block* b) {
    for (auto& r : b->reads)
      for (auto* w : written)
        if (r.buffer.get() == w)
          return true;
    bool found = false;
    auto scan = [&](const Stmt& s) {
      walkStmt(s, [&](const Stmt& x) {
        auto visit = [&](const PrimExpr& e) {
          walkPrimExpr(e, [&](const PrimExpr& y) {
            if (auto* l = as<BufferLoad>(y))
              for (auto* w : written)
                found = found || l->buffer.get() == w;
          });
        };
        if (auto* st = as<BufferStore>(x)) {
          visit(st->value);
          for (auto& i : st->indices)
            visit(i);
        }
      });
    };
    if (b->init)
      scan(b->init);
    scan(b->body);
    return found;
  };
  std::vector<std::string> consumers;
  for (auto* b : blocksUnder(func_->body))
    if (b != blk.get() && !b->iters.empty() && reads(b))
      consumers.push_back(b->name);
  std::vector<LoopRV> out;
  if (consumers.empty())
    return out;
  auto loc = findBlocks(func_->body, consumers[0])[0];
  for (auto* f : loopsAbove(loc.ancestors)) {
    auto under = blocksUnder(f->body);
    auto holds = [&](const std::string& n) {
      for (auto* b : under)
        if (b->name == n)
          return true;
      return false;
    };
    bool all = !holds(blk->name);
    for (auto& c : consumers)
      all = all && holds(c);
    if (all)
      out.push_back(LoopRV{f->var});
  }
  return out;
}

LoopRV Schedule::sampleComputeLocation(const BlockRV& block) {
  return computeLocation(block, nullptr);
}

LoopRV Schedule::computeLocation(const BlockRV& rv, const std::vector<int64_t>* decision) {
  auto cands = computeLocationCandidates(rv);
  auto n = static_cast<int64_t>(cands.size());
  int64_t d;
  if (decision) {
    if (decision->size() != 1 || (*decision)[0] < -1 || (*decision)[0] >= n)
      throw Error("schedule: sample_compute_location: block '" + rv.name + "': the decision " +
                  intList(*decision) + " is neither -1 (root) nor the index of one of its " +
                  std::to_string(n) + " candidate loop(s)");
    d = (*decision)[0];
  } else {
    d = static_cast<int64_t>(below([this] { return nextRandom(); }, n + 1)) - 1;
  }
  int index = static_cast<int>(trace_.size());
  trace_.append({"sample_compute_location", {rv.name}, {}, {d}, {}, {n}});
  LoopRV out{d < 0 ? Ref<PrimVar>() : cands[d].var, index};
  sampledLoops_[index] = out;
  return out;
}

// ---------------------------------------------------------------- replay

bool Schedule::applyTuning(const Instruction& in, const std::vector<LoopRV>& loops) {
  auto need = [&](size_t got, size_t n, const char* what) {
    if (got != n)
      throw Error("schedule replay: '" + in.kind + "' expects " + std::to_string(n) + " " + what +
                  ", got " + std::to_string(got));
  };
  const std::vector<int64_t>* decision = resampling_ ? nullptr : &in.decision;
  if (in.kind == "split" && !in.inputs.empty()) {
    need(loops.size(), 1, "loop(s)");
    std::vector<int64_t> factors;
    for (auto& v : in.inputs)
      factors.push_back(value(v));
    splitImpl(loops[0], std::move(factors), in.inputs);
  } else if (in.kind == "rfactor") {
    need(loops.size(), 1, "loop(s)");
    need(in.params.size(), 1, "parameter(s)");
    rfactor(loops[0], static_cast<int>(in.params[0]));
  } else if (in.kind == "annotate") {
    need(loops.size() + in.blocks.size(), 1, "loop or block");
    need(in.inputs.size() + in.value.has_value(), 1, "value(s)");
    AttrValue v = in.value ? *in.value : AttrValue(value(in.inputs[0]));
    std::vector<ValueRef> inputs;
    if (!in.value)
      inputs.push_back(traceRef(in.inputs[0]));
    if (loops.empty()) {
      BlockRV b = getBlock(in.blocks[0]);
      annotateImpl(nullptr, &b, in.key, v, std::move(inputs));
    } else {
      annotateImpl(&loops[0], nullptr, in.key, v, std::move(inputs));
    }
  } else if (in.kind == "sample_perfect_tile") {
    need(loops.size(), 1, "loop(s)");
    need(in.params.size(), 3, "parameter(s)");
    perfectTile(loops[0], static_cast<int>(in.params[0]), in.params[1], decision);
  } else if (in.kind == "sample_categorical") {
    categorical(in.params, in.probs, decision);
  } else if (in.kind == "sample_compute_location") {
    need(in.blocks.size(), 1, "block(s)");
    computeLocation(getBlock(in.blocks[0]), decision);
  } else {
    return false;
  }
  return true;
}

} // namespace unity::schedule
