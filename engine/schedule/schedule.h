#pragma once
// TensorIR schedule primitives (TVM's tir.Schedule, reduced to what the
// default schedule and the tuner need).
//
// A Schedule owns the current state of one PrimFunc. Every primitive checks
// that it is legal, builds a new PrimFunc (the IR is immutable: untouched
// subtrees are shared with the previous state) and appends one Instruction
// to the Trace. Handles:
//  - a block is named by its name (block names are unique in a function);
//  - a loop is named by its loop variable (a node: identity, not the name).
//    Primitives keep the variables of the loops they do not replace, so a
//    LoopRV stays valid until a primitive removes that loop (split, fuse).
// The trace stores loops as (block, index in getLoops(block)) at the time of
// the call, so it replays on a fresh copy of the function and serializes to
// JSON (see trace.h).
//
// Splits are exact or predicated: when the product of the factors exceeds
// the extent, every block under the loop gets the predicate
// `original index < extent` (TVM's behaviour); only constant extents split.
// splitWithTail splits any extent into a predicate-free main nest and a
// remainder loop (a copy of the body), for symbolic extents.
//
// Sampling (MetaSchedule style): samplePerfectTile, sampleCategorical and
// sampleComputeLocation draw from the schedule's seeded random engine and
// record their decision; the values they return (ExprRV, LoopRV) remember
// which instruction produced them, so a split or annotate that uses them
// records a reference and follows a changed decision on replay.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/tir.h"
#include "engine/schedule/trace.h"

namespace unity::schedule {

struct BlockRV {
  std::string name;
};

struct LoopRV {
  ir::Ref<ir::PrimVar> var; // the loop variable of the For this handle names
  /// >= 0: the output of the sample_compute_location instruction with this
  /// trace index; var is then null when the sampled location is the root.
  int sample = -1;
  bool isRoot() const { return !var; }
};

/// An integer produced by a sampling instruction (value, trace index of the
/// instruction, output number) or a constant (inst = -1).
using ExprRV = ValueRef;

class Schedule {
public:
  static constexpr uint64_t kDefaultSeed = 42;
  /// `seed` seeds the random engine of the sampling instructions (a
  /// SplitMix64 stream: the same seed samples the same decisions on every
  /// machine).
  explicit Schedule(ir::PrimFuncRef func, uint64_t seed = kDefaultSeed);
  void setSeed(uint64_t seed) { rng_ = seed; }

  const ir::PrimFuncRef& func() const { return func_; }
  const Trace& trace() const { return trace_; }

  // ---- queries (not recorded) ----
  /// Throws when no block or more than one block has this name.
  BlockRV getBlock(const std::string& name) const;
  /// Every block in pre-order except blocks without iteration variables
  /// and bindings (the "root" block of te functions).
  std::vector<BlockRV> getBlocks() const;
  /// The loops around a block, outermost first, up to the enclosing block.
  std::vector<LoopRV> getLoops(const BlockRV& block) const;
  /// The blocks under a loop (pre-order), the For statement of a loop, a block.
  std::vector<BlockRV> getBlocksUnder(const LoopRV& loop) const;
  ir::Ref<ir::For> loop(const LoopRV& loop) const;
  ir::Ref<ir::Block> block(const BlockRV& block) const;

  // ---- loop transformations ----
  /// Splits a constant-extent loop into len(factors) nested loops. At most
  /// one factor may be -1 (inferred as ceil(extent / product of the others)).
  /// Returns the new loops, outermost first.
  std::vector<LoopRV> split(const LoopRV& loop, std::vector<int64_t> factors);
  /// The same with factors that may be sampled (samplePerfectTile's
  /// outputs): the trace refers to the sampling instruction. (A span so
  /// that a braced list of integers still means the overload above.)
  std::vector<LoopRV> split(const LoopRV& loop, std::span<const ExprRV> factors);
  /// Splits a loop of any extent E (symbolic included) by `factor` without
  /// predicates: a main nest {outer < E / factor, inner < factor} and, unless
  /// E is a constant multiple of factor, a tail loop over the E % factor
  /// remaining iterations after it, holding a copy of the body whose blocks
  /// are renamed "<name>_tail". Returns {outer, inner} or {outer, inner, tail}.
  std::vector<LoopRV> splitWithTail(const LoopRV& loop, int64_t factor);
  /// Fuses perfectly nested loops (each the whole body of the previous one,
  /// outermost first) into one loop.
  LoopRV fuse(const std::vector<LoopRV>& loops);
  /// Reorders loops of one perfectly nested chain: the given loops take the
  /// chain positions they occupy, in the given order; loops of the chain not
  /// listed stay where they are.
  void reorder(const std::vector<LoopRV>& loops);
  /// Loop kinds. parallel and vectorize require that the loop variable feeds
  /// only spatial block iterators.
  void parallel(const LoopRV& loop);
  void vectorize(const LoopRV& loop);
  void unroll(const LoopRV& loop);

