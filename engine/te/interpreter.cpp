// The reference interpreter (see interpreter.h).
//
// Values: an expression of a float type evaluates to a double rounded to the
// type after every operation (float32 results pass through float), one of an
// integer or bool type to an int64 wrapped to the type's width after every
// operation (two's complement, like the hardware). So results match what
// compiled code computes, not what exact arithmetic would.
//
// Semantics follow TVM: Div truncates for integers, FloorDiv/FloorMod floor;
// Select evaluates both branches (guarded loads must use in-bounds indices,
// te's topi clamps them); `round` rounds half to even (nearbyint). A block
// binds its iteration variables to its bindings (checked against their
// domains), skips the instance when its predicate is false, and runs its
// init when every reduce iteration variable sits at its domain's minimum.
#include "engine/te/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include "engine/ir/intrinsics.h"
#include "engine/support/error.h"

namespace unity::te {

using namespace ir;

namespace {

struct Value {
  double f = 0;  // meaningful for float types
  int64_t i = 0; // meaningful for integer and bool types
};

int64_t wrap(int64_t v, DataType t) {
  if (t.isBool())
    return v != 0;
  if (t.bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.isInt() && (u >> (t.bits - 1)))
    u |= ~mask; // sign-extend
  return static_cast<int64_t>(u);
}

double roundTo(double v, DataType t) { return t.bits == 32 ? double(float(v)) : v; }

double toDouble(Value v, DataType t) {
  if (t.isFloat())
    return v.f;
  if (t.isUInt() && t.bits == 64)
    return double(static_cast<uint64_t>(v.i));
  return double(v.i);
}

Value fromDouble(double d, DataType t) {
  Value r;
  if (t.isFloat()) {
    r.f = roundTo(d, t);
  } else if (t.isBool()) {
    r.i = d != 0;
  } else {
    // float -> int truncates (C semantics); NaN becomes 0 and out-of-range saturates
    // instead of being undefined behaviour.
    if (std::isnan(d))
      d = 0;
    d = std::trunc(d);
    int64_t v;
    if (d >= 9.2233720368547758e18)
      v = std::numeric_limits<int64_t>::max();
    else if (d <= -9.2233720368547758e18)
      v = std::numeric_limits<int64_t>::min();
    else
      v = static_cast<int64_t>(d);
    r.i = wrap(v, t);
  }
  return r;
}

Value fromInt(int64_t v, DataType t) {
  Value r;
  if (t.isFloat())
    r.f = roundTo(double(v), t);
  else
    r.i = wrap(v, t);
  return r;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct Storage {
  unity::Tensor* tensor = nullptr; // a parameter
  unity::Tensor owned;             // an allocation
  unity::Tensor& t() { return tensor ? *tensor : owned; }
};

struct Region {
  const Buffer* buffer;
  std::vector<std::pair<int64_t, int64_t>> bounds; // [lo, hi)
};

struct BlockFrame {
  const Block* block;
  bool check;
  std::vector<Region> reads, writes;
  std::vector<const Buffer*> allocs;
};

class Interpreter {
public:
  Interpreter(std::string where, const InterpretOptions& opt)
      : where_(std::move(where)), opt_(opt) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw Error("interpretPrimFunc '" + where_ + "': " + msg);
  }

  void bindVar(const PrimVar* v, Value x) { vars_[v] = x; }
  void unbindVar(const PrimVar* v) { vars_.erase(v); }
  bool isBound(const PrimVar* v) const { return vars_.count(v) != 0; }
  void bindBuffer(const Buffer* b, unity::Tensor* t) { buffers_[b].tensor = t; }

  int64_t evalInt(const PrimExpr& e) {
    if (!e->dtype.isIntegral() && !e->dtype.isBool())
      fail("expected an integer expression, got type " + e->dtype.str());
    return eval(e).i;
  }

  Value eval(const PrimExpr& e) {
    if (!e)
      fail("missing expression");
    if (!e->dtype.isScalar())
      fail("vector type " + e->dtype.str() + " is not supported");
    DataType t = e->dtype;
    switch (e->kind()) {
    case NodeKind::IntImm:
      return fromInt(as<IntImm>(e)->value, t);
    case NodeKind::FloatImm:
      return fromDouble(as<FloatImm>(e)->value, t);
    case NodeKind::PrimVar: {
      auto it = vars_.find(as<PrimVar>(e));
      if (it == vars_.end())
        fail("variable '" + as<PrimVar>(e)->name + "' is not bound");
      return it->second;
    }
    case NodeKind::Not:
      return fromInt(!eval(as<NotExpr>(e)->a).i, t);
    case NodeKind::Select: {
      auto* s = as<Select>(e);
      Value c = eval(s->cond), a = eval(s->t), b = eval(s->f); // eager, like TVM's Select
      return c.i ? a : b;
    }
    case NodeKind::Cast: {
      auto* c = as<CastExpr>(e);
      Value v = eval(c->value);
      DataType from = c->value->dtype;
      if (from.isFloat())
        return fromDouble(v.f, t);
      if (t.isFloat())
        return fromDouble(toDouble(v, from), t);
      return fromInt(v.i, t);
    }
    case NodeKind::BufferLoad: {
      auto* l = as<BufferLoad>(e);
      return load(l->buffer.get(), l->indices);
    }
    case NodeKind::PrimCall:
      return evalCall(as<PrimCall>(e));
    case NodeKind::PrimLet: {
      auto* l = as<PrimLet>(e);
      Value v = eval(l->value);
      auto saved = vars_.find(l->var.get());
      std::optional<Value> old;
      if (saved != vars_.end())
        old = saved->second;
      bindVar(l->var.get(), v);
      Value r = eval(l->body);
      if (old)
        bindVar(l->var.get(), *old);
      else
        unbindVar(l->var.get());
      return r;
    }
    default:
      break;
    }
    if (auto* b = as<BinaryExpr>(e))
      return evalBinary(b);
    fail(std::string("unsupported expression kind ") + kindName(e->kind()));
  }

  Value evalBinary(const BinaryExpr* b) {
    DataType t = b->dtype, ot = b->a->dtype;
    Value x = eval(b->a), y = eval(b->b);
    NodeKind op = b->op();
    if (isComparison(op)) {
      bool r = ot.isFloat() || (ot.isUInt() && ot.bits == 64)
                   ? compareValues(op, toDouble(x, ot), toDouble(y, ot))
                   : compareValues(op, x.i, y.i);
      return fromInt(r, t);
    }
    if (op == NodeKind::And)
      return fromInt(x.i && y.i, t);
    if (op == NodeKind::Or)
      return fromInt(x.i || y.i, t);
    if (t.isFloat()) {
      double p = x.f, q = y.f, r = 0;
      switch (op) {
      case NodeKind::Add:
        r = p + q;
        break;
      case NodeKind::Sub:
        r = p - q;
        break;
      case NodeKind::Mul:
        r = p * q;
        break;
      case NodeKind::Div:
        r = p / q;
        break;
      case NodeKind::Min:
        r = std::fmin(p, q);
        break;
      case NodeKind::Max:
        r = std::fmax(p, q);
        break;
      default:
        fail(std::string("operator ") + binaryOpSymbol(op) + " on " + t.str());
      }
      return fromDouble(r, t);
    }
    uint64_t p = static_cast<uint64_t>(x.i), q = static_cast<uint64_t>(y.i);
    bool u = t.isUInt();
    auto divCheck = [&] {
      if (y.i == 0)
        fail(std::string("integer division by zero in '") + binaryOpSymbol(op) + "'");
    };
    switch (op) {
    case NodeKind::Add:
      return fromInt(static_cast<int64_t>(p + q), t);
    case NodeKind::Sub:
      return fromInt(static_cast<int64_t>(p - q), t);
    case NodeKind::Mul:
      return fromInt(static_cast<int64_t>(p * q), t);
    case NodeKind::Div:
      divCheck();
      if (u)
        return fromInt(static_cast<int64_t>(p / q), t);
      if (x.i == std::numeric_limits<int64_t>::min() && y.i == -1)
        return fromInt(x.i, t);
      return fromInt(x.i / y.i, t);
    case NodeKind::FloorDiv:
      divCheck();
      if (u)
        return fromInt(static_cast<int64_t>(p / q), t);
      if (x.i == std::numeric_limits<int64_t>::min() && y.i == -1)
        return fromInt(x.i, t);
      return fromInt(floorDiv(x.i, y.i), t);
    case NodeKind::FloorMod:
      divCheck();
      if (u)
        return fromInt(static_cast<int64_t>(p % q), t);
      if (y.i == -1)
        return fromInt(0, t);
      return fromInt(x.i - floorDiv(x.i, y.i) * y.i, t);
    case NodeKind::Min:
      return u ? fromInt(static_cast<int64_t>(std::min(p, q)), t) : fromInt(std::min(x.i, y.i), t);
    case NodeKind::Max:
      return u ? fromInt(static_cast<int64_t>(std::max(p, q)), t) : fromInt(std::max(x.i, y.i), t);
    default:
      break;
    }
    fail(std::string("operator ") + binaryOpSymbol(op) + " on " + t.str());
  }

  /// The tensor of each parameter, by parameter index (null for scalars):
  /// what arg_dim reads in a packed function.
  void setArguments(const PrimFunc* f, std::vector<unity::Tensor*> byParam) {
    func_ = f;
    argsByParam_ = std::move(byParam);
  }

  /// arg_dim(i, k) and assert_dim(c, i, k) of a packed function (MakePackedAPI).
  Value evalCallingConv(const PrimCall* c) {
    if (!func_)
      fail("intrinsic '" + c->op + "' outside a function call");
    auto named = packedArgDim(*func_, *c);
    if (!named.error.empty())
      fail(named.error);
    const int64_t i = named.param, k = named.dim;
    if (i >= static_cast<int64_t>(argsByParam_.size()) || !argsByParam_[i])
      fail("intrinsic '" + c->op + "' names parameter " + std::to_string(i) +
           ", which was given no tensor");
    const unity::Tensor* t = argsByParam_[i];
    if (k < 0 || k >= t->ndim())
      fail("intrinsic '" + c->op + "' names dimension " + std::to_string(k) + " of parameter " +
           std::to_string(i) + ", which has rank " + std::to_string(t->ndim()));
    int64_t actual = t->shape()[k];
    if (c->op == kArgDimIntrinsic)
      return fromInt(actual, c->dtype);
    if (evalInt(c->args[0]))
      return fromInt(1, c->dtype);
    std::string what = "parameter " + std::to_string(i) + " ('" + func_->params[i].buffer->name +
                       "') dimension " + std::to_string(k) + " is " + std::to_string(actual);
    // The form MakePackedAPI writes: arg_dim(i, k) == expected.
    auto* eq = as<BinaryExpr>(c->args[0]);
    if (eq && eq->op() == NodeKind::EQ)
      if (auto* lhs = as<PrimCall>(eq->a); lhs && lhs->op == kArgDimIntrinsic)
        fail(what + ", expected " + std::to_string(evalInt(eq->b)));
    fail(what + ", which fails its shape check");
  }

  /// The bits of v (of type from) read as type to, of the same width.
  Value reinterpretBits(Value v, DataType from, DataType to) {
    Value r;
    if (from.bits == 32 && to.bits == 32) {
      uint32_t bits;
      if (from.isFloat()) {
        float f = static_cast<float>(v.f);
        std::memcpy(&bits, &f, 4);
      } else {
        bits = static_cast<uint32_t>(v.i);
      }
      if (to.isFloat()) {
        float f;
        std::memcpy(&f, &bits, 4);
        r.f = f;
      } else {
        r.i = static_cast<int32_t>(bits);
      }
      return r;
    }
    if (from.bits == 64 && to.bits == 64) {
      uint64_t bits;
      if (from.isFloat())
        std::memcpy(&bits, &v.f, 8);
      else
        bits = static_cast<uint64_t>(v.i);
      if (to.isFloat())
        std::memcpy(&r.f, &bits, 8);
      else
        r.i = static_cast<int64_t>(bits);
      return r;
    }
    fail("intrinsic 'reinterpret' from " + from.str() + " to " + to.str() + " is not supported");
  }

  Value evalCall(const PrimCall* c) {
    if (c->op == kArgDimIntrinsic || c->op == kAssertDimIntrinsic)
      return evalCallingConv(c);
    if (c->op == kPrefetchIntrinsic)
      return fromInt(0, c->dtype); // a hint: its element is not read
    if (c->op == kReinterpretIntrinsic)
      return reinterpretBits(eval(c->args[0]), c->args[0]->dtype, c->dtype);
    std::vector<double> a;
    for (auto& arg : c->args)
      a.push_back(toDouble(eval(arg), arg->dtype));
    const std::string& n = c->op;
    double x = a.empty() ? 0 : a[0], r;
    if (n == "exp")
      r = std::exp(x);
    else if (n == "log")
      r = std::log(x);
    else if (n == "sqrt")
      r = std::sqrt(x);
    else if (n == "rsqrt")
      r = 1.0 / std::sqrt(x);
    else if (n == "tanh")
      r = std::tanh(x);
    else if (n == "sigmoid")
      r = 1.0 / (1.0 + std::exp(-x));
    else if (n == "erf")
      r = std::erf(x);
    else if (n == "fabs")
      r = std::fabs(x);
    else if (n == "floor")
      r = std::floor(x);
    else if (n == "ceil")
      r = std::ceil(x);
    else if (n == "round")
      r = std::nearbyint(x);
    else if (n == "trunc")
      r = std::trunc(x);
    else if (n == "sin")
      r = std::sin(x);
    else if (n == "cos")
      r = std::cos(x);
    else if (n == "tan")
      r = std::tan(x);
    else if (n == "asin")
      r = std::asin(x);
    else if (n == "acos")
      r = std::acos(x);
    else if (n == "atan")
      r = std::atan(x);
    else if (n == "sinh")
      r = std::sinh(x);
    else if (n == "cosh")
      r = std::cosh(x);
    else if (n == "asinh")
      r = std::asinh(x);
    else if (n == "acosh")
      r = std::acosh(x);
    else if (n == "atanh")
      r = std::atanh(x);
    else if (n == "log2")
      r = std::log2(x);
    else if (n == "log1p")
      r = std::log1p(x);
    else if (n == "expm1")
      r = std::expm1(x);
    else if (n == "isnan")
      r = std::isnan(x);
    else if (n == "isinf")
      r = std::isinf(x);
    else if (n == "pow")
      r = std::pow(x, a[1]);
    else if (n == "fmod")
      r = std::fmod(x, a[1]);
    else if (n == "atan2")
      r = std::atan2(x, a[1]);
    else
      fail("intrinsic '" + n + "' is not supported");
    return fromDouble(r, c->dtype);
  }

  // ---- buffers ----
  unity::Tensor& storage(const Buffer* b) {
    auto it = buffers_.find(b);
    if (it == buffers_.end())
      fail("buffer '" + b->name + "' is neither a parameter nor allocated here");
    return it->second.t();
  }

  int64_t flatIndex(const Buffer* b, const std::vector<PrimExpr>& indices,
                    std::vector<int64_t>& idx, const char* verb) {
    unity::Tensor& t = storage(b);
    idx.clear();
    for (auto& i : indices)
      idx.push_back(evalInt(i));
    if (idx.size() == 1 && t.shape().size() != 1) {
      // A flattened access (FlattenBuffers): the row-major offset itself.
      if (idx[0] < 0 || idx[0] >= t.numel())
        fail(std::string(verb) + " of buffer '" + b->name + "' at flat offset " +
             std::to_string(idx[0]) + " is out of bounds for shape " +
             unity::Tensor::shapeStr(t.shape()));
      return idx[0];
    }
    if (idx.size() != t.shape().size())
      fail(std::string(verb) + " of buffer '" + b->name + "' with wrong rank");
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (idx[d] < 0 || idx[d] >= t.shape()[d])
        fail(std::string(verb) + " of buffer '" + b->name + "' at " + unity::Tensor::shapeStr(idx) +
             " is out of bounds for shape " + unity::Tensor::shapeStr(t.shape()));
      flat = flat * t.shape()[d] + idx[d];
    }
    return flat;
  }

