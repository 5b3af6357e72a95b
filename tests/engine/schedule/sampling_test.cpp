// Sampling instructions, annotations and trace plumbing: seeded determinism,
// replay equality on a fresh copy, the JSON round trip (and reading version
// 1), the text form, decisions changed by a mutator flowing into the
// instructions that use them, and illegal decisions refused with a message
// naming the instruction.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/call_tir.h"
#include "tests/engine/schedule/schedule_test_util.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::schedule;
using namespace unity::schedule::testing;

namespace {

std::vector<int64_t> extents(const Schedule& s, const std::vector<LoopRV>& loops) {
  std::vector<int64_t> out;
  for (auto& l : loops)
    out.push_back(asConstInt(s.loop(l)->extent).value_or(-1));
  return out;
}

std::vector<int64_t> values(const std::vector<ExprRV>& v) {
  std::vector<int64_t> out;
  for (auto& x : v)
    out.push_back(x.value);
  return out;
}

/// A tiled matmul whose tile sizes and unroll step are sampled:
/// i, j -> 2 levels each, k -> 2 levels; unroll step on the outer loop.
Schedule tiledMatmul(const PrimFuncRef& f, uint64_t seed) {
  Schedule s(f, seed);
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  auto ti = s.samplePerfectTile(l[0], 2, 16);
  auto tj = s.samplePerfectTile(l[1], 2, 16);
  auto tk = s.samplePerfectTile(l[2], 2, 8);
  auto i = s.split(l[0], ti);
  auto j = s.split(l[1], tj);
  auto k = s.split(l[2], tk);
  s.reorder({i[0], j[0], k[0], i[1], k[1], j[1]});
  auto unroll = s.sampleCategorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25});
  s.annotate(i[0], "pragma_auto_unroll_max_step", unroll);
  return s;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (auto x : v)
    p *= x;
  return p;
}

} // namespace

TEST(ScheduleSampling, PerfectTileFactorsMultiplyToTheExtent) {
  auto f = te::matmulPrimFunc(96, 40, 7);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Schedule s(f, seed);
    auto l = s.getLoops(s.getBlock("C"));
    auto t = values(s.samplePerfectTile(l[0], 3, 8));
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(product(t), 96);
    EXPECT_LE(t[2], 8);
    auto u = values(s.samplePerfectTile(l[2], 2, 4)); // 7 is prime: the innermost must be 1
    EXPECT_EQ(u, (std::vector<int64_t>{7, 1}));
    for (auto x : t)
      EXPECT_GE(x, 1);
  }
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  EXPECT_NE(errorOf([&] { s.samplePerfectTile(l[0], 1, 8); }).find("cannot be one factor"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.samplePerfectTile(l[0], 0, 8); }).find("n is 0"), std::string::npos);
  EXPECT_TRUE(s.trace().empty());
}

TEST(ScheduleSampling, SameSeedSameDecisionsOtherSeedsDiffer) {
  auto f = te::matmulPrimFunc(64, 64, 64);
  auto a = tiledMatmul(f, 7), b = tiledMatmul(f, 7);
  EXPECT_EQ(a.trace(), b.trace());
  EXPECT_TRUE(structuralEqual(a.func(), b.func()));
  bool differs = false;
  for (uint64_t seed = 8; seed < 16 && !differs; ++seed)
    differs = !(tiledMatmul(f, seed).trace() == a.trace());
  EXPECT_TRUE(differs);
  // setSeed restarts the stream.
  Schedule c(f, 1);
  c.setSeed(7);
  auto l = c.getLoops(c.getBlock("C"));
  EXPECT_EQ(c.samplePerfectTile(l[0], 2, 16)[0].value, a.trace().instructions()[0].decision[0]);
}

