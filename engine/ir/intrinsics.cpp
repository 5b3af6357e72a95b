#include "engine/ir/intrinsics.h"

#include <array>

#include "engine/ir/tir.h"

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
    IntrinsicInfo{kReinterpretIntrinsic, 1, false},
    IntrinsicInfo{kArgDimIntrinsic, 2, false},
    IntrinsicInfo{kAssertDimIntrinsic, 3, false},
    IntrinsicInfo{kPrefetchIntrinsic, 1, false},
};

const IntrinsicInfo* findIntrinsic(std::string_view name) {
  for (auto& i : kIntrinsics)
    if (name == i.name)
      return &i;
  return nullptr;
}

PackedArgDim packedArgDim(const PrimFunc& f, const PrimCall& call) {
  PackedArgDim r;
  const std::string what = "intrinsic '" + call.op + "'";
  size_t n = call.args.size();
  auto* i = n >= 2 ? as<IntImm>(call.args[n - 2]) : nullptr;
  auto* k = n >= 2 ? as<IntImm>(call.args[n - 1]) : nullptr;
  if (!i || !k) {
    r.error = what + " needs a constant parameter index and dimension";
    return r;
  }
  if (i->value < 0 || i->value >= static_cast<int64_t>(f.params.size()) ||
      !f.params[i->value].buffer) {
    r.error =
        what + " names parameter " + std::to_string(i->value) + ", which is not a buffer parameter";
    return r;
  }
  const BufferRef& buf = f.params[i->value].buffer;
  if (k->value < 0 || k->value >= buf->ndim()) {
    r.error = what + " names dimension " + std::to_string(k->value) + " of parameter '" +
              buf->name + "' of rank " + std::to_string(buf->ndim());
    return r;
  }
  r.param = i->value;
  r.dim = k->value;
  return r;
}

} // namespace unity::ir
