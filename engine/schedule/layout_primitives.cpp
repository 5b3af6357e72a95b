// Layout primitive: packLayout, a blocked copy of an input that one block
// reads (TVM's cache_read + transform_layout for the "pack B into panels"
// case of a matmul, in one step).
//
// packLayout(B, X, W): X (rank r >= 2, constant shape [d0, .., dn]) is a
// parameter of the function that no block writes, and B reads it. A new
// buffer X_packed of shape [ceil(dn / W), d0, .., d(n-1), W] is allocated
// in the root block and filled by a new block "X_pack", in its own loop
// nest placed first in the root's body:
//
//     X_packed[q, i0, .., i(n-1), l] = X[i0, .., i(n-1), q * W + l]
//
// (lanes past dn, when W does not divide dn, are zero: the load's index is
// clamped and the value selected, so the copy never reads out of bounds).
// Every load X[e0, .., en] in B becomes X_packed[en // W, e0, .., e(n-1),
// en % W], and B's read regions follow. Other readers of X keep reading X.
//
// packLayout(B, X, W, a) packs along axis a instead of the last: X_packed
// has shape [ceil(da / W), the other extents in order, W] and X[e0, .., en]
// becomes X_packed[ea // W, e0, .., en without ea, ea % W]. That is the
// "A" side of a register tile: a convolution's weight W[f, c, ky, kx] read
// by U output channels at once (f = u) becomes W_packed[f / U][c][ky][kx]
// [U], so every reduce step broadcasts U consecutive floats of one stream
// instead of U floats a whole filter (c * ky * kx floats) apart; oneDNN's
// blocked weight layouts (OIhw16o and kin) do the same.
//
// packLayout(B, X, W, l) puts the copy first in the body of loop l (around
// B) instead. With B's iterators replaced by their bindings and every loop
// around B bounded, each packed index whose simplified expression uses no
// loop inside l is fixed per iteration of l (the panel must be: e.g. j =
// jo * W + ji gives panel jo inside jo); the copy writes only those
// indices and runs over the others whole. The buffer keeps its full shape,
// so iterations of a parallel l that read distinct panels write disjoint
// parts of it; iterations that read the same panel copy the same values.
//
// Why: a matmul's register tile reads W consecutive columns of B in every
// reduce step, one row of B after the other. Unpacked, those rows are a
// whole row of B apart (4 KiB at n = 1024: every row of the slice maps to
// the same L1 sets and a new page); packed, the W x K panel the tile walks
// is one contiguous stream (docs/benchmarks.md, "Kernels: matmul against
// OpenBLAS").
#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/schedule/schedule.h"
#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using namespace ir;
using namespace detail;

namespace {

/// X[e0, .., en] -> X_packed[ea // W, e0, .., (no ea), .., en, ea % W]
/// for the packed axis a.
std::vector<PrimExpr> packedIndices(const std::vector<PrimExpr>& idx, int64_t w, size_t a) {
  const PrimExpr& along = idx[a];
  PrimExpr width = makeConst(along->dtype, double(w));
  std::vector<PrimExpr> out{floordiv(along, width)};
  for (size_t d = 0; d < idx.size(); ++d)
    if (d != a)
      out.push_back(idx[d]);
  out.push_back(floormod(along, width));
  return out;
}

/// The block with its loads of `from` redirected to `to` and its read
/// regions of `from` mapped to the packed layout.
struct Redirect : StmtMutator {
  const Buffer* from;
  BufferRef to;
  int64_t w;
  size_t axis;
  int loads = 0;

  using StmtMutator::mutate;
  PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self) override {
    PrimExpr base = StmtMutator::visitBufferLoad(op, self);
    auto* load = as<BufferLoad>(base);
    if (load->buffer.get() != from)
      return base;
    ++loads;
    return make<BufferLoad>(to, packedIndices(load->indices, w, axis));
  }

