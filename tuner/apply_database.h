#pragma once
// ApplyTuningDatabase: the pass that rebuilds a model with its tuned
// schedules. It lives in the tuner (the engine never depends on the tuner)
// and registers itself in the engine's pass registry, so pipelines, the CLI's
// --passes and the GUI's pass list name it like any other pass.
//
// For every tensor function not already tuned, it looks up the best valid
// record for the function's workload (tuner::workloadHash) AND its target
// (the canonical string of the sub-target the function compiles for), replays
// the record's trace on the function and marks it: attributes "tuned" (so
// DefaultSchedule leaves it alone), "tuning_record" (the record id) and
// "tuning_trace" (the trace as text, visible in the pass record). A function
// with no record for its target keeps its default schedule. Run it right
// before DefaultSchedule: the functions then are exactly the workloads that
// `tune` extracted.
//
// The database file comes from the PassContext config "tuner.database".
#include <string>
#include <vector>

#include "engine/ir/module.h"
#include "tuner/database.h"

namespace unity::tuner {

/// The config key naming the database file.
inline constexpr const char* kDatabaseConfigKey = "tuner.database";

/// Registers ApplyTuningDatabase (idempotent).
void registerTunerPasses();

/// The pass's work on m with db (m carries its "target" attribute, as every
/// module inside build() does).
ir::IRModule applyTuningDatabase(const ir::IRModule& m, const Database& db);

/// The passes of a registered pipeline with ApplyTuningDatabase inserted
/// before DefaultSchedule; unity::Error when the pipeline is unknown or has
/// no DefaultSchedule.
std::vector<std::string> pipelineWithDatabase(const std::string& pipeline = "default");

} // namespace unity::tuner
