// Legalize (see legalize.h).
//
// One ExprMutator pass per graph-level function, bottom-up: for each Call of
// an OpRef with an implementation, make one te placeholder per tensor operand
// from its struct info (its symbolic shape is reused as is, so shape
// variables become the PrimFunc's implicit buffer-bound variables), run the
// implementation, and build the PrimFunc with te::createPrimFunc. The
// function is keyed by its structural hash (built without a name), so the
// same operator on the same shapes yields one shared PrimFunc; names are the
// operator's ("nn.conv2d" -> "conv2d"), made unique with a suffix. A shape
// variable that no buffer dimension binds becomes a scalar parameter and is
// passed in call_tir's third operand (tir_vars).
#include "engine/transform/legalize.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "engine/ir/functor.h"
#include "engine/ir/structural.h"
#include "engine/op/op.h"
#include "engine/support/error.h"

namespace unity::transform {

using namespace ir;

namespace detail {
// legalize_ops*.cpp
void addElementwiseLegalizations(std::map<std::string, LegalizeFn>& table);
void addNNLegalizations(std::map<std::string, LegalizeFn>& table);
void addManipLegalizations(std::map<std::string, LegalizeFn>& table);
void addIndexLegalizations(std::map<std::string, LegalizeFn>& table);
} // namespace detail

namespace {

struct Table {
  std::mutex mu;
  std::map<std::string, LegalizeFn> fns;
};

Table& table() {
  static Table* t = [] {
    auto* t = new Table;
    detail::addElementwiseLegalizations(t->fns);
    detail::addNNLegalizations(t->fns);
    detail::addManipLegalizations(t->fns);
    detail::addIndexLegalizations(t->fns);
    return t;
  }();
  return *t;
}

std::string opName(const Call& c) {
  auto* o = as<OpRef>(c.op);
  return o ? o->name : std::string();
}

} // namespace

// ---- LegalizeArgs ----
const AttrValue* LegalizeArgs::attr(const std::string& name) const {
  if (auto* v = call.attrs.find(name))
    return v;
  if (const op::OpInfo* info = op::findOp(opName(call)))
    if (const op::AttrSpec* spec = info->findAttr(name); spec && !spec->noneDefault)
      return &spec->dflt;
  return nullptr;
}
bool LegalizeArgs::hasAttr(const std::string& name) const { return attr(name) != nullptr; }

static Error attrError(const LegalizeArgs& a, const std::string& name, const char* type) {
  return Error("legalize " + opName(a.call) + ": attribute '" + name + "' is missing or not " +
               type);
}
int64_t LegalizeArgs::attrInt(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (auto* i = v ? std::get_if<int64_t>(v) : nullptr)
    return *i;
  if (auto* b = v ? std::get_if<bool>(v) : nullptr)
    return *b;
  throw attrError(*this, name, "an int");
}
double LegalizeArgs::attrFloat(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (auto* d = v ? std::get_if<double>(v) : nullptr)
    return *d;
  if (auto* i = v ? std::get_if<int64_t>(v) : nullptr)
    return double(*i);
  throw attrError(*this, name, "a float");
}
bool LegalizeArgs::attrBool(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (auto* b = v ? std::get_if<bool>(v) : nullptr)
    return *b;
  if (auto* i = v ? std::get_if<int64_t>(v) : nullptr)
    return *i != 0;
  throw attrError(*this, name, "a bool");
}
std::string LegalizeArgs::attrString(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (auto* s = v ? std::get_if<std::string>(v) : nullptr)
    return *s;
  throw attrError(*this, name, "a string");
}
std::vector<int64_t> LegalizeArgs::attrInts(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (auto* s = v ? std::get_if<std::vector<int64_t>>(v) : nullptr)
    return *s;
  if (auto* i = v ? std::get_if<int64_t>(v) : nullptr)
    return {*i};
  throw attrError(*this, name, "a list of ints");
}

// ---- table ----
void registerLegalization(const std::string& op, LegalizeFn fn) {
  if (!fn)
    throw Error("registerLegalization: no implementation given for '" + op + "'");
  Table& t = table();
  std::lock_guard lock(t.mu);
  t.fns[op] = std::move(fn);
}

const LegalizeFn* findLegalization(const std::string& op) {
  Table& t = table();
  std::lock_guard lock(t.mu);
  auto it = t.fns.find(op);
  return it == t.fns.end() ? nullptr : &it->second; // map nodes are stable
}

std::vector<std::string> legalizableOps() {
  Table& t = table();
  std::lock_guard lock(t.mu);
  std::vector<std::string> out;
  for (auto& [k, v] : t.fns)
    out.push_back(k);
  return out;
}

// ---- the pass ----
namespace {

std::string baseName(const std::string& op) {
  std::string n = op.rfind("nn.", 0) == 0 ? op.substr(3) : op;
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

const TensorSInfo* knownTensor(const Expr& e) {
  auto* t = e ? as<TensorSInfo>(e->sinfo) : nullptr;
  return t && t->hasShape() && !t->dtype.isVoid() ? t : nullptr;
}

class Legalizer : public ExprMutator {
public:
  explicit Legalizer(std::set<std::string>& used) : used_(used) {}
  std::vector<IRModuleNode::Entry> added;

protected:
  Expr visitCall(const Call* op, const Expr& self) override {
    Expr e = ExprMutator::visitCall(op, self);
    auto* c = as<Call>(e);
    std::string name = opName(*c);
    const LegalizeFn* fn = name.empty() ? nullptr : findLegalization(name);
    if (!fn)
      return e;

    LegalizeArgs args{*c, {}, {}};
    std::vector<Expr> tensorArgs;
    std::vector<te::Tensor> params;
    auto placeholderFor = [&](const Expr& a) {
      const TensorSInfo* t = knownTensor(a);
      std::string pname(1, char('A' + std::min<size_t>(params.size(), 25)));
      te::Tensor p = te::placeholder(*t->shape, t->dtype, pname);
      params.push_back(p);
      tensorArgs.push_back(a);
      return p;
    };
    for (auto& a : c->args) {
      if (knownTensor(a)) {
        args.inputs.push_back(placeholderFor(a));
      } else if (auto* tup = as<Tuple>(a)) {
        for (auto& f : tup->fields) {
          if (!knownTensor(f))
            return e;
          args.tupleFields.push_back(placeholderFor(f));
        }
        args.inputs.emplace_back();
      } else if (isa<TensorSInfo>(a->sinfo) || isa<TupleSInfo>(a->sinfo) || !a->sinfo) {
        return e; // a tensor of unknown shape/dtype, a tuple variable, or not normalized
      } else {
        args.inputs.emplace_back(); // shape, scalar, string operands
      }
    }
    std::vector<te::Tensor> outs = (*fn)(args);
    if (outs.empty())
      return e;

    std::vector<te::Tensor> all = params;
    all.insert(all.end(), outs.begin(), outs.end());
    const op::OpInfo* info = op::findOp(name);
    Attrs attrs{{"op_pattern", int64_t(info ? int(info->pattern) : int(op::OpPattern::Opaque))}};
    PrimFuncRef f = te::createPrimFunc(all, attrs);
    std::string fname = intern(f, baseName(name));

    std::vector<PrimExpr> tirVars;
    for (auto& p : f->params)
      if (p.scalar)
        tirVars.push_back(p.scalar);

    StructInfo outSInfo = c->sinfo;
    if (!outSInfo || !(isa<TensorSInfo>(outSInfo) || isa<TupleSInfo>(outSInfo))) {
      std::vector<StructInfo> fields;
      for (auto& o : outs)
        fields.push_back(tensorSInfo(o.dtype(), o.shape()));
      outSInfo = fields.size() == 1 ? fields[0] : tupleSInfo(fields);
    }
    std::vector<StructInfo> argSInfo;
    for (auto& a : tensorArgs)
      argSInfo.push_back(a->sinfo);
    std::vector<Expr> callArgs{make<GlobalVar>(fname),
                               make<Tuple>(tensorArgs, tupleSInfo(std::move(argSInfo)))};
    if (!tirVars.empty())
      callArgs.push_back(make<ShapeExpr>(tirVars));
    return make<Call>(opRef("call_tir"), std::move(callArgs), Attrs{},
                      std::vector<StructInfo>{outSInfo}, c->sinfo ? c->sinfo : outSInfo);
  }

private:
  /// The name of a structurally identical function made earlier, or a new
  /// entry for f.
  std::string intern(const PrimFuncRef& f, const std::string& base) {
    uint64_t h = structuralHash(f);
    for (auto& [g, n] : cache_[h])
      if (structuralEqual(g, f))
        return n;
    std::string n = base;
    for (int k = 1; used_.count(n); ++k)
      n = base + std::to_string(k);
    used_.insert(n);
    cache_[h].push_back({f, n});
    added.emplace_back(n, make<PrimFunc>(f->params, f->body, f->attrs.with("global_symbol", n)));
    return n;
  }

  std::set<std::string>& used_;
  std::unordered_map<uint64_t, std::vector<std::pair<PrimFuncRef, std::string>>> cache_;
};

} // namespace

IRModule legalize(const IRModule& m) {
  if (!m)
    throw Error("legalize: no module");
  std::set<std::string> used;
  for (auto& [n, f] : m->functions)
    used.insert(n);
  Legalizer lz(used);
  std::vector<IRModuleNode::Entry> out;
  bool changed = false;
  for (auto& [n, f] : m->functions) {
    if (isa<Function>(f)) {
      Expr g = lz.mutate(f);
      changed = changed || !sameNode(g, f);
      out.emplace_back(n, cast<BaseFuncNode>(g));
    } else {
      out.emplace_back(n, f);
    }
  }
  if (!changed)
    return m;
  out.insert(out.end(), lz.added.begin(), lz.added.end());
  return makeModule(std::move(out), m->attrs);
}

std::vector<std::string> unsupportedOps(const IRModule& m) {
  std::set<std::string> names;
  for (auto& [n, f] : m->functions) {
    if (!isa<Function>(f))
      continue;
    postOrderVisit(f, [&](const Expr& e) {
      auto* c = as<Call>(e);
      if (!c)
        return;
      std::string name = opName(*c);
      // tensor_to_shape, loop, scan and the sequence / optional operators
      // are executed by the executor itself (a run-time shape read from a
      // tensor; calls of a body function; lists of tensors; see
      // runtime/executor.cpp).
      bool byExecutor = name == "tensor_to_shape" || name == "loop" || name == "scan" ||
                        name.rfind("seq.", 0) == 0 || name.rfind("optional.", 0) == 0;
      if (!name.empty() && name != "call_tir" && name != "call_dps_library" && !byExecutor)
        names.insert(name);
    });
  }
  return {names.begin(), names.end()};
}

PassRef legalizePass() {
  return makePass({"LegalizeOps", PassLevel::Graph, 0, {"Normalize"}},
                  [](const IRModule& m, PassContext&) { return legalize(m); });
}

} // namespace unity::transform
