// Block primitives: computeInline and decomposeReduction.
//
// computeInline(P): P must store `T[v0, .., vn] = value` with its iteration
// variables as the indices (each once), read nothing of T, be unpredicated
// and not a reduction, and T must be an intermediate (not a parameter)
// written by no other block. Every load T[e0, .., en] elsewhere becomes
// value[v := e]; a reader's read region of T becomes P's read regions at
// the reader's point (or whole buffers when the reader reads a range of T).
// P's loop nest (the loops that hold nothing else) and T's allocation go.
//
// decomposeReduction(B, l): the init of B moves into a block "B_init" whose
// spatial iterators are B's, bound through fresh copies of the loops from l
// inwards that feed spatial iterators; that nest goes right before l, and B
// loses its init. Every init then runs before every update of the same
// element (l and its outer loops enclose all of them), which is what makes
// the reduction loops free to move and the update loop free of the
// first-iteration test.
#include <algorithm>
#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using namespace ir;
using namespace detail;

namespace {

using VarMap = std::unordered_map<const PrimVar*, PrimExpr>;

std::vector<Range> wholeBuffer(const BufferRef& b) {
  std::vector<Range> r;
  for (auto& d : b->shape)
    r.push_back(Range{makeConst(d->dtype, 0), d});
  return r;
}

/// Replaces loads of `buf` by the producer's value and rewrites read regions.
struct Inliner : StmtMutator {
  const Buffer* buf = nullptr;
  std::vector<const PrimVar*> iters; // the producer's, in store-index order
  PrimExpr value;
  std::vector<BufferRegion> producerReads;
  int uses = 0;

  using StmtMutator::mutate;
  PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self) override {
    PrimExpr base = StmtMutator::visitBufferLoad(op, self);
    auto* load = as<BufferLoad>(base);
    if (load->buffer.get() != buf)
      return base;
    ++uses;
    VarMap m;
    for (size_t d = 0; d < iters.size(); ++d)
      m[iters[d]] = load->indices[d];
    return substitute(value, m);
  }
  Stmt visitBlock(const Block* op, const Stmt& self) override {
    Stmt init = op->init ? mutate(op->init) : op->init;
    Stmt body = mutate(op->body);
    bool readsBuf = false;
    for (auto& r : op->reads)
      readsBuf = readsBuf || r.buffer.get() == buf;
    if (!readsBuf && sameNode(init, op->init) && sameNode(body, op->body))
      return self;
    std::vector<BufferRegion> reads;
    auto addRead = [&](BufferRegion r) {
      for (auto& x : reads)
        if (x.buffer.get() == r.buffer.get() && x.region.size() == r.region.size()) {
          bool same = true;
          for (size_t d = 0; d < r.region.size() && same; ++d)
            same = arith::provablyEqual(x.region[d].min, r.region[d].min) &&
                   arith::provablyEqual(x.region[d].extent, r.region[d].extent);
          if (same)
            return;
        }
      reads.push_back(std::move(r));
    };
    for (auto& r : op->reads) {
      if (r.buffer.get() != buf) {
        addRead(r);
        continue;
      }
      bool point = true;
      for (auto& rg : r.region)
        point = point && isConstInt(rg.extent, 1);
      VarMap m;
      for (size_t d = 0; d < iters.size(); ++d)
        m[iters[d]] = r.region[d].min;
      for (auto& pr : producerReads) {
        if (!point) {
          addRead(BufferRegion{pr.buffer, wholeBuffer(pr.buffer)});
          continue;
        }
        addRead(BufferRegion{pr.buffer, substituteRegion(pr.region, m)});
      }
    }
    return make<Block>(op->name, op->iters, op->bindings, std::move(reads), op->writes, init, body,
                       op->allocs, op->predicate, op->annotations);
  }
};

bool writesBuffer(const Block* b, const Buffer* buf) {
  for (auto& w : b->writes)
    if (w.buffer.get() == buf)
      return true;
  // Stores of the block itself, not of blocks nested in it (a root block).
  struct Finder : StmtVisitor {
    const Buffer* buf;
    bool found = false;
    using StmtVisitor::visit;
    void visit(const Stmt& s) override {
      if (isa<Block>(s))
        return;
      if (auto* st = as<BufferStore>(s))
        found = found || st->buffer.get() == buf;
      StmtVisitor::visit(s);
    }
  } f;
  f.buf = buf;
  f.visit(b->body);
  return f.found;
}

} // namespace

