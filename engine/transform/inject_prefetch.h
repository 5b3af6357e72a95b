#pragma once
// InjectPrefetch: software prefetches for a loop annotated
// "prefetch_next" = <buffer name> (DefaultSchedule puts it on the slice
// loop of a packed convolution weight). Each iteration of such a loop L
// reads one slice of the buffer, several times (once per output row tile);
// the next slice is the next contiguous run of it, which the hardware
// prefetcher does not fetch ahead across the pause while the later row
// tiles reuse the current one from L1. At the start of the body of the
// anchor loop (the outermost loop under L that the buffer's addresses
// depend on: the slice's channels) the pass inserts prefetch(B[...]) of
// every cache line one anchor iteration reads, with L's variable advanced
// by one iteration (clamped to its last one, so every address stays in the
// buffer), under a test that spreads them over the loops in between (the
// output rows, which all reuse the slice): row r prefetches the anchor
// iterations that are r modulo the row count. Measured on six 512-channel
// 3x3 layers with cold weights: 1.9-2.3 ms a layer against 2.5-2.7
// without. Prefetching from inside the register tile instead put a branch
// between its unrolled taps, which stopped LLVM from sharing their
// broadcasts (8-10 % slower on weights already in cache).
// Runs after LowerBlocks (the loads name loop variables).
#include "engine/ir/tir.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// The loop annotation InjectPrefetch acts on; its value names the buffer.
inline constexpr const char* kPrefetchNextAnnotation = "prefetch_next";

ir::PrimFuncRef injectPrefetch(const ir::PrimFuncRef& f);

} // namespace unity::transform
