#include "engine/transform/call_tir.h"

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

} // namespace unity::transform
