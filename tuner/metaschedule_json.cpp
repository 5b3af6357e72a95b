// MetaSchedule JSON database files: export of our records and import of
// MetaSchedule's (the format and the decisions taken are described in
// metaschedule_json.h).
//
// Both directions replay traces on the workload's tensor function: export
// needs each block's loop count at every step (GetLoops must list all of a
// block's loops), and import turns MetaSchedule's variable-named steps into
// our (block, index)-named ones by running them through the Schedule
// primitives, which record our trace as they go and check that every step
// applies.
#include "tuner/metaschedule_json.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/ir/module.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/text/parser.h"

namespace unity::tuner::metaschedule {

namespace fs = std::filesystem;
using nlohmann::json;
using schedule::BlockRV;
using schedule::Instruction;
using schedule::LoopRV;
using schedule::Schedule;
using schedule::Trace;

namespace {

const char* const kPayloadFormat = "lowerscope-workload";
// TVM writes run_secs [1e10] for a candidate that failed to build or run.
constexpr double kFailedRunSecs = 1e9;

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

/// nullopt when in is not base64.
std::optional<std::string> base64Decode(const std::string& in) {
  int table[256];
  std::fill(std::begin(table), std::end(table), -1);
  for (int i = 0; i < 64; ++i)
    table[uint8_t(kB64[i])] = i;
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : in) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad || table[uint8_t(c)] < 0)
      return std::nullopt;
    acc = (acc << 6) | uint32_t(table[uint8_t(c)]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if (pad > 2)
    return std::nullopt;
  return out;
}

[[noreturn]] void badInst(size_t i, const std::string& kind, const std::string& what) {
  throw Error("instruction " + std::to_string(i) + " (" + kind + "): " + what);
}

/// ["TENSOR", dtype, shape] per buffer parameter; null when a parameter is a
/// scalar or a shape is symbolic (TVM's ArgInfo has no form for them here).
json argsInfo(const ir::PrimFuncRef& f) {
  json out = json::array();
  for (auto& p : f->params) {
    if (!p.buffer)
      return nullptr;
    json shape = json::array();
    for (auto& d : p.buffer->shape) {
      auto c = ir::asConstInt(d);
      if (!c)
        return nullptr;
      shape.push_back(*c);
    }
    out.push_back(json::array({"TENSOR", p.buffer->dtype.str(), shape}));
  }
  return out;
}

std::vector<std::string> readLines(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    throw Error(p.string() + ": cannot open MetaSchedule database file");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

void writeLines(const fs::path& p, const std::vector<std::string>& lines) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  for (auto& l : lines)
    out << l << '\n';
  out.flush();
  if (!out)
    throw Error(p.string() + ": cannot write file");
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

} // namespace

ir::PrimFuncRef workloadFunction(const std::string& text) {
  ir::IRModule m = text::parseModule(text, "<workload>");
  std::vector<std::pair<std::string, ir::PrimFuncRef>> funcs;
  for (auto& [name, f] : m->functions)
    if (ir::isa<ir::PrimFunc>(f))
      funcs.emplace_back(name, ir::cast<ir::PrimFunc>(f));
  if (funcs.size() == 1)
    return funcs[0].second;
  for (auto& [name, f] : funcs)
    if (name == "main")
      return f;
  throw Error("workload text holds " + std::to_string(funcs.size()) +
              " tensor functions and none is named \"main\"");
}

// ---- export -----------------------------------------------------------------

json traceToMetaSchedule(const Trace& trace, const ir::PrimFuncRef& func) {
  json insts = json::array();
  int counter = 0; // TVM numbers every random variable with one counter
  auto fresh = [&](char prefix) { return prefix + std::to_string(counter++); };
  Schedule cur(func);
  // A block variable stays valid until its block is inlined away (as in
  // TVM); loop variables are fetched again for every step, since the steps
  // before may have replaced the loops.
  std::map<std::string, std::string> blockRV;
  size_t i = 0;
  for (const Instruction& in : trace.instructions()) {
    // The preamble of this step: its blocks and the loops of the blocks its
    // loop locators name, as they are now.
    std::map<std::string, std::vector<std::string>> loopRVs;
    auto block = [&](const std::string& name) -> std::string {
      if (auto it = blockRV.find(name); it != blockRV.end())
        return it->second;
      try {
        cur.getBlock(name);
      } catch (const Error& e) {
        badInst(i, in.kind, e.message());
      }
      std::string rv = fresh('b');
      insts.push_back(
          json::array({"GetBlock", json::array(), json::array({name, "main"}), json::array({rv})}));
      return blockRV[name] = rv;
    };
    auto loop = [&](const schedule::LoopLocator& l) -> std::string {
      auto it = loopRVs.find(l.block);
      if (it == loopRVs.end()) {
        std::string b = block(l.block);
        size_t n = cur.getLoops(cur.getBlock(l.block)).size();
        std::vector<std::string> outs;
        for (size_t k = 0; k < n; ++k)
          outs.push_back(fresh('l'));
        insts.push_back(json::array({"GetLoops", json::array({b}), json::array(), outs}));
        it = loopRVs.emplace(l.block, outs).first;
      }
      if (l.index < 0 || static_cast<size_t>(l.index) >= it->second.size())
        badInst(i, in.kind,
                "loop " + l.block + "[" + std::to_string(l.index) + "] is out of range");
      return it->second[l.index];
    };
    auto loopList = [&] {
      json out = json::array();
      for (auto& l : in.loops)
        out.push_back(loop(l));
      return out;
    };
    auto needs = [&](size_t blocks, size_t loops) {
      if (in.blocks.size() != blocks || in.loops.size() < loops ||
          (loops == 1 && in.loops.size() != 1))
        badInst(i, in.kind, "unexpected number of blocks or loops");
    };
    auto outputs = [&](char prefix, size_t n) {
      json out = json::array();
      for (size_t k = 0; k < n; ++k)
        out.push_back(fresh(prefix));
      return out;
    };
    json step;
    if (in.kind == "split") {
      needs(0, 1);
      json inputs = json::array({loop(in.loops[0])});
      for (int64_t f : in.decision)
        inputs.push_back(f < 0 ? json("None") : json(f));
      // attrs: preserve_unit_iters, disable_predication (TVM's defaults).
      step = json::array({"Split", inputs, json::array({1, 0}), outputs('l', in.decision.size())});
    } else if (in.kind == "fuse") {
      needs(0, 2);
      json inputs = loopList();
      step = json::array({"Fuse", inputs, json::array({1}), outputs('l', 1)});
    } else if (in.kind == "reorder") {
      needs(0, 2);
      json inputs = loopList();
      step = json::array({"Reorder", inputs, json::array(), json::array()});
    } else if (in.kind == "parallel" || in.kind == "vectorize" || in.kind == "unroll") {
      needs(0, 1);
      std::string name = in.kind == "parallel"    ? "Parallel"
                         : in.kind == "vectorize" ? "Vectorize"
                                                  : "Unroll";
      step = json::array({name, json::array({loop(in.loops[0])}), json::array(), json::array()});
    } else if (in.kind == "compute_inline" || in.kind == "reverse_compute_inline") {
      needs(1, 0);
      std::string name = in.kind == "compute_inline" ? "ComputeInline" : "ReverseComputeInline";
      step = json::array({name, json::array({block(in.blocks[0])}), json::array(), json::array()});
    } else if (in.kind == "compute_at" || in.kind == "reverse_compute_at") {
      needs(1, 1);
      std::string name = in.kind == "compute_at" ? "ComputeAt" : "ReverseComputeAt";
      std::string b = block(in.blocks[0]);
      // attrs: preserve_unit_loops, index (-1: TVM picks the position).
      step = json::array(
          {name, json::array({b, loop(in.loops[0])}), json::array({1, -1}), json::array()});
    } else if (in.kind == "decompose_reduction") {
      needs(1, 1);
      std::string b = block(in.blocks[0]);
      step = json::array({"DecomposeReduction", json::array({b, loop(in.loops[0])}), json::array(),
                          outputs('b', 1)});
    } else {
      badInst(i, in.kind, "has no MetaSchedule counterpart");
    }
    insts.push_back(step);
    if (in.kind == "compute_inline" || in.kind == "reverse_compute_inline")
      blockRV.erase(in.blocks[0]);
    // Advance the state by this one step; its errors name the step.
    Trace one;
    one.append(in);
    try {
      cur = Schedule::replay(cur.func(), one);
    } catch (const Error& e) {
      badInst(i, in.kind, e.message());
    }
    ++i;
  }
  return json::array({insts, json::array()});
}

nlohmann::ordered_json targetToMetaSchedule(const std::string& targetText) {
  target::Target t = target::Target::parse(targetText);
  const target::TargetKindInfo* kind = target::findTargetKind(t.kind);
  nlohmann::ordered_json j;
  j["kind"] = t.kind;
  j["tag"] = "";
  if (t.kind == "llvm" || t.kind == "c")
    j["keys"] = json::array({"cpu"});
  for (auto& [key, value] : t.attrs) {
    target::AttrType type = target::AttrType::String;
    if (kind)
      for (auto& a : kind->attrs)
        if (a.name == key)
          type = a.type;
    if (key == "mattr") { // TVM: an array of strings
      json list = json::array();
      std::stringstream ss(value);
      for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
          list.push_back(item);
      j[key] = list;
    } else if (type == target::AttrType::Int) {
      j[key] = std::stoll(value);
    } else if (type == target::AttrType::Bool) {
      j[key] = value == "true" || value == "1";
    } else {
      j[key] = value;
    }
  }
  return j;
}

std::string targetFromMetaSchedule(const json& target) {
  if (!target.is_object() || !target.contains("kind") || !target["kind"].is_string())
    throw Error("target is not an object with a string \"kind\"");
  std::string kindName = target["kind"].get<std::string>();
  const target::TargetKindInfo* kind = target::findTargetKind(kindName);
  if (!kind)
    throw Error("target kind '" + kindName + "' is not one lowerscope knows");
  json ours = {{"kind", kindName}};
  for (auto& [key, v] : target.items()) {
    if (key == "kind" || !kind->hasAttr(key))
      continue; // tag, keys, host, features, ...: TVM's, not ours
    if (v.is_array()) {
      std::string joined;
      for (auto& e : v)
        if (e.is_string())
          joined += (joined.empty() ? "" : ",") + e.get<std::string>();
      ours[key] = joined;
    } else {
      ours[key] = v;
    }
  }
  return target::Target::fromJSON(ours.dump()).str();
}

ExportReport exportDatabase(const Database& db, const std::string& dir,
                            const ExportOptions& options) {
  ExportReport report;
  std::vector<std::string> workloadLines, recordLines;
  std::vector<TargetRow> targets;
  for (auto& t : db.targets())
    if (options.target.empty() || t.text == options.target)
      targets.push_back(t);
  std::map<int64_t, nlohmann::ordered_json> targetJson;
  std::map<int64_t, std::string> targetError;
  for (auto& t : targets) {
    try {
      targetJson[t.id] = targetToMetaSchedule(t.text);
    } catch (const Error& e) {
      targetError[t.id] = "target '" + t.text + "': " + e.message();
    }
  }
  for (auto& w : db.workloads()) {
    if (!options.workloadHash.empty() && w.hash != options.workloadHash)
      continue;
    int64_t index = static_cast<int64_t>(workloadLines.size());
    nlohmann::ordered_json payload;
    payload["format"] = kPayloadFormat;
    payload["version"] = 1;
    payload["text"] = w.text;
    payload["flops"] = w.flops;
    workloadLines.push_back(json::array({w.hash, base64Encode(payload.dump())}).dump());
    ++report.workloads;
    ir::PrimFuncRef func;
    std::string funcError;
    try {
      func = workloadFunction(w.text);
    } catch (const Error& e) {
      funcError = "workload " + w.hash + " cannot be rebuilt from its text: " + e.message();
    }
    json args = func ? argsInfo(func) : json(nullptr);
    for (auto& t : targets) {
      for (auto& r : db.records(w.id, t.id, RecordStatus::Ok)) {
        std::string where = "record " + std::to_string(r.id) + ": ";
        try {
          if (!funcError.empty())
            throw Error(funcError);
          if (auto it = targetError.find(t.id); it != targetError.end())
            throw Error(it->second);
          json trace = traceToMetaSchedule(Trace::fromJson(r.trace), func);
          json secs = r.times.empty() ? json::array({*r.meanS}) : json(r.times);
          nlohmann::ordered_json line = nlohmann::ordered_json::array(
              {index, nlohmann::ordered_json::array({trace, secs, targetJson[t.id], args})});
          recordLines.push_back(line.dump());
          ++report.records;
        } catch (const Error& e) {
          report.refused.push_back(where + e.message());
        }
      }
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(dir + ": cannot create directory: " + ec.message());
  writeLines(fs::path(dir) / kWorkloadFile, workloadLines);
  writeLines(fs::path(dir) / kRecordFile, recordLines);
  return report;
}

// ---- import -----------------------------------------------------------------

namespace {

/// A MetaSchedule random variable during import.
struct RV {
  enum Kind { Block, Loop, Int } kind;
  BlockRV block;
  LoopRV loop;
  int64_t value = 0;
};

} // namespace

TraceImport traceFromMetaSchedule(const json& trace, const ir::PrimFuncRef& func) {
  if (!trace.is_array() || trace.size() != 2 || !trace[0].is_array() || !trace[1].is_array())
    throw Error("trace is not [instructions, decisions]");
  const json& insts = trace[0];
  std::map<size_t, json> decisions;
  for (auto& d : trace[1]) {
    if (!d.is_array() || d.size() != 2 || !d[0].is_number_integer() || d[0].get<int64_t>() < 0 ||
        d[0].get<size_t>() >= insts.size())
      throw Error("trace decision " + d.dump() + " is not [instruction index, decision]");
    decisions[d[0].get<size_t>()] = d[1];
  }
  TraceImport out;
  Schedule sch(func);
  std::map<std::string, RV> rvs;
  // Steps applied through our primitives are recorded in sch's trace; steps
  // applied as one of our trace instructions replace sch by the replayed
  // state, whose trace starts anew, so the steps are gathered here.
  size_t taken = 0;
  auto gather = [&] {
    for (size_t k = taken; k < sch.trace().size(); ++k)
      out.trace.append(sch.trace().instructions()[k]);
    taken = sch.trace().size();
  };
  // Applies one of our instructions by kind, for the primitives this file
  // does not call directly: once replay knows the kind, the step imports.
  auto applyOurs = [&](size_t i, const std::string& tvmKind, schedule::Instruction inst) {
    if (!schedule::isKnownInstruction(inst.kind))
      badInst(i, tvmKind, "has no counterpart in lowerscope's schedule");
    gather();
    Trace one;
    one.append(std::move(inst));
    sch = Schedule::replay(sch.func(), one);
    taken = 0;
    gather();
  };
  // Our name of a loop: (first block under it, its index in that block's loops).
  auto locate = [&](const LoopRV& l) {
    auto blocks = sch.getBlocksUnder(l);
    if (blocks.empty())
      throw Error("a loop without blocks under it");
    auto loops = sch.getLoops(blocks[0]);
    for (size_t k = 0; k < loops.size(); ++k)
      if (ir::sameNode(loops[k].var, l.var))
        return schedule::LoopLocator{blocks[0].name, static_cast<int>(k)};
    throw Error("a loop that is not around its own block");
  };
  for (size_t i = 0; i < insts.size(); ++i) {
    const json& in = insts[i];
    if (!in.is_array() || in.size() != 4 || !in[0].is_string() || !in[1].is_array() ||
        !in[2].is_array() || !in[3].is_array())
      throw Error("instruction " + std::to_string(i) + " is not [kind, inputs, attrs, outputs]");
    std::string kind = in[0].get<std::string>();
    const json &inputs = in[1], &attrs = in[2], &outs = in[3];
    auto rv = [&](const json& j, RV::Kind want) -> const RV& {
      static const char* const names[] = {"block", "loop", "integer"};
      if (!j.is_string())
        badInst(i, kind, "input " + j.dump() + " is not a variable name");
      auto it = rvs.find(j.get<std::string>());
      if (it == rvs.end())
        badInst(i, kind, "variable " + j.get<std::string>() + " is not defined");
      if (it->second.kind != want)
        badInst(i, kind, "variable " + j.get<std::string>() + " is not a " + names[want]);
      return it->second;
    };
    auto block = [&](size_t k) {
      if (k >= inputs.size())
        badInst(i, kind, "missing input " + std::to_string(k));
      return rv(inputs[k], RV::Block).block;
    };
    auto loop = [&](size_t k) {
      if (k >= inputs.size())
        badInst(i, kind, "missing input " + std::to_string(k));
      return rv(inputs[k], RV::Loop).loop;
    };
    auto loops = [&] {
      std::vector<LoopRV> ls;
      for (size_t k = 0; k < inputs.size(); ++k)
        ls.push_back(loop(k));
      return ls;
    };
    auto bind = [&](size_t k, RV v) {
      if (k >= outs.size() || !outs[k].is_string())
        badInst(i, kind, "output " + std::to_string(k) + " is missing or not a name");
      rvs[outs[k].get<std::string>()] = std::move(v);
    };
    auto needOutputs = [&](size_t n) {
      if (outs.size() != n)
        badInst(i, kind,
                "names " + std::to_string(outs.size()) + " outputs, the schedule gives " +
                    std::to_string(n));
    };
    auto decision = [&]() -> const json& {
      auto it = decisions.find(i);
      if (it == decisions.end())
        badInst(i, kind, "has no recorded decision");
      return it->second;
    };
    try {
      if (kind == "GetBlock" || kind == "GetSBlock") {
        if (attrs.empty() || !attrs[0].is_string())
          badInst(i, kind, "attrs do not start with the block name");
        BlockRV b = sch.getBlock(attrs[0].get<std::string>());
        needOutputs(1);
        bind(0, {RV::Block, b, {}, 0});
      } else if (kind == "GetLoops") {
        auto ls = sch.getLoops(block(0));
        needOutputs(ls.size());
        for (size_t k = 0; k < ls.size(); ++k)
          bind(k, {RV::Loop, {}, ls[k], 0});
      } else if (kind == "Split") {
        LoopRV l = loop(0);
        std::vector<int64_t> factors;
        for (size_t k = 1; k < inputs.size(); ++k) {
          const json& f = inputs[k];
          if (f.is_number_integer())
            factors.push_back(f.get<int64_t>());
          else if (f == "None" || f.is_null())
            factors.push_back(-1);
          else
            factors.push_back(rv(f, RV::Int).value);
        }
        auto res = sch.split(l, factors);
        needOutputs(res.size());
        for (size_t k = 0; k < res.size(); ++k)
          bind(k, {RV::Loop, {}, res[k], 0});
      } else if (kind == "Fuse") {
        LoopRV f = sch.fuse(loops());
        needOutputs(1);
        bind(0, {RV::Loop, {}, f, 0});
      } else if (kind == "Reorder") {
        sch.reorder(loops());
      } else if (kind == "Parallel") {
        sch.parallel(loop(0));
      } else if (kind == "Vectorize") {
        sch.vectorize(loop(0));
      } else if (kind == "Unroll") {
        sch.unroll(loop(0));
      } else if (kind == "ComputeInline" || kind == "ReverseComputeInline") {
        applyOurs(i, kind,
                  {kind == "ComputeInline" ? "compute_inline" : "reverse_compute_inline",
                   {block(0).name},
                   {},
                   {}});
      } else if (kind == "ComputeAt" || kind == "ReverseComputeAt") {
        // attrs (preserve_unit_loops, index) are TVM's defaults in
        // MetaSchedule's traces; our primitive has no such options.
        applyOurs(i, kind,
                  {kind == "ComputeAt" ? "compute_at" : "reverse_compute_at",
                   {block(0).name},
                   {locate(loop(1))},
                   {}});
      } else if (kind == "DecomposeReduction") {
        BlockRV init = sch.decomposeReduction(block(0), loop(1));
        needOutputs(1);
        bind(0, {RV::Block, init, {}, 0});
      } else if (kind == "SamplePerfectTile") {
        const json& d = decision();
        if (!d.is_array() || d.size() != outs.size())
          badInst(i, kind, "decision " + d.dump() + " does not give one factor per output");
        for (size_t k = 0; k < d.size(); ++k) {
          if (!d[k].is_number_integer())
            badInst(i, kind, "decision " + d.dump() + " holds a non-integer");
          bind(k, {RV::Int, {}, {}, d[k].get<int64_t>()});
        }
      } else if (kind == "SampleCategorical") {
        const json& d = decision();
        if (attrs.empty() || !attrs[0].is_array() || !d.is_number_integer() ||
            d.get<int64_t>() < 0 || d.get<size_t>() >= attrs[0].size() ||
            !attrs[0][d.get<size_t>()].is_number_integer())
          badInst(i, kind, "decision " + d.dump() + " does not pick one of the candidates");
        needOutputs(1);
        bind(0, {RV::Int, {}, {}, attrs[0][d.get<size_t>()].get<int64_t>()});
      } else if (kind == "Annotate" || kind == "Unannotate" || kind == "EnterPostproc") {
        ++out.droppedAnnotations;
      } else {
        badInst(i, kind, "has no counterpart in lowerscope's schedule");
      }
    } catch (const Error& e) {
      std::string msg = e.message();
      if (msg.rfind("instruction ", 0) == 0)
        throw;
      badInst(i, kind, msg);
    }
  }
  gather();
  return out;
}

namespace {

struct ImportedWorkload {
  bool ours = false;
  int64_t id = 0;
  ir::PrimFuncRef func;
  std::string error; // ours, but the function cannot be rebuilt
};

json parseLine(const std::string& file, size_t lineNo, const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw Error(file + ":" + std::to_string(lineNo) + ": not a JSON value");
  return j;
}

} // namespace

ImportReport importDatabase(Database& db, const std::string& dir) {
  fs::path wPath = fs::path(dir) / kWorkloadFile, rPath = fs::path(dir) / kRecordFile;
  std::vector<std::string> wLines = readLines(wPath), rLines = readLines(rPath);
  std::string wName = wPath.string(), rName = rPath.string();
  ImportReport report;
  db.transaction([&] {
    std::vector<ImportedWorkload> workloads;
    for (size_t n = 0; n < wLines.size(); ++n) {
      if (blank(wLines[n]))
        continue;
      json j = parseLine(wName, n + 1, wLines[n]);
      if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string())
        throw Error(wName + ":" + std::to_string(n + 1) +
                    ": a workload line is [hash, payload] (two strings)");
      ImportedWorkload w;
      json payload;
      if (auto raw = base64Decode(j[1].get<std::string>()))
        payload = json::parse(*raw, nullptr, /*allow_exceptions=*/false);
      if (payload.is_object() && payload.contains("format") &&
          payload["format"] == kPayloadFormat) {
        if (!payload.contains("text") || !payload["text"].is_string())
          throw Error(wName + ":" + std::to_string(n + 1) + ": lowerscope workload without text");
        std::string text = payload["text"].get<std::string>();
        double flops = payload.contains("flops") && payload["flops"].is_number()
                           ? payload["flops"].get<double>()
                           : 0.0;
        w.ours = true;
        w.id = db.addWorkload(j[0].get<std::string>(), text, flops);
        try {
          w.func = workloadFunction(text);
        } catch (const Error& e) {
          w.error = "workload " + j[0].get<std::string>() + " cannot be rebuilt: " + e.message();
        }
        ++report.workloads;
      } else {
        ++report.foreignWorkloads;
      }
      workloads.push_back(std::move(w));
    }

    // Records present before the import, per (workload, target): trace and times.
    std::map<std::pair<int64_t, int64_t>, std::set<std::string>> existing;
    auto key = [](const Trace& t, const std::vector<double>& times) {
      return t.toJsonString() + "|" + json(times).dump();
    };
    auto seen = [&](int64_t w, int64_t t) -> std::set<std::string>& {
      auto [it, inserted] = existing.try_emplace({w, t});
      if (inserted)
        for (auto& r : db.records(w, t)) {
          try {
            it->second.insert(key(Trace::fromJson(r.trace), r.times));
          } catch (const Error&) {
            // A stored trace we cannot read equals no imported one.
          }
        }
      return it->second;
    };

    for (size_t n = 0; n < rLines.size(); ++n) {
      if (blank(rLines[n]))
        continue;
      std::string where = rName + ":" + std::to_string(n + 1);
      json j = parseLine(rName, n + 1, rLines[n]);
      if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_array() ||
          j[1].size() != 4)
        throw Error(where + ": a record line is [workload_index, [trace, run_secs, target, "
                            "args_info]]");
      int64_t index = j[0].get<int64_t>();
      if (index < 0 || index >= static_cast<int64_t>(workloads.size()))
        throw Error(where + ": workload index " + std::to_string(index) + " is not a line of " +
                    wName);
      const ImportedWorkload& w = workloads[index];
      if (!w.ours) {
        ++report.foreignRecords;
        continue;
      }
      const json& rec = j[1];
      try {
        if (!w.error.empty())
          throw Error(w.error);
        std::vector<double> secs;
        if (!rec[1].is_null()) {
          if (!rec[1].is_array())
            throw Error("run_secs is not an array");
          for (auto& s : rec[1]) {
            if (!s.is_number())
              throw Error("run_secs holds a non-number");
            secs.push_back(s.get<double>());
          }
        }
        if (rec[2].is_null())
          throw Error("the record has no target");
        std::string targetText = targetFromMetaSchedule(rec[2]);
        TraceImport t = traceFromMetaSchedule(rec[0], w.func);

        Record r;
        r.workloadId = w.id;
        r.targetId = db.addTarget(targetText);
        r.trace = t.trace.toJson();
        r.node = "metaschedule-import";
        bool failed = secs.empty() || std::any_of(secs.begin(), secs.end(),
                                                  [](double s) { return s >= kFailedRunSecs; });
        if (failed) {
          r.status = RecordStatus::RunError;
          r.errorKind = "metaschedule_failed";
          r.errorMessage =
              "MetaSchedule recorded this candidate as failed (run_secs " + rec[1].dump() + ")";
        } else {
          r.times = secs;
        }
        auto& known = seen(r.workloadId, r.targetId);
        if (!known.insert(key(t.trace, r.times)).second) {
          ++report.duplicates;
          continue;
        }
        db.addRecord(r);
        ++report.records;
        report.failedRecords += failed;
        report.droppedAnnotations += t.droppedAnnotations;
      } catch (const Error& e) {
        report.refused.push_back(where + ": " + e.message());
      } catch (const nlohmann::json::exception& e) {
        // A value of an unexpected JSON type somewhere inside the record.
        report.refused.push_back(where + ": " + e.what());
      }
    }
  });
  return report;
}

} // namespace unity::tuner::metaschedule
