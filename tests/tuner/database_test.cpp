// Tests of the tuning database's storage layer: persistence across reopen,
// schema versioning and refusals, best-k and prune semantics per workload
// and target, concurrent writers, and durability of committed records when
// the writing process is killed with SIGKILL.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/support/error.h"
#include "tuner/database.h"

namespace fs = std::filesystem;
using unity::tuner::Database;
using unity::tuner::Record;
using unity::tuner::RecordStatus;
using unity::tuner::RunStatus;

namespace {

/// A fresh directory per test, removed afterwards.
class DatabaseTest : public ::testing::Test {
protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("tunerdb_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name = "tune.db") const { return (dir_ / name).string(); }

  fs::path dir_;
};

Record okRecord(int64_t w, int64_t t, double mean, int64_t trial = 0) {
  Record r;
  r.workloadId = w;
  r.targetId = t;
  r.trial = trial;
  r.times = {mean, mean};
  r.trace = nlohmann::json::array({{{"kind", "split"}, {"factor", trial}}});
  r.node = "test-node";
  return r;
}

Record failedRecord(int64_t w, int64_t t, RecordStatus status, double mean) {
  Record r = okRecord(w, t, mean);
  r.status = status;
  r.errorKind = "segv";
  r.errorMessage = "worker died";
  return r;
}

void setUserVersion(const std::string& path, int v) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string sql = "PRAGMA user_version=" + std::to_string(v);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

std::string openError(const std::string& path) {
  try {
    Database db(path);
  } catch (const unity::Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_F(DatabaseTest, CreateThenReopenKeepsEverything) {
  int64_t w, t, run, rec;
  {
    Database db(file());
    EXPECT_EQ(db.schemaVersion(), unity::tuner::kSchemaVersion);
    w = db.addWorkload("hash-a", "matmul 64", 2.0 * 64 * 64 * 64);
    t = db.addTarget("llvm -mcpu=native");
    run = db.startRun({{"trials", 10}}, 10);
    Record r = okRecord(w, t, 0.5, 3);
    r.runId = run;
    r.predictedS = 0.4;
    r.buildS = 1.25;
    r.decisions = {4, 16};
    rec = db.addRecord(r);
    db.updateRunProgress(run, 1);
    db.finishRun(run, RunStatus::Finished);
  }
  Database db(file());
  EXPECT_EQ(db.schemaVersion(), 2);
  EXPECT_EQ(db.addWorkload("hash-a", "other text", 1), w) << "existing hash keeps its id";
  ASSERT_EQ(db.workloads().size(), 1u);
  EXPECT_EQ(db.workloads()[0].text, "matmul 64");
  EXPECT_EQ(db.addTarget("llvm -mcpu=native"), t);
  auto runInfo = db.run(run);
  ASSERT_TRUE(runInfo);
  EXPECT_EQ(runInfo->status, RunStatus::Finished);
  EXPECT_EQ(runInfo->trialsDone, 1);
  EXPECT_EQ(runInfo->trialsPlanned, 10);
  EXPECT_EQ(runInfo->config["trials"], 10);
  EXPECT_FALSE(runInfo->endedAt.empty());
  auto recs = db.records(w, t);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].id, rec);
  EXPECT_EQ(recs[0].runId, run);
  EXPECT_EQ(recs[0].trial, 3);
  ASSERT_TRUE(recs[0].meanS);
  EXPECT_DOUBLE_EQ(*recs[0].meanS, 0.5) << "mean computed from times";
  EXPECT_EQ(recs[0].times, (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(recs[0].decisions, nlohmann::json({4, 16}));
  EXPECT_EQ(recs[0].trace[0]["factor"], 3);
  EXPECT_EQ(recs[0].predictedS, 0.4);
  EXPECT_DOUBLE_EQ(recs[0].buildS, 1.25);
  EXPECT_EQ(recs[0].node, "test-node");
  EXPECT_FALSE(recs[0].createdAt.empty());
  EXPECT_EQ(db.recordsOfRun(run).size(), 1u);
  EXPECT_EQ(db.integrityCheck(), "ok");
}

TEST_F(DatabaseTest, FileIsInWalMode) {
  { Database db(file()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(raw);
}

TEST_F(DatabaseTest, NewerSchemaVersionIsRefusedNamingBothVersions) {
  { Database db(file()); }
  setUserVersion(file(), 7);
  std::string msg = openError(file());
  EXPECT_NE(msg.find(file()), std::string::npos) << msg;
  EXPECT_NE(msg.find("7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version " + std::to_string(unity::tuner::kSchemaVersion)), std::string::npos)
      << msg;
}

TEST_F(DatabaseTest, GarbageFileIsRefusedNamingTheFile) {
  {
    std::ofstream out(file("garbage.db"), std::ios::binary);
    for (int i = 0; i < 4096; ++i)
      out << "this is not a sqlite file ";
  }
  std::string msg = openError(file("garbage.db"));
  EXPECT_NE(msg.find(file("garbage.db")), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a tuning database"), std::string::npos) << msg;
}

TEST_F(DatabaseTest, ForeignSqliteDatabaseIsRefusedAndLeftUntouched) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file("foreign.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  std::string msg = openError(file("foreign.db"));
  EXPECT_NE(msg.find(file("foreign.db")), std::string::npos) << msg;
  EXPECT_NE(msg.find("photos"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(file("foreign.db") + "-wal")) << "a refused file is not switched to WAL";
}

TEST_F(DatabaseTest, BestIgnoresFailedRecordsAndOrdersByMean) {
  Database db(file());
  int64_t w = db.addWorkload("h", "x", 1);
  int64_t t = db.addTarget("llvm");
  db.addRecord(okRecord(w, t, 3.0));
  db.addRecord(failedRecord(w, t, RecordStatus::WrongResult, 0.1)); // fast but wrong
  db.addRecord(failedRecord(w, t, RecordStatus::Crash, 0.2));
  db.addRecord(okRecord(w, t, 1.0));
  db.addRecord(okRecord(w, t, 2.0));
  auto best = db.best(w, t, 2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_DOUBLE_EQ(*best[0].meanS, 1.0);
  EXPECT_DOUBLE_EQ(*best[1].meanS, 2.0);
  EXPECT_EQ(db.best(w, t, 10).size(), 3u);
  EXPECT_EQ(db.records(w, t, RecordStatus::Crash).size(), 1u);
  EXPECT_EQ(db.records(w, t).size(), 5u);
}

TEST_F(DatabaseTest, OkRecordWithoutMeasurementIsRefused) {
  Database db(file());
  Record r = okRecord(db.addWorkload("h", "x", 1), db.addTarget("llvm"), 1.0);
  r.times.clear();
  EXPECT_THROW(db.addRecord(r), unity::Error);
  r.workloadId = 999; // no such workload: foreign key
  r.times = {1.0};
  EXPECT_THROW(db.addRecord(r), unity::Error);
}

TEST_F(DatabaseTest, EachTargetHasItsOwnBest) {
  Database db(file());
  int64_t w = db.addWorkload("h", "x", 1);
  int64_t a = db.addTarget("llvm -mcpu=a");
  int64_t b = db.addTarget("llvm -mcpu=b");
  int64_t ra = db.addRecord(okRecord(w, a, 2.0));
  int64_t rb = db.addRecord(okRecord(w, b, 5.0));
  db.addRecord(okRecord(w, a, 9.0));
  db.addRecord(okRecord(w, b, 7.0));
  ASSERT_EQ(db.best(w, a, 1).size(), 1u);
  EXPECT_EQ(db.best(w, a, 1)[0].id, ra);
  EXPECT_EQ(db.best(w, b, 1)[0].id, rb);
  auto byHash = db.bestByHash("h", "llvm -mcpu=b", 1);
  ASSERT_EQ(byHash.size(), 1u);
  EXPECT_EQ(byHash[0].id, rb);
  EXPECT_TRUE(db.bestByHash("h", "cuda", 1).empty());
  EXPECT_TRUE(db.bestByHash("unknown", "llvm -mcpu=a", 1).empty());
}

TEST_F(DatabaseTest, PruneKeepsBestKAndFailures) {
  Database db(file());
  int64_t w = db.addWorkload("h", "x", 1);
  int64_t t = db.addTarget("llvm");
  int64_t other = db.addTarget("c");
  for (double m : {5.0, 1.0, 4.0, 2.0, 3.0})
    db.addRecord(okRecord(w, t, m));
  db.addRecord(failedRecord(w, t, RecordStatus::Timeout, 9.0));
  db.addRecord(okRecord(w, other, 8.0));
  db.addRecord(okRecord(w, other, 9.0));
  EXPECT_EQ(db.prune(w, t, 2), 3);
  auto ok = db.records(w, t, RecordStatus::Ok);
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_DOUBLE_EQ(*ok[0].meanS, 1.0);
  EXPECT_DOUBLE_EQ(*ok[1].meanS, 2.0);
  EXPECT_EQ(db.records(w, t, RecordStatus::Timeout).size(), 1u);
  EXPECT_EQ(db.records(w, other).size(), 2u) << "other target untouched";
}

TEST_F(DatabaseTest, RunsListAndUnknownRunThrows) {
  Database db(file());
  int64_t r1 = db.startRun({{"a", 1}}, 5);
  int64_t r2 = db.startRun({{"a", 2}}, 6);
  db.finishRun(r1, RunStatus::Cancelled);
  auto all = db.runs();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].status, RunStatus::Cancelled);
  EXPECT_EQ(all[1].id, r2);
  EXPECT_EQ(all[1].status, RunStatus::Running);
  EXPECT_TRUE(all[1].endedAt.empty());
  EXPECT_FALSE(db.run(r2 + 100));
  EXPECT_THROW(db.finishRun(r2 + 100, RunStatus::Failed), unity::Error);
  EXPECT_THROW(db.updateRunProgress(r2 + 100, 1), unity::Error);
}

TEST_F(DatabaseTest, RunRecordsItsProcessAndWhatItConfirmed) {
  using unity::tuner::RunControl;
  using unity::tuner::RunProcess;
  Database db(file());
  const RunProcess first{4242, "node-a", "boot:1001"};
  const int64_t run = db.startRun({{"a", 1}}, 5, first);
  const int64_t bare = db.startRun({{"a", 2}}, 5);
  EXPECT_EQ(db.run(run)->process, first);
  EXPECT_EQ(db.run(run)->control, RunControl::None);
  EXPECT_FALSE(db.run(bare)->process);

  EXPECT_TRUE(db.setRunControl(run, RunControl::Paused));
  EXPECT_EQ(db.run(run)->control, RunControl::Paused);
  EXPECT_TRUE(db.setRunControl(run, RunControl::Cancelling));
  EXPECT_EQ(Database(file()).run(run)->control, RunControl::Cancelling) << "another connection";
  db.finishRun(run, RunStatus::Cancelled);
  EXPECT_EQ(db.run(run)->control, RunControl::None) << "a finished run confirms nothing";
  EXPECT_EQ(db.run(run)->process, first) << "kept for the history";

  // A confirmation arriving after the end (the last progress call of a run
  // cancelled between two batches) changes nothing.
  EXPECT_FALSE(db.setRunControl(run, RunControl::Cancelling));
  EXPECT_EQ(db.run(run)->control, RunControl::None) << "an ended run stays without state";
  EXPECT_EQ(db.run(run)->status, RunStatus::Cancelled);

  // Resumed by another process: that one is recorded, the state starts afresh.
  const RunProcess second{77, "node-b", "boot:2002"};
  db.reopenRun(run, second);
  EXPECT_EQ(db.run(run)->status, RunStatus::Running);
  EXPECT_EQ(db.run(run)->process, second);
  EXPECT_EQ(db.run(run)->control, RunControl::None);
  ASSERT_TRUE(db.setRunControl(run, RunControl::Paused));
  db.reopenRun(run);
  EXPECT_FALSE(db.run(run)->process);
  EXPECT_EQ(db.run(run)->control, RunControl::None) << "a reopened run starts afresh";
  EXPECT_THROW(db.setRunControl(bare + 100, RunControl::Paused), unity::Error);
}

TEST_F(DatabaseTest, VersionOneFileIsMigratedKeepingItsRuns) {
  // The schema as version 1 created it, written here independently of the
  // migration code.
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(file().c_str(), &raw), SQLITE_OK);
    const char* v1 = R"sql(
CREATE TABLE workloads(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, text TEXT NOT NULL,
  flops REAL NOT NULL);
CREATE TABLE targets(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE runs(id INTEGER PRIMARY KEY, config TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('running','finished','failed','cancelled')),
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), ended_at TEXT,
  trials_done INTEGER NOT NULL DEFAULT 0, trials_planned INTEGER NOT NULL);
CREATE TABLE records(id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  target_id INTEGER NOT NULL REFERENCES targets(id), run_id INTEGER REFERENCES runs(id),
  trial INTEGER NOT NULL, trace TEXT NOT NULL, decisions TEXT NOT NULL, times TEXT NOT NULL,
  mean_s REAL, status TEXT NOT NULL, error_kind TEXT NOT NULL, error_message TEXT NOT NULL,
  build_s REAL NOT NULL, predicted_s REAL, node TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
INSERT INTO runs(config, status, trials_done, trials_planned)
  VALUES('{"model": "m.uir"}', 'running', 3, 10);
PRAGMA user_version=1;
)sql";
    ASSERT_EQ(sqlite3_exec(raw, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  }
  Database db(file());
  EXPECT_EQ(db.schemaVersion(), 2);
  auto run = db.run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::Running);
  EXPECT_EQ(run->trialsDone, 3);
  EXPECT_EQ(run->config["model"], "m.uir");
  EXPECT_FALSE(run->process) << "a version-1 run recorded no process";
  EXPECT_EQ(run->control, unity::tuner::RunControl::None);
  db.setRunControl(1, unity::tuner::RunControl::Paused);
  EXPECT_EQ(db.run(1)->control, unity::tuner::RunControl::Paused);
}

TEST_F(DatabaseTest, OpeningWaitsForAnotherProgramCreatingTheSameFile) {
  // Another connection holds the write lock of the new file, still in
  // rollback mode (what another process's migration does): switching to WAL
  // would fail at once with "database is locked" without the retry.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::thread release([other] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  });
  std::string error;
  try {
    Database db(file(), 10000);
    EXPECT_EQ(db.schemaVersion(), unity::tuner::kSchemaVersion);
  } catch (const unity::Error& e) {
    error = e.what();
  }
  release.join();
  sqlite3_close(other);
  EXPECT_EQ(error, "");
}

TEST_F(DatabaseTest, TwoConnectionsWritingInterleavedLoseNothing) {
  Database a(file());
  Database b(file());
  int64_t w = a.addWorkload("h", "x", 1);
  int64_t t = b.addTarget("llvm");
  EXPECT_EQ(b.addWorkload("h", "x", 1), w);
  for (int i = 0; i < 50; ++i) {
    a.addRecord(okRecord(w, t, 1.0 + i, i));
    b.addRecord(okRecord(w, t, 100.0 + i, i));
  }
  EXPECT_EQ(a.records(w, t).size(), 100u);
  EXPECT_EQ(b.records(w, t).size(), 100u);
  EXPECT_EQ(b.integrityCheck(), "ok");
}

TEST_F(DatabaseTest, TwoProcessesWritingAtOnceLoseNothing) {
  int64_t w, t;
  {
    Database db(file());
    w = db.addWorkload("h", "x", 1);
    t = db.addTarget("llvm");
  }
  constexpr int kPerProcess = 100;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    try {
      Database db(file());
      for (int i = 0; i < kPerProcess; ++i)
        db.addRecord(okRecord(w, t, 1.0, i));
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  {
    Database db(file());
    for (int i = 0; i < kPerProcess; ++i)
      db.addRecord(okRecord(w, t, 2.0, i));
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  Database db(file());
  EXPECT_EQ(db.records(w, t).size(), 2u * kPerProcess);
}

TEST_F(DatabaseTest, KillNineKeepsEveryCommittedRecordAndIntegrity) {
  int64_t w, t, run;
  {
    Database db(file());
    w = db.addWorkload("h", "x", 1);
    t = db.addTarget("llvm");
    run = db.startRun({{"trials", 100000}}, 100000);
  }
  int acks[2];
  ASSERT_EQ(pipe(acks), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(acks[0]);
    Database db(file());
    for (int i = 0;; ++i) { // runs until killed
      Record r = okRecord(w, t, 1.0 + i, i);
      r.runId = run;
      db.addRecord(r);
      db.updateRunProgress(run, i + 1);
      char c = 'r';
      if (write(acks[1], &c, 1) != 1)
        _exit(1);
    }
  }
  close(acks[1]);
  // Let the child commit several records, then kill it while it is writing.
  constexpr int kAcks = 5;
  int got = 0;
  char c;
  while (got < kAcks && read(acks[0], &c, 1) == 1)
    ++got;
  ASSERT_EQ(got, kAcks);
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  // Acks written before the kill but not read yet are committed records too.
  while (read(acks[0], &c, 1) == 1)
    ++got;
  close(acks[0]);

  Database db(file());
  EXPECT_EQ(db.integrityCheck(), "ok");
  auto recs = db.recordsOfRun(run);
  EXPECT_GE(recs.size(), static_cast<size_t>(got));
  for (size_t i = 0; i < recs.size(); ++i)
    EXPECT_EQ(recs[i].trial, static_cast<int64_t>(i));
  EXPECT_EQ(db.run(run)->status, RunStatus::Running) << "a killed run stays resumable";
}

TEST_F(DatabaseTest, RecordByIdAndSummaryPerWorkloadAndTarget) {
  Database db(file());
  int64_t w1 = db.addWorkload("a", "A", 100), w2 = db.addWorkload("b", "B", 200);
  int64_t t1 = db.addTarget("llvm"), t2 = db.addTarget("c");
  int64_t slow = db.addRecord(okRecord(w1, t1, 0.3));
  db.addRecord(okRecord(w1, t1, 0.2));
  db.addRecord(failedRecord(w1, t1, RecordStatus::Timeout, 0.01));
  db.addRecord(failedRecord(w2, t2, RecordStatus::Crash, 0.01));

  auto r = db.record(slow);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->workloadId, w1);
  EXPECT_DOUBLE_EQ(*r->meanS, 0.3);
  EXPECT_FALSE(db.record(999));

  auto s = db.summary();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].workloadId, w1);
  EXPECT_EQ(s[0].targetId, t1);
  EXPECT_EQ(s[0].okRecords, 2);
  EXPECT_EQ(s[0].failedRecords, 1);
  ASSERT_TRUE(s[0].bestMeanS);
  EXPECT_DOUBLE_EQ(*s[0].bestMeanS, 0.2) << "the failed record's faster mean does not count";
  EXPECT_EQ(s[1].workloadId, w2);
  EXPECT_EQ(s[1].okRecords, 0);
  EXPECT_EQ(s[1].failedRecords, 1);
  EXPECT_FALSE(s[1].bestMeanS);
}

TEST_F(DatabaseTest, TransactionLandsWholeOrNotAtAll) {
  Database db(file());
  int64_t t = db.addTarget("llvm");
  db.transaction([&] {
    int64_t w = db.addWorkload("kept", "K", 1);
    db.addRecord(okRecord(w, t, 0.1));
  });
  EXPECT_THROW(db.transaction([&] {
    int64_t w = db.addWorkload("dropped", "D", 1);
    db.addRecord(okRecord(w, t, 0.1));
    throw unity::Error("stop");
  }),
               unity::Error);
  EXPECT_TRUE(db.workloadByHash("kept"));
  EXPECT_FALSE(db.workloadByHash("dropped"));
  EXPECT_EQ(db.summary().size(), 1u);
  // The connection is usable afterwards (no transaction left open).
  db.addWorkload("after", "X", 1);
  Database other(file());
  EXPECT_TRUE(other.workloadByHash("after"));
}

TEST_F(DatabaseTest, TruncatedFileIsReportedAsDamaged) {
  {
    Database db(file());
    int64_t w = db.addWorkload("a", "A", 1), t = db.addTarget("llvm");
    for (int i = 0; i < 50; ++i)
      db.addRecord(okRecord(w, t, 0.1 * (i + 1), i));
  }
  fs::resize_file(file(), fs::file_size(file()) / 2);
  std::string err;
  try {
    Database db(file());
    db.records(1, 1);
  } catch (const unity::Error& e) {
    err = e.what();
  }
  EXPECT_NE(err.find(file()), std::string::npos) << err;
  EXPECT_NE(err.find("malformed"), std::string::npos) << err;
}
