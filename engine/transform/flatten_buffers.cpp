// FlattenBuffers: multi-dimensional buffer accesses become 1-D accesses with
// explicit row-major index arithmetic.
//
// Algorithm. One bottom-up walk (StmtMutator) over the body:
//  - an Allocate of a buffer with two or more dimensions is replaced by an
//    Allocate of a fresh 1-D buffer (same name, dtype and scope) whose only
//    dimension is the product of the old ones, symbolic dims included
//    (simplified: (4, 8) -> (32,), (n, 4) -> (n * 4,));
//  - every BufferLoad / BufferStore that indexes a buffer of rank >= 2 with
//    one index per dimension gets the single index
//        ((i0 * d1 + i1) * d2 + i2) ...        (Horner's rule, row-major)
//    where d_k are the buffer's (possibly symbolic) dimensions, simplified
//    with the shape variables of the parameters known to be non-negative;
//    two consecutive indices (floordiv(q, D), floormod(q, D)) with D the
//    extent of the second dimension contribute q (exact for floor
//    division, D > 0), a rewrite the simplifier cannot make for a symbolic
//    D;
//    accesses of a replaced allocation move to its 1-D buffer.
// The index arithmetic is int64 unless every index and dimension shares one
// integer type (then that type), so mixed int32/int64 IR stays exact.
//
// Parameter buffers keep their N-d declaration in the signature: that
// declaration is the calling convention (the runtime checks each argument's
// shape against it and binds shape variables from it, see MakePackedAPI);
// only their accesses become flat. A flattened function carries the
// attribute "buffers_flat" = True, which tells the well-formedness checker
// and the code generators that its accesses have exactly one index whatever
// the buffer's rank. 0-d and 1-D buffers are already flat and untouched, and
// an access that already has one index is left as it is, so the pass is
// idempotent and returns `f` itself when there is nothing to flatten.
#include <optional>
#include <unordered_map>

#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

using namespace ir;

namespace {

/// The common integer type of `es`, or int64 when they differ.
DataType indexType(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  std::optional<DataType> t;
  for (auto* list : {&a, &b})
    for (auto& e : *list) {
      if (!t)
        t = e->dtype;
      else if (*t != e->dtype)
        return DataType::Int64();
    }
  return t && t->isIntegral() && !t->isBool() ? *t : DataType::Int64();
}

class Flattener : public StmtMutator {
public:
  explicit Flattener(arith::Analyzer& analyzer) : analyzer_(analyzer) {}
  bool changed = false;

  using StmtMutator::mutate;

protected:
  BufferRef mutateBuffer(const BufferRef& b) override {
    auto it = replaced_.find(b.get());
    return it == replaced_.end() ? b : it->second;
  }

  Stmt visitAllocate(const Allocate* op, const Stmt& self) override {
    const BufferRef& old = op->buffer;
    if (old->ndim() < 2)
      return StmtMutator::visitAllocate(op, self);
    DataType t = indexType(old->shape, {});
    PrimExpr size = cast(t, old->shape[0]);
    for (int k = 1; k < old->ndim(); ++k)
      size = size * cast(t, old->shape[k]);
    BufferRef flat = makeBuffer(old->name, old->dtype, {analyzer_.simplify(size)}, old->scope);
    replaced_[old.get()] = flat;
    Stmt body = mutate(op->body);
    replaced_.erase(old.get());
    changed = true;
    return make<Allocate>(flat, body);
  }

  PrimExpr visitBufferLoad(const BufferLoad* op, const PrimExpr& self) override {
    std::vector<PrimExpr> idx;
    bool indicesChanged = mutateList(op->indices, idx);
    BufferRef buf = mutateBuffer(op->buffer);
    if (needsFlattening(op->buffer, idx))
      return make<BufferLoad>(buf, std::vector<PrimExpr>{flatIndex(op->buffer, idx)});
    if (!indicesChanged && sameNode(buf, op->buffer))
      return self;
    return make<BufferLoad>(buf, std::move(idx));
  }

