#pragma once
// The text of the unity::Error a callable throws, for tests that check what
// a refusal says: errorOf([&] { build(m); }).
#include <string>
#include <utility>

#include "engine/support/error.h"

namespace unity::testing {

/// e.what() of the unity::Error `f()` throws; "" when it throws none (any
/// other exception propagates and fails the test).
template <class F> std::string errorOf(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace unity::testing
