#include "engine/op/deduce_util.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/op/sinfo_util.h"
#include "engine/support/error.h"

namespace unity::op::detail {

using namespace unity::ir;

[[noreturn]] void fail(const Call& call, const DeduceContext& ctx, const std::string& problem) {
  std::string name = ctx.op ? ctx.op->name : (isa<OpRef>(call.op) ? as<OpRef>(call.op)->name : "?");
  std::string msg = fmt::format("R.{}: {}", name, problem);
  std::vector<std::string> operands;
  for (size_t i = 0; i < call.args.size(); ++i)
    operands.push_back(fmt::format("[{}] {}", i, operandStr(call.args[i])));
  msg +=
      operands.empty() ? "; no operands" : fmt::format("; operands: {}", fmt::join(operands, ", "));
  if (!call.attrs.empty()) {
    std::vector<std::string> attrs;
    for (auto& [k, v] : call.attrs)
      attrs.push_back(k + "=" + attrValueStr(v));
    msg += fmt::format("; attrs: {}", fmt::join(attrs, ", "));
  }
  for (size_t i = 0; i < call.sinfoArgs.size(); ++i)
    msg += fmt::format("; sinfo_args[{}]: {}", i, sinfoStr(call.sinfoArgs[i]));
  if (ctx.span)
    throw Error(SourceLoc{ctx.span->file, ctx.span->line, ctx.span->column}, msg);
  throw Error(msg);
}

const TensorSInfo& tensorArg(const Call& call, const DeduceContext& ctx, size_t i) {
  if (i >= call.args.size())
    fail(call, ctx, fmt::format("missing operand {}", i));
  const StructInfo& s = call.args[i]->sinfo;
  if (!s)
    fail(call, ctx, fmt::format("operand {} has no struct info (not normalized)", i));
  auto* t = as<TensorSInfo>(s);
  if (!t)
    fail(call, ctx, fmt::format("operand {} must be a tensor, got {}", i, sinfoStr(s)));
  return *t;
}

std::optional<std::vector<PrimExpr>> shapeArg(const Call& call, const DeduceContext& ctx, size_t i,
                                              int* ndim) {
  if (i >= call.args.size())
    fail(call, ctx, fmt::format("missing operand {}", i));
  const Expr& a = call.args[i];
  if (auto* se = as<ShapeExpr>(a)) {
    *ndim = static_cast<int>(se->values.size());
    return se->values;
  }
  auto* s = as<ShapeSInfo>(a->sinfo);
  if (!s)
    fail(call, ctx, fmt::format("operand {} must be a shape, got {}", i, sinfoStr(a->sinfo)));
  *ndim = s->ndim;
  return s->values;
}

namespace {
const AttrSpec& spec(const Call& call, const DeduceContext& ctx, const std::string& name) {
  const AttrSpec* s = ctx.op ? ctx.op->findAttr(name) : nullptr;
  if (!s)
    fail(call, ctx, "internal: attribute '" + name + "' is not registered");
  return *s;
}
template <class T> T getOr(const Call& call, const DeduceContext& ctx, const std::string& name) {
  const AttrValue* v = call.attrs.find(name);
  if (!v)
    v = &spec(call, ctx, name).dflt;
  if (auto* t = std::get_if<T>(v))
    return *t;
  fail(call, ctx, "internal: attribute '" + name + "' has an unexpected type");
}
} // namespace

bool hasAttr(const Call& call, const std::string& name) { return call.attrs.has(name); }

int64_t attrInt(const Call& call, const DeduceContext& ctx, const std::string& name) {
  return getOr<int64_t>(call, ctx, name);
}
double attrFloat(const Call& call, const DeduceContext& ctx, const std::string& name) {
  const AttrValue* v = call.attrs.find(name);
  if (!v)
    v = &spec(call, ctx, name).dflt;
  if (auto* i = std::get_if<int64_t>(v))
    return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(v))
    return *d;
  fail(call, ctx, "internal: attribute '" + name + "' has an unexpected type");
}
bool attrBool(const Call& call, const DeduceContext& ctx, const std::string& name) {
  return getOr<bool>(call, ctx, name);
}
std::string attrString(const Call& call, const DeduceContext& ctx, const std::string& name) {
  return getOr<std::string>(call, ctx, name);
}
std::vector<int64_t> attrInts(const Call& call, const DeduceContext& ctx, const std::string& name) {
  const AttrValue* v = call.attrs.find(name);
  if (!v)
    v = &spec(call, ctx, name).dflt;
  if (auto* i = std::get_if<int64_t>(v))
    return {*i};
  if (auto* l = std::get_if<std::vector<int64_t>>(v))
    return *l;
  fail(call, ctx, "internal: attribute '" + name + "' has an unexpected type");
}
DataType attrDType(const Call& call, const DeduceContext& ctx, const std::string& name) {
  const AttrValue* v = call.attrs.find(name);
  if (!v) {
    const AttrSpec& s = spec(call, ctx, name);
    if (s.noneDefault)
      return DataType::Void();
    v = &s.dflt;
  }
  if (auto* t = std::get_if<DataType>(v))
    return *t;
  if (auto* s = std::get_if<std::string>(v)) {
    if (s->empty())
      return DataType::Void();
    if (auto t = DataType::parse(*s))
      return *t;
    fail(call, ctx, fmt::format("attribute '{}': unknown dtype \"{}\"", name, *s));
  }
  fail(call, ctx, "internal: attribute '" + name + "' has an unexpected type");
}

