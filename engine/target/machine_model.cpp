// Machine models from target attributes.
//
// 1. The architecture comes from the triple's first component (x86_64,
//    i686, aarch64/arm64, arm*/thumb*), or from this build for an empty
//    triple.
// 2. The CPU's feature set comes from the table below (LLVM feature names),
//    closed under implication (avx512f needs avx2 and fma, avx2 needs avx,
//    ...; mve.fp needs mve). No -mcpu or -mcpu=native on this machine reads
//    the running CPU instead (__builtin_cpu_supports on x86, NEON on
//    AArch64). An unknown -mcpu falls back to the architecture's baseline
//    (x86-64: SSE2 only; AArch64: NEON; 32-bit ARM: no FPU) and says so in
//    `source`: a conservative model schedules correct code, only slower.
// 3. -mattr is applied in order: +x adds x and what it needs, -x removes x
//    and everything that needs it (-avx2 also drops avx512f), as LLVM does.
// 4. Vector width, lanes, registers and FMA follow from the final feature
//    set; caches from the table (or sysconf for the detected host); cores
//    from -num-cores, else the hardware threads when the code runs here,
//    else 1.
// The table's cache sizes are the vendors' published figures for the
// common configuration of each core (the L2 of a core with a configurable
// or cluster-shared L2 is the one the usual boards ship: Raspberry Pi 3/4/5
// for Cortex-A53/A72/A76, the STM32H7's 16 KiB D-cache for the Cortex-M7).
// They inform the schedule's knobs; nothing relies on them being exact.
#include "engine/target/machine_model.h"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include "engine/target/target.h"

