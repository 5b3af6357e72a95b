// 3-D convolutions (NCDHW data): the direct convolution and the transposed
// one, written over any number of spatial axes but used for three.
//
// conv3d pads the input into "pad_temp" when there is padding, then reduces
// over input channels of the group and the kernel taps:
//   out[n, o, z, y, x] = sum_{c, kz, ky, kx}
//       pad_temp[n, g(o) * Cg + c, z * sz + kz * dz, y * sy + ky * dy, ...]
//       * weight[o, c, kz, ky, kx]
// with output extents (in + pad_begin + pad_end - d * (k - 1) - 1) floordiv
// s + 1. conv3dTranspose is the gather form of the 2-D one: output position
// p receives input q along an axis when p + pad_begin - k * d == q * s,
// a Select over clamped reads; extents
// (in - 1) * s - pads + d * (k - 1) + output_padding + 1.
#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

namespace {

void checkParams(const Tensor& data, const Tensor& weight, size_t s, const Conv3dParams& p,
                 const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(weight, name, "weight");
  if (data.ndim() != int(2 + s) || weight.ndim() != int(2 + s))
    fail(name, "expects rank-" + std::to_string(2 + s) + " data and weight, got " +
                   shapeStr(data.shape()) + " and " + shapeStr(weight.shape()));
  if (!(data.dtype() == weight.dtype()))
    fail(name, "data and weight dtypes differ");
  auto positive = [&](const std::vector<int64_t>& v, const char* what) {
    if (v.size() != s)
      fail(name, std::string(what) + " needs " + std::to_string(s) + " values");
    for (int64_t x : v)
      if (x < 1)
        fail(name, std::string(what) + " must be positive, got " + std::to_string(x));
  };
  positive(p.strides, "strides");
  positive(p.dilation, "dilation");
  if (p.padding.size() != 2 * s)
    fail(name, "padding needs " + std::to_string(2 * s) + " values");
  for (int64_t v : p.padding)
    if (v < 0)
      fail(name, "negative padding " + std::to_string(v));
  if (p.groups < 1)
    fail(name, "groups must be positive");
}

std::vector<int64_t> fullPadding(std::vector<int64_t> p, size_t s) {
  if (p.size() == 1)
    p.assign(2 * s, p[0]);
  else if (p.size() == s)
    p.insert(p.end(), p.begin(), p.end());
  return p;
}

} // namespace

Tensor conv3d(const Tensor& data, const Tensor& weight, Conv3dParams p, const std::string& name) {
  const size_t s = 3;
  p.padding = fullPadding(p.padding, s);
  checkParams(data, weight, s, p, name);
  const PrimExpr &C = data.shape()[1], &O = weight.shape()[0], &Cg = weight.shape()[1];
  auto c = asConstInt(C), cg = asConstInt(Cg);
  if (c && cg && *c != *cg * p.groups)
    fail(name, "input channels " + std::to_string(*c) + " differ from weight channels * groups " +
                   std::to_string(*cg * p.groups));
  if (auto o = asConstInt(O); o && *o % p.groups != 0)
    fail(name, "output channels " + std::to_string(*o) + " are not divisible by groups " +
                   std::to_string(p.groups));
  Tensor in = data;
  bool anyPad = false;
  for (int64_t v : p.padding)
    anyPad = anyPad || v != 0;
  if (anyPad) {
    std::vector<int64_t> before{0, 0}, after{0, 0};
    for (size_t d = 0; d < s; ++d) {
      before.push_back(p.padding[d]);
      after.push_back(p.padding[s + d]);
    }
    in = pad(data, before, after, 0.0, "pad_temp");
  }
  std::vector<PrimExpr> shape{data.shape()[0], O};
  for (size_t d = 0; d < s; ++d) {
    PrimExpr e = simp(floordiv(data.shape()[2 + d] + (p.padding[d] + p.padding[s + d]) -
                                   p.dilation[d] * (weight.shape()[2 + d] - 1) - 1,
                               i64(p.strides[d])) +
                      1);
    if (auto v = asConstInt(e); v && *v < 1)
      fail(name, "the output would be empty (extent " + std::to_string(*v) + ")");
    shape.push_back(e);
  }
  std::vector<ReduceAxis> axes{reduceAxis(Cg, "rc"), reduceAxis(weight.shape()[2], "rz"),
                               reduceAxis(weight.shape()[3], "ry"),
                               reduceAxis(weight.shape()[4], "rx")};
  PrimExpr outPerGroup = simp(floordiv(O, i64(p.groups)));
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr channel = axes[0].var;
        if (p.groups != 1)
          channel = floordiv(i[1], outPerGroup) * Cg + axes[0].var;
        std::vector<PrimExpr> di{i[0], channel}, wi{i[1], axes[0].var};
        for (size_t d = 0; d < s; ++d) {
          di.push_back(i[2 + d] * p.strides[d] + axes[1 + d].var * p.dilation[d]);
          wi.push_back(axes[1 + d].var);
        }
        return te::sum(in(di)*weight(wi), axes);
      },
      name);
}

