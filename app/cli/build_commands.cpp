// `lowerscope-cli build` and `lowerscope-cli run`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <malloc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/target_options.h"
#include "engine/build.h"
#include "engine/frontend/load_model.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/support/npy.h"
#include "engine/target/schedule_policy.h"
#include "engine/text/printer.h"
#include "tuner/apply_database.h"
#include "tuner/database.h"

namespace lowerscope::cli {

namespace fs = std::filesystem;
using unity::Error;

namespace {

struct BuildArgs {
  std::string file;
  std::string target = "llvm";
  std::string pipeline = "default";
  std::string passes;
  std::string dumpDir, emitDir;
  std::string assign;
  std::string db;
  std::string policy;
  bool reportMemory = false;
};

void addBuildFlags(CLI::App* sub, BuildArgs& a) {
  sub->add_option("FILE", a.file, "Model: .uir text IR or .onnx")->required();
  sub->add_option("--target", a.target,
                  "Target string (\"llvm -mcpu=native -num-cores=2\"), composite target "
                  "(\"fast: llvm; compat: c; blas: openblas\") or a .json file holding either");
  sub->add_option("--assign", a.assign,
                  "JSON file mapping source-model node names or binding names to sub-targets, "
                  "e.g. {\"conv1\": \"dnnl\", \"fc\": \"compat\"} (see docs/cli.md)");
  sub->add_option("--pipeline", a.pipeline, "Named pass pipeline");
  sub->add_option("--passes", a.passes,
                  "Comma-separated registered passes (instead of --pipeline)");
  sub->add_option("--db", a.db,
                  "Tuning database (lowerscope-cli tune): ApplyTuningDatabase runs before "
                  "DefaultSchedule and gives each kernel the best record for its target");
  sub->add_option("--policy", a.policy,
                  "Schedule policy knobs over the target's defaults, a JSON object (e.g. "
                  "'{\"packed_conv_min_channels\": 0}'; knobs: docs/targets.md)");
}

/// The module and build options of a build/run command line: the target
/// resolved (a .json file read), the --assign file read (build() applies it).
std::pair<unity::ir::IRModule, unity::BuildOptions> prepare(const BuildArgs& a) {
  unity::BuildOptions o;
  o.target = resolveTargetOption(a.target);
  o.pipeline = a.pipeline;
  o.passes = splitComma(a.passes);
  if (!a.policy.empty()) {
    unity::target::SchedulePolicy().withJSON(a.policy); // a bad knob fails here, by name
    o.config.set("tir.schedule_policy", a.policy);
  }
  if (!a.assign.empty()) {
    o.assignments = readAssignFile(a.assign); // file errors before the model loads
    o.assignmentsSource = a.assign;
  }
  if (!a.db.empty()) {
    if (!fs::exists(a.db))
      throw Error(a.db +
                  ": no such tuning database (lowerscope-cli tune ... --db FILE creates one)");
    unity::tuner::Database check(a.db); // a foreign or corrupt file fails here, by name
    unity::tuner::registerTunerPasses();
    if (!o.passes.empty()) {
      if (std::find(o.passes.begin(), o.passes.end(), "ApplyTuningDatabase") == o.passes.end())
        throw Error("--db with --passes: list ApplyTuningDatabase among the passes");
    } else {
      o.passes = unity::tuner::pipelineWithDatabase(a.pipeline);
    }
    o.config.set(unity::tuner::kDatabaseConfigKey, a.db);
  }
  return {unity::frontend::loadModel(a.file), o};
}

unity::BuildResult buildFrom(const BuildArgs& a) {
  auto [m, o] = prepare(a);
  return unity::build(m, o);
}

void writeFile(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
  if (!out)
    throw Error(p.string() + ": cannot write file");
}

std::string safeName(std::string s) {
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      c = '_';
  return s;
}

void dumpPasses(const unity::BuildResult& r, const fs::path& dir) {
  fs::create_directories(dir);
  // Files of an earlier dump would mix with this one: remove them.
  for (auto& entry : fs::directory_iterator(dir)) {
    std::string n = entry.path().filename().string();
    bool numbered = n.size() > 4 && isdigit(static_cast<unsigned char>(n[0])) &&
                    isdigit(static_cast<unsigned char>(n[1])) &&
                    isdigit(static_cast<unsigned char>(n[2])) && n[3] == '_' &&
                    entry.path().extension() == ".txt";
    if (numbered || n == "index.json")
      fs::remove(entry.path());
  }
  nlohmann::json index = nlohmann::json::array();
  writeFile(dir / "000_Input.txt", unity::text::printModule(r.input));
  index.push_back({{"index", 0},
                   {"name", "Input"},
                   {"depth", 0},
                   {"ms", 0.0},
                   {"changed", false},
                   {"file", "000_Input.txt"}});
  for (auto& rec : r.records) {
    int idx = rec.index + 1;
    std::string file = fmt::format("{:03}_{}.txt", idx, safeName(rec.name));
    if (rec.after)
      writeFile(dir / file, unity::text::printModule(rec.after));
    index.push_back({{"index", idx},
                     {"name", rec.name},
                     {"depth", rec.depth},
                     {"ms", rec.ms},
                     {"changed", rec.changed},
                     {"disabled", rec.disabled},
                     {"file", file}});
  }
  writeFile(dir / "index.json", index.dump(2) + "\n");
}

void emitArtifacts(const unity::BuildResult& r, const fs::path& dir) {
  fs::create_directories(dir);
  if (!r.parts.empty()) {
    // Composite build: one folder per sub-target with what its codegen made.
    nlohmann::json index = nlohmann::json::array();
    for (auto& p : r.parts) {
      fs::path sub = dir / p.name;
      fs::create_directories(sub);
      nlohmann::json files = nlohmann::json::array();
      auto put = [&](const std::string& file, const std::string& data) {
        if (data.empty())
          return;
        writeFile(sub / file, data);
        files.push_back(file);
      };
      put("module.c", p.cSource);
      put("module.ll", p.llvmIR);
      put("module.s", p.assembly);
      put("module.o", std::string(p.object.begin(), p.object.end()));
      index.push_back({{"name", p.name},
                       {"target", p.target},
                       {"functions", p.functions},
                       {"compile_only", p.compileOnly},
                       {"note", p.note},
                       {"files", files}});
    }
    writeFile(dir / "parts.json", index.dump(2) + "\n");
    writeFile(dir / "lowered.uir", unity::text::printModule(r.lowered));
    return;
  }
  // Plain build: the target's files at the top. A host module makes its IR,
  // assembly and object on demand; a cross target emitted them already.
  std::string c = r.artifacts.cSource, ir = r.artifacts.llvmIR, asmText = r.artifacts.assembly;
  std::vector<char> obj = r.artifacts.object;
  if (r.compiled) {
    ir = r.compiled->llvmIR();
    asmText = r.compiled->assembly();
    obj = r.compiled->object();
  }
  auto put = [&](const std::string& file, const std::string& data) {
    if (!data.empty())
      writeFile(dir / file, data);
  };
  put("module.c", c);
  put("module.ll", ir);
  put("module.s", asmText);
  put("module.o", std::string(obj.begin(), obj.end()));
  writeFile(dir / "lowered.uir", unity::text::printModule(r.lowered));
}

unity::Tensor loadTensor(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".npy")
    return unity::readNpy(path);
  if (ext == ".pb")
    return unity::frontend::readTensorProto(path);
  throw Error(path + ": unknown tensor file type (use .npy or ONNX TensorProto .pb)");
}

unity::Tensor randomTensor(const unity::ir::TensorSInfo* t, const std::string& name,
                           std::mt19937& rng, int64_t symbolicDefault) {
  if (!t || t->dtype.isVoid() || !t->shape)
    throw Error("input '" + name + "' has no known shape; pass it with --input " + name + "=FILE");
  std::vector<int64_t> shape;
  for (auto& d : *t->shape) {
    auto c = unity::ir::asConstInt(d);
    shape.push_back(c ? *c : symbolicDefault);
  }
  unity::Tensor x(t->dtype, shape);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.setDouble(i, t->dtype.isFloat() ? dist(rng) : double(int64_t(dist(rng) * 4 + 4)));
  return x;
}

/// Heap bytes in use (glibc's allocator statistics).
size_t heapInUse() { return mallinfo2().uordblks; }

/// How much memory the pass history costs next to one module. Nodes that a
/// pass did not change are shared between the records, so the history should
/// cost little more than what the passes really rebuilt.
int reportMemory(const BuildArgs& a) {
  size_t m0 = heapInUse();
  auto [m, o] = prepare(a);
  size_t m1 = heapInUse();
  o.codegen = false;
  auto r = std::make_unique<unity::BuildResult>(unity::build(m, o));
  size_t m2 = heapInUse();
  size_t records = r->records.size();
  r->records.clear();
  r->records.shrink_to_fit();
  size_t m3 = heapInUse();
  auto kib = [](size_t b) { return static_cast<double>(b) / 1024.0; };
  fmt::print("memory of {}: input module {:.1f} KiB; after {} passes the lowered module adds "
             "{:.1f} KiB; the full pass history ({} records, before/after of each) adds "
             "{:.1f} KiB more ({:.2f}x the input module)\n",
             a.file, kib(m1 - m0), records, kib(m3 > m1 ? m3 - m1 : 0), records,
             kib(m2 > m3 ? m2 - m3 : 0), m1 > m0 ? double(m2 - m3) / double(m1 - m0) : 0.0);
  return 0;
}

} // namespace

