#pragma once
// The learned cost model that guides the search: an XGBoost regressor
// (Debian's libxgboost, through its C API) from a candidate's features
// (features.h) to a score, higher = faster.
//
// What it predicts. The score is the candidate's normalized throughput,
// min latency in its task / its latency, in (0, 1]: 1 for the task's best
// measured candidate, 0.5 for one twice as slow. As in MetaSchedule, the
// normalization makes tasks of very different sizes share one model (a
// matmul's 1 ms and an add's 10 us both become "how close to the best seen
// for this task"), and it spends the model's accuracy where the search
// needs it: telling good candidates apart, not ranking the hopeless ones.
// The loss is plain squared error. MetaSchedule also weights the error by
// the target (an error near the best costs more); on our synthetic ranking
// checks (tests/tuner/cost_model_test.cpp, 144 tiled matmuls, five
// held-out splits) that weighting picked the same best candidates and
// ranked all pairs worse (pairwise accuracy 0.80-0.93 against 0.96-0.98),
// so it is left out. Scores are comparable within one task; predicted
// latency = the task's best measured latency / score.
//
// Training. update() appends the given rows to the model's training set and
// retrains from scratch on all of it (the normalization changes whenever a
// task finds a new best, so old trees would aim at stale targets). The
// number of boosting rounds is fixed (Options::rounds, 80 by default) and
// the histogram tree method with 64 bins is used: a retrain on 3,000 rows of
// 100 features takes about 0.35 s of CPU on one thread here (features with
// few distinct values, as ours mostly are, take less); beyond
// Options::maxRows the oldest rows are dropped. Training is deterministic:
// no row or column subsampling, a fixed seed.
//
// Failed candidates are not training rows: they have no latency (the search
// remembers them so it does not measure them again). update() refuses
// non-positive or non-finite latencies.
//
// Before the first update() the model is untrained and predict() returns
// zeros, so the search's choice among candidates is then random.
//
// Not thread-safe: one thread at a time per CostModel.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace unity::tuner {

class CostModel {
public:
  struct Options {
    int rounds = 80;        // boosting rounds per retrain
    int maxDepth = 6;       // tree depth
    double eta = 0.2;       // learning rate
    int maxBin = 64;        // histogram bins per feature
    int threads = 1;        // XGBoost threads (measurements need the other cores)
    size_t maxRows = 20000; // training rows kept (the newest)
    unsigned seed = 0;
    /// Passed to XGBoosterSetParam after the above (name, value).
    std::vector<std::pair<std::string, std::string>> extraParams;
  };

  CostModel();
  explicit CostModel(Options options);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  /// Adds measured candidates (features, mean latency in seconds, task id:
  /// any integer naming the tuning task, e.g. the workload's database id)
  /// and retrains. The three vectors have one entry per candidate; every
  /// feature vector has the same length (fixed by the first update). An
  /// empty update does nothing. Throws unity::Error on bad input or when
  /// XGBoost fails (with XGBoost's message); the model keeps its previous
  /// state then.
  void update(const std::vector<std::vector<float>>& feats, const std::vector<double>& seconds,
              const std::vector<int>& taskIds);

  /// One score per row, higher = faster (normalized throughput, see above);
  /// zeros while untrained. Throws unity::Error when a row's length differs
  /// from the training rows'.
  std::vector<double> predict(const std::vector<std::vector<float>>& feats) const;

  bool trained() const;
  /// Rows in the training set.
  size_t rows() const;
  /// The feature length the model was trained with (0 while untrained).
  size_t featureLength() const;

  /// Writes the trained booster to a file (XGBoost's JSON model format
  /// when the name ends in .json). Throws unity::Error when untrained or
  /// on failure. The training rows are not saved: a loaded model predicts,
  /// and its next update() trains on the rows given from then on.
  void save(const std::string& path) const;
  /// Replaces the booster with one read from a file saved by save()
  /// (the training rows are cleared); throws unity::Error naming the file
  /// when it is not an XGBoost model, and keeps the previous state then.
  void load(const std::string& path);

  /// XGBoost's version, "major.minor.patch".
  static std::string xgboostVersion();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace unity::tuner
