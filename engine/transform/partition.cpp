// PartitionByTarget.
//
// Per graph function and binding block, repeatedly: take the annotated
// bindings of one sub-target, build the dependency relation of the block
// (binding j uses the variable of binding i), and grow pieces greedily in
// binding order: a binding joins the first piece it uses a variable of if
// the piece stays convex, i.e. no binding outside the piece is both reachable
// from it and reaches into it (outlining such a piece would need a value that
// is only computed after the call). Otherwise it starts a new piece; so a
// non-convex selection is split into valid pieces, never outlined as one.
// Each piece becomes a function (inputs: the variables it uses from outside,
// outputs: the variables used after it) and the block is reordered as
// [bindings not downstream of the piece] [call] [bindings downstream of it],
// which is a valid order precisely because the piece is convex.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/transform/normalize.h"
#include "engine/transform/partition.h"

namespace unity::transform {

using namespace ir;

namespace {

std::vector<const VarNode*> usedVars(const Expr& e) {
  std::vector<const VarNode*> out;
  std::unordered_set<const VarNode*> seen;
  postOrderVisit(e, [&](const Expr& x) {
    if (auto* v = as<VarNode>(x); v && seen.insert(v).second)
      out.push_back(v);
  });
  return out;
}

/// Copies bindings with every variable replaced per the map.
struct Remapper : ExprMutator {
  explicit Remapper(const std::unordered_map<const VarNode*, Expr>& m) { varRemap_ = m; }
  using ExprMutator::mutate;
};

struct Block {
  std::vector<Binding> bindings;
  std::vector<std::vector<bool>> reach; // reach[i][j]: j depends on i (transitively), i < j
  std::vector<std::vector<size_t>> uses;
};

Block analyse(const std::vector<Binding>& bindings) {
  Block b{bindings, {}, {}};
  size_t n = bindings.size();
  std::unordered_map<const VarNode*, size_t> def;
  for (size_t i = 0; i < n; ++i)
    def[bindings[i]->var.get()] = i;
  b.uses.resize(n);
  for (size_t j = 0; j < n; ++j)
    for (auto* v : usedVars(bindings[j]->value))
      if (auto it = def.find(v); it != def.end() && it->second < j)
        b.uses[j].push_back(it->second);
  b.reach.assign(n, std::vector<bool>(n, false));
  for (size_t j = 0; j < n; ++j)
    for (size_t i : b.uses[j]) {
      b.reach[i][j] = true;
      for (size_t k = 0; k < i; ++k)
        if (b.reach[k][i])
          b.reach[k][j] = true;
    }
  return b;
}

bool convex(const Block& b, const std::set<size_t>& piece) {
  for (size_t x = 0; x < b.bindings.size(); ++x) {
    if (piece.count(x))
      continue;
    bool from = false, into = false;
    for (size_t p : piece) {
      from |= b.reach[p][x];
      into |= b.reach[x][p];
    }
    if (from && into)
      return false;
  }
  return true;
}

std::vector<std::set<size_t>> pieces(const Block& b, const std::vector<size_t>& members) {
  std::vector<std::set<size_t>> out;
  for (size_t m : members) {
    bool placed = false;
    for (auto& p : out) {
      bool connected = false;
      for (size_t u : b.uses[m])
        connected |= p.count(u) != 0;
      if (!connected)
        continue;
      auto q = p;
      q.insert(m);
      if (convex(b, q)) {
        p = std::move(q);
        placed = true;
        break;
      }
    }
    if (!placed)
      out.push_back({m});
  }
  return out;
}

struct Partitioner {
  IRModule mod;
  std::vector<IRModuleNode::Entry> added;
  std::set<std::string> takenNames;

  std::string freshName(const std::string& base) {
    std::string n = freshFunctionName(mod, base);
    for (int k = 1; takenNames.count(n); ++k)
      n = freshFunctionName(mod, base + "_" + std::to_string(k));
    takenNames.insert(n);
    return n;
  }

