// The build driver: build() is the list of steps documented in build.h, each
// step a small function below. Nothing here knows a target kind by name:
// kinds act only through their hooks (transform::findKindHooks).
#include "engine/build.h"

#include <chrono>
#include <map>

#include "engine/codegen/codegen.h"
#include "engine/ir/functor.h"
#include "engine/runtime/composite_module.h"
#include "engine/support/error.h"
#include "engine/transform/partition.h"
#include "engine/transform/registry.h"
#include "engine/transform/target_hooks.h"

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

/// The target of a build, always as a composite (a plain target is one
/// sub-target named after its kind).
struct BuildTarget {
  target::CompositeTarget ct;
  bool composite = false; // written as a composite, or assignments given
  std::string attr;       // the module attribute "target"
};

BuildTarget resolveTarget(const BuildOptions& opts) {
  BuildTarget bt;
  bt.ct = target::CompositeTarget::parse(opts.target);
  bt.composite = target::isCompositeTargetString(opts.target) || !opts.assignments.empty();
  bt.attr = bt.composite ? bt.ct.str() : bt.ct.defaultTarget().str();
  return bt;
}

std::string quotedList(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", '" : "'") + names[i] + "'";
  return s;
}

/// Every assignment must name a sub-target of the build's target.
void checkAssignments(const BuildOptions& opts, const target::CompositeTarget& ct) {
  std::vector<std::string> unknown;
  for (auto& [name, sub] : opts.assignments)
    if (!ct.find(sub))
      unknown.push_back("'" + sub + "' (for '" + name + "')");
  if (unknown.empty())
    return;
  std::string list;
  for (size_t i = 0; i < unknown.size(); ++i)
    list += (i ? ", " : "") + unknown[i];
  std::string where = opts.assignmentsSource.empty() ? "" : opts.assignmentsSource + ": ";
  throw Error(where + "unknown sub-target " + list + "; the target '" + ct.str() + "' has " +
              quotedList(ct.names()));
}

/// The context every pass of the build runs under: options, recording,
/// progress, cancellation.
void configureContext(transform::PassContext& ctx, const BuildOptions& opts,
                      const std::shared_ptr<transform::RecordingInstrument>& rec) {
  ctx.optLevel = opts.optLevel;
  ctx.config = opts.config;
  ctx.cancel = opts.cancel;
  for (auto& d : opts.disabledPasses)
    ctx.disabled.insert(d);
  if (rec)
    ctx.instruments.push_back(rec);
  if (opts.onPass) {
    auto p = std::make_shared<ProgressInstrument>();
    p->fn = opts.onPass;
    ctx.instruments.push_back(p);
  }
}

/// The named pipeline, or the explicit pass list.
transform::PassRef pipelineOf(const BuildOptions& opts) {
  if (!opts.passes.empty())
    return transform::makePipeline("custom", opts.passes);
  const transform::PipelineEntry* pe = transform::findPipeline(opts.pipeline);
  if (!pe) {
    std::string list;
    for (auto* p : transform::allPipelines())
      list += (list.empty() ? "" : ", ") + p->name;
    throw Error("unknown pipeline '" + opts.pipeline + "' (known: " + list + ")");
  }
  return transform::makePipeline(pe->name, pe->passes);
}

const transform::TargetKindHooks* hooksOf(const std::string& sub, const target::Target& t) {
  const transform::TargetKindHooks* hooks = transform::findKindHooks(t.kind);
  if (!hooks || !hooks->tirToRuntime)
    throw Error("target kind '" + t.kind + "' of sub-target '" + sub +
                "' has no tir_to_runtime hook");
  return hooks;
}

/// Steps 3-5: the passes after the assignments. A plain build is the
/// pipeline alone: with one sub-target every function already belongs to it.
transform::PassRef lowering(const BuildTarget& bt, transform::PassRef pipeline) {
  if (!bt.composite)
    return pipeline;
  // Claims need struct info on every binding: normalize first (a loaded,
  // unnormalized module would otherwise lose claims silently).
  std::vector<transform::PassRef> passes{transform::findPass("Normalize")->create(),
                                         transform::assignTargetsPass(),
                                         transform::partitionByTargetPass()};
  for (auto& [sub, t] : bt.ct.targets)
    if (auto* hooks = transform::findKindHooks(t.kind); hooks && hooks->graphToTir)
      passes.push_back(hooks->graphToTir(t, sub));
  passes.push_back(std::move(pipeline));
  passes.push_back(transform::assignPrimFuncTargetsPass());
  return transform::sequential("composite", std::move(passes));
}

/// Steps 2-5 under one recording context; fills r.lowered and r.records.
void runPasses(BuildResult& r, const BuildTarget& bt, const BuildOptions& opts) {
  transform::PassRef pipeline = pipelineOf(opts); // unknown names fail before anything runs
  std::shared_ptr<transform::RecordingInstrument> rec;
  if (opts.record)
    rec = std::make_shared<transform::RecordingInstrument>();
  transform::PassContext ctx;
  configureContext(ctx, opts, rec);

  auto t0 = std::chrono::steady_clock::now();
  ir::IRModule m = ir::withAttrs(r.input, r.input->attrs.with("target", bt.attr));
  {
    transform::PassContext::Scope scope(ctx);
    if (!opts.assignments.empty())
      m = (*transform::annotateByNamePass(opts.assignments, opts.assignmentsSource))(m, ctx);
    r.lowered = (*lowering(bt, std::move(pipeline)))(m, ctx);
  }
  r.passesMs = msSince(t0);
  if (rec)
    r.records = rec->records();
}

