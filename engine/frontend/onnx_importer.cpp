// The ONNX import driver.
//
// 1. Parse the ModelProto; check the default-domain opset (1..17; converters
//    handle or refuse the legacy forms of opsets 1..6 per operator).
// 2. Initializers become known tensors (Constants); graph inputs that are not
//    initializers become the function's parameters, their dim_params shape
//    variables shared by name (unknown dims get a fresh variable each).
// 3. Nodes are visited in their (topological) order. A node whose inputs are
//    all known is folded at import time when it is a shape-computation
//    operator (onnx_fold.cpp); otherwise its converter emits bindings.
//    Every refusal (other domain, unknown operator, unknown attribute, a
//    converter's unsupported() or an operator's shape-deduction error) is
//    recorded and the node's outputs are marked poisoned: later nodes that
//    consume them are still checked for operator and attributes, so one
//    import reports every unsupported node at once. Under
//    ImportOptions::keepUnsupported a refusal instead binds a placeholder
//    call R.unsupported (emitPlaceholder) whose output is the type the model
//    declares for the node's outputs; nothing is poisoned.
// 4. The graph outputs form the function's result; the module is normalized.
#include "engine/frontend/onnx_importer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "engine/frontend/onnx_convert.h"
#include "engine/frontend/tensor_proto.h"
#include "engine/transform/normalize.h"

namespace unity::frontend {

using namespace ir;
using detail::GraphState;
using detail::NodeContext;
using detail::Unsupported;
using detail::Value;

namespace {

std::string problemsText(const std::string& source, const std::vector<UnsupportedNode>& nodes) {
  std::ostringstream os;
  os << source << ": cannot import: " << nodes.size() << " unsupported node"
     << (nodes.size() == 1 ? "" : "s") << ":";
  for (auto& n : nodes)
    os << "\n  " << n.node << " (" << n.opType << "): " << n.reason;
  return os.str();
}

const detail::ConverterTable& converters() {
  static const detail::ConverterTable table = [] {
    detail::ConverterTable t;
    detail::addElementwiseConverters(t);
    detail::addNNConverters(t);
    detail::addShapeConverters(t);
    detail::addIndexConverters(t);
    detail::addRecurrentConverters(t);
    detail::addQuantConverters(t);
    detail::addSamplingConverters(t);
    detail::addSignalConverters(t);
    detail::addTextConverters(t);
    detail::addDataDependentConverters(t);
    detail::addTrainingConverters(t);
    detail::addControlConverters(t);
    detail::addSequenceConverters(t);
    return t;
  }();
  return table;
}

constexpr int kMinOpset = 1, kMaxOpset = 17;
constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

class Importer {
public:
  Importer(const onnx::ModelProto& model, const ImportOptions& opts)
      : model_(model), opts_(opts),
        source_(opts.sourceName.empty() ? "<onnx model>" : opts.sourceName) {}

