// Pass-history addressing for the workbench and `render --pass` (history.h).
#include "engine/viz/history.h"

#include <charconv>

#include "engine/support/error.h"

namespace unity::viz {

int selectStep(const std::vector<transform::PassRecord>& records, const std::string& spec) {
  int n = 0;
  auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), n);
  if (ec == std::errc() && end == spec.data() + spec.size()) {
    if (n < 0 || n > static_cast<int>(records.size()))
      throw Error("pass " + spec + ": out of range (the history has steps 0.." +
                  std::to_string(records.size()) + ", 0 being the input)");
    return n;
  }
  for (auto& r : records)
    if (r.name == spec)
      return r.index + 1;
  std::string known;
  for (auto& r : records)
    if (known.find(" " + r.name + ",") == std::string::npos)
      known += " " + r.name + ",";
  if (!known.empty())
    known.pop_back();
  throw Error("pass '" + spec + "': no pass of that name ran (passes:" + known + ")");
}

namespace {
void checkStep(const std::vector<transform::PassRecord>& records, int step) {
  if (step < 0 || step > static_cast<int>(records.size()))
    throw Error("pass step " + std::to_string(step) + ": out of range 0.." +
                std::to_string(records.size()));
}
} // namespace

ir::IRModule moduleAtStep(const ir::IRModule& input,
                          const std::vector<transform::PassRecord>& records, int step) {
  checkStep(records, step);
  if (step == 0)
    return input;
  const auto& r = records[step - 1];
  if (!r.after)
    throw Error("pass " + r.name + " (step " + std::to_string(step) + ") did not finish");
  return r.after;
}

ir::IRModule moduleBeforeStep(const ir::IRModule& input,
                              const std::vector<transform::PassRecord>& records, int step) {
  checkStep(records, step);
  if (step == 0)
    return input;
  return records[step - 1].before ? records[step - 1].before : input;
}

} // namespace unity::viz