TEST(ScheduleSampling, CategoricalFollowsTheProbabilities) {
  auto f = te::matmulPrimFunc(4, 4, 4);
  Schedule s(f, 3);
  int counts[3] = {0, 0, 0};
  for (int n = 0; n < 300; ++n) {
    auto v = s.sampleCategorical({10, 20, 30}, {1.0, 0.0, 3.0});
    ASSERT_TRUE(v.value == 10 || v.value == 30) << v.value;
    ++counts[v.value / 10 - 1];
  }
  EXPECT_EQ(counts[1], 0);
  EXPECT_GT(counts[2], counts[0]); // 3:1 over 300 draws
  EXPECT_NE(errorOf([&] {
              s.sampleCategorical({1, 2}, {1.0});
            }).find("2 candidates but 1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.sampleCategorical({1}, {-1.0}); }).find("not a finite number"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.sampleCategorical({1}, {0.0}); }).find("sum to 0"), std::string::npos);
}

TEST(ScheduleSampling, ReplayOnAFreshCopyAndJsonRoundTrip) {
  auto f = te::matmulPrimFunc(32, 48, 16);
  auto s = tiledMatmul(f, 11);
  auto a = randomTensor({32, 16}, 1), b = randomTensor({16, 48}, 2);
  EXPECT_TRUE(close(run(s.func(), {a, b}, {32, 48}), matmulRef(a, b)));

  auto r = Schedule::replay(f, s.trace());
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  EXPECT_EQ(r.trace(), s.trace());

  std::string json = s.trace().toJsonString();
  EXPECT_EQ(nlohmann::json::parse(json)["version"], 2);
  Trace back = Trace::fromJsonString(json);
  EXPECT_EQ(back, s.trace());
  auto r2 = Schedule::replay(f, back);
  EXPECT_TRUE(structuralEqual(r2.func(), s.func()));
  // The split refers to the sample rather than holding constants.
  auto& split0 = back.instructions()[3];
  ASSERT_EQ(split0.kind, "split");
  EXPECT_TRUE(split0.decision.empty());
  ASSERT_EQ(split0.inputs.size(), 2u);
  EXPECT_EQ(split0.inputs[0], (ValueRef{0, 0, 0}));
  EXPECT_EQ(split0.inputs[1], (ValueRef{0, 0, 1}));
}

TEST(ScheduleSampling, TraceTextNamesSampledValues) {
  auto f = te::matmulPrimFunc(1024, 8, 8);
  Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  auto t = s.samplePerfectTile(l[0], 2, 16);
  s.split(l[0], t);
  auto u = s.sampleCategorical({0, 16, 64}, {0.5, 0.25, 0.25});
  s.annotate(s.getLoops(s.getBlock("C"))[0], "pragma_auto_unroll_max_step", u);
  std::string text = s.trace().str();
  std::string want0 = "v0_0, v0_1 = sample_perfect_tile(C[0], n=2, max_innermost=16) -> [" +
                      std::to_string(t[0].value) + ", " + std::to_string(t[1].value) + "]\n";
  EXPECT_EQ(text.substr(0, want0.size()), want0) << text;
  EXPECT_NE(text.find("split(C[0], [v0_0, v0_1])\n"), std::string::npos) << text;
  EXPECT_NE(text.find("v2_0 = sample_categorical([0, 16, 64], probs=[0.5, 0.25, 0.25]) -> " +
                      std::to_string(u.value)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("annotate(C[0], \"pragma_auto_unroll_max_step\", v2_0)"), std::string::npos)
      << text;
}

TEST(ScheduleSampling, SamplingSitesListDecisionsAndDomains) {
  auto f = te::matmulPrimFunc(64, 32, 16);
  auto s = tiledMatmul(f, 5);
  auto sites = s.trace().samplingSites();
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0].inst, 0u);
  EXPECT_EQ(sites[0].kind, "sample_perfect_tile");
  EXPECT_EQ(sites[0].extent, 64);
  EXPECT_EQ(sites[0].n, 2);
  EXPECT_EQ(sites[0].maxInnermost, 16);
  EXPECT_EQ(product(sites[0].decision), 64);
  EXPECT_EQ(sites[2].extent, 16);
  EXPECT_EQ(sites[2].maxInnermost, 8);
  EXPECT_EQ(sites[3].kind, "sample_categorical");
  EXPECT_EQ(sites[3].inst, 7u);
  EXPECT_EQ(sites[3].candidates, (std::vector<int64_t>{0, 16, 64, 512}));
  EXPECT_EQ(sites[3].probs.size(), 4u);
  ASSERT_EQ(sites[3].decision.size(), 1u);
}

TEST(ScheduleSampling, ChangedDecisionsChangeTheSchedule) {
  auto f = te::matmulPrimFunc(64, 32, 16);
  auto s = tiledMatmul(f, 5);
  auto a = randomTensor({64, 16}, 1), b = randomTensor({16, 32}, 2);
  // Tile i as 4 x 16, k as 2 x 8, unroll step 512 (candidate 3).
  Trace t = s.trace().withDecision(0, {4, 16}).withDecision(2, {2, 8}).withDecision(7, {3});
  auto r = Schedule::replay(f, t);
  auto loops = r.getLoops(r.getBlock("C"));
  ASSERT_EQ(loops.size(), 6u);
  EXPECT_EQ(asConstInt(r.loop(loops[0])->extent), 4);
  EXPECT_EQ(asConstInt(r.loop(loops[2])->extent), 2);
  EXPECT_EQ(asConstInt(r.loop(loops[3])->extent), 16);
  EXPECT_EQ(asConstInt(r.loop(loops[4])->extent), 8);
  EXPECT_EQ(r.loop(loops[0])->annotations.getInt("pragma_auto_unroll_max_step", -1), 512);
  EXPECT_EQ(r.trace(), t);
  EXPECT_TRUE(close(run(r.func(), {a, b}, {64, 32}), matmulRef(a, b)));
  // Another decision gives another function.
  auto r2 = Schedule::replay(f, t.withDecision(0, {8, 8}));
  EXPECT_FALSE(structuralEqual(r.func(), r2.func()));
  EXPECT_EQ(asConstInt(r2.loop(r2.getLoops(r2.getBlock("C"))[0])->extent), 8);
}

TEST(ScheduleSampling, IllegalDecisionsAreRefusedOnReplay) {
  auto f = te::matmulPrimFunc(64, 32, 16);
  auto s = tiledMatmul(f, 5);
  auto err = [&](const Trace& t) { return errorOf([&] { Schedule::replay(f, t); }); };
  std::string e = err(s.trace().withDecision(0, {4, 8}));
  EXPECT_NE(e.find("instruction 0 (sample_perfect_tile)"), std::string::npos) << e;
  EXPECT_NE(e.find("multiplies to 32, not the extent 64"), std::string::npos) << e;
  e = err(s.trace().withDecision(0, {2, 32}));
  EXPECT_NE(e.find("exceeds max_innermost = 16"), std::string::npos) << e;
  e = err(s.trace().withDecision(0, {0, 64}));
  EXPECT_NE(e.find("factor below 1"), std::string::npos) << e;
  e = err(s.trace().withDecision(7, {4}));
  EXPECT_NE(e.find("instruction 7 (sample_categorical)"), std::string::npos) << e;
  EXPECT_NE(e.find("not one index into the 4 candidates"), std::string::npos) << e;
  // withDecision itself refuses what no function could make legal.
  EXPECT_NE(errorOf([&] { s.trace().withDecision(3, {1}); }).find("not a sampling instruction"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.trace().withDecision(0, {64}); }).find("decision of 2 value(s)"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { s.trace().withDecision(99, {1}); }).find("out of range"),
            std::string::npos);
}

