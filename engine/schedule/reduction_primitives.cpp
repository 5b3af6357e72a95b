// rfactor: factoring a reduction over one of its loops (TVM's rfactor).
//
// Block B: `C[idx] = C[idx] op x` (op add, mul, max or min: commutative and
// associative) with init `C[idx] = e`, under loops some of which feed its
// spatial iterators (S) and some its reduction iterators (R). rfactor(r, a)
// for r in R becomes
//
//   for <B's loops, unchanged>:            block B_rf (r is spatial here)
//     C_rf[idx +r at a] = C_rf[..] op x    init C_rf[..] = e
//   for <copies of S and r, in order>:     block B (r is its reduction)
//     C[idx] = C[idx] op C_rf[idx +r at a] init C[idx] = e
//
// where C_rf has r's extent inserted at axis a of C's shape. B_rf's
// iterators are B's spatial ones, one spatial iterator for r and one
// reduction iterator per other loop of R; B's reduction iterators become
// their bindings over those (so any split/fuse of the reduction loops
// carries over). Partial sums over r are then independent: r can be
// vectorized or parallelized in B_rf, which is the point. The write-back
// nest goes right after the nest of B's first loop that does not feed only
// spatial iterators: inside the leading row loops of a row reduction
// (`for i: for k_o: for k_i`, write-back under i, where the row's partials
// are still in L1 and a temporary of one row suffices), after B's whole nest
// when its outermost loop is a reduction one. Every partial result is then
// complete before it is read; blocks sharing that nest may not touch C.
// Blocks after it in the row loops may: they see the finished row (the
// tail of a splitWithTail of the reduction loop adds the last elements).
// Preconditions are checked, each failure names the block or loop: exactly
// one block under r, an init, no predicate (an exact split), a single store
// of that shape, no loop feeding both spatial and reduction iterators, loop
// ranges independent of the other loops.
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

bool sameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!arith::provablyEqual(a[i], b[i]))
      return false;
  return true;
}

bool loads(const PrimExpr& e, const Buffer* buf) {
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* l = as<BufferLoad>(x))
      found = found || l->buffer.get() == buf;
  });
  return found;
}

bool touches(const Block* b, const Buffer* buf) {
  for (auto& r : b->reads)
    if (r.buffer.get() == buf)
      return true;
  for (auto& w : b->writes)
    if (w.buffer.get() == buf)
      return true;
  bool found = false;
  auto scan = [&](const Stmt& s) {
    if (!s)
      return;
    walkStmt(s, [&](const Stmt& x) {
      if (auto* st = as<BufferStore>(x)) {
        found = found || st->buffer.get() == buf || loads(st->value, buf);
        for (auto& i : st->indices)
          found = found || loads(i, buf);
      }
    });
  };
  scan(b->init);
  scan(b->body);
  return found;
}

template <class T> std::vector<T> insertAt(std::vector<T> v, size_t at, T x) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), std::move(x));
  return v;
}

/// The loop variable as an iterator value in [0, extent).
PrimExpr fromZero(const For* f) {
  return isConstInt(f->min, 0) ? PrimExpr(f->var) : arith::simplify(f->var - f->min);
}

} // namespace

