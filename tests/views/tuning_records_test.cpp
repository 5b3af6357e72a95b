// The records browser, the heat overlay and Apply best (issue #16), on
// tuning databases these tests fill through tuner::Database, failures
// included: the item models under QAbstractItemModelTester, sorting and
// filtering, damaged files, a record's trace and loop nest, the window's
// Apply best on a small model.
#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "engine/schedule/schedule.h"
#include "engine/te/workloads.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/default_schedule.h"
#include "tuner/database.h"
#include "tuner/space.h"
#include "tuner/task.h"
#include "views/graph_heat.h"
#include "views/graph_view.h"
#include "views/pass_timeline.h"
#include "views/session.h"
#include "views/tuning_records_model.h"
#include "views/tuning_records_view.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QItemSelectionModel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <set>

using namespace lowerscope;
using namespace unity;
using namespace unity::tuner;

namespace {

schedule::Trace tiled(const ir::PrimFuncRef& f, int64_t factor) {
  schedule::Schedule s(f);
  auto l = s.getLoops(s.getBlock("C"));
  auto i = s.split(l[0], {-1, factor});
  s.parallel(i[0]);
  return s.trace();
}

Record record(int64_t w, int64_t t, std::optional<int64_t> run, int64_t trial,
              const schedule::Trace& trace, std::optional<double> mean,
              std::optional<double> predicted) {
  Record r;
  r.workloadId = w;
  r.targetId = t;
  r.runId = run;
  r.trial = trial;
  r.trace = trace.toJson();
  if (mean)
    r.times = {*mean, *mean};
  r.predictedS = predicted;
  r.buildS = 0.1;
  r.node = "test-node";
  return r;
}

/// The test database (ids in insertion order):
///   1 big   T1 run1 ok   5 us  predicted 6 us  split 4
///   2 big   T1 run1 ok   3 us  predicted 2 us  split 2
///   3 big   T1 run1 timeout  "exceeded 20 s"
///   4 big   T1 run1 ok  40 us  predicted 30 us split 16
///   5 big   T2 none ok   9 us  (no prediction)
///   6 small T1 none build_error "trace does not replay: no loop 7"
///   7 small T1 run1 ok  10 us  predicted 12 us split 2
struct Fixture {
  QTemporaryDir dir;
  QString path;
  int64_t big = 0, small = 0, t1 = 0, t2 = 0, run = 0;

