#pragma once
// MachineModel: what the scheduler and the code generator know about the
// machine a target's code runs on: vector width and lanes, register count,
// FMA, cores, whether there are threads at all, L1/L2 sizes. It is derived
// from the target's attributes alone (-mtriple, -mcpu, -mattr, -num-cores)
// through a table of known CPUs, so `llvm -mcpu=haswell` describes a
// Haswell on any build machine. Only a target whose CPU is this machine's
// (no -mcpu, or -mcpu=native, on the host triple) asks the running CPU
// (__builtin_cpu_supports, sysconf cache sizes). Cores: -num-cores, else the
// hardware threads when the code runs in this process, else 1.
//
// The field list, the table and where each number comes from are in
// docs/targets.md ("Machine model"). LLVM-free: codegen derives the same
// model from its CodegenOptions strings with machineModel(MachineQuery).
#include <set>
#include <string>

namespace unity::target {

struct Target;

struct MachineModel {
  // --- identity
  std::string triple; // -mtriple as given; empty: this machine's
  /// "x86_64", "x86" (32-bit), "aarch64", "arm" (32-bit ARM or Thumb),
  /// "other" (an architecture without a table: scalar, no assumptions).
  std::string arch;
  bool thumb = false;    // Thumb code (thumb* triple): Cortex-M and friends
  std::string cpu;       // the CPU described: a table name, "native" (detected) or "generic"
  bool detected = false; // numbers read from the running CPU (host, -mcpu native)
  bool runsHere = false; // code for it runs in this process (Target::isHost)
  /// How the numbers were found, for users and tests: "host", "table", or
  /// "fallback: ..." naming the assumption (unknown -mcpu, unknown arch).
  std::string source;

  // --- vector unit (float32 view; what the schedule tiles with)
  /// Width in bits of the vectors the generated code uses: 512 with
  /// AVX-512 (codegen turns off LLVM's prefer-256-bit tuning; -mattr=
  /// +prefer-256-bit gives 256), 256 with AVX/AVX2, 128 with SSE, NEON or
  /// MVE, 0 without a vector unit.
  int vectorBits = 0;
  int lanesF32 = 1; // float32 lanes of one vector: vectorBits / 32, at least 1
  /// Architectural registers that hold float vectors (or float scalars when
  /// there is no vector unit): 32 for AVX-512 and AArch64, 16 for
  /// SSE/AVX x86-64 and ARM NEON (q0-q15), 8 for 32-bit x86 and MVE, 32
  /// single-precision registers for an FPU-only Cortex-M (s0-s31), 0 for
  /// soft float.
  int vectorRegisters = 0;
  bool fma = false;       // fused multiply-add (FMA3, AArch64/VFPv4/FPv5 vfma)
  bool hardFloat = false; // float instructions at all (false: Cortex-M0/M3, soft float)
  bool avx2 = false, avx512f = false, neon = false, mve = false;
  /// The effective feature set after -mattr (LLVM feature names without
  /// sign, e.g. "avx2", "fma", "neon", "fp-armv8d16"): table features,
  /// their implications, then each +x/-x of -mattr in order.
  std::set<std::string> features;

  // --- parallelism and memory
  int cores = 1;       // threads kernels may use (see the file comment)
  bool threads = true; // an OS with threads (false: bare-metal "-none-" triples)
  int l1dBytes = 0;    // L1 data cache per core; 0: none or unknown
  int l2Bytes = 0;     // L2 cache per core (or per cluster where shared); 0: none
  /// Vector scatter stores that cost little more than a store per element:
  /// AVX-512 on Intel's cores. False where there is no scatter instruction
  /// (AVX2, SSE, NEON: a scattered vector store is one scalar store per
  /// lane) or where it is slow (AMD Zen 4 and 5: the packed convolution's
  /// blocked-to-NCHW store, 14 scatters per 7 x 32 tile, made the RGB
  /// stems 6-34 % slower than the wide form: docs/benchmarks.md, session
  /// 18). The generic x86-64-v4 level counts as fast (the measurements the
  /// older rules were made with were Intel's). SchedulePolicy::forMachine
  /// derives packedConvMinChannels from it.
  bool fastScatter = false;

  bool has(const std::string& feature) const { return features.count(feature) > 0; }
  /// {"arch": ..., "vector_bits": ..., ...} (all fields), for printing and tests.
  std::string toJSON() const;
};

/// The attribute strings a machine model is derived from (codegen has
/// these, not a Target).
struct MachineQuery {
  std::string triple;   // empty: this machine's
  std::string cpu;      // empty or "native": this machine's CPU when runsHere, else generic
  std::string mattr;    // "+avx2,-fma"
  int numCores = 0;     // 0: not given
  bool runsHere = true; // the code runs in this process (the triple is the host's)
};

MachineModel machineModel(const MachineQuery& q);
/// From the target's -mtriple/-mcpu/-mattr/-num-cores; runsHere is
/// t.isHost(). Kinds without those attributes (library kinds) describe
/// this machine.
MachineModel machineModel(const Target& t);
/// This machine, detected (what `llvm` and `llvm -mcpu=native` describe).
MachineModel hostMachineModel();

/// The CPU names of the table, for docs and tests.
std::set<std::string> knownCpus();

} // namespace unity::target
