#include "engine/runtime/executor.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "engine/ir/builtins.h"
#include "engine/ir/functor.h"
#include "engine/ir/int_eval.h"
#include "engine/runtime/kernel_call.h"
#include "engine/support/error.h"

namespace unity::runtime {

using namespace ir;

const Tensor& Value::tensor() const {
  if (auto* t = std::get_if<Tensor>(&v))
    return *t;
  throw Error("expected a tensor value");
}

void Value::flatten(std::vector<Tensor>& out) const {
  if (auto* t = std::get_if<Tensor>(&v))
    out.push_back(*t);
  if (auto* tu = std::get_if<std::vector<Value>>(&v))
    for (auto& f : *tu)
      f.flatten(out);
}

/// Slice `index` of `t` along `axis`, that axis removed (a scan input's
/// slice for one iteration).
Tensor sliceAxis(const Tensor& t, int axis, int64_t index) {
  std::vector<int64_t> shape = t.shape();
  int64_t outer = 1, inner = t.dtype().bytes();
  for (int d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int d = axis + 1; d < t.ndim(); ++d)
    inner *= shape[d];
  int64_t n = shape[axis];
  shape.erase(shape.begin() + axis);
  Tensor out(t.dtype(), shape);
  auto* src = static_cast<const std::byte*>(t.data());
  auto* dst = static_cast<std::byte*>(out.mutableData());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + o * inner, src + (o * n + index) * inner, static_cast<size_t>(inner));
  return out;
}

/// The parts (all of one shape) stacked along a new axis `axis`.
Tensor stackAxis(const std::vector<Tensor>& parts, int axis) {
  std::vector<int64_t> shape = parts[0].shape();
  int64_t outer = 1, inner = parts[0].dtype().bytes();
  for (int d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int d = axis; d < static_cast<int>(shape.size()); ++d)
    inner *= shape[d];
  auto n = static_cast<int64_t>(parts.size());
  shape.insert(shape.begin() + axis, n);
  Tensor out(parts[0].dtype(), shape);
  auto* dst = static_cast<std::byte*>(out.mutableData());
  for (int64_t k = 0; k < n; ++k) {
    auto* src = static_cast<const std::byte*>(parts[k].data());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + (o * n + k) * inner, src + o * inner, static_cast<size_t>(inner));
  }
  return out;
}

/// Evaluation of one call of a graph-level function.
struct FrameEval {
  Executable& ex;
  std::string fname;
  const Function* fn;
  std::unordered_map<const VarNode*, Value> env;
  std::unordered_map<const PrimVar*, int64_t> shapeEnv;

  [[noreturn]] void fail(const Span& span, const std::string& msg) {
    std::string where = "in function '" + fname + "'";
    if (!span.origins.empty())
      where += " (from " + span.origins[0] + ")";
    if (span.line > 0)
      throw Error(SourceLoc{span.file, span.line, span.column}, msg + " " + where);
    throw Error(msg + " " + where);
  }

  int64_t evalInt(const PrimExpr& e, const Span& span) {
    try {
      return evalIntExpr(e, [&](const PrimVar* v) -> std::optional<int64_t> {
        auto it = shapeEnv.find(v);
        if (it == shapeEnv.end())
          return std::nullopt;
        return it->second;
      });
    } catch (const Error& err) {
      fail(span, err.message());
    }
  }

  bool tryEvalInt(const PrimExpr& e, int64_t& out) {
    bool ok = true;
    walkPrimExpr(e, [&](const PrimExpr& x) {
      if (auto* v = as<PrimVar>(x); v && !shapeEnv.count(v))
        ok = false;
    });
    if (!ok)
      return false;
    out = evalInt(e, Span{});
    return true;
  }

