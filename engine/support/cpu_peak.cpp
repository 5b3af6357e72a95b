// The FMA peak loop of cpu_peak.h. On x86-64 the loop body is inline
// assembly inside functions compiled for the wider ISA
// (__attribute__((target))), chosen at run time with __builtin_cpu_supports;
// the accumulators are asm operands, so they live in registers even in a
// debug build and the loop is exactly 12 FMAs, a decrement and a branch.
// Accumulators start at 0 and add 0.5 * 0.5 per step: no overflow, no
// denormals (which would slow some cores down) in any run length.
#include "engine/support/cpu_peak.h"

#include <algorithm>
#include <fstream>
#include <thread>
#include <vector>

#include "engine/support/measure.h"

namespace unity {

namespace {

constexpr long kSteps = 1L << 22; // loop iterations per call: a few ms on a current core
constexpr int kAccumulators = 12;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UNITY_X86_FMA_ASM 1

typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));

// One asm statement per width: AT&T `vfmadd231ps x, y, acc` is acc += y * x.
#define UNITY_FMA12                                                                                \
  "1:\n\t"                                                                                         \
  "vfmadd231ps %[x], %[y], %[a0]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a1]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a2]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a3]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a4]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a5]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a6]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a7]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a8]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a9]\n\t"                                                              \
  "vfmadd231ps %[x], %[y], %[a10]\n\t"                                                             \
  "vfmadd231ps %[x], %[y], %[a11]\n\t"                                                             \
  "dec %[n]\n\t"                                                                                   \
  "jnz 1b\n\t"

#define UNITY_FMA12_OPERANDS                                                                       \
  : [a0] "+v"(a[0]), [a1] "+v"(a[1]), [a2] "+v"(a[2]), [a3] "+v"(a[3]), [a4] "+v"(a[4]),           \
    [a5] "+v"(a[5]), [a6] "+v"(a[6]), [a7] "+v"(a[7]), [a8] "+v"(a[8]), [a9] "+v"(a[9]),           \
    [a10] "+v"(a[10]), [a11] "+v"(a[11]), [n] "+r"(n)                                              \
  : [x] "v"(x), [y] "v"(y)                                                                         \
  : "cc"

volatile float gSink;

__attribute__((target("avx512f"))) void fmaLoopZmm(long n) {
  V16 a[kAccumulators] = {};
  V16 x = V16{} + 0.5f, y = V16{} + 0.5f;
  asm volatile(UNITY_FMA12 UNITY_FMA12_OPERANDS);
  gSink = a[0][0] + a[11][15];
}

__attribute__((target("avx2,fma"))) void fmaLoopYmm(long n) {
  V8 a[kAccumulators] = {};
  V8 x = V8{} + 0.5f, y = V8{} + 0.5f;
  asm volatile(UNITY_FMA12 UNITY_FMA12_OPERANDS);
  gSink = a[0][0] + a[11][7];
}
#endif

typedef float V4 __attribute__((vector_size(16)));
volatile float gGenericSink;

void mulAddLoopGeneric(long n) {
  V4 a[kAccumulators] = {};
  V4 x = V4{} + 0.5f, y = V4{} + 0.5f;
  for (long i = 0; i < n; ++i)
    for (auto& acc : a)
      acc = acc + x * y;
  gGenericSink = a[0][0] + a[kAccumulators - 1][3];
}

struct Loop {
  void (*fn)(long);
  int lanes;
  const char* isa;
};

Loop hostLoop() {
#ifdef UNITY_X86_FMA_ASM
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {fmaLoopZmm, 16, "avx512f (zmm)"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {fmaLoopYmm, 8, "avx2+fma (ymm)"};
#endif
  return {mulAddLoopGeneric, 4, "generic"};
}

} // namespace

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto begin = line.find_first_not_of(" \t", colon + 1);
        if (begin != std::string::npos)
          return line.substr(begin);
      }
    }
  return "unknown CPU";
}

FmaPeak measureFp32FmaPeak(int threads, double seconds) {
  threads = std::max(1, threads);
  Loop loop = hostLoop();
  MeasureOptions o;
  o.warmup = 1; // brings the core to its vector clock
  o.repeats = 3;
  o.minSeconds = seconds;
  // Every thread times its own calls on its own CPU clock: a thread that
  // waits for a core (other processes) loses no rate, a thread that shares
  // its core's FMA units with another (hyper-threads) does.
  std::vector<double> rate(threads);
  auto one = [&](int t) {
    auto m = measure([&] { loop.fn(kSteps); }, o);
    double best = m.cpuStats().min > 0 ? m.cpuStats().min : m.wallStats().min;
    rate[t] = best > 0 ? 2.0 * loop.lanes * kAccumulators * double(kSteps) / best : 0;
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(one, t);
  one(0);
  for (auto& t : pool)
    t.join();
  double total = 0;
  for (double r : rate)
    total += r;
  return {total * 1e-9, threads, loop.isa};
}

} // namespace unity
