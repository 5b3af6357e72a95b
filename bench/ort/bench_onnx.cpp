// bench_onnx: unity's side of the ONNX Runtime comparison (bench/ort/run.sh).
//
// Imports one .onnx file, builds it for `llvm -num-cores=T` with the default
// pipeline, runs it on the given .npy inputs (one warm-up, then --repeat
// timed runs, wall time of Executable::runTensors, output allocation
// included, timed by unity::measure) and prints one JSON object: import /
// passes / codegen times, median, min, mean and standard deviation of the
// latency, and -- with --reference -- the max abs/rel error of
// every output against .npy files written by the peer. --profile adds the
// executor's per-kernel table (the --top most expensive kernels).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "engine/build.h"
#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/support/npy.h"
#include "tuner/apply_database.h"

namespace {

struct Errors {
  double maxAbs = 0, maxRel = 0;
};

/// Max |a - b| over all elements, and that relative to the largest |b| (an
/// element-wise relative error explodes where the reference is near 0);
/// shapes must agree. A NaN on one side only counts as an infinite error.
Errors compare(const unity::Tensor& got, const unity::Tensor& want, const std::string& what) {
  if (got.shape() != want.shape())
    throw unity::Error(fmt::format("{}: shape {} differs from the reference's {}", what,
                                   unity::Tensor::shapeStr(got.shape()),
                                   unity::Tensor::shapeStr(want.shape())));
  Errors e;
  double scale = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) && std::isnan(b))
      continue;
    double d = std::fabs(a - b);
    if (std::isnan(d))
      d = INFINITY;
    e.maxAbs = std::max(e.maxAbs, d);
    if (!std::isnan(b))
      scale = std::max(scale, std::fabs(b));
  }
  e.maxRel = e.maxAbs / std::max(scale, 1e-30);
  return e;
}

