// Tests of the XGBoost cost model: it ranks held-out candidates of a
// synthetic latency function (and of real matmul schedules whose latency is
// a synthetic function of their tiling) far better than chance, across
// tasks of very different sizes; it is deterministic; it predicts zeros
// untrained; save/load keeps its predictions; and bad input and XGBoost's
// own failures come back as unity::Error, leaving the model as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/te/workloads.h"
#include "tuner/cost_model.h"
#include "tuner/features.h"

using namespace unity;
using unity::tuner::CostModel;

namespace {

struct Data {
  std::vector<std::vector<float>> x;
  std::vector<double> seconds;
  std::vector<int> tasks;
};

/// Rows of 10 uniform features; the latency depends on four of them,
/// non-linearly, times a per-task scale (task 1 is 1000x slower).
Data synthetic(size_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  Data d;
  for (size_t i = 0; i < rows; ++i) {
    std::vector<float> f(10);
    for (auto& v : f)
      v = u(rng);
    int task = static_cast<int>(i % 2);
    double t =
        std::exp(2.0 * f[0] - 1.5 * f[1] * f[2] + std::sin(3.0 * f[3])) * 1e-4 * (task ? 1000 : 1);
    d.x.push_back(f);
    d.seconds.push_back(t);
    d.tasks.push_back(task);
  }
  return d;
}

/// Over pairs of rows of the same task with different latencies: the share
/// where the higher score goes with the lower latency.
double pairwiseAccuracy(const std::vector<double>& score, const Data& d) {
  size_t good = 0, all = 0;
  for (size_t i = 0; i < score.size(); ++i)
    for (size_t j = i + 1; j < score.size(); ++j) {
      if (d.tasks[i] != d.tasks[j] || d.seconds[i] == d.seconds[j])
        continue;
      ++all;
      good += (score[i] > score[j]) == (d.seconds[i] < d.seconds[j]);
    }
  return all ? static_cast<double>(good) / static_cast<double>(all) : 0;
}

template <class F> std::string errorOf(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

} // namespace

TEST(CostModel, UntrainedPredictsZeros) {
  CostModel m;
  EXPECT_FALSE(m.trained());
  EXPECT_EQ(m.predict({{1, 2, 3}, {4, 5, 6}}), (std::vector<double>{0, 0}));
  m.update({}, {}, {}); // nothing to learn from
  EXPECT_FALSE(m.trained());
  EXPECT_EQ(m.rows(), 0u);
}

TEST(CostModel, LearnsASyntheticLatencyAcrossTasks) {
  Data train = synthetic(600, 1), test = synthetic(300, 2);
  CostModel m;
  m.update(train.x, train.seconds, train.tasks);
  EXPECT_TRUE(m.trained());
  EXPECT_EQ(m.rows(), 600u);
  EXPECT_EQ(m.featureLength(), 10u);
  auto score = m.predict(test.x);
  ASSERT_EQ(score.size(), test.x.size());
  EXPECT_GT(pairwiseAccuracy(score, test), 0.8);
  // A random ranking is right about half the time (the comparison is fair).
  std::vector<double> noise(score.size());
  std::mt19937 rng(3);
  for (auto& v : noise)
    v = std::uniform_real_distribution<double>(0, 1)(rng);
  EXPECT_LT(pairwiseAccuracy(noise, test), 0.6);
}

TEST(CostModel, IncrementalUpdatesKeepEarlierRows) {
  Data train = synthetic(600, 1), test = synthetic(300, 2);
  CostModel m;
  Data a, b;
  for (size_t i = 0; i < train.x.size(); ++i) {
    Data& d = i < 300 ? a : b;
    d.x.push_back(train.x[i]);
    d.seconds.push_back(train.seconds[i]);
    d.tasks.push_back(train.tasks[i]);
  }
  m.update(a.x, a.seconds, a.tasks);
  m.update(b.x, b.seconds, b.tasks);
  EXPECT_EQ(m.rows(), 600u);
  CostModel once;
  once.update(train.x, train.seconds, train.tasks);
  // Same rows, same order: the same model.
  EXPECT_EQ(m.predict(test.x), once.predict(test.x));
}

TEST(CostModel, MaxRowsKeepsTheNewest) {
  Data train = synthetic(100, 1);
  CostModel::Options o;
  o.maxRows = 40;
  CostModel m(o);
  m.update(train.x, train.seconds, train.tasks);
  EXPECT_EQ(m.rows(), 40u);
}

TEST(CostModel, Deterministic) {
  Data train = synthetic(300, 5), test = synthetic(50, 6);
  CostModel a, b;
  a.update(train.x, train.seconds, train.tasks);
  b.update(train.x, train.seconds, train.tasks);
  EXPECT_EQ(a.predict(test.x), b.predict(test.x));
}

namespace {

/// A 128x128x128 matmul tiled i_o j_o k i_i j_i (ti x tj accumulators).
ir::PrimFuncRef tiledMatmul(int64_t ti, int64_t tj, bool vectorize, bool parallel) {
  schedule::Schedule s(te::matmulPrimFunc(128, 128, 128));
  auto c = s.getBlock("C");
  auto loops = s.getLoops(c);
  auto is = s.split(loops[0], {-1, ti});
  auto js = s.split(loops[1], {-1, tj});
  s.reorder({is[0], js[0], loops[2], is[1], js[1]});
  s.decomposeReduction(c, loops[2]);
  s.unroll(is[1]);
  if (vectorize)
    s.vectorize(js[1]);
  if (parallel)
    s.parallel(is[0]);
  return s.func();
}

} // namespace

TEST(CostModel, RanksRealSchedulesByASyntheticLatency) {
  // The latency is a made-up function of the tiling (more accumulators help
  // until the 32 registers of 16 lanes spill; vectors help; two cores
  // halve it), so the model can only rank well when the features carry the
  // tile, the vector width and the parallelism.
  Data all;
  std::vector<int64_t> sizes{1, 2, 4, 8, 16, 32};
  for (int64_t ti : sizes)
    for (int64_t tj : sizes)
      for (int vec = 0; vec < 2; ++vec)
        for (int par = 0; par < 2; ++par) {
          double lanes = vec ? static_cast<double>(std::min<int64_t>(tj, 16)) : 1;
          double regs = static_cast<double>(ti) * static_cast<double>(tj) / lanes;
          double eff = std::min(regs, 24.0) / 24.0 / (regs > 32 ? 4.0 : 1.0);
          double t = 1e-3 / (lanes * (0.1 + eff)) / (par ? 2.0 : 1.0);
          tuner::FeatureOptions opt;
          opt.cores = 2;
          all.x.push_back(tuner::extractFeatures(tiledMatmul(ti, tj, vec, par), opt));
          all.seconds.push_back(t);
          all.tasks.push_back(0);
        }
  // A quarter of the schedules, drawn with a fixed seed, is held out.
  std::vector<size_t> order(all.x.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(11));
  Data train, test;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    Data& d = k < order.size() / 4 ? test : train;
    d.x.push_back(all.x[i]);
    d.seconds.push_back(all.seconds[i]);
    d.tasks.push_back(all.tasks[i]);
  }
  CostModel m;
  m.update(train.x, train.seconds, train.tasks);
  EXPECT_GT(pairwiseAccuracy(m.predict(test.x), test), 0.8);
}

