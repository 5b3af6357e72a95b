// `lowerscope-cli db list|runs|best|show|export|import|prune FILE.db ...`:
// the tuning database from the command line. Reading commands print aligned
// tables (or JSON with --json); export/import move records to and from TVM
// MetaSchedule's JSON files; prune drops all but the best k ok records.
//
// Every command but import requires an existing, non-empty file: SQLite
// would otherwise create (or adopt) an empty database where the user
// mistyped a path. Opening refuses foreign, newer and non-SQLite files with
// a unity::Error naming the file (tuner/database.h); a file that is damaged
// inside (truncated pages, corrupt JSON in a row) fails at the first query
// that touches the damage, with SQLite's reason. main prints the message and
// exits with 1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>

#include "app/cli/commands.h"
#include "engine/schedule/trace.h"
#include "engine/support/error.h"
#include "tuner/database.h"
#include "tuner/metaschedule_json.h"

namespace lowerscope::cli {

namespace fs = std::filesystem;
using nlohmann::json;
using unity::Error;
using namespace unity::tuner;

namespace {

struct DbArgs {
  std::string file;
  std::string dir;
  std::string format;
  std::string workload;
  std::string target;
  int64_t recordId = 0;
  int k = 5;
  int keep = -1;
  bool json = false;
};

/// Opens a database that must exist already.
std::unique_ptr<Database> openExisting(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(path + ": no such file");
  if (fs::is_directory(path, ec))
    throw Error(path + ": is a directory, not a tuning database");
  if (fs::file_size(path, ec) == 0)
    throw Error(path + ": empty file, not a tuning database");
  return std::make_unique<Database>(path);
}

/// A latency in the unit that keeps 3-4 significant digits readable.
std::string latency(std::optional<double> s) {
  if (!s)
    return "-";
  if (*s < 1e-3)
    return fmt::format("{:.2f} us", *s * 1e6);
  if (*s < 1)
    return fmt::format("{:.3f} ms", *s * 1e3);
  return fmt::format("{:.3f} s", *s);
}

/// A FLOP count with an SI prefix: "8.19 K", "1.07 G".
std::string flopCount(double f) {
  if (f >= 1e9)
    return fmt::format("{:.2f} G", f / 1e9);
  if (f >= 1e6)
    return fmt::format("{:.2f} M", f / 1e6);
  if (f >= 1e3)
    return fmt::format("{:.2f} K", f / 1e3);
  return fmt::format("{:.0f}", f);
}

std::optional<double> gflops(double flops, std::optional<double> s) {
  if (!s || *s <= 0 || flops <= 0)
    return std::nullopt;
  return flops / *s / 1e9;
}

std::string number(std::optional<double> v, int decimals = 2) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "-";
}

/// Prints rows under a header with each column as wide as its widest cell;
/// columns listed in `right` are right-aligned (numbers).
void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c)
    width[c] = header[c].size();
  for (auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      bool last = c + 1 == cells.size();
      if (right[c])
        out += fmt::format("{:>{}}", cells[c], width[c]);
      else
        out += last ? cells[c] : fmt::format("{:<{}}", cells[c], width[c]);
      if (!last)
        out += "  ";
    }
    fmt::print("{}\n", out);
  };
  line(header);
  for (auto& r : rows)
    line(r);
}

