// ONNX indexing, scan, loss and classification operators: GatherElements,
// BitShift, GatherND, ScatterElements (and the older Scatter), ScatterND, OneHot, EyeLike, Trilu,
// CumSum, TopK, Hardmax, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, IsNaN, IsInf, and the
// trigonometric / hyperbolic unaries other than Sin and Cos; QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, SpaceToDepth, Shrink and Celu composed from elementwise
// operators.
//
// Operands that ONNX passes as tensors but our operators take as attributes
// (CumSum's axis, Trilu's k, TopK's K, OneHot's depth) are attributes when
// known at import time. Computed at run time, Trilu's k is a 0-d operand of
// the trilu kernel, CumSum's axis picks an (outer, n, inner) view of x (see
// cumsumRuntimeAxis), OneHot's depth becomes a fresh shape variable, and a K
// is a data-dependent extent (onnx_ops_datadep.cpp).
//
// Compositions are exact: Hardmax = one_hot(argmax), SoftmaxCrossEntropyLoss =
// nll_loss(log_softmax(scores, axis 1)), EyeLike of a static shape is a constant.
#include <algorithm>
#include <optional>
#include <string>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/op/einsum.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

/// Loss attributes shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
Attrs lossAttrs(NodeContext& c) {
  std::string r = c.attrString("reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    c.unsupported("reduction='" + r + "'");
  Attrs a{{"reduction", r}};
  if (c.hasAttr("ignore_index"))
    a.set("ignore_index", c.attrInt("ignore_index", 0));
  return a;
}

Value nllLoss(NodeContext& c, const Expr& pred) {
  if (c.rank(0) < 2)
    c.unsupported("input must have rank >= 2 (N, C, ...)");
  std::vector<Expr> args{pred, c.expr(1)};
  if (c.has(2))
    args.push_back(c.expr(2));
  return c.op("nn.nll_loss", std::move(args), lossAttrs(c));
}

void convertHardmax(NodeContext& c) {
  int rank = c.rank(0);
  DataType dt = c.dtype(0);
  auto hardmax = [&](const Expr& x, const std::vector<PrimExpr>& shape, int axis) {
    auto depth = asConstInt(shape[axis]);
    if (!depth)
      c.unsupported("Hardmax needs a static size of the normalized axis");
    Value am = c.op("argmax", {x}, {{"axis", int64_t(axis)}, {"keepdims", false}});
    return c.op("one_hot", {am.expr},
                {{"depth", *depth},
                 {"axis", int64_t(axis)},
                 {"on_value", 1.0},
                 {"off_value", 0.0},
                 {"dtype", dt}});
  };
  if (c.opset >= 13) {
    int axis = normAxis(c, c.attrInt("axis", -1), rank);
    c.output(0, hardmax(c.expr(0), c.shape(0), axis));
    return;
  }
  // Before opset 13: over the input flattened to 2-D at axis (default 1).
  int axis = normAxis(c, c.attrInt("axis", 1), rank);
  auto shape = c.shape(0);
  if (axis == rank - 1) {
    c.output(0, hardmax(c.expr(0), shape, axis));
    return;
  }
  PrimExpr outer = intImm(1), inner = intImm(1);
  for (int i = 0; i < rank; ++i)
    (i < axis ? outer : inner) = foldMul(i < axis ? outer : inner, shape[i]);
  std::vector<PrimExpr> flatShape{outer, inner};
  Value flat = c.op("reshape", {c.expr(0), make<ShapeExpr>(flatShape)});
  Value y = hardmax(flat.expr, flatShape, 1);
  c.output(0, c.op("reshape", {y.expr, make<ShapeExpr>(shape)}));
}

/// OneHot: a constant depth becomes the op's attribute; a depth computed at
/// run time (any numeric type, truncated to an integer as the ONNX
/// reference does) a fresh shape variable bound when the executor reads it,
/// passed as the op's shape operand.
void convertOneHot(NodeContext& c) {
  std::optional<int64_t> depth; // constant depth, else depthShape
  Expr depthShape;
  if (c.constant(1)) {
    std::vector<int64_t> depthV = c.constInts(1, "OneHot depth");
    if (depthV.size() != 1)
      c.unsupported("depth must hold one value");
    if (depthV[0] < 1)
      c.unsupported("depth must be >= 1, got " + std::to_string(depthV[0]));
    depth = depthV[0];
  } else {
    auto dshape = c.shape(1);
    if (dshape.size() > 1 || (dshape.size() == 1 && !isConstInt(dshape[0], 1)))
      c.unsupported("depth must hold one value");
    Value d = c.op("reshape", {c.expr(1), make<ShapeExpr>(std::vector<PrimExpr>{intImm(1)})});
    if (!(c.dtype(1) == DataType::Int64()))
      d = c.op("astype", {d.expr}, {{"dtype", DataType::Int64()}});
    depthShape = make<ShapeExpr>(c.runtimeShape(d, c.node.input(1)));
  }
  auto oneHot = [&](const Expr& idx, Attrs a) {
    if (depth)
      return c.op("one_hot", {idx}, a.with("depth", *depth));
    return c.op("one_hot", {idx, depthShape}, std::move(a));
  };
  const Tensor* values = c.constant(2);
  Expr idx = c.expr(0);
  if (!c.dtype(0).isIntegral())
    idx = c.op("astype", {idx}, {{"dtype", DataType::Int64()}}).expr;
  if (!values) {
    // Values known only at run time: a boolean one-hot mask selects
    // values[1] (on) or values[0] (off).
    auto vshape = c.shape(2);
    if (vshape.size() != 1 || !isConstInt(vshape[0], 2))
      c.unsupported("values must hold [off_value, on_value]");
    auto pick = [&](int64_t i) {
      Tensor at(DataType::Int64(), {});
      at.setDouble(0, static_cast<double>(i));
      return c.op("take", {c.expr(2), NodeContext::constant(at).expr}, {{"axis", int64_t(0)}});
    };
    Value mask = oneHot(idx, {{"axis", c.attrInt("axis", -1)},
                              {"on_value", 1.0},
                              {"off_value", 0.0},
                              {"dtype", DataType::Bool()}});
    c.output(0, c.op("where", {mask.expr, pick(1).expr, pick(0).expr}));
    return;
  }
  if (values->numel() != 2)
    c.unsupported("values must hold [off_value, on_value]");
  c.output(0, oneHot(idx, {{"axis", c.attrInt("axis", -1)},
                           {"on_value", values->getDouble(1)},
                           {"off_value", values->getDouble(0)},
                           {"dtype", values->dtype()}}));
}

void convertEyeLike(NodeContext& c) {
  auto shape = c.staticShape(0, "EyeLike");
  if (shape.size() != 2)
    c.unsupported("input must be 2-D");
  DataType dt = c.dtype(0);
  if (c.hasAttr("dtype")) {
    auto d = dtypeFromOnnx(static_cast<int>(c.attrInt("dtype", 1)));
    if (!d)
      c.unsupported("dtype " + std::to_string(c.attrInt("dtype", 1)) + " is not supported");
    dt = *d;
  }
  int64_t k = c.attrInt("k", 0);
  Tensor t(dt, shape);
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      t.setDouble(i * shape[1] + j, j - i == k ? 1.0 : 0.0);
  c.output(0, NodeContext::constant(t));
}

/// Einsum's "..." replaced by letters the equation does not use, one per
/// dim it covers (right-aligned across operands, numpy style). Dims that
/// would broadcast (different sizes) are refused.
std::string expandEllipsis(NodeContext& c, const std::string& equation) {
  op::EinsumEquation eq = op::splitEinsum(equation);
  const std::string& e = eq.text;
  if (e.find("...") == std::string::npos)
    return e;
  std::vector<std::string> ins = std::move(eq.inputs);
  if (static_cast<int>(ins.size()) != c.numInputs())
    c.unsupported("the equation names " + std::to_string(ins.size()) + " operands");
  std::string spare;
  for (char ch = 'A'; ch <= 'Z'; ++ch)
    if (e.find(ch) == std::string::npos)
      spare += ch;
  // The widest ellipsis, with its dims, right-aligned.
  size_t width = 0;
  std::vector<std::vector<PrimExpr>> ellDims(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    size_t pos = ins[i].find("...");
    if (pos == std::string::npos)
      continue;
    int named = static_cast<int>(ins[i].size()) - 3;
    int covered = c.rank(static_cast<int>(i)) - named;
    if (covered < 0)
      c.unsupported("operand " + std::to_string(i) + " has fewer dims than its subscripts");
    auto shape = c.shape(static_cast<int>(i));
    ellDims[i].assign(shape.begin() + pos, shape.begin() + pos + covered);
    width = std::max(width, static_cast<size_t>(covered));
  }
  if (width > spare.size())
    c.unsupported("too many dims under '...'");
  std::string letters = spare.substr(0, width);
  for (size_t i = 0; i < ins.size(); ++i) {
    size_t pos = ins[i].find("...");
    if (pos == std::string::npos)
      continue;
    size_t n = ellDims[i].size();
    for (size_t i2 = 0; i2 < ins.size(); ++i2)
      for (size_t d = 0; d < n && d < ellDims[i2].size(); ++d) {
        auto a = asConstInt(ellDims[i][n - 1 - d]);
        auto b = asConstInt(ellDims[i2][ellDims[i2].size() - 1 - d]);
        if (!a || !b || *a != *b)
          c.unsupported("broadcasting dims under '...' are not supported");
      }
    ins[i].replace(pos, 3, letters.substr(width - n));
  }
  std::string out;
  if (eq.output) {
    out = *eq.output;
    size_t pos = out.find("...");
    if (pos != std::string::npos)
      out.replace(pos, 3, letters);
  } else {
    // Implicit output: the ellipsis dims first, then the letters used once.
    std::string all;
    for (auto& in : ins)
      all += in;
    std::string once;
    for (char ch : all)
      if (letters.find(ch) == std::string::npos && std::count(all.begin(), all.end(), ch) == 1)
        once += ch;
    std::sort(once.begin(), once.end());
    out = letters + once;
  }
  std::string r;
  for (size_t i = 0; i < ins.size(); ++i)
    r += (i ? "," : "") + ins[i];
  return r + "->" + out;
}

/// A per-axis (1-D) quantization parameter reshaped to broadcast along
/// `axis` of a rank-`rank` tensor; scalars are returned as they are.
Expr alongAxis(NodeContext& c, int i, int rank) {
  if (c.rank(i) == 0)
    return c.expr(i);
  if (c.rank(i) != 1)
    c.unsupported("scale / zero point must be a scalar or 1-D");
  std::vector<PrimExpr> shape(rank, intImm(1));
  if (!isConstInt(c.shape(i)[0], 1)) // per axis; axis is ignored for one value
    shape[normAxis(c, c.attrInt("axis", 1), rank)] = c.shape(i)[0];
  return c.op("reshape", {c.expr(i), make<ShapeExpr>(shape)}).expr;
}

void convertQuantize(NodeContext& c) {
  int rank = c.rank(0);
  DataType out = c.has(2) ? c.dtype(2) : DataType::UInt(8);
  if (!(out == DataType::UInt(8) || out == DataType::Int(8)))
    c.unsupported("output type " + out.str() + " (uint8 and int8 are supported)");
  DataType ft = c.dtype(0);
  Value q = c.op("divide", {c.expr(0), alongAxis(c, 1, rank)});
  q = c.op("round", {q.expr}); // half to even, as the spec
  if (c.has(2)) {
    Value zp = c.op("astype", {alongAxis(c, 2, rank)}, {{"dtype", ft}});
    q = c.op("add", {q.expr, zp.expr});
  }
  bool u = out == DataType::UInt(8);
  q = c.op("clip", {q.expr}, {{"min", u ? 0.0 : -128.0}, {"max", u ? 255.0 : 127.0}});
  c.output(0, c.op("astype", {q.expr}, {{"dtype", out}}));
}

void convertDequantize(NodeContext& c) {
  int rank = c.rank(0);
  DataType ft = c.dtype(1);
  Value x = c.op("astype", {c.expr(0)}, {{"dtype", ft}});
  if (c.has(2)) {
    Value zp = c.op("astype", {alongAxis(c, 2, rank)}, {{"dtype", ft}});
    x = c.op("subtract", {x.expr, zp.expr});
  }
  c.output(0, c.op("multiply", {x.expr, alongAxis(c, 1, rank)}));
}

/// CumSum with an axis computed at run time. The axis does not change the
/// output shape but picks the scanned extent, so x is viewed as
/// (outer, n, inner) around it -- the products of the dims before it, its
/// dim, the product of the dims after it, computed from shape(x) and the
/// axis by graph operators and bound to fresh shape variables at run time --
/// scanned along the middle axis by the ordinary cumsum kernel and reshaped
/// back. An axis outside [-rank, rank) makes n negative, which the executor
/// refuses when it reads the view's shape.
void cumsumRuntimeAxis(NodeContext& c) {
  std::vector<PrimExpr> shape = c.shape(0);
  auto r = static_cast<int64_t>(shape.size());
  if (r == 0)
    c.unsupported("CumSum needs an input of rank >= 1");
  auto* at = as<TensorSInfo>(c.value(1).sinfo);
  if (!at || !at->dtype.isIntegral() || at->ndim < 0 || at->ndim > 1 ||
      (at->ndim == 1 && (!at->shape || !isConstInt((*at->shape)[0], 1))))
    c.unsupported("axis must be an integer scalar (or a 1-element 1-D tensor)");
  DataType i64 = DataType::Int64();
  auto k = [&](int64_t v) { return NodeContext::scalar(static_cast<double>(v), i64).expr; };
  auto bin = [&](const char* op, const Value& a, Expr b) { return c.op(op, {a.expr, b}); };
  Value a = c.op("astype", {c.expr(1)}, {{"dtype", i64}});
  a = c.op("reshape", {a.expr, make<ShapeExpr>(std::vector<PrimExpr>{})});
  Value valid =
      c.op("logical_and", {bin("greater_equal", a, k(-r)).expr, bin("less", a, k(r)).expr});
  a = c.op("where", {bin("less", a, k(0)).expr, bin("add", a, k(r)).expr, a.expr});
  Value dims = c.op("shape_to_tensor", {make<ShapeExpr>(shape)});
  std::vector<int64_t> iota(r);
  for (int64_t i = 0; i < r; ++i)
    iota[i] = i;
  Value pos = NodeContext::constant(int64Tensor(iota, {r}));
  // reduce(dims[i] where pos[i] cmp axis, else fill)
  auto part = [&](const char* cmp, const char* reduce, int64_t fill) {
    return c.op(reduce, {c.op("where", {bin(cmp, pos, a.expr).expr, dims.expr, k(fill)}).expr});
  };
  Value n = c.op("where", {valid.expr, part("equal", "sum", 0).expr, k(-1)});
  std::vector<Expr> view;
  std::vector<StructInfo> viewInfo;
  for (const Value& v : {part("less", "prod", 1), n, part("greater", "prod", 1)}) {
    Value one = c.op("reshape", {v.expr, make<ShapeExpr>(std::vector<PrimExpr>{intImm(1)})});
    view.push_back(one.expr);
    viewInfo.push_back(one.sinfo);
  }
  Value viewShape =
      c.op("concat", {make<Tuple>(view, tupleSInfo(viewInfo))}, {{"axis", int64_t(0)}});
  auto dimsVars = c.runtimeShape(viewShape, c.node.output(0) + "_view");
  Value x = c.op("reshape", {c.expr(0), make<ShapeExpr>(dimsVars)});
  x = c.op("cumsum", {x.expr},
           {{"axis", int64_t(1)},
            {"exclusive", c.attrInt("exclusive", 0) != 0},
            {"reverse", c.attrInt("reverse", 0) != 0}});
  c.output(0, c.op("reshape", {x.expr, make<ShapeExpr>(shape)}));
}

} // namespace

