// Matrix products, convolutions and pooling.
//
// Convolutions follow TVM's topi: the input is padded into an intermediate
// "pad_temp" (only when there is padding), then one reduction over input
// channels (per group) and kernel taps reads it at
// y * stride + ky * dilation. Output extents are
// (in + pad_begin + pad_end - dilation * (k - 1) - 1) floordiv stride + 1,
// simplified so constant shapes stay constants.
//
// A large 2-D convolution whose channel, image and kernel sizes are
// constants (any batch, stride, dilation or groups), with at least 27
// products per output (a 3x3 kernel over 3 channels, so the RGB stem is
// included: its 27 products already pay for the flattening copy; or a 1x1
// kernel over at least 24 channels) and at least 16 output positions, is
// written in the "wide" form instead: the padded image of each channel is
// split into stride phases and each phase flattened to one row ("pad_flat",
// row width Wq = ceil(Wp / stride)), the reduction runs over flat positions
// p = y * Wq + x ("<name>_wide"), where tap (ky, kx) reads one contiguous
// run p + offset(ky, kx), and a copy keeps the positions with x < OW. The Wq - OW extra columns per
// row are computed and dropped; in exchange the position loop splits into whole vectors whatever
// the image width (14, 28, 56 in ResNet) or stride, which the default schedule's register tile
// needs. A 1x1 kernel keeps a single reduce loop (a matmul over channels). Same values, same output
// as the direct form. A 1x1 stride-1 unpadded kernel over an image of 3 or 4 whole vectors'
// multiple (MobileNet's 112x112 and 56x56 pointwise layers) reads the input itself at p = y * W +
// x, without the copy. Depthwise convolutions (one input channel per group, 9 products per output)
// do not take it — the flattening copy would cost more than the taps; with constant shapes they
// have no channel reduction; a strided width reads the image directly, a stride only in height a
// copy split into row phases (conv2dDepthwise).
//
// With a symbolic image height or width (channels and kernel constant:
// exported detectors and recognizers), every ungrouped convolution with
// 27 products per output or a 1x1 kernel takes the wide form with symbolic
// rows (conv2dWideSymbolic): the direct form would leave a partial vector
// at the end of every image row, which at the small widths of deep layers
// is most of the row.
//
// The transposed convolution is written directly as a gather: output y
// receives input iy when y + pad_begin - ky * dilation == iy * stride, a
// Select with a clamped index. With the stride equal to the kernel and no
// padding, dilation or output padding each output receives one tap, and it
// is a 1x1 convolution over KH * KW * O channels followed by a
// depth-to-space shuffle (conv2dTranspose).
#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

