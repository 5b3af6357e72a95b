// The tuning database on SQLite's C API. A small prepared-statement wrapper
// (Stmt) keeps binding, stepping and error reporting in one place; every
// SQLite failure becomes a unity::Error that names the file.
//
// Opening a file: (1) set busy_timeout first so every later step waits for
// another process's lock; (2) read user_version and the table list — this
// is the first read of the file, so a non-SQLite file fails here with
// SQLITE_NOTADB and is reported, never touched; (3) refuse newer versions and
// foreign databases before changing anything (a foreign file must not be
// switched to WAL); (4) set WAL, foreign keys and synchronous=NORMAL;
// (5) run the migration steps inside BEGIN IMMEDIATE, re-reading the version
// inside the transaction so two processes creating the same file at once
// migrate it once.
#include "tuner/database.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "engine/support/error.h"

namespace unity::tuner {

namespace {

// Migration step i brings a file from version i to version i + 1.
const char* const kMigrations[] = {
    // 0 -> 1: everything.
    R"sql(
CREATE TABLE workloads(
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  flops REAL NOT NULL);
CREATE TABLE targets(
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  config TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('running','finished','failed','cancelled')),
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  ended_at TEXT,
  trials_done INTEGER NOT NULL DEFAULT 0,
  trials_planned INTEGER NOT NULL);
CREATE TABLE records(
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  target_id INTEGER NOT NULL REFERENCES targets(id),
  run_id INTEGER REFERENCES runs(id),
  trial INTEGER NOT NULL,
  trace TEXT NOT NULL,
  decisions TEXT NOT NULL,
  times TEXT NOT NULL,
  mean_s REAL,
  status TEXT NOT NULL CHECK(status IN
    ('ok','build_error','run_error','timeout','crash','wrong_result')),
  error_kind TEXT NOT NULL,
  error_message TEXT NOT NULL,
  build_s REAL NOT NULL,
  predicted_s REAL,
  node TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE INDEX records_lookup ON records(workload_id, target_id, status, mean_s);
CREATE INDEX records_run ON records(run_id);
)sql",
    // 1 -> 2: the process working on a run and what it confirmed doing, so
    // a program other than the one that started it can steer it.
    R"sql(
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN process_token TEXT;
ALTER TABLE runs ADD COLUMN control TEXT NOT NULL DEFAULT ''
  CHECK(control IN ('','paused','cancelling'));
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

const char* const kOurTables[] = {"workloads", "targets", "runs", "records"};

[[noreturn]] void fail(const std::string& path, const std::string& what, sqlite3* db) {
  std::string msg = path + ": " + what;
  if (db)
    msg += ": " + std::string(sqlite3_errmsg(db));
  throw Error(msg);
}

/// One prepared statement; bind() takes 1-based indices like SQLite.
class Stmt {
public:
  Stmt(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      fail(path, "prepare", db);
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
  Stmt& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& bind(int i, const char* v) { return bind(i, std::string(v)); }
  template <typename T> Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : check(sqlite3_bind_null(s_, i));
  }

  /// True when a row is available; false when done.
  bool step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW)
      return true;
    if (rc == SQLITE_DONE)
      return false;
    fail(path_, "query failed", db_);
  }
  void run() {
    while (step()) {
    }
  }

  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double real(int c) const { return sqlite3_column_double(s_, c); }
  bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::optional<double> optReal(int c) const {
    return null(c) ? std::nullopt : std::optional<double>(real(c));
  }
  std::string text(int c) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, sqlite3_column_bytes(s_, c)) : std::string();
  }
  nlohmann::json json(int c, const char* what) const {
    auto j = nlohmann::json::parse(text(c), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      throw Error(path_ + ": malformed JSON in " + what + " of row " + std::to_string(i64(0)));
    return j;
  }

private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK)
      fail(path_, "bind", db_);
    return *this;
  }
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw Error(path + ": " + msg);
  }
}

int userVersion(sqlite3* db, const std::string& path) {
  Stmt s(db, path, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.i64(0)) : 0;
}

const char* const kRecordColumns =
    "r.id, r.workload_id, r.target_id, r.run_id, r.trial, r.trace, r.decisions, r.times, "
    "r.mean_s, r.status, r.error_kind, r.error_message, r.build_s, r.predicted_s, r.node, "
    "r.created_at";

