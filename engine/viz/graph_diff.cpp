// Graph diff by structure, then provenance (algorithm in graph_diff.h).
#include "engine/viz/graph_diff.h"

#include <algorithm>
#include <unordered_map>

namespace unity::viz {

const char* diffStatusName(DiffStatus s) {
  switch (s) {
  case DiffStatus::Unchanged:
    return "unchanged";
  case DiffStatus::Changed:
    return "changed";
  case DiffStatus::Added:
    return "added";
  case DiffStatus::Removed:
    return "removed";
  }
  return "?";
}

namespace {

GraphDiff::Counts countOf(const std::vector<DiffStatus>& v) {
  GraphDiff::Counts c;
  for (DiffStatus s : v) {
    switch (s) {
    case DiffStatus::Unchanged:
      ++c.unchanged;
      break;
    case DiffStatus::Changed:
      ++c.changed;
      break;
    case DiffStatus::Added:
      ++c.added;
      break;
    case DiffStatus::Removed:
      ++c.removed;
      break;
    }
  }
  return c;
}

bool isComputation(const GraphNode& n) {
  return n.kind == NodeKind::Op || n.kind == NodeKind::Cluster || n.kind == NodeKind::Block;
}

} // namespace

GraphDiff::Counts GraphDiff::beforeCounts() const { return countOf(before); }
GraphDiff::Counts GraphDiff::afterCounts() const { return countOf(after); }

GraphDiff diffGraphs(const DataflowGraph& B, const DataflowGraph& A) {
  GraphDiff d;
  const size_t nb = B.nodes.size(), na = A.nodes.size();
  d.beforeMatch.assign(nb, {});
  d.afterMatch.assign(na, {});
  std::vector<bool> bDone(nb, false), aDone(na, false);
  std::vector<int> unchangedPartner(na, -1); // after -> before, for input matching

  std::vector<std::vector<int>> bInputs(nb), aInputs(na);
  for (auto& e : B.edges)
    bInputs[e.to].push_back(e.from);
  for (auto& e : A.edges)
    aInputs[e.to].push_back(e.from);

  std::unordered_map<uint64_t, std::vector<int>> byKey;
  for (auto& n : B.nodes)
    byKey[n.key].push_back(n.id);

  // 1. Structure.
  for (auto& an : A.nodes) {
    auto it = byKey.find(an.key);
    if (it == byKey.end())
      continue;
    int best = -1, bestScore = -1;
    for (int b : it->second) {
      if (bDone[b])
        continue;
      const GraphNode& bn = B.nodes[b];
      if (bn.kind != an.kind)
        continue;
      int score = 0;
      if (an.value && bn.value.same(an.value))
        score += 4;
      if (bn.name == an.name)
        score += 2;
      bool inputsMatch = aInputs[an.id].size() == bInputs[b].size();
      for (int ai : aInputs[an.id]) {
        int partner = unchangedPartner[ai];
        if (partner < 0 ||
            std::find(bInputs[b].begin(), bInputs[b].end(), partner) == bInputs[b].end())
          inputsMatch = false;
      }
      if (inputsMatch)
        score += 1;
      if (score > bestScore) {
        best = b;
        bestScore = score;
      }
    }
    if (best < 0)
      continue;
    bDone[best] = aDone[an.id] = true;
    unchangedPartner[an.id] = best;
    d.afterMatch[an.id].push_back(best);
    d.beforeMatch[best].push_back(an.id);
  }

  // 2. Provenance (indexed by origin and name: graphs have thousands of nodes).
  std::vector<bool> bChanged(nb, false), aChanged(na, false);
  std::unordered_map<std::string, std::vector<int>> byOrigin, byName;
  for (auto& bn : B.nodes) {
    if (bDone[bn.id] || !isComputation(bn))
      continue;
    for (auto& o : bn.origins)
      byOrigin[o].push_back(bn.id);
    if (!bn.name.empty())
      byName[bn.name].push_back(bn.id);
  }
  for (auto& an : A.nodes) {
    if (aDone[an.id] || !isComputation(an))
      continue;
    std::vector<int> partners;
    for (auto& o : an.origins)
      if (auto it = byOrigin.find(o); it != byOrigin.end())
        partners.insert(partners.end(), it->second.begin(), it->second.end());
    if (auto it = byName.find(an.name); it != byName.end())
      partners.insert(partners.end(), it->second.begin(), it->second.end());
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    for (int b : partners) {
      aChanged[an.id] = bChanged[b] = true;
      d.afterMatch[an.id].push_back(b);
      d.beforeMatch[b].push_back(an.id);
    }
  }

  // 3. Classification.
  d.before.resize(nb);
  d.after.resize(na);
  for (size_t i = 0; i < nb; ++i)
    d.before[i] = bDone[i]      ? DiffStatus::Unchanged
                  : bChanged[i] ? DiffStatus::Changed
                                : DiffStatus::Removed;
  for (size_t i = 0; i < na; ++i)
    d.after[i] = aDone[i]      ? DiffStatus::Unchanged
                 : aChanged[i] ? DiffStatus::Changed
                               : DiffStatus::Added;
  return d;
}

} // namespace unity::viz
