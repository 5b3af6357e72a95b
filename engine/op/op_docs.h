#pragma once
// The operator reference (docs/operators.md) generated from the registry, so
// the checked-in page cannot go stale: a test compares the two.
#include <string>

namespace unity::op {

/// Markdown: a title, then one table row per operator (name, arity, pattern,
/// attributes with type and default, description).
std::string operatorReferenceMarkdown();

} // namespace unity::op
