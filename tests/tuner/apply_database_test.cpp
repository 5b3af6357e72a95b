// ApplyTuningDatabase: a build with the database uses the best record for
// the workload and the target (its trace is in the pass record, and the
// kernel computes the same values), a record for another target is not
// used, and a build without a database file is refused with the reason.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/runtime/compare.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/text/printer.h"
#include "engine/transform/default_schedule.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/apply_database.h"
#include "tuner/space.h"
#include "tuner/task.h"

using namespace unity;
using namespace unity::tuner;
using namespace unity::tuner::testing;

namespace {

class ApplyDatabaseTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    registerTunerPasses();
  }

  /// Stores, for every task of smallModel() on `target`, the schedule with
  /// two-row tiles as the best record; returns the record ids.
  std::vector<int64_t> storeTwoRowRecords(Database& db, const std::string& target) {
    BuildOptions o;
    o.target = target;
    std::vector<int64_t> ids;
    for (auto& t : extractTasks(smallModel(64), o)) {
      DesignSpace space(transform::schedulePolicyFor(target::Target::parse(target)));
      Point p = space.fromDecisions({{"tile_rows", 2}});
      auto c = space.apply(t.workload, p);
      EXPECT_TRUE(c);
      Record r;
      r.workloadId = db.addWorkload(t.hash, workloadText(t.workload), t.flops);
      r.targetId = db.addTarget(t.target);
      r.trace = c->trace.toJson();
      r.decisions = space.decisions(p);
      r.times = {1e-4};
      r.node = "test";
      ids.push_back(db.addRecord(r));
    }
    return ids;
  }

  BuildResult buildWith(const std::string& dbPath, const std::string& target) {
    BuildOptions o;
    o.target = target;
    o.passes = pipelineWithDatabase();
    o.config.set(kDatabaseConfigKey, dbPath);
    return build(smallModel(64), o);
  }
};

TEST_F(ApplyDatabaseTest, BuildUsesTheBestRecordOfItsTarget) {
  Database db(file("t.db"));
  auto ids = storeTwoRowRecords(db, "llvm -num-cores=1");
  ASSERT_EQ(ids.size(), 2u);
  auto r = buildWith(db.path(), "llvm -num-cores=1");
  int tuned = 0;
  for (auto& [name, fn] : r.lowered->functions)
    if (auto f = ir::cast<ir::PrimFunc>(fn); f && f->attrs.has("tuned")) {
      ++tuned;
      int64_t rec = f->attrs.getInt("tuning_record", 0);
      EXPECT_TRUE(rec == ids[0] || rec == ids[1]) << name << ": record " << rec;
    }
  EXPECT_EQ(tuned, 3); // the shared workload's two functions and the third
  // The pass record shows the pass and the trace it applied.
  bool seen = false;
  for (auto& rec : r.records)
    if (rec.name == "ApplyTuningDatabase") {
      seen = true;
      EXPECT_TRUE(rec.changed);
      std::string text = text::printModule(rec.after);
      EXPECT_NE(text.find("tuning_trace"), std::string::npos);
      EXPECT_NE(text.find("split"), std::string::npos);
    }
  EXPECT_TRUE(seen);
  // Same values as the untuned build.
  BuildOptions plain;
  plain.target = "llvm -num-cores=1";
  auto untuned = build(smallModel(64), plain);
  std::vector<Tensor> in;
  std::mt19937 rng(1);
  for (auto shape : std::vector<std::vector<int64_t>>{{64, 64}, {64, 64}, {64, 32}}) {
    Tensor t(DataType::Float32(), shape);
    for (int64_t i = 0; i < t.numel(); ++i)
      t.setDouble(i, std::uniform_real_distribution<double>(-1, 1)(rng));
    in.push_back(t);
  }
  auto got = r.executable->runTensors(in), want = untuned.executable->runTensors(in);
  EXPECT_TRUE(runtime::compareTensorLists(got, want, {1e-4, 1e-4}).same());
}

TEST_F(ApplyDatabaseTest, RecordsOfAnotherTargetAreNotUsed) {
  Database db(file("t.db"));
  storeTwoRowRecords(db, "llvm -num-cores=1");
  auto r = buildWith(db.path(), "llvm -num-cores=2");
  for (auto& [name, fn] : r.lowered->functions) {
    if (auto f = ir::cast<ir::PrimFunc>(fn)) {
      EXPECT_FALSE(f->attrs.has("tuned")) << name;
    }
  }
}

TEST_F(ApplyDatabaseTest, NeedsADatabaseFile) {
  BuildOptions o;
  o.passes = pipelineWithDatabase();
  try {
    build(smallModel(16), o);
    FAIL() << "built without a database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tuner.database"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pipelineWithDatabase("no-such-pipeline"), Error);
}

} // namespace
