// The XGBoost cost model (see cost_model.h). Every XGBoost call goes
// through check(), which turns a failure into a unity::Error carrying
// XGBGetLastError(); handles are owned by small RAII wrappers so that an
// error halfway through a retrain frees what it made and leaves the model
// as it was (the new booster and rows replace the old ones only at the end).
#include "tuner/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "engine/support/error.h"

namespace unity::tuner {

namespace {

void check(int rc, const char* call, const std::string& what) {
  if (rc != 0) {
    const char* msg = XGBGetLastError();
    throw Error("cost model: " + what + ": XGBoost " + call +
                " failed: " + (msg && *msg ? msg : "no message"));
  }
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  DMatrix() = default;
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  ~DMatrix() {
    if (h)
      XGDMatrixFree(h);
  }
};

struct Booster {
  BoosterHandle h = nullptr;
  Booster() = default;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  Booster(Booster&& o) noexcept : h(o.h) { o.h = nullptr; }
  Booster& operator=(Booster&& o) noexcept {
    std::swap(h, o.h);
    return *this;
  }
  ~Booster() {
    if (h)
      XGBoosterFree(h);
  }
};

/// A dense matrix (NaN = missing) from rows of one length.
void makeMatrix(DMatrix& m, const float* data, size_t rows, size_t cols, const std::string& what) {
  check(XGDMatrixCreateFromMat(data, rows, cols, std::nanf(""), &m.h), "XGDMatrixCreateFromMat",
        what);
}

void setParam(BoosterHandle b, const std::string& name, const std::string& value,
              const std::string& what) {
  check(XGBoosterSetParam(b, name.c_str(), value.c_str()), "XGBoosterSetParam", what);
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

} // namespace

struct CostModel::Impl {
  Options opt;
  Booster booster;
  size_t nfeat = 0;     // feature length (0 while untrained)
  std::vector<float> x; // training rows, row-major, rows() x nfeat
  std::vector<double> seconds;
  std::vector<int> tasks;

  /// The booster's threads and quietness (after create and after load).
  void baseParams(BoosterHandle b, const std::string& what) const {
    setParam(b, "nthread", std::to_string(std::max(1, opt.threads)), what);
    setParam(b, "verbosity", "0", what);
  }

