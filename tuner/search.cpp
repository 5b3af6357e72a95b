// The search (see search.h): per-task evolutionary search over the design
// space guided by the cost model, a gradient task scheduler across tasks,
// and one committed database record per measured candidate.
#include "tuner/search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "engine/ir/structural.h"
#include "engine/schedule/schedule.h"
#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/target/target.h"
#include "engine/transform/default_schedule.h"
#include "tuner/cost_model.h"
#include "tuner/features.h"
#include "tuner/space.h"

namespace unity::tuner {

using nlohmann::json;

namespace {

/// The search state of one task beside its TaskState.
struct TaskSearch {
  explicit TaskSearch(target::SchedulePolicy p) : space(std::move(p)) {}
  DesignSpace space;
  FeatureOptions featureOptions;
  MeasureSettings settings;                 // the run's, with the task target's thread count
  std::set<std::string> measured;           // schedule keys measured (any run, any status)
  std::vector<std::pair<Point, double>> ok; // measured points with a valid latency
  std::vector<double> bestAfter;            // best latency after each trial of this run
  std::map<Point, std::optional<Candidate>> cache;
  bool baseMeasured = false;
  std::optional<TaskReference> ref;
};

/// Weight of the gradient's recent-improvement term against the optimistic one.
constexpr double kBackwardWeight = 0.2;

} // namespace

struct TuningRun::Impl {
  Impl(Database& d, TuneOptions o, Runner& r)
      : db(d), opt(std::move(o)), runner(r), rng(opt.seed) {}

  Database& db;
  TuneOptions opt;
  Runner& runner;
  int64_t runId = 0;
  int trialsDone = 0, trialsPlanned = 0;
  int trialsAtStart = 0; // done before this process started (a resumed run)
  std::vector<TaskState> states;
  std::vector<TaskSearch> searches;
  CostModel model;
  std::vector<std::vector<float>> trainX;
  std::vector<double> trainY;
  std::vector<int> trainTask;
  size_t trainedRows = 0; // rows already given to the model (update() appends)
  std::mt19937_64 rng;
  LocalBuilder referenceBuilder;

  void init(std::vector<Task> tasks, bool resuming);
  void loadRecords(size_t i, bool resuming);
  const std::optional<Candidate>& applyCached(size_t i, const Point& p);
  std::vector<double> score(size_t i, const std::vector<Candidate>& cands);
  std::vector<Candidate> pickBatch(size_t i, int n);
  std::optional<size_t> nextTask() const;
  void measureBatch(size_t i, const std::vector<Candidate>& batch, std::vector<double> predicted,
                    const std::function<void(const Progress&)>& onProgress, const Stopwatch& sw);
  Progress progress(double elapsed, int64_t lastRecord) const;
  int tunableTasks() const {
    int n = 0;
    for (auto& st : states)
      n += st.task.tunable;
    return std::max(n, 1);
  }
  void retrain();
};

void TuningRun::Impl::init(std::vector<Task> tasks, bool resuming) {
  for (auto& t : tasks) {
    TaskState st;
    st.task = std::move(t);
    st.workloadId = db.addWorkload(st.task.hash, workloadText(st.task.workload), st.task.flops);
    st.targetId = db.addTarget(st.task.target);
    auto policy = transform::schedulePolicyFor(target::Target::parse(st.task.target));
    TaskSearch ts(policy);
    ts.featureOptions.cores = policy.cores;
    ts.featureOptions.symbolicExtent = opt.measure.symbolicExtent;
    ts.settings = opt.measure;
    ts.settings.threads = policy.parallelize ? std::max(1, policy.cores) : 1;
    states.push_back(std::move(st));
    searches.push_back(std::move(ts));
  }
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].task.tunable)
      loadRecords(i, resuming);
  retrain();
}

