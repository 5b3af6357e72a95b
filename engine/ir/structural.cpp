// Structural equality and hash as one canonical walk.
//
// Algorithm. A Walker visits a node in a fixed order and emits a stream of
// 64-bit words and byte strings that describes it completely, except for the
// identity and names of variables:
//   - every node emits a tag derived from its kind's *name* (FNV-1a of
//     kindName), so reordering the NodeKind enum does not change hashes;
//   - a variable (PrimVar, Var/DataflowVar, Buffer) gets the next index of a
//     counter the first time the walk meets it, and emits "definition" + its
//     kind + its type (dtype / struct info / buffer dtype, scope and shape);
//     every later occurrence emits "reference" + that index. Definitions are
//     visited before the scopes that use them (parameters before bodies, a
//     binding's value before its variable, loop variables before loop
//     bodies), so the index is the de Bruijn-like definition order; a free
//     variable is defined by its first use. Two walks agree on these tokens
//     exactly when the variables correspond one to one.
//   - names, Spans and pointer values are never emitted; floats are emitted
//     by their bit pattern; strings and constant data as length + bytes.
// structuralEqual(a, b) records a's stream and checks b's stream against it,
// stopping at the first difference; structuralHash(n) folds n's stream into
// an xxHash64-style mix. Since both are functions of the same stream, equal
// nodes always hash equal, and the hash depends on nothing but the stream
// (bytes are read little-endian explicitly), so it is stable across
// processes and machines. An IRModule's functions are walked sorted by name,
// each with a fresh variable counter.
#include "engine/ir/structural.h"
#include "engine/ir/structural_digest.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "engine/ir/module.h"
#include "engine/support/error.h"

