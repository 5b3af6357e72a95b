#pragma once
// CompositeModule: the kernels of a build for a composite target, each served
// by the module of the sub-target that owns it (LLVM JIT, C shared object,
// library kernels). The executor sees one CompiledModule; which sub-target
// runs a kernel is decided once, when the build adds it.
//
// A compile-only part (a foreign triple: its code exists only as emitted
// artifacts) still names its kernels, so function() and names() describe the
// whole build, but lookup() of one of them refuses with an error naming the
// part instead of running code built for another machine.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/runtime/module.h"

namespace unity::runtime {

class CompositeModule : public CompiledModule {
public:
  /// One sub-target's share of the build.
  struct Part {
    std::string name;                               // sub-target name
    std::string target;                             // its target string, for messages
    std::shared_ptr<const CompiledModule> compiled; // null: compile-only
  };

  /// Kernel `fn` (source function f) is served by part p.
  void add(const std::string& fn, ir::PrimFuncRef f, const Part& p);

  /// Throws unity::Error for an unknown kernel or one of a compile-only part.
  KernelFn lookup(const std::string& name) const override;
  ir::PrimFuncRef function(const std::string& name) const override;
  std::vector<std::string> names() const override { return order_; }
  /// Each part has its own code (see the parts' modules): none here.
  std::string llvmIR() const override { return {}; }
  std::string assembly() const override { return {}; }
  std::vector<char> object() const override { return {}; }

private:
  const std::pair<Part, ir::PrimFuncRef>& at(const std::string& name) const;
  std::map<std::string, std::pair<Part, ir::PrimFuncRef>> owner_;
  std::vector<std::string> order_;
};

} // namespace unity::runtime
