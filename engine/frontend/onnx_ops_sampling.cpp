// ONNX operators composed from index arithmetic and gather/scatter:
// GridSample (opset 16, 4-D), RoiAlign (avg, fixed sampling_ratio),
// ReverseSequence, MaxUnpool and Det (n <= 3).
//
// GridSample follows ONNX Runtime's kernel, which the ONNX reference
// implementation mirrors: the grid is unnormalized (align_corners decides
// whether -1/1 are the centres or the edges of the corner pixels); with
// nearest the coordinate is rounded half to even; a coordinate outside
// [x_min, x_max] ([0, W-1] with align_corners, [-0.5, W-0.5] without) is
// clamped to [0, W-1] (border; x and y together when either is outside, and
// not for bicubic, whose taps alone are clamped) or reflected into the range
// (reflection); then every tap (1 for nearest, 4
// for bilinear, 16 for bicubic with A = -0.75) reads the image, a tap outside
// the image reading 0 (zeros), the nearest edge pixel (border) or its
// reflection (reflection). Each tap is one gather_elements over the image
// flattened to (N, C, H*W + 1) (a zero appended) with an index (N, 1, Ho*Wo)
// broadcast over C, times its weight; the taps are summed. The index comes
// from a constant table over the taps' reachable range [-2, H+1] x [-2, W+1]
// that holds the padding mode (see tap()).
//
// ReverseSequence gathers along the time axis with index
// where(t < len[b], len[b] - 1 - t, t), computed at run time from the
// lengths. MaxUnpool scatters the values into a zero tensor of the unpooled
// size at MaxPool's flat indices (which count over N, C and the spatial
// dims); a larger output_shape pads at the end of each axis, as the ONNX
// reference implementation and the suite's case do (ONNX Runtime instead
// scatters into the larger shape, onnx/onnx#2398). Det writes out the cofactor formula for 1x1, 2x2
// and 3x3 matrices; larger ones need a factorization and are refused.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

std::vector<int64_t> axesOf(std::initializer_list<int64_t> v) { return v; }

/// Elementwise helpers over Values of one float type.
struct Arith {
  NodeContext& c;
  DataType dt;
  Value k(double v) const { return NodeContext::scalar(v, dt); }
  Value add(const Value& a, const Value& b) { return c.op("add", {a.expr, b.expr}); }
  Value sub(const Value& a, const Value& b) { return c.op("subtract", {a.expr, b.expr}); }
  Value mul(const Value& a, const Value& b) { return c.op("multiply", {a.expr, b.expr}); }
  Value div(const Value& a, const Value& b) { return c.op("divide", {a.expr, b.expr}); }
  Value floor(const Value& a) { return c.op("floor", {a.expr}); }
  Value less(const Value& a, const Value& b) { return c.op("less", {a.expr, b.expr}); }
  Value greater(const Value& a, const Value& b) { return c.op("greater", {a.expr, b.expr}); }
  Value lor(const Value& a, const Value& b) { return c.op("logical_or", {a.expr, b.expr}); }
  Value land(const Value& a, const Value& b) { return c.op("logical_and", {a.expr, b.expr}); }
  Value where(const Value& m, const Value& a, const Value& b) {
    return c.op("where", {m.expr, a.expr, b.expr});
  }
  Value clip(const Value& a, double lo, double hi) {
    return c.op("clip", {a.expr}, {{"min", lo}, {"max", hi}});
  }
};

// ---------------------------------------------------------------- GridSample

class GridSampler {
public:
  GridSampler(NodeContext& c) : c_(c), a_{c, DataType::Float(32)} {}

