// Reference implementations of the neural-network operators, each the
// textbook loop nest:
//  - matmul: numpy semantics (a 1-D operand is promoted and its axis
//    dropped again; batch axes broadcast), computed over the promoted
//    shapes and reshaped;
//  - convolutions: out[n, o, y, x] = sum_{c in group, ky, kx}
//    data[n, c, y*s - pad + ky*d, ...] * w[o, c, ky, kx], conv1d as conv2d
//    of height 1, conv3d as the same sum over any number of axes; the
//    transposed convolutions scatter every input element through the
//    kernel into the output;
//  - pooling (2-D and 3-D): windows at y*s - pad + k*d; max over the in-bounds elements,
//    average over the in-bounds elements or (count_include_pad) over the
//    window positions inside the padded input; adaptive pooling averages
//    rows [floor(i*H/OH), ceil((i+1)*H/OH));
//  - batch/layer norm, softmax, log_softmax in double.
// Output sizes follow the formulas in engine/op/ops_nn.cpp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/op/op.h"
#include "engine/runtime/reference.h"

namespace unity::runtime::reference {

namespace {

DataType outDType(const OpCall& c, const Tensor& x) {
  DataType o = c.attrDType("out_dtype");
  return o.isVoid() ? x.dtype() : o;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// ------------------------------------------------------------------ matmul

RefValue matmul(const OpCall& c) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  if (a.dtype() != b.dtype())
    c.fail("operand dtypes differ");
  if (a.ndim() == 0 || b.ndim() == 0)
    c.fail("operands must have rank >= 1");
  std::vector<int64_t> as = a.shape(), bs = b.shape();
  if (a.ndim() == 1)
    as.insert(as.begin(), 1);
  if (b.ndim() == 1)
    bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    c.fail("reduction dimensions differ: " + std::to_string(K) + " vs " +
           std::to_string(bs[bs.size() - 2]));
  std::vector<int64_t> abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
  std::vector<int64_t> batch = broadcastShape(c, abatch, bbatch);
  std::vector<int64_t> full = batch;
  full.push_back(M);
  full.push_back(N);
  Tensor out(outDType(c, a), full);
  for (int64_t f = 0; f < out.numel(); ++f) {
    auto idx = unravel(f, full);
    std::vector<int64_t> bi(idx.begin(), idx.end() - 2);
    int64_t i = idx[idx.size() - 2], j = idx.back();
    auto ai = broadcastIndex(bi, abatch), bj = broadcastIndex(bi, bbatch);
    ai.push_back(i);
    ai.push_back(0);
    bj.push_back(0);
    bj.push_back(j);
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      ai.back() = k;
      bj[bj.size() - 2] = k;
      acc += a.getDouble(ravel(ai, as)) * b.getDouble(ravel(bj, bs));
    }
    store(out, f, acc);
  }
  std::vector<int64_t> shape = batch;
  if (a.ndim() > 1)
    shape.push_back(M);
  if (b.ndim() > 1)
    shape.push_back(N);
  return out.reshaped(shape);
}

RefValue dense(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& w = c.tensor(1);
  if (w.ndim() != 2 || x.ndim() < 1)
    c.fail("needs data (..., in) and weight (out, in)");
  int64_t K = x.shape().back(), N = w.shape()[0];
  if (w.shape()[1] != K)
    c.fail("input units differ");
  const Tensor* bias = c.args.size() > 2 ? &c.tensor(2) : nullptr;
  if (bias && (bias->ndim() != 1 || bias->shape()[0] != N))
    c.fail("bias must be (out,)");
  std::vector<int64_t> shape = x.shape();
  shape.back() = N;
  Tensor out(outDType(c, x), shape);
  int64_t rows = x.numel() / std::max<int64_t>(K, 1);
  if (K == 0)
    rows = numelOf(shape) / std::max<int64_t>(N, 1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < N; ++n) {
      double acc = bias ? bias->getDouble(n) : 0.0;
      for (int64_t k = 0; k < K; ++k)
        acc += x.getDouble(r * K + k) * w.getDouble(n * K + k);
      store(out, r * N + n, acc);
    }
  return out;
}

// ------------------------------------------------------------- convolution

/// Spatial parameters of a window op over k axes, expanded the way the
/// registry documents: one value for all axes, or one per axis; padding 1,
/// k (symmetric) or 2k (all befores, then all afters) values.
struct Window {
  std::vector<int64_t> strides, dilation, before, after;
};

std::vector<int64_t> expand(const OpCall& c, const std::string& name, size_t k) {
  auto v = c.attrInts(name);
  if (v.size() == 1)
    v.assign(k, v[0]);
  if (v.size() != k)
    c.fail("attribute '" + name + "' needs 1 or " + std::to_string(k) + " values");
  for (int64_t x : v)
    if (x <= 0)
      c.fail("attribute '" + name + "' must be positive");
  return v;
}

Window window(const OpCall& c, size_t k) {
  Window w{expand(c, "strides", k), expand(c, "dilation", k), {}, {}};
  auto p = c.attrInts("padding");
  if (p.size() == 1)
    p.assign(2 * k, p[0]);
  else if (p.size() == k)
    p.insert(p.end(), p.begin(), p.end());
  if (p.size() != 2 * k)
    c.fail("attribute 'padding' needs 1, " + std::to_string(k) + " or " + std::to_string(2 * k) +
           " values");
  w.before.assign(p.begin(), p.begin() + k);
  w.after.assign(p.begin() + k, p.end());
  return w;
}

/// conv1d data/weight/window as the 2-D case with a height of 1.
Window to2d(const Window& w) {
  return {{1, w.strides[0]}, {1, w.dilation[0]}, {0, w.before[0]}, {0, w.after[0]}};
}
Tensor heightOne(const Tensor& t) {
  auto s = t.shape();
  s.insert(s.begin() + 2, 1);
  return t.reshaped(s);
}

Tensor conv2dNCHW(const OpCall& c, const Tensor& x, const Tensor& w, const Window& p,
                  int64_t groups, DataType dtype) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t O = w.shape()[0], Cg = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  if (groups <= 0 || Cg * groups != C)
    c.fail("input channels " + std::to_string(C) + " differ from weight in-channels * groups");
  if (O % groups != 0)
    c.fail("output channels are not divisible by groups");
  int64_t OH =
      floorDiv(H + p.before[0] + p.after[0] - p.dilation[0] * (KH - 1) - 1, p.strides[0]) + 1;
  int64_t OW =
      floorDiv(W + p.before[1] + p.after[1] - p.dilation[1] * (KW - 1) - 1, p.strides[1]) + 1;
  if (OH <= 0 || OW <= 0)
    c.fail("the window is larger than the padded input");
  int64_t Og = O / groups;
  Tensor out(dtype, {N, O, OH, OW});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          int64_t g = o / Og;
          double acc = 0;
          for (int64_t ic = 0; ic < Cg; ++ic)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = oy * p.strides[0] - p.before[0] + ky * p.dilation[0];
                int64_t ix = ox * p.strides[1] - p.before[1] + kx * p.dilation[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                  continue;
                acc += at(x, {n, g * Cg + ic, iy, ix}) * at(w, {o, ic, ky, kx});
              }
          store(out, ravel({n, o, oy, ox}, out.shape()), acc);
        }
  return out;
}

