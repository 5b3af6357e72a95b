#include "views/chunked_builder.h"

#include <algorithm>

namespace lowerscope {

ChunkedBuilder::ChunkedBuilder(QObject* parent) : QObject(parent) {
  timer_.setSingleShot(true);
  timer_.setInterval(0);
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (!paused_)
      continueRun();
  });
}

void ChunkedBuilder::continueRun() {
  const unsigned run = generation_;
  if (runSlice(false))
    finish();
  else if (generation_ == run && !paused_)
    timer_.start();
}

void ChunkedBuilder::setPaused(bool paused) {
  paused_ = paused;
  if (paused_)
    timer_.stop();
  else if (running_)
    timer_.start();
}

void ChunkedBuilder::step() {
  if (running_)
    continueRun();
}

void ChunkedBuilder::addPhase(size_t count, std::function<void(size_t)> job) {
  if (running_ || count == 0)
    return;
  phases_.push_back({count, std::move(job)});
  total_ += count;
}

void ChunkedBuilder::start() {
  if (running_)
    return;
  running_ = true;
  ++generation_;
  slices_ = 0;
  longestSliceMs_ = 0;
  if (!paused_)
    continueRun();
}

void ChunkedBuilder::runAll() {
  if (running_)
    return;
  running_ = true;
  ++generation_;
  slices_ = 0;
  longestSliceMs_ = 0;
  const unsigned run = generation_;
  runSlice(true);
  if (generation_ == run)
    finish();
}

void ChunkedBuilder::cancel() {
  ++generation_;
  timer_.stop();
  running_ = false;
  phases_.clear();
  phase_ = next_ = total_ = done_ = 0;
}

bool ChunkedBuilder::runSlice(bool unbounded) {
  QElapsedTimer clock;
  clock.start();
  const qint64 budgetNs = static_cast<qint64>(budgetMs_ * 1e6);
  ++slices_;
  size_t jobs = 0;

  while (phase_ < phases_.size()) {
    Phase& p = phases_[phase_];
    if (next_ >= p.count) {
      ++phase_;
      next_ = 0;
      continue;
    }
    // A job may cancel() (and even restart) this builder: take what it
    // needs first and stop if the run it belongs to is gone.
    const size_t i = next_++;
    const unsigned run = generation_;
    p.job(i);
    if (generation_ != run)
      return false;
    ++done_;
    ++jobs;
    // The clock is read after every job (tens of ns against a job's tens
    // of us) so that a slice ends within one job of its budget.
    if (!unbounded &&
        (clock.nsecsElapsed() >= budgetNs || (maxJobsPerSlice_ > 0 && jobs >= maxJobsPerSlice_)))
      break;
  }
  longestSliceMs_ = std::max(longestSliceMs_, clock.nsecsElapsed() / 1e6);
  return phase_ >= phases_.size();
}

void ChunkedBuilder::finish() {
  if (!running_)
    return;
  running_ = false;
  phases_.clear();
  phase_ = next_ = 0;
  Q_EMIT finished();
}

} // namespace lowerscope