BlockRV Schedule::rfactor(const LoopRV& rv, int factorAxis) {
  auto lf = loop(rv);
  const std::string loopName = "'" + lf->var->name + "'";
  auto under = blocksUnder(lf->body);
  if (under.size() != 1)
    throw Error("schedule: rfactor: loop " + loopName + " holds " + std::to_string(under.size()) +
                " blocks; rfactor needs exactly one (the reduction block)");
  auto blkLoc = findBlocks(func_->body, under[0]->name)[0];
  auto blk = cast<Block>(blkLoc.node);
  const std::string name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: rfactor: block '" + name + "' " + why);
  };
  LoopLocator where = locate(rv);

  // ---- the reduction's shape
  if (!blk->init)
    fail("has no init (it is not a reduction, or decomposeReduction split its init off)");
  if (blk->predicate) {
    auto c = asConstInt(blk->predicate);
    if (!c || *c == 0)
      fail("is predicated (a non-exact split); rfactor needs exact splits");
  }
  if (!blk->allocs.empty())
    fail("allocates buffers of its own");
  auto* st = as<BufferStore>(blk->body);
  auto* ist = as<BufferStore>(blk->init);
  if (!st || !ist)
    fail("is not a single store with a single-store init");
  const BufferRef& buf = st->buffer;
  if (ist->buffer.get() != buf.get() || !sameIndices(ist->indices, st->indices))
    fail("has an init that does not store the element its update stores");
  if (blk->writes.size() != 1 || blk->writes[0].buffer.get() != buf.get())
    fail("does not write exactly its store's buffer '" + buf->name + "'");
  auto* comb = as<BinaryExpr>(st->value);
  NodeKind op = comb ? comb->op() : NodeKind::IntImm;
  if (op != NodeKind::Add && op != NodeKind::Mul && op != NodeKind::Max && op != NodeKind::Min)
    fail("does not combine with add, mul, max or min (a commutative reduction)");
  auto isAcc = [&](const PrimExpr& e) {
    auto* l = as<BufferLoad>(e);
    return l && l->buffer.get() == buf.get() && sameIndices(l->indices, st->indices);
  };
  bool accFirst = isAcc(comb->a);
  if (!accFirst && !isAcc(comb->b))
    fail("does not update '" + buf->name + "' as " + buf->name + "[idx] = " + buf->name +
         "[idx] op x");
  PrimExpr x = accFirst ? comb->b : comb->a;
  if (loads(x, buf.get()))
    fail("reads '" + buf->name + "' in the reduced value");

  std::vector<const PrimVar*> reduceIters;
  std::vector<size_t> spatialIdx;
  for (size_t i = 0; i < blk->iters.size(); ++i) {
    if (blk->iters[i].type == IterType::Reduce)
      reduceIters.push_back(blk->iters[i].var.get());
    else
      spatialIdx.push_back(i);
  }
  for (auto& i : st->indices)
    if (usesAnyVar(i, reduceIters))
      fail("stores at an index that depends on a reduction iterator");

  // ---- loops: spatial (copied for the write-back), reduction (R)
  auto fors = loopsAbove(blkLoc.ancestors);
  auto feeds = [&](const For* f, IterType t) {
    for (size_t i = 0; i < blk->iters.size(); ++i)
      if (blk->iters[i].type == t && usesVar(blk->bindings[i], f->var.get()))
        return true;
    return false;
  };
  std::vector<const PrimVar*> allLoopVars;
  for (auto* f : fors)
    allLoopVars.push_back(f->var.get());
  std::vector<const For*> spatialLoops, reduceLoops, wbLoops;
  bool found = false;
  // The leading loops feeding only spatial iterators (the rows of a row
  // reduction): the write-back goes inside them, right after the nest of
  // the first other loop, instead of after the whole nest.
  size_t prefix = 0;
  while (prefix < fors.size() && feeds(fors[prefix], IterType::Spatial) &&
         !feeds(fors[prefix], IterType::Reduce))
    ++prefix;
  for (auto* f : fors) {
    bool s = feeds(f, IterType::Spatial), r = feeds(f, IterType::Reduce);
    if (f == lf.get()) {
      found = true;
      if (s)
        throw Error("schedule: rfactor: loop " + loopName + " feeds a spatial iterator of block '" +
                    name + "'");
      if (!r)
        throw Error("schedule: rfactor: loop " + loopName +
                    " feeds no reduction iterator of block '" + name + "'");
    }
    if (s && r)
      fail("has the loop '" + f->var->name + "' feeding both spatial and reduction iterators");
    if (usesAnyVar(f->min, allLoopVars) || usesAnyVar(f->extent, allLoopVars))
      fail("has the loop '" + f->var->name + "' whose range depends on another loop");
    if (s)
      spatialLoops.push_back(f);
    if (r)
      reduceLoops.push_back(f);
    if (s || f == lf.get())
      wbLoops.push_back(f);
  }
  if (!found)
    throw Error("schedule: rfactor: loop " + loopName + " is not one of the loops of block '" +
                name + "' (a block lies between them)");

  int ndim = buf->ndim();
  int axis = factorAxis < 0 ? factorAxis + ndim + 1 : factorAxis;
  if (axis < 0 || axis > ndim)
    throw Error("schedule: rfactor: factor axis " + std::to_string(factorAxis) + " is outside [" +
                std::to_string(-ndim - 1) + ", " + std::to_string(ndim) + "] for the " +
                std::to_string(ndim) + "-d buffer '" + buf->name + "'");

  // The nest to rewrite: the outermost of the block's loops (top); the
  // write-back follows the nest of its first loop that is not a leading
  // spatial one (at).
  auto position = [&](const For* f) {
    size_t pos = 0;
    while (blkLoc.ancestors[pos].get() != f)
      ++pos;
    return pos;
  };
  const For* topFor = fors[0];
  size_t topPos = position(topFor);
  Stmt top = blkLoc.ancestors[topPos];
  const For* atFor = fors[prefix];
  Stmt at = blkLoc.ancestors[position(atFor)];
  for (auto* b : blocksUnder(at))
    if (b != blk.get() && touches(b, buf.get()))
      fail("shares the loop '" + atFor->var->name + "' with block '" + b->name + "', which uses '" +
           buf->name + "'; the write-back after that nest would come too late");

  // ---- B_rf
  DataType lt = lf->var->dtype;
  auto vRf = primVar("v_" + lf->var->name, lt);
  VarMap loopToIter; // loop var -> iterator expression (min + iter)
  std::vector<IterVar> rfIters;
  std::vector<PrimExpr> rfBindings;
  for (auto i : spatialIdx) {
    rfIters.push_back(blk->iters[i]);
    rfBindings.push_back(blk->bindings[i]);
  }
  rfIters.push_back(IterVar{vRf, {makeConst(lt, 0), lf->extent}, IterType::Spatial});
  rfBindings.push_back(fromZero(lf.get()));
  loopToIter[lf->var.get()] = isConstInt(lf->min, 0) ? PrimExpr(vRf) : lf->min + vRf;
  for (auto* f : reduceLoops) {
    if (f == lf.get())
      continue;
    auto v = primVar("v_" + f->var->name, f->var->dtype);
    rfIters.push_back(IterVar{v, {makeConst(f->var->dtype, 0), f->extent}, IterType::Reduce});
    rfBindings.push_back(fromZero(f));
    loopToIter[f->var.get()] = isConstInt(f->min, 0) ? PrimExpr(v) : f->min + v;
  }
  VarMap reduceSubst; // B's reduction iterators -> expressions of B_rf's iterators
  for (size_t i = 0; i < blk->iters.size(); ++i)
    if (blk->iters[i].type == IterType::Reduce)
      reduceSubst[blk->iters[i].var.get()] =
          arith::simplify(substitute(blk->bindings[i], loopToIter));

  std::vector<PrimExpr> shape = insertAt(buf->shape, axis, lf->extent);
  auto rfBuf = makeBuffer(buf->name + "_rf", buf->dtype, shape, "global");
  auto rfIdx = insertAt(st->indices, axis, PrimExpr(vRf));
  PrimExpr xRf = substitute(x, reduceSubst);
  PrimExpr accRf = make<BufferLoad>(rfBuf, rfIdx);
  Stmt rfInit = make<BufferStore>(rfBuf, ist->value, rfIdx);
  Stmt rfBody =
      make<BufferStore>(rfBuf, accFirst ? binary(op, accRf, xRf) : binary(op, xRf, accRf), rfIdx);
  std::vector<BufferRegion> rfReads;
  for (auto& r : blk->reads) {
    if (r.buffer.get() == buf.get())
      continue;
    rfReads.push_back(BufferRegion{r.buffer, substituteRegion(r.region, reduceSubst)});
  }
  BufferRegion rfWrite{
      rfBuf, insertAt(blk->writes[0].region, axis, Range{PrimExpr(vRf), makeConst(lt, 1)})};
  std::string rfName = name + "_rf";
  for (int n = 1; !findBlocks(func_->body, rfName).empty(); ++n)
    rfName = name + "_rf_" + std::to_string(n);
  Stmt rfBlock =
      make<Block>(rfName, rfIters, rfBindings, rfReads, std::vector<BufferRegion>{rfWrite}, rfInit,
                  rfBody, std::vector<BufferRef>{}, PrimExpr(), blk->annotations);

  // ---- the write-back block B and its nest
  VarMap loopCopy, iterMap;
  std::vector<Ref<PrimVar>> wbVars;
  wbLoops.erase(wbLoops.begin(), wbLoops.begin() + static_cast<std::ptrdiff_t>(prefix));
  for (auto* f : wbLoops) {
    auto v = primVar(f->var->name + "_wb", f->var->dtype);
    loopCopy[f->var.get()] = v;
    wbVars.push_back(v);
  }
  std::vector<IterVar> wbIters;
  std::vector<PrimExpr> wbBindings;
  for (auto i : spatialIdx) {
    auto& it = blk->iters[i];
    auto v = primVar(it.var->name, it.var->dtype);
    iterMap[it.var.get()] = v;
    wbIters.push_back(IterVar{v, it.dom, IterType::Spatial});
    wbBindings.push_back(substitute(blk->bindings[i], loopCopy));
  }
  auto vWb = primVar("v_" + lf->var->name, lt);
  wbIters.push_back(IterVar{vWb, {makeConst(lt, 0), lf->extent}, IterType::Reduce});
  PrimExpr rfLoopCopy = loopCopy[lf->var.get()];
  wbBindings.push_back(isConstInt(lf->min, 0) ? rfLoopCopy : arith::simplify(rfLoopCopy - lf->min));
  std::vector<PrimExpr> idx;
  for (auto& i : st->indices)
    idx.push_back(substitute(i, iterMap));
  auto rfIdxWb = insertAt(idx, axis, PrimExpr(vWb));
  PrimExpr part = make<BufferLoad>(rfBuf, rfIdxWb), acc = make<BufferLoad>(buf, idx);
  Stmt wbInit = make<BufferStore>(buf, substitute(ist->value, iterMap), idx);
  Stmt wbBody =
      make<BufferStore>(buf, accFirst ? binary(op, acc, part) : binary(op, part, acc), idx);
  BufferRegion wbWrite{buf, {}};
  for (auto& rg : blk->writes[0].region)
    wbWrite.region.push_back(Range{substitute(rg.min, iterMap), substitute(rg.extent, iterMap)});
  BufferRegion wbRead{rfBuf,
                      insertAt(wbWrite.region, axis, Range{PrimExpr(vWb), makeConst(lt, 1)})};
  Stmt wb = make<Block>(name, wbIters, wbBindings, std::vector<BufferRegion>{wbRead},
                        std::vector<BufferRegion>{wbWrite}, wbInit, wbBody,
                        std::vector<BufferRef>{}, PrimExpr(), blk->annotations);
  for (size_t i = wbLoops.size(); i-- > 0;)
    wb = make<For>(wbVars[i], wbLoops[i]->min, wbLoops[i]->extent, ForKind::Serial, wb);

  // ---- splice: top -> {top with B_rf, write-back nest}; allocate C_rf in
  // the enclosing block (or around both nests when there is none).
  Stmt nest = seqStmt({replaceStmt(at, blk.get(), rfBlock), wb});
  Stmt seq = prefix == 0 ? nest : replaceStmt(top, at.get(), nest);
  const Block* enclosing = nullptr;
  for (size_t i = topPos; i-- > 0;)
    if (auto* b = as<Block>(blkLoc.ancestors[i])) {
      enclosing = b;
      break;
    }
  if (enclosing) {
    auto allocs = enclosing->allocs;
    allocs.push_back(rfBuf);
    Stmt nb = make<Block>(enclosing->name, enclosing->iters, enclosing->bindings, enclosing->reads,
                          enclosing->writes, enclosing->init,
                          replaceStmt(enclosing->body, top.get(), seq), allocs,
                          enclosing->predicate, enclosing->annotations);
    setBody(replaceStmt(func_->body, enclosing, nb));
  } else {
    setBody(replaceStmt(func_->body, top.get(), make<Allocate>(rfBuf, seq)));
  }
  trace_.append({"rfactor", {}, {where}, {}, {}, {axis}});
  return BlockRV{rfName};
}

} // namespace unity::schedule