  BufferRegion region(const BufferRegion& r) const {
    const Range& last = r.region[axis];
    DataType t = last.min->dtype;
    PrimExpr width = makeConst(t, double(w)), one = makeConst(t, 1);
    BufferRegion out{to, {}};
    if (isConstInt(last.extent, 1)) {
      out.region.push_back(Range{floordiv(last.min, width), one});
    } else {
      PrimExpr first = floordiv(last.min, width);
      PrimExpr end = floordiv(last.min + last.extent - 1, width);
      out.region.push_back(Range{first, arith::simplify(end - first + 1)});
    }
    for (size_t d = 0; d < r.region.size(); ++d)
      if (d != axis)
        out.region.push_back(r.region[d]);
    if (isConstInt(last.extent, 1))
      out.region.push_back(Range{floormod(last.min, width), one});
    else
      out.region.push_back(Range{makeConst(t, 0), width});
    return out;
  }
};

} // namespace

BlockRV Schedule::packLayout(const BlockRV& rv, const std::string& bufferName, int64_t panelWidth) {
  return packLayout(rv, bufferName, panelWidth, -1, LoopRV{});
}

BlockRV Schedule::packLayout(const BlockRV& rv, const std::string& bufferName, int64_t panelWidth,
                             const LoopRV& at) {
  return packLayout(rv, bufferName, panelWidth, -1, at);
}

