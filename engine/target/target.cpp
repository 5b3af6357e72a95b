#include "engine/target/target.h"

#include <sstream>
#include <thread>

#include "engine/codegen/llvm_info.h"
#include "engine/support/error.h"

namespace unity::target {

namespace {
const std::vector<TargetKindInfo>& kinds() {
  static const std::vector<TargetKindInfo> k = {
      {"llvm",
       {"mtriple", "mcpu", "mattr", "num-cores", "opt-level", "fast-math"},
       "native code through LLVM: JIT on the host, object/assembly for other triples"},
  };
  return k;
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
} // namespace

const TargetKindInfo* findTargetKind(const std::string& name) {
  for (auto& k : kinds())
    if (k.name == name)
      return &k;
  return nullptr;
}

std::vector<const TargetKindInfo*> allTargetKinds() {
  std::vector<const TargetKindInfo*> out;
  for (auto& k : kinds())
    out.push_back(&k);
  return out;
}

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  Target t;
  if (!(in >> t.kind))
    throw Error("empty target string");
  const TargetKindInfo* kind = findTargetKind(t.kind);
  if (!kind) {
    std::string known;
    for (auto& k : kinds())
      known += (known.empty() ? "" : ", ") + k.name;
    throw Error("unknown target kind '" + t.kind + "' in '" + text + "' (known: " + known + ")");
  }
  std::string tok;
  while (in >> tok) {
    if (tok.size() < 2 || tok[0] != '-')
      throw Error("target '" + text + "': expected -key=value, got '" + tok + "'");
    std::string body = tok.substr(tok[1] == '-' ? 2 : 1);
    auto eq = body.find('=');
    std::string key = body.substr(0, eq),
                value = eq == std::string::npos ? "true" : body.substr(eq + 1);
    bool known = false;
    for (auto& a : kind->attrs)
      known |= a == key;
    if (!known) {
      std::string list;
      for (auto& a : kind->attrs)
        list += (list.empty() ? "-" : ", -") + a;
      throw Error("target kind '" + t.kind + "' has no attribute -" + key + " (accepted: " + list +
                  ")");
    }
    if (key == "num-cores" || key == "opt-level") {
      int v = parseInt(key, value);
      if (v < (key == "num-cores" ? 1 : 0) || v > (key == "num-cores" ? 1024 : 3))
        throw Error("target attribute -" + key + "=" + value + " is out of range");
    }
    t.attrs[key] = value;
  }
  return t;
}

std::string Target::str() const {
  std::string s = kind;
  for (auto& [k, v] : attrs)
    s += " -" + k + "=" + v;
  return s;
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

bool Target::isHost() const {
  std::string triple = get("mtriple");
  return triple.empty() || triple == codegen::hostTriple();
}

int Target::numCores() const {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  return getInt("num-cores", hw > 0 ? hw : 1);
}

} // namespace unity::target
