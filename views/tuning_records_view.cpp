// The records browser (see tuning_records_view.h).
#include "views/tuning_records_view.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>
#include <unordered_set>

#include "engine/ir/module.h"
#include "engine/schedule/schedule.h"
#include "engine/target/target.h"
#include "engine/text/printer.h"
#include "engine/transform/default_schedule.h"
#include "tuner/database.h"
#include "tuner/space.h"
#include "tuner/task.h"
#include "views/aligned_diff.h"
#include "views/background_job.h"
#include "views/graph_heat.h"
#include "views/theme.h"

namespace lowerscope {

namespace {

std::string printKernel(const unity::ir::PrimFuncRef& f) {
  return unity::text::printModule(unity::ir::makeModule({{"main", f}}));
}

/// Spearman's rank correlation of two equally long lists (ties get their
/// mean rank); 0 for fewer than two points.
double rankCorrelation(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2)
    return 0;
  auto ranks = [n](const std::vector<double>& v) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(n);
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && v[order[j + 1]] == v[order[i]])
        ++j;
      for (size_t k = i; k <= j; ++k)
        r[order[k]] = (double(i) + double(j)) / 2;
      i = j + 1;
    }
    return r;
  };
  const auto rx = ranks(x), ry = ranks(y);
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

} // namespace

// ---------------------------------------------------------------- TextDiffPane

TextDiffPane::TextDiffPane(QWidget* parent)
    : QWidget(parent), leftTitle_(new QLabel(this)), rightTitle_(new QLabel(this)),
      left_(newMonoEditor(this, "diffLeft")), right_(newMonoEditor(this, "diffRight")) {
  auto* grid = new QHBoxLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Horizontal, this);
  for (auto [title, edit] : {std::pair{leftTitle_, left_}, std::pair{rightTitle_, right_}}) {
    auto* side = new QWidget(split);
    auto* v = new QVBoxLayout(side);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    title->setTextFormat(Qt::PlainText);
    v->addWidget(title);
    v->addWidget(edit, 1);
    split->addWidget(side);
  }
  grid->addWidget(split);
  // The two sides are aligned line by line: scroll them together.
  connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, right_->verticalScrollBar(),
          &QScrollBar::setValue);
  connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, left_->verticalScrollBar(),
          &QScrollBar::setValue);
}

void TextDiffPane::setTitles(const QString& left, const QString& right) {
  leftTitle_->setText(left);
  rightTitle_->setText(right);
}

int TextDiffPane::setTexts(const QString& leftText, const QString& rightText) {
  const AlignedDiff diff = alignLineDiff(leftText.toStdString(), rightText.toStdString());
  deleted_ = static_cast<int>(diff.deletedLines.size());
  inserted_ = static_cast<int>(diff.insertedLines.size());
  left_->setPlainText(diff.left);
  right_->setPlainText(diff.right);
  const ThemeColors& colors = Theme::instance()->colors();
  markLines(left_->document(), diff.deletedLines, colors.deletedLine);
  markLines(right_->document(), diff.insertedLines, colors.insertedLine);
  return deleted_ + inserted_;
}

void TextDiffPane::setMessage(const QString& text) {
  deleted_ = inserted_ = 0;
  left_->setPlainText(text);
  right_->clear();
  leftTitle_->clear();
  rightTitle_->clear();
}

// ---------------------------------------------------------------- detail

