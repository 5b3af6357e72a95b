#pragma once
// A dense, row-major, host tensor: dtype + shape + shared bytes. Used for
// graph-level constants and by the runtime. Copies share the storage (data is
// immutable once it is inside the IR).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "engine/support/dtype.h"

namespace unity {

/// An allocator that places every block on a cache-line boundary. The
/// kernels load and store whole vectors (64 bytes with AVX-512) at offsets
/// that are multiples of the vector from a tensor's start; with operator
/// new's 16-byte alignment (and glibc's mmap-backed large blocks, which start
/// 16 bytes into a page) each such access straddled two cache lines.
template <class T> struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::size_t kAlign = 64;
  CacheLineAllocator() = default;
  template <class U> CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kAlign}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ::operator delete (p, n * sizeof(T), std::align_val_t{kAlign});
  }
  template <class U> bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
};

/// The storage of tensors: bytes starting on a cache line.
using TensorBytes = std::vector<std::byte, CacheLineAllocator<std::byte>>;

class Tensor {
public:
  Tensor() = default;
  /// Zero-filled tensor of the given type and shape.
  Tensor(DataType dtype, std::vector<int64_t> shape);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_.bytes(); }
  bool defined() const { return storage_ != nullptr; }

  const void* data() const { return storage_ ? storage_->data() : nullptr; }
  void* mutableData() { return storage_ ? storage_->data() : nullptr; }
  template <class T> const T* dataAs() const { return static_cast<const T*>(data()); }
  template <class T> T* mutableDataAs() { return static_cast<T*>(mutableData()); }

  /// Element i (flat index) converted to double, and back; for tests,
  /// printing and the reference evaluator.
  double getDouble(int64_t i) const;
  void setDouble(int64_t i, double v);

  /// A deep copy with its own storage.
  Tensor clone() const;
  /// Same storage, new shape with the same element count.
  Tensor reshaped(std::vector<int64_t> shape) const;

  /// A tensor over existing storage (which must hold at least nbytes()).
  /// The executor uses it to place tensors in planned memory slots.
  static Tensor view(DataType dtype, std::vector<int64_t> shape,
                     std::shared_ptr<TensorBytes> storage);
  const std::shared_ptr<TensorBytes>& storage() const { return storage_; }

  static Tensor fromFloats(std::vector<int64_t> shape, std::span<const float> values);
  static std::string shapeStr(const std::vector<int64_t>& shape);

private:
  DataType dtype_;
  std::vector<int64_t> shape_;
  std::shared_ptr<TensorBytes> storage_;
};

} // namespace unity
