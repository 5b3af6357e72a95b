#include "engine/build.h"

#include <chrono>

#include <map>
#include <set>

#include "engine/ir/functor.h"
#include "engine/runtime/thread_pool.h"
#include "engine/support/error.h"
#include "engine/target/target_hooks.h"
#include "engine/transform/partition.h"
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
/// Serves kernels from the module of the sub-target owning them; kernels of
/// compile-only parts are known (function()) but refuse lookup().
class CompositeModule : public codegen::CompiledModule {
public:
  struct Part {
    std::string name, target;
    std::shared_ptr<const codegen::CompiledModule> compiled; // null: compile-only
  };
  void add(const std::string& fn, ir::PrimFuncRef f, const Part& p) {
    owner_[fn] = {p, std::move(f)};
    order_.push_back(fn);
  }
  KernelFn lookup(const std::string& name) const override {
    auto& [part, f] = at(name);
    if (!part.compiled)
      throw Error("kernel '" + name + "' belongs to sub-target '" + part.name + "' (" +
                  part.target + "), which is compile-only: it cannot run on this machine");
    return part.compiled->lookup(name);
  }
  ir::PrimFuncRef function(const std::string& name) const override {
    auto it = owner_.find(name);
    if (it == owner_.end())
      return {};
    auto& [part, f] = it->second;
    return part.compiled ? part.compiled->function(name) : f;
  }
  std::vector<std::string> names() const override { return order_; }
  std::string llvmIR() const override { return {}; }
  std::string assembly() const override { return {}; }
  std::vector<char> object() const override { return {}; }

private:
  const std::pair<Part, ir::PrimFuncRef>& at(const std::string& name) const {
    auto it = owner_.find(name);
    if (it == owner_.end())
      throw Error("no kernel '" + name + "' in any sub-target");
    return it->second;
  }
  std::map<std::string, std::pair<Part, ir::PrimFuncRef>> owner_;
  std::vector<std::string> order_;
};

/// Renames GlobalVar references per `names`.
struct GlobalRenamer : ir::ExprMutator {
  std::map<std::string, std::string> names;
  ir::Expr visitLeaf(const ir::Expr& self) override {
    if (auto* gv = ir::as<ir::GlobalVar>(self))
      if (auto it = names.find(gv->name); it != names.end())
        return ir::make<ir::GlobalVar>(it->second, gv->sinfo);
    return self;
  }
};

/// Gives each PrimFunc a "target" attribute: its own, else the sub-target of
/// the graph functions calling it (default when none); a function called
/// from several sub-targets is copied per extra sub-target and the calls of
/// those sub-targets renamed to the copy.
ir::IRModule assignPrimFuncTargets(const ir::IRModule& m, const target::CompositeTarget& ct) {
  std::map<std::string, std::set<std::string>> users; // primfunc -> sub-targets
  for (auto& [name, f] : m->functions) {
    auto* fn = ir::as<ir::Function>(f);
    if (!fn)
      continue;
    std::string sub = fn->attrs.getString("target", ct.defaultName);
    ir::postOrderVisit(fn->body, [&](const ir::Expr& e) {
      if (auto* gv = ir::as<ir::GlobalVar>(e); gv && ir::isa<ir::PrimFunc>(m->lookup(gv->name)))
        users[gv->name].insert(sub);
    });
  }
  ir::IRModule out = m;
  std::map<std::string, GlobalRenamer> renames; // per sub-target
  for (auto& [name, f] : m->functions) {
    auto* pf = ir::as<ir::PrimFunc>(f);
    if (!pf)
      continue;
    std::string own = pf->attrs.getString("target");
    if (!own.empty()) {
      ct.at(own);
      continue;
    }
    auto subs = users[name];
    if (subs.empty())
      subs.insert(ct.defaultName);
    bool first = true;
    for (auto& sub : subs) {
      if (first) {
        out = ir::withFunction(
            out, name, ir::make<ir::PrimFunc>(pf->params, pf->body, pf->attrs.with("target", sub)));
        first = false;
        continue;
      }
      std::string copy = ir::freshFunctionName(out, name + "_" + sub);
      out = ir::withFunction(
          out, copy,
          ir::make<ir::PrimFunc>(pf->params, pf->body,
                                 pf->attrs.with("target", sub).with("global_symbol", copy)));
      renames[sub].names[name] = copy;
    }
  }
  for (auto& [name, f] : out->functions) {
    auto* fn = ir::as<ir::Function>(f);
    if (!fn)
      continue;
    auto it = renames.find(fn->attrs.getString("target", ct.defaultName));
    if (it == renames.end())
      continue;
    ir::Expr body = it->second.mutate(fn->body);
    if (!ir::sameNode(body, fn->body))
      out = ir::withFunction(
          out, name, ir::make<ir::Function>(fn->params, body, fn->retSInfo, fn->attrs, fn->pure));
  }
  return out;
}

} // namespace

