// bench_workbench: how the workbench copes with large graphs. A measurement,
// not a test: it prints figures next to the targets and asserts
// nothing.
//
//   bench_workbench --chain FILE --transformer FILE --largest FILE [--scoped FILE]
//                   [--repeat N] [--tuning-db-rows N [--tuning-live-ms MS]]
//   bench_workbench --tuning-db-rows N [--tuning-live-ms MS]
//
// (bench/run_workbench.sh generates the models and passes them.) Measured,
// each in a fresh GraphView shown on the offscreen platform at 1200x800:
//  - layout: the time from giving the session a module to its graph being
//    drawn (graph extraction, layout and label placement in a worker
//    thread, then the scene items on the UI thread in time slices), split
//    into its parts, and the longest the UI thread went without running a
//    5 ms heartbeat QTimer meanwhile (including the first paint);
//  - pass switching: with the chain model built and two adjacent steps laid
//    out, the time to switch between them (the whole window: graph, IR text
//    diff, timeline; and the graph view and the IR text view alone);
//  - a big scoped model (--scoped, bench/gen_scoped_transformer.py: 51,891
//    nodes in 24 layers): open with its layers collapsed (module given to
//    the session -> first paint), expand one layer (setExpanded -> painted),
//    and the longest UI-thread gap over both; the 5,000-node transformer is
//    measured both with weights as properties (the default) and as nodes
//    (today's 5,018-node figure);
//  - memory (measured first, in a fresh process): the process RSS growth from
//    opening the largest example and building it with its full pass history
//    (as the GUI keeps it);
//  - a big tuning database (--tuning-db-rows N, alone or with the above): a
//    database of N records (24 matmul tasks of one run, a tenth of them
//    failures, written through tuner::Database as the tuner writes them)
//    opened in the Tuning panel (TuningRunView) and in the records browser
//    (TuningRecordsView): time to the first rows shown and to every row, and
//    the longest UI-thread gap while it loads, then while a writer thread
//    appends records to the same file (the live phase of a run).
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/gui/main_window.h"
#include "engine/schedule/schedule.h"
#include "engine/support/measure.h"
#include "engine/te/workloads.h"
#include "engine/text/parser.h"
#include "tuner/database.h"
#include "tuner/task.h"
#include "views/chunked_builder.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/session.h"
#include "views/tuning_records_model.h"
#include "views/tuning_records_view.h"
#include "views/tuning_run_view.h"

using namespace lowerscope;

namespace {

/// Resident set size of this process in MiB (from /proc/self/status).
double rssMiB() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      double kb = 0;
      in >> kb;
      return kb / 1024.0;
    }
    std::getline(in, key);
  }
  return -1;
}

/// The longest interval between two ticks of a 5 ms timer on the UI thread:
/// how long the UI was unable to react. On a loaded machine that includes
/// waiting for a core, so the UI thread's CPU time between two ticks is kept
/// too: the longest stretch of our own work without a return to the event
/// loop.
class Heartbeat : public QObject {
public:
  Heartbeat() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(5);
    QObject::connect(&timer_, &QTimer::timeout, this, [this] {
      const double now = unity::wallClockSeconds(), cpu = unity::threadCpuSeconds();
      maxGap_ = std::max(maxGap_, now - last_);
      maxBusy_ = std::max(maxBusy_, cpu - lastCpu_);
      last_ = now;
      lastCpu_ = cpu;
    });
  }
  void start() {
    maxGap_ = maxBusy_ = 0;
    last_ = unity::wallClockSeconds();
    lastCpu_ = unity::threadCpuSeconds();
    timer_.start();
  }
  /// Stops and returns the longest gap in ms (counting up to now).
  double stop() {
    maxGap_ = std::max(maxGap_, unity::wallClockSeconds() - last_);
    maxBusy_ = std::max(maxBusy_, unity::threadCpuSeconds() - lastCpu_);
    timer_.stop();
    return maxGap_ * 1e3;
  }
  /// The most UI-thread CPU time between two ticks, in ms (after stop()).
  double maxBusyMs() const { return maxBusy_ * 1e3; }

