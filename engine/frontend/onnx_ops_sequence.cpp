// ONNX sequence and optional values: SequenceConstruct, SequenceEmpty,
// SequenceInsert, SequenceAt, SequenceErase, SequenceLength, SequenceMap,
// Optional, OptionalHasElement, OptionalGetElement.
//
// A sequence's length is a run-time value, so a sequence is not a tuple: it
// is a value of Object struct info, built and read by the seq.* / optional.*
// operators the executor runs (op/ops_sequence.cpp). The importer keeps
// what the value holds on its side (Value::container: the element's dtype,
// rank and dims, as the model declares them or as the inserted tensors
// have them). A tensor read from a sequence (SequenceAt, OptionalGetElement)
// gets the element's shape through a match_cast: known dims are checked at
// run time, unknown ones are fresh shape variables `<output>_d<k>`.
// SequenceMap's body becomes a graph-level function called by seq.map once
// per element (its sequence inputs' elements as parameters, so their dims
// are bound at each call).
#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/support/error.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

ElemType joinElem(const ElemType& a, const ElemType& b) {
  ElemType out;
  out.dtype = a.dtype == b.dtype ? a.dtype : DataType::Void();
  if (a.ndim != b.ndim || a.ndim < 0)
    return out;
  out.ndim = a.ndim;
  for (int d = 0; d < a.ndim; ++d)
    out.dims.push_back(a.dims[d] && b.dims[d] && sameDim(*a.dims[d], *b.dims[d]) ? a.dims[d]
                                                                                 : std::nullopt);
  return out;
}

bool sameElem(const ElemType& a, const ElemType& b) {
  if (!(a.dtype == b.dtype) || a.ndim != b.ndim)
    return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.dims[d].has_value() != b.dims[d].has_value() ||
        (a.dims[d] && !sameDim(*a.dims[d], *b.dims[d])))
      return false;
  return true;
}

/// The element type of a tensor's struct info; `keepSymbolic` false keeps
/// only constant dims (for shapes that mean nothing outside a body).
ElemType elemOf(const StructInfo& s, bool keepSymbolic = true) {
  ElemType e;
  auto* t = as<TensorSInfo>(s);
  if (!t)
    return e;
  e.dtype = t->dtype;
  e.ndim = t->ndim;
  for (int d = 0; d < t->ndim; ++d) {
    std::optional<PrimExpr> dim;
    if (t->shape && (keepSymbolic || asConstInt((*t->shape)[d])))
      dim = (*t->shape)[d];
    e.dims.push_back(dim);
  }
  return e;
}

/// The element as struct info with fresh variables `hint_d<k>` for unknown
/// dims (a body parameter or a match_cast pattern).
StructInfo elemSInfo(const ElemType& e, const std::string& hint) {
  if (e.ndim < 0)
    return tensorSInfo(e.dtype, -1);
  std::vector<PrimExpr> shape;
  for (int d = 0; d < e.ndim; ++d)
    shape.push_back(e.dims[d] ? *e.dims[d]
                              : PrimExpr(primVar(sanitizeName(hint) + "_d" + std::to_string(d))));
  return tensorSInfo(e.dtype, shape);
}

ContainerRef sequenceOf(ElemType e) {
  auto c = std::make_shared<ContainerType>();
  c->kind = ContainerType::Kind::Sequence;
  c->elem = std::move(e);
  return c;
}

const ContainerType& containerIn(const NodeContext& c, int i, ContainerType::Kind kind) {
  const Value& v = c.value(i);
  if (!v.container || v.container->kind != kind)
    c.unsupported("input '" + c.node.input(i) + "' must be " +
                  (kind == ContainerType::Kind::Sequence ? "a sequence" : "an optional"));
  return *v.container;
}

Value builtin(NodeContext& c, const std::string& op, std::vector<Expr> args, StructInfo s,
              Attrs attrs = {}) {
  return c.bind(
      make<Call>(opRef(op), std::move(args), std::move(attrs), std::vector<StructInfo>{s}, s), s);
}

Value withContainer(Value v, ContainerRef c) {
  v.container = std::move(c);
  return v;
}

/// A tensor read out of a container, given the element's shape.
Value readElement(NodeContext& c, Value v, const ElemType& e) {
  if (e.ndim < 0)
    return v;
  return c.matchCast(v, elemSInfo(e, c.node.output(0)));
}