  IRModule run() {
    int opset = defaultOpset();
    opset_ = opset;
    const onnx::GraphProto& graph = model_.graph();
    g_.modelDir = opts_.modelDir;
    g_.functions = &functions_;
    g_.subgraph = [this](const onnx::GraphProto& sg, const std::vector<Value>& inputs,
                         bool isolated, const NodeContext& owner) {
      return convertSubgraph(sg, inputs, isolated, owner);
    };
    for (auto& o : graph.output())
      g_.graphOutputs.push_back(o.name());
    for (auto& vi : graph.value_info())
      declared_[vi.name()] = &vi;
    for (auto& o : graph.output())
      declared_[o.name()] = &o;

    for (auto& init : graph.initializer()) {
      try {
        Value v = NodeContext::constant(detail::tensorFromProto(
            init, g_.modelDir, source_ + ": initializer '" + init.name() + "'"));
        g_.values[init.name()] = std::move(v);
      } catch (const Unsupported& u) {
        problems_.push_back({init.name(), "initializer", u.reason});
        if (opts_.keepUnsupported) {
          auto dt = dtypeFromOnnx(init.data_type());
          std::vector<int64_t> dims(init.dims().begin(), init.dims().end());
          keepAsPlaceholder(init.name(), "initializer", u.reason,
                            tensorSInfo(dt.value_or(DataType::Void()), dims));
        } else {
          poisoned_.insert(init.name());
        }
      }
    }
    std::vector<Var> params;
    int inputPosition = 0; // among the non-initializer inputs, specialized ones included
    for (auto& in : graph.input()) {
      if (g_.values.count(in.name()) || poisoned_.count(in.name()))
        continue; // an initializer listed as input (IR version < 4)
      size_t before = problems_.size();
      Var v = makeVar(detail::sanitizeName(in.name()), inputSInfo(in));
      if (problems_.size() != before) { // refused type: consumers are not reported again
        if (opts_.keepUnsupported)
          keepAsPlaceholder(in.name(), "graph input", problems_.back().reason, v->sinfo);
        else
          poisoned_.insert(in.name());
        continue;
      }
      int position = inputPosition++;
      auto known = opts_.inputValues.find(in.name());
      if (known != opts_.inputValues.end()) {
        checkSpecialized(in.name(), v->sinfo, known->second);
        g_.values[in.name()] = NodeContext::constant(known->second);
        continue;
      }
      paramIndex_[in.name()] = position;
      params.push_back(v);
      g_.values[in.name()] = Value{v, v->sinfo, std::nullopt, std::nullopt, inputContainer(in)};
    }
    for (auto& [name, t] : opts_.inputValues)
      if (!g_.values.count(name) || paramIndex_.count(name))
        throw Error(source_ + ": cannot specialize '" + name +
                    "': no graph input (that is not an initializer) has this name");

    for (int idx = 0; idx < graph.node_size(); ++idx)
      convertNode(graph.node(idx), idx, opset);
    if (!problems_.empty() && !opts_.keepUnsupported)
      throw UnsupportedModelError(source_, problems_);

    std::vector<Expr> outs;
    std::vector<StructInfo> outInfo;
    for (auto& o : graph.output()) {
      auto it = g_.values.find(o.name());
      if (it == g_.values.end())
        throw Error(source_ + ": graph output '" + o.name() + "' is not produced by any node");
      outs.push_back(it->second.expr);
      outInfo.push_back(it->second.sinfo);
    }
    if (outs.empty())
      throw Error(source_ + ": the graph has no outputs");
    Expr body = outs.size() == 1 ? outs[0] : Expr(make<Tuple>(outs, tupleSInfo(outInfo)));
    Attrs fattrs;
    fattrs.set("global_symbol", opts_.functionName);
    BaseFunc fn = make<Function>(params, detail::makeSeq(g_.bindings, body), nullptr, fattrs);
    std::vector<std::pair<std::string, BaseFunc>> fns{{opts_.functionName, fn}};
    fns.insert(fns.end(), functions_.begin(), functions_.end());
    try {
      return transform::normalize(makeModule(std::move(fns)));
    } catch (const Error& e) {
      throw Error(source_ + ": imported graph does not normalize: " + e.message());
    }
  }

private:
  int defaultOpset() {
    int opset = -1;
    for (auto& op : model_.opset_import())
      if (op.domain().empty() || op.domain() == "ai.onnx")
        opset = static_cast<int>(op.version());
    if (!model_.has_graph())
      throw Error(source_ + ": the model has no graph");
    std::string problem;
    if (opset < 0)
      problem = "no default-domain opset is declared";
    else if (opset < kMinOpset || opset > kMaxOpset)
      problem = "default-domain opset " + std::to_string(opset) + " is outside " +
                std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset);
    if (problem.empty())
      return opset;
    // A model of the training domain only (its optimizer cases) has no
    // default-domain opset and needs none: its default-domain nodes, if
    // any, are refused with the problem.
    bool trainingOnly = opset < 0 && model_.opset_import_size() > 0;
    for (auto& op : model_.opset_import())
      trainingOnly &= op.domain() == kTrainingDomain && op.version() == 1;
    if (trainingOnly) {
      opsetProblem_ = problem;
      return kMaxOpset;
    }
    if (!opts_.keepUnsupported)
      throw UnsupportedModelError(source_, {{"model", "opset_import", problem}});
    // Open anything: every default-domain node is refused with this reason
    // (a model of another domain only, like the training operators, then
    // opens with all its nodes as placeholders).
    opsetProblem_ = problem;
    return kMaxOpset;
  }

