// ONNX integer and quantized-linear operators: MatMulInteger, ConvInteger,
// QLinearMatMul, QLinearConv, composed from astype / subtract / matmul / conv
// and the requantization arithmetic.
//
// The integer products are accumulated in int32 as the specification says:
// operands are widened to int32 and their zero points subtracted before the
// matmul or convolution, so the result is exact (8-bit operands cannot
// overflow int32 for any realistic reduction length). The QLinear forms then
// requantize: y = saturate(round(acc * (a_scale * b_scale / y_scale)) + y_zp)
// with round half to even, in the scales' float type, as ONNX Runtime does.
//
// Zero points: a's may be per row (1-D of M for MatMul), b's per column
// (1-D of N), w's per output channel (1-D of M for Conv); scalars and
// one-element tensors broadcast.
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

bool is8Bit(DataType d) { return d == DataType::UInt(8) || d == DataType::Int(8); }

Value widened(NodeContext& c, int i) {
  if (!is8Bit(c.dtype(i)))
    c.unsupported("input '" + c.node.input(i) + "' must be uint8 or int8, not " + c.dtype(i).str());
  return c.op("astype", {c.expr(i)}, {{"dtype", DataType::Int32()}});
}

/// The zero point of input `zp`, widened to int32 and shaped to broadcast
/// against an operand of rank `rank` along `axis` (when it is 1-D of more
/// than one element).
Value zeroPoint(NodeContext& c, int zp, int rank, int axis) {
  Value z = c.op("astype", {c.expr(zp)}, {{"dtype", DataType::Int32()}});
  if (c.rank(zp) == 0)
    return z;
  if (c.rank(zp) != 1)
    c.unsupported("zero point '" + c.node.input(zp) + "' must be a scalar or 1-D");
  auto n = asConstInt(c.shape(zp)[0]);
  if (n && *n == 1)
    return c.op("reshape", {z.expr, make<ShapeExpr>(std::vector<PrimExpr>{})});
  std::vector<PrimExpr> shape(rank, intImm(1));
  shape[axis] = c.shape(zp)[0];
  return c.op("reshape", {z.expr, make<ShapeExpr>(shape)});
}

/// (operand widened) - (zero point), or the widened operand when absent.
Value centered(NodeContext& c, int x, int zp, int axis) {
  Value v = widened(c, x);
  if (!c.has(zp))
    return v;
  if (!(c.dtype(zp) == c.dtype(x)))
    c.unsupported("zero point '" + c.node.input(zp) + "' has type " + c.dtype(zp).str() +
                  ", its operand " + c.dtype(x).str());
  return c.op("subtract", {v.expr, zeroPoint(c, zp, c.rank(x), axis).expr});
}

/// int32 (a - a_zp) @ (b - b_zp), zero points at inputs az and bz.
Value integerMatMul(NodeContext& c, int a, int az, int b, int bz) {
  int ra = c.rank(a), rb = c.rank(b);
  if (ra < 1 || rb < 1)
    c.unsupported("operands must have rank >= 1");
  // a's zero point is per row (axis -2 of a), b's per column (axis -1 of b).
  Value av = centered(c, a, az, ra >= 2 ? ra - 2 : 0);
  Value bv = centered(c, b, bz, rb - 1);
  return c.op("matmul", {av.expr, bv.expr});
}

/// int32 convolution of (x - x_zp) and (w - w_zp) with Conv's attributes.
Value integerConv(NodeContext& c, int x, int xz, int w, int wz) {
  int rank = c.rank(x);
  if (rank < 3 || rank > 5)
    c.unsupported(std::to_string(rank - 2) + "-D convolution is not supported");
  int sp = rank - 2;
  auto wshape = c.staticShape(w, "the weight of an integer convolution");
  if (static_cast<int>(wshape.size()) != rank)
    c.unsupported("the weight has rank " + std::to_string(wshape.size()) + ", the input " +
                  std::to_string(rank));
  std::vector<int64_t> k(wshape.begin() + 2, wshape.end());
  if (c.hasAttr("kernel_shape") && c.attrInts("kernel_shape") != k)
    c.unsupported("kernel_shape differs from the weight's shape");
  auto strides = c.attrInts("strides", std::vector<int64_t>(sp, 1));
  auto dil = c.attrInts("dilations", std::vector<int64_t>(sp, 1));
  if (static_cast<int>(strides.size()) != sp || static_cast<int>(dil.size()) != sp)
    c.unsupported("strides/dilations do not match the spatial rank");
  auto pads = resolvePads(c, sp, k, strides, dil, x);
  // The padding is of the centered operand: ONNX pads x with its zero point,
  // which is 0 after the subtraction.
  Value xv = centered(c, x, xz, 1);
  Value wv = centered(c, w, wz, 0);
  static const char* ops[] = {"nn.conv1d", "nn.conv2d", "nn.conv3d"};
  return c.op(ops[sp - 1], {xv.expr, wv.expr},
              {{"strides", strides},
               {"dilation", dil},
               {"padding", pads},
               {"groups", c.attrInt("group", 1)}});
}