namespace {

// The wide convolution form pays for its extra stages only when each output
// sums many products over a sizeable image.
constexpr int64_t kWideMinReduction = 27;
constexpr int64_t kWideMinArea = 16; // output positions
// 1x1 kernels: below about 24 input channels the flattening copy costs more
// than the tile saves (docs/benchmarks.md, "Strided and 1x1 convolutions,
// accumulator tiles").
constexpr int64_t kWideMinPointwise = 24;
// Positions per block of the symbolic wide form (conv2dWideSymbolic): two
// AVX-512 vectors, four AVX2 ones.
constexpr int64_t kSymbolicWideBlock = 32;

void checkSameDim(const PrimExpr& a, const PrimExpr& b, const std::string& op,
                  const std::string& what) {
  auto ca = asConstInt(a), cb = asConstInt(b);
  if (ca && cb && *ca != *cb)
    fail(op, what + " differ: " + std::to_string(*ca) + " vs " + std::to_string(*cb));
  // A constant against a symbolic dim is accepted (the symbol is assumed equal).
  if (!ca && !cb && !arith::provablyEqual(a, b))
    fail(op, what + " are unrelated symbolic dims");
}

/// The index into a tensor with batch dims `shape` (right-aligned within the
/// output's batch index), broadcasting dims of constant size 1.
std::vector<PrimExpr> batchIndex(const std::vector<PrimExpr>& shape,
                                 const std::vector<PrimExpr>& outBatch) {
  std::vector<PrimExpr> idx;
  size_t offset = outBatch.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    idx.push_back(isConstInt(shape[d], 1) ? intImm(0, outBatch[offset + d]->dtype)
                                          : outBatch[offset + d]);
  return idx;
}

std::vector<int64_t> expandPadding(std::vector<int64_t> p, size_t spatial, const std::string& op) {
  if (p.size() == spatial)
    p.insert(p.end(), p.begin(), p.end());
  if (p.size() != 2 * spatial)
    fail(op, "padding needs " + std::to_string(spatial) + " or " + std::to_string(2 * spatial) +
                 " values");
  for (int64_t v : p)
    if (v < 0)
      fail(op, "negative padding " + std::to_string(v));
  return p;
}

void requirePositive(const std::vector<int64_t>& v, size_t n, const std::string& op,
                     const char* what) {
  if (v.size() != n)
    fail(op, std::string(what) + " needs " + std::to_string(n) + " values");
  for (int64_t x : v)
    if (x < 1)
      fail(op, std::string(what) + " must be positive, got " + std::to_string(x));
}

PrimExpr outExtent(const PrimExpr& in, int64_t padBegin, int64_t padEnd, int64_t dilation,
                   const PrimExpr& k, int64_t stride, const std::string& op) {
  PrimExpr e = simp(floordiv(in + (padBegin + padEnd) - dilation * (k - 1) - 1, i64(stride)) + 1);
  if (auto c = asConstInt(e); c && *c < 1)
    fail(op, "the output would be empty (extent " + std::to_string(*c) + ")");
  return e;
}

/// data[n, c, h, w] of the zero-padded NCHW image: 0 where (h, w) lies
/// outside the image (the index clamped so the read stays in bounds).
PrimExpr paddedRead(const Tensor& data, const PrimExpr& n, const PrimExpr& c, const PrimExpr& h,
                    const PrimExpr& w) {
  const PrimExpr &H = data.shape()[2], &W = data.shape()[3];
  PrimExpr ok =
      logicalAnd(logicalAnd(ge(h, i64(0)), lt(h, H)), logicalAnd(ge(w, i64(0)), lt(w, W)));
  return select(ok, data({n, c, clampIndex(h, H), clampIndex(w, W)}), cst(data.dtype(), 0.0));
}

/// The reduce axes of a 2-D convolution: the input channels of a group,
/// then the kernel rows and columns unless the kernel is 1x1.
std::vector<ReduceAxis> convAxes(const Tensor& weight) {
  std::vector<ReduceAxis> axes{reduceAxis(weight.shape()[1], "rc")};
  if (!isConstInt(weight.shape()[2], 1) || !isConstInt(weight.shape()[3], 1)) {
    axes.push_back(reduceAxis(weight.shape()[2], "ry"));
    axes.push_back(reduceAxis(weight.shape()[3], "rx"));
  }
  return axes;
}

/// 2-D convolution with constant channel, image and kernel sizes over the
/// padded image flattened per channel and split into stride phases ("wide"
/// form, see the file comment). With strides (sh, sw) the padded image of
/// each channel is cut into phases (a, b): phase[i, j] = padded[a + i*sh,
/// b + j*sw], each Hq x Wq (Wq = ceil(Wp / sw)) and flattened to Q floats:
///   flat[n, c, (a*PW + b)*Q + i*Wq + j] = padded(data)[n, c, a + i*sh, b + j*sw]
///   wide[n, o, p] = sum flat[n, c(o), tap(ky, kx) + p] * weight[o, c, ky, kx]
///     tap(ky, kx) = ((ky*dy % sh)*PW + kx*dx % sw)*Q + (ky*dy / sh)*Wq + kx*dx / sw
///   out[n, o, y, x] = wide[n, o, y * Wq + x]
/// since output (y, x) reads padded row y*sh + ky*dy = (ky*dy % sh) +
/// (y + ky*dy / sh)*sh, i.e. phase row y + ky*dy / sh. Every tap reads one
/// contiguous run of p; with stride 1 there is one phase and this is the
/// plain flattened image. Only the phases some tap reads are stored (PH x PW:
/// a 1x1 stride-2 convolution keeps one). Positions p with p % Wq >= OW are
/// computed and dropped; P is rounded up to whole vectors (a multiple of 32,
/// of 192 = lcm(48, 64) past 2048 positions, so the register tile can take
/// 3 or 4 vectors). c(o) is rc, or (o / (O/g)) * C/g + rc with groups. A 1x1
/// kernel has no tap loops: one reduction over channels, a matmul.
Tensor conv2dWide(const Tensor& data, const Tensor& weight, const std::vector<int64_t>& pad,
                  const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                  int64_t groups, const std::string& name) {
  int64_t H = *asConstInt(data.shape()[2]), W = *asConstInt(data.shape()[3]);
  int64_t KH = *asConstInt(weight.shape()[2]), KW = *asConstInt(weight.shape()[3]);
  int64_t sh = strides[0], sw = strides[1], dh = dilation[0], dw = dilation[1];
  int64_t Hp = H + pad[0] + pad[2], Wp = W + pad[1] + pad[3];
  int64_t OH = (Hp - dh * (KH - 1) - 1) / sh + 1, OW = (Wp - dw * (KW - 1) - 1) / sw + 1;
  // Phases some tap reads: with dilation 1 the first min(K, s); otherwise
  // (taps ky*d % s in any order) all s of them.
  int64_t PH = dh == 1 ? std::min(KH, sh) : sh, PW = dw == 1 ? std::min(KW, sw) : sw;
  int64_t Wq = (Wp + sw - 1) / sw;
  int64_t P = (OH - 1) * Wq + OW;
  // A 1x1 stride-1 unpadded kernel whose image splits into register tiles
  // of 3 or 4 whole vectors (112x112, 56x56 in MobileNet) reads the image
  // itself: its flat position is already y * W + x, so the copy into
  // pad_flat (a read and a write of the whole input) is left out.
  bool direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && pad[0] == 0 && pad[1] == 0 &&
                pad[2] == 0 && pad[3] == 0 && (P % 64 == 0 || P % 48 == 0);
  if (!direct)
    P = P > 2048 ? (P + 191) / 192 * 192 : (P + 31) / 32 * 32;
  // Each phase holds whole rows (Q a multiple of Wq): flat index i = R * Wq
  // + j with R = phase * Hr + row, so the copy's loop splits by Wq into a
  // row loop and a column loop where the column j enters the read only as
  // an affine term (contiguous loads with stride 1) and the divisions stay
  // on the row loop (DefaultSchedule's scheduleSpatial).
  int64_t Hr = (P + (dh * (KH - 1) / sh) * Wq + dw * (KW - 1) / sw + Wq - 1) / Wq;
  int64_t Q = Hr * Wq;
  std::optional<Tensor> flat;
  if (!direct)
    flat = compute(
        {data.shape()[0], data.shape()[1], i64(PH * PW * Q)},
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr r = floordiv(i[2], i64(Wq)), a = i64(0), b = i64(0);
          if (PH * PW > 1) {
            PrimExpr ph = floordiv(r, i64(Hr));
            r = floormod(r, i64(Hr));
            a = PW > 1 ? floordiv(ph, i64(PW)) : ph;
            b = PW > 1 ? floormod(ph, i64(PW)) : i64(0);
          }
          PrimExpr h = simp(a + r * sh - pad[0]);
          PrimExpr w = simp(b + floormod(i[2], i64(Wq)) * sw - pad[1]);
          return paddedRead(data, i[0], i[1], h, w);
        },
        "pad_flat");
  const PrimExpr& Cg = weight.shape()[1];
  PrimExpr outPerGroup = simp(floordiv(weight.shape()[0], i64(groups)));
  std::vector<ReduceAxis> axes = convAxes(weight);
  const ReduceAxis& rc = axes[0];
  /// The flat offset of one kernel coordinate k (dilation d, stride s) in
  /// phase units: (k*d % s) phases and (k*d / s) rows/columns.
  auto split = [](const PrimExpr& k, int64_t d, int64_t s) {
    PrimExpr kd = k * d;
    if (s == 1)
      return std::pair<PrimExpr, PrimExpr>{i64(0), kd};
    return std::pair<PrimExpr, PrimExpr>{floormod(kd, i64(s)), floordiv(kd, i64(s))};
  };
  Tensor wide = compute(
      {data.shape()[0], weight.shape()[0], i64(P)},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr channel =
            groups == 1 ? PrimExpr(rc.var) : floordiv(i[1], outPerGroup) * Cg + rc.var;
        if (direct)
          return te::sum(data({i[0], channel, floordiv(i[2], i64(W)), floormod(i[2], i64(W))}) *
                             weight({i[1], rc.var, i64(0), i64(0)}),
                         {rc});
        if (KH * KW == 1)
          return te::sum((*flat)({i[0], channel, i[2]}) * weight({i[1], rc.var, i64(0), i64(0)}),
                         {rc});
        const PrimExpr &ky = axes[1].var, &kx = axes[2].var;
        auto [ay, oy] = split(ky, dh, sh);
        auto [ax, ox] = split(kx, dw, sw);
        PrimExpr q = i[2] + oy * Wq + ox;
        if (PH * PW > 1)
          q = q + (ay * PW + ax) * Q;
        return te::sum((*flat)({i[0], channel, q}) * weight({i[1], rc.var, ky, kx}), axes);
      },
      name + "_wide");
  return compute(
      {data.shape()[0], weight.shape()[0], i64(OH), i64(OW)},
      [&](const std::vector<PrimExpr>& i) {
        return wide({i[0], i[1], i[2] * Wq + i[3]});
      },
      name);
}

