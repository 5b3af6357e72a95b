#include "random_module.h"

#include <cstring>
#include <random>

namespace unity::text::testing {

using namespace ir;

namespace {

class Gen {
public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  IRModule module() {
    std::vector<IRModuleNode::Entry> fns;
    int nPrim = pick(3);
    for (int i = 0; i < nPrim; ++i)
      primNames_.push_back("prim" + std::to_string(i));
    int nGraph = 1 + pick(2);
    for (int i = 0; i < nGraph; ++i)
      graphNames_.push_back(i == 0 ? "main" : "f" + std::to_string(i));
    for (auto& n : graphNames_)
      fns.emplace_back(n, graphFunction());
    for (auto& n : primNames_)
      fns.emplace_back(n, primFunc());
    if (coin())
      fns.emplace_back("ext", make<ExternFunc>("lib_sym", coin() ? randomSInfo(1) : nullptr,
                                               coin() ? randomAttrs() : Attrs{}));
    return makeModule(fns, coin() ? randomAttrs() : Attrs{});
  }

private:
  int pick(int n) { return n <= 0 ? 0 : int(rng_() % uint64_t(n)); }
  bool coin() { return pick(2) == 0; }
  template <class T> const T& any(const std::vector<T>& v) {
    return v[size_t(pick(int(v.size())))];
  }

  // ------------------------------------------------------------ attributes
  AttrValue randomAttrValue() {
    switch (pick(11)) {
    case 0:
      return coin();
    case 1:
      return int64_t(pick(2000)) - 1000;
    case 2:
      return double(pick(1000)) / 7.0;
    case 3:
      return std::string(coin() ? "text \"quoted\"\n" : "x");
    case 4:
      return coin() ? DataType::Float32() : DataType::Int(8, 4);
    case 5:
      return std::vector<int64_t>{1, -2, 3};
    case 6:
      return std::vector<double>{0.5, 1.0, -1e30};
    case 7:
      return std::vector<std::string>{"a", "b c"};
    case 8:
      return std::vector<int64_t>{};
    case 9:
      return std::vector<double>{};
    default:
      return std::vector<std::string>{};
    }
  }
  Attrs randomAttrs() {
    Attrs a;
    static const char* keys[] = {"axis",      "keepdims", "layout",   "my key",
                                 "out_sinfo", "eps",      "pool_size"};
    int n = 1 + pick(3);
    for (int i = 0; i < n; ++i)
      a.set(keys[pick(7)], randomAttrValue());
    return a;
  }

