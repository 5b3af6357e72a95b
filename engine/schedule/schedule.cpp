// Schedule state, queries, trace plumbing and the shared tree helpers.
//
// Every query walks the current body: functions are small (a few loop nests)
// and walking keeps the state trivially consistent with the immutable IR,
// with no side tables to invalidate after a primitive.
#include "engine/schedule/schedule.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/arith.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using namespace ir;

namespace detail {

namespace {
/// Pre-order walk keeping the ancestor stack; fn returns true to stop.
bool walkWithAncestors(const Stmt& s, std::vector<Stmt>& stack,
                       const std::function<bool(const Stmt&, const std::vector<Stmt>&)>& fn) {
  if (!s)
    return false;
  if (fn(s, stack))
    return true;
  stack.push_back(s);
  bool stop = false;
  auto visit = [&](const Stmt& c) {
    if (!stop)
      stop = walkWithAncestors(c, stack, fn);
  };
  switch (s->kind()) {
  case NodeKind::For:
    visit(as<For>(s)->body);
    break;
  case NodeKind::Block: {
    auto* b = as<Block>(s);
    visit(b->init);
    visit(b->body);
    break;
  }
  case NodeKind::LetStmt:
    visit(as<LetStmt>(s)->body);
    break;
  case NodeKind::IfThenElse:
    visit(as<IfThenElse>(s)->then);
    visit(as<IfThenElse>(s)->otherwise);
    break;
  case NodeKind::SeqStmt:
    for (auto& c : as<SeqStmt>(s)->seq)
      visit(c);
    break;
  case NodeKind::Allocate:
    visit(as<Allocate>(s)->body);
    break;
  default:
    break;
  }
  stack.pop_back();
  return stop;
}
} // namespace

Located findLoop(const Stmt& root, const PrimVar* var) {
  Located out;
  std::vector<Stmt> stack;
  walkWithAncestors(root, stack, [&](const Stmt& s, const std::vector<Stmt>& anc) {
    auto* f = as<For>(s);
    if (!f || f->var.get() != var)
      return false;
    out.node = s;
    out.ancestors = anc;
    return true;
  });
  return out;
}

std::vector<Located> findBlocks(const Stmt& root, const std::string& name) {
  std::vector<Located> out;
  std::vector<Stmt> stack;
  walkWithAncestors(root, stack, [&](const Stmt& s, const std::vector<Stmt>& anc) {
    if (auto* b = as<Block>(s); b && b->name == name)
      out.push_back(Located{s, anc});
    return false;
  });
  return out;
}

Stmt replaceStmt(const Stmt& root, const StmtNode* target, const Stmt& repl) {
  struct Replacer : StmtMutator {
    const StmtNode* target;
    Stmt repl;
    using StmtMutator::mutate;
    Stmt mutate(const Stmt& s) override {
      if (s.get() == target)
        return repl;
      return StmtMutator::mutate(s);
    }
    Stmt visitSeqStmt(const SeqStmt* op, const Stmt& self) override {
      std::vector<Stmt> seq;
      bool changed = false;
      for (auto& c : op->seq) {
        Stmt n = mutate(c);
        changed = changed || !sameNode(n, c);
        if (!n)
          continue;
        // A sequence replacing one element is spliced in: the text format
        // has no nested sequences, so a nested one would not round-trip.
        if (auto* inner = as<SeqStmt>(n); inner && !sameNode(n, c))
          seq.insert(seq.end(), inner->seq.begin(), inner->seq.end());
        else
          seq.push_back(n);
      }
      if (!changed)
        return self;
      return seqStmt(std::move(seq));
    }
    // Expressions never contain statements: skip them.
    PrimExpr mutate(const PrimExpr& e) override { return e; }
  } r;
  r.target = target;
  r.repl = repl;
  return r.mutate(root);
}

std::vector<const Block*> blocksUnder(const Stmt& s) {
  std::vector<const Block*> out;
  walkStmt(s, [&](const Stmt& x) {
    if (auto* b = as<Block>(x))
      out.push_back(b);
  });
  return out;
}

bool usesVar(const PrimExpr& e, const PrimVar* v) {
  bool found = false;
  if (e)
    walkPrimExpr(e, [&](const PrimExpr& x) { found = found || x.get() == v; });
  return found;
}

bool usesAnyVar(const PrimExpr& e, const std::vector<const PrimVar*>& vs) {
  for (auto* v : vs)
    if (usesVar(e, v))
      return true;
  return false;
}

std::vector<const For*> loopsAbove(const std::vector<Stmt>& ancestors) {
  std::vector<const For*> out;
  for (auto& a : ancestors) {
    if (isa<Block>(a))
      out.clear();
    else if (auto* f = as<For>(a))
      out.push_back(f);
  }
  return out;
}

std::string intList(const std::vector<int64_t>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "]";
}

std::string loopName(const For* f) { return "'" + f->var->name + "'"; }

Nest nestOf(const Located& loc) {
  Nest n;
  n.top = loc.node;
  size_t i = loc.ancestors.size();
  while (i > 0) {
    auto* f = as<For>(loc.ancestors[i - 1]);
    if (!f || !sameNode(f->body, n.top))
      break;
    n.top = loc.ancestors[--i];
  }
  if (i > 0 && isa<SeqStmt>(loc.ancestors[i - 1])) {
    n.parent = cast<SeqStmt>(loc.ancestors[i - 1]);
    n.aboveParent.assign(loc.ancestors.begin(), loc.ancestors.begin() + i);
    for (size_t k = 0; k < n.parent->seq.size(); ++k)
      if (sameNode(n.parent->seq[k], n.top))
        n.index = k;
  }
  return n;
}

Stmt removeAllocation(const Stmt& root, const Buffer* buf) {
  struct R : StmtMutator {
    const Buffer* buf;
    using StmtMutator::mutate;
    PrimExpr mutate(const PrimExpr& e) override { return e; }
    Stmt visitAllocate(const Allocate* op, const Stmt& self) override {
      if (op->buffer.get() == buf)
        return mutate(op->body);
      return StmtMutator::visitAllocate(op, self);
    }
    Stmt visitBlock(const Block* op, const Stmt& self) override {
      Stmt base = StmtMutator::visitBlock(op, self);
      auto* b = as<Block>(base);
      auto allocs = b->allocs;
      std::erase_if(allocs, [&](const BufferRef& a) { return a.get() == buf; });
      if (allocs.size() == b->allocs.size())
        return base;
      return make<Block>(b->name, b->iters, b->bindings, b->reads, b->writes, b->init, b->body,
                         allocs, b->predicate, b->annotations);
    }
  } r;
  r.buf = buf;
  return r.mutate(root);
}

std::vector<Range> substituteRegion(const std::vector<Range>& region,
                                    const std::unordered_map<const PrimVar*, PrimExpr>& map) {
  std::vector<Range> out;
  for (auto& rg : region)
    out.push_back(Range{arith::simplify(substitute(rg.min, map)),
                        arith::simplify(substitute(rg.extent, map))});
  return out;
}

} // namespace detail

