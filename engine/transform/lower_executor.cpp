#include "engine/transform/lower_executor.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/call_tir.h"

namespace unity::transform {

using namespace ir;

namespace {

void usedVars(const Expr& e, std::unordered_set<const VarNode*>& out) {
  postOrderVisit(e, [&](const Expr& x) {
    if (auto* v = as<VarNode>(x))
      out.insert(v);
  });
}

std::optional<int64_t> staticBytes(const TensorSInfo* t) {
  auto shape = t->staticShape();
  if (!shape || t->dtype.isVoid())
    return std::nullopt;
  int64_t n = t->dtype.bytes();
  for (int64_t d : *shape)
    n *= d;
  return n;
}

/// storage_bytes of a slot whose size is only known at run time.
constexpr int64_t kDynamicSlot = -1;

class FunctionLowering {
public:
  explicit FunctionLowering(const Function* fn) : fn_(fn) {}

  BaseFunc run(const BaseFunc& self) {
    auto* seq = as<SeqExpr>(fn_->body);
    if (!seq)
      return self;
    bool any = false;
    for (auto& blk : seq->blocks)
      for (auto& b : blk->bindings)
        any |= asCallTIR(b->value) != nullptr;
    if (!any)
      return self;

    // Flatten all blocks into one ordered list; compute last uses.
    std::vector<Binding> bindings;
    for (auto& blk : seq->blocks)
      for (auto& b : blk->bindings)
        bindings.push_back(b);
    std::unordered_map<const VarNode*, size_t> lastUse;
    for (size_t i = 0; i < bindings.size(); ++i) {
      std::unordered_set<const VarNode*> uses;
      usedVars(bindings[i]->value, uses);
      for (auto* v : uses)
        lastUse[v] = i;
    }
    // A value bound by anything but a kernel (match_cast, an alias, a tuple,
    // a builtin that may return a view) may share the storage of the vars
    // it uses: their slots live as long as it does. Backwards, so a chain
    // of aliases reaches its source.
    for (size_t i = bindings.size(); i-- > 0;) {
      if (asCallTIR(bindings[i]->value))
        continue;
      auto lu = lastUse.find(bindings[i]->var.get());
      if (lu == lastUse.end())
        continue;
      std::unordered_set<const VarNode*> uses;
      usedVars(bindings[i]->value, uses);
      for (auto* v : uses)
        lastUse[v] = std::max(lastUse[v], lu->second);
    }
    std::unordered_set<const VarNode*> escaping;
    usedVars(seq->body, escaping);
    // Aliases and tuples of escaping values escape too (walk backwards).
    for (size_t i = bindings.size(); i-- > 0;)
      if (escaping.count(bindings[i]->var.get()) && !asCallTIR(bindings[i]->value))
        usedVars(bindings[i]->value, escaping);

    std::vector<Binding> out;
    std::vector<int64_t> slotBytes;
    std::multimap<int64_t, int> freeSlots; // bytes -> slot
    std::unordered_map<const VarNode*, int> slotOf;
    // Var -> the var now holding its value (after lowering the var itself
    // stays bound to the output tensor, so no remapping is needed).
    int tmp = 0;
    for (size_t i = 0; i < bindings.size(); ++i) {
      const Binding& b = bindings[i];
      const Call* call = asCallTIR(b->value);
      if (!call) {
        out.push_back(b);
      } else {
        if (call->sinfoArgs.size() != 1)
          throw Error("LowerToExecutor: call_tir without exactly one output struct info");
        std::vector<StructInfo> outs;
        if (auto* tu = as<TupleSInfo>(call->sinfoArgs[0]))
          outs = tu->fields;
        else
          outs = {call->sinfoArgs[0]};
        std::vector<Expr> outVars;
        for (size_t k = 0; k < outs.size(); ++k) {
          auto* t = as<TensorSInfo>(outs[k]);
          if (!t || !t->shape || t->dtype.isVoid())
            throw Error("LowerToExecutor: output " + std::to_string(k) + " of '" + b->var->name +
                        "' has no known tensor shape");
          int slot = -1;
          bool escapes = escaping.count(b->var.get()) != 0;
          if (auto bytes = staticBytes(t); bytes && !escapes) {
            auto it = freeSlots.lower_bound(*bytes);
            if (it != freeSlots.end()) {
              slot = it->second;
              freeSlots.erase(it);
            } else {
              slot = static_cast<int>(slotBytes.size());
              slotBytes.push_back(*bytes);
            }
          } else if (!escapes) {
            // A symbolic size: a slot of size -1, which the executor grows
            // to what the run needs and keeps for the next run (no fresh
            // allocation per call); shared like static slots, by lifetime.
            auto it = freeSlots.find(kDynamicSlot);
            if (it != freeSlots.end()) {
              slot = it->second;
              freeSlots.erase(it);
            } else {
              slot = static_cast<int>(slotBytes.size());
              slotBytes.push_back(kDynamicSlot);
            }
          }
          Var v =
              outs.size() == 1 ? b->var : makeVar(b->var->name + "_" + std::to_string(k), outs[k]);
          Expr alloc =
              make<Call>(Expr(make<ExternFunc>(kAllocTensor)),
                         std::vector<Expr>{Expr(make<ShapeExpr>(*t->shape)),
                                           Expr(make<PrimValue>(intImm(slot)))},
                         Attrs{{"dtype", t->dtype}}, std::vector<StructInfo>{outs[k]}, outs[k]);
          out.push_back(make<VarBinding>(v, alloc, b->span));
          if (slot >= 0)
            slotOf[v.get()] = slot;
          outVars.push_back(v);
        }
        Var unit = makeVar("_" + std::to_string(tmp++), objectSInfo());
        // The kernel's scalar shape parameters (call_tir's tir_vars) follow
        // the outputs.
        std::vector<Expr> dpsArgs{call->args[0], call->args[1], Expr(make<Tuple>(outVars))};
        if (call->args.size() > 2)
          dpsArgs.push_back(call->args[2]);
        Expr dps = make<Call>(Expr(make<ExternFunc>(kCallTIRDps)), std::move(dpsArgs), Attrs{},
                              std::vector<StructInfo>{}, objectSInfo());
        out.push_back(make<VarBinding>(unit, dps, b->span));
        if (outs.size() > 1)
          out.push_back(
              make<VarBinding>(b->var, Expr(make<Tuple>(outVars, call->sinfoArgs[0])), b->span));
        // Multi-output tuples: the slots belong to the tuple's fields; their
        // last use is the tuple's last use.
        if (outs.size() > 1)
          for (auto& ov : outVars)
            if (auto it = lastUse.find(b->var.get()); it != lastUse.end())
              lastUse[as<VarNode>(ov)] = it->second;
      }
      // Release slots whose last use is this binding.
      std::unordered_set<const VarNode*> uses;
      usedVars(b->value, uses);
      for (auto* v : uses) {
        auto lu = lastUse.find(v);
        auto s = slotOf.find(v);
        if (lu != lastUse.end() && lu->second == i && s != slotOf.end()) {
          freeSlots.emplace(slotBytes[s->second], s->second);
          slotOf.erase(s);
        }
      }
    }
    auto blk = make<BindingBlock>(std::move(out), false);
    Expr body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{blk}, seq->body, seq->sinfo);
    Attrs attrs = fn_->attrs.with("storage_bytes", slotBytes);
    return make<Function>(fn_->params, body, fn_->retSInfo, attrs, false);
  }

private:
  const Function* fn_;
};

} // namespace

IRModule lowerToExecutor(const IRModule& m) {
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, f] : m->functions) {
    BaseFunc nf = f;
    if (auto* fn = as<Function>(f))
      nf = FunctionLowering(fn).run(f);
    changed |= !sameNode(nf, f);
    out.emplace_back(name, nf);
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}

PassRef lowerToExecutorPass() {
  return makePass({"LowerToExecutor", PassLevel::Graph, 0, {"FuseTIR"}},
                  [](const IRModule& m, PassContext&) { return lowerToExecutor(m); });
}

} // namespace unity::transform
