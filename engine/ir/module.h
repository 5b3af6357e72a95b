#pragma once
// IRModule: an ordered name -> function map (graph-level Functions, tensor
// level PrimFuncs and ExternFuncs side by side) plus module attributes (the
// composite target lives there as "target"). Immutable like every node:
// "changing" a module returns a new one sharing all untouched functions.
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/expr.h"
#include "engine/ir/tir.h"

namespace unity::ir {

class IRModuleNode : public Node {
public:
  static constexpr NodeKind kFirst = NodeKind::IRModule, kLast = NodeKind::IRModule;
  using Entry = std::pair<std::string, BaseFunc>;
  explicit IRModuleNode(std::vector<Entry> functions, Attrs attrs = {});

  const std::vector<Entry> functions;
  const Attrs attrs;

  BaseFunc lookup(const std::string& name) const; // null if absent
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  /// Names of functions of one kind, in module order.
  std::vector<std::string> names() const;

private:
  std::unordered_map<std::string, size_t> index_;
};
using IRModule = Ref<IRModuleNode>;

IRModule makeModule(std::vector<IRModuleNode::Entry> functions, Attrs attrs = {});
/// A copy with `name` set to `func` (replaced in place, or appended).
IRModule withFunction(const IRModule& m, const std::string& name, BaseFunc func);
IRModule withoutFunction(const IRModule& m, const std::string& name);
IRModule withAttrs(const IRModule& m, Attrs attrs);
/// A copy with every function replaced by fn(name, function), in order;
/// m itself when fn returns each function unchanged (the same node).
IRModule mapFunctions(const IRModule& m,
                      const std::function<BaseFunc(const std::string&, const BaseFunc&)>& fn);
/// A name not yet used in the module: base, base_1, base_2, ...
std::string freshFunctionName(const IRModule& m, const std::string& base);

} // namespace unity::ir