/// The wide form with a symbolic image height or width (channels and kernel
/// constant): the same flat positions p = y * Wq + x, with Wq, the row
/// count and P symbolic expressions of H and W. Each stride phase of the
/// padded image is stored as Hr rows of Wq columns in its own dimensions,
///   flat[n, c, (phase,) r, j] = padded(data)[n, c, a + r*sh, b + j*sw]
/// (rows past the image are zero), so the copy's inner loop runs along j
/// with no division, and the reduction reads it at flat position q:
///   flat[n, c, (phase,) q / Wq, q % Wq],  q = p + (ky*dy / sh)*Wq + kx*dx / sw
/// which FlattenBuffers turns back into the plain offset q (the pair
/// (q / D, q % D) over a last dimension of extent D addresses element q of
/// the two dimensions flattened). The positions are cut into blocks of
/// kSymbolicWideBlock (P rounded up to whole blocks) and the products
/// stored block-major, wide[n, p / B, o, p % B]: the default schedule's
/// register tile (U output channels by the B positions of one block)
/// then has rows a constant B floats apart, which LLVM keeps in registers
/// across the reduction; with wide[n, o, p] the rows would be a symbolic
/// P apart, rows LLVM cannot prove distinct, and every multiply-add would
/// load and store its accumulator.
Tensor conv2dWideSymbolic(const Tensor& data, const Tensor& weight, const std::vector<int64_t>& pad,
                          const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                          int64_t groups, const std::string& name) {
  constexpr int64_t kBlock = kSymbolicWideBlock;
  int64_t KH = *asConstInt(weight.shape()[2]), KW = *asConstInt(weight.shape()[3]);
  int64_t sh = strides[0], sw = strides[1], dh = dilation[0], dw = dilation[1];
  const PrimExpr &H = data.shape()[2], &W = data.shape()[3];
  PrimExpr OH = outExtent(H, pad[0], pad[2], dh, weight.shape()[2], sh, name);
  PrimExpr OW = outExtent(W, pad[1], pad[3], dw, weight.shape()[3], sw, name);
  PrimExpr Wp = simp(W + (pad[1] + pad[3]));
  int64_t PH = dh == 1 ? std::min(KH, sh) : sh, PW = dw == 1 ? std::min(KW, sw) : sw;
  PrimExpr Wq = sw == 1 ? Wp : simp(floordiv(Wp + (sw - 1), i64(sw)));
  PrimExpr blocks = simp(floordiv((OH - 1) * Wq + OW + (kBlock - 1), i64(kBlock)));
  int64_t rowOff = dh * (KH - 1) / sh, colOff = dw * (KW - 1) / sw;
  // Rows per phase: every position p < blocks * B with every tap's offset.
  PrimExpr Hr = simp(floordiv(blocks * kBlock + rowOff * Wq + (colOff + Wq - 1), Wq));
  bool phased = PH * PW > 1;
  std::vector<PrimExpr> flatShape{data.shape()[0], data.shape()[1]};
  if (phased)
    flatShape.push_back(i64(PH * PW));
  flatShape.push_back(Hr);
  flatShape.push_back(Wq);
  Tensor flat = compute(
      flatShape,
      [&](const std::vector<PrimExpr>& i) {
        size_t r = phased ? 3 : 2;
        PrimExpr a = i64(0), b = i64(0);
        if (phased) {
          a = PW > 1 ? floordiv(i[2], i64(PW)) : i[2];
          b = PW > 1 ? floormod(i[2], i64(PW)) : i64(0);
        }
        PrimExpr h = simp(a + i[r] * sh - pad[0]);
        PrimExpr w = simp(b + i[r + 1] * sw - pad[1]);
        return paddedRead(data, i[0], i[1], h, w);
      },
      "pad_flat");
  const PrimExpr& Cg = weight.shape()[1];
  PrimExpr outPerGroup = simp(floordiv(weight.shape()[0], i64(groups)));
  std::vector<ReduceAxis> axes = convAxes(weight);
  const ReduceAxis& rc = axes[0];
  // wide[n, t, o, l]: position p = t * B + l of output channel o.
  Tensor wide = compute(
      {data.shape()[0], blocks, weight.shape()[0], i64(kBlock)},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr channel =
            groups == 1 ? PrimExpr(rc.var) : floordiv(i[2], outPerGroup) * Cg + rc.var;
        PrimExpr q = i[1] * kBlock + i[3];
        std::vector<PrimExpr> idx{i[0], channel};
        std::vector<PrimExpr> wi{i[2], rc.var, i64(0), i64(0)};
        if (KH * KW > 1) {
          const PrimExpr &ky = axes[1].var, &kx = axes[2].var;
          PrimExpr kyd = ky * dh, kxd = kx * dw;
          PrimExpr oy = sh > 1 ? floordiv(kyd, i64(sh)) : kyd;
          PrimExpr ox = sw > 1 ? floordiv(kxd, i64(sw)) : kxd;
          q = q + oy * Wq + ox;
          if (phased) {
            PrimExpr ay = sh > 1 ? floormod(kyd, i64(sh)) : i64(0);
            PrimExpr ax = sw > 1 ? floormod(kxd, i64(sw)) : i64(0);
            idx.push_back(ay * PW + ax);
          }
          wi = {i[2], rc.var, ky, kx};
        } else if (phased) {
          idx.push_back(i64(0));
        }
        idx.push_back(floordiv(q, Wq));
        idx.push_back(floormod(q, Wq));
        return te::sum(flat(idx) * weight(wi), axes);
      },
      name + "_wide");
  return compute(
      {data.shape()[0], weight.shape()[0], OH, OW},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr p = i[2] * Wq + i[3];
        return wide({i[0], floordiv(p, i64(kBlock)), i[1], floormod(p, i64(kBlock))});
      },
      name);
}