void Schedule::computeInline(const BlockRV& rv) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: computeInline: block '" + name + "' " + why);
  };
  if (blk->init)
    fail("is a reduction (it has an init); only elementwise or injective blocks can be inlined");
  auto* st = inlinedStore(blk.get(), fail);
  const BufferRef& buf = st->buffer;
  if (blk->predicate) {
    auto c = asConstInt(blk->predicate);
    if (!c || *c == 0)
      fail("is predicated (a non-exact split); inline before splitting");
  }
  if (st->indices.size() != blk->iters.size())
    fail("stores to '" + buf->name + "' with " + std::to_string(st->indices.size()) +
         " indices but has " + std::to_string(blk->iters.size()) + " iterators");
  std::vector<const PrimVar*> iters;
  for (auto& idx : st->indices) {
    auto* v = as<PrimVar>(idx);
    bool isIter = false;
    for (auto& it : blk->iters)
      isIter = isIter || (v && it.var.get() == v);
    if (!isIter || std::find(iters.begin(), iters.end(), v) != iters.end())
      fail("stores to '" + buf->name +
           "' at indices that are not its iteration variables, each once");
    iters.push_back(v);
  }
  bool selfRead = false;
  walkPrimExpr(st->value, [&](const PrimExpr& e) {
    if (auto* l = as<BufferLoad>(e))
      selfRead = selfRead || l->buffer.get() == buf.get();
  });
  if (selfRead)
    fail("reads its own output '" + buf->name + "'");
  for (auto& p : func_->params)
    if (p.buffer.get() == buf.get())
      fail("writes '" + buf->name + "', a parameter of the function (an output cannot be inlined)");
  for (auto* other : blocksUnder(func_->body))
    if (other != blk.get() && writesBuffer(other, buf.get()))
      fail("writes '" + buf->name + "', which block '" + other->name + "' writes too");

  // The statement to remove: the block and the loops that hold only it.
  Nest nest = nestOf(findBlocks(func_->body, name)[0]);
  if (!nest.parent)
    fail("is not one of a sequence of loop nests, so nothing after it can read '" + buf->name +
         "'");
  for (auto& r : blk->reads)
    if (r.buffer.get() == buf.get())
      fail("declares a read of its own output '" + buf->name + "'");

  Stmt body = replaceStmt(func_->body, nest.top.get(), Stmt());
  Inliner in;
  in.buf = buf.get();
  in.iters = iters;
  in.value = st->value;
  in.producerReads = blk->reads;
  body = in.mutate(body);
  body = removeAllocation(body, buf.get());
  // A read left behind (e.g. in a loop extent) would be dangling.
  bool dangling = false;
  walkStmt(body, [&](const Stmt& s) {
    if (auto* x = as<BufferStore>(s))
      dangling = dangling || x->buffer.get() == buf.get();
  });
  if (dangling)
    fail("cannot be inlined: '" + buf->name + "' is still stored to after inlining");
  setBody(body);
  trace_.append({"compute_inline", {name}, {}, {}});
}

