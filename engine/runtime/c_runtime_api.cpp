#include "engine/runtime/c_runtime_api.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int64_t kAlign = 64;
/// Each block starts with a header of one alignment unit holding its size,
/// so unity_free knows what it frees; the caller's pointer follows it.
constexpr int64_t kHeader = kAlign;

/// The blocks of at least kMinCachedBytes a thread freed last, kept for the
/// next unity_alloc of the same size instead of going back to malloc. A
/// kernel's temporaries have the same sizes at every call, and glibc serves
/// blocks that large from fresh pages (mmap, or a heap it trimmed at the
/// last free): every call page-faulted its temporaries in again. Measured
/// on MobileNetV2's stem alone (`bench_onnx --profile`, five processes):
/// 0.42-1.07 ms a call, with 33-365 page faults a call in the slow ones
/// and none in the fast. At most kMaxCachedBlocks blocks and
/// kMaxCachedBytes a thread; the oldest go back to malloc first.
constexpr int64_t kMinCachedBytes = 128 * 1024;
constexpr size_t kMaxCachedBlocks = 16;
constexpr int64_t kMaxCachedBytes = 64 * 1024 * 1024;

struct BlockCache {
  struct Block {
    void* base;
    int64_t bytes;
  };
  std::vector<Block> blocks; // oldest first
  int64_t held = 0;
  // Reserved up front: give() never allocates, so unity_free (called from
  // generated code, through a C frame) cannot throw.
  BlockCache() { blocks.reserve(kMaxCachedBlocks); }
  ~BlockCache() {
    for (auto& b : blocks)
      std::free(b.base);
  }
  void* take(int64_t bytes) {
    for (size_t i = blocks.size(); i-- > 0;)
      if (blocks[i].bytes == bytes) {
        void* base = blocks[i].base;
        held -= bytes;
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        return base;
      }
    return nullptr;
  }
  void give(void* base, int64_t bytes) {
    if (bytes > kMaxCachedBytes) {
      std::free(base);
      return;
    }
    while (!blocks.empty() &&
           (blocks.size() >= kMaxCachedBlocks || held + bytes > kMaxCachedBytes)) {
      std::free(blocks.front().base);
      held -= blocks.front().bytes;
      blocks.erase(blocks.begin());
    }
    blocks.push_back({base, bytes});
    held += bytes;
  }
};

thread_local BlockCache gCache;

} // namespace

extern "C" {

void* unity_alloc(int64_t bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  int64_t rounded = bytes <= 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
  int64_t total = rounded + kHeader;
  void* base = total >= kMinCachedBytes ? gCache.take(total) : nullptr;
  if (!base)
    base = std::aligned_alloc(kAlign, static_cast<size_t>(total));
  if (!base)
    return nullptr;
  std::memcpy(base, &total, sizeof total);
  return static_cast<char*>(base) + kHeader;
}

void unity_free(void* ptr) {
  if (!ptr)
    return;
  void* base = static_cast<char*>(ptr) - kHeader;
  int64_t total;
  std::memcpy(&total, base, sizeof total);
  if (total >= kMinCachedBytes)
    gCache.give(base, total);
  else
    std::free(base);
}
}
