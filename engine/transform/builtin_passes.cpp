// The list of built-in passes and pipelines. One line per pass: adding a pass
// to the engine means writing it and listing it here.
#include "engine/transform/fuse_ops.h"
#include "engine/transform/graph_cleanup.h"
#include "engine/transform/registry.h"

namespace unity::transform {

void registerBuiltinPasses() {
  registerPass({"DeadCodeElimination", PassLevel::Graph,
                "remove unused bindings and functions unreachable from entry functions",
                deadCodeEliminationPass});
  registerPass({"CanonicalizeBindings", PassLevel::Graph,
                "remove variable aliases and fold items of literal tuples",
                canonicalizeBindingsPass});
  registerPass({"AnnotateOpPattern", PassLevel::Tensor,
                "derive op_pattern of tensor functions from their blocks", annotateOpPatternPass});
  registerPass({"FuseOps", PassLevel::Graph,
                "group call_tir bindings by the op-pattern lattice (post-dominator based)",
                fuseOpsPass});
  registerPass({"FuseTIR", PassLevel::Graph,
                "merge the tensor functions of each fused group into one", fuseTIRPass});
}

} // namespace unity::transform
