#pragma once
// DefaultSchedule: a sensible schedule for every tensor function the tuner
// has not handled (no "tuned" attribute), so untuned kernels are parallel,
// vectorized and register-tiled rather than naive loop nests. See
// default_schedule.cpp for the rules.
#include "engine/ir/module.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// Schedules one PrimFunc (returned unchanged when it has attr "tuned" or no
/// blocks). numCores sizes the parallel loops (>= 4 * numCores iterations).
ir::PrimFuncRef defaultSchedule(const ir::PrimFuncRef& f, int numCores);
ir::IRModule defaultSchedule(const ir::IRModule& m, int numCores);

/// The pass. Cores: PassContext config "tir.num_cores" (int), else the
/// number of hardware threads.
PassRef defaultSchedulePass();

} // namespace unity::transform
