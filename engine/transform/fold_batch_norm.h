#pragma once
// FoldBatchNorm: an inference batch norm over the channels of a 2-D
// convolution whose weight and norm parameters are constants is folded into
// the convolution, as ONNX Runtime's Conv+BatchNormalization fusion and
// TVM's SimplifyInference + FoldScaleAxis do:
//
//   y = batch_norm(conv2d(x, W), gamma, beta, mean, var)
//     = conv2d(x, W * s[o]) + (beta - mean * s)[o],  s = gamma / sqrt(var + eps)
//
// The convolution must be NCHW with an OIHW weight (any groups), float32,
// and its result used by the batch norm alone (axis 1); the norm's four
// parameters float32 constants of shape [O]. The rewritten binding is an
// `add` of a [1, O, 1, 1] constant, which the fused kernel's epilogue
// applies: instead of a subtraction, two multiplications and an addition
// per output (and a division and a square root per channel) it does one
// addition. Why it pays: MobileNetV2's convolutions mostly sum 9 to 32
// products per output, so the old epilogue was a quarter to a third of
// their arithmetic (figures: docs/benchmarks.md, Session 11).
//
// The values move by float rounding only (the scale is computed in double).
// Runs after FoldConstant (which makes the parameters constants) and before
// AlterConvLayout (which packs the folded weight). The PassContext config
// "relax.fold_batch_norm" = false turns it off.
#include "engine/transform/pass.h"

namespace unity::transform {

ir::IRModule foldBatchNorm(const ir::IRModule& m, const ir::Attrs& config = {});
PassRef foldBatchNormPass();

} // namespace unity::transform