  /// Checks v against s, binding shape variables seen for the first time.
  void match(const StructInfo& s, const Value& v, const std::string& what, const Span& span) {
    if (!s)
      return;
    if (auto* t = as<TensorSInfo>(s)) {
      if (!v.isTensor())
        fail(span, what + " must be a tensor");
      const Tensor& x = v.tensor();
      if (!t->dtype.isVoid() && t->dtype != x.dtype())
        fail(span, what + " has dtype " + x.dtype().str() + ", expected " + t->dtype.str());
      if (t->ndim >= 0 && t->ndim != x.ndim())
        fail(span, what + " has rank " + std::to_string(x.ndim()) + ", expected " +
                       std::to_string(t->ndim));
      if (!t->shape)
        return;
      // Bare variables first (so `n` binds before `n * 2` is checked).
      for (int d = 0; d < x.ndim(); ++d)
        if (auto* pv = as<PrimVar>((*t->shape)[d]); pv && !shapeEnv.count(pv))
          shapeEnv[pv] = x.shape()[d];
      for (int d = 0; d < x.ndim(); ++d) {
        int64_t want;
        if (tryEvalInt((*t->shape)[d], want) && want != x.shape()[d])
          fail(span, what + " has shape " + Tensor::shapeStr(x.shape()) + ": dimension " +
                         std::to_string(d) + " is " + std::to_string(x.shape()[d]) + ", expected " +
                         std::to_string(want));
      }
      return;
    }
    if (auto* tu = as<TupleSInfo>(s)) {
      auto* fields = std::get_if<std::vector<Value>>(&v.v);
      if (!fields || fields->size() != tu->fields.size())
        fail(span, what + " must be a tuple of " + std::to_string(tu->fields.size()));
      for (size_t k = 0; k < fields->size(); ++k)
        match(tu->fields[k], (*fields)[k], what + "[" + std::to_string(k) + "]", span);
      return;
    }
    if (auto* sh = as<ShapeSInfo>(s); sh && sh->values) {
      auto* vals = std::get_if<std::vector<int64_t>>(&v.v);
      if (!vals || vals->size() != sh->values->size())
        fail(span, what + " must be a shape of rank " + std::to_string(sh->values->size()));
      for (size_t k = 0; k < vals->size(); ++k) {
        if (auto* pv = as<PrimVar>((*sh->values)[k]); pv && !shapeEnv.count(pv))
          shapeEnv[pv] = (*vals)[k];
      }
      for (size_t k = 0; k < vals->size(); ++k) {
        int64_t want;
        if (tryEvalInt((*sh->values)[k], want) && want != (*vals)[k])
          fail(span, what + " has value " + std::to_string((*vals)[k]) + " at position " +
                         std::to_string(k) + ", expected " + std::to_string(want));
      }
    }
    if (auto* p = as<PrimSInfo>(s); p && p->value) {
      if (auto* pv = as<PrimVar>(p->value); pv && !shapeEnv.count(pv))
        if (auto* i = std::get_if<int64_t>(&v.v))
          shapeEnv[pv] = *i;
    }
  }

  std::vector<int64_t> evalShape(const std::vector<PrimExpr>& dims, const Span& span) {
    std::vector<int64_t> out;
    for (auto& d : dims) {
      int64_t x = evalInt(d, span);
      if (x < 0)
        fail(span, "negative dimension " + std::to_string(x) + " in an allocation");
      out.push_back(x);
    }
    return out;
  }

  Tensor allocate(const TensorSInfo* t, int slot, const Span& span) {
    if (!t || !t->shape || t->dtype.isVoid())
      fail(span, "cannot allocate a tensor of unknown shape");
    auto shape = evalShape(*t->shape, span);
    if (slot < 0)
      return Tensor(t->dtype, shape);
    auto& slots = ex.slots_[fname];
    auto sizes = fn->attrs.getInts("storage_bytes");
    if (slot >= static_cast<int>(sizes.size()))
      fail(span, "storage slot out of range");
    if (slots.size() < sizes.size())
      slots.resize(sizes.size());
    if (sizes[slot] < 0) {
      // A slot of symbolic size (LowerToExecutor): grown to this run's need.
      int64_t bytes = t->dtype.bytes();
      for (int64_t d : shape)
        bytes *= d;
      if (!slots[slot] || static_cast<int64_t>(slots[slot]->size()) < bytes)
        slots[slot] = std::make_shared<TensorBytes>(static_cast<size_t>(bytes));
    } else if (!slots[slot]) {
      slots[slot] = std::make_shared<TensorBytes>(sizes[slot]);
    }
    return Tensor::view(t->dtype, shape, slots[slot]);
  }

