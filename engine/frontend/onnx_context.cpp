// NodeContext: the converters' view of one ONNX node (inputs, attributes,
// emitting bindings). Struct info of each emitted call is deduced at once by
// the operator registry, so the next converter can read shapes and ranks;
// a deduction error becomes this node's "unsupported" reason.
//
// Output naming: a converter emits its result as a dataflow variable with a
// temporary name and then calls output(). When the value is the binding just
// emitted, output() renames it after the ONNX value (and makes it a non-
// dataflow Var when it is a graph output, which must escape the dataflow
// block); nothing can refer to the temporary yet, so the swap is safe.
#include <cmath>
#include <cstring>

#include "engine/frontend/onnx_convert.h"
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/op/shape_arith.h"
#include "engine/support/error.h"

namespace unity::frontend::detail {

using namespace ir;

std::string sanitizeName(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty())
    out = "v";
  if (std::isdigit(static_cast<unsigned char>(out[0])))
    out = "v" + out;
  return out;
}

PrimExpr foldMul(const PrimExpr& a, const PrimExpr& b) {
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (ca && cb)
    return intImm(*ca * *cb);
  if (ca && *ca == 1)
    return b;
  if (cb && *cb == 1)
    return a;
  return a * b;
}

bool sameDim(const PrimExpr& a, const PrimExpr& b) {
  if (sameNode(a, b))
    return true;
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  auto d = asConstInt(arith::simplify(a - b));
  return d && *d == 0;
}