private:
  QTimer timer_;
  double last_ = 0, maxGap_ = 0, lastCpu_ = 0, maxBusy_ = 0; // seconds
};

void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

struct LayoutResult {
  size_t nodes = 0, edges = 0;
  QString engine;
  int slices = 0;
  double extractMs = 0, layoutMs = 0, labelsMs = 0, drawMs = 0, sliceMs = 0, paintMs = 0,
         totalMs = 0, cpuMs = 0, maxGapMs = 0, maxBusyMs = 0;
};

QString shotDir; // --shot: where measureLayout saves what it drew

LayoutResult measureLayout(const QString& path, bool constantsAsNodes) {
  LayoutResult r;
  // Parsing is the Open command's job, not the layout's: done beforehand.
  unity::ir::IRModule module = unity::text::parseFile(path.toStdString());
  Session session;
  GraphView view(&session);
  view.setConstantsAsNodes(constantsAsNodes);
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1200, 800);
  view.show();
  settle(50);
  Heartbeat beat;
  beat.start();
  // CPU time of the whole process (the layout runs in a worker thread): on a
  // shared machine it tells work from waiting for a core.
  unity::Stopwatch total(unity::CpuClock::Process);
  session.setModule(module, path);
  if (!view.waitForLayout(120000) || !view.shown()) {
    std::fprintf(stderr, "bench_workbench: the layout of %s did not finish\n", qPrintable(path));
    std::exit(1);
  }
  unity::Stopwatch paint;
  view.canvas()->viewport()->repaint();
  r.paintMs = paint.wallMs();
  r.totalMs = total.wallMs();
  r.cpuMs = total.cpuMs();
  settle(30);
  r.maxGapMs = beat.stop();
  r.maxBusyMs = beat.maxBusyMs();
  if (!shotDir.isEmpty()) {
    // The whole graph, then 1:1 below its first node (where the eye checks that
    // boxes do not overlap and edges reach their nodes).
    const QString base = shotDir + "/" + QFileInfo(path).completeBaseName();
    view.grab().save(base + "-fit.png");
    view.canvas()->setTransform(QTransform());
    const auto& first = view.shown()->layout.nodes.front();
    view.canvas()->centerOn(first.x, first.y + 300);
    view.grab().save(base + "-top.png");
  }
  const LaidOutGraph& g = *view.shown();
  if (!g.error.isEmpty()) {
    std::fprintf(stderr, "bench_workbench: %s: %s\n", qPrintable(path), qPrintable(g.error));
    std::exit(1);
  }
  r.nodes = g.graph.nodes.size();
  r.edges = g.graph.edges.size();
  r.engine = QString::fromStdString(g.layout.engine);
  r.extractMs = g.extractMs;
  r.layoutMs = g.layout.ms;
  r.labelsMs = g.labelsMs;
  r.drawMs = view.lastDrawMs();
  r.slices = view.builder()->slices();
  r.sliceMs = view.builder()->longestSliceMs();
  return r;
}

struct HierarchyResult {
  size_t fullNodes = 0, shownNodes = 0, expandedNodes = 0;
  double parseMs = 0, extractMs = 0, collapseMs = 0, layoutMs = 0, firstPaintMs = 0,
         expandCollapseMs = 0, expandLayoutMs = 0, expandMs = 0, maxGapMs = 0, maxBusyMs = 0,
         openCpuMs = 0, expandCpuMs = 0;
  // A wide level: the layer's MLP, 96 expert groups side by side.
  size_t wideNodes = 0;
  double wideMs = 0, wideLayoutMs = 0;
  QString wideEngine;
};