void checkLayouts(const OpCall& c, const std::string& data, const std::string& kernel,
                  const Tensor& x, const Tensor& w) {
  if (c.attrString("data_layout") != data || c.attrString("kernel_layout") != kernel)
    c.fail("only data_layout " + data + " and kernel_layout " + kernel + " are supported");
  if (x.ndim() != static_cast<int>(data.size()) || w.ndim() != static_cast<int>(kernel.size()))
    c.fail("data and weight must have rank " + std::to_string(data.size()));
  if (x.dtype() != w.dtype())
    c.fail("operand dtypes differ");
}

/// A packed "OIHW<b>o" weight [O/b, I, KH, KW, b] back in OIHW.
Tensor unpackKernel(const OpCall& c, const Tensor& w, int64_t b) {
  if (w.ndim() != 5 || w.shape()[4] != b)
    c.fail("a weight in kernel_layout OIHW" + std::to_string(b) + "o must be [O/" +
           std::to_string(b) + ", I, KH, KW, " + std::to_string(b) + "]");
  const auto& s = w.shape();
  Tensor out(w.dtype(), {s[0] * b, s[1], s[2], s[3]});
  int64_t taps = s[1] * s[2] * s[3];
  for (int64_t o = 0; o < s[0] * b; ++o)
    for (int64_t t = 0; t < taps; ++t)
      store(out, o * taps + t, at(w, {o / b, t / (s[2] * s[3]), t / s[3] % s[2], t % s[3], o % b}));
  return out;
}