  Fixture() {
    path = dir.filePath("t.db");
    Database db(path.toStdString());
    auto fb = te::matmulPrimFunc(16, 32, 8), fs = te::matmulPrimFunc(8, 8, 8);
    big = db.addWorkload(workloadHash(fb), workloadText(fb), 8192);
    small = db.addWorkload(workloadHash(fs), workloadText(fs), 1024);
    t1 = db.addTarget("llvm -num-cores=1");
    t2 = db.addTarget("llvm -num-cores=2");
    run = db.startRun({{"trials", 10}}, 10);
    db.addRecord(record(big, t1, run, 0, tiled(fb, 4), 5e-6, 6e-6));
    db.addRecord(record(big, t1, run, 1, tiled(fb, 2), 3e-6, 2e-6));
    Record timeout = record(big, t1, run, 2, tiled(fb, 8), std::nullopt, 1e-6);
    timeout.status = RecordStatus::Timeout;
    timeout.errorKind = "timeout";
    timeout.errorMessage = "exceeded 20 s";
    db.addRecord(timeout);
    db.addRecord(record(big, t1, run, 3, tiled(fb, 16), 40e-6, 30e-6));
    db.addRecord(record(big, t2, std::nullopt, 0, tiled(fb, 8), 9e-6, std::nullopt));
    Record failed = record(small, t1, std::nullopt, 0, tiled(fs, 2), std::nullopt, std::nullopt);
    failed.status = RecordStatus::BuildError;
    failed.errorKind = "replay";
    failed.errorMessage = "trace does not replay: no loop 7\nsecond line of the message";
    db.addRecord(failed);
    db.addRecord(record(small, t1, run, 4, tiled(fs, 2), 10e-6, 12e-6));
    db.finishRun(run, RunStatus::Finished);
  }
};

/// The ids of `m`'s rows, top to bottom.
std::vector<int64_t> ids(const QAbstractItemModel& m) {
  std::vector<int64_t> out;
  for (int r = 0; r < m.rowCount(); ++r)
    out.push_back(m.index(r, 0).data(TuningRecordsModel::kIdRole).toLongLong());
  return out;
}

TEST(TuningRecords, ModelAndFilterPassTheModelTester) {
  Fixture f;
  TuningRecordsModel model;
  TuningRecordsFilter filter;
  QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(&filter, QAbstractItemModelTester::FailureReportingMode::Fatal);
  filter.setSourceModel(&model);
  model.setSnapshot(loadTuningRecords(f.path));
  filter.sort(TuningRecordsModel::Measured);
  filter.setWorkload(f.big);
  filter.setStatus(TuningRecordsFilter::StatusFilter::Failed);
  filter.setWorkload(std::nullopt);
  model.setSnapshot(loadTuningRecords(f.dir.filePath("missing.db")));
  model.setSnapshot(loadTuningRecords(f.path));
  EXPECT_EQ(model.rowCount(), 7);
}

TEST(TuningRecords, LoadsEveryRecordWithFailuresAndTheirMessages) {
  Fixture f;
  const TuningRecordsSnapshot s = loadTuningRecords(f.path);
  ASSERT_TRUE(s.error.isEmpty()) << s.error.toStdString();
  ASSERT_EQ(s.rows.size(), 7u);
  EXPECT_EQ(s.runs.size(), 1u);
  TuningRecordsModel model;
  model.setSnapshot(s);
  // Record 3 is the timeout, record 6 the build error (rows by id).
  EXPECT_EQ(model.index(2, TuningRecordsModel::Status).data().toString(), "timeout");
  EXPECT_TRUE(
      model.index(2, TuningRecordsModel::Error).data().toString().contains("exceeded 20 s"));
  EXPECT_EQ(model.index(5, TuningRecordsModel::Status).data().toString(), "build_error");
  // The table shows the first line; the tooltip the whole message.
  EXPECT_TRUE(model.index(5, TuningRecordsModel::Error).data().toString().contains("no loop 7"));
  EXPECT_FALSE(model.index(5, TuningRecordsModel::Error).data().toString().contains("second line"));
  EXPECT_TRUE(model.index(5, TuningRecordsModel::Error)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains("second line of the message"));
  EXPECT_EQ(model.index(0, TuningRecordsModel::Target).data().toString(), "llvm -num-cores=1");
  EXPECT_EQ(model.index(4, TuningRecordsModel::Run).data().toString(), "none");
  // 8192 flops in 5 us: 1.64 GFLOP/s.
  EXPECT_EQ(model.index(0, TuningRecordsModel::Gflops).data().toString(), "1.64");
}

TEST(TuningRecords, SortsLatenciesAsNumbersWithFailuresLast) {
  Fixture f;
  TuningRecordsModel model;
  TuningRecordsFilter filter;
  filter.setSourceModel(&model);
  model.setSnapshot(loadTuningRecords(f.path));
  filter.sort(TuningRecordsModel::Measured, Qt::AscendingOrder);
  // 3 us, 5 us, 9 us, 10 us, 40 us (40 after 9 although "40" < "9" as text),
  // then the two failures.
  const auto order = ids(filter);
  ASSERT_EQ(order.size(), 7u);
  EXPECT_EQ(std::vector<int64_t>(order.begin(), order.begin() + 5),
            (std::vector<int64_t>{2, 1, 5, 7, 4}));
  EXPECT_EQ(std::set<int64_t>(order.begin() + 5, order.end()), (std::set<int64_t>{3, 6}));
  filter.sort(TuningRecordsModel::Id, Qt::DescendingOrder);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{7, 6, 5, 4, 3, 2, 1}));
}