RecordDetail loadRecordDetail(const QString& path, int64_t id) {
  RecordDetail d;
  d.id = id;
  try {
    unity::tuner::Database db(path.toStdString(), 2000);
    const auto r = db.record(id);
    if (!r) {
      d.error = QObject::tr("record %1 is not in %2").arg(id).arg(path);
      return d;
    }
    std::optional<unity::tuner::Workload> w;
    for (auto& x : db.workloads())
      if (x.id == r->workloadId)
        w = x;
    std::string target;
    for (auto& t : db.targets())
      if (t.id == r->targetId)
        target = t.text;
    QStringList lines;
    lines << QObject::tr("record %1  trial %2  run %3  status %4")
                 .arg(r->id)
                 .arg(r->trial)
                 .arg(r->runId ? QString::number(*r->runId) : QObject::tr("none"))
                 .arg(QString::fromUtf8(unity::tuner::toString(r->status)));
    lines << QObject::tr("target    %1").arg(QString::fromStdString(target));
    if (w)
      lines << QObject::tr("workload  %1  (%2 FLOPs)")
                   .arg(QString::fromStdString(w->hash))
                   .arg(w->flops, 0, 'g', 4);
    if (r->meanS) {
      QString m = QObject::tr("measured  %1 (mean of %2 calls)")
                      .arg(formatLatency(*r->meanS))
                      .arg(r->times.size());
      if (w && w->flops > 0 && *r->meanS > 0)
        m += QObject::tr(", %1 GFLOP/s").arg(w->flops / *r->meanS / 1e9, 0, 'f', 2);
      lines << m;
    }
    if (r->predictedS)
      lines << QObject::tr("predicted %1").arg(formatLatency(*r->predictedS));
    lines << QObject::tr("build     %1 s on %2 at %3")
                 .arg(r->buildS, 0, 'f', 3)
                 .arg(QString::fromStdString(r->node), QString::fromStdString(r->createdAt));
    if (r->status != unity::tuner::RecordStatus::Ok) {
      lines << QString() << QObject::tr("FAILED: %1").arg(QString::fromStdString(r->errorKind));
      lines << QString::fromStdString(r->errorMessage);
    }
    lines << QString()
          << QObject::tr("decisions %1").arg(QString::fromStdString(r->decisions.dump()));
    d.summary = lines.join('\n');

    const auto trace = unity::schedule::Trace::fromJson(r->trace);
    d.trace = QString::fromStdString(trace.str());
    if (!w) {
      d.error = QObject::tr("the record's workload %1 is not in the database").arg(r->workloadId);
      return d;
    }
    const unity::ir::PrimFuncRef f = unity::tuner::parseWorkload(w->text);
    try {
      const auto policy = unity::transform::schedulePolicyFor(unity::target::Target::parse(target));
      unity::tuner::DesignSpace space(policy);
      if (auto base = space.apply(f, space.basePoint()))
        d.defaultNest = QString::fromStdString(printKernel(base->scheduled));
    } catch (const std::exception& e) {
      d.error = QObject::tr("default schedule: %1").arg(QString::fromUtf8(e.what()));
    }
    try {
      d.recordNest =
          QString::fromStdString(printKernel(unity::schedule::Schedule::replay(f, trace).func()));
    } catch (const std::exception& e) {
      d.error = QObject::tr("the trace does not replay: %1").arg(QString::fromUtf8(e.what()));
    }
  } catch (const std::exception& e) {
    d.error = QString::fromUtf8(e.what());
  }
  return d;
}

// ---------------------------------------------------------------- the view