  void run() {
    if (c_.rank(0) != 4 || c_.rank(1) != 4)
      c_.unsupported("only 4-D X (N, C, H, W) and grid (N, Ho, Wo, 2) are supported");
    a_.dt = c_.dtype(1);
    if (!a_.dt.isFloat() || !c_.dtype(0).isFloat())
      c_.unsupported("X and grid must be floating-point");
    auto xs = c_.shape(0), gs = c_.shape(1);
    if (!isConstInt(gs[3], 2))
      c_.unsupported("the grid's last dimension must be 2 (x, y)");
    auto h = asConstInt(xs[2]), w = asConstInt(xs[3]);
    if (!h || !w)
      c_.unsupported("GridSample needs a static image size (H, W) of X");
    H_ = *h;
    W_ = *w;
    if (H_ < 1 || W_ < 1)
      c_.unsupported("X must have a non-empty image");
    c_.checkTableSize(double(H_ + 4) * double(W_ + 4), "GridSample's tap table");
    mode_ = c_.attrString("mode", "bilinear");
    if (mode_ != "bilinear" && mode_ != "nearest" && mode_ != "bicubic")
      c_.unsupported("mode='" + mode_ + "'");
    pad_ = c_.attrString("padding_mode", "zeros");
    if (pad_ != "zeros" && pad_ != "border" && pad_ != "reflection")
      c_.unsupported("padding_mode='" + pad_ + "'");
    align_ = c_.attrInt("align_corners", 0) != 0;
    n_ = xs[0];
    ch_ = xs[1];
    ho_ = gs[1];
    wo_ = gs[2];
    xmin_ = align_ ? 0.0 : -0.5;
    ymin_ = xmin_;
    xmax_ = align_ ? double(W_ - 1) : W_ - 0.5;
    ymax_ = align_ ? double(H_ - 1) : H_ - 0.5;

    Value xflat = c_.op("reshape", {c_.expr(0), shape({n_, ch_, intImm(H_ * W_)})});
    if (!(c_.dtype(0) == a_.dt))
      xflat = c_.op("astype", {xflat.expr}, {{"dtype", a_.dt}});
    // One zero after each image: where zeros padding sends outside taps.
    Value zero = c_.op("broadcast_to", {a_.k(0).expr, shape({n_, ch_, intImm(1)})});
    xflat_ = c_.op("concat",
                   {make<Tuple>(std::vector<Expr>{xflat.expr, zero.expr},
                                tupleSInfo({xflat.sinfo, zero.sinfo}))},
                   {{"axis", int64_t(2)}});
    table_ = tapTable();
    // grid[..., 0] is x (width), grid[..., 1] is y (height): (N, Ho, Wo) each.
    auto comp = [&](int64_t k) {
      Value s = c_.op("strided_slice", {c_.expr(1)},
                      {{"axes", axesOf({3})},
                       {"begin", std::vector<int64_t>{k}},
                       {"end", std::vector<int64_t>{k + 1}}});
      return c_.op("squeeze", {s.expr}, {{"axis", axesOf({3})}});
    };
    Value x = unnormalize(comp(0), W_), y = unnormalize(comp(1), H_);
    if (mode_ == "nearest") {
      x = c_.op("round", {x.expr}); // half to even (nearbyint)
      y = c_.op("round", {y.expr});
    }
    if (pad_ == "reflection") { // the identity inside the range
      x = reflect(x, xmin_, xmax_);
      y = reflect(y, ymin_, ymax_);
    } else if (pad_ == "border" && mode_ != "bicubic") {
      // Outside [lo, hi] is |v - centre| > half-width (one use of v).
      auto outside = [&](const Value& v, double lo, double hi) {
        Value d = c_.op("abs", {a_.sub(v, a_.k((lo + hi) / 2)).expr});
        return a_.greater(d, a_.k((hi - lo) / 2));
      };
      Value oob = a_.lor(outside(x, xmin_, xmax_), outside(y, ymin_, ymax_));
      Value xa = a_.clip(x, 0, double(W_ - 1)), ya = a_.clip(y, 0, double(H_ - 1));
      x = a_.where(oob, xa, x);
      y = a_.where(oob, ya, y);
    }
    Value out;
    if (mode_ == "nearest") {
      out = tap(y, x, std::nullopt);
    } else if (mode_ == "bilinear") {
      Value x1 = a_.floor(x), y1 = a_.floor(y);
      Value x2 = a_.add(x1, a_.k(1)), y2 = a_.add(y1, a_.k(1));
      Value dx1 = a_.sub(x, x1), dx2 = a_.sub(x2, x), dy1 = a_.sub(y, y1), dy2 = a_.sub(y2, y);
      out = tap(y1, x1, a_.mul(dy2, dx2));
      out = a_.add(out, tap(y1, x2, a_.mul(dy2, dx1)));
      out = a_.add(out, tap(y2, x1, a_.mul(dy1, dx2)));
      out = a_.add(out, tap(y2, x2, a_.mul(dy1, dx1)));
    } else {
      Value x0 = a_.sub(a_.floor(x), a_.k(1)), y0 = a_.sub(a_.floor(y), a_.k(1));
      auto cx = cubicCoeffs(a_.sub(x, a_.floor(x)));
      auto cy = cubicCoeffs(a_.sub(y, a_.floor(y)));
      bool first = true;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          Value t = tap(a_.add(y0, a_.k(i)), a_.add(x0, a_.k(j)), a_.mul(cy[i], cx[j]));
          out = first ? t : a_.add(out, t);
          first = false;
        }
    }
    out = c_.op("reshape", {out.expr, shape({n_, ch_, ho_, wo_})});
    if (!(c_.dtype(0) == a_.dt))
      out = c_.op("astype", {out.expr}, {{"dtype", c_.dtype(0)}});
    c_.output(0, out);
  }