  Stmt visitBufferStore(const BufferStore* op, const Stmt& self) override {
    std::vector<PrimExpr> idx;
    bool indicesChanged = mutateList(op->indices, idx);
    PrimExpr value = mutate(op->value);
    BufferRef buf = mutateBuffer(op->buffer);
    if (needsFlattening(op->buffer, idx))
      return make<BufferStore>(buf, value, std::vector<PrimExpr>{flatIndex(op->buffer, idx)});
    if (!indicesChanged && sameNode(buf, op->buffer) && sameNode(value, op->value))
      return self;
    return make<BufferStore>(buf, value, std::move(idx));
  }

  Stmt visitBlock(const Block* op, const Stmt&) override {
    throw Error("FlattenBuffers: block '" + op->name +
                "' must be lowered first (run LowerBlocks before FlattenBuffers)");
  }

private:
  bool needsFlattening(const BufferRef& b, const std::vector<PrimExpr>& idx) {
    if (b->ndim() < 2 || idx.size() == 1)
      return false;
    if (static_cast<int>(idx.size()) != b->ndim())
      throw Error("FlattenBuffers: buffer '" + b->name + "' of rank " + std::to_string(b->ndim()) +
                  " is accessed with " + std::to_string(idx.size()) + " indices");
    changed = true;
    return true;
  }

  /// q when indices (i, j) are (floordiv(q, D), floormod(q, D)) and D is
  /// the extent of j's dimension: the two dimensions then address element
  /// q of their flattened pair, whatever D (symbolic included).
  std::optional<PrimExpr> divModPair(const PrimExpr& i, const PrimExpr& j, const PrimExpr& extent) {
    auto* div = as<BinaryExpr>(i);
    auto* mod = as<BinaryExpr>(j);
    if (!div || !mod || div->op() != NodeKind::FloorDiv || mod->op() != NodeKind::FloorMod ||
        !analyzer_.canProveEqual(div->a, mod->a) || !analyzer_.canProveEqual(div->b, mod->b) ||
        !analyzer_.canProveEqual(mod->b, extent))
      return std::nullopt;
    return mod->a;
  }

  /// Row-major offset of idx in b (the original, N-d buffer), simplified.
  /// A pair (q / D, q % D) over dimensions (k, k + 1) with D the extent of
  /// k + 1 contributes q itself: offset * d_k * D + q. The wide
  /// convolution with a symbolic width reads its padded image that way
  /// (topi_nn.cpp), and the simplifier cannot fold the pair back when D is
  /// symbolic, which would leave two divisions in every lane.
  PrimExpr flatIndex(const BufferRef& b, const std::vector<PrimExpr>& idx) {
    DataType t = indexType(idx, b->shape);
    PrimExpr offset;
    for (size_t k = 0; k < idx.size();) {
      PrimExpr term = cast(t, idx[k]), scale = cast(t, b->shape[k]);
      size_t next = k + 1;
      if (k + 1 < idx.size())
        if (auto q = divModPair(idx[k], idx[k + 1], b->shape[k + 1])) {
          term = cast(t, *q);
          scale = scale * cast(t, b->shape[k + 1]);
          next = k + 2;
        }
      offset = offset ? offset * scale + term : term;
      k = next;
    }
    return analyzer_.simplify(offset);
  }

  arith::Analyzer& analyzer_;
  std::unordered_map<const Buffer*, BufferRef> replaced_;
};

} // namespace

PrimFuncRef flattenBuffers(const PrimFuncRef& f) {
  if (!f)
    throw Error("FlattenBuffers: null function");
  arith::Analyzer analyzer = shapeAnalyzer(*f);
  Flattener flattener(analyzer);
  Stmt body = flattener.mutate(f->body);
  if (!flattener.changed)
    return f;
  return make<PrimFunc>(f->params, body, f->attrs.with(kBuffersFlatAttr, true));
}

bool hasFlatBuffers(const PrimFunc& f) { return f.attrs.getBool(kBuffersFlatAttr, false); }

} // namespace unity::transform
