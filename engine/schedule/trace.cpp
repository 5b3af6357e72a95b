// Trace serialization: JSON in both directions and a one-line-per-step text
// form, plus the views the tuner's mutators use (sampling sites, a copy with
// one decision changed). Parsing validates every field, and that every
// reference names an earlier instruction that has such an output, so that a
// corrupt tuning record fails with a message naming the instruction instead
// of replaying garbage.
#include "engine/schedule/trace.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "engine/schedule/schedule_internal.h"
#include "engine/support/error.h"

namespace unity::schedule {

using detail::intList;

namespace {
const char* const kKinds[] = {"split",   "split_tail",     "fuse",
                              "reorder", "parallel",       "vectorize",
                              "unroll",  "compute_inline", "decompose_reduction"};
// Reductions, annotations and sampling (engine/schedule/sampling.cpp and
// reduction_primitives.cpp).
const char* const kSamplingKinds[] = {"sample_perfect_tile", "sample_categorical",
                                      "sample_compute_location"};
const char* const kTuningKinds[] = {"rfactor", "annotate"};
// Compute location and caches (compute_primitives.cpp).
const char* const kComputeKinds[] = {"cache_read", "cache_write", "compute_at",
                                     "reverse_compute_at", "reverse_compute_inline"};
/// Layout transformations (layout_primitives.cpp), apart from the list above
/// so that each family of primitives adds its kinds in one place.
const char* const kLayoutKinds[] = {"pack_layout"};

/// Whether `kind` is one of `kinds`.
template <size_t N> bool listed(const char* const (&kinds)[N], const std::string& kind) {
  return std::find(std::begin(kinds), std::end(kinds), kind) != std::end(kinds);
}

[[noreturn]] void bad(size_t i, const std::string& what) {
  throw Error("schedule trace: instruction " + std::to_string(i) + ": " + what);
}

nlohmann::json valueJson(const ir::AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v))
    return *b;
  if (auto* i = std::get_if<int64_t>(&v))
    return *i;
  if (auto* d = std::get_if<double>(&v))
    return *d;
  return std::get<std::string>(v);
}

/// Number of value outputs of a sampling instruction (0: none or a loop).
int64_t valueOutputs(const Instruction& in) {
  if (in.kind == "sample_perfect_tile")
    return in.params.empty() ? 0 : in.params[0];
  if (in.kind == "sample_categorical")
    return 1;
  return 0;
}
} // namespace

bool isKnownInstruction(const std::string& kind) {
  return listed(kKinds, kind) || listed(kTuningKinds, kind) || listed(kComputeKinds, kind) ||
         listed(kLayoutKinds, kind) || isSamplingInstruction(kind);
}

bool isSamplingInstruction(const std::string& kind) { return listed(kSamplingKinds, kind); }

std::vector<SamplingSite> Trace::samplingSites() const {
  std::vector<SamplingSite> out;
  for (size_t i = 0; i < insts_.size(); ++i) {
    auto& in = insts_[i];
    if (!isSamplingInstruction(in.kind))
      continue;
    SamplingSite s;
    s.inst = i;
    s.kind = in.kind;
    s.decision = in.decision;
    if (in.kind == "sample_perfect_tile" && in.params.size() == 3) {
      s.n = static_cast<int>(in.params[0]);
      s.maxInnermost = in.params[1];
      s.extent = in.params[2];
    } else if (in.kind == "sample_categorical") {
      s.candidates = in.params;
      s.probs = in.probs;
    } else if (in.kind == "sample_compute_location" && in.params.size() == 1) {
      s.locations = in.params[0];
    }
    out.push_back(std::move(s));
  }
  return out;
}

