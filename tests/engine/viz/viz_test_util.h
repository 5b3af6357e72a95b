#pragma once
// Helpers of the viz tests: example modules and the module before/after a
// named pass of the default pipeline.
#include <string>
#include <utility>

#include "engine/build.h"
#include "engine/frontend/load_model.h"
#include "engine/support/error.h"

namespace unity::viz::testing {

inline ir::IRModule example(const std::string& name) {
  return frontend::loadModel(std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name);
}

/// (before, after) of the first run of `pass` when building `file` with the
/// default pipeline (no codegen).
inline std::pair<ir::IRModule, ir::IRModule> aroundPass(const std::string& file,
                                                        const std::string& pass) {
  BuildOptions o;
  o.codegen = false;
  BuildResult r = build(example(file), o);
  for (auto& rec : r.records)
    if (rec.name == pass)
      return {rec.before, rec.after};
  throw Error("no pass " + pass);
}

} // namespace unity::viz::testing
