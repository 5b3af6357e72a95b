#pragma once
// The records of a tuning database (tuner/database.h) as a Qt table: one row
// per measured candidate, failures included, with a proxy that sorts and
// filters by workload, target, run and status.
//
// The rows are read in one go by loadTuningRecords(), a plain function that
// runs off the UI thread (the browser starts it on a BackgroundJob) and
// returns a snapshot; the model only shows snapshots, so the UI never waits
// for SQLite. A snapshot keeps what the table shows and filters on; the bulky
// parts of a record (its trace, its times) are read again by id when a record
// is opened. Any file may be given: a missing file, a file that is not a
// tuning database and a damaged one give a snapshot with `error` set (the
// tuner's message, which names the file and the cause) and no rows.
//
// Sorting uses kSortRole: numbers as numbers (latencies, GFLOP/s, ids), so
// 9 us sorts before 10 us; a record without a latency (a failure) sorts after
// every measured one in ascending order.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>

#include <optional>
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

  const unity::tuner::Workload* workload(int64_t id) const;
  const unity::tuner::TargetRow* target(int64_t id) const;
};

/// Reads every record of the database file `path` (safe on any thread; opens
/// its own connection). Never throws: failures are in `error`. A missing file
/// is an error (the file is not created).
TuningRecordsSnapshot loadTuningRecords(const QString& path);

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

  explicit TuningRecordsModel(QObject* parent = nullptr);

  void setSnapshot(TuningRecordsSnapshot snapshot);
  const TuningRecordsSnapshot& snapshot() const { return snap_; }
  const TuningRecordRow& row(int r) const { return snap_.rows[static_cast<size_t>(r)]; }
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

private:
  TuningRecordsSnapshot snap_;
  QHash<QString, QString> names_;
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

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
  std::optional<int64_t> workload_, target_, run_;
  StatusFilter status_ = StatusFilter::Any;
  std::optional<unity::tuner::RecordStatus> exact_;
};

} // namespace lowerscope