int normAxis(const NodeContext& ctx, int64_t axis, int rank) {
  // ONNX axes lie in [-rank, rank - 1]: a scalar has none (a Gather of a
  // scalar indexed its empty shape, found by onnx_import_fuzz).
  if (axis < -rank || axis >= rank)
    ctx.unsupported("axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Tensor int64Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  Tensor t(DataType::Int64(), std::move(shape));
  if (!values.empty())
    std::memcpy(t.mutableData(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

int64_t intAt(const Tensor& t, int64_t i) {
  DataType d = t.dtype();
  auto p = static_cast<const char*>(t.data());
  auto rd = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return static_cast<int64_t>(v);
  };
  if (d.isBool() || (d.isUInt() && d.bits == 8))
    return rd(uint8_t{});
  if (d.isInt() && d.bits == 8)
    return rd(int8_t{});
  if (d.isInt() && d.bits == 16)
    return rd(int16_t{});
  if (d.isUInt() && d.bits == 16)
    return rd(uint16_t{});
  if (d.isInt() && d.bits == 32)
    return rd(int32_t{});
  if (d.isUInt() && d.bits == 32)
    return rd(uint32_t{});
  if (d.bits == 64 && d.isIntegral())
    return rd(int64_t{});
  // A float used as an integer (a shape or index held in a float tensor):
  // out of int64's range or NaN it has no integer value (the cast would be
  // undefined behaviour; found by onnx_import_fuzz).
  double v = t.getDouble(i);
  if (!(v >= -9.2e18 && v <= 9.2e18))
    throw Error("a value " + std::to_string(v) + " used as an integer is outside the int64 range");
  return static_cast<int64_t>(v);
}

NodeContext::NodeContext(GraphState& g, const onnx::NodeProto& node, std::string name, int opset)
    : node(node), opset(opset), g_(g), name_(std::move(name)), firstBinding_(g.bindings.size()) {}

void NodeContext::unsupported(const std::string& reason) const { throw Unsupported{reason}; }

void NodeContext::checkTableSize(double elements, const std::string& what) const {
  if (!(elements <= double(1 << 24)))
    unsupported(what + " would need a constant of " + std::to_string(elements) +
                " elements (at most 2^24 are built at import time)");
}

bool NodeContext::has(int i) const { return i < node.input_size() && !node.input(i).empty(); }

const Value& NodeContext::value(int i) const {
  if (!has(i))
    unsupported("input " + std::to_string(i) + " is missing");
  auto it = g_.values.find(node.input(i));
  if (it == g_.values.end())
    throw Error("node '" + name_ + "' uses undefined value '" + node.input(i) + "'");
  return it->second;
}

const Value& NodeContext::in(int i) const {
  const Value& v = value(i);
  if (v.expr || !v.sym)
    return v;
  // A symbolic shape value used as data: bind its run-time tensor once. The
  // binding belongs to this node; the importer undoes it if the node is
  // refused (GraphState::materialized). Emitting is logically const here:
  // it only caches the value's expression.
  Expr e = const_cast<NodeContext*>(this)->materialize(v);
  Value& stored = g_.values[node.input(i)];
  stored.expr = e;
  g_.materialized.push_back(node.input(i));
  return stored;
}

Expr NodeContext::materialize(const Value& v) {
  auto* t = as<TensorSInfo>(v.sinfo);
  Value m = op("shape_to_tensor", {make<ShapeExpr>(*v.sym)});
  if (t->ndim == 0)
    m = op("reshape", {m.expr, make<ShapeExpr>(std::vector<PrimExpr>{})});
  if (!(t->dtype == DataType::Int64()))
    m = op("astype", {m.expr}, {{"dtype", t->dtype}});
  return m.expr;
}

std::optional<std::vector<PrimExpr>> NodeContext::symInts(int i) const {
  const Value& v = value(i);
  if (v.sym)
    return *v.sym;
  if (!v.data)
    return std::nullopt;
  std::vector<PrimExpr> out;
  for (int64_t k = 0; k < v.data->numel(); ++k)
    out.push_back(intImm(intAt(*v.data, k)));
  return out;
}

std::vector<PrimExpr> NodeContext::shapeInts(int i, const char* what) const {
  auto v = symInts(i);
  if (!v)
    needConstant(i, what);
  return *v;
}

std::vector<PrimExpr> NodeContext::shapeIntsOrRuntime(int i, const char* what) {
  if (auto v = symInts(i))
    return *v;
  auto* t = as<TensorSInfo>(value(i).sinfo);
  if (!t || t->ndim != 1 || !t->shape || !asConstInt((*t->shape)[0]) || !t->dtype.isIntegral())
    needConstant(i, std::string(what) + " (a 1-D integer tensor of static length when computed "
                                        "at run time)");
  return runtimeShape(in(i), node.input(i));
}

std::vector<PrimExpr> NodeContext::runtimeShape(const Value& t, const std::string& hint,
                                                const std::vector<PrimExpr>& known,
                                                const std::string& error) {
  auto* ts = as<TensorSInfo>(t.sinfo);
  std::optional<int64_t> len;
  if (ts && ts->ndim == 1 && ts->shape)
    len = asConstInt((*ts->shape)[0]);
  if (!len || !ts->dtype.isIntegral())
    unsupported("a shape computed at run time must be a 1-D integer tensor of static length");
  Expr x = t.expr;
  if (!(ts->dtype == DataType::Int64()))
    x = op("astype", {x}, {{"dtype", DataType::Int64()}}).expr;
  Attrs checked;
  if (!error.empty())
    checked.set("error", error);
  Value s = op("tensor_to_shape", {x}, checked);
  std::vector<PrimExpr> vars;
  std::string base = sanitizeName(hint);
  for (int64_t k = 0; k < *len; ++k)
    vars.push_back(k < static_cast<int64_t>(known.size()) && known[k]
                       ? known[k]
                       : PrimExpr(primVar(base + "_" + std::to_string(k))));
  StructInfo pattern = shapeSInfo(vars);
  Var v = makeDataflowVar("lv" + std::to_string(g_.bindings.size()), pattern);
  Span span;
  span.origins = {origin()};
  g_.bindings.push_back(make<MatchCast>(v, s.expr, pattern, span));
  return vars;
}

Value NodeContext::symbolic(std::vector<PrimExpr> elems, bool scalar, DataType dt) {
  std::vector<int64_t> consts;
  for (auto& e : elems) {
    e = arith::simplify(e);
    if (auto c = asConstInt(e))
      consts.push_back(*c);
  }
  std::vector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(elems.size()));
  if (consts.size() == elems.size()) {
    Tensor t(dt, shape);
    for (size_t k = 0; k < consts.size(); ++k)
      setIntAt(t, static_cast<int64_t>(k), consts[k]);
    return constant(std::move(t));
  }
  return Value{nullptr, tensorSInfo(dt, shape), std::nullopt, std::move(elems)};
}

int NodeContext::rank(int i) const {
  auto* t = as<TensorSInfo>(value(i).sinfo);
  if (!t)
    unsupported("input '" + node.input(i) + "' is not a tensor");
  if (t->ndim < 0)
    unsupported("input '" + node.input(i) + "' has unknown rank");
  return t->ndim;
}

DataType NodeContext::dtype(int i) const {
  auto* t = as<TensorSInfo>(value(i).sinfo);
  if (!t || t->dtype.isVoid())
    unsupported("input '" + node.input(i) + "' has unknown element type");
  return t->dtype;
}

std::vector<PrimExpr> NodeContext::shape(int i) const {
  rank(i);
  auto* t = as<TensorSInfo>(value(i).sinfo);
  if (!t->shape)
    unsupported("input '" + node.input(i) + "' has unknown shape");
  return *t->shape;
}

std::vector<int64_t> NodeContext::staticShape(int i, const char* why) const {
  std::vector<int64_t> out;
  for (auto& d : shape(i)) {
    auto c = asConstInt(d);
    if (!c)
      unsupported(std::string(why) + " needs a static shape of input '" + node.input(i) + "'");
    out.push_back(*c);
  }
  return out;
}

const Tensor* NodeContext::constant(int i) const {
  const Value& v = value(i);
  return v.data ? &*v.data : nullptr;
}

void NodeContext::needConstant(int i, const std::string& what) const {
  throw Unsupported{what + " (input '" + node.input(i) +
                        "') must be a constant; dynamic values are not supported",
                    node.input(i)};
}

std::vector<int64_t> NodeContext::constInts(int i, const char* what) const {
  const Tensor* t = constant(i);
  if (!t)
    needConstant(i, what);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t->numel(); ++k)
    out.push_back(intAt(*t, k));
  return out;
}

double NodeContext::constScalar(int i, const char* what) const {
  const Tensor* t = constant(i);
  if (!t)
    needConstant(i, what);
  if (t->numel() != 1)
    unsupported(std::string(what) + " must hold one value");
  return t->getDouble(0);
}

// ---- attributes ----

const onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (auto& a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

namespace {
[[noreturn]] void badAttr(const NodeContext& ctx, const onnx::AttributeProto& a, const char* want) {
  ctx.unsupported("attribute '" + a.name() + "' has type " +
                  onnx::AttributeProto::AttributeType_Name(a.type()) + ", expected " + want);
}
} // namespace

int64_t NodeContext::attrInt(const std::string& name, int64_t dflt) const {
  auto* a = attr(name);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::INT)
    badAttr(*this, *a, "INT");
  return a->i();
}

double NodeContext::attrFloat(const std::string& name, double dflt) const {
  auto* a = attr(name);
  if (!a)
    return dflt;
  if (a->type() == onnx::AttributeProto::INT)
    return static_cast<double>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT)
    badAttr(*this, *a, "FLOAT");
  return a->f();
}