TEST(CostModel, BadInputIsAnError) {
  CostModel m;
  EXPECT_NE(errorOf([&] {
              m.update({{1, 2}}, {1e-3, 2e-3}, {0});
            }).find("must match"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              m.update({{1, 2}, {1, 2, 3}}, {1e-3, 2e-3}, {0, 0});
            }).find("row 1 has 3 features, expected 2"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              m.update({{1, 2}}, {0.0}, {0});
            }).find("failed candidates"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              m.update({{1, 2}}, {NAN}, {0});
            }).find("failed candidates"),
            std::string::npos);
  EXPECT_FALSE(m.trained());
  m.update({{1, 2}, {3, 4}}, {1e-3, 2e-3}, {0, 0});
  EXPECT_TRUE(m.trained());
  EXPECT_NE(errorOf([&] {
              m.predict({{1, 2, 3}});
            }).find("row 0 has 3 features, expected 2"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { m.update({{1}}, {1e-3}, {0}); }).find("expected 2"), std::string::npos);
  EXPECT_EQ(m.rows(), 2u);
  CostModel::Options zero;
  zero.rounds = 0;
  EXPECT_THROW(CostModel{zero}, Error);
}

TEST(CostModel, XGBoostFailuresBecomeErrors) {
  // XGBoost itself refuses a negative tree depth when training.
  CostModel::Options o;
  o.extraParams = {{"max_depth", "-1"}};
  CostModel bad(o);
  std::string msg = errorOf([&] { bad.update({{1, 2}, {3, 4}}, {1e-3, 2e-3}, {0, 0}); });
  EXPECT_NE(msg.find("cost model: update: XGBoost"), std::string::npos) << msg;
  EXPECT_NE(msg.find("max_depth"), std::string::npos) << msg;
  EXPECT_FALSE(bad.trained());
  EXPECT_EQ(bad.rows(), 0u);

  // A file that is not a model.
  auto path = std::filesystem::path(::testing::TempDir()) / "not_a_model.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{\"hello\": 1}", f);
    std::fclose(f);
  }
  CostModel m;
  msg = errorOf([&] { m.load(path.string()); });
  EXPECT_NE(msg.find("load '" + path.string() + "': XGBoost"), std::string::npos) << msg;
  EXPECT_FALSE(m.trained());
  std::filesystem::remove(path);
}

TEST(CostModel, SaveAndLoadKeepPredictions) {
  Data train = synthetic(200, 7), test = synthetic(40, 8);
  CostModel m;
  EXPECT_THROW(m.save(::testing::TempDir() + "/untrained.json"), Error);
  m.update(train.x, train.seconds, train.tasks);
  auto path = std::filesystem::path(::testing::TempDir()) / "cost_model.json";
  m.save(path.string());
  CostModel loaded;
  loaded.load(path.string());
  EXPECT_TRUE(loaded.trained());
  EXPECT_EQ(loaded.featureLength(), 10u);
  EXPECT_EQ(loaded.rows(), 0u);
  auto a = m.predict(test.x), b = loaded.predict(test.x);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-6);
  std::filesystem::remove(path);
}
