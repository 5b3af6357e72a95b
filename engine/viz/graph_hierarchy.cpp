// The scope tree of a dataflow graph and the collapsed graph drawn from it
// (see graph_hierarchy.h). Both are single passes over nodes and edges, so a
// 50,000-node graph is collapsed in milliseconds and only the shown graph is
// laid out.
#include "engine/viz/graph_hierarchy.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace unity::viz {

namespace {

uint64_t hashPath(const std::string& s) {
  uint64_t h = 1469598103934665603ULL; // FNV-1a, stable across runs
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ULL;
  return h ^ 0x5c09e5c09e5c09e5ULL;
}

/// The longest common scope of two paths ("/a/b" and "/a/c" -> "/a").
std::string commonScope(const std::string& a, const std::string& b) {
  size_t n = 0, end = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    ++n;
    if ((n == a.size() || a[n] == '/') && (n == b.size() || b[n] == '/'))
      end = n; // a whole component matched
  }
  return a.substr(0, end);
}

} // namespace

int GraphHierarchy::find(const std::string& path) const {
  for (size_t i = 0; i < scopes.size(); ++i)
    if (scopes[i].path == path)
      return static_cast<int>(i);
  return -1;
}

std::string nodeScope(const GraphNode& n) {
  auto scopeOf = [](const std::string& source) -> std::string {
    if (source.empty() || source.front() != '/')
      return "";
    // "/encoder/layer.3/MatMul:MatMul": the node's own name is not a scope.
    std::string scope = source.substr(0, source.rfind('/'));
    while (!scope.empty() && scope.back() == '/')
      scope.pop_back();
    return scope;
  };
  if (n.origins.empty())
    return scopeOf(n.name);
  // A binding made of several source nodes (a fused conv + bn + relu) sits
  // in the scope they share.
  std::string scope = scopeOf(n.origins.front());
  for (size_t i = 1; i < n.origins.size() && !scope.empty(); ++i)
    scope = commonScope(scope, scopeOf(n.origins[i]));
  return scope;
}

