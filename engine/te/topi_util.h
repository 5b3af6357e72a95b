#pragma once
// Helpers shared by the topi_*.cpp files; not for other parts.
#include <string>

#include "engine/ir/arith.h"
#include "engine/support/error.h"
#include "engine/te/topi.h"

namespace unity::te::topi::detail {

[[noreturn]] inline void fail(const std::string& op, const std::string& msg) {
  throw Error("topi." + op + ": " + msg);
}

inline void requireDefined(const Tensor& t, const std::string& op, const char* what) {
  if (!t.defined())
    fail(op, std::string(what) + " is undefined");
}

/// axis in [-ndim, ndim) -> [0, ndim)
inline int normAxis(int axis, int ndim, const std::string& op) {
  if (axis < -ndim || axis >= ndim)
    fail(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

inline ir::PrimExpr simp(const ir::PrimExpr& e) { return arith::simplify(e); }
inline ir::PrimExpr i64(int64_t v) { return ir::intImm(v); }
inline ir::PrimExpr cst(DataType t, double v) { return ir::makeConst(t, v); }

/// i clamped to [0, extent - 1].
inline ir::PrimExpr clampIndex(const ir::PrimExpr& i, const ir::PrimExpr& extent) {
  return ir::max(ir::min(i, simp(extent - 1)), ir::intImm(0, i->dtype));
}

inline std::string shapeStr(const std::vector<ir::PrimExpr>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    if (auto c = ir::asConstInt(shape[i]))
      s += std::to_string(*c);
    else if (auto* v = ir::as<ir::PrimVar>(shape[i]))
      s += v->name;
    else
      s += "?";
  }
  return s + ")";
}

} // namespace unity::te::topi::detail
