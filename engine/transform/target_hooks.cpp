// The registry of target-kind hooks. Look-ups and registrations first make
// sure the library kinds defined in transform are in (byoc_library.cpp);
// those are inserted directly, not through registerKindHooks, so that the
// once-flag is never re-entered.
#include "engine/transform/target_hooks.h"

#include <map>
#include <mutex>

#include "engine/transform/byoc_library.h"

namespace unity::transform {

namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, TargetKindHooks> hooks; // node-based: entries never move
};

Registry& registry() {
  static Registry* r = new Registry();
  static std::once_flag once;
  std::call_once(once, [] {
    for (auto& [kind, h] : libraryKindHooks())
      r->hooks.emplace(kind, h);
  });
  return *r;
}
} // namespace

void registerKindHooks(const std::string& kind, TargetKindHooks hooks) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  r.hooks[kind] = std::move(hooks);
}

const TargetKindHooks* findKindHooks(const std::string& kind) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.hooks.find(kind);
  return it == r.hooks.end() ? nullptr : &it->second;
}

} // namespace unity::transform