GraphHierarchy buildHierarchy(const DataflowGraph& g) {
  const size_t count = g.nodes.size();
  std::vector<std::string> scopeOfNode(count);
  for (size_t i = 0; i < count; ++i) {
    const GraphNode& n = g.nodes[i];
    if (n.kind == NodeKind::Op || n.kind == NodeKind::Cluster || n.kind == NodeKind::Block)
      scopeOfNode[i] = nodeScope(n);
  }
  // A fused group expanded in place is drawn in one box: its members share
  // the scope they have in common.
  std::unordered_map<int, std::string> fused;
  for (size_t i = 0; i < count; ++i)
    if (int c = g.nodes[i].cluster; c >= 0) {
      auto [it, fresh] = fused.emplace(c, scopeOfNode[i]);
      if (!fresh)
        it->second = commonScope(it->second, scopeOfNode[i]);
    }
  for (size_t i = 0; i < count; ++i)
    if (int c = g.nodes[i].cluster; c >= 0)
      scopeOfNode[i] = fused[c];
  // A constant drawn as a node goes with its (first) consumer.
  for (const GraphEdge& e : g.edges)
    if (g.nodes[e.from].kind == NodeKind::Constant && scopeOfNode[e.from].empty())
      scopeOfNode[e.from] = scopeOfNode[e.to];

  // The raw tree: one scope per distinct prefix, parents before children.
  struct Raw {
    std::string path, name;
    int parent = -1;
    std::vector<int> children, nodes;
    int size = 0;
  };
  std::vector<Raw> raw;
  std::unordered_map<std::string, int> index;
  std::vector<int> rawOf(count, -1);
  auto intern = [&](const std::string& path) {
    // Most nodes share their scope with the node before: one lookup.
    if (auto known = index.find(path); known != index.end())
      return known->second;
    int parent = -1;
    for (size_t at = 1; at <= path.size(); ++at) {
      if (at != path.size() && path[at] != '/')
        continue;
      std::string prefix = path.substr(0, at);
      auto it = index.find(prefix);
      if (it == index.end()) {
        Raw r;
        r.path = prefix;
        r.name = prefix.substr(prefix.rfind('/') + 1);
        r.parent = parent;
        it = index.emplace(prefix, static_cast<int>(raw.size())).first;
        if (parent >= 0)
          raw[parent].children.push_back(it->second);
        raw.push_back(std::move(r));
      }
      parent = it->second;
    }
    return parent;
  };
  for (size_t i = 0; i < count; ++i)
    if (scopeOfNode[i].size() > 1) {
      rawOf[i] = intern(scopeOfNode[i]);
      raw[rawOf[i]].nodes.push_back(static_cast<int>(i));
    }
  for (int s = static_cast<int>(raw.size()) - 1; s >= 0; --s) { // children after parents
    raw[s].size += static_cast<int>(raw[s].nodes.size());
    if (raw[s].parent >= 0)
      raw[raw[s].parent].size += raw[s].size;
  }

  // Kept scopes: a scope of one node is no group, and a scope that only
  // wraps one child scope is folded into it.
  std::vector<char> kept(raw.size(), 1);
  for (size_t s = 0; s < raw.size(); ++s)
    if (raw[s].size < 2 || (raw[s].nodes.empty() && raw[s].children.size() == 1))
      kept[s] = 0;
  GraphHierarchy h;
  std::vector<int> newIndex(raw.size(), -1);
  for (size_t s = 0; s < raw.size(); ++s) {
    if (!kept[s])
      continue;
    int parent = raw[s].parent;
    std::string name = raw[s].name;
    while (parent >= 0 && !kept[parent]) {
      if (raw[parent].nodes.empty() && raw[parent].children.size() == 1 && raw[parent].size >= 2)
        name = raw[parent].name + "/" + name; // folded wrapper
      parent = raw[parent].parent;
    }
    Scope sc;
    sc.path = raw[s].path;
    sc.name = name;
    sc.parent = parent >= 0 ? newIndex[parent] : -1;
    sc.depth = sc.parent >= 0 ? h.scopes[sc.parent].depth + 1 : 0;
    sc.size = raw[s].size;
    newIndex[s] = static_cast<int>(h.scopes.size());
    if (sc.parent >= 0)
      h.scopes[sc.parent].children.push_back(newIndex[s]);
    else
      h.roots.push_back(newIndex[s]);
    h.scopes.push_back(std::move(sc));
  }
  h.scopeOf.assign(count, -1);
  for (size_t i = 0; i < count; ++i) {
    int s = rawOf[i];
    while (s >= 0 && !kept[s])
      s = raw[s].parent;
    if (s >= 0) {
      h.scopeOf[i] = newIndex[s];
      h.scopes[newIndex[s]].nodes.push_back(static_cast<int>(i));
    }
  }
  return h;
}

std::set<std::string> defaultExpandedScopes(const GraphHierarchy& h, size_t budget,
                                            size_t openAllUpTo) {
  std::set<std::string> out;
  if (h.scopeOf.size() <= openAllUpTo) {
    for (const Scope& s : h.scopes)
      out.insert(s.path);
    return out;
  }
  size_t shown = h.roots.size();
  for (int s : h.scopeOf)
    shown += s < 0;
  std::vector<int> level = h.roots;
  while (!level.empty()) {
    size_t cost = 0;
    std::vector<int> next;
    for (int s : level) {
      cost += h.scopes[s].nodes.size() + h.scopes[s].children.size() - 1;
      next.insert(next.end(), h.scopes[s].children.begin(), h.scopes[s].children.end());
    }
    if (shown + cost > budget)
      break;
    shown += cost;
    for (int s : level)
      out.insert(h.scopes[s].path);
    level = std::move(next);
  }
  return out;
}

