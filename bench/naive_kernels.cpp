#include "naive_kernels.h"

#include <algorithm>

namespace bench {

void naiveMatmul(const float* a, const float* b, float* c, int64_t n) {
  std::fill(c, c + n * n, 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      float aik = a[i * n + k];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += aik * b[k * n + j];
    }
}

void naiveConv3x3(const float* x, const float* w, float* y, int64_t c, int64_t hw, int64_t f) {
  std::fill(y, y + f * hw * hw, 0.0f);
  for (int64_t o = 0; o < f; ++o)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t ky = 0; ky < 3; ++ky)
        for (int64_t kx = 0; kx < 3; ++kx) {
          float wv = w[((o * c + ci) * 3 + ky) * 3 + kx];
          for (int64_t yy = 0; yy < hw; ++yy) {
            int64_t iy = yy + ky - 1;
            if (iy < 0 || iy >= hw)
              continue;
            int64_t x0 = std::max<int64_t>(0, 1 - kx), x1 = std::min<int64_t>(hw, hw + 1 - kx);
            const float* in = x + (ci * hw + iy) * hw + (kx - 1);
            float* out = y + (o * hw + yy) * hw;
            for (int64_t xx = x0; xx < x1; ++xx)
              out[xx] += wv * in[xx];
          }
        }
}

} // namespace bench
