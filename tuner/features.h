#pragma once
// What the cost model sees of a schedule: a fixed-length vector of numbers
// computed from a scheduled tensor function (the output of
// schedule::Schedule or DefaultSchedule, before LowerBlocks), and the
// floating-point operation count of a tensor function.
//
// The features follow Ansor's and MetaSchedule's per-store features, but are
// aggregated per function, because our XGBoost model scores one vector per
// candidate: the store that does the most work (the "main" store: the
// reduction of a matmul or convolution, the only store of an elementwise
// kernel) is described in detail, every other store (reduction inits,
// padding copies, epilogues) in sums. For each store the walk knows its loop
// nest (extents, kinds), how often it runs, its arithmetic, and for each
// buffer it touches: the bytes touched inside each loop level, the stride
// of each loop, and from those a cache-traffic estimate (the data a loop
// level touches is loaded once per iteration of the loops outside the
// outermost level whose data fits the cache). Counts are log-scaled
// (log2(1 + x)), so that the trees split on ratios, not on absolute sizes.
//
// Symbolic extents (a sequence length `n`) take a fixed value,
// kDefaultSymbolicExtent unless the options say otherwise: the features and
// the FLOP count then describe the function at that size.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/tir.h"

namespace unity::tuner {

/// The value a free shape variable takes when counting work or bytes.
inline constexpr int64_t kDefaultSymbolicExtent = 128;

/// Floating-point operations of one call of f: every float +, -, *, /, min,
/// max, comparison and math intrinsic (exp, sqrt, ...) counts one, so a
/// multiply-add counts two; each statement's count is multiplied by the trip
/// counts of the loops around it (a reduction's init runs once per output).
/// Integer index arithmetic, selects, casts, loads and stores count zero.
/// The count is the work the loops do: a predicated split counts its padded
/// iterations, the "wide" convolution form its extra columns. Symbolic
/// extents take `symbolicExtent`. Throws unity::Error for a null function.
double estimateFlops(const ir::PrimFuncRef& f, int64_t symbolicExtent = kDefaultSymbolicExtent);

struct FeatureOptions {
  /// Threads the kernel will run with (parallel chunks are compared with it).
  int cores = 1;
  /// The value of free shape variables.
  int64_t symbolicExtent = kDefaultSymbolicExtent;
};

/// The features of a scheduled tensor function: featureCount() finite
/// floats, named by featureNames() (same order). Deterministic: the same
/// function gives the same vector on every machine. Throws unity::Error for
/// a null function.
std::vector<float> extractFeatures(const ir::PrimFuncRef& scheduled,
                                   const FeatureOptions& options = {});

/// The names of the features, in extractFeatures' order.
const std::vector<std::string>& featureNames();
size_t featureCount();

} // namespace unity::tuner
