#pragma once
// Legalize: every graph-level call of an operator that has a TE
// implementation becomes
//   R.call_tir(@name, (tensor args...)[, (shape vars...)], sinfo_args=[out])
// of a PrimFunc generated with te and added to the module. The table maps
// operator names to implementations (legalize_ops*.cpp); a user adds one
// with registerLegalization (see docs/adding-an-operator.md).
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/module.h"
#include "engine/te/te.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// What an implementation gets: the call (attributes, non-tensor operands
/// such as a reshape's shape) and one te placeholder per operand, aligned
/// with call.args (undefined for operands that are not tensors; a tuple
/// operand, as concat's, gives one placeholder per field in `tupleFields`).
struct LegalizeArgs {
  const ir::Call& call;
  std::vector<te::Tensor> inputs;
  std::vector<te::Tensor> tupleFields;
  /// The attribute value, or the operator's registered default.
  const ir::AttrValue* attr(const std::string& name) const;
  int64_t attrInt(const std::string& name) const;
  double attrFloat(const std::string& name) const;
  bool attrBool(const std::string& name) const;
  std::string attrString(const std::string& name) const;
  std::vector<int64_t> attrInts(const std::string& name) const;
  bool hasAttr(const std::string& name) const; // given explicitly or with a non-none default
};

/// Returns the output tensor(s) (more than one: the call's value is a tuple),
/// or an empty vector when this particular call is not supported (the call is
/// then left as it is and reported by unsupportedOps).
using LegalizeFn = std::function<std::vector<te::Tensor>(const LegalizeArgs&)>;

/// Adds or replaces the implementation of `op`.
void registerLegalization(const std::string& op, LegalizeFn fn);
/// Null when `op` has no implementation.
const LegalizeFn* findLegalization(const std::string& op);
/// The operator names that have an implementation, sorted.
std::vector<std::string> legalizableOps();

/// Rewrites every supported operator call in every graph-level function.
/// Needs struct info (a normalized module): a call whose operands are not
/// all tensors of known shape and dtype (other than the non-tensor operands
/// an implementation reads itself) is left alone. Identical generated
/// functions (structurally, modulo names) are shared. Throws unity::Error
/// when an implementation rejects its call's attributes or shapes.
ir::IRModule legalize(const ir::IRModule& m);

/// Names of the operators still called (other than call_tir and
/// call_dps_library) in the graph-level functions, sorted, without duplicates.
std::vector<std::string> unsupportedOps(const ir::IRModule& m);

/// legalize as a pass ("LegalizeOps", graph level).
PassRef legalizePass();

} // namespace unity::transform