namespace unity::target {

namespace {

constexpr int KiB = 1024;
constexpr int MiB = 1024 * 1024;

/// One known CPU: the architecture family it belongs to ("x86", "aarch64",
/// "arm"), its vector/FP features (LLVM names; implied ones are added) and
/// per-core L1 data / L2 sizes.
struct CpuEntry {
  const char* name;
  const char* family;
  const char* features;
  int l1d, l2;
};

constexpr const char* kAvx512 = "avx512f,avx512bw,avx512dq,avx512vl,avx512cd";

const std::vector<CpuEntry>& cpuTable() {
  static const std::vector<CpuEntry> t = {
      // x86-64 (feature levels and named microarchitectures)
      {"x86-64", "x86", "sse2", 32 * KiB, 256 * KiB},
      {"x86-64-v2", "x86", "sse4.2", 32 * KiB, 256 * KiB},
      {"x86-64-v3", "x86", "avx2,fma", 32 * KiB, 256 * KiB},
      {"x86-64-v4", "x86", kAvx512, 32 * KiB, 1 * MiB},
      {"nehalem", "x86", "sse4.2", 32 * KiB, 256 * KiB},
      {"westmere", "x86", "sse4.2", 32 * KiB, 256 * KiB},
      {"sandybridge", "x86", "avx", 32 * KiB, 256 * KiB},
      {"ivybridge", "x86", "avx,f16c", 32 * KiB, 256 * KiB},
      {"haswell", "x86", "avx2,fma", 32 * KiB, 256 * KiB},
      {"broadwell", "x86", "avx2,fma", 32 * KiB, 256 * KiB},
      {"skylake", "x86", "avx2,fma", 32 * KiB, 256 * KiB},
      {"alderlake", "x86", "avx2,fma", 48 * KiB, 1280 * KiB},
      {"raptorlake", "x86", "avx2,fma", 48 * KiB, 2 * MiB},
      {"skylake-avx512", "x86", kAvx512, 32 * KiB, 1 * MiB},
      {"cascadelake", "x86", kAvx512, 32 * KiB, 1 * MiB},
      {"cooperlake", "x86", kAvx512, 32 * KiB, 1 * MiB},
      {"icelake-client", "x86", kAvx512, 48 * KiB, 512 * KiB},
      {"icelake-server", "x86", kAvx512, 48 * KiB, 1280 * KiB},
      {"tigerlake", "x86", kAvx512, 48 * KiB, 1280 * KiB},
      {"sapphirerapids", "x86", kAvx512, 48 * KiB, 2 * MiB},
      {"emeraldrapids", "x86", kAvx512, 48 * KiB, 2 * MiB},
      {"znver1", "x86", "avx2,fma", 32 * KiB, 512 * KiB},
      {"znver2", "x86", "avx2,fma", 32 * KiB, 512 * KiB},
      {"znver3", "x86", "avx2,fma", 32 * KiB, 512 * KiB},
      {"znver4", "x86", kAvx512, 32 * KiB, 1 * MiB},
      {"znver5", "x86", kAvx512, 48 * KiB, 1 * MiB},
      // AArch64 (usable as 32-bit ARM CPUs too: then 16 NEON registers)
      {"cortex-a53", "aarch64", "neon", 32 * KiB, 512 * KiB},
      {"cortex-a55", "aarch64", "neon", 32 * KiB, 256 * KiB},
      {"cortex-a72", "aarch64", "neon", 32 * KiB, 1 * MiB},
      {"cortex-a76", "aarch64", "neon", 64 * KiB, 512 * KiB},
      {"neoverse-n1", "aarch64", "neon", 64 * KiB, 1 * MiB},
      {"neoverse-v1", "aarch64", "neon", 64 * KiB, 1 * MiB}, // SVE not modelled: NEON
      {"apple-m1", "aarch64", "neon", 128 * KiB, 12 * MiB},  // performance cluster
      // Cortex-M (no cache but the M7's; single-core, bare metal)
      {"cortex-m0", "arm", "", 0, 0},
      {"cortex-m0plus", "arm", "", 0, 0},
      {"cortex-m3", "arm", "", 0, 0},
      {"cortex-m4", "arm", "vfp4d16sp", 0, 0},
      {"cortex-m7", "arm", "fp-armv8d16", 16 * KiB, 0},
      {"cortex-m33", "arm", "fp-armv8d16sp", 0, 0},
  };
  return t;
}

/// Feature -> the features it needs (LLVM's implications, the modelled part).
const std::map<std::string, std::vector<std::string>>& prerequisites() {
  static const std::map<std::string, std::vector<std::string>> p = {
      {"sse2", {"sse"}},         {"sse3", {"sse2"}},
      {"ssse3", {"sse3"}},       {"sse4.1", {"ssse3"}},
      {"sse4.2", {"sse4.1"}},    {"avx", {"sse4.2"}},
      {"avx2", {"avx"}},         {"fma", {"avx"}},
      {"f16c", {"avx"}},         {"avx512f", {"avx2", "fma", "f16c"}},
      {"avx512bw", {"avx512f"}}, {"avx512dq", {"avx512f"}},
      {"avx512vl", {"avx512f"}}, {"avx512cd", {"avx512f"}},
      {"vfp3", {"vfp2"}},        {"vfp3d16", {"vfp2"}},
      {"vfp4", {"vfp3"}},        {"fp-armv8", {"vfp4"}},
      {"neon", {"vfp3"}},        {"mve.fp", {"mve", "fp-armv8d16sp"}},
  };
  return p;
}

void enable(std::set<std::string>& fs, const std::string& f) {
  if (!fs.insert(f).second)
    return;
  auto it = prerequisites().find(f);
  if (it != prerequisites().end())
    for (auto& pre : it->second)
      enable(fs, pre);
}

void disable(std::set<std::string>& fs, const std::string& f) {
  if (!fs.erase(f))
    return;
  for (auto& [g, pres] : prerequisites())
    for (auto& pre : pres)
      if (pre == f)
        disable(fs, g);
}

/// "+avx2,-fma,neon" applied in order (a bare name enables).
void applyMattr(std::set<std::string>& fs, const std::string& mattr) {
  std::istringstream in(mattr);
  std::string tok;
  while (std::getline(in, tok, ',')) {
    size_t b = tok.find_first_not_of(" \t"), e = tok.find_last_not_of(" \t");
    if (b == std::string::npos)
      continue;
    tok = tok.substr(b, e - b + 1);
    if (tok[0] == '-')
      disable(fs, tok.substr(1));
    else
      enable(fs, tok[0] == '+' ? tok.substr(1) : tok);
  }
}

bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__i386__)
  return "x86";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#else
  return "other";
#endif
}

/// The architecture of a triple's first component.
std::string archOf(const std::string& triple, bool& thumb) {
  thumb = false;
  if (triple.empty())
    return hostArch();
  std::string a = triple.substr(0, triple.find('-'));
  if (a == "x86_64" || a == "amd64" || a == "x86_64h")
    return "x86_64";
  if (a == "x86" || (a.size() == 4 && a[0] == 'i' && a.substr(2) == "86"))
    return "x86";
  if (startsWith(a, "aarch64") || startsWith(a, "arm64"))
    return "aarch64";
  if (startsWith(a, "thumb")) {
    thumb = true;
    return "arm";
  }
  if (startsWith(a, "arm"))
    return "arm";
  return "other";
}

std::string familyOf(const std::string& arch) {
  return arch == "x86_64" || arch == "x86" ? "x86" : arch;
}

