// Target parsing/printing (string and JSON), the kind registry with attribute
// validation, tags, and composite targets. The kind list is built on first
// use by explicit calls (no static registrars: the engine is a static
// library and unreferenced initialisers would vanish).
#include "engine/target/target.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/support/error.h"

namespace unity::target {

namespace {

std::vector<TargetKindInfo>& kindList() {
  static std::vector<TargetKindInfo> k = [] {
    std::vector<TargetAttrInfo> native = {{"mtriple"},
                                          {"mcpu"},
                                          {"mattr"},
                                          {"num-cores", AttrType::Int, 1, 1024},
                                          {"opt-level", AttrType::Int, 0, 3},
                                          {"fast-math", AttrType::Bool}};
    std::vector<TargetKindInfo> v;
    v.push_back({"llvm", native,
                 "native code through LLVM: JIT on the host, object/assembly for other triples"});
    v.push_back({"c", native,
                 "portable C source; compiled with the system C compiler (cc -O3 -shared) and "
                 "loaded when it targets the host, emitted only otherwise"});
    v.push_back({"openblas",
                 {{"num-cores", AttrType::Int, 1, 1024}},
                 "claims matmul/dense (+bias, +relu) and calls cblas_sgemm"});
    v.push_back({"dnnl",
                 {{"num-cores", AttrType::Int, 1, 1024}},
                 "claims nn.conv2d (+bias, +relu) and runs oneDNN's convolution primitive"});
    return v;
  }();
  return k;
}
std::mutex& kindMutex() {
  static std::mutex m;
  return m;
}

int parseInt(const std::string& key, const std::string& v) {
  try {
    size_t used = 0;
    int x = std::stoi(v, &used);
    if (used == v.size())
      return x;
  } catch (...) {
  }
  throw Error("target attribute -" + key + " expects an integer, got '" + v + "'");
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// Checks one attribute against the kind; returns the canonical value.
std::string checkAttr(const TargetKindInfo& kind, const std::string& key,
                      const std::string& value) {
  const TargetAttrInfo* info = nullptr;
  for (auto& a : kind.attrs)
    if (a.name == key)
      info = &a;
  if (!info) {
    std::string list;
    for (auto& a : kind.attrs)
      list += (list.empty() ? "-" : ", -") + a.name;
    throw Error("target kind '" + kind.name + "' has no attribute -" + key +
                " (accepted: " + (list.empty() ? "none" : list) + ")");
  }
  if (info->type == AttrType::Int) {
    int v = parseInt(key, value);
    if ((info->minValue || info->maxValue) && (v < info->minValue || v > info->maxValue))
      throw Error("target attribute -" + key + "=" + value + " is out of range [" +
                  std::to_string(info->minValue) + ", " + std::to_string(info->maxValue) + "]");
  }
  if (info->type == AttrType::Bool && value != "true" && value != "false" && value != "1" &&
      value != "0")
    throw Error("target attribute -" + key + " expects true or false, got '" + value + "'");
  if (info->type == AttrType::String && value.empty())
    throw Error("target attribute -" + key + " has an empty value");
  return value;
}

const TargetKindInfo& requireKind(const std::string& name, const std::string& where) {
  const TargetKindInfo* kind = findTargetKind(name);
  if (!kind) {
    std::string known;
    for (auto* k : allTargetKinds())
      known += (known.empty() ? "" : ", ") + k->name;
    throw Error("unknown target kind '" + name + "' in '" + where + "' (known: " + known + ")");
  }
  return *kind;
}

const std::vector<std::pair<std::string, std::string>>& tagList() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"host", "llvm -mcpu=native"},
      {"cortex-m0", "llvm -mtriple=thumbv6m-none-eabi -mcpu=cortex-m0"},
      {"cortex-m4", "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m4 -mattr=+vfp4d16sp"},
      {"cortex-m7", "llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7 -mattr=+fp-armv8d16"},
      {"cortex-a72", "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"},
      {"x86-64-v2", "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v2"},
      {"x86-64-v3", "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v3"},
      {"x86-64-v4", "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v4"},
  };
  return t;
}

} // namespace

bool TargetKindInfo::hasAttr(const std::string& a) const {
  for (auto& x : attrs)
    if (x.name == a)
      return true;
  return false;
}

const TargetKindInfo* findTargetKind(const std::string& name) {
  std::lock_guard lock(kindMutex());
  for (auto& k : kindList())
    if (k.name == name)
      return &k;
  return nullptr;
}

std::vector<const TargetKindInfo*> allTargetKinds() {
  std::lock_guard lock(kindMutex());
  std::vector<const TargetKindInfo*> out;
  for (auto& k : kindList())
    out.push_back(&k);
  return out;
}

