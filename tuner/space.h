#pragma once
// The design space of one task: the schedules DefaultSchedule's rules build
// when their knobs (target::SchedulePolicy) take other values. The rules are
// the space's generators -- inline injective producers, the register tile of
// reductions (rows x vectors), the reduction slice kept in cache, the
// parallel chunks, the split of long spatial loops, the unrolled convolution
// taps, padding kept or inlined, the epilogue computed under the tile or
// after it, the reused input packed into panels -- and every knob the
// machine model gives a
// value is a dimension whose domain is a short list of values around it.
// A point picks one value per dimension; applying it runs the rules under
// the resulting policy and yields a schedule with its trace, which is what
// is measured, stored and replayed (the point itself is stored as the
// record's "decisions").
//
// Many points give the same schedule (a knob that no rule of this function
// reads changes nothing: the reduction slice of an elementwise kernel), so
// candidates are identified by the structural hash of the scheduled
// function, and the search never measures one schedule twice.
//
// Mutators change one dimension of a point: a tile size (rows, vectors,
// accumulator budget, reduction slice), the unrolled taps, the parallel
// extent (chunks per core), the spatial split, the compute location of
// epilogues, the packing of the reused input.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/tir.h"
#include "engine/schedule/schedule.h"
#include "engine/target/schedule_policy.h"

namespace unity::tuner {

/// One dimension: a policy knob and the values it may take.
struct Dimension {
  std::string name;                   ///< knob name as in the policy JSON (snake_case)
  std::vector<nlohmann::json> values; ///< its domain
};

/// A point of the space: one index into each dimension's values.
using Point = std::vector<int>;

/// A point applied to a function.
struct Candidate {
  Point point;
  ir::PrimFuncRef scheduled;
  schedule::Trace trace;
  std::string key; ///< structural hash of `scheduled`: identical schedules share it
};

class DesignSpace {
public:
  /// The space around `base` (the target's policy): every dimension's domain
  /// contains the base value, so the base point is the default schedule.
  explicit DesignSpace(target::SchedulePolicy base);

  const std::vector<Dimension>& dimensions() const { return dims_; }
  const target::SchedulePolicy& base() const { return base_; }

  /// The point whose policy equals the base policy.
  Point basePoint() const;
  Point sample(std::mt19937_64& rng) const;
  /// `p` with one randomly chosen dimension moved: to a neighbouring value
  /// (half the time) or to any other value.
  Point mutate(const Point& p, std::mt19937_64& rng) const;

  /// The policy of a point: the base with the point's knobs replaced.
  target::SchedulePolicy policy(const Point& p) const;
  /// {"tile_rows": 6, ...}: the point by knob name and value.
  nlohmann::json decisions(const Point& p) const;
  /// Inverse of decisions(); unity::Error naming the knob for an unknown
  /// name or a value outside its domain.
  Point fromDecisions(const nlohmann::json& j) const;

  /// Schedules f at p. nullopt when the rules throw (a point that builds
  /// nothing is not a candidate).
  std::optional<Candidate> apply(const ir::PrimFuncRef& f, const Point& p) const;

private:
  target::SchedulePolicy base_;
  std::vector<Dimension> dims_;
};

} // namespace unity::tuner
