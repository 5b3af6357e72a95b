#pragma once
// AlterConvLayout: 2-D convolutions whose weight is a constant get it
// packed at compile time with output channels innermost, in blocks of b
// (kernel layout "OIHW<b>o": [O / b, I, KH, KW, b]), where that form is the
// faster one on the function's target. LegalizeOps then writes them with
// topi::conv2dBlocked: the default schedule's register tile puts its vector
// lanes along output channels (b of them, whole vectors) and unrolls output
// columns, each broadcasting one input value — oneDNN's nChw16c direct
// convolution, but with NCHW data in and out. No lane is wasted whatever
// the image width, where the "wide" form (topi_nn.cpp) computes and drops
// the padded columns of every row (a 7x7 image: 49 of 64 lanes kept).
//
// A convolution is rewritten when (see alterConvLayoutChoice):
//  - data NCHW, kernel OIHW, groups 1, float32, the weight a constant, the
//    channel, kernel and image sizes constants (a symbolic image keeps the
//    symbolic wide form, built for it);
//  - the target vectorizes (lanes >= 4) and O is a multiple of the lanes;
//    b = 2 * lanes when O is a multiple of that (two vectors of output
//    channels per broadcast), else the lanes;
//  - a 1x1 kernel over fewer than policy.packed1x1MinChannels (64)
//    channels keeps the wide form, which measured as fast there;
//  - a kernel over fewer than policy.packedConvMinChannels channels keeps
//    it too: 0 on a machine with fast scatter stores (until session 11
//    every kernel over fewer than 16 channels was wide; the RGB stems then
//    measured faster packed on the Xeon since the weight slices and
//    prefetches: ResNet's 7x7/2 125-128 -> 150-155 and MobileNetV2's 3x3/2
//    64-66 -> 78-79 GFLOP/s in bench_kernels), 16 elsewhere (AMD Zen 4,
//    AVX2), where the packed tile's blocked-to-NCHW scatter costs more:
//    session 18 on the EPYC measured the stems 6-34 % faster wide alone
//    (within the drift in whole models);
//  - not a stride-1 convolution over an image at least 56 wide, where the
//    wide form wastes few lanes (56 of 58) and measured faster.
// Figures: docs/benchmarks.md, "Convolutions: output channels as lanes".
// The PassContext config "relax.alter_conv_layout" = false turns it off.
#include <cstdint>

#include "engine/support/tensor.h"
#include "engine/target/schedule_policy.h"
#include "engine/transform/pass.h"

namespace unity::transform {

/// The channel block b for a convolution of C input and O output channels,
/// a KH x KW kernel with stride `stride` (rows, columns) and an output
/// `OW` wide under `policy`; 0 to keep the OIHW layout.
int64_t alterConvLayoutChoice(int64_t C, int64_t O, int64_t KH, int64_t KW, int64_t strideH,
                              int64_t strideW, int64_t OW, const target::SchedulePolicy& policy);

/// An OIHW float32 weight [O, I, KH, KW] packed as [O / b, I, KH, KW, b]
/// (element (o, i, ky, kx) at [o / b, i, ky, kx, o % b]); O a multiple of b.
unity::Tensor packConvWeight(const unity::Tensor& w, int64_t b);

/// The pass over every graph function of m (see the file comment).
ir::IRModule alterConvLayout(const ir::IRModule& m, const ir::Attrs& config = {});
PassRef alterConvLayoutPass();

// AlterMatmulLayout: the same for a matmul whose rhs is a constant [K, N]
// matrix (every projection of a transformer, a classifier's weight): packed
// at compile time in column panels of V = maxTileVectors x vectorLanes
// (64 with AVX-512), [N / V, K, V], weight_layout "KN<V>n". LegalizeOps then
// writes topi::matmulPacked, whose register tile reads V contiguous floats
// per reduce step where the [K, N] matrix has them a whole row apart (and
// the next step's a row further on). Measured on BERT's FFN down projection
// (128 x 1024 x 256, the scheduled kernel with its weight packed, built
// alone): median 0.60-0.67 -> 0.46-0.49 ms warm, 0.93-1.05 -> 0.82-0.85 ms
// with the caches flushed. Packing per call at run time measured slower
// (the copy costs what it saves). Rewritten when: float32, the lhs of rank
// >= 2 with constant M >= 16 and K (a matrix-vector product keeps its
// column split), N a multiple of V, the target vectorizes. The PassContext
// config "relax.alter_matmul_layout" = false turns it off.

/// A float32 [K, N] matrix packed as [N / V, K, V]; N a multiple of V.
unity::Tensor packMatmulWeight(const unity::Tensor& w, int64_t V);
ir::IRModule alterMatmulLayout(const ir::IRModule& m, const ir::Attrs& config = {});
PassRef alterMatmulLayoutPass();

} // namespace unity::transform