Expr position(NodeContext& c, int i) {
  if (c.rank(i) > 1 || !c.dtype(i).isIntegral())
    c.unsupported("the position must be an integer scalar");
  return c.in(i).expr;
}

void sequenceConstruct(NodeContext& c) {
  if (c.numInputs() == 0)
    throw Error("SequenceConstruct needs at least one tensor");
  std::vector<Expr> args;
  ElemType e;
  for (int i = 0; i < c.numInputs(); ++i) {
    c.rank(i); // a tensor
    args.push_back(c.in(i).expr);
    ElemType k = elemOf(c.in(i).sinfo);
    e = i == 0 ? k : joinElem(e, k);
  }
  c.output(0, withContainer(builtin(c, "seq.construct", args, objectSInfo()), sequenceOf(e)));
}

void sequenceEmpty(NodeContext& c) {
  ElemType e;
  auto dt = dtypeFromOnnx(static_cast<int>(c.attrInt("dtype", onnx::TensorProto::FLOAT)));
  if (!dt)
    c.unsupported("dtype " + std::to_string(c.attrInt("dtype", 0)) + " is not supported");
  e.dtype = *dt;
  c.output(0, withContainer(builtin(c, "seq.empty", {}, objectSInfo()), sequenceOf(e)));
}

void sequenceInsert(NodeContext& c) {
  const ContainerType& s = containerIn(c, 0, ContainerType::Kind::Sequence);
  c.rank(1);
  std::vector<Expr> args{c.in(0).expr, c.in(1).expr};
  if (c.has(2))
    args.push_back(position(c, 2));
  // Inserting into an empty sequence of unknown rank: the tensor's type.
  ElemType k = elemOf(c.in(1).sinfo);
  ElemType e = s.elem.ndim < 0 && (s.elem.dtype.isVoid() || s.elem.dtype == k.dtype)
                   ? k
                   : joinElem(s.elem, k);
  c.output(0, withContainer(builtin(c, "seq.insert", args, objectSInfo()), sequenceOf(e)));
}

void sequenceAt(NodeContext& c) {
  const ContainerType& s = containerIn(c, 0, ContainerType::Kind::Sequence);
  Value v =
      builtin(c, "seq.at", {c.in(0).expr, position(c, 1)}, tensorSInfo(s.elem.dtype, s.elem.ndim));
  c.output(0, readElement(c, v, s.elem));
}

void sequenceErase(NodeContext& c) {
  const ContainerType& s = containerIn(c, 0, ContainerType::Kind::Sequence);
  std::vector<Expr> args{c.in(0).expr};
  if (c.has(1))
    args.push_back(position(c, 1));
  c.output(0, withContainer(builtin(c, "seq.erase", args, objectSInfo()), sequenceOf(s.elem)));
}

void sequenceLength(NodeContext& c) {
  containerIn(c, 0, ContainerType::Kind::Sequence);
  c.output(0, builtin(c, "seq.length", {c.in(0).expr},
                      tensorSInfo(DataType::Int64(), std::vector<int64_t>{})));
}

void optionalOf(NodeContext& c) {
  auto o = std::make_shared<ContainerType>();
  o->kind = ContainerType::Kind::Optional;
  if (!c.has(0)) {
    auto* a = c.attr("type");
    if (!a || a->type() != onnx::AttributeProto::TYPE_PROTO)
      throw Error("an Optional without input needs the attribute 'type'");
    onnx::TypeProto t;
    *t.mutable_optional_type()->mutable_elem_type() = a->tp();
    ContainerRef declared = containerFromType(t, [](const std::string&) { return std::nullopt; });
    c.output(0, withContainer(builtin(c, "optional.none", {}, objectSInfo()), declared));
    return;
  }
  const Value& x = c.in(0);
  if (x.container) {
    if (x.container->kind != ContainerType::Kind::Sequence)
      c.unsupported("an optional of an optional");
    o->inner = x.container;
  } else {
    c.rank(0);
    o->elem = elemOf(x.sinfo);
  }
  c.output(0, withContainer(builtin(c, "optional.wrap", {x.expr}, objectSInfo()), o));
}

