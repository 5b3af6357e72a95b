// The timing helper of measure.h. Clocks are read with clock_gettime:
// CLOCK_MONOTONIC for wall time (never steps backwards when the system time
// is set), CLOCK_THREAD_CPUTIME_ID and CLOCK_PROCESS_CPUTIME_ID for CPU time
// (nanosecond resolution on Linux, unlike getrusage's microseconds). A run
// reads both clocks before and after the call and nothing else, so the
// bookkeeping between the two reads is a few clock reads (tens of ns).
#include "engine/support/measure.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <mutex>
#include <numeric>
#include <string>

namespace unity {

namespace {

volatile unsigned gFlushSink; // keeps flushCaches' read-back

double readClock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double cpuClockSeconds(CpuClock c) {
  return c == CpuClock::Thread ? threadCpuSeconds() : processCpuSeconds();
}

/// "32768K" / "1M" / "512" (sysfs cache sizes) in bytes; 0 when unreadable.
std::size_t parseSize(const std::string& s) {
  std::size_t n = 0, i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    n = n * 10 + std::size_t(s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k'))
    n <<= 10;
  else if (i < s.size() && (s[i] == 'M' || s[i] == 'm'))
    n <<= 20;
  return n;
}

} // namespace

double wallClockSeconds() { return readClock(CLOCK_MONOTONIC); }
double threadCpuSeconds() { return readClock(CLOCK_THREAD_CPUTIME_ID); }
double processCpuSeconds() { return readClock(CLOCK_PROCESS_CPUTIME_ID); }

SampleStats summarize(std::vector<double> v) {
  SampleStats s;
  s.count = int(v.size());
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(n);
  if (n > 1) {
    double sq = 0;
    for (double x : v)
      sq += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(sq / double(n - 1));
  }
  // Rounding in the mean of equal samples must not put it outside [min, max].
  s.mean = std::clamp(s.mean, s.min, s.max);
  return s;
}

Measurement measure(const std::function<void()>& fn, const MeasureOptions& o) {
  Measurement m;
  for (int i = 0; i < o.warmup; ++i) {
    if (o.flushCache)
      flushCaches();
    fn();
    ++m.warmupRuns;
  }
  double total = 0;
  int cap = std::max(o.maxRepeats, o.repeats);
  while (int(m.wall.size()) < o.repeats || (total < o.minSeconds && int(m.wall.size()) < cap)) {
    if (o.flushCache)
      flushCaches();
    double c0 = cpuClockSeconds(o.cpuClock);
    double w0 = wallClockSeconds();
    fn();
    double w = wallClockSeconds() - w0;
    double c = cpuClockSeconds(o.cpuClock) - c0;
    m.wall.push_back(w);
    m.cpu.push_back(c);
    total += w;
  }
  return m;
}

void Stopwatch::restart() {
  cpu0_ = cpuClockSeconds(clock_);
  wall0_ = wallClockSeconds();
}
double Stopwatch::wallSeconds() const { return wallClockSeconds() - wall0_; }
double Stopwatch::cpuSeconds() const { return cpuClockSeconds(clock_) - cpu0_; }

std::size_t lastLevelCacheBytes() {
  // sysfs lists every cache of cpu0 with its level and type; the largest data
  // or unified cache is the last level.
  std::size_t best = 0;
  for (int i = 0; i < 16; ++i) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream type(dir + "type"), size(dir + "size");
    std::string t, sz;
    if (!(type >> t) || !(size >> sz))
      break;
    if (t != "Instruction")
      best = std::max(best, parseSize(sz));
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    best = std::size_t(std::max({l3, l2, 0L}));
  }
#endif
  return best ? best : std::size_t(32) << 20;
}

void flushCaches() {
  static std::mutex mu;
  static std::vector<unsigned char> buffer;
  std::lock_guard lock(mu);
  if (buffer.empty())
    buffer.resize(2 * lastLevelCacheBytes());
  // Writing every cache line makes it dirty and ours; the read-back keeps the
  // compiler from dropping the stores.
  static unsigned char round = 0;
  ++round;
  for (std::size_t i = 0; i < buffer.size(); i += 64)
    buffer[i] = round;
  unsigned sum = 0;
  for (std::size_t i = 0; i < buffer.size(); i += 64)
    sum += buffer[i];
  gFlushSink = sum;
}

} // namespace unity