RefValue conv2d(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  if (int64_t b = op::packedKernelBlock(c.attrString("kernel_layout"))) {
    if (c.attrString("data_layout") != "NCHW" || c.attrInt("groups") != 1)
      c.fail("a packed kernel layout needs data_layout NCHW and groups 1");
    Tensor w = unpackKernel(c, c.tensor(1), b);
    if (x.dtype() != w.dtype())
      c.fail("operand dtypes differ");
    return conv2dNCHW(c, x, w, window(c, 2), 1, outDType(c, x));
  }
  const Tensor& w = c.tensor(1);
  checkLayouts(c, "NCHW", "OIHW", x, w);
  return conv2dNCHW(c, x, w, window(c, 2), c.attrInt("groups"), outDType(c, x));
}

/// nn.conv2d_winograd by its definition, in double: per image, tile and
/// point e of the a x a transform, V = B^T d B per channel, M = sum_c V U,
/// the m x m outputs A^T M A (those inside the image).
RefValue conv2dWinograd(const OpCall& c) {
  const Tensor &x = c.tensor(0), &u = c.tensor(1), &t = c.tensor(2);
  if (x.ndim() != 4 || u.ndim() != 3 || t.ndim() != 2 || x.dtype() != u.dtype() ||
      x.dtype() != t.dtype())
    c.fail("needs NCHW data, a [a*a, C, K] weight and [2a - 2, a] matrices of one dtype");
  int64_t A = t.shape()[1], m = A - 2;
  if (A < 4 || t.shape()[0] != 2 * A - 2 || u.shape()[0] != A * A || u.shape()[1] != x.shape()[1])
    c.fail("the weight must be [a*a, C, K] and the matrices [2a - 2, a]");
  Window p{{1, 1}, {1, 1}, {}, {}};
  auto pads = c.attrInts("padding");
  if (pads.size() == 1)
    pads.assign(4, pads[0]);
  else if (pads.size() == 2)
    pads.insert(pads.end(), pads.begin(), pads.end());
  if (pads.size() != 4)
    c.fail("attribute 'padding' needs 1, 2 or 4 values");
  p.before = {pads[0], pads[1]};
  p.after = {pads[2], pads[3]};
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3], K = u.shape()[2];
  int64_t OH = H + p.before[0] + p.after[0] - 2, OW = W + p.before[1] + p.after[1] - 2;
  if (OH <= 0 || OW <= 0)
    c.fail("the window is larger than the padded input");
  auto T = [&](int64_t r, int64_t col) { return at(t, {r, col}); };
  Tensor out(x.dtype(), {N, K, OH, OW});
  std::vector<double> v(C * A * A), tmp(A * A), mk(A * A);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ty = 0; ty * m < OH; ++ty)
      for (int64_t tx = 0; tx * m < OW; ++tx) {
        for (int64_t ci = 0; ci < C; ++ci) {
          auto d = [&](int64_t i, int64_t j) {
            int64_t h = ty * m + i - p.before[0], w = tx * m + j - p.before[1];
            return h < 0 || h >= H || w < 0 || w >= W ? 0.0 : at(x, {n, ci, h, w});
          };
          for (int64_t r = 0; r < A; ++r)
            for (int64_t j = 0; j < A; ++j) {
              tmp[r * A + j] = 0;
              for (int64_t i = 0; i < A; ++i)
                tmp[r * A + j] += T(r, i) * d(i, j);
            }
          for (int64_t r = 0; r < A; ++r)
            for (int64_t q = 0; q < A; ++q) {
              double s = 0;
              for (int64_t j = 0; j < A; ++j)
                s += tmp[r * A + j] * T(q, j);
              v[ci * A * A + r * A + q] = s;
            }
        }
        for (int64_t k = 0; k < K; ++k) {
          for (int64_t e = 0; e < A * A; ++e) {
            mk[e] = 0;
            for (int64_t ci = 0; ci < C; ++ci)
              mk[e] += v[ci * A * A + e] * at(u, {e, ci, k});
          }
          for (int64_t y = 0; y < m && ty * m + y < OH; ++y)
            for (int64_t z = 0; z < m && tx * m + z < OW; ++z) {
              double s = 0;
              for (int64_t r = 0; r < A; ++r)
                for (int64_t q = 0; q < A; ++q)
                  s += T(A + y, r) * mk[r * A + q] * T(A + z, q);
              store(out, ravel({n, k, ty * m + y, tx * m + z}, out.shape()), s);
            }
        }
      }
  return out;
}

