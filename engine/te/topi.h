#pragma once
// A library of common tensor operators written with te (TVM's topi): each
// function returns the output tensor(s); intermediates (a padded input, a
// row maximum) are further computes that createPrimFunc allocates at the
// root block. Shapes may be symbolic; shape arithmetic is simplified with
// arith::simplify so constant shapes stay constants.
//
// Guarded reads (padding, concat, take, transposed convolution) use Select
// with a clamped index, so every load is in bounds even though Select
// evaluates both branches.
//
// Every function checks what it can know statically (ranks, axes, constant
// dims) and throws unity::Error "topi.<op>: <cause>" otherwise.
#include <optional>
#include <string>
#include <vector>

#include "engine/te/te.h"

namespace unity::te::topi {

// ---------------------------------------------------------------- elementwise
/// numpy broadcasting of two shapes. Dims that are provably equal or 1 are
/// resolved; a constant dim other than 1 against a symbolic one yields the
/// constant (the symbolic dim is assumed equal); two unrelated symbolic dims
/// are an error.
std::vector<ir::PrimExpr> broadcastShape(const std::vector<ir::PrimExpr>& a,
                                         const std::vector<ir::PrimExpr>& b, const std::string& op);
/// The index into x for an output index of a broadcast result (leading dims
/// dropped, dims of constant size 1 read at 0).
std::vector<ir::PrimExpr> broadcastIndex(const Tensor& x,
                                         const std::vector<ir::PrimExpr>& outIndex);

using UnaryFn = std::function<ir::PrimExpr(ir::PrimExpr)>;
using BinaryFn = std::function<ir::PrimExpr(ir::PrimExpr, ir::PrimExpr)>;
Tensor unary(const Tensor& x, const UnaryFn& f, const std::string& name);
Tensor binary(const Tensor& a, const Tensor& b, const BinaryFn& f, const std::string& name);

Tensor add(const Tensor& a, const Tensor& b, const std::string& name = "T_add");
Tensor subtract(const Tensor& a, const Tensor& b, const std::string& name = "T_subtract");
Tensor multiply(const Tensor& a, const Tensor& b, const std::string& name = "T_multiply");
Tensor divide(const Tensor& a, const Tensor& b, const std::string& name = "T_divide");
Tensor floorDivide(const Tensor& a, const Tensor& b, const std::string& name = "T_floor_divide");
Tensor power(const Tensor& a, const Tensor& b, const std::string& name = "T_power");
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& name = "T_maximum");
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& name = "T_minimum");
/// Comparisons produce bool tensors.
Tensor equal(const Tensor& a, const Tensor& b, const std::string& name = "T_equal");
Tensor notEqual(const Tensor& a, const Tensor& b, const std::string& name = "T_not_equal");
Tensor less(const Tensor& a, const Tensor& b, const std::string& name = "T_less");
Tensor lessEqual(const Tensor& a, const Tensor& b, const std::string& name = "T_less_equal");
Tensor greater(const Tensor& a, const Tensor& b, const std::string& name = "T_greater");
Tensor greaterEqual(const Tensor& a, const Tensor& b, const std::string& name = "T_greater_equal");

/// An intrinsic applied elementwise ("exp", "log", "sqrt", "tanh", "erf", ...).
Tensor intrinsic(const Tensor& x, const std::string& intrinsicName, const std::string& name = "");
Tensor negative(const Tensor& x, const std::string& name = "T_negative");
Tensor abs(const Tensor& x, const std::string& name = "T_abs");
Tensor relu(const Tensor& x, const std::string& name = "T_relu");
Tensor sigmoid(const Tensor& x, const std::string& name = "T_sigmoid");
/// erf(x) as the intrinsic; the pass LowerIntrinsics expands float32 into a
/// vectorizable rational approximation (max abs error 4.2e-7).
Tensor erf(const Tensor& x, const std::string& name = "T_erf");
/// x * 0.5 * (1 + erf(x / sqrt(2))), erf as in topi::erf
Tensor gelu(const Tensor& x, const std::string& name = "T_gelu");
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
Tensor geluTanh(const Tensor& x, const std::string& name = "T_gelu_tanh");
/// x * sigmoid(x)
Tensor silu(const Tensor& x, const std::string& name = "T_silu");
Tensor clip(const Tensor& x, double lo, double hi, const std::string& name = "T_clip");
Tensor cast(const Tensor& x, DataType dtype, const std::string& name = "T_cast");
/// cond ? a : b with three-way broadcasting; cond is bool (or cast to it).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b,
             const std::string& name = "T_where");