  // ------------------------------------------------------------ scalars
  PrimExpr intExpr(int depth, DataType t, const std::vector<Ref<PrimVar>>& vars) {
    std::vector<Ref<PrimVar>> typed;
    for (auto& v : vars)
      if (v->dtype == t)
        typed.push_back(v);
    if (depth <= 0 || pick(3) == 0) {
      if (!typed.empty() && coin())
        return any(typed);
      return intImm(int64_t(pick(20)) - 3, t);
    }
    switch (pick(9)) {
    case 0:
      return intExpr(depth - 1, t, vars) + intExpr(depth - 1, t, vars);
    case 1:
      return intExpr(depth - 1, t, vars) * intExpr(depth - 1, t, vars);
    case 2:
      return intExpr(depth - 1, t, vars) - intExpr(depth - 1, t, vars);
    case 3:
      return floordiv(intExpr(depth - 1, t, vars), intExpr(0, t, vars));
    case 4:
      return floormod(intExpr(depth - 1, t, vars), intExpr(0, t, vars));
    case 5:
      return coin() ? min(intExpr(depth - 1, t, vars), intExpr(depth - 1, t, vars))
                    : max(intExpr(depth - 1, t, vars), intExpr(depth - 1, t, vars));
    case 6:
      return select(boolExpr(depth - 1, vars), intExpr(depth - 1, t, vars),
                    intExpr(depth - 1, t, vars));
    case 7: {
      DataType other = t == DataType::Int64() ? DataType::Int32() : DataType::Int64();
      return make<CastExpr>(t, intExpr(depth - 1, other, vars));
    }
    default: {
      auto v = primVar("t", t);
      auto inner = vars;
      inner.push_back(v);
      return make<PrimLet>(v, intExpr(depth - 1, t, vars), intExpr(depth - 1, t, inner));
    }
    }
  }
  PrimExpr boolExpr(int depth, const std::vector<Ref<PrimVar>>& vars) {
    if (depth <= 0)
      return boolImm(coin());
    switch (pick(5)) {
    case 0:
      return lt(intExpr(depth - 1, DataType::Int64(), vars),
                intExpr(depth - 1, DataType::Int64(), vars));
    case 1:
      return logicalAnd(boolExpr(depth - 1, vars), boolExpr(depth - 1, vars));
    case 2:
      return logicalOr(boolExpr(depth - 1, vars), boolExpr(depth - 1, vars));
    case 3:
      return logicalNot(boolExpr(depth - 1, vars));
    default: {
      static const NodeKind cmps[] = {NodeKind::EQ, NodeKind::NE, NodeKind::LE, NodeKind::GT,
                                      NodeKind::GE};
      return binary(cmps[pick(5)], intExpr(depth - 1, DataType::Int32(), vars),
                    intExpr(depth - 1, DataType::Int32(), vars));
    }
    }
  }
  PrimExpr floatExpr(int depth, const std::vector<Ref<PrimVar>>& vars,
                     const std::vector<BufferRef>& bufs) {
    if (depth <= 0 || pick(4) == 0) {
      std::vector<BufferRef> floats;
      for (auto& b : bufs)
        if (b->dtype == DataType::Float32())
          floats.push_back(b);
      if (!floats.empty() && coin()) {
        auto& b = any(floats);
        std::vector<PrimExpr> idx;
        for (int i = 0; i < b->ndim(); ++i)
          idx.push_back(intExpr(1, b->shape[size_t(i)]->dtype, vars));
        return make<BufferLoad>(b, idx);
      }
      static const double vals[] = {0.0, 1.5, -2.25, 0.1, 1e-7, 3.0e38, 1.0 / 3.0};
      return floatImm(vals[pick(7)]);
    }
    switch (pick(7)) {
    case 0:
      return floatExpr(depth - 1, vars, bufs) + floatExpr(depth - 1, vars, bufs);
    case 1:
      return floatExpr(depth - 1, vars, bufs) * floatExpr(depth - 1, vars, bufs);
    case 2:
      return floatExpr(depth - 1, vars, bufs) / floatExpr(depth - 1, vars, bufs);
    case 3:
      return call(DataType::Float32(), coin() ? "exp" : "sqrt", {floatExpr(depth - 1, vars, bufs)});
    case 4:
      return call(DataType::Float32(), "pow",
                  {floatExpr(depth - 1, vars, bufs), floatExpr(0, vars, bufs)});
    case 5:
      return make<CastExpr>(DataType::Float32(), intExpr(depth - 1, DataType::Int64(), vars));
    default:
      return select(boolExpr(depth - 1, vars), floatExpr(depth - 1, vars, bufs),
                    floatExpr(depth - 1, vars, bufs));
    }
  }

  // ------------------------------------------------------------ tensor level
  PrimFuncRef primFunc() {
    auto n = primVar("n");
    auto k = primVar("k", DataType::Int32());
    std::vector<PrimFunc::Param> params;
    std::vector<BufferRef> bufs;
    int nb = 1 + pick(3);
    for (int i = 0; i < nb; ++i) {
      std::vector<PrimExpr> shape;
      int nd = pick(3);
      for (int d = 0; d < nd; ++d)
        shape.push_back(d == 0 && coin() ? PrimExpr(n)
                                         : (coin() ? PrimExpr(k) : intImm(4 + pick(4))));
      auto b = makeBuffer(std::string(1, char('A' + i)),
                          coin() ? DataType::Float32() : DataType::Int32(), shape);
      bufs.push_back(b);
      params.push_back({b, nullptr});
    }
    if (coin())
      params.push_back({nullptr, k});
    std::vector<Ref<PrimVar>> vars{n};
    Stmt body = stmtSeq(3, vars, bufs);
    Attrs attrs;
    if (coin())
      attrs.set("num_outputs", int64_t(1));
    if (coin())
      attrs.set("global_symbol", std::string("g"));
    return make<PrimFunc>(params, body, attrs);
  }

  Stmt stmtSeq(int depth, std::vector<Ref<PrimVar>> vars, std::vector<BufferRef> bufs) {
    int len = pick(4);
    if (len == 0)
      return coin() ? stmt(depth, vars, bufs) : make<SeqStmt>(std::vector<Stmt>{});
    if (len == 1)
      return stmt(depth, vars, bufs);
    std::vector<Stmt> seq;
    for (int i = 0; i < len; ++i)
      seq.push_back(stmt(depth, vars, bufs));
    return make<SeqStmt>(seq);
  }