namespace unity::ir {
namespace {

// ------------------------------------------------------------------ hashing

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL,
                   kP3 = 0x165667B19E3779F9ULL, kP4 = 0x85EBCA77C2B2AE63ULL,
                   kP5 = 0x27D4EB2F165667C5ULL;

uint64_t fnv1a(const char* s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; ++s) {
    h ^= static_cast<unsigned char>(*s);
    h *= 0x100000001b3ULL;
  }
  return h;
}

/// A stable tag per node kind: the hash of its name, not its enum value.
uint64_t kindTag(NodeKind k) {
  static const std::array<uint64_t, 256> tags = [] {
    std::array<uint64_t, 256> t{};
    for (size_t i = 0; i < t.size(); ++i)
      t[i] = fnv1a(kindName(static_cast<NodeKind>(i)));
    return t;
  }();
  return tags[static_cast<uint8_t>(k)];
}

/// Markers for what is not a node. Positions in the stream are fixed by the
/// walk, so these only need to differ from each other where they compete.
enum Marker : uint64_t {
  kNull = 1,
  kVarDef = 2,
  kVarRef = 3,
  kBlob = 4,
  kBufferParam = 5,
  kScalarParam = 6,
  kAbsent = 7,
  kPresent = 8,
};

class HashSink {
public:
  void word(uint64_t w) {
    uint64_t k = std::rotl(w * kP2, 31) * kP1;
    h_ = std::rotl(h_ ^ k, 27) * kP1 + kP4;
    ++count_;
  }
  void bytes(const void* data, size_t n) {
    word(kBlob);
    word(n);
    auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
      word(loadLE(p + i, 8));
    if (i < n)
      word(loadLE(p + i, n - i));
  }
  bool failed() const { return false; }
  uint64_t finish() const {
    uint64_t h = h_ ^ (count_ * kP5);
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

private:
  static uint64_t loadLE(const unsigned char* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
  }
  uint64_t h_ = kP5;
  uint64_t count_ = 0;
};

/// Records one side's stream; byte strings are kept by reference (they live
/// in the nodes, which the caller holds for the duration of the compare).
class RecordSink {
public:
  void word(uint64_t w) { words.push_back(w); }
  void bytes(const void* data, size_t n) {
    word(kBlob);
    word(n);
    blobs.emplace_back(data, n);
  }
  bool failed() const { return false; }
  std::vector<uint64_t> words;
  std::vector<std::pair<const void*, size_t>> blobs;
};

/// Checks the other side's stream against a recording, stopping at the
/// first difference.
class CompareSink {
public:
  explicit CompareSink(const RecordSink& rec) : rec_(rec) {}
  void word(uint64_t w) {
    if (failed_)
      return;
    if (pos_ >= rec_.words.size() || rec_.words[pos_] != w)
      failed_ = true;
    else
      ++pos_;
  }
  void bytes(const void* data, size_t n) {
    word(kBlob);
    word(n);
    if (failed_)
      return;
    if (blob_ >= rec_.blobs.size()) {
      failed_ = true;
      return;
    }
    const auto& [other, len] = rec_.blobs[blob_++];
    if (len != n || (n != 0 && std::memcmp(other, data, n) != 0))
      failed_ = true;
  }
  bool failed() const { return failed_; }
  bool equal() const { return !failed_ && pos_ == rec_.words.size(); }

private:
  const RecordSink& rec_;
  size_t pos_ = 0, blob_ = 0;
  bool failed_ = false;
};

// ------------------------------------------------------------------- walker

uint64_t dtypeCode(DataType::Code c) {
  switch (c) {
  case DataType::Code::Int:
    return 0;
  case DataType::Code::UInt:
    return 1;
  case DataType::Code::Float:
    return 2;
  case DataType::Code::Bool:
    return 3;
  case DataType::Code::Handle:
    return 4;
  case DataType::Code::Void:
    return 5;
  }
  return 6;
}

uint64_t forKindCode(ForKind k) {
  switch (k) {
  case ForKind::Serial:
    return 0;
  case ForKind::Parallel:
    return 1;
  case ForKind::Vectorized:
    return 2;
  case ForKind::Unrolled:
    return 3;
  }
  return 4;
}

template <class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

template <class Sink> class Walker {
public:
  explicit Walker(Sink& sink) : sink_(sink) {}

  void node(const Node* n) {
    if (!n)
      return word(kNull);
    if (auto* e = as<PrimExprNode>(n))
      return prim(PrimExpr(e));
    if (auto* s = as<StmtNode>(n))
      return stmt(Stmt(s));
    if (auto* b = as<Buffer>(n))
      return var(b);
    if (auto* si = as<StructInfoNode>(n))
      return sinfo(StructInfo(si));
    if (auto* e = as<ExprNode>(n))
      return expr(Expr(e));
    if (auto* b = as<BindingNode>(n))
      return binding(Binding(b));
    if (auto* b = as<BindingBlock>(n))
      return block(Ref<BindingBlock>(b));
    if (auto* m = as<IRModuleNode>(n))
      return module(m);
    throw Error(std::string("structural equality/hash: node kind '") + kindName(n->kind()) +
                "' is not handled");
  }

private:
  void word(uint64_t w) { sink_.word(w); }
  void str(const std::string& s) { sink_.bytes(s.data(), s.size()); }
  void dtype(DataType t) {
    word(dtypeCode(t.code) | (uint64_t(t.bits) << 8) | (uint64_t(t.lanes) << 16));
  }
  void f64(double d) { word(std::bit_cast<uint64_t>(d)); }

  /// A list: its length, then each element as `each` emits it.
  template <class T, class Each> void list(const std::vector<T>& xs, Each each) {
    word(xs.size());
    for (auto& x : xs)
      each(x);
  }

  /// Starts node n: kNull for a null node, else its kind's tag. False when
  /// nothing more is to be emitted for it (null, or the comparison has
  /// already failed).
  bool opened(const Node* n) {
    if (sink_.failed())
      return false;
    if (!n) {
      word(kNull);
      return false;
    }
    word(kindTag(n->kind()));
    return true;
  }

  /// Variables and buffers: defined (indexed) at first sight, referenced by
  /// index afterwards.
  void var(const Node* v) {
    auto [it, inserted] = index_.try_emplace(v, next_);
    if (!inserted) {
      word(kVarRef);
      word(it->second);
      return;
    }
    ++next_;
    word(kVarDef);
    word(kindTag(v->kind()));
    if (auto* pv = as<PrimVar>(v)) {
      dtype(pv->dtype);
    } else if (auto* gv = as<VarNode>(v)) {
      sinfo(gv->sinfo);
    } else if (auto* b = as<Buffer>(v)) {
      dtype(b->dtype);
      str(b->scope);
      prims(b->shape);
    }
  }

  void attrs(const Attrs& a) {
    word(a.size());
    for (auto& [key, value] : a) {
      str(key);
      word(value.index());
      std::visit(Overloaded{
                     [&](bool b) { word(b); },
                     [&](int64_t i) { word(static_cast<uint64_t>(i)); },
                     [&](double d) { f64(d); },
                     [&](const std::string& s) { str(s); },
                     [&](DataType t) { dtype(t); },
                     [&](const std::vector<int64_t>& xs) {
                       list(xs, [&](int64_t x) { word(static_cast<uint64_t>(x)); });
                     },
                     [&](const std::vector<double>& xs) { list(xs, [&](double x) { f64(x); }); },
                     [&](const std::vector<std::string>& xs) {
                       list(xs, [&](const std::string& x) { str(x); });
                     },
                 },
                 value);
    }
  }

  // ---- tensor level ----

  void prims(const std::vector<PrimExpr>& es) {
    list(es, [&](const PrimExpr& e) { prim(e); });
  }

  void prim(const PrimExpr& e) {
    if (!opened(e.get()))
      return;
    dtype(e->dtype);
    switch (e->kind()) {
    case NodeKind::IntImm:
      return word(static_cast<uint64_t>(as<IntImm>(e)->value));
    case NodeKind::FloatImm:
      return f64(as<FloatImm>(e)->value);
    case NodeKind::PrimVar:
      return var(e.get());
    case NodeKind::Not:
      return prim(as<NotExpr>(e)->a);
    case NodeKind::Select: {
      auto* op = as<Select>(e);
      prim(op->cond);
      prim(op->t);
      return prim(op->f);
    }
    case NodeKind::Cast:
      return prim(as<CastExpr>(e)->value);
    case NodeKind::BufferLoad: {
      auto* op = as<BufferLoad>(e);
      var(op->buffer.get());
      return prims(op->indices);
    }
    case NodeKind::PrimCall: {
      auto* op = as<PrimCall>(e);
      str(op->op);
      return prims(op->args);
    }
    case NodeKind::PrimLet: {
      auto* op = as<PrimLet>(e);
      prim(op->value);
      var(op->var.get());
      return prim(op->body);
    }
    default:
      if (auto* b = as<BinaryExpr>(e)) {
        prim(b->a);
        return prim(b->b);
      }
      throw Error(std::string("structural equality/hash: unexpected scalar expression kind '") +
                  kindName(e->kind()) + "'");
    }
  }

  void regions(const std::vector<BufferRegion>& rs) {
    word(rs.size());
    for (auto& r : rs) {
      if (r.buffer)
        var(r.buffer.get());
      else
        word(kNull);
      word(r.region.size());
      for (auto& rg : r.region) {
        prim(rg.min);
        prim(rg.extent);
      }
    }
  }

  void stmt(const Stmt& s) {
    if (!opened(s.get()))
      return;
    switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto* op = as<BufferStore>(s);
      var(op->buffer.get());
      prim(op->value);
      return prims(op->indices);
    }
    case NodeKind::For: {
      auto* op = as<For>(s);
      prim(op->min);
      prim(op->extent);
      var(op->var.get());
      word(forKindCode(op->forKind));
      attrs(op->annotations);
      return stmt(op->body);
    }
    case NodeKind::Block: {
      auto* op = as<Block>(s);
      str(op->name);
      prims(op->bindings); // in terms of the enclosing loops: before the iterators
      word(op->iters.size());
      for (auto& iv : op->iters) {
        prim(iv.dom.min);
        prim(iv.dom.extent);
        word(iv.type == IterType::Spatial ? 0 : 1);
        var(iv.var.get());
      }
      list(op->allocs, [&](const BufferRef& b) { var(b.get()); });
      regions(op->reads);
      regions(op->writes);
      prim(op->predicate);
      attrs(op->annotations);
      stmt(op->init);
      return stmt(op->body);
    }
    case NodeKind::LetStmt: {
      auto* op = as<LetStmt>(s);
      prim(op->value);
      var(op->var.get());
      return stmt(op->body);
    }
    case NodeKind::IfThenElse: {
      auto* op = as<IfThenElse>(s);
      prim(op->cond);
      stmt(op->then);
      return stmt(op->otherwise);
    }
    case NodeKind::SeqStmt: {
      return list(as<SeqStmt>(s)->seq, [&](const Stmt& x) { stmt(x); });
    }
    case NodeKind::Evaluate:
      return prim(as<Evaluate>(s)->value);
    case NodeKind::Allocate: {
      auto* op = as<Allocate>(s);
      var(op->buffer.get());
      return stmt(op->body);
    }
    default:
      throw Error(std::string("structural equality/hash: unexpected statement kind '") +
                  kindName(s->kind()) + "'");
    }
  }

