#pragma once
// DefaultSchedule: a sensible schedule for every tensor function the tuner
// has not handled (no "tuned" attribute), so untuned kernels are parallel,
// vectorized and register-tiled rather than naive loop nests. Every number
// it decides with is a knob of target::SchedulePolicy, derived from the
// machine model of the function's target. See default_schedule.cpp for the
// rules.
#include "engine/ir/module.h"
#include "engine/schedule/schedule.h"
#include "engine/target/schedule_policy.h"
#include "engine/target/target.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// Schedules one PrimFunc with `policy` (returned unchanged when it has
/// attr "tuned" or no blocks).
ir::PrimFuncRef defaultSchedule(const ir::PrimFuncRef& f, const target::SchedulePolicy& policy);

/// The schedule DefaultSchedule's rules build for f under `policy`, with
/// its trace (what the tuner records and replays); f's "tuned" attribute
/// is not consulted. A block whose rule fails keeps its loops.
schedule::Schedule scheduleWithPolicy(const ir::PrimFuncRef& f,
                                      const target::SchedulePolicy& policy);

/// The policy DefaultSchedule uses for target t:
/// SchedulePolicy::forMachine(machineModel(t)), then the PassContext
/// config overrides: "tir.num_cores" (int) replaces the cores,
/// "tir.schedule_policy" (a JSON object of knobs) replaces those knobs.
target::SchedulePolicy schedulePolicyFor(const target::Target& t, const ir::Attrs& config = {});

/// Schedules every PrimFunc of m with the policy of its target
/// (primFuncTargets: the module's "target" attribute; the host without
/// one), with `config` overrides as above.
ir::IRModule defaultSchedule(const ir::IRModule& m, const ir::Attrs& config = {});

/// Schedules every PrimFunc of m with one policy, whatever its target.
ir::IRModule defaultSchedule(const ir::IRModule& m, const target::SchedulePolicy& policy);

/// The pass: defaultSchedule(m, ctx.config).
PassRef defaultSchedulePass();

} // namespace unity::transform
