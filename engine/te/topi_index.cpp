// Indexing, scans and losses: gather_elements, gather_nd, one_hot, trilu,
// cumsum, topk, nll_loss, isnan/isinf. Index reads normalize negative
// indices (count from the end) and clamp, so every load stays in bounds.
#include <algorithm>
#include <functional>
#include <map>

#include "engine/op/einsum.h"
#include "engine/te/topi_util.h"

namespace unity::te::topi {

using namespace ir;
using namespace detail;

namespace {

/// An index value k (any integer dtype) for a dim of extent D: negative
/// counts from the end, then clamped to [0, D - 1], in D's dtype.
PrimExpr normIndex(const PrimExpr& k0, const PrimExpr& D) {
  PrimExpr D64 = ir::cast(DataType::Int64(), D);
  PrimExpr k = ir::cast(DataType::Int64(), k0);
  k = select(lt(k, i64(0)), k + D64, k);
  return ir::cast(D->dtype, clampIndex(k, D64));
}

} // namespace

Tensor gatherElements(const Tensor& x, const Tensor& indices, int axis, const std::string& name) {
  requireDefined(x, name, "data");
  requireDefined(indices, name, "indices");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  if (indices.ndim() != x.ndim())
    fail(name, "indices have rank " + std::to_string(indices.ndim()) + ", data has rank " +
                   std::to_string(x.ndim()));
  int a = normAxis(axis, x.ndim(), name);
  return compute(
      indices.shape(),
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi = i;
        xi[a] = normIndex(indices(i), x.shape()[a]);
        return x(xi);
      },
      name);
}

Tensor gatherND(const Tensor& x, const Tensor& indices, int batchDims, const std::string& name) {
  requireDefined(x, name, "data");
  requireDefined(indices, name, "indices");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  int q = indices.ndim();
  if (q < 1)
    fail(name, "indices must have rank >= 1");
  auto m = asConstInt(indices.shape().back());
  if (!m)
    fail(name, "the last dimension of indices must be a constant");
  if (batchDims < 0 || batchDims >= q || batchDims + *m > x.ndim() || *m < 1)
    fail(name, "indices of shape " + shapeStr(indices.shape()) + " with " +
                   std::to_string(batchDims) + " batch dims do not address data of shape " +
                   shapeStr(x.shape()));
  std::vector<PrimExpr> shape(indices.shape().begin(), indices.shape().end() - 1);
  shape.insert(shape.end(), x.shape().begin() + batchDims + *m, x.shape().end());
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi(i.begin(), i.begin() + batchDims);
        std::vector<PrimExpr> ii(i.begin(), i.begin() + (q - 1));
        for (int64_t j = 0; j < *m; ++j) {
          std::vector<PrimExpr> at = ii;
          at.push_back(i64(j));
          xi.push_back(normIndex(indices(at), x.shape()[batchDims + j]));
        }
        xi.insert(xi.end(), i.begin() + (q - 1), i.end());
        return x(xi);
      },
      name);
}

Tensor oneHot(const Tensor& indices, PrimExpr depth, int axis, double onValue, double offValue,
              DataType dtype, const std::string& name) {
  requireDefined(indices, name, "indices");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  if (!depth || !depth->dtype.isIntegral())
    fail(name, "depth must be an integer");
  if (auto k = asConstInt(depth); k && *k < 1)
    fail(name, "depth must be >= 1");
  depth = ir::cast(DataType::Int64(), depth);
  int a = normAxis(axis, indices.ndim() + 1, name);
  std::vector<PrimExpr> shape = indices.shape();
  shape.insert(shape.begin() + a, depth);
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> ii = i;
        ii.erase(ii.begin() + a);
        PrimExpr k = ir::cast(DataType::Int64(), indices(ii));
        k = select(lt(k, i64(0)), k + depth, k);
        return select(eq(k, ir::cast(DataType::Int64(), i[a])), cst(dtype, onValue),
                      cst(dtype, offValue));
      },
      name);
}

