// FuseOps: operator fusion over the dataflow graph of each dataflow block,
// after TVM's relax FuseOps (re-derived here; no code taken).
//
// 1. Graph. Node i is binding i of a dataflow block. Its pattern is the
//    "op_pattern" of the PrimFunc it calls through call_tir (any other
//    binding is opaque). An edge i -> j exists when binding j uses the
//    variable of binding i. A node whose variable is used after the block
//    (or is not a dataflow variable) is "external".
// 2. Post-dominator tree. In reverse binding order, the immediate
//    post-dominator of i is the lowest common ancestor, in the tree built so
//    far, of all consumers of i. External nodes and nodes without consumers
//    hang off the virtual root (no post-dominator): their value escapes.
// 3. Grouping (union-find, the group pattern is the max over its members,
//    following the lattice ElemWise < Broadcast < Injective < CommReduce <
//    OutEWiseFusable < Opaque). Visiting nodes in order, node i is fused
//    with everything on the paths to its post-dominator d when:
//      phase 0  - i's group is OutEWiseFusable (conv, matmul) and every node
//                 on the paths, d included, is at most Broadcast: the anchor
//                 takes an elementwise epilogue;
//               - i's group is at most Broadcast and d's group is at most
//                 Injective or OutEWiseFusable/CommReduce, with the path at
//                 most Injective: elementwise producers fold into consumers;
//               - i's group is CommReduce and the path and d are at most
//                 Broadcast: a reduction takes an elementwise epilogue;
//      phase 1  - i's group is Injective and the path and d are at most
//                 Injective.
//    Because d post-dominates i, every path from i meets d, so a group is
//    closed under paths (convex): outlining it never creates a cycle.
// 4. Outlining. Each group of two or more bindings becomes a primitive
//    Function whose parameters are the variables it uses from outside and
//    whose result is the variable (or tuple of variables) used outside; the
//    block calls it where the group's last binding stood.
#include "engine/transform/fuse_ops.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/transform/call_tir.h"

namespace unity::transform {

using namespace ir;

namespace {

constexpr int kRoot = -1;

int patternOf(const IRModule& m, const Binding& b) {
  auto* c = asCallTIR(b->value);
  if (!c || isa<MatchCast>(b))
    return pattern::kOpaque;
  BaseFunc f = m->lookup(as<GlobalVar>(c->args[0])->name);
  auto* pf = as<PrimFunc>(f);
  if (!pf)
    return pattern::kOpaque;
  return static_cast<int>(pf->attrs.getInt("op_pattern", pattern::kOpaque));
}

/// Variables used by an expression (not through nested binding definitions).
void usedVars(const Expr& e, std::unordered_set<const VarNode*>& out) {
  postOrderVisit(e, [&](const Expr& x) {
    if (auto* v = as<VarNode>(x))
      out.insert(v);
  });
}

struct DataflowGraph {
  std::vector<int> pattern;
  std::vector<std::vector<int>> consumers;
  std::vector<bool> external;
  std::vector<int> ipdom; // kRoot when none
  std::vector<int> depth; // depth in the post-dominator tree
};

int lca(const DataflowGraph& g, int a, int b) {
  while (a != b) {
    if (a == kRoot || b == kRoot)
      return kRoot;
    if (g.depth[a] > g.depth[b])
      a = g.ipdom[a];
    else if (g.depth[b] > g.depth[a])
      b = g.ipdom[b];
    else {
      a = g.ipdom[a];
      b = g.ipdom[b];
    }
  }
  return a;
}

struct UnionFind {
  std::vector<int> parent, pattern, size;
  explicit UnionFind(const std::vector<int>& patterns)
      : parent(patterns.size()), pattern(patterns), size(patterns.size(), 1) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b)
      return;
    parent[a] = b;
    pattern[b] = std::max(pattern[a], pattern[b]);
    size[b] += size[a];
  }
};