  // ---- block transformations ----
  /// Inlines an elementwise/injective producer into every reader: its loads
  /// become the producer's expression, its loop nest and the allocation of
  /// its (intermediate) buffer are removed.
  void computeInline(const BlockRV& block);
  /// Moves the init of a reduction block into a new block "<name>_init" in
  /// its own loop nest placed right before `loop` (one of the block's
  /// loops). The nest copies the loops from `loop` inwards that feed spatial
  /// iterators. Returns the init block.
  BlockRV decomposeReduction(const BlockRV& block, const LoopRV& loop);
  /// Factors the reduction of a block over `loop` (one of its loops that
  /// feeds only reduction iterators, typically the inner part of a split
  /// reduction loop), TVM's rfactor: a block "<name>_rf" in the original
  /// nest accumulates partial results into a new buffer "<buffer>_rf" that
  /// has the loop's extent as an extra dimension at `factorAxis` (0..ndim;
  /// negative counts from the end, -1 = last), with `loop` now a spatial
  /// loop of it; the block itself becomes a write-back reduction over that
  /// dimension in a new nest right after the nest of the block's first loop
  /// that does not feed only spatial iterators (inside the leading row
  /// loops; after the whole nest when the outermost loop reduces). Needs a single
  /// store `C[idx] = C[idx] op x` with op in add/mul/max/min and an init, no
  /// predicate. Returns the "<name>_rf" block.
  BlockRV rfactor(const LoopRV& loop, int factorAxis);

  // ---- annotations (stored in the For / Block annotations) ----
  /// Sets `key` on the loop or block (replacing an earlier value). Values:
  /// bool, integer, float or string; an ExprRV records a reference to the
  /// sampling instruction that produced it.
  void annotate(const LoopRV& loop, const std::string& key, const ir::AttrValue& value);
  void annotate(const BlockRV& block, const std::string& key, const ir::AttrValue& value);
  void annotate(const LoopRV& loop, const std::string& key, const ExprRV& value);
  void annotate(const BlockRV& block, const std::string& key, const ExprRV& value);

  // ---- sampling (decisions recorded in the trace) ----
  /// n positive factors of the loop's constant extent (their product is the
  /// extent), the innermost at most maxInnermostFactor. Outermost first.
  std::vector<ExprRV> samplePerfectTile(const LoopRV& loop, int n, int64_t maxInnermostFactor);
  /// One of the candidates, with the given (unnormalized, non-negative)
  /// probabilities.
  ExprRV sampleCategorical(const std::vector<int64_t>& candidates,
                           const std::vector<double>& probabilities);
  /// A loop to compute the block at, uniformly among
  /// computeLocationCandidates(block) and the root (LoopRV::isRoot: leave
  /// the block where it is).
  LoopRV sampleComputeLocation(const BlockRV& block);
  /// The loops around the block's consumers (the blocks reading a buffer it
  /// writes) that enclose all of them but not the block itself, outermost
  /// first.
  std::vector<LoopRV> computeLocationCandidates(const BlockRV& block) const;
  /// The value of an ExprRV in the current state (its sampled value).
  int64_t value(const ExprRV& v) const;

  // ---- compute location and caches (compute_primitives.cpp) ----
  /// Adds a block "<buffer>_<scope>" copying the whole buffer of
  /// block.reads[readBufferIndex] into a new buffer of `scope` ("global" or
  /// "local"), placed right before the block's loop nest; the block reads
  /// the copy. Returns the copy block (computeAt shrinks it to a tile).
  BlockRV cacheRead(const BlockRV& block, int readBufferIndex, const std::string& scope);
  /// The block writes a new buffer of `scope` instead of
  /// block.writes[writeBufferIndex]; a block "<buffer>_<scope>" after its
  /// loop nest copies it into the original. Returns the copy block.
  BlockRV cacheWrite(const BlockRV& block, int writeBufferIndex, const std::string& scope);
  /// Moves a producer (storing T[v0..vn] at its spatial iterators) to the
  /// start of `loop`'s body, computing only the region of T that the blocks
  /// under the loop read in one iteration (constant extents, or one row of
  /// a symbolic length).
  void computeAt(const BlockRV& block, const LoopRV& loop);
  /// Moves a spatial consumer to the end of `loop`'s body, computing the
  /// elements whose reads of its producer's buffer fall in the region
  /// written in one iteration of the loop (after the producer's reduction
  /// over it completes).
  void reverseComputeAt(const BlockRV& block, const LoopRV& loop);
  /// Inlines an injective consumer into its (non-reduction) producer: the
  /// producer stores the consumer's expression into the consumer's output,
  /// and the intermediate buffer goes.
  void reverseComputeInline(const BlockRV& block);