/// The tensor functions of each sub-target: a PrimFunc's "target" attribute
/// names its sub-target (AssignPrimFuncTargets set it in composite builds);
/// without one, or naming no sub-target of this target, the default.
std::map<std::string, runtime::NamedPrimFuncs> functionsBySubTarget(const ir::IRModule& m,
                                                                    const BuildTarget& bt) {
  std::map<std::string, runtime::NamedPrimFuncs> out;
  for (auto& [name, f] : m->functions)
    if (auto pf = ir::cast<ir::PrimFunc>(f)) {
      std::string sub = pf->attrs.getString("target", bt.ct.defaultName);
      out[bt.ct.find(sub) ? sub : bt.ct.defaultName].emplace_back(name, pf);
    }
  return out;
}

SubTargetArtifacts describePart(const std::string& sub, const target::Target& t,
                                const transform::RuntimeModule& rm) {
  SubTargetArtifacts part;
  part.name = sub;
  part.target = t.str();
  part.functions = rm.functions;
  part.compileOnly = !rm.compiled;
  part.cSource = rm.artifacts.cSource;
  part.llvmIR = rm.artifacts.llvmIR;
  // A host module makes its IR on demand; a composite build reports it.
  if (part.llvmIR.empty() && rm.compiled)
    part.llvmIR = rm.compiled->llvmIR();
  part.assembly = rm.artifacts.assembly;
  part.object = rm.artifacts.object;
  part.note = rm.note;
  return part;
}

/// Step 6: each sub-target's tir_to_runtime hook on the functions it owns,
/// then the module the executable calls.
void generateCode(BuildResult& r, const BuildTarget& bt) {
  codegen::registerCodegenKindHooks();
  auto t0 = std::chrono::steady_clock::now();
  const auto owned = functionsBySubTarget(r.lowered, bt);
  auto dispatch = std::make_shared<runtime::CompositeModule>();
  std::shared_ptr<const runtime::CompiledModule> single; // a plain build's own module
  for (auto& [sub, t] : bt.ct.targets) {
    const transform::TargetKindHooks* hooks = hooksOf(sub, t);
    auto it = owned.find(sub);
    if (it == owned.end()) {
      SubTargetArtifacts part;
      part.name = sub;
      part.target = t.str();
      part.compileOnly = !t.isHost();
      if (bt.composite)
        r.parts.push_back(std::move(part));
      continue;
    }
    const runtime::NamedPrimFuncs& funcs = it->second;
    transform::RuntimeModule rm = hooks->tirToRuntime(funcs, t);
    runtime::CompositeModule::Part p{sub, t.str(), rm.compiled};
    for (auto& [name, pf] : funcs)
      dispatch->add(name, pf, p);
    if (bt.composite) {
      r.parts.push_back(describePart(sub, t, rm));
    } else {
      single = rm.compiled;
      r.artifacts = rm.artifacts;
    }
  }
  if (bt.composite)
    r.compiled = dispatch;
  else if (single)
    r.compiled = single;
  else if (owned.empty() && r.target.isHost())
    r.compiled = dispatch; // nothing to compile: an empty module still runs the graph
  if (r.compiled)
    r.executable = std::make_shared<runtime::Executable>(r.lowered, r.compiled);
  r.codegenMs = msSince(t0);
}

/// A module imported for viewing (ImportOptions::keepUnsupported) holds
/// placeholder calls R.unsupported for the nodes the importer could not
/// convert; nothing can run them, so the build is refused up front with
/// every such node, rather than failing later in a pass with a message
/// about a missing legalization.
void refuseUnsupported(const ir::IRModule& m) {
  std::vector<std::string> lines;
  for (auto& [name, f] : m->functions) {
    if (!ir::isa<ir::Function>(f))
      continue;
    ir::postOrderVisit(f, [&](const ir::Expr& e) {
      auto* c = ir::as<ir::Call>(e);
      auto* op = c ? ir::as<ir::OpRef>(c->op) : nullptr;
      if (!op || op->name != "unsupported")
        return;
      lines.push_back("\n  " + c->attrs.getString("node", "?") + " (" +
                      c->attrs.getString("op_type", "?") +
                      "): " + c->attrs.getString("reason", "no reason given"));
    });
  }
  if (lines.empty())
    return;
  std::string msg = "cannot build: the module holds " + std::to_string(lines.size()) +
                    " unsupported node" + (lines.size() == 1 ? "" : "s") +
                    " (imported for viewing only):";
  for (auto& l : lines)
    msg += l;
  throw Error(msg);
}

} // namespace

runtime::NamedPrimFuncs primFuncsOf(const ir::IRModule& m) {
  runtime::NamedPrimFuncs out;
  for (auto& [name, f] : m->functions)
    if (auto pf = ir::cast<ir::PrimFunc>(f); pf && !pf->attrs.has("library_kernel"))
      out.emplace_back(name, pf);
  return out;
}

BuildResult build(const ir::IRModule& m, const BuildOptions& opts) {
  refuseUnsupported(m);
  BuildResult r;
  r.input = m;
  BuildTarget bt = resolveTarget(opts);
  r.target = bt.ct.defaultTarget();
  if (bt.composite)
    r.composite = bt.ct.str();
  checkAssignments(opts, bt.ct);
  runPasses(r, bt, opts);
  if (opts.codegen)
    generateCode(r, bt);
  return r;
}

} // namespace unity