class BlockFuser {
public:
  BlockFuser(const IRModule& m, const Ref<BindingBlock>& blk,
             const std::unordered_set<const VarNode*>& usedAfter, const FuseOptions& opts)
      : m_(m), blk_(blk), opts_(opts) {
    const auto& bs = blk->bindings;
    size_t n = bs.size();
    g_.pattern.resize(n);
    g_.consumers.resize(n);
    g_.external.resize(n);
    std::unordered_map<const VarNode*, int> def;
    for (size_t i = 0; i < n; ++i) {
      g_.pattern[i] = patternOf(m, bs[i]);
      std::unordered_set<const VarNode*> uses;
      usedVars(bs[i]->value, uses);
      for (auto* v : uses)
        if (auto it = def.find(v); it != def.end())
          g_.consumers[it->second].push_back(int(i));
      def[bs[i]->var.get()] = int(i);
      g_.external[i] = !bs[i]->var->isDataflow() || usedAfter.count(bs[i]->var.get());
    }
    for (auto& c : g_.consumers) {
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
    }
    // Post-dominators, reverse order (consumers come later).
    g_.ipdom.assign(n, kRoot);
    g_.depth.assign(n, 0);
    for (size_t k = n; k-- > 0;) {
      int d = kRoot;
      if (!g_.external[k] && !g_.consumers[k].empty()) {
        d = g_.consumers[k][0];
        for (int c : g_.consumers[k])
          d = lca(g_, d, c);
      }
      g_.ipdom[k] = d;
      g_.depth[k] = d == kRoot ? 1 : g_.depth[d] + 1;
    }
  }