RefValue conv1d(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& w = c.tensor(1);
  checkLayouts(c, "NCW", "OIW", x, w);
  Tensor out = conv2dNCHW(c, heightOne(x), heightOne(w), to2d(window(c, 1)), c.attrInt("groups"),
                          outDType(c, x));
  auto s = out.shape();
  s.erase(s.begin() + 2);
  return out.reshaped(s);
}

RefValue conv2dTranspose(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& w = c.tensor(1);
  checkLayouts(c, "NCHW", "IOHW", x, w);
  Window p = window(c, 2);
  auto outPad = c.attrInts("output_padding");
  if (outPad.size() == 1)
    outPad.assign(2, outPad[0]);
  if (outPad.size() != 2)
    c.fail("attribute 'output_padding' needs 1 or 2 values");
  int64_t groups = c.attrInt("groups");
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t Og = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  if (groups <= 0 || w.shape()[0] != C || C % groups != 0)
    c.fail("input channels differ from weight dimension 0 or do not divide into groups");
  int64_t Cg = C / groups, O = Og * groups;
  int64_t OH =
      (H - 1) * p.strides[0] - p.before[0] - p.after[0] + p.dilation[0] * (KH - 1) + outPad[0] + 1;
  int64_t OW =
      (W - 1) * p.strides[1] - p.before[1] - p.after[1] + p.dilation[1] * (KW - 1) + outPad[1] + 1;
  if (OH <= 0 || OW <= 0)
    c.fail("output size is not positive");
  std::vector<double> acc(N * O * OH * OW, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci)
      for (int64_t iy = 0; iy < H; ++iy)
        for (int64_t ix = 0; ix < W; ++ix) {
          double v = at(x, {n, ci, iy, ix});
          int64_t g = ci / Cg;
          for (int64_t oc = 0; oc < Og; ++oc)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t oy = iy * p.strides[0] - p.before[0] + ky * p.dilation[0];
                int64_t ox = ix * p.strides[1] - p.before[1] + kx * p.dilation[1];
                if (oy < 0 || oy >= OH || ox < 0 || ox >= OW)
                  continue;
                acc[ravel({n, g * Og + oc, oy, ox}, {N, O, OH, OW})] += v * at(w, {ci, oc, ky, kx});
              }
        }
  Tensor out(outDType(c, x), {N, O, OH, OW});
  for (int64_t i = 0; i < out.numel(); ++i)
    store(out, i, acc[i]);
  return out;
}

/// Output extent of a sliding window (the formula of engine/op/ops_nn.cpp).
int64_t windowExtent(int64_t in, int64_t padSum, int64_t k, int64_t stride, int64_t dilation,
                     bool ceil) {
  int64_t num = in + padSum - (dilation * (k - 1) + 1);
  if (ceil)
    num += stride - 1;
  return floorDiv(num, stride) + 1;
}

/// Convolution over any number of spatial axes (used for 3-D): every output
/// element sums data[n, g * Cg + c, o * s - pad + k * d] * w[o, c, k] over the
/// in-bounds taps.
RefValue convNd(const OpCall& c, size_t k, const std::string& data, const std::string& kernel) {
  const Tensor& x = c.tensor(0);
  const Tensor& w = c.tensor(1);
  checkLayouts(c, data, kernel, x, w);
  Window p = window(c, k);
  int64_t groups = c.attrInt("groups");
  int64_t C = x.shape()[1], O = w.shape()[0], Cg = w.shape()[1];
  if (groups <= 0 || Cg * groups != C)
    c.fail("input channels " + std::to_string(C) + " differ from weight in-channels * groups");
  if (O % groups != 0)
    c.fail("output channels are not divisible by groups");
  std::vector<int64_t> outShape{x.shape()[0], O}, kShape(w.shape().begin() + 2, w.shape().end());
  for (size_t d = 0; d < k; ++d) {
    int64_t e = windowExtent(x.shape()[2 + d], p.before[d] + p.after[d], kShape[d], p.strides[d],
                             p.dilation[d], false);
    if (e <= 0)
      c.fail("the window is larger than the padded input");
    outShape.push_back(e);
  }
  Tensor out(outDType(c, x), outShape);
  int64_t taps = numelOf(kShape), Og = O / groups;
  for (int64_t f = 0; f < out.numel(); ++f) {
    auto o = unravel(f, outShape);
    int64_t g = o[1] / Og;
    double acc = 0;
    for (int64_t ic = 0; ic < Cg; ++ic)
      for (int64_t t = 0; t < taps; ++t) {
        auto kk = unravel(t, kShape);
        std::vector<int64_t> xi{o[0], g * Cg + ic}, wi{o[1], ic};
        bool inside = true;
        for (size_t d = 0; d < k && inside; ++d) {
          int64_t pos = o[2 + d] * p.strides[d] - p.before[d] + kk[d] * p.dilation[d];
          inside = pos >= 0 && pos < x.shape()[2 + d];
          xi.push_back(pos);
          wi.push_back(kk[d]);
        }
        if (inside)
          acc += at(x, xi) * at(w, wi);
      }
    store(out, f, acc);
  }
  return out;
}

