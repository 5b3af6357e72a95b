// `lowerscope-cli tune`: extract a model's tasks, search their schedules,
// commit every measured candidate to the tuning database, print a live
// progress table and a summary. `--resume RUN` continues a run from the
// configuration stored with it. `--runner slurm` measures on a Slurm
// cluster (tuner/slurm_runner.h); `tune-worker` is the hidden command its
// array tasks run.
//
// Control from outside (the workbench runs tunings as this command, see
// views/tuning_controller.h): SIGINT or SIGTERM finishes the batch being
// measured, marks the run `cancelled` and exits 0 (a second one kills);
// SIGUSR1 pauses between two candidates (no measurement runs while paused)
// and SIGUSR2 continues. Each change is printed as a line starting with
// "tune: " so a parent process can follow it, and recorded in the run's
// `control` column so any other program can (a workbench that did not start
// the run). The run also records this process (pid, host, start token:
// tuner/run_process.h), so such a program can find it to send those
// signals, or tell that it died without finishing. A new run also stores its
// tasks in the run's configuration (`task_info`: name, hash, target,
// sub-target, FLOPs, weight, tunable), so a viewer of the database can show
// per-task figures without rebuilding the model.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <filesystem>
#include <set>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/target_options.h"
#include "engine/build.h"
#include "engine/frontend/load_model.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "tuner/database.h"
#include "tuner/measure.h"
#include "tuner/run_process.h"
#include "tuner/runner.h"
#include "tuner/search.h"
#include "tuner/slurm_runner.h"
#include "tuner/task.h"

namespace lowerscope::cli {

namespace fs = std::filesystem;
using nlohmann::json;
using unity::Error;

namespace {

struct TuneArgs {
  std::string model;
  std::string target = "llvm";
  std::string db;
  int trials = 200;
  std::string tasks;
  int64_t resume = 0;
  double timeout = 10;
  int threads = 0;
  double timeBudget = 0;
  uint64_t seed = 1;
  int batch = 8;
  std::vector<std::string> dims;
  int64_t symbolicSize = unity::tuner::kDefaultSymbolicExtent;
  bool flushCache = false;
  bool quiet = false;
  // Where candidates are measured; empty / 0: the stored run's (on
  // --resume) or the default.
  std::string runner;
  std::vector<std::string> partitions;
  int maxJobs = 0;
  std::string jobTime;
  std::string spool;
};

/// The runner of this invocation: the command line's choices over the ones
/// stored with a resumed run.
unity::tuner::RunnerOptions runnerOptionsOf(const TuneArgs& a, const json& config,
                                            const std::string& dbPath) {
  unity::tuner::RunnerOptions o = config.contains("runner")
                                      ? unity::tuner::RunnerOptions::fromJson(config["runner"])
                                      : unity::tuner::RunnerOptions{};
  if (!a.runner.empty())
    o.kind = a.runner;
  if (!a.partitions.empty()) {
    o.partition.clear();
    o.subTargetPartitions.clear();
    for (auto& p : a.partitions)
      unity::tuner::addPartitionSpec(o, p);
  }
  if (a.maxJobs > 0)
    o.maxJobs = a.maxJobs;
  if (!a.jobTime.empty())
    o.jobTime = a.jobTime;
  if (!a.spool.empty())
    o.spool = fs::absolute(a.spool).string();
  if (o.kind == "local" &&
      (!a.partitions.empty() || a.maxJobs > 0 || !a.jobTime.empty() || !a.spool.empty()))
    throw Error("--partition, --max-jobs, --job-time and --spool need --runner slurm");
  if (o.kind != "local") {
    o.target = config.at("target").get<std::string>();
    if (o.spool.empty()) // beside the database: often the shared file system already
      o.spool = fs::absolute(dbPath).string() + ".spool";
  }
  return o;
}

std::string seconds(double s) {
  if (s <= 0)
    return "-";
  if (s < 1e-3)
    return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1)
    return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.2f} s", s);
}

