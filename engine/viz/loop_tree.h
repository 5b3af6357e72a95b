#pragma once
// The loop-tree outline of a PrimFunc: its loops and blocks as a tree, the
// rest of the statements left out ("for i0 in 16 (parallel)" > "for i1 in
// 32" > "block T_add [2 spatial]"). The tensor-level view shows it next to
// the loop nest text; a schedule shows up as a change of this tree.
#include <string>
#include <vector>

#include "engine/ir/module.h"

namespace unity::viz {

struct LoopTreeNode {
  enum class Kind { For, Block, Allocate };
  Kind kind = Kind::For;
  std::string label;   // one line: "for i in 0..128 (parallel)", "block C [2 spatial, 1 reduce]"
  std::string var;     // loop variable or block name
  std::string extent;  // loop extent, printed
  std::string forKind; // "serial", "parallel", "vectorized", "unroll" (loops only)
  int parent = -1;
  int depth = 0;
  std::vector<int> children;
  const ir::StmtNode* stmt = nullptr; // the statement (kept alive by the PrimFunc)
};

struct LoopTree {
  std::string function;
  std::vector<LoopTreeNode> nodes; // pre-order
  std::vector<int> roots;
};

LoopTree loopTree(const ir::PrimFunc& f, const std::string& name = {});
/// The function `name` of `m`; throws unity::Error when it is absent or not a PrimFunc.
LoopTree loopTree(const ir::IRModule& m, const std::string& name);

/// The outline as indented text, one node per line (two spaces per level).
std::string loopTreeText(const LoopTree& t);

} // namespace unity::viz