int run(int argc, char** argv) {
  CLI::App app{"Import, build and time an ONNX model with unity (JSON on stdout)"};
  std::string model, outputDir, policy;
  std::vector<std::string> inputs, references, dims, disabled;
  int threads = 1, repeat = 20, top = 0;
  bool profile = false;
  app.add_option("MODEL", model, ".onnx file")->required()->check(CLI::ExistingFile);
  app.add_option("--input", inputs, "input .npy files, in the order of the graph inputs")
      ->check(CLI::ExistingFile);
  app.add_option("--threads", threads, "threads of the kernels (target -num-cores)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeat", repeat, "timed runs")->check(CLI::Range(1, 100000));
  app.add_option("--reference", references, "expected outputs (.npy), in order")
      ->check(CLI::ExistingFile);
  app.add_option("--dim", dims, "NAME=VALUE: import the symbolic dimension NAME as a constant");
  std::string db;
  app.add_option("--db", db,
                 "tuning database (lowerscope-cli tune): build with its best schedules");
  app.add_option("--output-dir", outputDir, "write our outputs as output_K.npy");
  app.add_option("--disable-passes", disabled,
                 "passes left out of the pipeline (e.g. AlterConvLayout), for before/after runs")
      ->delimiter(',');
  app.add_option("--policy", policy,
                 "schedule policy knobs for the default schedule (JSON, e.g. "
                 "'{\"reduce_slice_bytes\": 4096}')");
  app.add_flag("--profile", profile, "time every kernel call and report the top ones");
  app.add_option("--top", top, "kernels listed by --profile (0: all)");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json j;
  j["model"] = std::filesystem::path(model).filename().string();
  j["threads"] = threads;

  unity::frontend::ImportOptions io;
  for (auto& d : dims) {
    auto eq = d.find('=');
    if (eq == std::string::npos)
      throw unity::Error("--dim expects NAME=VALUE, got '" + d + "'");
    io.dimValues[d.substr(0, eq)] = std::stoll(d.substr(eq + 1));
  }
  // CPU times next to wall times: on a shared machine the wall time of a
  // single-threaded step says more about the neighbours than about us.
  unity::Stopwatch sw(unity::CpuClock::Process);
  unity::ir::IRModule m = unity::frontend::importOnnx(model, io);
  j["import_ms"] = sw.wallMs();
  j["import_cpu_ms"] = sw.cpuMs();

  unity::BuildOptions o;
  o.target = fmt::format("llvm -num-cores={}", threads);
  o.record = false; // the pass history is the GUI's; a deployment build does not keep it
  o.disabledPasses = disabled;
  if (!policy.empty()) {
    o.config.set("tir.schedule_policy", policy);
    j["policy"] = policy;
  }
  if (!disabled.empty())
    j["disabled_passes"] = disabled;
  if (!db.empty()) {
    unity::tuner::registerTunerPasses();
    o.passes = unity::tuner::pipelineWithDatabase();
    o.config.set(unity::tuner::kDatabaseConfigKey, db);
    j["db"] = db;
  }
  sw.restart();
  unity::BuildResult r = unity::build(m, o);
  j["build_ms"] = sw.wallMs();
  j["build_cpu_ms"] = sw.cpuMs();
  j["passes_ms"] = r.passesMs;
  j["codegen_ms"] = r.codegenMs;
  j["kernels"] = unity::primFuncsOf(r.lowered).size();
  if (!r.executable)
    throw unity::Error("the build produced nothing runnable");

  std::vector<unity::Tensor> args;
  for (auto& p : inputs)
    args.push_back(unity::readNpy(p));
  auto& ex = *r.executable;
  std::vector<unity::Tensor> outs = ex.runTensors(args); // warm-up
  ex.setProfiling(profile);                              // the timed runs only
  unity::MeasureOptions mo;
  mo.warmup = 0; // done above, before profiling starts
  mo.repeats = repeat;
  mo.cpuClock = unity::CpuClock::Process;
  unity::Measurement meas = unity::measure([&] { outs = ex.runTensors(args); }, mo);
  unity::SampleStats wall = meas.wallStats();
  // With one thread the kernels run on this thread: CPU time per run is what
  // the run costs, whatever else the machine does at the time.
  j["cpu_ms"] = meas.cpuStats().mean * 1e3;
  j["median_ms"] = wall.median * 1e3;
  j["min_ms"] = wall.min * 1e3;
  j["mean_ms"] = wall.mean * 1e3;
  j["stddev_ms"] = wall.stddev * 1e3;
  j["repeat"] = repeat;

  if (!outputDir.empty()) {
    std::filesystem::create_directories(outputDir);
    for (size_t k = 0; k < outs.size(); ++k)
      unity::writeNpy(fmt::format("{}/output_{}.npy", outputDir, k), outs[k]);
  }
  if (!references.empty()) {
    if (references.size() != outs.size())
      throw unity::Error(
          fmt::format("{} references for {} outputs", references.size(), outs.size()));
    Errors all;
    for (size_t k = 0; k < outs.size(); ++k) {
      Errors e = compare(outs[k], unity::readNpy(references[k]), references[k]);
      all.maxAbs = std::max(all.maxAbs, e.maxAbs);
      all.maxRel = std::max(all.maxRel, e.maxRel);
    }
    j["max_abs_err"] = all.maxAbs;
    j["max_rel_err"] = all.maxRel;
  }
  if (profile) {
    nlohmann::json rows = nlohmann::json::array();
    auto prof = ex.profile();
    double total = 0;
    for (auto& p : prof)
      total += p.totalMs;
    for (auto& p : prof) {
      if (top > 0 && int(rows.size()) >= top)
        break;
      rows.push_back({{"kernel", p.name},
                      {"calls", p.calls},
                      {"ms_per_run", p.totalMs / repeat},
                      {"share", total > 0 ? p.totalMs / total : 0.0}});
    }
    j["profile"] = rows;
    j["kernel_ms_per_run"] = total / repeat;
  }
  std::cout << j.dump() << "\n";
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_onnx: " << e.what() << "\n";
    return 1;
  }
}
