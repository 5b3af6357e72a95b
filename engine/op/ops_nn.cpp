// Neural-network operators: matmul, nn.dense / linear, convolutions (1-D to
// 3-D), pooling (2-D and 3-D), normalization, softmax.
//
// Output sizes of sliding windows follow the usual formula, built as a
// symbolic expression and simplified, so a constant input gives a constant
// and a symbolic one stays readable:
//   out = floordiv(in + pad_before + pad_after - dilation * (k - 1) - 1, stride) + 1
// (ceil_mode adds stride - 1 to the numerator). Transposed convolution
// inverts it: (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1.
// Channel counts that must agree (data C vs weight I * groups) must be
// provably equal; a provably non-positive output size is an error.
#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/sinfo_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

PrimExpr dim(const TensorSInfo& t, int i) { return arith::toIndex((*t.shape)[i]); }

void requireRank(const Call& call, const DeduceContext& ctx, const TensorSInfo& t, size_t i,
                 int rank, const char* what) {
  if (t.ndim >= 0 && t.ndim != rank)
    fail(call, ctx,
         fmt::format("operand {} ({}) must have rank {}, got {}", i, what, rank, t.ndim));
}

DataType outDType(const Call& call, const DeduceContext& ctx, DataType a, DataType b) {
  DataType t = unifyDType(call, ctx, a, b);
  DataType o = attrDType(call, ctx, "out_dtype");
  return o.isVoid() ? t : o;
}

// ------------------------------------------------------------------- matmul

StructInfo deduceMatmul(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& a = tensorArg(call, ctx, 0);
  const TensorSInfo* bp = &tensorArg(call, ctx, 1);
  StructInfo unpacked; // the [K, N] view of a packed rhs
  std::string layout = call.attrs.getString("weight_layout", "");
  if (!layout.empty()) {
    // "KN<V>n": the rhs packed in column panels [N / V, K, V].
    int64_t V = packedMatmulPanel(layout);
    if (!V)
      fail(call, ctx, "weight_layout must be \"\" or \"KN<V>n\", got \"" + layout + "\"");
    requireRank(call, ctx, *bp, 1, 3, "packed rhs [N / V, K, V]");
    if (a.ndim >= 0 && a.ndim < 2)
      fail(call, ctx, "a packed rhs needs an lhs of rank >= 2");
    if (bp->shape && asConstInt(dim(*bp, 2)) != V)
      fail(call, ctx,
           "the packed rhs's last dimension must be the panel width " + std::to_string(V));
    unpacked = bp->shape
                   ? tensorOf(bp->dtype, {dim(*bp, 1), arith::simplify(dim(*bp, 0) * dim(*bp, 2))})
                   : tensorSInfo(bp->dtype, 2);
    bp = as<TensorSInfo>(unpacked);
  }
  const TensorSInfo& b = *bp;
  DataType dtype = outDType(call, ctx, a.dtype, b.dtype);
  if (a.ndim == 0 || b.ndim == 0)
    fail(call, ctx, "operands must have rank >= 1");
  if (a.ndim < 0 || b.ndim < 0)
    return tensorSInfo(dtype, -1);
  bool a1 = a.ndim == 1, b1 = b.ndim == 1;
  int outNdim = std::max(a.ndim, b.ndim) - (a1 ? 1 : 0) - (b1 ? 1 : 0);
  if (a1 && b1)
    outNdim = 0;
  if (!a.shape || !b.shape)
    return tensorSInfo(dtype, outNdim);
  std::vector<PrimExpr> as = *a.shape, bs = *b.shape;
  if (a1)
    as.insert(as.begin(), intImm(1));
  if (b1)
    bs.push_back(intImm(1));
  requireEqualDim(call, ctx, as.back(), bs[bs.size() - 2], "reduction dimensions differ");
  std::vector<PrimExpr> batch =
      broadcastShapes(call, ctx, std::vector<PrimExpr>(as.begin(), as.end() - 2),
                      std::vector<PrimExpr>(bs.begin(), bs.end() - 2));
  if (!a1)
    batch.push_back(as[as.size() - 2]);
  if (!b1)
    batch.push_back(bs.back());
  return tensorOf(dtype, std::move(batch));
}

