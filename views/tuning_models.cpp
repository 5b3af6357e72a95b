// The tuning views' table models (see tuning_models.h).
#include "views/tuning_models.h"

#include <QDateTime>
#include <QFileInfo>

#include <algorithm>

namespace lowerscope {

using unity::tuner::RunStatus;

QString formatSeconds(double s) {
  if (s <= 0)
    return QStringLiteral("-");
  if (s < 1e-3)
    return QStringLiteral("%1 us").arg(s * 1e6, 0, 'f', 1);
  if (s < 1)
    return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 3);
  return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

QString formatFlops(double f) {
  if (f >= 1e9)
    return QStringLiteral("%1 G").arg(f * 1e-9, 0, 'f', 2);
  if (f >= 1e6)
    return QStringLiteral("%1 M").arg(f * 1e-6, 0, 'f', 2);
  if (f >= 1e3)
    return QStringLiteral("%1 k").arg(f * 1e-3, 0, 'f', 1);
  return QString::number(qint64(f));
}

QString formatRunner(const nlohmann::json& r) {
  if (r.is_string())
    return QString::fromStdString(r.get<std::string>());
  if (!r.is_object())
    return QString::fromStdString(r.dump());
  QString kind = QString::fromStdString(r.value("kind", std::string("local")));
  QStringList where;
  if (r.contains("partition") && r["partition"].is_string() &&
      !r["partition"].get<std::string>().empty())
    where << QStringLiteral("partition %1").arg(QString::fromStdString(r["partition"]));
  if (r.contains("sub_target_partitions") && r["sub_target_partitions"].is_object())
    for (auto& [sub, part] : r["sub_target_partitions"].items())
      if (part.is_string())
        where << QStringLiteral("%1=%2").arg(QString::fromStdString(sub),
                                             QString::fromStdString(part.get<std::string>()));
  return where.isEmpty() || kind == QLatin1String("local")
             ? kind
             : QStringLiteral("%1 (%2)").arg(kind, where.join(QStringLiteral(", ")));
}

QString formatDuration(double seconds) {
  const qint64 t = qint64(std::max(0.0, seconds) + 0.5);
  if (t >= 3600)
    return QStringLiteral("%1h%2m").arg(t / 3600).arg((t % 3600) / 60, 2, 10, QLatin1Char('0'));
  if (t >= 60)
    return QStringLiteral("%1m%2s").arg(t / 60).arg(t % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1s").arg(t);
}

// ---- tasks

TuningTaskModel::TuningTaskModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuningTaskModel::setSnapshot(const TuningSnapshotPtr& snapshot) {
  std::vector<TuningTaskRow> rows = snapshot ? snapshot->tasks : std::vector<TuningTaskRow>{};
  if (rows.size() == rows_.size()) {
    rows_ = std::move(rows);
    if (!rows_.empty())
      Q_EMIT dataChanged(index(0, 0), index(int(rows_.size()) - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

const TuningTaskRow* TuningTaskModel::row(int r) const {
  return r >= 0 && r < int(rows_.size()) ? &rows_[size_t(r)] : nullptr;
}

int TuningTaskModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int TuningTaskModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningTaskModel::data(const QModelIndex& index, int role) const {
  const TuningTaskRow* t = index.isValid() ? row(index.row()) : nullptr;
  if (!t)
    return {};
  if (role == Qt::TextAlignmentRole)
    return index.column() <= SubTarget ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    QString tip = t->name + QStringLiteral("\ntarget: ") + t->target;
    if (!t->tunable)
      tip += QStringLiteral("\nnot tuned: ") + t->whyNotTunable;
    if (t->firstSeconds > 0 && t->bestSeconds > 0)
      tip += QStringLiteral("\nfirst valid candidate %1, best %2 (%3x)")
                 .arg(formatSeconds(t->firstSeconds), formatSeconds(t->bestSeconds))
                 .arg(t->firstSeconds / t->bestSeconds, 0, 'f', 2);
    return tip;
  }
  if (role == SortRole) {
    switch (index.column()) {
    case Task:
      return t->name;
    case SubTarget:
      return t->subTarget;
    case Flops:
      return t->flops;
    case Weight:
      return t->weight;
    case GFlops:
      return t->gflops();
    case Latency:
      return t->bestSeconds;
    case Trials:
      return t->trials;
    case Errors:
      return t->errors;
    default:
      return {};
    }
  }
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case Task:
    return t->name;
  case SubTarget:
    return t->subTarget.isEmpty() ? QStringLiteral("-") : t->subTarget;
  case Flops:
    return formatFlops(t->flops);
  case Weight:
    return t->weight < 0 ? QStringLiteral("?") : QString::number(t->weight);
  case GFlops:
    if (!t->tunable)
      return QStringLiteral("not tuned");
    return t->bestSeconds > 0 ? QString::number(t->gflops(), 'f', 1) : QStringLiteral("-");
  case Latency:
    return formatSeconds(t->bestSeconds);
  case Trials:
    return t->trials;
  case Errors:
    return t->errors;
  default:
    return {};
  }
}

namespace {
/// The header of a table `model` whose columns are titled `titles`, each
/// translated in the model's context; Qt's default off the horizontal
/// display role (row numbers).
template <int N>
QVariant columnTitle(const QAbstractTableModel& model, const char* const (&titles)[N], int section,
                     Qt::Orientation o, int role) {
  if (o != Qt::Horizontal || role != Qt::DisplayRole)
    return model.QAbstractTableModel::headerData(section, o, role);
  return section >= 0 && section < N ? QVariant(model.metaObject()->tr(titles[section], nullptr))
                                     : QVariant();
}
} // namespace

QVariant TuningTaskModel::headerData(int section, Qt::Orientation o, int role) const {
  static const char* const titles[ColumnCount] = {
      QT_TR_NOOP("Task"),   QT_TR_NOOP("Sub-target"),   QT_TR_NOOP("FLOPs"),
      QT_TR_NOOP("Weight"), QT_TR_NOOP("Best GFLOP/s"), QT_TR_NOOP("Latency"),
      QT_TR_NOOP("Trials"), QT_TR_NOOP("Errors")};
  return columnTitle(*this, titles, section, o, role);
}

// ---- runs

TuningRunsModel::TuningRunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuningRunsModel::setSnapshot(const TuningSnapshotPtr& snapshot) {
  std::vector<unity::tuner::Run> runs =
      snapshot ? snapshot->runs : std::vector<unity::tuner::Run>{};
  std::reverse(runs.begin(), runs.end());
  std::vector<unity::tuner::ProcessLiveness> liveness =
      snapshot ? snapshot->runLiveness : std::vector<unity::tuner::ProcessLiveness>{};
  liveness.resize(runs.size(), unity::tuner::ProcessLiveness::Unknown);
  std::reverse(liveness.begin(), liveness.end());
  bool sameIds = runs.size() == runs_.size();
  for (size_t i = 0; sameIds && i < runs.size(); ++i)
    sameIds = runs[i].id == runs_[i].id;
  if (sameIds) {
    runs_ = std::move(runs);
    liveness_ = std::move(liveness);
    if (!runs_.empty())
      Q_EMIT dataChanged(index(0, 0), index(int(runs_.size()) - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  runs_ = std::move(runs);
  liveness_ = std::move(liveness);
  endResetModel();
}

const unity::tuner::Run* TuningRunsModel::run(int r) const {
  return r >= 0 && r < int(runs_.size()) ? &runs_[size_t(r)] : nullptr;
}

int TuningRunsModel::rowOf(int64_t id) const {
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].id == id)
      return int(i);
  return -1;
}

int TuningRunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(runs_.size());
}

int TuningRunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

namespace {
QString jsonText(const nlohmann::json& c, const char* key) {
  if (!c.is_object() || !c.contains(key))
    return {};
  const auto& v = c[key];
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}
} // namespace

QVariant TuningRunsModel::data(const QModelIndex& index, int role) const {
  const unity::tuner::Run* r = index.isValid() ? run(index.row()) : nullptr;
  if (!r)
    return {};
  if (role == RunIdRole)
    return qint64(r->id);
  const nlohmann::json& c = r->config;
  if (role == Qt::ToolTipRole)
    return QString::fromStdString(c.is_object() ? [&] {
      nlohmann::json shown = c;
      shown.erase("task_info"); // long; the run view shows the tasks
      return shown.dump(2);
    }()
                                                : c.dump());
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case Run:
    return qint64(r->id);
  case Status: {
    const size_t i = size_t(index.row());
    return runStateText(*r, i < liveness_.size() ? liveness_[i]
                                                 : unity::tuner::ProcessLiveness::Unknown);
  }
  case Started: {
    QDateTime t = QDateTime::fromString(QString::fromStdString(r->startedAt), Qt::ISODateWithMs);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                       : QString::fromStdString(r->startedAt);
  }
  case Duration: {
    if (r->endedAt.empty())
      return QStringLiteral("-");
    QDateTime a = QDateTime::fromString(QString::fromStdString(r->startedAt), Qt::ISODateWithMs);
    QDateTime b = QDateTime::fromString(QString::fromStdString(r->endedAt), Qt::ISODateWithMs);
    return a.isValid() && b.isValid() ? formatDuration(double(a.msecsTo(b)) / 1000.0)
                                      : QStringLiteral("?");
  }
  case Trials:
    return QStringLiteral("%1 / %2").arg(r->trialsDone).arg(r->trialsPlanned);
  case Target:
    return jsonText(c, "target");
  case Model:
    return QFileInfo(jsonText(c, "model")).fileName();
  case Config: {
    QStringList parts;
    if (c.is_object()) {
      if (c.value("time_budget_s", 0.0) > 0)
        parts << tr("budget %1").arg(formatDuration(c.value("time_budget_s", 0.0)));
      if (c.contains("timeout_s"))
        parts << tr("timeout %1 s").arg(jsonText(c, "timeout_s"));
      if (c.contains("tasks") && c["tasks"].is_array() && !c["tasks"].empty())
        parts << tr("%n task(s) chosen", nullptr, int(c["tasks"].size()));
      if (c.contains("runner"))
        parts << tr("runner %1").arg(formatRunner(c["runner"]));
    }
    return parts.join(QStringLiteral(", "));
  }
  default:
    return {};
  }
}

QVariant TuningRunsModel::headerData(int section, Qt::Orientation o, int role) const {
  static const char* const titles[ColumnCount] = {
      QT_TR_NOOP("Run"),      QT_TR_NOOP("Status"),       QT_TR_NOOP("Started"),
      QT_TR_NOOP("Duration"), QT_TR_NOOP("Trials"),       QT_TR_NOOP("Target"),
      QT_TR_NOOP("Model"),    QT_TR_NOOP("Configuration")};
  return columnTitle(*this, titles, section, o, role);
}

} // namespace lowerscope