/// saturate(round(acc * a_scale * b_scale / y_scale) + y_zp) in y_zp's type.
Value requantize(NodeContext& c, Value acc, int as, int bs, int bsAxis, int ys, int yz,
                 int accRank) {
  DataType ft = c.dtype(as);
  if (!ft.isFloat())
    c.unsupported("scales must be floating-point");
  DataType out = c.dtype(yz);
  if (!is8Bit(out))
    c.unsupported("y_zero_point must be uint8 or int8, not " + out.str());
  auto scale = [&](int i, int axis) {
    if (c.rank(i) == 0)
      return c.in(i);
    auto n = asConstInt(c.shape(i)[0]);
    if (c.rank(i) == 1 && n && *n == 1)
      return c.op("reshape", {c.expr(i), make<ShapeExpr>(std::vector<PrimExpr>{})});
    if (c.rank(i) != 1 || axis < 0)
      c.unsupported("scale '" + c.node.input(i) + "' must be a scalar here");
    std::vector<PrimExpr> shape(accRank, intImm(1));
    shape[axis] = c.shape(i)[0];
    return c.op("reshape", {c.expr(i), make<ShapeExpr>(shape)});
  };
  Value m = c.op("multiply", {scale(as, -1).expr, scale(bs, bsAxis).expr});
  m = c.op("divide", {m.expr, scale(ys, -1).expr});
  Value y = c.op("astype", {acc.expr}, {{"dtype", ft}});
  y = c.op("multiply", {y.expr, m.expr});
  y = c.op("round", {y.expr});
  Value zp = c.op("astype", {zeroPoint(c, yz, accRank, 0).expr}, {{"dtype", ft}});
  y = c.op("add", {y.expr, zp.expr});
  bool u = out == DataType::UInt(8);
  y = c.op("clip", {y.expr}, {{"min", u ? 0.0 : -128.0}, {"max", u ? 255.0 : 127.0}});
  return c.op("astype", {y.expr}, {{"dtype", out}});
}

int rankOf(const Value& v) {
  auto* t = as<TensorSInfo>(v.sinfo);
  return t ? t->ndim : -1;
}

const std::vector<std::string> kConvAttrs{"auto_pad",     "dilations", "group",
                                          "kernel_shape", "pads",      "strides"};

} // namespace

void addQuantConverters(ConverterTable& t) {
  t["MatMulInteger"] = {[](NodeContext& c) { c.output(0, integerMatMul(c, 0, 2, 1, 3)); }, {}};
  t["ConvInteger"] = {[](NodeContext& c) { c.output(0, integerConv(c, 0, 2, 1, 3)); }, kConvAttrs};
  t["QLinearMatMul"] = {[](NodeContext& c) {
                          // a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
                          Value acc = integerMatMul(c, 0, 2, 3, 5);
                          int r = rankOf(acc);
                          c.output(0, requantize(c, acc, 1, 4, r - 1, 6, 7, r));
                        },
                        {}};
  t["QLinearConv"] = {[](NodeContext& c) {
                        // x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B (int32)]
                        Value acc = integerConv(c, 0, 2, 3, 5);
                        int r = rankOf(acc);
                        if (c.has(8)) {
                          if (!(c.dtype(8) == DataType::Int32()))
                            c.unsupported("bias must be int32");
                          std::vector<PrimExpr> shape(r, intImm(1));
                          shape[1] = c.shape(8)[0];
                          Value b = c.op("reshape", {c.expr(8), make<ShapeExpr>(shape)});
                          acc = c.op("add", {acc.expr, b.expr});
                        }
                        c.output(0, requantize(c, acc, 1, 4, 1, 6, 7, r));
                      },
                      kConvAttrs};
}

} // namespace unity::frontend::detail