json optJson(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

std::string ellipsize(std::string s, size_t n) {
  if (s.size() > n)
    s = s.substr(0, n - 3) + "...";
  return s;
}

struct Lookup {
  std::map<int64_t, Workload> workloads;
  std::map<int64_t, std::string> targets;
  explicit Lookup(const Database& db) {
    for (auto& w : db.workloads())
      workloads[w.id] = w;
    for (auto& t : db.targets())
      targets[t.id] = t.text;
  }
};

/// The (workload, target) ids selected by --workload / --target; an unknown
/// hash or target text is an error (a typo must not look like "no records").
std::vector<std::pair<int64_t, int64_t>> selectPairs(const Database& db, const DbArgs& a) {
  std::optional<int64_t> w, t;
  if (!a.workload.empty()) {
    auto found = db.workloadByHash(a.workload);
    if (!found)
      throw Error(a.file + ": no workload with hash '" + a.workload + "'");
    w = found->id;
  }
  if (!a.target.empty()) {
    t = db.targetId(a.target);
    if (!t)
      throw Error(a.file + ": no target '" + a.target + "' (db list shows the targets)");
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& s : db.summary())
    if ((!w || s.workloadId == *w) && (!t || s.targetId == *t))
      out.emplace_back(s.workloadId, s.targetId);
  return out;
}

int runList(const DbArgs& a) {
  auto db = openExisting(a.file);
  Lookup names(*db);
  auto summary = db->summary();
  if (a.json) {
    json out = json::array();
    for (auto& [id, w] : names.workloads) {
      json targets = json::array();
      for (auto& s : summary)
        if (s.workloadId == id)
          targets.push_back({{"target", names.targets[s.targetId]},
                             {"ok", s.okRecords},
                             {"failed", s.failedRecords},
                             {"best_s", optJson(s.bestMeanS)},
                             {"gflops", optJson(gflops(w.flops, s.bestMeanS))}});
      out.push_back({{"hash", w.hash}, {"flops", w.flops}, {"targets", targets}});
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{}: schema v{}, {} workloads, {} targets, {} runs\n", a.file, db->schemaVersion(),
             names.workloads.size(), names.targets.size(), db->runs().size());
  std::vector<std::vector<std::string>> rows;
  for (auto& [id, w] : names.workloads) {
    bool any = false;
    for (auto& s : summary) {
      if (s.workloadId != id)
        continue;
      any = true;
      rows.push_back({w.hash, flopCount(w.flops), names.targets[s.targetId],
                      std::to_string(s.okRecords), std::to_string(s.failedRecords),
                      latency(s.bestMeanS), number(gflops(w.flops, s.bestMeanS))});
    }
    if (!any)
      rows.push_back({w.hash, flopCount(w.flops), "-", "0", "0", "-", "-"});
  }
  printTable({"workload", "FLOPs", "target", "ok", "failed", "best", "GFLOP/s"}, rows,
             {false, true, false, true, true, true, true});
  return 0;
}

int runRuns(const DbArgs& a) {
  auto db = openExisting(a.file);
  auto runs = db->runs();
  if (a.json) {
    json out = json::array();
    for (auto& r : runs)
      out.push_back({{"id", r.id},
                     {"status", toString(r.status)},
                     {"started_at", r.startedAt},
                     {"ended_at", r.endedAt.empty() ? json(nullptr) : json(r.endedAt)},
                     {"trials_done", r.trialsDone},
                     {"trials_planned", r.trialsPlanned},
                     {"config", r.config}});
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (auto& r : runs)
    rows.push_back(
        {std::to_string(r.id), toString(r.status), r.startedAt, r.endedAt.empty() ? "-" : r.endedAt,
         fmt::format("{}/{}", r.trialsDone, r.trialsPlanned), ellipsize(r.config.dump(), 72)});
  printTable({"run", "status", "started", "ended", "trials", "config"}, rows,
             {true, false, false, false, true, false});
  if (runs.empty())
    fmt::print("(no runs)\n");
  return 0;
}

json recordJson(const Record& r, const Lookup& names) {
  const Workload& w = names.workloads.at(r.workloadId);
  return {{"id", r.id},
          {"workload", w.hash},
          {"target", names.targets.at(r.targetId)},
          {"run", r.runId ? json(*r.runId) : json(nullptr)},
          {"trial", r.trial},
          {"status", toString(r.status)},
          {"error_kind", r.errorKind},
          {"error_message", r.errorMessage},
          {"times_s", r.times},
          {"mean_s", optJson(r.meanS)},
          {"gflops", optJson(gflops(w.flops, r.meanS))},
          {"build_s", r.buildS},
          {"predicted_s", optJson(r.predictedS)},
          {"node", r.node},
          {"created_at", r.createdAt},
          {"decisions", r.decisions},
          {"trace", r.trace}};
}

int runBest(const DbArgs& a) {
  if (a.k < 1)
    throw Error("db best: -k must be at least 1");
  auto db = openExisting(a.file);
  Lookup names(*db);
  std::vector<Record> recs;
  for (auto [w, t] : selectPairs(*db, a))
    for (auto& r : db->best(w, t, a.k))
      recs.push_back(r);
  if (a.json) {
    json out = json::array();
    for (auto& r : recs)
      out.push_back(recordJson(r, names));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (auto& r : recs) {
    const Workload& w = names.workloads.at(r.workloadId);
    rows.push_back({std::to_string(r.id), w.hash, names.targets.at(r.targetId), latency(r.meanS),
                    number(gflops(w.flops, r.meanS)), r.runId ? std::to_string(*r.runId) : "-",
                    std::to_string(r.trial), r.node});
  }
  printTable({"record", "workload", "target", "mean", "GFLOP/s", "run", "trial", "node"}, rows,
             {true, false, false, true, true, true, true, false});
  if (recs.empty())
    fmt::print("(no ok records)\n");
  return 0;
}

int runShow(const DbArgs& a) {
  auto db = openExisting(a.file);
  auto r = db->record(a.recordId);
  if (!r)
    throw Error(a.file + ": no record " + std::to_string(a.recordId));
  Lookup names(*db);
  if (a.json) {
    fmt::print("{}\n", recordJson(*r, names).dump(2));
    return 0;
  }
  const Workload& w = names.workloads.at(r->workloadId);
  std::string times;
  for (double t : r->times)
    times += (times.empty() ? "" : ", ") + latency(t);
  fmt::print("record      {}\n", r->id);
  fmt::print("workload    {} ({}FLOP)\n", w.hash, flopCount(w.flops));
  fmt::print("target      {}\n", names.targets.at(r->targetId));
  fmt::print("run         {}, trial {}\n", r->runId ? std::to_string(*r->runId) : "-", r->trial);
  fmt::print("status      {}\n", toString(r->status));
  if (!r->errorKind.empty() || !r->errorMessage.empty())
    fmt::print("error       {}: {}\n", r->errorKind, r->errorMessage);
  fmt::print("times       [{}]\n", times);
  fmt::print("mean        {} ({} GFLOP/s)\n", latency(r->meanS), number(gflops(w.flops, r->meanS)));
  fmt::print("build       {:.3f} s\n", r->buildS);
  fmt::print("predicted   {}\n", latency(r->predictedS));
  fmt::print("node        {}\n", r->node);
  fmt::print("created     {}\n", r->createdAt);
  if (!r->decisions.empty())
    fmt::print("decisions   {}\n", r->decisions.dump());
  fmt::print("trace:\n");
  try {
    std::string text = unity::schedule::Trace::fromJsonString(r->trace.dump()).str();
    fmt::print("{}", text.empty() ? "  (empty: the default schedule)\n" : "");
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      fmt::print("  {}\n", text.substr(at, nl - at));
      at = nl == std::string::npos ? text.size() : nl + 1;
    }
  } catch (const Error& e) {
    // Show what is stored even when this program cannot read it.
    fmt::print("  (unreadable: {})\n  {}\n", e.message(), r->trace.dump());
  }
  return 0;
}

void requireMetaSchedule(const DbArgs& a, const char* cmd) {
  if (a.format != "metaschedule")
    throw Error(std::string("db ") + cmd + ": unknown --format '" + a.format +
                "' (supported: metaschedule)");
}

int runExport(const DbArgs& a) {
  requireMetaSchedule(a, "export");
  auto db = openExisting(a.file);
  if (!a.workload.empty() && !db->workloadByHash(a.workload))
    throw Error(a.file + ": no workload with hash '" + a.workload + "'");
  if (!a.target.empty() && !db->targetId(a.target))
    throw Error(a.file + ": no target '" + a.target + "'");
  auto rep = metaschedule::exportDatabase(*db, a.dir, {a.workload, a.target});
  for (auto& r : rep.refused)
    fmt::print(stderr, "not exported: {}\n", r);
  fmt::print("exported {} workloads and {} records to {} ({}, {}); {} records refused\n",
             rep.workloads, rep.records, a.dir, metaschedule::kWorkloadFile,
             metaschedule::kRecordFile, rep.refused.size());
  return 0;
}

int runImport(const DbArgs& a) {
  requireMetaSchedule(a, "import");
  std::error_code ec;
  if (fs::exists(a.file, ec) && fs::is_directory(a.file, ec))
    throw Error(a.file + ": is a directory, not a tuning database");
  // Both files must be there before a new database file is created.
  for (const char* f : {metaschedule::kWorkloadFile, metaschedule::kRecordFile}) {
    fs::path p = fs::path(a.dir) / f;
    if (!fs::is_regular_file(p, ec))
      throw Error(p.string() + ": cannot open MetaSchedule database file");
  }
  Database db(a.file); // created when absent
  auto rep = metaschedule::importDatabase(db, a.dir);
  for (auto& r : rep.refused)
    fmt::print(stderr, "not imported: {}\n", r);
  fmt::print("imported {} records ({} failed) of {} workloads from {}\n", rep.records,
             rep.failedRecords, rep.workloads, a.dir);
  if (rep.duplicates)
    fmt::print("skipped {} records already in {}\n", rep.duplicates, a.file);
  if (rep.foreignRecords || rep.foreignWorkloads)
    fmt::print("skipped {} records of {} TVM workloads (a TVM IRModule cannot be rebuilt here)\n",
               rep.foreignRecords, rep.foreignWorkloads);
  if (rep.droppedAnnotations)
    fmt::print("dropped {} Annotate/EnterPostproc instructions (no counterpart here)\n",
               rep.droppedAnnotations);
  if (!rep.refused.empty())
    fmt::print("refused {} records (reasons on stderr)\n", rep.refused.size());
  return 0;
}

int runPrune(const DbArgs& a) {
  if (a.keep < 0)
    throw Error("db prune: --keep must be 0 or more");
  auto db = openExisting(a.file);
  int64_t deleted = 0;
  auto pairs = selectPairs(*db, a);
  for (auto [w, t] : pairs)
    deleted += db->prune(w, t, a.keep);
  fmt::print("pruned {} ok records of {} workload/target pairs (kept the best {} of each; failed "
             "records are kept)\n",
             deleted, pairs.size(), a.keep);
  return 0;
}

} // namespace

void addDbCommands(CLI::App& app, CommandList& out) {
  auto a = std::make_shared<DbArgs>();
  CLI::App* db = app.add_subcommand("db", "Inspect, export, import and prune a tuning database");
  db->require_subcommand(1);
  auto file = [&](CLI::App* sub) {
    sub->add_option("FILE", a->file, "tuning database (.db)")->required();
  };
  auto jsonFlag = [&](CLI::App* sub) {
    sub->add_flag("--json", a->json, "Machine-readable JSON instead of a table");
  };
  auto filters = [&](CLI::App* sub) {
    sub->add_option("--workload", a->workload, "Only this workload (its hash)");
    sub->add_option("--target", a->target, "Only this target (its text, as db list shows it)");
  };

  CLI::App* list = db->add_subcommand(
      "list", "Workloads with their record counts per target and the best latency and GFLOP/s");
  file(list);
  jsonFlag(list);

  CLI::App* runs = db->add_subcommand("runs", "Tuning runs: status, start/end, trials, config");
  file(runs);
  jsonFlag(runs);

  CLI::App* best = db->add_subcommand("best", "The best ok records per workload and target");
  file(best);
  filters(best);
  best->add_option("-k", a->k, "How many per workload and target (default 5)");
  jsonFlag(best);

  CLI::App* show = db->add_subcommand("show", "One record in full, its trace as text");
  file(show);
  show->add_option("RECORD_ID", a->recordId, "record id (db best shows them)")->required();
  jsonFlag(show);

  CLI::App* exp =
      db->add_subcommand("export", "Write records as TVM MetaSchedule JSON database files");
  file(exp);
  exp->add_option("--format", a->format, "File format: metaschedule")->required();
  exp->add_option("DIR", a->dir,
                  "Directory for database_workload.json and "
                  "database_tuning_record.json")
      ->required();
  filters(exp);

  CLI::App* imp =
      db->add_subcommand("import", "Read TVM MetaSchedule JSON database files into FILE.db");
  file(imp);
  imp->add_option("--format", a->format, "File format: metaschedule")->required();
  imp->add_option("DIR", a->dir,
                  "Directory holding database_workload.json and "
                  "database_tuning_record.json")
      ->required();

  CLI::App* prune = db->add_subcommand(
      "prune", "Delete all but the best K ok records per workload and target (failures stay)");
  file(prune);
  prune->add_option("--keep", a->keep, "How many ok records to keep per workload and target")
      ->required();
  filters(prune);

  out.push_back({db, [=] {
                   if (list->parsed())
                     return runList(*a);
                   if (runs->parsed())
                     return runRuns(*a);
                   if (best->parsed())
                     return runBest(*a);
                   if (show->parsed())
                     return runShow(*a);
                   if (exp->parsed())
                     return runExport(*a);
                   if (imp->parsed())
                     return runImport(*a);
                   return runPrune(*a);
                 }});
}

} // namespace lowerscope::cli
