#pragma once
// Helpers shared by the tests of graph-level passes and of whole builds
// (fold_batch_norm_test, partition_rows_test, alter_conv_layout_test,
// alter_matmul_layout_test): a module from text whose weight parameters
// become constants, and the largest difference of two results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "engine/ir/functor.h"
#include "engine/support/tensor.h"
#include "engine/text/parser.h"
#include "engine/transform/normalize.h"

namespace unity::transform::testing {

/// Replaces parameters of main by constants.
struct BindParams : ir::ExprMutator {
  std::unordered_map<const ir::VarNode*, ir::Expr> values;
  ir::Expr visitVar(const ir::VarNode* op, const ir::Expr& self) override {
    auto it = values.find(op);
    return it != values.end() ? it->second : ir::ExprMutator::visitVar(op, self);
  }
};

/// `text` is a module whose main takes x first; the parameters after it
/// become the constants `consts` (fewer: the rest stay parameters).
inline ir::IRModule withConstants(const std::string& text,
                                  const std::vector<unity::Tensor>& consts) {
  using namespace ir;
  IRModule m = normalize(text::parseModule(text));
  auto* fn = as<Function>(m->lookup("main"));
  BindParams bind;
  std::vector<Var> params{fn->params[0]};
  for (size_t i = 1; i < fn->params.size(); ++i) {
    if (i - 1 < consts.size())
      bind.values[fn->params[i].get()] = make<Constant>(consts[i - 1]);
    else
      params.push_back(fn->params[i]);
  }
  Expr body = bind.mutate(fn->body);
  BaseFunc f = make<Function>(params, body, fn->retSInfo, fn->attrs);
  return normalize(makeModule({{"main", f}}));
}

/// The largest absolute difference of two tensors of the same shape (a
/// failure is recorded when the shapes differ).
inline double maxAbsDiff(const unity::Tensor& a, const unity::Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0;
  for (int64_t i = 0; i < std::min(a.numel(), b.numel()); ++i)
    worst = std::max(worst, std::abs(a.getDouble(i) - b.getDouble(i)));
  return worst;
}

} // namespace unity::transform::testing
