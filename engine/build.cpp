#include "engine/build.h"

#include <chrono>

#include "engine/runtime/thread_pool.h"
#include "engine/support/error.h"
#include "engine/transform/registry.h"

namespace unity {

namespace {
/// Reports each pass to a callback (progress bars).
struct ProgressInstrument : transform::PassInstrument {
  std::function<void(const std::string&, int)> fn;
  void runBeforePass(const transform::PassInfo& info, const ir::IRModule&, int depth) override {
    fn(info.name, depth);
  }
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

codegen::NamedPrimFuncs primFuncsOf(const ir::IRModule& m) {
  codegen::NamedPrimFuncs out;
  for (auto& [name, f] : m->functions)
    if (auto pf = ir::cast<ir::PrimFunc>(f))
      out.emplace_back(name, pf);
  return out;
}

BuildResult build(const ir::IRModule& m, const BuildOptions& opts) {
  BuildResult r;
  r.input = m;
  r.target = target::Target::parse(opts.target);

  transform::PassContext ctx;
  ctx.optLevel = opts.optLevel;
  ctx.config = opts.config;
  ctx.cancel = opts.cancel;
  for (auto& d : opts.disabledPasses)
    ctx.disabled.insert(d);
  std::shared_ptr<transform::RecordingInstrument> rec;
  if (opts.record) {
    rec = std::make_shared<transform::RecordingInstrument>();
    ctx.instruments.push_back(rec);
  }
  if (opts.onPass) {
    auto p = std::make_shared<ProgressInstrument>();
    p->fn = opts.onPass;
    ctx.instruments.push_back(p);
  }
  transform::PassRef pipeline;
  if (!opts.passes.empty()) {
    pipeline = transform::makePipeline("custom", opts.passes);
  } else {
    const transform::PipelineEntry* pe = transform::findPipeline(opts.pipeline);
    if (!pe) {
      std::string known;
      for (auto* p : transform::allPipelines())
        known += (known.empty() ? "" : ", ") + p->name;
      throw Error("unknown pipeline '" + opts.pipeline + "' (known: " + known + ")");
    }
    pipeline = transform::makePipeline(pe->name, pe->passes);
  }
  auto t0 = std::chrono::steady_clock::now();
  {
    transform::PassContext::Scope scope(ctx);
    r.lowered = (*pipeline)(m, ctx);
  }
  r.passesMs = msSince(t0);
  if (rec)
    r.records = rec->records();
  if (!opts.codegen)
    return r;

  codegen::CodegenOptions co;
  co.triple = r.target.get("mtriple");
  co.cpu = r.target.get("mcpu", co.triple.empty() ? "native" : "");
  co.features = r.target.get("mattr");
  co.optLevel = r.target.getInt("opt-level", 3);
  co.fastMath = r.target.getBool("fast-math", false);
  auto funcs = primFuncsOf(r.lowered);
  t0 = std::chrono::steady_clock::now();
  if (r.target.isHost()) {
    runtime::ThreadPool::setNumThreads(r.target.numCores());
    r.compiled = codegen::compileForHost(funcs, co);
    r.executable = std::make_shared<runtime::Executable>(r.lowered, r.compiled);
  } else {
    r.artifacts = codegen::emitForTarget(funcs, co);
  }
  r.codegenMs = msSince(t0);
  return r;
}

} // namespace unity
