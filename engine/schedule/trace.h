#pragma once
// The trace of a schedule: the list of primitives applied, with their inputs
// named so that they resolve again on a fresh copy of the function (blocks by
// name, loops by (block, index among the block's loops)) and the decisions
// taken (split factors). Replaying a trace is deterministic: the same
// function and trace give the same result. JSON form:
//
//   {"version": 1, "instructions": [
//     {"kind": "split", "loops": [["C", 0]], "decision": [-1, 8]},
//     {"kind": "compute_inline", "blocks": ["T_add"]}, ...]}
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace unity::schedule {

struct LoopLocator {
  std::string block; // a block under the loop (the first in pre-order)
  int index = 0;     // the loop's position in getLoops(block)
  friend bool operator==(const LoopLocator&, const LoopLocator&) = default;
};

struct Instruction {
  /// split, split_tail, fuse, reorder, parallel, vectorize, unroll, compute_inline,
  /// decompose_reduction, pack_layout.
  std::string kind;
  std::vector<std::string> blocks;
  std::vector<LoopLocator> loops;
  std::vector<int64_t> decision;
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

class Trace {
public:
  const std::vector<Instruction>& instructions() const { return insts_; }
  void append(Instruction inst) { insts_.push_back(std::move(inst)); }
  size_t size() const { return insts_.size(); }
  bool empty() const { return insts_.empty(); }

  nlohmann::json toJson() const;
  std::string toJsonString() const;
  /// Throws unity::Error naming the instruction and field on malformed input.
  static Trace fromJson(const nlohmann::json& j);
  static Trace fromJsonString(const std::string& s);
  /// One instruction per line, e.g. `split(C[0], [-1, 8])`.
  std::string str() const;

  friend bool operator==(const Trace&, const Trace&) = default;

private:
  std::vector<Instruction> insts_;
};

/// The instruction kinds replay understands.
bool isKnownInstruction(const std::string& kind);

} // namespace unity::schedule