  /// Returns the rewritten block, and adds outlined functions to `newFuncs`.
  Ref<BindingBlock> run(std::vector<IRModuleNode::Entry>& newFuncs, IRModule& scope) {
    size_t n = blk_->bindings.size();
    UnionFind uf(g_.pattern);
    for (int phase = 0; phase < 2; ++phase) {
      for (size_t i = 0; i < n; ++i) {
        int d = g_.ipdom[i];
        if (d == kRoot)
          continue;
        int gp = uf.pattern[uf.find(int(i))];
        int dp = uf.pattern[uf.find(d)];
        std::function<bool(int)> cond;
        bool sinkOk = false;
        if (phase == 0 && gp == pattern::kOutEWiseFusable) {
          cond = [](int p) { return p <= pattern::kBroadcast; };
          sinkOk = dp <= pattern::kBroadcast;
        } else if (phase == 0 && gp <= pattern::kBroadcast) {
          cond = [](int p) { return p <= pattern::kInjective; };
          sinkOk = dp <= pattern::kInjective || dp == pattern::kOutEWiseFusable ||
                   dp == pattern::kCommReduce;
        } else if (phase == 0 && gp == pattern::kCommReduce) {
          cond = [](int p) { return p <= pattern::kBroadcast; };
          sinkOk = dp <= pattern::kBroadcast;
        } else if (phase == 1 && gp == pattern::kInjective) {
          cond = [](int p) { return p <= pattern::kInjective; };
          sinkOk = dp <= pattern::kInjective;
        }
        if (!cond || !sinkOk)
          continue;
        std::vector<int> path;
        if (!collectPath(int(i), d, uf, cond, path))
          continue;
        int total = uf.size[uf.find(int(i))];
        std::unordered_set<int> roots{uf.find(int(i))};
        for (int p : path)
          if (roots.insert(uf.find(p)).second)
            total += uf.size[uf.find(p)];
        if (total > opts_.maxGroupSize)
          continue;
        for (int p : path)
          uf.unite(p, int(i));
      }
    }
    // Collect groups in binding order.
    std::unordered_map<int, std::vector<int>> groups;
    for (size_t i = 0; i < n; ++i)
      groups[uf.find(int(i))].push_back(int(i));
    std::vector<bool> drop(n, false);
    std::unordered_map<int, std::vector<Binding>> replacementAt; // at last member's position
    for (auto& [root, members] : groups) {
      if (members.size() < 2)
        continue;
      std::vector<Binding> repl;
      if (!outline(members, uf.pattern[root], repl, newFuncs, scope))
        continue;
      for (int i : members)
        drop[i] = true;
      replacementAt[members.back()] = std::move(repl);
    }
    if (replacementAt.empty())
      return blk_;
    std::vector<Binding> out;
    for (size_t i = 0; i < n; ++i) {
      if (auto it = replacementAt.find(int(i)); it != replacementAt.end())
        for (auto& b : it->second)
          out.push_back(b);
      else if (!drop[i])
        out.push_back(blk_->bindings[i]);
    }
    return make<BindingBlock>(std::move(out), blk_->dataflow);
  }

private:
  /// Nodes strictly after `src` on paths to `sink`, sink included; false if a
  /// node on the way violates cond or escapes (external) before the sink.
  bool collectPath(int src, int sink, UnionFind& uf, const std::function<bool(int)>& cond,
                   std::vector<int>& path) {
    std::unordered_set<int> seen;
    std::vector<int> stack(g_.consumers[src].begin(), g_.consumers[src].end());
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      if (!seen.insert(x).second)
        continue;
      path.push_back(x);
      if (x == sink)
        continue;
      if (x > sink)
        return false; // cannot happen for a post-dominator; be safe
      if (!cond(uf.pattern[uf.find(x)]))
        return false;
      for (int c : g_.consumers[x])
        stack.push_back(c);
    }
    return seen.count(sink) != 0;
  }

  /// The shape variables the members use (in their struct info and as
  /// kernels' scalar parameters) that are not a bare dimension of some
  /// input's shape, in first-use order: the fused function cannot bind them
  /// from its tensor parameters (H in (H + 1) // 2, or y in (y * 2,) when
  /// the group hides the tensor of shape (y, ...)), so it takes them as a
  /// trailing shape parameter R.Shape([H, ...]) that the call passes and
  /// FuseTIR turns into the fused kernel's scalar parameters.
  std::vector<Ref<PrimVar>> unboundShapeVars(const std::vector<int>& members,
                                             const std::vector<const VarNode*>& inputs) const {
    std::unordered_set<const PrimVar*> bound;
    for (auto* v : inputs)
      if (auto* t = as<TensorSInfo>(v->sinfo); t && t->shape)
        for (auto& d : *t->shape)
          if (auto* pv = as<PrimVar>(d))
            bound.insert(pv);
    std::vector<Ref<PrimVar>> out;
    auto check = [&](const PrimExpr& e) {
      walkPrimExpr(e, [&](const PrimExpr& x) {
        if (auto* pv = as<PrimVar>(x); pv && bound.insert(pv).second)
          out.push_back(cast<PrimVar>(x));
      });
    };
    std::function<void(const StructInfo&)> checkSInfo = [&](const StructInfo& s) {
      if (auto* t = as<TensorSInfo>(s); t && t->shape)
        for (auto& d : *t->shape)
          check(d);
      if (auto* tu = as<TupleSInfo>(s))
        for (auto& f : tu->fields)
          checkSInfo(f);
    };
    for (int i : members) {
      const Binding& b = blk_->bindings[i];
      checkSInfo(b->var->sinfo);
      if (auto* c = asCallTIR(b->value); c && c->args.size() > 2)
        if (auto* sh = as<ShapeExpr>(c->args[2]))
          for (auto& d : sh->values)
            check(d);
    }
    return out;
  }

  bool outline(const std::vector<int>& members, int groupPattern, std::vector<Binding>& repl,
               std::vector<IRModuleNode::Entry>& newFuncs, IRModule& scope) {
    const auto& bs = blk_->bindings;
    std::unordered_set<const VarNode*> inside;
    for (int i : members)
      inside.insert(bs[i]->var.get());
    // A binding outside the group that sits between members and uses a group
    // value would have to move after the call: refuse (keeps order simple).
    std::unordered_set<int> memberSet(members.begin(), members.end());
    for (int i = members.front(); i <= members.back(); ++i) {
      if (memberSet.count(i))
        continue;
      std::unordered_set<const VarNode*> uses;
      usedVars(bs[i]->value, uses);
      for (auto* v : uses)
        if (inside.count(v))
          return false;
    }
    // Inputs (in first-use order) and outputs.
    std::vector<const VarNode*> inputs;
    std::unordered_set<const VarNode*> inputSet;
    for (int i : members) {
      std::vector<const VarNode*> ordered;
      postOrderVisit(bs[i]->value, [&](const Expr& x) {
        if (auto* v = as<VarNode>(x))
          ordered.push_back(v);
      });
      for (auto* v : ordered)
        if (!inside.count(v) && inputSet.insert(v).second)
          inputs.push_back(v);
    }
    std::vector<int> outputs;
    for (int i : members) {
      bool usedOutside = g_.external[i];
      for (int c : g_.consumers[i])
        usedOutside |= !memberSet.count(c);
      if (usedOutside)
        outputs.push_back(i);
    }
    if (outputs.empty())
      return false;
    std::vector<Ref<PrimVar>> extraVars = unboundShapeVars(members, inputs);

    // Build the function: params for inputs, fresh vars for every binding.
    // Constant arguments become parameters too (the call passes them), so
    // that FuseTIR sees every tensor as a buffer parameter.
    struct Remap : ExprMutator {
      using ExprMutator::varRemap_;
      std::vector<std::pair<const Constant*, Var>> lifted;
      Expr visitLeaf(const Expr& self) override {
        auto* c = as<Constant>(self);
        if (!c)
          return self;
        for (auto& [k, v] : lifted)
          if (k == c)
            return v;
        Var p = makeVar("const" + std::to_string(lifted.size()), self->sinfo);
        lifted.emplace_back(c, p);
        return p;
      }
    } remap;
    std::vector<Var> params;
    for (auto* v : inputs) {
      Var p = makeVar(v->name, v->sinfo);
      params.push_back(p);
      remap.varRemap_[v] = p;
    }
    std::vector<Binding> inner;
    std::vector<Expr> results;
    std::vector<std::string> names;
    Span merged;
    for (int i : members) {
      const Binding& b = bs[i];
      bool isOut = std::find(outputs.begin(), outputs.end(), i) != outputs.end();
      Var nv = isOut ? makeVar(b->var->name, b->var->sinfo)
                     : makeDataflowVar(b->var->name, b->var->sinfo);
      inner.push_back(make<VarBinding>(nv, remap.mutate(b->value), b->span));
      remap.varRemap_[b->var.get()] = nv;
      if (isOut)
        results.push_back(nv);
      if (auto* c = asCallTIR(b->value))
        names.push_back(as<GlobalVar>(c->args[0])->name);
      for (auto& o : b->span.origins)
        merged.origins.push_back(o);
    }
    Expr result;
    StructInfo retSInfo;
    if (results.size() == 1) {
      result = results[0];
      retSInfo = results[0]->sinfo;
    } else {
      std::vector<StructInfo> fs;
      for (auto& r : results)
        fs.push_back(r->sinfo);
      retSInfo = tupleSInfo(fs);
      Var tv = makeVar("out", retSInfo);
      inner.push_back(make<VarBinding>(tv, Expr(make<Tuple>(results, retSInfo))));
      result = tv;
    }
    for (auto& [c, p] : remap.lifted)
      params.push_back(p);
    std::vector<PrimExpr> extraDims(extraVars.begin(), extraVars.end());
    if (!extraDims.empty())
      params.push_back(makeVar("shape_vars", shapeSInfo(extraDims)));
    auto innerBlk = make<BindingBlock>(std::move(inner), true);
    Expr body = make<SeqExpr>(std::vector<Ref<BindingBlock>>{innerBlk}, result, retSInfo);
    std::string base = "fused";
    for (auto& nm : names) {
      if (base.size() > 48)
        break;
      base += "_" + nm;
    }
    std::string name = freshFunctionName(scope, base);
    Attrs attrs{{"primitive", true}, {"op_pattern", int64_t(groupPattern)}};
    BaseFunc fn = make<Function>(params, body, retSInfo, attrs);
    newFuncs.emplace_back(name, fn);
    scope = withFunction(scope, name, fn); // reserve the name

    // The call in the block.
    std::vector<Expr> args;
    for (auto* v : inputs)
      args.push_back(Expr(Ref<VarNode>(v)));
    for (auto& [c, p] : remap.lifted)
      args.push_back(Expr(Ref<Constant>(c)));
    if (!extraDims.empty())
      args.push_back(Expr(make<ShapeExpr>(extraDims)));
    Expr call = make<Call>(Expr(make<GlobalVar>(name, fn->sinfo)), args, Attrs{},
                           std::vector<StructInfo>{}, retSInfo);
    if (outputs.size() == 1) {
      repl.push_back(make<VarBinding>(bs[outputs[0]]->var, call, merged));
    } else {
      Var tv = makeDataflowVar("fused_out", retSInfo);
      repl.push_back(make<VarBinding>(tv, call, merged));
      for (size_t k = 0; k < outputs.size(); ++k) {
        const Binding& b = bs[outputs[k]];
        repl.push_back(
            make<VarBinding>(b->var, Expr(make<TupleGetItem>(tv, int(k), b->var->sinfo)), b->span));
      }
    }
    return true;
  }

  const IRModule& m_;
  Ref<BindingBlock> blk_;
  FuseOptions opts_;
  DataflowGraph g_;
};

