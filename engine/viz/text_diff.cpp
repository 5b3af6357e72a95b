// Myers line diff (see text_diff.h).
#include "engine/viz/text_diff.h"

namespace unity::viz {

std::vector<std::string> splitLines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      break;
    }
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::vector<LineDiff> diffLines(const std::vector<std::string>& a,
                                const std::vector<std::string>& b, int maxEdits) {
  using K = LineDiff::Kind;
  std::vector<LineDiff> out;
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  int pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre])
    ++pre;
  int suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf])
    ++suf;
  for (int i = 0; i < pre; ++i)
    out.push_back({K::Equal, i, i});

  // The middle: a[pre, n - suf) against b[pre, m - suf).
  const int N = n - pre - suf, M = m - pre - suf;
  auto A = [&](int i) -> const std::string& { return a[pre + i]; };
  auto B = [&](int j) -> const std::string& { return b[pre + j]; };
  std::vector<LineDiff> middle;
  const int maxD = N + M;
  // trace[d] = the frontier after d edits: x reached on diagonal k, at index k + d.
  std::vector<std::vector<int>> trace;
  bool found = maxD == 0;
  int finalD = 0;
  for (int d = 0; d <= maxD && !found && d <= maxEdits; ++d) {
    std::vector<int> v(2 * d + 1);
    const std::vector<int>* prev = d ? &trace.back() : nullptr;
    auto prevAt = [&](int k) { return (*prev)[k + (d - 1)]; };
    for (int k = -d; k <= d; k += 2) {
      int x;
      if (d == 0)
        x = 0;
      else if (k == -d || (k != d && prevAt(k - 1) < prevAt(k + 1)))
        x = prevAt(k + 1); // down: insert b[y]
      else
        x = prevAt(k - 1) + 1; // right: delete a[x]
      int y = x - k;
      while (x < N && y < M && A(x) == B(y)) {
        ++x;
        ++y;
      }
      v[k + d] = x;
      if (x >= N && y >= M) {
        found = true;
        finalD = d;
      }
    }
    trace.push_back(std::move(v));
  }
  if (!found) {
    for (int i = 0; i < N; ++i)
      middle.push_back({K::Delete, pre + i, -1});
    for (int j = 0; j < M; ++j)
      middle.push_back({K::Insert, -1, pre + j});
  } else {
    // Walk back from (N, M) through the frontiers.
    int x = N, y = M;
    for (int d = finalD; d > 0; --d) {
      const std::vector<int>& prev = trace[d - 1];
      auto prevAt = [&](int k) { return prev[k + (d - 1)]; };
      int k = x - y;
      bool down = k == -d || (k != d && prevAt(k - 1) < prevAt(k + 1));
      int pk = down ? k + 1 : k - 1;
      int px = prevAt(pk), py = px - pk;
      int sx = down ? px : px + 1; // start of the snake after the edit
      while (x > sx) {
        --x;
        --y;
        middle.push_back({K::Equal, pre + x, pre + y});
      }
      if (down)
        middle.push_back({K::Insert, -1, pre + py});
      else
        middle.push_back({K::Delete, pre + px, -1});
      x = px;
      y = py;
    }
    while (x > 0 && y > 0) {
      --x;
      --y;
      middle.push_back({K::Equal, pre + x, pre + y});
    }
    std::vector<LineDiff>(middle.rbegin(), middle.rend()).swap(middle);
  }
  out.insert(out.end(), middle.begin(), middle.end());
  for (int i = 0; i < suf; ++i)
    out.push_back({K::Equal, n - suf + i, m - suf + i});
  return out;
}

} // namespace unity::viz
