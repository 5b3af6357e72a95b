// ONNX signal operators DFT and STFT (opset 17) as matrix products with
// constant DFT matrices, and MelWeightMatrix.
//
// A DFT of length L along one axis is a matmul of the signal (moved to the
// last axis) with cos/sin matrices of shape (N, K), N the input length and K
// the number of output frequencies (L, or L/2 + 1 when onesided). Rows
// n >= L are zero (dft_length truncates); a longer L zero-pads, which the
// matrix does by having only N rows. The matrices are computed in double at
// import time and stored in the signal's type; signs and the inverse's 1/L
// are folded in:
//   forward: Re = xr C + xi S,      Im = -xr S + xi C
//   inverse: Re = (xr C - xi S)/L,  Im = (xr S + xi C)/L
// with C = cos(2 pi n k / L), S = sin(2 pi n k / L). This costs O(N K) per
// output instead of an FFT's O(log L), which is fine for the short
// transforms models apply (STFT frames, small spectra). Lengths must be
// known at import time (they fix the output shape).
//
// STFT gathers the frames with a constant index table (frames, frame_length)
// along the signal axis, multiplies by the window (rectangular when absent)
// and applies the DFT above to each frame.
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Value matrix(int64_t n, int64_t k, int64_t len, DataType dt, double scale, bool sine) {
  Tensor t(dt, {n, k});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      double v = 0;
      if (i < len) {
        double a = 2 * std::numbers::pi * static_cast<double>((i * j) % len) / len;
        v = scale * (sine ? std::sin(a) : std::cos(a));
      }
      t.setDouble(i * k + j, v);
    }
  return NodeContext::constant(std::move(t));
}

/// (Re, Im) of the DFT along the last axis (length n) of xr (+ i xi).
std::pair<Value, Value> dftLastAxis(NodeContext& c, const Value& xr, const std::optional<Value>& xi,
                                    int64_t n, int64_t len, bool onesided, bool inverse,
                                    DataType dt) {
  int64_t k = onesided ? len / 2 + 1 : len;
  c.checkTableSize(double(n) * double(k), "the DFT matrix (direct products, no FFT)");
  double s = inverse ? 1.0 / static_cast<double>(len) : 1.0;
  auto mm = [&](const Value& x, double scale, bool sine) {
    return c.op("matmul", {x.expr, matrix(n, k, len, dt, scale, sine).expr});
  };
  auto add = [&](const Value& a, const Value& b) { return c.op("add", {a.expr, b.expr}); };
  Value re = mm(xr, s, false);
  Value im = mm(xr, inverse ? s : -s, true);
  if (xi) {
    re = add(re, mm(*xi, inverse ? -s : s, true));
    im = add(im, mm(*xi, s, false));
  }
  return {re, im};
}

/// Component `i` (0 real, 1 imaginary) of the trailing complex axis.
Value component(NodeContext& c, const Value& x, int rank, int64_t i) {
  Value s = c.op("strided_slice", {x.expr},
                 {{"axes", std::vector<int64_t>{rank - 1}},
                  {"begin", std::vector<int64_t>{i}},
                  {"end", std::vector<int64_t>{i + 1}}});
  return c.op("squeeze", {s.expr}, {{"axis", std::vector<int64_t>{rank - 1}}});
}

/// Stacks re and im on a new trailing axis.
Value complexOut(NodeContext& c, const Value& re, const Value& im) {
  auto* t = as<TensorSInfo>(re.sinfo);
  int64_t r = t->ndim;
  Value a = c.op("expand_dims", {re.expr}, {{"axis", std::vector<int64_t>{r}}});
  Value b = c.op("expand_dims", {im.expr}, {{"axis", std::vector<int64_t>{r}}});
  return c.op("concat",
              {make<Tuple>(std::vector<Expr>{a.expr, b.expr}, tupleSInfo({a.sinfo, b.sinfo}))},
              {{"axis", r}});
}

/// The real and (when complex) imaginary parts of a (..., 1|2) input.
std::pair<Value, std::optional<Value>> parts(NodeContext& c, int input) {
  int rank = c.rank(input);
  auto comps = asConstInt(c.shape(input)[rank - 1]);
  if (!comps || (*comps != 1 && *comps != 2))
    c.unsupported("the last dimension of '" + c.node.input(input) +
                  "' must be 1 (real) or 2 (complex)");
  Value xr = component(c, c.in(input), rank, 0);
  std::optional<Value> xi;
  if (*comps == 2)
    xi = component(c, c.in(input), rank, 1);
  return {xr, xi};
}

