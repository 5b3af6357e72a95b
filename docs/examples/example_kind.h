#pragma once
// The worked example of docs/adding-a-target-kind.md, `example_relu`: a
// target kind defined outside the engine and plugged in at run time.
#include "engine/transform/target_hooks.h"

namespace unity::transform {

/// The kind's lowering hooks (claims nn.relu, runs a hand-written kernel).
const TargetKindHooks& exampleReluKindHooks();

/// Adds `example_relu` to the kind registry (again: replaces it in place).
void registerExampleReluKind();

} // namespace unity::transform