/// Depthwise 2-D convolution (one input channel per group, constant
/// channel, image and kernel sizes): no channel reduction, the taps ky, kx
/// are the only reduce loops (the default schedule unrolls them). Stride 1
/// reads a padded copy of the image. Where the width is strided (sw > 1)
/// the taps read the image itself, the padding a bounds test in the read
/// (PartitionLoops takes the test out of the interior):
///   out[n, o, y, x] = sum padded(data)[n, c(o), y*sh + ky*dh, x*sw + kx*dw] * weight[o, 0, ky, kx]
/// Where only the height is strided the padded image is stored split into
/// row phases, whose whole rows keep the vector loop free of bounds tests:
///   phase[n, c, a, i, j] = padded(data)[n, c, a + i*sh, j]
///   out[n, o, y, x] = sum phase[n, c(o), ky*dh % sh, y + ky*dh / sh,
///                               x + kx*dw] * weight[o, 0, ky, kx]
/// The choice was measured (Xeon, one thread, interleaved): the phase copy
/// of a strided width costs a pass over the image that the strided reads
/// do not, and the direct read took MobileNetV2's four stride-2 layers from
/// 0.65-0.70 / 0.21 / 0.063 / 0.080 ms to 0.25-0.26 / 0.09 / 0.037-0.040 /
/// 0.056 ms (the model 7.8-8.5 -> 7.1-7.4 ms); reading the image directly
/// for a stride only in height, as PaddleOCR's (2, 1) layers have, made its
/// classifier 35 % slower (0.83-0.87 -> 1.13-1.22 ms), while sw > 1 left it
/// and the detector and recognizer unchanged.
/// c(o) = o / (O / groups).
Tensor conv2dDepthwise(const Tensor& data, const Tensor& weight, const std::vector<int64_t>& pad,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                       int64_t groups, const std::string& name) {
  int64_t H = *asConstInt(data.shape()[2]), W = *asConstInt(data.shape()[3]);
  int64_t KH = *asConstInt(weight.shape()[2]), KW = *asConstInt(weight.shape()[3]);
  int64_t sh = strides[0], sw = strides[1], dh = dilation[0], dw = dilation[1];
  int64_t Hp = H + pad[0] + pad[2], Wp = W + pad[1] + pad[3];
  int64_t OH = (Hp - dh * (KH - 1) - 1) / sh + 1, OW = (Wp - dw * (KW - 1) - 1) / sw + 1;
  int64_t PH = dh == 1 ? std::min(KH, sh) : sh, Hq = (Hp + sh - 1) / sh;
  bool direct = sw > 1;
  bool phased = !direct && sh > 1;
  bool anyPad = pad[0] || pad[1] || pad[2] || pad[3];
  Tensor in = data;
  if (direct) {
    // The taps read data through paddedRead below.
  } else if (phased) {
    in = compute(
        {data.shape()[0], data.shape()[1], i64(PH), i64(Hq), i64(Wp)},
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr h = simp(i[2] + i[3] * sh - pad[0]), w = simp(i[4] - pad[1]);
          return paddedRead(data, i[0], i[1], h, w);
        },
        "pad_phase");
  } else if (anyPad) {
    in = topi::pad(data, {0, 0, pad[0], pad[1]}, {0, 0, pad[2], pad[3]}, 0.0, "pad_temp");
  }
  ReduceAxis ry = reduceAxis(weight.shape()[2], "ry"), rx = reduceAxis(weight.shape()[3], "rx");
  PrimExpr outPerGroup = simp(floordiv(weight.shape()[0], i64(groups)));
  return compute(
      {data.shape()[0], weight.shape()[0], i64(OH), i64(OW)},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr channel = simp(floordiv(i[1], outPerGroup));
        PrimExpr w = weight({i[1], i64(0), ry.var, rx.var});
        if (direct) {
          PrimExpr h = simp(i[2] * sh + ry.var * dh - pad[0]);
          PrimExpr x = simp(i[3] * sw + rx.var * dw - pad[1]);
          return te::sum(paddedRead(data, i[0], channel, h, x) * w, {ry, rx});
        }
        if (!phased)
          return te::sum(in({i[0], channel, i[2] + ry.var * dh, i[3] + rx.var * dw}) * w, {ry, rx});
        PrimExpr kyd = ry.var * dh;
        return te::sum(in({i[0], channel, floormod(kyd, i64(sh)), i[2] + floordiv(kyd, i64(sh)),
                           i[3] + rx.var * dw}) *
                           w,
                       {ry, rx});
      },
      name);
}

/// Spatial convolution over the trailing `s` dims: data [N, C, *S], weight [O, C/g, *K].
Tensor convNd(const Tensor& data, const Tensor& weight, size_t s, std::vector<int64_t> strides,
              std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups,
              const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(weight, name, "weight");
  if (data.ndim() != int(2 + s) || weight.ndim() != int(2 + s))
    fail(name, "expects rank-" + std::to_string(2 + s) + " data and weight, got " +
                   shapeStr(data.shape()) + " and " + shapeStr(weight.shape()));
  if (!(data.dtype() == weight.dtype()))
    fail(name, "data and weight dtypes differ");
  requirePositive(strides, s, name, "strides");
  requirePositive(dilation, s, name, "dilation");
  padding = expandPadding(padding, s, name);
  if (groups < 1)
    fail(name, "groups must be positive");
  const PrimExpr &C = data.shape()[1], &O = weight.shape()[0], &Cg = weight.shape()[1];
  checkSameDim(C, simp(Cg * groups), name, "input channels and weight channels * groups");
  if (auto o = asConstInt(O); o && *o % groups != 0)
    fail(name, "output channels " + std::to_string(*o) + " are not divisible by groups " +
                   std::to_string(groups));

  // Large ungrouped 2-D convolutions with constant shapes use the wide
  // form, whose position loop vectorizes with whole vectors whatever the
  // image width and stride (see conv2dWide).
  if (s == 2) {
    // The batch may be symbolic; channels and kernel sizes may not. A
    // symbolic image height or width takes conv2dWideSymbolic.
    bool kernel = asConstInt(data.shape()[1]).has_value();
    for (size_t d = 0; d < 4; ++d)
      kernel = kernel && asConstInt(weight.shape()[d]);
    bool image = asConstInt(data.shape()[2]) && asConstInt(data.shape()[3]);
    if (kernel && !image) {
      int64_t red =
          *asConstInt(Cg) * *asConstInt(weight.shape()[2]) * *asConstInt(weight.shape()[3]);
      // Any 1x1 kernel: with a symbolic width the direct form would end
      // every image row in a partial vector, and the flattening copy costs
      // little against the O products per input. Depthwise kernels stay
      // direct (tried wide: no faster on PaddleOCR's detector, the 9-25
      // products per output do not pay for the copy and the shuffle).
      bool pointwise = red == *asConstInt(Cg) && groups == 1;
      bool depthwise = groups > 1 && *asConstInt(Cg) == 1;
      if (!depthwise && (red >= kWideMinReduction || pointwise))
        return conv2dWideSymbolic(data, weight, padding, strides, dilation, groups, name);
    }
    if (kernel && image) {
      int64_t red =
          *asConstInt(Cg) * *asConstInt(weight.shape()[2]) * *asConstInt(weight.shape()[3]);
      int64_t area = 1;
      for (size_t d = 0; d < 2; ++d)
        area *= *asConstInt(outExtent(data.shape()[2 + d], padding[d], padding[2 + d], dilation[d],
                                      weight.shape()[2 + d], strides[d], name));
      if (groups > 1 && *asConstInt(Cg) == 1)
        return conv2dDepthwise(data, weight, padding, strides, dilation, groups, name);
      // A 1x1 convolution is a matmul over channels: worth it from fewer.
      bool pointwise = red == *asConstInt(Cg) && groups == 1 && red >= kWideMinPointwise;
      if ((red >= kWideMinReduction || pointwise) && area >= kWideMinArea)
        return conv2dWide(data, weight, padding, strides, dilation, groups, name);
    }
  }
  Tensor in = data;
  bool anyPad = false;
  for (int64_t p : padding)
    anyPad = anyPad || p != 0;
  if (anyPad) {
    std::vector<int64_t> before{0, 0}, after{0, 0};
    for (size_t d = 0; d < s; ++d) {
      before.push_back(padding[d]);
      after.push_back(padding[s + d]);
    }
    in = pad(data, before, after, 0.0, "pad_temp");
  }
  std::vector<PrimExpr> outShape{data.shape()[0], O};
  for (size_t d = 0; d < s; ++d)
    outShape.push_back(outExtent(data.shape()[2 + d], padding[d], padding[s + d], dilation[d],
                                 weight.shape()[2 + d], strides[d], name));
  ReduceAxis rc = reduceAxis(Cg, "rc");
  std::vector<ReduceAxis> axes{rc};
  const std::vector<std::string> names =
      s == 1 ? std::vector<std::string>{"rx"} : std::vector<std::string>{"ry", "rx"};
  for (size_t d = 0; d < s; ++d)
    axes.push_back(reduceAxis(weight.shape()[2 + d], names[d]));
  PrimExpr outPerGroup = simp(floordiv(O, i64(groups)));
  return compute(
      outShape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr channel = rc.var;
        if (groups != 1)
          channel = floordiv(i[1], outPerGroup) * Cg + rc.var;
        std::vector<PrimExpr> di{i[0], channel}, wi{i[1], rc.var};
        for (size_t d = 0; d < s; ++d) {
          di.push_back(i[2 + d] * strides[d] + axes[1 + d].var * dilation[d]);
          wi.push_back(axes[1 + d].var);
        }
        return te::sum(in(di)*weight(wi), axes);
      },
      name);
}

} // namespace