using namespace detail;

namespace {
bool isRootLike(const Block* b) { return b->iters.empty() && b->bindings.empty(); }
/// A root-like block that writes nothing: the function's root. (A rank-0
/// compute block is root-like too, but it must still get a unique name.)
bool isRoot(const Block* b) { return isRootLike(b) && b->writes.empty(); }

/// FuseTIR copies callee blocks with their names, so a fused function may
/// hold two "T_add" blocks. Handles are names, so the schedule renames
/// duplicates in pre-order ("T_add", "T_add_1", ...) — deterministic, hence
/// replay-safe. The root keeps its name (it is never a handle).
struct UniqueBlockNames : StmtMutator {
  std::unordered_map<std::string, int> seen;
  std::unordered_set<std::string> taken, original;
  using StmtMutator::mutate;
  PrimExpr mutate(const PrimExpr& e) override { return e; }
  Stmt visitBlock(const Block* op, const Stmt& self) override {
    std::string name = op->name;
    if (!isRoot(op) && !taken.insert(name).second) {
      int& n = seen[op->name];
      do
        name = op->name + "_" + std::to_string(++n);
      while (original.count(name) || !taken.insert(name).second);
    }
    Stmt init = op->init ? mutate(op->init) : op->init;
    Stmt body = mutate(op->body);
    if (name == op->name && sameNode(init, op->init) && sameNode(body, op->body))
      return self;
    return make<Block>(name, op->iters, op->bindings, op->reads, op->writes, init, body, op->allocs,
                       op->predicate, op->annotations);
  }
};
} // namespace

Schedule::Schedule(PrimFuncRef func, uint64_t seed) : func_(std::move(func)), rng_(seed) {
  if (!func_)
    throw Error("schedule: the function is null");
  UniqueBlockNames u;
  // Reserve every existing name first so a renamed block never takes one.
  for (auto* b : blocksUnder(func_->body))
    if (!isRoot(b))
      u.original.insert(b->name);
  setBody(u.mutate(func_->body));
}

