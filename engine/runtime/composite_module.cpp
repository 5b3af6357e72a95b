#include "engine/runtime/composite_module.h"

#include "engine/support/error.h"

namespace unity::runtime {

void CompositeModule::add(const std::string& fn, ir::PrimFuncRef f, const Part& p) {
  owner_[fn] = {p, std::move(f)};
  order_.push_back(fn);
}

KernelFn CompositeModule::lookup(const std::string& name) const {
  auto& [part, f] = at(name);
  if (!part.compiled)
    throw Error("kernel '" + name + "' belongs to sub-target '" + part.name + "' (" + part.target +
                "), which is compile-only: it cannot run on this machine");
  return part.compiled->lookup(name);
}

ir::PrimFuncRef CompositeModule::function(const std::string& name) const {
  auto it = owner_.find(name);
  if (it == owner_.end())
    return {};
  auto& [part, f] = it->second;
  return part.compiled ? part.compiled->function(name) : f;
}

const std::pair<CompositeModule::Part, ir::PrimFuncRef>&
CompositeModule::at(const std::string& name) const {
  auto it = owner_.find(name);
  if (it == owner_.end())
    throw Error("no kernel '" + name + "' in any sub-target");
  return it->second;
}

} // namespace unity::runtime
