#include "engine/ir/intrinsics.h"

#include <array>

namespace unity::ir {

static constexpr std::array kIntrinsics = {
    IntrinsicInfo{"exp", 1},
    IntrinsicInfo{"log", 1},
    IntrinsicInfo{"sqrt", 1},
    IntrinsicInfo{"rsqrt", 1},
    IntrinsicInfo{"tanh", 1},
    IntrinsicInfo{"sigmoid", 1},
    IntrinsicInfo{"erf", 1},
    IntrinsicInfo{"fabs", 1},
    IntrinsicInfo{"floor", 1},
    IntrinsicInfo{"ceil", 1},
    IntrinsicInfo{"round", 1},
    IntrinsicInfo{"trunc", 1},
    IntrinsicInfo{"sin", 1},
    IntrinsicInfo{"cos", 1},
    IntrinsicInfo{"tan", 1},
    IntrinsicInfo{"asin", 1},
    IntrinsicInfo{"acos", 1},
    IntrinsicInfo{"atan", 1},
    IntrinsicInfo{"sinh", 1},
    IntrinsicInfo{"cosh", 1},
    IntrinsicInfo{"asinh", 1},
    IntrinsicInfo{"acosh", 1},
    IntrinsicInfo{"atanh", 1},
    IntrinsicInfo{"log2", 1},
    IntrinsicInfo{"log1p", 1},
    IntrinsicInfo{"expm1", 1},
    IntrinsicInfo{"isnan", 1},
    IntrinsicInfo{"isinf", 1},
    IntrinsicInfo{"pow", 2},
    IntrinsicInfo{"fmod", 2},
    IntrinsicInfo{"atan2", 2},
    IntrinsicInfo{kArgDimIntrinsic, 2, false},
    IntrinsicInfo{kAssertDimIntrinsic, 3, false},
};

const IntrinsicInfo* findIntrinsic(std::string_view name) {
  for (auto& i : kIntrinsics)
    if (name == i.name)
      return &i;
  return nullptr;
}

} // namespace unity::ir