  // ---- layout transformations (layout_primitives.cpp) ----
  /// Packs `buffer`, a parameter that `block` reads and no block writes
  /// (constant shape, rank >= 2), into panels of `panelWidth` along its
  /// last dimension: a new root-allocated buffer "<buffer>_packed" of shape
  /// [ceil(n / W), d0, .., W], filled by a new block "<buffer>_pack" whose
  /// nest runs first in the function; the block's loads X[.., j] become
  /// X_packed[j // W, .., j % W] (padding lanes hold zero). Returns the
  /// packing block. Trace kind `pack_layout`, decision [parameter index, W].
  BlockRV packLayout(const BlockRV& block, const std::string& buffer, int64_t panelWidth);
  /// The same with the copy placed first in the body of `at`, a loop around
  /// the block (not vectorized): each iteration copies only the panel the
  /// block reads in it (which `at` and the loops outside must fix) and the
  /// indices they fix; the other axes whole. A parallel loop whose
  /// iterations read distinct panels thus packs each panel once, on the
  /// thread that uses it, with no parallel region of its own.
  BlockRV packLayout(const BlockRV& block, const std::string& buffer, int64_t panelWidth,
                     const LoopRV& at);
  /// Packs along `axis` (0-based; -1 = the last) instead: shape
  /// [ceil(d_axis / W), the other extents in order, W]; for an axis other
  /// than the last, W may equal its extent (one panel, still reordered so
  /// the axis is innermost). Decision [parameter index, W, axis], the axis
  /// only when it is not the last. `at` as above (none: before everything).
  BlockRV packLayout(const BlockRV& block, const std::string& buffer, int64_t panelWidth, int axis,
                     const LoopRV& at = {});

  /// Applies a trace to func (every instruction, in order); sampling
  /// instructions take their recorded decisions, and throw unity::Error
  /// naming the instruction when a decision is illegal for the function.
  static Schedule replay(ir::PrimFuncRef func, const Trace& trace);
  /// Replays the instructions of a trace but draws every sampling decision
  /// afresh from a random engine seeded with `seed` (the recorded decisions
  /// are ignored): a new point of the same design space. Throws like
  /// replay when an instruction does not apply to what was drawn.
  static Schedule resample(ir::PrimFuncRef func, const Trace& trace, uint64_t seed);

private:
  static Schedule replayImpl(ir::PrimFuncRef func, const Trace& trace, uint64_t seed,
                             bool resample);
  void apply(const Instruction& inst);
  /// The instructions of sampling.cpp and reduction_primitives.cpp; false
  /// for the other kinds.
  bool applyTuning(const Instruction& inst, const std::vector<LoopRV>& loops);
  std::vector<LoopRV> splitImpl(const LoopRV& loop, std::vector<int64_t> factors,
                                std::vector<ValueRef> inputs);
  void annotateImpl(const LoopRV* loop, const BlockRV* block, const std::string& key,
                    const ir::AttrValue& value, std::vector<ValueRef> inputs);
  std::vector<ExprRV> perfectTile(const LoopRV& loop, int n, int64_t maxInnermost,
                                  const std::vector<int64_t>* decision);
  ExprRV categorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                     const std::vector<int64_t>* decision);
  LoopRV computeLocation(const BlockRV& block, const std::vector<int64_t>* decision);
  /// A reference for the trace (value 0), checked against this trace.
  ValueRef traceRef(const ExprRV& v) const;
  uint64_t nextRandom();
  LoopLocator locate(const LoopRV& loop) const;
  LoopRV resolve(const LoopLocator& l) const;
  void setBody(ir::Stmt body);

  ir::PrimFuncRef func_;
  Trace trace_;
  uint64_t rng_;
  bool resampling_ = false;            // apply() draws decisions instead of taking them
  std::map<int, LoopRV> sampledLoops_; // sample_compute_location outputs by trace index
};

} // namespace unity::schedule
