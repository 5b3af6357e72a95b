// AssignTargets: every sub-target whose kind has a `claims` hook (library
// kinds) is asked, in composite order, which bindings of each binding block
// its patterns cover; a claimed group becomes annotations unless one of its
// bindings is already annotated (explicit annotations, and earlier
// sub-targets, win). Also registers the target-assignment passes.
#include <map>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/byoc_library.h"
#include "engine/transform/partition.h"
#include "engine/transform/registry.h"
#include "engine/transform/target_hooks.h"

namespace unity::transform {

using namespace ir;

IRModule assignTargets(const IRModule& m) {
  std::string text = m->attrs.getString("target");
  if (text.empty())
    return m;
  auto composite = target::CompositeTarget::parse(text);
  std::map<std::string, std::string> taken; // "func/binding" -> sub-target
  for (auto& a : targetAnnotations(m))
    taken[a.function + "/" + a.binding] = a.subTarget;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> claims;
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (!fn || fn->attrs.has("target") || fn->attrs.getBool("primitive", false))
      continue;
    auto* seq = as<SeqExpr>(fn->body);
    if (!seq)
      continue;
    UseCounts uses = countUses(fn->body);
    for (auto& [sub, t] : composite.targets) {
      if (sub == composite.defaultName)
        continue;
      const TargetKindHooks* hooks = findKindHooks(t.kind);
      if (!hooks || !hooks->claims)
        continue;
      for (auto& blk : seq->blocks)
        for (auto& group : hooks->claims(*blk, uses)) {
          bool free = true;
          for (size_t i : group)
            free &= !taken.count(name + "/" + blk->bindings.at(i)->var->name);
          if (!free)
            continue;
          for (size_t i : group) {
            taken[name + "/" + blk->bindings[i]->var->name] = sub;
            claims[{name, sub}].push_back(blk->bindings[i]->var->name);
          }
        }
    }
  }
  IRModule out = m;
  for (auto& [key, bindings] : claims)
    out = annotateTarget(out, key.first, bindings, key.second);
  return out;
}

PassRef assignTargetsPass() {
  return makePass({"AssignTargets", PassLevel::Graph, 0, {}},
                  [](const IRModule& m, PassContext&) { return assignTargets(m); });
}

void registerTargetPasses() {
  registerPass({"AnnotateTarget", PassLevel::Graph,
                "mark bindings for a sub-target (config annotate_target.function/bindings/target)",
                annotateTargetPassFromConfig});
  registerPass({"AssignTargets", PassLevel::Graph,
                "let library sub-targets claim their patterns; explicit annotations win",
                assignTargetsPass});
  registerPass({"PartitionByTarget", PassLevel::Graph,
                "outline annotated bindings into functions carrying \"target\" (convex pieces)",
                partitionByTargetPass});
  registerPass({"AssignPrimFuncTargets", PassLevel::Module,
                "give each tensor function the sub-target of its callers (copies for shared ones)",
                assignPrimFuncTargetsPass});
}

} // namespace unity::transform
