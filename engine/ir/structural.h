#pragma once
// Structural equality and hashing of IR nodes, modulo the names of variables
// and buffers.
//
// Two nodes are structurally equal when they have the same shape and
// content and their variables correspond one to one: a variable (PrimVar,
// Var, DataflowVar, Buffer) of one side matches the variable of the other
// side that is first met at the same place (its definition: a parameter, a
// loop or block iteration variable, a let, a binding, a match_cast pattern,
// an allocation; or, for a free variable, its first use). So `x + 1` equals
// `y + 1`, but `x + x` does not equal `x + y`, and a Var never matches a
// DataflowVar.
//
// Ignored: variable and buffer names, Span (source locations and origins).
// Compared: node kinds, dtypes, shapes, struct info, attributes, constants'
// bytes, floats bit for bit, operator and intrinsic names, global function
// names, extern symbols, block names (schedule traces address blocks by
// name), buffer scopes. An IRModule compares as a name -> function map
// (order ignored) plus its attributes.
//
// The hash is consistent with equality (equal nodes hash equal) and stable:
// the same structure hashes to the same value in every process, on every
// machine, and across builds (no pointers, no std::hash). The tuning
// database keys workloads by it, so a change of the value is a format change.
#include <cstdint>
#include <string>

#include "engine/ir/node.h"

namespace unity::ir {

/// True when a and b are equal modulo variable and buffer names (see above).
/// Two null refs are equal; null and non-null are not.
bool structuralEqual(const Ref<Node>& a, const Ref<Node>& b);

/// A 64-bit hash consistent with structuralEqual, stable across processes
/// and machines.
uint64_t structuralHash(const Ref<Node>& n);

/// structuralHash as 16 lowercase hex digits.
std::string structuralHashHex(const Ref<Node>& n);

} // namespace unity::ir
