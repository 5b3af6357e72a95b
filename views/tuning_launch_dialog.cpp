// The Tune... dialog (see tuning_launch_dialog.h).
#include "views/tuning_launch_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

#include "engine/build.h"
#include "tuner/database.h"
#include "tuner/task.h"
#include "views/tuning_models.h"

namespace lowerscope {

std::vector<TuningTaskChoice> readTuningTaskChoices(const unity::ir::IRModule& model,
                                                    const QString& target,
                                                    const QString& database) {
  unity::BuildOptions o;
  o.target = target.isEmpty() ? std::string("llvm") : target.toStdString();
  o.record = false;
  std::vector<TuningTaskChoice> out;
  std::unique_ptr<unity::tuner::Database> db;
  if (!database.isEmpty() && QFileInfo::exists(database)) {
    try {
      db = std::make_unique<unity::tuner::Database>(database.toStdString(), 2000);
    } catch (const std::exception&) {
      // The dialog still lists the tasks; the launch reports the bad file.
    }
  }
  for (const unity::tuner::Task& t : unity::tuner::extractTasks(model, o)) {
    TuningTaskChoice c;
    c.name = QString::fromStdString(t.name);
    for (auto& f : t.functions)
      c.functions << QString::fromStdString(f);
    c.target = QString::fromStdString(t.target);
    c.subTarget = QString::fromStdString(t.subTarget);
    c.flops = t.flops;
    c.weight = t.weight;
    c.tunable = t.tunable;
    c.whyNotTunable = QString::fromStdString(t.whyNotTunable);
    c.symbolic = t.symbolic;
    if (db) {
      auto best = db->bestByHash(t.hash, t.target, 1);
      if (!best.empty() && best.front().meanS)
        c.currentSeconds = *best.front().meanS;
    }
    out.push_back(std::move(c));
  }
  return out;
}

QString TuningLaunchDialog::defaultDatabasePath(const QString& modelFile) {
  const QString stem = QFileInfo(modelFile).completeBaseName();
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
         QStringLiteral("/tuning/") + (stem.isEmpty() ? QStringLiteral("tuning") : stem) +
         QStringLiteral(".db");
}

namespace {
enum TaskColumn { Check, Name, SubTarget, Flops, Weight, Current, ColumnCount };
}

TuningLaunchDialog::TuningLaunchDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Tune the model's kernels"));
  setObjectName(QStringLiteral("tuningLaunchDialog"));
  auto* layout = new QVBoxLayout(this);

  auto* what = new QFormLayout;
  modelLabel_ = new QLabel(this);
  modelLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  what->addRow(tr("Model:"), modelLabel_);
  auto* targetRow = new QHBoxLayout;
  target_ = new QLineEdit(this);
  target_->setObjectName(QStringLiteral("tuningTarget"));
  target_->setToolTip(tr("Target string, or a composite one (\"fast: llvm; compat: c\")"));
  targetRow->addWidget(target_, 1);
  targetRow->addWidget(new QLabel(tr("Sub-target:"), this));
  subTarget_ = new QComboBox(this);
  subTarget_->setObjectName(QStringLiteral("tuningSubTarget"));
  subTarget_->setToolTip(tr("Check only the tasks of one sub-target"));
  targetRow->addWidget(subTarget_);
  what->addRow(tr("Target:"), targetRow);
  auto* dbRow = new QHBoxLayout;
  database_ = new QLineEdit(this);
  database_->setObjectName(QStringLiteral("tuningDatabase"));
  dbRow->addWidget(database_, 1);
  auto* browse = new QPushButton(tr("Choose..."), this);
  dbRow->addWidget(browse);
  what->addRow(tr("Database:"), dbRow);
  layout->addLayout(what);

  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setObjectName(QStringLiteral("tuningTaskChoices"));
  table_->setHorizontalHeaderLabels(
      {QString(), tr("Task"), tr("Sub-target"), tr("FLOPs"), tr("Weight"), tr("Current latency")});
  table_->verticalHeader()->hide();
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
  table_->setMinimumHeight(180);
  layout->addWidget(table_, 1);
  tasksNote_ = new QLabel(tr("Reading the model's tasks..."), this);
  tasksNote_->setWordWrap(true);
  layout->addWidget(tasksNote_);

