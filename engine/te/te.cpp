// Tensor handles, compute() and reductions. See te.h for the model and
// create_prim_func.cpp for the lowering to a PrimFunc.
//
// Two small tricks keep the builder free of global registries:
//  - every tensor's Buffer is a TeBuffer that points back (weakly) at the
//    tensor, so compute() finds the tensors its body reads by walking the
//    BufferLoads of the body and keeps them alive as its inputs;
//  - a reduction is a ReduceMarker, a PrimVar carrying the reducer, source and
//    axes; compute() recognises it as its whole body and rejects it anywhere
//    else. It never reaches a PrimFunc.
#include "engine/te/te.h"

#include <limits>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/te/te_internal.h"

namespace unity::te {

using namespace ir;

const std::string& Tensor::name() const { return d_->name; }
const std::vector<PrimExpr>& Tensor::shape() const { return d_->shape; }
DataType Tensor::dtype() const { return d_->dtype; }
bool Tensor::isPlaceholder() const { return d_->placeholder; }
const BufferRef& Tensor::buffer() const { return d_->buffer; }
const std::vector<Tensor>& Tensor::inputs() const { return d_->inputs; }

PrimExpr Tensor::operator()(std::vector<PrimExpr> indices) const {
  if (!d_)
    throw Error("te: element access of an undefined tensor");
  if (static_cast<int>(indices.size()) != ndim())
    throw Error("te: tensor '" + name() + "' has " + std::to_string(ndim()) +
                " dimensions but is indexed with " + std::to_string(indices.size()));
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i])
      throw Error("te: tensor '" + name() + "' indexed with a missing expression");
    if (!indices[i]->dtype.isIntegral())
      throw Error("te: tensor '" + name() + "' index " + std::to_string(i) + " has type " +
                  indices[i]->dtype.str() + ", expected an integer");
  }
  return make<BufferLoad>(d_->buffer, std::move(indices));
}

static void checkShape(const std::vector<PrimExpr>& shape, const std::string& what) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i])
      throw Error("te: " + what + " has a missing dimension " + std::to_string(i));
    if (!shape[i]->dtype.isIntegral())
      throw Error("te: " + what + " dimension " + std::to_string(i) + " has type " +
                  shape[i]->dtype.str() + ", expected an integer");
    if (auto c = asConstInt(shape[i]); c && *c < 0)
      throw Error("te: " + what + " dimension " + std::to_string(i) + " is negative (" +
                  std::to_string(*c) + ")");
  }
}

static Tensor finish(std::shared_ptr<TensorData> d) {
  d->buffer = make<TeBuffer>(d->name, d->dtype, d->shape, std::weak_ptr<const TensorData>(d));
  return Tensor(std::move(d));
}

Tensor placeholder(std::vector<PrimExpr> shape, DataType dtype, std::string name) {
  checkShape(shape, "placeholder '" + name + "'");
  if (!dtype.isScalar() || dtype.isVoid() || dtype.isHandle())
    throw Error("te: placeholder '" + name + "' has unsupported dtype " + dtype.str());
  auto d = std::make_shared<TensorData>();
  d->name = std::move(name);
  d->shape = std::move(shape);
  d->dtype = dtype;
  d->placeholder = true;
  return finish(std::move(d));
}

ReduceAxis reduceAxis(PrimExpr extent, std::string name) {
  if (!extent || !extent->dtype.isIntegral())
    throw Error("te: reduce axis '" + name + "' needs an integer extent");
  return ReduceAxis{primVar(std::move(name), extent->dtype),
                    Range{intImm(0, extent->dtype), extent}};
}

const char* reducerName(Reducer r) {
  switch (r) {
  case Reducer::Sum:
    return "sum";
  case Reducer::Prod:
    return "prod";
  case Reducer::Max:
    return "max";
  case Reducer::Min:
    return "min";
  }
  return "?";
}

// The most negative / positive finite value of a dtype (TVM's min_value /
// max_value): finite so that it prints and parses like any literal.
static PrimExpr lowest(DataType t) {
  if (t.isFloat()) {
    if (t.bits == 16)
      return floatImm(-65504.0, t);
    if (t.bits == 32)
      return floatImm(std::numeric_limits<float>::lowest(), t);
    return floatImm(std::numeric_limits<double>::lowest(), t);
  }
  if (t.isBool())
    return boolImm(false);
  if (t.isUInt())
    return intImm(0, t);
  if (t.bits >= 64)
    return intImm(std::numeric_limits<int64_t>::min(), t);
  return intImm(-(int64_t(1) << (t.bits - 1)), t);
}
static PrimExpr highest(DataType t) {
  if (t.isFloat()) {
    if (t.bits == 16)
      return floatImm(65504.0, t);
    if (t.bits == 32)
      return floatImm(std::numeric_limits<float>::max(), t);
    return floatImm(std::numeric_limits<double>::max(), t);
  }
  if (t.isBool())
    return boolImm(true);
  if (t.bits >= 64)
    return intImm(t.isUInt() ? -1 : std::numeric_limits<int64_t>::max(), t); // uint64 max as bits
  if (t.isUInt())
    return intImm((int64_t(1) << t.bits) - 1, t);
  return intImm((int64_t(1) << (t.bits - 1)) - 1, t);
}