TuningRecordsView::TuningRecordsView(QWidget* parent)
    : QWidget(parent), model_(new TuningRecordsModel(this)), filter_(new TuningRecordsFilter(this)),
      pathLabel_(new QLabel(this)), countLabel_(new QLabel(this)), errorLabel_(new QLabel(this)),
      latencyLabel_(new QLabel(this)), workloadBox_(new QComboBox(this)),
      targetBox_(new QComboBox(this)), runBox_(new QComboBox(this)),
      statusBox_(new QComboBox(this)), openButton_(new QPushButton(tr("Open\u2026"), this)),
      reloadButton_(new QPushButton(tr("Reload"), this)),
      applyBest_(new QPushButton(tr("Apply best"), this)), table_(new QTableView(this)),
      tabs_(new QTabWidget(this)), recordText_(newMonoEditor(this, "recordText")),
      nest_(new TextDiffPane(this)), compare_(new TextDiffPane(this)),
      chartView_(new QChartView(this)), loadJob_(new BackgroundJob(this)),
      detailJob_(new BackgroundJob(this)) {
  setObjectName("tuningRecordsView");
  // Its parts need far more room than a docked panel may have: clip them
  // rather than widen the window (the dock can be enlarged or floated).
  setMinimumSize(240, 160);
  filter_->setSourceModel(model_);
  table_->setObjectName("recordsTable");
  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(TuningRecordsModel::Id, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setResizeContentsPrecision(kSizedRows);
  table_->setWordWrap(false);

  workloadBox_->setObjectName("recordsWorkloadFilter");
  targetBox_->setObjectName("recordsTargetFilter");
  runBox_->setObjectName("recordsRunFilter");
  statusBox_->setObjectName("recordsStatusFilter");
  for (QComboBox* b : {workloadBox_, targetBox_, runBox_}) {
    b->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    b->setMinimumContentsLength(8);
  }
  workloadBox_->setMinimumContentsLength(12);
  statusBox_->addItem(tr("any status"), -1);
  statusBox_->addItem(tr("ok"), -2);
  statusBox_->addItem(tr("failed"), -3);
  for (auto s : {unity::tuner::RecordStatus::BuildError, unity::tuner::RecordStatus::RunError,
                 unity::tuner::RecordStatus::Timeout, unity::tuner::RecordStatus::Crash,
                 unity::tuner::RecordStatus::WrongResult})
    statusBox_->addItem(QString::fromUtf8(unity::tuner::toString(s)), static_cast<int>(s));
  applyBest_->setObjectName("applyBestButton");
  applyBest_->setToolTip(tr("Rebuild the model with this database's best schedules "
                            "(ApplyTuningDatabase) and time it before and after"));
  openButton_->setToolTip(tr("Open any tuning database file"));
  latencyLabel_->setObjectName("modelLatencyLabel");
  latencyLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  errorLabel_->setObjectName("recordsError");
  errorLabel_->setWordWrap(true);
  errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  errorLabel_->hide();
  pathLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  pathLabel_->setText(tr("No database open: File \u25b8 Open Tuning Database\u2026"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(openButton_);
  bar->addWidget(reloadButton_);
  bar->addWidget(pathLabel_, 2);
  bar->addWidget(countLabel_, 1);
  bar->addWidget(applyBest_);
  // The dock may be narrow: labels give way before the buttons and filters.
  for (QLabel* l : {pathLabel_, countLabel_})
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  latencyLabel_->setWordWrap(true);
  latencyLabel_->hide(); // until Apply best has something to say
  auto* filters = new QHBoxLayout;
  filters->addWidget(new QLabel(tr("Workload"), this));
  filters->addWidget(workloadBox_);
  filters->addWidget(new QLabel(tr("Target"), this));
  filters->addWidget(targetBox_);
  filters->addWidget(new QLabel(tr("Run"), this));
  filters->addWidget(runBox_);
  filters->addWidget(statusBox_);
  filters->addStretch(1);

  auto* left = new QWidget(this);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addLayout(filters);
  lv->addWidget(errorLabel_);
  lv->addWidget(table_, 1);

  auto* recordPage = new QWidget(this);
  auto* rv = new QVBoxLayout(recordPage);
  rv->setContentsMargins(0, 0, 0, 0);
  rv->addWidget(recordText_);
  tabs_->setObjectName("recordsTabs");
  tabs_->addTab(recordPage, tr("Record"));
  tabs_->addTab(nest_, tr("Loop nest"));
  tabs_->addTab(compare_, tr("Compare"));
  tabs_->addTab(chartView_, tr("Cost model"));
  nest_->setObjectName("recordNestDiff");
  compare_->setObjectName("recordCompareDiff");
  nest_->setMessage(tr("Select a record to see its loop nest beside the default schedule's."));
  compare_->setMessage(tr("Select two records (Ctrl+click) to compare them side by side."));
  recordText_->setPlainText(tr("Select a record to see its numbers, its trace and, for a "
                               "failure, its whole error message."));
  chartView_->setObjectName("costModelChart");
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumSize(200, 160);

  auto* split = splitter_ = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("recordsSplitter");
  split->addWidget(left);
  split->addWidget(tabs_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({1000, 1000});

  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  v->addLayout(bar);
  v->addWidget(latencyLabel_);
  v->addWidget(split, 1);

  connect(openButton_, &QPushButton::clicked, this, &TuningRecordsView::showOpenDialog);
  connect(reloadButton_, &QPushButton::clicked, this, &TuningRecordsView::reload);
  connect(applyBest_, &QPushButton::clicked, this, [this] {
    if (!path_.isEmpty() && error_.isEmpty())
      Q_EMIT applyBestRequested(path_);
  });
  for (QComboBox* b : {workloadBox_, targetBox_, runBox_, statusBox_})
    connect(b, &QComboBox::currentIndexChanged, this, [this] { applyFilters(true); });
  connect(model_, &TuningRecordsModel::snapshotApplied, this, &TuningRecordsView::finishLoad);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &TuningRecordsView::onSelectionChanged);
  connect(filter_, &QAbstractItemModel::rowsInserted, this, &TuningRecordsView::updateCount);
  connect(loadJob_, &BackgroundJob::failed, this, [this](const QString& message) {
    TuningRecordsSnapshot s;
    s.path = path_;
    s.error = message;
    onLoaded(std::move(s));
  });
  connect(detailJob_, &BackgroundJob::finished, this, [this] {
    if (detailPending_) {
      detailPending_ = false;
      startDetail();
    }
  });
  connect(Theme::instance(), &Theme::changed, this, &TuningRecordsView::updateChart);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (chartStale_ && chartView_->isVisible())
      updateChart();
  });
  applyBest_->setEnabled(false);
  reloadButton_->setEnabled(false);
  updateChart();
  // A run writing to the file (the CLI's tune, another window) shows up:
  // a stat of the file and its WAL every 2 s, a reload when they changed.
  auto* poll = new QTimer(this);
  poll->setInterval(2000);
  connect(poll, &QTimer::timeout, this, &TuningRecordsView::pollFile);
  poll->start();
}

TuningRecordsView::~TuningRecordsView() = default;

QChart* TuningRecordsView::chart() const { return chartView_->chart(); }

void TuningRecordsView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (chartStale_ && chartView_->isVisible())
    updateChart();
}

