#pragma once
// Operator fusion at graph level (FuseOps) and the merge of each fused
// group's tensor functions into one (FuseTIR). See fuse_ops.cpp for the
// algorithm.
#include "engine/transform/pass.h"

namespace unity::transform {

struct FuseOptions {
  int maxGroupSize = 256; // bindings per fused group
};

/// Groups call_tir bindings of every dataflow block into primitive
/// functions ("fused_<ops>", attribute primitive = true) and replaces each
/// group by a call of its function. Needs "op_pattern" on the PrimFuncs
/// (set by Legalize or AnnotateOpPattern; absent = opaque).
ir::IRModule fuseOps(const ir::IRModule& m, const FuseOptions& opts = {});

/// Replaces every primitive function made by fuseOps by one PrimFunc that
/// runs the group's tensor functions in sequence, intermediates as local
/// buffers, and turns its calls into call_tir of that PrimFunc.
ir::IRModule fuseTIR(const ir::IRModule& m);

/// Sets "op_pattern" on PrimFuncs that lack it, from their structure:
/// reduction blocks -> CommReduce; stores and loads at the same indices ->
/// ElemWise; loads at a suffix/broadcast of the store indices -> Broadcast;
/// anything else with one block per output element -> Injective; else Opaque.
ir::IRModule annotateOpPattern(const ir::IRModule& m);

PassRef fuseOpsPass();
PassRef fuseTIRPass();
PassRef annotateOpPatternPass();

/// TVM's op-pattern lattice (engine/op uses the same numbers).
namespace pattern {
constexpr int kElemWise = 0, kBroadcast = 1, kInjective = 2, kCommReduce = 3, kOutEWiseFusable = 4,
              kTuple = 7, kOpaque = 8;
}

} // namespace unity::transform
