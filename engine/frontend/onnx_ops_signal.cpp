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
// transforms models apply (STFT frames, small spectra). DFT's lengths must
// be known at import time (they fix the output shape).
//
// STFT gathers the frames with a constant index table (frames, frame_length)
// along the signal axis, multiplies by the window (rectangular when absent)
// and applies the DFT above to each frame. A frame_step or frame_length
// computed at run time makes the frame count (and the frame length) fresh
// shape variables and the tables run-time computations (convertSTFTRuntime).
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/ir/arith.h"

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

/// Input i, an integer scalar (rank 0, or one element of rank 1), as a 0-d
/// int64 tensor.
Value int64Scalar(NodeContext& c, int i, const std::string& what) {
  auto* t = as<TensorSInfo>(c.value(i).sinfo);
  if (!t || !t->dtype.isIntegral() || t->ndim < 0 || t->ndim > 1 ||
      (t->ndim == 1 && (!t->shape || !isConstInt((*t->shape)[0], 1))))
    c.unsupported(what + " must be an integer scalar");
  Value v = c.op("astype", {c.expr(i)}, {{"dtype", DataType::Int64()}});
  return c.op("reshape", {v.expr, make<ShapeExpr>(std::vector<PrimExpr>{})});
}

/// A 0-d int64 tensor as a fresh shape variable named `hint`_0 (a negative
/// value is refused by the executor when it reads it); `known`, when given,
/// is checked against it at run time instead.
PrimExpr lengthVar(NodeContext& c, const Value& scalar, const std::string& hint,
                   std::optional<PrimExpr> known = std::nullopt) {
  Value one = c.op("reshape", {scalar.expr, make<ShapeExpr>(std::vector<PrimExpr>{intImm(1)})});
  std::vector<PrimExpr> k;
  if (known)
    k.push_back(*known);
  return c.runtimeShape(one, hint, k)[0];
}

/// (Re, Im) of the forward DFT of length L along the last axis of xr (+ i xi)
/// with L known only at run time (`len`, a shape variable, and `lenT`, its
/// 0-d int64 tensor): the cos/sin matrices of convertDFT are computed by
/// graph operators, in float64 like the constant ones, then cast to dt.
std::pair<Value, Value> dftRuntimeLength(NodeContext& c, const Value& xr,
                                         const std::optional<Value>& xi, const PrimExpr& len,
                                         const Value& lenT, bool onesided, DataType dt) {
  PrimExpr k = onesided ? arith::simplify(floordiv(len, intImm(2)) + intImm(1)) : len;
  DataType f64 = DataType::Float(64);
  auto shape = [](std::vector<PrimExpr> d) { return make<ShapeExpr>(std::move(d)); };
  Value n = c.op("reshape", {c.op("arange", {shape({len})}).expr, shape({len, intImm(1)})});
  Value j = c.op("reshape", {c.op("arange", {shape({k})}).expr, shape({intImm(1), k})});
  Value nj = c.op("mod", {c.op("multiply", {n.expr, j.expr}).expr, lenT.expr}); // (L, K)
  Value turn = c.op("divide", {NodeContext::scalar(2 * std::numbers::pi, f64).expr,
                               c.op("astype", {lenT.expr}, {{"dtype", f64}}).expr});
  Value angle = c.op("multiply", {c.op("astype", {nj.expr}, {{"dtype", f64}}).expr, turn.expr});
  auto table = [&](const char* fn) {
    return c.op("astype", {c.op(fn, {angle.expr}).expr}, {{"dtype", dt}});
  };
  Value cosT = table("cos"), sinT = table("sin");
  auto mm = [&](const Value& x, const Value& m) { return c.op("matmul", {x.expr, m.expr}); };
  Value re = mm(xr, cosT);
  Value im = c.op("negative", {mm(xr, sinT).expr});
  if (xi) {
    re = c.op("add", {re.expr, mm(*xi, sinT).expr});
    im = c.op("add", {im.expr, mm(*xi, cosT).expr});
  }
  return {re, im};
}