  void checkSpecialized(const std::string& name, const StructInfo& declared, const Tensor& t) {
    auto* ts = as<TensorSInfo>(declared);
    if (!ts)
      return;
    if (!ts->dtype.isVoid() && !(ts->dtype == t.dtype()))
      throw Error(source_ + ": value given for input '" + name + "' has dtype " + t.dtype().str() +
                  ", the model declares " + ts->dtype.str());
    if (ts->shape) {
      bool ok = static_cast<int>(ts->shape->size()) == t.ndim();
      for (int k = 0; ok && k < t.ndim(); ++k)
        if (auto d = asConstInt((*ts->shape)[k]))
          ok = *d == t.shape()[k];
      if (!ok)
        throw Error(source_ + ": value given for input '" + name + "' has shape " +
                    Tensor::shapeStr(t.shape()) + ", which does not match the declared shape");
    }
  }

  PrimExpr dimVar(const std::string& param) {
    auto fixed = opts_.dimValues.find(param);
    if (fixed != opts_.dimValues.end())
      return intImm(fixed->second);
    auto it = dims_.find(param);
    if (it != dims_.end())
      return it->second;
    PrimExpr v = primVar(detail::sanitizeName(param));
    dims_[param] = v;
    return v;
  }

  /// The element type of a sequence or optional graph input (its struct
  /// info is Object); null for a tensor.
  detail::ContainerRef inputContainer(const onnx::ValueInfoProto& in) {
    if (!in.type().has_sequence_type() && !in.type().has_optional_type())
      return nullptr;
    return detail::containerFromType(in.type(), [&](const std::string& p) { return dimVar(p); });
  }

  StructInfo inputSInfo(const onnx::ValueInfoProto& in) {
    if (in.type().has_sequence_type() || in.type().has_optional_type()) {
      try {
        inputContainer(in);
      } catch (const Unsupported& u) {
        problems_.push_back({in.name(), "graph input", u.reason});
      }
      return objectSInfo();
    }
    if (!in.type().has_tensor_type()) {
      problems_.push_back({in.name(), "graph input", "only tensor inputs are supported"});
      return objectSInfo();
    }
    auto& tt = in.type().tensor_type();
    auto dt = dtypeFromOnnx(tt.elem_type());
    if (!dt) {
      problems_.push_back({in.name(), "graph input",
                           "element type " +
                               onnx::TensorProto::DataType_Name(
                                   static_cast<onnx::TensorProto::DataType>(tt.elem_type())) +
                               " is not supported"});
      return objectSInfo();
    }
    if (!tt.has_shape())
      return tensorSInfo(*dt, -1);
    std::vector<PrimExpr> shape;
    int k = 0;
    for (auto& d : tt.shape().dim()) {
      if (d.has_dim_value())
        shape.push_back(intImm(d.dim_value()));
      else if (d.has_dim_param() && !d.dim_param().empty())
        shape.push_back(dimVar(d.dim_param()));
      else
        shape.push_back(primVar(detail::sanitizeName(in.name()) + "_d" + std::to_string(k)));
      ++k;
    }
    return tensorSInfo(*dt, shape);
  }

