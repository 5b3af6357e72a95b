#pragma once
// Runs a long series of small jobs on the UI thread in time slices.
//
// Building the scene of a 5,000-node graph means ~20,000 graphics items:
// created in one go they freeze the window for a second or more. A
// ChunkedBuilder holds the work as phases of indexed jobs (job(i) for i in
// [0, count)), runs jobs until a slice has used its budget (10 ms by
// default), then yields to the event loop through a zero-timeout timer and
// continues on the next turn — input, paints and timers run in between, so
// the UI never waits longer than about one slice. Phases run in the order
// they were added; finished() is emitted once, after the last job. cancel()
// drops what is left (a newer redraw replaces an unfinished one).
//
// Tests need to see a run in progress whatever the machine's speed, so the
// slicing can also be driven by hand: setMaxJobsPerSlice() ends a slice
// after a number of jobs as well as after the time budget, and while
// setPaused(true) holds, no slice runs from the event loop (start() only
// arms the run) and step() runs one slice when the test says so.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <cstddef>
#include <functional>
#include <vector>

namespace lowerscope {

class ChunkedBuilder : public QObject {
  Q_OBJECT
public:
  explicit ChunkedBuilder(QObject* parent = nullptr);

  void setBudgetMs(double ms) { budgetMs_ = ms; }
  double budgetMs() const { return budgetMs_; }
  /// A slice also ends after this many jobs (0: no limit, the default).
  void setMaxJobsPerSlice(size_t jobs) { maxJobsPerSlice_ = jobs; }
  /// While paused, slices run only through step(); unpausing continues a
  /// started run from the event loop. runAll() is not affected.
  void setPaused(bool paused);
  bool paused() const { return paused_; }
  /// Runs one slice of a started run now (paused or not).
  void step();
  /// Appends a phase of `count` jobs. Not while running.
  void addPhase(size_t count, std::function<void(size_t)> job);
  /// Runs the first slice now and the rest from the event loop.
  void start();
  /// Runs every job now, in one go (small scenes: no point in slicing).
  void runAll();
  /// Drops the jobs not run yet; finished() is not emitted.
  void cancel();
  bool running() const { return running_; }
  size_t total() const { return total_; }
  size_t done() const { return done_; }
  /// Slices the last run took, and the longest one in ms.
  int slices() const { return slices_; }
  double longestSliceMs() const { return longestSliceMs_; }

Q_SIGNALS:
  void finished();

private:
  struct Phase {
    size_t count;
    std::function<void(size_t)> job;
  };
  /// Runs jobs until the budget is used (or all of them when `unbounded`);
  /// true when none is left.
  bool runSlice(bool unbounded);
  /// One slice from the event loop or step(): finishes, or schedules the next.
  void continueRun();
  void finish();

  QTimer timer_;
  std::vector<Phase> phases_;
  size_t phase_ = 0, next_ = 0, total_ = 0, done_ = 0;
  double budgetMs_ = 10;
  size_t maxJobsPerSlice_ = 0;
  bool paused_ = false;
  bool running_ = false;
  unsigned generation_ = 0; // bumped by cancel() and each run
  int slices_ = 0;
  double longestSliceMs_ = 0;
};

} // namespace lowerscope
