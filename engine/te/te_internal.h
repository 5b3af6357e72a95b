#pragma once
// Internals shared by te.cpp and create_prim_func.cpp; not for other parts.
#include <memory>
#include <optional>

#include "engine/te/te.h"

namespace unity::te {

struct ReduceData {
  Reducer reducer;
  ir::PrimExpr source;
  std::vector<ReduceAxis> axes;
};

struct TensorData {
  std::string name;
  std::vector<ir::PrimExpr> shape;
  DataType dtype;
  ir::BufferRef buffer;
  bool placeholder = false;
  // compute only:
  std::vector<ir::Ref<ir::PrimVar>> axes; // spatial, one per dimension
  ir::PrimExpr body;                      // when not a reduction
  std::optional<ReduceData> reduce;       // when a reduction
  ir::Attrs attrs;
  std::vector<Tensor> inputs;
};

/// The buffer of a te tensor; remembers its tensor so compute() can find
/// the tensors a body reads.
class TeBuffer : public ir::Buffer {
public:
  TeBuffer(std::string name, DataType dtype, std::vector<ir::PrimExpr> shape,
           std::weak_ptr<const TensorData> owner)
      : Buffer(std::move(name), dtype, std::move(shape)), owner(std::move(owner)) {}
  const std::weak_ptr<const TensorData> owner;
};

/// What sum/max/... return: a placeholder variable carrying the reduction.
class ReduceMarker : public ir::PrimVar {
public:
  ReduceMarker(Reducer r, ir::PrimExpr source, std::vector<ReduceAxis> axes)
      : PrimVar(std::string("__te_") + reducerName(r), source->dtype), reducer(r),
        source(std::move(source)), axes(std::move(axes)) {}
  const Reducer reducer;
  const ir::PrimExpr source;
  const std::vector<ReduceAxis> axes;
};

const ReduceMarker* asReduceMarker(const ir::PrimExpr& e);

} // namespace unity::te