  void convertNode(const onnx::NodeProto& node, int idx, int opset) {
    std::string name =
        node.name().empty() ? node.op_type() + "_" + std::to_string(idx) : node.name();
    auto refuse = [&](const std::string& opType, const std::string& reason,
                      const std::string& needs = {}) {
      UnsupportedNode p{name, opType, reason};
      auto pi = paramIndex_.find(needs);
      if (pi == paramIndex_.end()) {
        // A value computed from integer graph inputs only (a window size
        // cast and offset before Range): name one of those inputs; once all
        // are specialized the computation folds.
        auto d = intDeps_.find(needs);
        if (d != intDeps_.end() && !d->second.empty())
          pi = paramIndex_.find(*d->second.begin());
      }
      if (pi != paramIndex_.end()) {
        p.specializable = pi->first;
        p.specializableIndex = pi->second;
      }
      problems_.push_back(p);
      if (opts_.keepUnsupported) {
        emitPlaceholder(node, name, opType, reason, opset);
        return;
      }
      for (auto& o : node.output())
        poisoned_.insert(o);
    };
    bool inputPoisoned = false;
    for (auto& i : node.input()) {
      if (i.empty())
        continue;
      if (poisoned_.count(i))
        inputPoisoned = true;
      else if (!g_.values.count(i))
        throw Error(source_ + ": node '" + name + "' (" + node.op_type() +
                    ") uses undefined value '" + i + "' (graph not in topological order?)");
    }
    // The training domain's optimizers (version 1) are keyed by their
    // qualified name; they need no default-domain opset.
    bool training = node.domain() == kTrainingDomain;
    if (!node.domain().empty() && node.domain() != "ai.onnx" && !training)
      return refuse(node.domain() + "." + node.op_type(),
                    "operator domain '" + node.domain() + "' is not supported");
    if (!opsetProblem_.empty() && !training)
      return refuse(node.op_type(), opsetProblem_);
    std::string key = training ? node.domain() + "." + node.op_type() : node.op_type();
    auto it = converters().find(key);
    if (it == converters().end())
      return refuse(key, training ? "unknown operator of the training domain" : "unknown operator");
    std::string badAttrs;
    for (auto& a : node.attribute()) {
      // consumed_inputs (opsets 1..5) was an in-place-update hint with no
      // effect on the result; it was removed in opset 6.
      if (opset < 7 && a.name() == "consumed_inputs")
        continue;
      auto& ok = it->second.attrs;
      if (std::find(ok.begin(), ok.end(), a.name()) == ok.end())
        badAttrs += (badAttrs.empty() ? "'" : ", '") + a.name() + "'";
    }
    if (!badAttrs.empty())
      return refuse(node.op_type(), "unsupported attribute " + badAttrs);
    // Every operator the converters know has at least one output; a node
    // without any is malformed (converters name their results after
    // output 0; found by onnx_import_fuzz).
    if (node.output_size() == 0)
      return refuse(node.op_type(), "the node has no outputs");
    if (inputPoisoned) {
      for (auto& o : node.output())
        poisoned_.insert(o);
      return;
    }
    size_t mark = g_.bindings.size();
    g_.materialized.clear();
    NodeContext ctx(g_, node, name, opset);
    try {
      if (training || (!detail::foldNode(ctx) && !detail::foldSymbolic(ctx)))
        it->second.fn(ctx);
      for (auto& o : node.output())
        if (!o.empty() && !g_.values.count(o))
          ctx.unsupported("output '" + o + "' is not supported");
      trackIntDeps(node);
    } catch (const Unsupported& u) {
      g_.bindings.resize(mark);
      for (auto& o : node.output())
        g_.values.erase(o);
      for (auto& m : g_.materialized) // their shape_to_tensor bindings are gone
        if (auto v = g_.values.find(m); v != g_.values.end())
          v->second.expr = nullptr;
      refuse(node.op_type(), u.reason, u.needsConstant);
    } catch (const Error& e) {
      throw Error(source_ + ": node '" + name + "' (" + node.op_type() + "): " + e.message());
    }
  }