/// Opens the scoped model collapsed and expands one of its layers.
HierarchyResult measureHierarchy(const QString& path, const QString& layer) {
  HierarchyResult r;
  unity::Stopwatch parse;
  unity::ir::IRModule module = unity::text::parseFile(path.toStdString());
  r.parseMs = parse.wallMs();
  Session session;
  GraphView view(&session);
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1200, 800);
  view.show();
  settle(50);
  Heartbeat beat;
  beat.start();
  // Process CPU time beside wall time: on a shared machine it tells the
  // work from waiting for a core.
  unity::Stopwatch open(unity::CpuClock::Process);
  session.setModule(module, path);
  if (!view.waitForLayout(120000) || !view.shown() || !view.shown()->flat) {
    std::fprintf(stderr, "bench_workbench: the layout of %s did not finish\n", qPrintable(path));
    std::exit(1);
  }
  view.canvas()->viewport()->repaint();
  r.firstPaintMs = open.wallMs();
  r.openCpuMs = open.cpuMs();
  r.fullNodes = view.shown()->flat->graph.nodes.size();
  r.shownNodes = view.shown()->graph.nodes.size();
  r.extractMs = view.shown()->extractMs;
  r.collapseMs = view.shown()->collapseMs;
  r.layoutMs = view.shown()->layout.ms;
  settle(30);
  unity::Stopwatch expand(unity::CpuClock::Process);
  view.setExpanded(layer, true);
  if (!view.waitForLayout(120000) || !view.isExpanded(layer)) {
    std::fprintf(stderr, "bench_workbench: %s did not expand\n", qPrintable(layer));
    std::exit(1);
  }
  view.canvas()->viewport()->repaint();
  r.expandMs = expand.wallMs();
  r.expandCpuMs = expand.cpuMs();
  r.expandedNodes = view.shown()->graph.nodes.size();
  r.expandCollapseMs = view.shown()->collapseMs;
  r.expandLayoutMs = view.shown()->layout.ms;
  settle(30);
  r.maxGapMs = beat.stop();
  r.maxBusyMs = beat.maxBusyMs();
  if (!shotDir.isEmpty())
    view.grab().save(shotDir + "/" + QFileInfo(path).completeBaseName() + "-expanded.png");
  unity::Stopwatch wide;
  view.setExpanded(layer + "/mlp", true);
  if (view.waitForLayout(120000) && view.isExpanded(layer + "/mlp")) {
    view.canvas()->viewport()->repaint();
    r.wideMs = wide.wallMs();
    r.wideNodes = view.shown()->graph.nodes.size();
    r.wideLayoutMs = view.shown()->layout.ms;
    r.wideEngine = QString::fromStdString(view.shown()->layout.engine);
    if (!shotDir.isEmpty())
      view.grab().save(shotDir + "/" + QFileInfo(path).completeBaseName() + "-mlp.png");
  }
  return r;
}

struct SwitchResult {
  QString from, to;
  size_t nodes = 0;
  double viewMedianMs = 0, viewMaxMs = 0, windowMedianMs = 0, windowMaxMs = 0, textMedianMs = 0,
         textMaxMs = 0;
};