  /// Outlines `piece` of block `blk`; `usedLater` holds variables used by
  /// later blocks or the body. Returns the new bindings of the block.
  std::vector<Binding> outline(const std::string& fname, const std::string& sub, const Block& b,
                               const std::set<size_t>& piece, bool dataflow,
                               const std::unordered_set<const VarNode*>& usedLater) {
    std::unordered_set<const VarNode*> defined;
    for (size_t i : piece)
      defined.insert(b.bindings[i]->var.get());
    // Inputs in order of first use; outputs in binding order.
    std::vector<Var> inputs;
    std::unordered_set<const VarNode*> seenIn;
    std::unordered_map<const VarNode*, Var> varOf;
    for (auto& bd : b.bindings)
      varOf[bd->var.get()] = bd->var;
    std::vector<Var> outputs;
    for (size_t i : piece) {
      postOrderVisit(b.bindings[i]->value, [&](const Expr& x) {
        auto* v = as<VarNode>(x);
        if (v && !defined.count(v) && seenIn.insert(v).second)
          inputs.push_back(cast<VarNode>(x));
      });
    }
    for (size_t i : piece) {
      const VarNode* v = b.bindings[i]->var.get();
      bool used = usedLater.count(v) != 0;
      for (size_t j = 0; j < b.bindings.size() && !used; ++j)
        if (!piece.count(j))
          for (size_t u : b.uses[j])
            used |= u == i;
      if (used)
        outputs.push_back(b.bindings[i]->var);
    }
    if (outputs.empty())
      outputs.push_back(b.bindings[*piece.rbegin()]->var);

    // The new function.
    std::unordered_map<const VarNode*, Expr> remap;
    std::vector<Var> params;
    for (auto& in : inputs) {
      Var p = makeVar(in->name, in->sinfo);
      params.push_back(p);
      remap[in.get()] = p;
    }
    std::vector<Binding> inner;
    for (size_t i : piece) {
      const Binding& bd = b.bindings[i];
      Expr value = Remapper(remap).mutate(bd->value);
      Var nv = makeVar(bd->var->name, bd->var->sinfo);
      remap[bd->var.get()] = nv;
      if (auto* mc = as<MatchCast>(bd))
        inner.push_back(make<MatchCast>(nv, value, mc->pattern, bd->span));
      else
        inner.push_back(make<VarBinding>(nv, value, bd->span));
    }
    Expr body;
    StructInfo ret;
    if (outputs.size() == 1) {
      body = remap.at(outputs[0].get());
      ret = outputs[0]->sinfo;
    } else {
      std::vector<Expr> fields;
      std::vector<StructInfo> fs;
      for (auto& o : outputs) {
        fields.push_back(remap.at(o.get()));
        fs.push_back(o->sinfo);
      }
      ret = tupleSInfo(fs);
      body = make<Tuple>(fields, ret);
    }
    Expr seq =
        make<SeqExpr>(std::vector<Ref<BindingBlock>>{make<BindingBlock>(inner, false)}, body, ret);
    Attrs attrs{{"target", sub}, {"global_symbol", fname}};
    added.emplace_back(fname, make<Function>(params, seq, ret, attrs));

    // The call site.
    std::vector<Expr> args(inputs.begin(), inputs.end());
    Expr call = make<Call>(make<GlobalVar>(fname), args, Attrs{}, std::vector<StructInfo>{}, ret);
    std::vector<Binding> callBindings;
    Span span = b.bindings[*piece.begin()]->span;
    if (outputs.size() == 1) {
      callBindings.push_back(make<VarBinding>(outputs[0], call, span));
    } else {
      Var t = dataflow ? makeDataflowVar(fname + "_out", ret) : makeVar(fname + "_out", ret);
      callBindings.push_back(make<VarBinding>(t, call, span));
      for (size_t k = 0; k < outputs.size(); ++k)
        callBindings.push_back(make<VarBinding>(
            outputs[k], make<TupleGetItem>(t, static_cast<int>(k), outputs[k]->sinfo), span));
    }
    // Reorder: not downstream, call, downstream.
    std::vector<Binding> before, after;
    for (size_t x = 0; x < b.bindings.size(); ++x) {
      if (piece.count(x))
        continue;
      bool down = false;
      for (size_t p : piece)
        down |= b.reach[p][x];
      (down ? after : before).push_back(b.bindings[x]);
    }
    before.insert(before.end(), callBindings.begin(), callBindings.end());
    before.insert(before.end(), after.begin(), after.end());
    return before;
  }