Tensor conv2dBlocked(const Tensor& data, const Tensor& weight, const Conv2dParams& p,
                     const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(weight, name, "weight");
  if (data.ndim() != 4 || weight.ndim() != 5)
    fail(name, "expects NCHW data and a packed [O/b, C, KH, KW, b] weight, got " +
                   shapeStr(data.shape()) + " and " + shapeStr(weight.shape()));
  if (!(data.dtype() == weight.dtype()))
    fail(name, "data and weight dtypes differ");
  if (p.groups != 1)
    fail(name, "a packed weight supports groups = 1 only");
  requirePositive(p.strides, 2, name, "strides");
  requirePositive(p.dilation, 2, name, "dilation");
  std::vector<int64_t> padding = expandPadding(p.padding, 2, name);
  auto b = asConstInt(weight.shape()[4]);
  if (!b || *b < 1)
    fail(name, "the weight's channel block (dimension 4) must be a positive constant");
  checkSameDim(data.shape()[1], weight.shape()[1], name, "input channels and weight channels");
  Tensor in = data;
  if (padding[0] || padding[1] || padding[2] || padding[3])
    in = pad(data, {0, 0, padding[0], padding[1]}, {0, 0, padding[2], padding[3]}, 0.0, "pad_temp");
  PrimExpr OH = outExtent(data.shape()[2], padding[0], padding[2], p.dilation[0], weight.shape()[2],
                          p.strides[0], name);
  PrimExpr OW = outExtent(data.shape()[3], padding[1], padding[3], p.dilation[1], weight.shape()[3],
                          p.strides[1], name);
  std::vector<ReduceAxis> axes = convAxes(weight);
  // blocked[n, ob, y, x, oi]: output channel ob * b + oi, the block
  // innermost like the weight's.
  Tensor blocked = compute(
      {data.shape()[0], weight.shape()[0], OH, OW, weight.shape()[4]},
      [&](const std::vector<PrimExpr>& i) {
        const PrimExpr& rc = axes[0].var;
        if (axes.size() == 1)
          return te::sum(in({i[0], rc, i[2] * p.strides[0], i[3] * p.strides[1]}) *
                             weight({i[1], rc, i64(0), i64(0), i[4]}),
                         axes);
        const PrimExpr &ky = axes[1].var, &kx = axes[2].var;
        return te::sum(in({i[0], rc, i[2] * p.strides[0] + ky * p.dilation[0],
                           i[3] * p.strides[1] + kx * p.dilation[1]}) *
                           weight({i[1], rc, ky, kx, i[4]}),
                       axes);
      },
      name + "_blocked");
  return compute(
      {data.shape()[0], simp(weight.shape()[0] * *b), OH, OW},
      [&](const std::vector<PrimExpr>& i) {
        return blocked({i[0], floordiv(i[1], i64(*b)), i[2], i[3], floormod(i[1], i64(*b))});
      },
      name);
}