DataflowGraph collapseHierarchy(const DataflowGraph& g, const GraphHierarchy& h,
                                const std::set<std::string>& expanded, std::vector<int>* shownOf) {
  const size_t scopeCount = h.scopes.size();
  // rep[s]: the collapsed scope that shows scope s's nodes (-1: s is open
  // and its nodes are drawn); open[s]: s and all its ancestors are open.
  std::vector<int> rep(scopeCount, -1);
  std::vector<char> open(scopeCount, 0);
  for (size_t s = 0; s < scopeCount; ++s) { // parents come first
    const Scope& sc = h.scopes[s];
    const bool parentOpen = sc.parent < 0 || open[sc.parent];
    if (!parentOpen) {
      rep[s] = rep[sc.parent];
      continue;
    }
    open[s] = expanded.count(sc.path) != 0;
    rep[s] = open[s] ? -1 : static_cast<int>(s);
  }

  DataflowGraph out;
  out.function = g.function;
  out.clusters = g.clusters; // fused groups keep their indices
  for (GraphCluster& c : out.clusters) {
    c.members.clear();
    c.node = -1;
  }
  // One expanded cluster per open scope, after the fused ones.
  std::vector<int> clusterOfScope(scopeCount, -1);
  for (size_t s = 0; s < scopeCount; ++s)
    if (open[s]) {
      GraphCluster c;
      c.function = h.scopes[s].path;
      c.expanded = true;
      c.scope = true;
      c.size = h.scopes[s].size;
      c.parent = h.scopes[s].parent >= 0 ? clusterOfScope[h.scopes[s].parent] : -1;
      clusterOfScope[s] = static_cast<int>(out.clusters.size());
      out.clusters.push_back(std::move(c));
    }

  std::vector<int> shown(g.nodes.size(), -1);
  std::vector<int> groupNode(scopeCount, -1);
  auto add = [&](GraphNode n) {
    n.id = static_cast<int>(out.nodes.size());
    if (n.cluster >= 0)
      out.clusters[n.cluster].members.push_back(n.id);
    out.nodes.push_back(std::move(n));
    return out.nodes.back().id;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const int s = h.scopeOf.empty() ? -1 : h.scopeOf[i];
    const int r = s >= 0 ? rep[s] : -1;
    if (r >= 0) { // inside a collapsed scope: its group node, made at its first member
      if (groupNode[r] < 0) {
        const Scope& sc = h.scopes[r];
        GraphNode n;
        n.kind = NodeKind::Cluster;
        n.name = sc.name;
        n.members = sc.size;
        n.origins = {sc.path};
        n.key = hashPath(sc.path);
        n.cluster = sc.parent >= 0 ? clusterOfScope[sc.parent] : -1;
        n.collapsed = static_cast<int>(out.clusters.size());
        GraphCluster c;
        c.function = sc.path;
        c.scope = true;
        c.size = sc.size;
        out.clusters.push_back(std::move(c));
        groupNode[r] = add(std::move(n));
        out.clusters[out.nodes.back().collapsed].node = groupNode[r];
      }
      shown[i] = groupNode[r];
      continue;
    }
    GraphNode n = g.nodes[i];
    const int scopeCluster = s >= 0 ? clusterOfScope[s] : -1;
    if (n.cluster >= 0) // an expanded fused group: its box sits in the scope's box
      out.clusters[n.cluster].parent = scopeCluster;
    else
      n.cluster = scopeCluster;
    shown[i] = add(std::move(n));
    if (out.nodes.back().kind == NodeKind::Cluster && out.nodes.back().collapsed >= 0)
      out.clusters[out.nodes.back().collapsed].node = shown[i];
  }

  std::unordered_set<uint64_t> seen;
  seen.reserve(g.edges.size());
  for (const GraphEdge& e : g.edges) {
    const int a = shown[e.from], b = shown[e.to];
    if (a < 0 || b < 0 || a == b)
      continue;
    if (!seen.insert((uint64_t(uint32_t(a)) << 32) | uint32_t(b)).second)
      continue;
    out.edges.push_back({a, b, e.label});
  }
  if (shownOf)
    *shownOf = std::move(shown);
  return out;
}

} // namespace unity::viz
