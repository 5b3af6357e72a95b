// Legalization table: linear algebra, convolution, pooling, normalization
// and reductions (topi). Variants topi does not cover (other layouts)
// return no outputs and stay unsupported.
#include <map>
#include <optional>

#include "engine/op/op.h"
#include "engine/te/topi.h"
#include "engine/transform/legalize.h"

namespace unity::transform::detail {

using namespace ir;
namespace topi = te::topi;
using Outs = std::vector<te::Tensor>;

namespace {

/// The inputs cast to out_dtype when the call asks for another dtype.
std::vector<te::Tensor> withOutDtype(const LegalizeArgs& a) {
  std::vector<te::Tensor> in;
  const AttrValue* v = a.call.attrs.find("out_dtype");
  // The text parser gives dtype attributes as strings ("float64").
  std::optional<DataType> dt;
  if (auto* d = v ? std::get_if<DataType>(v) : nullptr)
    dt = *d;
  else if (auto* s = v ? std::get_if<std::string>(v) : nullptr; s && !s->empty())
    dt = DataType::parse(*s);
  for (auto& t : a.inputs)
    in.push_back(t.defined() && dt && !(t.dtype() == *dt) ? topi::cast(t, *dt, t.name() + "_cast")
                                                          : t);
  return in;
}

std::vector<int> toInts(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

te::Tensor denseOf(const LegalizeArgs& a) {
  auto in = withOutDtype(a);
  return topi::dense(in[0], in[1], in.size() > 2 ? in[2] : te::Tensor(), "T_dense");
}

/// `axis` absent reduces every axis; an explicit empty list reduces none
/// (the deduction's reading, ONNX's noop_with_empty_axes): a copy.
bool reducesNothing(const LegalizeArgs& a) {
  return a.hasAttr("axis") && a.attrInts("axis").empty();
}

LegalizeFn reduction(te::Reducer r) {
  return [r](const LegalizeArgs& a) {
    if (reducesNothing(a))
      return Outs{topi::reshape(a.inputs[0], a.inputs[0].shape(), "T_reduce_none")};
    std::vector<int> axes = a.hasAttr("axis") ? toInts(a.attrInts("axis")) : std::vector<int>{};
    return Outs{topi::reduce(a.inputs[0], r, axes, a.attrBool("keepdims"))};
  };
}

LegalizeFn argReduction(bool isMax) {
  return [isMax](const LegalizeArgs& a) {
    te::Tensor x = a.inputs[0];
    bool keep = a.attrBool("keepdims");
    if (!a.hasAttr("axis")) { // over the flattened tensor
      if (keep)
        return Outs{};
      PrimExpr n = intImm(1);
      for (auto& d : x.shape())
        n = n * d;
      x = topi::reshape(x, {n}, "T_reshape");
      return Outs{isMax ? topi::argmax(x, 0) : topi::argmin(x, 0)};
    }
    int axis = static_cast<int>(a.attrInt("axis"));
    return Outs{isMax ? topi::argmax(x, axis, keep) : topi::argmin(x, axis, keep)};
  };
}

/// nn.{max,avg}_pool{2,3}d over NCHW / NCDHW data.
LegalizeFn pool(topi::PoolType type, size_t spatial) {
  return [type, spatial](const LegalizeArgs& a) {
    if (a.attrString("layout") != (spatial == 2 ? "NCHW" : "NCDHW"))
      return Outs{};
    topi::PoolParams p;
    p.kernel = a.attrInts("pool_size");
    p.strides = a.attrInts("strides");
    p.dilation = a.attrInts("dilation");
    p.padding = a.attrInts("padding");
    p.ceilMode = a.attrBool("ceil_mode");
    p.countIncludePad = type == topi::PoolType::Avg && a.attrBool("count_include_pad");
    std::string name = std::string(type == topi::PoolType::Max ? "max" : "avg") + "_pool" +
                       std::to_string(spatial) + "d";
    return Outs{topi::pool(a.inputs[0], type, spatial, p, name)};
  };
}

} // namespace

void addNNLegalizations(std::map<std::string, LegalizeFn>& t) {
  t["matmul"] = [](const LegalizeArgs& a) {
    auto in = withOutDtype(a);
    if (op::packedMatmulPanel(a.attrString("weight_layout")))
      return Outs{topi::matmulPacked(in[0], in[1])};
    return Outs{topi::matmul(in[0], in[1])};
  };
  t["nn.dense"] = [](const LegalizeArgs& a) { return Outs{denseOf(a)}; };
  t["linear"] = [](const LegalizeArgs& a) { return Outs{denseOf(a)}; };
  t["nn.conv2d"] = [](const LegalizeArgs& a) {
    int64_t block = op::packedKernelBlock(a.attrString("kernel_layout"));
    if (a.attrString("data_layout") != "NCHW" ||
        (a.attrString("kernel_layout") != "OIHW" && !block))
      return Outs{};
    auto in = withOutDtype(a);
    topi::Conv2dParams p{a.attrInts("strides"), a.attrInts("padding"), a.attrInts("dilation"),
                         a.attrInt("groups")};
    return Outs{block ? topi::conv2dBlocked(in[0], in[1], p) : topi::conv2d(in[0], in[1], p)};
  };
  t["nn.conv2d_winograd"] = [](const LegalizeArgs& a) {
    return Outs{topi::conv2dWinograd(a.inputs[0], a.inputs[1], a.inputs[2], a.attrInts("padding"))};
  };
  t["nn.conv1d"] = [](const LegalizeArgs& a) {
    if (a.attrString("data_layout") != "NCW" || a.attrString("kernel_layout") != "OIW")
      return Outs{};
    auto in = withOutDtype(a);
    auto s = a.attrInts("strides"), d = a.attrInts("dilation");
    if (s.size() != 1 || d.size() != 1)
      return Outs{};
    return Outs{topi::conv1d(in[0], in[1], s[0], a.attrInts("padding"), d[0], a.attrInt("groups"))};
  };
  t["nn.conv2d_transpose"] = [](const LegalizeArgs& a) {
    if (a.attrString("data_layout") != "NCHW" || a.attrString("kernel_layout") != "IOHW")
      return Outs{};
    auto in = withOutDtype(a);
    topi::Conv2dParams p{a.attrInts("strides"), a.attrInts("padding"), a.attrInts("dilation"),
                         a.attrInt("groups")};
    return Outs{topi::conv2dTranspose(in[0], in[1], p, a.attrInts("output_padding"))};
  };
  t["nn.conv3d"] = [](const LegalizeArgs& a) {
    if (a.attrString("data_layout") != "NCDHW" || a.attrString("kernel_layout") != "OIDHW")
      return Outs{};
    auto in = withOutDtype(a);
    topi::Conv3dParams p{a.attrInts("strides"), a.attrInts("padding"), a.attrInts("dilation"),
                         a.attrInt("groups")};
    return Outs{topi::conv3d(in[0], in[1], p)};
  };
  t["nn.conv3d_transpose"] = [](const LegalizeArgs& a) {
    if (a.attrString("data_layout") != "NCDHW" || a.attrString("kernel_layout") != "IODHW")
      return Outs{};
    auto in = withOutDtype(a);
    topi::Conv3dParams p{a.attrInts("strides"), a.attrInts("padding"), a.attrInts("dilation"),
                         a.attrInt("groups")};
    return Outs{topi::conv3dTranspose(in[0], in[1], p, a.attrInts("output_padding"))};
  };
  t["nn.max_pool2d"] = pool(topi::PoolType::Max, 2);
  t["nn.avg_pool2d"] = pool(topi::PoolType::Avg, 2);
  t["nn.max_pool3d"] = pool(topi::PoolType::Max, 3);
  t["nn.avg_pool3d"] = pool(topi::PoolType::Avg, 3);
  t["nn.global_avg_pool2d"] = [](const LegalizeArgs& a) {
    return Outs{topi::globalAvgPool2d(a.inputs[0])};
  };
  t["nn.softmax"] = [](const LegalizeArgs& a) {
    return Outs{topi::softmax(a.inputs[0], static_cast<int>(a.attrInt("axis")))};
  };
  t["nn.log_softmax"] = [](const LegalizeArgs& a) {
    return Outs{topi::logSoftmax(a.inputs[0], static_cast<int>(a.attrInt("axis")))};
  };
  t["nn.layer_norm"] = [](const LegalizeArgs& a) {
    if (!a.attrBool("center") || !a.attrBool("scale"))
      return Outs{};
    return Outs{topi::layerNorm(a.inputs[0], a.inputs[1], a.inputs[2], toInts(a.attrInts("axes")),
                                a.attrFloat("epsilon"))};
  };
  t["nn.batch_norm"] = [](const LegalizeArgs& a) {
    if (!a.attrBool("center") || !a.attrBool("scale"))
      return Outs{};
    return Outs{topi::batchNorm(a.inputs[0], a.inputs[1], a.inputs[2], a.inputs[3], a.inputs[4],
                                static_cast<int>(a.attrInt("axis")), a.attrFloat("epsilon"))};
  };
  t["sum"] = reduction(te::Reducer::Sum);
  t["max"] = reduction(te::Reducer::Max);
  t["min"] = reduction(te::Reducer::Min);
  t["prod"] = reduction(te::Reducer::Prod);
  t["mean"] = [](const LegalizeArgs& a) {
    if (reducesNothing(a))
      return Outs{topi::reshape(a.inputs[0], a.inputs[0].shape(), "T_reduce_none")};
    std::vector<int> axes = a.hasAttr("axis") ? toInts(a.attrInts("axis")) : std::vector<int>{};
    return Outs{topi::mean(a.inputs[0], axes, a.attrBool("keepdims"))};
  };
  t["argmax"] = argReduction(true);
  t["argmin"] = argReduction(false);
}

} // namespace unity::transform::detail
