#pragma once
// Options shared by the commands: `--target` given as a JSON
// file, and `--assign FILE.json` (source-model node names or binding names
// -> sub-targets). See docs/cli.md and docs/targets.md.
#include <string>
#include <utility>
#include <vector>

namespace lowerscope::cli {

/// The value of --target as a target string: a path to an existing file
/// ending in ".json" is read and parsed (a target object, a composite object
/// or a JSON string; see CompositeTarget::fromJSON); anything else is
/// returned as given. Throws unity::Error naming the file.
std::string resolveTargetOption(const std::string& value);

/// One entry of an --assign file: a node or binding name and its sub-target.
using Assignment = std::pair<std::string, std::string>;

/// Reads an --assign file. Two forms:
///   {"Conv_0": "dnnl", "Gemm_5": "compat"}               (name -> sub-target)
///   [{"target": "dnnl", "nodes": ["Conv_0", "Conv_2"]}, ...]  (grouped)
/// Entries are applied in file order (a later one wins for a binding that
/// two names reach); they go to BuildOptions::assignments, and build()
/// checks the names and applies them (AnnotateTarget). Throws unity::Error naming the file and the
/// cause (unreadable, invalid JSON with line and column, wrong shape).
std::vector<Assignment> readAssignFile(const std::string& path);

/// "a,b,,c" -> {"a", "b", "c"}: a comma-separated option value, empty items dropped.
std::vector<std::string> splitComma(const std::string& s);

} // namespace lowerscope::cli
