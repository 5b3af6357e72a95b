#pragma once
// The host's fp32 peak, measured: what "% of peak" in a benchmark (and later
// the tuner's roofline) is relative to. A documented figure from a data
// sheet says what the silicon could do at its nominal clock; a virtual
// machine, a power-capped part or an AVX-512 frequency drop gives less, and
// only a measurement on the machine at hand says how much less.
//
// The measurement runs a loop of fused multiply-adds on independent
// registers, written in assembly so that the figure does not depend on the
// optimisation level the caller was built with: 12 accumulators, enough to
// cover the FMA latency (4-5 cycles) times the FMA ports (2) of current
// x86 cores, on the widest vectors the host runs (zmm with AVX-512F, else
// ymm with AVX2 + FMA). Elsewhere it falls back to a plain multiply-add loop
// the compiler vectorises as it can (labelled "generic").
#include <string>

namespace unity {

/// The CPU's model name (/proc/cpuinfo "model name"), or "unknown CPU".
std::string cpuModelName();

struct FmaPeak {
  double gflops = 0; ///< fp32 GFLOP/s of all threads together (a multiply-add is 2 flops)
  int threads = 1;
  std::string isa; ///< "avx512f (zmm)", "avx2+fma (ymm)" or "generic"
};

/// Runs the FMA loop on `threads` threads at once for about `seconds` and
/// returns the sum of their rates, each the best of several calls over that
/// thread's CPU time: other processes taking turns on a core do not lower
/// it, two threads sharing one core's FMA units (hyper-threads) do.
FmaPeak measureFp32FmaPeak(int threads = 1, double seconds = 0.3);

} // namespace unity
