#pragma once
// DefaultSchedule: a sensible schedule for every tensor function the tuner
// has not handled (no "tuned" attribute), so untuned kernels are parallel,
// vectorized and register-tiled rather than naive loop nests. See
// default_schedule.cpp for the rules.
#include "engine/ir/module.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// Schedules one PrimFunc (returned unchanged when it has attr "tuned" or no
/// blocks). numCores sizes the parallel loops (>= 4 * numCores iterations);
/// vectorLanes is the float32 lanes of one vector register (16 with
/// AVX-512, 8 with AVX2), 0 for the host's; it sizes the register tiles.
ir::PrimFuncRef defaultSchedule(const ir::PrimFuncRef& f, int numCores, int vectorLanes = 0);
ir::IRModule defaultSchedule(const ir::IRModule& m, int numCores, int vectorLanes = 0);

/// The float32 lanes of the host's vector registers (16, 8 or 4).
int hostVectorLanes();

/// The pass. Cores: PassContext config "tir.num_cores" (int), else the
/// number of hardware threads; lanes: "tir.vector_lanes", else the host's.
PassRef defaultSchedulePass();

} // namespace unity::transform