  Value load(const Buffer* b, const std::vector<PrimExpr>& indices) {
    std::vector<int64_t> idx;
    int64_t flat = flatIndex(b, indices, idx, "load");
    checkAccess(b, idx, false);
    unity::Tensor& t = storage(b);
    DataType dt = b->dtype;
    const char* p = static_cast<const char*>(t.data()) + flat * dt.bytes();
    if (dt.isFloat()) {
      if (dt.bits == 32) {
        float f;
        std::memcpy(&f, p, 4);
        return fromDouble(f, dt);
      }
      if (dt.bits == 64) {
        double f;
        std::memcpy(&f, p, 8);
        return fromDouble(f, dt);
      }
    } else if (dt.isBool()) {
      return fromInt(*reinterpret_cast<const uint8_t*>(p) != 0, dt);
    } else if (dt.isIntegral()) {
      int64_t v = 0;
      std::memcpy(&v, p, dt.bytes()); // little endian; wrap() sign-extends
      return fromInt(v, dt);
    }
    fail("loads of dtype " + dt.str() + " are not supported");
  }

  void store(const BufferStore* s) {
    const Buffer* b = s->buffer.get();
    Value v = eval(s->value);
    std::vector<int64_t> idx;
    int64_t flat = flatIndex(b, s->indices, idx, "store");
    checkAccess(b, idx, true);
    unity::Tensor& t = storage(b);
    DataType dt = b->dtype;
    char* p = static_cast<char*>(t.mutableData()) + flat * dt.bytes();
    if (dt.isFloat()) {
      if (dt.bits == 32) {
        float f = float(v.f);
        std::memcpy(p, &f, 4);
        return;
      }
      if (dt.bits == 64) {
        std::memcpy(p, &v.f, 8);
        return;
      }
    } else if (dt.isBool()) {
      *reinterpret_cast<uint8_t*>(p) = v.i != 0;
      return;
    } else if (dt.isIntegral()) {
      std::memcpy(p, &v.i, dt.bytes());
      return;
    }
    fail("stores of dtype " + dt.str() + " are not supported");
  }