  void callKernel(const std::string& name, const std::vector<Tensor>& ins,
                  std::vector<Tensor>& outs, const std::vector<int64_t>& scalars,
                  const Span& span) {
    const CompiledModule* km = ex.kernels_.get();
    PrimFuncRef pf = km ? km->function(name) : PrimFuncRef();
    if (!pf)
      fail(span, "tensor function '" + name + "' was not compiled");
    std::vector<KernelArg> args;
    size_t ti = 0, si = 0;
    std::vector<Tensor> all = ins;
    all.insert(all.end(), outs.begin(), outs.end());
    for (auto& p : pf->params) {
      if (p.buffer) {
        if (ti >= all.size())
          fail(span, "too few tensors for '" + name + "'");
        args.emplace_back(&all[ti++]);
      } else {
        if (si >= scalars.size())
          fail(span, "too few scalar arguments for '" + name + "'");
        args.emplace_back(scalars[si++]);
      }
    }
    if (ti != all.size())
      fail(span, "'" + name + "' takes " + std::to_string(ti) + " tensors, got " +
                     std::to_string(all.size()));
    auto t0 = std::chrono::steady_clock::now();
    runtime::callKernel(*km, name, pf, args);
    if (ex.profiling_) {
      auto& p = ex.profile_[name];
      p.name = name;
      p.calls++;
      p.totalMs +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  }

  std::vector<Tensor> tensorsOf(const Expr& tupleExpr, const Span& span) {
    Value v = eval(tupleExpr, span);
    std::vector<Tensor> out;
    if (auto* tu = std::get_if<std::vector<Value>>(&v.v)) {
      for (auto& f : *tu) {
        if (!f.isTensor())
          fail(span, "kernel arguments must be tensors");
        out.push_back(f.tensor());
      }
    } else if (v.isTensor()) {
      out.push_back(v.tensor());
    } else {
      fail(span, "kernel arguments must be a tuple of tensors");
    }
    return out;
  }

  std::vector<int64_t> scalarsOf(const Call* c, size_t index, const Span& span) {
    if (c->args.size() <= index)
      return {};
    if (auto* sh = as<ShapeExpr>(c->args[index]))
      return evalShape(sh->values, span);
    return {};
  }

  std::vector<Value> fieldsOf(const Expr& e, const Span& span, const char* what) {
    Value v = eval(e, span);
    auto* fs = std::get_if<std::vector<Value>>(&v.v);
    if (!fs)
      fail(span, std::string(what) + " must be a tuple");
    return *fs;
  }

  static bool truthy(const Tensor& t) { return t.numel() > 0 && t.getDouble(0) != 0; }

  /// An empty scan output (no iteration ran): field `field` of the body's
  /// return struct info must have a static shape; a 0 extent goes in at
  /// `axis`.
  Tensor emptyStacked(const GlobalVar* body, size_t field, int axis, const Span& span) {
    auto* fn = as<Function>(ex.module_->lookup(body->name));
    auto* ret = fn ? as<TupleSInfo>(fn->retSInfo) : nullptr;
    auto* t = ret && field < ret->fields.size() ? as<TensorSInfo>(ret->fields[field]) : nullptr;
    std::optional<std::vector<int64_t>> shape;
    if (t && !t->dtype.isVoid())
      shape = t->staticShape();
    if (!shape || axis < 0 || axis > static_cast<int>(shape->size()))
      fail(span, "a scan output of zero iterations needs a static element shape");
    shape->insert(shape->begin() + axis, 0);
    return Tensor(t->dtype, *shape);
  }

  Value tupleValue(std::vector<Value> fs) {
    Value v;
    v.v = std::move(fs);
    return v;
  }

  /// loop(@body, trip_count, cond, (v...), (captured...)): see op/ops_control.cpp.
  Value evalLoop(const Call* c, const Span& span) {
    auto* gv = as<GlobalVar>(c->args.at(0));
    if (!gv || c->args.size() != 5)
      fail(span, "malformed loop");
    Value trip = eval(c->args[1], span), cond0 = eval(c->args[2], span);
    if (!trip.isTensor() || !cond0.isTensor())
      fail(span, "loop trip count and condition must be tensors");
    // An absent M is INT64_MAX: read int64 exactly (as a double it
    // would round up past the range).
    const Tensor& tt = trip.tensor();
    int64_t tripCount = 0;
    if (tt.numel() && tt.dtype().isInt() && tt.dtype().bits == 64)
      tripCount = tt.dataAs<int64_t>()[0];
    else if (tt.numel())
      tripCount = static_cast<int64_t>(tt.getDouble(0));
    bool cond = truthy(cond0.tensor());
    std::vector<Value> carried = fieldsOf(c->args[3], span, "loop initial values");
    std::vector<Value> captured = fieldsOf(c->args[4], span, "loop captured values");
    auto nScan = static_cast<size_t>(c->attrs.getInt("num_scan_outputs", 0));
    std::vector<std::vector<Tensor>> scans(nScan);
    for (int64_t i = 0; i < tripCount && cond; ++i) {
      std::vector<Value> args;
      Tensor it(DataType::Int64(), {}), cv(DataType::Bool(), {});
      it.setDouble(0, static_cast<double>(i));
      cv.setDouble(0, 1);
      args.emplace_back(it);
      args.emplace_back(cv);
      args.insert(args.end(), carried.begin(), carried.end());
      args.insert(args.end(), captured.begin(), captured.end());
      Value r = ex.run(gv->name, args);
      auto* fs = std::get_if<std::vector<Value>>(&r.v);
      if (!fs || fs->size() != 1 + carried.size() + nScan || !(*fs)[0].isTensor())
        fail(span, "loop body '" + gv->name + "' returned a value of the wrong form");
      cond = truthy((*fs)[0].tensor());
      for (size_t k = 0; k < carried.size(); ++k)
        carried[k] = (*fs)[1 + k];
      for (size_t k = 0; k < nScan; ++k)
        scans[k].push_back((*fs)[1 + carried.size() + k].tensor());
    }
    size_t nCarried = carried.size();
    for (size_t k = 0; k < nScan; ++k) {
      for (auto& part : scans[k])
        if (part.shape() != scans[k][0].shape() || part.dtype() != scans[k][0].dtype())
          fail(span, "loop scan output " + std::to_string(k) +
                         " changes its shape or type between iterations");
      carried.emplace_back(scans[k].empty() ? emptyStacked(gv, 1 + nCarried + k, 0, span)
                                            : stackAxis(scans[k], 0));
    }
    return tupleValue(std::move(carried));
  }

  /// scan(@body, (state...), (inputs...), (captured...)): see op/ops_control.cpp.
  Value evalScan(const Call* c, const Span& span) {
    auto* gv = as<GlobalVar>(c->args.at(0));
    if (!gv || c->args.size() != 4)
      fail(span, "malformed scan");
    std::vector<Value> states = fieldsOf(c->args[1], span, "scan states");
    std::vector<Value> inputs = fieldsOf(c->args[2], span, "scan inputs");
    std::vector<Value> captured = fieldsOf(c->args[3], span, "scan captured values");
    if (!c->attrs.getBool("batched", false))
      return tupleValue(scanOnce(c, gv, std::move(states), inputs, captured, span));
    // Scan-8: every state and scan input has a leading batch axis; each
    // batch entry is scanned on its own and the results stacked again.
    std::vector<Value> all = states;
    all.insert(all.end(), inputs.begin(), inputs.end());
    int64_t batch = -1;
    for (auto& v : all) {
      if (!v.isTensor() || v.tensor().ndim() < 1)
        fail(span, "a batched scan's states and inputs must be tensors with a batch axis");
      if (batch >= 0 && v.tensor().shape()[0] != batch)
        fail(span, "a batched scan's operands differ in batch size");
      batch = v.tensor().shape()[0];
    }
    std::vector<std::vector<Tensor>> parts;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> sb, ib;
      for (auto& v : states)
        sb.emplace_back(sliceAxis(v.tensor(), 0, b));
      for (auto& v : inputs)
        ib.emplace_back(sliceAxis(v.tensor(), 0, b));
      auto r = scanOnce(c, gv, std::move(sb), ib, captured, span);
      parts.resize(r.size());
      for (size_t k = 0; k < r.size(); ++k)
        parts[k].push_back(r[k].tensor());
    }
    std::vector<Value> out;
    for (auto& p : parts)
      out.emplace_back(stackAxis(p, 0));
    return tupleValue(std::move(out));
  }