TEST(TuningRecords, FiltersByWorkloadTargetRunAndStatus) {
  Fixture f;
  TuningRecordsModel model;
  TuningRecordsFilter filter;
  filter.setSourceModel(&model);
  model.setSnapshot(loadTuningRecords(f.path));
  filter.sort(TuningRecordsModel::Id);
  filter.setWorkload(f.small);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{6, 7}));
  filter.setWorkload(f.big);
  filter.setTarget(f.t2);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{5}));
  filter.setTarget(std::nullopt);
  filter.setWorkload(std::nullopt);
  filter.setRun(f.run);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{1, 2, 3, 4, 7}));
  filter.setRun(0); // records without a run
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{5, 6}));
  filter.setRun(std::nullopt);
  filter.setStatus(TuningRecordsFilter::StatusFilter::Failed);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{3, 6}));
  filter.setStatus(TuningRecordsFilter::StatusFilter::Ok);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{1, 2, 4, 5, 7}));
  filter.setExactStatus(RecordStatus::Timeout);
  EXPECT_EQ(ids(filter), (std::vector<int64_t>{3}));
}

/// Sorted by `column`, every row's shown text is not after the next one's in
/// the locale's order (an order checked independently of lessThan).
void expectSortedByText(const QAbstractItemModel& m, int column) {
  for (int r = 0; r + 1 < m.rowCount(); ++r)
    EXPECT_LE(QString::localeAwareCompare(m.index(r, column).data().toString(),
                                          m.index(r + 1, column).data().toString()),
              0)
        << "rows " << r << " and " << r + 1 << " of column " << column;
}

TEST(TuningRecords, ABigSnapshotGoesInBatchesAndAReloadKeepsTheRowsShown) {
  Fixture f;
  TuningRecordsModel model;
  TuningRecordsFilter filter;
  QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(&filter, QAbstractItemModelTester::FailureReportingMode::Fatal);
  filter.setSourceModel(&model);
  filter.sort(TuningRecordsModel::Measured, Qt::AscendingOrder);
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
  QSignalSpy applied(&model, &TuningRecordsModel::snapshotApplied);
  auto waitApplied = [&](int count) {
    QElapsedTimer clock;
    clock.start();
    while (applied.size() < count && clock.elapsed() < 10000)
      QCoreApplication::processEvents();
    return applied.size() == count;
  };

  // 7 rows, 3 per batch: the first batch at once, the rest on later turns.
  EXPECT_FALSE(model.applySnapshot(loadTuningRecords(f.path), 3));
  EXPECT_EQ(model.rowCount(), 3);
  EXPECT_TRUE(model.isApplying());
  EXPECT_EQ(model.pendingRows(), 4);
  EXPECT_EQ(applied.size(), 0);
  ASSERT_TRUE(waitApplied(1));
  EXPECT_EQ(model.rowCount(), 7);
  EXPECT_FALSE(model.isApplying());
  EXPECT_EQ(inserts.size(), 3); // 3 + 3 + 1
  EXPECT_EQ(resets.size(), 1);
  // The proxy placed each batch: the same order as a one-step load.
  std::vector<int64_t> order = ids(filter);
  ASSERT_EQ(order.size(), 7u);
  EXPECT_EQ(std::vector<int64_t>(order.begin(), order.begin() + 5),
            (std::vector<int64_t>{2, 1, 5, 7, 4}));

  // A run appends two records: the rows shown stay (no reset), the new ones
  // are appended and sorted in.
  {
    Database db(f.path.toStdString());
    auto fb = te::matmulPrimFunc(16, 32, 8);
    db.addRecord(record(f.big, f.t1, f.run, 5, tiled(fb, 4), 4e-6, 4e-6));
    db.addRecord(record(f.big, f.t1, f.run, 6, tiled(fb, 2), 1e-6, 1e-6));
  }
  // Given the ids shown, the reader hands over only the records added.
  TuningRecordsSnapshot added = loadTuningRecords(f.path, model.shownIds());
  EXPECT_TRUE(added.addedOnly);
  ASSERT_EQ(added.rows.size(), 2u);
  EXPECT_EQ(added.rows[0].id, 8);
  EXPECT_EQ(added.rows[1].id, 9);
  // A shown id the file no longer holds: every record.
  const TuningRecordsSnapshot all = loadTuningRecords(f.path, {1, 2, 3, 4, 5, 6, 7, 100});
  EXPECT_FALSE(all.addedOnly);
  EXPECT_EQ(all.rows.size(), 9u);
  EXPECT_TRUE(model.applySnapshot(std::move(added), 3));
  ASSERT_TRUE(waitApplied(2));
  EXPECT_EQ(resets.size(), 1);
  EXPECT_EQ(model.rowCount(), 9);
  EXPECT_EQ(ids(model), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // 1, 3, 4, 5, 9, 10, 40 us, then the two failures.
  order = ids(filter);
  ASSERT_EQ(order.size(), 9u);
  EXPECT_EQ(std::vector<int64_t>(order.begin(), order.begin() + 7),
            (std::vector<int64_t>{9, 2, 8, 1, 5, 7, 4}));

  // Sorting by a text column follows the shown text in the locale's order.
  for (int column : {TuningRecordsModel::Workload, TuningRecordsModel::Target,
                     TuningRecordsModel::Status, TuningRecordsModel::Node}) {
    filter.sort(column, Qt::AscendingOrder);
    expectSortedByText(filter, column);
  }

  // A full snapshot with every row shown keeps them too.
  EXPECT_TRUE(model.applySnapshot(loadTuningRecords(f.path), 3));
  ASSERT_TRUE(waitApplied(3));
  EXPECT_EQ(model.rowCount(), 9);
  EXPECT_EQ(resets.size(), 1);

  // Rows that are not the ones shown (a prune deleted one): a reset, then
  // every row again.
  TuningRecordsSnapshot pruned = loadTuningRecords(f.path);
  pruned.rows.erase(pruned.rows.begin());
  EXPECT_FALSE(model.applySnapshot(std::move(pruned), 3));
  EXPECT_EQ(resets.size(), 2);
  ASSERT_TRUE(waitApplied(4));
  EXPECT_EQ(model.rowCount(), 8);
  EXPECT_EQ(ids(model).front(), 2);

  // setSnapshot in the middle of a batched load drops its remaining batches.
  model.applySnapshot(loadTuningRecords(f.dir.filePath("missing.db")), 3);
  model.applySnapshot(loadTuningRecords(f.path), 2);
  EXPECT_EQ(model.rowCount(), 2);
  model.setSnapshot(loadTuningRecords(f.dir.filePath("missing.db")));
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 200)
    QCoreApplication::processEvents();
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_FALSE(model.isApplying());
}

