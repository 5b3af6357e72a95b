#include "engine/op/einsum.h"

#include <algorithm>

namespace unity::op {

EinsumEquation splitEinsum(const std::string& equation) {
  EinsumEquation eq;
  for (char ch : equation)
    if (ch != ' ')
      eq.text += ch;
  size_t arrow = eq.text.find("->");
  std::string lhs = arrow == std::string::npos ? eq.text : eq.text.substr(0, arrow);
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    eq.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (arrow != std::string::npos)
    eq.output = eq.text.substr(arrow + 2);
  return eq;
}

std::string implicitEinsumOutput(const std::vector<std::string>& inputs) {
  std::string all;
  for (auto& in : inputs)
    all += in;
  std::string once;
  for (char ch : all)
    if (std::count(all.begin(), all.end(), ch) == 1)
      once += ch;
  std::sort(once.begin(), once.end());
  return once;
}

} // namespace unity::op
