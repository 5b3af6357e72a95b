#pragma once
// Helpers for operator tests: tensor-typed variables, calling deduction, and
// checking a deduced shape against hand-written dims.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/op/op.h"
#include "engine/op/shape_arith.h"
#include "engine/support/error.h"

namespace optest {

using namespace unity;
using namespace unity::ir;

/// A dimension written by hand: a constant or a symbolic expression.
struct Dim {
  Dim(int64_t c) : e(intImm(c)) {}
  Dim(int c) : e(intImm(c)) {}
  Dim(PrimExpr x) : e(std::move(x)) {}
  Dim(Ref<PrimVar> x) : e(std::move(x)) {}
  PrimExpr e;
};

inline std::vector<PrimExpr> dims(std::initializer_list<Dim> ds) {
  std::vector<PrimExpr> out;
  for (auto& d : ds)
    out.push_back(d.e);
  return out;
}

inline Expr tensor(std::initializer_list<Dim> shape, DataType t = DataType::Float32(),
                   const std::string& name = "x") {
  return makeVar(name, tensorSInfo(t, dims(shape)));
}
inline Expr tensorRank(int ndim, DataType t = DataType::Float32()) {
  return makeVar("x", tensorSInfo(t, ndim));
}

inline StructInfo deduce(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                         std::vector<StructInfo> sinfoArgs = {}) {
  Expr c = op::callOp(op, std::move(args), std::move(attrs), std::move(sinfoArgs));
  return op::deduceStructInfo(*as<Call>(c), Span{});
}

/// The message of the unity::Error thrown by deducing the call ("" if none).
inline std::string deduceError(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                               std::vector<StructInfo> sinfoArgs = {}) {
  try {
    deduce(op, std::move(args), std::move(attrs), std::move(sinfoArgs));
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

/// Checks s is a tensor of dtype t whose dims equal `expected` (constants
/// exactly; symbolic ones provably).
inline ::testing::AssertionResult hasShape(const StructInfo& s, std::initializer_list<Dim> expected,
                                           DataType t = DataType::Float32()) {
  auto* ts = as<TensorSInfo>(s);
  if (!ts)
    return ::testing::AssertionFailure() << "not a tensor";
  if (!(ts->dtype == t))
    return ::testing::AssertionFailure() << "dtype " << ts->dtype.str() << " != " << t.str();
  if (!ts->shape)
    return ::testing::AssertionFailure() << "shape unknown";
  if (ts->shape->size() != expected.size())
    return ::testing::AssertionFailure()
           << "rank " << ts->shape->size() << " != " << expected.size();
  size_t i = 0;
  for (auto& d : expected) {
    const PrimExpr& got = (*ts->shape)[i];
    if (auto c = asConstInt(d.e)) {
      if (!isConstInt(got, *c))
        return ::testing::AssertionFailure() << "dim " << i << " is not the constant " << *c;
    } else if (!op::arith::provablyEqual(got, d.e)) {
      return ::testing::AssertionFailure() << "dim " << i << " differs";
    }
    ++i;
  }
  return ::testing::AssertionSuccess();
}

} // namespace optest
