#include "engine/support/dtype.h"

#include <charconv>

namespace unity {

std::string DataType::str() const {
  std::string base;
  switch (code) {
  case Code::Int:
    base = "int" + std::to_string(bits);
    break;
  case Code::UInt:
    base = "uint" + std::to_string(bits);
    break;
  case Code::Float:
    base = "float" + std::to_string(bits);
    break;
  case Code::Bool:
    base = "bool";
    break;
  case Code::Handle:
    return "handle";
  case Code::Void:
    return "void";
  }
  if (lanes != 1)
    base += "x" + std::to_string(lanes);
  return base;
}

static bool parseInt(std::string_view s, int& out) {
  if (s.empty())
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<DataType> DataType::parse(std::string_view s) {
  if (s == "handle")
    return Handle();
  if (s == "void")
    return Void();
  int lanes = 1;
  if (auto x = s.find('x'); x != std::string_view::npos) {
    if (!parseInt(s.substr(x + 1), lanes) || lanes < 1 || lanes > 1024)
      return std::nullopt;
    s = s.substr(0, x);
  }
  if (s == "bool")
    return Bool(lanes);
  Code code;
  std::string_view rest;
  if (s.starts_with("uint")) {
    code = Code::UInt;
    rest = s.substr(4);
  } else if (s.starts_with("int")) {
    code = Code::Int;
    rest = s.substr(3);
  } else if (s.starts_with("float")) {
    code = Code::Float;
    rest = s.substr(5);
  } else {
    return std::nullopt;
  }
  int bits = 0;
  if (!parseInt(rest, bits))
    return std::nullopt;
  bool ok = code == Code::Float ? (bits == 16 || bits == 32 || bits == 64)
                                : (bits == 8 || bits == 16 || bits == 32 || bits == 64);
  if (!ok)
    return std::nullopt;
  return DataType(code, bits, lanes);
}

} // namespace unity