  /// One scan over the inputs' scan axes: the final states, then the
  /// stacked scan outputs.
  std::vector<Value> scanOnce(const Call* c, const GlobalVar* gv, std::vector<Value> states,
                              const std::vector<Value>& inputs, const std::vector<Value>& captured,
                              const Span& span) {
    auto nScan = static_cast<size_t>(c->attrs.getInt("num_scan_outputs", 0));
    auto inAxes = c->attrs.getInts("scan_input_axes"),
         inDirs = c->attrs.getInts("scan_input_directions");
    auto outAxes = c->attrs.getInts("scan_output_axes"),
         outDirs = c->attrs.getInts("scan_output_directions");
    int64_t length = -1;
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (!inputs[j].isTensor() || j >= inAxes.size())
        fail(span, "scan input " + std::to_string(j) + " must be a tensor with an axis");
      const Tensor& t = inputs[j].tensor();
      if (inAxes[j] < 0 || inAxes[j] >= t.ndim())
        fail(span, "scan input axis out of range");
      int64_t n = t.shape()[inAxes[j]];
      if (length >= 0 && n != length)
        fail(span, "scan inputs differ in length: " + std::to_string(length) + " and " +
                       std::to_string(n));
      length = n;
    }
    if (length < 0)
      fail(span, "scan needs at least one scan input");
    std::vector<std::vector<Tensor>> scans(nScan);
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Value> args = states;
      for (size_t j = 0; j < inputs.size(); ++j) {
        bool back = j < inDirs.size() && inDirs[j] == 1;
        args.emplace_back(
            sliceAxis(inputs[j].tensor(), static_cast<int>(inAxes[j]), back ? length - 1 - t : t));
      }
      args.insert(args.end(), captured.begin(), captured.end());
      Value r = ex.run(gv->name, args);
      auto* fs = std::get_if<std::vector<Value>>(&r.v);
      if (!fs || fs->size() != states.size() + nScan)
        fail(span, "scan body '" + gv->name + "' returned a value of the wrong form");
      for (size_t k = 0; k < states.size(); ++k)
        states[k] = (*fs)[k];
      for (size_t k = 0; k < nScan; ++k) {
        if (!(*fs)[states.size() + k].isTensor())
          fail(span, "scan outputs must be tensors");
        scans[k].push_back((*fs)[states.size() + k].tensor());
      }
    }
    size_t nStates = states.size();
    for (size_t k = 0; k < nScan; ++k) {
      int axis = k < outAxes.size() ? static_cast<int>(outAxes[k]) : 0;
      if (k < outDirs.size() && outDirs[k] == 1)
        std::reverse(scans[k].begin(), scans[k].end());
      if (scans[k].empty()) {
        states.emplace_back(emptyStacked(gv, nStates + k, axis, span));
        continue;
      }
      if (axis < 0 || axis > scans[k][0].ndim())
        fail(span, "scan output axis out of range");
      states.emplace_back(stackAxis(scans[k], axis));
    }
    return states;
  }

  /// The sequence and optional operators (op/ops_sequence.cpp): a sequence
  /// is a tuple value of any length, an empty optional is no value.
  Value evalSequence(const Call* c, const std::string& name, const Span& span) {
    auto items = [&](const Value& v) {
      auto* fs = std::get_if<std::vector<Value>>(&v.v);
      if (!fs)
        fail(span, name + " needs a sequence");
      return *fs;
    };
    auto intOf = [&](const Value& v) -> int64_t {
      if (v.isTensor() && v.tensor().numel() == 1)
        return static_cast<int64_t>(v.tensor().getDouble(0));
      if (auto* i = std::get_if<int64_t>(&v.v))
        return *i;
      fail(span, name + ": a position must be an integer scalar");
    };
    auto position = [&](int64_t p, size_t size, bool end) {
      auto n = static_cast<int64_t>(size);
      int64_t q = p < 0 ? p + n : p;
      if (q < 0 || q > n || (!end && q == n))
        fail(span, name + ": position " + std::to_string(p) +
                       " is out of range for a sequence of " + std::to_string(n));
      return q;
    };
    auto arg = [&](size_t i) { return eval(c->args.at(i), span); };
    if (name == "seq.construct") {
      std::vector<Value> fs;
      for (size_t i = 0; i < c->args.size(); ++i)
        fs.push_back(arg(i));
      return tupleValue(std::move(fs));
    }
    if (name == "seq.empty")
      return tupleValue({});
    if (name == "seq.insert") {
      auto s = items(arg(0));
      int64_t p = c->args.size() > 2 ? position(intOf(arg(2)), s.size(), true)
                                     : static_cast<int64_t>(s.size());
      s.insert(s.begin() + p, arg(1));
      return tupleValue(std::move(s));
    }
    if (name == "seq.at") {
      auto s = items(arg(0));
      return s[position(intOf(arg(1)), s.size(), false)];
    }
    if (name == "seq.erase") {
      auto s = items(arg(0));
      int64_t p = c->args.size() > 1 ? position(intOf(arg(1)), s.size(), false)
                                     : position(-1, s.size(), false);
      s.erase(s.begin() + p);
      return tupleValue(std::move(s));
    }
    if (name == "seq.length") {
      Tensor t(DataType::Int64(), {});
      t.setDouble(0, static_cast<double>(items(arg(0)).size()));
      return Value(t);
    }
    if (name == "seq.map") {
      auto* gv = as<GlobalVar>(c->args.at(0));
      if (!gv)
        fail(span, "malformed seq.map");
      std::vector<Value> inputs = fieldsOf(c->args.at(1), span, "seq.map inputs");
      std::vector<Value> captured = fieldsOf(c->args.at(2), span, "seq.map captured values");
      auto mask = c->attrs.getInts("sequence_inputs");
      auto* outInfo = as<TupleSInfo>(c->sinfoArgs.at(0));
      size_t nOut = outInfo ? outInfo->fields.size() : 1;
      int64_t n = -1;
      for (size_t j = 0; j < inputs.size(); ++j)
        if (j < mask.size() && mask[j]) {
          auto len = static_cast<int64_t>(items(inputs[j]).size());
          if (n >= 0 && len != n)
            fail(span, "seq.map: the sequences differ in length (" + std::to_string(n) + " and " +
                           std::to_string(len) + ")");
          n = len;
        }
      std::vector<std::vector<Value>> outs(nOut);
      for (int64_t i = 0; i < n; ++i) {
        std::vector<Value> args;
        for (size_t j = 0; j < inputs.size(); ++j)
          args.push_back(j < mask.size() && mask[j] ? items(inputs[j])[i] : inputs[j]);
        args.insert(args.end(), captured.begin(), captured.end());
        Value r = ex.run(gv->name, args);
        auto* fs = std::get_if<std::vector<Value>>(&r.v);
        if (!fs || fs->size() != nOut)
          fail(span, "seq.map body '" + gv->name + "' returned a value of the wrong form");
        for (size_t k = 0; k < nOut; ++k)
          outs[k].push_back((*fs)[k]);
      }
      std::vector<Value> seqs;
      for (auto& o : outs)
        seqs.push_back(tupleValue(std::move(o)));
      return tupleValue(std::move(seqs));
    }
    if (name == "optional.wrap")
      return arg(0);
    if (name == "optional.none")
      return Value();
    if (name == "optional.has") {
      Tensor t(DataType::Bool(), {});
      t.setDouble(0, std::holds_alternative<std::monostate>(arg(0).v) ? 0 : 1);
      return Value(t);
    }
    if (name == "optional.get") {
      Value v = arg(0);
      if (std::holds_alternative<std::monostate>(v.v))
        fail(span, "optional.get of an empty optional");
      return v;
    }
    fail(span, "unknown sequence operator '" + name + "'");
  }

  Value evalCall(const Call* c, const Span& span) {
    if (auto* op = as<OpRef>(c->op)) {
      if (op->name == "call_tir") {
        auto* gv = as<GlobalVar>(c->args.at(0));
        if (!gv || c->sinfoArgs.size() != 1)
          fail(span, "malformed call_tir");
        auto ins = tensorsOf(c->args.at(1), span);
        std::vector<StructInfo> outs;
        if (auto* tu = as<TupleSInfo>(c->sinfoArgs[0]))
          outs = tu->fields;
        else
          outs = {c->sinfoArgs[0]};
        std::vector<Tensor> outT;
        for (auto& o : outs)
          outT.push_back(allocate(as<TensorSInfo>(o), -1, span));
        callKernel(gv->name, ins, outT, scalarsOf(c, 2, span), span);
        if (outT.size() == 1 && !isa<TupleSInfo>(c->sinfoArgs[0]))
          return Value(outT[0]);
        Value v;
        std::vector<Value> fs;
        for (auto& t : outT)
          fs.emplace_back(t);
        v.v = std::move(fs);
        return v;
      }
      if (op->name == "tensor_to_shape") {
        // A shape read from data (a Reshape's target computed at run time):
        // the following match_cast binds its values to shape variables.
        Value t = eval(c->args.at(0), span);
        if (!t.isTensor() || t.tensor().ndim() != 1 || !t.tensor().dtype().isIntegral())
          fail(span, "tensor_to_shape needs a 1-D integer tensor");
        std::vector<int64_t> dims;
        for (int64_t i = 0; i < t.tensor().numel(); ++i) {
          auto d = static_cast<int64_t>(t.tensor().getDouble(i));
          if (d < 0) {
            // The importer turns a check on run-time operands (axes in range,
            // distinct) into a negative shape value with its own message.
            std::string err = c->attrs.getString("error");
            if (!err.empty())
              fail(span, err);
            fail(span, "a shape computed at run time has the negative value " + std::to_string(d) +
                           " at position " + std::to_string(i));
          }
          dims.push_back(d);
        }
        Value v;
        v.v = std::move(dims);
        return v;
      }
      if (op->name == "loop")
        return evalLoop(c, span);
      if (op->name == "scan")
        return evalScan(c, span);
      if (op->name.rfind("seq.", 0) == 0 || op->name.rfind("optional.", 0) == 0)
        return evalSequence(c, op->name, span);
      fail(span, "operator '" + op->name +
                     "' was not lowered to a kernel (is Legalize in the pipeline?)");
    }
    if (auto* ext = as<ExternFunc>(c->op)) {
      if (ext->symbol == ir::kAllocTensor) {
        auto* t = as<TensorSInfo>(c->sinfoArgs.empty() ? c->sinfo : c->sinfoArgs[0]);
        int64_t slot = -1;
        if (c->args.size() > 1)
          if (auto* pv = as<PrimValue>(c->args[1]))
            slot = evalInt(pv->value, span);
        return Value(allocate(t, static_cast<int>(slot), span));
      }
      if (ext->symbol == ir::kCallTIRDps) {
        auto* gv = as<GlobalVar>(c->args.at(0));
        if (!gv || c->args.size() < 3)
          fail(span, "malformed call_tir_dps");
        auto ins = tensorsOf(c->args[1], span);
        auto outs = tensorsOf(c->args[2], span);
        callKernel(gv->name, ins, outs, scalarsOf(c, 3, span), span);
        return Value();
      }
      fail(span, "unknown external function '" + ext->symbol + "'");
    }
    if (auto* gv = as<GlobalVar>(c->op)) {
      std::vector<Value> args;
      for (auto& a : c->args)
        args.push_back(eval(a, span));
      return ex.run(gv->name, args);
    }
    fail(span, "cannot call this kind of expression");
  }

  Value eval(const Expr& e, const Span& span) {
    switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar: {
      auto it = env.find(as<VarNode>(e));
      if (it == env.end())
        fail(span, "variable '" + as<VarNode>(e)->name + "' has no value");
      return it->second;
    }
    case NodeKind::Constant:
      return Value(as<Constant>(e)->data);
    case NodeKind::Tuple: {
      Value v;
      std::vector<Value> fs;
      for (auto& f : as<Tuple>(e)->fields)
        fs.push_back(eval(f, span));
      v.v = std::move(fs);
      return v;
    }
    case NodeKind::TupleGetItem: {
      auto* t = as<TupleGetItem>(e);
      Value tv = eval(t->tuple, span);
      auto* fs = std::get_if<std::vector<Value>>(&tv.v);
      if (!fs || t->index >= static_cast<int>(fs->size()))
        fail(span, "tuple index out of range");
      return (*fs)[t->index];
    }
    case NodeKind::ShapeExpr: {
      Value v;
      v.v = evalShape(as<ShapeExpr>(e)->values, span);
      return v;
    }
    case NodeKind::PrimValue: {
      Value v;
      v.v = evalInt(as<PrimValue>(e)->value, span);
      return v;
    }
    case NodeKind::Call:
      return evalCall(as<Call>(e), span);
    case NodeKind::SeqExpr: {
      auto* s = as<SeqExpr>(e);
      for (auto& blk : s->blocks)
        for (auto& b : blk->bindings) {
          Value v = eval(b->value, b->span);
          if (auto* mc = as<MatchCast>(b))
            match(mc->pattern, v, "value of '" + b->var->name + "'", b->span);
          env[b->var.get()] = std::move(v);
        }
      return eval(s->body, span);
    }
    case NodeKind::If: {
      auto* i = as<If>(e);
      Value c = eval(i->cond, span);
      bool cond = false;
      if (c.isTensor())
        cond = c.tensor().numel() > 0 && c.tensor().getDouble(0) != 0;
      else if (auto* iv = std::get_if<int64_t>(&c.v))
        cond = *iv != 0;
      else
        fail(span, "if condition must be a scalar");
      return eval(cond ? i->thenBranch : i->elseBranch, span);
    }
    default:
      fail(span, std::string("cannot evaluate a ") + kindName(e->kind()));
    }
  }
};

