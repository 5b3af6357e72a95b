// --target FILE.json and --assign FILE.json for `build` and `run`.
#include "app/cli/target_options.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/support/error.h"
#include "engine/target/target.h"

namespace lowerscope::cli {

namespace fs = std::filesystem;
using unity::Error;

namespace {

std::string readText(const std::string& path, const char* what) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(path + ": no such file (" + what + ")");
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof())
    throw Error(path + ": cannot read file (" + what + ")");
  if (fs::is_directory(path, ec))
    throw Error(path + ": is a folder, not a file (" + what + ")");
  return ss.str();
}

/// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string parseMessage(const std::exception& e) {
  std::string msg = e.what();
  if (auto at = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && at != std::string::npos)
    msg = msg.substr(at + 2);
  return msg;
}

} // namespace

std::string resolveTargetOption(const std::string& value) {
  if (fs::path(value).extension() != ".json")
    return value;
  std::string text = readText(value, "--target expects a target string or a .json file");
  try {
    unity::target::CompositeTarget c = unity::target::CompositeTarget::fromJSON(text);
    // A single target object stays a plain target ("llvm ..."), as on the
    // command line; anything else is a composite.
    auto j = nlohmann::json::parse(text);
    if (j.is_object() && j.contains("kind"))
      return c.targets.front().second.str();
    if (j.is_string())
      return j.get<std::string>();
    return c.str();
  } catch (const Error& e) {
    throw Error(value + ": " + e.message());
  }
}

std::vector<Assignment> readAssignFile(const std::string& path) {
  std::string text = readText(path, "--assign");
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": invalid JSON: " + parseMessage(e));
  }
  const std::string shape = "expected {\"node or binding\": \"sub-target\", ...} or "
                            "[{\"target\": \"sub-target\", \"nodes\": [\"node or binding\", ...]}, "
                            "...]";
  std::vector<Assignment> out;
  if (j.is_object()) {
    for (auto& [name, v] : j.items()) {
      if (!v.is_string())
        throw Error(path + ": the value of \"" + name +
                    "\" must be a sub-target name (a string), "
                    "got " +
                    v.dump() + "; " + shape);
      out.emplace_back(name, v.get<std::string>());
    }
  } else if (j.is_array()) {
    for (size_t k = 0; k < j.size(); ++k) {
      auto& e = j[k];
      std::string where = path + ": entry " + std::to_string(k);
      if (!e.is_object() || !e.contains("target") || !e["target"].is_string() ||
          !e.contains("nodes") || !e["nodes"].is_array())
        throw Error(where + " must be {\"target\": \"sub-target\", \"nodes\": [...]}, got " +
                    e.dump());
      for (auto& [key, _] : e.items())
        if (key != "target" && key != "nodes")
          throw Error(where + ": unknown key \"" + key + "\" (expected \"target\" and \"nodes\")");
      for (auto& n : e["nodes"]) {
        if (!n.is_string())
          throw Error(where + ": \"nodes\" must hold names (strings), got " + n.dump());
        out.emplace_back(n.get<std::string>(), e["target"].get<std::string>());
      }
    }
  } else {
    throw Error(path + ": " + shape + ", got " + std::string(j.type_name()));
  }
  return out;
}

std::vector<std::string> splitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace lowerscope::cli