/// STFT's constant operand i (frame_step or frame_length, named by `what`),
/// which must be in [1, 2^30].
int64_t stftLength(NodeContext& c, int i, const char* what) {
  double v = c.constScalar(i, what);
  if (!(v >= 1 && v <= double(1 << 30)))
    c.unsupported(std::string(what) + " must be in [1, 2^30]");
  return static_cast<int64_t>(v);
}

/// The length of STFT's window (input 2), which must be 1-D and static.
int64_t stftWindowLength(NodeContext& c) {
  if (c.rank(2) != 1)
    c.unsupported("window must be 1-D");
  auto w = asConstInt(c.shape(2)[0]);
  if (!w)
    c.unsupported("STFT needs a static window length");
  return *w;
}

/// STFT's frames (batch, F, L) of the signal (input 0): its real part and,
/// when complex, its imaginary part gathered along the length axis at the
/// indices of table (F, L), each times the window (input 2) when given.
/// A complex signal needs onesided=0.
std::pair<Value, std::optional<Value>> stftFrames(NodeContext& c, const Value& table,
                                                  bool onesided) {
  auto [xr, xi] = parts(c, 0); // (batch, length)
  if (onesided && xi)
    c.unsupported("onesided=1 needs a real signal");
  auto frame = [&](const Value& x) {
    Value f = c.op("take", {x.expr, table.expr}, {{"axis", int64_t(1)}}); // (batch, F, L)
    if (c.has(2))
      f = c.op("multiply", {f.expr, c.expr(2)});
    return f;
  };
  std::optional<Value> fi;
  if (xi)
    fi = frame(*xi);
  Value fr = frame(xr);
  return {fr, fi};
}

