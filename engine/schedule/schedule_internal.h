#pragma once
// Statement-tree helpers shared by the schedule primitives: locating a loop
// or block with its ancestors and its nest, replacing one node, dropping an
// allocation, substituting into a region, the checks shared by the inlining
// primitives, variable-use tests, and the formatting of loops and integer
// lists in messages.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/functor.h"
#include "engine/ir/tir.h"

namespace unity::schedule::detail {

/// A node and the statements above it (outermost first; the node excluded).
struct Located {
  ir::Stmt node;
  std::vector<ir::Stmt> ancestors;
  explicit operator bool() const { return node.defined(); }
};

Located findLoop(const ir::Stmt& root, const ir::PrimVar* var);
/// All blocks with this name (normally zero or one).
std::vector<Located> findBlocks(const ir::Stmt& root, const std::string& name);

/// Replaces the node `target` (by identity) with `repl` (null: remove it
/// from its SeqStmt). Returns root itself when target is not found.
ir::Stmt replaceStmt(const ir::Stmt& root, const ir::StmtNode* target, const ir::Stmt& repl);

/// Blocks under s (s included), pre-order.
std::vector<const ir::Block*> blocksUnder(const ir::Stmt& s);

bool usesVar(const ir::PrimExpr& e, const ir::PrimVar* v);
bool usesAnyVar(const ir::PrimExpr& e, const std::vector<const ir::PrimVar*>& vs);

/// The loops (For nodes) among ancestors that are inside the innermost
/// enclosing Block of the ancestor list.
std::vector<const ir::For*> loopsAbove(const std::vector<ir::Stmt>& ancestors);

/// The store that is the whole body of a block computeInline or
/// reverseComputeInline folds away; `fail` gets the reason (the caller
/// prefixes the block) when the block has a reduction iterator, its body is
/// anything else, or it allocates buffers of its own.
template <class Fail> const ir::BufferStore* inlinedStore(const ir::Block* blk, Fail&& fail) {
  for (auto& it : blk->iters)
    if (it.type == ir::IterType::Reduce)
      fail("has the reduction iterator '" + it.var->name + "'");
  auto* st = ir::as<ir::BufferStore>(blk->body);
  if (!st)
    fail("is not a single buffer store");
  if (!blk->allocs.empty())
    fail("allocates buffers of its own");
  return st;
}

/// "[a, b, c]": integers (split factors, sampled decisions) for messages.
std::string intList(const std::vector<int64_t>& xs);

/// "'name'" of a loop for messages.
std::string loopName(const ir::For* f);

/// A block's own nest (the block and the loops holding only it) and its
/// position in the enclosing sequence.
struct Nest {
  ir::Stmt top;                      // outermost statement of the nest
  ir::Ref<ir::SeqStmt> parent;       // the sequence holding top, or null
  size_t index = 0;                  // top's position in parent
  std::vector<ir::Stmt> aboveParent; // ancestors of parent, parent included
};

/// The nest of the block at `loc`.
Nest nestOf(const Located& loc);

/// root without the allocation of buf (an Allocate node or a block alloc).
ir::Stmt removeAllocation(const ir::Stmt& root, const ir::Buffer* buf);

/// `region` with the variables in `map` substituted, bounds simplified.
std::vector<ir::Range>
substituteRegion(const std::vector<ir::Range>& region,
                 const std::unordered_map<const ir::PrimVar*, ir::PrimExpr>& map);

} // namespace unity::schedule::detail