std::string duration(double s) {
  int t = int(s + 0.5);
  return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

std::string flops(double f) {
  if (f >= 1e9)
    return fmt::format("{:.2f} G", f * 1e-9);
  if (f >= 1e6)
    return fmt::format("{:.2f} M", f * 1e-6);
  return fmt::format("{:.0f}", f);
}

/// The progress table: one row per task.
std::string table(const std::vector<unity::tuner::TaskState>& tasks) {
  std::string out =
      fmt::format("{:<28} {:>10} {:>6} {:>9} {:>11} {:>11} {:>7} {:>6} {:>6}\n", "task", "FLOPs",
                  "weight", "GFLOP/s", "latency", "default", "speedup", "trials", "errors");
  int64_t symbolicAt = 0;
  for (auto& st : tasks) {
    std::string name = st.task.name;
    if (st.task.symbolic) { // a mark the note below the table explains
      name += "*";
      symbolicAt = st.task.symbolicExtent;
    }
    if (name.size() > 28)
      name = name.substr(0, 24) + "..." + (st.task.symbolic ? "*" : "");
    if (!st.task.tunable) {
      out += fmt::format("{:<28} {:>10} {:>6}   not tuned: {}\n", name, flops(st.task.flops),
                         st.task.weight, st.task.whyNotTunable);
      continue;
    }
    std::string speedup = st.bestSeconds > 0 && st.defaultSeconds > 0
                              ? fmt::format("{:.2f}x", st.defaultSeconds / st.bestSeconds)
                              : "-";
    out += fmt::format("{:<28} {:>10} {:>6} {:>9.1f} {:>11} {:>11} {:>7} {:>6} {:>6}\n", name,
                       flops(st.task.flops), st.task.weight, st.gflops(), seconds(st.bestSeconds),
                       seconds(st.defaultSeconds), speedup, st.trials, st.errors);
  }
  if (symbolicAt > 0)
    out += fmt::format("* symbolic extents: measured (and FLOPs counted) with every free shape "
                       "variable at {} (--symbolic-size)\n",
                       symbolicAt);
  return out;
}

/// The target string a run tunes for: --threads fixes -num-cores (the
/// target, and so the records' key, says how many threads the kernels use).
std::string effectiveTarget(const std::string& text, int threads) {
  std::string t = resolveTargetOption(text);
  if (threads <= 0)
    return t;
  if (unity::target::isCompositeTargetString(t))
    throw Error("--threads with a composite target: give each sub-target its -num-cores");
  auto parsed = unity::target::Target::parse(t);
  parsed.attrs["num-cores"] = std::to_string(threads);
  return parsed.str();
}

/// The size symbolic extents are measured at; runs stored before there was
/// a choice have no "symbolic_size" (they had no symbolic task).
int64_t symbolicSizeOf(const json& config) {
  return config.value("symbolic_size", unity::tuner::kDefaultSymbolicExtent);
}

std::vector<unity::tuner::Task> tasksOf(const json& config) {
  unity::BuildOptions o;
  o.target = config.at("target").get<std::string>();
  unity::frontend::ImportOptions io;
  json dims = config.value("dims", json::object()); // items() must not outlive it
  for (auto& [name, value] : dims.items())
    io.dimValues[name] = value.get<int64_t>();
  auto model = unity::frontend::loadModel(config.at("model").get<std::string>(), io);
  auto tasks = unity::tuner::extractTasks(model, o, symbolicSizeOf(config));
  auto only = config.value("tasks", std::vector<std::string>{});
  if (only.empty())
    return tasks;
  std::set<std::string> want(only.begin(), only.end()), found;
  for (auto& t : tasks) {
    bool named = false;
    for (auto& f : t.functions)
      if (want.count(f)) {
        named = true;
        found.insert(f);
      }
    if (!named && t.tunable) {
      t.tunable = false;
      t.whyNotTunable = "not among --tasks";
    }
  }
  for (auto& w : want)
    if (!found.count(w)) {
      std::string names;
      for (auto& t : tasks)
        names += (names.empty() ? "" : ", ") + t.name;
      throw Error("--tasks: the model has no tensor function '" + w + "' (tasks: " + names + ")");
    }
  return tasks;
}

// Set by the signal handlers; lock-free atomics are async-signal-safe.
std::atomic<bool> gCancel{false};
std::atomic<bool> gPaused{false};

extern "C" void onStopSignal(int) {
  gCancel.store(true);
  gPaused.store(false); // a paused run must be able to stop
}
extern "C" void onPauseSignal(int sig) { gPaused.store(sig == SIGUSR1); }

/// Installs the handlers for the run and puts the old ones back on exit.
/// SIGINT/SIGTERM reset to the default after the first one (SA_RESETHAND):
/// a second Ctrl-C kills a run whose batch takes too long. The measuring
/// children inherit the handlers, so a Ctrl-C sent to the whole process
/// group does not kill the candidate being timed (no false `crash` record).
class ControlSignals {
public:
  ControlSignals() {
    gCancel.store(false);
    gPaused.store(false);
    struct sigaction stop {};
    stop.sa_handler = onStopSignal;
    stop.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&stop.sa_mask);
    struct sigaction pause {};
    pause.sa_handler = onPauseSignal;
    pause.sa_flags = SA_RESTART;
    sigemptyset(&pause.sa_mask);
    sigaction(SIGINT, &stop, &old_[0]);
    sigaction(SIGTERM, &stop, &old_[1]);
    sigaction(SIGUSR1, &pause, &old_[2]);
    sigaction(SIGUSR2, &pause, &old_[3]);
  }
  ~ControlSignals() {
    sigaction(SIGINT, &old_[0], nullptr);
    sigaction(SIGTERM, &old_[1], nullptr);
    sigaction(SIGUSR1, &old_[2], nullptr);
    sigaction(SIGUSR2, &old_[3], nullptr);
  }
  ControlSignals(const ControlSignals&) = delete;
  ControlSignals& operator=(const ControlSignals&) = delete;

private:
  struct sigaction old_[4];
};