// nn.dense / linear: x (..., in), w (out, in), optional bias (out,).
StructInfo deduceDense(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& w = tensorArg(call, ctx, 1);
  requireRank(call, ctx, w, 1, 2, "weight (out, in)");
  if (x.ndim == 0)
    fail(call, ctx, "operand 0 (data) must have rank >= 1");
  DataType dtype = outDType(call, ctx, x.dtype, w.dtype);
  if (call.args.size() == 3) {
    const TensorSInfo& bias = tensorArg(call, ctx, 2);
    requireRank(call, ctx, bias, 2, 1, "bias (out,)");
    unifyDType(call, ctx, x.dtype, bias.dtype);
    if (bias.shape && w.shape)
      requireEqualDim(call, ctx, dim(bias, 0), dim(w, 0),
                      "bias size differs from the output units");
  }
  if (x.ndim < 0)
    return tensorSInfo(dtype, -1);
  if (!x.shape || !w.shape)
    return tensorSInfo(dtype, x.ndim);
  requireEqualDim(call, ctx, dim(x, x.ndim - 1), dim(w, 1), "input units differ");
  std::vector<PrimExpr> shape = *x.shape;
  shape.back() = (*w.shape)[0];
  return tensorSInfo(dtype, std::move(shape));
}

// ------------------------------------------------------------- convolution

/// Padding attribute -> (before, after) per spatial axis. Accepts 1 value,
/// one per axis, or before... then after... (2 * k values).
void padding(const Call& call, const DeduceContext& ctx, size_t k, std::vector<int64_t>& before,
             std::vector<int64_t>& after) {
  auto p = attrInts(call, ctx, "padding");
  if (p.size() == 1)
    p = std::vector<int64_t>(2 * k, p[0]);
  else if (p.size() == k)
    p.insert(p.end(), p.begin(), p.end());
  if (p.size() != 2 * k)
    fail(call, ctx,
         fmt::format("attribute 'padding' needs 1, {} or {} values, got {}", k, 2 * k, p.size()));
  for (int64_t v : p)
    if (v < 0)
      fail(call, ctx, "attribute 'padding' must be non-negative");
  before.assign(p.begin(), p.begin() + k);
  after.assign(p.begin() + k, p.end());
}

std::vector<int64_t> positive(const Call& call, const DeduceContext& ctx, const std::string& name,
                              size_t k) {
  auto v = expandSpatial(call, ctx, name, attrInts(call, ctx, name), k);
  for (int64_t x : v)
    if (x <= 0)
      fail(call, ctx, fmt::format("attribute '{}' must be positive", name));
  return v;
}

PrimExpr windowOut(const Call& call, const DeduceContext& ctx, PrimExpr in, PrimExpr kernel,
                   int64_t padSum, int64_t stride, int64_t dilation, bool ceil, int axis) {
  PrimExpr span = intImm(dilation) * (kernel - intImm(1)) + intImm(1);
  PrimExpr num = in + intImm(padSum) - span;
  if (ceil)
    num = num + intImm(stride - 1);
  PrimExpr out = arith::simplify(floordiv(num, intImm(stride)) + intImm(1));
  if (auto c = asConstInt(out); c && *c <= 0)
    fail(call, ctx,
         fmt::format("spatial axis {}: the window ({}) is larger than the padded input ({})", axis,
                     primExprStr(arith::simplify(span)),
                     primExprStr(arith::simplify(in + intImm(padSum)))));
  return out;
}

/// The spatial part of a layout over k axes: W, HW, DHW.
std::string spatialLayout(size_t k) { return k == 1 ? "W" : k == 2 ? "HW" : "DHW"; }

