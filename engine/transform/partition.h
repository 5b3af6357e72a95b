#pragma once
// Target assignment: AnnotateTarget, AssignTargets and PartitionByTarget at
// graph level, AssignPrimFuncTargets for the tensor functions after lowering
// (see docs/targets.md).
//
// Annotations live in the module attribute "target.annotations" as strings
// "function/binding=subtarget", so each decision is visible in the printed
// module and self-contained. PartitionByTarget consumes them: it outlines the
// annotated bindings of each binding block into new graph functions carrying
// "target" = the sub-target, and removes the attribute.
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/pass.h"

namespace unity::transform {

inline constexpr const char* kTargetAnnotationsAttr = "target.annotations";

/// Marks bindings (by variable name) of graph function `function` for
/// sub-target `subTarget`. A later annotation of the same binding replaces an
/// earlier one. Throws unity::Error for an unknown function/binding, a
/// binding name that is not unique in the function, or (when the module has a
/// "target" attribute) an unknown sub-target.
ir::IRModule annotateTarget(const ir::IRModule& m, const std::string& function,
                            const std::vector<std::string>& bindings, const std::string& subTarget);
/// Marks bindings named by the user for sub-targets, across all graph-level
/// functions. Each name is either a binding's variable name or the name of a
/// source-model node among a binding's origins (an ONNX node "Conv_3" matches
/// the origin "Conv_3:Conv"); a node name may match several bindings (after
/// legalization one node can become a few), and all are marked. Throws one
/// unity::Error listing every name that matches nothing, and for a name that
/// matches bindings in more than one function. Used by the CLI's `--assign`
/// and the workbench's drag-to-target.
ir::IRModule annotateByName(const ir::IRModule& m,
                            const std::vector<std::pair<std::string, std::string>>& assignments);

/// The annotations of a module as (function, binding, sub-target).
struct TargetAnnotation {
  std::string function, binding, subTarget;
};
std::vector<TargetAnnotation> targetAnnotations(const ir::IRModule& m);

/// Outlines annotated bindings. Within one binding block, the bindings
/// annotated for one sub-target are split into connected, convex pieces (a
/// piece never has a path leaving it and coming back through a binding of
/// another target), so each piece becomes one function
/// "<function>_<subtarget>" called where it was; bindings that depend on the
/// piece are moved after the call. The result computes exactly what the input
/// did. Functions that already carry "target" are left alone.
ir::IRModule partitionByTarget(const ir::IRModule& m);

/// Lets every library sub-target of the module's composite target (attribute
/// "target") claim the bindings its kind's patterns cover; claims touching an
/// already annotated binding are skipped (explicit annotations win). Writes
/// annotations only: PartitionByTarget does the outlining; everything left
/// unannotated runs on the default sub-target.
ir::IRModule assignTargets(const ir::IRModule& m);

/// Gives every PrimFunc a "target" attribute naming the sub-target whose
/// codegen compiles it: its own, else that of the graph functions calling it
/// (the default sub-target when none); a PrimFunc called from several
/// sub-targets is copied per extra sub-target and those calls renamed to the
/// copy. Reads the composite target from the module attribute "target"
/// (unchanged module without it); throws unity::Error for a PrimFunc whose
/// own "target" is not a sub-target.
ir::IRModule assignPrimFuncTargets(const ir::IRModule& m);

/// Passes. "AnnotateTarget" reads its arguments from the PassContext config
/// ("annotate_target.function", "annotate_target.bindings",
/// "annotate_target.target") when created from the registry.
PassRef annotateTargetPass(std::string function, std::vector<std::string> bindings,
                           std::string subTarget);
PassRef annotateTargetPassFromConfig();
/// "AnnotateTarget" applying annotateByName(assignments); errors are prefixed
/// with `source` (the file the assignments came from) when it is not empty.
PassRef annotateByNamePass(std::vector<std::pair<std::string, std::string>> assignments,
                           std::string source = {});
PassRef partitionByTargetPass();
PassRef assignTargetsPass();
PassRef assignPrimFuncTargetsPass();

/// Registers the four passes (called from builtin_passes.cpp).
void registerTargetPasses();

} // namespace unity::transform