void convertDFT(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 3)
    c.unsupported("input must have rank >= 3 (batch, signal..., 1 or 2)");
  DataType dt = c.dtype(0);
  if (!dt.isFloat())
    c.unsupported("input must be floating-point");
  // axis counts over the dims before the complex one.
  int axis = normAxis(c, c.attrInt("axis", 1), rank - 1);
  bool inverse = c.attrInt("inverse", 0) != 0, onesided = c.attrInt("onesided", 0) != 0;
  auto n = asConstInt(c.shape(0)[axis]);
  if (!n)
    c.unsupported("DFT needs a static length of axis " + std::to_string(axis));
  int64_t len = *n;
  if (c.has(1)) {
    double l = c.constScalar(1, "DFT's dft_length");
    if (!(l >= 1 && l <= double(1 << 24)))
      c.unsupported("dft_length must be in [1, 2^24]");
    len = static_cast<int64_t>(l);
  }
  auto [xr, xi] = parts(c, 0);
  if (onesided && xi)
    c.unsupported("onesided=1 needs a real input");
  if (onesided && inverse)
    c.unsupported("onesided=1 with inverse=1 is not supported");
  int r = rank - 1; // rank of each part
  std::vector<int64_t> perm, back(r);
  for (int i = 0; i < r; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  for (int i = 0; i < r; ++i)
    back[perm[i]] = i;
  bool moved = axis != r - 1;
  auto toLast = [&](const Value& v) {
    return moved ? c.op("permute_dims", {v.expr}, {{"axes", perm}}) : v;
  };
  auto fromLast = [&](const Value& v) {
    return moved ? c.op("permute_dims", {v.expr}, {{"axes", back}}) : v;
  };
  std::optional<Value> xit;
  if (xi)
    xit = toLast(*xi);
  auto [re, im] = dftLastAxis(c, toLast(xr), xit, *n, len, onesided, inverse, dt);
  c.output(0, complexOut(c, fromLast(re), fromLast(im)));
}

void convertSTFT(NodeContext& c) {
  if (c.rank(0) != 3)
    c.unsupported("signal must have shape (batch, length, 1 or 2)");
  DataType dt = c.dtype(0);
  if (!dt.isFloat())
    c.unsupported("signal must be floating-point");
  auto sigLen = asConstInt(c.shape(0)[1]);
  if (!sigLen)
    c.unsupported("STFT needs a static signal length");
  auto length = [&](int i, const char* what) {
    double v = c.constScalar(i, what);
    if (!(v >= 1 && v <= double(1 << 30)))
      c.unsupported(std::string(what) + " must be in [1, 2^30]");
    return static_cast<int64_t>(v);
  };
  int64_t step = length(1, "STFT's frame_step");
  int64_t frameLen = -1;
  if (c.has(3))
    frameLen = length(3, "STFT's frame_length");
  if (c.has(2)) {
    if (c.rank(2) != 1)
      c.unsupported("window must be 1-D");
    auto w = asConstInt(c.shape(2)[0]);
    if (!w)
      c.unsupported("STFT needs a static window length");
    if (frameLen >= 0 && frameLen != *w)
      c.unsupported("frame_length differs from the window's length");
    frameLen = *w;
  }
  if (frameLen < 1)
    c.unsupported("STFT needs frame_length or a window");
  if (step < 1 || frameLen > *sigLen)
    c.unsupported("frame_step must be positive and frame_length at most the signal length");
  bool onesided = c.attrInt("onesided", 1) != 0;
  int64_t frames = (*sigLen - frameLen) / step + 1;
  c.checkTableSize(double(frames) * double(frameLen), "STFT's frame index table");
  std::vector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t i = 0; i < frameLen; ++i)
      idx.push_back(f * step + i);
  auto [xr, xi] = parts(c, 0); // (batch, length)
  if (onesided && xi)
    c.unsupported("onesided=1 needs a real signal");
  Value table = NodeContext::constant(int64Tensor(idx, {frames, frameLen}));
  auto frame = [&](const Value& x) {
    Value f = c.op("take", {x.expr, table.expr}, {{"axis", int64_t(1)}}); // (batch, F, L)
    if (c.has(2))
      f = c.op("multiply", {f.expr, c.expr(2)});
    return f;
  };
  std::optional<Value> fi;
  if (xi)
    fi = frame(*xi);
  auto [re, im] = dftLastAxis(c, frame(xr), fi, frameLen, frameLen, onesided, false, dt);
  c.output(0, complexOut(c, re, im));
}

