// Extraction of the dataflow graph of a graph-level function (see
// graph_model.h for what the nodes and edges are).
//
// One walk over the function's bindings in order. A map from each variable
// to the node that produces it turns every variable use into an edge; a
// fused group that is expanded adds its own parameters to that map as
// aliases of the caller's operands, so its inner nodes connect straight to
// the outer graph, and the caller's variable becomes an alias of the node
// that produces the group's result. A fused PrimFunc is expanded the same
// way at block granularity, with buffers in the role of variables.
#include "engine/viz/graph_model.h"

#include <unordered_map>
#include <unordered_set>

#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/ir/structural_digest.h"
#include "engine/op/op.h"
#include "engine/support/error.h"
#include "engine/text/printer.h"

namespace unity::viz {

using namespace unity::ir;

const char* nodeKindName(NodeKind k) {
  switch (k) {
  case NodeKind::Param:
    return "param";
  case NodeKind::Constant:
    return "constant";
  case NodeKind::Op:
    return "op";
  case NodeKind::Cluster:
    return "fused group";
  case NodeKind::Block:
    return "block";
  case NodeKind::Output:
    return "output";
  }
  return "?";
}

std::string compactType(const std::string& type) {
  static const std::pair<const char*, const char*> kDtypes[] = {
      {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"},
      {"float64", "f64"}, {"int64", "i64"},   {"int32", "i32"},
      {"int8", "i8"},     {"uint8", "u8"},    {"bool", "bool"}};
  auto dtype = [](const std::string& d) -> std::string {
    for (auto& [longName, shortName] : kDtypes)
      if (d == longName)
        return shortName;
    return d;
  };
  if (type.empty() || type.front() != '(')
    return dtype(type);
  size_t close = type.find(')');
  if (close == std::string::npos || type.find('(', 1) != std::string::npos ||
      close + 1 >= type.size() || type[close + 1] != ' ')
    return type;
  std::string dims;
  for (char c : type.substr(1, close - 1)) {
    if (c == ' ')
      continue;
    if (c == ',')
      dims += "\xC3\x97"; // ×
    else
      dims += c;
  }
  if (dims.size() >= 2 && dims.compare(dims.size() - 2, 2, "\xC3\x97") == 0)
    dims.resize(dims.size() - 2); // "(16,)"
  return (dims.empty() ? "scalar" : dims) + " " + dtype(type.substr(close + 2));
}

namespace {

std::string withProperties(std::string label, const GraphNode& n) {
  for (size_t i = 0; i < n.constants.size() && i < GraphNode::kLabelConstants; ++i)
    label += "\n\xE2\x97\x86 " + compactType(n.constants[i].type); // ◆
  if (n.constants.size() > GraphNode::kLabelConstants)
    label += "\n+" + std::to_string(n.constants.size() - GraphNode::kLabelConstants) + " constants";
  if (n.kind == NodeKind::Cluster && n.members > 0)
    label += "\n\xE2\x96\xB8 " + std::to_string(n.members) + (n.members == 1 ? " node" : " nodes");
  return label;
}

std::string baseLabel(const GraphNode& n);

} // namespace

std::string GraphNode::label() const { return withProperties(baseLabel(*this), *this); }

namespace {

std::string baseLabel(const GraphNode& n) {
  const auto& kind = n.kind;
  const auto& name = n.name;
  const auto& op = n.op;
  const auto& callee = n.callee;
  const auto& attrs = n.attrs;
  if (kind == NodeKind::Param || kind == NodeKind::Output || name == op || op.empty())
    return name.empty() ? op : name;
  // A call_tir says what it calls: "c1\nconv2d" rather than "c1\ncall_tir".
  std::string what = op == "call_tir" && !callee.empty() ? callee : op;
  // A placeholder for a source node the importer could not convert is
  // marked with that node's operator: "x\nunsupported: Frobnicate".
  if (op == "unsupported")
    for (auto& [k, v] : attrs)
      if (k == "op_type") {
        bool quoted = v.size() >= 2 && v.front() == '"' && v.back() == '"';
        what = "unsupported: " + (quoted ? v.substr(1, v.size() - 2) : v);
      }
  if (name.empty())
    return what;
  return name + "\n" + what;
}

} // namespace

int DataflowGraph::findNode(const std::string& name) const {
  for (auto& n : nodes)
    if (n.name == name)
      return n.id;
  return -1;
}

std::vector<int> DataflowGraph::inputsOf(int node) const {
  std::vector<int> out;
  for (auto& e : edges)
    if (e.to == node)
      out.push_back(e.from);
  return out;
}

std::vector<int> DataflowGraph::outputsOf(int node) const {
  std::vector<int> out;
  for (auto& e : edges)
    if (e.from == node)
      out.push_back(e.to);
  return out;
}

std::string typeLabel(const StructInfo& s) {
  if (!s)
    return "";
  auto dims = [](const std::vector<PrimExpr>& v) {
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i)
        out += ", ";
      // A constant extent as the printer writes it, without making a
      // printer per dimension (a third of a big graph's extraction time).
      auto* imm = as<IntImm>(v[i]);
      out += imm && imm->dtype == DataType::Int64() ? std::to_string(imm->value)
                                                    : text::printPrimExpr(v[i]);
    }
    return out + (v.size() == 1 ? ",)" : ")");
  };
  if (auto* t = as<TensorSInfo>(s)) {
    std::string shape = t->hasShape()  ? dims(*t->shape)
                        : t->ndim >= 0 ? "ndim=" + std::to_string(t->ndim)
                                       : "?";
    return shape + " " + t->dtype.str();
  }
  if (auto* t = as<TupleSInfo>(s)) {
    std::string out = "(";
    for (size_t i = 0; i < t->fields.size(); ++i)
      out += (i ? ", " : "") + typeLabel(t->fields[i]);
    return out + ")";
  }
  if (auto* sh = as<ShapeSInfo>(s))
    return sh->values ? "shape" + dims(*sh->values) : "shape";
  if (auto* p = as<PrimSInfo>(s))
    return p->dtype.str();
  if (isa<FuncSInfo>(s))
    return "function";
  return "object";
}

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