// --------------------------------------------------------------- linear algebra
/// numpy matmul: [..., M, K] x [..., K, N] -> [broadcast(...), M, N]; a 1-D
/// operand is a vector (its dim is dropped from the result).
Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name = "T_matmul");
/// a [..., M, K] x b packed in column panels [N / V, K, V] (b[k, n] at
/// [n / V, k, n % V]) -> [..., M, N]: the products sum into [..., N / V, M, V]
/// (V output columns innermost, as the panel), copied back by the returned
/// stage (AlterMatmulLayout packs constant weights at build time).
Tensor matmulPacked(const Tensor& a, const Tensor& b, const std::string& name = "T_matmul");
/// x [..., K] . w [N, K]^T (+ bias [N]) -> [..., N]
Tensor dense(const Tensor& x, const Tensor& w, const Tensor& bias = Tensor(),
             const std::string& name = "T_dense");

// ------------------------------------------------------------ convolution, pooling
struct Conv2dParams {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0}; // top, left, bottom, right (2 values: symmetric)
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
};
/// NCHW data, OIHW weight (I = C / groups).
Tensor conv2d(const Tensor& data, const Tensor& weight, const Conv2dParams& p = {},
              const std::string& name = "conv2d_nchw");
/// NCHW data, weight packed with output channels innermost in blocks of b
/// (kernel layout "OIHW<b>o": [O / b, C, KH, KW, b], groups = 1): the
/// products are summed into a blocked output [N, O / b, OH, OW, b] whose
/// last index runs along output channels (the default schedule's vector
/// lanes) and copied to NCHW.
Tensor conv2dBlocked(const Tensor& data, const Tensor& weight, const Conv2dParams& p = {},
                     const std::string& name = "conv2d_nchw");
/// A 3x3 stride-1 convolution by Winograd's minimal filtering F(m x m, 3 x 3)
/// (Lavin and Gray, 2015): NCHW data, the weight already transformed
/// (U = G g G^T per filter, [a*a, C, K], a = m + 2) and the transform
/// matrices B^T (a x a) and A^T (m x a) stacked as `matrices` [2a - 2, a].
/// Five stages: the input tiles (a x a, stride m, zero padding), V = B^T d
/// B in two passes, the batched matrix product M[e] = V[e] U[e] over the
/// channels for each of the a*a points e, and Y = A^T M A in two passes.
/// padding: top, left, bottom, right (1 or 2 values: symmetric).
Tensor conv2dWinograd(const Tensor& data, const Tensor& weight, const Tensor& matrices,
                      std::vector<int64_t> padding, const std::string& name = "conv2d_winograd");
/// NCW data, OIW weight; padding {left, right} (1 value: symmetric).
Tensor conv1d(const Tensor& data, const Tensor& weight, int64_t stride = 1,
              std::vector<int64_t> padding = {0, 0}, int64_t dilation = 1, int64_t groups = 1,
              const std::string& name = "conv1d_ncw");
/// NCHW data, IOHW weight ([C, O / groups, KH, KW]); output size
/// (H - 1) * stride - pad_top - pad_bottom + dilation * (KH - 1) + output_padding + 1.
Tensor conv2dTranspose(const Tensor& data, const Tensor& weight, const Conv2dParams& p = {},
                       std::vector<int64_t> outputPadding = {0, 0},
                       const std::string& name = "conv2d_transpose_nchw");

