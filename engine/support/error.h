#pragma once
// Errors are values with a location. A unity::Error is what every user-facing
// failure (parse error, bad shape, unknown op, malformed model) throws; its
// what() is the complete message, "file:line:col: error: message" followed by
// the source line and a caret when the location is known.
#include <stdexcept>
#include <string>

namespace unity {

/// A place in a source (text IR file, ONNX node). Line and column are 1-based;
/// 0 means unknown.
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
  std::string str() const;
};

class Error : public std::runtime_error {
public:
  explicit Error(std::string message);
  Error(SourceLoc loc, std::string message, std::string sourceLine = {});

  const SourceLoc& loc() const { return loc_; }
  /// The message without location or caret.
  const std::string& message() const { return message_; }

private:
  SourceLoc loc_;
  std::string message_;
};

} // namespace unity