/// conv1d (k = 1), conv2d (k = 2) and conv3d (k = 3), NC<spatial> data and
/// OI<spatial> weight (IO<spatial> transposed).
DeduceFn convolution(size_t k, bool transpose) {
  return [k, transpose](const Call& call, const DeduceContext& ctx) -> StructInfo {
    const TensorSInfo& x = tensorArg(call, ctx, 0);
    const TensorSInfo& w = tensorArg(call, ctx, 1);
    int rank = static_cast<int>(k) + 2;
    std::string spatial = spatialLayout(k);
    if (attrString(call, ctx, "data_layout") != "NC" + spatial)
      fail(call, ctx, "only data_layout \"NC" + spatial + "\" is supported");
    std::string kl = transpose ? "IO" + spatial : "OI" + spatial;
    std::string given = attrString(call, ctx, "kernel_layout");
    // conv2d also takes the packed "OIHW<b>o" (AlterConvLayout's output).
    int64_t block = k == 2 && !transpose ? packedKernelBlock(given) : 0;
    if (given != kl && !block)
      fail(call, ctx,
           "only kernel_layout \"" + kl + "\"" + (k == 2 && !transpose ? " or \"OIHW<b>o\"" : "") +
               " is supported");
    requireRank(call, ctx, x, 0, rank, ("data NC" + spatial).c_str());
    requireRank(call, ctx, w, 1, block ? rank + 1 : rank, ("weight " + given).c_str());
    if (block) {
      if (attrInt(call, ctx, "groups") != 1)
        fail(call, ctx, "a packed kernel layout needs groups = 1");
      if (auto b = w.shape ? asConstInt(dim(w, rank)) : std::nullopt; w.shape && b != block)
        fail(call, ctx,
             "the weight's last dimension must be the layout's block " + std::to_string(block));
    }
    DataType dtype = outDType(call, ctx, x.dtype, w.dtype);
    auto strides = positive(call, ctx, "strides", k), dilation = positive(call, ctx, "dilation", k);
    std::vector<int64_t> before, after;
    padding(call, ctx, k, before, after);
    int64_t groups = attrInt(call, ctx, "groups");
    if (groups <= 0)
      fail(call, ctx, "attribute 'groups' must be positive");
    std::vector<int64_t> outPad(k, 0);
    if (transpose) {
      outPad = expandSpatial(call, ctx, "output_padding", attrInts(call, ctx, "output_padding"), k);
      for (size_t i = 0; i < k; ++i)
        if (outPad[i] < 0 || (outPad[i] >= strides[i] && outPad[i] >= dilation[i]))
          fail(call, ctx, "output_padding must be smaller than the stride or the dilation");
    }
    if (!x.shape || !w.shape)
      return tensorSInfo(dtype, rank);

    PrimExpr inChannels = transpose ? dim(w, 0) : dim(w, 1) * groups;
    requireEqualDim(call, ctx, dim(x, 1), inChannels,
                    transpose ? "input channels differ from weight dimension 0"
                              : "input channels differ from weight in-channels * groups");
    PrimExpr outChannels = transpose ? dim(w, 1) * groups : dim(w, 0);
    if (block)
      outChannels = arith::simplify(dim(w, 0) * intImm(block));
    if (auto o = asConstInt(dim(w, 0)); !transpose && o && *o % groups != 0)
      fail(call, ctx, fmt::format("output channels {} are not divisible by groups {}", *o, groups));
    std::vector<PrimExpr> shape{(*x.shape)[0], outChannels};
    for (size_t i = 0; i < k; ++i) {
      PrimExpr in = dim(x, 2 + i), kernel = dim(w, 2 + i);
      if (!transpose) {
        shape.push_back(windowOut(call, ctx, in, kernel, before[i] + after[i], strides[i],
                                  dilation[i], false, static_cast<int>(i)));
        continue;
      }
      PrimExpr out = (in - intImm(1)) * strides[i] - intImm(before[i] + after[i]) +
                     intImm(dilation[i]) * (kernel - intImm(1)) + intImm(outPad[i] + 1);
      out = arith::simplify(out);
      if (auto c = asConstInt(out); c && *c <= 0)
        fail(call, ctx, fmt::format("spatial axis {}: output size {} is not positive", i, *c));
      shape.push_back(out);
    }
    return tensorOf(dtype, std::move(shape));
  };
}