std::string NodeContext::attrString(const std::string& name, const std::string& dflt) const {
  auto* a = attr(name);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::STRING)
    badAttr(*this, *a, "STRING");
  return a->s();
}

std::vector<int64_t> NodeContext::attrInts(const std::string& name,
                                           std::vector<int64_t> dflt) const {
  auto* a = attr(name);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::INTS)
    badAttr(*this, *a, "INTS");
  return {a->ints().begin(), a->ints().end()};
}

std::vector<double> NodeContext::attrFloats(const std::string& name) const {
  auto* a = attr(name);
  if (!a)
    return {};
  if (a->type() != onnx::AttributeProto::FLOATS)
    badAttr(*this, *a, "FLOATS");
  return {a->floats().begin(), a->floats().end()};
}

Tensor NodeContext::attrTensor(const std::string& name) const {
  auto* a = attr(name);
  if (!a || a->type() != onnx::AttributeProto::TENSOR)
    unsupported("attribute '" + name + "' must be a TENSOR");
  return tensorFromProto(a->t(), g_.modelDir, "node '" + name_ + "' attribute '" + name + "'");
}

// ---- emitting ----

Value NodeContext::bind(Expr value, StructInfo sinfo) {
  std::string hint = "lv" + std::to_string(g_.bindings.size());
  Var v = makeDataflowVar(hint, sinfo);
  Span span;
  span.origins = {origin()};
  g_.bindings.push_back(make<VarBinding>(v, std::move(value), span));
  return Value{v, sinfo, std::nullopt, std::nullopt};
}