void Schedule::setBody(Stmt body) {
  if (!sameNode(body, func_->body))
    func_ = make<PrimFunc>(func_->params, std::move(body), func_->attrs);
}

BlockRV Schedule::getBlock(const std::string& name) const {
  auto found = findBlocks(func_->body, name);
  if (found.empty())
    throw Error("schedule: no block named '" + name + "'");
  if (found.size() > 1)
    throw Error("schedule: " + std::to_string(found.size()) + " blocks are named '" + name +
                "'; block names must be unique");
  return BlockRV{name};
}

Ref<Block> Schedule::block(const BlockRV& rv) const {
  getBlock(rv.name);
  return cast<Block>(findBlocks(func_->body, rv.name)[0].node);
}

std::vector<BlockRV> Schedule::getBlocks() const {
  std::vector<BlockRV> out;
  for (auto* b : blocksUnder(func_->body))
    if (!isRootLike(b))
      out.push_back(BlockRV{b->name});
  return out;
}

std::vector<LoopRV> Schedule::getLoops(const BlockRV& rv) const {
  getBlock(rv.name);
  auto loc = findBlocks(func_->body, rv.name)[0];
  std::vector<LoopRV> out;
  for (auto* f : loopsAbove(loc.ancestors))
    out.push_back(LoopRV{f->var});
  return out;
}

Ref<For> Schedule::loop(const LoopRV& rv) const {
  if (!rv.var)
    throw Error(rv.sample >= 0 ? "schedule: the loop sampled by instruction " +
                                     std::to_string(rv.sample) + " is the root, not a loop"
                               : std::string("schedule: null loop handle"));
  auto loc = findLoop(func_->body, rv.var.get());
  if (!loc)
    throw Error("schedule: no loop over '" + rv.var->name +
                "' in the function (it was replaced by an earlier split or fuse)");
  return cast<For>(loc.node);
}

std::vector<BlockRV> Schedule::getBlocksUnder(const LoopRV& rv) const {
  std::vector<BlockRV> out;
  for (auto* b : blocksUnder(loop(rv)->body))
    out.push_back(BlockRV{b->name});
  return out;
}

LoopLocator Schedule::locate(const LoopRV& rv) const {
  // A sampled loop is recorded as a reference to its sampling instruction,
  // so that replaying another decision moves the instruction using it.
  if (rv.sample >= 0) {
    auto it = sampledLoops_.find(rv.sample);
    if (it != sampledLoops_.end() && it->second.var.get() == rv.var.get())
      return LoopLocator{"", 0, rv.sample};
  }
  auto f = loop(rv);
  auto blocks = blocksUnder(f->body);
  if (blocks.empty())
    throw Error("schedule: loop '" + rv.var->name + "' contains no block, so it cannot be named");
  auto loops = getLoops(BlockRV{blocks[0]->name});
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].var.get() == rv.var.get())
      return LoopLocator{blocks[0]->name, static_cast<int>(i)};
  throw Error("schedule: loop '" + rv.var->name + "' is not among the loops of block '" +
              blocks[0]->name + "'");
}

LoopRV Schedule::resolve(const LoopLocator& l) const {
  if (l.isRef()) {
    auto it = sampledLoops_.find(l.inst);
    if (it == sampledLoops_.end())
      throw Error("schedule: loop reference to instruction " + std::to_string(l.inst) +
                  ", which is not a sample_compute_location of this trace");
    return it->second;
  }
  auto loops = getLoops(getBlock(l.block));
  if (l.index < 0 || l.index >= static_cast<int>(loops.size()))
    throw Error("schedule: block '" + l.block + "' has " + std::to_string(loops.size()) +
                " loops; loop index " + std::to_string(l.index) + " is out of range");
  return loops[l.index];
}