/// nn.conv2d_winograd(data [N, C, H, W], weight [a*a, C, K], matrices
/// [2a - 2, a]): a 3x3 stride-1 convolution as F(m x m, 3 x 3), m = a - 2
/// (transform::winogradConv's output; the weight already transformed).
StructInfo deduceConv2dWinograd(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  const TensorSInfo& w = tensorArg(call, ctx, 1);
  const TensorSInfo& t = tensorArg(call, ctx, 2);
  requireRank(call, ctx, x, 0, 4, "data NCHW");
  requireRank(call, ctx, w, 1, 3, "transformed weight [a*a, C, K]");
  requireRank(call, ctx, t, 2, 2, "transform matrices [2a - 2, a]");
  DataType dtype = unifyDType(call, ctx, unifyDType(call, ctx, x.dtype, w.dtype), t.dtype);
  if (!dtype.isVoid() && !dtype.isFloat())
    fail(call, ctx, "requires float tensors, got " + dtype.str());
  std::vector<int64_t> before, after;
  padding(call, ctx, 2, before, after);
  if (!x.shape || !w.shape || !t.shape)
    return tensorSInfo(dtype, 4);
  auto a = asConstInt(dim(t, 1)), rows = asConstInt(dim(t, 0));
  if (!a || !rows || *a < 4 || *rows != 2 * *a - 2)
    fail(call, ctx,
         "the transform matrices must be a constant [2a - 2, a] with a >= 4 (B^T's a rows, then "
         "A^T's a - 2), got [" +
             primExprStr(dim(t, 0)) + ", " + primExprStr(dim(t, 1)) + "]");
  requireEqualDim(call, ctx, dim(w, 0), intImm(*a * *a),
                  "the weight's dimension 0 must be a * a = " + std::to_string(*a * *a));
  requireEqualDim(call, ctx, dim(x, 1), dim(w, 1), "input channels differ from weight dimension 1");
  std::vector<PrimExpr> shape{dim(x, 0), dim(w, 2)};
  for (int i = 0; i < 2; ++i)
    shape.push_back(
        windowOut(call, ctx, dim(x, 2 + i), intImm(3), before[i] + after[i], 1, 1, false, i));
  return tensorOf(dtype, std::move(shape));
}

std::vector<AttrSpec> convAttrs(size_t k, bool transpose) {
  std::string spatial = spatialLayout(k);
  std::vector<int64_t> ones(k, 1), zeros(2 * k, 0);
  std::vector<AttrSpec> a = {
      {"strides", Type::Ints, false, ones, "stride per spatial axis"},
      {"padding", Type::Ints, false, zeros,
       k == 1   ? "[left, right] (or one value)"
       : k == 2 ? "[top, left, bottom, right] (or 1 or 2 values)"
                : "[front, top, left, back, bottom, right] (or 1 or 3 values)"},
      {"dilation", Type::Ints, false, ones, "dilation per spatial axis"},
      {"groups", Type::Int, false, int64_t(1), "grouped convolution"},
      {"data_layout", Type::String, false, "NC" + spatial, "only NC" + spatial},
      {"kernel_layout", Type::String, false, (transpose ? "IO" : "OI") + spatial,
       k == 2 && !transpose ? "weight layout; or \"OIHW<b>o\": [O/b, I, KH, KW, b] (groups 1)"
                            : "weight layout"},
      {"out_dtype", Type::DType, false, std::string(), "output dtype; absent = input", true}};
  if (transpose)
    a.push_back({"output_padding", Type::Ints, false, std::vector<int64_t>(k, 0),
                 "extra size added to one side of the output"});
  return a;
}

// ----------------------------------------------------------------- pooling

