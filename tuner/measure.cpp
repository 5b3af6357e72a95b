// Candidate measurement (see measure.h).
#include "tuner/measure.h"

#include <unistd.h>

#include <random>
#include <unordered_map>

#include "engine/build.h"
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/runtime/kernel_call.h"
#include "engine/runtime/thread_pool.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/support/worker_pool.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "engine/transform/registry.h"
#include "tuner/task.h"

namespace unity::tuner {

using nlohmann::json;

json MeasureSettings::toJson() const {
  return {{"warmup", warmup},          {"repeats", repeats},
          {"min_seconds", minSeconds}, {"max_repeats", maxRepeats},
          {"flush_cache", flushCache}, {"timeout_s", timeoutSeconds},
          {"threads", threads},        {"rtol", tolerance.rtol},
          {"atol", tolerance.atol},    {"symbolic_extent", symbolicExtent}};
}

MeasureSettings MeasureSettings::fromJson(const json& j) {
  MeasureSettings s;
  try {
    s.warmup = j.value("warmup", s.warmup);
    s.repeats = j.value("repeats", s.repeats);
    s.minSeconds = j.value("min_seconds", s.minSeconds);
    s.maxRepeats = j.value("max_repeats", s.maxRepeats);
    s.flushCache = j.value("flush_cache", s.flushCache);
    s.timeoutSeconds = j.value("timeout_s", s.timeoutSeconds);
    s.threads = j.value("threads", s.threads);
    s.tolerance.rtol = j.value("rtol", s.tolerance.rtol);
    s.tolerance.atol = j.value("atol", s.tolerance.atol);
    s.symbolicExtent = j.value("symbolic_extent", s.symbolicExtent);
  } catch (const json::exception& e) {
    throw Error(std::string("measure settings: ") + e.what());
  }
  if (s.symbolicExtent < 1)
    throw Error("measure settings: symbolic_extent must be at least 1, got " +
                std::to_string(s.symbolicExtent));
  return s;
}

json MeasureJob::toJson() const {
  return {{"workload", workloadText(workload)}, {"target", target}, {"trace", trace.toJson()}};
}

MeasureJob MeasureJob::fromJson(const json& j) {
  if (!j.is_object() || !j.contains("workload") || !j["workload"].is_string() ||
      !j.contains("target") || !j["target"].is_string() || !j.contains("trace"))
    throw Error("measure job: expected {\"workload\": text, \"target\": text, \"trace\": ...}");
  MeasureJob m;
  m.workload = parseWorkload(j["workload"].get<std::string>());
  m.target = j["target"].get<std::string>();
  m.trace = schedule::Trace::fromJson(j["trace"]);
  return m;
}

double MeasureResult::meanSeconds() const {
  double s = 0;
  for (double t : times)
    s += t;
  return times.empty() ? 0 : s / double(times.size());
}

json MeasureResult::toJson() const {
  return {{"status", toString(status)},    {"error_kind", errorKind},
          {"error_message", errorMessage}, {"times", times},
          {"build_s", buildSeconds},       {"node", node}};
}

MeasureResult MeasureResult::fromJson(const json& j) {
  MeasureResult r;
  try {
    auto st = parseRecordStatus(j.at("status").get<std::string>());
    if (!st)
      throw Error("measure result: unknown status " + j.at("status").dump());
    r.status = *st;
    r.errorKind = j.value("error_kind", "");
    r.errorMessage = j.value("error_message", "");
    r.times = j.value("times", std::vector<double>{});
    r.buildSeconds = j.value("build_s", 0.0);
    r.node = j.value("node", "");
  } catch (const json::exception& e) {
    throw Error(std::string("measure result: ") + e.what());
  }
  return r;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0)
    return "unknown";
  return buf;
}

