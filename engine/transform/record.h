#pragma once
// The recording instrument: the pass history the GUI's timeline shows.
//
// For every pass (nested ones included) it keeps the module before and after
// — as shared handles, so an unchanged function costs nothing — the wall
// time, the nesting depth and whether anything changed. "Changed" is decided
// by identity first (mutators return the same node when nothing changed) and
// by structural equality only when the pass rebuilt something.
#include <mutex>
#include <string>
#include <vector>

#include "engine/transform/pass.h"

namespace unity::transform {

struct PassRecord {
  int index = 0;   // order in which passes started
  int parent = -1; // index of the enclosing pass (a Sequential), -1 at top
  int depth = 0;
  std::string name;
  PassLevel level = PassLevel::Module;
  ir::IRModule before, after;
  double ms = 0;
  bool changed = false;
  bool finished = false; // false while running, or if it threw
  bool disabled = false; // turned off (PassContext::disabled): did not run, after == before
};

class RecordingInstrument : public PassInstrument {
public:
  void runBeforePass(const PassInfo& info, const ir::IRModule& before, int depth) override;
  void runAfterPass(const PassInfo& info, const ir::IRModule& before, const ir::IRModule& after,
                    int depth, double ms) override;
  void runDisabledPass(const PassInfo& info, const ir::IRModule& module, int depth) override;

  /// A snapshot of the records so far (thread-safe; the GUI polls it).
  std::vector<PassRecord> records() const;
  size_t size() const;
  /// Only the leaves (passes that are not Sequentials with children).
  std::vector<PassRecord> leafRecords() const;

private:
  /// A new record for `info` under the innermost running pass (mu_ held).
  PassRecord& append(const PassInfo& info, const ir::IRModule& before, int depth);

  mutable std::mutex mu_;
  std::vector<PassRecord> records_;
  std::vector<int> open_; // stack of running record indices
};

/// Whether two modules differ: identity, then structural equality.
bool moduleChanged(const ir::IRModule& before, const ir::IRModule& after);

} // namespace unity::transform