  /// The names a subgraph reads from the scopes around it (its nested
  /// subgraphs included).
  static void freeNames(const onnx::GraphProto& g, std::set<std::string>& out) {
    std::set<std::string> defined;
    for (auto& i : g.input())
      defined.insert(i.name());
    for (auto& i : g.initializer())
      defined.insert(i.name());
    auto use = [&](const std::string& n) {
      if (!n.empty() && !defined.count(n))
        out.insert(n);
    };
    for (auto& n : g.node()) {
      for (auto& i : n.input())
        use(i);
      for (auto& a : n.attribute()) {
        std::set<std::string> inner;
        if (a.has_g())
          freeNames(a.g(), inner);
        for (auto& sg : a.graphs())
          freeNames(sg, inner);
        for (auto& i : inner)
          use(i);
      }
      for (auto& o : n.output())
        defined.insert(o);
    }
    for (auto& o : g.output())
      use(o.name());
  }

  /// GraphState::subgraph: converts an If branch (inline) or a Loop/Scan
  /// body (isolated) with the same node machinery as the main graph. A
  /// node refused inside refuses the node that holds the subgraph (unless
  /// keepUnsupported, where it stays a placeholder inside).
  detail::Subgraph convertSubgraph(const onnx::GraphProto& graph, const std::vector<Value>& inputs,
                                   bool isolated, const NodeContext& owner) {
    std::string what = "subgraph '" + graph.name() + "'";
    if (graph.input_size() != static_cast<int>(inputs.size()))
      throw Error(what + " has " + std::to_string(graph.input_size()) + " inputs, the node gives " +
                  std::to_string(inputs.size()));
    if (graph.output_size() == 0)
      throw Error(what + " has no outputs");
    if (++subgraphDepth_ > 32) {
      --subgraphDepth_;
      throw Error("subgraphs nested more than 32 deep");
    }
    struct DepthGuard {
      int& d;
      ~DepthGuard() { --d; }
    } depthGuard{subgraphDepth_};
    detail::Subgraph out;
    GraphState sub;
    sub.modelDir = g_.modelDir;
    sub.subgraph = g_.subgraph;
    sub.functions = g_.functions;
    if (!isolated) {
      sub.values = g_.values;
      sub.nameUses = g_.nameUses;
    } else {
      std::set<std::string> free;
      freeNames(graph, free);
      for (auto& n : free) {
        auto it = g_.values.find(n);
        if (it == g_.values.end()) {
          if (poisoned_.count(n))
            throw Unsupported(what + " reads '" + n + "', which could not be imported");
          continue; // undefined: reported when the node reading it is converted
        }
        if (it->second.data) {
          sub.values[n] = it->second;
          continue;
        }
        Var p = makeVar(detail::sanitizeName(n), it->second.sinfo);
        sub.values[n] =
            Value{p, it->second.sinfo, std::nullopt, std::nullopt, it->second.container};
        out.captured.push_back(n);
        out.capturedParams.push_back(p);
      }
    }
    for (int i = 0; i < graph.input_size(); ++i)
      sub.values[graph.input(i).name()] = inputs[i];
    for (auto& init : graph.initializer())
      sub.values[init.name()] = NodeContext::constant(detail::tensorFromProto(
          init, g_.modelDir, source_ + ": " + what + " initializer '" + init.name() + "'"));
    for (auto& o : graph.output())
      sub.graphOutputs.push_back(o.name());
    size_t problemsBefore = problems_.size();
    std::set<std::string> poisonedBefore = poisoned_;
    std::swap(g_, sub);
    try {
      for (int idx = 0; idx < graph.node_size(); ++idx)
        convertNode(graph.node(idx), idx, opset_);
    } catch (...) {
      std::swap(g_, sub);
      throw;
    }
    std::swap(g_, sub);
    if (problems_.size() > problemsBefore && !opts_.keepUnsupported) {
      UnsupportedNode p = problems_[problemsBefore];
      problems_.resize(problemsBefore);
      poisoned_ = std::move(poisonedBefore);
      throw Unsupported("in " + what + ", node '" + p.node + "' (" + p.opType + "): " + p.reason);
    }
    NodeContext ctx(sub, owner.node, owner.name(), owner.opset);
    for (auto& o : graph.output()) {
      auto it = sub.values.find(o.name());
      if (it == sub.values.end())
        throw Error(what + " output '" + o.name() + "' is not produced by any node");
      Value v = it->second;
      if (!v.expr && v.sym)
        v.expr = ctx.materialize(v);
      out.outputs.push_back(v);
    }
    out.bindings = std::move(sub.bindings);
    if (!isolated)
      g_.nameUses = sub.nameUses;
    return out;
  }