bool TuningRecordsView::openDatabase(const QString& path) {
  if (loadJob_->isRunning())
    return false;
  path_ = path;
  pathLabel_->setText(tr("Loading %1\u2026").arg(QDir::toNativeSeparators(path)));
  signature_ = fileSignature(path); // before reading: a write during the read shows next time
  // Reading the file shown again: the reader leaves out the rows shown.
  std::vector<int64_t> shown;
  if (path == model_->snapshot().path && model_->snapshot().error.isEmpty() &&
      !model_->isApplying())
    shown = model_->shownIds();
  return loadJob_->start(
      [path, shown = std::move(shown)](JobContext&) { return loadTuningRecords(path, shown); },
      [this](TuningRecordsSnapshot s) { onLoaded(std::move(s)); });
}

bool TuningRecordsView::reload() { return path_.isEmpty() ? false : openDatabase(path_); }

bool TuningRecordsView::waitForLoad(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  auto left = [&] { return std::max(0, timeoutMs - int(clock.elapsed())); };
  while (true) {
    if (!loadJob_->wait(left()) || !detailJob_->wait(left()))
      return false;
    if (finishing_ || model_->isApplying()) { // rows still going in, a batch per turn
      QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
      if (left() == 0)
        return false;
      continue;
    }
    if (!loadJob_->isRunning() && !detailJob_->isRunning() && !detailPending_)
      return true;
    if (left() == 0)
      return false;
  }
}

void TuningRecordsView::showOpenDialog() {
  const QString start = path_.isEmpty() ? QString() : QFileInfo(path_).absolutePath();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Tuning Database"), start,
                                   tr("Tuning databases (*.db *.sqlite *.sqlite3);;All files (*)"));
  if (!path.isEmpty())
    openDatabase(path);
}

void TuningRecordsView::onLoaded(TuningRecordsSnapshot snap) {
  error_ = snap.error;
  sameFile_ = snap.path == model_->snapshot().path && error_.isEmpty();
  // The rows go in a batch per turn of the event loop (applySnapshot); a
  // reload that only found new records keeps the rows, the selection and
  // the detail panes as they are.
  finishing_ = true;
  inLoad_ = true;
  const bool kept = model_->applySnapshot(std::move(snap));
  inLoad_ = false;
  reselect_.clear();
  if (!kept) {
    reselect_ = sameFile_ ? wanted_ : std::vector<int64_t>{};
    wanted_.clear();
  }
  const auto& s = model_->snapshot();
  pathLabel_->setText(QDir::toNativeSeparators(s.path));
  pathLabel_->setToolTip(s.path);
  errorLabel_->setVisible(!error_.isEmpty());
  errorLabel_->setText(
      error_.isEmpty()
          ? QString()
          : tr("<b>Cannot read this tuning database.</b><br>%1").arg(error_.toHtmlEscaped()));
  errorLabel_->setTextFormat(Qt::RichText);
  errorLabel_->setStyleSheet(
      QStringLiteral("color: %1").arg(Theme::instance()->colors().removed.name()));
  applyBest_->setEnabled(error_.isEmpty());
  reloadButton_->setEnabled(true);
  fillFilters();
  applyFilters(false);
  if (!kept) {
    recordText_->setPlainText(error_.isEmpty() ? tr("Select a record.") : error_);
    nest_->setMessage(tr("Select a record to see its loop nest beside the default schedule's."));
    compare_->setMessage(tr("Select two records (Ctrl+click) to compare them side by side."));
  }
  if (!sameFile_) {
    // From the first batch, and from at most kSizedRows of it: sizing a
    // column reads every row it considers.
    table_->resizeColumnsToContents();
    for (int c : {TuningRecordsModel::Workload, TuningRecordsModel::Target})
      table_->setColumnWidth(c, std::min(table_->columnWidth(c), 220));
  }
  if (!model_->isApplying())
    finishLoad();
}

