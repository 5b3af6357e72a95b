#pragma once
// InjectPrefetch: software prefetches for a loop annotated
// "prefetch_next" = <buffer name> (DefaultSchedule puts it on the slice
// loop of a packed convolution weight). Each iteration of such a loop L
// reads one slice of the buffer, several times (once per output row tile);
// the next slice is the next contiguous run of it, which the hardware
// prefetcher does not fetch ahead across the pause while the later row
// tiles reuse the current one from L1. Before each register tile under L
// (the outermost unrolled or vectorized loop holding loads of the buffer)
// the pass inserts prefetch(B[...]) of the elements that tile will read,
// with L's variable advanced by one iteration (clamped to its last one, so
// every address stays in the buffer), one per cache line along the
// vectorized loop. Runs after LowerBlocks (the loads name loop variables).
#include "engine/ir/tir.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// The loop annotation InjectPrefetch acts on; its value names the buffer.
inline constexpr const char* kPrefetchNextAnnotation = "prefetch_next";

ir::PrimFuncRef injectPrefetch(const ir::PrimFuncRef& f);

} // namespace unity::transform
