// ONNX TfIdfVectorizer over integer tokens (pool_int64s), composed from
// slices, comparisons and a constant mapping matrix.
//
// The pool holds the n-grams grouped by length (ngram_counts[i] is where the
// (i+1)-grams start); ngram_indexes gives each pooled n-gram's output
// column. For every length n in [min_gram_length, max_gram_length] and every
// stride s = skip + 1 (skip in [0, max_skip_count]; unigrams once), the
// windows X[:, i], X[:, i + s], ..., X[:, i + (n-1)s] over the valid starts i
// are compared with the pool's n-grams of that length: n slices of X, each
// (N, L, 1) == tokens (G) -> (N, L, G), and-ed, summed over L. The counts
// (N, G_total) become the output (N, columns) through a constant one-hot
// matrix (so two n-grams sharing a column add up). Mode TF gives counts, IDF
// weight where the count is positive, TFIDF count * weight. This is the
// counting of ONNX Runtime's kernel (n-grams never cross rows of a 2-D
// input). String pools are not supported (nor are string tensors).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/frontend/onnx_convert.h"

namespace unity::frontend::detail {

using namespace ir;

namespace {

void convertTfIdf(NodeContext& c) {
  if (c.hasAttr("pool_strings"))
    c.unsupported("pool_strings is not supported (string tensors are not)");
  int rank = c.rank(0);
  if (rank != 1 && rank != 2)
    c.unsupported("input must be 1-D or 2-D");
  DataType it = c.dtype(0);
  if (!it.isInt())
    c.unsupported("input must be int32 or int64 tokens");
  auto xs = c.staticShape(0, "TfIdfVectorizer");
  int64_t len = xs.back();
  int64_t minN = c.attrInt("min_gram_length", 1), maxN = c.attrInt("max_gram_length", 1);
  int64_t maxSkip = c.attrInt("max_skip_count", 0);
  std::string mode = c.attrString("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    c.unsupported("mode='" + mode + "'");
  auto pool = c.attrInts("pool_int64s");
  auto starts = c.attrInts("ngram_counts");
  auto columns = c.attrInts("ngram_indexes");
  auto weights = c.attrFloats("weights");
  if (minN < 1 || maxN < minN || maxSkip < 0)
    c.unsupported("gram lengths / max_skip_count are out of range");
  // The pool's n-grams per length.
  std::vector<std::vector<std::vector<int64_t>>> grams; // [n-1][g][token]
  size_t total = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t n = static_cast<int64_t>(i) + 1;
    int64_t b = starts[i];
    int64_t e = i + 1 < starts.size() ? starts[i + 1] : static_cast<int64_t>(pool.size());
    if (b < 0 || e < b || e > static_cast<int64_t>(pool.size()) || (e - b) % n != 0)
      c.unsupported("ngram_counts does not split pool_int64s into whole n-grams");
    std::vector<std::vector<int64_t>> g;
    for (int64_t k = b; k < e; k += n)
      g.emplace_back(pool.begin() + k, pool.begin() + k + n);
    total += g.size();
    grams.push_back(std::move(g));
  }
  if (total == 0)
    c.unsupported("pool_int64s holds no n-gram");
  if (columns.size() != total)
    c.unsupported("ngram_indexes must have one entry per pooled n-gram");
  if (!weights.empty() && weights.size() != total)
    c.unsupported("weights must have one entry per pooled n-gram");
  int64_t width = 0;
  for (auto col : columns) {
    if (col < 0)
      c.unsupported("ngram_indexes must be non-negative");
    width = std::max(width, col + 1);
  }

  Value x = c.in(0);
  if (rank == 1)
    x = c.op("expand_dims", {x.expr}, {{"axis", std::vector<int64_t>{0}}});
  PrimExpr batch = rank == 1 ? intImm(1) : intImm(xs[0]);
  DataType ft = DataType::Float(32);
  std::vector<Value> perLength; // (N, G_n) float counts, in pool order
  for (size_t ni = 0; ni < grams.size(); ++ni) {
    int64_t n = static_cast<int64_t>(ni) + 1;
    const auto& g = grams[ni];
    int64_t gn = static_cast<int64_t>(g.size());
    Value counts =
        c.op("broadcast_to", {NodeContext::scalar(0, ft).expr,
                              make<ShapeExpr>(std::vector<PrimExpr>{batch, intImm(gn)})});
    if (gn > 0 && n >= minN && n <= maxN) {
      for (int64_t s = 1; s <= (n == 1 ? 1 : maxSkip + 1); ++s) {
        int64_t span = (n - 1) * s, windows = len - span;
        if (windows <= 0)
          break;
        std::optional<Value> match;
        for (int64_t j = 0; j < n; ++j) {
          Value col = c.op("strided_slice", {x.expr},
                           {{"axes", std::vector<int64_t>{1}},
                            {"begin", std::vector<int64_t>{j * s}},
                            {"end", std::vector<int64_t>{j * s + windows}}});
          col = c.op("expand_dims", {col.expr}, {{"axis", std::vector<int64_t>{2}}});
          Tensor tok(it, {gn});
          for (int64_t k = 0; k < gn; ++k)
            setIntAt(tok, k, g[k][j]);
          Value eq = c.op("equal", {col.expr, NodeContext::constant(std::move(tok)).expr});
          match = match ? c.op("logical_and", {match->expr, eq.expr}) : eq;
        }
        Value m = c.op("astype", {match->expr}, {{"dtype", ft}});
        m = c.op("sum", {m.expr}, {{"axis", std::vector<int64_t>{1}}, {"keepdims", false}});
        counts = c.op("add", {counts.expr, m.expr});
      }
    }
    perLength.push_back(counts);
  }
  std::vector<Expr> fields;
  std::vector<StructInfo> infos;
  for (auto& v : perLength) {
    fields.push_back(v.expr);
    infos.push_back(v.sinfo);
  }
  Value counts = perLength.size() == 1 ? perLength[0]
                                       : c.op("concat", {make<Tuple>(fields, tupleSInfo(infos))},
                                              {{"axis", int64_t(1)}});
  if (mode != "TF" || !weights.empty()) {
    Tensor w(ft, {static_cast<int64_t>(total)});
    for (size_t i = 0; i < total; ++i)
      w.setDouble(static_cast<int64_t>(i), weights.empty() ? 1.0 : weights[i]);
    Value wv = NodeContext::constant(std::move(w));
    if (mode == "IDF") {
      Value pos = c.op("greater", {counts.expr, NodeContext::scalar(0, ft).expr});
      counts = c.op("where", {pos.expr, wv.expr, NodeContext::scalar(0, ft).expr});
    } else if (mode == "TFIDF") {
      counts = c.op("multiply", {counts.expr, wv.expr});
    }
  }
  c.checkTableSize(double(total) * double(width), "the n-gram to column map");
  Tensor map(ft, {static_cast<int64_t>(total), width});
  for (size_t i = 0; i < total; ++i)
    map.setDouble(static_cast<int64_t>(i) * width + columns[i], 1.0);
  Value y = c.op("matmul", {counts.expr, NodeContext::constant(std::move(map)).expr});
  if (rank == 1)
    y = c.op("squeeze", {y.expr}, {{"axis", std::vector<int64_t>{0}}});
  c.output(0, y);
}

} // namespace

void addTextConverters(ConverterTable& t) {
  t["TfIdfVectorizer"] = {convertTfIdf,
                          {"max_gram_length", "max_skip_count", "min_gram_length", "mode",
                           "ngram_counts", "ngram_indexes", "pool_int64s", "pool_strings",
                           "weights"}};
}

} // namespace unity::frontend::detail