/// Transposed convolution over any number of spatial axes (used for 3-D):
/// every input element scatters through the kernel into
/// out[n, g * Og + oc, i * s - pad + k * d].
RefValue convTransposeNd(const OpCall& c, size_t k, const std::string& data,
                         const std::string& kernel) {
  const Tensor& x = c.tensor(0);
  const Tensor& w = c.tensor(1);
  checkLayouts(c, data, kernel, x, w);
  Window p = window(c, k);
  auto outPad = c.attrInts("output_padding");
  if (outPad.size() == 1)
    outPad.assign(k, outPad[0]);
  if (outPad.size() != k)
    c.fail("attribute 'output_padding' needs 1 or " + std::to_string(k) + " values");
  int64_t groups = c.attrInt("groups");
  int64_t C = x.shape()[1], Og = w.shape()[1];
  if (groups <= 0 || w.shape()[0] != C || C % groups != 0)
    c.fail("input channels differ from weight dimension 0 or do not divide into groups");
  int64_t Cg = C / groups;
  std::vector<int64_t> outShape{x.shape()[0], Og * groups},
      kShape(w.shape().begin() + 2, w.shape().end());
  for (size_t d = 0; d < k; ++d) {
    int64_t e = (x.shape()[2 + d] - 1) * p.strides[d] - p.before[d] - p.after[d] +
                p.dilation[d] * (kShape[d] - 1) + outPad[d] + 1;
    if (e <= 0)
      c.fail("output size is not positive");
    outShape.push_back(e);
  }
  std::vector<double> acc(numelOf(outShape), 0.0);
  int64_t taps = numelOf(kShape);
  for (int64_t f = 0; f < x.numel(); ++f) {
    auto i = unravel(f, x.shape());
    double v = x.getDouble(f);
    int64_t g = i[1] / Cg;
    for (int64_t oc = 0; oc < Og; ++oc)
      for (int64_t t = 0; t < taps; ++t) {
        auto kk = unravel(t, kShape);
        std::vector<int64_t> oi{i[0], g * Og + oc}, wi{i[1], oc};
        bool inside = true;
        for (size_t d = 0; d < k && inside; ++d) {
          int64_t pos = i[2 + d] * p.strides[d] - p.before[d] + kk[d] * p.dilation[d];
          inside = pos >= 0 && pos < outShape[2 + d];
          oi.push_back(pos);
          wi.push_back(kk[d]);
        }
        if (inside)
          acc[ravel(oi, outShape)] += v * at(w, wi);
      }
  }
  Tensor out(outDType(c, x), outShape);
  for (int64_t f = 0; f < out.numel(); ++f)
    store(out, f, acc[f]);
  return out;
}

// ------------------------------------------------------------------ pooling

const Tensor& nchw(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  if (c.info.findAttr("layout") && c.attrString("layout") != "NCHW")
    c.fail("only layout NCHW is supported");
  if (x.ndim() != 4)
    c.fail("needs a 4-D NCHW tensor");
  return x;
}