  void checkRows(const std::vector<std::vector<float>>& feats, size_t len,
                 const std::string& what) const {
    for (size_t i = 0; i < feats.size(); ++i)
      if (feats[i].size() != len)
        throw Error("cost model: " + what + ": row " + std::to_string(i) + " has " +
                    std::to_string(feats[i].size()) + " features, expected " + std::to_string(len));
  }
};

CostModel::CostModel() : CostModel(Options{}) {}

CostModel::CostModel(Options options) : impl_(std::make_unique<Impl>()) {
  if (options.rounds < 1 || options.maxDepth < 1 || !(options.eta > 0) || options.maxBin < 2 ||
      options.maxRows < 1)
    throw Error(
        "cost model: rounds, maxDepth, eta and maxRows must be positive, maxBin at least 2");
  impl_->opt = std::move(options);
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

void CostModel::update(const std::vector<std::vector<float>>& feats,
                       const std::vector<double>& seconds, const std::vector<int>& taskIds) {
  const std::string what = "update";
  if (feats.size() != seconds.size() || feats.size() != taskIds.size())
    throw Error("cost model: update: " + std::to_string(feats.size()) + " feature rows, " +
                std::to_string(seconds.size()) + " latencies and " +
                std::to_string(taskIds.size()) + " task ids; they must match");
  if (feats.empty())
    return;
  auto& m = *impl_;
  size_t len = m.nfeat ? m.nfeat : feats[0].size();
  if (len == 0)
    throw Error("cost model: update: empty feature rows");
  m.checkRows(feats, len, what);
  for (size_t i = 0; i < seconds.size(); ++i)
    if (!std::isfinite(seconds[i]) || seconds[i] <= 0)
      throw Error("cost model: update: row " + std::to_string(i) + " has latency " +
                  fmt(seconds[i]) + " s; failed candidates are not training rows");

  // The new training set: the old rows, the new ones, the newest maxRows.
  std::vector<float> x = m.x;
  std::vector<double> secs = m.seconds;
  std::vector<int> tasks = m.tasks;
  for (size_t i = 0; i < feats.size(); ++i) {
    x.insert(x.end(), feats[i].begin(), feats[i].end());
    secs.push_back(seconds[i]);
    tasks.push_back(taskIds[i]);
  }
  if (secs.size() > m.opt.maxRows) {
    size_t drop = secs.size() - m.opt.maxRows;
    x.erase(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(drop * len));
    secs.erase(secs.begin(), secs.begin() + static_cast<std::ptrdiff_t>(drop));
    tasks.erase(tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  size_t rows = secs.size();

  // Targets: normalized throughput in each task.
  std::unordered_map<int, double> best;
  for (size_t i = 0; i < rows; ++i) {
    auto [it, fresh] = best.emplace(tasks[i], secs[i]);
    if (!fresh)
      it->second = std::min(it->second, secs[i]);
  }
  std::vector<float> label(rows);
  for (size_t i = 0; i < rows; ++i)
    label[i] = static_cast<float>(best[tasks[i]] / secs[i]);

  DMatrix d;
  makeMatrix(d, x.data(), rows, len, what);
  check(XGDMatrixSetFloatInfo(d.h, "label", label.data(), rows), "XGDMatrixSetFloatInfo", what);
  Booster b;
  check(XGBoosterCreate(&d.h, 1, &b.h), "XGBoosterCreate", what);
  m.baseParams(b.h, what);
  setParam(b.h, "objective", "reg:squarederror", what);
  setParam(b.h, "tree_method", "hist", what);
  setParam(b.h, "max_depth", std::to_string(m.opt.maxDepth), what);
  setParam(b.h, "eta", fmt(m.opt.eta), what);
  setParam(b.h, "max_bin", std::to_string(m.opt.maxBin), what);
  setParam(b.h, "min_child_weight", "0", what);
  setParam(b.h, "base_score", "0.5", what);
  setParam(b.h, "seed", std::to_string(m.opt.seed), what);
  for (auto& [k, v] : m.opt.extraParams)
    setParam(b.h, k, v, what);
  for (int it = 0; it < m.opt.rounds; ++it)
    check(XGBoosterUpdateOneIter(b.h, it, d.h), "XGBoosterUpdateOneIter", what);

  m.booster = std::move(b);
  m.nfeat = len;
  m.x = std::move(x);
  m.seconds = std::move(secs);
  m.tasks = std::move(tasks);
}

std::vector<double> CostModel::predict(const std::vector<std::vector<float>>& feats) const {
  auto& m = *impl_;
  if (!trained())
    return std::vector<double>(feats.size(), 0.0);
  m.checkRows(feats, m.nfeat, "predict");
  if (feats.empty())
    return {};
  std::vector<float> x;
  x.reserve(feats.size() * m.nfeat);
  for (auto& r : feats)
    x.insert(x.end(), r.begin(), r.end());
  DMatrix d;
  makeMatrix(d, x.data(), feats.size(), m.nfeat, "predict");
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(m.booster.h, d.h, 0, 0, 0, &len, &out), "XGBoosterPredict", "predict");
  if (len != feats.size())
    throw Error("cost model: predict: XGBoost returned " + std::to_string(len) +
                " predictions for " + std::to_string(feats.size()) + " rows");
  return std::vector<double>(out, out + len);
}

bool CostModel::trained() const { return impl_->booster.h != nullptr; }
size_t CostModel::rows() const { return impl_->seconds.size(); }
size_t CostModel::featureLength() const { return impl_->nfeat; }

void CostModel::save(const std::string& path) const {
  if (!trained())
    throw Error("cost model: save '" + path + "': the model is not trained");
  check(XGBoosterSaveModel(impl_->booster.h, path.c_str()), "XGBoosterSaveModel",
        "save '" + path + "'");
}

void CostModel::load(const std::string& path) {
  const std::string what = "load '" + path + "'";
  Booster b;
  check(XGBoosterCreate(nullptr, 0, &b.h), "XGBoosterCreate", what);
  check(XGBoosterLoadModel(b.h, path.c_str()), "XGBoosterLoadModel", what);
  bst_ulong n = 0;
  check(XGBoosterGetNumFeature(b.h, &n), "XGBoosterGetNumFeature", what);
  if (n == 0)
    throw Error("cost model: " + what + ": the model has no features");
  impl_->baseParams(b.h, what);
  auto& m = *impl_;
  m.booster = std::move(b);
  m.nfeat = n;
  m.x.clear();
  m.seconds.clear();
  m.tasks.clear();
}

std::string CostModel::xgboostVersion() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

} // namespace unity::tuner
