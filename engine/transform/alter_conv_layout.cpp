#include "engine/transform/alter_conv_layout.h"

#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/support/error.h"
#include "engine/transform/default_schedule.h"

namespace unity::transform {

using namespace ir;

int64_t alterConvLayoutChoice(int64_t C, int64_t O, int64_t KH, int64_t KW, int64_t strideH,
                              int64_t strideW, int64_t OW, const target::SchedulePolicy& policy) {
  int64_t lanes = policy.vectorLanes;
  if (!policy.vectorize || lanes < 4 || O % lanes != 0)
    return 0;
  if (KH * KW == 1 && C < policy.packed1x1MinChannels)
    return 0; // thin 1x1 kernels: the wide form measured as fast (32x28x28 -> 192)
  if (C < policy.packedConvMinChannels)
    return 0; // the stems, where the packed tile's scatter store costs most
  if (strideH == 1 && strideW == 1 && OW >= 56)
    return 0; // the wide form keeps 56 of 58 lanes there and measured faster
  return O % (2 * lanes) == 0 ? 2 * lanes : lanes;
}

namespace {

/// padding as [top, left, bottom, right] from 1, 2 or 4 values.
std::vector<int64_t> fourPads(std::vector<int64_t> p) {
  if (p.size() == 1)
    return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2)
    return {p[0], p[1], p[0], p[1]};
  return p;
}

} // namespace

Tensor packConvWeight(const Tensor& w, int64_t b) {
  const auto& s = w.shape();
  if (w.ndim() != 4 || !(w.dtype() == DataType::Float32()) || b < 1 || s[0] % b != 0)
    throw Error("packConvWeight: needs a float32 [O, I, KH, KW] weight with O a multiple of " +
                std::to_string(b) + ", got " + w.dtype().str() + " of rank " +
                std::to_string(w.ndim()));
  Tensor out(w.dtype(), {s[0] / b, s[1], s[2], s[3], b});
  int64_t taps = s[1] * s[2] * s[3];
  const float* src = w.dataAs<float>();
  float* dst = out.mutableDataAs<float>();
  for (int64_t o = 0; o < s[0]; ++o)
    for (int64_t t = 0; t < taps; ++t)
      dst[((o / b) * taps + t) * b + o % b] = src[o * taps + t];
  return out;
}

namespace {

/// e as a conv2d both rewriters may change: NCHW float32 data of constant
/// channels and image size, a constant float32 OIHW weight over those
/// channels, groups 1, no out_dtype; else null.
const Call* plainConv2d(const Expr& e, const Constant*& w, const TensorSInfo*& x) {
  auto* c = as<Call>(e);
  auto* callee = c ? as<OpRef>(c->op) : nullptr;
  if (!callee || callee->name != "nn.conv2d" || c->args.size() != 2)
    return nullptr;
  w = as<Constant>(c->args[1]);
  x = c->args[0]->sinfo ? as<TensorSInfo>(c->args[0]->sinfo) : nullptr;
  if (!w || !x || !x->shape || x->shape->size() != 4 || w->data.ndim() != 4 ||
      !(w->data.dtype() == DataType::Float32()) || !(x->dtype == DataType::Float32()))
    return nullptr;
  const Attrs& a = c->attrs;
  if (a.getString("data_layout", "NCHW") != "NCHW" ||
      a.getString("kernel_layout", "OIHW") != "OIHW" || a.getInt("groups", 1) != 1 ||
      !a.getString("out_dtype").empty())
    return nullptr;
  auto C = asConstInt((*x->shape)[1]);
  if (!C || !asConstInt((*x->shape)[2]) || !asConstInt((*x->shape)[3]) || w->data.shape()[1] != *C)
    return nullptr;
  return c;
}

struct Rewriter : ExprMutator {
  target::SchedulePolicy policy;
  explicit Rewriter(const target::SchedulePolicy& p) : policy(p) {}

  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    const Constant* w = nullptr;
    const TensorSInfo* x = nullptr;
    const Call* c = plainConv2d(e, w, x);
    if (!c)
      return e;
    const Attrs& a = c->attrs;
    auto C = asConstInt((*x->shape)[1]), W = asConstInt((*x->shape)[3]);
    const auto& ws = w->data.shape();
    auto strides = a.getInts("strides", {1, 1}), dilation = a.getInts("dilation", {1, 1});
    auto pads = fourPads(a.getInts("padding", {0, 0, 0, 0}));
    if (strides.size() != 2 || dilation.size() != 2 || pads.size() != 4)
      return e;
    int64_t OW = (*W + pads[1] + pads[3] - dilation[1] * (ws[3] - 1) - 1) / strides[1] + 1;
    int64_t b = alterConvLayoutChoice(*C, ws[0], ws[2], ws[3], strides[0], strides[1], OW, policy);
    if (!b || OW < 1)
      return e;
    Attrs attrs = a.with("kernel_layout", "OIHW" + std::to_string(b) + "o");
    return make<Call>(c->op,
                      std::vector<Expr>{c->args[0], make<Constant>(packConvWeight(w->data, b))},
                      attrs, c->sinfoArgs, c->sinfo);
  }
};

} // namespace

