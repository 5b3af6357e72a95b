#pragma once
// Line diff of two texts (Myers' O(ND) algorithm), for the before/after IR
// text view.
//
// Myers finds a shortest edit script by exploring, for D = 0, 1, 2, ..., the
// furthest-reaching path on each diagonal k = x - y that uses D edits, and
// following "snakes" (runs of equal lines) for free. We keep the frontier of
// every D (2D+1 entries: memory O(D^2)) and walk it back to recover the
// script. Common prefix and suffix are stripped first, which is most of an
// IR module after a pass. When the script would need more than `maxEdits`
// edits, the middle part is reported as deleted then inserted rather than
// spending quadratic memory on it.
#include <string>
#include <string_view>
#include <vector>

namespace unity::viz {

struct LineDiff {
  enum class Kind { Equal, Delete, Insert };
  Kind kind = Kind::Equal;
  int left = -1;  // line index in the left text (Equal, Delete)
  int right = -1; // line index in the right text (Equal, Insert)
};

/// The edit script turning `a` into `b`, in order.
std::vector<LineDiff> diffLines(const std::vector<std::string>& a,
                                const std::vector<std::string>& b, int maxEdits = 4000);

/// Splits text into lines (without the newline characters).
std::vector<std::string> splitLines(std::string_view text);

} // namespace unity::viz