  Expr partitionFunction(const std::string& fname, const Function* fn,
                         const std::map<std::string, std::string>& ann) {
    auto* seq = as<SeqExpr>(fn->body);
    if (!seq)
      throw Error("PartitionByTarget: function '" + fname + "' is not normalized");
    std::vector<Ref<BindingBlock>> blocks = seq->blocks;
    std::set<std::string> found;
    for (size_t bi = 0; bi < blocks.size(); ++bi) {
      std::vector<Binding> bindings = blocks[bi]->bindings;
      std::set<const VarNode*> done; // outputs of outlined pieces (not to re-outline)
      while (true) {
        // Variables used after this block.
        std::unordered_set<const VarNode*> usedLater;
        for (size_t k = bi + 1; k < blocks.size(); ++k)
          for (auto& bd : blocks[k]->bindings)
            for (auto* v : usedVars(bd->value))
              usedLater.insert(v);
        for (auto* v : usedVars(seq->body))
          usedLater.insert(v);
        Block b = analyse(bindings);
        std::string sub;
        std::vector<size_t> members;
        for (size_t i = 0; i < bindings.size(); ++i) {
          if (done.count(bindings[i]->var.get()))
            continue;
          auto it = ann.find(bindings[i]->var->name);
          if (it == ann.end())
            continue;
          found.insert(it->first);
          if (sub.empty())
            sub = it->second;
          if (it->second == sub)
            members.push_back(i);
        }
        if (members.empty())
          break;
        auto ps = pieces(b, members);
        const auto& piece = ps.front();
        std::string name = freshName(fname + "_" + sub);
        bindings = outline(name, sub, b, piece, blocks[bi]->dataflow, usedLater);
        for (size_t i : piece)
          done.insert(b.bindings[i]->var.get());
      }
      blocks[bi] = make<BindingBlock>(bindings, blocks[bi]->dataflow);
    }
    for (auto& [binding, sub] : ann)
      if (!found.count(binding))
        throw Error("PartitionByTarget: function '" + fname + "' has no binding '" + binding +
                    "' (annotated for '" + sub + "')");
    return make<SeqExpr>(blocks, seq->body, seq->sinfo);
  }
};

} // namespace

IRModule partitionByTarget(const IRModule& m) {
  auto anns = targetAnnotations(m);
  if (anns.empty())
    return m;
  std::map<std::string, std::map<std::string, std::string>> byFunc;
  for (auto& a : anns)
    byFunc[a.function][a.binding] = a.subTarget;
  Partitioner p{m, {}, {}};
  std::vector<IRModuleNode::Entry> out;
  for (auto& [name, f] : m->functions) {
    auto it = byFunc.find(name);
    auto* fn = as<Function>(f);
    if (it == byFunc.end() || !fn) {
      out.emplace_back(name, f);
      continue;
    }
    if (fn->attrs.has("target"))
      throw Error("PartitionByTarget: function '" + name + "' already has target '" +
                  fn->attrs.getString("target") + "'; annotate bindings of its callers instead");
    Expr body = p.partitionFunction(name, fn, it->second);
    out.emplace_back(name, make<Function>(fn->params, body, fn->retSInfo, fn->attrs, fn->pure));
    byFunc.erase(it);
  }
  if (!byFunc.empty())
    throw Error("PartitionByTarget: annotations name unknown function '" + byFunc.begin()->first +
                "'");
  out.insert(out.end(), p.added.begin(), p.added.end());
  return normalize(makeModule(std::move(out), m->attrs.without(kTargetAnnotationsAttr)));
}

PassRef partitionByTargetPass() {
  return makePass({"PartitionByTarget", PassLevel::Graph, 0, {}},
                  [](const IRModule& m, PassContext&) { return partitionByTarget(m); });
}

} // namespace unity::transform
