// `lowerscope-cli import` (ONNX -> text IR) and `lowerscope-cli onnx-test`,
// the ONNX backend-test conformance harness.
//
// onnx-test finds every case folder (one holding model.onnx) under the given
// folders and runs each in its own child process -- an exec of
// /proc/self/exe with the hidden `onnx-test-case DIR` sub-command, through
// the engine's isolated worker pool (engine/support/worker_pool.h) -- so a
// crash or a hang in one case cannot stop the run. Up to --jobs children run
// at once; a child that passes --timeout is killed, and the child's verdict
// is its final "@@RESULT <json>" line on stdout. A child that dies from a
// signal (or exits without a verdict) is a crash. Results go to a JSON report
// and a one-line summary.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "app/cli/commands.h"
#include "engine/conformance/onnx_conformance.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/support/worker_pool.h"
#include "engine/text/printer.h"

namespace lowerscope::cli {

namespace fs = std::filesystem;
using unity::Error;
using unity::conformance::CaseStatus;

namespace {

struct Case {
  std::string name, dir;
  std::string status = "error", detail;
  double ms = 0;
};

std::vector<Case> findCases(const std::vector<std::string>& roots, const std::string& filter) {
  std::regex re(filter.empty() ? ".*" : filter);
  std::vector<Case> out;
  std::set<std::string> seen;
  for (auto& root : roots) {
    if (!fs::is_directory(root))
      throw Error(root + ": not a folder");
    auto consider = [&](const fs::path& d) {
      if (fs::exists(d / "model.onnx") && std::regex_search(d.filename().string(), re) &&
          seen.insert(fs::weakly_canonical(d).string()).second)
        out.push_back({d.filename().string(), d.string(), "error", "", 0});
    };
    consider(root);
    for (auto& e : fs::recursive_directory_iterator(root))
      if (e.is_directory())
        consider(e.path());
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.dir < b.dir; });
  return out;
}

std::string lastLine(const std::string& s) {
  auto end = s.find_last_not_of('\n');
  if (end == std::string::npos)
    return {};
  auto begin = s.rfind('\n', end);
  return s.substr(begin == std::string::npos ? 0 : begin + 1,
                  end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

/// The case's verdict from its child's result: the "@@RESULT <json>" line
/// the child prints last on stdout, else why there is none.
void finish(const unity::JobResult& r, Case& c) {
  c.ms = r.seconds * 1e3;
  auto at = r.payload.rfind("@@RESULT ");
  // The child's last words: its stderr, or its stdout when it wrote nothing there.
  std::string last = lastLine(r.stderrText.empty() ? r.payload : r.stderrText);
  if (r.status == unity::JobStatus::TimedOut) {
    c.status = "timeout";
    c.detail = fmt::format("killed after {:.1f} s", r.seconds);
  } else if (at != std::string::npos) {
    try {
      auto j = nlohmann::json::parse(lastLine(r.payload.substr(at + 9)));
      c.status = j.at("status").get<std::string>();
      c.detail = j.at("detail").get<std::string>();
    } catch (const std::exception& e) {
      c.status = "error";
      c.detail = std::string("unreadable verdict: ") + e.what();
    }
  } else if (r.status == unity::JobStatus::Crashed) {
    c.status = "crash";
    c.detail = fmt::format("signal {} ({}, {}): {}", r.signal, unity::signalName(r.signal),
                           strsignal(r.signal), last);
  } else {
    c.status = "crash";
    c.detail = fmt::format("exit code {} without a verdict: {}", r.exitCode, last);
  }
}

/// Runs every case in its own child process (the hidden onnx-test-case
/// sub-command of this executable), at most `jobs` at once.
void runAll(std::vector<Case>& cases, int jobs, double timeoutSec, const std::string& target,
            bool progress) {
  std::vector<unity::IsolatedJob> work;
  for (auto& c : cases) {
    unity::IsolatedJob j;
    j.command = {"/proc/self/exe", "onnx-test-case", c.dir, "--target", target};
    work.push_back(std::move(j));
  }
  unity::WorkerPoolOptions o;
  o.workers = jobs;
  o.timeoutSeconds = timeoutSec;
  size_t done = 0;
  unity::runIsolated(work, o, [&](const unity::JobResult& r) {
    Case& c = cases[r.index];
    finish(r, c);
    ++done;
    if (progress)
      fmt::print(stderr, "[{}/{}] {} {} ({:.0f} ms)\n", done, cases.size(), c.status, c.name, c.ms);
  });
}

std::set<std::string> readNameList(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot open file");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#')
      names.insert(line);
  }
  return names;
}

/// The cause of a non-passing case without per-case names: the first
/// refusal's "OpType: reason" (node names dropped), or the detail's head.
std::string causeOf(const Case& c) {
  std::string d = c.detail;
  if (d.rfind("specialized: ", 0) == 0 && d.find("; ") != std::string::npos)
    d = d.substr(d.find("; ") + 2);
  if (d.rfind("import: ", 0) == 0) {
    d = d.substr(8);
    d = d.substr(0, d.find("; "));
    auto open = d.find(" (");
    auto close = d.find("): ");
    if (open != std::string::npos && close != std::string::npos && open < close)
      d = d.substr(open + 2, close - open - 2) + ": " + d.substr(close + 3);
    // "x (graph input): ..." style and long reasons: keep the head.
  }
  if (c.status == "fail")
    d = "wrong result (see the case's detail in the JSON report)";
  if (d.size() > 110)
    d = d.substr(0, 107) + "...";
  for (auto& ch : d)
    if (ch == '|')
      ch = '/';
  return d;
}

/// docs/onnx-conformance.md: counts by status per top-level folder and the
/// most common causes, generated from a run.
void writeMarkdown(const std::string& path, const std::vector<Case>& cases,
                   const std::vector<std::string>& roots, const std::string& command, double sec,
                   int jobs) {
  const char* statuses[] = {"pass", "fail", "unsupported", "error", "crash", "timeout"};
  std::map<std::string, std::map<std::string, int>> byFolder;
  std::map<std::string, int> totals;
  auto folderOf = [&](const Case& c) {
    for (auto& r : roots) {
      fs::path rel = fs::path(c.dir).lexically_relative(r);
      if (!rel.empty() && *rel.begin() != "..")
        return std::distance(rel.begin(), rel.end()) > 1 ? rel.begin()->string()
                                                         : fs::path(r).filename().string();
    }
    return fs::path(c.dir).parent_path().filename().string();
  };
  std::map<std::string, std::pair<int, std::string>> causes; // cause -> count, example
  int specialized = 0;
  for (auto& c : cases) {
    ++byFolder[folderOf(c)][c.status];
    ++totals[c.status];
    if (c.detail.rfind("specialized: ", 0) == 0 && c.status == "pass")
      ++specialized;
    if (c.status == "pass")
      continue;
    auto& e = causes[c.status + ": " + causeOf(c)];
    if (e.first++ == 0)
      e.second = c.name;
  }
  std::ofstream f(path);
  f << "# ONNX backend-suite conformance\n\n"
    << "Generated by `lowerscope-cli onnx-test ... --markdown` (do not edit by hand):\n\n"
    << "```sh\n"
    << command << "\n```\n\n"
    << fmt::format("{} cases in {:.1f} s with {} jobs. Statuses and tolerances: "
                   "[onnx.md](onnx.md#conformance-harness).\n\n",
                   cases.size(), sec, jobs);
  f << "| folder | cases | pass | fail | unsupported | error | crash | timeout | pass % |\n"
    << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  auto row = [&](const std::string& name, std::map<std::string, int>& m) {
    int n = 0;
    for (auto* st : statuses)
      n += m[st];
    f << "| " << name << " | " << n;
    for (auto* st : statuses)
      f << " | " << m[st];
    f << fmt::format(" | {:.1f} |\n", n ? 100.0 * m["pass"] / n : 0.0);
  };
  for (auto& [folder, m] : byFolder)
    row(folder, m);
  row("**all**", totals);
  // Cases whose operators all have a converter: no "unknown operator" or
  // other-domain refusal in the detail (an import error lists every node).
  std::map<std::string, std::pair<int, int>> inSet; // folder -> (cases, pass)
  for (auto& c : cases) {
    bool unknown = c.detail.find("unknown operator") != std::string::npos ||
                   c.detail.find("operator domain '") != std::string::npos ||
                   c.detail.find("no default-domain opset") != std::string::npos;
    if (unknown)
      continue;
    auto& e = inSet[folderOf(c)];
    ++e.first;
    e.second += c.status == "pass";
  }
  f << "\nCases whose operators all have a converter (no *unknown operator* or other-domain "
       "refusal):\n\n| folder | cases | pass | pass % |\n| --- | --- | --- | --- |\n";
  for (auto& [folder, e] : inSet)
    f << fmt::format("| {} | {} | {} | {:.1f} |\n", folder, e.first, e.second,
                     e.first ? 100.0 * e.second / e.first : 0.0);
  f << "\n"
    << specialized
    << " passing cases ran with input specialization (shape-deciding inputs fixed to the test "
       "data's values; see onnx.md).\n\n";
  std::vector<std::tuple<int, std::string, std::string>> sorted;
  for (auto& [cause, e] : causes)
    sorted.emplace_back(e.first, cause, e.second);
  std::sort(sorted.begin(), sorted.end(),
            [](auto& a, auto& b) { return std::get<0>(a) > std::get<0>(b); });
  f << "## Why cases do not pass (all causes, most common first)\n\n"
    << "The first refusal of each case (a case may have more).\n\n"
    << "| cases | status: cause | example |\n| --- | --- | --- |\n";
  for (auto& [n, cause, example] : sorted)
    f << "| " << n << " | " << cause << " | " << example << " |\n";
  if (!f)
    throw Error(path + ": cannot write file");
}

} // namespace

void addOnnxCommands(CLI::App& app, CommandList& out) {
  // ---- import ----
  struct ImportArgs {
    std::string file, output;
    std::vector<std::string> binds;
  };
  auto imp = std::make_shared<ImportArgs>();
  CLI::App* i = app.add_subcommand("import", "Import an ONNX model and write it as text IR");
  i->add_option("FILE", imp->file, "ONNX model (.onnx)")->required();
  i->add_option("-o,--output", imp->output, "Output .uir file (default: standard output)");
  i->add_option("--bind", imp->binds,
                "NAME=FILE.pb: specialize graph input NAME to the tensor in FILE.pb (a "
                "serialized TensorProto); it becomes a constant (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  out.push_back({i, [imp] {
                   unity::frontend::ImportOptions io;
                   for (auto& b : imp->binds) {
                     auto eq = b.find('=');
                     if (eq == std::string::npos || eq == 0 || eq + 1 == b.size())
                       throw Error("--bind '" + b + "': expected NAME=FILE.pb");
                     io.inputValues[b.substr(0, eq)] =
                         unity::frontend::readTensorProto(b.substr(eq + 1));
                   }
                   unity::Stopwatch sw;
                   auto m = unity::frontend::importOnnx(imp->file, io);
                   double ms = sw.wallMs();
                   std::string text = unity::text::printModule(m);
                   if (imp->output.empty()) {
                     fmt::print("{}", text);
                     return 0;
                   }
                   std::ofstream f(imp->output, std::ios::binary);
                   f << text;
                   if (!f)
                     throw Error(imp->output + ": cannot write file");
                   fmt::print("imported {} in {:.1f} ms -> {}\n", imp->file, ms, imp->output);
                   return 0;
                 }});

  // ---- onnx-test ----
  struct TestArgs {
    std::vector<std::string> dirs;
    std::string report, filter, expectPass, writePass, markdown, target = "llvm";
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    double timeout = 120;
    bool progress = false;
  };
  auto t = std::make_shared<TestArgs>();
  CLI::App* s = app.add_subcommand(
      "onnx-test", "Run ONNX backend-test cases (folders with model.onnx + test_data_set_N)");
  s->add_option("DIR", t->dirs, "Folders searched recursively for cases")->required();
  s->add_option("--report", t->report, "Write the JSON report here");
  s->add_option("--jobs", t->jobs, "Cases run in parallel")->check(CLI::Range(1, 256));
  s->add_option("--filter", t->filter, "Only cases whose name matches this regex");
  s->add_option("--timeout", t->timeout, "Seconds per case before it is killed")
      ->check(CLI::Range(0.1, 86400.0));
  s->add_option("--target", t->target, "Target to build for");
  s->add_option("--expect-pass", t->expectPass,
                "Run only the cases named in FILE (one per line) and exit 1 unless all pass");
  s->add_option("--write-pass-list", t->writePass, "Write the names of passing cases to FILE");
  s->add_option("--markdown", t->markdown,
                "Write the table by status per folder and the causes as Markdown to FILE "
                "(docs/onnx-conformance.md)");
  s->add_flag("--progress", t->progress, "Print each case's result to stderr as it finishes");
  out.push_back(
      {s, [t] {
         auto cases = findCases(t->dirs, t->filter);
         std::set<std::string> expected;
         std::vector<Case> missing;
         if (!t->expectPass.empty()) {
           expected = readNameList(t->expectPass);
           std::erase_if(cases, [&](const Case& c) { return !expected.count(c.name); });
           std::set<std::string> found;
           for (auto& c : cases)
             found.insert(c.name);
           for (auto& n : expected)
             if (!found.count(n))
               missing.push_back({n, "", "error", "case folder not found", 0});
         }
         unity::Stopwatch sw;
         runAll(cases, t->jobs, t->timeout, t->target, t->progress);
         cases.insert(cases.end(), missing.begin(), missing.end());
         double sec = sw.wallSeconds();
         std::map<std::string, int> count;
         for (const char* k : {"pass", "fail", "unsupported", "error", "crash", "timeout"})
           count[k] = 0;
         nlohmann::json jc = nlohmann::json::array();
         for (auto& c : cases) {
           ++count[c.status];
           jc.push_back({{"name", c.name},
                         {"dir", c.dir},
                         {"status", c.status},
                         {"detail", c.detail},
                         {"ms", std::round(c.ms * 10) / 10}});
         }
         nlohmann::json summary;
         for (auto& [k, v] : count)
           summary[k] = v;
         summary["total"] = cases.size();
         if (!t->report.empty()) {
           std::ofstream f(t->report);
           f << nlohmann::json{{"summary", summary}, {"cases", jc}}.dump(2) << "\n";
           if (!f)
             throw Error(t->report + ": cannot write file");
         }
         if (!t->markdown.empty()) {
           std::string cmd = "lowerscope-cli onnx-test";
           for (auto& d : t->dirs)
             cmd += " " + d;
           if (!t->filter.empty())
             cmd += " --filter '" + t->filter + "'";
           cmd += fmt::format(" --jobs {} --markdown {}", t->jobs, t->markdown);
           writeMarkdown(t->markdown, cases, t->dirs, cmd, sec, t->jobs);
         }
         if (!t->writePass.empty()) {
           std::ofstream f(t->writePass);
           for (auto& c : cases)
             if (c.status == "pass")
               f << c.name << "\n";
         }
         fmt::print("onnx-test: {} cases: {} pass, {} fail, {} unsupported, {} error, {} "
                    "crash, {} timeout ({:.1f} s, {} jobs)\n",
                    cases.size(), count["pass"], count["fail"], count["unsupported"],
                    count["error"], count["crash"], count["timeout"], sec, t->jobs);
         if (t->expectPass.empty())
           return 0;
         int regressed = 0;
         for (auto& c : cases)
           if (c.status != "pass") {
             fmt::print("REGRESSED {}: {}: {}\n", c.name, c.status, c.detail);
             ++regressed;
           }
         return regressed ? 1 : 0;
       }});

  // ---- onnx-test-case (hidden; the child side of onnx-test) ----
  struct CaseArgs {
    std::string dir, target = "llvm";
  };
  auto ca = std::make_shared<CaseArgs>();
  CLI::App* c = app.add_subcommand("onnx-test-case", "Run one ONNX test case (internal)");
  c->group(""); // hidden from --help
  c->add_option("DIR", ca->dir)->required();
  c->add_option("--target", ca->target);
  out.push_back({c, [ca] {
                   auto r = unity::conformance::runConformanceCase(ca->dir, ca->target);
                   nlohmann::json j{{"status", unity::conformance::caseStatusName(r.status)},
                                    {"detail", r.detail}};
                   std::fflush(stderr);
                   fmt::print("\n@@RESULT {}\n", j.dump());
                   std::fflush(stdout);
                   return 0;
                 }});
}

} // namespace lowerscope::cli
