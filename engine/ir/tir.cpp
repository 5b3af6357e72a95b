#include "engine/ir/tir.h"

#include "engine/support/error.h"

namespace unity::ir {

static void require(bool ok, const std::string& what) {
  if (!ok)
    throw Error("invalid IR: " + what);
}

Buffer::Buffer(std::string name, DataType dtype, std::vector<PrimExpr> shape, std::string scope)
    : Node(NodeKind::Buffer), name(std::move(name)), dtype(dtype), shape(std::move(shape)),
      scope(std::move(scope)) {
  for (auto& d : this->shape) {
    require(d != nullptr, "buffer '" + this->name + "' has a missing dimension");
    require(d->dtype.isIntegral(), "buffer '" + this->name + "' has a non-integer dimension");
  }
}

BufferRef makeBuffer(std::string name, DataType dtype, std::vector<PrimExpr> shape,
                     std::string scope) {
  return make<Buffer>(std::move(name), dtype, std::move(shape), std::move(scope));
}

BufferStore::BufferStore(BufferRef buffer, PrimExpr value, std::vector<PrimExpr> indices)
    : StmtNode(NodeKind::BufferStore), buffer(std::move(buffer)), value(std::move(value)),
      indices(std::move(indices)) {
  require(this->buffer && this->value, "store with a missing buffer or value");
  // One index for any rank is a flat row-major access (FlattenBuffers); the
  // well-formedness checker allows it only in functions marked buffers_flat.
  require(
      static_cast<int>(this->indices.size()) == this->buffer->ndim() || this->indices.size() == 1,
      "store to buffer '" + this->buffer->name + "' with " + std::to_string(this->indices.size()) +
          " indices for " + std::to_string(this->buffer->ndim()) + " dimensions");
  require(this->value->dtype.element() == this->buffer->dtype.element(),
          "store of " + this->value->dtype.str() + " into buffer '" + this->buffer->name + "' of " +
              this->buffer->dtype.str());
}

const char* forKindName(ForKind k) {
  switch (k) {
  case ForKind::Serial:
    return "serial";
  case ForKind::Parallel:
    return "parallel";
  case ForKind::Vectorized:
    return "vectorized";
  case ForKind::Unrolled:
    return "unroll";
  }
  return "?";
}

For::For(Ref<PrimVar> var, PrimExpr min, PrimExpr extent, ForKind forKind, Stmt body,
         Attrs annotations)
    : StmtNode(NodeKind::For), var(std::move(var)), min(std::move(min)), extent(std::move(extent)),
      forKind(forKind), body(std::move(body)), annotations(std::move(annotations)) {
  require(this->var && this->min && this->extent && this->body, "for loop with a missing part");
}

Block::Block(std::string name, std::vector<IterVar> iters, std::vector<PrimExpr> bindings,
             std::vector<BufferRegion> reads, std::vector<BufferRegion> writes, Stmt init,
             Stmt body, std::vector<BufferRef> allocs, PrimExpr predicate, Attrs annotations)
    : StmtNode(NodeKind::Block), name(std::move(name)), iters(std::move(iters)),
      bindings(std::move(bindings)), reads(std::move(reads)), writes(std::move(writes)),
      init(std::move(init)), body(std::move(body)), allocs(std::move(allocs)),
      predicate(std::move(predicate)), annotations(std::move(annotations)) {
  require(this->body != nullptr, "block '" + this->name + "' has no body");
  require(this->iters.size() == this->bindings.size(),
          "block '" + this->name + "' has " + std::to_string(this->iters.size()) +
              " iteration variables but " + std::to_string(this->bindings.size()) + " bindings");
  for (auto& iv : this->iters)
    require(iv.var && iv.dom.min && iv.dom.extent,
            "block '" + this->name + "' has an incomplete iteration variable");
}

LetStmt::LetStmt(Ref<PrimVar> var, PrimExpr value, Stmt body)
    : StmtNode(NodeKind::LetStmt), var(std::move(var)), value(std::move(value)),
      body(std::move(body)) {
  require(this->var && this->value && this->body, "let statement with a missing part");
}

IfThenElse::IfThenElse(PrimExpr cond, Stmt then, Stmt otherwise)
    : StmtNode(NodeKind::IfThenElse), cond(std::move(cond)), then(std::move(then)),
      otherwise(std::move(otherwise)) {
  require(this->cond && this->then, "if statement with a missing part");
  require(this->cond->dtype.isBool(), "if condition is not bool");
}

SeqStmt::SeqStmt(std::vector<Stmt> seq) : StmtNode(NodeKind::SeqStmt), seq(std::move(seq)) {
  for (auto& s : this->seq)
    require(s != nullptr, "sequence with a missing statement");
}

Stmt seqStmt(std::vector<Stmt> seq) {
  if (seq.size() == 1)
    return seq[0];
  return make<SeqStmt>(std::move(seq));
}

Evaluate::Evaluate(PrimExpr value) : StmtNode(NodeKind::Evaluate), value(std::move(value)) {
  require(this->value != nullptr, "evaluate of nothing");
}

Allocate::Allocate(BufferRef buffer, Stmt body)
    : StmtNode(NodeKind::Allocate), buffer(std::move(buffer)), body(std::move(body)) {
  require(this->buffer && this->body, "allocate with a missing part");
}

PrimFunc::PrimFunc(std::vector<Param> params, Stmt body, Attrs attrs)
    : BaseFuncNode(NodeKind::PrimFunc, nullptr, std::move(attrs)), params(std::move(params)),
      body(std::move(body)) {
  require(this->body != nullptr, "tensor function without a body");
  for (auto& p : this->params)
    require((p.buffer != nullptr) != (p.scalar != nullptr),
            "tensor function parameter must be a buffer or a scalar");
}

int PrimFunc::numOutputs() const { return static_cast<int>(attrs.getInt("num_outputs", 1)); }

} // namespace unity::ir
