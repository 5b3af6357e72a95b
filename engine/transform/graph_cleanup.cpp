#include "engine/transform/graph_cleanup.h"

#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"

namespace unity::transform {

using namespace ir;

namespace {

/// Collects the graph-level variables and global functions an expression uses.
struct UseCollector : ExprVisitor {
  std::unordered_set<const VarNode*>* vars;
  std::unordered_set<std::string>* globals;
  void visit(const Expr& e) override {
    if (!e)
      return;
    if (auto* v = as<VarNode>(e)) {
      if (vars)
        vars->insert(v);
      return;
    }
    if (auto* g = as<GlobalVar>(e)) {
      if (globals)
        globals->insert(g->name);
      return;
    }
    ExprVisitor::visit(e);
  }
  // Binding variables are definitions, not uses.
  void visitBinding(const Binding& b) override { visit(b->value); }
};

void collectUses(const Expr& e, std::unordered_set<const VarNode*>* vars,
                 std::unordered_set<std::string>* globals) {
  UseCollector c;
  c.vars = vars;
  c.globals = globals;
  c.visit(e);
}

/// Removes dead bindings from every SeqExpr, innermost first.
struct DeadBindingRemover : ExprMutator {
  Expr visitSeqExpr(const SeqExpr* op, const Expr& self) override {
    // First clean nested expressions (If branches, inner functions).
    Expr inner = ExprMutator::visitSeqExpr(op, self);
    auto* seq = as<SeqExpr>(inner);
    std::unordered_set<const VarNode*> live;
    collectUses(seq->body, &live, nullptr);
    bool changed = false;
    std::vector<Ref<BindingBlock>> blocks(seq->blocks.size());
    for (size_t bi = seq->blocks.size(); bi-- > 0;) {
      const auto& blk = seq->blocks[bi];
      std::vector<Binding> kept;
      for (size_t i = blk->bindings.size(); i-- > 0;) {
        const Binding& b = blk->bindings[i];
        bool keep = isa<MatchCast>(b) || live.count(b->var.get());
        if (!keep) {
          changed = true;
          continue;
        }
        collectUses(b->value, &live, nullptr);
        kept.push_back(b);
      }
      std::reverse(kept.begin(), kept.end());
      blocks[bi] = kept.size() == blk->bindings.size()
                       ? blk
                       : make<BindingBlock>(std::move(kept), blk->dataflow);
    }
    if (!changed)
      return inner;
    std::erase_if(blocks, [](const Ref<BindingBlock>& b) { return b->bindings.empty(); });
    return make<SeqExpr>(std::move(blocks), seq->body, seq->sinfo);
  }
};

struct BindingCanonicalizer : ExprMutator {
  std::unordered_map<const VarNode*, Expr> tupleValue; // var -> literal Tuple it is bound to

  Binding mutateBinding(const Binding& b) override {
    Binding nb = ExprMutator::mutateBinding(b);
    if (!isa<VarBinding>(nb))
      return nb;
    Expr value = nb->value;
    // a = t[i] with t a literal tuple -> a = field
    if (auto* item = as<TupleGetItem>(value)) {
      if (auto* tv = as<VarNode>(item->tuple)) {
        auto it = tupleValue.find(tv);
        if (it != tupleValue.end()) {
          auto* tup = as<Tuple>(it->second);
          if (item->index < static_cast<int>(tup->fields.size())) {
            value = tup->fields[item->index];
            nb = make<VarBinding>(nb->var, value, nb->span);
          }
        }
      }
    }
    if (isa<Tuple>(value))
      tupleValue[nb->var.get()] = value;
    if (auto* src = as<VarNode>(value)) {
      bool exportsLocal = !nb->var->isDataflow() && src->isDataflow();
      if (!exportsLocal) {
        varRemap_[nb->var.get()] = value;
        return nullptr; // drop the alias
      }
    }
    return nb;
  }
};

BaseFunc mapGraphFunctions(const BaseFunc& f, ExprMutator& m) {
  if (!isa<Function>(f))
    return f;
  return cast<BaseFuncNode>(m.mutate(f));
}

IRModule mapFunctions(const IRModule& m, const std::function<BaseFunc(const BaseFunc&)>& fn) {
  bool changed = false;
  std::vector<IRModuleNode::Entry> out;
  for (auto& [name, f] : m->functions) {
    BaseFunc nf = fn(f);
    changed |= !sameNode(nf, f);
    out.emplace_back(name, nf);
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}

} // namespace

IRModule deadCodeElimination(const IRModule& m) {
  IRModule cur = mapFunctions(m, [](const BaseFunc& f) {
    DeadBindingRemover r;
    return mapGraphFunctions(f, r);
  });
  // Reachability from entry functions.
  std::vector<std::string> work;
  for (auto& [name, f] : cur->functions)
    if (auto* fn = as<Function>(f); fn && !fn->attrs.getBool("primitive", false))
      work.push_back(name);
  if (work.empty())
    return cur;
  std::unordered_set<std::string> reachable(work.begin(), work.end());
  while (!work.empty()) {
    std::string name = work.back();
    work.pop_back();
    BaseFunc f = cur->lookup(name);
    if (!isa<Function>(f))
      continue;
    std::unordered_set<std::string> globals;
    collectUses(f, nullptr, &globals);
    for (auto& g : globals)
      if (cur->contains(g) && reachable.insert(g).second)
        work.push_back(g);
  }
  if (reachable.size() == cur->functions.size())
    return cur;
  std::vector<IRModuleNode::Entry> kept;
  for (auto& e : cur->functions)
    if (reachable.count(e.first))
      kept.push_back(e);
  return makeModule(std::move(kept), cur->attrs);
}

IRModule canonicalizeBindings(const IRModule& m) {
  return mapFunctions(m, [](const BaseFunc& f) {
    BindingCanonicalizer c;
    return mapGraphFunctions(f, c);
  });
}

PassRef deadCodeEliminationPass() {
  return makePass({"DeadCodeElimination", PassLevel::Graph, 1, {}},
                  [](const IRModule& m, PassContext&) { return deadCodeElimination(m); });
}

PassRef canonicalizeBindingsPass() {
  return makePass({"CanonicalizeBindings", PassLevel::Graph, 1, {}},
                  [](const IRModule& m, PassContext&) { return canonicalizeBindings(m); });
}

} // namespace unity::transform