/// Builds `path` (passes only) and switches between the FuseOps step and the
/// one before it, both in before/after mode, once each is laid out.
SwitchResult measureSwitch(const QString& path, int repeat) {
  SwitchResult r;
  MainWindow window;
  window.setAttribute(Qt::WA_DontShowOnScreen, true);
  window.resize(MainWindow::kDefaultSize);
  window.show();
  QString error;
  if (!window.openFile(path, &error)) {
    std::fprintf(stderr, "bench_workbench: %s\n", qPrintable(error));
    std::exit(1);
  }
  Session* s = window.session();
  s->setCodegen(false);
  window.startBuild();
  if (!s->waitForBuild(300000) || !s->hasHistory()) {
    std::fprintf(stderr, "bench_workbench: the build of %s failed\n", qPrintable(path));
    std::exit(1);
  }
  const int a = s->findStep("FuseOps"), b = a - 1;
  r.from = s->stepName(b);
  r.to = s->stepName(a);
  GraphView* view = window.graphView();
  for (int step : {a, b, a}) { // lay both out (cached from now on)
    s->setCurrentStep(step);
    view->waitForLayout(120000);
    settle(20);
  }
  r.nodes = view->shown() ? view->shown()->graph.nodes.size() : 0;
  std::vector<double> viewMs, windowMs, textMs;
  for (int i = 0; i < repeat; ++i) {
    const int step = i % 2 ? a : b;
    // Three timings interleaved per switch (not one unity::measure call
    // each): the view and text timings need the step the window switch set.
    // The whole window: every view follows the session's step.
    unity::Stopwatch t;
    s->setCurrentStep(step);
    view->waitForLayout(120000);
    window.repaint();
    windowMs.push_back(t.wallMs());
    // The graph view alone (the diff and the scene of both sides).
    t.restart();
    view->refresh();
    view->waitForLayout(120000);
    view->canvas()->viewport()->repaint();
    viewMs.push_back(t.wallMs());
    // The IR text view alone (both texts, diff marks).
    t.restart();
    window.irDiffView()->refresh();
    window.irDiffView()->repaint();
    textMs.push_back(t.wallMs());
    settle(5);
  }
  const unity::SampleStats viewStats = unity::summarize(viewMs),
                           windowStats = unity::summarize(windowMs),
                           textStats = unity::summarize(textMs);
  r.viewMedianMs = viewStats.median;
  r.viewMaxMs = viewStats.max;
  r.windowMedianMs = windowStats.median;
  r.windowMaxMs = windowStats.max;
  r.textMedianMs = textStats.median;
  r.textMaxMs = textStats.max;
  return r;
}

struct MemoryResult {
  double baseMiB = 0, openMiB = 0, builtMiB = 0;
  int steps = 0;
};

MemoryResult measureMemory(const QString& path) {
  MemoryResult r;
  Session s;
  settle(20);
  r.baseMiB = rssMiB();
  if (!s.open(path)) {
    std::fprintf(stderr, "bench_workbench: cannot open %s\n", qPrintable(path));
    std::exit(1);
  }
  r.openMiB = rssMiB();
  s.startBuild(); // with codegen, as the Build command does
  if (!s.waitForBuild(300000) || !s.hasHistory()) {
    std::fprintf(stderr, "bench_workbench: the build of %s failed\n", qPrintable(path));
    std::exit(1);
  }
  r.builtMiB = rssMiB();
  r.steps = s.stepCount();
  return r;
}

QString name(const QString& path) { return path.section('/', -1); }

// ---- a big tuning database

/// What the records of the bench database are made of: 24 matmul tasks on
/// one target, each with a real trace (split + parallel, as a candidate of
/// the search), in one run.
struct TuningDb {
  QString path;
  int64_t run = 0, target = 0;
  std::vector<int64_t> workloads;
  std::vector<nlohmann::json> traces; // per workload
  std::vector<double> flops;          // per workload
};

unity::tuner::Record benchRecord(const TuningDb& db, std::mt19937& rnd, int64_t trial) {
  std::uniform_int_distribution<size_t> pick(0, db.workloads.size() - 1);
  std::uniform_real_distribution<double> unit(0, 1);
  const size_t w = pick(rnd);
  unity::tuner::Record r;
  r.workloadId = db.workloads[w];
  r.targetId = db.target;
  r.runId = db.run;
  r.trial = trial;
  r.trace = db.traces[w];
  r.decisions = nlohmann::json::array({int(trial % 7), int(trial % 5)});
  // Around 20 GFLOP/s, the cost model off by up to 2x either way.
  const double mean = db.flops[w] / (20e9 * (0.2 + 1.6 * unit(rnd)));
  if (unit(rnd) < 0.1) {
    r.status = unity::tuner::RecordStatus::BuildError;
    r.errorKind = "replay";
    r.errorMessage = "trace does not replay: split factor " + std::to_string(trial % 61) +
                     " does not divide the extent\n(the search's sample, rejected by codegen)";
  } else {
    r.times = {mean * 0.98, mean, mean * 1.02};
  }
  if (trial >= 64)
    r.predictedS = mean * std::exp2(2 * unit(rnd) - 1);
  r.buildS = 0.05 + 0.1 * unit(rnd);
  r.node = "bench-node";
  return r;
}

