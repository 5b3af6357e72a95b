// The list of built-in passes and pipelines. One line per pass: adding a pass
// to the engine means writing it and listing it here.
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
}

} // namespace unity::transform