Record readRecord(const Stmt& s, const std::string& path) {
  Record r;
  r.id = s.i64(0);
  r.workloadId = s.i64(1);
  r.targetId = s.i64(2);
  if (!s.null(3))
    r.runId = s.i64(3);
  r.trial = s.i64(4);
  r.trace = s.json(5, "trace");
  r.decisions = s.json(6, "decisions");
  nlohmann::json times = s.json(7, "times");
  if (!times.is_array())
    throw Error(path + ": times of record " + std::to_string(r.id) + " is not an array");
  for (const auto& t : times) {
    if (!t.is_number())
      throw Error(path + ": times of record " + std::to_string(r.id) + " holds a non-number");
    r.times.push_back(t.get<double>());
  }
  r.meanS = s.optReal(8);
  auto status = parseRecordStatus(s.text(9));
  if (!status)
    throw Error(path + ": record " + std::to_string(r.id) + " has unknown status '" + s.text(9) +
                "'");
  r.status = *status;
  r.errorKind = s.text(10);
  r.errorMessage = s.text(11);
  r.buildS = s.real(12);
  r.predictedS = s.optReal(13);
  r.node = s.text(14);
  r.createdAt = s.text(15);
  return r;
}

std::vector<Record> readRecords(Stmt& s, const std::string& path) {
  std::vector<Record> out;
  while (s.step())
    out.push_back(readRecord(s, path));
  return out;
}

Run readRun(const Stmt& s, const std::string& path) {
  Run r;
  r.id = s.i64(0);
  r.config = s.json(1, "config");
  auto status = parseRunStatus(s.text(2));
  if (!status)
    throw Error(path + ": run " + std::to_string(r.id) + " has unknown status '" + s.text(2) + "'");
  r.status = *status;
  r.startedAt = s.text(3);
  r.endedAt = s.text(4);
  r.trialsDone = s.i64(5);
  r.trialsPlanned = s.i64(6);
  if (!s.null(7))
    r.process = RunProcess{s.i64(7), s.text(8), s.text(9)};
  auto control = parseRunControl(s.text(10));
  if (!control)
    throw Error(path + ": run " + std::to_string(r.id) + " has unknown control state '" +
                s.text(10) + "'");
  r.control = *control;
  return r;
}

const char* const kRunColumns = "id, config, status, started_at, ended_at, trials_done, "
                                "trials_planned, pid, host, process_token, control";

/// Binds pid, host and token at i, i + 1, i + 2 (NULLs for nullopt).
void bindProcess(Stmt& s, int i, const std::optional<RunProcess>& p) {
  s.bind(i, p ? std::optional<int64_t>(p->pid) : std::nullopt)
      .bind(i + 1, p ? std::optional<std::string>(p->host) : std::nullopt)
      .bind(i + 2, p ? std::optional<std::string>(p->startToken) : std::nullopt);
}

} // namespace

const char* toString(RunStatus s) {
  switch (s) {
  case RunStatus::Running:
    return "running";
  case RunStatus::Finished:
    return "finished";
  case RunStatus::Failed:
    return "failed";
  case RunStatus::Cancelled:
    return "cancelled";
  }
  return "?";
}

const char* toString(RecordStatus s) {
  switch (s) {
  case RecordStatus::Ok:
    return "ok";
  case RecordStatus::BuildError:
    return "build_error";
  case RecordStatus::RunError:
    return "run_error";
  case RecordStatus::Timeout:
    return "timeout";
  case RecordStatus::Crash:
    return "crash";
  case RecordStatus::WrongResult:
    return "wrong_result";
  }
  return "?";
}

std::optional<RunStatus> parseRunStatus(const std::string& s) {
  for (auto v : {RunStatus::Running, RunStatus::Finished, RunStatus::Failed, RunStatus::Cancelled})
    if (s == toString(v))
      return v;
  return std::nullopt;
}

const char* toString(RunControl c) {
  switch (c) {
  case RunControl::None:
    return "";
  case RunControl::Paused:
    return "paused";
  case RunControl::Cancelling:
    return "cancelling";
  }
  return "?";
}

std::optional<RunControl> parseRunControl(const std::string& s) {
  for (auto v : {RunControl::None, RunControl::Paused, RunControl::Cancelling})
    if (s == toString(v))
      return v;
  return std::nullopt;
}

std::optional<RecordStatus> parseRecordStatus(const std::string& s) {
  for (auto v : {RecordStatus::Ok, RecordStatus::BuildError, RecordStatus::RunError,
                 RecordStatus::Timeout, RecordStatus::Crash, RecordStatus::WrongResult})
    if (s == toString(v))
      return v;
  return std::nullopt;
}