void optionalHasElement(NodeContext& c) {
  const Value& x = c.value(0);
  if (!x.container || x.container->kind != ContainerType::Kind::Optional) {
    // A tensor or sequence given where an optional is expected holds a value.
    Tensor t(DataType::Bool(), {});
    t.setDouble(0, 1);
    c.output(0, NodeContext::constant(t));
    return;
  }
  c.output(0, builtin(c, "optional.has", {c.in(0).expr},
                      tensorSInfo(DataType::Bool(), std::vector<int64_t>{})));
}

void optionalGetElement(NodeContext& c) {
  const Value& x = c.value(0);
  if (!x.container || x.container->kind != ContainerType::Kind::Optional) {
    c.output(0, c.in(0)); // a plain value is its own element
    return;
  }
  ContainerRef o = x.container;
  if (o->inner) {
    c.output(0, withContainer(builtin(c, "optional.get", {c.in(0).expr}, objectSInfo()), o->inner));
    return;
  }
  Value v = builtin(c, "optional.get", {c.in(0).expr}, tensorSInfo(o->elem.dtype, o->elem.ndim));
  c.output(0, readElement(c, v, o->elem));
}

void sequenceMap(NodeContext& c) {
  const onnx::GraphProto& body = c.graphAttr("body");
  if (body.input_size() != c.numInputs())
    throw Error("the body has " + std::to_string(body.input_size()) + " inputs, the node " +
                std::to_string(c.numInputs()));
  if (body.output_size() != c.node.output_size())
    throw Error("the body has " + std::to_string(body.output_size()) + " outputs, the node " +
                std::to_string(c.node.output_size()));
  containerIn(c, 0, ContainerType::Kind::Sequence);
  std::vector<Value> inputs;
  std::vector<Var> params;
  std::vector<Expr> args;
  std::vector<int64_t> mask;
  for (int i = 0; i < c.numInputs(); ++i) {
    const Value& v = c.in(i);
    std::string name = sanitizeName(body.input(i).name());
    StructInfo s;
    if (v.container) {
      if (v.container->kind != ContainerType::Kind::Sequence)
        c.unsupported("SequenceMap input " + std::to_string(i) + " is an optional");
      s = elemSInfo(v.container->elem, name);
    } else {
      c.rank(i);
      s = v.sinfo;
    }
    Var p = makeVar(name, s);
    params.push_back(p);
    inputs.push_back(Value{p, s, std::nullopt, std::nullopt, nullptr});
    args.push_back(v.expr);
    mask.push_back(v.container ? 1 : 0);
  }
  Subgraph s = c.subgraph(body, inputs, true);
  std::vector<Expr> outs;
  std::vector<StructInfo> outInfo, results;
  std::vector<ContainerRef> seqs;
  for (size_t k = 0; k < s.outputs.size(); ++k) {
    const Value& o = s.outputs[k];
    if (o.container || !isa<TensorSInfo>(o.sinfo))
      c.unsupported("SequenceMap body output " + std::to_string(k) + " must be a tensor");
    outs.push_back(o.expr);
    outInfo.push_back(o.sinfo);
    results.push_back(objectSInfo());
    seqs.push_back(sequenceOf(elemOf(o.sinfo, false)));
  }
  params.insert(params.end(), s.capturedParams.begin(), s.capturedParams.end());
  Expr fbody = makeSeq(s.bindings, make<Tuple>(outs, tupleSInfo(outInfo)));
  Expr gv = c.addFunction(c.name() + "_body", make<Function>(params, fbody, nullptr));
  std::vector<Expr> captured;
  std::vector<StructInfo> capturedInfo;
  for (auto& n : s.captured) {
    captured.push_back(c.exprOf(n));
    capturedInfo.push_back(captured.back()->sinfo);
  }
  std::vector<StructInfo> argInfo;
  for (auto& a : args)
    argInfo.push_back(a->sinfo);
  StructInfo rs = tupleSInfo(results);
  Value r = builtin(
      c, "seq.map",
      {gv, make<Tuple>(args, tupleSInfo(argInfo)), make<Tuple>(captured, tupleSInfo(capturedInfo))},
      rs, Attrs{{"sequence_inputs", mask}});
  for (int k = 0; k < c.node.output_size(); ++k)
    c.output(k, withContainer(c.tupleItem(r, k), seqs[k]));
}

} // namespace