/// MelWeightMatrix as the ONNX reference computes it: num_mel_bins + 2 band
/// edges spaced evenly on the mel scale between the edge frequencies
/// (float32 mel arithmetic, then float64 as numpy promotes it), mapped to
/// spectrogram bins floor((dft_length + 1) * hz / sample_rate); triangle
/// filters rising from edge i to i + 1 and falling to i + 2. num_mel_bins
/// and dft_length fix the output shape and must be known at import time;
/// the sample rate and the edge frequencies are read at run time.
void convertMelWeightMatrix(NodeContext& c) {
  double mels = c.constScalar(0, "MelWeightMatrix's num_mel_bins");
  double dftLen = c.constScalar(1, "MelWeightMatrix's dft_length");
  if (!(mels >= 1 && mels <= 1 << 16 && dftLen >= 1 && dftLen <= 1 << 24))
    c.unsupported("num_mel_bins must be in [1, 2^16] and dft_length in [1, 2^24]");
  int64_t m = static_cast<int64_t>(mels), len = static_cast<int64_t>(dftLen);
  int64_t bins = len / 2 + 1;
  c.checkTableSize(double(m) * double(bins), "the mel weight matrix");
  auto odt = dtypeFromOnnx(static_cast<int>(c.attrInt("output_datatype", 1)));
  if (!odt || !odt->isFloat())
    c.unsupported("output_datatype must be a floating-point type");
  DataType ft = c.dtype(3), f64 = DataType::Float(64);
  if (!ft.isFloat() || !(c.dtype(4) == ft))
    c.unsupported("the edge frequencies must be floating-point of one type");
  auto k = [](double v, DataType dt) { return NodeContext::scalar(v, dt).expr; };
  auto op2 = [&](const char* name, const Value& a, Expr b) { return c.op(name, {a.expr, b}); };
  auto toMel = [&](int i) { // 2595 * log10(1 + f / 700), in the input's type
    Value v = op2("divide", c.in(i), k(700, ft));
    v = c.op("log", {op2("add", v, k(1, ft)).expr});
    return op2("multiply", v, k(2595 / std::log(10.0), ft));
  };
  Value lo = toMel(3), hi = toMel(4);
  Value step = op2("divide", op2("subtract", hi, lo.expr), k(double(m + 2), ft));
  step = c.op("astype", {step.expr}, {{"dtype", f64}});
  Value lo64 = c.op("astype", {lo.expr}, {{"dtype", f64}});
  Tensor idx(f64, {m + 2});
  for (int64_t i = 0; i < m + 2; ++i)
    idx.setDouble(i, double(i));
  Value mel =
      op2("add", op2("multiply", step, NodeContext::constant(std::move(idx)).expr), lo64.expr);
  // 700 * (10^(mel / 2595) - 1)
  Value hz = c.op("exp", {op2("multiply", mel, k(std::log(10.0) / 2595, f64)).expr});
  hz = op2("multiply", op2("subtract", hz, k(1, f64)), k(700, f64));
  Value rate = c.op("astype", {c.expr(2)}, {{"dtype", f64}});
  Value edge =
      c.op("floor", {op2("divide", op2("multiply", hz, k(double(len + 1), f64)), rate.expr).expr});
  auto edges = [&](int64_t from) { // edge[from : from + m] as (1, m)
    Value e = c.op("strided_slice", {edge.expr},
                   {{"axes", std::vector<int64_t>{0}},
                    {"begin", std::vector<int64_t>{from}},
                    {"end", std::vector<int64_t>{from + m}}});
    return c.op("expand_dims", {e.expr}, {{"axis", std::vector<int64_t>{0}}});
  };
  Value l = edges(0), ce = edges(1), h = edges(2);
  Tensor jt(f64, {bins, 1});
  for (int64_t j = 0; j < bins; ++j)
    jt.setDouble(j, double(j));
  Expr j = NodeContext::constant(std::move(jt)).expr;
  auto ge = [&](Expr a, const Value& b) { return c.op("greater_equal", {a, b.expr}); };
  auto land = [&](const Value& a, const Value& b) { return c.op("logical_and", {a.expr, b.expr}); };
  // Rising: l <= j <= c, (j - l) / (c - l) (1 at j = c when c == l).
  Value riseSpan = c.op("maximum", {op2("subtract", ce, l.expr).expr, k(1, f64)});
  Value rise = op2("divide", c.op("subtract", {j, l.expr}), riseSpan.expr);
  rise = c.op("where", {c.op("equal", {ce.expr, l.expr}).expr, k(1, f64), rise.expr});
  Value inRise = land(ge(j, l), c.op("less_equal", {j, ce.expr}));
  // Falling (written last, so it wins): c <= j < h, (h - j) / (h - c).
  Value fallSpan = c.op("maximum", {op2("subtract", h, ce.expr).expr, k(1, f64)});
  Value fall = op2("divide", c.op("subtract", {h.expr, j}), fallSpan.expr);
  Value inFall = land(ge(j, ce), c.op("less", {j, h.expr}));
  Value w = c.op("where", {inRise.expr, rise.expr, k(0, f64)});
  w = c.op("where", {inFall.expr, fall.expr, w.expr});
  c.output(0, c.op("astype", {w.expr}, {{"dtype", *odt}}));
}

} // namespace

void addSignalConverters(ConverterTable& t) {
  t["DFT"] = {convertDFT, {"axis", "inverse", "onesided"}};
  t["STFT"] = {convertSTFT, {"onesided"}};
  t["MelWeightMatrix"] = {convertMelWeightMatrix, {"output_datatype"}};
}

} // namespace unity::frontend::detail