  auto* budget = new QGroupBox(tr("Budget and measurement"), this);
  auto* form = new QFormLayout(budget);
  trials_ = new QSpinBox(budget);
  trials_->setObjectName(QStringLiteral("tuningTrials"));
  trials_->setRange(1, 1000000);
  trials_->setValue(64);
  trials_->setToolTip(tr("Candidates measured in the run, over all tasks"));
  form->addRow(tr("Trials:"), trials_);
  budget_ = new QDoubleSpinBox(budget);
  budget_->setObjectName(QStringLiteral("tuningTimeBudget"));
  budget_->setRange(0, 1e7);
  budget_->setDecimals(0);
  budget_->setSuffix(tr(" s"));
  budget_->setSpecialValueText(tr("no limit"));
  form->addRow(tr("Time budget:"), budget_);
  threads_ = new QSpinBox(budget);
  threads_->setObjectName(QStringLiteral("tuningThreads"));
  threads_->setRange(0, 1024);
  threads_->setSpecialValueText(tr("the target's"));
  threads_->setToolTip(
      tr("Kernel threads: sets the target's -num-cores (records are keyed by target)"));
  form->addRow(tr("Threads:"), threads_);
  timeout_ = new QDoubleSpinBox(budget);
  timeout_->setObjectName(QStringLiteral("tuningTimeout"));
  timeout_->setRange(0.1, 86400);
  timeout_->setValue(10);
  timeout_->setSuffix(tr(" s"));
  timeout_->setToolTip(tr("Seconds per candidate before it is killed"));
  form->addRow(tr("Timeout per candidate:"), timeout_);
  symbolicSize_ = new QSpinBox(budget);
  symbolicSize_->setObjectName(QStringLiteral("tuningSymbolicSize"));
  symbolicSize_->setRange(1, 1 << 20);
  symbolicSize_->setValue(int(unity::tuner::kDefaultSymbolicExtent));
  symbolicSize_->setEnabled(false); // until a listed task has symbolic extents
  symbolicSize_->setToolTip(
      tr("Tasks with a symbolic batch or sequence length are measured with it at this size; "
         "the schedule found serves every size"));
  form->addRow(tr("Size of symbolic extents:"), symbolicSize_);
  layout->addWidget(budget);

  // Where candidates are measured: its own box, so a cluster runner adds a
  // choice (and its settings) here without touching the rest.
  auto* runnerBox = new QGroupBox(tr("Runner"), this);
  runnerBox->setObjectName(QStringLiteral("tuningRunnerBox"));
  auto* runnerLayout = new QFormLayout(runnerBox);
  runner_ = new QComboBox(runnerBox);
  runner_->setObjectName(QStringLiteral("tuningRunner"));
  runner_->addItem(tr("This machine (one isolated process per candidate)"),
                   QStringLiteral("local"));
  // Slurm: offered when sbatch is on the PATH (the machine is a submit
  // host); its settings are enabled only while it is chosen.
  const bool haveSbatch = !QStandardPaths::findExecutable(QStringLiteral("sbatch")).isEmpty();
  runner_->addItem(tr("Slurm cluster (job arrays, results streamed back)"),
                   QStringLiteral("slurm"));
  if (!haveSbatch) {
    auto* model = qobject_cast<QStandardItemModel*>(runner_->model());
    if (QStandardItem* item = model ? model->item(1) : nullptr) {
      item->setEnabled(false);
      item->setToolTip(tr("sbatch is not on the PATH: this machine cannot submit Slurm jobs"));
    }
  }
  runnerLayout->addRow(tr("Measure on:"), runner_);
  partitions_ = new QLineEdit(runnerBox);
  partitions_->setObjectName(QStringLiteral("tuningPartitions"));
  partitions_->setPlaceholderText(tr("the cluster's default, or e.g. main, m7=boards"));
  partitions_->setToolTip(tr("A partition for every task, and SUBTARGET=PARTITION for the tasks "
                             "of one sub-target (comma-separated)"));
  runnerLayout->addRow(tr("Partitions:"), partitions_);
  maxJobs_ = new QSpinBox(runnerBox);
  maxJobs_->setObjectName(QStringLiteral("tuningMaxJobs"));
  maxJobs_->setRange(0, 100000);
  maxJobs_->setSpecialValueText(tr("tune's default"));
  maxJobs_->setToolTip(tr("Array tasks running at once"));
  runnerLayout->addRow(tr("Jobs at once:"), maxJobs_);
  jobTime_ = new QLineEdit(runnerBox);
  jobTime_->setObjectName(QStringLiteral("tuningJobTime"));
  jobTime_->setPlaceholderText(tr("tune's default, or e.g. 10:00"));
  runnerLayout->addRow(tr("Time per job:"), jobTime_);
  spool_ = new QLineEdit(runnerBox);
  spool_->setObjectName(QStringLiteral("tuningSpool"));
  spool_->setPlaceholderText(tr("next to the database (must be shared with the nodes)"));
  runnerLayout->addRow(tr("Spool folder:"), spool_);
  auto slurmChosen = [this] {
    bool on = runner_->currentData().toString() == QLatin1String("slurm");
    for (QWidget* w : {static_cast<QWidget*>(partitions_), static_cast<QWidget*>(maxJobs_),
                       static_cast<QWidget*>(jobTime_), static_cast<QWidget*>(spool_)})
      w->setEnabled(on);
  };
  connect(runner_, &QComboBox::currentIndexChanged, this, slurmChosen);
  slurmChosen();
  layout->addWidget(runnerBox);

  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Start tuning"));
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QPushButton::clicked, this, &TuningLaunchDialog::browseDatabase);
  connect(target_, &QLineEdit::editingFinished, this, [this] {
    const bool composite = target_->text().contains(QLatin1Char(':'));
    threads_->setEnabled(!composite); // each sub-target gives its own -num-cores
    if (composite)
      threads_->setValue(0);
    Q_EMIT tasksWanted(target(), database());
  });
  connect(database_, &QLineEdit::editingFinished, this,
          [this] { Q_EMIT tasksWanted(target(), database()); });
  connect(subTarget_, &QComboBox::activated, this,
          [this](int i) { checkSubTarget(subTarget_->itemData(i).toString()); });
  connect(table_, &QTableWidget::itemChanged, this, [this] { updateStart(); });
  resize(760, 640);
  updateStart();
}

