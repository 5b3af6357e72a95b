#include "engine/runtime/c_runtime_api.h"

#include <cstdlib>

extern "C" {

void* unity_alloc(int64_t bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  constexpr int64_t kAlign = 64;
  int64_t rounded = bytes <= 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
  return std::aligned_alloc(kAlign, static_cast<size_t>(rounded));
}

void unity_free(void* ptr) { std::free(ptr); }
}
