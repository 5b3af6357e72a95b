#pragma once
// The base of every IR node: an immutable, intrusively reference-counted
// object with a kind tag from a closed set.
//
// Nodes never change after construction. A rewrite builds new nodes only
// where something changed and shares everything else, so a module's pass
// history costs little more than one module (see functor.h: mutators return
// the very same Ref when nothing changed, which makes "unchanged?" a pointer
// compare).
//
// Node kinds are ordered so that every abstract family (PrimExpr, Stmt, Expr,
// StructInfo, ...) is one contiguous range; `isa<T>` is two compares.
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace unity::ir {

enum class NodeKind : uint8_t {
  // ---- PrimExpr: scalar / index expressions (tensor level, and shapes) ----
  IntImm,
  FloatImm,
  PrimVar,
  // binary family (BinaryExpr)
  Add,
  Sub,
  Mul,
  Div,      // true division (floats); for integers: truncating
  FloorDiv, // integer floor division
  FloorMod, // integer floor modulo
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  // end binary family
  Not,
  Select,
  Cast,
  BufferLoad,
  PrimCall, // intrinsic call: exp, sqrt, erf, ...
  PrimLet,
  // ---- Stmt: tensor-level statements ----
  BufferStore,
  For,
  Block,
  LetStmt,
  IfThenElse,
  SeqStmt,
  Evaluate,
  Allocate,
  // ---- other tensor-level objects ----
  Buffer,
  // ---- StructInfo ----
  ObjectSInfo,
  PrimSInfo,
  ShapeSInfo,
  TensorSInfo,
  TupleSInfo,
  FuncSInfo,
  // ---- Expr: graph-level expressions (Relax-like) ----
  Var,
  DataflowVar,
  Constant,
  Tuple,
  TupleGetItem,
  Call,
  ShapeExpr,
  PrimValue,
  StringImm,
  If,
  SeqExpr,
  GlobalVar,
  OpRef,
  // functions (BaseFunc) are Exprs too
  Function,
  ExternFunc,
  PrimFunc,
  // ---- bindings and blocks ----
  VarBinding,
  MatchCast,
  BindingBlock,
  // ---- module ----
  IRModule,
};

const char* kindName(NodeKind k);

class Node {
public:
  explicit Node(NodeKind kind) : kind_(kind) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }
  int useCount() const { return refs_.load(std::memory_order_relaxed); }

private:
  template <class> friend class Ref;
  mutable std::atomic<int32_t> refs_{0};
  NodeKind kind_;
};

/// A shared handle to an immutable node. Null is allowed (an absent optional
/// field); `same()` compares identity.
template <class T> class Ref {
public:
  using element_type = T;
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(const T* p) : p_(p) { inc(); }
  Ref(const Ref& o) : p_(o.p_) { inc(); }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  requires std::is_base_of_v<T, U> Ref(const Ref<U>& o) : p_(o.get()) { inc(); }
  template <class U>
  requires std::is_base_of_v<T, U> Ref(Ref<U>&& o)
  noexcept : p_(o.release()) {}
  ~Ref() { dec(); }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  const T* get() const { return p_; }
  const T* operator->() const { return p_; }
  const T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool defined() const { return p_ != nullptr; }
  bool same(const Ref<Node>& o) const { return static_cast<const Node*>(p_) == o.get(); }
  const T* release() { return std::exchange(p_, nullptr); }

  friend bool operator==(const Ref& a, std::nullptr_t) { return a.p_ == nullptr; }

private:
  void inc() {
    if (p_)
      static_cast<const Node*>(p_)->refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void dec() {
    if (p_ && static_cast<const Node*>(p_)->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete p_;
  }
  const T* p_ = nullptr;
};

/// Identity of two refs (of possibly different static types).
template <class A, class B> bool sameNode(const Ref<A>& a, const Ref<B>& b) {
  return static_cast<const Node*>(a.get()) == static_cast<const Node*>(b.get());
}

/// Builds a node. Node constructors validate their arguments and throw
/// unity::Error on misuse (like Halide's make()).
template <class T, class... Args> Ref<T> make(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

template <class T> bool isa(const Node* n) {
  return n && n->kind() >= T::kFirst && n->kind() <= T::kLast;
}
template <class T, class U> bool isa(const Ref<U>& r) {
  return isa<T>(static_cast<const Node*>(r.get()));
}

/// Checked downcast: null when the node is absent or of another kind.
template <class T, class U> const T* as(const Ref<U>& r) {
  return isa<T>(r) ? static_cast<const T*>(static_cast<const Node*>(r.get())) : nullptr;
}
template <class T> const T* as(const Node* n) {
  return isa<T>(n) ? static_cast<const T*>(n) : nullptr;
}

/// Downcast of the handle itself (shares ownership); null on mismatch.
template <class T, class U> Ref<T> cast(const Ref<U>& r) {
  return isa<T>(r) ? Ref<T>(static_cast<const T*>(static_cast<const Node*>(r.get()))) : Ref<T>();
}

} // namespace unity::ir