ContainerRef
containerFromType(const onnx::TypeProto& type,
                  const std::function<std::optional<PrimExpr>(const std::string&)>& dimParam) {
  auto tensorElem = [&](const onnx::TypeProto& t) {
    if (!t.has_tensor_type())
      throw Unsupported("only sequences and optionals of tensors (or of a sequence of tensors) "
                        "are supported");
    auto& tt = t.tensor_type();
    ElemType e;
    e.dtype = dtypeFromOnnx(tt.elem_type()).value_or(DataType::Void());
    if (!tt.has_shape())
      return e;
    e.ndim = tt.shape().dim_size();
    for (auto& d : tt.shape().dim()) {
      std::optional<PrimExpr> dim;
      if (d.has_dim_value() && d.dim_value() >= 0)
        dim = intImm(d.dim_value());
      else if (d.has_dim_param() && !d.dim_param().empty())
        dim = dimParam(d.dim_param());
      e.dims.push_back(dim);
    }
    return e;
  };
  if (type.has_sequence_type()) {
    if (!type.sequence_type().has_elem_type())
      return sequenceOf(ElemType{});
    return sequenceOf(tensorElem(type.sequence_type().elem_type()));
  }
  if (type.has_optional_type()) {
    auto o = std::make_shared<ContainerType>();
    o->kind = ContainerType::Kind::Optional;
    auto& et = type.optional_type().elem_type();
    if (et.has_sequence_type())
      o->inner = containerFromType(et, dimParam);
    else
      o->elem = tensorElem(et);
    return o;
  }
  if (type.has_tensor_type())
    return nullptr;
  throw Unsupported("maps and sparse tensors are not supported");
}

bool sameContainer(const ContainerRef& a, const ContainerRef& b) {
  if (!a || !b)
    return !a && !b;
  if (a->kind != b->kind || !sameElem(a->elem, b->elem))
    return false;
  return sameContainer(a->inner, b->inner);
}

ContainerRef joinContainers(const ContainerRef& a, const ContainerRef& b) {
  if (!a || !b)
    return nullptr;
  // A sequence where an optional sequence is expected is a present optional
  // (a Loop carrying an optional sequence whose body returns the sequence):
  // at run time a present optional is its value.
  for (auto [o, q] : {std::pair{a, b}, std::pair{b, a}})
    if (o->kind == ContainerType::Kind::Optional && o->inner &&
        q->kind == ContainerType::Kind::Sequence) {
      auto inner = joinContainers(o->inner, q);
      if (!inner)
        return nullptr;
      auto out = std::make_shared<ContainerType>(*o);
      out->inner = inner;
      return out;
    }
  if (a->kind != b->kind || bool(a->inner) != bool(b->inner))
    return nullptr;
  auto out = std::make_shared<ContainerType>();
  out->kind = a->kind;
  // An empty sequence of unknown rank takes the other's element type.
  if (a->elem.ndim < 0 && b->elem.ndim >= 0 && a->elem.dtype == b->elem.dtype)
    out->elem = b->elem;
  else if (b->elem.ndim < 0 && a->elem.ndim >= 0 && a->elem.dtype == b->elem.dtype)
    out->elem = a->elem;
  else
    out->elem = joinElem(a->elem, b->elem);
  if (a->inner) {
    out->inner = joinContainers(a->inner, b->inner);
    if (!out->inner)
      return nullptr;
  }
  return out;
}

void addSequenceConverters(ConverterTable& t) {
  t["SequenceConstruct"] = {sequenceConstruct, {}};
  t["SequenceEmpty"] = {sequenceEmpty, {"dtype"}};
  t["SequenceInsert"] = {sequenceInsert, {}};
  t["SequenceAt"] = {sequenceAt, {}};
  t["SequenceErase"] = {sequenceErase, {}};
  t["SequenceLength"] = {sequenceLength, {}};
  t["SequenceMap"] = {sequenceMap, {"body"}};
  t["Optional"] = {optionalOf, {"type"}};
  t["OptionalHasElement"] = {optionalHasElement, {}};
  t["OptionalGetElement"] = {optionalGetElement, {}};
}

} // namespace unity::frontend::detail