namespace {

/// How much is known of a dimension: a constant beats any expression, then
/// the expression with fewer nodes (a bare variable before a derived one).
size_t dimCost(const PrimExpr& d) {
  if (asConstInt(d))
    return 0;
  size_t n = 0;
  walkPrimExpr(d, [&](const PrimExpr&) { ++n; });
  return n;
}

/// Two dimensions that may or may not be equal (neither provably equal nor
/// provably different, neither provably 1).
bool undecided(const PrimExpr& a, const PrimExpr& b, bool broadcast) {
  if (broadcast && (isConstInt(a, 1) || isConstInt(b, 1)))
    return false;
  return !op::arith::provablyEqual(a, b) && !op::arith::provablyDifferent(a, b);
}

} // namespace

/// The symbolic equalities an exporter takes for granted. A real model adds
/// an upsampled coarse map (2 * ceil(ceil(H / 2) / 2)...) to a skip
/// connection (ceil(H / 2)...), or multiplies a run-time reshaped tensor by
/// a weight of 120 channels: equal whenever the model is used as meant,
/// but not provably. As ONNX Runtime does, assume them and check at run
/// time: the operand whose dimension is less known is match_cast to carry
/// the better-known one, and a run in which they differ stops there with an
/// error naming the dimension. Dimensions that provably differ, and
/// broadcasting a dimension that is 1 only at run time, stay refused / an
/// error. Returns false when nothing was changed.
bool NodeContext::reconcileDims(const std::string& name, std::vector<Expr>& args,
                                const Attrs& attrs) {
  const op::OpInfo* info = op::findOp(name);
  if (!info)
    return false;
  bool matmul = name == "matmul", concat = name == "concat";
  bool conv = name == "nn.conv1d" || name == "nn.conv2d" || name == "nn.conv3d";
  bool squeeze = name == "squeeze" && attrs.has("axis");
  bool broadcast =
      info->pattern == op::OpPattern::Broadcast || info->pattern == op::OpPattern::ElemWise;
  if (!matmul && !concat && !conv && !squeeze && !broadcast)
    return false;
  // The tensors involved: each operand, or each field of concat's tuple.
  std::vector<Expr> slots;
  if (concat) {
    auto* t = args.empty() ? nullptr : as<Tuple>(args[0]);
    if (!t)
      return false;
    slots = t->fields;
  } else {
    slots = args;
  }
  std::vector<std::vector<PrimExpr>> shapes(slots.size());
  std::vector<bool> known(slots.size(), false);
  for (size_t i = 0; i < slots.size(); ++i)
    if (auto* t = as<TensorSInfo>(slots[i]->sinfo); t && t->shape) {
      shapes[i] = *t->shape;
      known[i] = true;
    }
  struct Dim {
    size_t slot;
    size_t pos;
  };
  std::vector<std::vector<Dim>> groups; // dims that must be equal (or 1, broadcasting)
  std::vector<bool> exact;              // per group: 1 does not broadcast
  // `tail` trailing dims of each operand are outside the broadcast.
  auto rightAligned = [&](size_t n, size_t tail) {
    size_t maxRank = 0;
    for (size_t i = 0; i < n; ++i)
      if (known[i])
        maxRank = std::max(maxRank, shapes[i].size() - std::min(shapes[i].size(), tail));
    for (size_t k = 0; k < maxRank; ++k) {
      std::vector<Dim> g;
      for (size_t i = 0; i < n; ++i)
        if (known[i] && shapes[i].size() >= std::min(shapes[i].size(), tail) + k + 1)
          g.push_back({i, shapes[i].size() - std::min(shapes[i].size(), tail) - 1 - k});
      groups.push_back(std::move(g));
      exact.push_back(false);
    }
  };
  // A dimension of a constant operand that another must equal times `mul`.
  PrimExpr convTarget;
  if (matmul) {
    if (slots.size() < 2 || !known[0] || !known[1] || shapes[0].empty() || shapes[1].empty())
      return false;
    groups.push_back(
        {{0, shapes[0].size() - 1}, {1, shapes[1].size() == 1 ? 0 : shapes[1].size() - 2}});
    exact.push_back(true);
    rightAligned(2, 2);
  } else if (concat) {
    int64_t axis = attrs.getInt("axis", 0);
    size_t rank = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!known[i])
        return false;
      if (i > 0 && shapes[i].size() != rank)
        return false;
      rank = shapes[i].size();
    }
    if (axis < 0)
      axis += static_cast<int64_t>(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) == axis)
        continue;
      std::vector<Dim> g;
      for (size_t i = 0; i < slots.size(); ++i)
        g.push_back({i, d});
      groups.push_back(std::move(g));
      exact.push_back(true);
    }
  } else if (conv) {
    if (slots.size() < 2 || !known[0] || !known[1] || shapes[0].size() < 2 || shapes[1].size() < 2)
      return false;
    convTarget = op::arith::simplify(shapes[1][1] * intImm(attrs.getInt("groups", 1)));
  } else if (!squeeze) {
    rightAligned(slots.size(), 0);
  }
  std::vector<bool> changed(slots.size(), false);
  auto assume = [&](PrimExpr& e, const PrimExpr& target, size_t slot, bool broadcast) {
    if (!undecided(e, target, broadcast))
      return;
    e = target;
    changed[slot] = true;
  };
  if (conv)
    assume(shapes[0][1], convTarget, 0, false);
  if (squeeze && !slots.empty() && known[0]) {
    auto rank = static_cast<int64_t>(shapes[0].size());
    for (int64_t a : attrs.getInts("axis"))
      if (a >= -rank && a < rank)
        assume(shapes[0][static_cast<size_t>(a < 0 ? a + rank : a)], intImm(1), 0, false);
  }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    // The best-known dimension of the group (that is not 1, broadcasting).
    std::optional<PrimExpr> best;
    for (auto& d : groups[gi]) {
      const PrimExpr& e = shapes[d.slot][d.pos];
      if ((exact[gi] || !isConstInt(e, 1)) && (!best || dimCost(e) < dimCost(*best)))
        best = e;
    }
    if (best)
      for (auto& d : groups[gi])
        assume(shapes[d.slot][d.pos], *best, d.slot, !exact[gi]);
  }
  bool any = false;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!changed[i])
      continue;
    if (as<Constant>(slots[i]))
      return false; // a constant's dims are constants: nothing to assume
    auto* t = as<TensorSInfo>(slots[i]->sinfo);
    Value v{slots[i], slots[i]->sinfo, std::nullopt, std::nullopt};
    slots[i] = matchCast(v, tensorSInfo(t->dtype, shapes[i])).expr;
    any = true;
  }
  if (!any)
    return false;
  if (concat) {
    std::vector<StructInfo> infos;
    for (auto& f : slots)
      infos.push_back(f->sinfo);
    args[0] = make<Tuple>(slots, tupleSInfo(infos));
  } else {
    args = slots;
  }
  return true;
}