void registerTargetKind(TargetKindInfo info) {
  if (info.name.empty() || info.name.find_first_of(" \t;:=-") != std::string::npos)
    throw Error("registerTargetKind: invalid kind name '" + info.name + "'");
  std::lock_guard lock(kindMutex());
  for (auto& k : kindList())
    if (k.name == info.name) {
      // Replacing in place keeps pointers handed out earlier valid.
      k = std::move(info);
      return;
    }
  kindList().push_back(std::move(info));
}

std::optional<std::string> findTag(const std::string& name) {
  for (auto& [tag, str] : tagList())
    if (tag == name)
      return str;
  return std::nullopt;
}
std::vector<std::pair<std::string, std::string>> allTags() { return tagList(); }

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  Target t;
  if (!(in >> t.kind))
    throw Error("empty target string");
  if (!findTargetKind(t.kind)) {
    if (auto tag = findTag(t.kind)) {
      Target base = parse(*tag);
      std::string rest;
      std::getline(in, rest);
      Target extra = parse(base.kind + " " + rest);
      for (auto& [k, v] : extra.attrs)
        base.attrs[k] = v;
      return base;
    }
  }
  const TargetKindInfo& kind = requireKind(t.kind, text);
  std::string tok;
  while (in >> tok) {
    if (tok.size() < 2 || tok[0] != '-')
      throw Error("target '" + text + "': expected -key=value, got '" + tok + "'");
    std::string body = tok.substr(tok[1] == '-' ? 2 : 1);
    auto eq = body.find('=');
    std::string key = body.substr(0, eq),
                value = eq == std::string::npos ? "true" : body.substr(eq + 1);
    t.attrs[key] = checkAttr(kind, key, value);
  }
  return t;
}

Target Target::fromJSON(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw Error(std::string("target JSON does not parse: ") + e.what());
  }
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    throw Error("target JSON must be an object with a string \"kind\"");
  Target t;
  t.kind = j["kind"].get<std::string>();
  if (auto tag = findTag(t.kind); tag && !findTargetKind(t.kind))
    t = parse(*tag);
  const TargetKindInfo& kind = requireKind(t.kind, text);
  auto add = [&](const std::string& key, const nlohmann::json& v) {
    std::string value;
    if (v.is_string())
      value = v.get<std::string>();
    else if (v.is_boolean())
      value = v.get<bool>() ? "true" : "false";
    else if (v.is_number_integer())
      value = std::to_string(v.get<int64_t>());
    else
      throw Error("target JSON attribute \"" + key + "\" must be a string, integer or boolean");
    t.attrs[key] = checkAttr(kind, key, value);
  };
  for (auto& [key, v] : j.items()) {
    if (key == "kind")
      continue;
    if (key == "attrs") {
      if (!v.is_object())
        throw Error("target JSON \"attrs\" must be an object");
      for (auto& [k2, v2] : v.items())
        add(k2, v2);
      continue;
    }
    add(key, v);
  }
  return t;
}

std::string Target::str() const {
  std::string s = kind;
  for (auto& [k, v] : attrs)
    s += " -" + k + "=" + v;
  return s;
}

std::string Target::toJSON() const {
  nlohmann::json j;
  j["kind"] = kind;
  const TargetKindInfo* info = findTargetKind(kind);
  for (auto& [k, v] : attrs) {
    AttrType type = AttrType::String;
    if (info)
      for (auto& a : info->attrs)
        if (a.name == k)
          type = a.type;
    if (type == AttrType::Int)
      j[k] = parseInt(k, v);
    else if (type == AttrType::Bool)
      j[k] = v == "true" || v == "1";
    else
      j[k] = v;
  }
  return j.dump();
}

std::string Target::get(const std::string& key, const std::string& dflt) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? dflt : it->second;
}
int Target::getInt(const std::string& key, int dflt) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? dflt : parseInt(key, it->second);
}
bool Target::getBool(const std::string& key, bool dflt) const {
  auto it = attrs.find(key);
  if (it == attrs.end())
    return dflt;
  return it->second == "true" || it->second == "1";
}

std::string hostTriple() {
#ifdef UNITY_LLVM_DEFAULT_TRIPLE
  return UNITY_LLVM_DEFAULT_TRIPLE;
#else
#error                                                                                             \
    "UNITY_LLVM_DEFAULT_TRIPLE must be defined (engine/CMakeLists.txt, from LLVM's CMake package)"
#endif
}

bool Target::isHost() const {
  std::string triple = get("mtriple");
  return triple.empty() || triple == hostTriple();
}

int Target::numCores() const {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  return getInt("num-cores", hw > 0 ? hw : 1);
}

// ------------------------------------------------------------ composite

bool isCompositeTargetString(const std::string& text) {
  return text.find(':') != std::string::npos;
}