  Stmt store(const std::vector<Ref<PrimVar>>& vars, const std::vector<BufferRef>& bufs) {
    auto& b = any(bufs);
    std::vector<PrimExpr> idx;
    for (int i = 0; i < b->ndim(); ++i)
      idx.push_back(intExpr(1, b->shape[size_t(i)]->dtype, vars));
    PrimExpr v =
        b->dtype.isFloat() ? floatExpr(2, vars, bufs) : intExpr(2, DataType::Int32(), vars);
    return make<BufferStore>(b, v, idx);
  }

  Range randomRange(const std::vector<Ref<PrimVar>>& vars) {
    switch (pick(6)) {
    case 0:
      return {intExpr(1, DataType::Int64(), vars), intImm(1)};
    case 1:
      return {intImm(pick(3)), intImm(1 + pick(8))};
    case 2:
      return {intImm(0), intExpr(1, DataType::Int64(), vars)};
    case 3:
      return {intExpr(1, DataType::Int64(), vars), intExpr(1, DataType::Int64(), vars)};
    case 4:
      return {intImm(0, DataType::Int32()), intImm(4)}; // mixed dtypes: T.Range form
    default:
      return {intImm(2), intExpr(1, DataType::Int64(), vars) + intImm(1)};
    }
  }

  Stmt stmt(int depth, std::vector<Ref<PrimVar>> vars, std::vector<BufferRef> bufs) {
    if (depth <= 0)
      return coin() ? store(vars, bufs) : make<Evaluate>(intExpr(1, DataType::Int64(), vars));
    switch (pick(8)) {
    case 0:
    case 1: {
      auto v = primVar(coin() ? "i" : "j", coin() ? DataType::Int64() : DataType::Int32());
      PrimExpr ext = intExpr(1, v->dtype, vars);
      PrimExpr mn = coin() ? intImm(0, v->dtype) : intExpr(1, v->dtype, vars);
      if (pick(4) == 0)
        ext = intImm(8); // var dtype differs from the extent's sometimes
      auto inner = vars;
      inner.push_back(v);
      Attrs ann;
      if (pick(3) == 0)
        ann.set("pragma_unroll", int64_t(4));
      return make<For>(v, mn, ext, ForKind(pick(4)), stmtSeq(depth - 1, inner, bufs), ann);
    }
    case 2: {
      std::vector<IterVar> iters;
      std::vector<PrimExpr> binds;
      auto inner = vars;
      int ni = pick(3);
      for (int i = 0; i < ni; ++i) {
        auto v = primVar("v", DataType::Int64());
        PrimExpr mn = coin() ? intImm(0) : intExpr(1, DataType::Int64(), vars);
        iters.push_back({v,
                         {mn, intExpr(1, DataType::Int64(), vars)},
                         coin() ? IterType::Spatial : IterType::Reduce});
        binds.push_back(intExpr(1, DataType::Int64(), vars));
        inner.push_back(v);
      }
      auto regionOf = [&](const BufferRef& b) {
        BufferRegion r{b, {}};
        for (int d = 0; d < b->ndim(); ++d)
          r.region.push_back(randomRange(inner));
        return r;
      };
      std::vector<BufferRegion> reads, writes;
      if (coin())
        reads.push_back(regionOf(any(bufs)));
      if (coin())
        writes.push_back(regionOf(any(bufs)));
      std::vector<BufferRef> allocs;
      auto innerBufs = bufs;
      if (coin()) {
        auto b = makeBuffer("local", DataType::Float32(), {intImm(4)}, "local");
        allocs.push_back(b);
        innerBufs.push_back(b);
      }
      Stmt init = coin() ? store(inner, innerBufs) : nullptr;
      PrimExpr pred = coin() ? boolExpr(1, inner) : nullptr;
      Attrs ann;
      if (coin())
        ann.set("schedule_rule", std::string("None"));
      return make<Block>(coin() ? "blk" : "block \"q\"", iters, binds, reads, writes, init,
                         stmtSeq(depth - 1, inner, innerBufs), allocs, pred, ann);
    }
    case 3: {
      auto v = primVar("x", coin() ? DataType::Int64() : DataType::Int32());
      PrimExpr val = intExpr(1, coin() ? v->dtype : DataType::Int64(), vars);
      auto inner = vars;
      inner.push_back(v);
      return make<LetStmt>(v, val, stmtSeq(depth - 1, inner, bufs));
    }
    case 4:
      return make<IfThenElse>(boolExpr(2, vars), stmtSeq(depth - 1, vars, bufs),
                              coin() ? stmtSeq(depth - 1, vars, bufs) : nullptr);
    case 5: {
      auto b = makeBuffer("tmp", DataType::Float32(),
                          {intImm(8), intExpr(1, DataType::Int64(), vars)}, "local");
      auto inner = bufs;
      inner.push_back(b);
      return make<Allocate>(b, stmtSeq(depth - 1, vars, inner));
    }
    default:
      return store(vars, bufs);
    }
  }

