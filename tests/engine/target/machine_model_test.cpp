// MachineModel: what a target string says about the machine (lanes, FMA,
// registers, cores, threads, caches) comes from the -mcpu table and -mattr,
// never from the CPU running the test, except for the host's own CPU.
#include <gtest/gtest.h>

#include <thread>

#include "engine/support/error.h"
#include "engine/target/machine_model.h"
#include "engine/target/schedule_policy.h"
#include "engine/target/target.h"

using namespace unity;
using namespace unity::target;

namespace {

MachineModel model(const std::string& t) { return machineModel(Target::parse(t)); }

int hostThreads() {
  unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

} // namespace

TEST(MachineModel, NamedX86CpusGiveTheirVectorUnitOnAnyHost) {
  struct Case {
    std::string target;
    int bits, lanes, regs;
    bool fma, avx512;
  };
  for (auto& c : std::vector<Case>{{"llvm -mcpu=x86-64", 128, 4, 16, false, false},
                                   {"llvm -mcpu=x86-64-v2", 128, 4, 16, false, false},
                                   {"llvm -mcpu=sandybridge", 256, 8, 16, false, false},
                                   {"llvm -mcpu=haswell", 256, 8, 16, true, false},
                                   {"llvm -mcpu=broadwell", 256, 8, 16, true, false},
                                   {"llvm -mcpu=skylake", 256, 8, 16, true, false},
                                   {"llvm -mcpu=znver2", 256, 8, 16, true, false},
                                   {"llvm -mcpu=znver3", 256, 8, 16, true, false},
                                   {"llvm -mcpu=skylake-avx512", 512, 16, 32, true, true},
                                   {"llvm -mcpu=cascadelake", 512, 16, 32, true, true},
                                   {"llvm -mcpu=icelake-server", 512, 16, 32, true, true},
                                   {"llvm -mcpu=sapphirerapids", 512, 16, 32, true, true},
                                   {"llvm -mcpu=znver4", 512, 16, 32, true, true},
                                   {"x86-64-v3", 256, 8, 16, true, false},
                                   {"x86-64-v4", 512, 16, 32, true, true}}) {
    auto m = model(c.target);
    EXPECT_EQ(m.arch, "x86_64") << c.target;
    EXPECT_EQ(m.vectorBits, c.bits) << c.target;
    EXPECT_EQ(m.lanesF32, c.lanes) << c.target;
    EXPECT_EQ(m.vectorRegisters, c.regs) << c.target;
    EXPECT_EQ(m.fma, c.fma) << c.target;
    EXPECT_EQ(m.avx512f, c.avx512) << c.target;
    EXPECT_FALSE(m.detected) << c.target;
    EXPECT_EQ(m.source, "table") << c.target;
    EXPECT_TRUE(m.threads) << c.target;
    EXPECT_GT(m.l1dBytes, 0) << c.target;
    EXPECT_GT(m.l2Bytes, 0) << c.target;
  }
  // Fast scatters: Intel's AVX-512 cores, not AMD's nor AVX2 (no scatter).
  for (const char* t : {"llvm -mcpu=skylake-avx512", "llvm -mcpu=icelake-server", "x86-64-v4"})
    EXPECT_TRUE(model(t).fastScatter) << t;
  for (const char* t : {"llvm -mcpu=znver4", "llvm -mcpu=znver5", "llvm -mcpu=haswell",
                        "llvm -mcpu=skylake-avx512 -mattr=-avx512f"})
    EXPECT_FALSE(model(t).fastScatter) << t;
  EXPECT_EQ(SchedulePolicy::forMachine(model("llvm -mcpu=znver4")).packedConvMinChannels, 16);
  EXPECT_EQ(SchedulePolicy::forMachine(model("llvm -mcpu=icelake-server")).packedConvMinChannels,
            0);
  // Caches come from the table too: Ice Lake's 48 KiB L1d, Haswell's 32 KiB.
  EXPECT_EQ(model("llvm -mcpu=icelake-server").l1dBytes, 48 * 1024);
  EXPECT_EQ(model("llvm -mcpu=haswell").l1dBytes, 32 * 1024);
  EXPECT_EQ(model("llvm -mcpu=haswell").l2Bytes, 256 * 1024);
}

TEST(MachineModel, MattrAddsAndRemovesFeaturesWithWhatTheyImply) {
  // -avx512f on an AVX-512 CPU: AVX2 code, 16 registers.
  auto m = model("llvm -mcpu=skylake-avx512 -mattr=-avx512f");
  EXPECT_EQ(m.lanesF32, 8);
  EXPECT_EQ(m.vectorRegisters, 16);
  EXPECT_TRUE(m.avx2 && m.fma && !m.avx512f);
  // Removing AVX2 also removes AVX-512 (which needs it); AVX floats stay.
  m = model("llvm -mcpu=znver4 -mattr=-avx2");
  EXPECT_FALSE(m.avx512f || m.avx2);
  EXPECT_EQ(m.vectorBits, 256);
  // Removing AVX takes AVX2 and FMA with it.
  m = model("llvm -mcpu=haswell -mattr=-avx");
  EXPECT_EQ(m.vectorBits, 128);
  EXPECT_FALSE(m.fma || m.avx2);
  // +avx512f on the baseline brings AVX2 and FMA.
  m = model("llvm -mcpu=x86-64 -mattr=+avx512f");
  EXPECT_EQ(m.lanesF32, 16);
  EXPECT_TRUE(m.avx2 && m.fma && m.has("avx") && m.has("sse4.2"));
  // Several, in order: the last word wins.
  EXPECT_EQ(model("llvm -mcpu=haswell -mattr=+avx512f,-avx512f").lanesF32, 8);
  EXPECT_EQ(model("llvm -mcpu=haswell -mattr=-fma,+fma").fma, true);
  // LLVM's 256-bit preference, asked for explicitly, halves the lanes but
  // keeps AVX-512's 32 registers.
  m = model("llvm -mcpu=skylake-avx512 -mattr=+prefer-256-bit");
  EXPECT_EQ(m.vectorBits, 256);
  EXPECT_EQ(m.lanesF32, 8);
  EXPECT_EQ(m.vectorRegisters, 32);
}

TEST(MachineModel, CoresComeFromNumCoresElseTheHostElseOne) {
  EXPECT_EQ(model("llvm -mcpu=haswell -num-cores=3").cores, 3);
  EXPECT_EQ(model("llvm -num-cores=5").cores, 5);
  // Code for this machine (no -mtriple) runs on its threads.
  EXPECT_EQ(model("llvm -mcpu=haswell").cores, hostThreads());
  // A cross target without -num-cores: one (its core count is unknown).
  EXPECT_EQ(model("cortex-a72").cores, 1);
  EXPECT_EQ(model("cortex-a72 -num-cores=4").cores, 4);
}

TEST(MachineModel, OnlyTheHostCpuIsDetected) {
  for (std::string t : {"llvm", "llvm -mcpu=native", "host", "llvm -num-cores=1"}) {
    auto m = model(t);
    EXPECT_TRUE(m.detected) << t;
    EXPECT_EQ(m.source, "host") << t;
    EXPECT_TRUE(m.runsHere) << t;
    EXPECT_GE(m.lanesF32, 1) << t;
    EXPECT_GT(m.l1dBytes, 0) << t;
  }
  EXPECT_EQ(model("llvm").cores, hostThreads());
  // Naming a CPU, even one like this machine's, is never detection.
  for (std::string t : {"llvm -mcpu=haswell", "llvm -mcpu=znver4", "cortex-m7"})
    EXPECT_FALSE(model(t).detected) << t;
  // The host's model equals what `llvm` describes.
  EXPECT_EQ(hostMachineModel().toJSON(), model("llvm").toJSON());
  // A library kind (no CPU attributes) describes this machine too.
  EXPECT_TRUE(model("openblas -num-cores=2").detected);
  EXPECT_EQ(model("openblas -num-cores=2").cores, 2);
}

TEST(MachineModel, UnknownX86CpuFallsBackToTheBaselineAndSaysSo) {
  auto m = model("llvm -mtriple=x86_64-linux-gnu -mcpu=bonnell");
  EXPECT_EQ(m.cpu, "generic");
  EXPECT_EQ(m.vectorBits, 128);
  EXPECT_EQ(m.lanesF32, 4);
  EXPECT_FALSE(m.fma);
  EXPECT_EQ(m.source.rfind("fallback: -mcpu=bonnell is not in the machine-model table", 0), 0u)
      << m.source;
  EXPECT_NE(m.source.find("x86-64 baseline"), std::string::npos) << m.source;
  // -mattr still applies on top of the fallback.
  EXPECT_EQ(model("llvm -mtriple=x86_64-linux-gnu -mcpu=bonnell -mattr=+avx2").lanesF32, 8);
  // A CPU of another architecture is not borrowed.
  EXPECT_EQ(model("llvm -mtriple=aarch64-linux-gnu -mcpu=haswell").lanesF32, 4);
  EXPECT_EQ(model("llvm -mtriple=aarch64-linux-gnu -mcpu=haswell").source.rfind("fallback", 0), 0u);
}

TEST(MachineModel, ArmCpus) {
  // Cortex-M7 (tag and plain string): Thumb, scalar single-precision FPU
  // with FMA, 32 s-registers, bare metal (no threads), one core.
  for (std::string t : {"cortex-m7", "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7"}) {
    auto m = model(t);
    EXPECT_EQ(m.arch, "arm") << t;
    EXPECT_TRUE(m.thumb) << t;
    EXPECT_EQ(m.vectorBits, 0) << t;
    EXPECT_EQ(m.lanesF32, 1) << t;
    EXPECT_TRUE(m.fma && m.hardFloat) << t;
    EXPECT_EQ(m.vectorRegisters, 32) << t;
    EXPECT_FALSE(m.threads) << t;
    EXPECT_EQ(m.cores, 1) << t;
    EXPECT_FALSE(m.runsHere) << t;
    EXPECT_EQ(m.l1dBytes, 16 * 1024) << t;
  }
  auto m0 = model("cortex-m0");
  EXPECT_FALSE(m0.hardFloat || m0.fma);
  EXPECT_EQ(m0.vectorRegisters, 0);
  EXPECT_EQ(m0.l1dBytes, 0);
  EXPECT_TRUE(model("cortex-m4").fma);
  EXPECT_TRUE(model("llvm -mtriple=thumbv8m.main-none-eabi -mcpu=cortex-m33").fma);
  // AArch64 cores: NEON, 4 lanes, 32 registers, FMA.
  for (std::string cpu : {"cortex-a53", "cortex-a55", "cortex-a72", "cortex-a76", "neoverse-n1",
                          "neoverse-v1", "apple-m1", "generic"}) {
    auto m = model("llvm -mtriple=aarch64-linux-gnu -mcpu=" + cpu);
    EXPECT_EQ(m.arch, "aarch64") << cpu;
    EXPECT_EQ(m.lanesF32, 4) << cpu;
    EXPECT_EQ(m.vectorRegisters, 32) << cpu;
    EXPECT_TRUE(m.fma && m.neon && m.threads) << cpu;
    EXPECT_EQ(m.source, "table") << cpu;
  }
  EXPECT_EQ(model("llvm -mtriple=aarch64-linux-gnu").cpu, "generic");
  EXPECT_EQ(model("llvm -mtriple=aarch64-linux-gnu -mattr=-neon").lanesF32, 1);
  // 32-bit ARM: the generic CPU has no FPU; +neon gives 16 q-registers of 4
  // lanes (NEON alone implies VFPv3: no FMA); an A72 in 32-bit mode keeps
  // its NEON.
  auto arm = model("llvm -mtriple=armv7a-linux-gnueabihf");
  EXPECT_EQ(arm.lanesF32, 1);
  EXPECT_FALSE(arm.hardFloat);
  auto neon = model("llvm -mtriple=armv7a-linux-gnueabihf -mattr=+neon");
  EXPECT_EQ(neon.lanesF32, 4);
  EXPECT_EQ(neon.vectorRegisters, 16);
  EXPECT_FALSE(neon.fma);
  EXPECT_TRUE(model("llvm -mtriple=armv7a-linux-gnueabihf -mattr=+neon,+vfp4").fma);
  EXPECT_EQ(model("llvm -mtriple=armv8a-linux-gnueabihf -mcpu=cortex-a72").vectorRegisters, 16);
}

TEST(MachineModel, EveryTableCpuIsKnownAndJsonNamesEveryField) {
  auto cpus = knownCpus();
  for (std::string c :
       {"x86-64",      "haswell",        "broadwell",      "skylake",    "skylake-avx512",
        "cascadelake", "icelake-server", "sapphirerapids", "znver2",     "znver3",
        "znver4",      "cortex-m0",      "cortex-m4",      "cortex-m7",  "cortex-m33",
        "cortex-a53",  "cortex-a55",     "cortex-a72",     "cortex-a76", "neoverse-n1",
        "neoverse-v1", "apple-m1",       "generic"})
    EXPECT_TRUE(cpus.count(c)) << c;
  std::string j = model("llvm -mcpu=haswell -num-cores=3").toJSON();
  for (std::string key :
       {"\"arch\":\"x86_64\"", "\"lanes_f32\":8", "\"vector_bits\":256", "\"fma\":true",
        "\"cores\":3", "\"l1d_bytes\":32768", "\"vector_registers\":16", "\"source\":\"table\""})
    EXPECT_NE(j.find(key), std::string::npos) << key << " in " << j;
}

TEST(SchedulePolicy, KnobsFollowTheMachine) {
  auto haswell = SchedulePolicy::forMachine(model("llvm -mcpu=haswell -num-cores=2"));
  EXPECT_EQ(haswell.vectorLanes, 8);
  EXPECT_EQ(haswell.accumulatorRegisters, 12);
  EXPECT_TRUE(haswell.vectorize && haswell.parallelize);
  auto znver4 = SchedulePolicy::forMachine(model("llvm -mcpu=znver4 -num-cores=2"));
  EXPECT_EQ(znver4.vectorLanes, 16);
  EXPECT_EQ(znver4.accumulatorRegisters, 24);
  // -num-cores=3: parallel loops of at least 4 chunks per core.
  auto three = SchedulePolicy::forMachine(model("llvm -mcpu=haswell -num-cores=3"));
  EXPECT_EQ(three.cores, 3);
  EXPECT_EQ(three.parallelTarget(), 12);
  // Cortex-M7: no threads, no vectors, a small unrolled scalar tile.
  auto m7 = SchedulePolicy::forMachine(model("cortex-m7"));
  EXPECT_FALSE(m7.parallelize);
  EXPECT_FALSE(m7.vectorize);
  EXPECT_EQ(m7.vectorLanes, 1);
  EXPECT_EQ(m7.tileRows, (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(m7.accumulatorRegisters, 24);
  EXPECT_EQ(m7.reduceSplitAbove, 128); // it has a data cache
  // Cortex-M4: no cache, no reduction slices; M0 (soft float): a 1 x 1 tile.
  EXPECT_EQ(SchedulePolicy::forMachine(model("cortex-m4")).reduceSplitAbove, 0);
  EXPECT_EQ(SchedulePolicy::forMachine(model("cortex-m0")).accumulatorRegisters, 1);
  // Packing a matmul's B into panels pays against cache misses: not where
  // there is no cache.
  EXPECT_FALSE(SchedulePolicy::forMachine(model("cortex-m4")).packReusedInput);
  EXPECT_TRUE(m7.packReusedInput);
  // AArch64: 4 lanes, 24 of 32 registers.
  auto a72 = SchedulePolicy::forMachine(model("cortex-a72"));
  EXPECT_EQ(a72.vectorLanes, 4);
  EXPECT_EQ(a72.accumulatorRegisters, 24);
}

TEST(SchedulePolicy, JsonRoundTripsAndOverridesByName) {
  auto p = SchedulePolicy::forMachine(model("llvm -mcpu=haswell -num-cores=3"));
  EXPECT_EQ(SchedulePolicy::fromJSON(p.toJSON()), p);
  auto m7 = SchedulePolicy::forMachine(model("cortex-m7"));
  EXPECT_EQ(SchedulePolicy::fromJSON(m7.toJSON()), m7);
  EXPECT_NE(m7, p);
  // A partial object changes only the knobs it names.
  auto q = p.withJSON(R"({"tile_rows": [4, 2], "parallel_chunks_per_core": 8})");
  EXPECT_EQ(q.tileRows, (std::vector<int>{4, 2}));
  EXPECT_EQ(q.parallelTarget(), 24);
  q.tileRows = p.tileRows;
  q.parallelChunksPerCore = p.parallelChunksPerCore;
  EXPECT_EQ(q, p);
  // Every knob is in the JSON form.
  for (std::string key : {"parallelize",
                          "cores",
                          "parallel_chunks_per_core",
                          "vectorize",
                          "vector_lanes",
                          "max_tile_vectors",
                          "tile_rows",
                          "accumulator_registers",
                          "split_above",
                          "split_factor",
                          "min_flat_row_width",
                          "reduce_split_above",
                          "reduce_tile_candidates",
                          "max_unrolled_taps",
                          "keep_padding_producers",
                          "padding_at_consumer",
                          "partition_rows",
                          "fuse_epilogues",
                          "flat_epilogue_min_reduction",
                          "packed_conv_min_channels",
                          "packed_1x1_min_channels",
                          "winograd_tile",
                          "winograd_min_tiles"})
    EXPECT_NE(p.toJSON().find("\"" + key + "\""), std::string::npos) << key;
  for (std::string key :
       {"pack_reused_input", "pack_min_reuse", "pack_in_tile_loop", "reduce_slice_bytes"})
    EXPECT_NE(p.toJSON().find("\"" + key + "\""), std::string::npos) << key;
}

TEST(SchedulePolicy, BadJsonIsAnErrorNamingTheKnob) {
  SchedulePolicy p;
  auto message = [&](const std::string& j) {
    try {
      p.withJSON(j);
    } catch (const Error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"tile_rowz": [2]})").find("unknown knob \"tile_rowz\""), std::string::npos);
  EXPECT_NE(message(R"({"cores": "two"})").find("\"cores\" must be an integer"), std::string::npos);
  EXPECT_NE(message(R"({"tile_rows": [2, "x"]})").find("array of integers"), std::string::npos);
  EXPECT_NE(message(R"({"vectorize": 1})").find("true or false"), std::string::npos);
  EXPECT_NE(message(R"({"cores": 0})").find("must be positive"), std::string::npos);
  EXPECT_NE(message("[1]").find("must be an object"), std::string::npos);
  EXPECT_NE(message("{").find("does not parse"), std::string::npos);
}