Executable::Executable(IRModule lowered, std::shared_ptr<const CompiledModule> kernels)
    : module_(std::move(lowered)), kernels_(std::move(kernels)) {}

std::string Executable::entry() const {
  if (isa<Function>(module_->lookup("main")))
    return "main";
  for (auto& [name, f] : module_->functions)
    if (auto* fn = as<Function>(f); fn && !fn->attrs.getBool("primitive", false))
      return name;
  throw Error("the module has no graph-level function to run");
}

Value Executable::run(const std::string& name, const std::vector<Value>& args) {
  auto* fn = as<Function>(module_->lookup(name));
  if (!fn)
    throw Error("no graph-level function '" + name + "' in the module");
  if (args.size() != fn->params.size())
    throw Error("function '" + name + "' takes " + std::to_string(fn->params.size()) +
                " arguments, got " + std::to_string(args.size()));
  if (++depth_ > 64) {
    depth_ = 0;
    throw Error("call depth exceeds 64 in function '" + name + "'");
  }
  struct Guard {
    int& d;
    ~Guard() { --d; }
  } guard{depth_};
  FrameEval f{*this, name, fn, {}, {}};
  for (size_t i = 0; i < args.size(); ++i) {
    f.match(fn->params[i]->sinfo, args[i], "argument '" + fn->params[i]->name + "'", Span{});
    f.env[fn->params[i].get()] = args[i];
  }
  return f.eval(fn->body, Span{});
}

std::vector<Tensor> Executable::runTensors(const std::vector<Tensor>& inputs,
                                           const std::string& name) {
  std::vector<Value> args(inputs.begin(), inputs.end());
  Value v = run(name.empty() ? entry() : name, args);
  std::vector<Tensor> out;
  v.flatten(out);
  return out;
}

std::vector<KernelProfile> Executable::profile() const {
  std::vector<KernelProfile> out;
  for (auto& [_, p] : profile_)
    out.push_back(p);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.totalMs > b.totalMs; });
  return out;
}

} // namespace unity::runtime
