// PrimFunc -> LLVM IR.
//
// Each PrimFunc becomes three layers of functions:
//  - the packed entry `name(void** args, int64_t* shapes, int32_t nargs)`
//    checks the argument count, reads scalar parameters, binds shape
//    variables from the runtime dimensions and checks every other dimension.
//    After the MakePackedAPI pass (attribute calling_conv = "packed") the
//    binding and checking are IR at the top of the body (lets of
//    arg_dim(i, k), evaluations of assert_dim): the entry emits that
//    prologue (arg_dim is a load from `shapes`, a failing assert_dim returns
//    kKernelShapeMismatch) instead of deriving it from the signature;
//  - `name.compute(ptr noalias A, ..., i64 n, ...)`, internal and always
//    inlined into the entry, holds the body. Passing each buffer as a
//    `noalias` parameter is how we tell LLVM that distinct buffers do not
//    overlap (TVM's restrict); after inlining this becomes scoped alias
//    metadata, which is what lets the vectorizer work without runtime checks;
//  - a parallel loop is outlined: its free variables and buffers are stored
//    in a closure struct on the stack, `name.parN(closure, begin, end)` loads
//    them and calls `name.parN.body(...)` (again noalias parameters), and the
//    loop itself becomes `unity_parallel_for(name.parN, closure, extent)`.
//
// Loops are emitted in the canonical header/body/latch form with a phi;
// Unrolled and Vectorized loops carry llvm.loop metadata on the back edge
// (unroll.full / vectorize.enable) and leave the rest to LLVM's pipeline.
// Index math is int64. After FlattenBuffers an access has one row-major
// index; an unflattened one (custom pipelines) computes the offset with
// Horner's rule from the buffer's (possibly symbolic) shape.
// Errors inside generated code (allocation failure, a failing parallel
// chunk) return a nonzero status after freeing live heap buffers.
#include "engine/codegen/llvm_codegen.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "engine/codegen/llvm_intrinsics.h"
#include "engine/codegen/llvm_target.h"
#include "engine/ir/arith.h"
#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/support/error.h"
#include "engine/transform/storage_rewrite.h"
#include "engine/transform/tir_lower.h"

namespace unity::codegen::detail {

using namespace ir;

namespace {

/// True when every buffer access in loop's body moves by 0 or 1 element of
/// its last index per iteration of loop's variable, and not at all in the
/// others: loads and stores of whole contiguous vectors (or broadcasts),
/// which a masked tail handles with one masked instruction each. A strided
/// or gathered access (a stride-2 image read) is not: forced to the full
/// width with a mask, LLVM emits masked gathers for it, measured 2.3x
/// slower on MobileNetV2's strided depthwise layers than its own choice.
bool unitStrideBody(const For* loop) {
  struct Checker : StmtVisitor {
    const PrimVar* v;
    PrimExpr next;
    bool ok = true;
    void check(const std::vector<PrimExpr>& indices) {
      for (size_t d = 0; d < indices.size() && ok; ++d) {
        PrimExpr moved = substitute(indices[d], {{v, next}});
        auto diff = asConstInt(arith::simplify(moved - indices[d]));
        bool last = d + 1 == indices.size();
        ok = diff && (*diff == 0 || (last && *diff == 1));
      }
    }
    using StmtVisitor::visit;
    void visit(const PrimExpr& e) override {
      if (!ok)
        return;
      if (auto* l = as<BufferLoad>(e))
        check(l->indices);
      StmtVisitor::visit(e);
    }
    void visit(const Stmt& s) override {
      if (!ok)
        return;
      if (auto* st = as<BufferStore>(s))
        check(st->indices);
      StmtVisitor::visit(s);
    }
  } c;
  c.v = loop->var.get();
  c.next = loop->var + intImm(1, loop->var->dtype);
  c.visit(loop->body);
  return c.ok;
}

/// Local buffers up to this many bytes with a constant size live on the stack
/// (the budget StorageRewrite compacts temporaries for).
constexpr int64_t kMaxStackAllocBytes = transform::kMaxStackBytes;

/// Variables and buffers a statement uses but does not define.
struct FreeSymbols {
  std::vector<const PrimVar*> vars;
  std::vector<const Buffer*> buffers;
};

FreeSymbols collectFreeSymbols(const Stmt& s) {
  struct Collector : StmtVisitor {
    std::vector<const PrimVar*> vars;
    std::vector<const Buffer*> buffers;
    std::unordered_set<const Node*> seen, defined;
    using StmtVisitor::visit;
    void use(const Node* n) {
      if (seen.insert(n).second) {
        if (auto* v = as<PrimVar>(n))
          vars.push_back(v);
        else
          buffers.push_back(static_cast<const Buffer*>(n));
      }
    }
    void visit(const PrimExpr& e) override {
      if (auto* v = as<PrimVar>(e))
        use(v);
      if (auto* let = as<PrimLet>(e))
        defined.insert(let->var.get());
      StmtVisitor::visit(e);
    }
    void visit(const Stmt& s) override {
      if (auto* f = as<For>(s))
        defined.insert(f->var.get());
      if (auto* l = as<LetStmt>(s))
        defined.insert(l->var.get());
      if (auto* a = as<Allocate>(s))
        defined.insert(a->buffer.get());
      StmtVisitor::visit(s);
    }
    void visitBuffer(const BufferRef& b) override {
      use(b.get());
      for (auto& d : b->shape)
        visit(d);
    }
  } c;
  c.visit(s);
  FreeSymbols out;
  for (auto* v : c.vars)
    if (!c.defined.count(v))
      out.vars.push_back(v);
  for (auto* b : c.buffers)
    if (!c.defined.count(b))
      out.buffers.push_back(b);
  return out;
}

class KernelEmitter {
public:
  /// vectorUnit: the lanes a tile's vectorized loop is a multiple of (see
  /// loopMetadata).
  KernelEmitter(llvm::Module& m, std::string name, std::string symbol, PrimFuncRef f, bool fastMath,
                int vectorUnit, int maskLanes = 0)
      : ctx_(m.getContext()), mod_(m), b_(m.getContext()), name_(std::move(name)),
        symbol_(std::move(symbol)), f_(std::move(f)), flat_(transform::hasFlatBuffers(*f_)),
        packed_(transform::hasPackedAPI(*f_)), vectorUnit_(vectorUnit), maskLanes_(maskLanes) {
    if (fastMath)
      b_.setFastMathFlags(llvm::FastMathFlags::getFast());
    i1_ = b_.getInt1Ty();
    i8_ = b_.getInt8Ty();
    i32_ = b_.getInt32Ty();
    i64_ = b_.getInt64Ty();
    ptr_ = b_.getPtrTy();
  }