  void allocate(const Buffer* b) {
    if (!b->dtype.isScalar())
      fail("buffer '" + b->name + "' has vector type " + b->dtype.str());
    std::vector<int64_t> shape;
    for (auto& d : b->shape) {
      shape.push_back(evalInt(d));
      if (shape.back() < 0)
        fail("buffer '" + b->name + "' has a negative dimension");
    }
    unity::Tensor t(b->dtype, shape);
    if (b->dtype.isFloat())
      for (int64_t i = 0; i < t.numel(); ++i)
        t.setDouble(i, std::nan(""));
    else if (t.nbytes())
      std::memset(t.mutableData(), 0x5A, t.nbytes());
    buffers_[b].owned = std::move(t);
    buffers_[b].tensor = nullptr;
  }
  void release(const Buffer* b) { buffers_.erase(b); }

  // ---- regions ----
  std::vector<Region> evalRegions(const std::vector<BufferRegion>& rs) {
    std::vector<Region> out;
    for (auto& r : rs) {
      Region x{r.buffer.get(), {}};
      for (auto& rg : r.region) {
        int64_t lo = evalInt(rg.min);
        x.bounds.push_back({lo, lo + evalInt(rg.extent)});
      }
      out.push_back(std::move(x));
    }
    return out;
  }

  static bool inside(const std::vector<Region>& rs, const Buffer* b,
                     const std::vector<int64_t>& idx) {
    for (auto& r : rs) {
      if (r.buffer != b || r.bounds.size() != idx.size())
        continue;
      bool ok = true;
      for (size_t d = 0; d < idx.size() && ok; ++d)
        ok = idx[d] >= r.bounds[d].first && idx[d] < r.bounds[d].second;
      if (ok)
        return true;
    }
    return false;
  }