  /// The struct info the model declares for value `name` (value_info or a
  /// graph output): the full shape when every dim is a number or a dim_param
  /// already known from the inputs; else rank and element type only; a
  /// tensor of unknown rank when nothing is declared.
  StructInfo declaredSInfo(const std::string& name) {
    auto it = declared_.find(name);
    if (it == declared_.end())
      return tensorSInfo(DataType::Void(), -1);
    auto& type = it->second->type();
    if (type.value_case() == onnx::TypeProto::VALUE_NOT_SET)
      return tensorSInfo(DataType::Void(), -1);
    if (!type.has_tensor_type())
      return objectSInfo(); // a sequence, map or optional value
    auto& tt = type.tensor_type();
    DataType dt = dtypeFromOnnx(tt.elem_type()).value_or(DataType::Void());
    if (!tt.has_shape())
      return tensorSInfo(dt, -1);
    std::vector<PrimExpr> shape;
    for (auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() >= 0) {
        shape.push_back(intImm(d.dim_value()));
        continue;
      }
      // A dim_param not among the inputs' would be a shape variable that
      // nothing defines; keep the rank only.
      auto fixed = d.has_dim_param() ? opts_.dimValues.find(d.dim_param()) : opts_.dimValues.end();
      auto known = d.has_dim_param() ? dims_.find(d.dim_param()) : dims_.end();
      if (fixed != opts_.dimValues.end())
        shape.push_back(intImm(fixed->second));
      else if (known != dims_.end())
        shape.push_back(known->second);
      else
        return tensorSInfo(dt, tt.shape().dim_size());
    }
    return tensorSInfo(dt, shape);
  }

  static Attrs placeholderAttrs(const std::string& node, const std::string& opType,
                                const std::string& reason) {
    Attrs a;
    a.set("op_type", opType);
    a.set("node", node);
    a.set("reason", reason);
    return a;
  }

  /// keepUnsupported: a refused initializer or graph input becomes a
  /// placeholder without operands, of the given struct info.
  void keepAsPlaceholder(const std::string& name, const std::string& what,
                         const std::string& reason, StructInfo sinfo) {
    Span span;
    span.origins = {name + ":" + what};
    Var v = makeDataflowVar(detail::sanitizeName(name), sinfo);
    Expr call =
        make<Call>(opRef("unsupported"), std::vector<Expr>{}, placeholderAttrs(name, what, reason),
                   std::vector<StructInfo>{sinfo}, sinfo);
    g_.bindings.push_back(make<VarBinding>(v, call, span));
    g_.values[name] = Value{v, sinfo, std::nullopt, std::nullopt};
  }

