// Legalization table: data movement (topi). Target shapes (reshape,
// broadcast_to) come from the call's deduced struct info, which has already
// resolved -1 and checked the element count.
#include <map>

#include "engine/te/topi.h"
#include "engine/transform/legalize.h"

namespace unity::transform::detail {

using namespace ir;
namespace topi = te::topi;
using Outs = std::vector<te::Tensor>;

namespace {

std::optional<std::vector<PrimExpr>> deducedShape(const LegalizeArgs& a) {
  auto* t = as<TensorSInfo>(a.call.sinfo);
  if (!t || !t->hasShape())
    return std::nullopt;
  return *t->shape;
}

PrimExpr product(const std::vector<PrimExpr>& s, size_t from) {
  PrimExpr n = intImm(1);
  for (size_t d = from; d < s.size(); ++d)
    n = n * s[d];
  return n;
}

} // namespace

void addManipLegalizations(std::map<std::string, LegalizeFn>& t) {
  t["reshape"] = [](const LegalizeArgs& a) {
    auto s = deducedShape(a);
    return s ? Outs{topi::reshape(a.inputs[0], *s)} : Outs{};
  };
  t["broadcast_to"] = [](const LegalizeArgs& a) {
    auto s = deducedShape(a);
    return s ? Outs{topi::broadcastTo(a.inputs[0], *s)} : Outs{};
  };
  t["arange"] = [](const LegalizeArgs& a) {
    auto s = deducedShape(a);
    if (!s || s->size() != 1)
      return Outs{};
    return Outs{te::compute(
        *s, [](const std::vector<PrimExpr>& i) { return ir::cast(DataType::Int64(), i[0]); },
        "T_arange")};
  };
  t["flatten"] = [](const LegalizeArgs& a) {
    return Outs{topi::reshape(a.inputs[0], {product(a.inputs[0].shape(), 0)})};
  };
  t["nn.batch_flatten"] = [](const LegalizeArgs& a) {
    const te::Tensor& x = a.inputs[0];
    if (x.ndim() < 1)
      return Outs{};
    return Outs{topi::reshape(x, {x.shape()[0], product(x.shape(), 1)})};
  };
  t["permute_dims"] = [](const LegalizeArgs& a) {
    std::vector<int> axes;
    if (a.hasAttr("axes"))
      for (int64_t v : a.attrInts("axes"))
        axes.push_back(static_cast<int>(v));
    return Outs{topi::transpose(a.inputs[0], axes)};
  };
  t["concat"] = [](const LegalizeArgs& a) {
    if (a.tupleFields.empty())
      return Outs{};
    return Outs{topi::concat(a.tupleFields, static_cast<int>(a.attrInt("axis")))};
  };
  t["split"] = [](const LegalizeArgs& a) {
    const AttrValue* v = a.attr("indices_or_sections");
    int axis = static_cast<int>(a.attrInt("axis"));
    if (auto* n = v ? std::get_if<int64_t>(v) : nullptr)
      return topi::split(a.inputs[0], *n, axis);
    return topi::splitAt(a.inputs[0], a.attrInts("indices_or_sections"), axis);
  };
  t["strided_slice"] = [](const LegalizeArgs& a) {
    std::vector<int> axes;
    for (int64_t v : a.attrInts("axes"))
      axes.push_back(static_cast<int>(v));
    std::vector<int64_t> strides =
        a.hasAttr("strides") ? a.attrInts("strides") : std::vector<int64_t>{};
    return Outs{
        topi::stridedSlice(a.inputs[0], a.attrInts("begin"), a.attrInts("end"), strides, axes)};
  };
  t["take"] = [](const LegalizeArgs& a) {
    te::Tensor x = a.inputs[0];
    if (!a.hasAttr("axis")) {
      x = topi::reshape(x, {product(x.shape(), 0)}, "T_reshape");
      return Outs{topi::take(x, a.inputs[1], 0)};
    }
    return Outs{topi::take(x, a.inputs[1], static_cast<int>(a.attrInt("axis")))};
  };
  t["squeeze"] = [](const LegalizeArgs& a) {
    std::vector<int> axes;
    if (a.hasAttr("axis"))
      for (int64_t v : a.attrInts("axis"))
        axes.push_back(static_cast<int>(v));
    return Outs{topi::squeeze(a.inputs[0], axes)};
  };
  t["expand_dims"] = [](const LegalizeArgs& a) {
    auto s = deducedShape(a);
    if (!s)
      return Outs{};
    return Outs{topi::reshape(a.inputs[0], *s, "T_expand_dims")};
  };
  t["nn.pad"] = [](const LegalizeArgs& a) {
    std::string mode = a.attrString("pad_mode");
    auto w = a.attrInts("pad_width");
    std::vector<int64_t> before, after;
    for (size_t i = 0; i + 1 < w.size(); i += 2) {
      before.push_back(w[i]);
      after.push_back(w[i + 1]);
    }
    if (mode != "constant")
      return Outs{topi::padMode(a.inputs[0], before, after, mode)};
    return Outs{topi::pad(a.inputs[0], before, after, a.attrFloat("pad_value"))};
  };
  t["image.resize2d"] = [](const LegalizeArgs& a) {
    if (a.attrString("layout") != "NCHW" || a.call.attrs.has("out_dtype"))
      return Outs{};
    topi::ResizeParams p;
    p.method = a.attrString("method");
    p.coordinateMode = a.attrString("coordinate_transformation_mode");
    p.nearestMode = a.attrString("rounding_method");
    if (p.method == "nearest_neighbor")
      p.method = "nearest";
    if (p.nearestMode == "round" || p.nearestMode.empty())
      p.nearestMode = "round_prefer_ceil";
    p.cubicAlpha = a.attrFloat("cubic_alpha");
    p.cubicExclude = a.attrBool("cubic_exclude");
    auto floats = [&](const char* name) {
      const ir::AttrValue* v = a.attr(name);
      std::vector<double> r;
      if (auto* d = v ? std::get_if<std::vector<double>>(v) : nullptr)
        r = *d;
      else if (auto* n = v ? std::get_if<std::vector<int64_t>>(v) : nullptr)
        r.assign(n->begin(), n->end());
      return r;
    };
    if (a.hasAttr("scales")) {
      auto sc = floats("scales");
      if (sc.size() != 2)
        return Outs{};
      p.scaleH = sc[0];
      p.scaleW = sc[1];
    }
    if (a.hasAttr("roi"))
      p.roi = floats("roi");
    p.extrapolationValue = a.attrFloat("extrapolation_value");
    // Operand 2: the scales or the crop box, read at run time.
    if (a.call.args.size() > 2)
      p.params = a.inputs[2];
    // The deduced output shape holds the size from the attribute or from
    // the shape operand (symbolic sizes become scalar parameters).
    auto s = deducedShape(a);
    if (!s || s->size() != 4)
      return Outs{};
    return Outs{topi::resize2d(a.inputs[0], (*s)[2], (*s)[3], p, "resize2d")};
  };
  // out[i] = value i of the shape: a chain of selects on the index, the
  // symbolic values' variables becoming the kernel's scalar parameters.
  t["shape_to_tensor"] = [](const LegalizeArgs& a) {
    auto* se = as<ShapeExpr>(a.call.args[0]);
    auto s = deducedShape(a);
    if (!se || !s)
      return Outs{};
    std::vector<PrimExpr> vals = se->values;
    return Outs{te::compute(
        *s,
        [vals](const std::vector<PrimExpr>& i) {
          PrimExpr r = intImm(0);
          for (size_t k = vals.size(); k-- > 0;)
            r = select(eq(i[0], intImm(static_cast<int64_t>(k))), cast(DataType::Int64(), vals[k]),
                       r);
          return r;
        },
        "shape_to_tensor")};
  };
}

} // namespace unity::transform::detail