TuningDb writeTuningDb(const QString& path, int rows) {
  using namespace unity;
  TuningDb out;
  out.path = path;
  tuner::Database db(path.toStdString());
  out.target = db.addTarget("llvm -num-cores=2");
  nlohmann::json taskInfo = nlohmann::json::array();
  for (int i = 0; i < 24; ++i) {
    const int64_t m = 16 * (1 + i % 4), n = 64 * (1 + i / 4), k = 64 + 32 * (i % 3);
    ir::PrimFuncRef f = te::matmulPrimFunc(m, n, k);
    const std::string hash = tuner::workloadHash(f);
    const double flops = 2.0 * double(m * n * k);
    out.workloads.push_back(db.addWorkload(hash, tuner::workloadText(f), flops));
    out.flops.push_back(flops);
    schedule::Schedule s(f);
    auto loops = s.getLoops(s.getBlock("C"));
    auto outer = s.split(loops[0], {-1, 4});
    s.parallel(outer[0]);
    out.traces.push_back(s.trace().toJson());
    taskInfo.push_back({{"name", "matmul_" + std::to_string(i)},
                        {"hash", hash},
                        {"target", "llvm -num-cores=2"},
                        {"flops", flops},
                        {"weight", 1 + i % 3},
                        {"tunable", true}});
  }
  out.run = db.startRun({{"trials", 2 * rows},
                         {"target", "llvm -num-cores=2"},
                         {"model", "bench.uir"},
                         {"task_info", taskInfo}},
                        2 * rows);
  std::mt19937 rnd(1);
  db.transaction([&] {
    for (int i = 0; i < rows; ++i)
      db.addRecord(benchRecord(out, rnd, i));
  });
  db.updateRunProgress(out.run, rows);
  return out;
}

/// Appends records to the database from its own thread and connection, a
/// burst of `burst` every `everyMs` (one committed INSERT each, as the
/// tuner writes a batch of measured candidates), until stopped.
class RecordWriter {
public:
  RecordWriter(const TuningDb& db, int64_t firstTrial, int burst, int everyMs)
      : thread_([this, db, firstTrial, burst, everyMs] {
          unity::tuner::Database conn(db.path.toStdString());
          std::mt19937 rnd(2);
          int64_t trial = firstTrial;
          while (!stop_.load()) {
            for (int i = 0; i < burst; ++i)
              conn.addRecord(benchRecord(db, rnd, trial++));
            conn.updateRunProgress(db.run, trial);
            written_ += burst;
            std::this_thread::sleep_for(std::chrono::milliseconds(everyMs));
          }
        }) {}
  ~RecordWriter() { stop(); }
  int stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
    return written_;
  }

private:
  std::atomic<bool> stop_{false};
  std::atomic<int> written_{0};
  std::thread thread_;
};

struct TuningViewResult {
  double firstRowsMs = 0, allRowsMs = 0, openCpuMs = 0, openGapMs = 0, openBusyMs = 0;
  double liveGapMs = 0, liveBusyMs = 0;
  int rows = 0, updates = 0, written = 0;
};

/// Processes events until `done` or `timeoutMs`; false on timeout.
template <class Done> bool spinUntil(Done done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    QThread::msleep(1); // not a spin: the work runs in other threads
  }
  return true;
}