namespace {

/// Keeps x where column - row >= k (upper) or <= k (lower); k an int64
/// expression (a constant, or a load of the 0-d k operand).
Tensor triluWith(const Tensor& x, const std::function<PrimExpr()>& k, bool upper,
                 const std::string& name) {
  requireDefined(x, name, "input");
  int n = x.ndim();
  if (n < 2)
    fail(name, "requires rank >= 2, got rank " + std::to_string(n));
  return compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr d = ir::cast(DataType::Int64(), i[n - 1]) - ir::cast(DataType::Int64(), i[n - 2]);
        PrimExpr keep = upper ? ge(d, k()) : le(d, k());
        return select(keep, x(i), cst(x.dtype(), 0));
      },
      name);
}

} // namespace

Tensor trilu(const Tensor& x, int64_t k, bool upper, const std::string& name) {
  return triluWith(
      x, [k] { return i64(k); }, upper, name);
}

Tensor trilu(const Tensor& x, const Tensor& k, bool upper, const std::string& name) {
  requireDefined(k, name, "k");
  if (k.ndim() != 0 || !k.dtype().isIntegral())
    fail(name, "k must be an integer scalar (rank 0)");
  return triluWith(
      x, [&k] { return ir::cast(DataType::Int64(), k({})); }, upper, name);
}

Tensor cumsum(const Tensor& x, int axis, bool exclusive, bool reverse, const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  ReduceAxis r = reduceAxis(x.shape()[a], "k");
  return compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xi = i;
        xi[a] = r.var;
        PrimExpr kk = r.var, ii = i[a];
        PrimExpr in =
            reverse ? (exclusive ? gt(kk, ii) : ge(kk, ii)) : (exclusive ? lt(kk, ii) : le(kk, ii));
        return te::sum(select(in, x(xi), cst(x.dtype(), 0)), {r});
      },
      name);
}

std::vector<Tensor> topk(const Tensor& x, int64_t k, int axis, bool largest,
                         const std::string& name) {
  requireDefined(x, name, "input");
  int a = normAxis(axis, x.ndim(), name);
  if (k < 0)
    fail(name, "k must be >= 0");
  if (auto d = asConstInt(x.shape()[a]); d && k > *d)
    fail(name, "k = " + std::to_string(k) + " exceeds the axis size " + std::to_string(*d));
  // rank[j] = #{k : x[k] before x[j]} (strictly better, or equal at a lower index).
  ReduceAxis r = reduceAxis(x.shape()[a], "k");
  Tensor rank = compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> xk = i;
        xk[a] = r.var;
        PrimExpr vk = x(xk), vj = x(i);
        PrimExpr better = largest ? gt(vk, vj) : lt(vk, vj);
        PrimExpr before = logicalOr(better, logicalAnd(eq(vk, vj), lt(r.var, i[a])));
        return te::sum(select(before, i64(1), i64(0)), {r});
      },
      name + "_rank");
  std::vector<PrimExpr> shape = x.shape();
  shape[a] = i64(k);
  ReduceAxis r2 = reduceAxis(x.shape()[a], "k");
  auto pick = [&](bool wantIndex) {
    return compute(
        shape,
        [&, wantIndex](const std::vector<PrimExpr>& i) {
          std::vector<PrimExpr> xk = i;
          xk[a] = r2.var;
          PrimExpr hit = eq(rank(xk), ir::cast(DataType::Int64(), i[a]));
          if (wantIndex)
            return te::sum(select(hit, ir::cast(DataType::Int64(), r2.var), i64(0)), {r2});
          // Exactly one k hits: max with the lowest value is exact (also for inf).
          return te::max(select(hit, x(xk), reducerIdentity(Reducer::Max, x.dtype())), {r2});
        },
        name + (wantIndex ? "_indices" : "_values"));
  };
  Tensor values = pick(false);
  Tensor idx = pick(true);
  return {values, idx};
}

