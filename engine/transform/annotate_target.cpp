// AnnotateTarget: records "function/binding=subtarget" entries in the module
// attribute "target.annotations" (sorted, one per binding) after checking
// that the function, the bindings and the sub-target exist.
#include <algorithm>
#include <map>

#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/partition.h"

namespace unity::transform {

using namespace ir;

std::vector<TargetAnnotation> targetAnnotations(const IRModule& m) {
  std::vector<TargetAnnotation> out;
  for (auto& s : m->attrs.get<std::vector<std::string>>(kTargetAnnotationsAttr)
                     .value_or(std::vector<std::string>{})) {
    auto slash = s.find('/'), eq = s.rfind('=');
    if (slash == std::string::npos || eq == std::string::npos || eq < slash)
      throw Error("malformed target annotation '" + s + "' (expected function/binding=target)");
    out.push_back({s.substr(0, slash), s.substr(slash + 1, eq - slash - 1), s.substr(eq + 1)});
  }
  return out;
}

IRModule annotateTarget(const IRModule& m, const std::string& function,
                        const std::vector<std::string>& bindings, const std::string& subTarget) {
  auto* fn = as<Function>(m->lookup(function));
  if (!fn)
    throw Error("AnnotateTarget: no graph-level function '" + function + "' in the module");
  if (subTarget.empty())
    throw Error("AnnotateTarget: empty sub-target name");
  if (auto t = m->attrs.getString("target"); !t.empty())
    target::CompositeTarget::parse(t).at(subTarget); // throws for an unknown name
  std::map<std::string, int> names;
  if (auto* seq = as<SeqExpr>(fn->body))
    for (auto& blk : seq->blocks)
      for (auto& b : blk->bindings)
        names[b->var->name]++;
  std::map<std::string, std::string> entries;
  for (auto& a : targetAnnotations(m))
    entries[a.function + "/" + a.binding] = a.subTarget;
  for (auto& b : bindings) {
    auto it = names.find(b);
    if (it == names.end())
      throw Error("AnnotateTarget: function '" + function + "' has no binding '" + b + "'");
    if (it->second > 1)
      throw Error("AnnotateTarget: binding name '" + b + "' occurs " + std::to_string(it->second) +
                  " times in function '" + function + "'; rename the bindings first");
    entries[function + "/" + b] = subTarget;
  }
  std::vector<std::string> list;
  for (auto& [k, v] : entries)
    list.push_back(k + "=" + v);
  return withAttrs(m, m->attrs.with(kTargetAnnotationsAttr, list));
}

IRModule annotateByName(const IRModule& m,
                        const std::vector<std::pair<std::string, std::string>>& assignments) {
  // name -> (function -> bindings) over every graph function's bindings.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> index;
  for (auto& [gv, fnExpr] : m->functions) {
    auto* fn = as<Function>(fnExpr);
    auto* seq = fn ? as<SeqExpr>(fn->body) : nullptr;
    if (!seq)
      continue;
    for (auto& blk : seq->blocks)
      for (auto& b : blk->bindings) {
        index[b->var->name][gv].push_back(b->var->name);
        for (auto& origin : b->span.origins) {
          auto colon = origin.rfind(':');
          auto node = colon == std::string::npos ? origin : origin.substr(0, colon);
          auto& list = index[node][gv];
          if (node != b->var->name &&
              std::find(list.begin(), list.end(), b->var->name) == list.end())
            list.push_back(b->var->name);
        }
      }
  }
  std::vector<std::string> unknown;
  for (auto& [name, sub] : assignments)
    if (!index.count(name))
      unknown.push_back(name);
  if (!unknown.empty()) {
    std::string msg = "no binding or source-model node named ";
    for (size_t i = 0; i < unknown.size(); ++i)
      msg += (i ? ", '" : "'") + unknown[i] + "'";
    throw Error(msg + " in the module");
  }
  IRModule out = m;
  for (auto& [name, sub] : assignments) {
    auto& byFn = index.at(name);
    if (byFn.size() > 1) {
      std::string fns;
      for (auto& [f, _] : byFn)
        fns += (fns.empty() ? "'" : ", '") + f + "'";
      throw Error("'" + name + "' names bindings in several functions (" + fns +
                  "); name a binding of one function");
    }
    auto& [fn, bindings] = *byFn.begin();
    out = annotateTarget(out, fn, bindings, sub);
  }
  return out;
}

PassRef annotateTargetPass(std::string function, std::vector<std::string> bindings,
                           std::string subTarget) {
  return makePass({"AnnotateTarget", PassLevel::Graph, 0, {}},
                  [=](const IRModule& m, PassContext&) {
                    return annotateTarget(m, function, bindings, subTarget);
                  });
}

PassRef annotateByNamePass(std::vector<std::pair<std::string, std::string>> assignments,
                           std::string source) {
  return makePass({"AnnotateTarget", PassLevel::Graph, 0, {}},
                  [assignments = std::move(assignments),
                   source = std::move(source)](const IRModule& m, PassContext&) {
                    try {
                      return annotateByName(m, assignments);
                    } catch (const Error& e) {
                      if (source.empty())
                        throw;
                      throw Error(source + ": " + e.message());
                    }
                  });
}

PassRef annotateTargetPassFromConfig() {
  return makePass({"AnnotateTarget", PassLevel::Graph, 0, {}},
                  [](const IRModule& m, PassContext& ctx) {
                    auto fn = ctx.config.getString("annotate_target.function");
                    auto tgt = ctx.config.getString("annotate_target.target");
                    auto b = ctx.config.get<std::vector<std::string>>("annotate_target.bindings");
                    if (fn.empty() && tgt.empty() && !b)
                      return m; // nothing requested
                    if (fn.empty() || tgt.empty() || !b)
                      throw Error("AnnotateTarget needs the config keys annotate_target.function, "
                                  "annotate_target.bindings and annotate_target.target");
                    return annotateTarget(m, fn, *b, tgt);
                  });
}

} // namespace unity::transform