/// 3-D convolution parameters: one value per spatial axis (D, H, W);
/// padding [front, top, left, back, bottom, right] (3 values: symmetric).
struct Conv3dParams {
  std::vector<int64_t> strides{1, 1, 1};
  std::vector<int64_t> padding{0, 0, 0, 0, 0, 0};
  std::vector<int64_t> dilation{1, 1, 1};
  int64_t groups = 1;
};
/// NCDHW data, OIDHW weight (I = C / groups).
Tensor conv3d(const Tensor& data, const Tensor& weight, Conv3dParams p = {},
              const std::string& name = "conv3d_ncdhw");
/// NCDHW data, IODHW weight ([C, O / groups, KD, KH, KW]); output size per
/// axis (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1.
Tensor conv3dTranspose(const Tensor& data, const Tensor& weight, Conv3dParams p = {},
                       std::vector<int64_t> outputPadding = {0, 0, 0},
                       const std::string& name = "conv3d_transpose_ncdhw");

enum class PoolType { Max, Avg };
/// NCHW pooling; padding as in Conv2dParams. Max pooling pads with the
/// lowest value; average pooling divides by the window size when
/// countIncludePad, else by the number of in-bounds elements.
Tensor pool2d(const Tensor& data, PoolType type, std::vector<int64_t> kernel,
              std::vector<int64_t> strides = {1, 1}, std::vector<int64_t> padding = {0, 0, 0, 0},
              bool countIncludePad = false, const std::string& name = "pool2d");
/// Window parameters of pool(): one value per spatial axis; padding as
/// all befores then all afters (or one per axis, symmetric); an empty
/// dilation means 1.
struct PoolParams {
  std::vector<int64_t> kernel, strides, dilation, padding;
  bool ceilMode = false;        // round the output size up (needs constant spatial sizes)
  bool countIncludePad = false; // average: divide by the taps inside the padded input
};
/// Pooling over the trailing `spatial` dims of [N, C, *S] data (NCW, NCHW,
/// NCDHW). Windows start at o * stride - pad_before and take every
/// dilation-th element; positions outside the input count as padding
/// (lowest value for max). Average divides by the taps inside the input
/// (or inside the padded input when countIncludePad).
Tensor pool(const Tensor& data, PoolType type, size_t spatial, const PoolParams& p,
            const std::string& name = "pool");
/// NCHW -> NC11 mean over H and W.
Tensor globalAvgPool2d(const Tensor& data, const std::string& name = "global_avg_pool2d");

// ------------------------------------------------------------------ normalization
/// exp(x - max) / sum(exp(x - max)) along axis (4 computes).
Tensor softmax(const Tensor& x, int axis = -1, const std::string& name = "T_softmax");
/// x - max - log(sum(exp(x - max))) along axis.
Tensor logSoftmax(const Tensor& x, int axis = -1, const std::string& name = "T_log_softmax");
/// Normalizes over `axes` (mean and variance, two passes); gamma and beta
/// have the shape of those axes.
Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, std::vector<int> axes,
                 double epsilon = 1e-5, const std::string& name = "T_layer_norm");
/// Inference batch norm: (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c], c on `axis`.
Tensor batchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                 const Tensor& var, int axis = 1, double epsilon = 1e-5,
                 const std::string& name = "T_batch_norm");

// --------------------------------------------------------------------- reductions
/// Reduces over `axes` (empty: all axes; negative counts from the end).
Tensor reduce(const Tensor& x, Reducer r, std::vector<int> axes, bool keepdims = false,
              const std::string& name = "");
Tensor sum(const Tensor& x, std::vector<int> axes, bool keepdims = false,
           const std::string& name = "T_sum");
Tensor mean(const Tensor& x, std::vector<int> axes, bool keepdims = false,
            const std::string& name = "T_mean");
Tensor max(const Tensor& x, std::vector<int> axes, bool keepdims = false,
           const std::string& name = "T_max");
Tensor min(const Tensor& x, std::vector<int> axes, bool keepdims = false,
           const std::string& name = "T_min");
Tensor prod(const Tensor& x, std::vector<int> axes, bool keepdims = false,
            const std::string& name = "T_prod");
