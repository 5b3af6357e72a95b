// primFuncTargets: module attribute "target" + function attributes ->
// the target each PrimFunc compiles for (see function_target.h). The
// callers of a PrimFunc are found by walking every graph function once for
// the GlobalVars it references.
#include "engine/transform/function_target.h"

#include <set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

std::map<std::string, target::Target> primFuncTargets(const IRModule& m) {
  std::map<std::string, target::Target> out;
  std::string text = m->attrs.getString("target");
  if (text.empty()) {
    target::Target host = target::Target::parse("llvm");
    for (auto& [name, f] : m->functions)
      if (isa<PrimFunc>(f))
        out.emplace(name, host);
    return out;
  }
  auto ct = target::CompositeTarget::parse(text);
  std::map<std::string, std::set<std::string>> callers; // primfunc -> sub-targets
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (!fn)
      continue;
    std::string sub = fn->attrs.getString("target", ct.defaultName);
    postOrderVisit(fn->body, [&](const Expr& e) {
      if (auto* gv = as<GlobalVar>(e); gv && isa<PrimFunc>(m->lookup(gv->name)))
        callers[gv->name].insert(sub);
    });
  }
  for (auto& [name, f] : m->functions) {
    auto* pf = as<PrimFunc>(f);
    if (!pf)
      continue;
    std::string sub = pf->attrs.getString("target");
    if (sub.empty()) {
      auto& subs = callers[name];
      sub = subs.empty() || subs.count(ct.defaultName) ? ct.defaultName : *subs.begin();
    }
    out.emplace(name, ct.at(sub));
  }
  return out;
}

target::Target targetOf(const IRModule& m, const std::string& primFunc) {
  auto all = primFuncTargets(m);
  auto it = all.find(primFunc);
  if (it == all.end())
    throw Error("targetOf: no tensor function '" + primFunc + "' in the module");
  return it->second;
}

} // namespace unity::transform
