// ApplyTuningDatabase (see apply_database.h).
#include "tuner/apply_database.h"

#include <mutex>

#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/transform/function_target.h"
#include "engine/transform/pass.h"
#include "engine/transform/registry.h"
#include "tuner/task.h"

namespace unity::tuner {

using namespace ir;

IRModule applyTuningDatabase(const IRModule& m, const Database& db) {
  auto targets = transform::primFuncTargets(m);
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, fn] : m->functions) {
    auto f = cast<PrimFunc>(fn);
    if (!f || f->attrs.has("tuned")) {
      out.emplace_back(name, fn);
      continue;
    }
    BaseFunc nf = fn;
    // The best record first; a record whose trace no longer replays (written
    // by another version) falls through to the next.
    for (const Record& r : db.bestByHash(workloadHash(f), targets.at(name).str(), 5)) {
      try {
        auto trace = schedule::Trace::fromJson(r.trace);
        auto s = schedule::Schedule::replay(f, trace);
        Attrs attrs = s.func()->attrs;
        attrs.set("tuned", int64_t(1));
        attrs.set("tuning_record", r.id);
        attrs.set("tuning_trace", trace.str());
        nf = make<PrimFunc>(s.func()->params, s.func()->body, attrs);
        break;
      } catch (const Error&) {
        continue;
      }
    }
    changed = changed || !sameNode(nf, fn);
    out.emplace_back(name, nf);
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}

void registerTunerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    transform::registerPass(
        {"ApplyTuningDatabase", transform::PassLevel::Tensor,
         "replace default schedules by the best tuned record for the workload and target "
         "(config tuner.database)",
         [] {
           return transform::makePass(
               {"ApplyTuningDatabase", transform::PassLevel::Tensor, 1, {}},
               [](const IRModule& m, transform::PassContext& ctx) {
                 std::string path = ctx.config.getString(kDatabaseConfigKey);
                 if (path.empty())
                   throw Error("ApplyTuningDatabase: no database file (set the config '" +
                               std::string(kDatabaseConfigKey) + "', e.g. build --db FILE.db)");
                 Database db(path);
                 return applyTuningDatabase(m, db);
               });
         }});
  });
}

std::vector<std::string> pipelineWithDatabase(const std::string& pipeline) {
  const transform::PipelineEntry* pe = transform::findPipeline(pipeline);
  if (!pe)
    throw Error("unknown pipeline '" + pipeline + "'");
  std::vector<std::string> out;
  bool inserted = false;
  for (auto& p : pe->passes) {
    if (p == "DefaultSchedule") {
      out.push_back("ApplyTuningDatabase");
      inserted = true;
    }
    out.push_back(p);
  }
  if (!inserted)
    throw Error("pipeline '" + pipeline +
                "' has no DefaultSchedule to apply tuned schedules before");
  return out;
}

} // namespace unity::tuner