void addIndexConverters(ConverterTable& t) {
  for (auto [onnx, ours] :
       std::initializer_list<std::pair<const char*, const char*>>{{"Tan", "tan"},
                                                                  {"Asin", "asin"},
                                                                  {"Acos", "acos"},
                                                                  {"Atan", "atan"},
                                                                  {"Sinh", "sinh"},
                                                                  {"Cosh", "cosh"},
                                                                  {"Asinh", "asinh"},
                                                                  {"Acosh", "acosh"},
                                                                  {"Atanh", "atanh"},
                                                                  {"IsNaN", "isnan"}}) {
    std::string op = ours;
    t[onnx] = {[op](NodeContext& c) { c.output(0, c.op(op, {c.expr(0)})); }, {}};
  }
  t["BitShift"] = {
      [](NodeContext& c) {
        std::string d = c.attrString("direction");
        if (d != "LEFT" && d != "RIGHT")
          c.unsupported("direction must be LEFT or RIGHT, got '" + d + "'");
        c.output(0, c.op(d == "LEFT" ? "left_shift" : "right_shift", {c.expr(0), c.expr(1)}));
      },
      {"direction"}};
  t["IsInf"] = {[](NodeContext& c) {
                  c.output(0, c.op("isinf", {c.expr(0)},
                                   {{"detect_positive", c.attrInt("detect_positive", 1) != 0},
                                    {"detect_negative", c.attrInt("detect_negative", 1) != 0}}));
                },
                {"detect_positive", "detect_negative"}};
  t["GatherElements"] = {
      [](NodeContext& c) {
        int axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
        c.output(0, c.op("gather_elements", {c.expr(0), c.expr(1)}, {{"axis", int64_t(axis)}}));
      },
      {"axis"}};
  t["GatherND"] = {[](NodeContext& c) {
                     c.output(0, c.op("gather_nd", {c.expr(0), c.expr(1)},
                                      {{"batch_dims", c.attrInt("batch_dims", 0)}}));
                   },
                   {"batch_dims"}};
  for (const char* name : {"ScatterElements", "Scatter"}) {
    bool legacy = std::string(name) == "Scatter";
    t[name] = {[legacy](NodeContext& c) {
                 int axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
                 std::string r = legacy ? "none" : c.attrString("reduction", "none");
                 c.output(0, c.op("scatter_elements", {c.expr(0), c.expr(1), c.expr(2)},
                                  {{"axis", int64_t(axis)}, {"reduction", r}}));
               },
               legacy ? std::vector<std::string>{"axis"}
                      : std::vector<std::string>{"axis", "reduction"}};
  }
  t["ScatterND"] = {[](NodeContext& c) {
                      c.output(0, c.op("scatter_nd", {c.expr(0), c.expr(1), c.expr(2)},
                                       {{"reduction", c.attrString("reduction", "none")}}));
                    },
                    {"reduction"}};
  t["Einsum"] = {[](NodeContext& c) {
                   std::vector<Expr> args;
                   for (int i = 0; i < c.numInputs(); ++i)
                     args.push_back(c.expr(i));
                   c.output(0, c.op("einsum", std::move(args),
                                    {{"subscripts", expandEllipsis(c, c.attrString("equation"))}}));
                 },
                 {"equation"}};
  t["Trilu"] = {[](NodeContext& c) {
                  bool upper = c.attrInt("upper", 1) != 0;
                  if (c.has(1) && !c.constant(1)) {
                    // k computed at run time: a 0-d operand the kernel reads.
                    auto* kt = as<TensorSInfo>(c.value(1).sinfo);
                    if (!kt || !kt->dtype.isIntegral() || kt->ndim < 0 || kt->ndim > 1 ||
                        (kt->ndim == 1 && (!kt->shape || !isConstInt((*kt->shape)[0], 1))))
                      c.unsupported("k must be an integer scalar (or a 1-element 1-D tensor)");
                    Expr k = c.expr(1);
                    if (kt->ndim == 1)
                      k = c.op("reshape", {k, make<ShapeExpr>(std::vector<PrimExpr>{})}).expr;
                    c.output(0, c.op("trilu", {c.expr(0), k}, {{"upper", upper}}));
                    return;
                  }
                  int64_t k = 0;
                  if (c.has(1)) {
                    auto v = c.constInts(1, "Trilu k");
                    if (v.size() != 1)
                      c.unsupported("k must hold one value");
                    k = v[0];
                  }
                  c.output(0, c.op("trilu", {c.expr(0)}, {{"k", k}, {"upper", upper}}));
                },
                {"upper"}};
  t["CumSum"] = {[](NodeContext& c) {
                   if (!c.constant(1)) {
                     cumsumRuntimeAxis(c);
                     return;
                   }
                   auto v = c.constInts(1, "CumSum axis");
                   if (v.size() != 1)
                     c.unsupported("axis must hold one value");
                   int axis = normAxis(c, v[0], c.rank(0));
                   c.output(0, c.op("cumsum", {c.expr(0)},
                                    {{"axis", int64_t(axis)},
                                     {"exclusive", c.attrInt("exclusive", 0) != 0},
                                     {"reverse", c.attrInt("reverse", 0) != 0}}));
                 },
                 {"exclusive", "reverse"}};
  t["TopK"] = {
      [](NodeContext& c) {
        if (c.attrInt("sorted", 1) == 0)
          c.unsupported("sorted=0 is not supported");
        int axis = normAxis(c, c.attrInt("axis", -1), c.rank(0));
        int64_t k = 0;
        if (c.opset < 10) {
          k = c.attrInt("k", 0);
        } else if (!c.constant(1)) {
          // K computed at run time (or a graph input): a data-dependent
          // output extent, read when the executor runs.
          convertTopKComputedK(c, axis, c.attrInt("largest", 1) != 0);
          return;
        } else {
          auto v = c.constInts(1, "TopK K");
          if (v.size() != 1)
            c.unsupported("K must hold one value");
          k = v[0];
        }
        Value r =
            c.op("topk", {c.expr(0)},
                 {{"k", k}, {"axis", int64_t(axis)}, {"largest", c.attrInt("largest", 1) != 0}});
        c.output(0, c.tupleItem(r, 0));
        c.output(1, c.tupleItem(r, 1));
      },
      {"k", "axis", "largest", "sorted"}};
  t["QuantizeLinear"] = {convertQuantize, {"axis"}};
  t["DequantizeLinear"] = {convertDequantize, {"axis"}};
  t["DynamicQuantizeLinear"] = {
      [](NodeContext& c) {
        // The spec's formula: scale from the range of x widened to include 0,
        // zero point = round(clip(-min / scale, 0, 255)), uint8 output.
        DataType dt = c.dtype(0);
        auto sc = [&](double v) { return NodeContext::scalar(v, dt).expr; };
        Value mx = c.op("maximum", {c.op("max", {c.expr(0)}).expr, sc(0)});
        Value mn = c.op("minimum", {c.op("min", {c.expr(0)}).expr, sc(0)});
        Value scale = c.op("divide", {c.op("subtract", {mx.expr, mn.expr}).expr, sc(255)});
        Value izp = c.op("negative", {c.op("divide", {mn.expr, scale.expr}).expr});
        Value zp = c.op("round", {c.op("clip", {izp.expr}, {{"min", 0.0}, {"max", 255.0}}).expr});
        Value q = c.op("round", {c.op("divide", {c.expr(0), scale.expr}).expr});
        q = c.op("clip", {c.op("add", {q.expr, zp.expr}).expr}, {{"min", 0.0}, {"max", 255.0}});
        c.output(0, c.op("astype", {q.expr}, {{"dtype", DataType::UInt(8)}}));
        c.output(1, scale);
        c.output(2, c.op("astype", {zp.expr}, {{"dtype", DataType::UInt(8)}}));
      },
      {}};
  t["SpaceToDepth"] = {
      [](NodeContext& c) {
        // (N, C, H, W) -> (N, C, H/b, b, W/b, b) -> (N, b, b, C, H/b, W/b)
        // -> (N, C*b*b, H/b, W/b)
        auto s = c.staticShape(0, "SpaceToDepth");
        int64_t b = c.attrInt("blocksize", 0);
        if (s.size() != 4 || b < 1 || s[2] % b || s[3] % b)
          c.unsupported("needs a 4-D input whose H and W divide by blocksize");
        auto dims = [](std::vector<int64_t> v) {
          std::vector<PrimExpr> out;
          for (int64_t d : v)
            out.push_back(intImm(d));
          return make<ShapeExpr>(out);
        };
        Value x = c.op("reshape", {c.expr(0), dims({s[0], s[1], s[2] / b, b, s[3] / b, b})});
        x = c.op("permute_dims", {x.expr}, {{"axes", std::vector<int64_t>{0, 3, 5, 1, 2, 4}}});
        c.output(0, c.op("reshape", {x.expr, dims({s[0], s[1] * b * b, s[2] / b, s[3] / b})}));
      },
      {"blocksize"}};
  t["Shrink"] = {
      [](NodeContext& c) {
        DataType dt = c.dtype(0);
        double lambd = c.attrFloat("lambd", 0.5), bias = c.attrFloat("bias", 0.0);
        Expr x = c.expr(0);
        Value lo = c.op("less", {x, NodeContext::scalar(-lambd, dt).expr});
        Value hi = c.op("greater", {x, NodeContext::scalar(lambd, dt).expr});
        Value plus = c.op("add", {x, NodeContext::scalar(bias, dt).expr});
        Value minus = c.op("subtract", {x, NodeContext::scalar(bias, dt).expr});
        Value inner = c.op("where", {hi.expr, minus.expr, NodeContext::scalar(0, dt).expr});
        c.output(0, c.op("where", {lo.expr, plus.expr, inner.expr}));
      },
      {"lambd", "bias"}};
  t["Celu"] = {[](NodeContext& c) {
                 // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
                 DataType dt = c.dtype(0);
                 double alpha = c.attrFloat("alpha", 1.0);
                 auto sc = [&](double v) { return NodeContext::scalar(v, dt).expr; };
                 Value e = c.op("exp", {c.op("divide", {c.expr(0), sc(alpha)}).expr});
                 Value neg = c.op("multiply", {c.op("subtract", {e.expr, sc(1)}).expr, sc(alpha)});
                 Value a = c.op("maximum", {c.expr(0), sc(0)});
                 Value b = c.op("minimum", {neg.expr, sc(0)});
                 c.output(0, c.op("add", {a.expr, b.expr}));
               },
               {"alpha"}};
  t["Hardmax"] = {convertHardmax, {"axis"}};
  t["OneHot"] = {convertOneHot, {"axis"}};
  t["EyeLike"] = {convertEyeLike, {"dtype", "k"}};
  t["NegativeLogLikelihoodLoss"] = {[](NodeContext& c) { c.output(0, nllLoss(c, c.expr(0))); },
                                    {"ignore_index", "reduction"}};
  t["SoftmaxCrossEntropyLoss"] = {
      [](NodeContext& c) {
        if (c.rank(0) < 2)
          c.unsupported("scores must have rank >= 2 (N, C, ...)");
        Value lp = c.op("nn.log_softmax", {c.expr(0)}, {{"axis", int64_t(1)}});
        c.output(0, nllLoss(c, lp.expr));
        if (c.node.output_size() > 1 && !c.node.output(1).empty())
          c.output(1, lp);
      },
      {"ignore_index", "reduction"}};
}

} // namespace unity::frontend::detail