/// Pooling over k spatial axes (2: NCHW, 3: NCDHW).
DeduceFn poolDeduce(size_t k) {
  return [k](const Call& call, const DeduceContext& ctx) -> StructInfo {
    const TensorSInfo& x = tensorArg(call, ctx, 0);
    std::string layout = "NC" + spatialLayout(k);
    if (attrString(call, ctx, "layout") != layout)
      fail(call, ctx, "only layout \"" + layout + "\" is supported");
    int rank = static_cast<int>(k) + 2;
    requireRank(call, ctx, x, 0, rank, ("data " + layout).c_str());
    auto pool = positive(call, ctx, "pool_size", k), strides = positive(call, ctx, "strides", k),
         dilation = positive(call, ctx, "dilation", k);
    std::vector<int64_t> before, after;
    padding(call, ctx, k, before, after);
    bool ceil = attrBool(call, ctx, "ceil_mode");
    if (!x.shape)
      return tensorSInfo(x.dtype, rank);
    std::vector<PrimExpr> shape{(*x.shape)[0], (*x.shape)[1]};
    for (size_t i = 0; i < k; ++i)
      shape.push_back(windowOut(call, ctx, dim(x, 2 + static_cast<int>(i)), intImm(pool[i]),
                                before[i] + after[i], strides[i], dilation[i], ceil,
                                static_cast<int>(i)));
    return tensorSInfo(x.dtype, std::move(shape));
  };
}

std::vector<AttrSpec> poolAttrs(size_t k) {
  std::string layout = "NC" + spatialLayout(k);
  return {{"pool_size", Type::Ints, true, std::vector<int64_t>{},
           k == 2 ? "window (height, width)" : "window (depth, height, width)"},
          {"strides", Type::Ints, false, std::vector<int64_t>(k, 1), "stride per axis"},
          {"padding", Type::Ints, false, std::vector<int64_t>(2 * k, 0),
           k == 2 ? "[top, left, bottom, right]" : "[front, top, left, back, bottom, right]"},
          {"dilation", Type::Ints, false, std::vector<int64_t>(k, 1), "dilation per axis"},
          {"ceil_mode", Type::Bool, false, false, "round the output size up"},
          {"count_include_pad", Type::Bool, false, false, "average counts padding (avg only)"},
          {"layout", Type::String, false, layout, "only " + layout}};
}

StructInfo deduceAdaptivePool(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (attrString(call, ctx, "layout") != "NCHW")
    fail(call, ctx, "only layout \"NCHW\" is supported");
  requireRank(call, ctx, x, 0, 4, "data NCHW");
  if (!x.shape)
    return tensorSInfo(x.dtype, 4);
  std::vector<PrimExpr> shape = *x.shape;
  if (hasAttr(call, "output_size")) {
    auto size = positive(call, ctx, "output_size", 2);
    shape[2] = intImm(size[0]);
    shape[3] = intImm(size[1]);
  }
  return tensorSInfo(x.dtype, std::move(shape));
}

StructInfo deduceGlobalPool(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  requireRank(call, ctx, x, 0, 4, "data NCHW");
  if (!x.shape)
    return tensorSInfo(x.dtype, 4);
  return tensorSInfo(x.dtype, {(*x.shape)[0], (*x.shape)[1], intImm(1), intImm(1)});
}

// ----------------------------------------------------------- normalization

StructInfo deduceBatchNorm(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (x.ndim < 0)
    return call.args[0]->sinfo;
  int axis = normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  static const char* names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorSInfo& p = tensorArg(call, ctx, i);
    requireRank(call, ctx, p, i, 1, names[i - 1]);
    unifyDType(call, ctx, x.dtype, p.dtype);
    if (p.shape && x.shape)
      requireEqualDim(call, ctx, dim(p, 0), dim(x, axis),
                      fmt::format("{} size differs from channel axis {}", names[i - 1], axis));
  }
  return call.args[0]->sinfo;
}

