#pragma once
// Which target a tensor function compiles for, read from the module: the
// module attribute "target" holds the (composite) target string and each
// function's "target" attribute names one of its sub-targets. Passes that
// decide by the machine (DefaultSchedule) ask here instead of asking the
// CPU they happen to run on.
#include <map>
#include <string>

#include "engine/ir/module.h"
#include "engine/target/target.h"

namespace unity::transform {

/// The target of every PrimFunc of m, by name:
///  - the module has no "target" attribute: the host, `llvm` (a module
///    scheduled outside a build, or by a driver that does not record its
///    target);
///  - the PrimFunc has a "target" attribute: that sub-target of the
///    composite in the module's "target";
///  - otherwise the sub-target of the graph functions calling it (a graph
///    function without "target" is on the default sub-target); when
///    several sub-targets call it, the default one if among them, else the
///    first by name (a later AssignPrimFuncTargets copies the function for
///    the others); a function nobody calls: the default sub-target.
/// Throws unity::Error for a "target" string that does not parse or a
/// sub-target name the composite does not have.
std::map<std::string, target::Target> primFuncTargets(const ir::IRModule& m);

/// The target of one PrimFunc (as above); unity::Error for an unknown name.
target::Target targetOf(const ir::IRModule& m, const std::string& primFunc);

} // namespace unity::transform
