#pragma once
// Statement-tree helpers shared by the schedule primitives: locating a loop
// or block with its ancestors, replacing one node, variable-use tests.
#include <string>
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

/// "'name'" of a loop for messages.
std::string loopName(const ir::For* f);

} // namespace unity::schedule::detail