  void checkAccess(const Buffer* b, const std::vector<int64_t>& idx, bool write) {
    if (frames_.empty() || !frames_.back().check)
      return;
    const BlockFrame& f = frames_.back();
    for (auto* a : f.allocs)
      if (a == b)
        return;
    bool ok =
        write ? inside(f.writes, b, idx) : inside(f.reads, b, idx) || inside(f.writes, b, idx);
    if (!ok)
      fail("block '" + f.block->name + "' " + (write ? "writes" : "reads") + " " + b->name +
           unity::Tensor::shapeStr(idx) + " outside its declared " + (write ? "write" : "read") +
           " regions");
  }

  // ---- statements ----
  void exec(const Stmt& s) {
    switch (s->kind()) {
    case NodeKind::BufferStore:
      return store(as<BufferStore>(s));
    case NodeKind::For: {
      auto* f = as<For>(s);
      int64_t lo = evalInt(f->min), n = evalInt(f->extent);
      for (int64_t i = lo; i < lo + n; ++i) {
        bindVar(f->var.get(), fromInt(i, f->var->dtype));
        exec(f->body);
      }
      unbindVar(f->var.get());
      return;
    }
    case NodeKind::Block:
      return execBlock(as<Block>(s));
    case NodeKind::LetStmt: {
      auto* l = as<LetStmt>(s);
      bindVar(l->var.get(), eval(l->value));
      exec(l->body);
      unbindVar(l->var.get());
      return;
    }
    case NodeKind::IfThenElse: {
      auto* i = as<IfThenElse>(s);
      if (eval(i->cond).i)
        exec(i->then);
      else if (i->otherwise)
        exec(i->otherwise);
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : as<SeqStmt>(s)->seq)
        exec(x);
      return;
    case NodeKind::Evaluate:
      eval(as<Evaluate>(s)->value);
      return;
    case NodeKind::Allocate: {
      auto* a = as<Allocate>(s);
      allocate(a->buffer.get());
      exec(a->body);
      release(a->buffer.get());
      return;
    }
    default:
      fail(std::string("unsupported statement kind ") + kindName(s->kind()));
    }
  }