  // ---- struct info ----

  void optPrims(const std::optional<std::vector<PrimExpr>>& es) {
    if (!es)
      return word(kAbsent);
    word(kPresent);
    prims(*es);
  }

  void sinfos(const std::vector<StructInfo>& ss) {
    list(ss, [&](const StructInfo& s) { sinfo(s); });
  }

  void sinfo(const StructInfo& s) {
    if (!opened(s.get()))
      return;
    switch (s->kind()) {
    case NodeKind::ObjectSInfo:
      return;
    case NodeKind::PrimSInfo: {
      auto* op = as<PrimSInfo>(s);
      dtype(op->dtype);
      return prim(op->value);
    }
    case NodeKind::ShapeSInfo: {
      auto* op = as<ShapeSInfo>(s);
      word(static_cast<uint64_t>(op->ndim));
      return optPrims(op->values);
    }
    case NodeKind::TensorSInfo: {
      auto* op = as<TensorSInfo>(s);
      dtype(op->dtype);
      word(static_cast<uint64_t>(op->ndim));
      return optPrims(op->shape);
    }
    case NodeKind::TupleSInfo:
      return sinfos(as<TupleSInfo>(s)->fields);
    case NodeKind::FuncSInfo: {
      auto* op = as<FuncSInfo>(s);
      word(op->pure);
      if (op->params) {
        word(kPresent);
        sinfos(*op->params);
      } else {
        word(kAbsent);
      }
      return sinfo(op->ret);
    }
    default:
      throw Error(std::string("structural equality/hash: unexpected struct info kind '") +
                  kindName(s->kind()) + "'");
    }
  }