/// Records what the run's process confirmed, for programs that follow the
/// database; a failure to write it is reported and does not stop the run.
void recordControl(unity::tuner::Database& db, int64_t runId, unity::tuner::RunControl c) {
  try {
    db.setRunControl(runId, c);
  } catch (const std::exception& e) {
    fmt::print(stderr, "tune: warning: could not record the run's state: {}\n", e.what());
  }
}

/// Called between two candidates: waits while paused (printing the change
/// and recording it in the database), and says once that a cancel was asked
/// for.
void honourControl(unity::tuner::Database& db, int64_t runId, int trialsDone) {
  static bool saidCancel = false;
  auto sayCancel = [&] {
    if (!gCancel.load() || saidCancel)
      return;
    saidCancel = true;
    fmt::print("tune: cancelling run {} after this batch ({} trials done)\n", runId, trialsDone);
    std::fflush(stdout);
    recordControl(db, runId, unity::tuner::RunControl::Cancelling);
  };
  sayCancel();
  if (!gPaused.load())
    return;
  recordControl(db, runId, unity::tuner::RunControl::Paused);
  fmt::print("tune: paused run {} at {} trials\n", runId, trialsDone);
  std::fflush(stdout);
  while (gPaused.load() && !gCancel.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (gCancel.load()) {
    sayCancel();
    return;
  }
  recordControl(db, runId, unity::tuner::RunControl::None);
  fmt::print("tune: continued run {}\n", runId);
  std::fflush(stdout);
}

/// What a viewer of the database needs to know of the run's tasks.
json taskInfo(const std::vector<unity::tuner::Task>& tasks) {
  json out = json::array();
  for (auto& t : tasks)
    out.push_back({{"name", t.name},
                   {"hash", t.hash},
                   {"target", t.target},
                   {"sub_target", t.subTarget},
                   {"flops", t.flops},
                   {"weight", t.weight},
                   {"functions", t.functions},
                   {"tunable", t.tunable},
                   {"why_not_tunable", t.whyNotTunable},
                   {"symbolic_extent", t.symbolicExtent}});
  return out;
}

int runTune(const TuneArgs& a) {
  // From the start: a stop asked for while the tasks are extracted ends the
  // run before its first batch, marked cancelled.
  ControlSignals control;
  if (a.db.empty())
    throw Error("tune: --db FILE.db is required");
  if (a.resume > 0 && !fs::exists(a.db))
    throw Error(a.db + ": no such tuning database to resume a run of");
  if (auto parent = fs::path(a.db).parent_path(); !parent.empty() && a.resume == 0)
    fs::create_directories(parent); // a new database may go into a new folder
  unity::tuner::Database db(a.db);
  json config;
  if (a.resume > 0) {
    auto run = db.run(a.resume);
    if (!run)
      throw Error(a.db + ": no run " + std::to_string(a.resume) + " to resume");
    // One process per run: a second one would measure the same candidates
    // and both would write its progress.
    if (run->status == unity::tuner::RunStatus::Running && run->process &&
        unity::tuner::liveness(*run->process) == unity::tuner::ProcessLiveness::Alive)
      throw Error(a.db + ": run " + std::to_string(a.resume) + " is still being tuned by process " +
                  std::to_string(run->process->pid) + "; cancel it before resuming it");
    config = run->config;
    if (!config.is_object() || !config.contains("model") || !config.contains("target"))
      throw Error(a.db + ": run " + std::to_string(a.resume) +
                  " has no model/target in its configuration (not started by tune)");
  } else {
    if (a.model.empty())
      throw Error("tune: give a MODEL file (or --resume RUN)");
    config = {{"model", fs::absolute(a.model).string()},
              {"target", effectiveTarget(a.target, a.threads)},
              {"trials", a.trials},
              {"tasks", splitComma(a.tasks)},
              {"timeout_s", a.timeout},
              {"seed", a.seed},
              {"batch", a.batch},
              {"time_budget_s", a.timeBudget},
              {"dims", json::object()},
              {"symbolic_size", a.symbolicSize},
              {"flush_cache", a.flushCache},
              {"runner", "local"}};
    for (auto& d : a.dims) {
      auto eq = d.find('=');
      if (eq == std::string::npos || eq == 0)
        throw Error("--dim expects NAME=VALUE, got '" + d + "'");
      try {
        config["dims"][d.substr(0, eq)] = std::stoll(d.substr(eq + 1));
      } catch (const std::exception&) {
        throw Error("--dim " + d + ": the value is not an integer");
      }
    }
  }
  auto runnerOptions = runnerOptionsOf(a, config, a.db);
  config["runner"] = runnerOptions.toJson();
  auto runner = unity::tuner::makeRunner(runnerOptions);
  auto tasks = tasksOf(config);
  unity::tuner::enableRemoteSubTargets(tasks, runnerOptions); // measured on their machines
  if (a.resume == 0)
    config["task_info"] = taskInfo(tasks);
  unity::tuner::TuneOptions opt;
  opt.trials = config.value("trials", 200);
  opt.seed = config.value("seed", uint64_t(1));
  opt.batchSize = std::max(1, config.value("batch", 8));
  opt.timeBudgetSeconds = a.resume > 0 ? a.timeBudget : config.value("time_budget_s", 0.0);
  opt.measure.timeoutSeconds = config.value("timeout_s", 10.0);
  opt.measure.flushCache = config.value("flush_cache", false);
  opt.measure.symbolicExtent = symbolicSizeOf(config);
  opt.process = unity::tuner::thisProcess();
  std::unique_ptr<unity::tuner::TuningRun> run =
      a.resume > 0
          ? std::make_unique<unity::tuner::TuningRun>(db, a.resume, std::move(tasks), opt, *runner)
          : std::make_unique<unity::tuner::TuningRun>(db, std::move(tasks), opt, *runner, config);
  int tunableTasks = 0;
  for (auto& t : run->tasks())
    tunableTasks += t.task.tunable;
  fmt::print("{} run {} on {}: {} tasks ({} tunable), {} trials, target '{}', runner {}\n",
             a.resume > 0 ? "resuming" : "tuning", run->runId(), a.db, run->tasks().size(),
             tunableTasks, opt.trials, config["target"].get<std::string>(), runner->name());
  std::fflush(stdout);
  // ControlSignals (above) turns SIGINT/SIGTERM into gCancel for every
  // runner; TuningRun hands the flag on, so a Slurm runner cancels the
  // array in flight rather than leave it holding the cluster's nodes.
  bool tty = isatty(fileno(stdout)) != 0;
  int lastLines = 0;
  int lastPrinted = -1;
  run->run(
      [&](const unity::tuner::Progress& p) {
        if (!p.finished) // a pause or cancel that came too late has nothing to stop
          honourControl(db, p.runId, p.trialsDone);
        if (a.quiet)
          return;
        std::string head =
            fmt::format("[{}/{}] elapsed {}  ETA {}  model {} (untuned {})\n", p.trialsDone,
                        p.trialsPlanned, duration(p.elapsedSeconds), duration(p.etaSeconds),
                        seconds(p.modelSeconds), seconds(p.defaultModelSeconds));
        if (tty) {
          std::string body = head + table(*p.tasks);
          if (lastLines > 0)
            fmt::print("\x1b[{}A\x1b[J", lastLines);
          fmt::print("{}", body);
          lastLines = int(std::count(body.begin(), body.end(), '\n'));
        } else if (p.trialsDone / opt.batchSize != lastPrinted || p.lastRecord == 0) {
          // A log, not a screen: the table once per batch.
          lastPrinted = p.trialsDone / opt.batchSize;
          fmt::print("{}{}", head, table(*p.tasks));
        }
        std::fflush(stdout);
      },
      &gCancel);
  auto finished = db.run(run->runId());
  fmt::print("\nrun {} {}: {} trials recorded in {}\n", run->runId(),
             finished ? unity::tuner::toString(finished->status) : "?",
             finished ? finished->trialsDone : 0, a.db);
  double before = 0, after = 0;
  int measured = 0, tunable = 0;
  for (auto& st : run->tasks()) {
    tunable += st.task.tunable;
    if (st.defaultSeconds <= 0)
      continue; // no baseline: neither side counts it
    ++measured;
    before += st.task.weight * st.defaultSeconds;
    after += st.task.weight * std::min(st.bestSeconds, st.defaultSeconds);
  }
  fmt::print("{}", table(run->tasks()));
  if (before > 0)
    fmt::print("kernel time per model run over the {} of {} tunable tasks whose default was "
               "measured (sum of weight x latency): {} untuned, {} tuned ({:.2f}x)\n",
               measured, tunable, seconds(before), seconds(after), before / after);
  fmt::print("apply: lowerscope-cli build {} --target \"{}\" --db {}\n",
             config["model"].get<std::string>(), config["target"].get<std::string>(), a.db);
  return 0;
}

} // namespace