  void emit() { emitEntry(); }

private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw Error("codegen: in function '" + name_ + "': " + msg);
  }

  // ------------------------------------------------------------------ types

  llvm::Type* typeOf(DataType t) const {
    if (!t.isScalar())
      fail("vector type " + t.str() + " is not supported");
    switch (t.code) {
    case DataType::Code::Bool:
      return i1_;
    case DataType::Code::Int:
    case DataType::Code::UInt:
      if (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)
        return llvm::IntegerType::get(ctx_, t.bits);
      break;
    case DataType::Code::Float:
      if (t.bits == 16)
        return llvm::Type::getHalfTy(ctx_);
      if (t.bits == 32)
        return llvm::Type::getFloatTy(ctx_);
      if (t.bits == 64)
        return llvm::Type::getDoubleTy(ctx_);
      break;
    case DataType::Code::Handle:
      return ptr_;
    default:
      break;
    }
    fail("type " + t.str() + " is not supported");
  }
  /// In memory a bool is a byte.
  llvm::Type* storageTypeOf(DataType t) const { return t.isBool() ? i8_ : typeOf(t); }

  // ------------------------------------------------------------ environment

  /// What a function being emitted can see. Swapped wholesale when we start
  /// emitting an outlined function.
  struct Scope {
    llvm::Function* fn = nullptr;
    std::unordered_map<const PrimVar*, llvm::Value*> vars;
    std::unordered_map<const Buffer*, llvm::Value*> buffers;
    std::vector<llvm::Value*> heapAllocs; // live unity_alloc results
    int parallelDepth = 0;
  };

  llvm::Value* lookupVar(const PrimVar* v) const {
    auto it = scope_.vars.find(v);
    if (it == scope_.vars.end())
      fail("variable '" + v->name + "' is used but never bound");
    return it->second;
  }
  llvm::Value* lookupBuffer(const Buffer* b) const {
    auto it = scope_.buffers.find(b);
    if (it == scope_.buffers.end())
      fail("buffer '" + b->name + "' is neither a parameter nor allocated");
    return it->second;
  }

  /// Binds v to value for the duration of a scope (restores any shadowed binding).
  struct VarBinding {
    KernelEmitter& e;
    const PrimVar* v;
    llvm::Value* saved = nullptr;
    bool had = false;
    VarBinding(KernelEmitter& e, const PrimVar* v, llvm::Value* value) : e(e), v(v) {
      auto it = e.scope_.vars.find(v);
      if (it != e.scope_.vars.end()) {
        had = true;
        saved = it->second;
      }
      e.scope_.vars[v] = value;
    }
    ~VarBinding() {
      if (had)
        e.scope_.vars[v] = saved;
      else
        e.scope_.vars.erase(v);
    }
  };

  // ---------------------------------------------------------- entry points

  void emitEntry() {
    auto* fty = llvm::FunctionType::get(i32_, {ptr_, ptr_, i32_}, false);
    auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, symbol_, mod_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Argument* args = fn->getArg(0);
    llvm::Argument* shapes = fn->getArg(1);
    llvm::Argument* nargs = fn->getArg(2);
    args->setName("args");
    shapes->setName("shapes");
    nargs->setName("nargs");
    scope_ = Scope{};
    scope_.fn = fn;
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));

    const auto& params = f_->params;
    auto* countOk = b_.CreateICmpEQ(nargs, b_.getInt32(static_cast<int32_t>(params.size())));
    returnIfNot(countOk, kKernelBadArgCount);