Tensor nllLoss(const Tensor& pred, const Tensor& target, const Tensor& weights,
               const std::string& reduction, std::optional<int64_t> ignoreIndex,
               const std::string& name) {
  requireDefined(pred, name, "predictions");
  requireDefined(target, name, "targets");
  if (!pred.dtype().isFloat())
    fail(name, "predictions must be float, got " + pred.dtype().str());
  if (!target.dtype().isIntegral())
    fail(name, "targets must be integers, got " + target.dtype().str());
  if (pred.ndim() < 2 || target.ndim() != pred.ndim() - 1)
    fail(name, "predictions " + shapeStr(pred.shape()) + " and targets " +
                   shapeStr(target.shape()) + " are not (N, C, ...) and (N, ...)");
  if (weights.defined() && weights.ndim() != 1)
    fail(name, "weights must be 1-D");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    fail(name, "unknown reduction '" + reduction + "'");
  DataType dt = pred.dtype();
  PrimExpr C = pred.shape()[1];
  auto weightAt = [&](const std::vector<PrimExpr>& i) {
    PrimExpr t = target(i);
    PrimExpr w = weights.defined() ? weights(normIndex(t, C)) : cst(dt, 1);
    if (ignoreIndex)
      w = select(eq(ir::cast(DataType::Int64(), t), i64(*ignoreIndex)), cst(dt, 0), w);
    return w;
  };
  Tensor w = compute(target.shape(), weightAt, name + "_weight");
  Tensor loss = compute(
      target.shape(),
      [&](const std::vector<PrimExpr>& i) {
        std::vector<PrimExpr> pi = i;
        pi.insert(pi.begin() + 1, normIndex(target(i), C));
        return select(eq(w(i), cst(dt, 0)), cst(dt, 0), -(pred(pi) * w(i)));
      },
      reduction == "none" ? name : name + "_elem");
  if (reduction == "none")
    return loss;
  if (reduction == "sum")
    return sum(loss, {}, false, name);
  Tensor total = sum(loss, {}, false, name + "_sum");
  Tensor wsum = sum(w, {}, false, name + "_wsum");
  return compute(
      {}, [&](const std::vector<PrimExpr>&) { return total({}) / wsum({}); }, name);
}

namespace {

std::optional<Reducer> scatterReducer(const std::string& reduction, const std::string& name) {
  if (reduction == "none")
    return std::nullopt;
  if (reduction == "add")
    return Reducer::Sum;
  if (reduction == "mul")
    return Reducer::Prod;
  if (reduction == "max")
    return Reducer::Max;
  if (reduction == "min")
    return Reducer::Min;
  fail(name, "unknown reduction '" + reduction + "'");
}

/// The scatter result from `last` (the position of the last update that hits
/// each output element, -1 when none does) and, with a reducer, `acc` (the
/// updates hitting it, combined): none: the last update; else data combined
/// with acc.
Tensor scatterResult(const Tensor& data, const Tensor& last, const Tensor& acc,
                     std::optional<Reducer> r,
                     const std::function<PrimExpr(const std::vector<PrimExpr>&)>& lastUpdate,
                     const std::string& name) {
  return compute(
      data.shape(),
      [&](const std::vector<PrimExpr>& p) {
        PrimExpr v = r ? reducerCombine(*r, data(p), acc(p)) : lastUpdate(p);
        return select(ge(last(p), i64(0)), v, data(p));
      },
      name);
}

} // namespace

Tensor scatterElements(const Tensor& data, const Tensor& indices, const Tensor& updates, int axis,
                       const std::string& reduction, const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(indices, name, "indices");
  requireDefined(updates, name, "updates");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  int n = data.ndim();
  if (indices.ndim() != n || updates.ndim() != n)
    fail(name, "data, indices and updates must have the same rank");
  if (!(updates.dtype() == data.dtype()))
    fail(name, "updates must have the dtype of data");
  int a = normAxis(axis, n, name);
  auto r = scatterReducer(reduction, name);
  const auto& S = indices.shape();
  // The element j of indices/updates that could hit output position p with
  // j[axis] = k; other dims clamped (validity is checked separately).
  auto source = [&](const std::vector<PrimExpr>& p, const PrimExpr& k) {
    std::vector<PrimExpr> j;
    for (int d = 0; d < n; ++d)
      j.push_back(d == a ? k : clampIndex(p[d], S[d]));
    return j;
  };
  auto hit = [&](const std::vector<PrimExpr>& p, const PrimExpr& k) {
    PrimExpr h = eq(normIndex(indices(source(p, k)), data.shape()[a]), p[a]);
    for (int d = 0; d < n; ++d)
      if (d != a)
        h = logicalAnd(lt(p[d], S[d]), h);
    return h;
  };
  ReduceAxis k1 = reduceAxis(S[a], "k");
  Tensor last = compute(
      data.shape(),
      [&](const std::vector<PrimExpr>& p) {
        return te::max(select(hit(p, k1.var), ir::cast(DataType::Int64(), k1.var), i64(-1)), {k1});
      },
      name + "_last");
  Tensor acc;
  if (r) {
    ReduceAxis k2 = reduceAxis(S[a], "k");
    acc = compute(
        data.shape(),
        [&](const std::vector<PrimExpr>& p) {
          return te::reduce(
              *r,
              select(hit(p, k2.var), updates(source(p, k2.var)), reducerIdentity(*r, data.dtype())),
              {k2});
        },
        name + "_acc");
  }
  return scatterResult(
      data, last, acc, r,
      [&](const std::vector<PrimExpr>& p) {
        PrimExpr k = ir::cast(S[a]->dtype, ir::max(last(p), i64(0)));
        return updates(source(p, k));
      },
      name);
}

