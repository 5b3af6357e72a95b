#include "engine/ir/module.h"

#include "engine/support/error.h"

namespace unity::ir {

IRModuleNode::IRModuleNode(std::vector<Entry> functions, Attrs attrs)
    : Node(NodeKind::IRModule), functions(std::move(functions)), attrs(std::move(attrs)) {
  for (size_t i = 0; i < this->functions.size(); ++i) {
    const auto& [name, f] = this->functions[i];
    if (!f)
      throw Error("invalid IR: module function '" + name + "' is missing");
    if (!index_.emplace(name, i).second)
      throw Error("invalid IR: module defines '" + name + "' twice");
  }
}

BaseFunc IRModuleNode::lookup(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? BaseFunc() : functions[it->second].second;
}

std::vector<std::string> IRModuleNode::names() const {
  std::vector<std::string> out;
  for (auto& e : functions)
    out.push_back(e.first);
  return out;
}

IRModule makeModule(std::vector<IRModuleNode::Entry> functions, Attrs attrs) {
  return make<IRModuleNode>(std::move(functions), std::move(attrs));
}

IRModule withFunction(const IRModule& m, const std::string& name, BaseFunc func) {
  auto fs = m->functions;
  bool replaced = false;
  for (auto& e : fs)
    if (e.first == name) {
      if (sameNode(e.second, func))
        return m;
      e.second = func;
      replaced = true;
    }
  if (!replaced)
    fs.emplace_back(name, std::move(func));
  return makeModule(std::move(fs), m->attrs);
}

IRModule withoutFunction(const IRModule& m, const std::string& name) {
  if (!m->contains(name))
    return m;
  auto fs = m->functions;
  std::erase_if(fs, [&](const IRModuleNode::Entry& e) { return e.first == name; });
  return makeModule(std::move(fs), m->attrs);
}

IRModule withAttrs(const IRModule& m, Attrs attrs) {
  if (attrs == m->attrs)
    return m;
  return makeModule(m->functions, std::move(attrs));
}

IRModule mapFunctions(const IRModule& m,
                      const std::function<BaseFunc(const std::string&, const BaseFunc&)>& fn) {
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, f] : m->functions) {
    BaseFunc nf = fn(name, f);
    changed = changed || !sameNode(nf, f);
    out.emplace_back(name, nf);
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}

std::string freshFunctionName(const IRModule& m, const std::string& base) {
  if (!m->contains(base))
    return base;
  for (int i = 1;; ++i) {
    std::string n = base + "_" + std::to_string(i);
    if (!m->contains(n))
      return n;
  }
}

} // namespace unity::ir