StructInfo deduceLayerNorm(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  auto given = attrInts(call, ctx, "axes");
  if (given.empty())
    fail(call, ctx, "attribute 'axes' must not be empty");
  if (x.ndim < 0)
    return call.args[0]->sinfo;
  auto axes = normalizeAxes(call, ctx, given, x.ndim);
  for (size_t i = 1; i < 3; ++i) {
    const TensorSInfo& p = tensorArg(call, ctx, i);
    const char* what = i == 1 ? "gamma" : "beta";
    requireRank(call, ctx, p, i, static_cast<int>(axes.size()), what);
    unifyDType(call, ctx, x.dtype, p.dtype);
    if (p.shape && x.shape)
      for (size_t j = 0; j < axes.size(); ++j)
        requireEqualDim(
            call, ctx, dim(p, static_cast<int>(j)), dim(x, axes[j]),
            fmt::format("{} dimension {} differs from normalized axis {}", what, j, axes[j]));
  }
  return call.args[0]->sinfo;
}

StructInfo deduceSoftmax(const Call& call, const DeduceContext& ctx) {
  const TensorSInfo& x = tensorArg(call, ctx, 0);
  if (!x.dtype.isVoid() && !x.dtype.isFloat())
    fail(call, ctx, "requires a float tensor, got " + x.dtype.str());
  if (x.ndim == 0)
    fail(call, ctx, "needs a tensor of rank >= 1");
  if (x.ndim > 0)
    normalizeAxis(call, ctx, attrInt(call, ctx, "axis"), x.ndim);
  return call.args[0]->sinfo;
}

} // namespace

