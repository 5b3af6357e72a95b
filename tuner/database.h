#pragma once
// The tuning database: one SQLite file that holds every measured schedule
// candidate (failures included), the workloads and targets they were measured
// for, and the tuning runs that produced them. The search writes a record the
// moment a candidate is measured and the build reads the best record back.
//
// Durability and sharing. The file is in WAL mode; every addRecord is one
// autocommitted INSERT, so a record is committed when the call returns and a
// `kill -9` at any moment loses nothing that was committed and leaves
// `PRAGMA integrity_check` clean. synchronous=NORMAL is used: with WAL that is
// crash-safe for the process (only a power loss may drop the last commits).
// Several connections, in one process or several (a GUI and a CLI), may write
// the same file at the same time: a busy_timeout makes a writer wait for the
// other's lock instead of failing. Connections must not cross fork(); open a
// new Database in the child.
//
// Schema, version 2 (`PRAGMA user_version`; 0 = empty file):
//
//   workloads(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE,
//             text TEXT NOT NULL, flops REAL NOT NULL)
//       hash: the caller's stable structural hash of the tensor function;
//       text: its printed form, for people and for re-import.
//   targets(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)
//       text: the canonical target string.
//   runs(id INTEGER PRIMARY KEY, config TEXT NOT NULL (JSON),
//        status TEXT NOT NULL CHECK(running|finished|failed|cancelled),
//        started_at TEXT NOT NULL, ended_at TEXT (NULL while running),
//        trials_done INTEGER NOT NULL, trials_planned INTEGER NOT NULL,
//        pid INTEGER, host TEXT, process_token TEXT (the process working on
//        the run, NULL when unknown: version 2, see RunProcess),
//        control TEXT NOT NULL DEFAULT '' CHECK(''|paused|cancelling)
//        (version 2: what that process confirmed it is doing))
//   records(id INTEGER PRIMARY KEY,
//           workload_id INTEGER NOT NULL REFERENCES workloads(id),
//           target_id INTEGER NOT NULL REFERENCES targets(id),
//           run_id INTEGER REFERENCES runs(id) (NULL: imported / ad hoc),
//           trial INTEGER NOT NULL, trace TEXT NOT NULL (JSON),
//           decisions TEXT NOT NULL (JSON), times TEXT NOT NULL (JSON array
//           of seconds), mean_s REAL (NULL unless measured),
//           status TEXT NOT NULL CHECK(ok|build_error|run_error|timeout|
//                                      crash|wrong_result),
//           error_kind TEXT NOT NULL, error_message TEXT NOT NULL,
//           build_s REAL NOT NULL, predicted_s REAL (NULL: no model yet),
//           node TEXT NOT NULL (the machine that measured it),
//           created_at TEXT NOT NULL)
//   index records_lookup ON records(workload_id, target_id, status, mean_s)
//   index records_run ON records(run_id)
// Timestamps are UTC ISO-8601 text ("2026-01-31T12:00:00.000Z").
//
// Migrations: kMigrations in database.cpp holds one step per version; opening
// a file runs the steps from its version to kSchemaVersion in one immediate
// transaction. A file with a newer version, a file that is not SQLite, and a
// SQLite file with other tables but none of ours are refused with a
// unity::Error naming the file.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct sqlite3;

namespace unity::tuner {

/// The schema version this code writes and reads.
inline constexpr int kSchemaVersion = 2;

enum class RunStatus { Running, Finished, Failed, Cancelled };
/// What the process working on a running run has confirmed (runs.control):
/// nothing special, holding between two candidates, or finishing its batch
/// before it marks the run cancelled.
enum class RunControl { None, Paused, Cancelling };
enum class RecordStatus { Ok, BuildError, RunError, Timeout, Crash, WrongResult };

/// "running", "finished", ... (the text stored in the file).
const char* toString(RunStatus s);
const char* toString(RecordStatus s);
/// Inverse of toString; nullopt for unknown text.
std::optional<RunStatus> parseRunStatus(const std::string& s);
/// "", "paused", "cancelling".
const char* toString(RunControl c);
std::optional<RunControl> parseRunControl(const std::string& s);
std::optional<RecordStatus> parseRecordStatus(const std::string& s);

struct Workload {
  int64_t id = 0;
  std::string hash;
  std::string text;
  double flops = 0;
};

struct TargetRow {
  int64_t id = 0;
  std::string text;
};

/// The process that works on a run, stored with it so that another program
/// (the workbench after a restart) can find that process again: steer it
/// with signals, or see that it died without finishing. pid alone is not
/// enough, pids are reused: startToken names one process of one boot of one
/// machine (run_process.h).
struct RunProcess {
  int64_t pid = 0;
  std::string host;       ///< gethostname() of the machine it runs on
  std::string startToken; ///< processStartToken(pid) when it was recorded; may be empty
  bool operator==(const RunProcess&) const = default;
};

struct Run {
  int64_t id = 0;
  nlohmann::json config;
  RunStatus status = RunStatus::Running;
  std::string startedAt;
  std::string endedAt; // empty while running
  int64_t trialsDone = 0;
  int64_t trialsPlanned = 0;
  /// The process that started or last resumed it (nullopt: not recorded, as
  /// in runs of schema version 1 or written by the API without one).
  std::optional<RunProcess> process;
  RunControl control = RunControl::None;
};

/// One measured (or failed) candidate. id and createdAt are set by the
/// database; the rest by the caller.
struct Record {
  int64_t id = 0;
  int64_t workloadId = 0;
  int64_t targetId = 0;
  std::optional<int64_t> runId;
  int64_t trial = 0;
  nlohmann::json trace = nlohmann::json::array();
  nlohmann::json decisions = nlohmann::json::array();
  std::vector<double> times; // seconds, one per repetition
  /// Mean of times; addRecord fills it from times when it is unset and times
  /// is not empty. An Ok record must end up with a mean.
  std::optional<double> meanS;
  RecordStatus status = RecordStatus::Ok;
  std::string errorKind;
  std::string errorMessage;
  double buildS = 0;
  std::optional<double> predictedS;
  std::string node;
  std::string createdAt;
};

/// Counts and the best mean of one (workload, target) pair (Database::summary).
struct PairSummary {
  int64_t workloadId = 0;
  int64_t targetId = 0;
  int64_t okRecords = 0;
  int64_t failedRecords = 0;
  std::optional<double> bestMeanS; // lowest mean_s of the ok records
};

class Database {
public:
  /// Opens or creates the file. Throws unity::Error (message names the file)
  /// when it cannot be opened, is not a SQLite database, is a foreign SQLite
  /// database, or has a newer schema version than kSchemaVersion.
  /// busyTimeoutMs: how long a write waits for another connection's lock.
  explicit Database(const std::string& path, int busyTimeoutMs = 30000);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }
  /// PRAGMA user_version of the open file (kSchemaVersion after opening).
  int schemaVersion() const;