TEST(ScheduleSampling, ComputeLocationReferencesFollowTheDecision) {
  auto A = te::placeholder({intImm(4), intImm(6)}, DataType::Float32(), "A");
  auto T = te::topi::add(A, A, "T");
  auto R = te::topi::relu(T, "R");
  auto f = te::createPrimFunc({A, R});
  Schedule probe(f);
  auto cands = probe.computeLocationCandidates(probe.getBlock("T"));
  ASSERT_EQ(cands.size(), 2u); // R's two loops
  EXPECT_TRUE(probe.computeLocationCandidates(probe.getBlock("R")).empty());

  // A seed whose location is a loop, then an annotation on that loop.
  std::optional<Schedule> s;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Schedule t(f, seed);
    auto l = t.sampleComputeLocation(t.getBlock("T"));
    if (l.isRoot())
      continue;
    t.annotate(l, "marked", true);
    s = t;
    break;
  }
  ASSERT_TRUE(s.has_value());
  auto& ann = s->trace().instructions()[1];
  ASSERT_EQ(ann.loops.size(), 1u);
  EXPECT_EQ(ann.loops[0], (LoopLocator{"", 0, 0}));
  EXPECT_NE(s->trace().str().find("annotate(l0, \"marked\", True)"), std::string::npos)
      << s->trace().str();
  Trace back = Trace::fromJsonString(s->trace().toJsonString());
  EXPECT_EQ(back, s->trace());
  for (int64_t d : {0, 1}) {
    auto r = Schedule::replay(f, back.withDecision(0, {d}));
    auto loops = r.getLoops(r.getBlock("R"));
    EXPECT_EQ(r.loop(loops[d])->annotations.getBool("marked", false), true) << d;
    EXPECT_FALSE(r.loop(loops[1 - d])->annotations.has("marked")) << d;
  }
  std::string e = errorOf([&] { Schedule::replay(f, back.withDecision(0, {-1})); });
  EXPECT_NE(e.find("is the root, not a loop"), std::string::npos) << e;
  e = errorOf([&] { Schedule::replay(f, back.withDecision(0, {2})); });
  EXPECT_NE(e.find("neither -1 (root) nor the index of one of its 2 candidate loop(s)"),
            std::string::npos)
      << e;
}

