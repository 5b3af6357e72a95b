#include "engine/transform/fold_batch_norm.h"

#include <cmath>
#include <optional>
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/op/op.h"
#include "engine/transform/byoc_library.h"

namespace unity::transform {

using namespace ir;

namespace {

/// A float32 constant of shape [n], or null.
const Constant* channelConstant(const Expr& e, int64_t n) {
  auto* k = as<Constant>(e);
  if (!k || k->data.ndim() != 1 || k->data.shape()[0] != n ||
      !(k->data.dtype() == DataType::Float32()))
    return nullptr;
  return k;
}

/// A conv2d this pass can scale: NCHW data, a constant float32 OIHW weight,
/// no output dtype of its own.
const Constant* foldableWeight(const Call* conv) {
  if (conv->args.size() != 2)
    return nullptr;
  const Attrs& a = conv->attrs;
  if (a.getString("data_layout", "NCHW") != "NCHW" ||
      a.getString("kernel_layout", "OIHW") != "OIHW" || !a.getString("out_dtype").empty())
    return nullptr;
  auto* w = as<Constant>(conv->args[1]);
  if (!w || w->data.ndim() != 4 || !(w->data.dtype() == DataType::Float32()))
    return nullptr;
  return w;
}

struct Fold {
  Tensor weight, bias; // W * s[o] as [O, I, KH, KW]; beta - mean * s as [1, O, 1, 1]
};

/// The folded weight and bias of batch_norm `bn` over `conv`, or nothing.
std::optional<Fold> foldOf(const Call* conv, const Call* bn) {
  const Constant* w = foldableWeight(conv);
  if (!w || bn->args.size() != 5 || bn->attrs.getInt("axis", 1) != 1)
    return std::nullopt;
  int64_t O = w->data.shape()[0];
  const Constant *gamma = channelConstant(bn->args[1], O), *beta = channelConstant(bn->args[2], O),
                 *mean = channelConstant(bn->args[3], O), *var = channelConstant(bn->args[4], O);
  if (!gamma || !beta || !mean || !var)
    return std::nullopt;
  bool scale = bn->attrs.getBool("scale", true), center = bn->attrs.getBool("center", true);
  double eps = bn->attrs.getFloat("epsilon", 1e-5);
  Fold f{Tensor(DataType::Float32(), w->data.shape()), Tensor(DataType::Float32(), {1, O, 1, 1})};
  int64_t per = w->data.numel() / O;
  const float* src = w->data.dataAs<float>();
  float* dst = f.weight.mutableDataAs<float>();
  float* b = f.bias.mutableDataAs<float>();
  for (int64_t o = 0; o < O; ++o) {
    double s = (scale ? gamma->data.getDouble(o) : 1.0) / std::sqrt(var->data.getDouble(o) + eps);
    if (!std::isfinite(s))
      return std::nullopt; // a negative variance: leave the norm to compute what it computes
    for (int64_t i = 0; i < per; ++i)
      dst[o * per + i] = static_cast<float>(src[o * per + i] * s);
    b[o] =
        static_cast<float>((center ? beta->data.getDouble(o) : 0.0) - mean->data.getDouble(o) * s);
  }
  return f;
}

struct Rewriter : ExprMutator {
  std::unordered_map<const Call*, Tensor> weights; // conv call -> folded weight
  std::unordered_map<const Call*, Tensor> biases;  // batch_norm call -> bias

  Expr visitCall(const Call* op, const Expr& self) override {
    if (auto it = biases.find(op); it != biases.end())
      return op::callOp("add", {mutate(op->args[0]), make<Constant>(it->second)});
    if (auto it = weights.find(op); it != weights.end())
      return make<Call>(op->op, std::vector<Expr>{mutate(op->args[0]), make<Constant>(it->second)},
                        op->attrs, op->sinfoArgs, op->sinfo);
    return ExprMutator::visitCall(op, self);
  }
};

BaseFunc foldFunction(const BaseFunc& f) {
  auto* fn = as<Function>(f);
  if (!fn)
    return f;
  UseCounts uses = countUses(fn->body);
  Rewriter r;
  postOrderVisit(fn->body, [&](const Expr& e) {
    auto* seq = as<SeqExpr>(e);
    if (!seq)
      return;
    for (auto& blk : seq->blocks) {
      std::unordered_map<const VarNode*, const Call*> convs; // var -> its conv2d
      for (auto& b : blk->bindings) {
        if (const Call* c = opCall(b->value, "nn.conv2d")) {
          convs[b->var.get()] = c;
          continue;
        }
        const Call* bn = opCall(b->value, "nn.batch_norm");
        auto* x = bn && !bn->args.empty() ? as<VarNode>(bn->args[0]) : nullptr;
        auto conv = x ? convs.find(x) : convs.end();
        if (conv == convs.end() || uses[x] != 1 || r.weights.count(conv->second))
          continue;
        if (auto fold = foldOf(conv->second, bn)) {
          r.weights.emplace(conv->second, std::move(fold->weight));
          r.biases.emplace(bn, std::move(fold->bias));
        }
      }
    }
  });
  if (r.biases.empty())
    return f;
  return cast<BaseFuncNode>(r.mutate(f));
}

} // namespace

IRModule foldBatchNorm(const IRModule& m, const Attrs& config) {
  if (!config.getBool("relax.fold_batch_norm", true))
    return m;
  return mapFunctions(m, [](const std::string&, const BaseFunc& f) { return foldFunction(f); });
}

PassRef foldBatchNormPass() {
  return makePass({"FoldBatchNorm", PassLevel::Graph, 1, {"Normalize"}},
                  [](const IRModule& m, PassContext& ctx) { return foldBatchNorm(m, ctx.config); });
}

} // namespace unity::transform
