// `lowerscope-cli render FILE [--pass N|NAME] [--function F] [--expand G]...
//  --format svg|png|dot -o OUT`: the dataflow graph the workbench shows, as a
// file. Without --pass the input module is drawn (normalized, so edges carry
// shapes); with --pass the model is built with the default pipeline (passes
// only, no code generation) and the module after that pass is drawn — the
// same step numbering as `build --dump-passes` (0 = input). An ONNX model
// with nodes the importer cannot convert is drawn with those nodes as marked
// placeholders (R.unsupported); --pass then fails with their list.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "app/cli/commands.h"
#include "engine/build.h"
#include "engine/frontend/load_model.h"
#include "engine/support/error.h"
#include "engine/transform/normalize.h"
#include "engine/viz/graph_layout.h"
#include "engine/viz/history.h"

namespace lowerscope::cli {

namespace {

struct RenderArgs {
  std::string file, pass, function, format, out, pipeline = "default";
  std::vector<std::string> expand;
  bool noConstants = false;
};

int runRender(const RenderArgs& a) {
  using unity::Error;
  // Open anything: unconvertible ONNX nodes are drawn as R.unsupported
  // placeholders (build(), and so --pass, refuses such a module).
  unity::frontend::ImportOptions io;
  io.keepUnsupported = true;
  unity::ir::IRModule m = unity::frontend::loadModel(a.file, io);
  std::string where = a.file;
  if (!a.pass.empty()) {
    unity::BuildOptions o;
    o.pipeline = a.pipeline;
    o.codegen = false;
    unity::BuildResult r = unity::build(m, o);
    int step = unity::viz::selectStep(r.records, a.pass);
    m = unity::viz::moduleAtStep(r.input, r.records, step);
    where += fmt::format(" after step {}", step);
  } else {
    m = unity::transform::normalize(m);
  }
  std::string fn = a.function.empty() ? unity::viz::defaultGraphFunction(m) : a.function;
  if (fn.empty())
    throw Error(where + ": the module has no graph-level function to draw");
  unity::viz::ExtractOptions eo;
  eo.expanded.insert(a.expand.begin(), a.expand.end());
  eo.constants = !a.noConstants;
  unity::viz::DataflowGraph g = unity::viz::extractGraph(m, fn, eo);
  std::string data = unity::viz::renderGraph(g, a.format);
  std::ofstream out(a.out, std::ios::binary);
  out << data;
  out.close();
  if (!out)
    throw Error(a.out + ": cannot write file");
  std::printf("rendered %s (%s): %zu nodes, %zu edges -> %s\n", fn.c_str(), where.c_str(),
              g.nodes.size(), g.edges.size(), a.out.c_str());
  return 0;
}

} // namespace

void addRenderCommands(CLI::App& app, CommandList& out) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* sub = app.add_subcommand("render", "Draw a function's dataflow graph (svg, png, dot)");
  sub->add_option("FILE", args->file, "Model: .uir text IR or .onnx")->required();
  sub->add_option("--pass", args->pass,
                  "Draw the module after this step of the default pipeline: a number "
                  "(0 = input, as in build --dump-passes) or a pass name such as FuseOps");
  sub->add_option("--pipeline", args->pipeline, "Named pass pipeline used with --pass");
  sub->add_option("--function", args->function, "Graph-level function (default: main)");
  sub->add_option("--expand", args->expand, "Fused function to draw expanded (repeatable)");
  sub->add_flag("--no-constants", args->noConstants, "Leave constant operands out");
  sub->add_option("--format", args->format, "Output format")
      ->required()
      ->check(CLI::IsMember({"svg", "png", "dot"}));
  sub->add_option("-o,--output", args->out, "Output file")->required();
  out.push_back({sub, [args] { return runRender(*args); }});
}

} // namespace lowerscope::cli
