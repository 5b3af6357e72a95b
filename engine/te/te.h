#pragma once
// The tensor-expression builder (TVM's `te`): describe a tensor function as a
// small dataflow graph of placeholders and computations, then turn it into a
// TensorIR PrimFunc with blocks.
//
//   auto A = te::placeholder({n, 4}, DataType::Float32(), "A");
//   auto k = te::reduceAxis(intImm(4), "k");
//   auto S = te::compute({n}, [&](auto& i) { return te::sum(A(i[0], k.var), {k}); }, "S");
//   ir::PrimFuncRef f = te::createPrimFunc({A, S});
//
// Every tensor owns its Buffer from birth, so `A(i, j)` is already the final
// BufferLoad; createPrimFunc only has to order the computations, wrap each in
// serial loops around a Block, and allocate the intermediates at the root
// block. A reduction (sum/max/min/prod) must be the whole body of a compute;
// its block gets reduce iteration variables and an init statement storing the
// reducer's identity.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/tir.h"

namespace unity::te {

struct TensorData; // defined in te.cpp

/// A handle to a placeholder or to the result of compute. Copies share.
class Tensor {
public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const TensorData> d) : d_(std::move(d)) {}

  bool defined() const { return d_ != nullptr; }
  const std::string& name() const;
  const std::vector<ir::PrimExpr>& shape() const;
  DataType dtype() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  bool isPlaceholder() const;
  /// The buffer this tensor is stored in (a parameter or an intermediate).
  const ir::BufferRef& buffer() const;
  /// Tensors read by the computation (empty for placeholders).
  const std::vector<Tensor>& inputs() const;

  /// Element access: a BufferLoad of this tensor's buffer. Integer literals
  /// become int64 indices.
  ir::PrimExpr operator()(std::vector<ir::PrimExpr> indices) const;
  template <class... I> ir::PrimExpr operator()(I... i) const {
    return (*this)(std::vector<ir::PrimExpr>{toIndex(i)...});
  }

  const TensorData* data() const { return d_.get(); }
  bool same(const Tensor& o) const { return d_ == o.d_; }

private:
  template <class T> static ir::PrimExpr toIndex(const T& v) {
    if constexpr (std::is_integral_v<T>)
      return ir::intImm(static_cast<int64_t>(v));
    else
      return ir::PrimExpr(v);
  }
  std::shared_ptr<const TensorData> d_;
};

struct ReduceAxis {
  ir::Ref<ir::PrimVar> var;
  ir::Range dom;
};

/// A reduction axis ranging over [0, extent).
ReduceAxis reduceAxis(ir::PrimExpr extent, std::string name);

Tensor placeholder(std::vector<ir::PrimExpr> shape, DataType dtype, std::string name);

using ComputeFn = std::function<ir::PrimExpr(const std::vector<ir::PrimExpr>&)>;

/// out[i...] = fn(i...). fn is called once, with the block's spatial
/// iteration variables; its result may be a reduction (sum/max/min/prod).
/// attrs become the block's annotations.
Tensor compute(std::vector<ir::PrimExpr> shape, ComputeFn fn, std::string name,
               ir::Attrs attrs = {});

enum class Reducer { Sum, Prod, Max, Min };
const char* reducerName(Reducer r);
/// The identity element of a reducer for a dtype (0, 1, lowest, highest).
ir::PrimExpr reducerIdentity(Reducer r, DataType dtype);
/// combine(acc, x): acc + x, acc * x, max(acc, x), min(acc, x).
ir::PrimExpr reducerCombine(Reducer r, ir::PrimExpr acc, ir::PrimExpr x);

/// Reductions of `value` over `axes`; the result may only be returned as the
/// whole body of a compute (nested use is an error at compute()).
ir::PrimExpr reduce(Reducer r, ir::PrimExpr value, std::vector<ReduceAxis> axes);
ir::PrimExpr sum(ir::PrimExpr value, std::vector<ReduceAxis> axes);
ir::PrimExpr prod(ir::PrimExpr value, std::vector<ReduceAxis> axes);
ir::PrimExpr max(ir::PrimExpr value, std::vector<ReduceAxis> axes);
ir::PrimExpr min(ir::PrimExpr value, std::vector<ReduceAxis> axes);
// argmax/argmin are built in two passes from max/min (see topi.h argmax).

/// Builds the PrimFunc computing every compute tensor reachable from args.
/// args are inputs (placeholders) followed by outputs (compute tensors); a
/// placeholder that some computation reads must be among them. Shape
/// variables that are a whole dimension of a parameter buffer are bound
/// from it implicitly; any other free variable becomes a trailing scalar
/// parameter. Non-argument computations are allocated at the root block.
/// Attributes: attrs plus "num_outputs" when there is more than one output.
ir::PrimFuncRef createPrimFunc(const std::vector<Tensor>& args, ir::Attrs attrs = {});

} // namespace unity::te