Tensor scatterND(const Tensor& data, const Tensor& indices, const Tensor& updates,
                 const std::string& reduction, const std::string& name) {
  requireDefined(data, name, "data");
  requireDefined(indices, name, "indices");
  requireDefined(updates, name, "updates");
  if (!indices.dtype().isIntegral())
    fail(name, "indices must be integers, got " + indices.dtype().str());
  if (!(updates.dtype() == data.dtype()))
    fail(name, "updates must have the dtype of data");
  int q = indices.ndim();
  if (q < 1)
    fail(name, "indices must have rank >= 1");
  auto m = asConstInt(indices.shape().back());
  if (!m || *m < 1 || *m > data.ndim())
    fail(name, "the last dimension of indices must be a constant in [1, rank of data]");
  if (updates.ndim() != q - 1 + data.ndim() - static_cast<int>(*m))
    fail(name, "updates of shape " + shapeStr(updates.shape()) + " do not match indices " +
                   shapeStr(indices.shape()) + " and data " + shapeStr(data.shape()));
  auto r = scatterReducer(reduction, name);
  std::vector<PrimExpr> Q(indices.shape().begin(), indices.shape().end() - 1);
  // Row-major linear position of an index tuple, to find the last one.
  auto linear = [&](const std::vector<PrimExpr>& qi) {
    PrimExpr lin = i64(0);
    for (size_t d = 0; d < qi.size(); ++d)
      lin = lin * ir::cast(DataType::Int64(), Q[d]) + ir::cast(DataType::Int64(), qi[d]);
    return lin;
  };
  auto hit = [&](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& qi) {
    PrimExpr h;
    for (int64_t t = 0; t < *m; ++t) {
      std::vector<PrimExpr> at = qi;
      at.push_back(i64(t));
      PrimExpr e = eq(normIndex(indices(at), data.shape()[t]), p[t]);
      h = h ? logicalAnd(h, e) : e;
    }
    return h;
  };
  auto updateAt = [&](const std::vector<PrimExpr>& qi, const std::vector<PrimExpr>& p) {
    std::vector<PrimExpr> ui = qi;
    ui.insert(ui.end(), p.begin() + *m, p.end());
    return updates(ui);
  };
  auto axes = [&]() {
    std::vector<ReduceAxis> ax;
    for (size_t d = 0; d < Q.size(); ++d)
      ax.push_back(reduceAxis(Q[d], "q" + std::to_string(d)));
    return ax;
  };
  auto vars = [](const std::vector<ReduceAxis>& ax) {
    std::vector<PrimExpr> v;
    for (auto& x : ax)
      v.push_back(x.var);
    return v;
  };
  std::vector<ReduceAxis> ax1 = axes();
  Tensor last = compute(
      data.shape(),
      [&](const std::vector<PrimExpr>& p) {
        PrimExpr h = hit(p, vars(ax1));
        PrimExpr v = select(h, linear(vars(ax1)), i64(-1));
        return ax1.empty() ? select(h, i64(0), i64(-1)) : te::max(v, ax1);
      },
      name + "_last");
  Tensor acc;
  if (r) {
    std::vector<ReduceAxis> ax2 = axes();
    acc = compute(
        data.shape(),
        [&](const std::vector<PrimExpr>& p) {
          PrimExpr v =
              select(hit(p, vars(ax2)), updateAt(vars(ax2), p), reducerIdentity(*r, data.dtype()));
          return ax2.empty() ? v : te::reduce(*r, v, ax2);
        },
        name + "_acc");
  }
  return scatterResult(
      data, last, acc, r,
      [&](const std::vector<PrimExpr>& p) {
        // Unlinearize the last hitting index tuple.
        PrimExpr lin = ir::max(last(p), i64(0));
        std::vector<PrimExpr> qi(Q.size());
        for (size_t d = Q.size(); d-- > 0;) {
          PrimExpr ext = ir::cast(DataType::Int64(), Q[d]);
          qi[d] = ir::cast(Q[d]->dtype, floormod(lin, ext));
          lin = floordiv(lin, ext);
        }
        return updateAt(qi, p);
      },
      name);
}