Tensor conv3dTranspose(const Tensor& data, const Tensor& weight, Conv3dParams p,
                       std::vector<int64_t> outputPadding, const std::string& name) {
  const size_t s = 3;
  p.padding = fullPadding(p.padding, s);
  checkParams(data, weight, s, p, name);
  if (outputPadding.size() != s)
    fail(name, "output_padding needs 3 values");
  for (size_t d = 0; d < s; ++d)
    if (outputPadding[d] < 0 ||
        (outputPadding[d] >= p.strides[d] && outputPadding[d] >= p.dilation[d]))
      fail(name, "output_padding must be smaller than the stride or the dilation");
  int64_t g = p.groups;
  const PrimExpr& C = data.shape()[1];
  auto c = asConstInt(C), w0 = asConstInt(weight.shape()[0]);
  if (c && w0 && *c != *w0)
    fail(name, "input channels " + std::to_string(*c) + " differ from weight input channels " +
                   std::to_string(*w0));
  if (c && *c % g != 0)
    fail(name, "input channels are not divisible by groups");
  PrimExpr Og = weight.shape()[1], Cg = simp(floordiv(C, i64(g)));
  std::vector<PrimExpr> shape{data.shape()[0], simp(Og * g)};
  for (size_t d = 0; d < s; ++d) {
    PrimExpr e = simp((data.shape()[2 + d] - 1) * p.strides[d] - (p.padding[d] + p.padding[s + d]) +
                      p.dilation[d] * (weight.shape()[2 + d] - 1) + (outputPadding[d] + 1));
    if (auto v = asConstInt(e); v && *v < 1)
      fail(name, "the output would be empty");
    shape.push_back(e);
  }
  std::vector<ReduceAxis> axes{reduceAxis(Cg, "rc"), reduceAxis(weight.shape()[2], "rz"),
                               reduceAxis(weight.shape()[3], "ry"),
                               reduceAxis(weight.shape()[4], "rx")};
  DataType t = data.dtype();
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr ic = g == 1 ? PrimExpr(axes[0].var) : floordiv(i[1], Og) * Cg + axes[0].var;
        PrimExpr oc = g == 1 ? i[1] : floormod(i[1], Og);
        PrimExpr valid;
        std::vector<PrimExpr> di{i[0], ic}, wi{ic, oc};
        for (size_t d = 0; d < s; ++d) {
          PrimExpr tpos = i[2 + d] + p.padding[d] - axes[1 + d].var * p.dilation[d];
          PrimExpr q = floordiv(tpos, i64(p.strides[d]));
          PrimExpr ok = logicalAnd(ge(tpos, i64(0)), lt(q, data.shape()[2 + d]));
          if (p.strides[d] != 1)
            ok = logicalAnd(ok, eq(floormod(tpos, i64(p.strides[d])), i64(0)));
          valid = valid ? logicalAnd(valid, ok) : ok;
          di.push_back(clampIndex(q, data.shape()[2 + d]));
          wi.push_back(axes[1 + d].var);
        }
        return te::sum(select(valid, data(di) * weight(wi), cst(t, 0)), axes);
      },
      name);
}

} // namespace unity::te::topi
