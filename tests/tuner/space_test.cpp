// The design space over SchedulePolicy knobs: the base point is the default
// schedule, points and decisions convert both ways, mutation moves one
// dimension, and different points give different (valid) schedules.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/space.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;

namespace {

target::SchedulePolicy avx512(int cores) {
  return transform::schedulePolicyFor(
      target::Target::parse("llvm -mcpu=skylake-avx512 -num-cores=" + std::to_string(cores)));
}

TEST(SpaceTest, BasePointIsTheDefaultSchedule) {
  auto f = te::matmulPrimFunc(128, 128, 128);
  DesignSpace space(avx512(1));
  auto c = space.apply(f, space.basePoint());
  ASSERT_TRUE(c);
  EXPECT_TRUE(ir::structuralEqual(c->scheduled, transform::defaultSchedule(f, avx512(1))));
  // The trace replays to the same function on a fresh copy.
  auto replayed = schedule::Schedule::replay(f, c->trace).func();
  EXPECT_TRUE(ir::structuralEqual(replayed, c->scheduled));
  EXPECT_EQ(c->key, ir::structuralHashHex(c->scheduled));
}

TEST(SpaceTest, DecisionsRoundTripAndRefuseUnknownKnobs) {
  DesignSpace space(avx512(2));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20; ++i) {
    Point p = space.sample(rng);
    EXPECT_EQ(space.fromDecisions(space.decisions(p)), p);
  }
  EXPECT_THROW(space.fromDecisions({{"no_such_knob", 1}}), Error);
  EXPECT_THROW(space.fromDecisions({{"tile_rows", 1000}}), Error);
  EXPECT_THROW(space.fromDecisions(nlohmann::json::array()), Error);
}

TEST(SpaceTest, OnlyMulticoreTargetsSearchTheParallelExtent) {
  auto names = [](const DesignSpace& s) {
    std::set<std::string> n;
    for (auto& d : s.dimensions())
      n.insert(d.name);
    return n;
  };
  EXPECT_FALSE(names(DesignSpace(avx512(1))).count("parallel_chunks"));
  EXPECT_TRUE(names(DesignSpace(avx512(2))).count("parallel_chunks"));
}

TEST(SpaceTest, MutateChangesExactlyOneDimension) {
  DesignSpace space(avx512(2));
  std::mt19937_64 rng(11);
  for (int i = 0; i < 50; ++i) {
    Point p = space.sample(rng);
    Point q = space.mutate(p, rng);
    int changed = 0;
    for (size_t d = 0; d < p.size(); ++d) {
      changed += p[d] != q[d];
      EXPECT_GE(q[d], 0);
      EXPECT_LT(q[d], int(space.dimensions()[d].values.size()));
    }
    EXPECT_EQ(changed, 1);
  }
}

TEST(SpaceTest, TileKnobsChangeTheMatmulSchedule) {
  auto f = te::matmulPrimFunc(128, 128, 128);
  DesignSpace space(avx512(1));
  std::set<std::string> keys;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i)
    if (auto c = space.apply(f, space.sample(rng)))
      keys.insert(c->key);
  // Rows x vectors x reduction slices: many distinct schedules.
  EXPECT_GE(keys.size(), 10u);
  // Two rows instead of the default's eight changes the register tile.
  Point p = space.basePoint();
  p[0] = 2; // tile_rows = 2
  EXPECT_EQ(space.dimensions()[0].name, "tile_rows");
  auto base = space.apply(f, space.basePoint()), two = space.apply(f, p);
  ASSERT_TRUE(base && two);
  EXPECT_NE(base->key, two->key);
  EXPECT_EQ(space.policy(p).tileRows, (std::vector<int>{2, 1}));
}

} // namespace