void TuningRecordsView::finishLoad() {
  if (!finishing_ || inLoad_)
    return;
  finishing_ = false;
  updateCount();
  updateChart();
  if (reselect_.size() == 1)
    selectRecord(reselect_[0]);
  else if (reselect_.size() == 2)
    compareRecords(reselect_[0], reselect_[1]);
  reselect_.clear();
  Q_EMIT loaded(error_.isEmpty(), error_);
}

QString TuningRecordsView::fileSignature(const QString& path) {
  // The main file changes at checkpoints, the WAL with every committed
  // record. A reader's own connection creates an empty WAL and deletes it
  // again: an empty or absent WAL counts the same.
  const QFileInfo db(path), wal(path + QStringLiteral("-wal"));
  QString sig = QStringLiteral("%1/%2").arg(db.size()).arg(db.lastModified().toMSecsSinceEpoch());
  if (wal.exists() && wal.size() > 0)
    sig += QStringLiteral("/%1/%2").arg(wal.size()).arg(wal.lastModified().toMSecsSinceEpoch());
  return sig;
}

void TuningRecordsView::pollFile() {
  if (path_.isEmpty() || loadJob_->isRunning() || finishing_ || !isVisible())
    return;
  if (fileSignature(path_) != signature_)
    reload();
}

void TuningRecordsView::fillFilters() {
  const auto& s = model_->snapshot();
  // A reload of the same file keeps the filters chosen.
  std::vector<QVariant> kept;
  for (QComboBox* b : {workloadBox_, targetBox_, runBox_})
    kept.push_back(sameFile_ ? b->currentData() : QVariant());
  for (QComboBox* b : {workloadBox_, targetBox_, runBox_})
    b->blockSignals(true);
  workloadBox_->clear();
  workloadBox_->addItem(tr("all workloads"), QVariant());
  for (const auto& w : s.workloads)
    workloadBox_->addItem(model_->workloadName(w.id), QVariant::fromValue<qlonglong>(w.id));
  targetBox_->clear();
  targetBox_->addItem(tr("all targets"), QVariant());
  for (const auto& t : s.targets)
    targetBox_->addItem(QString::fromStdString(t.text), QVariant::fromValue<qlonglong>(t.id));
  runBox_->clear();
  runBox_->addItem(tr("all runs"), QVariant());
  for (const auto& r : s.runs)
    runBox_->addItem(tr("run %1 (%2, %3/%4)")
                         .arg(r.id)
                         .arg(QString::fromUtf8(unity::tuner::toString(r.status)))
                         .arg(r.trialsDone)
                         .arg(r.trialsPlanned),
                     QVariant::fromValue<qlonglong>(r.id));
  runBox_->addItem(tr("no run (imported)"), QVariant::fromValue<qlonglong>(0));
  int i = 0;
  for (QComboBox* b : {workloadBox_, targetBox_, runBox_}) {
    const QVariant& v = kept[static_cast<size_t>(i++)];
    b->setCurrentIndex(v.isValid() ? std::max(0, b->findData(v)) : 0);
    b->blockSignals(false);
  }
}

void TuningRecordsView::applyFilters(bool redraw) {
  auto id = [](QComboBox* b) -> std::optional<int64_t> {
    const QVariant v = b->currentData();
    if (!v.isValid())
      return std::nullopt;
    return v.toLongLong();
  };
  using StatusFilter = TuningRecordsFilter::StatusFilter;
  const int s = statusBox_->currentData().toInt();
  const StatusFilter group = s == -2   ? StatusFilter::Ok
                             : s == -3 ? StatusFilter::Failed
                                       : StatusFilter::Any;
  std::optional<unity::tuner::RecordStatus> exact;
  if (s >= 0)
    exact = static_cast<unity::tuner::RecordStatus>(s);
  // One refilter (and sort) for all four, none when nothing changed.
  filter_->setFilters(id(workloadBox_), id(targetBox_), id(runBox_), group, exact);
  if (redraw) {
    updateCount();
    updateChart();
  }
}