/// The Tuning panel on the database: the run's first snapshot shown, then
/// `liveMs` of a writer appending records.
TuningViewResult measureTuningPanel(const TuningDb& db, int rows, int liveMs) {
  TuningViewResult r;
  TuningRunView view;
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1200, 800);
  view.show();
  settle(50);
  int updates = 0;
  QObject::connect(&view, &TuningRunView::updated, [&] { ++updates; });
  Heartbeat beat;
  beat.start();
  unity::Stopwatch open(unity::CpuClock::Process);
  view.showDatabase(db.path);
  if (!spinUntil([&] { return updates > 0; }, 120000)) {
    std::fprintf(stderr, "bench_workbench: the Tuning panel showed no snapshot\n");
    std::exit(1);
  }
  view.repaint();
  r.firstRowsMs = r.allRowsMs = open.wallMs();
  r.openCpuMs = open.cpuMs();
  settle(30);
  r.openGapMs = beat.stop();
  r.openBusyMs = beat.maxBusyMs();
  r.rows = view.watcher()->latest() ? view.watcher()->latest()->records : 0;
  updates = 0;
  beat.start();
  {
    RecordWriter writer(db, rows, 10, 100);
    settle(liveMs);
    r.written = writer.stop();
  }
  settle(1500); // the last write's snapshot
  r.liveGapMs = beat.stop();
  r.liveBusyMs = beat.maxBusyMs();
  r.updates = updates;
  return r;
}

/// The records browser on the database: every row shown, then `liveMs` of a
/// writer appending records (the browser reads the file again when it
/// changed, every 2 s).
TuningViewResult measureRecordsBrowser(const TuningDb& db, int rows, int liveMs) {
  TuningViewResult r;
  TuningRecordsView view;
  view.setAttribute(Qt::WA_DontShowOnScreen, true);
  view.resize(1400, 800);
  view.show();
  settle(50);
  int loads = 0;
  QObject::connect(&view, &TuningRecordsView::loaded, [&] { ++loads; });
  Heartbeat beat;
  beat.start();
  unity::Stopwatch open(unity::CpuClock::Process);
  view.openDatabase(db.path);
  if (!spinUntil([&] { return view.model()->rowCount() > 0; }, 120000)) {
    std::fprintf(stderr, "bench_workbench: the records browser showed no rows\n");
    std::exit(1);
  }
  view.table()->viewport()->repaint();
  r.firstRowsMs = open.wallMs();
  if (!spinUntil([&] { return loads > 0; }, 120000)) {
    std::fprintf(stderr, "bench_workbench: the records browser did not finish loading\n");
    std::exit(1);
  }
  view.repaint();
  r.allRowsMs = open.wallMs();
  r.openCpuMs = open.cpuMs();
  settle(30);
  r.openGapMs = beat.stop();
  r.openBusyMs = beat.maxBusyMs();
  loads = 0;
  beat.start();
  {
    RecordWriter writer(db, 2 * rows, 10, 100);
    settle(liveMs);
    r.written = writer.stop();
  }
  settle(3000); // the browser's next poll reads the last writes
  view.waitForLoad(60000);
  r.liveGapMs = beat.stop();
  r.liveBusyMs = beat.maxBusyMs();
  r.updates = loads;
  r.rows = view.model()->rowCount();
  return r;
}

} // namespace