PrimExpr reducerIdentity(Reducer r, DataType t) {
  switch (r) {
  case Reducer::Sum:
    return makeConst(t, 0);
  case Reducer::Prod:
    return makeConst(t, 1);
  case Reducer::Max:
    return lowest(t);
  case Reducer::Min:
    return highest(t);
  }
  throw Error("te: unknown reducer");
}

PrimExpr reducerCombine(Reducer r, PrimExpr acc, PrimExpr x) {
  switch (r) {
  case Reducer::Sum:
    return acc + x;
  case Reducer::Prod:
    return acc * x;
  case Reducer::Max:
    return ir::max(acc, x);
  case Reducer::Min:
    return ir::min(acc, x);
  }
  throw Error("te: unknown reducer");
}

const ReduceMarker* asReduceMarker(const PrimExpr& e) {
  return dynamic_cast<const ReduceMarker*>(as<PrimVar>(e));
}

PrimExpr reduce(Reducer r, PrimExpr value, std::vector<ReduceAxis> axes) {
  std::string what = std::string("te: ") + reducerName(r);
  if (!value)
    throw Error(what + " of a missing expression");
  if (asReduceMarker(value))
    throw Error(what + " of a reduction (nest them in two computes)");
  if (axes.empty())
    throw Error(what + " over no axes");
  for (auto& a : axes)
    if (!a.var || !a.dom.min || !a.dom.extent)
      throw Error(what + " over an incomplete axis");
  if (value->dtype.isBool() && r != Reducer::Max && r != Reducer::Min)
    throw Error(what + " of a bool expression (cast it first)");
  return make<ReduceMarker>(r, std::move(value), std::move(axes));
}

PrimExpr sum(PrimExpr v, std::vector<ReduceAxis> a) {
  return reduce(Reducer::Sum, v, std::move(a));
}
PrimExpr prod(PrimExpr v, std::vector<ReduceAxis> a) {
  return reduce(Reducer::Prod, v, std::move(a));
}
PrimExpr max(PrimExpr v, std::vector<ReduceAxis> a) {
  return reduce(Reducer::Max, v, std::move(a));
}
PrimExpr min(PrimExpr v, std::vector<ReduceAxis> a) {
  return reduce(Reducer::Min, v, std::move(a));
}

// Walks e; rejects nested reductions and collects the tensors read.
static void scanBody(const PrimExpr& e, const std::string& name, std::vector<Tensor>& inputs) {
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (asReduceMarker(x))
      throw Error("te: compute '" + name +
                  "': a reduction must be the whole body of a compute, not part of an expression");
    if (auto* load = as<BufferLoad>(x)) {
      auto* tb = dynamic_cast<const TeBuffer*>(load->buffer.get());
      std::shared_ptr<const TensorData> owner = tb ? tb->owner.lock() : nullptr;
      if (!owner)
        throw Error("te: compute '" + name + "' reads buffer '" + load->buffer->name +
                    "', which is not a live te tensor");
      for (auto& t : inputs)
        if (t.data() == owner.get())
          return;
      inputs.emplace_back(std::move(owner));
    }
  });
}

Tensor compute(std::vector<PrimExpr> shape, ComputeFn fn, std::string name, Attrs attrs) {
  checkShape(shape, "compute '" + name + "'");
  if (!fn)
    throw Error("te: compute '" + name + "' has no function");
  auto d = std::make_shared<TensorData>();
  d->name = std::move(name);
  d->attrs = std::move(attrs);
  std::vector<PrimExpr> axisExprs;
  for (size_t i = 0; i < shape.size(); ++i) {
    d->axes.push_back(primVar("i" + std::to_string(i), shape[i]->dtype));
    axisExprs.push_back(d->axes.back());
  }
  d->shape = std::move(shape);
  PrimExpr body = fn(axisExprs);
  if (!body)
    throw Error("te: compute '" + d->name + "' returned no expression");
  if (auto* m = asReduceMarker(body)) {
    d->reduce = ReduceData{m->reducer, m->source, m->axes};
    scanBody(m->source, d->name, d->inputs);
    for (auto& a : m->axes) {
      std::unordered_set<const PrimVar*> spatial;
      for (auto& v : d->axes)
        spatial.insert(v.get());
      for (const PrimExpr& e : {a.dom.min, a.dom.extent}) {
        scanBody(e, d->name, d->inputs);
        walkPrimExpr(e, [&](const PrimExpr& x) {
          if (spatial.count(as<PrimVar>(x)))
            throw Error("te: compute '" + d->name + "': the range of reduce axis '" + a.var->name +
                        "' depends on a spatial axis");
        });
      }
    }
    d->dtype = m->source->dtype;
  } else {
    scanBody(body, d->name, d->inputs);
    d->body = body;
    d->dtype = body->dtype;
  }
  if (!d->dtype.isScalar())
    throw Error("te: compute '" + d->name + "' has vector type " + d->dtype.str());
  return finish(std::move(d));
}

} // namespace unity::te
