#include "engine/op/op_docs.h"

#include <fmt/format.h>

#include "engine/op/op.h"

namespace unity::op {

namespace {
std::string escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string arity(const OpInfo& op) {
  if (op.maxArgs < 0)
    return fmt::format("{}+", op.minArgs);
  if (op.minArgs == op.maxArgs)
    return std::to_string(op.minArgs);
  return fmt::format("{}-{}", op.minArgs, op.maxArgs);
}

std::string attrCell(const OpInfo& op) {
  std::vector<std::string> parts;
  for (auto& a : op.attrs) {
    std::string d = a.required      ? "required"
                    : a.noneDefault ? "none"
                                    : "= " + ir::attrValueStr(a.dflt);
    parts.push_back(fmt::format("`{}`: {} ({})", a.name, attrTypeName(a.type), d));
  }
  return parts.empty() ? "" : escape(fmt::format("{}", fmt::join(parts, "<br>")));
}
} // namespace

std::string operatorReferenceMarkdown() {
  std::string out =
      "# Operators\n\n"
      "Generated from the operator registry (engine/op); the test "
      "`OpDocs.ReferenceMatchesRegistry` fails when this page is stale. Regenerate with\n"
      "`LOWERSCOPE_UPDATE_DOCS=1 build/<dir>/tests/test_engine --gtest_filter=OpDocs.*`.\n\n"
      "Patterns are TVM's fusion lattice: ElemWise < Broadcast < Injective < CommReduce < "
      "OutEWiseFusable < Tuple < Opaque.\n\n";
  out += fmt::format("{} operators.\n\n", allOps().size());
  out += "| Operator | Operands | Pattern | Attributes | Description |\n";
  out += "|---|---|---|---|---|\n";
  for (const OpInfo* op : allOps())
    out += fmt::format("| `R.{}` | {} | {} | {} | {} |\n", op->name, arity(*op),
                       opPatternName(op->pattern), attrCell(*op), escape(op->doc));
  return out;
}

} // namespace unity::op
