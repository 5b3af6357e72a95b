#pragma once
// Registry of lowerscope-cli sub-commands. A command file defines one
// `addXxxCommand(CLI::App&, CommandList&)` and is listed in registerAllCommands
// (commands.cpp). A command's run() returns the process exit code: 0 success,
// 1 user error (message already on stderr); it may also throw unity::Error,
// which main prints and turns into exit code 1.
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace lowerscope::cli {

struct Command {
  CLI::App* sub = nullptr;
  std::function<int()> run;
};
using CommandList = std::vector<Command>;

void registerAllCommands(CLI::App& app, CommandList& out);

/// `--version` text: our version and those of LLVM, SQLite and Graphviz.
std::string versionText();

} // namespace lowerscope::cli