void Schedule::apply(const Instruction& in) {
  auto needLoops = [&](size_t n, bool atLeast = false) {
    if (atLeast ? in.loops.size() < n : in.loops.size() != n)
      throw Error("schedule replay: '" + in.kind + "' expects " + (atLeast ? "at least " : "") +
                  std::to_string(n) + " loop(s), got " + std::to_string(in.loops.size()));
  };
  auto needBlocks = [&](size_t n) {
    if (in.blocks.size() != n)
      throw Error("schedule replay: '" + in.kind + "' expects " + std::to_string(n) +
                  " block(s), got " + std::to_string(in.blocks.size()));
  };
  std::vector<LoopRV> loops;
  for (auto& l : in.loops)
    loops.push_back(resolve(l));
  if (applyTuning(in, loops))
    return;
  if (in.kind == "split") {
    needLoops(1);
    split(loops[0], in.decision);
  } else if (in.kind == "split_tail") {
    needLoops(1);
    if (in.decision.size() != 1)
      throw Error("schedule replay: 'split_tail' expects one factor, got " +
                  std::to_string(in.decision.size()));
    splitWithTail(loops[0], in.decision[0]);
  } else if (in.kind == "fuse") {
    needLoops(2, true);
    fuse(loops);
  } else if (in.kind == "reorder") {
    needLoops(2, true);
    reorder(loops);
  } else if (in.kind == "parallel") {
    needLoops(1);
    parallel(loops[0]);
  } else if (in.kind == "vectorize") {
    needLoops(1);
    vectorize(loops[0]);
  } else if (in.kind == "unroll") {
    needLoops(1);
    unroll(loops[0]);
  } else if (in.kind == "compute_inline") {
    needBlocks(1);
    computeInline(getBlock(in.blocks[0]));
  } else if (in.kind == "decompose_reduction") {
    needBlocks(1);
    needLoops(1);
    decomposeReduction(getBlock(in.blocks[0]), loops[0]);
  } else if (in.kind == "cache_read" || in.kind == "cache_write") {
    needBlocks(1);
    if (in.decision.size() != 2 || in.decision[1] < 0 || in.decision[1] > 1)
      throw Error("schedule replay: '" + in.kind + "' expects [buffer index, scope 0 or 1]");
    auto idx = static_cast<int>(in.decision[0]);
    const char* scope = in.decision[1] ? "local" : "global";
    if (in.kind == "cache_read")
      cacheRead(getBlock(in.blocks[0]), idx, scope);
    else
      cacheWrite(getBlock(in.blocks[0]), idx, scope);
  } else if (in.kind == "compute_at" || in.kind == "reverse_compute_at") {
    needBlocks(1);
    needLoops(1);
    if (in.kind == "compute_at")
      computeAt(getBlock(in.blocks[0]), loops[0]);
    else
      reverseComputeAt(getBlock(in.blocks[0]), loops[0]);
  } else if (in.kind == "reverse_compute_inline") {
    needBlocks(1);
    reverseComputeInline(getBlock(in.blocks[0]));
  } else if (in.kind == "pack_layout") {
    needBlocks(1);
    if (in.decision.size() != 2 && in.decision.size() != 3)
      throw Error("schedule replay: 'pack_layout' expects [parameter index, panel width(, "
                  "axis)], got " +
                  std::to_string(in.decision.size()) + " value(s)");
    int64_t p = in.decision[0];
    if (p < 0 || p >= static_cast<int64_t>(func_->params.size()) || !func_->params[p].buffer)
      throw Error("schedule replay: 'pack_layout': parameter " + std::to_string(p) +
                  " is not a buffer parameter of the function");
    if (in.loops.size() > 1)
      throw Error("schedule replay: 'pack_layout' expects at most one loop, got " +
                  std::to_string(in.loops.size()));
    int64_t axis = in.decision.size() == 3 ? in.decision[2] : -1;
    if (axis < -1 || axis > 64)
      throw Error("schedule replay: 'pack_layout': axis " + std::to_string(axis) +
                  " is out of range");
    packLayout(getBlock(in.blocks[0]), func_->params[p].buffer->name, in.decision[1],
               static_cast<int>(axis), loops.empty() ? LoopRV{} : loops[0]);
  } else {
    throw Error("schedule replay: unknown instruction '" + in.kind + "'");
  }
}

Schedule Schedule::replay(PrimFuncRef func, const Trace& trace) {
  return replayImpl(std::move(func), trace, kDefaultSeed, false);
}

Schedule Schedule::resample(PrimFuncRef func, const Trace& trace, uint64_t seed) {
  return replayImpl(std::move(func), trace, seed, true);
}

Schedule Schedule::replayImpl(PrimFuncRef func, const Trace& trace, uint64_t seed, bool resample) {
  Schedule s(std::move(func), seed);
  s.resampling_ = resample;
  size_t i = 0;
  for (auto& in : trace.instructions()) {
    try {
      s.apply(in);
    } catch (const Error& e) {
      throw Error("schedule replay: instruction " + std::to_string(i) + " (" + in.kind +
                  "): " + e.message());
    }
    ++i;
  }
  s.resampling_ = false;
  return s;
}

} // namespace unity::schedule