/// Applies BlockFuser to every dataflow block of a function.
struct FunctionFuser : ExprMutator {
  const IRModule& m;
  IRModule& scope;
  std::vector<IRModuleNode::Entry>& newFuncs;
  const FuseOptions& opts;
  FunctionFuser(const IRModule& m, IRModule& scope, std::vector<IRModuleNode::Entry>& nf,
                const FuseOptions& o)
      : m(m), scope(scope), newFuncs(nf), opts(o) {}

  Expr visitSeqExpr(const SeqExpr* op, const Expr& self) override {
    bool changed = false;
    std::vector<Ref<BindingBlock>> blocks;
    for (size_t bi = 0; bi < op->blocks.size(); ++bi) {
      const auto& blk = op->blocks[bi];
      if (!blk->dataflow) {
        blocks.push_back(blk);
        continue;
      }
      // Variables used after this block.
      std::unordered_set<const VarNode*> after;
      for (size_t bj = bi + 1; bj < op->blocks.size(); ++bj)
        for (auto& b : op->blocks[bj]->bindings)
          usedVars(b->value, after);
      usedVars(op->body, after);
      BlockFuser fuser(m, blk, after, opts);
      auto nb = fuser.run(newFuncs, scope);
      changed |= !sameNode(nb, blk);
      blocks.push_back(nb);
    }
    if (!changed)
      return self;
    return make<SeqExpr>(std::move(blocks), op->body, op->sinfo);
  }
};

} // namespace

IRModule fuseOps(const IRModule& m, const FuseOptions& opts) {
  IRModule scope = m;
  std::vector<IRModuleNode::Entry> newFuncs;
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [name, f] : m->functions) {
    auto* fn = as<Function>(f);
    if (!fn || fn->attrs.getBool("primitive", false)) {
      out.emplace_back(name, f);
      continue;
    }
    FunctionFuser fuser(m, scope, newFuncs, opts);
    BaseFunc nf = cast<BaseFuncNode>(fuser.mutate(f));
    changed |= !sameNode(nf, f);
    out.emplace_back(name, nf);
  }
  if (!changed)
    return m;
  for (auto& e : newFuncs)
    out.push_back(e);
  return makeModule(std::move(out), m->attrs);
}

PassRef fuseOpsPass() {
  return makePass({"FuseOps", PassLevel::Graph, 1, {"Legalize", "AnnotateOpPattern"}},
                  [](const IRModule& m, PassContext& ctx) {
                    FuseOptions o;
                    o.maxGroupSize =
                        static_cast<int>(ctx.config.getInt("fuse.max_group_size", 256));
                    return fuseOps(m, o);
                  });
}

} // namespace unity::transform
