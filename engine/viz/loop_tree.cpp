// Loop-tree outline of a PrimFunc (see loop_tree.h): a recursive walk that
// keeps For, Block and Allocate statements and flattens everything else
// (sequences, lets, conditions, stores) into its nearest kept ancestor.
#include "engine/viz/loop_tree.h"

#include "engine/ir/module.h"
#include "engine/support/error.h"
#include "engine/text/printer.h"

namespace unity::viz {

using namespace unity::ir;

namespace {

class Builder {
public:
  explicit Builder(LoopTree& t) : t_(t) {}

  void walk(const Stmt& s, int parent) {
    if (!s)
      return;
    if (auto* f = as<For>(s)) {
      LoopTreeNode n;
      n.kind = LoopTreeNode::Kind::For;
      n.var = f->var->name;
      n.extent = text::printPrimExpr(f->extent);
      n.forKind = forKindName(f->forKind);
      std::string range = isConstInt(f->min, 0)
                              ? n.extent
                              : text::printPrimExpr(f->min) + ", " + n.extent + " (min, extent)";
      n.label = "for " + n.var + " in " + range;
      if (f->forKind != ForKind::Serial)
        n.label += " (" + n.forKind + ")";
      int id = add(std::move(n), s, parent);
      walk(f->body, id);
      return;
    }
    if (auto* b = as<Block>(s)) {
      int spatial = 0, reduce = 0;
      for (auto& iv : b->iters)
        (iv.type == IterType::Reduce ? reduce : spatial)++;
      LoopTreeNode n;
      n.kind = LoopTreeNode::Kind::Block;
      n.var = b->name;
      n.label = "block " + b->name + " [" + std::to_string(spatial) + " spatial";
      if (reduce)
        n.label += ", " + std::to_string(reduce) + " reduce";
      n.label += "]";
      int id = add(std::move(n), s, parent);
      walk(b->init, id);
      walk(b->body, id);
      return;
    }
    if (auto* a = as<Allocate>(s)) {
      LoopTreeNode n;
      n.kind = LoopTreeNode::Kind::Allocate;
      n.var = a->buffer->name;
      n.label = "allocate " + a->buffer->name + " (" + a->buffer->scope + ")";
      int id = add(std::move(n), s, parent);
      walk(a->body, id);
      return;
    }
    if (auto* seq = as<SeqStmt>(s)) {
      for (auto& x : seq->seq)
        walk(x, parent);
      return;
    }
    if (auto* l = as<LetStmt>(s))
      return walk(l->body, parent);
    if (auto* i = as<IfThenElse>(s)) {
      walk(i->then, parent);
      walk(i->otherwise, parent);
    }
  }

private:
  int add(LoopTreeNode n, const Stmt& s, int parent) {
    int id = static_cast<int>(t_.nodes.size());
    n.parent = parent;
    n.depth = parent < 0 ? 0 : t_.nodes[parent].depth + 1;
    n.stmt = s.get();
    t_.nodes.push_back(std::move(n));
    if (parent < 0)
      t_.roots.push_back(id);
    else
      t_.nodes[parent].children.push_back(id);
    return id;
  }

  LoopTree& t_;
};

} // namespace

LoopTree loopTree(const PrimFunc& f, const std::string& name) {
  LoopTree t;
  t.function = name;
  Builder(t).walk(f.body, -1);
  return t;
}

LoopTree loopTree(const IRModule& m, const std::string& name) {
  BaseFunc f = m ? m->lookup(name) : BaseFunc();
  if (!f)
    throw Error("loop tree of '" + name + "': the module has no function of that name");
  auto* pf = as<PrimFunc>(f);
  if (!pf)
    throw Error("loop tree of '" + name + "': it is a " + kindName(f->kind()) +
                ", not a tensor-level function");
  return loopTree(*pf, name);
}

std::string loopTreeText(const LoopTree& t) {
  std::string out;
  for (auto& n : t.nodes)
    out += std::string(2 * n.depth, ' ') + n.label + "\n";
  return out;
}

} // namespace unity::viz
