#include "app/cli/commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/codegen/llvm_info.h"
#include "engine/viz/graphviz_info.h"
#include "lowerscope/version.h"
#include "tuner/apply_database.h"
#include "tuner/sqlite_info.h"

namespace lowerscope::cli {

// Each command file provides one of these.
void addBuildCommands(CLI::App& app, CommandList& out);
void addOnnxCommands(CLI::App& app, CommandList& out);
void addModuleCommands(CLI::App& app, CommandList& out);
void addRenderCommands(CLI::App& app, CommandList& out);
void addTuneCommands(CLI::App& app, CommandList& out);
void addDbCommands(CLI::App& app, CommandList& out);

void registerAllCommands(CLI::App& app, CommandList& out) {
  // The tuner's pass joins the registry before any command lists or runs passes.
  unity::tuner::registerTunerPasses();
  addBuildCommands(app, out);
  addModuleCommands(app, out);
  addRenderCommands(app, out);
  addOnnxCommands(app, out);
  addTuneCommands(app, out);
  addDbCommands(app, out);
}

std::string versionText() {
  return fmt::format("lowerscope-cli {}\nLLVM {} (host {}, cpu {})\nSQLite {}\nGraphviz {}\n",
                     LOWERSCOPE_VERSION, unity::codegen::llvmVersion(),
                     unity::codegen::hostTriple(), unity::codegen::hostCpu(),
                     unity::tuner::sqliteVersion(), unity::viz::graphvizVersion());
}

} // namespace lowerscope::cli
