#include "engine/transform/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "engine/support/error.h"

namespace unity::transform {

// Each family of passes provides one of these (defined next to the passes).
// Families that do not exist yet are simply not listed here.
void registerBuiltinPasses();

namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, PassEntry> passes;
  std::map<std::string, PipelineEntry> pipelines;
};

// Registration goes to the raw registry; look-ups first make sure the
// built-in passes are in (registering them calls registerPass, which must not
// re-enter the once-flag).
Registry& rawRegistry() {
  static Registry* r = new Registry();
  return *r;
}

Registry& registry() {
  static std::once_flag once;
  std::call_once(once, [] { registerBuiltinPasses(); });
  return rawRegistry();
}
} // namespace

void registerPass(PassEntry entry) {
  auto& r = rawRegistry();
  std::lock_guard lock(r.mu);
  std::string name = entry.name;
  r.passes[name] = std::move(entry);
}

const PassEntry* findPass(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.passes.find(name);
  return it == r.passes.end() ? nullptr : &it->second;
}

std::vector<const PassEntry*> allPasses() {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<const PassEntry*> out;
  for (auto& [_, e] : r.passes)
    out.push_back(&e);
  return out;
}

PassRef makePipeline(const std::string& name, const std::vector<std::string>& passNames) {
  std::vector<PassRef> passes;
  for (auto& n : passNames) {
    const PassEntry* e = findPass(n);
    if (!e) {
      std::string known;
      for (auto* p : allPasses())
        known += (known.empty() ? "" : ", ") + p->name;
      throw Error("unknown pass '" + n + "' (known passes: " + known + ")");
    }
    passes.push_back(e->create());
  }
  return sequential(name, std::move(passes));
}

void registerPipeline(PipelineEntry entry) {
  auto& r = rawRegistry();
  std::lock_guard lock(r.mu);
  std::string name = entry.name;
  r.pipelines[name] = std::move(entry);
}

const PipelineEntry* findPipeline(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.pipelines.find(name);
  return it == r.pipelines.end() ? nullptr : &it->second;
}

std::vector<const PipelineEntry*> allPipelines() {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<const PipelineEntry*> out;
  for (auto& [_, e] : r.pipelines)
    out.push_back(&e);
  return out;
}

} // namespace unity::transform