  void execBlock(const Block* b) {
    std::vector<Value> vals;
    for (size_t i = 0; i < b->iters.size(); ++i)
      vals.push_back(fromInt(evalInt(b->bindings[i]), b->iters[i].var->dtype));
    for (size_t i = 0; i < b->iters.size(); ++i)
      bindVar(b->iters[i].var.get(), vals[i]);
    // An instance whose predicate is false does not exist (a non-exact
    // split): its bindings may lie outside the domains.
    if (!b->predicate || eval(b->predicate).i) {
      for (size_t i = 0; i < b->iters.size(); ++i) {
        const IterVar& iv = b->iters[i];
        int64_t v = vals[i].i, lo = evalInt(iv.dom.min), n = evalInt(iv.dom.extent);
        if (v < lo || v >= lo + n)
          fail("block '" + b->name + "': iteration variable '" + iv.var->name + "' bound to " +
               std::to_string(v) + ", outside its domain [" + std::to_string(lo) + ", " +
               std::to_string(lo + n) + ")");
      }
      BlockFrame f{b, false, {}, {}, {}};
      f.check = opt_.checkRegions && !(b->iters.empty() && b->reads.empty() && b->writes.empty());
      if (f.check) {
        f.reads = evalRegions(b->reads);
        f.writes = evalRegions(b->writes);
      }
      for (auto& a : b->allocs) {
        allocate(a.get());
        f.allocs.push_back(a.get());
      }
      frames_.push_back(std::move(f));
      if (b->init) {
        bool first = true;
        for (size_t i = 0; i < b->iters.size(); ++i)
          if (b->iters[i].type == IterType::Reduce && vals[i].i != evalInt(b->iters[i].dom.min))
            first = false;
        if (first)
          exec(b->init);
      }
      exec(b->body);
      for (auto& a : b->allocs)
        release(a.get());
      frames_.pop_back();
    }
    for (auto& iv : b->iters)
      unbindVar(iv.var.get());
  }

private:
  std::string where_;
  InterpretOptions opt_;
  const PrimFunc* func_ = nullptr;
  std::vector<unity::Tensor*> argsByParam_;
  std::unordered_map<const PrimVar*, Value> vars_;
  std::unordered_map<const Buffer*, Storage> buffers_;
  std::vector<BlockFrame> frames_;
};

} // namespace