int normalizeAxis(const Call& call, const DeduceContext& ctx, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    fail(call, ctx, fmt::format("axis {} is out of range for a tensor of rank {}", axis, ndim));
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> normalizeAxes(const Call& call, const DeduceContext& ctx,
                               const std::vector<int64_t>& axes, int ndim) {
  std::vector<int> out;
  for (int64_t a : axes) {
    int n = normalizeAxis(call, ctx, a, ndim);
    if (std::find(out.begin(), out.end(), n) != out.end())
      fail(call, ctx, fmt::format("axis {} is repeated", a));
    out.push_back(n);
  }
  return out;
}

std::vector<PrimExpr> broadcastShapes(const Call& call, const DeduceContext& ctx,
                                      const std::vector<PrimExpr>& a,
                                      const std::vector<PrimExpr>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  for (size_t k = 0; k < n; ++k) {
    // k counts from the right.
    PrimExpr da = k < a.size() ? a[a.size() - 1 - k] : nullptr;
    PrimExpr db = k < b.size() ? b[b.size() - 1 - k] : nullptr;
    PrimExpr& o = out[n - 1 - k];
    if (!da)
      o = db;
    else if (!db)
      o = da;
    else if (isConstInt(da, 1))
      o = db;
    else if (isConstInt(db, 1))
      o = da;
    else if (arith::provablyEqual(da, db))
      o = da;
    else
      fail(call, ctx,
           fmt::format("cannot broadcast dimension {} (from the right): {} vs {}{}", k,
                       primExprStr(da), primExprStr(db),
                       arith::provablyDifferent(da, db) ? "" : " (not provably equal)"));
  }
  return out;
}

DataType unifyDType(const Call& call, const DeduceContext& ctx, DataType a, DataType b) {
  if (a.isVoid() || b.isVoid())
    return DataType::Void();
  if (!(a == b))
    fail(call, ctx, fmt::format("operand dtypes differ: {} vs {}", a.str(), b.str()));
  return a;
}

void requireEqualDim(const Call& call, const DeduceContext& ctx, const PrimExpr& a,
                     const PrimExpr& b, const std::string& what) {
  if (arith::provablyEqual(a, b))
    return;
  fail(call, ctx,
       fmt::format("{}: {} vs {}{}", what, primExprStr(a), primExprStr(b),
                   arith::provablyDifferent(a, b) ? "" : " (not provably equal)"));
}

StructInfo tensorOf(DataType dtype, std::vector<PrimExpr> shape) {
  for (auto& d : shape)
    d = arith::simplify(d);
  return tensorSInfo(dtype, std::move(shape));
}

std::vector<int64_t> expandSpatial(const Call& call, const DeduceContext& ctx,
                                   const std::string& name, std::vector<int64_t> v, size_t n) {
  if (v.size() == 1)
    return std::vector<int64_t>(n, v[0]);
  if (v.size() != n)
    fail(call, ctx, fmt::format("attribute '{}' needs 1 or {} values, got {}", name, n, v.size()));
  return v;
}

} // namespace unity::op::detail