Database::Database(const std::string& path, int busyTimeoutMs) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw Error(path + ": cannot open tuning database: " + msg);
  }
  try {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, busyTimeoutMs);
    configureAndMigrate(busyTimeoutMs);
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::configureAndMigrate(int busyTimeoutMs) {
  // The first read of the file: a non-SQLite file fails here.
  int version = 0;
  std::vector<std::string> tables;
  {
    sqlite3_stmt* probe = nullptr;
    int rc = sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &probe, nullptr);
    if (rc == SQLITE_OK)
      rc = sqlite3_step(probe);
    if (rc == SQLITE_ROW)
      version = sqlite3_column_int(probe, 0);
    sqlite3_finalize(probe);
    if (rc != SQLITE_ROW && (sqlite3_extended_errcode(db_) & 0xff) == SQLITE_CORRUPT)
      throw Error(path_ + ": damaged or truncated database file (" + sqlite3_errmsg(db_) + ")");
    if (rc != SQLITE_ROW)
      throw Error(path_ + ": not a tuning database (not a readable SQLite file: " +
                  sqlite3_errmsg(db_) + ")");
    Stmt t(db_, path_,
           "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    while (t.step())
      tables.push_back(t.text(0));
  }
  if (version > kSchemaVersion)
    throw Error(path_ + ": tuning database schema version " + std::to_string(version) +
                " is newer than this program supports (version " + std::to_string(kSchemaVersion) +
                "); use a newer lowerscope");
  bool ours = false;
  for (const auto& t : tables)
    for (const char* o : kOurTables)
      ours = ours || t == o;
  if (!tables.empty() && !ours) {
    std::string list;
    for (const auto& t : tables)
      list += (list.empty() ? "" : ", ") + t;
    throw Error(path_ + ": not a tuning database (a SQLite database with other tables: " + list +
                ")");
  }
  if (version == 0 && ours)
    throw Error(path_ + ": not a tuning database (tuning tables present but schema version 0)");

  // journal_mode answers with the mode in effect; WAL is refused only by
  // in-memory or read-only files, where rollback journaling is what we get.
  // Switching to WAL calls no busy handler: while another process creates
  // the same new file (its migration holds the write lock of a file still
  // in rollback mode) it fails at once with "database is locked". Retried
  // within the busy timeout, so two programs may open a new file together
  // (a workbench watching the file a `tune` is creating).
  for (const auto start = std::chrono::steady_clock::now();;) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, &err);
    if (rc == SQLITE_OK)
      break;
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    const bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy || std::chrono::steady_clock::now() - start >
                     std::chrono::milliseconds(std::max(0, busyTimeoutMs)))
      throw Error(path_ + ": " + msg);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  exec(db_, path_, "PRAGMA foreign_keys=ON");
  exec(db_, path_, "PRAGMA synchronous=NORMAL");

  if (version == kSchemaVersion)
    return;
  exec(db_, path_, "BEGIN IMMEDIATE");
  try {
    for (int v = userVersion(db_, path_); v < kSchemaVersion; ++v) {
      exec(db_, path_, kMigrations[v]);
      exec(db_, path_, ("PRAGMA user_version=" + std::to_string(v + 1)).c_str());
    }
    exec(db_, path_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int Database::schemaVersion() const { return userVersion(db_, path_); }

int64_t Database::addWorkload(const std::string& hash, const std::string& text, double flops) {
  Stmt(db_, path_,
       "INSERT INTO workloads(hash, text, flops) VALUES(?, ?, ?) ON CONFLICT(hash) DO NOTHING")
      .bind(1, hash)
      .bind(2, text)
      .bind(3, flops)
      .run();
  return workloadByHash(hash)->id;
}

std::optional<Workload> Database::workloadByHash(const std::string& hash) const {
  Stmt s(db_, path_, "SELECT id, hash, text, flops FROM workloads WHERE hash = ?");
  s.bind(1, hash);
  if (!s.step())
    return std::nullopt;
  return Workload{s.i64(0), s.text(1), s.text(2), s.real(3)};
}

std::vector<Workload> Database::workloads() const {
  Stmt s(db_, path_, "SELECT id, hash, text, flops FROM workloads ORDER BY id");
  std::vector<Workload> out;
  while (s.step())
    out.push_back({s.i64(0), s.text(1), s.text(2), s.real(3)});
  return out;
}

int64_t Database::addTarget(const std::string& text) {
  Stmt(db_, path_, "INSERT INTO targets(text) VALUES(?) ON CONFLICT(text) DO NOTHING")
      .bind(1, text)
      .run();
  return *targetId(text);
}

std::optional<int64_t> Database::targetId(const std::string& text) const {
  Stmt s(db_, path_, "SELECT id FROM targets WHERE text = ?");
  s.bind(1, text);
  if (!s.step())
    return std::nullopt;
  return s.i64(0);
}

std::vector<TargetRow> Database::targets() const {
  Stmt s(db_, path_, "SELECT id, text FROM targets ORDER BY id");
  std::vector<TargetRow> out;
  while (s.step())
    out.push_back({s.i64(0), s.text(1)});
  return out;
}

int64_t Database::startRun(const nlohmann::json& config, int64_t trialsPlanned,
                           const std::optional<RunProcess>& process) {
  Stmt s(db_, path_,
         "INSERT INTO runs(config, status, trials_planned, pid, host, process_token)"
         " VALUES(?, 'running', ?, ?, ?, ?) RETURNING id");
  s.bind(1, config.dump()).bind(2, trialsPlanned);
  bindProcess(s, 3, process);
  if (!s.step())
    fail(path_, "startRun returned no id", nullptr);
  int64_t id = s.i64(0);
  s.run();
  return id;
}

void Database::updateRunProgress(int64_t runId, int64_t trialsDone) {
  Stmt(db_, path_, "UPDATE runs SET trials_done = ? WHERE id = ?")
      .bind(1, trialsDone)
      .bind(2, runId)
      .run();
  if (sqlite3_changes(db_) == 0)
    throw Error(path_ + ": no run " + std::to_string(runId));
}

void Database::finishRun(int64_t runId, RunStatus status) {
  Stmt(db_, path_,
       "UPDATE runs SET status = ?, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now'),"
       " control = '' WHERE id = ?")
      .bind(1, toString(status))
      .bind(2, runId)
      .run();
  if (sqlite3_changes(db_) == 0)
    throw Error(path_ + ": no run " + std::to_string(runId));
}

void Database::reopenRun(int64_t runId, const std::optional<RunProcess>& process) {
  Stmt s(db_, path_,
         "UPDATE runs SET status = 'running', ended_at = NULL, control = '', pid = ?, host = ?,"
         " process_token = ? WHERE id = ?");
  bindProcess(s, 1, process);
  s.bind(4, runId).run();
  if (sqlite3_changes(db_) == 0)
    throw Error(path_ + ": no run " + std::to_string(runId));
}

bool Database::setRunControl(int64_t runId, RunControl control) {
  // One statement, so the check and the write are one transaction: a
  // pause or cancel confirmed just as the run ends (the last progress call
  // comes after finishRun) cannot leave an ended run "cancelling".
  Stmt(db_, path_, "UPDATE runs SET control = ? WHERE id = ? AND status = 'running'")
      .bind(1, toString(control))
      .bind(2, runId)
      .run();
  if (sqlite3_changes(db_) > 0)
    return true;
  if (!run(runId))
    throw Error(path_ + ": no run " + std::to_string(runId));
  return false;
}

std::vector<Run> Database::runs() const {
  Stmt s(db_, path_, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id").c_str());
  std::vector<Run> out;
  while (s.step())
    out.push_back(readRun(s, path_));
  return out;
}

std::optional<Run> Database::run(int64_t runId) const {
  Stmt s(db_, path_, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?").c_str());
  s.bind(1, runId);
  if (!s.step())
    return std::nullopt;
  return readRun(s, path_);
}

int64_t Database::addRecord(const Record& r) {
  std::optional<double> mean = r.meanS;
  if (!mean && !r.times.empty())
    mean =
        std::accumulate(r.times.begin(), r.times.end(), 0.0) / static_cast<double>(r.times.size());
  if (r.status == RecordStatus::Ok && !mean)
    throw Error(path_ + ": an ok record needs measured times or a mean");
  Stmt s(db_, path_,
         "INSERT INTO records(workload_id, target_id, run_id, trial, trace, decisions, times, "
         "mean_s, status, error_kind, error_message, build_s, predicted_s, node) "
         "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id");
  s.bind(1, r.workloadId)
      .bind(2, r.targetId)
      .bind(3, r.runId)
      .bind(4, r.trial)
      .bind(5, r.trace.dump())
      .bind(6, r.decisions.dump())
      .bind(7, nlohmann::json(r.times).dump())
      .bind(8, mean)
      .bind(9, toString(r.status))
      .bind(10, r.errorKind)
      .bind(11, r.errorMessage)
      .bind(12, r.buildS)
      .bind(13, r.predictedS)
      .bind(14, r.node);
  if (!s.step())
    fail(path_, "addRecord returned no id", nullptr);
  int64_t id = s.i64(0);
  s.run(); // completes the statement: the autocommit happens here
  return id;
}

std::vector<Record> Database::records(int64_t workloadId, int64_t targetId,
                                      std::optional<RecordStatus> status) const {
  std::string sql = std::string("SELECT ") + kRecordColumns +
                    " FROM records r WHERE r.workload_id = ? AND r.target_id = ?" +
                    (status ? " AND r.status = ?" : "") + " ORDER BY r.id";
  Stmt s(db_, path_, sql.c_str());
  s.bind(1, workloadId).bind(2, targetId);
  if (status)
    s.bind(3, toString(*status));
  return readRecords(s, path_);
}

std::optional<Record> Database::record(int64_t recordId) const {
  std::string sql = std::string("SELECT ") + kRecordColumns + " FROM records r WHERE r.id = ?";
  Stmt s(db_, path_, sql.c_str());
  s.bind(1, recordId);
  if (!s.step())
    return std::nullopt;
  return readRecord(s, path_);
}

std::vector<PairSummary> Database::summary() const {
  Stmt s(db_, path_,
         "SELECT workload_id, target_id, SUM(status = 'ok'), SUM(status <> 'ok'),"
         " MIN(CASE WHEN status = 'ok' THEN mean_s END)"
         " FROM records GROUP BY workload_id, target_id ORDER BY workload_id, target_id");
  std::vector<PairSummary> out;
  while (s.step())
    out.push_back({s.i64(0), s.i64(1), s.i64(2), s.i64(3), s.optReal(4)});
  return out;
}

std::vector<Record> Database::recordsOfRun(int64_t runId) const {
  std::string sql =
      std::string("SELECT ") + kRecordColumns + " FROM records r WHERE r.run_id = ? ORDER BY r.id";
  Stmt s(db_, path_, sql.c_str());
  s.bind(1, runId);
  return readRecords(s, path_);
}

std::vector<Record> Database::best(int64_t workloadId, int64_t targetId, int k) const {
  std::string sql =
      std::string("SELECT ") + kRecordColumns +
      " FROM records r WHERE r.workload_id = ? AND r.target_id = ? AND r.status = 'ok'"
      " AND r.mean_s IS NOT NULL ORDER BY r.mean_s, r.id LIMIT ?";
  Stmt s(db_, path_, sql.c_str());
  s.bind(1, workloadId).bind(2, targetId).bind(3, k);
  return readRecords(s, path_);
}

std::vector<Record> Database::bestByHash(const std::string& hash, const std::string& targetText,
                                         int k) const {
  std::string sql = std::string("SELECT ") + kRecordColumns +
                    " FROM records r JOIN workloads w ON w.id = r.workload_id"
                    " JOIN targets t ON t.id = r.target_id"
                    " WHERE w.hash = ? AND t.text = ? AND r.status = 'ok' AND r.mean_s IS NOT NULL"
                    " ORDER BY r.mean_s, r.id LIMIT ?";
  Stmt s(db_, path_, sql.c_str());
  s.bind(1, hash).bind(2, targetText).bind(3, k);
  return readRecords(s, path_);
}

int64_t Database::prune(int64_t workloadId, int64_t targetId, int keepK) {
  // One statement, so it is atomic and needs no explicit transaction.
  Stmt(db_, path_,
       "DELETE FROM records WHERE workload_id = ?1 AND target_id = ?2 AND status = 'ok'"
       " AND id NOT IN (SELECT id FROM records WHERE workload_id = ?1 AND target_id = ?2"
       " AND status = 'ok' AND mean_s IS NOT NULL ORDER BY mean_s, id LIMIT ?3)")
      .bind(1, workloadId)
      .bind(2, targetId)
      .bind(3, keepK < 0 ? 0 : keepK)
      .run();
  return sqlite3_changes64(db_);
}

void Database::transaction(const std::function<void()>& body) {
  exec(db_, path_, "BEGIN IMMEDIATE");
  try {
    body();
    exec(db_, path_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::string Database::integrityCheck() const {
  Stmt s(db_, path_, "PRAGMA integrity_check");
  std::string out;
  while (s.step())
    out += (out.empty() ? "" : "\n") + s.text(0);
  return out;
}

} // namespace unity::tuner