void interpretPrimFunc(const PrimFuncRef& f, std::vector<unity::Tensor*> args,
                       const std::vector<int64_t>& scalarArgs, const InterpretOptions& options) {
  if (!f)
    throw Error("interpretPrimFunc: no function");
  Interpreter in(f->attrs.getString("global_symbol", "<prim_func>"), options);
  size_t nbuf = 0, nscalar = 0;
  for (auto& p : f->params)
    (p.buffer ? nbuf : nscalar)++;
  if (args.size() != nbuf)
    in.fail("expects " + std::to_string(nbuf) + " tensor arguments, got " +
            std::to_string(args.size()));
  if (scalarArgs.size() != nscalar)
    in.fail("expects " + std::to_string(nscalar) + " scalar arguments, got " +
            std::to_string(scalarArgs.size()));
  size_t ai = 0, si = 0;
  std::vector<std::pair<const Buffer*, unity::Tensor*>> bufs;
  std::vector<unity::Tensor*> byParam;
  // A packed function (MakePackedAPI) binds and checks its shape variables
  // itself, in the prologue of its body.
  bool packed = f->attrs.getString("calling_conv") == "packed";
  for (auto& p : f->params) {
    byParam.push_back(p.buffer ? args[ai] : nullptr);
    if (p.scalar) {
      in.bindVar(p.scalar.get(), fromInt(scalarArgs[si++], p.scalar->dtype));
      continue;
    }
    unity::Tensor* t = args[ai];
    std::string what = "argument " + std::to_string(ai) + " ('" + p.buffer->name + "')";
    ++ai;
    if (!t || !t->defined())
      in.fail(what + " is not a tensor");
    if (!(t->dtype() == p.buffer->dtype))
      in.fail(what + " has dtype " + t->dtype().str() + ", expected " + p.buffer->dtype.str());
    if (t->ndim() != p.buffer->ndim())
      in.fail(what + " has rank " + std::to_string(t->ndim()) + ", expected " +
              std::to_string(p.buffer->ndim()));
    for (int d = 0; d < t->ndim() && !packed; ++d)
      if (auto* v = as<PrimVar>(p.buffer->shape[d]); v && !in.isBound(v))
        in.bindVar(v, fromInt(t->shape()[d], v->dtype));
    bufs.push_back({p.buffer.get(), t});
    in.bindBuffer(p.buffer.get(), t);
  }
  in.setArguments(f.get(), std::move(byParam));
  for (auto& p : f->params) {
    if (!p.buffer || packed)
      continue;
    unity::Tensor* t = nullptr;
    for (auto& [b, x] : bufs)
      if (b == p.buffer.get())
        t = x;
    std::vector<int64_t> expected;
    for (auto& d : p.buffer->shape)
      expected.push_back(in.evalInt(d));
    if (expected != t->shape())
      in.fail("buffer '" + p.buffer->name + "' expects shape " + unity::Tensor::shapeStr(expected) +
              " but the argument has shape " + unity::Tensor::shapeStr(t->shape()));
  }
  in.exec(f->body);
}

} // namespace unity::te