namespace {

/// Every graph function of m rewritten by a R(policy of its target), unless
/// the PassContext config `switchKey` is false.
template <class R>
IRModule rewriteGraphFunctions(const IRModule& m, const Attrs& config, const char* switchKey) {
  if (!config.getBool(switchKey, true))
    return m;
  std::string text = m->attrs.getString("target");
  auto ct = target::CompositeTarget::parse(text.empty() ? "llvm" : text);
  return mapFunctions(m, [&](const std::string&, const BaseFunc& f) -> BaseFunc {
    auto* fn = as<Function>(f);
    if (!fn)
      return f;
    R r(schedulePolicyFor(ct.at(fn->attrs.getString("target", ct.defaultName)), config));
    return cast<BaseFuncNode>(r.mutate(f));
  });
}

} // namespace

namespace {

// Lavin and Gray's matrices for F(4x4, 3x3) (points 0, +-1, +-2, inf) and
// F(2x2, 3x3) (points 0, +-1, inf), row by row.
const double kBT4[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
const double kG4[6][3] = {{1.0 / 4, 0, 0},
                          {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                          {1.0 / 24, 1.0 / 12, 1.0 / 6},
                          {1.0 / 24, -1.0 / 12, 1.0 / 6},
                          {0, 0, 1}};
const double kAT4[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
const double kBT2[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
const double kAT2[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

void requireTile(int64_t m) {
  if (m != 2 && m != 4)
    throw Error("Winograd F(m x m, 3 x 3): m must be 2 or 4, got " + std::to_string(m));
}
double bt(int64_t m, int64_t r, int64_t c) { return m == 4 ? kBT4[r][c] : kBT2[r][c]; }
double g(int64_t m, int64_t r, int64_t c) { return m == 4 ? kG4[r][c] : kG2[r][c]; }
double at(int64_t m, int64_t r, int64_t c) { return m == 4 ? kAT4[r][c] : kAT2[r][c]; }

} // namespace

int64_t winogradConvChoice(int64_t C, int64_t O, int64_t KH, int64_t KW, int64_t strideH,
                           int64_t strideW, int64_t dilationH, int64_t dilationW, int64_t OH,
                           int64_t OW, const target::SchedulePolicy& policy) {
  int64_t m = policy.winogradTile;
  if (m == 0)
    return 0;
  if (m != 2 && m != 4)
    throw Error("schedule policy: \"winograd_tile\" must be 0, 2 or 4, got " + std::to_string(m));
  if (KH != 3 || KW != 3 || strideH != 1 || strideW != 1 || dilationH != 1 || dilationW != 1)
    return 0;
  int64_t lanes = policy.vectorize ? policy.vectorLanes : 1;
  if (C < lanes || O < lanes || OH < 1 || OW < 1)
    return 0;
  int64_t tiles = ((OH + m - 1) / m) * ((OW + m - 1) / m);
  return tiles >= policy.winogradMinTiles ? m : 0;
}

Tensor winogradWeight(const Tensor& w, int64_t m) {
  requireTile(m);
  const auto& s = w.shape();
  if (w.ndim() != 4 || !(w.dtype() == DataType::Float32()) || s[2] != 3 || s[3] != 3)
    throw Error("winogradWeight: needs a float32 [K, C, 3, 3] weight, got " + w.dtype().str() +
                " of rank " + std::to_string(w.ndim()));
  int64_t A = m + 2, K = s[0], C = s[1];
  Tensor out(w.dtype(), {A * A, C, K});
  const float* src = w.dataAs<float>();
  float* dst = out.mutableDataAs<float>();
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c) {
      const float* f = src + (k * C + c) * 9;
      double gf[8][3]; // G f: [a, 3]
      for (int64_t r = 0; r < A; ++r)
        for (int64_t j = 0; j < 3; ++j)
          gf[r][j] = g(m, r, 0) * f[j] + g(m, r, 1) * f[3 + j] + g(m, r, 2) * f[6 + j];
      for (int64_t r = 0; r < A; ++r)
        for (int64_t q = 0; q < A; ++q)
          dst[((r * A + q) * C + c) * K + k] = static_cast<float>(
              gf[r][0] * g(m, q, 0) + gf[r][1] * g(m, q, 1) + gf[r][2] * g(m, q, 2));
    }
  return out;
}

Tensor winogradMatrices(int64_t m) {
  requireTile(m);
  int64_t A = m + 2;
  Tensor out(DataType::Float32(), {2 * A - 2, A});
  float* dst = out.mutableDataAs<float>();
  for (int64_t r = 0; r < A; ++r)
    for (int64_t c = 0; c < A; ++c)
      dst[r * A + c] = static_cast<float>(bt(m, r, c));
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < A; ++c)
      dst[(A + r) * A + c] = static_cast<float>(at(m, r, c));
  return out;
}

namespace {

struct WinogradRewriter : ExprMutator {
  target::SchedulePolicy policy;
  explicit WinogradRewriter(const target::SchedulePolicy& p) : policy(p) {}

  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    const Constant* w = nullptr;
    const TensorSInfo* x = nullptr;
    const Call* c = plainConv2d(e, w, x);
    auto* y = c && c->sinfo ? as<TensorSInfo>(c->sinfo) : nullptr;
    if (!y || !y->shape || y->shape->size() != 4)
      return e;
    const Attrs& a = c->attrs;
    auto C = asConstInt((*x->shape)[1]), OH = asConstInt((*y->shape)[2]),
         OW = asConstInt((*y->shape)[3]);
    if (!OH || !OW)
      return e;
    const auto& ws = w->data.shape();
    auto strides = a.getInts("strides", {1, 1}), dilation = a.getInts("dilation", {1, 1});
    auto pads = fourPads(a.getInts("padding", {0, 0, 0, 0}));
    if (strides.size() != 2 || dilation.size() != 2 || pads.size() != 4)
      return e;
    int64_t m = winogradConvChoice(*C, ws[0], ws[2], ws[3], strides[0], strides[1], dilation[0],
                                   dilation[1], *OH, *OW, policy);
    if (!m)
      return e;
    Attrs attrs;
    attrs.set("padding", pads);
    return make<Call>(opRef("nn.conv2d_winograd"),
                      std::vector<Expr>{c->args[0], make<Constant>(winogradWeight(w->data, m)),
                                        make<Constant>(winogradMatrices(m))},
                      attrs, c->sinfoArgs, c->sinfo);
  }
};

} // namespace

IRModule winogradConv(const IRModule& m, const Attrs& config) {
  return rewriteGraphFunctions<WinogradRewriter>(m, config, "relax.winograd_conv");
}

IRModule alterConvLayout(const IRModule& m, const Attrs& config) {
  return rewriteGraphFunctions<Rewriter>(m, config, "relax.alter_conv_layout");
}

Tensor packMatmulWeight(const Tensor& w, int64_t V) {
  const auto& s = w.shape();
  if (w.ndim() != 2 || !(w.dtype() == DataType::Float32()) || V < 1 || s[1] % V != 0)
    throw Error("packMatmulWeight: needs a float32 [K, N] matrix with N a multiple of " +
                std::to_string(V) + ", got " + w.dtype().str() + " of rank " +
                std::to_string(w.ndim()));
  Tensor out(w.dtype(), {s[1] / V, s[0], V});
  const float* src = w.dataAs<float>();
  float* dst = out.mutableDataAs<float>();
  for (int64_t k = 0; k < s[0]; ++k)
    for (int64_t n = 0; n < s[1]; ++n)
      dst[((n / V) * s[0] + k) * V + n % V] = src[k * s[1] + n];
  return out;
}

namespace {

struct MatmulRewriter : ExprMutator {
  target::SchedulePolicy policy;
  explicit MatmulRewriter(const target::SchedulePolicy& p) : policy(p) {}

  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    auto* c = as<Call>(e);
    auto* callee = as<OpRef>(c->op);
    if (!callee || callee->name != "matmul" || c->args.size() != 2)
      return e;
    auto* w = as<Constant>(c->args[1]);
    auto* x = c->args[0]->sinfo ? as<TensorSInfo>(c->args[0]->sinfo) : nullptr;
    if (!w || !x || !x->shape || x->shape->size() < 2 || w->data.ndim() != 2 ||
        !(w->data.dtype() == DataType::Float32()) || !(x->dtype == DataType::Float32()) ||
        !c->attrs.getString("out_dtype").empty() || !c->attrs.getString("weight_layout").empty())
      return e;
    auto M = asConstInt((*x->shape)[x->shape->size() - 2]), K = asConstInt(x->shape->back());
    int64_t V = int64_t(policy.maxTileVectors) * policy.vectorLanes;
    if (!policy.vectorize || policy.vectorLanes < 8 || (M && *M < 16) || !K ||
        *K != w->data.shape()[0] || w->data.shape()[1] % V != 0)
      return e;
    return make<Call>(
        c->op, std::vector<Expr>{c->args[0], make<Constant>(packMatmulWeight(w->data, V))},
        c->attrs.with("weight_layout", "KN" + std::to_string(V) + "n"), c->sinfoArgs, c->sinfo);
  }
};

} // namespace

IRModule alterMatmulLayout(const IRModule& m, const Attrs& config) {
  return rewriteGraphFunctions<MatmulRewriter>(m, config, "relax.alter_matmul_layout");
}

PassRef alterMatmulLayoutPass() {
  return makePass(
      {"AlterMatmulLayout", PassLevel::Graph, 1, {"Normalize"}},
      [](const IRModule& m, PassContext& ctx) { return alterMatmulLayout(m, ctx.config); });
}

PassRef winogradConvPass() {
  return makePass({"WinogradConv", PassLevel::Graph, 1, {"Normalize"}},
                  [](const IRModule& m, PassContext& ctx) { return winogradConv(m, ctx.config); });
}

PassRef alterConvLayoutPass() {
  return makePass(
      {"AlterConvLayout", PassLevel::Graph, 1, {"Normalize"}},
      [](const IRModule& m, PassContext& ctx) { return alterConvLayout(m, ctx.config); });
}

} // namespace unity::transform
