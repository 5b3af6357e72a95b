#pragma once
// The model's latency before and after "Apply best": both builds' executables
// run on the same inputs, off the UI thread, interleaved round by round so a
// neighbour's load on the machine falls on both alike. Each round times a few
// calls of each (unity::measure, wall clock: a build may use a thread pool);
// the figure of a build is the median of its rounds' medians.
//
// The inputs are deterministic (sin of the element index), the same for
// both builds; a symbolic dimension is taken as 1.
#include <QString>

#include <atomic>
#include <memory>

#include "engine/build.h"

namespace lowerscope {

struct LatencyComparison {
  double beforeS = 0, afterS = 0; // median seconds of one model run
  int rounds = 0;
  QString error; // why it could not be measured (nothing else is set then)
  double speedup() const { return afterS > 0 ? beforeS / afterS : 0; }
  /// "before 1.23 ms, after 0.45 ms (2.73x faster)"
  QString text() const;
};

/// Times both builds (see the header comment). Never throws: failures (a
/// compile-only build, a run error) are in `error`; a cancel ends it early
/// with what was measured.
LatencyComparison compareModelLatency(const unity::BuildResult& before,
                                      const unity::BuildResult& after, int rounds = 5,
                                      const std::atomic<bool>* cancel = nullptr);

} // namespace lowerscope
