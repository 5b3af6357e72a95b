#include "engine/transform/call_tir.h"

#include "engine/ir/struct_info.h"
#include "engine/support/error.h"

namespace unity::transform {

const ir::Call* asCallTIR(const ir::Expr& e) {
  auto* c = ir::as<ir::Call>(e);
  if (!c)
    return nullptr;
  auto* op = ir::as<ir::OpRef>(c->op);
  if (!op || op->name != "call_tir" || c->args.size() < 2 || !ir::isa<ir::GlobalVar>(c->args[0]))
    return nullptr;
  return c;
}

ir::IRModule moduleCallingPrimFunc(const ir::PrimFuncRef& f, const std::string& name) {
  using namespace ir;
  if (!f || f->params.empty() || !f->params.back().buffer)
    throw Error("moduleCallingPrimFunc: the function's last parameter must be its output buffer");
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i + 1 < f->params.size(); ++i) {
    auto& b = f->params[i].buffer;
    if (!b)
      throw Error("moduleCallingPrimFunc: parameter " + std::to_string(i) + " is not a buffer");
    Var v = makeVar(b->name, tensorSInfo(b->dtype, b->shape));
    params.push_back(v);
    args.push_back(v);
  }
  auto& out = f->params.back().buffer;
  Var gv = makeVar("gv", nullptr);
  auto call =
      make<Call>(opRef("call_tir"),
                 std::vector<Expr>{Expr(make<GlobalVar>(name)), Expr(make<Tuple>(std::move(args)))},
                 Attrs{}, std::vector<StructInfo>{tensorSInfo(out->dtype, out->shape)});
  auto blk = make<BindingBlock>(std::vector<Binding>{make<VarBinding>(gv, call)}, false);
  BaseFunc main = make<Function>(
      params, Expr(make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, Expr(gv))), nullptr);
  return makeModule({{"main", main}, {name, f}});
}

} // namespace unity::transform