void addTuneCommands(CLI::App& app, CommandList& out) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* t = app.add_subcommand(
      "tune", "Search schedules for a model's kernels; every measurement goes to a database");
  t->add_option("MODEL", a->model, "Model: .uir text IR or .onnx (not with --resume)");
  t->add_option("--target", a->target, "Target string or .json file (default llvm)");
  t->add_option("--db", a->db, "Tuning database file (created when absent)")->required();
  t->add_option("--trials", a->trials, "Candidates to measure, over all tasks (default 200)")
      ->check(CLI::Range(1, 10000000));
  t->add_option("--tasks", a->tasks, "Comma-separated tensor functions to tune (default all)");
  t->add_option("--resume", a->resume, "Continue run RUN of the database where it stopped");
  t->add_option("--timeout", a->timeout, "Seconds per candidate before it is killed (default 10)")
      ->check(CLI::Range(0.1, 86400.0));
  t->add_option("--threads", a->threads,
                "Kernel threads: sets the target's -num-cores (records are keyed by target)")
      ->check(CLI::Range(1, 1024));
  t->add_option("--time-budget", a->timeBudget, "Stop after this many seconds (default: none)")
      ->check(CLI::Range(0.0, 1e7));
  t->add_option("--seed", a->seed, "Seed of the search (default 1)");
  t->add_option("--batch", a->batch, "Candidates per round of one task (default 8)")
      ->check(CLI::Range(1, 1024));
  t->add_option("--dim", a->dims,
                "NAME=VALUE: import the ONNX symbolic dimension NAME as a constant; repeatable");
  t->add_option("--symbolic-size", a->symbolicSize,
                "Size every free shape variable (batch, sequence length) of a symbolic task "
                "takes when it is measured; the schedule found serves every size (default 128)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 30));
  t->add_flag("--flush-cache", a->flushCache,
              "Evict the caches before every timed call (inputs start in memory)");
  t->add_flag("--quiet", a->quiet, "No progress table, only the summary");
  t->add_option("--runner", a->runner,
                "Where candidates are measured: local (default) or slurm (a Slurm cluster)")
      ->check(CLI::IsMember(unity::tuner::runnerKinds()));
  t->add_option("--partition", a->partitions,
                "Slurm partition P, or SUBTARGET=P for one sub-target of a composite target; "
                "repeatable");
  t->add_option("--max-jobs", a->maxJobs,
                "Slurm array tasks of a batch running at once (default 4)")
      ->check(CLI::Range(1, 100000));
  t->add_option("--job-time", a->jobTime,
                "Slurm --time of each array task (default: from the batch and --timeout)");
  t->add_option("--spool", a->spool,
                "Directory the nodes share for batches and results (default DB.spool)");
  out.push_back({t, [a] { return runTune(*a); }});

  // The worker of --runner slurm: one array task's candidates.
  auto w = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* tw = app.add_subcommand(
      "tune-worker", "Measure the candidates of a Slurm array task (run by `tune --runner slurm`)");
  tw->group(""); // hidden: people run tune
  tw->add_option("--jobs", w->first, "Task file written by the Slurm runner")->required();
  tw->add_option("--out", w->second, "Results file, one JSON line per candidate")->required();
  out.push_back({tw, [w] {
                   unity::tuner::runWorker(w->first, w->second);
                   return 0;
                 }});
}

} // namespace lowerscope::cli
