#pragma once
// The difference between two dataflow graphs of the same function — before
// and after a pass — node by node.
//
// Matching, in this order (node ids are topological, so inputs are decided
// before their users):
//  1. Structure. An after-node and a before-node with the same structural
//     key (operator + bound value, modulo variable names; constants by their
//     bytes; parameters by position and type) match as *unchanged*. Among
//     several candidates the one that is the very same IR node wins, then
//     the one with the same variable name, then the one whose inputs match
//     this node's inputs.
//  2. Provenance. Remaining nodes that share a source-model origin
//     (Span.origins, e.g. "conv1:Conv") or the variable name match as
//     *changed*. This is many-to-many: FuseOps merges several bindings into
//     one, and each of them is "changed" with the fused node as counterpart.
//  3. The rest is *added* (after side) or *removed* (before side).
#include <string>
#include <vector>

#include "engine/viz/graph_model.h"

namespace unity::viz {

enum class DiffStatus { Unchanged, Changed, Added, Removed };
const char* diffStatusName(DiffStatus s);

struct GraphDiff {
  std::vector<DiffStatus> before, after;                 // one per node of each graph
  std::vector<std::vector<int>> beforeMatch, afterMatch; // counterparts in the other graph

  struct Counts {
    int unchanged = 0, changed = 0, added = 0, removed = 0;
  };
  /// Counts of one side: added only occurs after, removed only before.
  Counts beforeCounts() const;
  Counts afterCounts() const;
};

GraphDiff diffGraphs(const DataflowGraph& before, const DataflowGraph& after);

} // namespace unity::viz