Tensor conv2dWinograd(const Tensor& data, const Tensor& weight, const Tensor& matrices,
                      std::vector<int64_t> padding, const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(weight, name, "weight");
  requireDefined(matrices, name, "matrices");
  if (data.ndim() != 4 || weight.ndim() != 3 || matrices.ndim() != 2)
    fail(name, "expects NCHW data, a [a*a, C, K] weight and [2a - 2, a] matrices, got " +
                   shapeStr(data.shape()) + ", " + shapeStr(weight.shape()) + " and " +
                   shapeStr(matrices.shape()));
  if (!(data.dtype() == weight.dtype()) || !(data.dtype() == matrices.dtype()))
    fail(name, "data, weight and matrices dtypes differ");
  auto a = asConstInt(matrices.shape()[1]);
  if (!a || *a < 4 || !isConstInt(matrices.shape()[0], 2 * *a - 2) ||
      !isConstInt(weight.shape()[0], *a * *a))
    fail(name, "needs constant [2a - 2, a] matrices (a >= 4) and a [a*a, C, K] weight, got " +
                   shapeStr(matrices.shape()) + " and " + shapeStr(weight.shape()));
  checkSameDim(data.shape()[1], weight.shape()[1], name, "input channels and weight channels");
  if (padding.size() == 1) // one value for all four sides, as the deduction accepts
    padding.assign(4, padding[0]);
  padding = expandPadding(padding, 2, name);
  const int64_t A = *a, m = A - 2;
  const PrimExpr N = data.shape()[0], C = data.shape()[1], H = data.shape()[2], W = data.shape()[3],
                 K = weight.shape()[2];
  PrimExpr OH = outExtent(H, padding[0], padding[2], 1, i64(3), 1, name);
  PrimExpr OW = outExtent(W, padding[1], padding[3], 1, i64(3), 1, name);
  PrimExpr TH = simp(floordiv(OH + (m - 1), i64(m))), TW = simp(floordiv(OW + (m - 1), i64(m)));
  PrimExpr tiles = simp(TH * TW), P = simp(N * tiles);
  // xt[n, h, w, c]: the input zero-padded to whole tiles, channels
  // innermost, so that every later stage reads and writes along channels
  // (NCHW would have the tile stages gather a whole image apart per lane).
  PrimExpr PH = simp(TH * m + 2), PW = simp(TW * m + 2);
  Tensor xt = compute(
      {N, PH, PW, C},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr h = i[1] - padding[0], w = i[2] - padding[1];
        PrimExpr inside =
            logicalAnd(logicalAnd(ge(h, i64(0)), lt(h, H)), logicalAnd(ge(w, i64(0)), lt(w, W)));
        return select(inside, data({i[0], i[3], clampIndex(h, H), clampIndex(w, W)}),
                      cst(data.dtype(), 0.0));
      },
      name + "_nhwc");
  // B^T d: t1[u, j, p, c] = sum_i BT[u, i] d[p, i, j, c], d[p] the a x a
  // tile of p (image n, tile row ty, column tx) at rows ty * m + i.
  ReduceAxis ri = reduceAxis(i64(A), "ri");
  Tensor t1 = compute(
      {i64(A), i64(A), P, C},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr n = floordiv(i[2], tiles), t = floormod(i[2], tiles);
        return te::sum(matrices({i[0], ri.var}) *
                           xt({n, floordiv(t, TW) * m + ri.var, floormod(t, TW) * m + i[1], i[3]}),
                       {ri});
      },
      name + "_bt_d");
  // (B^T d) B: v[u * a + w, p, c] = sum_j t1[u, j, p, c] BT[w, j].
  ReduceAxis rj = reduceAxis(i64(A), "rj");
  Tensor v = compute(
      {i64(A * A), P, C},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(t1({floordiv(i[0], i64(A)), rj.var, i[1], i[2]}) *
                           matrices({floormod(i[0], i64(A)), rj.var}),
                       {rj});
      },
      name + "_v");
  // The a*a independent products over the channels: M[e] = V[e] U[e].
  ReduceAxis rc = reduceAxis(C, "rc");
  Tensor prod = compute(
      {i64(A * A), P, K},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(v({i[0], i[1], rc.var}) * weight({i[0], rc.var, i[2]}), {rc});
      },
      name + "_gemm");
  // A^T M: o1[y, w, p, k] = sum_u AT[y, u] M[u * a + w, p, k].
  ReduceAxis ru = reduceAxis(i64(A), "ru");
  Tensor o1 = compute(
      {i64(m), i64(A), P, K},
      [&](const std::vector<PrimExpr>& i) {
        return te::sum(matrices({i64(A) + i[0], ru.var}) * prod({ru.var * A + i[1], i[2], i[3]}),
                       {ru});
      },
      name + "_at_m");
  // (A^T M) A with output channels innermost: z[n, y, x, k] = sum_w o1[y %
  // m, w, p, k] AT[x % m, w], p the tile of (y, x), over whole tiles.
  ReduceAxis rw = reduceAxis(i64(A), "rw");
  Tensor z = compute(
      {N, simp(TH * m), simp(TW * m), K},
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr p = i[0] * tiles + floordiv(i[1], i64(m)) * TW + floordiv(i[2], i64(m));
        return te::sum(o1({floormod(i[1], i64(m)), rw.var, p, i[3]}) *
                           matrices({i64(A) + floormod(i[2], i64(m)), rw.var}),
                       {rw});
      },
      name + "_nhwc_out");
  return compute(
      {N, K, OH, OW},
      [&](const std::vector<PrimExpr>& i) {
        return z({i[0], i[2], i[3], i[1]});
      },
      name);
}

Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name) {
  requireDefined(a, name, "lhs");
  requireDefined(b, name, "rhs");
  if (a.ndim() < 1 || b.ndim() < 1)
    fail(name, "operands must have rank >= 1");
  if (!(a.dtype() == b.dtype()))
    fail(name, "operand dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  bool aVec = a.ndim() == 1, bVec = b.ndim() == 1;
  const auto &as = a.shape(), &bs = b.shape();
  PrimExpr K = as.back(), K2 = bVec ? bs[0] : bs[bs.size() - 2];
  checkSameDim(K, K2, name, "contraction dims of " + shapeStr(as) + " and " + shapeStr(bs));
  if (!asConstInt(K) && asConstInt(K2))
    K = K2;
  std::vector<PrimExpr> batchA(as.begin(), as.end() - (aVec ? 1 : 2));
  std::vector<PrimExpr> batchB(bs.begin(), bs.end() - (bVec ? 1 : 2));
  auto batch = broadcastShape(batchA, batchB, name);
  std::vector<PrimExpr> shape = batch;
  if (!aVec)
    shape.push_back(as[as.size() - 2]);
  if (!bVec)
    shape.push_back(bs.back());
  ReduceAxis k = reduceAxis(K, "k");
  size_t nb = batch.size();
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> ob(i.begin(), i.begin() + nb);
        auto ai = batchIndex(batchA, ob), bi = batchIndex(batchB, ob);
        if (!aVec)
          ai.push_back(i[nb]);
        ai.push_back(k.var);
        bi.push_back(k.var);
        if (!bVec)
          bi.push_back(i.back());
        return te::sum(a(ai) * b(bi), {k});
      },
      name);
}

Tensor matmulPacked(const Tensor& a, const Tensor& b, const std::string& name) {
  requireDefined(a, name, "lhs");
  requireDefined(b, name, "rhs");
  if (a.ndim() < 2 || b.ndim() != 3)
    fail(name, "expects [..., M, K] and a packed [N / V, K, V] rhs, got " + shapeStr(a.shape()) +
                   " and " + shapeStr(b.shape()));
  if (!(a.dtype() == b.dtype()))
    fail(name, "operand dtypes differ: " + a.dtype().str() + " vs " + b.dtype().str());
  const auto &as = a.shape(), &bs = b.shape();
  auto V = asConstInt(bs[2]);
  if (!V || *V < 1)
    fail(name, "the panel width (rhs dimension 2) must be a positive constant");
  checkSameDim(as.back(), bs[1], name,
               "contraction dims of " + shapeStr(as) + " and " + shapeStr(bs));
  ReduceAxis k = reduceAxis(bs[1], "k");
  size_t nb = as.size() - 2;
  std::vector<PrimExpr> shape(as.begin(), as.end() - 2);
  shape.push_back(bs[0]);
  shape.push_back(as[nb]);
  shape.push_back(bs[2]);
  // blocked[..., jb, i, jv]: output column jb * V + jv.
  Tensor blocked = compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> ai(i.begin(), i.begin() + nb);
        ai.push_back(i[nb + 1]);
        ai.push_back(k.var);
        return te::sum(a(ai) * b({i[nb], k.var, i[nb + 2]}), {k});
      },
      name + "_blocked");
  std::vector<PrimExpr> out(as.begin(), as.end() - 1);
  out.push_back(simp(bs[0] * *V));
  return compute(
      out,
      [&](const std::vector<PrimExpr>& i) {
        // The panel width in the index's own type: printed, an int64
        // literal next to an int32 index reads back as an int32 one.
        PrimExpr v = intImm(*V, i[nb + 1]->dtype);
        std::vector<PrimExpr> bi(i.begin(), i.begin() + nb);
        bi.push_back(floordiv(i[nb + 1], v));
        bi.push_back(i[nb]);
        bi.push_back(floormod(i[nb + 1], v));
        return blocked(bi);
      },
      name);
}