TEST(TuningRecords, ADamagedOrForeignFileGivesAnErrorNamingIt) {
  QTemporaryDir dir;
  const QString garbage = dir.filePath("garbage.db");
  {
    QFile file(garbage);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(8192, 'x'));
  }
  TuningRecordsSnapshot s = loadTuningRecords(garbage);
  EXPECT_TRUE(s.rows.empty());
  EXPECT_TRUE(s.error.contains("garbage.db")) << s.error.toStdString();

  // A real database cut in half: refused at opening or at the first query.
  Fixture f;
  const QString cut = dir.filePath("cut.db");
  {
    Database db(f.path.toStdString()); // checkpoint the WAL into the file
  }
  ASSERT_TRUE(QFile::copy(f.path, cut));
  {
    QFile file(cut);
    ASSERT_TRUE(file.open(QIODevice::ReadWrite));
    file.resize(file.size() / 2);
  }
  s = loadTuningRecords(cut);
  EXPECT_TRUE(s.rows.empty());
  EXPECT_FALSE(s.error.isEmpty());

  s = loadTuningRecords(dir.filePath("none.db"));
  EXPECT_TRUE(s.error.contains("no such tuning database"));
  EXPECT_FALSE(QFile::exists(dir.filePath("none.db"))); // not created

  // The browser shows the error and stays usable.
  TuningRecordsView view;
  QSignalSpy loaded(&view, &TuningRecordsView::loaded);
  ASSERT_TRUE(view.openDatabase(garbage));
  ASSERT_TRUE(view.waitForLoad(20000));
  ASSERT_EQ(loaded.size(), 1);
  EXPECT_FALSE(loaded[0][0].toBool());
  EXPECT_TRUE(loaded[0][1].toString().contains("garbage.db"));
  EXPECT_EQ(view.model()->rowCount(), 0);
  ASSERT_TRUE(view.openDatabase(f.path));
  ASSERT_TRUE(view.waitForLoad(20000));
  EXPECT_TRUE(view.error().isEmpty());
  EXPECT_EQ(view.model()->rowCount(), 7);
}

