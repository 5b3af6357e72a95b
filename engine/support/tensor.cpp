#include "engine/support/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/support/error.h"

namespace unity {

Tensor::Tensor(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  for (int64_t d : shape_)
    if (d < 0)
      throw Error("tensor shape " + shapeStr(shape_) + " has a negative dimension");
  storage_ = std::make_shared<TensorBytes>(nbytes());
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

template <class T> static T at(const void* p, int64_t i) { return static_cast<const T*>(p)[i]; }

double Tensor::getDouble(int64_t i) const {
  const void* p = data();
  using C = DataType::Code;
  switch (dtype_.code) {
  case C::Float:
    if (dtype_.bits == 64)
      return at<double>(p, i);
    if (dtype_.bits == 32)
      return at<float>(p, i);
    break;
  case C::Int:
    switch (dtype_.bits) {
    case 8:
      return at<int8_t>(p, i);
    case 16:
      return at<int16_t>(p, i);
    case 32:
      return at<int32_t>(p, i);
    case 64:
      return static_cast<double>(at<int64_t>(p, i));
    }
    break;
  case C::UInt:
    switch (dtype_.bits) {
    case 8:
      return at<uint8_t>(p, i);
    case 16:
      return at<uint16_t>(p, i);
    case 32:
      return at<uint32_t>(p, i);
    case 64:
      return static_cast<double>(at<uint64_t>(p, i));
    }
    break;
  case C::Bool:
    return at<uint8_t>(p, i) ? 1.0 : 0.0;
  default:
    break;
  }
  throw Error("tensor element access not supported for dtype " + dtype_.str());
}

template <class T> static void put(void* p, int64_t i, T v) { static_cast<T*>(p)[i] = v; }

/// v as the integer type T without undefined behaviour: truncated toward
/// zero, then wrapped modulo 2^bits (as numpy's astype and ONNX Runtime's
/// Cast do for in-range doubles: -1.5 -> uint16 65535); NaN gives 0 and
/// values beyond the 64-bit range saturate. A plain static_cast of an
/// out-of-range double is undefined behaviour (found by onnx_import_fuzz:
/// a constant-folded Cast of -1.5 to uint16).
template <class T> static T toIntegral(double v) {
  if (std::isnan(v))
    return T(0);
  if (v >= 0) {
    if (v >= 18446744073709551616.0) // 2^64
      return std::numeric_limits<T>::max();
    return static_cast<T>(static_cast<uint64_t>(v));
  }
  if (v < -9223372036854775808.0) // -2^63
    return std::numeric_limits<T>::min();
  return static_cast<T>(static_cast<int64_t>(v));
}

void Tensor::setDouble(int64_t i, double v) {
  void* p = mutableData();
  using C = DataType::Code;
  switch (dtype_.code) {
  case C::Float:
    if (dtype_.bits == 64)
      return put<double>(p, i, v);
    if (dtype_.bits == 32)
      return put<float>(p, i, static_cast<float>(v));
    break;
  case C::Int:
    switch (dtype_.bits) {
    case 8:
      return put<int8_t>(p, i, toIntegral<int8_t>(v));
    case 16:
      return put<int16_t>(p, i, toIntegral<int16_t>(v));
    case 32:
      return put<int32_t>(p, i, toIntegral<int32_t>(v));
    case 64:
      return put<int64_t>(p, i, toIntegral<int64_t>(v));
    }
    break;
  case C::UInt:
    switch (dtype_.bits) {
    case 8:
      return put<uint8_t>(p, i, toIntegral<uint8_t>(v));
    case 16:
      return put<uint16_t>(p, i, toIntegral<uint16_t>(v));
    case 32:
      return put<uint32_t>(p, i, toIntegral<uint32_t>(v));
    case 64:
      return put<uint64_t>(p, i, toIntegral<uint64_t>(v));
    }
    break;
  case C::Bool:
    return put<uint8_t>(p, i, v != 0.0);
  default:
    break;
  }
  throw Error("tensor element access not supported for dtype " + dtype_.str());
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes())
    std::memcpy(t.mutableData(), data(), nbytes());
  return t;
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  if (t.numel() != numel())
    throw Error("cannot reshape tensor of shape " + shapeStr(shape_) + " to " + shapeStr(t.shape_));
  return t;
}

Tensor Tensor::view(DataType dtype, std::vector<int64_t> shape,
                    std::shared_ptr<TensorBytes> storage) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  for (int64_t d : t.shape_)
    if (d < 0)
      throw Error("tensor shape " + shapeStr(t.shape_) + " has a negative dimension");
  if (!storage || storage->size() < t.nbytes())
    throw Error("tensor view of " + std::to_string(t.nbytes()) + " bytes over a smaller storage");
  t.storage_ = std::move(storage);
  return t;
}

Tensor Tensor::fromFloats(std::vector<int64_t> shape, std::span<const float> values) {
  Tensor t(DataType::Float32(), std::move(shape));
  if (static_cast<size_t>(t.numel()) != values.size())
    throw Error("fromFloats: " + std::to_string(values.size()) + " values for shape " +
                shapeStr(t.shape()));
  if (!values.empty())
    std::memcpy(t.mutableData(), values.data(), values.size_bytes());
  return t;
}

std::string Tensor::shapeStr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

} // namespace unity
