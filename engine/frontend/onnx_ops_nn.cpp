// ONNX neural-network operators: Conv/ConvTranspose (1-D to 3-D), Gemm,
// MatMul, BatchNormalization, pooling, Softmax/LogSoftmax, LayerNormalization,
// InstanceNormalization, MeanVarianceNormalization, LRN, Resize.
//
// Padding: ONNX pads are [begin_1..begin_n, end_1..end_n], the order our
// conv/pool `padding` uses too. auto_pad SAME_* is resolved here from the
// static spatial size: out = ceil(in / stride), total = max(0, (out - 1) *
// stride + (k - 1) * dilation + 1 - in), SAME_UPPER puts the odd pixel at the
// end, SAME_LOWER at the beginning.
//
// Softmax before opset 13 flattens the input to 2-D at `axis` (default 1) and
// normalizes over the whole trailing block; from 13 on it is per-axis
// (default -1). 1-D pooling runs as 2-D pooling over a unit height, 3-D
// pooling uses the NCDHW pooling ops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/frontend/onnx_convert.h"
#include "engine/op/shape_arith.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

Expr sc(double v, DataType dt) { return NodeContext::scalar(v, dt).expr; }

} // namespace

std::vector<int64_t> resolvePads(NodeContext& c, int spatial, const std::vector<int64_t>& k,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dil, int dataInput) {
  for (int d = 0; d < spatial; ++d)
    if (k[d] < 1 || strides[d] < 1 || dil[d] < 1)
      c.unsupported("kernel_shape, strides and dilations must be positive (spatial axis " +
                    std::to_string(d) + ": " + std::to_string(k[d]) + ", " +
                    std::to_string(strides[d]) + ", " + std::to_string(dil[d]) + ")");
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = c.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (static_cast<int>(pads.size()) != 2 * spatial)
    c.unsupported("pads has " + std::to_string(pads.size()) + " values, expected " +
                  std::to_string(2 * spatial));
  if (autoPad == "NOTSET")
    return pads;
  if (autoPad == "VALID")
    return std::vector<int64_t>(2 * spatial, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    c.unsupported("auto_pad='" + autoPad + "'");
  auto shape = c.staticShape(dataInput, ("auto_pad=" + autoPad).c_str());
  for (int i = 0; i < spatial; ++i) {
    int64_t in = shape[2 + i];
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + (k[i] - 1) * dil[i] + 1 - in);
    int64_t small = total / 2, big = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : big;
    pads[i + spatial] = autoPad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

namespace {

/// y + bias reshaped to (C, 1, ...) so it broadcasts over the channel axis.
Value addChannelBias(NodeContext& c, Value y, int biasInput, int rank) {
  if (!c.has(biasInput))
    return y;
  std::vector<int64_t> axes;
  for (int i = 1; i < rank - 1; ++i)
    axes.push_back(i);
  Value b = c.in(biasInput);
  if (b.data) {
    std::vector<int64_t> shape(rank - 1, 1);
    shape[0] = b.data->numel();
    b = NodeContext::constant(b.data->reshaped(shape));
  } else if (!axes.empty()) {
    b = c.op("expand_dims", {b.expr}, {{"axis", axes}});
  }
  return c.op("add", {y.expr, b.expr});
}

void convertConv(NodeContext& c, bool transpose) {
  int rank = c.rank(0);
  if (rank < 3 || rank > 5)
    c.unsupported(std::to_string(rank - 2) +
                  "-D convolution is not supported (1-D, 2-D and 3-D are)");
  int sp = rank - 2;
  auto wshape = c.staticShape(1, "Conv");
  if (static_cast<int>(wshape.size()) != rank)
    c.unsupported("the weight has rank " + std::to_string(wshape.size()) + ", the input " +
                  std::to_string(rank) + " (they must match)");
  std::vector<int64_t> k(wshape.begin() + 2, wshape.end());
  if (c.hasAttr("kernel_shape") && c.attrInts("kernel_shape") != k)
    c.unsupported("kernel_shape differs from the weight's shape");
  auto strides = c.attrInts("strides", std::vector<int64_t>(sp, 1));
  auto dil = c.attrInts("dilations", std::vector<int64_t>(sp, 1));
  if (static_cast<int>(strides.size()) != sp || static_cast<int>(dil.size()) != sp)
    c.unsupported("strides/dilations do not match the spatial rank");
  int64_t group = c.attrInt("group", 1);
  Attrs a;
  a.set("strides", strides);
  a.set("dilation", dil);
  a.set("groups", group);
  if (transpose) {
    // 1-D runs as 2-D over a unit height: every spatial list gets a leading
    // neutral entry, input and weight a unit axis 2 (squeezed at the end).
    // `ns` is the spatial rank of the op used (2 or 3).
    bool lift = sp == 1;
    size_t ns = lift ? 2 : static_cast<size_t>(sp);
    auto lifted = [&](std::vector<int64_t> v, int64_t neutral, int per) {
      if (!lift || static_cast<int>(v.size()) != per)
        return v;
      if (per == 2) // pads [begin, end]
        return std::vector<int64_t>{neutral, v[0], neutral, v[1]};
      v.insert(v.begin(), neutral);
      return v;
    };
    Value xin = c.in(0), win = c.in(1);
    if (lift) {
      k.insert(k.begin(), 1);
      strides.insert(strides.begin(), 1);
      dil.insert(dil.begin(), 1);
      a.set("strides", strides);
      a.set("dilation", dil);
      xin = c.op("expand_dims", {xin.expr}, {{"axis", std::vector<int64_t>{2}}});
      win = c.op("expand_dims", {win.expr}, {{"axis", std::vector<int64_t>{2}}});
    }
    std::string autoPad = c.attrString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER")
      c.unsupported("auto_pad='" + autoPad + "' for ConvTranspose");
    auto pads = autoPad == "VALID"
                    ? std::vector<int64_t>(2 * ns, 0)
                    : lifted(c.attrInts("pads", std::vector<int64_t>(2 * sp, 0)), 0, 2);
    auto outPad = lifted(c.attrInts("output_padding", std::vector<int64_t>(sp, 0)), 0, 1);
    if (pads.size() != 2 * ns || outPad.size() != ns)
      c.unsupported("pads/output_padding do not match the spatial rank");
    // output_shape (or SAME_*: output = input * stride) fixes the pads, as
    // the ONNX spec computes them: total = stride * (in - 1) + output_padding
    // + (k - 1) * dilation + 1 - out, split floor-wise between begin and
    // end (SAME_UPPER puts the larger half at the end). A negative end pad
    // extends the output: it becomes extra output_padding.
    if (c.hasAttr("output_shape") || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      auto xs = c.staticShape(0, "ConvTranspose with output_shape or SAME auto_pad");
      if (lift)
        xs.insert(xs.begin() + 2, 1);
      std::vector<int64_t> outShape = c.attrInts("output_shape");
      if (static_cast<int>(outShape.size()) == sp + 2)
        outShape.erase(outShape.begin(), outShape.begin() + 2);
      if (c.hasAttr("output_shape"))
        outShape = lifted(outShape, 1, 1);
      if (!c.hasAttr("output_shape")) {
        outShape.clear();
        for (size_t i = 0; i < ns; ++i)
          outShape.push_back(xs[2 + i] * strides[i]);
      }
      if (outShape.size() != ns)
        c.unsupported("output_shape must give " + std::to_string(sp) + " spatial sizes");
      auto floorDiv2 = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
      for (size_t i = 0; i < ns; ++i) {
        int64_t total =
            strides[i] * (xs[2 + i] - 1) + outPad[i] + (k[i] - 1) * dil[i] + 1 - outShape[i];
        int64_t half = floorDiv2(total);
        int64_t begin = autoPad == "SAME_UPPER" ? half : total - half;
        int64_t end = total - begin;
        if (begin < 0)
          c.unsupported("output_shape needs a negative leading pad");
        if (end < 0) {
          outPad[i] -= end;
          end = 0;
        }
        pads[i] = begin;
        pads[i + ns] = end;
      }
    }
    a.set("padding", pads);
    a.set("output_padding", outPad);
    Value y =
        c.op(ns == 3 ? "nn.conv3d_transpose" : "nn.conv2d_transpose", {xin.expr, win.expr}, a);
    if (lift)
      y = c.op("squeeze", {y.expr}, {{"axis", std::vector<int64_t>{2}}});
    c.output(0, addChannelBias(c, y, 2, rank));
    return;
  }
  a.set("padding", resolvePads(c, sp, k, strides, dil, 0));
  static const char* ops[] = {"nn.conv1d", "nn.conv2d", "nn.conv3d"};
  Value y = c.op(ops[sp - 1], {c.expr(0), c.expr(1)}, a);
  c.output(0, addChannelBias(c, y, 2, rank));
}

/// The transpose of a 2-D value. A constant (Gemm's weight with transB=1, as
/// classifiers export it) is transposed here, once: FoldConstant leaves
/// tensors above its size limit alone (fold.max_elements), and a
/// permute_dims left in the graph would copy the weight on every run.
Value transposed2D(NodeContext& c, const Value& v) {
  if (v.data && v.data->ndim() == 2) {
    const Tensor& src = *v.data;
    int64_t rows = src.shape()[0], cols = src.shape()[1];
    size_t size = src.dtype().bytes();
    Tensor t(src.dtype(), {cols, rows});
    auto* from = static_cast<const std::byte*>(src.data());
    auto* to = static_cast<std::byte*>(t.mutableData());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(to + (j * rows + i) * size, from + (i * cols + j) * size, size);
    return NodeContext::constant(std::move(t));
  }
  return c.op("permute_dims", {v.expr}, {{"axes", std::vector<int64_t>{1, 0}}});
}

void convertGemm(NodeContext& c) {
  Value a = c.in(0), b = c.in(1);
  if (c.rank(0) != 2 || c.rank(1) != 2)
    c.unsupported("Gemm needs 2-D A and B");
  if (c.attrInt("transA", 0))
    a = transposed2D(c, a);
  if (c.attrInt("transB", 0))
    b = transposed2D(c, b);
  DataType dt = c.dtype(0);
  double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  Value y = c.op("matmul", {a.expr, b.expr});
  if (alpha != 1.0)
    y = c.op("multiply", {y.expr, sc(alpha, dt)});
  // Opsets 1..6: `broadcast` lets C broadcast to (M, N) (numpy-style,
  // which is what we do always); without it C must already be (M, N).
  if (c.opset >= 7 && c.hasAttr("broadcast"))
    c.unsupported("attribute 'broadcast' exists only before opset 7");
  if (c.has(2) && beta != 0.0) {
    Value bias = c.in(2);
    if (beta != 1.0)
      bias = c.op("multiply", {bias.expr, sc(beta, dt)});
    y = c.op("add", {y.expr, bias.expr});
  }
  c.output(0, y);
}

void convertBatchNorm(NodeContext& c) {
  // Opsets 1..6: is_test defaults to 0, i.e. normalizing with the batch's
  // own statistics (training); only is_test=1 is the inference formula.
  if (c.opset < 7 && c.attrInt("is_test", 0) == 0)
    c.unsupported("opset " + std::to_string(c.opset) +
                  " BatchNormalization with is_test=0 (training mode) is not supported");
  if (c.opset >= 7 && c.hasAttr("is_test"))
    c.unsupported("attribute 'is_test' exists only before opset 7");
  if (c.attrInt("spatial", 1) != 1)
    c.unsupported("spatial=0 is not supported");
  if (c.attrInt("training_mode", 0)) {
    // Opset 14+ training mode: normalize with the batch's statistics over
    // every axis but 1 (population variance, as the spec's reference), and
    // output the updated running mean/variance:
    // running = input * momentum + batch * (1 - momentum).
    int rank = c.rank(0);
    DataType dt = c.dtype(0);
    std::vector<int64_t> axes{0};
    for (int i = 2; i < rank; ++i)
      axes.push_back(i);
    double eps = c.attrFloat("epsilon", 1e-5), mom = c.attrFloat("momentum", 0.9);
    Value mean = c.op("mean", {c.expr(0)}, {{"axis", axes}, {"keepdims", false}});
    auto perChannel = [&](const Value& v) { // (C) -> (C, 1, ...)
      std::vector<int64_t> ex;
      for (int i = 1; i < rank - 1; ++i)
        ex.push_back(i);
      return ex.empty() ? v : c.op("expand_dims", {v.expr}, {{"axis", ex}});
    };
    Value centered = c.op("subtract", {c.expr(0), perChannel(mean).expr});
    Value var = c.op("mean", {c.op("multiply", {centered.expr, centered.expr}).expr},
                     {{"axis", axes}, {"keepdims", false}});
    Value inv = c.op("rsqrt", {c.op("add", {var.expr, sc(eps, dt)}).expr});
    Value y = c.op("multiply", {centered.expr, perChannel(inv).expr});
    y = c.op("multiply", {y.expr, perChannel(c.in(1)).expr});
    y = c.op("add", {y.expr, perChannel(c.in(2)).expr});
    auto running = [&](int input, const Value& batch) {
      Value a = c.op("multiply", {c.expr(input), sc(mom, dt)});
      Value b = c.op("multiply", {batch.expr, sc(1 - mom, dt)});
      return c.op("add", {a.expr, b.expr});
    };
    Value rm = running(3, mean), rv = running(4, var);
    c.output(0, y);
    c.output(1, rm);
    c.output(2, rv);
    return;
  }
  for (int i = 1; i < c.node.output_size(); ++i)
    if (!c.node.output(i).empty())
      c.unsupported("the running mean/variance outputs (training) are not supported");
  c.output(0, c.op("nn.batch_norm", {c.expr(0), c.expr(1), c.expr(2), c.expr(3), c.expr(4)},
                   {{"axis", int64_t(1)}, {"epsilon", c.attrFloat("epsilon", 1e-5)}}));
}

/// MaxPool with its Indices output, composed from gathers over a static
/// shape: the input, padded with -inf (and the ceil_mode overhang), is
/// flattened per (n, c); a constant table lists, per output position and
/// window tap, the padded flat position, so take() gives the windows
/// (N, C, P, K); their max is the value and their argmax the tap. A second
/// table maps (position, tap) to the tap's flat spatial index in the input
/// (row-major, or column-major for storage_order=1), to which
/// (n * C + c) * spatial size is added: ONNX's Indices.
void convertMaxPoolWithIndices(NodeContext& c, int sp, const std::vector<int64_t>& k,
                               const std::vector<int64_t>& strides, const std::vector<int64_t>& dil,
                               const std::vector<int64_t>& pads, bool ceil) {
  auto xs = c.staticShape(0, "MaxPool's Indices output");
  if (!c.dtype(0).isFloat())
    c.unsupported("the Indices output needs a float input");
  bool colMajor = c.attrInt("storage_order", 0) != 0;
  std::vector<int64_t> in(xs.begin() + 2, xs.end()), out(sp), padded(sp), after(sp);
  for (int d = 0; d < sp; ++d) {
    int64_t span = dil[d] * (k[d] - 1) + 1;
    int64_t num = in[d] + pads[d] + pads[sp + d] - span;
    if (num < 0)
      c.unsupported("the window is larger than the padded input");
    out[d] = (ceil ? (num + strides[d] - 1) / strides[d] : num / strides[d]) + 1;
    int64_t need = (out[d] - 1) * strides[d] + span;
    after[d] = std::max(pads[sp + d], need - in[d] - pads[d]);
    padded[d] = in[d] + pads[d] + after[d];
  }
  int64_t P = 1, K = 1, S = 1, PF = 1;
  for (int d = 0; d < sp; ++d) {
    P *= out[d];
    K *= k[d];
    S *= in[d];
    PF *= padded[d];
  }
  Tensor gather(DataType::Int64(), {P, K}), source(DataType::Int64(), {P * K});
  for (int64_t p = 0; p < P; ++p)
    for (int64_t t = 0; t < K; ++t) {
      int64_t pr = p, tr = t, flatPadded = 0, rowMajor = 0, colIdx = 0, colStride = 1;
      std::vector<int64_t> pos(sp);
      for (int d = sp - 1; d >= 0; --d) { // unravel p over out, t over k
        int64_t o = pr % out[d], kk = tr % k[d];
        pr /= out[d];
        tr /= k[d];
        pos[d] = o * strides[d] + kk * dil[d]; // in the padded input
      }
      bool inside = true;
      for (int d = 0; d < sp; ++d) {
        flatPadded = flatPadded * padded[d] + pos[d];
        int64_t i = pos[d] - pads[d];
        inside = inside && i >= 0 && i < in[d];
        rowMajor = rowMajor * in[d] + i;
      }
      for (int d = 0; d < sp; ++d) { // column-major: the first spatial axis varies fastest
        colIdx += (pos[d] - pads[d]) * colStride;
        colStride *= in[d];
      }
      gather.setDouble(p * K + t, static_cast<double>(flatPadded));
      source.setDouble(p * K + t, inside ? static_cast<double>(colMajor ? colIdx : rowMajor) : 0);
    }
  Value x = c.in(0);
  bool anyPad = false;
  std::vector<int64_t> width{0, 0, 0, 0};
  for (int d = 0; d < sp; ++d) {
    width.push_back(pads[d]);
    width.push_back(after[d]);
    anyPad = anyPad || pads[d] || after[d];
  }
  if (anyPad)
    x = c.op("nn.pad", {x.expr},
             {{"pad_width", width},
              {"pad_value", -std::numeric_limits<double>::infinity()},
              {"pad_mode", std::string("constant")}});
  int64_t N = xs[0], C = xs[1];
  auto shapeOf = [](const std::vector<int64_t>& v) {
    std::vector<PrimExpr> e;
    for (int64_t d : v)
      e.push_back(intImm(d));
    return make<ShapeExpr>(e);
  };
  Value flat = c.op("reshape", {x.expr, shapeOf({N, C, PF})});
  Value win = c.op("take", {flat.expr, NodeContext::constant(gather).expr}, {{"axis", int64_t(2)}});
  std::vector<int64_t> outShape{N, C};
  outShape.insert(outShape.end(), out.begin(), out.end());
  Value values = c.op("max", {win.expr}, {{"axis", std::vector<int64_t>{3}}, {"keepdims", false}});
  Value tap = c.op("argmax", {win.expr}, {{"axis", int64_t(3)}, {"keepdims", false}});
  Tensor base(DataType::Int64(), {1, 1, P}), offset(DataType::Int64(), {N, C, 1});
  for (int64_t p = 0; p < P; ++p)
    base.setDouble(p, static_cast<double>(p * K));
  for (int64_t i = 0; i < N * C; ++i)
    offset.setDouble(i, static_cast<double>(i * S));
  Value sel = c.op("add", {tap.expr, NodeContext::constant(base).expr});
  Value spatial =
      c.op("take", {NodeContext::constant(source).expr, sel.expr}, {{"axis", int64_t(0)}});
  Value idx = c.op("add", {spatial.expr, NodeContext::constant(offset).expr});
  c.output(0, c.op("reshape", {values.expr, shapeOf(outShape)}));
  c.output(1, c.op("reshape", {idx.expr, shapeOf(outShape)}));
}

void convertPool(NodeContext& c, bool isMax) {
  int rank = c.rank(0);
  if (rank < 3 || rank > 5)
    c.unsupported(std::to_string(rank - 2) + "-D pooling is not supported (1-D, 2-D and 3-D are)");
  int sp = rank - 2;
  auto k = c.attrInts("kernel_shape");
  if (static_cast<int>(k.size()) != sp)
    c.unsupported("kernel_shape must have " + std::to_string(sp) + " values");
  auto strides = c.attrInts("strides", std::vector<int64_t>(sp, 1));
  auto dil = c.attrInts("dilations", std::vector<int64_t>(sp, 1));
  if (static_cast<int>(strides.size()) != sp || static_cast<int>(dil.size()) != sp)
    c.unsupported("strides/dilations do not match the spatial rank");
  auto pads = resolvePads(c, sp, k, strides, dil, 0);
  // storage_order only changes the Indices output.
  if (isMax && c.node.output_size() > 1 && !c.node.output(1).empty()) {
    convertMaxPoolWithIndices(c, sp, k, strides, dil, pads, c.attrInt("ceil_mode", 0) != 0);
    return;
  }
  Value x = c.in(0);
  if (sp == 1) { // as 2-D over a unit height
    x = c.op("expand_dims", {x.expr}, {{"axis", std::vector<int64_t>{2}}});
    k.insert(k.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  Attrs a;
  a.set("pool_size", k);
  a.set("strides", strides);
  a.set("dilation", dil);
  a.set("padding", pads);
  a.set("ceil_mode", c.attrInt("ceil_mode", 0) != 0);
  if (!isMax)
    a.set("count_include_pad", c.attrInt("count_include_pad", 0) != 0);
  if (sp == 3)
    a.set("layout", std::string("NCDHW"));
  std::string op = std::string(isMax ? "nn.max_pool" : "nn.avg_pool") + (sp == 3 ? "3d" : "2d");
  Value y = c.op(op, {x.expr}, a);
  if (sp == 1)
    y = c.op("squeeze", {y.expr}, {{"axis", std::vector<int64_t>{2}}});
  c.output(0, y);
}

void convertGlobalPool(NodeContext& c, const std::string& reduce) {
  int rank = c.rank(0);
  if (rank < 3)
    c.unsupported("needs a rank >= 3 input");
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i)
    axes.push_back(i);
  if (reduce == "mean" && rank == 4) {
    c.output(0, c.op("nn.global_avg_pool2d", {c.expr(0)}));
    return;
  }
  c.output(0, c.op(reduce, {c.expr(0)}, {{"axis", axes}, {"keepdims", true}}));
}

void convertSoftmax(NodeContext& c, const std::string& op) {
  int rank = c.rank(0);
  if (c.opset >= 13) {
    int axis = normAxis(c, c.attrInt("axis", -1), rank);
    c.output(0, c.op(op, {c.expr(0)}, {{"axis", int64_t(axis)}}));
    return;
  }
  int axis = normAxis(c, c.attrInt("axis", 1), rank);
  if (axis == rank - 1) {
    c.output(0, c.op(op, {c.expr(0)}, {{"axis", int64_t(axis)}}));
    return;
  }
  auto shape = c.shape(0);
  PrimExpr outer = intImm(1), inner = intImm(1);
  for (int i = 0; i < rank; ++i)
    (i < axis ? outer : inner) = foldMul(i < axis ? outer : inner, shape[i]);
  Value flat = c.op("reshape", {c.expr(0), make<ShapeExpr>(std::vector<PrimExpr>{outer, inner})});
  Value y = c.op(op, {flat.expr}, {{"axis", int64_t(1)}});
  c.output(0, c.op("reshape", {y.expr, make<ShapeExpr>(shape)}));
}

void convertLayerNorm(NodeContext& c) {
  int rank = c.rank(0);
  int axis = normAxis(c, c.attrInt("axis", -1), rank);
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i)
    axes.push_back(i);
  if (c.attrInt("stash_type", 1) != 1)
    c.unsupported("stash_type=" + std::to_string(c.attrInt("stash_type", 1)) +
                  " is not supported (1 = float32 is)");
  // The optional Mean and InvStdDev outputs: the statistics over `axes`
  // (kept as unit dims), computed in float32 (stash_type 1) as the spec does.
  bool wantStats = false;
  for (int i = 1; i < c.node.output_size(); ++i)
    wantStats |= !c.node.output(i).empty();
  if (wantStats) {
    DataType f32 = DataType::Float32();
    Value x = c.dtype(0) == f32 ? c.in(0) : c.op("astype", {c.expr(0)}, {{"dtype", f32}});
    Attrs red{{"axis", axes}, {"keepdims", true}};
    Value mean = c.op("mean", {x.expr}, red);
    Value centered = c.op("subtract", {x.expr, mean.expr});
    Value var = c.op("mean", {c.op("multiply", {centered.expr, centered.expr}).expr}, red);
    Value eps = NodeContext::scalar(c.attrFloat("epsilon", 1e-5), f32);
    Value inv = c.op("rsqrt", {c.op("add", {var.expr, eps.expr}).expr});
    c.output(1, mean);
    c.output(2, inv);
  }
  Value bias = c.has(2) ? c.in(2) : Value{};
  if (!c.has(2)) {
    Tensor zeros(c.dtype(1), c.staticShape(1, "LayerNormalization without bias"));
    bias = NodeContext::constant(zeros);
  }
  c.output(0, c.op("nn.layer_norm", {c.expr(0), c.expr(1), bias.expr},
                   {{"axes", axes}, {"epsilon", c.attrFloat("epsilon", 1e-5)}}));
}

/// (x - mean) / sqrt(var + eps) * scale + bias over the spatial axes.
void convertInstanceNorm(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 3)
    c.unsupported("needs a rank >= 3 input");
  DataType dt = c.dtype(0);
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i)
    axes.push_back(i);
  Attrs red{{"axis", axes}, {"keepdims", true}};
  Value mean = c.op("mean", {c.expr(0)}, red);
  Value centered = c.op("subtract", {c.expr(0), mean.expr});
  Value sq = c.op("multiply", {centered.expr, centered.expr});
  Value var = c.op("mean", {sq.expr}, red);
  Value den = c.op("sqrt", {c.op("add", {var.expr, sc(c.attrFloat("epsilon", 1e-5), dt)}).expr});
  Value y = c.op("divide", {centered.expr, den.expr});
  std::vector<int64_t> bshape(rank - 1, 1);
  auto channel = [&](int i) {
    Value v = c.in(i);
    if (v.data) {
      bshape[0] = v.data->numel();
      return NodeContext::constant(v.data->reshaped(bshape));
    }
    std::vector<int64_t> ex;
    for (int d = 1; d < rank - 1; ++d)
      ex.push_back(d);
    return c.op("expand_dims", {v.expr}, {{"axis", ex}});
  };
  y = c.op("multiply", {y.expr, channel(1).expr});
  c.output(0, c.op("add", {y.expr, channel(2).expr}));
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes`
/// (default N, H, W), the ONNX function's formula.
void convertMVN(NodeContext& c) {
  int rank = c.rank(0);
  std::vector<int64_t> axes;
  for (int64_t a : c.attrInts("axes", {0, 2, 3}))
    axes.push_back(normAxis(c, a, rank));
  DataType dt = c.dtype(0);
  Attrs red{{"axis", axes}, {"keepdims", true}};
  Value mean = c.op("mean", {c.expr(0)}, red);
  Value centered = c.op("subtract", {c.expr(0), mean.expr});
  Value var = c.op("mean", {c.op("multiply", {centered.expr, centered.expr}).expr}, red);
  Value den = c.op("add", {c.op("sqrt", {var.expr}).expr, sc(1e-9, dt)});
  c.output(0, c.op("divide", {centered.expr, den.expr}));
}

/// LRN: x / (bias + alpha / size * sum of squares over the channel window
/// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta. The window
/// sum is size * an average pooling of x^2 over (C, rest) with zero
/// padding counted (count_include_pad).
void convertLRN(NodeContext& c) {
  int rank = c.rank(0);
  if (rank < 3)
    c.unsupported("needs a rank >= 3 input");
  int64_t size = c.attrInt("size", 0);
  if (size < 1)
    c.unsupported("size must be positive");
  DataType dt = c.dtype(0);
  double alpha = c.attrFloat("alpha", 1e-4), beta = c.attrFloat("beta", 0.75),
         bias = c.attrFloat("bias", 1.0);
  auto shape = c.shape(0);
  PrimExpr rest = intImm(1);
  for (int i = 2; i < rank; ++i)
    rest = foldMul(rest, shape[i]);
  Value sq = c.op("multiply", {c.expr(0), c.expr(0)});
  Value grid =
      c.op("reshape",
           {sq.expr, make<ShapeExpr>(std::vector<PrimExpr>{shape[0], intImm(1), shape[1], rest})});
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Value avg = c.op("nn.avg_pool2d", {grid.expr},
                   {{"pool_size", std::vector<int64_t>{size, 1}},
                    {"padding", std::vector<int64_t>{lo, 0, hi, 0}},
                    {"count_include_pad", true}});
  Value back = c.op("reshape", {avg.expr, make<ShapeExpr>(shape)});
  Value base = c.op("add", {c.op("multiply", {back.expr, sc(alpha, dt)}).expr, sc(bias, dt)});
  Value den = c.op("power", {base.expr, sc(beta, dt)});
  c.output(0, c.op("divide", {c.expr(0), den.expr}));
}

/// Resize / Upsample of the two trailing axes of an NCHW tensor. With
/// `scales`, the output size is floor(in * scale) (as the ONNX reference)
/// and the coordinate mapping uses the scale itself, which differs from
/// out / in when in * scale is fractional: the op then gets the scales.
/// Symbolic sizes (read from another tensor's Shape) and scales of a
/// symbolic input give symbolic output dims, passed as the op's shape
/// operand. Scales or a crop box (roi) computed at run time reach the
/// kernel as a small tensor operand it reads (operand 2), and the output
/// size computed from run-time scales is bound to fresh shape variables.
void convertResize(NodeContext& c, bool upsample) {
  if (c.rank(0) != 4)
    c.unsupported("only 4-D (NCHW) inputs are supported");
  auto in = c.shape(0);
  std::string mode = c.attrString("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    c.unsupported("mode='" + mode + "' is not supported (nearest, linear and cubic are)");
  std::string ctm = "asymmetric", nearest = "floor";
  if (!upsample && c.opset >= 11) {
    ctm = c.attrString("coordinate_transformation_mode", "half_pixel");
    nearest = c.attrString("nearest_mode", "round_prefer_floor");
    if (c.attrInt("antialias", 0) != 0)
      c.unsupported("antialias=1 is not supported");
  }
  if (ctm != "half_pixel" && ctm != "align_corners" && ctm != "asymmetric" &&
      ctm != "pytorch_half_pixel" && ctm != "tf_half_pixel_for_nn" && ctm != "tf_crop_and_resize")
    c.unsupported("coordinate_transformation_mode='" + ctm + "' is not supported");
  // A run-time float input of `n` values: the elements `pick` of it (the
  // H and W entries, or all n in order), taken out at run time.
  auto runtimeFloats = [&](int i, int64_t n, const char* what, std::vector<int64_t> pick) {
    auto* t = as<TensorSInfo>(c.value(i).sinfo);
    if (!t || t->ndim != 1 || !t->shape || !isConstInt((*t->shape)[0], n) || !t->dtype.isFloat())
      c.unsupported(std::string(what) + " computed at run time must be a 1-D float tensor of " +
                    std::to_string(n) + " values");
    if (static_cast<int64_t>(pick.size()) == n)
      return c.in(i); // all of it, in order
    Tensor at(DataType::Int64(), {static_cast<int64_t>(pick.size())});
    for (size_t k = 0; k < pick.size(); ++k)
      at.setDouble(static_cast<int64_t>(k), static_cast<double>(pick[k]));
    return c.op("take", {c.expr(i), NodeContext::constant(at).expr}, {{"axis", int64_t(0)}});
  };
  // tf_crop_and_resize: the roi input [starts..., ends...] (normalized).
  std::vector<double> roi;
  Value params; // operand 2: run-time scales or crop box
  if (ctm == "tf_crop_and_resize") {
    if (!c.has(1))
      c.unsupported("tf_crop_and_resize needs the roi input");
    if (const Tensor* r = c.constant(1)) {
      if (r->numel() != 8)
        c.unsupported("roi must hold 8 values for a 4-D input");
      for (int i : {0, 1})
        if (r->getDouble(i) != 0.0 || r->getDouble(4 + i) != 1.0)
          c.unsupported("roi may crop only the spatial (H, W) axes");
      roi = {r->getDouble(2), r->getDouble(3), r->getDouble(6), r->getDouble(7)};
    } else {
      // Read by the kernel; its N and C entries are taken as the identity
      // crop (0 and 1), which only the constant form checks.
      params = runtimeFloats(1, 8, "Resize's roi", {2, 3, 6, 7});
    }
  }
  // Output size from `sizes` or `scales`.
  std::vector<PrimExpr> out;
  std::vector<double> scales;
  bool runtimeScales = false;
  int scalesInput = upsample || c.opset < 11 ? 1 : 2, sizesInput = 3;
  if (!upsample && c.opset >= 11 && c.has(sizesInput)) {
    if (c.symInts(sizesInput)) {
      out = c.shapeInts(sizesInput, "Resize's sizes"); // empty = use scales
    } else if (c.rank(sizesInput) == 1 && isConstInt(c.shape(sizesInput)[0], 4)) {
      // Sizes computed from data: fresh variables for H and W; N and C must
      // be the input's, which the match_cast checks at run time.
      out = c.runtimeShape(c.in(sizesInput), c.node.input(sizesInput), {in[0], in[1]});
    } else {
      out = c.shapeIntsOrRuntime(sizesInput, "Resize's sizes");
    }
  }
  if (out.empty() && !(upsample && c.opset < 9) && c.has(scalesInput) && !c.constant(scalesInput)) {
    // Scales computed at run time: the output size floor(in * scale) (in
    // float64, as the ONNX reference) is bound to fresh variables for H
    // and W; N and C must stay the input's, which the match_cast checks.
    runtimeScales = true;
    Value scalesT = runtimeFloats(scalesInput, 4, "Resize's scales", {0, 1, 2, 3});
    DataType f64 = DataType::Float(64);
    Value inDims;
    if (std::all_of(in.begin(), in.end(), [](const PrimExpr& d) { return asConstInt(d); })) {
      Tensor t(f64, {4});
      for (int64_t i = 0; i < 4; ++i)
        t.setDouble(i, static_cast<double>(*asConstInt(in[i])));
      inDims = NodeContext::constant(t);
    } else {
      Value dims = c.op("shape_to_tensor", {make<ShapeExpr>(in)});
      inDims = c.op("astype", {dims.expr}, {{"dtype", f64}});
    }
    Value s64 = c.op("astype", {scalesT.expr}, {{"dtype", f64}});
    Value size = c.op("floor", {c.op("multiply", {inDims.expr, s64.expr}).expr});
    Value sizeInt = c.op("astype", {size.expr}, {{"dtype", DataType::Int64()}});
    out = c.runtimeShape(sizeInt, c.node.output(0), {in[0], in[1]});
    if (ctm != "tf_crop_and_resize")
      params = runtimeFloats(scalesInput, 4, "Resize's scales", {2, 3});
  }
  if (out.empty()) {
    if (upsample && c.opset < 9)
      scales = c.attrFloats("scales");
    else {
      if (!c.has(scalesInput))
        c.unsupported("neither scales nor sizes is given");
      const Tensor* s = c.constant(scalesInput);
      for (int64_t i = 0; i < s->numel(); ++i)
        scales.push_back(s->getDouble(i));
    }
    if (scales.size() != 4)
      c.unsupported("expected 4 scales");
    for (int i = 0; i < 4; ++i) {
      if (!(scales[i] > 0))
        c.unsupported("scales must be positive");
      if (auto k = asConstInt(in[i])) {
        out.push_back(intImm(static_cast<int64_t>(std::floor(double(*k) * scales[i]))));
      } else {
        // floor(in * p / q) with p / q the scale exactly (q <= 1024).
        int64_t q = 1;
        while (q <= 1024 && scales[i] * double(q) != std::floor(scales[i] * double(q)))
          ++q;
        if (q > 1024)
          c.unsupported("scale " + std::to_string(scales[i]) +
                        " of a symbolic dimension is not a fraction p/q with q <= 1024");
        auto p = static_cast<int64_t>(scales[i] * double(q));
        out.push_back(op::arith::simplify(floordiv(in[i] * intImm(p), intImm(q))));
      }
      if (auto k = asConstInt(out.back()); k && *k < 1)
        c.unsupported("a scale gives an empty output");
    }
  }
  if (out.size() != 4 || !op::arith::provablyEqual(out[0], in[0]) ||
      !op::arith::provablyEqual(out[1], in[1]))
    c.unsupported("only spatial (H, W) resizing is supported");
  auto oh = asConstInt(out[2]), ow = asConstInt(out[3]);
  // With scales the op maps coordinates by the scale itself whenever
  // floor(in * scale) may differ from in * scale.
  auto floored = [&](int i) {
    auto k = asConstInt(in[i]);
    if (k)
      return !asConstInt(out[i]) || double(*asConstInt(out[i])) != double(*k) * scales[i];
    return scales[i] != std::floor(scales[i]);
  };
  Attrs a;
  bool sizeAttr = oh && ow && !params.expr;
  if (sizeAttr)
    a.set("size", std::vector<int64_t>{*oh, *ow});
  a.set("method", mode == "nearest" ? std::string("nearest_neighbor") : mode);
  a.set("coordinate_transformation_mode", ctm);
  if (!runtimeScales && !scales.empty() && (floored(2) || floored(3)))
    a.set("scales", std::vector<double>{scales[2], scales[3]});
  if (mode == "nearest") {
    if (nearest != "floor" && nearest != "ceil" && nearest != "round_prefer_floor" &&
        nearest != "round_prefer_ceil")
      c.unsupported("nearest_mode='" + nearest + "'");
    a.set("rounding_method", nearest);
  }
  if (!roi.empty())
    a.set("roi", roi);
  if (ctm == "tf_crop_and_resize")
    a.set("extrapolation_value", c.attrFloat("extrapolation_value", 0.0));
  if (mode == "cubic") {
    a.set("cubic_alpha", c.attrFloat("cubic_coeff_a", -0.75));
    a.set("cubic_exclude", c.attrInt("exclude_outside", 0) != 0);
  }
  std::vector<Expr> args{c.expr(0)};
  if (!sizeAttr)
    args.push_back(make<ShapeExpr>(std::vector{out[2], out[3]}));
  if (params.expr)
    args.push_back(params.expr);
  c.output(0, c.op("image.resize2d", std::move(args), a));
}

} // namespace

void addNNConverters(ConverterTable& t) {
  t["Conv"] = {[](NodeContext& c) { convertConv(c, false); },
               {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}};
  t["ConvTranspose"] = {[](NodeContext& c) { convertConv(c, true); },
                        {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
                         "output_padding", "output_shape"}};
  t["Gemm"] = {convertGemm, {"alpha", "beta", "transA", "transB", "broadcast"}};
  t["MatMul"] = {[](NodeContext& c) { c.output(0, c.op("matmul", {c.expr(0), c.expr(1)})); }, {}};
  t["BatchNormalization"] = {convertBatchNorm,
                             {"epsilon", "momentum", "spatial", "training_mode", "is_test"}};
  t["MaxPool"] = {
      [](NodeContext& c) { convertPool(c, true); },
      {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}};
  t["AveragePool"] = {[](NodeContext& c) { convertPool(c, false); },
                      {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads",
                       "strides", "dilations"}};
  t["GlobalAveragePool"] = {[](NodeContext& c) { convertGlobalPool(c, "mean"); }, {}};
  t["GlobalMaxPool"] = {[](NodeContext& c) { convertGlobalPool(c, "max"); }, {}};
  t["Softmax"] = {[](NodeContext& c) { convertSoftmax(c, "nn.softmax"); }, {"axis"}};
  t["LogSoftmax"] = {[](NodeContext& c) { convertSoftmax(c, "nn.log_softmax"); }, {"axis"}};
  t["LayerNormalization"] = {convertLayerNorm, {"axis", "epsilon", "stash_type"}};
  t["InstanceNormalization"] = {convertInstanceNorm, {"epsilon"}};
  t["Resize"] = {[](NodeContext& c) { convertResize(c, false); },
                 {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                  "exclude_outside", "antialias", "extrapolation_value"}};
  t["Upsample"] = {[](NodeContext& c) { convertResize(c, true); }, {"mode", "scales"}};
  t["MeanVarianceNormalization"] = {convertMVN, {"axes"}};
  t["LRN"] = {convertLRN, {"alpha", "beta", "bias", "size"}};
}

} // namespace unity::frontend::detail