/// The running CPU's modelled features.
std::set<std::string> hostFeatures() {
  std::set<std::string> fs;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // Each name is checked separately (__builtin_cpu_supports needs a literal).
  if (__builtin_cpu_supports("sse2"))
    enable(fs, "sse2");
  if (__builtin_cpu_supports("sse4.2"))
    enable(fs, "sse4.2");
  if (__builtin_cpu_supports("avx"))
    enable(fs, "avx");
  if (__builtin_cpu_supports("avx2"))
    enable(fs, "avx2");
  if (__builtin_cpu_supports("fma"))
    enable(fs, "fma");
  if (__builtin_cpu_supports("avx512f"))
    enable(fs, "avx512f");
  if (__builtin_cpu_supports("avx512bw"))
    enable(fs, "avx512bw");
  if (__builtin_cpu_supports("avx512dq"))
    enable(fs, "avx512dq");
  if (__builtin_cpu_supports("avx512vl"))
    enable(fs, "avx512vl");
  if (__builtin_cpu_supports("avx512cd"))
    enable(fs, "avx512cd");
#elif defined(__aarch64__)
  enable(fs, "fp-armv8");
  enable(fs, "neon");
#elif defined(__arm__) && defined(__ARM_NEON)
  enable(fs, "neon");
#endif
  return fs;
}

/// The running CPU is Intel's (x86; false elsewhere).
bool hostIsIntel() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_is("intel");
#else
  return false;
#endif
}

int sysconfBytes([[maybe_unused]] int name) {
  long v = sysconf(name);
  return v > 0 && v < (1L << 30) ? static_cast<int>(v) : 0;
}

void setHostCaches(MachineModel& mm) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  mm.l1dBytes = sysconfBytes(_SC_LEVEL1_DCACHE_SIZE);
  mm.l2Bytes = sysconfBytes(_SC_LEVEL2_CACHE_SIZE);
#endif
  // Not reported (containers, some ARM kernels): the common 32 KiB / 256 KiB.
  if (mm.l1dBytes == 0)
    mm.l1dBytes = 32 * KiB;
  if (mm.l2Bytes == 0)
    mm.l2Bytes = 256 * KiB;
}

/// The generic CPU of a family: what an unknown or absent -mcpu gets.
void setGeneric(MachineModel& mm) {
  std::string fam = familyOf(mm.arch);
  if (fam == "x86") {
    enable(mm.features, "sse2");
    mm.l1dBytes = 32 * KiB;
    mm.l2Bytes = 256 * KiB;
  } else if (fam == "aarch64") {
    enable(mm.features, "fp-armv8");
    enable(mm.features, "neon");
    mm.l1dBytes = 32 * KiB;
    mm.l2Bytes = 256 * KiB;
  }
  // 32-bit ARM and other architectures: no FPU, no cache assumed.
}

/// Vector width, lanes, registers and FMA from the feature set.
void deriveVectorUnit(MachineModel& mm) {
  std::string fam = familyOf(mm.arch);
  auto any = [&](const char* prefix) {
    for (auto& f : mm.features)
      if (startsWith(f, prefix))
        return true;
    return false;
  };
  mm.avx2 = mm.has("avx2");
  mm.avx512f = mm.has("avx512f");
  mm.neon = mm.has("neon");
  mm.mve = mm.has("mve.fp");
  if (fam == "x86") {
    mm.hardFloat = true;
    mm.fma = mm.has("fma");
    mm.vectorBits = mm.avx512f && !mm.has("prefer-256-bit") ? 512
                    : mm.has("avx")                         ? 256
                    : mm.has("sse")                         ? 128
                                                            : 0;
    mm.vectorRegisters = mm.arch == "x86" ? 8 : mm.avx512f ? 32 : 16;
  } else if (fam == "aarch64") {
    mm.hardFloat = mm.has("fp-armv8") || mm.neon;
    mm.fma = mm.hardFloat;
    mm.vectorBits = mm.neon ? 128 : 0;
    mm.vectorRegisters = mm.hardFloat ? 32 : 0;
  } else if (fam == "arm") {
    mm.hardFloat = any("vfp") || any("fp-armv8") || mm.neon || mm.mve;
    mm.fma = any("vfp4") || any("fp-armv8") || mm.mve;
    mm.vectorBits = mm.neon || mm.mve ? 128 : 0;
    mm.vectorRegisters = mm.mve ? 8 : mm.neon ? 16 : mm.hardFloat ? 32 : 0;
  } else {
    // Unknown architecture: scalar code, the usual 32 float registers.
    mm.hardFloat = true;
    mm.vectorBits = 0;
    mm.vectorRegisters = 32;
  }
  mm.lanesF32 = std::max(1, mm.vectorBits / 32);
}

