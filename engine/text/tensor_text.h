#pragma once
// Constant data in the text format: small tensors are written inline as
// nested lists of exactly-printed elements, large ones as base64 of their raw
// little-endian bytes in the module's trailing metadata section. Both forms
// reproduce the bytes exactly.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/support/tensor.h"

namespace unity::text {

std::string base64Encode(const void* data, size_t size);
/// Null when s is not valid (padded, standard-alphabet) base64.
std::optional<std::vector<std::byte>> base64Decode(std::string_view s);

/// Whether t prints inline (few elements, a dtype with an exact decimal
/// form, finite values, no zero-sized dimension).
bool canInlineConstant(const Tensor& t);
/// Element i in its exact, round-trippable decimal form (inline constants).
std::string formatElement(const Tensor& t, int64_t i);
/// Stores the literal `text` (an Int, Float, True or False token spelling)
/// as element i; false when it does not fit the dtype.
bool storeElement(Tensor& t, int64_t i, const std::string& text, bool isFloatLiteral);

/// The largest element count a constant in a text file may have.
inline constexpr int64_t kMaxConstantElements = int64_t(1) << 28;

} // namespace unity::text
