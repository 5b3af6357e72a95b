// Trace serialization: JSON in both directions and a one-line-per-step text
// form. Parsing validates every field so that a corrupt tuning record fails
// with a message naming the instruction instead of replaying garbage.
#include "engine/schedule/trace.h"

#include <nlohmann/json.hpp>

#include "engine/support/error.h"

namespace unity::schedule {

namespace {
const char* const kKinds[] = {"split",   "split_tail",     "fuse",
                              "reorder", "parallel",       "vectorize",
                              "unroll",  "compute_inline", "decompose_reduction"};
/// Layout transformations (layout_primitives.cpp), apart from the list above
/// so that each family of primitives adds its kinds in one place.
const char* const kLayoutKinds[] = {"pack_layout"};

[[noreturn]] void bad(size_t i, const std::string& what) {
  throw Error("schedule trace: instruction " + std::to_string(i) + ": " + what);
}
} // namespace

bool isKnownInstruction(const std::string& kind) {
  for (auto* k : kKinds)
    if (kind == k)
      return true;
  for (auto* k : kLayoutKinds)
    if (kind == k)
      return true;
  return false;
}

nlohmann::json Trace::toJson() const {
  nlohmann::json insts = nlohmann::json::array();
  for (auto& in : insts_) {
    nlohmann::json j;
    j["kind"] = in.kind;
    if (!in.blocks.empty())
      j["blocks"] = in.blocks;
    if (!in.loops.empty()) {
      nlohmann::json loops = nlohmann::json::array();
      for (auto& l : in.loops)
        loops.push_back(nlohmann::json::array({l.block, l.index}));
      j["loops"] = loops;
    }
    if (!in.decision.empty())
      j["decision"] = in.decision;
    insts.push_back(std::move(j));
  }
  return nlohmann::json{{"version", 1}, {"instructions", insts}};
}

std::string Trace::toJsonString() const { return toJson().dump(); }

Trace Trace::fromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("instructions") || !j["instructions"].is_array())
    throw Error("schedule trace: expected an object with an \"instructions\" array");
  if (j.contains("version") && (!j["version"].is_number_integer() || j["version"] != 1))
    throw Error("schedule trace: unsupported version " + j["version"].dump());
  Trace t;
  size_t i = 0;
  for (auto& ji : j["instructions"]) {
    Instruction in;
    if (!ji.is_object() || !ji.contains("kind") || !ji["kind"].is_string())
      bad(i, "missing \"kind\"");
    in.kind = ji["kind"].get<std::string>();
    if (!isKnownInstruction(in.kind))
      bad(i, "unknown kind '" + in.kind + "'");
    if (ji.contains("blocks")) {
      if (!ji["blocks"].is_array())
        bad(i, "\"blocks\" is not an array");
      for (auto& b : ji["blocks"]) {
        if (!b.is_string())
          bad(i, "a block name is not a string");
        in.blocks.push_back(b.get<std::string>());
      }
    }
    if (ji.contains("loops")) {
      if (!ji["loops"].is_array())
        bad(i, "\"loops\" is not an array");
      for (auto& l : ji["loops"]) {
        if (!l.is_array() || l.size() != 2 || !l[0].is_string() || !l[1].is_number_integer())
          bad(i, "a loop is not [block, index]");
        in.loops.push_back({l[0].get<std::string>(), l[1].get<int>()});
      }
    }
    if (ji.contains("decision")) {
      if (!ji["decision"].is_array())
        bad(i, "\"decision\" is not an array");
      for (auto& d : ji["decision"]) {
        if (!d.is_number_integer())
          bad(i, "a decision is not an integer");
        in.decision.push_back(d.get<int64_t>());
      }
    }
    t.append(std::move(in));
    ++i;
  }
  return t;
}

Trace Trace::fromJsonString(const std::string& s) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(s);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("schedule trace: invalid JSON: ") + e.what());
  }
  return fromJson(j);
}

std::string Trace::str() const {
  std::string out;
  for (auto& in : insts_) {
    out += in.kind + "(";
    bool first = true;
    auto sep = [&] {
      if (!first)
        out += ", ";
      first = false;
    };
    for (auto& b : in.blocks) {
      sep();
      out += b;
    }
    for (auto& l : in.loops) {
      sep();
      out += l.block + "[" + std::to_string(l.index) + "]";
    }
    if (!in.decision.empty()) {
      sep();
      out += "[";
      for (size_t i = 0; i < in.decision.size(); ++i)
        out += (i ? ", " : "") + std::to_string(in.decision[i]);
      out += "]";
    }
    out += ")\n";
  }
  return out;
}

} // namespace unity::schedule