  // ---- graph level ----

  void exprs(const std::vector<Expr>& es) {
    list(es, [&](const Expr& e) { expr(e); });
  }

  void expr(const Expr& e) {
    if (sink_.failed())
      return;
    if (!e)
      return word(kNull);
    // Variables carry their struct info in their definition; the struct
    // info of Constant, ShapeExpr, PrimValue, StringImm, OpRef and Function
    // is derived from their fields. The rest emit it after their fields.
    switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar:
      return var(e.get());
    case NodeKind::Constant: {
      word(kindTag(e->kind()));
      const Tensor& t = as<Constant>(e)->data;
      dtype(t.dtype());
      word(t.shape().size());
      for (int64_t d : t.shape())
        word(static_cast<uint64_t>(d));
      return sink_.bytes(t.data(), t.nbytes());
    }
    case NodeKind::Tuple:
      word(kindTag(e->kind()));
      exprs(as<Tuple>(e)->fields);
      break;
    case NodeKind::TupleGetItem: {
      auto* op = as<TupleGetItem>(e);
      word(kindTag(e->kind()));
      word(static_cast<uint64_t>(op->index));
      expr(op->tuple);
      break;
    }
    case NodeKind::Call: {
      auto* op = as<Call>(e);
      word(kindTag(e->kind()));
      expr(op->op);
      exprs(op->args);
      attrs(op->attrs);
      sinfos(op->sinfoArgs);
      break;
    }
    case NodeKind::ShapeExpr:
      word(kindTag(e->kind()));
      return prims(as<ShapeExpr>(e)->values);
    case NodeKind::PrimValue:
      word(kindTag(e->kind()));
      return prim(as<PrimValue>(e)->value);
    case NodeKind::StringImm:
      word(kindTag(e->kind()));
      return str(as<StringImm>(e)->value);
    case NodeKind::If: {
      auto* op = as<If>(e);
      word(kindTag(e->kind()));
      expr(op->cond);
      expr(op->thenBranch);
      expr(op->elseBranch);
      break;
    }
    case NodeKind::SeqExpr: {
      auto* op = as<SeqExpr>(e);
      word(kindTag(e->kind()));
      list(op->blocks, [&](const Ref<BindingBlock>& b) { block(b); });
      expr(op->body);
      break;
    }
    case NodeKind::GlobalVar:
      word(kindTag(e->kind()));
      str(as<GlobalVar>(e)->name);
      break;
    case NodeKind::OpRef:
      word(kindTag(e->kind()));
      return str(as<OpRef>(e)->name);
    case NodeKind::Function: {
      auto* op = as<Function>(e);
      word(kindTag(e->kind()));
      word(op->pure);
      list(op->params, [&](const auto& p) { var(p.get()); });
      expr(op->body);
      sinfo(op->retSInfo);
      return attrs(op->attrs);
    }
    case NodeKind::ExternFunc:
      word(kindTag(e->kind()));
      str(as<ExternFunc>(e)->symbol);
      attrs(as<ExternFunc>(e)->attrs);
      break;
    case NodeKind::PrimFunc: {
      auto* op = as<PrimFunc>(e);
      word(kindTag(e->kind()));
      word(op->params.size());
      for (auto& p : op->params) {
        word(p.buffer ? kBufferParam : kScalarParam);
        var(p.buffer ? static_cast<const Node*>(p.buffer.get()) : p.scalar.get());
      }
      stmt(op->body);
      return attrs(op->attrs);
    }
    default:
      throw Error(std::string("structural equality/hash: unexpected expression kind '") +
                  kindName(e->kind()) + "'");
    }
    sinfo(e->sinfo);
  }

  void binding(const Binding& b) {
    if (!opened(b.get()))
      return;
    expr(b->value);
    if (auto* mc = as<MatchCast>(b))
      sinfo(mc->pattern); // defines new shape variables
    var(b->var.get());
  }

  void block(const Ref<BindingBlock>& b) {
    if (!opened(b.get()))
      return;
    word(b->dataflow);
    list(b->bindings, [&](const Binding& x) { binding(x); });
  }

  void module(const IRModuleNode* m) {
    word(kindTag(m->kind()));
    attrs(m->attrs);
    std::vector<const IRModuleNode::Entry*> sorted;
    for (auto& e : m->functions)
      sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) { return x->first < y->first; });
    word(sorted.size());
    for (auto* e : sorted) {
      str(e->first);
      index_.clear(); // functions do not share variables
      next_ = 0;
      expr(e->second);
    }
  }

  Sink& sink_;
  std::unordered_map<const Node*, uint64_t> index_;
  uint64_t next_ = 0;
};

} // namespace