  /// The id of the workload with this hash, inserting it when new (text and
  /// flops of an existing workload are left as they are).
  int64_t addWorkload(const std::string& hash, const std::string& text, double flops);
  std::optional<Workload> workloadByHash(const std::string& hash) const;
  std::vector<Workload> workloads() const;
  /// The id of the target with this text, inserting it when new.
  int64_t addTarget(const std::string& text);
  std::optional<int64_t> targetId(const std::string& text) const;
  std::vector<TargetRow> targets() const;

  /// A new run with status running and trials_done 0, worked on by
  /// `process` when given.
  int64_t startRun(const nlohmann::json& config, int64_t trialsPlanned,
                   const std::optional<RunProcess>& process = std::nullopt);
  void updateRunProgress(int64_t runId, int64_t trialsDone);
  /// Sets the final status and ended_at, and control back to None. Throws
  /// for an unknown id.
  void finishRun(int64_t runId, RunStatus status);
  /// Sets a run back to running (ended_at cleared, control None) and records
  /// the process now working on it (cleared when nullopt): `tune --resume`.
  /// Throws for an unknown id.
  void reopenRun(int64_t runId, const std::optional<RunProcess>& process = std::nullopt);
  /// Records what the run's process confirmed (paused, cancelling, or back
  /// to None) while the run is running; returns false and changes nothing
  /// once it has ended (finishRun cleared the state for good). Throws for an
  /// unknown id.
  bool setRunControl(int64_t runId, RunControl control);
  std::vector<Run> runs() const;
  std::optional<Run> run(int64_t runId) const;

  /// Inserts and commits the record (durable on return); returns its id.
  /// Throws unity::Error for an Ok record without times or mean, or for ids
  /// that name no workload/target/run.
  int64_t addRecord(const Record& record);
  /// Records of (workload, target), optionally of one status, oldest first.
  std::vector<Record> records(int64_t workloadId, int64_t targetId,
                              std::optional<RecordStatus> status = std::nullopt) const;
  /// One record by id; nullopt when there is none.
  std::optional<Record> record(int64_t recordId) const;
  /// Every (workload, target) pair that has records, by workload then target id.
  std::vector<PairSummary> summary() const;
  /// Records of a run, oldest first.
  std::vector<Record> recordsOfRun(int64_t runId) const;
  /// Up to k Ok records of (workload, target), lowest mean_s first (ties:
  /// older first). Failed records never appear.
  std::vector<Record> best(int64_t workloadId, int64_t targetId, int k) const;
  /// best() looked up by the workload's hash and the target's text; empty
  /// when either is unknown.
  std::vector<Record> bestByHash(const std::string& hash, const std::string& targetText,
                                 int k) const;
  /// Deletes the Ok records of (workload, target) that are not among the best
  /// keepK; failed records are kept (they tell the search which candidates
  /// not to try again and why). Returns the number deleted.
  int64_t prune(int64_t workloadId, int64_t targetId, int keepK);

  /// Runs body inside one immediate transaction: committed when it returns,
  /// rolled back (and the exception rethrown) when it throws. For bulk
  /// writes (import) that must land whole or not at all; not reentrant.
  void transaction(const std::function<void()>& body);

  /// "ok", or the messages of PRAGMA integrity_check joined by newlines.
  std::string integrityCheck() const;

private:
  void configureAndMigrate(int busyTimeoutMs);

  std::string path_;
  sqlite3* db_ = nullptr;
};

} // namespace unity::tuner
