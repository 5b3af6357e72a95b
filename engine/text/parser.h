#pragma once
// Parser of the .uir text format (grammar in docs/text-format.md). It builds
// exactly what is written: struct info only where a variable is annotated,
// nothing deduced (run transform::normalize for that).
#include <string>
#include <string_view>

#include "engine/ir/module.h"

namespace unity::text {

/// Throws unity::Error with SourceLoc(fileName, line, column), a message and
/// the offending source line (what() shows it with a caret).
ir::IRModule parseModule(std::string_view source, const std::string& fileName = "<input>");
/// Reads and parses a file; a missing file is a unity::Error too.
ir::IRModule parseFile(const std::string& path);

/// The deepest nesting (brackets, expressions, blocks) the parser accepts.
inline constexpr int kMaxNestingDepth = 200;

} // namespace unity::text
