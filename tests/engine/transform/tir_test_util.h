#pragma once
// Helpers shared by the tests of the tensor-level passes (tir_passes_test,
// make_packed_api_test, storage_rewrite_test, skip_padding_taps_test): a
// function `f` from TIR text, the check that a pass result is well formed
// and survives print -> parse, and that it computes what its input did.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/ir/structural.h"
#include "engine/ir/well_formed.h"
#include "engine/te/interpreter.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "tests/engine/te/te_test_util.h"

namespace unity::transform::testing {

/// The PrimFunc named `f` of a module parsed from text.
inline ir::PrimFuncRef parseFunc(const std::string& text) {
  ir::IRModule m = text::parseModule(text, "tir_test");
  auto f = ir::cast<ir::PrimFunc>(m->lookup("f"));
  EXPECT_TRUE(f);
  return f;
}

/// Well formed, and print -> parse gives a structurally equal function that
/// prints the same text again.
inline void expectWellFormedAndRoundTrips(const ir::PrimFuncRef& f) {
  ir::IRModule m = ir::makeModule({{"f", f}});
  for (auto& i : ir::checkWellFormed(m))
    ADD_FAILURE() << ir::issueStr(i);
  std::string text = text::printModule(m);
  ir::IRModule back = text::parseModule(text, "roundtrip");
  EXPECT_TRUE(ir::structuralEqual(back->lookup("f"), f)) << text;
  EXPECT_EQ(text::printModule(back), text);
}

/// Runs both functions on the same random inputs in [-3, 3) (the reference
/// interpreter checks every access against its buffer's bounds); the last
/// buffer is the output, equal within `tol`.
inline void expectSameResults(const ir::PrimFuncRef& a, const ir::PrimFuncRef& b,
                              const std::vector<std::vector<int64_t>>& shapes, double tol = 1e-6) {
  std::vector<Tensor> ta, tb;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ta.push_back(te::testing::randomTensor(shapes[i], 100 + static_cast<uint32_t>(i), -3.0, 3.0));
    tb.push_back(ta.back());
  }
  std::vector<Tensor*> pa, pb;
  for (size_t i = 0; i < shapes.size(); ++i) {
    pa.push_back(&ta[i]);
    pb.push_back(&tb[i]);
  }
  te::interpretPrimFunc(a, pa);
  te::interpretPrimFunc(b, pb);
  EXPECT_TRUE(te::testing::allClose(tb.back(), ta.back(), tol));
}

} // namespace unity::transform::testing
