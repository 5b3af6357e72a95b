// Legalization table: indexing, scans and losses (topi_index.cpp).
#include <map>
#include <optional>

#include "engine/te/topi.h"
#include "engine/transform/legalize.h"

namespace unity::transform::detail {

using namespace ir;
namespace topi = te::topi;
using Outs = std::vector<te::Tensor>;

namespace {

std::optional<DataType> dtypeAttr(const LegalizeArgs& a, const std::string& name) {
  // The text parser gives dtype attributes as strings ("int32").
  const AttrValue* v = a.attr(name);
  if (auto* d = v ? std::get_if<DataType>(v) : nullptr)
    return *d;
  if (auto* s = v ? std::get_if<std::string>(v) : nullptr)
    return DataType::parse(*s);
  return std::nullopt;
}

int axisAttr(const LegalizeArgs& a) { return static_cast<int>(a.attrInt("axis")); }

} // namespace

void addIndexLegalizations(std::map<std::string, LegalizeFn>& t) {
  // Shifts of unsigned integers, as a product / quotient by 2^b in uint64
  // (exact for b < 64), truncated to the operand type; b >= bit width gives 0.
  for (bool left : {true, false})
    t[left ? "left_shift" : "right_shift"] = [left](const LegalizeArgs& a) {
      return Outs{topi::binary(
          a.inputs[0], a.inputs[1],
          [left](PrimExpr x, PrimExpr y) {
            DataType dt = x->dtype, u64 = DataType::UInt(64);
            PrimExpr ys = ir::cast(u64, y), bits = makeConst(u64, dt.bits);
            PrimExpr p2 = ir::cast(
                u64, call(DataType::Float(64), "pow",
                          {makeConst(DataType::Float(64), 2.0),
                           ir::cast(DataType::Float(64), ir::min(ys, makeConst(u64, 63)))}));
            PrimExpr xs = ir::cast(u64, x);
            PrimExpr v = ir::cast(dt, left ? xs * p2 : floordiv(xs, p2));
            return select(ge(ys, bits), makeConst(dt, 0), v);
          },
          left ? "T_left_shift" : "T_right_shift")};
    };
  t["gather_elements"] = [](const LegalizeArgs& a) {
    return Outs{topi::gatherElements(a.inputs[0], a.inputs[1], axisAttr(a))};
  };
  t["gather_nd"] = [](const LegalizeArgs& a) {
    return Outs{
        topi::gatherND(a.inputs[0], a.inputs[1], static_cast<int>(a.attrInt("batch_dims")))};
  };
  t["scatter_elements"] = [](const LegalizeArgs& a) {
    return Outs{topi::scatterElements(a.inputs[0], a.inputs[1], a.inputs[2], axisAttr(a),
                                      a.attrString("reduction"))};
  };
  t["scatter_nd"] = [](const LegalizeArgs& a) {
    return Outs{topi::scatterND(a.inputs[0], a.inputs[1], a.inputs[2], a.attrString("reduction"))};
  };
  t["einsum"] = [](const LegalizeArgs& a) {
    return Outs{topi::einsum(a.inputs, a.attrString("subscripts"))};
  };
  t["one_hot"] = [](const LegalizeArgs& a) {
    auto dt = dtypeAttr(a, "dtype");
    if (!dt)
      return Outs{};
    // A depth given as operand 1 (a shape) is the deduced output's dim at
    // the new axis (a symbolic one becomes the kernel's scalar parameter).
    PrimExpr depth;
    if (a.call.args.size() < 2) {
      depth = intImm(a.attrInt("depth"));
    } else {
      auto* t = as<TensorSInfo>(a.call.sinfo);
      if (!t || !t->hasShape() || a.inputs[0].ndim() + 1 != t->ndim)
        return Outs{};
      int64_t axis = a.attrInt("axis");
      depth = (*t->shape)[axis < 0 ? axis + t->ndim : axis];
    }
    return Outs{topi::oneHot(a.inputs[0], depth, axisAttr(a), a.attrFloat("on_value"),
                             a.attrFloat("off_value"), *dt)};
  };
  t["trilu"] = [](const LegalizeArgs& a) {
    if (a.inputs.size() > 1) // k given at run time as a 0-d operand
      return Outs{topi::trilu(a.inputs[0], a.inputs[1], a.attrBool("upper"))};
    return Outs{topi::trilu(a.inputs[0], a.attrInt("k"), a.attrBool("upper"))};
  };
  t["cumsum"] = [](const LegalizeArgs& a) {
    return Outs{
        topi::cumsum(a.inputs[0], axisAttr(a), a.attrBool("exclusive"), a.attrBool("reverse"))};
  };
  t["topk"] = [](const LegalizeArgs& a) {
    return topi::topk(a.inputs[0], a.attrInt("k"), axisAttr(a), a.attrBool("largest"));
  };
  t["nn.nll_loss"] = [](const LegalizeArgs& a) {
    std::optional<int64_t> ignore;
    if (a.hasAttr("ignore_index"))
      ignore = a.attrInt("ignore_index");
    te::Tensor w = a.inputs.size() > 2 ? a.inputs[2] : te::Tensor();
    return Outs{topi::nllLoss(a.inputs[0], a.inputs[1], w, a.attrString("reduction"), ignore)};
  };
  t["isnan"] = [](const LegalizeArgs& a) { return Outs{topi::isnan(a.inputs[0])}; };
  t["isinf"] = [](const LegalizeArgs& a) {
    return Outs{
        topi::isinf(a.inputs[0], a.attrBool("detect_positive"), a.attrBool("detect_negative"))};
  };
}

} // namespace unity::transform::detail