    // Scalars: args[i] points to an 8-byte slot (int64 or double).
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].scalar)
        continue;
      const PrimVar* v = params[i].scalar.get();
      llvm::Value* slot = b_.CreateLoad(ptr_, b_.CreateConstGEP1_64(ptr_, args, i));
      llvm::Value* value;
      if (v->dtype.isFloat())
        value = b_.CreateFPCast(b_.CreateLoad(b_.getDoubleTy(), slot), typeOf(v->dtype));
      else
        value = castValue(b_.CreateLoad(i64_, slot), DataType::Int64(), v->dtype);
      value->setName(v->name);
      scope_.vars[v] = value;
    }

    // Buffers: args[i] is the data pointer; their dims follow each other in
    // `shapes`. A bare shape variable is bound at its first occurrence; every
    // other dimension is checked once all variables are bound. A packed
    // function (MakePackedAPI) does both in its prologue instead, which
    // emitPackedPrologue runs here in the entry.
    std::vector<std::pair<PrimExpr, llvm::Value*>> checks;
    int64_t shapeIndex = 0;
    entry_ = fn;
    shapes_ = shapes;
    shapeOffsets_.assign(params.size(), -1);
    for (size_t i = 0; i < params.size(); ++i) {
      const BufferRef& buf = params[i].buffer;
      if (!buf)
        continue;
      llvm::Value* data = b_.CreateLoad(ptr_, b_.CreateConstGEP1_64(ptr_, args, i));
      data->setName(buf->name);
      scope_.buffers[buf.get()] = data;
      shapeOffsets_[i] = shapeIndex;
      if (packed_) {
        shapeIndex += buf->ndim();
        continue;
      }
      for (const PrimExpr& dim : buf->shape) {
        llvm::Value* actual =
            b_.CreateLoad(i64_, b_.CreateConstGEP1_64(i64_, shapes, shapeIndex++));
        auto* v = as<PrimVar>(dim);
        if (v && !scope_.vars.count(v)) {
          llvm::Value* value = castValue(actual, DataType::Int64(), v->dtype);
          value->setName(v->name);
          scope_.vars[v] = value;
        } else {
          checks.emplace_back(dim, actual);
        }
      }
    }
    llvm::Value* shapesOk = b_.getTrue();
    for (auto& [dim, actual] : checks) {
      walkPrimExpr(dim, [&](const PrimExpr& e) {
        if (auto* v = as<PrimVar>(e); v && !scope_.vars.count(v))
          fail("shape variable '" + v->name +
               "' cannot be bound: it occurs only inside compound dimensions; pass it as a "
               "scalar parameter");
      });
      llvm::Value* expected = castValue(emitExpr(dim), dim->dtype, DataType::Int64());
      shapesOk = b_.CreateAnd(shapesOk, b_.CreateICmpEQ(expected, actual));
    }
    returnIfNot(shapesOk, kKernelShapeMismatch);
    Stmt body = packed_ ? emitPackedPrologue(f_->body) : f_->body;

    // The body lives in an always-inlined function with noalias buffers.
    FreeSymbols captured;
    for (auto& p : params)
      if (p.buffer)
        captured.buffers.push_back(p.buffer.get());
    for (auto& [v, value] : scope_.vars)
      captured.vars.push_back(v);
    std::sort(captured.vars.begin(), captured.vars.end(),
              [](const PrimVar* a, const PrimVar* b) { return a->name < b->name; });
    llvm::Function* compute = emitOutlined(symbol_ + ".compute", captured, {}, [&](auto&) {
      if (body)
        emitStmt(body);
    });
    b_.CreateRet(b_.CreateCall(compute, captureValues(captured)));
  }

  /// Emits the prologue MakePackedAPI wrote at the top of a packed function
  /// into the entry: the leading lets that bind shape variables (their values
  /// read `shapes`) and the assert_dim evaluations after them. Returns the
  /// rest of the body (null when nothing is left), which the compute
  /// function receives with the bound variables as parameters.
  Stmt emitPackedPrologue(Stmt s) {
    auto readsShapes = [](const PrimExpr& e) {
      bool found = false;
      walkPrimExpr(e, [&](const PrimExpr& x) {
        if (auto* c = as<PrimCall>(x); c && c->op == kArgDimIntrinsic)
          found = true;
      });
      return found;
    };
    auto isAssert = [](const Stmt& st) {
      auto* ev = as<Evaluate>(st);
      auto* c = ev ? as<PrimCall>(ev->value) : nullptr;
      return c && c->op == kAssertDimIntrinsic;
    };
    while (auto* let = as<LetStmt>(s)) {
      if (!readsShapes(let->value))
        break;
      if (let->value->dtype != let->var->dtype)
        fail("let of '" + let->var->name + "' (" + let->var->dtype.str() + ") binds a value of " +
             let->value->dtype.str());
      llvm::Value* value = emitExpr(let->value);
      value->setName(let->var->name);
      scope_.vars[let->var.get()] = value;
      s = let->body;
    }
    if (isAssert(s)) {
      emitExpr(as<Evaluate>(s)->value);
      return nullptr;
    }
    if (auto* seq = as<SeqStmt>(s)) {
      size_t k = 0;
      for (; k < seq->seq.size() && isAssert(seq->seq[k]); ++k)
        emitExpr(as<Evaluate>(seq->seq[k])->value);
      if (k == 0)
        return s;
      std::vector<Stmt> rest(seq->seq.begin() + static_cast<std::ptrdiff_t>(k), seq->seq.end());
      return rest.empty() ? nullptr : seqStmt(std::move(rest));
    }
    return s;
  }

  /// arg_dim(i, k) (a load from `shapes`) and assert_dim(c, i, k) (return
  /// the shape-mismatch status unless c): only in the entry of a packed function.
  llvm::Value* emitCallingConv(const PrimCall* op) {
    if (!packed_)
      fail("intrinsic '" + op->op + "' in a function without calling_conv = \"packed\"");
    auto named = packedArgDim(*f_, *op);
    if (!named.error.empty())
      fail(named.error);
    if (scope_.fn != entry_)
      fail("intrinsic '" + op->op + "' outside the prologue of the packed function");
    const int64_t i = named.param, k = named.dim;
    if (op->op == kArgDimIntrinsic) {
      llvm::Value* dim =
          b_.CreateLoad(i64_, b_.CreateConstGEP1_64(i64_, shapes_, shapeOffsets_[i] + k));
      return castValue(dim, DataType::Int64(), op->dtype);
    }
    returnIfNot(emitExpr(op->args[0]), kKernelShapeMismatch);
    return b_.getTrue();
  }

  /// Emits `if (!ok) return code;` and continues in a fresh block.
  void returnIfNot(llvm::Value* ok, int32_t code) { returnIfNot(ok, b_.getInt32(code)); }
  void returnIfNot(llvm::Value* ok, llvm::Value* code) {
    auto* fail = llvm::BasicBlock::Create(ctx_, "fail", scope_.fn);
    auto* cont = llvm::BasicBlock::Create(ctx_, "ok", scope_.fn);
    b_.CreateCondBr(ok, cont, fail);
    b_.SetInsertPoint(fail);
    emitReturn(code);
    b_.SetInsertPoint(cont);
  }

  /// Returns status (i32) from the current function, freeing live heap buffers.
  void emitReturn(llvm::Value* status) {
    for (auto it = scope_.heapAllocs.rbegin(); it != scope_.heapAllocs.rend(); ++it)
      b_.CreateCall(runtimeFree(), {*it});
    b_.CreateRet(status);
  }

  std::vector<llvm::Value*> captureValues(const FreeSymbols& c) const {
    std::vector<llvm::Value*> out;
    for (auto* b : c.buffers)
      out.push_back(lookupBuffer(b));
    for (auto* v : c.vars)
      out.push_back(lookupVar(v));
    return out;
  }

  /// Creates an internal, always-inlined function `fname` taking the
  /// captured buffers (noalias ptr), the captured variables, then `extra`
  /// parameters; emits its body with `emitBody(extraArgs)` in a fresh scope
  /// and returns 0 at its end. The caller's insertion point is restored.
  template <class F>
  llvm::Function* emitOutlined(const std::string& fname, const FreeSymbols& c,
                               const std::vector<llvm::Type*>& extra, F&& emitBody) {
    std::vector<llvm::Type*> types;
    for (size_t i = 0; i < c.buffers.size(); ++i)
      types.push_back(ptr_);
    for (auto* v : c.vars)
      types.push_back(typeOf(v->dtype));
    types.insert(types.end(), extra.begin(), extra.end());
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(i32_, types, false),
                                      llvm::Function::InternalLinkage, fname, mod_);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
    fn->addFnAttr(llvm::Attribute::NoUnwind);

    Scope inner;
    inner.fn = fn;
    inner.parallelDepth = scope_.parallelDepth;
    unsigned arg = 0;
    for (auto* buf : c.buffers) {
      fn->addParamAttr(arg, llvm::Attribute::NoAlias);
      fn->getArg(arg)->setName(buf->name);
      inner.buffers[buf] = fn->getArg(arg++);
    }
    for (auto* v : c.vars) {
      fn->getArg(arg)->setName(v->name);
      inner.vars[v] = fn->getArg(arg++);
    }
    std::vector<llvm::Value*> extraArgs;
    for (; arg < fn->arg_size(); ++arg)
      extraArgs.push_back(fn->getArg(arg));

    Scope outer = std::move(scope_);
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    scope_ = std::move(inner);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    emitBody(extraArgs);
    emitReturn(b_.getInt32(0));
    scope_ = std::move(outer);
    return fn;
  }

  // ------------------------------------------------------------ statements

  void emitStmt(const Stmt& s) {
    switch (s->kind()) {
    case NodeKind::BufferStore:
      return emitStore(as<BufferStore>(s));
    case NodeKind::For:
      return emitFor(as<For>(s));
    case NodeKind::LetStmt: {
      auto* op = as<LetStmt>(s);
      checkLetType(op->var.get(), op->value);
      VarBinding bind(*this, op->var.get(), emitExpr(op->value));
      return emitStmt(op->body);
    }
    case NodeKind::IfThenElse:
      return emitIf(as<IfThenElse>(s));
    case NodeKind::SeqStmt:
      for (auto& st : as<SeqStmt>(s)->seq)
        emitStmt(st);
      return;
    case NodeKind::Evaluate:
      emitExpr(as<Evaluate>(s)->value);
      return;
    case NodeKind::Allocate:
      return emitAllocate(as<Allocate>(s));
    case NodeKind::Block:
      fail("block '" + as<Block>(s)->name + "' must be lowered first (transform::lowerBlocks)");
    default:
      fail(std::string("unexpected statement ") + kindName(s->kind()));
    }
  }

  /// The address of buf[indices]: one index is the flat row-major offset in
  /// a flattened function (FlattenBuffers); otherwise one index per dimension
  /// and the offset is computed here with Horner's rule.
  llvm::Value* elementAddress(const BufferRef& buf, const std::vector<PrimExpr>& indices) {
    llvm::Value* base = lookupBuffer(buf.get());
    if (static_cast<int>(indices.size()) != buf->ndim() && !(flat_ && indices.size() == 1))
      fail("buffer '" + buf->name + "' of rank " + std::to_string(buf->ndim()) +
           " is accessed with " + std::to_string(indices.size()) + " indices");
    llvm::Value* offset = nullptr;
    for (size_t k = 0; k < indices.size(); ++k) {
      if (!indices[k]->dtype.isIntegral())
        fail("index " + std::to_string(k) + " of buffer '" + buf->name + "' is " +
             indices[k]->dtype.str());
      llvm::Value* idx = castValue(emitExpr(indices[k]), indices[k]->dtype, DataType::Int64());
      if (!offset) {
        offset = idx;
      } else {
        llvm::Value* dim =
            castValue(emitExpr(buf->shape[k]), buf->shape[k]->dtype, DataType::Int64());
        offset = b_.CreateNSWAdd(b_.CreateNSWMul(offset, dim), idx);
      }
    }
    if (!offset)
      return base; // 0-d buffer
    if (indices.size() == 1)
      if (llvm::Value* addr = splitAddress(buf, base, indices[0]))
        return addr;
    return b_.CreateInBoundsGEP(storageTypeOf(buf->dtype), base, offset);
  }

  /// A flat index `rest + c + t`, whose terms t use the innermost loop's
  /// variable, c are constants and `rest` the other terms, as two GEPs:
  /// base + rest (invariant in that loop), then + c + t. Folded into one
  /// integer, InstCombine turns the sum of a row base with its low bits
  /// clear (f * 256 + 64) and the loop variable into an `or`, and
  /// reassociating that drops its `disjoint` flag: scalar evolution then
  /// sees no stride and the loop vectorizer leaves the loop scalar (BERT's
  /// attention product on two cores, a fused parallel loop f over rows of
  /// 64: 1.3 ms against 0.06 on one core). The constants stay with the
  /// loop's terms so the unrolled rows of a tile share one base pointer at
  /// constant distances: alias analysis tells them apart and their
  /// accumulators stay in registers (with the constants in the first GEP,
  /// ResNet-18's stem went from 1.7 to 4.3 ms). Both GEPs are plain (not
  /// inbounds): base + rest alone may lie outside the buffer when a term of
  /// the loop is negative; the code generated for ResNet-18, MobileNetV2 and
  /// BERT was the same as with inbounds. nullptr when the index does not
  /// split.
  llvm::Value* splitAddress(const BufferRef& buf, llvm::Value* base, const PrimExpr& index) {
    if (!innerVar_)
      return nullptr;
    std::vector<PrimExpr> terms;
    std::function<void(const PrimExpr&)> collect = [&](const PrimExpr& e) {
      auto* add = as<BinaryExpr>(e);
      if (add && add->kind() == NodeKind::Add) {
        collect(add->a);
        collect(add->b);
      } else {
        terms.push_back(e);
      }
    };
    collect(index);
    std::vector<PrimExpr> inner, rest;
    bool moves = false;
    for (auto& t : terms) {
      bool uses = false;
      walkPrimExpr(t, [&](const PrimExpr& x) { uses = uses || x.get() == innerVar_; });
      moves = moves || uses;
      (uses || asConstInt(t) ? inner : rest).push_back(t);
    }
    if (!moves || rest.empty())
      return nullptr;
    auto sum = [&](const std::vector<PrimExpr>& ts) {
      llvm::Value* v = nullptr;
      for (auto& t : ts) {
        llvm::Value* x = castValue(emitExpr(t), t->dtype, DataType::Int64());
        v = v ? b_.CreateNSWAdd(v, x) : x;
      }
      return v;
    };
    llvm::Type* elem = storageTypeOf(buf->dtype);
    llvm::Value* row = b_.CreateGEP(elem, base, sum(rest));
    return b_.CreateGEP(elem, row, sum(inner));
  }

  void emitStore(const BufferStore* op) {
    llvm::Value* value = emitExpr(op->value);
    llvm::Value* addr = elementAddress(op->buffer, op->indices);
    if (op->buffer->dtype.isBool())
      value = b_.CreateZExt(value, i8_);
    b_.CreateStore(value, addr);
  }

  void emitIf(const IfThenElse* op) {
    llvm::Value* cond = emitExpr(op->cond);
    auto* thenBB = llvm::BasicBlock::Create(ctx_, "if.then", scope_.fn);
    auto* elseBB = op->otherwise ? llvm::BasicBlock::Create(ctx_, "if.else", scope_.fn) : nullptr;
    auto* endBB = llvm::BasicBlock::Create(ctx_, "if.end", scope_.fn);
    b_.CreateCondBr(cond, thenBB, elseBB ? elseBB : endBB);
    b_.SetInsertPoint(thenBB);
    emitStmt(op->then);
    b_.CreateBr(endBB);
    if (elseBB) {
      b_.SetInsertPoint(elseBB);
      emitStmt(op->otherwise);
      b_.CreateBr(endBB);
    }
    b_.SetInsertPoint(endBB);
  }

  void emitFor(const For* op) {
    DataType t = op->var->dtype;
    if (!t.isIntegral())
      fail("loop variable '" + op->var->name + "' is " + t.str());
    if (!op->min->dtype.isIntegral() || !op->extent->dtype.isIntegral())
      fail("loop over '" + op->var->name + "' has non-integer bounds");
    llvm::Value* minV = castValue(emitExpr(op->min), op->min->dtype, t);
    llvm::Value* extV = castValue(emitExpr(op->extent), op->extent->dtype, t);
    if (op->forKind == ForKind::Parallel && scope_.parallelDepth == 0)
      return emitParallelFor(op, minV, extV);
    int64_t constExtent = asConstInt(op->extent).value_or(-1);
    bool maskTail = op->forKind == ForKind::Vectorized && maskLanes_ > 1 && constExtent > 2 &&
                    constExtent % maskLanes_ != 0 && constExtent < 4 * maskLanes_ &&
                    unitStrideBody(op);
    emitLoop(
        op->var.get(), minV, b_.CreateNSWAdd(minV, extV), op->forKind, [&] { emitStmt(op->body); },
        constExtent, maskTail);
  }

  /// for (var = begin; var < end; ++var) body(), with loop metadata for kind.
  template <class F>
  void emitLoop(const PrimVar* var, llvm::Value* begin, llvm::Value* end, ForKind kind, F&& body,
                int64_t constExtent = -1, bool maskTail = false) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, "for." + var->name, scope_.fn);
    auto* bodyBB = llvm::BasicBlock::Create(ctx_, "for.body", scope_.fn);
    auto* exitBB = llvm::BasicBlock::Create(ctx_, "for.end", scope_.fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(begin->getType(), 2, var->name);
    iv->addIncoming(begin, pre);
    b_.CreateCondBr(isUnsigned(var->dtype) ? b_.CreateICmpULT(iv, end) : b_.CreateICmpSLT(iv, end),
                    bodyBB, exitBB);
    b_.SetInsertPoint(bodyBB);
    {
      VarBinding bind(*this, var, iv);
      const PrimVar* outerVar = innerVar_;
      innerVar_ = var;
      body();
      innerVar_ = outerVar;
    }
    llvm::Value* next = b_.CreateNSWAdd(iv, llvm::ConstantInt::get(iv->getType(), 1));
    iv->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateBr(header);
    if (llvm::MDNode* md = loopMetadata(kind, constExtent, maskTail))
      latch->setMetadata(llvm::LLVMContext::MD_loop, md);
    b_.SetInsertPoint(exitBB);
  }

  /// Loop metadata for kind. A vectorized loop of a few whole vectors
  /// (constant extent, a multiple of vectorUnit_, at most 128: the register
  /// tiles of the default schedule) is kept rolled until the loop vectorizer has run,
  /// and the vector loop it produces is then fully unrolled. Without this,
  /// LLVM's full unroller (which runs before the vectorizer) flattens a short
  /// loop such as 8 rows x 32 lanes into scalars that the SLP vectorizer
  /// regroups as 16 + 8 + 4 + 2 + 1 + 1 lanes, and the accumulator tile is
  /// then loaded and stored at every reduce step instead of living in
  /// registers (an order of magnitude slower on a 3x3 convolution:
  /// docs/benchmarks.md, "Strided and 1x1 convolutions, accumulator tiles").
  /// maskTail (emitFor): a short loop (3 iterations up to four vectors'
  /// worth, not whole vectors) over contiguous data on a machine with mask
  /// registers (AVX-512) is vectorized at the full width (or the power of
  /// two that covers it) with its tail folded into masked loads and stores.
  /// Left to itself, LLVM vectorizes a 14-iteration loop 4 wide with a
  /// scalar remainder (3 xmm operations and 2 scalar ones per row of a
  /// 14-wide depthwise convolution); masked, it is one zmm operation.
  /// MobileNetV2's 384- and 576-channel depthwise layers at 14x14 went from
  /// 0.071 to 0.047 ms and from 0.117 to 0.071 ms (docs/benchmarks.md,
  /// "Session 12"). Such a loop is kept rolled until the vectorizer has run,
  /// as whole-vector loops are: else LLVM may unroll it first and vectorize
  /// the loop around it instead, with gathers (the 960x7x7 depthwise layer
  /// with its bias and clip epilogue, rows of 7 into a local accumulator:
  /// 5 rows vectorized with gathers, 0.104 -> 0.034 ms a call once kept).
  /// So is any vectorized loop of at most 16 iterations, masked or not: the
  /// 6 strided interior columns of the 576-channel 3x3/2 depthwise layer
  /// (14x14 -> 7x7) were unrolled and the 7 rows vectorized, gathers in and
  /// scatters out (0.080 -> 0.035 ms a call; in MobileNetV2 0.17 -> 0.06).
  /// Longer strided loops keep LLVM's own unrolling: kept rolled up to 63
  /// iterations they showed no gain beyond these kernels' drift from one
  /// process to the next (the 144x56x56 3x3/2 depthwise layer took 0.090
  /// or 0.121 ms in separate runs of either build).
  llvm::MDNode* loopMetadata(ForKind kind, int64_t constExtent = -1, bool maskTail = false) {
    std::vector<llvm::Metadata*> props;
    if (kind == ForKind::Unrolled) {
      props.push_back(
          llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")}));
    } else if (kind == ForKind::Vectorized) {
      props.push_back(
          llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                   llvm::ConstantAsMetadata::get(b_.getTrue())}));
      if (maskTail) {
        int width = 1;
        while (width < constExtent && width < maskLanes_)
          width *= 2;
        props.push_back(llvm::MDNode::get(
            ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.predicate.enable"),
                   llvm::ConstantAsMetadata::get(b_.getTrue())}));
        props.push_back(
            llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.width"),
                                     llvm::ConstantAsMetadata::get(b_.getInt32(width))}));
      }
      // Kept rolled until vectorized: a masked loop, one of whole tile
      // vectors, and any of at most 16 iterations (see above).
      bool wholeVectors = constExtent > 0 && constExtent % vectorUnit_ == 0 && constExtent <= 128;
      if (maskTail || wholeVectors || (constExtent > 2 && constExtent <= 16)) {
        props.push_back(
            llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")}));
        auto* full = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")});
        props.push_back(llvm::MDNode::get(
            ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.followup_all"), full}));
      }
    } else {
      return nullptr;
    }
    std::vector<llvm::Metadata*> ops{nullptr};
    ops.insert(ops.end(), props.begin(), props.end());
    llvm::MDNode* loopID = llvm::MDNode::getDistinct(ctx_, ops);
    loopID->replaceOperandWith(0, loopID);
    return loopID;
  }

  /// Outlines the loop body into name.parN(closure, begin, end) and calls the
  /// runtime's unity_parallel_for over [0, extent).
  void emitParallelFor(const For* op, llvm::Value* minV, llvm::Value* extV) {
    DataType t = op->var->dtype;
    std::string base = symbol_ + ".par" + std::to_string(parallelCount_++);
    FreeSymbols captured = collectFreeSymbols(op->body);
    std::erase(captured.vars, op->var.get());
    // Variables unknown here are reported when the body uses them.
    std::erase_if(captured.vars, [&](const PrimVar* v) { return !scope_.vars.count(v); });

    // Body: for (i = begin; i < end; ++i) { var = min + i; body }.
    llvm::Type* ity = typeOf(t);
    llvm::Function* body = emitOutlined(
        base + ".body", captured, {ity, i64_, i64_}, [&](const std::vector<llvm::Value*>& extra) {
          ++scope_.parallelDepth;
          llvm::Value* lo = b_.CreateNSWAdd(extra[0], castValue(extra[1], DataType::Int64(), t));
          llvm::Value* hi = b_.CreateNSWAdd(extra[0], castValue(extra[2], DataType::Int64(), t));
          emitLoop(op->var.get(), lo, hi, ForKind::Serial, [&] { emitStmt(op->body); });
        });

    // Closure: one field per capture, then the loop minimum.
    std::vector<llvm::Value*> values = captureValues(captured);
    values.push_back(minV);
    std::vector<llvm::Type*> fields;
    for (auto* v : values)
      fields.push_back(v->getType());
    auto* closureTy = llvm::StructType::create(ctx_, fields, base + ".closure");

    // Trampoline with the runtime's signature.
    auto* tramp = llvm::Function::Create(llvm::FunctionType::get(i32_, {ptr_, i64_, i64_}, false),
                                         llvm::Function::InternalLinkage, base, mod_);
    tramp->addFnAttr(llvm::Attribute::NoUnwind);
    {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", tramp));
      std::vector<llvm::Value*> args;
      for (unsigned i = 0; i < fields.size(); ++i)
        args.push_back(
            b_.CreateLoad(fields[i], b_.CreateStructGEP(closureTy, tramp->getArg(0), i)));
      args.push_back(tramp->getArg(1));
      args.push_back(tramp->getArg(2));
      b_.CreateRet(b_.CreateCall(body, args));
    }

    llvm::Value* closure = entryAlloca(closureTy, nullptr, base + ".env");
    for (unsigned i = 0; i < values.size(); ++i)
      b_.CreateStore(values[i], b_.CreateStructGEP(closureTy, closure, i));
    llvm::Value* rc = b_.CreateCall(runtimeParallelFor(),
                                    {tramp, closure, castValue(extV, t, DataType::Int64())});
    returnIfNot(b_.CreateICmpEQ(rc, b_.getInt32(0)), rc);
  }

  llvm::AllocaInst* entryAlloca(llvm::Type* ty, llvm::Value* count, const std::string& name) {
    llvm::BasicBlock& entry = scope_.fn->getEntryBlock();
    llvm::IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
    auto* a = eb.CreateAlloca(ty, count, name);
    a->setAlignment(llvm::Align(64));
    return a;
  }

  void emitAllocate(const Allocate* op) {
    const BufferRef& buf = op->buffer;
    llvm::Type* elemTy = storageTypeOf(buf->dtype);
    int64_t elemBytes = buf->dtype.bytes();
    // A plain flag rather than std::optional: GCC 12 -O3 reports a false
    // -Wmaybe-uninitialized through the optional.
    int64_t constElems = 1;
    bool allConst = true;
    for (auto& d : buf->shape) {
      auto c = asConstInt(d);
      if (!c)
        allConst = false;
      else
        constElems *= *c;
    }
    if (allConst && constElems < 0)
      fail("buffer '" + buf->name + "' has a negative size");
    llvm::Value* ptr;
    bool onHeap = !allConst || constElems * elemBytes > kMaxStackAllocBytes;
    if (!onHeap) {
      ptr = entryAlloca(elemTy, b_.getInt64(std::max<int64_t>(constElems, 1)), buf->name);
    } else {
      llvm::Value* elems = b_.getInt64(1);
      for (auto& d : buf->shape)
        elems = b_.CreateNSWMul(elems, castValue(emitExpr(d), d->dtype, DataType::Int64()));
      llvm::Value* bytes = b_.CreateNSWMul(elems, b_.getInt64(elemBytes));
      ptr = b_.CreateCall(runtimeAlloc(), {bytes}, buf->name);
      returnIfNot(b_.CreateIsNotNull(ptr), kKernelAllocFailed);
      scope_.heapAllocs.push_back(ptr);
    }
    scope_.buffers[buf.get()] = ptr;
    emitStmt(op->body);
    scope_.buffers.erase(buf.get());
    if (onHeap) {
      scope_.heapAllocs.pop_back();
      b_.CreateCall(runtimeFree(), {ptr});
    }
  }

  // ----------------------------------------------------------- expressions

  static bool isUnsigned(DataType t) { return t.isUInt() || t.isBool(); }

  llvm::Value* castValue(llvm::Value* v, DataType from, DataType to) {
    if (from == to)
      return v;
    llvm::Type* ty = typeOf(to);
    if (to.isBool()) {
      if (from.isFloat())
        return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
      return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    if (from.isHandle() || to.isHandle())
      fail("cast between " + from.str() + " and " + to.str());
    if (from.isFloat() && to.isFloat())
      return b_.CreateFPCast(v, ty);
    if (from.isFloat())
      return to.isInt() ? b_.CreateFPToSI(v, ty) : b_.CreateFPToUI(v, ty);
    if (to.isFloat())
      return from.isInt() ? b_.CreateSIToFP(v, ty) : b_.CreateUIToFP(v, ty);
    return b_.CreateIntCast(v, ty, from.isInt());
  }

  llvm::Value* emitExpr(const PrimExpr& e) {
    switch (e->kind()) {
    case NodeKind::IntImm:
      return llvm::ConstantInt::get(typeOf(e->dtype), as<IntImm>(e)->value, true);
    case NodeKind::FloatImm:
      return llvm::ConstantFP::get(typeOf(e->dtype), as<FloatImm>(e)->value);
    case NodeKind::PrimVar:
      return lookupVar(as<PrimVar>(e));
    case NodeKind::Not:
      return b_.CreateNot(emitExpr(as<NotExpr>(e)->a));
    case NodeKind::Select: {
      auto* op = as<Select>(e);
      llvm::Value* c = emitExpr(op->cond);
      llvm::Value* t = emitExpr(op->t);
      llvm::Value* f = emitExpr(op->f);
      return b_.CreateSelect(c, t, f);
    }
    case NodeKind::Cast: {
      auto* op = as<CastExpr>(e);
      return castValue(emitExpr(op->value), op->value->dtype, op->dtype);
    }
    case NodeKind::BufferLoad: {
      auto* op = as<BufferLoad>(e);
      llvm::Value* addr = elementAddress(op->buffer, op->indices);
      llvm::Value* v = b_.CreateLoad(storageTypeOf(op->buffer->dtype), addr);
      return op->buffer->dtype.isBool() ? b_.CreateTrunc(v, i1_) : v;
    }
    case NodeKind::PrimCall: {
      auto* op = as<PrimCall>(e);
      if (op->op == kArgDimIntrinsic || op->op == kAssertDimIntrinsic)
        return emitCallingConv(op);
      if (op->op == kPrefetchIntrinsic) {
        // llvm.prefetch(address, read, locality 3 (keep in all levels), data)
        auto* load = as<BufferLoad>(op->args[0]);
        llvm::Value* addr = elementAddress(load->buffer, load->indices);
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {addr->getType()},
                           {addr, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
        return llvm::ConstantInt::get(typeOf(op->dtype), 0);
      }
      if (op->op == kReinterpretIntrinsic)
        return b_.CreateBitCast(emitExpr(op->args[0]), typeOf(op->dtype));
      std::vector<llvm::Value*> args;
      for (auto& a : op->args) {
        if (a->dtype != op->args[0]->dtype)
          fail("arguments of intrinsic '" + op->op + "' differ in type");
        args.push_back(emitExpr(a));
      }
      return emitIntrinsic(b_, op->op, args, op->args[0]->dtype, op->dtype, name_);
    }
    case NodeKind::PrimLet: {
      auto* op = as<PrimLet>(e);
      checkLetType(op->var.get(), op->value);
      VarBinding bind(*this, op->var.get(), emitExpr(op->value));
      return emitExpr(op->body);
    }
    default:
      if (auto* bin = as<BinaryExpr>(e))
        return emitBinary(bin);
      fail(std::string("unexpected expression ") + kindName(e->kind()));
    }
  }

  llvm::Value* emitBinary(const BinaryExpr* op) {
    DataType t = op->a->dtype;
    llvm::Value* a = emitExpr(op->a);
    llvm::Value* b = emitExpr(op->b);
    bool isF = t.isFloat();
    bool isS = t.isInt();
    if (isComparison(op->op()))
      return b_.CreateCmp(cmpPredicate(op->op(), isF, isS), a, b);
    switch (op->op()) {
    case NodeKind::Add:
      return isF ? b_.CreateFAdd(a, b) : isS ? b_.CreateNSWAdd(a, b) : b_.CreateAdd(a, b);
    case NodeKind::Sub:
      return isF ? b_.CreateFSub(a, b) : isS ? b_.CreateNSWSub(a, b) : b_.CreateSub(a, b);
    case NodeKind::Mul:
      return isF ? b_.CreateFMul(a, b) : isS ? b_.CreateNSWMul(a, b) : b_.CreateMul(a, b);
    case NodeKind::Div:
      return isF ? b_.CreateFDiv(a, b) : isS ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
      return emitFloorDivMod(op->op() == NodeKind::FloorDiv, a, b, isS);
    case NodeKind::Min:
      if (isF)
        return b_.CreateMinNum(a, b);
      return b_.CreateSelect(b_.CreateICmp(cmpPredicate(NodeKind::LT, false, isS), a, b), a, b);
    case NodeKind::Max:
      if (isF)
        return b_.CreateMaxNum(a, b);
      return b_.CreateSelect(b_.CreateICmp(cmpPredicate(NodeKind::GT, false, isS), a, b), a, b);
    case NodeKind::And:
      return b_.CreateAnd(a, b);
    case NodeKind::Or:
      return b_.CreateOr(a, b);
    default:
      fail(std::string("unexpected binary operator ") + binaryOpSymbol(op->op()));
    }
  }

  /// Fails when a let (statement or expression) binds a value of a type
  /// other than its variable's.
  void checkLetType(const PrimVar* var, const PrimExpr& value) {
    if (value->dtype != var->dtype)
      fail("let of '" + var->name + "' (" + var->dtype.str() + ") binds a value of " +
           value->dtype.str());
  }

  /// The LLVM predicate of comparison k (EQ ... GE) for floats (ordered, but
  /// NE unordered: true when either is NaN), signed or unsigned integers.
  static llvm::CmpInst::Predicate cmpPredicate(NodeKind k, bool isF, bool isS) {
    using P = llvm::CmpInst::Predicate;
    switch (k) {
    case NodeKind::EQ:
      return isF ? P::FCMP_OEQ : P::ICMP_EQ;
    case NodeKind::NE:
      return isF ? P::FCMP_UNE : P::ICMP_NE;
    case NodeKind::LT:
      return isF ? P::FCMP_OLT : isS ? P::ICMP_SLT : P::ICMP_ULT;
    case NodeKind::LE:
      return isF ? P::FCMP_OLE : isS ? P::ICMP_SLE : P::ICMP_ULE;
    case NodeKind::GT:
      return isF ? P::FCMP_OGT : isS ? P::ICMP_SGT : P::ICMP_UGT;
    default:
      return isF ? P::FCMP_OGE : isS ? P::ICMP_SGE : P::ICMP_UGE;
    }
  }

  /// Floor division/modulo: truncating sdiv/srem, corrected by one when the
  /// remainder is nonzero and its sign differs from the divisor's.
  llvm::Value* emitFloorDivMod(bool div, llvm::Value* a, llvm::Value* b, bool isSigned) {
    if (!isSigned)
      return div ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
    llvm::Value* q = b_.CreateSDiv(a, b);
    llvm::Value* r = b_.CreateSRem(a, b);
    llvm::Value* zero = llvm::ConstantInt::get(a->getType(), 0);
    llvm::Value* adjust =
        b_.CreateAnd(b_.CreateICmpNE(r, zero),
                     b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
    if (div)
      return b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(a->getType(), 1)), q);
    return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
  }

  // ------------------------------------------------------- runtime symbols

  llvm::FunctionCallee runtimeParallelFor() {
    return mod_.getOrInsertFunction("unity_parallel_for",
                                    llvm::FunctionType::get(i32_, {ptr_, ptr_, i64_}, false));
  }
  /// unity_alloc is malloc-like: its result is `noalias` (a fresh object no
  /// other pointer reaches), 64-byte aligned, and it does not touch memory
  /// the kernel can see. Without the attribute LLVM must assume a heap
  /// temporary may overlap every other buffer: the loop vectorizer adds
  /// runtime overlap checks and LICM cannot keep an accumulator tile in
  /// registers across a reduction that reads the temporary.
  llvm::FunctionCallee runtimeAlloc() {
    llvm::AttributeList attrs;
    attrs = attrs.addRetAttribute(ctx_, llvm::Attribute::NoAlias);
    attrs = attrs.addRetAttribute(ctx_, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    attrs = attrs.addFnAttribute(ctx_, llvm::Attribute::NoUnwind);
    attrs =
        attrs.addFnAttribute(ctx_, llvm::Attribute::getWithAllocSizeArgs(ctx_, 0, std::nullopt));
    attrs = attrs.addFnAttribute(ctx_, llvm::Attribute::getWithMemoryEffects(
                                           ctx_, llvm::MemoryEffects::inaccessibleMemOnly()));
    return mod_.getOrInsertFunction("unity_alloc", llvm::FunctionType::get(ptr_, {i64_}, false),
                                    attrs);
  }
  llvm::FunctionCallee runtimeFree() {
    return mod_.getOrInsertFunction("unity_free",
                                    llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false));
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& mod_;
  llvm::IRBuilder<> b_;
  std::string name_;   // for messages
  std::string symbol_; // prefix of every generated function
  PrimFuncRef f_;
  bool flat_;                         // accesses have one flat index (FlattenBuffers ran)
  bool packed_;                       // the shape prologue is IR (MakePackedAPI ran)
  int vectorUnit_;                    // lanes of the tiles' whole vectors (loopMetadata)
  int maskLanes_;                     // lanes of a masked tail (loopMetadata); 0: none
  const PrimVar* innerVar_ = nullptr; // the innermost loop being emitted (splitAddress)
  llvm::Function* entry_ = nullptr;   // the packed entry being emitted
  llvm::Value* shapes_ = nullptr;     // its `shapes` argument
  std::vector<int64_t> shapeOffsets_; // per parameter: its first dim in `shapes`
  Scope scope_;
  int parallelCount_ = 0;
  llvm::Type *i1_, *i8_, *i32_, *i64_;
  llvm::PointerType* ptr_;
};

} // namespace

std::string kernelSymbol(const std::string& name) {
  static const std::set<std::string> reserved = [] {
    std::set<std::string> r{"memcpy", "memmove", "memset", "malloc", "free",   "abort",   "fmodf",
                            "fmod",   "ldexp",   "ldexpf", "frexp",  "frexpf", "exp2",    "exp2f",
                            "exp10",  "exp10f",  "log10",  "log10f", "sincos", "sincosf", "cbrt",
                            "cbrtf",  "fmin",    "fmax",   "fminf",  "fmaxf"};
    for (const std::string& s : intrinsicNames()) {
      r.insert(s);
      r.insert(s + "f");
    }
    return r;
  }();
  if (reserved.count(name) || name.rfind("unity_", 0) == 0)
    return name + "_kernel";
  return name;
}

std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext& ctx, const NamedPrimFuncs& funcs,
                                             const CodegenOptions& opts) {
  // Missed-optimisation remarks and warnings ("loop not vectorized") are
  // expected for loops a schedule marks but LLVM cannot vectorize; they are
  // noise for users, so only errors reach stderr.
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* di, void*) {
        if (di->getSeverity() != llvm::DS_Error)
          return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        di->print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
  auto m = std::make_unique<llvm::Module>("unity", ctx);
  // The schedule's tiles are whole vectors of the target's machine model;
  // a tile of AVX-512 is also whole AVX2 vectors, so 8 lanes serve both
  // (and the narrower NEON/SSE vector where that is the machine's).
  target::MachineModel mm = codegenMachine(opts);
  int vectorUnit = std::clamp(mm.lanesF32, 2, 8);
  int maskLanes = mm.avx512f ? mm.lanesF32 : 0;
  std::set<std::string> names;
  for (auto& [name, f] : funcs) {
    if (!f)
      throw Error("codegen: function '" + name + "' is null");
    if (name.empty())
      throw Error("codegen: a function has an empty name");
    if (!names.insert(name).second)
      throw Error("codegen: function name '" + name + "' is used twice");
    KernelEmitter(*m, name, kernelSymbol(name), transform::lowerForCodegen(f), opts.fastMath,
                  vectorUnit, maskLanes)
        .emit();
  }
  return m;
}

} // namespace unity::codegen::detail