/// Max or average pooling over k spatial axes (NCHW, NCDHW).
RefValue poolNd(const OpCall& c, size_t k, bool isMax) {
  const Tensor& x = c.tensor(0);
  std::string layout = k == 2 ? "NCHW" : "NCDHW";
  if (c.attrString("layout") != layout)
    c.fail("only layout " + layout + " is supported");
  if (x.ndim() != static_cast<int>(k) + 2)
    c.fail("needs a " + std::to_string(k + 2) + "-D " + layout + " tensor");
  Window p = window(c, k);
  auto ks = expand(c, "pool_size", k);
  bool ceil = c.attrBool("ceil_mode"), includePad = c.attrBool("count_include_pad");
  std::vector<int64_t> outShape{x.shape()[0], x.shape()[1]};
  for (size_t d = 0; d < k; ++d) {
    int64_t e = windowExtent(x.shape()[2 + d], p.before[d] + p.after[d], ks[d], p.strides[d],
                             p.dilation[d], ceil);
    if (e <= 0)
      c.fail("the window is larger than the padded input");
    outShape.push_back(e);
  }
  Tensor out(x.dtype(), outShape);
  int64_t taps = numelOf(ks);
  for (int64_t f = 0; f < out.numel(); ++f) {
    auto o = unravel(f, outShape);
    double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t inBounds = 0, inPadded = 0;
    for (int64_t t = 0; t < taps; ++t) {
      auto kk = unravel(t, ks);
      std::vector<int64_t> xi{o[0], o[1]};
      bool padded = true, inside = true;
      for (size_t d = 0; d < k; ++d) {
        int64_t pos = o[2 + d] * p.strides[d] - p.before[d] + kk[d] * p.dilation[d];
        int64_t n = x.shape()[2 + d];
        padded = padded && pos >= -p.before[d] && pos < n + p.after[d];
        inside = inside && pos >= 0 && pos < n;
        xi.push_back(pos);
      }
      inPadded += padded;
      if (!inside)
        continue;
      inBounds++;
      double v = at(x, xi);
      acc = isMax ? std::max(acc, v) : acc + v;
    }
    if (!isMax) {
      int64_t count = includePad ? inPadded : inBounds;
      acc = count ? acc / static_cast<double>(count) : 0.0;
    }
    store(out, f, acc);
  }
  return out;
}

RefValue adaptiveAvgPool2d(const OpCall& c, bool global) {
  const Tensor& x = nchw(c);
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t OH = global ? 1 : H, OW = global ? 1 : W;
  if (!global && c.hasAttr("output_size")) {
    auto s = expand(c, "output_size", 2);
    OH = s[0];
    OW = s[1];
  }
  Tensor out(x.dtype(), {N, C, OH, OW});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          int64_t y0 = oy * H / OH, y1 = ((oy + 1) * H + OH - 1) / OH;
          int64_t x0 = ox * W / OW, x1 = ((ox + 1) * W + OW - 1) / OW;
          double acc = 0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix)
              acc += at(x, {n, ch, iy, ix});
          int64_t count = (y1 - y0) * (x1 - x0);
          store(out, ravel({n, ch, oy, ox}, out.shape()), count ? acc / count : 0.0);
        }
  return out;
}

// ------------------------------------------------------------ normalization

RefValue batchNorm(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  int axis = c.axis(c.attrInt("axis"), x.ndim());
  int64_t C = x.shape()[axis];
  for (size_t i = 1; i < 5; ++i)
    if (c.tensor(i).ndim() != 1 || c.tensor(i).shape()[0] != C)
      c.fail("operand " + std::to_string(i) + " must have shape (" + std::to_string(C) + ",)");
  double eps = c.attrFloat("epsilon");
  bool center = c.attrBool("center"), scale = c.attrBool("scale");
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t ch = unravel(i, x.shape())[axis];
    double v =
        (x.getDouble(i) - c.tensor(3).getDouble(ch)) / std::sqrt(c.tensor(4).getDouble(ch) + eps);
    if (scale)
      v *= c.tensor(1).getDouble(ch);
    if (center)
      v += c.tensor(2).getDouble(ch);
    store(out, i, v);
  }
  return out;
}