Value NodeContext::op(const std::string& name, std::vector<Expr> args, Attrs attrs) {
  Span span;
  span.origins = {origin()};
  // Squeezing a dimension that is 1 only at run time (a Slice [0:1] of a
  // symbolic length): deduction accepts it, the kernel needs it static.
  if (name == "squeeze")
    reconcileDims(name, args, attrs);
  for (int attempt = 0;; ++attempt) {
    Expr c = op::callOp(name, args, attrs);
    auto* call = as<Call>(c);
    StructInfo sinfo;
    try {
      sinfo = op::deduceStructInfo(*call, span);
    } catch (const Error& e) {
      if (attempt == 0 && reconcileDims(name, args, attrs))
        continue;
      unsupported(e.message());
    }
    return bind(make<Call>(call->op, call->args, call->attrs, call->sinfoArgs, sinfo), sinfo);
  }
}

Value NodeContext::tupleItem(const Value& tuple, int index) {
  auto* t = as<TupleSInfo>(tuple.sinfo);
  if (!t || index >= static_cast<int>(t->fields.size()))
    unsupported("tuple item " + std::to_string(index) + " out of range");
  StructInfo s = t->fields[index];
  return bind(make<TupleGetItem>(tuple.expr, index, s), s);
}

Value NodeContext::constant(Tensor t) {
  Expr c = make<Constant>(t);
  return Value{c, c->sinfo, std::move(t), std::nullopt};
}

Value NodeContext::scalar(double v, DataType dt) {
  Tensor t(dt, {});
  t.setDouble(0, v);
  return constant(std::move(t));
}