void addBuildCommands(CLI::App& app, CommandList& out) {
  auto build = std::make_shared<BuildArgs>();
  CLI::App* b =
      app.add_subcommand("build", "Lower a model through a pass pipeline and generate code");
  addBuildFlags(b, *build);
  b->add_option("--dump-passes", build->dumpDir, "Write the module after every pass + index.json");
  b->add_option("--emit", build->emitDir,
                "Write LLVM IR, assembly and object code (composite targets: one folder per "
                "sub-target with its C source / LLVM IR / assembly / object, and parts.json)");
  b->add_flag("--report-memory", build->reportMemory,
              "Measure the heap held by the input module, the lowered module and the pass "
              "history (passes only, no code generation)");
  out.push_back({b, [build] {
                   if (build->reportMemory)
                     return reportMemory(*build);
                   auto r = buildFrom(*build);
                   if (!build->dumpDir.empty())
                     dumpPasses(r, build->dumpDir);
                   if (!build->emitDir.empty())
                     emitArtifacts(r, build->emitDir);
                   int kernels = static_cast<int>(unity::primFuncsOf(r.lowered).size());
                   int changed = 0;
                   for (auto& rec : r.records)
                     changed += rec.changed;
                   fmt::print("built {} for '{}': {} passes ({} changed the module) in {:.1f} ms, "
                              "{} kernels, codegen {:.1f} ms{}\n",
                              build->file, r.composite.empty() ? r.target.str() : r.composite,
                              r.records.size(), changed, r.passesMs, kernels, r.codegenMs,
                              r.compileOnly() ? " (compile-only target)" : "");
                   for (auto& p : r.parts)
                     fmt::print("  part {}: {}: {} kernel(s){}\n", p.name, p.target,
                                p.functions.size(), p.compileOnly ? ", compile-only" : "");
                   return 0;
                 }});

  struct RunArgs : BuildArgs {
    std::vector<std::string> inputs;
    std::string outputDir;
    int repeat = 10, warmup = 1;
    double minTime = 0;
    bool profile = false, flushCache = false;
    int64_t dim = 4;
    unsigned seed = 0;
  };
  auto run = std::make_shared<RunArgs>();
  CLI::App* r = app.add_subcommand("run", "Build a model for the host and run it");
  addBuildFlags(r, *run);
  r->add_option("--input", run->inputs, "NAME=PATH (.npy or TensorProto .pb); repeatable");
  r->add_option("--output-dir", run->outputDir, "Write outputs as output_K.npy");
  r->add_option("--repeat", run->repeat, "Timed runs (the median and minimum are printed)")
      ->check(CLI::Range(1, 1000000));
  r->add_option("--warmup", run->warmup, "Untimed runs before the timed ones (default 1)")
      ->check(CLI::Range(0, 1000000));
  r->add_option("--min-time", run->minTime,
                "Seconds: add timed runs until they take this long together")
      ->check(CLI::Range(0.0, 86400.0));
  r->add_flag("--flush-cache", run->flushCache,
              "Evict the caches before every timed run (inputs start in memory)");
  r->add_flag("--profile", run->profile, "Print the per-kernel time table");
  r->add_option("--dim", run->dim, "Value of every symbolic dimension of random inputs")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 30));
  r->add_option("--seed", run->seed, "Seed of the random inputs");
  out.push_back(
      {r, [run] {
         auto res = buildFrom(*run);
         if (!res.executable)
           throw Error("target '" + res.target.str() +
                       "' is compile-only here; use `build --emit` to get its code");
         // A cross part is never run elsewhere: refuse before running rather
         // than fail at its first kernel.
         for (auto& p : res.parts)
           if (p.compileOnly && !p.functions.empty()) {
             std::string fns;
             for (auto& f : p.functions)
               fns += (fns.empty() ? "" : ", ") + f;
             throw Error("sub-target '" + p.name + "' (" + p.target +
                         ") is compile-only on this machine and owns " +
                         std::to_string(p.functions.size()) + " kernel(s) (" + fns +
                         "): the model cannot run here; use `build --emit DIR` to get its code, "
                         "or assign those parts to a host sub-target");
           }
         auto& ex = *res.executable;
         auto* fn = unity::ir::as<unity::ir::Function>(res.lowered->lookup(ex.entry()));
         std::map<std::string, std::string> given;
         for (auto& spec : run->inputs) {
           auto eq = spec.find('=');
           if (eq == std::string::npos)
             throw Error("--input expects NAME=PATH, got '" + spec + "'");
           given[spec.substr(0, eq)] = spec.substr(eq + 1);
         }
         std::mt19937 rng(run->seed);
         std::vector<unity::Tensor> inputs;
         for (auto& p : fn->params) {
           auto it = given.find(p->name);
           if (it != given.end()) {
             inputs.push_back(loadTensor(it->second));
             given.erase(it);
           } else {
             inputs.push_back(randomTensor(unity::ir::as<unity::ir::TensorSInfo>(p->sinfo), p->name,
                                           rng, run->dim));
           }
         }
         if (!given.empty())
           throw Error("no input named '" + given.begin()->first + "' in '" + ex.entry() + "'");
         std::vector<unity::Tensor> outputs;
         for (int i = 0; i < run->warmup; ++i)
           outputs = ex.runTensors(inputs);
         // Profiling counts the timed runs only.
         ex.setProfiling(run->profile);
         ex.resetProfile();
         unity::MeasureOptions mo;
         mo.warmup = 0; // done above, before profiling starts
         mo.repeats = run->repeat;
         mo.minSeconds = run->minTime;
         mo.flushCache = run->flushCache;
         mo.cpuClock = unity::CpuClock::Process; // kernels may run on the thread pool
         unity::Measurement m = unity::measure([&] { outputs = ex.runTensors(inputs); }, mo);
         unity::SampleStats wall = m.wallStats(), cpu = m.cpuStats();
         if (!run->outputDir.empty()) {
           fs::create_directories(run->outputDir);
           for (size_t k = 0; k < outputs.size(); ++k)
             unity::writeNpy((fs::path(run->outputDir) / fmt::format("output_{}.npy", k)).string(),
                             outputs[k]);
         }
         for (size_t k = 0; k < outputs.size(); ++k)
           fmt::print("output {}: {} {}\n", k, outputs[k].dtype().str(),
                      unity::Tensor::shapeStr(outputs[k].shape()));
         fmt::print("median {:.3f} ms, min {:.3f} ms, mean {:.3f} ms, stddev {:.3f} ms ({} runs "
                    "after {} warm-up; process CPU time median {:.3f} ms)\n",
                    wall.median * 1e3, wall.min * 1e3, wall.mean * 1e3, wall.stddev * 1e3,
                    wall.count, run->warmup, cpu.median * 1e3);
         if (run->profile) {
           fmt::print("{:<40} {:>8} {:>12} {:>12}\n", "kernel", "calls", "total ms", "ms/call");
           for (auto& p : ex.profile())
             fmt::print("{:<40} {:>8} {:>12.3f} {:>12.4f}\n", p.name, p.calls, p.totalMs,
                        p.totalMs / double(p.calls));
         }
         return 0;
       }});
}

} // namespace lowerscope::cli