CompositeTarget CompositeTarget::parse(const std::string& text) {
  CompositeTarget c;
  if (!isCompositeTargetString(text)) {
    Target t = Target::parse(text);
    c.targets.emplace_back(t.kind, t);
    c.defaultName = t.kind;
    return c;
  }
  std::string explicitDefault;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ';')) {
    part = trim(part);
    if (part.empty())
      continue;
    if (part.rfind("default", 0) == 0 && part.find('=') != std::string::npos &&
        part.find(':') == std::string::npos) {
      explicitDefault = trim(part.substr(part.find('=') + 1));
      continue;
    }
    auto colon = part.find(':');
    if (colon == std::string::npos)
      throw Error("composite target: '" + part + "' is not 'name: target'");
    std::string name = trim(part.substr(0, colon));
    if (name.empty() || name.find_first_of(" \t=") != std::string::npos)
      throw Error("composite target: invalid sub-target name '" + name + "'");
    if (c.find(name))
      throw Error("composite target: sub-target '" + name + "' is defined twice");
    try {
      c.targets.emplace_back(name, Target::parse(trim(part.substr(colon + 1))));
    } catch (const Error& e) {
      throw Error("composite target: sub-target '" + name + "': " + e.message());
    }
  }
  if (c.targets.empty())
    throw Error("composite target '" + text + "' names no sub-target");
  c.defaultName = explicitDefault.empty() ? c.targets.front().first : explicitDefault;
  if (!c.find(c.defaultName))
    throw Error("composite target: default '" + c.defaultName + "' is not a sub-target");
  return c;
}

CompositeTarget CompositeTarget::fromJSON(const std::string& text) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string msg = e.what();
    if (auto at = msg.find("] "); at != std::string::npos)
      msg = msg.substr(at + 2); // drop "[json.exception.parse_error.101] "
    throw Error("composite target JSON: " + msg);
  }
  if (j.is_string())
    return parse(j.get<std::string>());
  if (!j.is_object())
    throw Error("composite target JSON must be an object {\"targets\": {...}, \"default\": ...}, a "
                "target object {\"kind\": ...} or a target string");
  if (j.contains("kind")) {
    Target t = Target::fromJSON(j.dump());
    CompositeTarget c;
    c.targets.emplace_back(t.kind, t);
    c.defaultName = t.kind;
    return c;
  }
  for (auto& [key, v] : j.items())
    if (key != "targets" && key != "default")
      throw Error("composite target JSON: unknown key \"" + key +
                  "\" (expected \"targets\" and optionally \"default\")");
  if (!j.contains("targets") || !j["targets"].is_object() || j["targets"].empty())
    throw Error("composite target JSON: \"targets\" must be a non-empty object {\"name\": target}");
  CompositeTarget c;
  for (auto& [name, v] : j["targets"].items()) {
    if (name.empty() || name.find_first_of(" \t=:;") != std::string::npos)
      throw Error("composite target JSON: invalid sub-target name '" + name + "'");
    try {
      if (v.is_string())
        c.targets.emplace_back(name, Target::parse(v.get<std::string>()));
      else if (v.is_object())
        c.targets.emplace_back(name, Target::fromJSON(v.dump()));
      else
        throw Error("must be a target string or a target object {\"kind\": ...}");
    } catch (const Error& e) {
      throw Error("composite target JSON: sub-target '" + name + "': " + e.message());
    }
  }
  c.defaultName = c.targets.front().first;
  if (j.contains("default")) {
    if (!j["default"].is_string())
      throw Error("composite target JSON: \"default\" must be a sub-target name");
    c.defaultName = j["default"].get<std::string>();
    if (!c.find(c.defaultName))
      throw Error("composite target JSON: default '" + c.defaultName + "' is not a sub-target");
  }
  return c;
}

std::string CompositeTarget::toJSON() const {
  nlohmann::ordered_json j;
  j["targets"] = nlohmann::ordered_json::object();
  for (auto& [name, t] : targets)
    j["targets"][name] = nlohmann::ordered_json::parse(t.toJSON());
  j["default"] = defaultName;
  return j.dump();
}

std::string CompositeTarget::str() const {
  std::string s;
  for (auto& [name, t] : targets)
    s += (s.empty() ? "" : "; ") + name + ": " + t.str();
  if (!targets.empty() && defaultName != targets.front().first)
    s += "; default=" + defaultName;
  return s;
}

const Target* CompositeTarget::find(const std::string& name) const {
  for (auto& [n, t] : targets)
    if (n == name)
      return &t;
  return nullptr;
}

const Target& CompositeTarget::at(const std::string& name) const {
  if (auto* t = find(name))
    return *t;
  std::string known;
  for (auto& [n, _] : targets)
    known += (known.empty() ? "" : ", ") + n;
  throw Error("no sub-target '" + name + "' in the composite target (known: " + known + ")");
}

std::vector<std::string> CompositeTarget::names() const {
  std::vector<std::string> out;
  for (auto& [n, _] : targets)
    out.push_back(n);
  return out;
}

} // namespace unity::target