TEST(TuningRecords, ARecordOpensItsTraceAndLoopNestBesideTheDefault) {
  Fixture f;
  TuningRecordsView view;
  view.resize(1200, 600);
  ASSERT_TRUE(view.openDatabase(f.path));
  ASSERT_TRUE(view.waitForLoad(20000));
  ASSERT_TRUE(view.selectRecord(2));
  ASSERT_TRUE(view.waitForLoad(20000));
  const QString text = view.recordText()->toPlainText();
  EXPECT_TRUE(text.contains("record 2")) << text.toStdString();
  EXPECT_TRUE(text.contains("split(")) << text.toStdString();
  EXPECT_TRUE(text.contains("parallel(")) << text.toStdString();
  // The default schedule and the record's differ, and both are loop nests.
  EXPECT_GT(view.nestPane()->deletedLines() + view.nestPane()->insertedLines(), 0);
  EXPECT_TRUE(view.nestPane()->left()->toPlainText().contains("for "));
  EXPECT_TRUE(view.nestPane()->right()->toPlainText().contains("T.parallel"))
      << view.nestPane()->right()->toPlainText().toStdString();

  // A failure shows its whole message.
  ASSERT_TRUE(view.selectRecord(6));
  ASSERT_TRUE(view.waitForLoad(20000));
  EXPECT_TRUE(view.recordText()->toPlainText().contains("second line of the message"));

  // Two records side by side: split 4 against split 2.
  ASSERT_TRUE(view.compareRecords(1, 2));
  ASSERT_TRUE(view.waitForLoad(20000));
  EXPECT_TRUE(view.comparePane()->left()->toPlainText().contains("record 1"));
  EXPECT_TRUE(view.comparePane()->right()->toPlainText().contains("record 2"));
  EXPECT_GT(view.comparePane()->insertedLines(), 0);

  // The cost-model plot: the ok records with a prediction (1, 2, 4, 7).
  EXPECT_EQ(view.scatterPoints(), 4);
  // The plot follows the filters: workload "small", status ok.
  const int small = view.workloadFilter()->findData(QVariant::fromValue<qlonglong>(f.small));
  ASSERT_GT(small, 0);
  view.workloadFilter()->setCurrentIndex(small);
  view.statusFilter()->setCurrentIndex(1);
  EXPECT_EQ(view.filter()->rowCount(), 1);
  EXPECT_EQ(view.scatterPoints(), 1);
}

TEST(TuningRecords, ARecordWrittenMeanwhileShowsUpKeepingFiltersAndSelection) {
  Fixture f;
  TuningRecordsView view;
  view.resize(1200, 600);
  view.show();
  ASSERT_TRUE(view.openDatabase(f.path));
  ASSERT_TRUE(view.waitForLoad(20000));
  const int big = view.workloadFilter()->findData(QVariant::fromValue<qlonglong>(f.big));
  view.workloadFilter()->setCurrentIndex(big);
  ASSERT_EQ(view.filter()->rowCount(), 5);
  ASSERT_TRUE(view.selectRecord(2));
  ASSERT_TRUE(view.waitForLoad(20000));
  {
    // Another writer (a tuning run) adds a record of the big workload.
    Database db(f.path.toStdString());
    db.addRecord(
        record(f.big, f.t1, f.run, 9, tiled(parseWorkload(db.workloads()[0].text), 4), 7e-6, 8e-6));
  }
  QElapsedTimer clock;
  clock.start();
  while (view.model()->rowCount() != 8 && clock.elapsed() < 20000)
    QTest::qWait(50);
  ASSERT_EQ(view.model()->rowCount(), 8);
  EXPECT_EQ(view.workloadFilter()->currentIndex(), big);
  EXPECT_EQ(view.filter()->rowCount(), 6);
  const auto rows = view.table()->selectionModel()->selectedRows();
  ASSERT_EQ(rows.size(), 1);
  EXPECT_EQ(rows[0].data(TuningRecordsModel::kIdRole).toLongLong(), 2);
  // Our own reads do not count as changes: no reload without a writer.
  ASSERT_TRUE(view.waitForLoad(20000));
  QSignalSpy reloads(&view, &TuningRecordsView::loaded);
  QTest::qWait(4500);
  EXPECT_EQ(reloads.size(), 0);
}