/// Index (int64) of the first maximum / minimum along axis, in two passes:
/// m = max(x) along axis, then the min over k of (x[k] == m ? k : extent).
Tensor argmax(const Tensor& x, int axis, bool keepdims = false,
              const std::string& name = "T_argmax");
Tensor argmin(const Tensor& x, int axis, bool keepdims = false,
              const std::string& name = "T_argmin");

// ------------------------------------------------------------------- data movement
/// Row-major reshape; the element counts must match when both are constant.
Tensor reshape(const Tensor& x, std::vector<ir::PrimExpr> shape,
               const std::string& name = "T_reshape");
/// Permutes dims (empty axes: reverse).
Tensor transpose(const Tensor& x, std::vector<int> axes = {},
                 const std::string& name = "T_transpose");
Tensor concat(const std::vector<Tensor>& xs, int axis, const std::string& name = "T_concat");
/// Equal sections (must divide a constant dim) ...
std::vector<Tensor> split(const Tensor& x, int64_t sections, int axis,
                          const std::string& name = "T_split");
/// ... or at the given indices.
std::vector<Tensor> splitAt(const Tensor& x, std::vector<int64_t> indices, int axis,
                            const std::string& name = "T_split");
/// numpy-style x[begin:end:stride] on `axes` (empty: the first begin.size()
/// axes). Negative begin/end count from the end; out-of-range values clamp.
/// Negative strides need constant dims.
Tensor stridedSlice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
                    std::vector<int64_t> strides = {}, std::vector<int> axes = {},
                    const std::string& name = "T_strided_slice");
/// x.take(indices, axis): negative indices count from the end, out-of-range
/// ones clamp (TVM's "clip" mode).
Tensor take(const Tensor& x, const Tensor& indices, int axis, const std::string& name = "T_take");
Tensor broadcastTo(const Tensor& x, std::vector<ir::PrimExpr> shape,
                   const std::string& name = "T_broadcast_to");
/// Constant padding; before/after per dim.
Tensor pad(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after,
           double value = 0.0, const std::string& name = "T_pad");
/// Edge padding (the nearest element repeated) or reflect padding (mirrored
/// about the first and last element, numpy's "reflect"); before/after per dim.
Tensor padMode(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after,
               const std::string& mode, const std::string& name = "T_pad");
/// NCHW resize to (outH, outW). method: "nearest" | "linear";
/// coordinateMode: "half_pixel" | "align_corners" | "asymmetric";
/// nearestMode (nearest only): "floor" | "ceil" | "round_prefer_floor" | "round_prefer_ceil".
Tensor resize2d(const Tensor& x, ir::PrimExpr outH, ir::PrimExpr outW,
                const std::string& method = "linear",
                const std::string& coordinateMode = "half_pixel",
                const std::string& nearestMode = "round_prefer_floor",
                const std::string& name = "T_resize2d");
struct ResizeParams {
  std::string method = "linear"; // nearest | linear | cubic
  /// half_pixel | align_corners | asymmetric | pytorch_half_pixel | tf_half_pixel_for_nn |
  /// tf_crop_and_resize
  std::string coordinateMode = "half_pixel";
  std::string nearestMode = "round_prefer_floor"; // as above
  double cubicAlpha = -0.5;                       // Keys' parameter a
  bool cubicExclude = false;                      // drop (and renormalize) taps outside the input
  /// Output / input ratio per axis used to map coordinates; 0 = out / in.
  double scaleH = 0, scaleW = 0;
  /// tf_crop_and_resize: the crop box {start_h, start_w, end_h, end_w} in
  /// normalized coordinates, and the value of positions outside the input.
  std::vector<double> roi;
  double extrapolationValue = 0;
  /// Run-time coordinate parameters, a 1-D float tensor read by the kernel
  /// (undefined = none): with tf_crop_and_resize the crop box (4 values,
  /// replacing `roi`), otherwise the scales (height, width) replacing
  /// scaleH / scaleW.
  Tensor params;
};
/// The general resize (see topi_transform.cpp for the formulas).
Tensor resize2d(const Tensor& x, ir::PrimExpr outH, ir::PrimExpr outW, const ResizeParams& p,
                const std::string& name = "T_resize2d");