TEST(ScheduleAnnotations, RecordedReplayedPrintedAndParsed) {
  auto f = te::matmulPrimFunc(8, 8, 8);
  Schedule s(f);
  auto c = s.getBlock("C");
  auto l = s.getLoops(c);
  s.annotate(l[0], "pragma_auto_unroll_max_step", int64_t(64));
  s.annotate(l[0], "pragma_unroll_explicit", false);
  s.annotate(c, "schedule_rule", std::string("tiling"));
  s.annotate(c, "weight", 0.5);
  EXPECT_EQ(s.loop(l[0])->annotations.getInt("pragma_auto_unroll_max_step", 0), 64);
  EXPECT_EQ(s.block(c)->annotations.getString("schedule_rule"), "tiling");
  ASSERT_EQ(s.trace().size(), 4u);
  EXPECT_EQ(s.trace().instructions()[0].kind, "annotate");
  std::string text = s.trace().str();
  EXPECT_NE(text.find("annotate(C[0], \"pragma_auto_unroll_max_step\", 64)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("annotate(C, \"weight\", 0.5)"), std::string::npos) << text;

  Trace back = Trace::fromJsonString(s.trace().toJsonString());
  EXPECT_EQ(back, s.trace());
  auto r = Schedule::replay(f, back);
  EXPECT_TRUE(structuralEqual(r.func(), s.func()));
  // The annotation is part of the function's structure ...
  Schedule other(f);
  other.annotate(other.getLoops(other.getBlock("C"))[0], "pragma_auto_unroll_max_step",
                 int64_t(16));
  EXPECT_FALSE(structuralEqual(other.func(), s.func()));
  EXPECT_NE(structuralHash(other.func()), structuralHash(s.func()));
  // ... printed and parsed back.
  auto m = transform::moduleCallingPrimFunc(s.func());
  std::string printed = text::printModule(m);
  EXPECT_NE(printed.find("pragma_auto_unroll_max_step"), std::string::npos);
  EXPECT_NE(printed.find("schedule_rule"), std::string::npos);
  EXPECT_TRUE(structuralEqual(text::parseModule(printed), m)) << printed;

  EXPECT_NE(errorOf([&] { s.annotate(c, "", int64_t(1)); }).find("key is empty"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              s.annotate(c, "shape", std::vector<int64_t>{1, 2});
            }).find("only bool, integer, float and string"),
            std::string::npos);
  EXPECT_EQ(s.trace().size(), 4u);
}

