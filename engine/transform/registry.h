#pragma once
// The pass registry: every pass the CLI (--passes a,b,c), the GUI's pass list
// and the tests can name. Pipelines are named lists of registered passes.
// Registration is explicit (registry.cpp calls each family's register
// function): the engine is a static library, and static initialisers in
// unreferenced objects would silently vanish.
#include <functional>
#include <string>
#include <vector>

#include "engine/transform/pass.h"

namespace unity::transform {

struct PassEntry {
  std::string name;
  PassLevel level;
  std::string description;
  std::function<PassRef()> create;
};

/// Adds (or replaces) a pass. Libraries above the engine (the tuner's
/// ApplyTuningDatabase) register theirs through this too.
void registerPass(PassEntry entry);
const PassEntry* findPass(const std::string& name);
std::vector<const PassEntry*> allPasses(); // sorted by name

/// A Sequential of the named passes; throws unity::Error naming any unknown
/// pass (and listing the known ones).
PassRef makePipeline(const std::string& name, const std::vector<std::string>& passNames);

struct PipelineEntry {
  std::string name;
  std::string description;
  std::vector<std::string> passes;
};
void registerPipeline(PipelineEntry entry);
const PipelineEntry* findPipeline(const std::string& name);
std::vector<const PipelineEntry*> allPipelines();

} // namespace unity::transform
