#include <gtest/gtest.h>

#include <random>

#include "engine/viz/text_diff.h"

using namespace unity::viz;
using K = LineDiff::Kind;

namespace {

std::vector<std::string> chars(const std::string& s) {
  std::vector<std::string> out;
  for (char c : s)
    out.push_back(std::string(1, c));
  return out;
}

/// Checks the script walks both sides in order and rebuilds them; returns
/// the number of equal lines.
int checkScript(const std::vector<std::string>& a, const std::vector<std::string>& b,
                const std::vector<LineDiff>& d) {
  int i = 0, j = 0, equal = 0;
  for (auto& x : d) {
    if (x.kind != K::Insert) {
      EXPECT_EQ(x.left, i);
      ++i;
    }
    if (x.kind != K::Delete) {
      EXPECT_EQ(x.right, j);
      ++j;
    }
    if (x.kind == K::Equal) {
      EXPECT_EQ(a[x.left], b[x.right]);
      ++equal;
    }
  }
  EXPECT_EQ(i, static_cast<int>(a.size()));
  EXPECT_EQ(j, static_cast<int>(b.size()));
  return equal;
}

int lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<int>> t(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

} // namespace

// The example of Myers' paper: ABCABBA -> CBABAC, LCS 4 (e.g. "BABA"/"CABA").
TEST(VizTextDiff, MyersPaperExample) {
  auto a = chars("ABCABBA"), b = chars("CBABAC");
  auto d = diffLines(a, b);
  EXPECT_EQ(checkScript(a, b, d), 4);
  EXPECT_EQ(d.size(), 4u + 3u + 2u);
}

TEST(VizTextDiff, EdgeCases) {
  EXPECT_TRUE(diffLines({}, {}).empty());
  auto ins = diffLines({}, chars("xy"));
  ASSERT_EQ(ins.size(), 2u);
  EXPECT_EQ(ins[0].kind, K::Insert);
  auto del = diffLines(chars("xy"), {});
  ASSERT_EQ(del.size(), 2u);
  EXPECT_EQ(del[1].kind, K::Delete);
  auto same = diffLines(chars("abc"), chars("abc"));
  EXPECT_EQ(checkScript(chars("abc"), chars("abc"), same), 3);
}

TEST(VizTextDiff, RandomScriptsAreShortest) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    std::string s, t;
    int n = rng() % 12, m = rng() % 12;
    for (int i = 0; i < n; ++i)
      s += char('a' + rng() % 3);
    for (int i = 0; i < m; ++i)
      t += char('a' + rng() % 3);
    auto a = chars(s), b = chars(t);
    EXPECT_EQ(checkScript(a, b, diffLines(a, b)), lcs(a, b)) << s << " / " << t;
  }
}

TEST(VizTextDiff, TooManyEditsFallsBackToReplace) {
  auto a = chars("abcdef"), b = chars("uvwxyz");
  auto d = diffLines(a, b, 2);
  EXPECT_EQ(checkScript(a, b, d), 0);
  EXPECT_EQ(d.size(), 12u);
}

TEST(VizTextDiff, SplitLines) {
  EXPECT_EQ(splitLines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(splitLines("a\n\nb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(splitLines("").empty());
}
