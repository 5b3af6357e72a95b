// The design space over SchedulePolicy knobs (see space.h). Index 0 of every
// dimension is "keep the base policy's value" (null in decisions), so the
// all-zero point is exactly the default schedule, including the knobs whose
// base value is a preference list (tile_rows {14, 8, 7, 6, 4, 3, 2, 1}) rather
// than one value. Every other value patches one or more knobs.
#include "tuner/space.h"

#include <algorithm>

#include "engine/ir/structural.h"
#include "engine/support/error.h"
#include "engine/transform/default_schedule.h"

namespace unity::tuner {

using nlohmann::json;

namespace {

/// The knobs a dimension's value sets (value is not null).
json patch(const std::string& dim, const json& v) {
  if (dim == "tile_rows") {
    int r = v.get<int>();
    return {{"tile_rows", r == 1 ? std::vector<int>{1} : std::vector<int>{r, 1}}};
  }
  if (dim == "tile_vectors")
    return {{"max_tile_vectors", v}};
  if (dim == "accumulators")
    return {{"accumulator_registers", v}};
  if (dim == "reduce_tile") {
    int k = v.get<int>();
    if (k == 0)
      return {{"reduce_split_above", 0}};
    return {{"reduce_split_above", 1}, {"reduce_tile_candidates", std::vector<int>{k}}};
  }
  if (dim == "reduce_slice")
    return {{"reduce_slice_bytes", v}};
  if (dim == "prefetch")
    return {{"prefetch_slices", v}};
  if (dim == "parallel_chunks")
    return {{"parallel_chunks_per_core", v}};
  if (dim == "split_factor")
    return {{"split_factor", v}};
  if (dim == "unrolled_taps")
    return {{"max_unrolled_taps", v}};
  if (dim == "keep_padding")
    return {{"keep_padding_producers", v}};
  if (dim == "fuse_epilogues")
    return {{"fuse_epilogues", v}};
  if (dim == "pack")
    return {{"pack_reused_input", v}};
  if (dim == "pack_min_reuse")
    return {{"pack_min_reuse", v}};
  if (dim == "pack_in_tile_loop")
    return {{"pack_in_tile_loop", v}};
  throw Error("design space: unknown dimension '" + dim + "'");
}

Dimension dim(std::string name, std::vector<json> values) {
  values.insert(values.begin(), json(nullptr));
  return {std::move(name), std::move(values)};
}

} // namespace

DesignSpace::DesignSpace(target::SchedulePolicy base) : base_(std::move(base)) {
  std::vector<json> taps{1, 9, 25, 49, 81};
  dims_.push_back(dim("tile_rows", {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16}));
  dims_.push_back(dim("tile_vectors", {1, 2, 3, 4, 6, 8}));
  dims_.push_back(dim("accumulators", {16, 24, 28, 32}));
  dims_.push_back(dim("reduce_tile", {0, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512}));
  // The channel slice a packed convolution weight is cut into (bytes).
  dims_.push_back(dim("reduce_slice", {4096, 8192, 32768, 65536, 262144}));
  dims_.push_back(dim("prefetch", {true, false}));
  if (base_.parallelize && base_.cores > 1)
    dims_.push_back(dim("parallel_chunks", {1, 2, 4, 8, 16, 32}));
  dims_.push_back(dim("split_factor", {16, 32, 64, 128, 256}));
  dims_.push_back(dim("unrolled_taps", taps));
  dims_.push_back(dim("keep_padding", {true, false}));
  // Compute location: the epilogue under the reduction's tile, or after it.
  dims_.push_back(dim("fuse_epilogues", {true, false}));
  // Layout: the reused input packed into tile-wide panels, and from which reuse on.
  dims_.push_back(dim("pack", {true, false}));
  dims_.push_back(dim("pack_min_reuse", {1, 128, 256, 512, 1 << 30}));
  dims_.push_back(dim("pack_in_tile_loop", {true, false}));
}

Point DesignSpace::basePoint() const { return Point(dims_.size(), 0); }

Point DesignSpace::sample(std::mt19937_64& rng) const {
  Point p(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d)
    p[d] = std::uniform_int_distribution<int>(0, int(dims_[d].values.size()) - 1)(rng);
  return p;
}

Point DesignSpace::mutate(const Point& p, std::mt19937_64& rng) const {
  Point q = p;
  size_t d = std::uniform_int_distribution<size_t>(0, dims_.size() - 1)(rng);
  int n = int(dims_[d].values.size());
  if (n < 2)
    return q;
  if (rng() % 2 == 0 && q[d] > 0 && n > 2) { // a neighbour (index 0, "base", is not one)
    int v = q[d] + ((rng() % 2 == 0) ? -1 : 1);
    q[d] = v < 1 ? 2 : v > n - 1 ? n - 2 : v;
  } else {
    int v = std::uniform_int_distribution<int>(0, n - 2)(rng);
    q[d] = v >= q[d] ? v + 1 : v; // any other value
  }
  return q;
}

target::SchedulePolicy DesignSpace::policy(const Point& p) const {
  if (p.size() != dims_.size())
    throw Error("design space: a point of " + std::to_string(p.size()) + " values for " +
                std::to_string(dims_.size()) + " dimensions");
  json knobs = json::object();
  for (size_t d = 0; d < dims_.size(); ++d) {
    const json& v = dims_[d].values.at(p[d]);
    if (!v.is_null())
      knobs.update(patch(dims_[d].name, v));
  }
  return knobs.empty() ? base_ : base_.withJSON(knobs.dump());
}

json DesignSpace::decisions(const Point& p) const {
  json j = json::object();
  for (size_t d = 0; d < dims_.size(); ++d)
    j[dims_[d].name] = dims_[d].values.at(p[d]);
  return j;
}

Point DesignSpace::fromDecisions(const json& j) const {
  if (!j.is_object())
    throw Error("design space: decisions must be a JSON object, got " + j.dump());
  Point p = basePoint();
  for (auto& [name, value] : j.items()) {
    size_t d = 0;
    while (d < dims_.size() && dims_[d].name != name)
      ++d;
    if (d == dims_.size())
      throw Error("design space: unknown knob '" + name + "' in decisions");
    auto& vals = dims_[d].values;
    auto it = std::find(vals.begin(), vals.end(), value);
    if (it == vals.end())
      throw Error("design space: value " + value.dump() + " of '" + name +
                  "' is not in its domain");
    p[d] = int(it - vals.begin());
  }
  return p;
}

std::optional<Candidate> DesignSpace::apply(const ir::PrimFuncRef& f, const Point& p) const {
  try {
    schedule::Schedule s = transform::scheduleWithPolicy(f, policy(p));
    Candidate c;
    c.point = p;
    c.scheduled = s.func();
    c.trace = s.trace();
    c.key = ir::structuralHashHex(s.func());
    return c;
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace unity::tuner