BlockRV Schedule::packLayout(const BlockRV& rv, const std::string& bufferName, int64_t panelWidth,
                             int axisArg, const LoopRV& at) {
  auto blk = block(rv);
  const std::string& name = blk->name;
  auto fail = [&](const std::string& why) {
    throw Error("schedule: packLayout: block '" + name + "', buffer '" + bufferName + "': " + why);
  };

  // The buffer: read by the block under this name, exactly one node.
  BufferRef buf;
  for (auto& r : blk->reads)
    if (r.buffer->name == bufferName) {
      if (buf && !sameNode(buf, r.buffer))
        fail("two different buffers of this name are read by the block");
      buf = r.buffer;
    }
  if (!buf)
    fail("the block does not read a buffer of this name");
  int param = -1;
  for (size_t i = 0; i < func_->params.size(); ++i)
    if (sameNode(func_->params[i].buffer, buf))
      param = static_cast<int>(i);
  if (param < 0)
    fail("is not a parameter of the function (only inputs are packed, once, before every "
         "block)");
  for (auto* b : blocksUnder(func_->body))
    for (auto& wr : b->writes)
      if (wr.buffer.get() == buf.get())
        fail("is written by block '" + b->name +
             "'; only a buffer that no block writes can be packed before its readers");
  if (buf->ndim() < 2)
    fail("has rank " + std::to_string(buf->ndim()) + "; packing needs rank 2 or more");
  std::vector<int64_t> dims;
  for (auto& d : buf->shape) {
    auto c = asConstInt(d);
    if (!c)
      fail("has a symbolic shape; packing needs constant extents");
    dims.push_back(*c);
  }
  const int rank = static_cast<int>(dims.size());
  if (axisArg < -1 || axisArg >= rank)
    fail("axis " + std::to_string(axisArg) + " is out of range for rank " + std::to_string(rank));
  const size_t axis = axisArg < 0 ? dims.size() - 1 : static_cast<size_t>(axisArg);
  const bool lastAxis = axis + 1 == dims.size();
  int64_t n = dims[axis];
  if (panelWidth < 1)
    fail("panel width " + std::to_string(panelWidth) + " is not positive");
  if (lastAxis && panelWidth >= n)
    fail("panel width " + std::to_string(panelWidth) + " is not smaller than the last extent " +
         std::to_string(n) + " (the rows already are contiguous panels)");
  if (!lastAxis && panelWidth > n)
    fail("panel width " + std::to_string(panelWidth) + " exceeds the extent " + std::to_string(n) +
         " of axis " + std::to_string(axis));
  auto* root = as<Block>(func_->body);
  if (!root || !root->iters.empty() || !root->bindings.empty())
    fail("the function has no root block to allocate the packed buffer in");

  int64_t panels = (n + panelWidth - 1) / panelWidth;
  std::vector<PrimExpr> shape{intImm(panels)};
  for (size_t d = 0; d < dims.size(); ++d)
    if (d != axis)
      shape.push_back(buf->shape[d]);
  shape.push_back(intImm(panelWidth));

  // Under a loop: each index of the packed buffer that the loops around the
  // copy fix (`fixed`, in terms of them) is copied at that index only; the
  // others over their whole extent. The panel must be fixed.
  std::vector<PrimExpr> fixed(shape.size());
  Ref<For> atLoop;
  LoopLocator where;
  if (at.var) {
    atLoop = loop(at);
    auto loops = getLoops(rv);
    size_t pos = loops.size();
    for (size_t i = 0; i < loops.size(); ++i)
      if (loops[i].var.get() == at.var.get())
        pos = i;
    if (pos == loops.size())
      fail("loop '" + at.var->name + "' is not around the block");
    if (atLoop->forKind == ForKind::Vectorized)
      fail("loop '" + at.var->name + "' is vectorized; the copy cannot go inside it");
    where = locate(at);
    std::vector<const BufferLoad*> loads;
    auto collect = [&](const Stmt& st) {
      if (st)
        walkStmt(st, [&](const Stmt& x) {
          if (auto* bs = as<BufferStore>(x))
            walkPrimExpr(bs->value, [&](const PrimExpr& e) {
              if (auto* l = as<BufferLoad>(e); l && l->buffer.get() == buf.get())
                loads.push_back(l);
            });
        });
    };
    collect(blk->init);
    collect(blk->body);
    if (loads.empty())
      fail("the block has no load of it to place the copy for");
    std::unordered_map<const PrimVar*, PrimExpr> bind;
    for (size_t i = 0; i < blk->iters.size(); ++i)
      bind[blk->iters[i].var.get()] = blk->bindings[i];
    arith::Analyzer an;
    std::vector<const PrimVar*> inner;
    for (size_t i = 0; i < loops.size(); ++i) {
      auto f = loop(loops[i]);
      an.bind(f->var, Range{f->min, f->extent});
      if (i > pos)
        inner.push_back(f->var.get());
    }
    auto fixedIndex = [&](const std::vector<PrimExpr>& idx) {
      std::vector<PrimExpr> out;
      for (auto& e : packedIndices(idx, panelWidth, axis)) {
        PrimExpr v = an.simplify(substitute(e, bind));
        out.push_back(usesAnyVar(v, inner) ? PrimExpr() : v);
      }
      return out;
    };
    fixed = fixedIndex(loads[0]->indices);
    for (size_t k = 1; k < loads.size(); ++k) {
      auto other = fixedIndex(loads[k]->indices);
      for (size_t d = 0; d < fixed.size(); ++d)
        if (fixed[d] && (!other[d] || !arith::provablyEqual(fixed[d], other[d])))
          fixed[d] = PrimExpr();
    }
    fixed.back() = PrimExpr(); // the lanes are always copied whole
    if (!fixed.front())
      fail("the panel it reads changes inside loop '" + at.var->name +
           "'; place the copy at a loop that fixes the panel");
  }

  // The packed buffer and the copy that fills it.
  BufferRef packed = makeBuffer(buf->name + "_packed", buf->dtype, shape);
  std::string packName = buf->name + "_pack";
  for (int k = 1; !findBlocks(func_->body, packName).empty(); ++k)
    packName = buf->name + "_pack_" + std::to_string(k);

  std::vector<Ref<PrimVar>> loopVars;
  std::vector<Ref<PrimVar>> iterVars;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> bindings;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string suffix = d == 0 ? "o" : d + 1 == shape.size() ? "i" : std::to_string(d - 1);
    iterVars.push_back(primVar("v_" + buf->name + "_" + suffix));
    iters.push_back(IterVar{iterVars.back(), Range{intImm(0), shape[d]}, IterType::Spatial});
    if (fixed[d]) {
      loopVars.push_back(nullptr);
      bindings.push_back(fixed[d]);
    } else {
      loopVars.push_back(primVar(buf->name + "_" + suffix));
      bindings.push_back(loopVars.back());
    }
  }
  PrimExpr col = iterVars.front() * panelWidth + iterVars.back();
  bool padded = n % panelWidth != 0;
  if (padded)
    col = ir::min(col, intImm(n - 1));
  std::vector<PrimExpr> srcIdx(iterVars.begin() + 1, iterVars.end() - 1);
  srcIdx.insert(srcIdx.begin() + static_cast<std::ptrdiff_t>(axis), col);
  PrimExpr value = make<BufferLoad>(buf, srcIdx);
  if (padded)
    value = select(lt(iterVars.front() * panelWidth + iterVars.back(), intImm(n)), value,
                   makeConst(buf->dtype, 0));
  std::vector<PrimExpr> dstIdx(iterVars.begin(), iterVars.end());
  auto point = [](const std::vector<PrimExpr>& idx) {
    std::vector<Range> r;
    for (auto& e : idx)
      r.push_back(Range{e, intImm(1)});
    return r;
  };
  Stmt nest = make<Block>(packName, iters, bindings,
                          std::vector<BufferRegion>{BufferRegion{buf, point(srcIdx)}},
                          std::vector<BufferRegion>{BufferRegion{packed, point(dstIdx)}}, Stmt(),
                          make<BufferStore>(packed, value, dstIdx));
  for (size_t d = shape.size(); d-- > 0;)
    if (loopVars[d])
      nest = make<For>(loopVars[d], intImm(0), shape[d], ForKind::Serial, nest);

  // The reader, redirected.
  Redirect rd;
  rd.from = buf.get();
  rd.to = packed;
  rd.w = panelWidth;
  rd.axis = axis;
  Stmt init = blk->init ? rd.mutate(blk->init) : blk->init;
  Stmt body = rd.mutate(blk->body);
  std::vector<BufferRegion> reads;
  for (auto& r : blk->reads)
    reads.push_back(r.buffer.get() == buf.get() ? rd.region(r) : r);
  Stmt updated = make<Block>(blk->name, blk->iters, blk->bindings, reads, blk->writes, init, body,
                             blk->allocs, blk->predicate, blk->annotations);
  auto prepend = [&](const Stmt& rest) {
    std::vector<Stmt> seq{nest};
    if (auto* sq = as<SeqStmt>(rest))
      seq.insert(seq.end(), sq->seq.begin(), sq->seq.end());
    else
      seq.push_back(rest);
    return seqStmt(std::move(seq));
  };
  Stmt rootBody;
  if (atLoop) {
    Stmt loopBody = replaceStmt(atLoop->body, blk.get(), updated);
    Stmt newLoop = make<For>(atLoop->var, atLoop->min, atLoop->extent, atLoop->forKind,
                             prepend(loopBody), atLoop->annotations);
    rootBody = replaceStmt(root->body, atLoop.get(), newLoop);
  } else {
    rootBody = prepend(replaceStmt(root->body, blk.get(), updated));
  }
  std::vector<BufferRef> allocs = root->allocs;
  allocs.push_back(packed);
  setBody(make<Block>(root->name, root->iters, root->bindings, root->reads, root->writes,
                      root->init, rootBody, allocs, root->predicate, root->annotations));
  std::vector<LoopLocator> locs;
  if (atLoop)
    locs.push_back(where);
  // The axis joins the decision only when it is not the last one, so the
  // traces of the original form (and their workload records) stay as they
  // were.
  std::vector<int64_t> decision{param, panelWidth};
  if (!lastAxis)
    decision.push_back(static_cast<int64_t>(axis));
  trace_.append({"pack_layout", {name}, locs, decision});
  return BlockRV{packName};
}

} // namespace unity::schedule
