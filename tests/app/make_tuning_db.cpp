// make_tuning_db: writes the small tuning databases the `lowerscope-cli db`
// checks read (tests/app/cli_db_tests.cmake), so the checks see known
// contents without running a tuner.
//
//   make_tuning_db OUT.db             two workloads, two targets, one run,
//                                     ok and failed records (values below)
//   make_tuning_db OUT.db --foreign   a SQLite file of another application
//   make_tuning_db OUT.db --newer     a tuning database of schema version 99
//   make_tuning_db OUT.db --truncated the first database cut to half its size
//   make_tuning_db OUT.db --bad-trace one record whose trace is not a trace
//   make_tuning_db OUT.db --bad-json  the first database with record 1's
//                                     times not JSON
// An existing OUT.db (and its -wal/-shm) is replaced.
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/ir/module.h"
#include "engine/schedule/schedule.h"
#include "engine/te/workloads.h"
#include "engine/text/printer.h"
#include "tuner/database.h"

namespace fs = std::filesystem;
using namespace unity;
using namespace unity::tuner;

namespace {

std::string textOf(const ir::PrimFuncRef& f) {
  return text::printModule(ir::makeModule({{"main", f}}));
}

Record record(int64_t w, int64_t t, std::optional<int64_t> run, int64_t trial,
              const schedule::Trace& trace, std::vector<double> times) {
  Record r;
  r.workloadId = w;
  r.targetId = t;
  r.runId = run;
  r.trial = trial;
  r.trace = trace.toJson();
  r.times = std::move(times);
  r.buildS = 0.25;
  r.predictedS = 2.5e-6;
  r.node = "test-node";
  return r;
}

schedule::Trace tiled(const ir::PrimFuncRef& f, int64_t ti) {
  schedule::Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  auto i = s.split(l[0], {-1, ti});
  s.parallel(i[0]);
  return s.trace();
}

/// Workloads "mm-16x32x8" (8192 flops) and "mm-8x8x8" (1024 flops); targets
/// T1 "llvm -mcpu=skylake-avx512 -num-cores=1" and T2 "llvm -num-cores=2".
/// Run 1 (finished, 3/10 trials, config {"trials":10}) holds records 1-3.
///   1  mm-16x32x8 T1 ok  times [2e-6, 2e-6]  split(C[0], [4, 4]) parallel
///   2  mm-16x32x8 T1 ok  times [4e-6]        split(C[0], [8, 2]) parallel
///   3  mm-16x32x8 T1 crash "signal: SIGSEGV in worker"
///   4  mm-16x32x8 T2 ok  times [1e-5]        (no run)
///   5  mm-8x8x8   T1 ok  times [1e-3]        (no run)
void fill(Database& db) {
  auto big = te::matmulPrimFunc(16, 32, 8), small = te::matmulPrimFunc(8, 8, 8);
  int64_t w1 = db.addWorkload("mm-16x32x8", textOf(big), 8192);
  int64_t w2 = db.addWorkload("mm-8x8x8", textOf(small), 1024);
  int64_t t1 = db.addTarget("llvm -mcpu=skylake-avx512 -num-cores=1");
  int64_t t2 = db.addTarget("llvm -num-cores=2");
  int64_t run = db.startRun({{"trials", 10}}, 10);
  db.addRecord(record(w1, t1, run, 0, tiled(big, 4), {2e-6, 2e-6}));
  db.addRecord(record(w1, t1, run, 1, tiled(big, 2), {4e-6}));
  Record crash = record(w1, t1, run, 2, tiled(big, 16), {});
  crash.status = RecordStatus::Crash;
  crash.errorKind = "signal";
  crash.errorMessage = "SIGSEGV in worker";
  db.addRecord(crash);
  db.updateRunProgress(run, 3);
  db.finishRun(run, RunStatus::Finished);
  db.addRecord(record(w1, t2, std::nullopt, 0, tiled(big, 8), {1e-5}));
  db.addRecord(record(w2, t1, std::nullopt, 0, tiled(small, 2), {1e-3}));
}

int sql(const std::string& path, const char* statements) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open(path.c_str(), &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, statements, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK)
    std::fprintf(stderr, "%s: %s\n", path.c_str(), sqlite3_errmsg(db));
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: make_tuning_db OUT.db [--foreign|--newer|--truncated|--bad-trace|--bad-json]\n");
    return 2;
  }
  std::string out = argv[1], mode = argc > 2 ? argv[2] : "";
  for (const char* suffix : {"", "-wal", "-shm"})
    fs::remove(out + suffix);
  try {
    if (mode == "--foreign")
      return sql(out, "CREATE TABLE photos(id INTEGER PRIMARY KEY, path TEXT);");
    {
      Database db(out);
      if (mode == "--bad-trace") {
        int64_t w = db.addWorkload("w", "not a module", 1);
        int64_t t = db.addTarget("llvm");
        Record r;
        r.workloadId = w;
        r.targetId = t;
        r.times = {1e-6};
        r.trace = nlohmann::json{{"instructions", "not a list"}};
        db.addRecord(r);
      } else {
        fill(db);
      }
    } // closing checkpoints the WAL into the file
    if (mode == "--bad-json")
      return sql(out, "UPDATE records SET times = '[2e-6, 2e' WHERE id = 1;");
    if (mode == "--newer")
      return sql(out, "PRAGMA user_version=99;");
    if (mode == "--truncated")
      fs::resize_file(out, fs::file_size(out) / 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_tuning_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