private:
  static Expr shape(std::vector<PrimExpr> dims) { return make<ShapeExpr>(std::move(dims)); }

  Value unnormalize(const Value& g, int64_t len) {
    Value p = a_.add(g, a_.k(1));
    if (align_) // (g + 1) / 2 * (len - 1)
      return a_.mul(p, a_.k((len - 1) / 2.0));
    return a_.div(a_.sub(a_.mul(p, a_.k(double(len))), a_.k(1)), a_.k(2)); // ((g+1)*len-1)/2
  }

  /// Reflects x into [lo, hi], as many times as needed: the triangle wave
  /// lo + R - |mod(x - lo, 2R) - R| with R = hi - lo, which is GsReflect's
  /// result and uses x once (see tap() on why that matters).
  Value reflect(const Value& x, double lo, double hi) {
    double range = hi - lo;
    if (range <= 0) // one pixel (align_corners): every coordinate maps to it
      return c_.op("broadcast_to", {a_.k(lo).expr, make<ShapeExpr>(shapeOf(x))});
    Value m = c_.op("mod", {a_.sub(x, a_.k(lo)).expr, a_.k(2 * range).expr});
    Value d = c_.op("abs", {a_.sub(m, a_.k(range)).expr});
    return a_.sub(a_.k(lo + range), d);
  }

  static std::vector<PrimExpr> shapeOf(const Value& v) {
    auto* t = as<TensorSInfo>(v.sinfo);
    return t && t->shape ? *t->shape : std::vector<PrimExpr>{};
  }

  /// Cubic convolution weights of the 4 taps for a fraction t in [0, 1).
  std::vector<Value> cubicCoeffs(const Value& t) {
    const double A = -0.75;
    auto poly = [&](const Value& s, double c3, double c2, double c1, double c0) {
      // ((c3 * s + c2) * s + c1) * s + c0
      Value v = a_.add(a_.mul(s, a_.k(c3)), a_.k(c2));
      v = a_.add(a_.mul(v, s), a_.k(c1));
      return a_.add(a_.mul(v, s), a_.k(c0));
    };
    Value t1 = a_.add(t, a_.k(1)), u = a_.sub(a_.k(1), t), u1 = a_.sub(a_.k(2), t);
    // |s| in [1, 2): A s^3 - 5A s^2 + 8A s - 4A; |s| < 1: (A+2) s^3 - (A+3) s^2 + 1
    return {poly(t1, A, -5 * A, 8 * A, -4 * A), poly(t, A + 2, -(A + 3), 0, 1),
            poly(u, A + 2, -(A + 3), 0, 1), poly(u1, A, -5 * A, 8 * A, -4 * A)};
  }

  /// GsReflect of an integer coordinate, truncated as ONNX Runtime's cast.
  static int64_t reflectInt(int64_t v, double lo, double hi) {
    double x = static_cast<double>(v), range = hi - lo;
    if (range <= 0)
      return static_cast<int64_t>(lo);
    if (x < lo || x > hi) {
      double dx = x < lo ? lo - x : x - hi;
      auto n = static_cast<int64_t>(dx / range);
      double r = dx - static_cast<double>(n) * range;
      bool even = n % 2 == 0;
      x = (x < lo) == even ? lo + r : hi - r;
    }
    return static_cast<int64_t>(x);
  }

  /// Where a tap at (r, c) reads, for r in [-2, H+1] and c in [-2, W+1]
  /// (stored at (r + 2) * (W + 4) + c + 2): a flat index into the image, or
  /// H*W (an appended zero) for a tap outside it with zeros padding.
  Value tapTable() {
    int64_t rows = H_ + 4, cols = W_ + 4;
    std::vector<int64_t> t(rows * cols);
    for (int64_t pr = 0; pr < rows; ++pr)
      for (int64_t pc = 0; pc < cols; ++pc) {
        int64_t r = pr - 2, col = pc - 2, at;
        if (pad_ == "zeros")
          at = r >= 0 && r < H_ && col >= 0 && col < W_ ? r * W_ + col : H_ * W_;
        else if (pad_ == "border")
          at = std::clamp<int64_t>(r, 0, H_ - 1) * W_ + std::clamp<int64_t>(col, 0, W_ - 1);
        else
          at = std::clamp<int64_t>(reflectInt(r, ymin_, ymax_), 0, H_ - 1) * W_ +
               std::clamp<int64_t>(reflectInt(col, xmin_, xmax_), 0, W_ - 1);
        t[pr * cols + pc] = at;
      }
    return NodeContext::constant(int64Tensor(t, {rows * cols}));
  }

  /// The image at integer coordinates (r, c) (float tensors (N, Ho, Wo)),
  /// times the weight, as (N, C, Ho * Wo). The padding mode is a constant
  /// table lookup, so each coordinate is used once: the fused kernel inlines
  /// the coordinate arithmetic into every use, and a mode written as
  /// comparisons and selects would multiply its size per tap.
  Value tap(const Value& r, const Value& col, std::optional<Value> weight) {
    // Taps more than 2 pixels outside read like the nearest border of the
    // table (only zeros padding lets them get there: all are outside).
    Value rc = a_.add(a_.clip(r, -2, double(H_ + 1)), a_.k(2));
    Value cc = a_.add(a_.clip(col, -2, double(W_ + 1)), a_.k(2));
    Value flat = a_.add(a_.mul(rc, a_.k(double(W_ + 4))), cc);
    Value idx = c_.op("astype", {flat.expr}, {{"dtype", DataType::Int64()}});
    idx = c_.op("take", {table_.expr, idx.expr}, {{"axis", int64_t(0)}});
    PrimExpr hw = foldMul(ho_, wo_);
    idx = c_.op("reshape", {idx.expr, shape({n_, intImm(1), hw})});
    idx = c_.op("broadcast_to", {idx.expr, shape({n_, ch_, hw})});
    Value v = c_.op("gather_elements", {xflat_.expr, idx.expr}, {{"axis", int64_t(2)}});
    if (!weight)
      return v;
    Value wv = c_.op("reshape", {weight->expr, shape({n_, intImm(1), hw})});
    return a_.mul(v, wv);
  }

  NodeContext& c_;
  Arith a_;
  int64_t H_ = 0, W_ = 0;
  std::string mode_, pad_;
  bool align_ = false;
  PrimExpr n_, ch_, ho_, wo_;
  double xmin_ = 0, xmax_ = 0, ymin_ = 0, ymax_ = 0;
  Value xflat_, table_;
};

