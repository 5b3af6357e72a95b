#pragma once
// Tensor level (TensorIR-like): buffers, statements, blocks, PrimFunc.
#include <string>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/expr.h"
#include "engine/ir/prim_expr.h"

namespace unity::ir {

/// A multi-dimensional array: row-major, with a (possibly symbolic) shape.
/// Identity is the node; name is a hint. scope: "global" (function memory)
/// or "local" (a temporary inside a kernel).
class Buffer : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::Buffer, kLast = NodeKind::Buffer;
  Buffer(std::string name, DataType dtype, std::vector<PrimExpr> shape,
         std::string scope = "global");
  const std::string name;
  const DataType dtype;
  const std::vector<PrimExpr> shape;
  const std::string scope;
  int ndim() const { return static_cast<int>(shape.size()); }
};
using BufferRef = Ref<Buffer>;
BufferRef makeBuffer(std::string name, DataType dtype, std::vector<PrimExpr> shape,
                     std::string scope = "global");

struct Range {
  PrimExpr min, extent;
};

/// A rectangular region of a buffer (one Range per dimension).
struct BufferRegion {
  BufferRef buffer;
  std::vector<Range> region;
};

class StmtNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::BufferStore, kLast = NodeKind::Allocate;
  using Node::Node;
};
using Stmt = Ref<StmtNode>;

class BufferStore : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::BufferStore, kLast = NodeKind::BufferStore;
  BufferStore(BufferRef buffer, PrimExpr value, std::vector<PrimExpr> indices);
  const BufferRef buffer;
  const PrimExpr value;
  const std::vector<PrimExpr> indices;
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
const char* forKindName(ForKind k); // "serial", "parallel", "vectorized", "unroll"

class For : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::For, kLast = NodeKind::For;
  For(Ref<PrimVar> var, PrimExpr min, PrimExpr extent, ForKind forKind, Stmt body,
      Attrs annotations = {});
  const Ref<PrimVar> var;
  const PrimExpr min, extent;
  const ForKind forKind;
  const Stmt body;
  const Attrs annotations;
};

enum class IterType : uint8_t { Spatial, Reduce };

/// A block iteration variable: var ranges over dom; bound to `binding`
/// (an expression of the enclosing loop variables) where the block sits.
struct IterVar {
  Ref<PrimVar> var;
  Range dom;
  IterType type = IterType::Spatial;
};

/// A block: the unit of scheduling. Its iteration variables, their bindings
/// to the surrounding loops, the regions it reads and writes, an optional
/// reduction init, a body, buffers allocated inside it. (TVM's Block and
/// BlockRealize in one node.)
class Block : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Block, kLast = NodeKind::Block;
  Block(std::string name, std::vector<IterVar> iters, std::vector<PrimExpr> bindings,
        std::vector<BufferRegion> reads, std::vector<BufferRegion> writes, Stmt init, Stmt body,
        std::vector<BufferRef> allocs = {}, PrimExpr predicate = nullptr, Attrs annotations = {});
  const std::string name;
  const std::vector<IterVar> iters;
  const std::vector<PrimExpr> bindings; // one per iter
  const std::vector<BufferRegion> reads, writes;
  const Stmt init; // may be null
  const Stmt body;
  const std::vector<BufferRef> allocs;
  const PrimExpr predicate; // may be null (= true)
  const Attrs annotations;
};

class LetStmt : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::LetStmt, kLast = NodeKind::LetStmt;
  LetStmt(Ref<PrimVar> var, PrimExpr value, Stmt body);
  const Ref<PrimVar> var;
  const PrimExpr value;
  const Stmt body;
};

class IfThenElse : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::IfThenElse, kLast = NodeKind::IfThenElse;
  IfThenElse(PrimExpr cond, Stmt then, Stmt otherwise = nullptr);
  const PrimExpr cond;
  const Stmt then, otherwise; // otherwise may be null
};

class SeqStmt : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::SeqStmt, kLast = NodeKind::SeqStmt;
  explicit SeqStmt(std::vector<Stmt> seq);
  const std::vector<Stmt> seq;
};
/// A SeqStmt, or the single statement itself when there is only one.
Stmt seqStmt(std::vector<Stmt> seq);

class Evaluate : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Evaluate, kLast = NodeKind::Evaluate;
  explicit Evaluate(PrimExpr value);
  const PrimExpr value;
};

/// Allocates `buffer` (usually scope "local") for the duration of body.
class Allocate : public StmtNode {
public:
  static constexpr NodeKind kFirst = NodeKind::Allocate, kLast = NodeKind::Allocate;
  Allocate(BufferRef buffer, Stmt body);
  const BufferRef buffer;
  const Stmt body;
};

/// A tensor-level function in destination-passing style: parameters are
/// buffers (inputs then outputs) and scalar variables. A PrimVar that occurs
/// in a parameter buffer's shape and is not itself a parameter is bound from
/// that buffer's runtime shape (TVM's buffer_map match).
class PrimFunc : public BaseFuncNode {
public:
  static constexpr NodeKind kFirst = NodeKind::PrimFunc, kLast = NodeKind::PrimFunc;
  struct Param {
    BufferRef buffer;    // either a buffer ...
    Ref<PrimVar> scalar; // ... or a scalar
  };
  PrimFunc(std::vector<Param> params, Stmt body, Attrs attrs = {});
  const std::vector<Param> params;
  const Stmt body;
  /// The number of trailing buffer params that are outputs (attr "num_outputs", default 1).
  int numOutputs() const;
};
using PrimFuncRef = Ref<PrimFunc>;

} // namespace unity::ir
