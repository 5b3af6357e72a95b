// `lowerscope-cli print FILE` and `lowerscope-cli check FILE`: the text
// format from the command line. Both read the file and normalize it
// (filling struct info); print writes the module back as text, check runs the
// well-formedness checker and reports "FILE: ok (N functions, M bindings)" or
// the located issues (exit code 1). print also opens an ONNX model, any
// ONNX model: nodes the importer cannot convert are kept as marked
// placeholders R.unsupported(..., op_type=..., reason=...), for viewing
// (ImportOptions::keepUnsupported); check reads text IR only.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "app/cli/commands.h"
#include "engine/frontend/load_model.h"
#include "engine/ir/well_formed.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/normalize.h"

namespace lowerscope::cli {

namespace {

size_t countBindings(const unity::ir::Expr& e) {
  using namespace unity::ir;
  size_t n = 0;
  auto* seq = as<SeqExpr>(e);
  if (!seq)
    return 0;
  for (auto& block : seq->blocks)
    for (auto& b : block->bindings) {
      ++n;
      if (auto* iff = as<If>(b->value))
        n += countBindings(iff->thenBranch) + countBindings(iff->elseBranch);
    }
  return n;
}

/// Text IR or ONNX (frontend::loadModel decides from the bytes), normalized.
/// An ONNX node the importer cannot convert is an error here: check says
/// whether the model can be built.
unity::ir::IRModule loadNormalized(const std::string& path) {
  return unity::transform::normalize(unity::frontend::loadModel(path));
}

int runPrint(const std::string& path) {
  unity::frontend::ImportOptions io;
  io.keepUnsupported = true;
  unity::ir::IRModule m = unity::transform::normalize(unity::frontend::loadModel(path, io));
  std::fputs(unity::text::printModule(m).c_str(), stdout);
  return 0;
}

int runCheck(const std::string& path) {
  unity::ir::IRModule m;
  try {
    m = loadNormalized(path);
  } catch (const unity::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  auto issues = unity::ir::checkWellFormed(m);
  if (!issues.empty()) {
    for (auto& issue : issues) {
      const auto& s = issue.span;
      std::string where =
          s.line > 0 ? fmt::format("{}:{}:{}: ", s.file.empty() ? path : s.file, s.line, s.column)
                     : path + ": ";
      std::fprintf(stderr, "%serror: %s\n", where.c_str(), unity::ir::issueStr(issue).c_str());
    }
    return 1;
  }
  size_t bindings = 0;
  for (auto& [name, f] : m->functions)
    if (auto* fn = unity::ir::as<unity::ir::Function>(f))
      bindings += countBindings(fn->body);
  std::printf("%s: ok (%zu functions, %zu bindings)\n", path.c_str(), m->functions.size(),
              bindings);
  return 0;
}

} // namespace

void addModuleCommands(CLI::App& app, CommandList& out) {
  auto printFile = std::make_shared<std::string>();
  CLI::App* print = app.add_subcommand(
      "print", "Read a model (text IR or ONNX), normalize it and print it as text IR; ONNX nodes "
               "that cannot be imported are kept as R.unsupported placeholders");
  print->add_option("FILE", *printFile, "module in the text format (.uir) or an ONNX model")
      ->required();
  out.push_back({print, [printFile] { return runPrint(*printFile); }});

  auto checkFile = std::make_shared<std::string>();
  CLI::App* check =
      app.add_subcommand("check", "Read a model (.uir or .onnx), normalize it and check it is well "
                                  "formed");
  check->add_option("FILE", *checkFile, "text IR (.uir) or ONNX model (.onnx)")->required();
  out.push_back({check, [checkFile] { return runCheck(*checkFile); }});
}

} // namespace lowerscope::cli