int main(int argc, char** argv) {
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCommandLineParser parser;
  parser.setApplicationDescription("Workbench speed on large graphs (prints figures).");
  parser.addHelpOption();
  QCommandLineOption chain("chain", "500-node chain model (bench/gen_chain_model.py 500).", "FILE");
  QCommandLineOption transformer(
      "transformer", "5,000-node transformer-like model (bench/gen_transformer_model.py).", "FILE");
  QCommandLineOption largest("largest", "Example whose pass history memory is measured.", "FILE");
  QCommandLineOption repeat("repeat", "Pass switches to time (default 20).", "N", "20");
  QCommandLineOption shot("shot", "Save pictures of the laid-out graphs in DIR.", "DIR");
  QCommandLineOption scoped(
      "scoped", "50,000-node scoped transformer (bench/gen_scoped_transformer.py).", "FILE");
  QCommandLineOption tuningRows(
      "tuning-db-rows",
      "Also measure the Tuning panel and the records browser on a tuning database of N records "
      "(alone when --chain is not given).",
      "N");
  QCommandLineOption liveMs("tuning-live-ms",
                            "How long records are appended after the open (default 8000).", "MS",
                            "8000");
  parser.addOptions({chain, transformer, largest, repeat, shot, scoped, tuningRows, liveMs});
  parser.process(app);
  if (parser.isSet(tuningRows)) {
    const int rows = parser.value(tuningRows).toInt();
    if (rows < 1) {
      std::fprintf(stderr, "bench_workbench: --tuning-db-rows wants a positive count\n");
      return 2;
    }
    QTemporaryDir dir;
    unity::Stopwatch write;
    const TuningDb db = writeTuningDb(dir.filePath("bench.db"), rows);
    std::printf("Tuning database: %d records (24 tasks, one run) written in %.0f ms\n", rows,
                write.wallMs());
    const int live = parser.value(liveMs).toInt();
    const TuningViewResult panel = measureTuningPanel(db, rows, live);
    const TuningViewResult records = measureRecordsBrowser(db, rows, live);
    std::printf("%-28s %9s %9s %8s %10s %10s %7s %10s %10s %8s\n", "", "first ms", "all ms",
                "CPU ms", "open gap", "open busy", "live", "live gap", "live busy", "target");
    for (const auto& [label, x] :
         {std::pair{"Tuning panel (run view)", panel}, std::pair{"records browser", records}})
      std::printf("%-28s %9.1f %9.1f %8.0f %10.1f %10.1f %7d %10.1f %10.1f %8s\n", label,
                  x.firstRowsMs, x.allRowsMs, x.openCpuMs, x.openGapMs, x.openBusyMs, x.updates,
                  x.liveGapMs, x.liveBusyMs, "50 ms");
    std::printf("(gap: longest wall time between two 5 ms heartbeats on the UI thread; busy: "
                "the most UI-thread CPU time between two. live: %d ms of a writer appending "
                "10 records every 100 ms (%d and %d written); the column counts the panel's "
                "snapshots / the browser's reloads. The browser then holds %d rows.)\n\n",
                live, panel.written, records.written, records.rows);
  }
  shotDir = parser.value(shot);
  auto runScoped = [&] {
    const QString layer = "/encoder/layer.3";
    const HierarchyResult h = measureHierarchy(parser.value(scoped), layer);
    std::printf("Scale: %s, %zu nodes, parsed in %.0f ms (the Open command's part, before)\n",
                qPrintable(name(parser.value(scoped))), h.fullNodes, h.parseMs);
    std::printf("%-34s %7s %9s %9s %9s %9s %8s %8s\n", "", "drawn", "extract", "collapse", "layout",
                "total ms", "CPU ms", "target");
    std::printf("%-34s %7zu %9.1f %9.1f %9.1f %9.1f %8.0f %8s\n",
                "open, layers collapsed (1st paint)", h.shownNodes, h.extractMs, h.collapseMs,
                h.layoutMs, h.firstPaintMs, h.openCpuMs, "1 s");
    std::printf("%-34s %7zu %9s %9.1f %9.1f %9.1f %8.0f %8s\n", qPrintable("expand " + layer),
                h.expandedNodes, "cached", h.expandCollapseMs, h.expandLayoutMs, h.expandMs,
                h.expandCpuMs, "200 ms");
    std::printf("%-34s %7zu %9s %9s %9.1f %9.1f %8s %8s (%s)\n",
                qPrintable("then expand " + layer + "/mlp"), h.wideNodes, "cached", "",
                h.wideLayoutMs, h.wideMs, "", "", qPrintable(h.wideEngine));
    std::printf("max UI gap over open and layer: %.1f ms (target 50 ms; most UI-thread CPU time "
                "between two heartbeats: %.1f ms)\n\n",
                h.maxGapMs, h.maxBusyMs);
  };
  // --tuning-db-rows and --scoped may run alone.
  if (!parser.isSet(chain) && (parser.isSet(tuningRows) || parser.isSet(scoped))) {
    if (parser.isSet(scoped))
      runScoped();
    return 0;
  }
  for (const auto* o : {&chain, &transformer, &largest})
    if (!parser.isSet(*o) || !QFile::exists(parser.value(*o))) {
      std::fprintf(stderr, "bench_workbench: --%s FILE is required (an existing file)\n",
                   qPrintable(o->names().first()));
      return 2;
    }

  const MemoryResult m = measureMemory(parser.value(largest));
  std::printf("Memory: %s, open then build (default pipeline + codegen), %d steps kept\n",
              qPrintable(name(parser.value(largest))), m.steps);
  std::printf("RSS before %.1f MiB, after open %.1f MiB (+%.1f), after build %.1f MiB (+%.1f; "
              "history + codegen %+.1f)\n",
              m.baseMiB, m.openMiB, m.openMiB - m.baseMiB, m.builtMiB, m.builtMiB - m.baseMiB,
              m.builtMiB - m.openMiB);
  std::printf("\n");
  std::printf(
      "Layout: module given to the session -> graph drawn (GraphView 1200x800, offscreen)\n");
  std::printf("%-26s %6s %6s %8s %8s %8s %7s %8s %7s %6s %9s %9s %10s %7s\n", "model", "nodes",
              "edges", "engine", "extract", "layout", "labels", "draw", "slices", "slice", "paint",
              "total ms", "max UI gap", "target");
  struct Case {
    QString path;
    double target;
    bool constantsAsNodes;
  };
  const Case layouts[] = {{parser.value(chain), 500, false},
                          {parser.value(transformer), 5000, true},
                          {parser.value(transformer), 5000, false}};
  for (const auto& [path, target, constantsAsNodes] : layouts) {
    const LayoutResult r = measureLayout(path, constantsAsNodes);
    QString label = name(path);
    if (target > 1000)
      label += constantsAsNodes ? " (w: nodes)" : " (w: props)";
    std::printf("%-26s %6zu %6zu %8s %8.1f %8.1f %7.1f %8.1f %7d %6.1f %9.1f %9.1f %10.1f %7s\n",
                qPrintable(label), r.nodes, r.edges, qPrintable(r.engine), r.extractMs, r.layoutMs,
                r.labelsMs, r.drawMs, r.slices, r.sliceMs, r.paintMs, r.totalMs, r.maxGapMs,
                target < 1000 ? "0.5 s" : "5 s");
    std::printf("%-26s (CPU time of the process meanwhile: %.0f ms; most UI-thread CPU time "
                "between two heartbeats: %.1f ms)\n",
                "", r.cpuMs, r.maxBusyMs);
  }
  std::printf("(UI gap target: 50 ms)\n\n");

  if (parser.isSet(scoped))
    runScoped();

  const SwitchResult sw = measureSwitch(parser.value(chain), parser.value(repeat).toInt());
  std::printf("Pass switching, %s (%zu nodes), %s <-> %s, before/after, laid out, %d switches\n",
              qPrintable(name(parser.value(chain))), sw.nodes, qPrintable(sw.from),
              qPrintable(sw.to), parser.value(repeat).toInt());
  std::printf("%-34s %10s %8s %8s\n", "", "median ms", "max ms", "target");
  std::printf("%-34s %10.1f %8.1f %8s\n", "whole window (graph, IR diff, ...)", sw.windowMedianMs,
              sw.windowMaxMs, "100 ms");
  std::printf("%-34s %10.1f %8.1f %8s\n", "graph view alone (diff + scenes)", sw.viewMedianMs,
              sw.viewMaxMs, "");
  std::printf("%-34s %10.1f %8.1f %8s\n\n", "IR text view alone (cached texts)", sw.textMedianMs,
              sw.textMaxMs, "");

  return 0;
}
