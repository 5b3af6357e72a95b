#include "app/cli/load_module.h"

#include <filesystem>

#include "engine/frontend/onnx_importer.h"
#include "engine/support/error.h"
#include "engine/text/parser.h"

namespace lowerscope::cli {

unity::ir::IRModule loadModule(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path))
    throw unity::Error(path + ": no such file");
  std::string ext = fs::path(path).extension().string();
  if (ext == ".onnx")
    return unity::frontend::importOnnx(path);
  return unity::text::parseFile(path);
}

} // namespace lowerscope::cli
