#include "engine/transform/record.h"

#include "engine/ir/structural.h"

namespace unity::transform {

bool moduleChanged(const ir::IRModule& before, const ir::IRModule& after) {
  if (ir::sameNode(before, after))
    return false;
  return !ir::structuralEqual(before, after);
}

PassRecord& RecordingInstrument::append(const PassInfo& info, const ir::IRModule& before,
                                        int depth) {
  PassRecord r;
  r.index = static_cast<int>(records_.size());
  r.parent = open_.empty() ? -1 : open_.back();
  r.depth = depth;
  r.name = info.name;
  r.level = info.level;
  r.before = before;
  records_.push_back(std::move(r));
  return records_.back();
}

void RecordingInstrument::runBeforePass(const PassInfo& info, const ir::IRModule& before,
                                        int depth) {
  std::lock_guard lock(mu_);
  open_.push_back(append(info, before, depth).index);
}

void RecordingInstrument::runAfterPass(const PassInfo&, const ir::IRModule& before,
                                       const ir::IRModule& after, int, double ms) {
  bool changed = moduleChanged(before, after); // outside the lock: may be slow
  std::lock_guard lock(mu_);
  if (open_.empty())
    return;
  PassRecord& r = records_[open_.back()];
  open_.pop_back();
  r.after = after;
  r.ms = ms;
  r.changed = changed;
  r.finished = true;
}

void RecordingInstrument::runDisabledPass(const PassInfo& info, const ir::IRModule& module,
                                          int depth) {
  std::lock_guard lock(mu_);
  PassRecord& r = append(info, module, depth);
  r.after = module;
  r.finished = true;
  r.disabled = true;
}

std::vector<PassRecord> RecordingInstrument::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

size_t RecordingInstrument::size() const {
  std::lock_guard lock(mu_);
  return records_.size();
}

std::vector<PassRecord> RecordingInstrument::leafRecords() const {
  std::lock_guard lock(mu_);
  std::vector<bool> hasChild(records_.size(), false);
  for (auto& r : records_)
    if (r.parent >= 0)
      hasChild[r.parent] = true;
  std::vector<PassRecord> out;
  for (auto& r : records_)
    if (!hasChild[r.index])
      out.push_back(r);
  return out;
}

} // namespace unity::transform
