#pragma once
// The trace of a schedule: the list of primitives applied, with their inputs
// named so that they resolve again on a fresh copy of the function (blocks by
// name, loops by (block, index among the block's loops)) and the decisions
// taken (split factors, sampled values). Replaying a trace is deterministic:
// the same function and trace give the same result.
//
// Sampling instructions (sample_perfect_tile, sample_categorical,
// sample_compute_location) record their decision and produce outputs that
// later instructions may take as inputs, by reference: output k of
// instruction i. Replay recomputes the outputs from the recorded decisions,
// so changing a decision (withDecision) and replaying changes every
// instruction that uses it — what the tuner's mutators do. JSON form
// (version 2; version-1 files, which have no references, still read):
//
//   {"version": 2, "instructions": [
//     {"kind": "sample_perfect_tile", "loops": [["C", 0]], "n": 2,
//      "max_innermost": 16, "extent": 1024, "decision": [64, 16]},
//     {"kind": "split", "loops": [["C", 0]],
//      "inputs": [{"inst": 0, "output": 0}, {"inst": 0, "output": 1}]},
//     {"kind": "split", "loops": [["C", 2]], "decision": [-1, 8]},
//     {"kind": "annotate", "loops": [["C", 0]], "key": "pragma_auto_unroll_max_step",
//      "value": 16},
//     {"kind": "compute_inline", "blocks": ["T_add"]}, ...]}
//
// A loop input that is the output of sample_compute_location is written
// {"inst": i} instead of [block, index].
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/ir/attrs.h"

namespace unity::schedule {

struct LoopLocator {
  std::string block; // a block under the loop (the first in pre-order)
  int index = 0;     // the loop's position in getLoops(block)
  /// >= 0: the loop is the output of the sample_compute_location instruction
  /// with this index (block and index are then unused).
  int inst = -1;
  bool isRef() const { return inst >= 0; }
  friend bool operator==(const LoopLocator&, const LoopLocator&) = default;
};

/// An integer input of an instruction: the constant `value`, or (inst >= 0)
/// output `output` of the earlier instruction `inst` of the same trace (a
/// sample_perfect_tile factor or a sample_categorical value). In a trace a
/// reference's value is 0; as an ExprRV handed out by a Schedule it also
/// carries the value sampled.
struct ValueRef {
  int64_t value = 0;
  int inst = -1;
  int output = 0;
  bool isRef() const { return inst >= 0; }
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

struct Instruction {
  /// split, split_tail, fuse, reorder, parallel, vectorize, unroll, compute_inline,
  /// decompose_reduction; rfactor, annotate, sample_perfect_tile,
  /// sample_categorical, sample_compute_location; cache_read, cache_write
  /// (decision: buffer index, scope 0 = "global" / 1 = "local"), compute_at,
  /// reverse_compute_at, reverse_compute_inline; pack_layout.
  std::string kind;
  std::vector<std::string> blocks;
  std::vector<LoopLocator> loops;
  /// split: the factors (when none is sampled); a sampling instruction: its
  /// decision (perfect tile: the factors; categorical: the index of the
  /// candidate; compute location: the index among the candidate loops, -1
  /// for root).
  std::vector<int64_t> decision;
  /// split: the factors when one is sampled (decision is then empty);
  /// annotate: a sampled value.
  std::vector<ValueRef> inputs = {};
  /// Kind-specific integers: rfactor {factor_axis}; sample_perfect_tile
  /// {n, max_innermost, extent}; sample_categorical: the candidates;
  /// sample_compute_location {number of candidate loops}.
  std::vector<int64_t> params = {};
  std::vector<double> probs = {}; // sample_categorical
  std::string key = {};           // annotate
  /// annotate: a constant value (bool, integer, float or string).
  std::optional<ir::AttrValue> value = {};
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

/// One sampling instruction of a trace and its domain, for the tuner's
/// mutators.
struct SamplingSite {
  size_t inst = 0;  // its index in the trace
  std::string kind; // sample_perfect_tile, sample_categorical, sample_compute_location
  std::vector<int64_t> decision;
  // sample_perfect_tile: `n` positive factors multiplying to `extent`, the
  // last at most maxInnermost.
  int64_t extent = 0;
  int n = 0;
  int64_t maxInnermost = 0;
  // sample_categorical: the decision is an index into candidates.
  std::vector<int64_t> candidates;
  std::vector<double> probs;
  // sample_compute_location: the decision is -1 (root) or an index below
  // `locations` (the candidate loops when it was sampled).
  int64_t locations = 0;
};

class Trace {
public:
  /// The version toJson writes; fromJson reads 1 and 2.
  static constexpr int kVersion = 2;

  const std::vector<Instruction>& instructions() const { return insts_; }
  void append(Instruction inst) { insts_.push_back(std::move(inst)); }
  size_t size() const { return insts_.size(); }
  bool empty() const { return insts_.empty(); }

  /// The sampling instructions with their decisions and domains.
  std::vector<SamplingSite> samplingSites() const;
  /// A copy with instruction `inst`'s decision replaced. Throws unity::Error
  /// when `inst` is not a sampling instruction or the decision has the
  /// wrong length; whether the values are legal for the function is checked
  /// by Schedule::replay, which throws a message naming the instruction.
  Trace withDecision(size_t inst, std::vector<int64_t> decision) const;

  nlohmann::json toJson() const;
  std::string toJsonString() const;
  /// Throws unity::Error naming the instruction and field on malformed input.
  static Trace fromJson(const nlohmann::json& j);
  static Trace fromJsonString(const std::string& s);
  /// One instruction per line, e.g. `split(C[0], [-1, 8])` or
  /// `v0_0, v0_1 = sample_perfect_tile(C[0], n=2, max_innermost=16) -> [64, 16]`;
  /// outputs of sampling instruction i are named v<i>_<k> (values) and l<i>
  /// (a loop).
  std::string str() const;

  friend bool operator==(const Trace&, const Trace&) = default;

private:
  std::vector<Instruction> insts_;
};

/// The instruction kinds replay understands.
bool isKnownInstruction(const std::string& kind);
/// sample_perfect_tile, sample_categorical, sample_compute_location.
bool isSamplingInstruction(const std::string& kind);

} // namespace unity::schedule
