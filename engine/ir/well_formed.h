#pragma once
// Well-formedness of a whole module: the invariants every pass may assume
// and must preserve. Passes' tests run it on their output; the GUI shows the
// issues next to the pass that introduced them.
//
// Graph level (Function): every Var is defined (parameter or earlier binding
// in an enclosing scope) before it is used, and defined once; DataflowVars
// are bound only in dataflow blocks and used only inside them; every
// expression has struct info (the module is normalized); GlobalVars name
// functions of the module; call_tir's first argument is a GlobalVar naming a
// PrimFunc, and PrimFuncs are reached only through call_tir; symbolic shape
// variables are defined by a parameter's struct info or a match_cast pattern
// before other struct info mentions them.
// Tensor level (PrimFunc): every PrimVar used is a scalar parameter, occurs
// in a parameter buffer's shape, or is a loop, block iteration or let
// variable in scope (and is not redefined while in scope); every buffer used
// is a parameter or allocated in scope (Allocate or a block's allocs); block
// bindings match the iterators; loads, stores and read/write regions have one
// index or range per buffer dimension.
#include <string>
#include <vector>

#include "engine/ir/module.h"

namespace unity::ir {

struct WellFormedIssue {
  std::string function; // the module function the issue is in
  std::string message;  // names the variable / binding / block concerned
  Span span;            // of the binding concerned, when known
};

/// All issues found, in module order; empty when the module is well formed.
std::vector<WellFormedIssue> checkWellFormed(const IRModule& m);

/// "function: message" (with " at file:line:col" when the span has a line).
std::string issueStr(const WellFormedIssue& issue);

} // namespace unity::ir