void registerNNOps() {
  AttrSpec outDtype{"out_dtype", Type::DType, false, std::string(), "output dtype; absent = input",
                    true};
  registerOp(
      {"matmul",
       2,
       2,
       OpPattern::OutEWiseFusable,
       {outDtype, AttrSpec{"weight_layout", Type::String, false, std::string(),
                           "\"\" or \"KN<V>n\": rhs packed in column panels [N / V, K, V] "
                           "(AlterMatmulLayout)"}},
       deduceMatmul,
       "numpy matmul: batched, broadcasting batch dims, 1-D operands promoted (or a rhs packed "
       "KN<V>n: [N / V, K, V])"});
  registerOp({"nn.dense",
              2,
              3,
              OpPattern::OutEWiseFusable,
              {outDtype},
              deduceDense,
              "x @ w^T (+ b) with weight (out, in)"});
  registerOp({"linear",
              2,
              3,
              OpPattern::OutEWiseFusable,
              {outDtype},
              deduceDense,
              "x @ w^T (+ b) with weight (out, in)"});
  registerOp({"nn.conv1d", 2, 2, OpPattern::OutEWiseFusable, convAttrs(1, false),
              convolution(1, false), "1-D convolution, NCW data, OIW weight"});
  registerOp({"nn.conv2d", 2, 2, OpPattern::OutEWiseFusable, convAttrs(2, false),
              convolution(2, false),
              "2-D convolution, NCHW data, OIHW weight (or packed OIHW<b>o: [O/b, I, KH, KW, b], "
              "groups 1)"});
  registerOp({"nn.conv2d_winograd",
              3,
              3,
              OpPattern::OutEWiseFusable,
              {{"padding", Type::Ints, false, std::vector<int64_t>{0, 0, 0, 0},
                "[top, left, bottom, right] (or 1 or 2 values)"}},
              deduceConv2dWinograd,
              "3x3 stride-1 convolution by Winograd F(m x m, 3 x 3): NCHW data, the weight "
              "transformed to [a*a, C, K] (a = m + 2), then B^T (a x a) and A^T (m x a) stacked "
              "as [2a - 2, a] (WinogradConv's output)"});
  registerOp({"nn.conv2d_transpose", 2, 2, OpPattern::OutEWiseFusable, convAttrs(2, true),
              convolution(2, true), "transposed 2-D convolution, NCHW data, IOHW weight"});
  registerOp({"nn.conv3d", 2, 2, OpPattern::OutEWiseFusable, convAttrs(3, false),
              convolution(3, false), "3-D convolution, NCDHW data, OIDHW weight"});
  registerOp({"nn.conv3d_transpose", 2, 2, OpPattern::OutEWiseFusable, convAttrs(3, true),
              convolution(3, true), "transposed 3-D convolution, NCDHW data, IODHW weight"});
  registerOp({"nn.max_pool2d", 1, 1, OpPattern::OutEWiseFusable, poolAttrs(2), poolDeduce(2),
              "max over windows"});
  registerOp({"nn.avg_pool2d", 1, 1, OpPattern::OutEWiseFusable, poolAttrs(2), poolDeduce(2),
              "average over windows"});
  registerOp({"nn.max_pool3d", 1, 1, OpPattern::OutEWiseFusable, poolAttrs(3), poolDeduce(3),
              "max over 3-D windows (NCDHW)"});
  registerOp({"nn.avg_pool3d", 1, 1, OpPattern::OutEWiseFusable, poolAttrs(3), poolDeduce(3),
              "average over 3-D windows (NCDHW)"});
  registerOp({"nn.adaptive_avg_pool2d",
              1,
              1,
              OpPattern::OutEWiseFusable,
              {{"output_size", Type::Ints, false, std::vector<int64_t>{},
                "(height, width); absent = input size", true},
               {"layout", Type::String, false, std::string("NCHW"), "only NCHW"}},
              deduceAdaptivePool,
              "average pooling to a fixed output size"});
  registerOp({"nn.global_avg_pool2d",
              1,
              1,
              OpPattern::OutEWiseFusable,
              {},
              deduceGlobalPool,
              "average over H and W -> (N, C, 1, 1)"});
  registerOp({"nn.batch_norm",
              5,
              5,
              OpPattern::Broadcast,
              {{"axis", Type::Int, false, int64_t(1), "channel axis"},
               {"epsilon", Type::Float, false, 1e-5, "added to the variance"},
               {"center", Type::Bool, false, true, "add beta"},
               {"scale", Type::Bool, false, true, "multiply by gamma"}},
              deduceBatchNorm,
              "inference batch norm (x, gamma, beta, mean, var) -> tensor"});
  registerOp({"nn.layer_norm",
              3,
              3,
              OpPattern::Opaque,
              {{"axes", Type::Ints, true, std::vector<int64_t>{}, "normalized axes"},
               {"epsilon", Type::Float, false, 1e-5, "added to the variance"},
               {"center", Type::Bool, false, true, "add beta"},
               {"scale", Type::Bool, false, true, "multiply by gamma"}},
              deduceLayerNorm,
              "layer norm (x, gamma, beta)"});
  registerOp({"nn.softmax",
              1,
              1,
              OpPattern::Opaque,
              {{"axis", Type::Int, false, int64_t(-1), "normalized axis"}},
              deduceSoftmax,
              "softmax along an axis"});
  registerOp({"nn.log_softmax",
              1,
              1,
              OpPattern::Opaque,
              {{"axis", Type::Int, false, int64_t(-1), "normalized axis"}},
              deduceSoftmax,
              "log of softmax along an axis"});
}

} // namespace unity::op::detail

namespace unity::op {

namespace {

/// The block size of a packed layout `prefix<digits>suffix` (no leading
/// zero, at most 4096 and a little), or 0 when `layout` is not of that form.
int64_t layoutBlock(std::string_view layout, std::string_view prefix, char suffix) {
  if (layout.size() < prefix.size() + 2 || layout.substr(0, prefix.size()) != prefix ||
      layout.back() != suffix || layout[prefix.size()] == '0')
    return 0;
  int64_t b = 0;
  for (char c : layout.substr(prefix.size(), layout.size() - prefix.size() - 1)) {
    if (c < '0' || c > '9' || b > 4096)
      return 0;
    b = b * 10 + (c - '0');
  }
  return b;
}

} // namespace

int64_t packedMatmulPanel(std::string_view layout) { return layoutBlock(layout, "KN", 'n'); }

int64_t packedKernelBlock(std::string_view layout) { return layoutBlock(layout, "OIHW", 'o'); }

} // namespace unity::op
