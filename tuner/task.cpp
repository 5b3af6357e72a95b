// Task extraction (see task.h): build up to DefaultSchedule, then group the
// tensor functions by workload hash and target and count their calls.
#include "tuner/task.h"

#include <map>

#include "engine/ir/expr.h"
#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/call_tir.h"
#include "engine/transform/function_target.h"
#include "engine/transform/registry.h"
#include "tuner/features.h"

namespace unity::tuner {

using namespace ir;

PrimFuncRef workloadOf(const PrimFuncRef& f) {
  if (!f)
    throw Error("tuning task: no function");
  Attrs attrs;
  if (f->attrs.has("num_outputs"))
    attrs.set("num_outputs", f->attrs.getInt("num_outputs", 1));
  return make<PrimFunc>(f->params, f->body, attrs);
}

std::string workloadHash(const PrimFuncRef& f) { return structuralHashHex(workloadOf(f)); }

std::string workloadText(const PrimFuncRef& workload) {
  return text::printModule(makeModule({{"main", workload}}));
}

PrimFuncRef parseWorkload(const std::string& textIR) {
  IRModule m = text::parseModule(textIR, "<workload>");
  auto f = cast<PrimFunc>(m->lookup("main"));
  if (!f)
    throw Error("workload text: expected a module whose @main is a tensor function");
  return f;
}

namespace {

/// Calls of each tensor function from the graph functions of m.
std::map<std::string, int> callCounts(const IRModule& m) {
  std::map<std::string, int> calls;
  for (auto& [name, fn] : m->functions) {
    auto f = cast<Function>(fn);
    if (!f)
      continue;
    postOrderVisit(f->body, [&](const Expr& e) {
      if (auto* c = transform::asCallTIR(e))
        if (auto* gv = as<GlobalVar>(c->args[0]))
          ++calls[gv->name];
    });
  }
  return calls;
}

bool hasScalarParam(const PrimFuncRef& f) {
  for (auto& p : f->params)
    if (p.scalar)
      return true;
  return false;
}

/// True when a loop extent or buffer dimension of f is not a constant.
bool hasSymbolicExtent(const PrimFuncRef& f) {
  for (auto& p : f->params)
    if (p.buffer)
      for (auto& d : p.buffer->shape)
        if (!asConstInt(d))
          return true;
  bool symbolic = false;
  walkStmt(f->body, [&](const Stmt& s) {
    if (auto* loop = as<For>(s))
      symbolic = symbolic || !asConstInt(loop->extent);
  });
  return symbolic;
}

/// The passes of the default pipeline before DefaultSchedule.
std::vector<std::string> passesBeforeSchedule() {
  const transform::PipelineEntry* pe = transform::findPipeline("default");
  if (!pe)
    throw Error("tuning task extraction: the default pipeline is not registered");
  std::vector<std::string> out;
  for (auto& p : pe->passes) {
    if (p == "DefaultSchedule")
      return out;
    out.push_back(p);
  }
  throw Error("tuning task extraction: the default pipeline has no DefaultSchedule");
}

} // namespace

std::vector<Task> extractTasks(const IRModule& model, const BuildOptions& options,
                               int64_t symbolicExtent) {
  if (symbolicExtent < 1)
    throw Error("tuning task extraction: the size of symbolic extents must be at least 1, got " +
                std::to_string(symbolicExtent));
  if (!options.passes.empty() || options.pipeline != "default")
    throw Error("tuning task extraction: only the default pipeline is supported (got '" +
                options.pipeline + "')");
  BuildOptions o = options;
  o.passes = passesBeforeSchedule();
  o.codegen = false;
  o.record = false;
  BuildResult r = build(model, o);
  auto targets = transform::primFuncTargets(r.lowered);
  auto calls = callCounts(r.lowered);

  std::vector<Task> tasks;
  std::map<std::pair<std::string, std::string>, size_t> index; // (hash, target) -> task
  for (auto& [name, fn] : r.lowered->functions) {
    auto f = cast<PrimFunc>(fn);
    if (!f)
      continue;
    const target::Target& t = targets.at(name);
    PrimFuncRef w = workloadOf(f);
    std::string hash = structuralHashHex(w), ts = t.str();
    auto [it, fresh] = index.emplace(std::make_pair(hash, ts), tasks.size());
    if (!fresh) {
      Task& task = tasks[it->second];
      task.functions.push_back(name);
      task.weight += calls[name];
      continue;
    }
    Task task;
    task.name = name;
    task.functions = {name};
    task.workload = w;
    task.hash = hash;
    task.target = ts;
    task.subTarget = f->attrs.getString("target");
    task.weight = calls[name];
    task.symbolic = hasSymbolicExtent(w);
    task.symbolicExtent = task.symbolic ? symbolicExtent : 0;
    if (hasScalarParam(w)) {
      task.tunable = false;
      task.whyNotTunable = "a scalar parameter: no value to measure with";
    } else if (!t.isHost()) {
      task.tunable = false;
      task.whyNotTunable = "target '" + ts + "' does not run on this machine";
    } else {
      task.flops = estimateFlops(w, symbolicExtent);
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

} // namespace unity::tuner