void TuningLaunchDialog::setModel(const QString& modelFile, const QString& target) {
  model_ = modelFile;
  modelLabel_->setText(modelFile);
  target_->setText(target.isEmpty() ? QStringLiteral("llvm") : target);
  const bool composite = target_->text().contains(QLatin1Char(':'));
  threads_->setEnabled(!composite);
}

void TuningLaunchDialog::setDatabase(const QString& path) { database_->setText(path); }
QString TuningLaunchDialog::database() const { return database_->text().trimmed(); }
QString TuningLaunchDialog::target() const { return target_->text().trimmed(); }

void TuningLaunchDialog::setTasks(const std::vector<TuningTaskChoice>& tasks) {
  tasks_ = tasks;
  QSignalBlocker block(table_);
  table_->setRowCount(int(tasks.size()));
  std::set<QString> subs;
  int tunable = 0;
  bool symbolic = false;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TuningTaskChoice& t = tasks[i];
    const int r = int(i);
    auto* check = new QTableWidgetItem;
    check->setFlags(t.tunable ? Qt::ItemIsUserCheckable | Qt::ItemIsEnabled : Qt::NoItemFlags);
    check->setCheckState(t.tunable ? Qt::Checked : Qt::Unchecked);
    table_->setItem(r, Check, check);
    auto* name = new QTableWidgetItem(t.name);
    name->setToolTip(t.tunable ? t.functions.join(QStringLiteral(", "))
                               : tr("not tuned: %1").arg(t.whyNotTunable));
    if (!t.tunable)
      name->setText(tr("%1 (not tuned: %2)").arg(t.name, t.whyNotTunable));
    table_->setItem(r, Name, name);
    table_->setItem(
        r, SubTarget,
        new QTableWidgetItem(t.subTarget.isEmpty() ? QStringLiteral("-") : t.subTarget));
    auto right = [](const QString& text) {
      auto* item = new QTableWidgetItem(text);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      return item;
    };
    table_->setItem(r, Flops, right(formatFlops(t.flops)));
    table_->setItem(r, Weight, right(QString::number(t.weight)));
    table_->setItem(
        r, Current,
        right(t.currentSeconds > 0 ? formatSeconds(t.currentSeconds) : tr("not measured")));
    table_->item(r, Current)
        ->setToolTip(t.currentSeconds > 0
                         ? tr("best valid record of this workload and target in the database")
                         : tr("the database has no valid record of this task yet"));
    if (!t.subTarget.isEmpty())
      subs.insert(t.subTarget);
    tunable += t.tunable;
    symbolic = symbolic || (t.tunable && t.symbolic);
  }
  symbolicSize_->setEnabled(symbolic);
  subTarget_->clear();
  subTarget_->addItem(tr("all"), QString());
  for (const QString& s : subs)
    subTarget_->addItem(s, s);
  subTarget_->setEnabled(!subs.empty());
  tasksNote_->setText(tr("%n task(s), %1 tunable; the run spends its trials where the model's "
                         "latency is expected to drop most.",
                         nullptr, int(tasks.size()))
                          .arg(tunable));
  updateStart();
}