// ------------------------------------------------------------ ReverseSequence

void convertReverseSequence(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 2)
    c.unsupported("input must have rank >= 2");
  int64_t ta = c.attrInt("time_axis", 0), ba = c.attrInt("batch_axis", 1);
  if (!((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
    c.unsupported("time_axis and batch_axis must be 0 and 1 (either order)");
  auto xs = c.shape(0);
  auto t = asConstInt(xs[ta]);
  if (!t)
    c.unsupported("ReverseSequence needs a static size of the time axis");
  c.checkTableSize(double(*t), "ReverseSequence's step indices");
  std::vector<int64_t> tshape(rank, 1);
  tshape[ta] = *t;
  std::vector<int64_t> steps(*t);
  for (int64_t i = 0; i < *t; ++i)
    steps[i] = i;
  Value tv = NodeContext::constant(int64Tensor(steps, tshape));
  std::vector<PrimExpr> lshape(rank, intImm(1));
  lshape[ba] = xs[ba];
  Value lens = c.op("astype", {c.expr(1)}, {{"dtype", DataType::Int64()}});
  lens = c.op("reshape", {lens.expr, make<ShapeExpr>(lshape)});
  Value rev = c.op("subtract", {lens.expr, NodeContext::scalar(1, DataType::Int64()).expr});
  rev = c.op("subtract", {rev.expr, tv.expr});
  Value live = c.op("less", {tv.expr, lens.expr});
  Value idx = c.op("where", {live.expr, rev.expr, tv.expr});
  idx = c.op("broadcast_to", {idx.expr, make<ShapeExpr>(xs)});
  c.output(0, c.op("gather_elements", {c.expr(0), idx.expr}, {{"axis", ta}}));
}

// ---------------------------------------------------------------- MaxUnpool

void convertMaxUnpool(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 3)
    c.unsupported("input must have rank >= 3 (N, C, spatial...)");
  int sp = rank - 2;
  auto xs = c.staticShape(0, "MaxUnpool");
  auto k = c.attrInts("kernel_shape");
  auto strides = c.attrInts("strides", std::vector<int64_t>(sp, 1));
  auto pads = c.attrInts("pads", std::vector<int64_t>(2 * sp, 0));
  if (static_cast<int>(k.size()) != sp || static_cast<int>(strides.size()) != sp ||
      static_cast<int>(pads.size()) != 2 * sp)
    c.unsupported("kernel_shape/strides/pads do not match the spatial rank");
  std::vector<int64_t> inferred{xs[0], xs[1]};
  for (int i = 0; i < sp; ++i)
    inferred.push_back((xs[2 + i] - 1) * strides[i] - pads[i] - pads[sp + i] + k[i]);
  std::vector<int64_t> out = inferred;
  bool runTimeShape = c.has(2) && !c.constant(2);
  if (c.has(2) && !runTimeShape) {
    out = c.constInts(2, "MaxUnpool's output_shape");
    if (static_cast<int>(out.size()) != rank)
      c.unsupported("output_shape must have " + std::to_string(rank) + " values");
  }
  double totalD = 1, countD = 1;
  for (int i = 0; i < rank; ++i) {
    totalD *= double(inferred[i]);
    countD *= double(xs[i]);
  }
  if (!(totalD < 9e15 && countD < 9e15))
    c.unsupported("the tensor sizes overflow");
  int64_t total = 1, count = 1;
  std::vector<int64_t> padWidth;
  for (int i = 0; i < rank; ++i) {
    if (inferred[i] < 0 || (!runTimeShape && out[i] < inferred[i]))
      c.unsupported("output_shape " + Tensor::shapeStr(out) + " is smaller than the unpooled " +
                    "shape " + Tensor::shapeStr(inferred));
    total *= inferred[i];
    padWidth.push_back(0);
    padWidth.push_back(out[i] - inferred[i]);
  }
  for (auto d : xs)
    count *= d;
  auto flat = [&](int64_t n) { return make<ShapeExpr>(std::vector<PrimExpr>{intImm(n)}); };
  Value vals = c.op("reshape", {c.expr(0), flat(count)});
  Value idx = c.op("reshape", {c.expr(1), flat(count)});
  Value zeros = c.op("broadcast_to", {NodeContext::scalar(0, c.dtype(0)).expr, flat(total)});
  Value y = c.op("scatter_elements", {zeros.expr, idx.expr, vals.expr}, {{"axis", int64_t(0)}});
  std::vector<PrimExpr> inferredShape;
  for (auto d : inferred)
    inferredShape.push_back(intImm(d));
  y = c.op("reshape", {y.expr, make<ShapeExpr>(inferredShape)});
  if (runTimeShape) {
    // output_shape read from data: the zeros appended after each dim, its
    // value minus the unpooled dim, become fresh shape variables (a negative
    // one, an output_shape smaller than the unpooled shape, is refused when
    // read), and each dim grows by a concat with a block of zeros.
    auto* ts = as<TensorSInfo>(c.value(2).sinfo);
    std::optional<int64_t> len;
    if (ts && ts->ndim == 1 && ts->shape)
      len = asConstInt((*ts->shape)[0]);
    if (!len || *len != rank || !ts->dtype.isIntegral())
      c.unsupported("output_shape must be a 1-D integer tensor of " + std::to_string(rank) +
                    " values");
    Value want = c.in(2);
    if (!(ts->dtype == DataType::Int64()))
      want = c.op("astype", {want.expr}, {{"dtype", DataType::Int64()}});
    Value extra =
        c.op("subtract", {want.expr, NodeContext::constant(int64Tensor(inferred, {rank})).expr});
    auto widths = c.runtimeShape(extra, c.node.output(0) + "_pad", {},
                                 "MaxUnpool's output_shape must not be smaller than the "
                                 "unpooled shape " +
                                     Tensor::shapeStr(inferred));
    Expr zero = NodeContext::scalar(0, c.dtype(0)).expr;
    std::vector<PrimExpr> shape = inferredShape;
    for (int i = 0; i < rank; ++i) {
      auto blockShape = shape;
      blockShape[i] = widths[i];
      Value block = c.op("broadcast_to", {zero, make<ShapeExpr>(blockShape)});
      Expr parts =
          make<Tuple>(std::vector<Expr>{y.expr, block.expr}, tupleSInfo({y.sinfo, block.sinfo}));
      y = c.op("concat", {parts}, {{"axis", int64_t(i)}});
      shape[i] = shape[i] + widths[i];
    }
  } else if (out != inferred)
    y = c.op("nn.pad", {y.expr}, {{"pad_width", padWidth}});
  c.output(0, y);
}

// ---------------------------------------------------------------------- Det

void convertDet(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 2)
    c.unsupported("input must have rank >= 2 (..., M, M)");
  auto xs = c.shape(0);
  auto m = asConstInt(xs[rank - 1]), m2 = asConstInt(xs[rank - 2]);
  if (!m || !m2 || *m != *m2)
    c.unsupported("Det needs square matrices of a static size");
  if (*m > 3)
    c.unsupported("Det of " + std::to_string(*m) + "x" + std::to_string(*m) +
                  " matrices needs a factorization (1x1 to 3x3 are supported)");
  Arith a{c, c.dtype(0)};
  auto at = [&](int64_t i, int64_t j) {
    Value s = c.op("strided_slice", {c.expr(0)},
                   {{"axes", std::vector<int64_t>{rank - 2, rank - 1}},
                    {"begin", std::vector<int64_t>{i, j}},
                    {"end", std::vector<int64_t>{i + 1, j + 1}}});
    return c.op("squeeze", {s.expr}, {{"axis", std::vector<int64_t>{rank - 2, rank - 1}}});
  };
  if (*m == 1) {
    c.output(0, at(0, 0));
    return;
  }
  if (*m == 2) {
    c.output(0, a.sub(a.mul(at(0, 0), at(1, 1)), a.mul(at(0, 1), at(1, 0))));
    return;
  }
  // 3x3: expansion along the first row.
  auto minor = [&](int64_t j0, int64_t j1) {
    return a.sub(a.mul(at(1, j0), at(2, j1)), a.mul(at(1, j1), at(2, j0)));
  };
  Value d = a.mul(at(0, 0), minor(1, 2));
  d = a.sub(d, a.mul(at(0, 1), minor(0, 2)));
  c.output(0, a.add(d, a.mul(at(0, 2), minor(0, 1))));
}

