// SchedulePolicy from a machine model, and its JSON form (one table of
// knob names drives both directions, so a new knob is added in one place).
#include "engine/target/schedule_policy.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "engine/support/error.h"
#include "engine/target/machine_model.h"

namespace unity::target {

namespace {

using Json = nlohmann::ordered_json;

/// One knob: its JSON name, how to write it and how to read it.
struct Knob {
  const char* name;
  std::function<Json(const SchedulePolicy&)> get;
  std::function<void(SchedulePolicy&, const Json&)> set;
};

template <typename T> Knob knob(const char* name, T SchedulePolicy::*field) {
  return {name, [field](const SchedulePolicy& p) { return Json(p.*field); },
          [field, name](SchedulePolicy& p, const Json& v) {
            bool ok;
            if constexpr (std::is_same_v<T, bool>)
              ok = v.is_boolean();
            else if constexpr (std::is_same_v<T, int>)
              ok = v.is_number_integer();
            else
              ok = v.is_array() && std::all_of(v.begin(), v.end(),
                                               [](const Json& x) { return x.is_number_integer(); });
            if (!ok)
              throw Error(std::string("schedule policy: \"") + name + "\" must be " +
                          (std::is_same_v<T, bool>  ? "true or false"
                           : std::is_same_v<T, int> ? "an integer"
                                                    : "an array of integers") +
                          ", got " + v.dump());
            p.*field = v.get<T>();
          }};
}

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {
      knob("parallelize", &SchedulePolicy::parallelize),
      knob("cores", &SchedulePolicy::cores),
      knob("parallel_chunks_per_core", &SchedulePolicy::parallelChunksPerCore),
      knob("vectorize", &SchedulePolicy::vectorize),
      knob("vector_lanes", &SchedulePolicy::vectorLanes),
      knob("max_tile_vectors", &SchedulePolicy::maxTileVectors),
      knob("tile_rows", &SchedulePolicy::tileRows),
      knob("accumulator_registers", &SchedulePolicy::accumulatorRegisters),
      knob("split_above", &SchedulePolicy::splitAbove),
      knob("split_factor", &SchedulePolicy::splitFactor),
      knob("min_flat_row_width", &SchedulePolicy::minFlatRowWidth),
      knob("reduce_split_above", &SchedulePolicy::reduceSplitAbove),
      knob("reduce_tile_candidates", &SchedulePolicy::reduceTileCandidates),
      knob("reduce_slice_bytes", &SchedulePolicy::reduceSliceBytes),
      knob("prefetch_slices", &SchedulePolicy::prefetchSlices),
      knob("max_unrolled_taps", &SchedulePolicy::maxUnrolledTaps),
      knob("keep_padding_producers", &SchedulePolicy::keepPaddingProducers),
      knob("keep_shared_transcendentals", &SchedulePolicy::keepSharedTranscendentals),
      knob("padding_at_consumer", &SchedulePolicy::paddingAtConsumer),
      knob("partition_rows", &SchedulePolicy::partitionRows),
      knob("fuse_epilogues", &SchedulePolicy::fuseEpilogues),
      knob("pack_reused_input", &SchedulePolicy::packReusedInput),
      knob("pack_min_reuse", &SchedulePolicy::packMinReuse),
      knob("flat_epilogue_min_reduction", &SchedulePolicy::flatEpilogueMinReduction),
      knob("pack_in_tile_loop", &SchedulePolicy::packInTileLoop),
      knob("row_reductions", &SchedulePolicy::rowReductions),
      knob("packed_1x1_min_channels", &SchedulePolicy::packed1x1MinChannels),
      knob("packed_conv_min_channels", &SchedulePolicy::packedConvMinChannels),
      knob("winograd_tile", &SchedulePolicy::winogradTile),
      knob("winograd_min_tiles", &SchedulePolicy::winogradMinTiles),
  };
  return k;
}

} // namespace

SchedulePolicy SchedulePolicy::forMachine(const MachineModel& m) {
  SchedulePolicy p;
  p.parallelize = m.threads;
  p.cores = std::max(1, m.cores);
  p.vectorLanes = std::max(1, m.lanesF32);
  p.vectorize = m.lanesF32 > 1;
  // Three quarters of the registers (see accumulatorRegisters); at least
  // one, so a soft-float machine still gets a (1 x 1) tile.
  p.accumulatorRegisters = std::max(1, m.vectorRegisters * 3 / 4);
  if (!p.vectorize)
    p.tileRows = {4, 2, 1};
  if (m.l1dBytes > 0)
    p.reduceSliceBytes = std::max(2 * 1024, m.l1dBytes / 4);
  if (!m.fastScatter && p.vectorize)
    p.packedConvMinChannels = 16;
  if (p.vectorize)
    p.winogradTile = 4;
  if (m.l1dBytes == 0 && m.l2Bytes == 0) {
    p.reduceSplitAbove = 0;
    p.prefetchSlices = false;
    p.packReusedInput = false;
  }
  return p;
}

std::string SchedulePolicy::toJSON() const {
  Json j = Json::object();
  for (auto& k : knobs())
    j[k.name] = k.get(*this);
  return j.dump();
}

SchedulePolicy SchedulePolicy::withJSON(const std::string& text) const {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    throw Error(std::string("schedule policy JSON does not parse: ") + e.what());
  }
  if (!j.is_object())
    throw Error("schedule policy JSON must be an object {\"knob\": value, ...}");
  SchedulePolicy p = *this;
  for (auto& [key, v] : j.items()) {
    const Knob* k = nullptr;
    for (auto& x : knobs())
      if (key == x.name)
        k = &x;
    if (!k) {
      std::string names;
      for (auto& x : knobs())
        names += (names.empty() ? "" : ", ") + std::string(x.name);
      throw Error("schedule policy: unknown knob \"" + key + "\" (knobs: " + names + ")");
    }
    k->set(p, v);
  }
  if (p.cores < 1 || p.parallelChunksPerCore < 1 || p.vectorLanes < 1 || p.maxTileVectors < 1 ||
      p.accumulatorRegisters < 1 || p.splitAbove < 0 || p.splitFactor < 1 ||
      p.reduceSplitAbove < 0 || p.reduceSliceBytes < 1 || p.maxUnrolledTaps < 0 ||
      p.packMinReuse < 0)
    throw Error("schedule policy: counts must be positive (cores, lanes, registers, factors) "
                "and thresholds non-negative: " +
                p.toJSON());
  for (int r : p.tileRows)
    if (r < 1)
      throw Error("schedule policy: tile_rows must be positive");
  for (int r : p.reduceTileCandidates)
    if (r < 1)
      throw Error("schedule policy: reduce_tile_candidates must be positive");
  return p;
}

} // namespace unity::target