TEST(ScheduleTraceJson, VersionOneStillReads) {
  auto f = te::matmulPrimFunc(8, 6, 4);
  Trace t = Trace::fromJsonString(
      R"({"version": 1, "instructions": [{"kind": "split", "loops": [["C", 0]],
          "decision": [-1, 4]}, {"kind": "parallel", "loops": [["C", 0]]}]})");
  auto r = Schedule::replay(f, t);
  EXPECT_EQ(extents(r, r.getLoops(r.getBlock("C"))), (std::vector<int64_t>{2, 4, 6, 4}));
  EXPECT_EQ(countLoops(r.func(), ForKind::Parallel), 1);
  std::string e = errorOf([] { Trace::fromJsonString(R"({"version": 3, "instructions": []})"); });
  EXPECT_NE(e.find("unsupported version 3"), std::string::npos) << e;
}

TEST(ScheduleTraceJson, MalformedReferencesNameTheInstruction) {
  auto bad = [](const std::string& insts) {
    return errorOf(
        [&] { Trace::fromJsonString(R"({"version": 2, "instructions": )" + insts + "}"); });
  };
  std::string tile =
      R"({"kind": "sample_perfect_tile", "loops": [["C", 0]], "n": 2, "max_innermost": 4, "extent": 8, "decision": [2, 4]})";
  std::string e =
      bad("[" + tile +
          R"(, {"kind": "split", "loops": [["C", 0]], "inputs": [{"inst": 1, "output": 0}]}])");
  EXPECT_NE(e.find("instruction 1: input reference to instruction 1, which is not an earlier"),
            std::string::npos)
      << e;
  e = bad("[" + tile +
          R"(, {"kind": "split", "loops": [["C", 0]], "inputs": [{"inst": 0, "output": 2}]}])");
  EXPECT_NE(e.find("instruction 1: input reference to output 2 of instruction 0"),
            std::string::npos)
      << e;
  e = bad(
      R"([{"kind": "parallel", "loops": [["C", 0]]}, {"kind": "annotate", "loops": [{"inst": 0}], "key": "k", "value": 1}])");
  EXPECT_NE(e.find("instruction 1: loop reference to instruction 0 (parallel)"), std::string::npos)
      << e;
  e = bad(
      R"([{"kind": "sample_perfect_tile", "loops": [["C", 0]], "max_innermost": 4, "extent": 8, "decision": [2, 4]}])");
  EXPECT_NE(e.find("instruction 0: missing \"n\""), std::string::npos) << e;
  e = bad(
      R"([{"kind": "sample_categorical", "candidates": [1, 2], "probs": [0.5], "decision": [0]}])");
  EXPECT_NE(e.find("instruction 0: sample_categorical needs as many probabilities"),
            std::string::npos)
      << e;
  e = bad(R"([{"kind": "annotate", "blocks": ["C"], "key": "k", "value": [1, 2]}])");
  EXPECT_NE(e.find("instruction 0: the annotation value is not"), std::string::npos) << e;
  e = bad(R"([{"kind": "rfactor", "loops": [["C", 2]]}])");
  EXPECT_NE(e.find("instruction 0: missing \"factor_axis\""), std::string::npos) << e;
}

TEST(ScheduleSampling, ResampleDrawsNewPointsOfTheSameDesignSpace) {
  auto f = te::matmulPrimFunc(64, 32, 16);
  auto s = tiledMatmul(f, 5);
  auto a = randomTensor({64, 16}, 1), b = randomTensor({16, 32}, 2);
  bool differs = false;
  for (uint64_t seed = 100; seed < 108; ++seed) {
    auto r = Schedule::resample(f, s.trace(), seed);
    auto again = Schedule::resample(f, s.trace(), seed);
    EXPECT_EQ(r.trace(), again.trace());
    ASSERT_EQ(r.trace().size(), s.trace().size());
    for (size_t i = 0; i < r.trace().size(); ++i)
      EXPECT_EQ(r.trace().instructions()[i].kind, s.trace().instructions()[i].kind);
    auto sites = r.trace().samplingSites();
    EXPECT_EQ(product(sites[0].decision), 64);
    EXPECT_LE(sites[2].decision[1], 8);
    differs = differs || !(r.trace() == s.trace());
    // A resampled trace replays to the same function.
    EXPECT_TRUE(structuralEqual(Schedule::replay(f, r.trace()).func(), r.func()));
    EXPECT_TRUE(close(run(r.func(), {a, b}, {64, 32}), matmulRef(a, b)));
  }
  EXPECT_TRUE(differs);
}
