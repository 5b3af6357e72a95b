// The tuning database as a table (see tuning_records_model.h).
#include "views/tuning_records_model.h"

#include <QBrush>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <exception>
#include <limits>

#include "views/theme.h"

namespace lowerscope {

using unity::tuner::RecordStatus;

const unity::tuner::Workload* TuningRecordsSnapshot::workload(int64_t id) const {
  for (const auto& w : workloads)
    if (w.id == id)
      return &w;
  return nullptr;
}

const unity::tuner::TargetRow* TuningRecordsSnapshot::target(int64_t id) const {
  for (const auto& t : targets)
    if (t.id == id)
      return &t;
  return nullptr;
}

TuningRecordsSnapshot loadTuningRecords(const QString& path) {
  TuningRecordsSnapshot s;
  s.path = path;
  if (!QFileInfo(path).isFile()) {
    s.error = QObject::tr("%1: no such tuning database").arg(path);
    return s;
  }
  try {
    unity::tuner::Database db(path.toStdString(), 2000);
    s.workloads = db.workloads();
    s.targets = db.targets();
    s.runs = db.runs();
    for (const auto& pair : db.summary())
      for (auto& r : db.records(pair.workloadId, pair.targetId)) {
        TuningRecordRow row;
        row.id = r.id;
        row.workloadId = r.workloadId;
        row.targetId = r.targetId;
        row.runId = r.runId;
        row.trial = r.trial;
        row.status = r.status;
        row.meanS = r.meanS;
        row.predictedS = r.predictedS;
        row.buildS = r.buildS;
        row.repeats = static_cast<int>(r.times.size());
        row.errorKind = QString::fromStdString(r.errorKind);
        row.errorMessage = QString::fromStdString(r.errorMessage);
        row.node = QString::fromStdString(r.node);
        row.createdAt = QString::fromStdString(r.createdAt);
        s.rows.push_back(std::move(row));
      }
    std::sort(s.rows.begin(), s.rows.end(),
              [](const TuningRecordRow& a, const TuningRecordRow& b) { return a.id < b.id; });
  } catch (const std::exception& e) {
    // unity::Error from the tuner names the file and the cause; anything
    // else (bad_alloc on a huge damaged blob, JSON errors) is reported too.
    s.rows.clear();
    s.workloads.clear();
    s.targets.clear();
    s.runs.clear();
    s.error = QString::fromUtf8(e.what());
    if (!s.error.contains(QFileInfo(path).fileName()))
      s.error = path + QStringLiteral(": ") + s.error;
  }
  return s;
}

QString workloadLabel(const unity::tuner::Workload& w) {
  static const QRegularExpression block(QStringLiteral("block\\(\"([^\"]+)\""));
  QString last;
  for (auto it = block.globalMatch(QString::fromStdString(w.text)); it.hasNext();)
    last = it.next().captured(1);
  const QString hash = QString::fromStdString(w.hash).left(8);
  return last.isEmpty() ? hash : QStringLiteral("%1 (%2)").arg(last, hash);
}

namespace {

QString formatSeconds(double s) {
  if (s >= 1)
    return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
  if (s >= 1e-3)
    return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 3);
  return QStringLiteral("%1 \u00b5s").arg(s * 1e6, 0, 'f', 2);
}

bool failed(RecordStatus s) { return s != RecordStatus::Ok; }

} // namespace

TuningRecordsModel::TuningRecordsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuningRecordsModel::setSnapshot(TuningRecordsSnapshot snapshot) {
  beginResetModel();
  snap_ = std::move(snapshot);
  endResetModel();
}

void TuningRecordsModel::setWorkloadNames(const QHash<QString, QString>& byHash) {
  names_ = byHash;
  if (rowCount() > 0)
    Q_EMIT dataChanged(index(0, Workload), index(rowCount() - 1, Workload));
}

QString TuningRecordsModel::workloadName(int64_t workloadId) const {
  const unity::tuner::Workload* w = snap_.workload(workloadId);
  if (!w)
    return QString::number(workloadId);
  const auto it = names_.find(QString::fromStdString(w->hash));
  if (it != names_.end())
    return QStringLiteral("%1 (%2)").arg(*it, QString::fromStdString(w->hash).left(8));
  return workloadLabel(*w);
}

QString TuningRecordsModel::targetText(int64_t targetId) const {
  const unity::tuner::TargetRow* t = snap_.target(targetId);
  return t ? QString::fromStdString(t->text) : QString::number(targetId);
}

int TuningRecordsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(snap_.rows.size());
}

int TuningRecordsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningRecordsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const TuningRecordRow& r = row(index.row());
  if (role == kIdRole)
    return QVariant::fromValue<qlonglong>(r.id);
  const unity::tuner::Workload* w = snap_.workload(r.workloadId);
  const std::optional<double> gflops = (r.meanS && *r.meanS > 0 && w)
                                           ? std::optional<double>(w->flops / *r.meanS / 1e9)
                                           : std::nullopt;
  const QString status = QString::fromUtf8(unity::tuner::toString(r.status));
  if (role == kSortRole) {
    // Missing numbers sort last in ascending order; a column not listed
    // here sorts by what it shows.
    const double none = std::numeric_limits<double>::infinity();
    switch (index.column()) {
    case Run:
      return QVariant::fromValue<qlonglong>(r.runId.value_or(0));
    case Measured:
      return r.meanS.value_or(none);
    case Predicted:
      return r.predictedS.value_or(none);
    case Gflops:
      return gflops.value_or(-1.0);
    case Build:
      return r.buildS;
    case Error:
      return r.errorMessage;
    default:
      break;
    }
  }
  if (role == Qt::DisplayRole || role == kSortRole) {
    switch (index.column()) {
    case Id:
      return QVariant::fromValue<qlonglong>(r.id);
    case Workload:
      return workloadName(r.workloadId);
    case Target:
      return targetText(r.targetId);
    case Run:
      return r.runId ? QString::number(*r.runId) : tr("none");
    case Trial:
      return QVariant::fromValue<qlonglong>(r.trial);
    case Status:
      return status;
    case Measured:
      return r.meanS ? formatSeconds(*r.meanS) : QString();
    case Predicted:
      return r.predictedS ? formatSeconds(*r.predictedS) : QString();
    case Gflops:
      return gflops ? QString::number(*gflops, 'f', 2) : QString();
    case Build:
      return QString::number(r.buildS, 'f', 2);
    case Node:
      return r.node;
    case Created:
      return r.createdAt;
    case Error:
      // One line in the table; the whole message is the tooltip and the
      // record pane's text.
      return r.errorKind.isEmpty() && r.errorMessage.isEmpty()
                 ? QString()
                 : QStringLiteral("%1: %2").arg(r.errorKind,
                                                r.errorMessage.section(QLatin1Char('\n'), 0, 0));
    default:
      return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    if (failed(r.status))
      return QStringLiteral("%1 (%2)\n%3").arg(status, r.errorKind, r.errorMessage);
    if (index.column() == Target)
      return targetText(r.targetId);
    return {};
  }
  if (role == Qt::ForegroundRole && failed(r.status) &&
      (index.column() == Status || index.column() == Error))
    return QBrush(Theme::instance()->colors().removed);
  if (role == Qt::TextAlignmentRole) {
    switch (index.column()) {
    case Id:
    case Run:
    case Trial:
    case Measured:
    case Predicted:
    case Gflops:
    case Build:
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
    }
  }
  return {};
}

QVariant TuningRecordsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
    return {};
  if (role == Qt::DisplayRole) {
    static const char* const names[ColumnCount] = {
        "Id",        "Workload", "Target",  "Run",  "Trial",   "Status", "Measured",
        "Predicted", "GFLOP/s",  "Build s", "Node", "Created", "Error"};
    return tr(names[section]);
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case Measured:
      return tr("Mean of the timed calls");
    case Predicted:
      return tr("Latency the cost model predicted when the search chose it");
    case Run:
      return tr("The tuning run that measured it (none: imported)");
    default:
      return {};
    }
  }
  return {};
}

TuningRecordsFilter::TuningRecordsFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(TuningRecordsModel::kSortRole);
}

void TuningRecordsFilter::setWorkload(std::optional<int64_t> id) {
  workload_ = id;
  invalidateFilter();
}

void TuningRecordsFilter::setTarget(std::optional<int64_t> id) {
  target_ = id;
  invalidateFilter();
}

void TuningRecordsFilter::setRun(std::optional<int64_t> id) {
  run_ = id;
  invalidateFilter();
}

void TuningRecordsFilter::setStatus(StatusFilter s) {
  status_ = s;
  exact_.reset();
  invalidateFilter();
}

void TuningRecordsFilter::setExactStatus(std::optional<RecordStatus> s) {
  exact_ = s;
  status_ = StatusFilter::Any;
  invalidateFilter();
}

bool TuningRecordsFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (sourceParent.isValid())
    return false;
  auto* m = qobject_cast<const TuningRecordsModel*>(sourceModel());
  if (!m || sourceRow < 0 || sourceRow >= m->rowCount())
    return false;
  const TuningRecordRow& r = m->row(sourceRow);
  if (workload_ && r.workloadId != *workload_)
    return false;
  if (target_ && r.targetId != *target_)
    return false;
  if (run_ && r.runId.value_or(0) != *run_)
    return false;
  if (exact_ && r.status != *exact_)
    return false;
  if (status_ == StatusFilter::Ok && failed(r.status))
    return false;
  if (status_ == StatusFilter::Failed && !failed(r.status))
    return false;
  return true;
}

bool TuningRecordsFilter::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(sortRole()), b = right.data(sortRole());
  if (a.typeId() == QMetaType::Double || b.typeId() == QMetaType::Double)
    return a.toDouble() < b.toDouble();
  if (a.typeId() == QMetaType::LongLong || b.typeId() == QMetaType::LongLong)
    return a.toLongLong() < b.toLongLong();
  return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
}

} // namespace lowerscope
