// AnnotateOpPattern: derive "op_pattern" of hand-written PrimFuncs from their
// blocks (legalized functions already carry the registry's pattern).
//
// Per block, with S the store indices of its write:
//   - a block with reduction iterators reading two or more buffers through
//     the reduction iterators (matmul, conv)  -> OutEWiseFusable
//   - any other block with reduction iterators -> CommReduce
//   - every load indexed exactly by S          -> ElemWise
//   - every load indexed by a subsequence of S, possibly with constant
//     indices (numpy broadcasting)             -> Broadcast
//   - otherwise                                 -> Injective
// A function takes the maximum over its blocks; one without blocks is Opaque.
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/transform/fuse_ops.h"

namespace unity::transform {

using namespace ir;

namespace {

bool usesAny(const PrimExpr& e, const std::unordered_set<const PrimVar*>& vars) {
  bool found = false;
  walkPrimExpr(e, [&](const PrimExpr& x) {
    if (auto* v = as<PrimVar>(x); v && vars.count(v))
      found = true;
  });
  return found;
}

int blockPattern(const Block* blk) {
  std::unordered_set<const PrimVar*> reduceVars;
  for (auto& iv : blk->iters)
    if (iv.type == IterType::Reduce)
      reduceVars.insert(iv.var.get());
  std::vector<const BufferStore*> stores;
  std::vector<const BufferLoad*> loads;
  walkStmt(blk->body, [&](const Stmt& s) {
    if (auto* st = as<BufferStore>(s)) {
      stores.push_back(st);
      walkPrimExpr(st->value, [&](const PrimExpr& e) {
        if (auto* l = as<BufferLoad>(e))
          loads.push_back(l);
      });
    }
  });
  if (!reduceVars.empty()) {
    std::unordered_set<const Buffer*> reduced;
    for (auto* l : loads) {
      if (!stores.empty() && sameNode(l->buffer, stores[0]->buffer))
        continue;
      for (auto& i : l->indices)
        if (usesAny(i, reduceVars))
          reduced.insert(l->buffer.get());
    }
    return reduced.size() >= 2 ? pattern::kOutEWiseFusable : pattern::kCommReduce;
  }
  if (stores.size() != 1)
    return pattern::kOpaque;
  const auto& S = stores[0]->indices;
  int result = pattern::kElemWise;
  for (auto* l : loads) {
    bool same = l->indices.size() == S.size();
    for (size_t k = 0; same && k < S.size(); ++k)
      same = sameNode(l->indices[k], S[k]);
    if (same)
      continue;
    // Subsequence (right-aligned as numpy broadcasting, constants allowed).
    bool bcast = l->indices.size() <= S.size();
    size_t off = S.size() - l->indices.size();
    for (size_t k = 0; bcast && k < l->indices.size(); ++k)
      bcast = sameNode(l->indices[k], S[off + k]) || asConstInt(l->indices[k]).has_value();
    result = std::max(result, bcast ? pattern::kBroadcast : pattern::kInjective);
  }
  return result;
}

} // namespace

IRModule annotateOpPattern(const IRModule& m) {
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, f] : m->functions) {
    auto* pf = as<PrimFunc>(f);
    if (!pf || pf->attrs.has("op_pattern")) {
      out.emplace_back(name, f);
      continue;
    }
    int p = -1;
    walkStmt(pf->body, [&](const Stmt& s) {
      if (auto* b = as<Block>(s))
        p = std::max(p, blockPattern(b));
    });
    if (p < 0)
      p = pattern::kOpaque;
    out.emplace_back(
        name, make<PrimFunc>(pf->params, pf->body, pf->attrs.with("op_pattern", int64_t(p))));
    changed = true;
  }
  return changed ? makeModule(std::move(out), m->attrs) : m;
}

PassRef annotateOpPatternPass() {
  return makePass({"AnnotateOpPattern", PassLevel::Tensor, 0, {}},
                  [](const IRModule& m, PassContext&) { return annotateOpPattern(m); });
}

} // namespace unity::transform
