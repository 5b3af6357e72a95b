#pragma once
// Timing a piece of work: the one helper that `lowerscope-cli run`, every
// benchmark and the tuner's measurement use, so that "the time of a kernel"
// means the same thing everywhere.
//
// measure(fn, options) calls fn `warmup` times untimed (first-touch page
// faults, lazy JIT, cold caches and branch predictors stay out of the
// figures), then at least `repeats` timed times and, when `minSeconds` is set,
// more until the timed runs add up to that much wall time (at most
// `maxRepeats`). Every timed run is read on two clocks: the monotonic wall
// clock and a CPU clock (the calling thread's, or the whole process's for
// work that runs on a thread pool). On a machine shared with other work the
// wall time says as much about the neighbours as about us; the CPU time of
// single-threaded work does not, while for multi-threaded work only the wall
// time says how long a caller waits. The result keeps every sample, so a
// caller can report the minimum (the least disturbed run), the median (the
// typical one) or the spread. With `flushCache`, a buffer larger than the
// last-level cache is written before every run (outside the timing), for
// figures of a kernel whose inputs do not start in cache.
#include <cstddef>
#include <functional>
#include <vector>

namespace unity {

/// Seconds on the monotonic wall clock (an arbitrary origin: take differences).
double wallClockSeconds();
/// CPU seconds (user + system) consumed by the calling thread so far.
double threadCpuSeconds();
/// CPU seconds (user + system) consumed by every thread of the process so far.
double processCpuSeconds();

/// Which CPU clock a measurement reads next to the wall clock.
enum class CpuClock {
  Thread,  ///< the calling thread: work that runs on it
  Process, ///< the whole process: work spread over a thread pool
};

/// Order statistics and moments of a list of samples (all 0 when it is empty).
/// The median of an even count is the mean of the two middle samples; the
/// standard deviation is the sample one (n - 1), 0 for a single sample.
struct SampleStats {
  int count = 0;
  double min = 0, median = 0, mean = 0, max = 0, stddev = 0;
};
SampleStats summarize(std::vector<double> samples);

struct MeasureOptions {
  int warmup = 1;           ///< untimed calls first
  int repeats = 10;         ///< at least this many timed calls
  double minSeconds = 0;    ///< and more until their wall time adds up to this
  int maxRepeats = 1000000; ///< cap on timed calls when minSeconds asks for more
  bool flushCache = false;  ///< flushCaches() before every call, outside the timing
  CpuClock cpuClock = CpuClock::Thread;
};

/// Every timed call's seconds on both clocks, in call order.
struct Measurement {
  std::vector<double> wall; ///< wall-clock seconds of each timed call
  std::vector<double> cpu;  ///< CPU seconds of the same calls (MeasureOptions::cpuClock)
  int warmupRuns = 0;       ///< untimed calls made before them
  SampleStats wallStats() const { return summarize(wall); }
  SampleStats cpuStats() const { return summarize(cpu); }
};

/// Calls fn as MeasureOptions says and returns the samples. Exceptions from
/// fn propagate (nothing is retried).
Measurement measure(const std::function<void()>& fn, const MeasureOptions& options = {});

/// Wall and CPU time since construction (or restart()) for a stretch of code
/// that is not one callable: a build step, an interleaved loop.
class Stopwatch {
public:
  explicit Stopwatch(CpuClock clock = CpuClock::Thread) : clock_(clock) { restart(); }
  void restart();
  double wallSeconds() const;
  double cpuSeconds() const;
  double wallMs() const { return wallSeconds() * 1e3; }
  double cpuMs() const { return cpuSeconds() * 1e3; }

private:
  CpuClock clock_;
  double wall0_ = 0, cpu0_ = 0;
};

/// Size of the largest data cache the OS reports (the last level), or 32 MiB
/// when it reports none.
std::size_t lastLevelCacheBytes();

/// Writes then reads a buffer of twice the last-level cache size, evicting
/// what earlier work left in the caches. The buffer is allocated once per
/// process.
void flushCaches();

} // namespace unity