void TuningRecordsView::updateCount() {
  int failed = 0;
  for (int r = 0; r < filter_->rowCount(); ++r)
    if (model_->row(filter_->mapToSource(filter_->index(r, 0)).row()).status !=
        unity::tuner::RecordStatus::Ok)
      ++failed;
  countLabel_->setText(tr("%1 of %2 records, %3 failed")
                           .arg(filter_->rowCount())
                           .arg(model_->rowCount())
                           .arg(failed));
}

void TuningRecordsView::updateChart() {
  std::vector<double> measured, predicted;
  for (int r = 0; r < filter_->rowCount(); ++r) {
    const TuningRecordRow& row = model_->row(filter_->mapToSource(filter_->index(r, 0)).row());
    if (row.status != unity::tuner::RecordStatus::Ok || !row.meanS || !row.predictedS ||
        *row.meanS <= 0 || *row.predictedS <= 0)
      continue;
    measured.push_back(*row.meanS * 1e6);
    predicted.push_back(*row.predictedS * 1e6);
  }
  scatterPoints_ = static_cast<int>(measured.size());
  // The plot is the costly part (a graphics item per marker): drawn only
  // while its tab can be seen, again when it is shown.
  if (!chartView_->isVisible()) {
    chartStale_ = true;
    return;
  }
  chartStale_ = false;
  const ThemeColors& colors = Theme::instance()->colors();
  auto* chart = new QChart;
  chart->setTheme(colors.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->legend()->hide();
  chart->setMargins(QMargins(4, 4, 4, 4));
  auto* points = new QScatterSeries;
  points->setMarkerSize(7);
  points->setColor(QColor(0x1c, 0x7e, 0xd6));
  points->setBorderColor(QColor(0x1c, 0x7e, 0xd6));
  double lo = 1, hi = 10;
  if (!measured.empty()) {
    lo = std::min(*std::min_element(measured.begin(), measured.end()),
                  *std::min_element(predicted.begin(), predicted.end()));
    hi = std::max(*std::max_element(measured.begin(), measured.end()),
                  *std::max_element(predicted.begin(), predicted.end()));
    lo /= 1.5;
    hi *= 1.5;
  }
  // One marker per cell of a grid over the log axes, the grid made coarser
  // until at most kMaxMarkers remain (scatterMarkers). Replaced in one call,
  // not appended point by point (a signal each).
  {
    QList<QPointF> shown;
    const double span = std::log(hi / lo);
    for (int grid = kPlotGrid;; grid /= 2) {
      shown.clear();
      std::unordered_set<int64_t> cells;
      auto cell = [&](double v) {
        return std::clamp<int64_t>(static_cast<int64_t>(std::log(v / lo) / span * grid), 0, grid);
      };
      for (size_t i = 0; i < measured.size(); ++i)
        if (cells.insert(cell(measured[i]) * (grid + 1) + cell(predicted[i])).second)
          shown.append(QPointF(measured[i], predicted[i]));
      if (shown.size() <= kMaxMarkers || grid < 16)
        break;
    }
    scatterMarkers_ = static_cast<int>(shown.size());
    points->replace(shown);
  }
  chart->addSeries(points);
  auto* diagonal = new QLineSeries;
  diagonal->append(lo, lo);
  diagonal->append(hi, hi);
  QPen pen(colors.edge, 1, Qt::DashLine);
  diagonal->setPen(pen);
  chart->addSeries(diagonal);
  auto* x = new QLogValueAxis;
  auto* y = new QLogValueAxis;
  x->setTitleText(tr("measured latency (\u00b5s)"));
  y->setTitleText(tr("predicted latency (\u00b5s)"));
  for (QLogValueAxis* a : {x, y}) {
    a->setBase(10);
    a->setRange(lo, hi);
    a->setLabelFormat(QStringLiteral("%g"));
    a->setMinorTickCount(-1);
  }
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : chart->series()) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  if (measured.empty())
    chart->setTitle(tr("Cost model: no record shown has a prediction (the first batch of a "
                       "task is chosen before the model is trained)"));
  else
    chart->setTitle(tr("Cost model: predicted vs measured, %1 records, rank correlation %2")
                        .arg(measured.size())
                        .arg(rankCorrelation(measured, predicted), 0, 'f', 2));
  QChart* old = chartView_->chart();
  chartView_->setChart(chart);
  delete old;
}

