// The timing helper: what it counts, what it reports, and which clock it
// reads. Nothing here depends on how fast the machine is: counts are exact,
// order statistics are compared with each other, and the CPU-vs-wall checks
// use a sleeping callable (sleeping uses no CPU on any machine) and a thread
// that spins for a fixed amount of its own CPU time.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "engine/support/cpu_peak.h"
#include "engine/support/measure.h"

using namespace unity;

namespace {

void sleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/// Spins until the calling thread has used `seconds` of CPU time.
void spinCpu(double seconds) {
  double end = threadCpuSeconds() + seconds;
  while (threadCpuSeconds() < end) {
  }
}

} // namespace

TEST(Summarize, OrderStatisticsAndMoments) {
  SampleStats s = summarize({3, 1, 2, 4});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 2.5); // mean of the two middle samples
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12); // sample deviation (n - 1)

  SampleStats odd = summarize({5, 9, 1});
  EXPECT_DOUBLE_EQ(odd.median, 5);
  SampleStats one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_EQ(summarize({}).count, 0);
}

TEST(Measure, TakesRepeatsSamplesAndDoesNotCountTheWarmUp) {
  int calls = 0;
  MeasureOptions o;
  o.warmup = 3;
  o.repeats = 7;
  Measurement m = measure([&] { ++calls; }, o);
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(m.warmupRuns, 3);
  EXPECT_EQ(m.wall.size(), 7u);
  EXPECT_EQ(m.cpu.size(), 7u);
  EXPECT_EQ(m.wallStats().count, 7);
}

TEST(Measure, StatisticsAreOrdered) {
  int calls = 0;
  MeasureOptions o;
  o.repeats = 9;
  // Uneven work per call gives samples that differ.
  Measurement m = measure([&] { sleepMs(++calls % 3); }, o);
  for (const SampleStats& s : {m.wallStats(), m.cpuStats()}) {
    EXPECT_LE(s.min, s.median);
    EXPECT_LE(s.median, s.max);
    EXPECT_LE(s.min, s.mean);
    EXPECT_LE(s.mean, s.max);
    EXPECT_GE(s.min, 0);
  }
}

TEST(Measure, MinSecondsAddsRunsUntilTheirWallTimeIsReached) {
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 2;
  o.minSeconds = 0.03;
  Measurement m = measure([] { sleepMs(2); }, o);
  double total = 0;
  for (double w : m.wall)
    total += w;
  EXPECT_GE(total, 0.03);
  EXPECT_GE(m.wall.size(), 2u);
}

TEST(Measure, MaxRepeatsCapsAMinSecondsThatIsNeverReached) {
  int calls = 0;
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 2;
  o.minSeconds = 1e9;
  o.maxRepeats = 5;
  Measurement m = measure([&] { ++calls; }, o);
  EXPECT_EQ(m.wall.size(), 5u);
  EXPECT_EQ(calls, 5);
}

TEST(Measure, CpuTimeOfASleepingCallableIsFarBelowItsWallTime) {
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 3;
  Measurement m = measure([] { sleepMs(20); }, o);
  EXPECT_GE(m.wallStats().min, 0.020); // a sleep lasts at least what it asks
  EXPECT_LT(m.cpuStats().max, m.wallStats().min / 4);
}

TEST(Measure, ProcessClockCountsOtherThreadsAndThreadClockDoesNot) {
  // The callable waits for a thread that burns 30 ms of its own CPU time.
  auto work = [] {
    std::thread t([] { spinCpu(0.03); });
    t.join();
  };
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 1;
  o.cpuClock = CpuClock::Process;
  Measurement process = measure(work, o);
  o.cpuClock = CpuClock::Thread;
  Measurement thread = measure(work, o);
  EXPECT_GE(process.cpu[0], 0.03);
  EXPECT_LT(thread.cpu[0], 0.015);
}

TEST(Measure, FlushCacheRunsBeforeEveryCall) {
  EXPECT_GT(lastLevelCacheBytes(), 0u);
  int calls = 0;
  MeasureOptions o;
  o.warmup = 1;
  o.repeats = 2;
  o.flushCache = true;
  Measurement m = measure([&] { ++calls; }, o);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(m.wall.size(), 2u);
}

TEST(Measure, ExceptionsFromTheCallablePropagate) {
  EXPECT_THROW(measure([] { throw std::runtime_error("boom"); }), std::runtime_error);
}

TEST(Stopwatch, ReadsWallAndCpuTimeSinceRestart) {
  Stopwatch sw;
  sleepMs(10);
  EXPECT_GE(sw.wallSeconds(), 0.010);
  EXPECT_GE(sw.wallMs(), 10.0);
  EXPECT_LT(sw.cpuSeconds(), sw.wallSeconds());
  spinCpu(0.01);
  EXPECT_GE(sw.cpuSeconds(), 0.01);
  sw.restart();
  EXPECT_LT(sw.cpuSeconds(), 0.01);
}

TEST(CpuPeak, MeasuresAPositiveRateAndNamesTheCpu) {
  FmaPeak p = measureFp32FmaPeak(1, 0.01);
  EXPECT_GT(p.gflops, 0);
  EXPECT_EQ(p.threads, 1);
  EXPECT_FALSE(p.isa.empty());
  EXPECT_FALSE(cpuModelName().empty());
}
