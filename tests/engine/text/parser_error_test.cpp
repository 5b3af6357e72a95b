// Parser errors: each broken input reports the right line:column and a
// message naming the cause.
#include <gtest/gtest.h>

#include "engine/support/error.h"
#include "engine/text/parser.h"

using namespace unity;

namespace {

struct Case {
  const char* name;
  const char* source;
  int line, col;
  const char* fragment;
};

const char* kHeader = "@R.function\ndef main(x: R.Tensor((n, 4), \"float32\")):\n";

std::string graphBody(const std::string& body) { return kHeader + body; }

} // namespace

TEST(TextParserErrors, ReportLocationAndCause) {
  std::vector<std::pair<std::string, Case>> cases;
  auto add = [&](std::string src, Case c) { cases.emplace_back(std::move(src), c); };
  add("@R.function\ndef main(x):\n    return $\n",
      {"bad char", "", 3, 12, "unexpected character '$'"});
  add("@R.function\ndef main(x):\n    y = R.str(\"abc)\n    return y\n",
      {"string", "", 3, 15, "unterminated string"});
  add("@R.function\ndef main(x):\n    y = x\n  return y\n",
      {"indent", "", 4, 3, "indentation does not match"});
  add(graphBody("    return undefined_name\n"),
      {"undefined", "", 3, 12, "undefined variable 'undefined_name'"});
  add(graphBody("    y: R.Tensor((n, 4), \"float33\") = x\n    return y\n"),
      {"dtype", "", 3, 25, "unknown dtype 'float33'"});
  add(graphBody("    y = x\n"), {"no return", "", 4, 1, "must end with 'return'"});
  add(graphBody("    y = R.nn.relu(x\n    return y\n"),
      {"unclosed", "", 3, 18, "unclosed bracket"});
  add(graphBody("    R.output(x)\n    return x\n"),
      {"output", "", 3, 5, "R.output(...) outside a dataflow block"});
  add(graphBody("    with R.dataflow():\n        y = x\n        R.output(z)\n    return y\n"),
      {"output name", "", 5, 18, "does not bind"});
  add(graphBody("    if x:\n        a = x\n    else:\n        b = x\n    return a\n"),
      {"if names", "", 6, 9, "both branches must assign the same variable"});
  add(graphBody("    y = R.const(metadata[3])\n    return y\n"),
      {"metadata", "", 3, 26, "metadata[3] is not defined"});
  add(graphBody("    y = R.match_cast(x)\n    return y\n"),
      {"match_cast", "", 3, 23, "expected ','"});
  add(graphBody("    return x\n    y = x\n"),
      {"after return", "", 4, 5, "statements after 'return'"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    B[0] = T.float32(1)\n",
      {"buffer", "", 3, 5, "undefined buffer 'B'"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = 1 + 2.5\n",
      {"types", "", 3, 14, "differ in type"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.foo(A[0])\n",
      {"intrinsic", "", 3, 14, "unknown function 'T.foo'"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in T.sequential(4):\n       "
      " A[i] = T.float32(0)\n",
      {"loop kind", "", 3, 16, "unknown loop kind 'T.sequential'"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    T.reads(A[0])\n",
      {"reads outside", "", 3, 5, "only allowed at the start of a T.block"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    x: T.int32 = 3\n",
      {"let body", "", 3, 5, "needs a body"});
  add("@R.function\ndef main(x):\n    return x\n@R.function\ndef main(x):\n    return x\n",
      {"twice", "", 5, 5, "function 'main' is defined twice"});
  add("def main(x):\n    return x\n", {"decorator", "", 1, 1, "needs a decorator"});
  add("@R.function\ndef main(x):\n    y = R.nn.relu(x)  # @origin(42)\n    return y\n",
      {"origin", "", 3, 33, "expected a string in @origin"});
  add("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.float32(1) < "
      "T.float32(2) < T.float32(3)\n",
      {"chain", "", 3, 40, "comparisons do not chain"});
  add("metadata[0] = R.tensor_data(\"float32\", (2,), \"AAAA\")\n",
      {"metadata size", "", 1, 46, "holds 3 bytes"});

  for (auto& [src, c] : cases) {
    SCOPED_TRACE(c.name);
    try {
      text::parseModule(src, "t.uir");
      ADD_FAILURE() << "no error for:\n" << src;
    } catch (const Error& e) {
      EXPECT_EQ(e.loc().file, "t.uir");
      EXPECT_EQ(e.loc().line, c.line) << e.what();
      EXPECT_EQ(e.loc().column, c.col) << e.what();
      EXPECT_NE(e.message().find(c.fragment), std::string::npos) << e.what();
    }
  }
  EXPECT_GE(cases.size(), 15u);
}

TEST(TextParserErrors, WhatShowsTheSourceLineAndACaret) {
  try {
    text::parseModule(graphBody("    return nope\n"), "f.uir");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "f.uir:3:12: error: undefined variable 'nope'\n    return nope\n           ^");
  }
}

TEST(TextParserErrors, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  std::string src = graphBody("    return " + deep + "x" + std::string(5000, ')') + "\n");
  try {
    text::parseModule(src);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("nesting too deep"), std::string::npos) << e.what();
  }
  std::string chain = "@T.prim_func\ndef f(A: T.Buffer((4,), \"int64\")):\n    A[0] = 1";
  for (int i = 0; i < 5000; ++i)
    chain += " + 1";
  try {
    text::parseModule(chain + "\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("too deep"), std::string::npos) << e.what();
  }
}

TEST(TextParserErrors, MissingFileIsAnError) {
  EXPECT_THROW(text::parseFile("/nonexistent/dir/x.uir"), Error);
}
