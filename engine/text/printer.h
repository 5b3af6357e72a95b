#pragma once
// Printer of the .uir text format (TVMScript-like; grammar and examples in
// docs/text-format.md). parseModule(printModule(m)) rebuilds m.
#include <string>

#include "engine/ir/module.h"

namespace unity::text {

std::string printModule(const ir::IRModule& m);
/// Fragments, for tools and diagnostics. Variables print by their hint names.
std::string printExpr(const ir::Expr& e);
std::string printPrimExpr(const ir::PrimExpr& e);
std::string printStmt(const ir::Stmt& s);
std::string printStructInfo(const ir::StructInfo& s);

} // namespace unity::text
