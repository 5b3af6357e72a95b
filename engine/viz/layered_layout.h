#pragma once
// A fast layered (Sugiyama-style) layout for graphs too big for Graphviz dot.
//
// dot's x-coordinate phase runs network simplex on an auxiliary graph three
// times the size of the input; on a 5,000-node transformer its start-up alone
// (the feasible tree) takes seconds whatever the iteration bound. This
// layout does the same four phases with linear or near-linear heuristics:
//  1. cycles: a depth-first search reverses back edges (dataflow graphs have
//     none, but the layout must not loop on a bad graph);
//  2. layering: longest path from the sources, then a few sweeps that move
//     each node within its feasible range [max(pred)+1, min(succ)-1] towards
//     the side with more edges (a weight-free step of network simplex's
//     objective): constants and parameters land right above their consumer
//     instead of on the top layer;
//  3. ordering: edges spanning several layers get a dummy vertex per layer,
//     then barycenter sweeps (down, up, ...) reorder each layer by the mean
//     position of its neighbours in the layer just placed, keeping the order
//     with the fewest crossings (counted per layer pair with a Fenwick tree,
//     O(E log V)); members of an expanded cluster are kept contiguous;
//  4. coordinates: each layer is placed by isotonic regression (pool
//     adjacent violators) of the nodes' wanted positions — the mean of their
//     neighbours', not counting single-edge nodes such as constants, which
//     follow — under the order and minimum-separation constraints,
//     alternating down and up a few times; dummies weigh more, so long
//     edges run straight.
// Edges leave the bottom of their source and enter the top of their target
// at ports spread along the side in the order of the edges' other ends, and
// run through their dummies as vertical-tangent cubic curves; an arrow head
// ends each one at the target's boundary. Everything is O((V + E) log V) per
// sweep with a fixed number of sweeps, where V counts dummies.
#include "engine/viz/graph_layout.h"

namespace unity::viz {

class LayeredLayouter : public GraphLayouter {
public:
  std::string name() const override { return "layered"; }
  std::optional<GraphLayout> layout(const DataflowGraph& g,
                                    const LayoutOptions& opts) const override;
};

} // namespace unity::viz
