#include "engine/runtime/kernel_call.h"

#include "engine/ir/functor.h"
#include "engine/support/error.h"

namespace unity::runtime {

using namespace ir;

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& msg) {
  throw Error("kernel '" + name + "': " + msg);
}

/// Integer value of a dimension expression under the bound variables.
int64_t evalDim(const std::string& name, const PrimExpr& e,
                const std::unordered_map<const PrimVar*, int64_t>& vars) {
  if (auto c = asConstInt(e))
    return *c;
  if (auto* v = as<PrimVar>(e)) {
    auto it = vars.find(v);
    if (it == vars.end())
      fail(name, "shape variable '" + v->name + "' is not bound by any dimension or scalar");
    return it->second;
  }
  if (auto* c = as<CastExpr>(e))
    return evalDim(name, c->value, vars);
  if (auto* b = as<BinaryExpr>(e)) {
    int64_t x = evalDim(name, b->a, vars), y = evalDim(name, b->b, vars);
    switch (b->op()) {
    case NodeKind::Add:
      return x + y;
    case NodeKind::Sub:
      return x - y;
    case NodeKind::Mul:
      return x * y;
    case NodeKind::Min:
      return std::min(x, y);
    case NodeKind::Max:
      return std::max(x, y);
    case NodeKind::Div:
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod: {
      if (y == 0)
        fail(name, "division by zero in a buffer dimension");
      int64_t q = x / y, r = x % y;
      if (b->op() == NodeKind::Div)
        return q;
      bool adjust = r != 0 && ((r < 0) != (y < 0));
      return b->op() == NodeKind::FloorDiv ? q - adjust : r + (adjust ? y : 0);
    }
    default:
      break;
    }
  }
  fail(name,
       std::string("unsupported expression in a buffer dimension (") + kindName(e->kind()) + ")");
}

std::string paramName(const PrimFunc::Param& p) {
  return p.buffer ? "buffer '" + p.buffer->name + "'" : "scalar '" + p.scalar->name + "'";
}

const char* statusText(int32_t rc) {
  switch (rc) {
  case kKernelBadArgCount:
    return "wrong argument count";
  case kKernelShapeMismatch:
    return "shape mismatch";
  case kKernelAllocFailed:
    return "out of memory for a local buffer";
  default:
    return "kernel error";
  }
}

} // namespace

std::unordered_map<const PrimVar*, int64_t>
bindShapes(const std::string& name, const PrimFuncRef& f, const std::vector<KernelArg>& args) {
  if (!f)
    fail(name, "no function");
  if (args.size() != f->params.size())
    fail(name, "expects " + std::to_string(f->params.size()) + " arguments, got " +
                   std::to_string(args.size()));
  std::unordered_map<const PrimVar*, int64_t> vars;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = f->params[i];
    if (p.scalar) {
      if (!args[i].isScalar)
        fail(name, "argument " + std::to_string(i) + " (" + paramName(p) + ") must be a number");
      if (p.scalar->dtype.isIntegral() || p.scalar->dtype.isBool())
        vars[p.scalar.get()] = args[i].intValue;
    } else if (args[i].isScalar || !args[i].tensor || !args[i].tensor->defined()) {
      fail(name, "argument " + std::to_string(i) + " (" + paramName(p) + ") must be a tensor");
    }
  }
  // Bare shape variables bind at their first occurrence; all else is checked.
  std::vector<std::tuple<size_t, int, PrimExpr>> deferred;
  for (size_t i = 0; i < args.size(); ++i) {
    const BufferRef& buf = f->params[i].buffer;
    if (!buf)
      continue;
    const Tensor& t = *args[i].tensor;
    if (t.dtype() != buf->dtype)
      fail(name, "argument " + std::to_string(i) + " (" + paramName(f->params[i]) + ") must be " +
                     buf->dtype.str() + ", got " + t.dtype().str());
    if (t.ndim() != buf->ndim())
      fail(name, "argument " + std::to_string(i) + " (" + paramName(f->params[i]) + ") must have " +
                     std::to_string(buf->ndim()) + " dimensions, got shape " +
                     Tensor::shapeStr(t.shape()));
    for (int k = 0; k < buf->ndim(); ++k) {
      auto* v = as<PrimVar>(buf->shape[k]);
      if (v && !vars.count(v))
        vars[v] = t.shape()[k];
      else
        deferred.emplace_back(i, k, buf->shape[k]);
    }
  }
  for (auto& [i, k, dim] : deferred) {
    int64_t expected = evalDim(name, dim, vars);
    int64_t actual = args[i].tensor->shape()[k];
    if (expected != actual)
      fail(name, "dimension " + std::to_string(k) + " of argument " + std::to_string(i) + " (" +
                     paramName(f->params[i]) + ") is " + std::to_string(actual) + ", expected " +
                     std::to_string(expected) + " (shape " +
                     Tensor::shapeStr(args[i].tensor->shape()) + ")");
  }
  return vars;
}

void callKernel(const CompiledModule& m, const std::string& name, const PrimFuncRef& f,
                const std::vector<KernelArg>& args) {
  auto fn = m.lookup(name);
  bindShapes(name, f, args);
  std::vector<void*> ptrs(args.size());
  std::vector<int64_t> shapes;
  // Scalars travel through 8-byte slots: int64 for integers, double for floats.
  union Slot {
    int64_t i;
    double d;
  };
  std::vector<Slot> slots(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = f->params[i];
    if (p.scalar) {
      if (p.scalar->dtype.isFloat())
        slots[i].d = args[i].floatValue;
      else
        slots[i].i = args[i].intValue;
      ptrs[i] = &slots[i];
    } else {
      ptrs[i] = args[i].tensor->mutableData();
      for (int64_t d : args[i].tensor->shape())
        shapes.push_back(d);
    }
  }
  int32_t rc = fn(ptrs.data(), shapes.data(), static_cast<int32_t>(args.size()));
  if (rc != 0)
    fail(name, std::string("returned ") + std::to_string(rc) + " (" + statusText(rc) + ")");
}

void callKernel(const CompiledModule& m, const std::string& name,
                const std::vector<KernelArg>& args) {
  PrimFuncRef f = m.function(name);
  if (!f)
    throw Error("compiled module has no kernel named '" + name + "'");
  callKernel(m, name, f, args);
}

} // namespace unity::runtime