/// What earlier records of the task's (workload, target) teach: which
/// schedules were measured (never again), the best so far, the model's
/// training rows; for the resumed run its own trials and errors.
void TuningRun::Impl::loadRecords(size_t i, bool resuming) {
  TaskState& st = states[i];
  TaskSearch& ts = searches[i];
  for (const Record& r : db.records(st.workloadId, st.targetId)) {
    ir::PrimFuncRef scheduled;
    try {
      scheduled =
          schedule::Schedule::replay(st.task.workload, schedule::Trace::fromJson(r.trace)).func();
    } catch (const Error&) {
      continue; // a record of an older trace format or a foreign tool
    }
    ts.measured.insert(ir::structuralHashHex(scheduled));
    bool mine = resuming && r.runId && *r.runId == runId;
    if (mine) {
      ++st.trials;
      if (r.status != RecordStatus::Ok)
        ++st.errors;
    }
    std::optional<Point> p;
    try {
      p = ts.space.fromDecisions(r.decisions);
    } catch (const Error&) {
    }
    if (p && *p == ts.space.basePoint())
      ts.baseMeasured = true;
    if (r.status != RecordStatus::Ok || !r.meanS)
      continue;
    double s = *r.meanS;
    if (p) {
      ts.ok.emplace_back(*p, s);
      if (*p == ts.space.basePoint())
        st.defaultSeconds = s;
    }
    if (st.bestSeconds == 0 || s < st.bestSeconds) {
      st.bestSeconds = s;
      st.bestRecord = r.id;
    }
    if (mine)
      ts.bestAfter.push_back(st.bestSeconds);
    trainX.push_back(extractFeatures(scheduled, ts.featureOptions));
    trainY.push_back(s);
    trainTask.push_back(int(i));
  }
}

const std::optional<Candidate>& TuningRun::Impl::applyCached(size_t i, const Point& p) {
  TaskSearch& ts = searches[i];
  auto it = ts.cache.find(p);
  if (it == ts.cache.end())
    it = ts.cache.emplace(p, ts.space.apply(states[i].task.workload, p)).first;
  return it->second;
}

std::vector<double> TuningRun::Impl::score(size_t i, const std::vector<Candidate>& cands) {
  if (!model.trained() || cands.empty())
    return std::vector<double>(cands.size(), 0.0);
  std::vector<std::vector<float>> x;
  x.reserve(cands.size());
  for (auto& c : cands)
    x.push_back(extractFeatures(c.scheduled, searches[i].featureOptions));
  return model.predict(x);
}

