// lowerscope-cli: the headless front end. Every sub-command lives in its own
// file in this folder and registers itself through commands.h.
#include "app/cli/commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "engine/support/error.h"

int main(int argc, char** argv) {
  using namespace lowerscope::cli;
  CLI::App app{"lowerscope-cli: build, inspect and run models with the unity compiler",
               "lowerscope-cli"};
  app.require_subcommand(0, 1);
  bool showVersion = false;
  app.add_flag("--version", showVersion, "Print the version and library versions, then exit");

  CommandList commands;
  registerAllCommands(app, commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }

  if (showVersion) {
    std::fputs(versionText().c_str(), stdout);
    return 0;
  }
  try {
    for (auto& c : commands)
      if (c.sub->parsed())
        return c.run();
  } catch (const unity::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lowerscope-cli: internal error: %s\n", e.what());
    return 2;
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}