uint64_t hashString(const std::string& s) {
  uint64_t h = 1469598103934665603ULL; // FNV-1a: stable across runs
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string shorten(std::string s, size_t max = 48) {
  if (s.size() > max)
    s = s.substr(0, max - 3) + "...";
  return s;
}

bool isFusedCallee(const BaseFunc& f) {
  if (auto* fn = as<Function>(f))
    return fn->attrs.getBool("primitive", false);
  if (auto* pf = as<PrimFunc>(f))
    return pf->attrs.getBool("fused", false);
  return false;
}

class Extractor {
public:
  Extractor(const IRModule& m, const ExtractOptions& opts) : m_(m), opts_(opts) {}

  DataflowGraph run(const std::string& name) {
    BaseFunc f = m_->lookup(name);
    if (!f)
      throw Error("graph of '" + name + "': the module has no function of that name");
    auto* fn = as<Function>(f);
    if (!fn)
      throw Error("graph of '" + name + "': it is a " + kindName(f->kind()) +
                  ", not a graph-level function");
    g_.function = name;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const Var& p = fn->params[i];
      GraphNode n;
      n.kind = NodeKind::Param;
      n.name = p->name;
      n.op = "param";
      n.type = type(p->sinfo);
      n.key = mix(mix(hashString("param"), i), hash_(p->sinfo));
      producer_[p.get()] = add(std::move(n));
    }
    Expr result = fn->body;
    if (auto* seq = as<SeqExpr>(fn->body)) {
      emitBlocks(*seq, -1);
      result = seq->body;
    }
    GraphNode out;
    out.kind = NodeKind::Output;
    out.name = "output";
    out.op = "return";
    out.type = type(result ? result->sinfo : nullptr);
    out.key = mix(hashString("output"), hash_(fn->retSInfo));
    int outId = add(std::move(out));
    connectOperands(result, outId, -1);
    return std::move(g_);
  }

private:
  int add(GraphNode n) {
    n.id = static_cast<int>(g_.nodes.size());
    if (n.cluster >= 0)
      g_.clusters[n.cluster].members.push_back(n.id);
    g_.nodes.push_back(std::move(n));
    return g_.nodes.back().id;
  }

  void edge(int from, int to, const std::string& label) {
    if (from < 0 || to < 0 || from == to)
      return;
    if (!edgeSet_.insert((uint64_t(uint32_t(from)) << 32) | uint32_t(to)).second)
      return;
    g_.edges.push_back({from, to, label});
  }

  /// A node for one use of a constant, or -1 when constants are hidden.
  int constantNode(const Expr& c, int cluster) {
    if (!opts_.constants)
      return -1;
    GraphNode n;
    n.kind = NodeKind::Constant;
    n.name = "const";
    n.op = "const";
    n.type = type(c->sinfo);
    n.key = mix(hashString("const"), hash_(c));
    n.cluster = cluster;
    n.value = c;
    return add(std::move(n));
  }

  /// The node that stands for operand `e` (a variable or a constant).
  int sourceOf(const Expr& e, int cluster) {
    if (auto* v = as<VarNode>(e)) {
      auto it = producer_.find(v);
      return it == producer_.end() ? -1 : it->second;
    }
    if (isa<Constant>(e))
      return constantNode(e, cluster);
    return -1;
  }

  /// Edges from every variable and constant used by `value` into `to`.
  void connectOperands(const Expr& value, int to, int cluster) {
    if (!value)
      return;
    std::vector<Expr> operands;
    postOrderVisit(value, [&](const Expr& e) {
      if (isa<VarNode>(e) || isa<Constant>(e))
        operands.push_back(e);
    });
    for (size_t i = 0; i < operands.size(); ++i) {
      const Expr& e = operands[i];
      if (!opts_.constants && isa<Constant>(e))
        g_.nodes[to].constants.push_back({static_cast<int>(i), type(e->sinfo)});
      else
        edge(sourceOf(e, cluster), to, type(e->sinfo));
    }
  }

  /// How many nodes a collapsed group stands for: the callee's bindings,
  /// or a fused PrimFunc's leaf blocks.
  static int memberCount(const BaseFunc& callee) {
    int count = 0;
    if (auto* fn = as<Function>(callee)) {
      if (auto* seq = as<SeqExpr>(fn->body))
        for (auto& block : seq->blocks)
          count += static_cast<int>(block->bindings.size());
    } else if (auto* pf = as<PrimFunc>(callee)) {
      walkStmt(pf->body, [&](const Stmt& s) {
        if (auto* blk = as<Block>(s)) {
          bool leaf = true;
          walkStmt(blk->body, [&](const Stmt& inner) { leaf = leaf && !isa<Block>(inner); });
          count += leaf;
        }
      });
    }
    return count;
  }

  void emitBlocks(const SeqExpr& seq, int cluster) {
    for (auto& block : seq.blocks)
      for (auto& b : block->bindings) {
        if (opts_.cancel && (++emitted_ & 255) == 0 && opts_.cancel->load())
          return; // the caller drops the graph
        emitBinding(b, cluster);
      }
  }

  void describe(const Expr& value, GraphNode& n) {
    if (auto* c = as<Call>(value)) {
      if (auto* op = as<OpRef>(c->op)) {
        n.op = op->name;
        if ((op->name == "call_tir" || op->name == "call_dps_library") && !c->args.empty())
          if (auto* gv = as<GlobalVar>(c->args[0]))
            n.callee = gv->name;
        if (n.callee.empty())
          if (const op::OpInfo* info = op::findOp(op->name))
            n.opPattern = static_cast<int>(info->pattern);
      } else if (auto* gv = as<GlobalVar>(c->op)) {
        n.op = n.callee = gv->name;
      } else if (auto* ext = as<ExternFunc>(c->op)) {
        n.op = ext->symbol;
        if (!c->args.empty())
          if (auto* gv = as<GlobalVar>(c->args[0]))
            n.callee = gv->name;
      } else if (auto* v = as<VarNode>(c->op)) {
        n.op = "call " + v->name;
      } else {
        n.op = "call";
      }
      for (auto& [k, v] : c->attrs)
        if (n.attrs.size() < 8)
          n.attrs.push_back({k, shorten(attrValueStr(v))});
      if (!n.callee.empty())
        if (BaseFunc f = m_->lookup(n.callee))
          if (f->attrs.has("op_pattern"))
            n.opPattern = static_cast<int>(f->attrs.getInt("op_pattern", -1));
      return;
    }
    switch (value->kind()) {
    case ir::NodeKind::Tuple:
      n.op = "tuple";
      n.opPattern = 7;
      return;
    case ir::NodeKind::TupleGetItem:
      n.op = "get_item";
      n.attrs.push_back({"index", std::to_string(as<TupleGetItem>(value)->index)});
      n.opPattern = 2;
      return;
    case ir::NodeKind::Var:
    case ir::NodeKind::DataflowVar:
      n.op = "alias";
      return;
    case ir::NodeKind::Constant:
      n.op = "const";
      return;
    case ir::NodeKind::ShapeExpr:
      n.op = "shape";
      return;
    case ir::NodeKind::PrimValue:
      n.op = "prim_value";
      return;
    case ir::NodeKind::If:
      n.op = "if";
      return;
    default:
      n.op = kindName(value->kind());
      return;
    }
  }

  void emitBinding(const Binding& b, int cluster) {
    GraphNode n;
    n.kind = NodeKind::Op;
    n.name = b->var->name;
    n.type = type(b->var->sinfo ? b->var->sinfo : b->value->sinfo);
    n.origins = b->span.origins;
    n.line = b->span.line;
    n.cluster = cluster;
    n.value = b->value;
    describe(b->value, n);
    if (isa<MatchCast>(b))
      n.op = "match_cast";
    n.key = mix(hashString(n.op), hash_(b->value));

    BaseFunc callee = n.callee.empty() ? BaseFunc() : m_->lookup(n.callee);
    if (cluster < 0 && callee && isFusedCallee(callee)) {
      int ci = static_cast<int>(g_.clusters.size());
      GraphCluster gc;
      gc.function = n.callee;
      gc.opPattern = n.opPattern;
      gc.expanded = opts_.expanded.count(n.callee) != 0;
      g_.clusters.push_back(gc);
      if (gc.expanded) {
        expand(b, callee, ci);
        return;
      }
      n.kind = NodeKind::Cluster;
      n.collapsed = ci;
      n.members = memberCount(callee);
      g_.clusters[ci].size = n.members;
      int id = add(std::move(n));
      g_.clusters[ci].node = id;
      connectOperands(b->value, id, -1);
      producer_[b->var.get()] = id;
      return;
    }
    int id = add(std::move(n));
    connectOperands(b->value, id, cluster);
    producer_[b->var.get()] = id;
  }

  /// The operands of a call of a fused function, aligned with its params.
  static std::vector<Expr> callOperands(const Call& c) {
    if (isa<GlobalVar>(c.op))
      return c.args;
    // call_tir(f, (args...), ...) or an extern call_tir_dps(f, (args...), (outs...)).
    if (c.args.size() >= 2)
      if (auto* t = as<Tuple>(c.args[1]))
        return t->fields;
    return {};
  }

  void expand(const Binding& b, const BaseFunc& callee, int ci) {
    auto* call = as<Call>(b->value);
    std::vector<Expr> operands = callOperands(*call);
    if (auto* fn = as<Function>(callee)) {
      for (size_t i = 0; i < fn->params.size() && i < operands.size(); ++i)
        producer_[fn->params[i].get()] = sourceOf(operands[i], ci);
      int result = -1;
      if (auto* seq = as<SeqExpr>(fn->body)) {
        emitBlocks(*seq, ci);
        postOrderVisit(seq->body, [&](const Expr& e) {
          if (auto* v = as<VarNode>(e); v && result < 0 && producer_.count(v))
            result = producer_[v];
        });
      }
      producer_[b->var.get()] = result;
      return;
    }
    expandPrimFunc(b, *as<PrimFunc>(callee), operands, ci);
  }

  void expandPrimFunc(const Binding& b, const PrimFunc& pf, const std::vector<Expr>& operands,
                      int ci) {
    std::unordered_map<const Buffer*, int> writer;
    size_t in = 0;
    int numIn = static_cast<int>(pf.params.size()) - pf.numOutputs();
    for (int i = 0; i < numIn; ++i)
      if (pf.params[i].buffer && in < operands.size())
        writer[pf.params[i].buffer.get()] = sourceOf(operands[in++], ci);
    // Leaf blocks (those without nested blocks), in program order.
    std::vector<const Block*> blocks;
    walkStmt(pf.body, [&](const Stmt& s) {
      if (auto* blk = as<Block>(s)) {
        bool leaf = true;
        walkStmt(blk->body, [&](const Stmt& inner) { leaf = leaf && !isa<Block>(inner); });
        if (leaf)
          blocks.push_back(blk);
      }
    });
    for (const Block* blk : blocks) {
      GraphNode n;
      n.kind = NodeKind::Block;
      n.name = blk->name;
      n.op = "block";
      n.cluster = ci;
      int spatial = 0, reduce = 0;
      for (auto& iv : blk->iters)
        (iv.type == IterType::Reduce ? reduce : spatial)++;
      n.attrs.push_back(
          {"iters", std::to_string(spatial) + " spatial, " + std::to_string(reduce) + " reduce"});
      n.opPattern = reduce ? 3 : 2;
      if (!blk->writes.empty()) {
        auto& buf = blk->writes[0].buffer;
        std::vector<PrimExpr> shape = buf->shape;
        n.type = typeLabel(tensorSInfo(buf->dtype, shape));
      }
      n.key = mix(hashString("block"), hashString(blk->name));
      int id = add(std::move(n));
      for (auto& r : blk->reads) {
        auto it = writer.find(r.buffer.get());
        if (it != writer.end())
          edge(it->second, id,
               typeLabel(tensorSInfo(r.buffer->dtype, std::vector<PrimExpr>(r.buffer->shape))));
      }
      for (auto& w : blk->writes)
        writer[w.buffer.get()] = id;
    }
    int result = -1;
    if (!pf.params.empty() && pf.params.back().buffer) {
      auto it = writer.find(pf.params.back().buffer.get());
      if (it != writer.end())
        result = it->second;
    }
    producer_[b->var.get()] = result;
  }

  /// typeLabel of struct info the module holds, once per struct info (a
  /// variable's is printed for its node and again for every edge it feeds).
  const std::string& type(const StructInfo& s) {
    auto [it, fresh] = types_.try_emplace(s.get());
    if (fresh)
      it->second = typeLabel(s);
    return it->second;
  }

  const IRModule& m_;
  const ExtractOptions& opts_;
  DataflowGraph g_;
  // Keys hash the weights a binding reads once per weight, not per binding
  // (structural_digest.h: a 50,000-node model's bindings read a few tensors
  // thousands of times).
  StructuralHasher hash_;
  std::unordered_map<const void*, std::string> types_;
  std::unordered_map<const VarNode*, int> producer_;
  std::unordered_set<uint64_t> edgeSet_; // (from << 32 | to): one edge per pair
  size_t emitted_ = 0;
};

} // namespace

DataflowGraph extractGraph(const IRModule& m, const std::string& function,
                           const ExtractOptions& opts) {
  if (!m)
    throw Error("graph of '" + function + "': no module");
  return Extractor(m, opts).run(function);
}

std::vector<std::string> graphFunctions(const IRModule& m) {
  std::vector<std::string> all, shown;
  if (!m)
    return shown;
  for (auto& [name, f] : m->functions) {
    if (!isa<Function>(f))
      continue;
    all.push_back(name);
    if (!isFusedCallee(f))
      shown.push_back(name);
  }
  return shown.empty() ? all : shown;
}

std::string defaultGraphFunction(const IRModule& m) {
  auto names = graphFunctions(m);
  for (auto& n : names)
    if (n == "main")
      return n;
  return names.empty() ? std::string() : names.front();
}

} // namespace unity::viz