// ----------------------------------------------------------------- RoiAlign

/// RoiAlign (opset 16 modes), average pooling with a fixed sampling_ratio.
/// Bilinear sampling is separable, so each ROI's output is Ay X Ax^T with
/// per-ROI interpolation matrices Ay (oh, H) and Ax (ow, W), built at run
/// time from the ROI boxes: one_hot rows of the low and high taps times their
/// weights, averaged over the samples of a bin. The tap rules are ONNX
/// Runtime's: a sample outside [-1, size] contributes nothing, a coordinate
/// is clamped to [0, size - 1], the high tap is clamped too.
void convertRoiAlign(NodeContext& c) {
  if (c.rank(0) != 4 || c.rank(1) != 2 || c.rank(2) != 1)
    c.unsupported("X must be (N, C, H, W), rois (R, 4) and batch_indices (R)");
  DataType dt = c.dtype(0);
  if (!dt.isFloat())
    c.unsupported("X must be floating-point");
  auto xs = c.shape(0);
  auto h = asConstInt(xs[2]), w = asConstInt(xs[3]);
  if (!h || !w)
    c.unsupported("RoiAlign needs a static image size (H, W) of X");
  std::string mode = c.attrString("mode", "avg");
  if (mode != "avg")
    c.unsupported("mode='" + mode + "' (avg is supported)");
  std::string ctm = c.attrString("coordinate_transformation_mode", "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    c.unsupported("coordinate_transformation_mode='" + ctm + "'");
  int64_t oh = c.attrInt("output_height", 1), ow = c.attrInt("output_width", 1);
  int64_t sr = c.attrInt("sampling_ratio", 0);
  if (sr <= 0)
    c.unsupported("sampling_ratio=0 (adaptive) makes the sample count depend on the ROI sizes; "
                  "a fixed sampling_ratio is supported");
  if (oh < 1 || ow < 1)
    c.unsupported("output_height and output_width must be positive");
  c.checkTableSize(double(std::max(oh, ow)) * double(sr), "RoiAlign's sample offsets");
  double scale = c.attrFloat("spatial_scale", 1.0);
  bool halfPixel = ctm == "half_pixel";
  Arith a{c, dt};
  Value rois = c.in(1);
  if (!(c.dtype(1) == dt))
    rois = c.op("astype", {rois.expr}, {{"dtype", dt}});
  auto coord = [&](int64_t k) { // rois[:, k] * scale - offset, (R, 1)
    Value v = c.op("strided_slice", {rois.expr},
                   {{"axes", std::vector<int64_t>{1}},
                    {"begin", std::vector<int64_t>{k}},
                    {"end", std::vector<int64_t>{k + 1}}});
    return a.sub(a.mul(v, a.k(scale)), a.k(halfPixel ? 0.5 : 0.0));
  };
  // Interpolation matrix (R, out, size) along one axis from box [lo, hi].
  auto axisMatrix = [&](const Value& lo, const Value& hi, int64_t out, int64_t size) {
    Value extent = a.sub(hi, lo);
    if (!halfPixel)
      extent = c.op("maximum", {extent.expr, a.k(1).expr});
    Value bin = a.div(extent, a.k(double(out)));
    Tensor f(dt, {out * sr});
    for (int64_t p = 0; p < out; ++p)
      for (int64_t i = 0; i < sr; ++i)
        f.setDouble(p * sr + i, double(p) + (double(i) + 0.5) / double(sr));
    Value pos = a.add(lo, a.mul(bin, NodeContext::constant(std::move(f)))); // (R, out*sr)
    Value valid = a.land(c.op("greater_equal", {pos.expr, a.k(-1).expr}),
                         c.op("less_equal", {pos.expr, a.k(double(size)).expr}));
    Value pc = a.clip(pos, 0, double(size - 1));
    Value low = a.floor(pc);
    Value high = c.op("minimum", {a.add(low, a.k(1)).expr, a.k(double(size - 1)).expr});
    Value lw = a.sub(pc, low); // weight of the high tap
    Value zero = a.k(0);
    Value wHigh = a.where(valid, lw, zero);
    Value wLow = a.where(valid, a.sub(a.k(1), lw), zero);
    auto onehot = [&](const Value& idx, const Value& wt) {
      Value i = c.op("astype", {idx.expr}, {{"dtype", DataType::Int64()}});
      Value m = c.op("one_hot", {i.expr},
                     {{"depth", size},
                      {"axis", int64_t(-1)},
                      {"on_value", 1.0},
                      {"off_value", 0.0},
                      {"dtype", dt}});
      Value we = c.op("expand_dims", {wt.expr}, {{"axis", std::vector<int64_t>{2}}});
      return a.mul(m, we); // (R, out*sr, size)
    };
    Value mat = a.add(onehot(low, wLow), onehot(high, wHigh));
    PrimExpr r = c.shape(1)[0];
    mat = c.op("reshape",
               {mat.expr,
                make<ShapeExpr>(std::vector<PrimExpr>{r, intImm(out), intImm(sr), intImm(size)})});
    mat = c.op("sum", {mat.expr}, {{"axis", std::vector<int64_t>{2}}, {"keepdims", false}});
    return a.mul(mat, a.k(1.0 / double(sr))); // (R, out, size)
  };
  Value ay = axisMatrix(coord(1), coord(3), oh, *h);
  Value ax = axisMatrix(coord(0), coord(2), ow, *w);
  Value bi = c.op("astype", {c.expr(2)}, {{"dtype", DataType::Int64()}});
  Value xr = c.op("take", {c.expr(0), bi.expr}, {{"axis", int64_t(0)}});    // (R, C, H, W)
  ay = c.op("expand_dims", {ay.expr}, {{"axis", std::vector<int64_t>{1}}}); // (R, 1, oh, H)
  Value axT = c.op("permute_dims", {ax.expr}, {{"axes", std::vector<int64_t>{0, 2, 1}}});
  axT = c.op("expand_dims", {axT.expr}, {{"axis", std::vector<int64_t>{1}}}); // (R, 1, W, ow)
  Value t = c.op("matmul", {ay.expr, xr.expr});
  c.output(0, c.op("matmul", {t.expr, axT.expr}));
}

} // namespace

void addSamplingConverters(ConverterTable& t) {
  t["GridSample"] = {[](NodeContext& c) { GridSampler(c).run(); },
                     {"align_corners", "mode", "padding_mode"}};
  t["ReverseSequence"] = {convertReverseSequence, {"batch_axis", "time_axis"}};
  t["MaxUnpool"] = {convertMaxUnpool, {"kernel_shape", "pads", "strides"}};
  t["Det"] = {convertDet, {}};
  t["RoiAlign"] = {convertRoiAlign,
                   {"coordinate_transformation_mode", "mode", "output_height", "output_width",
                    "sampling_ratio", "spatial_scale"}};
}

} // namespace unity::frontend::detail
