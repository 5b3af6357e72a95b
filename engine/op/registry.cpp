// The registry table and the validating entry point deduceStructInfo().
//
// The table is built once, on first use, by calling each family's
// registration function explicitly (a function-local static makes this
// thread-safe). Validation happens here, once for all operators, so each
// deduction can assume the arity and attribute types of its schema.
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/op.h"
#include "engine/op/sinfo_util.h"
#include "engine/support/error.h"

namespace unity::op {

using namespace unity::ir;

const char* opPatternName(OpPattern p) {
  switch (p) {
  case OpPattern::ElemWise:
    return "ElemWise";
  case OpPattern::Broadcast:
    return "Broadcast";
  case OpPattern::Injective:
    return "Injective";
  case OpPattern::CommReduce:
    return "CommReduce";
  case OpPattern::OutEWiseFusable:
    return "OutEWiseFusable";
  case OpPattern::Tuple:
    return "Tuple";
  case OpPattern::Opaque:
    return "Opaque";
  }
  return "?";
}

const char* attrTypeName(AttrSpec::Type t) {
  switch (t) {
  case AttrSpec::Type::Bool:
    return "bool";
  case AttrSpec::Type::Int:
    return "int";
  case AttrSpec::Type::Float:
    return "float";
  case AttrSpec::Type::String:
    return "string";
  case AttrSpec::Type::DType:
    return "dtype";
  case AttrSpec::Type::Ints:
    return "ints";
  case AttrSpec::Type::Floats:
    return "floats";
  case AttrSpec::Type::IntOrInts:
    return "int|ints";
  }
  return "?";
}

const AttrSpec* OpInfo::findAttr(std::string_view attr) const {
  for (auto& a : attrs)
    if (a.name == attr)
      return &a;
  return nullptr;
}

namespace {

struct Registry {
  std::map<std::string, std::unique_ptr<OpInfo>, std::less<>> ops;
  std::vector<const OpInfo*> sorted;
};

Registry*& building() {
  static Registry* r = nullptr;
  return r;
}

const Registry& registry() {
  static const Registry* reg = [] {
    auto* r = new Registry();
    building() = r;
    detail::registerElementwiseOps();
    detail::registerNNOps();
    detail::registerReduceOps();
    detail::registerManipulationOps();
    detail::registerLoweringOps();
    detail::registerIndexOps();
    detail::registerControlOps();
    detail::registerSequenceOps();
    building() = nullptr;
    for (auto& [name, info] : r->ops)
      r->sorted.push_back(info.get());
    return r;
  }();
  return *reg;
}

bool attrTypeMatches(AttrSpec::Type t, const AttrValue& v) {
  switch (t) {
  case AttrSpec::Type::Bool:
    return std::holds_alternative<bool>(v);
  case AttrSpec::Type::Int:
    return std::holds_alternative<int64_t>(v);
  case AttrSpec::Type::Float:
    return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
  case AttrSpec::Type::String:
    return std::holds_alternative<std::string>(v);
  case AttrSpec::Type::DType:
    return std::holds_alternative<DataType>(v) ||
           (std::holds_alternative<std::string>(v) &&
            DataType::parse(std::get<std::string>(v)).has_value());
  case AttrSpec::Type::Ints:
    return std::holds_alternative<std::vector<int64_t>>(v) || std::holds_alternative<int64_t>(v);
  case AttrSpec::Type::Floats:
    return std::holds_alternative<std::vector<double>>(v) ||
           std::holds_alternative<std::vector<int64_t>>(v);
  case AttrSpec::Type::IntOrInts:
    return std::holds_alternative<std::vector<int64_t>>(v) || std::holds_alternative<int64_t>(v);
  }
  return false;
}

} // namespace

namespace detail {
void registerOp(OpInfo info) {
  Registry* r = building();
  if (!r)
    throw Error("internal: registerOp('" + info.name + "') outside registry initialization");
  if (r->ops.count(info.name))
    throw Error("internal: operator '" + info.name + "' registered twice");
  std::string name = info.name;
  r->ops.emplace(std::move(name), std::make_unique<OpInfo>(std::move(info)));
}
} // namespace detail

const OpInfo* findOp(std::string_view name) {
  const Registry& r = registry();
  auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : it->second.get();
}

const std::vector<const OpInfo*>& allOps() { return registry().sorted; }

StructInfo deduceStructInfo(const Call& call, const Span& span) {
  DeduceContext ctx{&span, nullptr};
  auto* ref = as<OpRef>(call.op);
  if (!ref)
    detail::fail(call, ctx, "callee is not an operator");
  const OpInfo* info = findOp(ref->name);
  if (!info)
    detail::fail(call, ctx, "unknown operator");
  ctx.op = info;

  int n = static_cast<int>(call.args.size());
  if (n < info->minArgs || (info->maxArgs >= 0 && n > info->maxArgs)) {
    std::string expected = info->maxArgs < 0 ? fmt::format("at least {}", info->minArgs)
                           : info->minArgs == info->maxArgs
                               ? fmt::format("{}", info->minArgs)
                               : fmt::format("{} to {}", info->minArgs, info->maxArgs);
    detail::fail(call, ctx, fmt::format("expects {} operands, got {}", expected, n));
  }
  for (auto& [key, value] : call.attrs) {
    const AttrSpec* s = info->findAttr(key);
    if (!s) {
      std::vector<std::string> known;
      for (auto& a : info->attrs)
        known.push_back(a.name);
      detail::fail(call, ctx,
                   fmt::format("unknown attribute '{}' (known: {})", key,
                               known.empty() ? std::string("none")
                                             : fmt::format("{}", fmt::join(known, ", "))));
    }
    if (!attrTypeMatches(s->type, value))
      detail::fail(call, ctx,
                   fmt::format("attribute '{}' must be of type {}, got {}", key,
                               attrTypeName(s->type), attrValueStr(value)));
  }
  for (auto& s : info->attrs)
    if (s.required && !call.attrs.has(s.name))
      detail::fail(call, ctx, fmt::format("missing required attribute '{}'", s.name));
  StructInfo out = info->deduce(call, ctx);
  if (!out)
    detail::fail(call, ctx, "internal: deduction produced no struct info");
  return out;
}

Expr callOp(const std::string& name, std::vector<Expr> args, Attrs attrs,
            std::vector<StructInfo> sinfoArgs) {
  return make<Call>(opRef(name), std::move(args), std::move(attrs), std::move(sinfoArgs));
}

} // namespace unity::op
