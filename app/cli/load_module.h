#pragma once
#include <string>

#include "engine/ir/module.h"

namespace lowerscope::cli {

/// Loads a model by extension: `.uir` (text IR) or `.onnx`. Throws
/// unity::Error with the file's name on any problem.
unity::ir::IRModule loadModule(const std::string& path);

} // namespace lowerscope::cli