std::vector<Candidate> TuningRun::Impl::pickBatch(size_t i, int n) {
  TaskSearch& ts = searches[i];
  std::vector<Candidate> pool;
  std::set<std::string> inPool;
  auto consider = [&](const Point& p) {
    const auto& c = applyCached(i, p);
    if (c && !ts.measured.count(c->key) && inPool.insert(c->key).second)
      pool.push_back(*c);
  };
  std::vector<Candidate> batch;
  if (!ts.baseMeasured) {
    consider(ts.space.basePoint());
    if (!pool.empty()) {
      batch.push_back(pool.back());
      pool.pop_back();
    }
  }
  std::vector<std::pair<Point, double>> seeds = ts.ok;
  std::sort(seeds.begin(), seeds.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (seeds.size() > 8)
    seeds.resize(8);
  for (int k = 0; k < opt.population; ++k) {
    if (!seeds.empty() && rng() % 2 == 0)
      consider(ts.space.mutate(seeds[rng() % seeds.size()].first, rng));
    else
      consider(ts.space.sample(rng));
  }
  std::vector<double> scores = score(i, pool);
  for (int g = 0; g < opt.generations && !pool.empty(); ++g) {
    std::vector<size_t> order(pool.size());
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    size_t before = pool.size();
    for (size_t k = 0; k < std::min<size_t>(order.size(), 16); ++k)
      for (int m = 0; m < 3; ++m)
        consider(ts.space.mutate(pool[order[k]].point, rng));
    std::vector<Candidate> fresh(pool.begin() + long(before), pool.end());
    auto more = score(i, fresh);
    scores.insert(scores.end(), more.begin(), more.end());
  }
  std::vector<size_t> order(pool.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::vector<bool> taken(pool.size(), false);
  size_t next = 0;
  std::uniform_real_distribution<double> u(0, 1);
  while (int(batch.size()) < n) {
    while (next < order.size() && taken[order[next]])
      ++next;
    if (next == order.size())
      break;
    size_t pick = order[next];
    if (u(rng) < opt.epsilon) { // explore: any candidate not taken yet
      std::vector<size_t> free;
      for (size_t k = 0; k < pool.size(); ++k)
        if (!taken[k])
          free.push_back(k);
      pick = free[rng() % free.size()];
    }
    taken[pick] = true;
    batch.push_back(pool[pick]);
  }
  return batch;
}

std::optional<size_t> TuningRun::Impl::nextTask() const {
  std::optional<size_t> best;
  double bestGrad = -1;
  for (size_t i = 0; i < states.size(); ++i) {
    const TaskState& st = states[i];
    if (!st.task.tunable || st.exhausted)
      continue;
    const auto& h = searches[i].bestAfter;
    if (st.trials == 0 || h.empty() || h.back() == 0)
      return i; // warm-up: every task gets a first batch
    size_t t = h.size();
    size_t window = std::min<size_t>(t - 1, size_t(opt.batchSize));
    double back = window == 0 ? 0 : (h[t - 1 - window] - h[t - 1]) / double(window);
    double forward = h.back() / double(st.trials);
    double grad =
        std::max(st.task.weight, 1) * (kBackwardWeight * back + (1 - kBackwardWeight) * forward);
    if (grad > bestGrad) {
      bestGrad = grad;
      best = i;
    }
  }
  return best;
}

Progress TuningRun::Impl::progress(double elapsed, int64_t lastRecord) const {
  Progress p;
  p.runId = runId;
  p.trialsDone = trialsDone;
  p.trialsPlanned = trialsPlanned;
  p.elapsedSeconds = elapsed;
  p.tasks = &states;
  p.lastRecord = lastRecord;
  for (auto& st : states) {
    p.modelSeconds += std::max(st.task.weight, 0) * st.bestSeconds;
    p.defaultModelSeconds += std::max(st.task.weight, 0) * st.defaultSeconds;
  }
  int doneHere = trialsDone - trialsAtStart; // elapsed counts this process only
  double perTrial = doneHere > 0 ? elapsed / doneHere : 0;
  p.etaSeconds = perTrial * std::max(0, trialsPlanned - trialsDone);
  if (opt.timeBudgetSeconds > 0)
    p.etaSeconds = std::min(p.etaSeconds, std::max(0.0, opt.timeBudgetSeconds - elapsed));
  return p;
}

void TuningRun::Impl::retrain() {
  if (trainX.size() < 4 || trainX.size() == trainedRows)
    return;
  auto from = [&](auto& v) {
    return std::vector<typename std::decay_t<decltype(v)>::value_type>(
        v.begin() + long(trainedRows), v.end());
  };
  model.update(from(trainX), from(trainY), from(trainTask));
  trainedRows = trainX.size();
}

void TuningRun::Impl::measureBatch(size_t i, const std::vector<Candidate>& batch,
                                   std::vector<double> predicted,
                                   const std::function<void(const Progress&)>& onProgress,
                                   const Stopwatch& sw) {
  TaskState& st = states[i];
  TaskSearch& ts = searches[i];
  std::vector<MeasureJob> jobs;
  for (auto& c : batch)
    jobs.push_back({st.task.workload, st.task.target, c.trace});
  runner.run(jobs, *ts.ref, ts.settings, [&](size_t k, const MeasureResult& res) {
    const Candidate& c = batch[k];
    Record r;
    r.workloadId = st.workloadId;
    r.targetId = st.targetId;
    r.runId = runId;
    r.trial = trialsDone;
    r.trace = c.trace.toJson();
    r.decisions = ts.space.decisions(c.point);
    r.times = res.times;
    r.status = res.status;
    r.errorKind = res.errorKind;
    r.errorMessage = res.errorMessage;
    r.buildS = res.buildSeconds;
    r.node = res.node;
    if (k < predicted.size() && predicted[k] > 0)
      r.predictedS = predicted[k];
    if (res.status == RecordStatus::Ok && !res.times.empty())
      r.meanS = res.meanSeconds();
    int64_t id = db.addRecord(r);
    ts.measured.insert(c.key);
    ++st.trials;
    ++trialsDone;
    if (res.status != RecordStatus::Ok) {
      ++st.errors;
    } else {
      double s = *r.meanS;
      ts.ok.emplace_back(c.point, s);
      if (c.point == ts.space.basePoint())
        st.defaultSeconds = s;
      if (st.bestSeconds == 0 || s < st.bestSeconds) {
        st.bestSeconds = s;
        st.bestRecord = id;
      }
      trainX.push_back(extractFeatures(c.scheduled, ts.featureOptions));
      trainY.push_back(s);
      trainTask.push_back(int(i));
    }
    if (c.point == ts.space.basePoint())
      ts.baseMeasured = true;
    ts.bestAfter.push_back(st.bestSeconds);
    db.updateRunProgress(runId, trialsDone);
    if (onProgress)
      onProgress(progress(sw.wallSeconds(), id));
  });
}

TuningRun::TuningRun(Database& db, std::vector<Task> tasks, TuneOptions options, Runner& runner,
                     json config)
    : impl_(std::make_unique<Impl>(db, std::move(options), runner)) {
  impl_->trialsPlanned = impl_->opt.trials;
  impl_->runId = db.startRun(config, impl_->opt.trials, impl_->opt.process);
  impl_->init(std::move(tasks), false);
}

TuningRun::TuningRun(Database& db, int64_t runId, std::vector<Task> tasks, TuneOptions options,
                     Runner& runner)
    : impl_(std::make_unique<Impl>(db, std::move(options), runner)) {
  auto run = db.run(runId);
  if (!run)
    throw Error("tuning database '" + db.path() + "' has no run " + std::to_string(runId));
  impl_->runId = runId;
  impl_->trialsPlanned = int(run->trialsPlanned);
  impl_->trialsDone = int(db.recordsOfRun(runId).size());
  impl_->trialsAtStart = impl_->trialsDone;
  impl_->rng.seed(impl_->opt.seed + uint64_t(impl_->trialsDone)); // not the same draws again
  db.reopenRun(runId, impl_->opt.process);
  impl_->init(std::move(tasks), true);
}

TuningRun::~TuningRun() = default;

int64_t TuningRun::runId() const { return impl_->runId; }
const std::vector<TaskState>& TuningRun::tasks() const { return impl_->states; }

void TuningRun::run(const std::function<void(const Progress&)>& onProgress,
                    const std::atomic<bool>* cancel) {
  Impl& im = *impl_;
  Stopwatch sw;
  bool cancelled = false;
  try {
    im.runner.beginRun(im.runId);
    im.runner.setCancelFlag(cancel);
    while (im.trialsDone < im.trialsPlanned) {
      if (cancel && cancel->load()) {
        cancelled = true;
        break;
      }
      if (im.opt.timeBudgetSeconds > 0 && sw.wallSeconds() >= im.opt.timeBudgetSeconds)
        break;
      auto i = im.nextTask();
      if (!i)
        break;
      TaskState& st = im.states[*i];
      TaskSearch& ts = im.searches[*i];
      if (!ts.ref && im.runner.measuresRemotely()) {
        ts.ref = TaskReference{}; // the workers build theirs, on their nodes
      } else if (!ts.ref) {
        try {
          ts.ref =
              makeReference(st.task.workload, st.task.target,
                            std::hash<std::string>{}(st.task.hash) ^ im.opt.seed,
                            im.referenceBuilder, ts.settings.threads, ts.settings.symbolicExtent);
        } catch (const std::exception& e) {
          st.task.tunable = false;
          st.task.whyNotTunable = std::string("the untuned kernel does not run: ") + e.what();
          continue;
        }
      }
      // A task's first batch is small when there are many tasks, so every
      // task's default schedule is measured early (the gradient needs a
      // baseline everywhere) and half the trials at most go to warm-up.
      int n = std::min(im.opt.batchSize, im.trialsPlanned - im.trialsDone);
      if (st.trials == 0)
        n = std::min(n, std::max(1, im.trialsPlanned / (2 * im.tunableTasks())));
      auto batch = im.pickBatch(*i, n);
      if (batch.empty()) {
        st.exhausted = true;
        continue;
      }
      auto predicted = im.score(*i, batch);
      // Scores are relative throughputs; the model's latency guess for the
      // record is the task's best divided by it.
      for (auto& p : predicted)
        p = (p > 0 && st.bestSeconds > 0) ? st.bestSeconds / p : 0;
      im.measureBatch(*i, batch, predicted, onProgress, sw);
      im.retrain();
    }
  } catch (...) {
    im.db.finishRun(im.runId, RunStatus::Failed);
    throw;
  }
  im.db.finishRun(im.runId, cancelled ? RunStatus::Cancelled : RunStatus::Finished);
  if (onProgress) {
    Progress last = im.progress(sw.wallSeconds(), 0);
    last.finished = true;
    onProgress(last);
  }
}

} // namespace unity::tuner