Tensor einsum(const std::vector<Tensor>& xs, const std::string& subscripts,
              const std::string& name) {
  op::EinsumEquation eq = op::splitEinsum(subscripts);
  if (eq.text.find('.') != std::string::npos)
    fail(name, "ellipsis ('...') is not supported");
  const std::vector<std::string>& ins = eq.inputs;
  if (ins.size() != xs.size())
    fail(name, "'" + subscripts + "' names " + std::to_string(ins.size()) + " operands, got " +
                   std::to_string(xs.size()));
  std::string out = eq.output ? *eq.output : op::implicitEinsumOutput(ins);
  std::map<char, PrimExpr> dimOf;
  std::string order; // letters by first appearance
  for (size_t i = 0; i < xs.size(); ++i) {
    requireDefined(xs[i], name, "operand");
    if (static_cast<size_t>(xs[i].ndim()) != ins[i].size())
      fail(name, "operand " + std::to_string(i) + " has rank " + std::to_string(xs[i].ndim()) +
                     " but '" + ins[i] + "' has " + std::to_string(ins[i].size()) + " letters");
    if (!(xs[i].dtype() == xs[0].dtype()))
      fail(name, "operands have different dtypes");
    for (size_t d = 0; d < ins[i].size(); ++d)
      if (!dimOf.count(ins[i][d])) {
        dimOf[ins[i][d]] = xs[i].shape()[d];
        order += ins[i][d];
      }
  }
  std::vector<PrimExpr> shape;
  for (char ch : out) {
    if (!dimOf.count(ch))
      fail(name, std::string("output letter '") + ch + "' is not an input letter");
    shape.push_back(dimOf[ch]);
  }
  std::vector<ReduceAxis> raxes;
  std::map<char, PrimExpr> reduceVar;
  for (char ch : order)
    if (out.find(ch) == std::string::npos) {
      raxes.push_back(reduceAxis(dimOf[ch], std::string("r") + ch));
      reduceVar[ch] = raxes.back().var;
    }
  return compute(
      shape,
      [&](const std::vector<PrimExpr>& i) {
        std::map<char, PrimExpr> at = reduceVar;
        for (size_t d = 0; d < out.size(); ++d)
          at[out[d]] = i[d];
        PrimExpr prod;
        for (size_t k = 0; k < xs.size(); ++k) {
          std::vector<PrimExpr> idx;
          for (char ch : ins[k])
            idx.push_back(at[ch]);
          PrimExpr v = xs[k](idx);
          prod = prod ? prod * v : v;
        }
        return raxes.empty() ? prod : te::sum(prod, raxes);
      },
      name);
}

Tensor isnan(const Tensor& x, const std::string& name) {
  requireDefined(x, name, "input");
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  return compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) { return call(DataType::Bool(), "isnan", {x(i)}); },
      name);
}

Tensor isinf(const Tensor& x, bool detectPositive, bool detectNegative, const std::string& name) {
  requireDefined(x, name, "input");
  if (!x.dtype().isFloat())
    fail(name, "needs a float input, got " + x.dtype().str());
  return compute(
      x.shape(),
      [&](const std::vector<PrimExpr>& i) {
        PrimExpr v = x(i);
        PrimExpr inf = call(DataType::Bool(), "isinf", {v});
        if (detectPositive && detectNegative)
          return inf;
        if (detectPositive)
          return logicalAnd(inf, gt(v, cst(x.dtype(), 0)));
        if (detectNegative)
          return logicalAnd(inf, lt(v, cst(x.dtype(), 0)));
        return PrimExpr(makeConst(DataType::Bool(), 0));
      },
      name);
}

} // namespace unity::te::topi