codegen::NamedPrimFuncs primFuncsOf(const ir::IRModule& m) {
  codegen::NamedPrimFuncs out;
  for (auto& [name, f] : m->functions)
    if (auto pf = ir::cast<ir::PrimFunc>(f); pf && !pf->attrs.has("library_kernel"))
      out.emplace_back(name, pf);
  return out;
}

BuildResult build(const ir::IRModule& m, const BuildOptions& opts) {
  BuildResult r;
  r.input = m;
  bool composite = target::isCompositeTargetString(opts.target);
  if (!composite)
    composite = target::Target::parse(opts.target).kind != "llvm";
  target::CompositeTarget ct;
  if (composite) {
    ct = target::CompositeTarget::parse(opts.target);
    r.composite = ct.str();
    r.target = ct.defaultTarget();
  } else {
    r.target = target::Target::parse(opts.target);
  }

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
  ir::IRModule start = m;
  if (composite) {
    start = ir::withAttrs(m, m->attrs.with("target", r.composite));
    // Claims need struct info on every binding: normalize first (a loaded,
    // unnormalized module would otherwise lose claims silently).
    std::vector<transform::PassRef> pre{transform::findPass("Normalize")->create(),
                                        transform::assignTargetsPass(),
                                        transform::partitionByTargetPass()};
    for (auto& [sub, t] : ct.targets) {
      auto* kind = target::findTargetKind(t.kind);
      if (kind && kind->hooks && kind->hooks->graphToTir)
        pre.push_back(kind->hooks->graphToTir(t, sub));
    }
    pre.push_back(pipeline);
    pipeline = transform::sequential("composite", pre);
  }
  auto t0 = std::chrono::steady_clock::now();
  {
    transform::PassContext::Scope scope(ctx);
    r.lowered = (*pipeline)(start, ctx);
  }
  r.passesMs = msSince(t0);
  if (rec)
    r.records = rec->records();
  if (!opts.codegen)
    return r;

  if (composite) {
    r.lowered = assignPrimFuncTargets(r.lowered, ct);
    t0 = std::chrono::steady_clock::now();
    auto cm = std::make_shared<CompositeModule>();
    for (auto& [sub, t] : ct.targets) {
      codegen::NamedPrimFuncs funcs;
      for (auto& [name, f] : r.lowered->functions)
        if (auto pf = ir::cast<ir::PrimFunc>(f); pf && pf->attrs.getString("target") == sub)
          funcs.emplace_back(name, pf);
      SubTargetArtifacts part;
      part.name = sub;
      part.target = t.str();
      part.compileOnly = !t.isHost(); // also reported for a part that got no functions
      auto* kind = target::findTargetKind(t.kind);
      if (!kind || !kind->hooks || !kind->hooks->tirToRuntime)
        throw Error("target kind '" + t.kind + "' of sub-target '" + sub +
                    "' has no tir_to_runtime hook");
      if (!funcs.empty()) {
        // The engine's pool runs generated kernels; a library sub-target's
        // -num-cores goes to its library instead (library_kernels.cpp).
        if (t.isHost() && !kind->hooks->graphToTir)
          runtime::ThreadPool::setNumThreads(t.numCores());
        target::RuntimeModule rm = kind->hooks->tirToRuntime(funcs, t);
        part.functions = rm.functions;
        part.compileOnly = !rm.compiled;
        part.cSource = rm.cSource;
        part.llvmIR = rm.artifacts.llvmIR;
        part.assembly = rm.artifacts.assembly;
        part.object = rm.artifacts.object;
        part.note = rm.note;
        CompositeModule::Part p{sub, t.str(), rm.compiled};
        for (auto& [name, pf] : funcs)
          cm->add(name, pf, p);
      }
      r.parts.push_back(std::move(part));
    }
    r.compiled = cm;
    r.executable = std::make_shared<runtime::Executable>(r.lowered, cm);
    r.codegenMs = msSince(t0);
    return r;
  }

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
