#pragma once
// A generator of random but well-typed IRModules for the text round-trip
// tests: graph functions (dataflow and plain blocks, every expression and
// struct info kind, match_cast, if, calls of operators / global functions /
// extern symbols / call_tir, constants inline and in metadata, origins) and
// tensor functions (every loop kind, blocks with iteration variables,
// regions, init, allocations, predicates, lets, ifs, every scalar expression
// kind). Deterministic for a given seed.
//
// It builds the canonical forms the text format denotes (see
// docs/text-format.md, "Canonical forms"): no empty or adjacent plain binding
// blocks, sequences of at least two statements, struct info only on
// variables, function bodies and if branches as SeqExprs.
#include <cstdint>

#include "engine/ir/module.h"

namespace unity::text::testing {

ir::IRModule randomModule(uint64_t seed);

} // namespace unity::text::testing
