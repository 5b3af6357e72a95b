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

// WinogradConv: a 3x3 stride-1 convolution with a constant weight becomes
// nn.conv2d_winograd, Winograd's minimal filtering F(m x m, 3 x 3): the
// a*a (a = m + 2) points of each m x m output tile are a*a independent
// matrix products over the channels, [tiles, C] x [C, K], with the weight
// transformed at compile time (U = G g G^T, [a*a, C, K]); per output
// 9 / (m + 2)^2 * m^2 the multiplies of the direct convolution (F(4x4):
// 36 against 144, 4x fewer; F(2x2): 2.25x), plus the input and output
// transforms. Rewritten when (winogradConvChoice): float32 NCHW data and
// OIHW weight, groups 1, dilation 1, constant sizes, the policy's
// winogradTile m is 2 or 4 (0: off), C and K at least the vector lanes,
// and the output has at least policy.winogradMinTiles m x m tiles per
// image. It runs before AlterConvLayout, which packs what is left. The
// PassContext config "relax.winograd_conv" = false turns it off. Figures:
// docs/benchmarks.md, "Session 19".

/// m (2 or 4) of F(m x m, 3 x 3) for a convolution of C input and O output
/// channels, a KH x KW kernel, strides, dilations and an OH x OW output
/// under `policy`; 0 to keep the direct convolution. Throws unity::Error
/// when policy.winogradTile is not 0, 2 or 4.
int64_t winogradConvChoice(int64_t C, int64_t O, int64_t KH, int64_t KW, int64_t strideH,
                           int64_t strideW, int64_t dilationH, int64_t dilationW, int64_t OH,
                           int64_t OW, const target::SchedulePolicy& policy);

/// An OIHW float32 [K, C, 3, 3] weight transformed for F(m x m, 3 x 3):
/// [a*a, C, K], element [r * a + q, c, k] = (G g_kc G^T)[r, q] (computed in
/// double), a = m + 2.
unity::Tensor winogradWeight(const unity::Tensor& w, int64_t m);
/// B^T (a x a) over A^T (m x a) as one float32 [2a - 2, a] tensor, the
/// third operand of nn.conv2d_winograd.
unity::Tensor winogradMatrices(int64_t m);

ir::IRModule winogradConv(const ir::IRModule& m, const ir::Attrs& config = {});
PassRef winogradConvPass();

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
