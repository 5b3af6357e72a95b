#pragma once
// The records of a tuning database (tuner/database.h) as a Qt table: one row
// per measured candidate, failures included, with a proxy that sorts and
// filters by workload, target, run and status.
//
// The rows are read in one go by loadTuningRecords(), a plain function that
// runs off the UI thread (the browser starts it on a BackgroundJob) and
// returns a snapshot; the model only shows snapshots, so the UI never waits
// for SQLite. A big snapshot is not shown in one step either: applySnapshot()
// appends its rows kBatchRows at a time, one batch per turn of the event
// loop (beginInsertRows per batch, so a sorted proxy places each batch and
// the view paints between them), and a reload of the same file whose rows
// still has every row shown (records are only ever added; a prune deletes)
// keeps those and appends the new ones, so the table keeps its scroll
// position and selection while a run writes. Nothing per row is formatted
// ahead: data() formats the cells the view asks for, with the workload and
// target names looked up in per-snapshot tables, and the proxy sorts
// through TuningRecordsModel::lessThan, which compares the rows' fields
// without building a QVariant. A snapshot keeps what the table shows and filters on; the bulky
// parts of a record (its trace, its times) are read again by id when a record
// is opened. Any file may be given: a missing file, a file that is not a
// tuning database and a damaged one give a snapshot with `error` set (the
// tuner's message, which names the file and the cause) and no rows.
//
// Sorting uses kSortRole: numbers as numbers (latencies, GFLOP/s, ids), so
// 9 us sorts before 10 us; a record without a latency (a failure) sorts after
// every measured one in ascending order. Workload, target and status sort by
// their shown text in the locale's order (ranked once per snapshot); node,
// creation time and error message by their text's code points.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>

#include <QHash>

#include <optional>
#include <unordered_map>
#include <vector>

#include "tuner/database.h"

namespace lowerscope {

/// One record as the table shows it.
struct TuningRecordRow {
  int64_t id = 0;
  int64_t workloadId = 0;
  int64_t targetId = 0;
  std::optional<int64_t> runId;
  int64_t trial = 0;
  unity::tuner::RecordStatus status = unity::tuner::RecordStatus::Ok;
  std::optional<double> meanS, predictedS;
  double buildS = 0;
  int repeats = 0; // timed calls
  QString errorKind, errorMessage, node, createdAt;
};

/// What loadTuningRecords read: every record with its workloads, targets and
/// runs, or the reason it could not.
struct TuningRecordsSnapshot {
  QString path;
  QString error; // empty when the file was read
  std::vector<TuningRecordRow> rows;
  std::vector<unity::tuner::Workload> workloads;
  std::vector<unity::tuner::TargetRow> targets;
  std::vector<unity::tuner::Run> runs;

  /// True when rows holds only the records that are not among the `shown`
  /// ids given to loadTuningRecords (the file still holds every one of those).
  bool addedOnly = false;

