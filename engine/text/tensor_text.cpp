#include "engine/text/tensor_text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace unity::text {

static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(const void* data, size_t size) {
  auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = uint32_t(p[i]) << 16;
    if (i + 1 < size)
      v |= uint32_t(p[i + 1]) << 8;
    if (i + 2 < size)
      v |= p[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < size ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::optional<std::vector<std::byte>> base64Decode(std::string_view s) {
  if (s.size() % 4 != 0)
    return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  std::vector<std::byte> out;
  out.reserve(s.size() / 4 * 3);
  for (size_t i = 0; i < s.size(); i += 4) {
    int pad = 0;
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j) {
      char c = s[i + j];
      if (c == '=') {
        // Padding only at the very end, only in the last two places.
        if (i + 4 != s.size() || j < 2)
          return std::nullopt;
        ++pad;
        v <<= 6;
        continue;
      }
      int d = value(c);
      if (d < 0 || pad)
        return std::nullopt;
      v = (v << 6) | uint32_t(d);
    }
    out.push_back(std::byte((v >> 16) & 255));
    if (pad < 2)
      out.push_back(std::byte((v >> 8) & 255));
    if (pad < 1)
      out.push_back(std::byte(v & 255));
  }
  return out;
}

static bool inlineDtype(DataType t) {
  if (t.lanes != 1)
    return false;
  if (t.isFloat())
    return t.bits == 32 || t.bits == 64;
  return t.isIntegral() || t.isBool();
}

bool canInlineConstant(const Tensor& t) {
  if (!t.defined() || !inlineDtype(t.dtype()) || t.numel() > 16)
    return false;
  for (int64_t d : t.shape())
    if (d <= 0)
      return false;
  if (t.dtype().isFloat())
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(t.getDouble(i)))
        return false;
  return true;
}

template <class T> static T load(const Tensor& t, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(t.data()) + i * sizeof(T), sizeof(T));
  return v;
}

std::string formatElement(const Tensor& t, int64_t i) {
  DataType d = t.dtype();
  if (d.isBool())
    return load<uint8_t>(t, i) ? "True" : "False";
  if (d.isFloat()) {
    if (d.bits == 32)
      return fmt::format("{}", load<float>(t, i));
    return fmt::format("{}", load<double>(t, i));
  }
  if (d.isUInt() && d.bits == 64)
    return std::to_string(load<uint64_t>(t, i));
  if (d.isIntegral() && d.bits == 64)
    return std::to_string(load<int64_t>(t, i));
  return fmt::format("{}", t.getDouble(i)); // narrow ints: exact in a double
}

template <class T> static void storeAs(Tensor& t, int64_t i, T v) {
  std::memcpy(static_cast<char*>(t.mutableData()) + i * sizeof(T), &v, sizeof(T));
}

template <class T> static bool parseNum(const std::string& s, T& out) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e;
}

bool storeElement(Tensor& t, int64_t i, const std::string& text, bool isFloatLiteral) {
  DataType d = t.dtype();
  if (d.isBool()) {
    if (text == "True" || text == "1")
      return storeAs<uint8_t>(t, i, 1), true;
    if (text == "False" || text == "0")
      return storeAs<uint8_t>(t, i, 0), true;
    return false;
  }
  if (text == "True" || text == "False")
    return false;
  if (d.isFloat()) {
    if (d.bits == 32) {
      float f;
      if (!parseNum(text, f))
        return false;
      return storeAs(t, i, f), true;
    }
    double v;
    if (!parseNum(text, v))
      return false;
    return storeAs(t, i, v), true;
  }
  if (isFloatLiteral)
    return false;
  if (d.isUInt()) {
    uint64_t v;
    if (!parseNum(text, v))
      return false;
    if (d.bits < 64 && v >> d.bits)
      return false;
    switch (d.bits) {
    case 8:
      return storeAs<uint8_t>(t, i, uint8_t(v)), true;
    case 16:
      return storeAs<uint16_t>(t, i, uint16_t(v)), true;
    case 32:
      return storeAs<uint32_t>(t, i, uint32_t(v)), true;
    default:
      return storeAs<uint64_t>(t, i, v), true;
    }
  }
  int64_t v;
  if (!parseNum(text, v))
    return false;
  int64_t lo = d.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (d.bits - 1));
  int64_t hi =
      d.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (d.bits - 1)) - 1;
  if (v < lo || v > hi)
    return false;
  switch (d.bits) {
  case 8:
    return storeAs<int8_t>(t, i, int8_t(v)), true;
  case 16:
    return storeAs<int16_t>(t, i, int16_t(v)), true;
  case 32:
    return storeAs<int32_t>(t, i, int32_t(v)), true;
  default:
    return storeAs<int64_t>(t, i, v), true;
  }
}

} // namespace unity::text
