// AssignPrimFuncTargets: after lowering, every tensor function must belong to
// exactly one sub-target, because each sub-target's codegen compiles the
// functions it owns (and a C part cannot call into the LLVM part's code).
//
// Algorithm: collect, for every PrimFunc, the sub-targets of the graph
// functions that reference it (a graph function without "target" belongs to
// the default sub-target). A PrimFunc that already carries "target" keeps it
// (library kinds' graph_to_tir hooks set it); one that nobody references
// goes to the default. A PrimFunc referenced from several sub-targets stays
// with the default one if that is among them (else the first by name) and
// is copied once per other sub-target under a fresh name (its global_symbol
// follows); the references inside that sub-target's graph functions are
// renamed to the copy. The module attribute "target" (the composite target
// string) names the sub-targets; without it the pass changes nothing.
#include <algorithm>
#include <map>
#include <set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/partition.h"

namespace unity::transform {

using namespace ir;

namespace {

/// Renames GlobalVar references per `names`.
struct GlobalRenamer : ExprMutator {
  std::map<std::string, std::string> names;
  Expr visitLeaf(const Expr& self) override {
    if (auto* gv = as<GlobalVar>(self))
      if (auto it = names.find(gv->name); it != names.end())
        return make<GlobalVar>(it->second, gv->sinfo);
    return self;
  }
};

/// PrimFunc name -> the sub-targets of the graph functions referencing it.
std::map<std::string, std::set<std::string>> primFuncUsers(const IRModule& m,
                                                           const std::string& defaultName) {
  std::map<std::string, std::set<std::string>> users;
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (!fn)
      continue;
    std::string sub = fn->attrs.getString("target", defaultName);
    postOrderVisit(fn->body, [&](const Expr& e) {
      if (auto* gv = as<GlobalVar>(e); gv && isa<PrimFunc>(m->lookup(gv->name)))
        users[gv->name].insert(sub);
    });
  }
  return users;
}

} // namespace

IRModule assignPrimFuncTargets(const IRModule& m) {
  std::string text = m->attrs.getString("target");
  if (text.empty())
    return m;
  target::CompositeTarget ct = target::CompositeTarget::parse(text);
  auto users = primFuncUsers(m, ct.defaultName);

  IRModule out = m;
  std::map<std::string, GlobalRenamer> renames; // per sub-target
  for (auto& [name, f] : m->functions) {
    auto* pf = as<PrimFunc>(f);
    if (!pf)
      continue;
    if (std::string own = pf->attrs.getString("target"); !own.empty()) {
      ct.at(own); // throws for a sub-target the composite does not have
      continue;
    }
    // The original stays with the default sub-target when that calls it
    // (else the first in name order): the schedule passes tuned it for the
    // sub-target of its callers the same way.
    std::vector<std::string> subs(users[name].begin(), users[name].end());
    if (subs.empty())
      subs.push_back(ct.defaultName);
    if (auto d = std::find(subs.begin(), subs.end(), ct.defaultName); d != subs.end())
      std::rotate(subs.begin(), d, d + 1);
    bool first = true;
    for (auto& sub : subs) {
      if (first) {
        out = withFunction(out, name,
                           make<PrimFunc>(pf->params, pf->body, pf->attrs.with("target", sub)));
        first = false;
        continue;
      }
      std::string copy = freshFunctionName(out, name + "_" + sub);
      out = withFunction(out, copy,
                         make<PrimFunc>(pf->params, pf->body,
                                        pf->attrs.with("target", sub).with("global_symbol", copy)));
      renames[sub].names[name] = copy;
    }
  }
  if (renames.empty())
    return out;
  // Walk a handle of its own: `out` is replaced inside the loop, which would
  // free the function map being iterated.
  const IRModule assigned = out;
  for (auto& [name, f] : assigned->functions) {
    auto* fn = as<Function>(f);
    if (!fn)
      continue;
    auto it = renames.find(fn->attrs.getString("target", ct.defaultName));
    if (it == renames.end())
      continue;
    Expr body = it->second.mutate(fn->body);
    if (!sameNode(body, fn->body))
      out = withFunction(out, name,
                         make<Function>(fn->params, body, fn->retSInfo, fn->attrs, fn->pure));
  }
  return out;
}

PassRef assignPrimFuncTargetsPass() {
  return makePass({"AssignPrimFuncTargets", PassLevel::Module, 0, {}},
                  [](const IRModule& m, PassContext&) { return assignPrimFuncTargets(m); });
}

} // namespace unity::transform
