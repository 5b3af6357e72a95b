#pragma once
// FoldConstant: an operator call whose operands are all constants is
// evaluated at compile time and replaced by the resulting constant.
//
// Evaluation goes through the reference evaluator (runtime/reference.h) —
// the slow, obviously-correct interpreter of the graph level — on a one-call
// module, so folding never depends on the code generator being right. Only
// tensor results with a static shape of at most `maxElements` elements are
// folded (folding a huge broadcast would bloat the module); calls of
// call_tir and other lowering operators are left alone.
#include "engine/transform/pass.h"

namespace unity::transform {

ir::IRModule foldConstant(const ir::IRModule& m, int64_t maxElements = 1 << 20);
PassRef foldConstantPass();

} // namespace unity::transform