  // ------------------------------------------------------------ graph level
  PrimExpr dim() {
    switch (pick(4)) {
    case 0:
      return intImm(1 + pick(16));
    case 1:
      return any(sym_);
    case 2:
      return any(sym_) * intImm(2);
    default:
      return intImm(4);
    }
  }

  StructInfo randomSInfo(int depth) {
    switch (pick(depth > 0 ? 10 : 7)) {
    case 0:
    case 1: {
      std::vector<PrimExpr> shape;
      int nd = pick(4);
      for (int i = 0; i < nd; ++i)
        shape.push_back(dim());
      return tensorSInfo(coin() ? DataType::Float32() : DataType::Void(), shape);
    }
    case 2:
      return tensorSInfo(DataType::Float32(), pick(4) - 1);
    case 3:
      return coin() ? shapeSInfo({dim(), dim()}) : StructInfo(make<ShapeSInfo>(pick(3) - 1));
    case 4:
      return primSInfo(DataType::Int64(), coin() ? dim() : nullptr);
    case 5:
      return objectSInfo();
    case 6:
      return tensorSInfo(DataType::Int(8), std::vector<PrimExpr>{});
    case 7:
      return tupleSInfo({randomSInfo(depth - 1), randomSInfo(depth - 1)});
    case 8:
      return tupleSInfo({});
    default: {
      std::optional<std::vector<StructInfo>> ps;
      if (coin())
        ps = std::vector<StructInfo>{randomSInfo(depth - 1)};
      return make<FuncSInfo>(ps, randomSInfo(depth - 1), coin());
    }
    }
  }

  Tensor randomTensor() {
    switch (pick(5)) {
    case 0: {
      std::vector<float> v(6);
      for (auto& x : v)
        x = float(pick(1000)) / 37.0f - 10.0f;
      return Tensor::fromFloats({2, 3}, v);
    }
    case 1: {
      Tensor t(DataType::Int32(), {4});
      for (int i = 0; i < 4; ++i)
        t.setDouble(i, pick(100) - 50);
      return t;
    }
    case 2: {
      Tensor t(DataType::Bool(), {3});
      for (int i = 0; i < 3; ++i)
        t.setDouble(i, coin());
      return t;
    }
    case 3: {
      Tensor t(DataType::Float(64), {});
      t.setDouble(0, 0.1 * pick(100));
      return t;
    }
    default: {
      // Large or non-inlinable: goes to the metadata section.
      Tensor t(coin() ? DataType::Float32() : DataType::Float(16), {5, 7});
      auto* p = static_cast<unsigned char*>(t.mutableData());
      for (size_t i = 0; i < t.nbytes(); ++i)
        p[i] = static_cast<unsigned char>(rng_());
      return t;
    }
    }
  }

  Expr leafValue() {
    switch (pick(6)) {
    case 0:
      return make<Constant>(randomTensor());
    case 1:
      return make<ShapeExpr>(std::vector<PrimExpr>{dim(), intImm(3)});
    case 2:
      return make<PrimValue>(coin() ? dim() : PrimExpr(intImm(7, DataType::Int32())));
    case 3:
      return make<StringImm>(coin() ? "hello" : "tab\there \\ \"q\"");
    default:
      return any(vars_);
    }
  }