void TuningLaunchDialog::setTasksError(const QString& error) {
  tasks_.clear();
  table_->setRowCount(0);
  tasksNote_->setText(tr("The tasks cannot be read: %1").arg(error));
  updateStart();
}

void TuningLaunchDialog::checkSubTarget(const QString& subTarget) {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (tasks_[size_t(r)].tunable)
      setTaskChecked(r, subTarget.isEmpty() || tasks_[size_t(r)].subTarget == subTarget);
}

void TuningLaunchDialog::setTaskChecked(int row, bool on) {
  if (QTableWidgetItem* item = table_->item(row, Check))
    if (item->flags() & Qt::ItemIsUserCheckable)
      item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
}

int TuningLaunchDialog::taskCount() const { return int(tasks_.size()); }

void TuningLaunchDialog::setTrials(int n) { trials_->setValue(n); }
void TuningLaunchDialog::setTimeBudget(double s) { budget_->setValue(s); }
void TuningLaunchDialog::setThreads(int n) { threads_->setValue(n); }
void TuningLaunchDialog::setTimeout(double s) { timeout_->setValue(s); }
void TuningLaunchDialog::setSymbolicSize(int n) { symbolicSize_->setValue(n); }
void TuningLaunchDialog::setRunner(const QString& id, const QString& partitions) {
  int i = runner_->findData(id);
  if (i >= 0)
    runner_->setCurrentIndex(i);
  partitions_->setText(partitions);
}

TuningLaunch TuningLaunchDialog::launch() const {
  TuningLaunch l;
  l.model = model_;
  l.target = target();
  l.database = database();
  bool all = true;
  for (int r = 0; r < table_->rowCount(); ++r) {
    if (!tasks_[size_t(r)].tunable)
      continue;
    if (table_->item(r, Check)->checkState() == Qt::Checked)
      l.functions << tasks_[size_t(r)].functions;
    else
      all = false;
  }
  if (all)
    l.functions.clear(); // every task: no --tasks
  l.trials = trials_->value();
  l.timeBudgetSeconds = budget_->value();
  l.threads = threads_->isEnabled() ? threads_->value() : 0;
  l.timeoutSeconds = timeout_->value();
  if (symbolicSize_->isEnabled())
    l.symbolicSize = symbolicSize_->value();
  l.runner.id = runner_->currentData().toString();
  if (l.runner.id == QLatin1String("slurm")) {
    for (const QString& p : partitions_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
      if (!p.trimmed().isEmpty())
        l.runner.partitions << p.trimmed();
    l.runner.maxJobs = maxJobs_->value();
    l.runner.jobTime = jobTime_->text().trimmed();
    l.runner.spool = spool_->text().trimmed();
  }
  return l;
}

void TuningLaunchDialog::updateStart() {
  int checked = 0;
  for (int r = 0; r < table_->rowCount(); ++r)
    if (QTableWidgetItem* item = table_->item(r, Check))
      checked += item->checkState() == Qt::Checked;
  buttons_->button(QDialogButtonBox::Ok)
      ->setEnabled(checked > 0 && !database().isEmpty() && !model_.isEmpty());
}

void TuningLaunchDialog::browseDatabase() {
  QFileDialog dialog(this, tr("Tuning database"), QFileInfo(database()).absolutePath(),
                     tr("Tuning databases (*.db);;All files (*)"));
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setOption(QFileDialog::DontConfirmOverwrite); // an existing file is added to
  dialog.setDefaultSuffix(QStringLiteral("db"));
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
    return;
  database_->setText(dialog.selectedFiles().first());
  Q_EMIT tasksWanted(target(), database());
}

} // namespace lowerscope