Tensor dense(const Tensor& x, const Tensor& w, const Tensor& bias, const std::string& name) {
  requireDefined(x, name, "data");
  requireDefined(w, name, "weight");
  if (x.ndim() < 1 || w.ndim() != 2)
    fail(name, "expects data [..., K] and weight [N, K]");
  if (!(x.dtype() == w.dtype()))
    fail(name, "data and weight dtypes differ");
  checkSameDim(x.shape().back(), w.shape()[1], name, "contraction dims");
  std::vector<PrimExpr> shape(x.shape().begin(), x.shape().end() - 1);
  shape.push_back(w.shape()[0]);
  ReduceAxis k = reduceAxis(w.shape()[1], "k");
  Tensor out = compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi(i.begin(), i.end() - 1);
        xi.push_back(k.var);
        return te::sum(x(xi) * w(i.back(), k.var), {k});
      },
      bias.defined() ? name + "_matmul" : name);
  if (!bias.defined())
    return out;
  if (bias.ndim() != 1)
    fail(name, "bias must be 1-D, has shape " + shapeStr(bias.shape()));
  checkSameDim(bias.shape()[0], w.shape()[0], name, "bias and output features");
  return compute(
      shape, [&](const std::vector<PrimExpr>& i) { return out(i) + bias(i.back()); }, name);
}

Tensor conv2d(const Tensor& data, const Tensor& weight, const Conv2dParams& p,
              const std::string& name) {
  return convNd(data, weight, 2, p.strides, p.padding, p.dilation, p.groups, name);
}

Tensor conv1d(const Tensor& data, const Tensor& weight, int64_t stride,
              std::vector<int64_t> padding, int64_t dilation, int64_t groups,
              const std::string& name) {
  return convNd(data, weight, 1, {stride}, std::move(padding), {dilation}, groups, name);
}

Tensor conv2dTranspose(const Tensor& data, const Tensor& weight, const Conv2dParams& p,
                       std::vector<int64_t> outputPadding, const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(weight, name, "weight");
  if (data.ndim() != 4 || weight.ndim() != 4)
    fail(name, "expects NCHW data and IOHW weight, got " + shapeStr(data.shape()) + " and " +
                   shapeStr(weight.shape()));
  if (!(data.dtype() == weight.dtype()))
    fail(name, "data and weight dtypes differ");
  requirePositive(p.strides, 2, name, "strides");
  requirePositive(p.dilation, 2, name, "dilation");
  auto pad = expandPadding(p.padding, 2, name);
  if (outputPadding.size() != 2)
    fail(name, "output_padding needs 2 values");
  for (int d = 0; d < 2; ++d)
    if (outputPadding[d] < 0 ||
        (outputPadding[d] >= p.strides[d] && outputPadding[d] >= p.dilation[d]))
      fail(name, "output_padding must be smaller than the stride or the dilation");
  int64_t g = p.groups;
  if (g < 1)
    fail(name, "groups must be positive");
  const PrimExpr& C = data.shape()[1];
  checkSameDim(C, weight.shape()[0], name, "input channels and weight input channels");
  if (auto c = asConstInt(C); c && *c % g != 0)
    fail(name, "input channels are not divisible by groups");
  PrimExpr Og = weight.shape()[1], Cg = simp(floordiv(C, i64(g)));
  std::vector<PrimExpr> shape{data.shape()[0], simp(Og * g)};
  for (int d = 0; d < 2; ++d) {
    PrimExpr e = simp((data.shape()[2 + d] - 1) * p.strides[d] - (pad[d] + pad[2 + d]) +
                      p.dilation[d] * (weight.shape()[2 + d] - 1) + (outputPadding[d] + 1));
    if (auto c = asConstInt(e); c && *c < 1)
      fail(name, "the output would be empty");
    shape.push_back(e);
  }
  // Stride equal to the kernel, no padding, dilation or output padding (the
  // 2x2 stride-2 upsampling of FPN and U-Net decoders): every output pixel
  // receives exactly one tap, (y % sh, x % sw), of input pixel (y / sh,
  // x / sw). That is a 1x1 convolution producing KH * KW * O channels,
  // m = (ky * KW + kx) * O + o, followed by a depth-to-space shuffle, and
  // the convolution gets conv2d's register-tiled schedule instead of a
  // reduction over all taps of which all but one are masked off.
  auto kh = asConstInt(weight.shape()[2]), kw = asConstInt(weight.shape()[3]);
  auto og = asConstInt(Og);
  bool disjoint = g == 1 && kh && kw && og && asConstInt(C) && *kh == p.strides[0] &&
                  *kw == p.strides[1] && p.dilation[0] == 1 && p.dilation[1] == 1 &&
                  outputPadding[0] == 0 && outputPadding[1] == 0;
  for (int64_t v : pad)
    disjoint = disjoint && v == 0;
  if (disjoint) {
    int64_t KH = *kh, KW = *kw, O = *og;
    Tensor taps = compute(
        {i64(KH * KW * O), C, i64(1), i64(1)},
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr tap = floordiv(i[0], i64(O));
          return weight(
              {i[1], floormod(i[0], i64(O)), floordiv(tap, i64(KW)), floormod(tap, i64(KW))});
        },
        name + "_taps");
    Tensor phases = convNd(data, taps, 2, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, name + "_phases");
    return compute(
        shape,
        [&](const std::vector<PrimExpr>& i) {
          PrimExpr m = (floormod(i[2], i64(KH)) * KW + floormod(i[3], i64(KW))) * O + i[1];
          return phases({i[0], m, floordiv(i[2], i64(KH)), floordiv(i[3], i64(KW))});
        },
        name);
  }
  ReduceAxis rc = reduceAxis(Cg, "rc"), ry = reduceAxis(weight.shape()[2], "ry"),
             rx = reduceAxis(weight.shape()[3], "rx");
  DataType t = data.dtype();
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr ic = g == 1 ? PrimExpr(rc.var) : floordiv(i[1], Og) * Cg + rc.var;
        PrimExpr oc = g == 1 ? i[1] : floormod(i[1], Og);
        PrimExpr valid = boolImm(true);
        std::vector<PrimExpr> di{i[0], ic};
        const ReduceAxis* k[2] = {&ry, &rx};
        for (int d = 0; d < 2; ++d) {
          PrimExpr tpos = i[2 + d] + pad[d] - k[d]->var * p.dilation[d];
          PrimExpr q = floordiv(tpos, i64(p.strides[d]));
          PrimExpr ok = logicalAnd(ge(tpos, i64(0)), lt(q, data.shape()[2 + d]));
          if (p.strides[d] != 1)
            ok = logicalAnd(ok, eq(floormod(tpos, i64(p.strides[d])), i64(0)));
          valid = d == 0 ? ok : logicalAnd(valid, ok);
          di.push_back(clampIndex(q, data.shape()[2 + d]));
        }
        PrimExpr prodv = data(di) * weight(ic, oc, ry.var, rx.var);
        return te::sum(select(valid, prodv, cst(t, 0)), {rc, ry, rx});
      },
      name);
}