  /// keepUnsupported: binds R.unsupported(node inputs...) standing for the
  /// refused node, and sets its outputs (a tuple's items for several).
  void emitPlaceholder(const onnx::NodeProto& node, const std::string& name,
                       const std::string& opType, const std::string& reason, int opset) {
    NodeContext ctx(g_, node, name, opset);
    std::vector<Expr> args;
    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty() || !g_.values.count(node.input(i)))
        continue;
      try {
        if (Expr e = ctx.in(i).expr)
          args.push_back(e);
      } catch (const Unsupported&) {
        // an operand that cannot be materialized is left out of the picture
      }
    }
    std::vector<int> outs;
    std::vector<StructInfo> fields;
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty()) {
        outs.push_back(i);
        fields.push_back(declaredSInfo(node.output(i)));
      }
    StructInfo s = fields.size() == 1 ? fields[0] : tupleSInfo(fields);
    Expr call = make<Call>(opRef("unsupported"), args, placeholderAttrs(name, opType, reason),
                           std::vector<StructInfo>{s}, s);
    Value v = ctx.bind(call, s);
    if (fields.size() == 1)
      return ctx.output(outs[0], v);
    for (size_t k = 0; k < outs.size(); ++k)
      ctx.output(outs[k], ctx.tupleItem(v, static_cast<int>(k)));
  }

  /// Records, for each run-time output of the node, the graph inputs it is
  /// computed from when those are all integer (or bool) inputs; a value that
  /// also depends on another input gets no entry.
  void trackIntDeps(const onnx::NodeProto& node) {
    std::set<std::string> deps;
    for (auto& i : node.input()) {
      if (i.empty() || g_.values.at(i).data)
        continue;
      if (auto pi = paramIndex_.find(i); pi != paramIndex_.end()) {
        auto* t = as<TensorSInfo>(g_.values.at(i).sinfo);
        if (!t || !(t->dtype.isIntegral() || t->dtype.isBool()))
          return;
        deps.insert(i);
      } else if (auto d = intDeps_.find(i); d != intDeps_.end()) {
        deps.insert(d->second.begin(), d->second.end());
      } else {
        return;
      }
    }
    if (deps.empty())
      return;
    for (auto& o : node.output())
      if (!o.empty() && g_.values.count(o) && !g_.values.at(o).data)
        intDeps_[o] = deps;
  }

  const onnx::ModelProto& model_;
  const ImportOptions& opts_;
  int opset_ = kMaxOpset;
  int subgraphDepth_ = 0;
  std::vector<std::pair<std::string, BaseFunc>> functions_; // loop and scan bodies
  std::string source_;
  GraphState g_;
  std::map<std::string, PrimExpr> dims_;
  // graph input -> position among the non-initializer graph inputs
  std::map<std::string, int> paramIndex_;
  std::map<std::string, std::set<std::string>> intDeps_; // see trackIntDeps
  std::set<std::string> poisoned_;
  std::vector<UnsupportedNode> problems_;
  std::map<std::string, const onnx::ValueInfoProto*> declared_; // value_info, graph outputs
  std::string opsetProblem_; // keepUnsupported: why default-domain nodes are refused
};

} // namespace

UnsupportedModelError::UnsupportedModelError(const std::string& source,
                                             std::vector<UnsupportedNode> nodes)
    : Error(problemsText(source, nodes)), nodes_(std::move(nodes)) {}

IRModule importOnnxBytes(std::string_view bytes, const ImportOptions& options) {
  std::string source = options.sourceName.empty() ? "<onnx model>" : options.sourceName;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(source + ": model larger than 2 GiB; store weights as external data");
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(source + ": not a valid ONNX model (protobuf parse failed: truncated or corrupt "
                         "file)");
  return Importer(model, options).run();
}

IRModule importOnnx(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ImportOptions o = options;
  if (o.sourceName.empty())
    o.sourceName = path;
  if (o.modelDir.empty()) {
    auto dir = std::filesystem::path(path).parent_path();
    o.modelDir = dir.empty() ? "." : dir.string();
  }
  return importOnnxBytes(bytes, o);
}

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> out;
  for (auto& [name, c] : converters())
    out.push_back(name);
  return out;
}

} // namespace unity::frontend
