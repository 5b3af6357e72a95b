#include "engine/support/error.h"

#include <fmt/format.h>

namespace unity {

std::string SourceLoc::str() const {
  if (!known())
    return file;
  if (column > 0)
    return fmt::format("{}:{}:{}", file, line, column);
  return fmt::format("{}:{}", file, line);
}

static std::string render(const SourceLoc& loc, const std::string& msg, const std::string& src) {
  std::string out;
  if (!loc.file.empty() || loc.known())
    out = loc.str() + ": ";
  out += "error: " + msg;
  if (!src.empty()) {
    out += "\n" + src;
    if (loc.column > 0) {
      out += "\n";
      // Keep tabs so the caret lines up with the source line as printed.
      for (int i = 0; i + 1 < loc.column && i < static_cast<int>(src.size()); ++i)
        out += src[i] == '\t' ? '\t' : ' ';
      out += "^";
    }
  }
  return out;
}

Error::Error(std::string message)
    : std::runtime_error("error: " + message), message_(std::move(message)) {}

Error::Error(SourceLoc loc, std::string message, std::string sourceLine)
    : std::runtime_error(render(loc, message, sourceLine)), loc_(std::move(loc)),
      message_(std::move(message)) {}

} // namespace unity
