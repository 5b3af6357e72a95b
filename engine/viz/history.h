#pragma once
// The pass history as the workbench and `lowerscope-cli render` address it.
//
// A history has steps 0..records.size(): step 0 is the input module, step k
// is the module after pass record k-1 (the numbering of `build
// --dump-passes`). A step is chosen by number or by pass name (the first
// pass of that name, e.g. "FuseOps"), so the CLI and the GUI's --pass agree.
#include <string>
#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/record.h"

namespace unity::viz {

/// The step that `spec` names: a number in 0..records.size(), or a pass
/// name. Throws unity::Error listing the passes when it names none.
int selectStep(const std::vector<transform::PassRecord>& records, const std::string& spec);

/// The module at `step` (0: input). Throws unity::Error when out of range.
ir::IRModule moduleAtStep(const ir::IRModule& input,
                          const std::vector<transform::PassRecord>& records, int step);
/// The module a step starts from (the input of its pass; step 0: the input).
ir::IRModule moduleBeforeStep(const ir::IRModule& input,
                              const std::vector<transform::PassRecord>& records, int step);

} // namespace unity::viz
