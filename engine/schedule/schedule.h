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
};

class Schedule {
public:
  explicit Schedule(ir::PrimFuncRef func);

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

  /// Applies a trace to func (every instruction, in order).
  static Schedule replay(ir::PrimFuncRef func, const Trace& trace);

private:
  void apply(const Instruction& inst);
  LoopLocator locate(const LoopRV& loop) const;
  LoopRV resolve(const LoopLocator& l) const;
  void setBody(ir::Stmt body);

  ir::PrimFuncRef func_;
  Trace trace_;
};

} // namespace unity::schedule