bool structuralEqual(const Ref<Node>& a, const Ref<Node>& b) {
  if (a.same(b))
    return true;
  if (!a || !b)
    return false;
  RecordSink rec;
  Walker<RecordSink>(rec).node(a.get());
  CompareSink cmp(rec);
  Walker<CompareSink>(cmp).node(b.get());
  return cmp.equal();
}

uint64_t structuralHash(const Ref<Node>& n) {
  HashSink sink;
  Walker<HashSink>(sink).node(n.get());
  return sink.finish();
}

namespace {

/// A HashSink whose long byte strings enter the stream as their digest
/// (structural_digest.h).
class DigestSink : public HashSink {
public:
  explicit DigestSink(StructuralHasher& hasher) : hasher_(hasher) {}
  void bytes(const void* data, size_t n) {
    if (n < StructuralHasher::kDigestFrom)
      return HashSink::bytes(data, n);
    word(kBlob);
    word(n);
    word(hasher_.digest(data, n));
  }

private:
  StructuralHasher& hasher_;
};

} // namespace

uint64_t StructuralHasher::operator()(const Ref<Node>& n) {
  DigestSink sink(*this);
  Walker<DigestSink>(sink).node(n.get());
  return sink.finish();
}

uint64_t StructuralHasher::digest(const void* data, size_t size) {
  auto [it, fresh] = digests_.try_emplace(Bytes{data, size}, 0);
  if (fresh) {
    HashSink h;
    h.bytes(data, size);
    it->second = h.finish();
  }
  return it->second;
}

std::string structuralHashHex(const Ref<Node>& n) {
  static const char* digits = "0123456789abcdef";
  uint64_t h = structuralHash(n);
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4)
    out[static_cast<size_t>(i)] = digits[h & 0xF];
  return out;
}

} // namespace unity::ir