/// STFT whose frame_step or frame_length is computed at run time. The
/// number of frames, (signal length - frame_length) / frame_step + 1, is a
/// fresh shape variable (-1, refused by the executor, when the step is not
/// positive or the frame does not fit the signal); so is the frame length
/// when it is not fixed by a window or a constant, and the DFT matrices are
/// then computed at run time too (dftRuntimeLength). The frame index table
/// is arange(frames) * step + arange(frame_length).
void convertSTFTRuntime(NodeContext& c, int64_t sigLen, DataType dt, bool onesided) {
  DataType i64 = DataType::Int64();
  auto k = [&](int64_t v) { return NodeContext::scalar(static_cast<double>(v), i64).expr; };
  auto bin = [&](const char* op, const Value& a, Expr b) { return c.op(op, {a.expr, b}); };
  auto shape = [](std::vector<PrimExpr> d) { return make<ShapeExpr>(std::move(d)); };
  std::string out = c.node.output(0);
  Value step = int64Scalar(c, 1, "STFT's frame_step");
  PrimExpr len;
  std::optional<Value> lenT;
  if (c.has(2)) {
    int64_t w = stftWindowLength(c);
    len = intImm(w);
    if (c.has(3) && c.constant(3) && c.constScalar(3, "STFT's frame_length") != double(w))
      c.unsupported("frame_length differs from the window's length");
    if (c.has(3) && !c.constant(3)) // checked against the window when the executor reads it
      lengthVar(c, int64Scalar(c, 3, "STFT's frame_length"), out + "_frame_length", len);
  } else if (!c.has(3)) {
    c.unsupported("STFT needs frame_length or a window");
  } else if (c.constant(3)) {
    len = intImm(stftLength(c, 3, "STFT's frame_length"));
  } else {
    lenT = int64Scalar(c, 3, "STFT's frame_length");
    len = lengthVar(c, *lenT, out + "_frame_length");
  }
  if (auto l = asConstInt(len); l && *l > sigLen)
    c.unsupported("frame_length must be at most the signal length");
  if (!lenT)
    lenT = NodeContext::scalar(static_cast<double>(*asConstInt(len)), i64);
  Value ok = c.op("logical_and", {bin("greater_equal", step, k(1)).expr,
                                  c.op("logical_and", {bin("greater_equal", *lenT, k(1)).expr,
                                                       bin("less_equal", *lenT, k(sigLen)).expr})
                                      .expr});
  Value span = c.op("subtract", {k(sigLen), lenT->expr});
  Value count = bin("add", bin("floor_divide", span, bin("maximum", step, k(1)).expr), k(1));
  PrimExpr frames = lengthVar(c, c.op("where", {ok.expr, count.expr, k(-1)}), out + "_frames");
  Value starts =
      c.op("reshape", {c.op("arange", {shape({frames})}).expr, shape({frames, intImm(1)})});
  Value offs = c.op("reshape", {c.op("arange", {shape({len})}).expr, shape({intImm(1), len})});
  Value table = c.op("add", {bin("multiply", starts, step.expr).expr, offs.expr}); // (F, L)
  auto [fr, fi] = stftFrames(c, table, onesided);
  auto l = asConstInt(len);
  auto [re, im] = l ? dftLastAxis(c, fr, fi, *l, *l, onesided, false, dt)
                    : dftRuntimeLength(c, fr, fi, len, *lenT, onesided, dt);
  c.output(0, complexOut(c, re, im));
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
  if (!c.constant(1) || (c.has(3) && !c.constant(3))) {
    convertSTFTRuntime(c, *sigLen, dt, c.attrInt("onesided", 1) != 0);
    return;
  }
  int64_t step = stftLength(c, 1, "STFT's frame_step");
  int64_t frameLen = -1;
  if (c.has(3))
    frameLen = stftLength(c, 3, "STFT's frame_length");
  if (c.has(2)) {
    int64_t w = stftWindowLength(c);
    if (frameLen >= 0 && frameLen != w)
      c.unsupported("frame_length differs from the window's length");
    frameLen = w;
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
  Value table = NodeContext::constant(int64Tensor(idx, {frames, frameLen}));
  auto [fr, fi] = stftFrames(c, table, onesided);
  auto [re, im] = dftLastAxis(c, fr, fi, frameLen, frameLen, onesided, false, dt);
  c.output(0, complexOut(c, re, im));
}

/// MelWeightMatrix as the ONNX reference computes it: num_mel_bins + 2 band
/// edges spaced evenly on the mel scale between the edge frequencies
/// (float32 mel arithmetic, then float64 as numpy promotes it), mapped to
/// spectrogram bins floor((dft_length + 1) * hz / sample_rate); triangle
/// filters rising from edge i to i + 1 and falling to i + 2. The sample rate
/// and the edge frequencies are read at run time. num_mel_bins and
/// dft_length fix the output shape (dft_length / 2 + 1, num_mel_bins): known
/// at import time, the index tables are constants; computed at run time,
/// each is a fresh shape variable bound from its value and the tables are
/// arange's of it.
void convertMelWeightMatrix(NodeContext& c) {
  DataType f64 = DataType::Float(64), i64 = DataType::Int64();
  auto k = [](double v, DataType dt) { return NodeContext::scalar(v, dt).expr; };
  auto shape = [](std::vector<PrimExpr> d) { return make<ShapeExpr>(std::move(d)); };
  // A count: its shape expression, its value as a float64 0-d tensor, and
  // whether it was known at import time.
  struct Count {
    PrimExpr dim;
    Expr f64;
    bool known;
  };
  auto count = [&](int i, const char* what, double max) {
    if (c.constant(i)) {
      double v = c.constScalar(i, what);
      if (!(v >= 1 && v <= max))
        c.unsupported(std::string(what) + " must be in [1, " + std::to_string(int64_t(max)) + "]");
      return Count{intImm(static_cast<int64_t>(v)), k(std::floor(v), f64), true};
    }
    Value v = int64Scalar(c, i, what);
    // 0 or negative is refused when the executor reads the value (-1).
    Value pos =
        c.op("where", {c.op("greater_equal", {v.expr, k(1, i64)}).expr, v.expr, k(-1, i64)});
    PrimExpr d = lengthVar(c, pos, c.node.output(0) + (i == 0 ? "_mel_bins" : "_dft_length"));
    return Count{d, c.op("astype", {v.expr}, {{"dtype", f64}}).expr, false};
  };
  Count m = count(0, "MelWeightMatrix's num_mel_bins", 1 << 16);
  Count len = count(1, "MelWeightMatrix's dft_length", 1 << 24);
  PrimExpr bins = arith::simplify(floordiv(len.dim, intImm(2)) + intImm(1));
  if (auto cm = asConstInt(m.dim), cb = asConstInt(bins); cm && cb)
    c.checkTableSize(double(*cm) * double(*cb), "the mel weight matrix");
  auto odt = dtypeFromOnnx(static_cast<int>(c.attrInt("output_datatype", 1)));
  if (!odt || !odt->isFloat())
    c.unsupported("output_datatype must be a floating-point type");
  DataType ft = c.dtype(3);
  if (!ft.isFloat() || !(c.dtype(4) == ft))
    c.unsupported("the edge frequencies must be floating-point of one type");
  auto op2 = [&](const char* name, const Value& a, Expr b) { return c.op(name, {a.expr, b}); };
  // 0, 1, ..., n - 1 as float64: a constant table when n is known.
  auto iotaF64 = [&](const PrimExpr& n, std::vector<PrimExpr> as) {
    if (auto cn = asConstInt(n)) {
      std::vector<int64_t> dims;
      for (auto& d : as)
        dims.push_back(*asConstInt(d));
      Tensor t(f64, dims);
      for (int64_t i = 0; i < *cn; ++i)
        t.setDouble(i, double(i));
      return NodeContext::constant(std::move(t));
    }
    Value v = c.op("astype", {c.op("arange", {shape({n})}).expr}, {{"dtype", f64}});
    return c.op("reshape", {v.expr, shape(std::move(as))});
  };
  auto toMel = [&](int i) { // 2595 * log10(1 + f / 700), in the input's type
    Value v = op2("divide", c.in(i), k(700, ft));
    v = c.op("log", {op2("add", v, k(1, ft)).expr});
    return op2("multiply", v, k(2595 / std::log(10.0), ft));
  };
  Value lo = toMel(3), hi = toMel(4);
  Value step;
  if (m.known) {
    step = op2("divide", op2("subtract", hi, lo.expr), k(double(*asConstInt(m.dim) + 2), ft));
  } else {
    Value parts = c.op("astype", {c.op("add", {m.f64, k(2, f64)}).expr}, {{"dtype", ft}});
    step = op2("divide", op2("subtract", hi, lo.expr), parts.expr);
  }
  step = c.op("astype", {step.expr}, {{"dtype", f64}});
  Value lo64 = c.op("astype", {lo.expr}, {{"dtype", f64}});
  PrimExpr edgesN = arith::simplify(m.dim + intImm(2));
  Value mel = op2("add", op2("multiply", step, iotaF64(edgesN, {edgesN}).expr), lo64.expr);
  // 700 * (10^(mel / 2595) - 1)
  Value hz = c.op("exp", {op2("multiply", mel, k(std::log(10.0) / 2595, f64)).expr});
  hz = op2("multiply", op2("subtract", hz, k(1, f64)), k(700, f64));
  Value rate = c.op("astype", {c.expr(2)}, {{"dtype", f64}});
  Expr lenPlus1 =
      len.known ? k(double(*asConstInt(len.dim) + 1), f64) : c.op("add", {len.f64, k(1, f64)}).expr;
  Value edge = c.op("floor", {op2("divide", op2("multiply", hz, lenPlus1), rate.expr).expr});
  auto edges = [&](int64_t from) { // edge[from : from + m] as (1, m)
    Value e;
    if (auto cm = asConstInt(m.dim)) {
      e = c.op("strided_slice", {edge.expr},
               {{"axes", std::vector<int64_t>{0}},
                {"begin", std::vector<int64_t>{from}},
                {"end", std::vector<int64_t>{from + *cm}}});
    } else {
      Value at = c.op("add", {c.op("arange", {shape({m.dim})}).expr, k(double(from), i64)});
      e = c.op("take", {edge.expr, at.expr}, {{"axis", int64_t(0)}});
    }
    return c.op("expand_dims", {e.expr}, {{"axis", std::vector<int64_t>{0}}});
  };
  Value l = edges(0), ce = edges(1), h = edges(2);
  Expr j = iotaF64(bins, {bins, intImm(1)}).expr;
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
