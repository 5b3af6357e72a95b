#pragma once
// Scalar element types shared by both IR levels, tensors and codegen.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace unity {

/// A scalar (or short vector) type: code + bits + lanes, printed the TVM way
/// ("float32", "int64", "bool", "float32x8", "handle"). `void` is the type of
/// unknown dtype in struct info.
struct DataType {
  enum class Code : uint8_t { Int, UInt, Float, Bool, Handle, Void };
  Code code = Code::Void;
  uint8_t bits = 0;
  uint16_t lanes = 1;

  constexpr DataType() = default;
  constexpr DataType(Code c, int b, int l = 1)
      : code(c), bits(static_cast<uint8_t>(b)), lanes(static_cast<uint16_t>(l)) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {Code::Int, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {Code::UInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {Code::Float, bits, lanes}; }
  static constexpr DataType Bool(int lanes = 1) { return {Code::Bool, 1, lanes}; }
  static constexpr DataType Handle() { return {Code::Handle, 64, 1}; }
  static constexpr DataType Void() { return {}; }
  static constexpr DataType Float32() { return Float(32); }
  static constexpr DataType Int64() { return Int(64); }
  static constexpr DataType Int32() { return Int(32); }

  bool isInt() const { return code == Code::Int; }
  bool isUInt() const { return code == Code::UInt; }
  bool isIntegral() const { return code == Code::Int || code == Code::UInt; }
  bool isFloat() const { return code == Code::Float; }
  bool isBool() const { return code == Code::Bool; }
  bool isHandle() const { return code == Code::Handle; }
  bool isVoid() const { return code == Code::Void; }
  bool isScalar() const { return lanes == 1; }
  DataType element() const { return {code, bits, 1}; }
  DataType withLanes(int l) const { return {code, bits, l}; }
  /// Storage size of one element in bytes (bool is stored as one byte).
  int bytes() const { return isBool() ? lanes : (bits * lanes + 7) / 8; }

  std::string str() const;
  /// Parses "float32", "int8", "bool", "float32x4", "handle", "void";
  /// returns nullopt for anything else.
  static std::optional<DataType> parse(std::string_view s);

  friend bool operator==(const DataType&, const DataType&) = default;
};

} // namespace unity