  const unity::tuner::Workload* workload(int64_t id) const;
  const unity::tuner::TargetRow* target(int64_t id) const;
};

/// Reads every record of the database file `path` (safe on any thread; opens
/// its own connection). Never throws: failures are in `error`. A missing file
/// is an error (the file is not created). With `shown` (the sorted ids of the
/// rows a model shows, TuningRecordsModel::shownIds): when the file still
/// holds every one of them, rows keeps only the other records and addedOnly
/// is set, so a reload while a run writes hands the UI thread its new
/// records rather than all of them again.
TuningRecordsSnapshot loadTuningRecords(const QString& path,
                                        const std::vector<int64_t>& shown = {});

/// A short readable name for a workload: the name the open model gives its
/// function when one is known (setWorkloadNames), else the last block of the
/// printed workload and the start of its hash ("T_relu (3fa2c1d0)").
QString workloadLabel(const unity::tuner::Workload& w);

class TuningRecordsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    Id,
    Workload,
    Target,
    Run,
    Trial,
    Status,
    Measured,  // mean latency
    Predicted, // the cost model's latency when it was chosen
    Gflops,
    Build,
    Node,
    Created,
    Error,
    ColumnCount
  };
  /// The raw value a column sorts by (numbers for numeric columns).
  static constexpr int kSortRole = Qt::UserRole + 1;
  /// The record id of a row (every column).
  static constexpr int kIdRole = Qt::UserRole + 2;

  /// Rows applySnapshot() adds per turn of the event loop.
  static constexpr int kBatchRows = 2000;

  explicit TuningRecordsModel(QObject* parent = nullptr);

  /// Shows `snapshot` at once (a model reset); a batched applySnapshot() in
  /// progress is dropped.
  void setSnapshot(TuningRecordsSnapshot snapshot);
  /// Shows `snapshot` without holding the UI thread on a big one: when it is
  /// the file shown and still has every row shown, those stay and the others
  /// are appended (in id order, after them); a snapshot of the file shown
  /// with addedOnly set only adds its rows. Otherwise the model is reset to
  /// no rows and they are all appended. Rows are appended `batchRows` at a time, the first
  /// batch now and each next one on a later turn of the event loop;
  /// snapshotApplied() follows the last (at once when nothing is left).
  /// Workloads, targets and runs are replaced at once. Returns whether the
  /// rows shown were kept.
  bool applySnapshot(TuningRecordsSnapshot snapshot, int batchRows = kBatchRows);
  /// True while applySnapshot() has rows left to append.
  bool isApplying() const { return next_ < pending_.size(); }
  /// Rows of the snapshot being applied that are not shown yet.
  int pendingRows() const { return static_cast<int>(pending_.size() - next_); }
  /// The snapshot shown; while isApplying(), rows holds the rows shown so far.
  const TuningRecordsSnapshot& snapshot() const { return snap_; }
  const TuningRecordRow& row(int r) const { return snap_.rows[static_cast<size_t>(r)]; }
  /// The ids of the rows shown, sorted.
  const std::vector<int64_t>& shownIds() const { return shownIds_; }
  /// Whether row a sorts before row b by `column` (see kSortRole; what the
  /// filter's sort uses).
  bool lessThan(int a, int b, int column) const;
  /// Names of workloads by hash (the open model's function names) shown in
  /// the Workload column; an unknown hash keeps workloadLabel().
  void setWorkloadNames(const QHash<QString, QString>& byHash);
  QString workloadName(int64_t workloadId) const;
  QString targetText(int64_t targetId) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

Q_SIGNALS:
  /// applySnapshot() has shown every row of its snapshot.
  void snapshotApplied();

private:
  void appendBatch(unsigned generation);
  /// Rebuilds the per-snapshot lookups (names, flops, sort ranks).
  void rebuildLookups();
  const unity::tuner::Workload* workloadOf(int64_t id) const;

  TuningRecordsSnapshot snap_;
  QHash<QString, QString> names_;
  // applySnapshot: rows still to append (pending_[next_...]).
  std::vector<TuningRecordRow> pending_;
  size_t next_ = 0;
  std::vector<int64_t> shownIds_; // ids of the rows shown, sorted
  int batchRows_ = kBatchRows;
  unsigned generation_ = 0; // a newer snapshot drops the batches of an older one
  // Per snapshot: positions in snap_.workloads / targets, shown names and
  // their rank in the locale's order.
  std::unordered_map<int64_t, size_t> workloadAt_, targetAt_;
  std::unordered_map<int64_t, QString> workloadNames_;
  std::unordered_map<int64_t, int> workloadRank_, targetRank_;
};

/// Sorts by kSortRole and keeps the rows that match every filter set.
class TuningRecordsFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  /// Which statuses pass the status filter.
  enum class StatusFilter { Any, Ok, Failed };

  explicit TuningRecordsFilter(QObject* parent = nullptr);

  /// nullopt: any. Run 0 matches records without a run (imported).
  void setWorkload(std::optional<int64_t> id);
  void setTarget(std::optional<int64_t> id);
  void setRun(std::optional<int64_t> id);
  /// A status group, or one exact status.
  void setStatus(StatusFilter s);
  void setExactStatus(std::optional<unity::tuner::RecordStatus> s);
  /// Every filter at once, refiltering only when one changed (a reload keeps
  /// the filters chosen and should not sort 20,000 rows again).
  void setFilters(std::optional<int64_t> workload, std::optional<int64_t> target,
                  std::optional<int64_t> run, StatusFilter status,
                  std::optional<unity::tuner::RecordStatus> exact);

  void setSourceModel(QAbstractItemModel* model) override;

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
  const TuningRecordsModel* records_ = nullptr; // the source, when it is one (no cast per row)
  std::optional<int64_t> workload_, target_, run_;
  StatusFilter status_ = StatusFilter::Any;
  std::optional<unity::tuner::RecordStatus> exact_;
};

} // namespace lowerscope