RefValue layerNorm(const OpCall& c) {
  const Tensor& x = c.tensor(0);
  const Tensor& gamma = c.tensor(1);
  const Tensor& beta = c.tensor(2);
  auto given = c.attrInts("axes");
  if (given.empty())
    c.fail("attribute 'axes' must not be empty");
  std::vector<int> axes;
  std::vector<bool> red(x.ndim(), false);
  for (int64_t a : given) {
    int n = c.axis(a, x.ndim());
    if (red[n])
      c.fail("axis " + std::to_string(a) + " is repeated");
    red[n] = true;
    axes.push_back(n);
  }
  std::vector<int64_t> pshape;
  for (int a : axes)
    pshape.push_back(x.shape()[a]);
  if (gamma.shape() != pshape || beta.shape() != pshape)
    c.fail("gamma and beta must have shape " + Tensor::shapeStr(pshape));
  // Group elements by their non-normalized index.
  std::vector<int64_t> groupShape;
  for (int d = 0; d < x.ndim(); ++d)
    groupShape.push_back(red[d] ? 1 : x.shape()[d]);
  int64_t G = numelOf(groupShape);
  std::vector<double> sum(G, 0), sq(G, 0);
  std::vector<int64_t> cnt(G, 0);
  auto groupOf = [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> g = idx;
    for (int d = 0; d < x.ndim(); ++d)
      if (red[d])
        g[d] = 0;
    return ravel(g, groupShape);
  };
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t g = groupOf(unravel(i, x.shape()));
    sum[g] += x.getDouble(i);
    cnt[g]++;
  }
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t g = groupOf(unravel(i, x.shape()));
    double d = x.getDouble(i) - sum[g] / cnt[g];
    sq[g] += d * d;
  }
  double eps = c.attrFloat("epsilon");
  bool center = c.attrBool("center"), scale = c.attrBool("scale");
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.shape());
    int64_t g = groupOf(idx);
    std::vector<int64_t> pidx;
    for (int a : axes)
      pidx.push_back(idx[a]);
    double v = (x.getDouble(i) - sum[g] / cnt[g]) / std::sqrt(sq[g] / cnt[g] + eps);
    if (scale)
      v *= at(gamma, pidx);
    if (center)
      v += at(beta, pidx);
    store(out, i, v);
  }
  return out;
}

RefValue softmax(const OpCall& c, bool log) {
  const Tensor& x = c.tensor(0);
  if (!x.dtype().isFloat())
    c.fail("requires a float tensor");
  if (x.ndim() == 0)
    c.fail("needs a tensor of rank >= 1");
  int axis = c.axis(c.attrInt("axis"), x.ndim());
  int64_t L = x.shape()[axis];
  int64_t stride = stridesOf(x.shape())[axis];
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (unravel(i, x.shape())[axis] != 0)
      continue; // i is the start of one row along the axis
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < L; ++k)
      mx = std::max(mx, x.getDouble(i + k * stride));
    double sum = 0;
    for (int64_t k = 0; k < L; ++k)
      sum += std::exp(x.getDouble(i + k * stride) - mx);
    for (int64_t k = 0; k < L; ++k) {
      double v = x.getDouble(i + k * stride) - mx;
      store(out, i + k * stride, log ? v - std::log(sum) : std::exp(v) / sum);
    }
  }
  return out;
}

} // namespace

void addNNOps(OpTable& t) {
  t["matmul"] = matmul;
  t["nn.dense"] = dense;
  t["linear"] = dense;
  t["nn.conv1d"] = conv1d;
  t["nn.conv2d"] = conv2d;
  t["nn.conv2d_winograd"] = conv2dWinograd;
  t["nn.conv2d_transpose"] = conv2dTranspose;
  t["nn.conv3d"] = [](const OpCall& c) { return convNd(c, 3, "NCDHW", "OIDHW"); };
  t["nn.conv3d_transpose"] = [](const OpCall& c) {
    return convTransposeNd(c, 3, "NCDHW", "IODHW");
  };
  t["nn.max_pool2d"] = [](const OpCall& c) { return poolNd(c, 2, true); };
  t["nn.avg_pool2d"] = [](const OpCall& c) { return poolNd(c, 2, false); };
  t["nn.max_pool3d"] = [](const OpCall& c) { return poolNd(c, 3, true); };
  t["nn.avg_pool3d"] = [](const OpCall& c) { return poolNd(c, 3, false); };
  t["nn.adaptive_avg_pool2d"] = [](const OpCall& c) { return adaptiveAvgPool2d(c, false); };
  t["nn.global_avg_pool2d"] = [](const OpCall& c) { return adaptiveAvgPool2d(c, true); };
  t["nn.batch_norm"] = batchNorm;
  t["nn.layer_norm"] = layerNorm;
  t["nn.softmax"] = [](const OpCall& c) { return softmax(c, false); };
  t["nn.log_softmax"] = [](const OpCall& c) { return softmax(c, true); };
}

} // namespace unity::runtime::reference