Tensor expandDims(const Tensor& x, int axis, const std::string& name = "T_expand_dims");
/// Drops dims of constant size 1 (all of them when axes is empty).
Tensor squeeze(const Tensor& x, std::vector<int> axes = {}, const std::string& name = "T_squeeze");

// ------------------------------------------------------- indexing, scans, losses
/// out[i] = x[i with i[axis] = indices[i]]; indices have x's rank.
Tensor gatherElements(const Tensor& x, const Tensor& indices, int axis,
                      const std::string& name = "T_gather_elements");
/// ONNX GatherND: the last dim of indices (a constant m) addresses m dims of
/// x after batchDims shared leading dims.
Tensor gatherND(const Tensor& x, const Tensor& indices, int batchDims = 0,
                const std::string& name = "T_gather_nd");
/// A new axis of size depth at `axis`: onValue where it equals the index
/// (negative indices count from depth), offValue elsewhere.
/// depth: a constant >= 1 or a symbolic extent (an integer expression).
Tensor oneHot(const Tensor& indices, ir::PrimExpr depth, int axis, double onValue, double offValue,
              DataType dtype, const std::string& name = "T_one_hot");
/// Keeps the elements with col - row >= k (upper) or <= k (lower) of the
/// last two dims, zero elsewhere.
Tensor trilu(const Tensor& x, int64_t k, bool upper, const std::string& name = "T_trilu");
/// trilu with the diagonal offset read from an integer 0-d tensor `k`.
Tensor trilu(const Tensor& x, const Tensor& k, bool upper, const std::string& name = "T_trilu");
/// Running sum along axis (a reduction per element, O(n^2) on that axis).
Tensor cumsum(const Tensor& x, int axis, bool exclusive = false, bool reverse = false,
              const std::string& name = "T_cumsum");
/// {values, int64 indices} of the k largest (smallest) along axis, sorted,
/// ties broken by the lower index; by ranking (O(n^2) on that axis).
std::vector<Tensor> topk(const Tensor& x, int64_t k, int axis, bool largest = true,
                         const std::string& name = "T_topk");
/// Negative log likelihood: pred (N, C, d...), target (N, d...) integer,
/// weights (C) or undefined. loss = -pred[n, t, d] * w[t], 0 where t is
/// ignoreIndex; reduction "none" | "sum" | "mean" (divided by the sum of
/// the weights that apply).
Tensor nllLoss(const Tensor& pred, const Tensor& target, const Tensor& weights,
               const std::string& reduction, std::optional<int64_t> ignoreIndex,
               const std::string& name = "T_nll_loss");
/// A copy of data with updates written at indices (ONNX ScatterElements):
/// reduction "none" (the last update hitting an element wins, as a
/// sequential loop would), "add", "mul", "max", "min". Written in gather
/// form: every output element scans the indices along axis (O(n * k)).
Tensor scatterElements(const Tensor& data, const Tensor& indices, const Tensor& updates, int axis,
                       const std::string& reduction = "none",
                       const std::string& name = "T_scatter_elements");
/// ONNX ScatterND in the same gather form: every output element scans all
/// index tuples (O(n * number of tuples)).
Tensor scatterND(const Tensor& data, const Tensor& indices, const Tensor& updates,
                 const std::string& reduction = "none", const std::string& name = "T_scatter_nd");
/// Einstein summation "ij,jk->ik" (implicit output: letters used once, in
/// alphabetical order); a repeated letter within an operand reads its
/// diagonal. No ellipsis.
Tensor einsum(const std::vector<Tensor>& xs, const std::string& subscripts,
              const std::string& name = "T_einsum");
/// bool results.
Tensor isnan(const Tensor& x, const std::string& name = "T_isnan");
Tensor isinf(const Tensor& x, bool detectPositive = true, bool detectNegative = true,
             const std::string& name = "T_isinf");

} // namespace unity::te::topi
