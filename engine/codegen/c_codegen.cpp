// PrimFunc -> C source.
//
// Each function becomes one C function with the packed entry convention: it
// checks nargs, reads scalar slots, binds shape variables from the first bare
// occurrence among the buffer dimensions (in `shapes`, parameter order) and
// checks every other dimension, then runs the body. A function with
// calling_conv = "packed" (MakePackedAPI) has that shape prologue in its body
// already: arg_dim(i, k) reads its `shapes` slot and a failing assert_dim
// returns -2; only nargs and the scalar slots are read here. Buffers are `restrict`
// pointers (distinct buffer arguments must not overlap, as for LLVM); an
// access of a flattened function (FlattenBuffers) has its row-major offset
// as its one index, otherwise the offset is computed with Horner's rule from
// the buffer's (possibly symbolic) shape. Loops of every kind are plain C `for` loops:
// parallel/vectorized/unrolled only annotate the loop with a comment and a
// GCC pragma where one exists (the C compiler decides), so the C backend is
// single-threaded. Local buffers are heap-allocated (malloc/free) and freed on
// every exit path. Variables get unique C names (IR names may repeat).
#include "engine/codegen/c_codegen.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/support/error.h"
#include "engine/transform/storage_rewrite.h"
#include "engine/transform/tir_lower.h"

namespace unity::codegen {

using namespace ir;

namespace {

const char* kPrelude = R"(#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static inline int64_t unity_c_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t unity_c_floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline float unity_c_bits_f32(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
static inline int32_t unity_c_bits_i32(float f) { int32_t i; memcpy(&i, &f, 4); return i; }
static inline double unity_c_bits_f64(int64_t i) { double f; memcpy(&f, &i, 8); return f; }
static inline int64_t unity_c_bits_i64(double f) { int64_t i; memcpy(&i, &f, 8); return i; }

)";

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "v_" + out;
  return out;
}

class CEmitter {
public:
  CEmitter(std::string name, PrimFuncRef f)
      : name_(std::move(name)), f_(std::move(f)), flat_(transform::hasFlatBuffers(*f_)),
        packed_(transform::hasPackedAPI(*f_)) {}

  std::string emit() {
    const auto& params = f_->params;
    line("int32_t " + cSymbol(name_) + "(void** args, int64_t* shapes, int32_t nargs) {");
    ++indent_;
    line("(void)shapes;");
    line("if (nargs != " + std::to_string(params.size()) + ") return -1;");
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].scalar)
        continue;
      const PrimVar* v = params[i].scalar.get();
      std::string n = define(v);
      std::string slot = "args[" + std::to_string(i) + "]";
      if (v->dtype.isFloat())
        line(ctype(v->dtype) + " " + n + " = (" + ctype(v->dtype) + ")*(double*)" + slot + ";");
      else
        line(ctype(v->dtype) + " " + n + " = (" + ctype(v->dtype) + ")*(int64_t*)" + slot + ";");
    }
    std::vector<std::pair<PrimExpr, std::string>> checks;
    int shapeIndex = 0;
    shapeOffsets_.assign(params.size(), -1);
    for (size_t i = 0; i < params.size(); ++i) {
      const BufferRef& buf = params[i].buffer;
      if (!buf)
        continue;
      std::string n = defineBuffer(buf.get());
      line(storage(buf->dtype) + "* restrict " + n + " = (" + storage(buf->dtype) + "*)args[" +
           std::to_string(i) + "];");
      shapeOffsets_[i] = shapeIndex;
      if (packed_) { // MakePackedAPI: the body's prologue binds and checks the dims
        shapeIndex += buf->ndim();
        continue;
      }
      for (const PrimExpr& dim : buf->shape) {
        std::string actual = "shapes[" + std::to_string(shapeIndex++) + "]";
        auto* v = as<PrimVar>(dim);
        if (v && !vars_.count(v)) {
          std::string vn = define(v);
          line(ctype(v->dtype) + " " + vn + " = (" + ctype(v->dtype) + ")" + actual + ";");
        } else {
          checks.emplace_back(dim, actual);
        }
      }
    }
    for (auto& [dim, actual] : checks) {
      walkPrimExpr(dim, [&](const PrimExpr& e) {
        if (auto* v = as<PrimVar>(e); v && !vars_.count(v))
          fail("shape variable '" + v->name +
               "' cannot be bound: it occurs only inside compound dimensions; pass it as a "
               "scalar parameter");
      });
      line("if ((int64_t)(" + expr(dim) + ") != " + actual + ") return -2;");
    }
    stmt(f_->body);
    line("return 0;");
    --indent_;
    line("}");
    return out_.str();
  }