bool isCortexM(const std::string& cpu) { return startsWith(cpu, "cortex-m"); }

} // namespace

MachineModel machineModel(const MachineQuery& q) {
  MachineModel mm;
  mm.triple = q.triple;
  mm.runsHere = q.runsHere;
  mm.arch = archOf(q.triple, mm.thumb);
  std::string fam = familyOf(mm.arch);
  bool native = q.cpu.empty() || q.cpu == "native";
  if (native && q.runsHere && mm.arch == hostArch()) {
    mm.cpu = "native";
    mm.detected = true;
    mm.source = "host";
    mm.features = hostFeatures();
    setHostCaches(mm);
  } else if (native || q.cpu == "generic") {
    mm.cpu = "generic";
    mm.source = "table";
    setGeneric(mm);
  } else {
    const CpuEntry* e = nullptr;
    for (auto& c : cpuTable())
      if (q.cpu == c.name)
        e = &c;
    // An AArch64 core may also run 32-bit ARM code (with 16 NEON registers).
    bool fits = e && (e->family == fam || (fam == "arm" && std::string(e->family) == "aarch64"));
    if (fits) {
      mm.cpu = e->name;
      mm.source = "table";
      applyMattr(mm.features, e->features);
      mm.l1dBytes = e->l1d;
      mm.l2Bytes = e->l2;
    } else {
      mm.cpu = "generic";
      setGeneric(mm);
      std::string base = fam == "x86"       ? "the x86-64 baseline (SSE2, 128-bit, no FMA)"
                         : fam == "aarch64" ? "generic AArch64 (NEON 128-bit, FMA)"
                                            : "a generic CPU without FPU or vectors";
      mm.source = "fallback: -mcpu=" + q.cpu + " is not in the machine-model table for " + mm.arch +
                  "; assuming " + base;
    }
  }
  if (fam == "other")
    mm.source = "fallback: the architecture of '" + q.triple +
                "' has no machine model; assuming scalar code";
  applyMattr(mm.features, q.mattr);
  deriveVectorUnit(mm);
  if (mm.avx512f)
    mm.fastScatter = mm.detected ? hostIsIntel() : !startsWith(mm.cpu, "znver");
  mm.thumb = mm.thumb || isCortexM(mm.cpu);

  // Bare metal (an OS field "none", or a microcontroller): no threads.
  bool bare = isCortexM(mm.cpu);
  std::istringstream parts(q.triple);
  std::string part;
  while (std::getline(parts, part, '-'))
    bare = bare || part == "none";
  mm.threads = !bare;
  if (q.numCores > 0) {
    mm.cores = q.numCores;
  } else if (q.runsHere) {
    unsigned hw = std::thread::hardware_concurrency();
    mm.cores = hw > 0 ? static_cast<int>(hw) : 1;
  } else {
    mm.cores = 1;
  }
  return mm;
}

MachineModel machineModel(const Target& t) {
  MachineQuery q;
  q.triple = t.get("mtriple");
  q.cpu = t.get("mcpu");
  q.mattr = t.get("mattr");
  q.numCores = t.getInt("num-cores", 0);
  q.runsHere = t.isHost();
  return machineModel(q);
}

MachineModel hostMachineModel() { return machineModel(MachineQuery{}); }

std::set<std::string> knownCpus() {
  std::set<std::string> out{"generic", "native"};
  for (auto& c : cpuTable())
    out.insert(c.name);
  return out;
}

std::string MachineModel::toJSON() const {
  nlohmann::ordered_json j;
  j["triple"] = triple;
  j["arch"] = arch;
  j["thumb"] = thumb;
  j["cpu"] = cpu;
  j["detected"] = detected;
  j["runs_here"] = runsHere;
  j["source"] = source;
  j["vector_bits"] = vectorBits;
  j["lanes_f32"] = lanesF32;
  j["vector_registers"] = vectorRegisters;
  j["fma"] = fma;
  j["hard_float"] = hardFloat;
  j["avx2"] = avx2;
  j["avx512f"] = avx512f;
  j["neon"] = neon;
  j["mve"] = mve;
  j["features"] = features;
  j["cores"] = cores;
  j["threads"] = threads;
  j["l1d_bytes"] = l1dBytes;
  j["l2_bytes"] = l2Bytes;
  j["fast_scatter"] = fastScatter;
  return j.dump();
}

} // namespace unity::target
