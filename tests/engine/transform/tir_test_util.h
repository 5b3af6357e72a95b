#pragma once
// Helpers shared by the tests of the tensor-level passes (tir_passes_test,
// make_packed_api_test): a function `f` from TIR text, and the check that a
// pass result is well formed and survives print -> parse.
#include <gtest/gtest.h>

#include <string>

#include "engine/ir/structural.h"
#include "engine/ir/well_formed.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"

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

} // namespace unity::transform::testing