Tensor pool(const Tensor& data, PoolType type, size_t spatial, const PoolParams& p,
            const std::string& name) {
  requireDefined(data, name, "data");
  size_t s = spatial;
  if (s < 1 || data.ndim() != int(2 + s))
    fail(name, "expects rank-" + std::to_string(2 + s) + " data, got " + shapeStr(data.shape()));
  requirePositive(p.kernel, s, name, "kernel");
  requirePositive(p.strides, s, name, "strides");
  std::vector<int64_t> dilation = p.dilation.empty() ? std::vector<int64_t>(s, 1) : p.dilation;
  requirePositive(dilation, s, name, "dilation");
  std::vector<int64_t> padding = expandPadding(p.padding, s, name);
  for (size_t d = 0; d < s; ++d)
    if (padding[d] >= p.kernel[d] || padding[s + d] >= p.kernel[d])
      fail(name, "padding must be smaller than the kernel");
  DataType t = data.dtype();
  if (type == PoolType::Avg && !t.isFloat())
    fail(name, "average pooling needs a float input");

  // Output extents; ceil_mode rounds up, so the last window may reach past
  // the padded input: those positions read as padding too.
  std::vector<PrimExpr> shape{data.shape()[0], data.shape()[1]};
  std::vector<int64_t> extraEnd(s, 0);
  for (size_t d = 0; d < s; ++d) {
    int64_t span = dilation[d] * (p.kernel[d] - 1) + 1;
    if (!p.ceilMode) {
      shape.push_back(outExtent(data.shape()[2 + d], padding[d], padding[s + d], dilation[d],
                                i64(p.kernel[d]), p.strides[d], name));
      continue;
    }
    auto in = asConstInt(data.shape()[2 + d]);
    if (!in)
      fail(name, "ceil_mode needs constant spatial sizes");
    int64_t padded = *in + padding[d] + padding[s + d];
    int64_t num = padded - span;
    if (num < 0)
      fail(name, "the output would be empty");
    int64_t out = (num + p.strides[d] - 1) / p.strides[d] + 1;
    extraEnd[d] = std::max<int64_t>(0, (out - 1) * p.strides[d] + span - padded);
    shape.push_back(i64(out));
  }

  // Padding (the reducer's identity for max, 0 for the sum) as its own stage.
  bool anyPad = false;
  for (size_t d = 0; d < s; ++d)
    anyPad = anyPad || padding[d] || padding[s + d] || extraEnd[d];
  Tensor in = data;
  if (anyPad) {
    double padValue = 0.0;
    if (type == PoolType::Max) {
      PrimExpr lo = reducerIdentity(Reducer::Max, t);
      padValue = t.isFloat() ? as<FloatImm>(lo)->value : double(as<IntImm>(lo)->value);
    }
    std::vector<int64_t> before{0, 0}, after{0, 0};
    for (size_t d = 0; d < s; ++d) {
      before.push_back(padding[d]);
      after.push_back(padding[s + d] + extraEnd[d]);
    }
    in = pad(data, before, after, padValue, "pad_temp");
  }
  static const char* names3[] = {"rz", "ry", "rx"};
  std::vector<ReduceAxis> axes;
  for (size_t d = 0; d < s; ++d)
    axes.push_back(
        reduceAxis(i64(p.kernel[d]), s <= 3 ? names3[3 - s + d] : "r" + std::to_string(d)));
  auto window = [&](const std::vector<PrimExpr>& i) {
    std::vector<PrimExpr> idx{i[0], i[1]};
    for (size_t d = 0; d < s; ++d) {
      PrimExpr k = dilation[d] == 1 ? PrimExpr(axes[d].var) : axes[d].var * dilation[d];
      idx.push_back(i[2 + d] * p.strides[d] + k);
    }
    return in(idx);
  };
  if (type == PoolType::Max)
    return compute(
        shape, [&](const std::vector<PrimExpr>& i) { return te::max(window(i), axes); }, name);
  Tensor sum = compute(
      shape, [&](const std::vector<PrimExpr>& i) { return te::sum(window(i), axes); },
      name + "_sum");
  // The divisor: the number of taps k (0 <= k < K) whose position
  // start + k * dilation lies in [lo, hi), with lo/hi the input bounds, or
  // the padded input's bounds when count_include_pad:
  //   kmin = max(0, ceil((lo - start) / dilation)),
  //   kmax = min(K - 1, floor((hi - 1 - start) / dilation)).
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr n;
        for (size_t d = 0; d < s; ++d) {
          PrimExpr start = i[2 + d] * p.strides[d] - padding[d];
          PrimExpr lo = p.countIncludePad ? i64(-padding[d]) : i64(0);
          PrimExpr hi =
              p.countIncludePad ? simp(data.shape()[2 + d] + padding[s + d]) : data.shape()[2 + d];
          PrimExpr cnt;
          if (dilation[d] == 1) {
            cnt = ir::min(start + p.kernel[d], hi) - ir::max(start, lo);
          } else {
            PrimExpr kmin =
                ir::max(floordiv(lo - start + (dilation[d] - 1), i64(dilation[d])), i64(0));
            PrimExpr kmax =
                ir::min(floordiv(hi - 1 - start, i64(dilation[d])), i64(p.kernel[d] - 1));
            cnt = ir::max(kmax - kmin + 1, i64(0));
          }
          n = n ? n * cnt : cnt;
        }
        // A window wholly in the ceil_mode overhang has no taps: 0 / 1.
        return sum(i) / ir::cast(t, ir::max(n, i64(1)));
      },
      name);
}

Tensor pool2d(const Tensor& data, PoolType type, std::vector<int64_t> kernel,
              std::vector<int64_t> strides, std::vector<int64_t> padding, bool countIncludePad,
              const std::string& name) {
  if (data.defined() && data.ndim() != 4)
    fail(name, "expects NCHW data, got " + shapeStr(data.shape()));
  PoolParams p;
  p.kernel = std::move(kernel);
  p.strides = std::move(strides);
  p.dilation = {1, 1};
  p.padding = std::move(padding);
  p.countIncludePad = countIncludePad;
  return pool(data, type, 2, p, name);
}

Tensor globalAvgPool2d(const Tensor& data, const std::string& name) {
  requireDefined(data, name, "data");
  if (data.ndim() != 4)
    fail(name, "expects NCHW data, got " + shapeStr(data.shape()));
  if (!data.dtype().isFloat())
    fail(name, "needs a float input");
  return mean(data, {2, 3}, true, name);
}

} // namespace unity::te::topi
