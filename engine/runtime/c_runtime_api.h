#pragma once
// The C entry points that generated kernels call. They have C linkage and
// fixed, simple signatures so that the LLVM codegen can declare them without
// knowing anything about C++; the JIT resolves them to these definitions by
// address (see engine/codegen/llvm_jit.cpp), so they need not be exported
// from the executable.
#include <cstdint>

extern "C" {

/// Body of an outlined parallel loop: runs iterations [begin, end) of the
/// loop and returns 0, or a nonzero error code.
typedef int32_t (*UnityParallelBody)(void* closure, int64_t begin, int64_t end);

/// Runs body over [0, extent) split into static contiguous chunks, one per
/// worker of the global thread pool (engine/runtime/thread_pool.h). A call
/// made from inside a parallel body runs serially on the calling thread.
/// Returns 0, or the first nonzero code a chunk returned.
int32_t unity_parallel_for(UnityParallelBody body, void* closure, int64_t extent);

/// Heap storage for kernel-local buffers too large (or too dynamic) for the
/// stack. 64-byte aligned; returns null on failure (bytes <= 0 yields a
/// valid, unique pointer).
void* unity_alloc(int64_t bytes);
void unity_free(void* ptr);
}