TEST(TuningRecords, HeatColoursFollowTheKernelsTunedTime) {
  ModelHeat heat;
  KernelHeat slow, fast, untuned;
  slow.name = "slow";
  slow.functions = {"slow"};
  slow.calls = 2;
  slow.bestS = 40e-6;
  fast.name = "fast";
  fast.functions = {"fast", "fast_copy"};
  fast.calls = 1;
  fast.bestS = 5e-6;
  untuned.name = "untuned";
  untuned.functions = {"untuned"};
  untuned.calls = 1;
  heat.kernels = {slow, fast, untuned};
  heat.totalS = 85e-6;
  const auto overlay = heatOverlay(heat);
  ASSERT_EQ(overlay.size(), 4);
  EXPECT_NE(overlay["slow"].fill, overlay["fast"].fill);
  EXPECT_EQ(overlay["fast"].fill, overlay["fast_copy"].fill);
  EXPECT_EQ(overlay["untuned"].fill, heatUntunedColor());
  // The hotter kernel is redder: less green.
  EXPECT_LT(overlay["slow"].fill.green(), overlay["fast"].fill.green());
  EXPECT_TRUE(overlay["slow"].tip.contains("94.1%")) << overlay["slow"].tip.toStdString();
  EXPECT_TRUE(overlay["untuned"].tip.contains("not tuned"));
}

/// A database whose best record for the matmul_relu64 model's kernel is a
/// schedule other than the default, measured faster than the default.
QString tunedDatabase(QTemporaryDir& dir, const ir::IRModule& model, std::string* kernel) {
  const QString path = dir.filePath("model.db");
  Database db(path.toStdString());
  BuildOptions o;
  for (const Task& t : extractTasks(model, o)) {
    if (!t.tunable)
      continue;
    const int64_t w = db.addWorkload(t.hash, workloadText(t.workload), t.flops);
    const int64_t tg = db.addTarget(t.target);
    DesignSpace space(transform::schedulePolicyFor(target::Target::parse(t.target)));
    auto base = space.apply(t.workload, space.basePoint());
    std::mt19937_64 rng(7);
    std::optional<Candidate> other;
    for (int i = 0; i < 50 && !other; ++i) {
      auto c = space.apply(t.workload, space.sample(rng));
      if (c && base && c->key != base->key)
        other = c;
    }
    if (!other)
      continue;
    Record def;
    def.workloadId = w;
    def.targetId = tg;
    def.trace = base->trace.toJson();
    def.times = {2e-3};
    def.predictedS = 1e-3;
    db.addRecord(def);
    Record better = def;
    better.trace = other->trace.toJson();
    better.times = {1e-3};
    db.addRecord(better);
    *kernel = t.name;
  }
  return path;
}

