#pragma once
// The model's latency before and after "Apply best": both builds' executables
// run on the same inputs, off the UI thread, interleaved round by round so a
// neighbour's load on the machine falls on both alike. Each round times a few
// calls of each (unity::measure); the figure of a build is the median of its
// rounds' medians. The headline is wall time (a build may use a thread pool,
// and wall time is what a caller waits); the process CPU time is kept too,
// since on a busy machine it moves far less than the wall time.
//
// The inputs are deterministic (sin of the element index), the same for
// both builds; a symbolic dimension is taken as 1 (deterministicInputs,
// build_comparison.h: the inputs Run and Compare uses).
#include <QString>

#include <atomic>
#include <memory>

#include "engine/build.h"

namespace lowerscope {

struct LatencyComparison {
  double beforeS = 0, afterS = 0;       // median wall seconds of one model run
  double cpuBeforeS = 0, cpuAfterS = 0; // median process CPU seconds of one run
  int rounds = 0;
  QString error; // why it could not be measured (nothing else is set then)
  double speedup() const { return afterS > 0 ? beforeS / afterS : 0; }
  /// "before 1.23 ms, after 0.45 ms (2.73x faster; CPU 2.10 ms -> 0.80 ms)"
  QString text() const;
};

/// Times both builds (see the header comment). Never throws: failures (a
/// compile-only build, a run error) are in `error`; a cancel ends it early
/// with what was measured.
LatencyComparison compareModelLatency(const unity::BuildResult& before,
                                      const unity::BuildResult& after, int rounds = 5,
                                      const std::atomic<bool>* cancel = nullptr);

} // namespace lowerscope