Trace Trace::withDecision(size_t inst, std::vector<int64_t> decision) const {
  if (inst >= insts_.size())
    throw Error("schedule trace: withDecision: instruction " + std::to_string(inst) +
                " is out of range (the trace has " + std::to_string(insts_.size()) + ")");
  auto& in = insts_[inst];
  if (!isSamplingInstruction(in.kind))
    throw Error("schedule trace: withDecision: instruction " + std::to_string(inst) + " (" +
                in.kind + ") is not a sampling instruction");
  size_t want = in.kind == "sample_perfect_tile" ? static_cast<size_t>(valueOutputs(in)) : 1;
  if (decision.size() != want)
    throw Error("schedule trace: withDecision: instruction " + std::to_string(inst) + " (" +
                in.kind + ") takes a decision of " + std::to_string(want) + " value(s), got " +
                intList(decision));
  Trace t = *this;
  t.insts_[inst].decision = std::move(decision);
  return t;
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
        loops.push_back(l.isRef() ? nlohmann::json{{"inst", l.inst}}
                                  : nlohmann::json::array({l.block, l.index}));
      j["loops"] = loops;
    }
    if (in.kind == "rfactor" && in.params.size() == 1) {
      j["factor_axis"] = in.params[0];
    } else if (in.kind == "sample_perfect_tile" && in.params.size() == 3) {
      j["n"] = in.params[0];
      j["max_innermost"] = in.params[1];
      j["extent"] = in.params[2];
    } else if (in.kind == "sample_categorical") {
      j["candidates"] = in.params;
      j["probs"] = in.probs;
    } else if (in.kind == "sample_compute_location" && in.params.size() == 1) {
      j["locations"] = in.params[0];
    }
    if (!in.key.empty())
      j["key"] = in.key;
    if (in.value)
      j["value"] = valueJson(*in.value);
    if (!in.inputs.empty()) {
      nlohmann::json inputs = nlohmann::json::array();
      for (auto& v : in.inputs)
        inputs.push_back(v.isRef() ? nlohmann::json{{"inst", v.inst}, {"output", v.output}}
                                   : nlohmann::json(v.value));
      j["inputs"] = inputs;
    }
    if (!in.decision.empty())
      j["decision"] = in.decision;
    insts.push_back(std::move(j));
  }
  return nlohmann::json{{"version", kVersion}, {"instructions", insts}};
}

std::string Trace::toJsonString() const { return toJson().dump(); }

namespace {

int64_t intField(size_t i, const nlohmann::json& ji, const char* name) {
  if (!ji.contains(name))
    bad(i, std::string("missing \"") + name + "\"");
  if (!ji[name].is_number_integer())
    bad(i, std::string("\"") + name + "\" is not an integer");
  return ji[name].get<int64_t>();
}

std::vector<int64_t> intArray(size_t i, const nlohmann::json& ji, const char* name) {
  if (!ji[name].is_array())
    bad(i, std::string("\"") + name + "\" is not an array");
  std::vector<int64_t> out;
  for (auto& d : ji[name]) {
    if (!d.is_number_integer())
      bad(i, std::string("an element of \"") + name + "\" is not an integer");
    out.push_back(d.get<int64_t>());
  }
  return out;
}

/// Kind-specific fields and the shape of the decision of the instructions
/// this file adds (the older kinds are checked by replay).
void readTuningFields(size_t i, const nlohmann::json& ji, Instruction& in) {
  auto needLoops = [&](size_t n) {
    if (in.loops.size() != n)
      bad(i, in.kind + " takes " + std::to_string(n) + " loop(s), got " +
                 std::to_string(in.loops.size()));
  };
  auto needDecision = [&](size_t n) {
    if (in.decision.size() != n)
      bad(i, in.kind + " needs a \"decision\" of " + std::to_string(n) + " integer(s), got " +
                 intList(in.decision));
  };
  if (in.kind == "rfactor") {
    needLoops(1);
    in.params = {intField(i, ji, "factor_axis")};
  } else if (in.kind == "sample_perfect_tile") {
    needLoops(1);
    int64_t n = intField(i, ji, "n"), inner = intField(i, ji, "max_innermost"),
            extent = intField(i, ji, "extent");
    if (n < 1 || n > 16)
      bad(i, "\"n\" is " + std::to_string(n) + "; it must be in [1, 16]");
    if (inner < 1)
      bad(i, "\"max_innermost\" is " + std::to_string(inner) + "; it must be positive");
    in.params = {n, inner, extent};
    needDecision(static_cast<size_t>(n));
  } else if (in.kind == "sample_categorical") {
    if (!ji.contains("candidates") || !ji.contains("probs"))
      bad(i, "sample_categorical needs \"candidates\" and \"probs\"");
    in.params = intArray(i, ji, "candidates");
    if (!ji["probs"].is_array())
      bad(i, "\"probs\" is not an array");
    for (auto& p : ji["probs"]) {
      if (!p.is_number())
        bad(i, "an element of \"probs\" is not a number");
      in.probs.push_back(p.get<double>());
    }
    if (in.params.empty() || in.probs.size() != in.params.size())
      bad(i, "sample_categorical needs as many probabilities as candidates (at least one), got " +
                 std::to_string(in.probs.size()) + " and " + std::to_string(in.params.size()));
    needDecision(1);
  } else if (in.kind == "sample_compute_location") {
    if (in.blocks.size() != 1)
      bad(i, "sample_compute_location takes one block");
    in.params = {intField(i, ji, "locations")};
    needDecision(1);
  } else if (in.kind == "annotate") {
    if (in.blocks.size() + in.loops.size() != 1)
      bad(i, "annotate takes one block or one loop");
    if (!ji.contains("key") || !ji["key"].is_string() || ji["key"].get<std::string>().empty())
      bad(i, "annotate needs a non-empty string \"key\"");
    in.key = ji["key"].get<std::string>();
    if (ji.contains("value")) {
      auto& v = ji["value"];
      if (v.is_boolean())
        in.value = v.get<bool>();
      else if (v.is_number_integer())
        in.value = v.get<int64_t>();
      else if (v.is_number_float())
        in.value = v.get<double>();
      else if (v.is_string())
        in.value = v.get<std::string>();
      else
        bad(i, "the annotation value is not a boolean, number or string");
    }
    if (in.value.has_value() == (in.inputs.size() == 1) || in.inputs.size() > 1)
      bad(i, "annotate needs either a \"value\" or one sampled input");
  }
}

} // namespace