ir::IRModule matmulRelu() {
  QFile file(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/app/data/matmul_relu64.uir"));
  EXPECT_TRUE(file.open(QIODevice::ReadOnly));
  return text::parseModule(file.readAll().toStdString());
}

TEST(TuningRecords, HeatOverlayColoursTheGraphByTunedLatency) {
  QTemporaryDir dir;
  const ir::IRModule model = matmulRelu();
  std::string kernel;
  const QString db = tunedDatabase(dir, model, &kernel);
  ASSERT_FALSE(kernel.empty());
  const ModelHeat heat = computeModelHeat(model, BuildOptions{}, db);
  ASSERT_TRUE(heat.error.isEmpty()) << heat.error.toStdString();
  ASSERT_EQ(heat.tunedCount(), 1);
  const KernelHeat* k = heat.kernelOf(QString::fromStdString(kernel));
  ASSERT_NE(k, nullptr);
  EXPECT_DOUBLE_EQ(*k->bestS, 1e-3);

  MainWindow window;
  window.resize(1200, 800);
  window.show(); // the legend takes its band once shown
  ASSERT_TRUE(
      window.openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/app/data/matmul_relu64.uir")));
  ASSERT_TRUE(window.startBuild());
  ASSERT_TRUE(window.session()->waitForBuild(60000));
  window.openTuningDatabase(db);
  window.setHeatOverlay(true);
  ASSERT_TRUE(window.waitForTuning(60000));
  ASSERT_TRUE(window.graphView()->waitForLayout(20000));
  ASSERT_TRUE(window.graphView()->heatShown());
  const LaidOutGraphPtr g = window.graphView()->shown();
  ASSERT_TRUE(g);
  int tunedNode = -1, otherOp = -1;
  for (const auto& n : g->graph.nodes) {
    if (n.callee == kernel)
      tunedNode = n.id;
    else if (n.kind == viz::NodeKind::Op && n.callee.empty())
      otherOp = n.id;
  }
  ASSERT_GE(tunedNode, 0);
  EXPECT_EQ(window.graphView()->nodeFill(tunedNode), heatColor(1.0));
  if (otherOp >= 0) {
    EXPECT_EQ(window.graphView()->nodeFill(otherOp), heatOtherColor());
  }
  // The legend sits in a band below the graph's viewport: it never covers a
  // node, however the graph is scrolled.
  GraphCanvas* canvas = window.graphView()->canvas();
  auto* legend = window.findChild<HeatLegend*>("heatLegend");
  ASSERT_NE(legend, nullptr);
  EXPECT_TRUE(legend->isVisible());
  EXPECT_EQ(legend->parentWidget(), canvas);
  EXPECT_FALSE(legend->geometry().intersects(canvas->viewport()->geometry()));
  EXPECT_TRUE(canvas->rect().contains(legend->geometry()))
      << legend->geometry().x() << "," << legend->geometry().y() << " " << legend->width() << "x"
      << legend->height() << " in " << canvas->width() << "x" << canvas->height();
  EXPECT_GE(canvas->bottomBand().height(), legend->height());
  window.setHeatOverlay(false);
  EXPECT_NE(window.graphView()->nodeFill(tunedNode), heatColor(1.0));
  EXPECT_FALSE(legend->isVisible());
  EXPECT_EQ(canvas->bottomBand().height(), 0) << "the graph gets its band back";
}

TEST(TuningRecords, ApplyBestRebuildsWithTheDatabaseAndTimesBeforeAndAfter) {
  QTemporaryDir dir;
  std::string kernel;
  const QString db = tunedDatabase(dir, matmulRelu(), &kernel);
  ASSERT_FALSE(kernel.empty());
  MainWindow window;
  window.resize(1200, 800);
  ASSERT_TRUE(
      window.openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/app/data/matmul_relu64.uir")));
  ASSERT_TRUE(window.startBuild());
  ASSERT_TRUE(window.session()->waitForBuild(60000));
  auto names = [&] {
    std::vector<std::string> out;
    for (const auto& r : window.session()->records())
      out.push_back(r.name);
    return out;
  };
  const auto before = names();
  EXPECT_EQ(std::count(before.begin(), before.end(), "ApplyTuningDatabase"), 0);
  window.openTuningDatabase(db);
  ASSERT_TRUE(window.waitForTuning(60000));
  ASSERT_TRUE(window.applyBest());
  ASSERT_TRUE(window.waitForTuning(120000));
  const auto after = names();
  EXPECT_EQ(std::count(after.begin(), after.end(), "ApplyTuningDatabase"), 1);
  // The kernel now carries the record it was given.
  auto f = ir::as<ir::PrimFunc>(window.session()->lastBuild()->lowered->lookup(kernel));
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->attrs.has("tuning_record"));
  // Both builds were timed.
  const LatencyComparison& l = window.lastLatency();
  EXPECT_TRUE(l.error.isEmpty()) << l.error.toStdString();
  EXPECT_GT(l.rounds, 0);
  EXPECT_GT(l.beforeS, 0);
  EXPECT_GT(l.afterS, 0);
  EXPECT_TRUE(window.recordsView()->latencyText().contains("before"));
}

} // namespace
