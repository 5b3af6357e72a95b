#include "engine/transform/fold_constant.h"

#include "engine/ir/functor.h"
#include "engine/runtime/reference.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

namespace {

bool allConstant(const Expr& e) {
  if (isa<Constant>(e))
    return true;
  if (auto* t = as<Tuple>(e)) {
    for (auto& f : t->fields)
      if (!allConstant(f))
        return false;
    return true;
  }
  // Shapes, scalars and strings are compile-time values too.
  if (auto* s = as<ShapeExpr>(e)) {
    for (auto& v : s->values)
      if (!asConstInt(v))
        return false;
    return true;
  }
  if (auto* p = as<PrimValue>(e))
    return isa<IntImm>(p->value) || isa<FloatImm>(p->value);
  return isa<StringImm>(e);
}

struct Folder : ExprMutator {
  int64_t maxElements;
  explicit Folder(int64_t maxElements) : maxElements(maxElements) {}

  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    auto* c = as<Call>(e);
    auto* callee = as<OpRef>(c->op);
    if (!callee || callee->name == "call_tir" || callee->name == "call_dps_library")
      return e;
    for (auto& a : c->args)
      if (!allConstant(a))
        return e;
    auto* t = as<TensorSInfo>(c->sinfo);
    if (!t || t->dtype.isVoid())
      return e;
    auto shape = t->staticShape();
    if (!shape)
      return e;
    int64_t n = 1;
    for (int64_t d : *shape)
      n *= d;
    if (n > maxElements)
      return e;
    // Evaluate main() { return call } with the reference evaluator.
    Expr body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{}, e, c->sinfo);
    BaseFunc fn = make<Function>(std::vector<Var>{}, body, c->sinfo);
    std::vector<Tensor> out;
    try {
      out = runtime::referenceRun(makeModule({{"main", fn}}), {});
    } catch (const Error&) {
      return e; // not evaluable here: leave it for the compiled code
    }
    if (out.size() != 1 || out[0].shape() != *shape || out[0].dtype() != t->dtype)
      return e;
    return make<Constant>(out[0]);
  }
};

} // namespace

IRModule foldConstant(const IRModule& m, int64_t maxElements) {
  return mapFunctions(m, [&](const std::string&, const BaseFunc& f) -> BaseFunc {
    if (!isa<Function>(f))
      return f;
    Folder folder(maxElements);
    return cast<BaseFuncNode>(folder.mutate(f));
  });
}

PassRef foldConstantPass() {
  return makePass({"FoldConstant", PassLevel::Graph, 1, {"Normalize"}},
                  [](const IRModule& m, PassContext& ctx) {
                    return foldConstant(m, ctx.config.getInt("fold.max_elements", 1 << 20));
                  });
}

} // namespace unity::transform
