#pragma once
// The "naive" peers of bench_kernels: plain loops a programmer writes first,
// compiled with -O3 -march=native (so the compiler vectorizes the contiguous
// innermost loop). Single-threaded.
#include <cstdint>

namespace bench {

/// c = a * b, n x n row-major, in i-k-j order (the innermost loop runs along
/// rows of b and c, which the compiler vectorizes).
void naiveMatmul(const float* a, const float* b, float* c, int64_t n);

/// y = conv2d(x, w), 1 x c x hw x hw input, f filters 3x3, stride 1, padding
/// 1, NCHW/OIHW; loops f, c, ky, kx, y, x with the bounds tests hoisted.
void naiveConv3x3(const float* x, const float* w, float* y, int64_t c, int64_t hw, int64_t f);

} // namespace bench
