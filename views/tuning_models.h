#pragma once
// Item models of the tuning views, both fed by TuningSnapshots
// (tuning_watcher.h): TuningTaskModel, one row per task of the run shown
// (the live table), and TuningRunsModel, one row per run of the database
// (the history). setSnapshot() keeps the rows when their number does not
// change and only signals dataChanged, so a table refreshed several times a
// second keeps its selection and scroll position.
#include <QAbstractTableModel>

#include "views/tuning_watcher.h"

#include <nlohmann/json_fwd.hpp>

namespace lowerscope {

/// "12.3 us", "4.560 ms", "1.20 s"; "-" for zero or less.
QString formatSeconds(double seconds);
/// "1.50 G", "3.20 M", "812"
QString formatFlops(double flops);
/// "42s", "3m07s", "1h02m"
QString formatDuration(double seconds);
/// A run's `runner` configuration as a person reads it: "local", "slurm
/// (partition main, m7=boards)"; also the older plain-string form.
QString formatRunner(const nlohmann::json& runner);

class TuningTaskModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Task, SubTarget, Flops, Weight, GFlops, Latency, Trials, Errors, ColumnCount };
  /// Qt::UserRole on any column: the raw number (sorting), or the name.
  static constexpr int SortRole = Qt::UserRole;

  explicit TuningTaskModel(QObject* parent = nullptr);
  void setSnapshot(const TuningSnapshotPtr& snapshot);
  const TuningTaskRow* row(int r) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
  std::vector<TuningTaskRow> rows_;
};

class TuningRunsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Run, Status, Started, Duration, Trials, Target, Model, Config, ColumnCount };
  /// Qt::UserRole on column Run: the run id (qint64).
  static constexpr int RunIdRole = Qt::UserRole;

  explicit TuningRunsModel(QObject* parent = nullptr);
  void setSnapshot(const TuningSnapshotPtr& snapshot);
  const unity::tuner::Run* run(int r) const;
  /// The row of run `id`, -1 when absent.
  int rowOf(int64_t id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
  std::vector<unity::tuner::Run> runs_;                 // newest first
  std::vector<unity::tuner::ProcessLiveness> liveness_; // per row of runs_
};

} // namespace lowerscope