private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw Error("C codegen: in function '" + name_ + "': " + msg);
  }

  void line(const std::string& s) { out_ << std::string(2 * indent_, ' ') << s << "\n"; }

  std::string fresh(const std::string& base) {
    std::string n = sanitize(base);
    std::string c = n;
    for (int k = 1; used_.count(c); ++k)
      c = n + "_" + std::to_string(k);
    used_.insert(c);
    return c;
  }
  std::string define(const PrimVar* v) { return vars_[v] = fresh(v->name); }
  std::string defineBuffer(const Buffer* b) { return buffers_[b] = fresh(b->name); }

  std::string ctype(DataType t) const {
    if (!t.isScalar())
      fail("vector type " + t.str() + " is not supported");
    switch (t.code) {
    case DataType::Code::Bool:
      return "bool";
    case DataType::Code::Float:
      if (t.bits == 32)
        return "float";
      if (t.bits == 64)
        return "double";
      break;
    case DataType::Code::Int:
    case DataType::Code::UInt:
      if (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)
        return std::string(t.isInt() ? "int" : "uint") + std::to_string(t.bits) + "_t";
      break;
    default:
      break;
    }
    fail("type " + t.str() + " is not supported by the C backend");
  }
  std::string storage(DataType t) const { return ctype(t); }

  // --------------------------------------------------------- statements

  void stmt(const Stmt& s) {
    switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto* op = as<BufferStore>(s);
      line(access(op->buffer, op->indices) + " = " + expr(op->value) + ";");
      return;
    }
    case NodeKind::For: {
      auto* op = as<For>(s);
      DataType t = op->var->dtype;
      if (!t.isIntegral())
        fail("loop variable '" + op->var->name + "' is " + t.str());
      std::string lo = expr(op->min), ext = expr(op->extent);
      std::string v = define(op->var.get());
      if (op->forKind != ForKind::Serial)
        line(std::string("/* ") + forKindName(op->forKind) + " */");
      if (op->forKind == ForKind::Vectorized)
        line("#pragma GCC ivdep");
      std::string end = fresh(v + "_end");
      line("for (" + ctype(t) + " " + v + " = " + lo + ", " + end + " = " + v + " + (" + ext +
           "); " + v + " < " + end + "; ++" + v + ") {");
      block(op->body);
      line("}");
      return;
    }
    case NodeKind::LetStmt: {
      auto* op = as<LetStmt>(s);
      if (op->value->dtype != op->var->dtype)
        fail("let of '" + op->var->name + "' (" + op->var->dtype.str() + ") binds a value of " +
             op->value->dtype.str());
      line("{");
      ++indent_;
      std::string value = expr(op->value);
      line(ctype(op->var->dtype) + " " + define(op->var.get()) + " = " + value + ";");
      stmt(op->body);
      --indent_;
      line("}");
      return;
    }
    case NodeKind::IfThenElse: {
      auto* op = as<IfThenElse>(s);
      line("if (" + expr(op->cond) + ") {");
      block(op->then);
      if (op->otherwise) {
        line("} else {");
        block(op->otherwise);
      }
      line("}");
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : as<SeqStmt>(s)->seq)
        stmt(x);
      return;
    case NodeKind::Evaluate: {
      auto* c = as<PrimCall>(as<Evaluate>(s)->value);
      if (c && c->op == kAssertDimIntrinsic) {
        checkCallingConv(c);
        std::string cleanup;
        for (auto it = live_.rbegin(); it != live_.rend(); ++it)
          cleanup += "free(" + *it + "); ";
        line("if (!(" + expr(c->args[0]) + ")) { " + cleanup + "return -2; }");
        return;
      }
      line("(void)(" + expr(as<Evaluate>(s)->value) + ");");
      return;
    }
    case NodeKind::Allocate: {
      auto* op = as<Allocate>(s);
      const Buffer* buf = op->buffer.get();
      std::string size = std::to_string(std::max(1, buf->dtype.bytes()));
      for (auto& d : buf->shape)
        size += " * (int64_t)(" + expr(d) + ")";
      line("{");
      ++indent_;
      std::string n = defineBuffer(buf);
      // Small constant-size temporaries (what StorageRewrite leaves inside
      // loops) live on the stack, as in the LLVM backend.
      int64_t elems = 1;
      for (auto& d : buf->shape) {
        auto c = asConstInt(d);
        elems = elems >= 0 && c && *c >= 0 && elems <= transform::kMaxStackBytes ? elems * *c : -1;
      }
      if (elems >= 0 && elems * std::max(1, buf->dtype.bytes()) <= transform::kMaxStackBytes) {
        line(storage(buf->dtype) + " " + n + "_stack[" +
             std::to_string(std::max<int64_t>(elems, 1)) + "] __attribute__((aligned(64)));");
        line(storage(buf->dtype) + "* restrict " + n + " = " + n + "_stack;");
        stmt(op->body);
        --indent_;
        line("}");
        return;
      }
      line(storage(buf->dtype) + "* restrict " + n + " = (" + storage(buf->dtype) +
           "*)malloc((size_t)(" + size + ") + 1);");
      std::string cleanup;
      for (auto it = live_.rbegin(); it != live_.rend(); ++it)
        cleanup += "free(" + *it + "); ";
      line("if (!" + n + ") { " + cleanup + "return -3; }");
      live_.push_back(n);
      stmt(op->body);
      live_.pop_back();
      line("free(" + n + ");");
      --indent_;
      line("}");
      return;
    }
    case NodeKind::Block:
      fail("block '" + as<Block>(s)->name + "' must be lowered first (transform::lowerBlocks)");
    default:
      fail(std::string("unexpected statement ") + kindName(s->kind()));
    }
  }

  void block(const Stmt& s) {
    ++indent_;
    stmt(s);
    --indent_;
  }

  std::string access(const BufferRef& buf, const std::vector<PrimExpr>& indices) {
    auto it = buffers_.find(buf.get());
    if (it == buffers_.end())
      fail("buffer '" + buf->name + "' is neither a parameter nor allocated");
    if (flat_ && indices.size() == 1) // flattened: the index is the row-major offset
      return it->second + "[(int64_t)(" + expr(indices[0]) + ")]";
    if (static_cast<int>(indices.size()) != buf->ndim())
      fail("buffer '" + buf->name + "' is indexed with " + std::to_string(indices.size()) +
           " indices, it has rank " + std::to_string(buf->ndim()));
    std::string off = indices.empty() ? "0" : "(int64_t)(" + expr(indices[0]) + ")";
    for (size_t k = 1; k < indices.size(); ++k)
      off = "(" + off + " * (int64_t)(" + expr(buf->shape[k]) + ") + (int64_t)(" +
            expr(indices[k]) + "))";
    return it->second + "[" + off + "]";
  }

  // -------------------------------------------------------- expressions

  std::string floatLiteral(double v, DataType t) {
    std::string suffix = t.bits == 32 ? "f" : "";
    if (std::isnan(v))
      return "((" + ctype(t) + ")NAN)";
    if (std::isinf(v))
      return std::string("((") + ctype(t) + ")" + (v < 0 ? "-" : "") + "INFINITY)";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos)
      s += ".0";
    return "(" + s + suffix + ")";
  }

  std::string expr(const PrimExpr& e) {
    switch (e->kind()) {
    case NodeKind::IntImm: {
      auto* i = as<IntImm>(e);
      if (e->dtype.isBool())
        return i->value ? "true" : "false";
      if (i->value == INT64_MIN)
        return "((" + ctype(e->dtype) + ")INT64_MIN)";
      return "((" + ctype(e->dtype) + ")" + std::to_string(i->value) + "LL)";
    }
    case NodeKind::FloatImm:
      return floatLiteral(as<FloatImm>(e)->value, e->dtype);
    case NodeKind::PrimVar: {
      auto it = vars_.find(as<PrimVar>(e));
      if (it == vars_.end())
        fail("variable '" + as<PrimVar>(e)->name + "' is used but never bound");
      return it->second;
    }
    case NodeKind::Not:
      return "(!" + expr(as<NotExpr>(e)->a) + ")";
    case NodeKind::Select: {
      auto* op = as<Select>(e);
      return "(" + expr(op->cond) + " ? " + expr(op->t) + " : " + expr(op->f) + ")";
    }
    case NodeKind::Cast: {
      auto* op = as<CastExpr>(e);
      if (op->dtype.isBool())
        return "(" + expr(op->value) + " != 0)";
      return "((" + ctype(op->dtype) + ")" + expr(op->value) + ")";
    }
    case NodeKind::BufferLoad: {
      auto* op = as<BufferLoad>(e);
      return access(op->buffer, op->indices);
    }
    case NodeKind::PrimCall:
      return intrinsic(as<PrimCall>(e));
    case NodeKind::PrimLet: {
      auto* op = as<PrimLet>(e);
      if (op->value->dtype != op->var->dtype)
        fail("let of '" + op->var->name + "' (" + op->var->dtype.str() + ") binds a value of " +
             op->value->dtype.str());
      std::string value = expr(op->value);
      std::string n = define(op->var.get());
      return "({ " + ctype(op->var->dtype) + " " + n + " = " + value + "; " + expr(op->body) +
             "; })";
    }
    default:
      if (auto* bin = as<BinaryExpr>(e))
        return binary(bin);
      fail(std::string("unexpected expression ") + kindName(e->kind()));
    }
  }

  std::string binary(const BinaryExpr* op) {
    DataType t = op->a->dtype;
    std::string a = expr(op->a), b = expr(op->b);
    bool isF = t.isFloat();
    auto infix = [&](const char* sym) { return "(" + a + " " + sym + " " + b + ")"; };
    switch (op->op()) {
    case NodeKind::Add:
      return infix("+");
    case NodeKind::Sub:
      return infix("-");
    case NodeKind::Mul:
      return infix("*");
    case NodeKind::Div:
      return infix("/");
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod: {
      bool div = op->op() == NodeKind::FloorDiv;
      if (isF)
        fail("floordiv/floormod of floats is not supported");
      if (!t.isInt())
        return infix(div ? "/" : "%");
      return "((" + ctype(t) + ")unity_c_floor" + (div ? "div" : "mod") + "(" + a + ", " + b + "))";
    }
    case NodeKind::Min:
    case NodeKind::Max: {
      bool mn = op->op() == NodeKind::Min;
      if (isF)
        return std::string(mn ? "fmin" : "fmax") + (t.bits == 32 ? "f" : "") + "(" + a + ", " + b +
               ")";
      return "({ " + ctype(t) + " _a = " + a + ", _b = " + b + "; _a " + (mn ? "<" : ">") +
             " _b ? _a : _b; })";
    }
    case NodeKind::EQ:
      return infix("==");
    case NodeKind::NE:
      return infix("!=");
    case NodeKind::LT:
      return infix("<");
    case NodeKind::LE:
      return infix("<=");
    case NodeKind::GT:
      return infix(">");
    case NodeKind::GE:
      return infix(">=");
    case NodeKind::And:
      return infix("&&");
    case NodeKind::Or:
      return infix("||");
    default:
      fail(std::string("unexpected binary operator ") + binaryOpSymbol(op->op()));
    }
  }

  /// The shape slot of arg_dim(i, k) / assert_dim(c, i, k) (MakePackedAPI),
  /// after checking that the function is packed and (i, k) names a dimension.
  int64_t checkCallingConv(const PrimCall* op) {
    if (!packed_)
      fail("intrinsic '" + op->op + "' in a function without calling_conv = \"packed\"");
    auto named = packedArgDim(*f_, *op);
    if (!named.error.empty())
      fail(named.error);
    return shapeOffsets_[named.param] + named.dim;
  }

  std::string intrinsic(const PrimCall* op) {
    if (op->op == kArgDimIntrinsic)
      return "shapes[" + std::to_string(checkCallingConv(op)) + "]";
    if (op->op == kAssertDimIntrinsic)
      fail("intrinsic 'assert_dim' used as a value; it is a statement (T.evaluate)");
    if (op->op == kPrefetchIntrinsic) {
      auto* load = as<BufferLoad>(op->args[0]);
      return "(__builtin_prefetch(&" + access(load->buffer, load->indices) + ", 0, 3), 0)";
    }
    if (!findIntrinsic(op->op))
      fail("unknown intrinsic '" + op->op + "'");
    if (op->op == kReinterpretIntrinsic) {
      DataType to = op->dtype, from = op->args[0]->dtype;
      bool intToFloat = from.isInt() && to.isFloat(), floatToInt = from.isFloat() && to.isInt();
      if ((!intToFloat && !floatToInt) || (to.bits != 32 && to.bits != 64) || to.lanes != 1)
        fail("intrinsic 'reinterpret' from " + from.str() + " to " + to.str() +
             " has no C lowering");
      return std::string("unity_c_bits_") + (to.isFloat() ? "f" : "i") + std::to_string(to.bits) +
             "(" + expr(op->args[0]) + ")";
    }
    if (op->args.empty())
      fail("intrinsic '" + op->op + "' has no arguments");
    DataType t = op->args[0]->dtype;
    if (!t.isFloat() || (t.bits != 32 && t.bits != 64))
      fail("intrinsic '" + op->op + "' needs float32 or float64 arguments, got " + t.str());
    std::vector<std::string> args;
    for (auto& a : op->args) {
      if (a->dtype != t)
        fail("arguments of intrinsic '" + op->op + "' differ in type");
      args.push_back(expr(a));
    }
    std::string f = t.bits == 32 ? "f" : "";
    std::string one = t.bits == 32 ? "1.0f" : "1.0";
    if (op->op == "sigmoid")
      return "(" + one + " / (" + one + " + exp" + f + "(-" + args[0] + ")))";
    if (op->op == "rsqrt")
      return "(" + one + " / sqrt" + f + "(" + args[0] + "))";
    if (op->op == "isnan" || op->op == "isinf")
      return "(" + op->op + "(" + args[0] + ") != 0)";
    std::string call = op->op + f + "(" + args[0];
    for (size_t k = 1; k < args.size(); ++k)
      call += ", " + args[k];
    return call + ")";
  }

  std::string name_;
  PrimFuncRef f_;
  bool flat_;                         // accesses have one flat index (FlattenBuffers ran)
  bool packed_;                       // the shape prologue is IR (MakePackedAPI ran)
  std::vector<int64_t> shapeOffsets_; // per parameter: its first dim in `shapes`
  std::ostringstream out_;
  int indent_ = 0;
  std::set<std::string> used_;
  std::unordered_map<const PrimVar*, std::string> vars_;
  std::unordered_map<const Buffer*, std::string> buffers_;
  std::vector<std::string> live_; // heap buffers live at the current point
};

} // namespace

std::string cSymbol(const std::string& name) { return sanitize(kernelSymbol(name)); }

std::string emitCSource(const NamedPrimFuncs& funcs) {
  std::string out = "/* Generated by lowerscope (unity C backend). Kernel convention:\n"
                    "   int32_t name(void** args, int64_t* shapes, int32_t nargs). */\n";
  out += kPrelude;
  std::set<std::string> symbols;
  for (auto& [name, f] : funcs) {
    if (!f)
      throw Error("C codegen: function '" + name + "' is null");
    if (name.empty())
      throw Error("C codegen: a function has an empty name");
    if (!symbols.insert(cSymbol(name)).second)
      throw Error("C codegen: function name '" + name + "' is used twice (C symbol '" +
                  cSymbol(name) + "')");
    out += CEmitter(name, transform::lowerForCodegen(f)).emit() + "\n";
  }
  return out;
}

} // namespace unity::codegen