namespace {

/// The default pipeline's passes after DefaultSchedule that act on tensor
/// functions (the graph-level LowerToExecutor has nothing to do here).
std::vector<std::string> passesAfterSchedule() {
  const transform::PipelineEntry* pe = transform::findPipeline("default");
  if (!pe)
    throw Error("tuner: the default pipeline is not registered");
  std::vector<std::string> out;
  bool after = false;
  for (auto& p : pe->passes) {
    if (after && p != "LowerToExecutor")
      out.push_back(p);
    after = after || p == "DefaultSchedule";
  }
  return out;
}

std::vector<Tensor> randomInputs(const ir::PrimFuncRef& f, uint64_t seed, int64_t extent) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Tensor> out;
  size_t nIn = f->params.size() - size_t(f->numOutputs());
  for (size_t i = 0; i < nIn; ++i) {
    auto& b = f->params[i].buffer;
    Tensor t(b->dtype, concreteShape(f, i, extent));
    bool isFloat = b->dtype.isFloat();
    for (int64_t k = 0; k < t.numel(); ++k)
      t.setDouble(k, isFloat ? u(rng) : 0.0);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Tensor> outputTensors(const ir::PrimFuncRef& f, int64_t extent) {
  std::vector<Tensor> out;
  for (size_t i = f->params.size() - size_t(f->numOutputs()); i < f->params.size(); ++i)
    out.emplace_back(f->params[i].buffer->dtype, concreteShape(f, i, extent));
  return out;
}

/// Calls the kernel on ref's inputs, writing `outs`.
void callOnce(const runtime::CompiledModule& m, const ir::PrimFuncRef& f,
              const std::vector<Tensor>& inputs, std::vector<Tensor>& outs) {
  std::vector<runtime::KernelArg> args;
  std::vector<Tensor> in = inputs; // KernelArg wants non-const tensors (shared storage)
  for (auto& t : in)
    args.emplace_back(t);
  for (auto& t : outs)
    args.emplace_back(t);
  runtime::callKernel(m, "kernel", f, args);
}

MeasureResult failure(RecordStatus st, std::string kind, std::string message) {
  MeasureResult r;
  r.status = st;
  r.errorKind = std::move(kind);
  r.errorMessage = std::move(message);
  r.node = hostName();
  return r;
}

} // namespace

std::vector<int64_t> concreteShape(const ir::PrimFuncRef& f, size_t index, int64_t extent) {
  if (index >= f->params.size())
    throw Error("tuner: the workload has no parameter " + std::to_string(index));
  auto& b = f->params[index].buffer;
  if (!b)
    throw Error("tuner: parameter " + std::to_string(index) +
                " of the workload is a scalar, not a buffer (such workloads are not measured)");
  std::vector<int64_t> shape;
  for (size_t d = 0; d < b->shape.size(); ++d) {
    const ir::PrimExpr& e = b->shape[d];
    std::optional<int64_t> v = ir::asConstInt(e);
    if (!v) {
      std::unordered_map<const ir::PrimVar*, ir::PrimExpr> at;
      ir::walkPrimExpr(e, [&](const ir::PrimExpr& x) {
        if (auto* var = ir::as<ir::PrimVar>(x))
          at.emplace(var, ir::intImm(extent, var->dtype));
      });
      v = ir::asConstInt(arith::simplify(ir::substitute(e, at)));
    }
    if (!v || *v < 1)
      throw Error("tuner: dimension " + std::to_string(d) + " of parameter '" + b->name +
                  "' of the workload is not a positive size with its shape variables at " +
                  std::to_string(extent));
    shape.push_back(*v);
  }
  return shape;
}

std::shared_ptr<const runtime::CompiledModule>
LocalBuilder::build(const ir::PrimFuncRef& scheduled, const std::string& target) const {
  BuildOptions o;
  o.target = target;
  o.passes = passesAfterSchedule();
  o.record = false;
  BuildResult r = unity::build(ir::makeModule({{"kernel", scheduled}}), o);
  if (!r.compiled)
    throw Error("tuner: target '" + target + "' produced no code that runs on this machine");
  return r.compiled;
}

TaskReference makeReference(const ir::PrimFuncRef& workload, const std::string& target,
                            uint64_t seed, const Builder& builder, int threads,
                            int64_t symbolicExtent) {
  TaskReference ref;
  ref.inputs = randomInputs(workload, seed, symbolicExtent);
  auto policy = transform::schedulePolicyFor(target::Target::parse(target));
  auto scheduled = transform::scheduleWithPolicy(workload, policy).func();
  auto m = builder.build(scheduled, target);
  runtime::ThreadPool::setNumThreads(threads);
  ref.outputs = outputTensors(workload, symbolicExtent);
  callOnce(*m, scheduled, ref.inputs, ref.outputs);
  return ref;
}

MeasureResult measureInProcess(const MeasureJob& job, const TaskReference& ref,
                               const MeasureSettings& settings, const Builder& builder) {
  ir::PrimFuncRef scheduled;
  try {
    scheduled = schedule::Schedule::replay(job.workload, job.trace).func();
  } catch (const std::exception& e) {
    return failure(RecordStatus::BuildError, "schedule", e.what());
  }
  Stopwatch sw;
  std::shared_ptr<const runtime::CompiledModule> m;
  try {
    m = builder.build(scheduled, job.target);
  } catch (const std::exception& e) {
    return failure(RecordStatus::BuildError, "build", e.what());
  }
  double buildSeconds = sw.wallSeconds();
  runtime::ThreadPool::setNumThreads(settings.threads);
  std::vector<Tensor> outs = outputTensors(job.workload, settings.symbolicExtent);
  MeasureResult r;
  r.node = hostName();
  r.buildSeconds = buildSeconds;
  try {
    callOnce(*m, scheduled, ref.inputs, outs);
  } catch (const std::exception& e) {
    r = failure(RecordStatus::RunError, "run", e.what());
    r.buildSeconds = buildSeconds;
    return r;
  }
  auto diff = runtime::compareTensorLists(outs, ref.outputs, settings.tolerance);
  if (!diff.same()) {
    std::string msg = !diff.structural.empty()
                          ? diff.structural
                          : std::to_string(diff.mismatches) + " of " +
                                std::to_string(diff.elements) +
                                " output elements differ from the untuned kernel's (first at " +
                                std::to_string(diff.firstMismatch) + ", max abs diff " +
                                std::to_string(diff.maxAbs) + ")";
    r = failure(RecordStatus::WrongResult, "wrong_result", msg);
    r.buildSeconds = buildSeconds;
    return r;
  }
  MeasureOptions mo;
  mo.warmup = settings.warmup;
  mo.repeats = settings.repeats;
  mo.minSeconds = settings.minSeconds;
  mo.maxRepeats = settings.maxRepeats;
  mo.flushCache = settings.flushCache;
  mo.cpuClock = CpuClock::Thread;
  std::vector<Tensor> in = ref.inputs;
  std::vector<runtime::KernelArg> args;
  for (auto& t : in)
    args.emplace_back(t);
  for (auto& t : outs)
    args.emplace_back(t);
  try {
    Measurement meas = measure([&] { runtime::callKernel(*m, "kernel", scheduled, args); }, mo);
    r.times = settings.threads == 1 ? meas.cpu : meas.wall;
  } catch (const std::exception& e) {
    r = failure(RecordStatus::RunError, "run", e.what());
    r.buildSeconds = buildSeconds;
  }
  return r;
}

void LocalRunner::run(const std::vector<MeasureJob>& jobs, const TaskReference& ref,
                      const MeasureSettings& settings,
                      const std::function<void(size_t, const MeasureResult&)>& onResult) {
  std::vector<IsolatedJob> iso;
  for (auto& job : jobs) {
    IsolatedJob ij;
    ij.run = [&job, &ref, &settings, this] {
      return measureInProcess(job, ref, settings, *builder_).toJson().dump();
    };
    ij.timeoutSeconds = settings.timeoutSeconds;
    iso.push_back(std::move(ij));
  }
  WorkerPoolOptions wo;
  wo.workers = 1; // timing runs never share the cores
  wo.timeoutSeconds = settings.timeoutSeconds;
  runIsolated(iso, wo, [&](const JobResult& jr) {
    MeasureResult r;
    if (jr.status == JobStatus::Ok) {
      try {
        r = MeasureResult::fromJson(json::parse(jr.payload));
      } catch (const std::exception& e) {
        r = failure(RecordStatus::RunError, "worker",
                    std::string("unreadable result: ") + e.what());
      }
    } else if (jr.status == JobStatus::TimedOut) {
      r = failure(RecordStatus::Timeout, "timeout", jr.describe());
    } else if (jr.status == JobStatus::Crashed) {
      r = failure(RecordStatus::Crash, signalName(jr.signal),
                  jr.describe() + (jr.stderrText.empty() ? "" : "\n" + jr.stderrText));
    } else {
      r = failure(RecordStatus::RunError, "worker",
                  jr.describe() + (jr.stderrText.empty() ? "" : "\n" + jr.stderrText));
    }
    onResult(jr.index, r);
  });
}

} // namespace unity::tuner