  Expr value(int depth) {
    if (depth <= 0)
      return leafValue();
    switch (pick(10)) {
    case 0: {
      static const char* ops[] = {"add", "nn.relu", "matmul", "nn.conv2d", "weird-op", "shape"};
      int na = pick(3);
      std::vector<Expr> args;
      for (int i = 0; i < na; ++i)
        args.push_back(pick(3) == 0 ? value(depth - 1) : any(vars_));
      std::vector<StructInfo> sargs;
      int ns = pick(4) == 0 ? 1 + pick(2) : 0;
      for (int i = 0; i < ns; ++i)
        sargs.push_back(randomSInfo(1));
      return make<Call>(opRef(ops[pick(6)]), args, coin() ? randomAttrs() : Attrs{}, sargs);
    }
    case 1:
      return make<Tuple>(std::vector<Expr>{any(vars_), leafValue()});
    case 2:
      return make<Tuple>(std::vector<Expr>(size_t(pick(2)), any(vars_)));
    case 3:
      return make<TupleGetItem>(any(vars_), pick(3));
    case 4:
      if (!primNames_.empty())
        return make<Call>(opRef("call_tir"),
                          std::vector<Expr>{make<GlobalVar>(any(primNames_)),
                                            make<Tuple>(std::vector<Expr>{any(vars_)})},
                          Attrs{}, std::vector<StructInfo>{randomSInfo(1)});
      return leafValue();
    case 5:
      return make<Call>(make<GlobalVar>(coin() ? any(graphNames_) : std::string("missing")),
                        std::vector<Expr>{any(vars_)});
    case 6:
      return make<Call>(make<ExternFunc>("ext_sym"), std::vector<Expr>{any(vars_)});
    default:
      return leafValue();
    }
  }

  Span randomSpan() {
    Span s;
    if (pick(3) == 0)
      s.origins = {"Conv_" + std::to_string(pick(9)) + ":Conv"};
    if (pick(6) == 0)
      s.origins.push_back("Relu_1:Relu");
    return s;
  }

  // A SeqExpr of canonical blocks; binds into vars_ (restored by caller).
  Expr seq(int depth, int nBlocks) {
    std::vector<Ref<BindingBlock>> blocks;
    bool lastPlain = false;
    for (int b = 0; b < nBlocks; ++b) {
      bool df = lastPlain || coin();
      lastPlain = !df;
      std::vector<Binding> bindings;
      int nb = df ? pick(4) : 1 + pick(3);
      for (int i = 0; i < nb; ++i)
        bindings.push_back(binding(depth, df));
      blocks.push_back(make<BindingBlock>(bindings, df));
    }
    return make<SeqExpr>(blocks, any(vars_));
  }

  Binding binding(int depth, bool df) {
    StructInfo ann = pick(3) == 0 ? nullptr : randomSInfo(1);
    auto var = [&](const char* name) {
      return df && coin() ? makeDataflowVar(name, ann) : makeVar(name, ann);
    };
    int kind = pick(8);
    if (kind == 0) {
      // match_cast defining a new shape variable.
      auto m = primVar(coin() ? "m" : "n");
      StructInfo pattern =
          tensorSInfo(DataType::Float32(), std::vector<PrimExpr>{PrimExpr(m), intImm(4)});
      sym_.push_back(m);
      Var v = var("mc");
      Binding b = make<MatchCast>(v, any(vars_), pattern, randomSpan());
      vars_.push_back(v);
      return b;
    }
    if (kind == 1 && depth > 0) {
      auto saved = vars_;
      auto savedSym = sym_;
      Expr thenB = seq(depth - 1, pick(3));
      vars_ = saved;
      sym_ = savedSym;
      Expr elseB = seq(depth - 1, pick(2));
      vars_ = saved;
      sym_ = savedSym;
      Var v = var("r");
      Binding b = make<VarBinding>(v, make<If>(any(vars_), thenB, elseB), randomSpan());
      vars_.push_back(v);
      return b;
    }
    Expr val = value(2);
    Var v = var(coin() ? "lv" : "x");
    Binding b = make<VarBinding>(v, val, randomSpan());
    vars_.push_back(v);
    return b;
  }

  FunctionRef graphFunction() {
    vars_.clear();
    sym_ = {primVar("n"), primVar(coin() ? "n" : "batch")};
    std::vector<Var> params;
    int np = 1 + pick(3);
    for (int i = 0; i < np; ++i) {
      auto p = makeVar(coin() ? "x" : "w", pick(4) == 0 ? nullptr : randomSInfo(1));
      params.push_back(p);
      vars_.push_back(p);
    }
    Expr body = seq(2, pick(4));
    Attrs attrs;
    if (coin())
      attrs = randomAttrs();
    StructInfo ret = coin() ? randomSInfo(1) : nullptr;
    return make<Function>(params, body, ret, attrs, pick(4) != 0);
  }

  std::mt19937_64 rng_;
  std::vector<std::string> primNames_, graphNames_;
  std::vector<Var> vars_;
  std::vector<Ref<PrimVar>> sym_;
};

} // namespace

IRModule randomModule(uint64_t seed) { return Gen(seed).module(); }

} // namespace unity::text::testing