Trace Trace::fromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("instructions") || !j["instructions"].is_array())
    throw Error("schedule trace: expected an object with an \"instructions\" array");
  if (j.contains("version") &&
      (!j["version"].is_number_integer() || j["version"] < 1 || j["version"] > kVersion))
    throw Error("schedule trace: unsupported version " + j["version"].dump() +
                " (this build reads versions 1 to " + std::to_string(kVersion) + ")");
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
        if (l.is_object()) {
          if (!l.contains("inst") || !l["inst"].is_number_integer() || l.size() != 1)
            bad(i, "a loop reference is not {\"inst\": index}");
          int64_t src = l["inst"].get<int64_t>();
          if (src < 0 || static_cast<size_t>(src) >= i)
            bad(i, "loop reference to instruction " + std::to_string(src) +
                       ", which is not an earlier instruction");
          if (t.insts_[src].kind != "sample_compute_location")
            bad(i, "loop reference to instruction " + std::to_string(src) + " (" +
                       t.insts_[src].kind + "), which does not produce a loop");
          in.loops.push_back(LoopLocator{"", 0, static_cast<int>(src)});
          continue;
        }
        if (!l.is_array() || l.size() != 2 || !l[0].is_string() || !l[1].is_number_integer())
          bad(i, "a loop is not [block, index]");
        in.loops.push_back({l[0].get<std::string>(), l[1].get<int>()});
      }
    }
    if (ji.contains("decision"))
      in.decision = intArray(i, ji, "decision");
    if (ji.contains("inputs")) {
      if (!ji["inputs"].is_array())
        bad(i, "\"inputs\" is not an array");
      for (auto& v : ji["inputs"]) {
        if (v.is_number_integer()) {
          in.inputs.push_back(ValueRef{v.get<int64_t>()});
          continue;
        }
        if (!v.is_object() || !v.contains("inst") || !v["inst"].is_number_integer() ||
            (v.contains("output") && !v["output"].is_number_integer()))
          bad(i, "an input is neither an integer nor {\"inst\": index, \"output\": index}");
        int64_t src = v["inst"].get<int64_t>();
        int64_t out = v.contains("output") ? v["output"].get<int64_t>() : 0;
        if (src < 0 || static_cast<size_t>(src) >= i)
          bad(i, "input reference to instruction " + std::to_string(src) +
                     ", which is not an earlier instruction");
        int64_t have = valueOutputs(t.insts_[src]);
        if (out < 0 || out >= have)
          bad(i, "input reference to output " + std::to_string(out) + " of instruction " +
                     std::to_string(src) + " (" + t.insts_[src].kind + "), which has " +
                     std::to_string(have) + " value output(s)");
        in.inputs.push_back(ValueRef{0, static_cast<int>(src), static_cast<int>(out)});
      }
      if (in.kind != "split" && in.kind != "annotate")
        bad(i, "'" + in.kind + "' takes no \"inputs\"");
      if (in.kind == "split" && !in.decision.empty())
        bad(i, "a split has either a \"decision\" or \"inputs\", not both");
    }
    readTuningFields(i, ji, in);
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
  for (size_t idx = 0; idx < insts_.size(); ++idx) {
    auto& in = insts_[idx];
    std::string line;
    auto valueName = [](const ValueRef& v) {
      return v.isRef() ? "v" + std::to_string(v.inst) + "_" + std::to_string(v.output)
                       : std::to_string(v.value);
    };
    if (in.kind == "sample_perfect_tile") {
      for (int64_t k = 0; k < valueOutputs(in); ++k)
        line += (k ? ", v" : "v") + std::to_string(idx) + "_" + std::to_string(k);
      line += " = ";
    } else if (in.kind == "sample_categorical") {
      line += "v" + std::to_string(idx) + "_0 = ";
    } else if (in.kind == "sample_compute_location") {
      line += "l" + std::to_string(idx) + " = ";
    }
    line += in.kind + "(";
    bool first = true;
    auto sep = [&] {
      if (!first)
        line += ", ";
      first = false;
    };
    for (auto& b : in.blocks) {
      sep();
      line += b;
    }
    for (auto& l : in.loops) {
      sep();
      line +=
          l.isRef() ? "l" + std::to_string(l.inst) : l.block + "[" + std::to_string(l.index) + "]";
    }
    if (in.kind == "sample_perfect_tile" && in.params.size() == 3) {
      sep();
      line +=
          "n=" + std::to_string(in.params[0]) + ", max_innermost=" + std::to_string(in.params[1]);
    } else if (in.kind == "sample_categorical") {
      sep();
      line += intList(in.params) + ", probs=[";
      for (size_t k = 0; k < in.probs.size(); ++k)
        line += (k ? ", " : "") + ir::attrValueStr(in.probs[k]);
      line += "]";
    } else if (in.kind == "sample_compute_location" && in.params.size() == 1) {
      sep();
      line += "locations=" + std::to_string(in.params[0]);
    } else if (in.kind == "rfactor" && in.params.size() == 1) {
      sep();
      line += "factor_axis=" + std::to_string(in.params[0]);
    }
    if (!in.key.empty()) {
      sep();
      line += ir::attrValueStr(in.key);
    }
    if (in.value) {
      sep();
      line += ir::attrValueStr(*in.value);
    }
    if (in.kind == "split" && !in.inputs.empty()) {
      sep();
      line += "[";
      for (size_t k = 0; k < in.inputs.size(); ++k)
        line += (k ? ", " : "") + valueName(in.inputs[k]);
      line += "]";
    } else {
      for (auto& v : in.inputs) {
        sep();
        line += valueName(v);
      }
    }
    bool sampling = isSamplingInstruction(in.kind);
    if (!in.decision.empty() && !sampling) {
      sep();
      line += intList(in.decision);
    }
    line += ")";
    if (sampling) {
      if (in.kind == "sample_perfect_tile")
        line += " -> " + intList(in.decision);
      else if (in.kind == "sample_categorical" && in.decision.size() == 1 && in.decision[0] >= 0 &&
               static_cast<size_t>(in.decision[0]) < in.params.size())
        line += " -> " + std::to_string(in.params[in.decision[0]]) + " (index " +
                std::to_string(in.decision[0]) + ")";
      else if (in.kind == "sample_compute_location" && in.decision.size() == 1 &&
               in.decision[0] == -1)
        line += " -> root";
      else
        line += " -> " +
                (in.decision.size() == 1 ? std::to_string(in.decision[0]) : intList(in.decision));
    }
    out += line + "\n";
  }
  return out;
}

} // namespace unity::schedule