void TuningRecordsView::onSelectionChanged() {
  std::vector<int64_t> ids;
  for (const QModelIndex& i : table_->selectionModel()->selectedRows())
    ids.push_back(i.data(TuningRecordsModel::kIdRole).toLongLong());
  std::sort(ids.begin(), ids.end());
  if (ids.empty() || ids.size() > 2)
    return;
  wanted_ = ids;
  if (ids.size() == 2)
    tabs_->setCurrentWidget(compare_);
  if (detailJob_->isRunning()) {
    detailPending_ = true; // the newest selection wins once the job ends
    return;
  }
  startDetail();
}

void TuningRecordsView::startDetail() {
  const std::vector<int64_t> ids = wanted_;
  const QString path = path_;
  if (ids.empty())
    return;
  detailJob_->start(
      [ids, path](JobContext&) {
        std::vector<RecordDetail> out;
        for (int64_t id : ids)
          out.push_back(loadRecordDetail(path, id));
        return out;
      },
      [this](std::vector<RecordDetail> details) {
        if (details.size() == 1) {
          const RecordDetail& d = details.front();
          QString text = d.summary + QStringLiteral("\n\ntrace:\n") + d.trace;
          if (!d.error.isEmpty())
            text += QStringLiteral("\n\n") + d.error;
          recordText_->setPlainText(text);
          if (d.recordNest.isEmpty() || d.defaultNest.isEmpty()) {
            nest_->setMessage(d.error.isEmpty() ? tr("No loop nest for this record.") : d.error);
          } else {
            const int changed = nest_->setTexts(d.defaultNest, d.recordNest);
            nest_->setTitles(tr("default schedule"),
                             changed == 0
                                 ? tr("record %1: the default schedule itself").arg(d.id)
                                 : tr("record %1 (%2 lines differ)").arg(d.id).arg(changed));
          }
        } else if (details.size() == 2) {
          auto side = [](const RecordDetail& d) {
            QString t =
                d.summary + QStringLiteral("\n\ntrace:\n") + d.trace + QStringLiteral("\n\n");
            return t + (d.recordNest.isEmpty() ? d.error : d.recordNest);
          };
          const int changed = compare_->setTexts(side(details[0]), side(details[1]));
          compare_->setTitles(tr("record %1").arg(details[0].id),
                              tr("record %1 (%2 lines differ)").arg(details[1].id).arg(changed));
        }
      });
}

bool TuningRecordsView::selectRecord(int64_t id) {
  for (int r = 0; r < filter_->rowCount(); ++r) {
    const QModelIndex i = filter_->index(r, 0);
    if (i.data(TuningRecordsModel::kIdRole).toLongLong() != id)
      continue;
    table_->selectionModel()->select(i, QItemSelectionModel::ClearAndSelect |
                                            QItemSelectionModel::Rows);
    table_->scrollTo(i);
    return true;
  }
  return false;
}

bool TuningRecordsView::compareRecords(int64_t a, int64_t b) {
  QItemSelection sel;
  int found = 0;
  for (int r = 0; r < filter_->rowCount(); ++r) {
    const QModelIndex i = filter_->index(r, 0);
    const qlonglong id = i.data(TuningRecordsModel::kIdRole).toLongLong();
    if (id == a || id == b) {
      sel.select(i, filter_->index(r, TuningRecordsModel::ColumnCount - 1));
      ++found;
    }
  }
  if (found != 2)
    return false;
  table_->selectionModel()->select(sel,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  return true;
}

void TuningRecordsView::setWorkloadNames(const QHash<QString, QString>& byHash) {
  model_->setWorkloadNames(byHash);
  const int current = workloadBox_->currentIndex();
  fillFilters();
  workloadBox_->setCurrentIndex(std::max(0, current));
}

void TuningRecordsView::setLatencyText(const QString& text) {
  latencyLabel_->setText(text);
  latencyLabel_->setVisible(!text.isEmpty());
}

QString TuningRecordsView::latencyText() const { return latencyLabel_->text(); }

} // namespace lowerscope