void NodeContext::output(int i, Value v) {
  if (i >= node.output_size() || node.output(i).empty())
    return; // optional output not requested
  const std::string& onnxName = node.output(i);
  bool isGraphOutput = false;
  for (auto& o : g_.graphOutputs)
    isGraphOutput |= o == onnxName;
  std::string base = sanitizeName(onnxName);
  int& uses = g_.nameUses[base];
  std::string hint = uses++ ? base + "_" + std::to_string(uses - 1) : base;
  if (v.sym && !v.expr) {
    if (!isGraphOutput) {
      g_.values[onnxName] = std::move(v);
      return;
    }
    v.expr = materialize(v); // a graph output is a run-time tensor
  }
  bool lastOfMine =
      g_.bindings.size() > firstBinding_ && v.expr && sameNode(g_.bindings.back()->var, v.expr);
  if (lastOfMine) {
    auto& b = g_.bindings.back();
    Var nv = isGraphOutput ? makeVar(hint, v.sinfo) : makeDataflowVar(hint, v.sinfo);
    if (auto* mc = as<MatchCast>(b)) // a result whose extents a match_cast names
      g_.bindings.back() = make<MatchCast>(nv, b->value, mc->pattern, b->span);
    else
      g_.bindings.back() = make<VarBinding>(nv, b->value, b->span);
    v.expr = nv;
  } else if (isGraphOutput && isa<VarNode>(v.expr) && as<VarNode>(v.expr)->isDataflow()) {
    Var nv = makeVar(hint, v.sinfo);
    Span span;
    span.origins = {origin()};
    g_.bindings.push_back(make<VarBinding>(nv, v.expr, span));
    v.expr = nv;
  }
  g_.values[onnxName] = std::move(v);
}

} // namespace unity::frontend::detail

namespace unity::frontend::detail {

// ---- control flow (onnx_ops_control.cpp) ----

Value NodeContext::bindPlain(Expr value, StructInfo sinfo) {
  Var v = makeVar("lv" + std::to_string(g_.bindings.size()), sinfo);
  Span span;
  span.origins = {origin()};
  g_.bindings.push_back(make<VarBinding>(v, std::move(value), span));
  return Value{v, sinfo, std::nullopt, std::nullopt};
}

Value NodeContext::matchCast(const Value& v, StructInfo pattern) {
  Var mv = makeDataflowVar("lv" + std::to_string(g_.bindings.size()), pattern);
  Span span;
  span.origins = {origin()};
  g_.bindings.push_back(make<MatchCast>(mv, v.expr, pattern, span));
  return Value{mv, pattern, std::nullopt, std::nullopt};
}

void NodeContext::append(const std::vector<Binding>& bindings) {
  g_.bindings.insert(g_.bindings.end(), bindings.begin(), bindings.end());
}

size_t NodeContext::bindingCount() const { return g_.bindings.size(); }

std::vector<Binding> NodeContext::takeBindings(size_t from) {
  std::vector<Binding> out(g_.bindings.begin() + static_cast<std::ptrdiff_t>(from),
                           g_.bindings.end());
  g_.bindings.resize(from);
  return out;
}

const onnx::GraphProto& NodeContext::graphAttr(const std::string& name) const {
  auto* a = attr(name);
  if (!a)
    throw Error("the graph attribute '" + name + "' is missing");
  if (a->type() != onnx::AttributeProto::GRAPH || !a->has_g())
    throw Error("attribute '" + name + "' has type " +
                onnx::AttributeProto::AttributeType_Name(a->type()) + ", expected GRAPH");
  return a->g();
}

Subgraph NodeContext::subgraph(const onnx::GraphProto& graph, const std::vector<Value>& inputs,
                               bool isolated) const {
  if (!g_.subgraph)
    unsupported("subgraphs are not supported here");
  return g_.subgraph(graph, inputs, isolated, *this);
}

Expr NodeContext::addFunction(const std::string& hint, BaseFunc f) {
  if (!g_.functions)
    unsupported("no module to add the function '" + hint + "' to");
  std::string base = sanitizeName(hint), name = base;
  auto taken = [&](const std::string& n) {
    for (auto& [k, _] : *g_.functions)
      if (k == n)
        return true;
    return n == "main";
  };
  for (int i = 1; taken(name); ++i)
    name = base + "_" + std::to_string(i);
  g_.functions->emplace_back(name, std::move(f));
  return make<GlobalVar>(name);
}

Expr NodeContext::exprOf(const std::string& name) {
  auto it = g_.values.find(name);
  if (it == g_.values.end())
    throw Error("node '" + name_ + "' uses undefined value '" + name + "'");
  if (!it->second.expr && it->second.sym) {
    it->second.expr = materialize(it->second);
    g_.materialized.push_back(name);
  }
  return it->second.expr;
}

} // namespace unity::frontend::detail