BlockRV Schedule::decomposeReduction(const BlockRV& rv, const LoopRV& lrv) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: decomposeReduction: block '" + name + "' " + why);
  };
  if (!blk->init)
    fail("has no init (it is not a reduction, or it was decomposed already)");
  auto loc = findBlocks(func_->body, name)[0];
  auto fors = loopsAbove(loc.ancestors);
  size_t pos = fors.size();
  for (size_t i = 0; i < fors.size(); ++i)
    if (lrv.var && fors[i]->var.get() == lrv.var.get())
      pos = i;
  if (pos == fors.size())
    fail("is not under loop '" + (lrv.var ? lrv.var->name : std::string("<null>")) + "'");
  LoopLocator where = locate(lrv);

  // Fresh iterators for the spatial iterators of the block.
  VarMap iterMap;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> spatialBindings;
  std::vector<const PrimVar*> reduceIters;
  for (size_t i = 0; i < blk->iters.size(); ++i) {
    auto& it = blk->iters[i];
    if (it.type == IterType::Reduce) {
      reduceIters.push_back(it.var.get());
      continue;
    }
    auto nv = primVar(it.var->name, it.var->dtype);
    iterMap[it.var.get()] = nv;
    iters.push_back(IterVar{nv, it.dom, IterType::Spatial});
    spatialBindings.push_back(blk->bindings[i]);
  }
  // Loops from `pos` inwards that feed a spatial iterator are copied.
  VarMap loopMap;
  std::vector<const For*> kept;
  std::vector<const PrimVar*> dropped;
  for (size_t i = pos; i < fors.size(); ++i) {
    bool feeds = false;
    for (auto& b : spatialBindings)
      feeds = feeds || usesVar(b, fors[i]->var.get());
    if (feeds) {
      kept.push_back(fors[i]);
      loopMap[fors[i]->var.get()] = primVar(fors[i]->var->name + "_init", fors[i]->var->dtype);
    } else {
      dropped.push_back(fors[i]->var.get());
    }
  }
  for (auto* f : kept)
    if (usesAnyVar(f->min, dropped) || usesAnyVar(f->extent, dropped))
      fail("cannot be decomposed: the range of loop '" + f->var->name +
           "' depends on a reduction loop");
  for (auto& b : spatialBindings)
    b = substitute(b, loopMap);
  Stmt initBody = substitute(blk->init, iterMap);
  bool readsReduce = false;
  walkStmt(initBody, [&](const Stmt& s) {
    if (auto* st = as<BufferStore>(s))
      for (auto& x : st->indices)
        readsReduce = readsReduce || usesAnyVar(x, reduceIters);
  });
  if (readsReduce)
    fail("has an init that depends on a reduction iterator");
  std::vector<BufferRegion> writes;
  for (auto& w : blk->writes) {
    BufferRegion nw{w.buffer, {}};
    for (auto& r : w.region) {
      if (usesAnyVar(r.min, reduceIters) || usesAnyVar(r.extent, reduceIters))
        fail("writes a region that depends on a reduction iterator");
      nw.region.push_back(Range{substitute(r.min, iterMap), substitute(r.extent, iterMap)});
    }
    writes.push_back(std::move(nw));
  }
  // Predicate: keep the conjuncts over kept loops / spatial iterators.
  PrimExpr pred;
  if (blk->predicate) {
    std::vector<PrimExpr> conj{blk->predicate}, parts;
    while (!conj.empty()) {
      PrimExpr c = conj.back();
      conj.pop_back();
      if (auto* a = as<BinaryExpr>(c); a && a->op() == NodeKind::And) {
        conj.push_back(a->a);
        conj.push_back(a->b);
      } else {
        parts.push_back(c);
      }
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      bool usesDropped = usesAnyVar(*it, dropped) || usesAnyVar(*it, reduceIters);
      std::vector<const PrimVar*> keptVars;
      for (auto* f : kept)
        keptVars.push_back(f->var.get());
      for (auto& [k, v] : iterMap)
        keptVars.push_back(k);
      if (usesDropped && usesAnyVar(*it, keptVars))
        fail("has a predicate mixing reduction and spatial loops; it cannot be split");
      if (usesDropped)
        continue;
      PrimExpr c = substitute(substitute(*it, loopMap), iterMap);
      pred = pred ? logicalAnd(pred, c) : c;
    }
  }
  std::string initName = name + "_init";
  for (int n = 1; !findBlocks(func_->body, initName).empty(); ++n)
    initName = name + "_init_" + std::to_string(n);
  Stmt nest = make<Block>(initName, iters, spatialBindings, std::vector<BufferRegion>{}, writes,
                          Stmt(), initBody, std::vector<BufferRef>{}, pred, blk->annotations);
  for (size_t i = kept.size(); i-- > 0;) {
    auto* f = kept[i];
    nest = make<For>(cast<PrimVar>(loopMap[f->var.get()]), substitute(f->min, loopMap),
                     substitute(f->extent, loopMap), ForKind::Serial, nest);
  }
  Stmt updated = make<Block>(blk->name, blk->iters, blk->bindings, blk->reads, blk->writes, Stmt(),
                             blk->body, blk->allocs, blk->predicate, blk->annotations);

  struct Rewriter : StmtMutator {
    const StmtNode* block;
    Stmt updated, nest;
    const PrimVar* loopVar;
    using StmtMutator::mutate;
    PrimExpr mutate(const PrimExpr& e) override { return e; }
    Stmt mutate(const Stmt& s) override {
      if (s.get() == block)
        return updated;
      return StmtMutator::mutate(s);
    }
    Stmt visitFor(const For* op, const Stmt& self) override {
      Stmt r = StmtMutator::visitFor(op, self);
      if (op->var.get() == loopVar)
        return seqStmt({nest, r});
      return r;
    }
  } rw;
  rw.block = blk.get();
  rw.updated = updated;
  rw.nest = nest;
  rw.loopVar = fors[pos]->var.get();
  setBody(rw.mutate(func_->body));
  trace_.append({"decompose_reduction", {name}, {where}, {}});
  return BlockRV{initName};
}

} // namespace unity::schedule
