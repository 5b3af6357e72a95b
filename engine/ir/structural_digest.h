#pragma once
// Structural hashing of many nodes that share big constants.
//
// The bindings of a model's graph read the same few weights over and over (a
// 24-layer transformer's 4,600 expert matmuls read two 32 KB tensors), and
// ir::structuralHash hashes a constant's bytes every time it meets it: most
// of the time of extracting a 50,000-node graph (viz::extractGraph keys
// every binding by its structure). StructuralHasher hashes each byte string
// once and lets its digest stand for it in the stream.
//
// Its values are therefore not ir::structuralHash's (which the tuning
// database stores): use them only to compare nodes hashed in the same
// process, by any StructuralHasher. They keep the guarantee that matters:
// structurally equal nodes hash equal (equal bytes give equal digests,
// wherever they live). The digests are cached by the address and length of
// the bytes, so a hasher must not outlive the nodes it hashed (keep it for
// one pass over a module that stays alive).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "engine/ir/node.h"

namespace unity::ir {

class StructuralHasher {
public:
  /// A hash of `n` consistent with structuralEqual (see above).
  uint64_t operator()(const Ref<Node>& n);
  /// Byte strings hashed so far (each once).
  size_t digests() const { return digests_.size(); }
  /// The digest of the `size` bytes at `data`, computed once per address.
  uint64_t digest(const void* data, size_t size);

  /// Byte strings shorter than this are hashed in place (a lookup would
  /// cost about as much as hashing them).
  static constexpr size_t kDigestFrom = 256;

private:
  struct Bytes {
    const void* data;
    size_t size;
    bool operator==(const Bytes& o) const { return data == o.data && size == o.size; }
  };
  struct BytesHash {
    size_t operator()(const Bytes& b) const {
      return std::hash<const void*>()(b.data) ^ (b.size * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::unordered_map<Bytes, uint64_t, BytesHash> digests_;
};

} // namespace unity::ir
