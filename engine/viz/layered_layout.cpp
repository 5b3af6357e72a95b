// The layered layout (see layered_layout.h for the algorithm).
//
// Internally everything is computed top to bottom: "x" runs along a layer
// and "y" across layers; rankdir BT/LR/RL mirror or transpose the result at
// the end. Vertices 0..N-1 are the graph's nodes, N.. the dummies.
#include "engine/viz/layered_layout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "engine/support/error.h"

namespace unity::viz {

namespace {

constexpr double kNodeSep = 18;    // between two nodes in a layer (dot: nodesep 0.25 in)
constexpr double kDummySep = 6;    // between edge bends
constexpr double kRankSep = 25;    // between layers (dot: ranksep 0.35 in)
constexpr double kDummyLayer = 10; // thickness of a layer with only bends in it
constexpr double kClusterPad = 8;  // cluster box around its members
constexpr double kClusterTitle = 12;
constexpr double kMargin = 8;
constexpr double kArrow = 6; // arrow length (dot: arrowsize 0.6)
constexpr int kBalanceSweeps = 4, kOrderSweeps = 12, kOrderPatience = 3, kPlaceSweeps = 8;
constexpr double kDummyWeight = 4;

struct Graph {
  int n = 0;                           // real vertices
  std::vector<double> w, h;            // size (x along the layer, y across)
  std::vector<int> layer;              // per vertex
  std::vector<int> cluster;            // expanded cluster, -1 none
  std::vector<std::vector<int>> up;    // neighbours in the layer above
  std::vector<std::vector<int>> down;  // neighbours in the layer below
  std::vector<std::vector<int>> chain; // per edge: vertices top to bottom (empty: self loop)
  std::vector<bool> reversed;          // per edge: drawn against its direction
  int vertices() const { return static_cast<int>(w.size()); }
  bool dummy(int v) const { return v >= n; }
};

/// Reverses back edges (iterative DFS) and assigns longest-path layers,
/// then balances them (see the header).
void assignLayers(const DataflowGraph& dg, Graph& G) {
  const int n = G.n;
  const size_t m = dg.edges.size();
  std::vector<std::vector<int>> out(n);
  for (size_t e = 0; e < m; ++e)
    if (dg.edges[e].from != dg.edges[e].to)
      out[dg.edges[e].from].push_back(static_cast<int>(e));
  G.reversed.assign(m, false);
  std::vector<char> state(n, 0); // 0 new, 1 on stack, 2 done
  std::vector<std::pair<int, size_t>> stack;
  for (int root = 0; root < n; ++root) {
    if (state[root])
      continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < out[v].size()) {
        int e = out[v][next++];
        int t = dg.edges[e].to;
        if (state[t] == 1)
          G.reversed[e] = true;
        else if (state[t] == 0) {
          state[t] = 1;
          stack.push_back({t, 0});
        }
      } else {
        state[v] = 2;
        stack.pop_back();
      }
    }
  }
  // Effective (acyclic) adjacency, then Kahn's order and longest paths.
  std::vector<std::vector<int>> succ(n), pred(n);
  for (size_t e = 0; e < m; ++e) {
    int a = dg.edges[e].from, b = dg.edges[e].to;
    if (a == b)
      continue;
    if (G.reversed[e])
      std::swap(a, b);
    succ[a].push_back(b);
    pred[b].push_back(a);
  }
  std::vector<int> indeg(n), order;
  order.reserve(n);
  for (int v = 0; v < n; ++v)
    if ((indeg[v] = static_cast<int>(pred[v].size())) == 0)
      order.push_back(v);
  for (size_t i = 0; i < order.size(); ++i)
    for (int t : succ[order[i]])
      if (--indeg[t] == 0)
        order.push_back(t);
  std::vector<int>& L = G.layer;
  L.assign(n, 0);
  for (int v : order)
    for (int t : succ[v])
      L[t] = std::max(L[t], L[v] + 1);
  // Balance: move each node inside its slack towards its heavier side.
  for (int sweep = 0; sweep < kBalanceSweeps; ++sweep) {
    bool moved = false;
    for (int k = n - 1; k >= 0; --k) {
      int v = order[k];
      int in = static_cast<int>(pred[v].size()), outs = static_cast<int>(succ[v].size());
      if (in == outs)
        continue;
      int target = L[v];
      if (outs > in) { // down, to just above its first consumer
        int hi = INT32_MAX;
        for (int t : succ[v])
          hi = std::min(hi, L[t] - 1);
        target = hi;
      } else if (in > 0) { // up, to just below its last producer
        int lo = 0;
        for (int s : pred[v])
          lo = std::max(lo, L[s] + 1);
        target = lo;
      }
      if (target != L[v]) {
        L[v] = target;
        moved = true;
      }
    }
    if (!moved)
      break;
  }
  int lowest = n ? *std::min_element(L.begin(), L.end()) : 0;
  for (int& l : L)
    l -= lowest;
}

/// Dummy vertices for edges spanning several layers; the up/down lists.
void insertDummies(const DataflowGraph& dg, Graph& G) {
  const size_t m = dg.edges.size();
  G.chain.assign(m, {});
  for (size_t e = 0; e < m; ++e) {
    int a = dg.edges[e].from, b = dg.edges[e].to;
    if (a == b)
      continue;
    if (G.reversed[e])
      std::swap(a, b);
    const int ca = G.cluster[a], cb = G.cluster[b];
    std::vector<int>& chain = G.chain[e];
    chain.push_back(a);
    for (int l = G.layer[a] + 1; l < G.layer[b]; ++l) {
      int d = G.vertices();
      G.w.push_back(0);
      G.h.push_back(0);
      G.layer.push_back(l);
      G.cluster.push_back(ca == cb ? ca : -1);
      chain.push_back(d);
    }
    chain.push_back(b);
  }
  G.up.assign(G.vertices(), {});
  G.down.assign(G.vertices(), {});
  for (auto& chain : G.chain)
    for (size_t i = 1; i < chain.size(); ++i) {
      G.down[chain[i - 1]].push_back(chain[i]);
      G.up[chain[i]].push_back(chain[i - 1]);
    }
}

/// Crossings between layer `l` and `l + 1` (Barth, Juenger, Mutzel: the
/// inversions of the lower ends, in upper-end order, counted with a Fenwick
/// tree).
long long crossings(const Graph& G, const std::vector<std::vector<int>>& layers,
                    const std::vector<int>& pos, size_t l) {
  std::vector<int> ends;
  for (int u : layers[l]) {
    size_t first = ends.size();
    for (int v : G.down[u])
      ends.push_back(pos[v]);
    std::sort(ends.begin() + first, ends.end());
  }
  const size_t size = layers[l + 1].size();
  std::vector<int> tree(size + 1, 0);
  long long count = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    // Inversions: earlier ends greater than this one.
    int notGreater = 0;
    for (int k = ends[i] + 1; k > 0; k -= k & -k)
      notGreater += tree[k];
    count += static_cast<long long>(i) - notGreater;
    for (int k = ends[i] + 1; k <= static_cast<int>(size); k += k & -k)
      ++tree[k];
  }
  return count;
}

long long totalCrossings(const Graph& G, const std::vector<std::vector<int>>& layers,
                         const std::vector<int>& pos) {
  long long c = 0;
  for (size_t l = 0; l + 1 < layers.size(); ++l)
    c += crossings(G, layers, pos, l);
  return c;
}

/// Reorders `layer` by the barycenter of each vertex's neighbours in
/// `neighbours` (their positions `pos`), members of a cluster together.
void sortLayer(const Graph& G, std::vector<int>& layer, const std::vector<std::vector<int>>& nbrs,
               std::vector<int>& pos) {
  struct Key {
    double group, own;
    int cluster, vertex;
  };
  std::vector<Key> keys;
  keys.reserve(layer.size());
  std::vector<std::pair<double, int>> clusterSum; // by cluster index: sum, count
  for (int v : layer) {
    double bc = pos[v];
    if (!nbrs[v].empty()) {
      double sum = 0;
      for (int u : nbrs[v])
        sum += pos[u];
      bc = sum / static_cast<double>(nbrs[v].size());
    }
    keys.push_back({bc, bc, G.cluster[v], v});
    if (int c = G.cluster[v]; c >= 0) {
      if (clusterSum.size() <= static_cast<size_t>(c))
        clusterSum.resize(c + 1, {0.0, 0});
      clusterSum[c].first += bc;
      clusterSum[c].second += 1;
    }
  }
  if (!clusterSum.empty())
    for (Key& k : keys)
      if (k.cluster >= 0)
        k.group = clusterSum[k.cluster].first / clusterSum[k.cluster].second;
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.group != b.group)
      return a.group < b.group;
    if (a.cluster != b.cluster)
      return a.cluster < b.cluster;
    return a.own < b.own;
  });
  for (size_t i = 0; i < keys.size(); ++i) {
    layer[i] = keys[i].vertex;
    pos[keys[i].vertex] = static_cast<int>(i);
  }
}

std::vector<std::vector<int>> orderLayers(const Graph& G, const std::atomic<bool>* cancel) {
  const int layerCount = G.vertices() ? *std::max_element(G.layer.begin(), G.layer.end()) + 1 : 0;
  std::vector<std::vector<int>> layers(layerCount);
  // Initial order: vertices in the graph's order (bindings come in program
  // order), each edge's dummies right after its source.
  std::vector<char> placed(G.vertices(), 0);
  std::vector<std::vector<int>> outEdges(G.n);
  for (size_t e = 0; e < G.chain.size(); ++e)
    if (!G.chain[e].empty())
      outEdges[G.chain[e].front()].push_back(static_cast<int>(e));
  for (int v = 0; v < G.n; ++v) {
    if (!placed[v]) {
      placed[v] = 1;
      layers[G.layer[v]].push_back(v);
    }
    for (int e : outEdges[v])
      for (size_t i = 1; i + 1 < G.chain[e].size(); ++i) {
        int d = G.chain[e][i];
        placed[d] = 1;
        layers[G.layer[d]].push_back(d);
      }
  }
  std::vector<int> pos(G.vertices(), 0);
  for (auto& layer : layers)
    for (size_t i = 0; i < layer.size(); ++i)
      pos[layer[i]] = static_cast<int>(i);
  auto best = layers;
  long long bestCrossings = totalCrossings(G, layers, pos);
  int stale = 0;
  for (int sweep = 0; sweep < kOrderSweeps && bestCrossings > 0; ++sweep) {
    if (cancel && cancel->load())
      return best;
    if (sweep % 2 == 0)
      for (size_t l = 1; l < layers.size(); ++l)
        sortLayer(G, layers[l], G.up, pos);
    else
      for (size_t l = layers.size(); l-- > 1;)
        sortLayer(G, layers[l - 1], G.down, pos);
    long long c = totalCrossings(G, layers, pos);
    if (c < bestCrossings) {
      bestCrossings = c;
      best = layers;
      stale = 0;
    } else if (++stale >= kOrderPatience) {
      break;
    }
  }
  return best;
}

/// Weighted isotonic regression with separations: x minimising
/// sum w_i (x_i - want_i)^2 subject to x_{i+1} - x_i >= sep_i (pool
/// adjacent violators on y_i = x_i - offset_i).
void placeLayer(const std::vector<double>& want, const std::vector<double>& weight,
                const std::vector<double>& sep, std::vector<double>& x) {
  const size_t k = want.size();
  std::vector<double> offset(k, 0);
  for (size_t i = 1; i < k; ++i)
    offset[i] = offset[i - 1] + sep[i - 1];
  struct Block {
    double sumW, sumWY;
    size_t first, count;
    double mean() const { return sumWY / sumW; }
  };
  std::vector<Block> blocks;
  blocks.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    blocks.push_back({weight[i], weight[i] * (want[i] - offset[i]), i, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      Block b = blocks.back();
      blocks.pop_back();
      blocks.back().sumW += b.sumW;
      blocks.back().sumWY += b.sumWY;
      blocks.back().count += b.count;
    }
  }
  x.resize(k);
  for (const Block& b : blocks)
    for (size_t i = b.first; i < b.first + b.count; ++i)
      x[i] = b.mean() + offset[i];
}

std::vector<double> assignX(const Graph& G, const std::vector<std::vector<int>>& layers) {
  std::vector<double> x(G.vertices(), 0);
  auto separation = [&](int a, int b) {
    double gap = G.dummy(a) && G.dummy(b) ? kDummySep : kNodeSep;
    if (G.cluster[a] != G.cluster[b])
      gap += kClusterPad;
    return (G.w[a] + G.w[b]) / 2 + gap;
  };
  std::vector<std::vector<double>> seps(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    const auto& layer = layers[l];
    for (size_t i = 1; i < layer.size(); ++i)
      seps[l].push_back(separation(layer[i - 1], layer[i]));
    // Start packed and centred on 0.
    double at = 0;
    for (size_t i = 0; i < layer.size(); ++i) {
      if (i)
        at += seps[l][i - 1];
      x[layer[i]] = at;
    }
    for (int v : layer)
      x[v] -= at / 2;
  }
  // A node with a single edge (a constant, a parameter used once) follows
  // its neighbour and does not pull it: otherwise each weight placed beside
  // its consumer drags the consumer sideways, and the drift adds up over
  // hundreds of layers.
  auto follower = [&](int v) { return !G.dummy(v) && G.up[v].size() + G.down[v].size() == 1; };
  std::vector<double> want, weight, placed;
  for (int sweep = 0; sweep < kPlaceSweeps; ++sweep) {
    // Down, up, ..., and the last two sweeps look both ways.
    const bool both = sweep >= kPlaceSweeps - 2, downward = sweep % 2 == 0;
    for (size_t k = 0; k < layers.size(); ++k) {
      const auto& layer = layers[downward ? k : layers.size() - 1 - k];
      want.clear();
      weight.clear();
      for (int v : layer) {
        double sum = 0, followSum = 0;
        int count = 0, followers = 0;
        auto add = [&](int u) {
          if (follower(u))
            followSum += x[u], ++followers;
          else
            sum += x[u], ++count;
        };
        if (both || downward)
          for (int u : G.up[v])
            add(u);
        if (both || !downward)
          for (int u : G.down[v])
            add(u);
        want.push_back(count ? sum / count : followers ? followSum / followers : x[v]);
        weight.push_back(G.dummy(v) ? kDummyWeight : 1.0);
      }
      placeLayer(want, weight, seps[downward ? k : layers.size() - 1 - k], placed);
      for (size_t i = 0; i < layer.size(); ++i)
        x[layer[i]] = placed[i];
    }
  }
  return x;
}

/// The point where a port at `px` on the top (bottom when `bottom`) side of
/// vertex `v` meets its outline.
Point portOn(const DataflowGraph& dg, const Graph& G, const std::vector<double>& x,
             const std::vector<double>& y, int v, double px, bool bottom) {
  const double half = G.h[v] / 2;
  double dy = half;
  if (!G.dummy(v)) {
    NodeKind k = dg.nodes[v].kind;
    if (k == NodeKind::Param || k == NodeKind::Output) {
      const double u = (px - x[v]) / (G.w[v] / 2);
      dy = half * std::sqrt(std::max(0.0, 1 - u * u));
    }
  }
  return {px, bottom ? y[v] + dy : y[v] - dy};
}

void appendCurve(std::vector<Point>& pts, Point a, Point b) {
  const double mid = (b.y - a.y) / 2;
  pts.push_back({a.x, a.y + mid});
  pts.push_back({b.x, b.y - mid});
  pts.push_back(b);
}

} // namespace

std::optional<GraphLayout> LayeredLayouter::layout(const DataflowGraph& dg,
                                                   const LayoutOptions& opts) const {
  auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };
  if (cancelled())
    return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string& dir = opts.rankdir;
  if (dir != "TB" && dir != "BT" && dir != "LR" && dir != "RL")
    throw Error("layout of '" + dg.function + "': unknown rankdir '" + dir +
                "' (expected TB, BT, LR or RL)");
  const bool transpose = dir == "LR" || dir == "RL";
  const int n = static_cast<int>(dg.nodes.size());
  for (size_t i = 0; i < dg.nodes.size(); ++i)
    if (dg.nodes[i].id != static_cast<int>(i))
      throw Error("layout of '" + dg.function + "': node " + std::to_string(i) + " has id " +
                  std::to_string(dg.nodes[i].id) + " (ids must be node indices)");
  for (size_t e = 0; e < dg.edges.size(); ++e) {
    const GraphEdge& ed = dg.edges[e];
    if (ed.from < 0 || ed.from >= n || ed.to < 0 || ed.to >= n)
      throw Error("layout of '" + dg.function + "': edge " + std::to_string(e) + " (" +
                  std::to_string(ed.from) + " -> " + std::to_string(ed.to) +
                  ") names a node that does not exist");
  }

  Graph G;
  G.n = n;
  for (const GraphNode& node : dg.nodes) {
    NodeGeometry size = estimateNodeSize(node);
    G.w.push_back(transpose ? size.height : size.width);
    G.h.push_back(transpose ? size.width : size.height);
    const int c = node.cluster;
    G.cluster.push_back(
        c >= 0 && c < static_cast<int>(dg.clusters.size()) && dg.clusters[c].expanded ? c : -1);
  }
  assignLayers(dg, G);
  insertDummies(dg, G);
  if (cancelled())
    return std::nullopt;
  const auto layers = orderLayers(G, opts.cancel);
  if (cancelled())
    return std::nullopt;
  std::vector<double> x = assignX(G, layers);
  if (cancelled())
    return std::nullopt;

  // y: each layer as thick as its tallest node.
  std::vector<double> y(G.vertices(), 0);
  double at = kMargin;
  for (size_t l = 0; l < layers.size(); ++l) {
    double thick = 0;
    for (int v : layers[l])
      thick = std::max(thick, G.h[v]);
    if (thick == 0)
      thick = kDummyLayer;
    for (int v : layers[l])
      y[v] = at + thick / 2;
    at += thick + kRankSep;
  }
  double height = layers.empty() ? 2 * kMargin : at - kRankSep + kMargin;
  // x: shift so the leftmost box (or cluster box) starts at the margin.
  double left = 0, right = 0;
  bool any = false;
  for (int v = 0; v < G.vertices(); ++v) {
    double pad = G.cluster[v] >= 0 ? kClusterPad : 0;
    double l = x[v] - G.w[v] / 2 - pad, r = x[v] + G.w[v] / 2 + pad;
    left = any ? std::min(left, l) : l;
    right = any ? std::max(right, r) : r;
    any = true;
  }
  for (double& v : x)
    v += kMargin - left;
  double width = any ? right - left + 2 * kMargin : 2 * kMargin;

  // Ports: a vertex's edges leave its bottom (enter its top) spread along
  // the side, in the order of their other ends.
  const size_t m = dg.edges.size();
  std::vector<double> exitX(m), entryX(m);
  {
    std::vector<std::vector<int>> exits(n), entries(n);
    for (size_t e = 0; e < m; ++e) {
      const auto& chain = G.chain[e];
      if (chain.empty())
        continue;
      exits[chain.front()].push_back(static_cast<int>(e));
      entries[chain.back()].push_back(static_cast<int>(e));
    }
    auto spread = [&](int v, std::vector<int>& edges, bool exit, std::vector<double>& out) {
      std::sort(edges.begin(), edges.end(), [&](int a, int b) {
        const auto &ca = G.chain[a], &cb = G.chain[b];
        double xa = x[exit ? ca[1] : ca[ca.size() - 2]];
        double xb = x[exit ? cb[1] : cb[cb.size() - 2]];
        return xa < xb || (xa == xb && a < b);
      });
      const double k = static_cast<double>(edges.size()), span = G.w[v] * 0.6;
      for (size_t i = 0; i < edges.size(); ++i)
        out[edges[i]] = x[v] - span / 2 + span * (static_cast<double>(i) + 1) / (k + 1);
    };
    for (int v = 0; v < n; ++v) {
      spread(v, exits[v], true, exitX);
      spread(v, entries[v], false, entryX);
    }
  }

  GraphLayout L;
  L.engine = name();
  L.nodes.resize(n);
  for (int v = 0; v < n; ++v)
    L.nodes[v] = {x[v], y[v], G.w[v], G.h[v]};
  L.edges.resize(m);
  for (size_t e = 0; e < m; ++e) {
    EdgeGeometry& eg = L.edges[e];
    const auto& chain = G.chain[e];
    std::vector<Point> poly;
    if (chain.empty()) { // a self loop: out of the right side and back
      int v = dg.edges[e].from;
      double r = x[v] + G.w[v] / 2;
      poly = {{r, y[v] - G.h[v] / 4},
              {r + 14, y[v] - G.h[v] / 4},
              {r + 14, y[v] + G.h[v] / 4},
              {r, y[v] + G.h[v] / 4}};
    } else {
      poly.push_back(portOn(dg, G, x, y, chain.front(), exitX[e], true));
      for (size_t i = 1; i + 1 < chain.size(); ++i)
        poly.push_back({x[chain[i]], y[chain[i]]});
      poly.push_back(portOn(dg, G, x, y, chain.back(), entryX[e], false));
      if (G.reversed[e])
        std::reverse(poly.begin(), poly.end());
    }
    // The arrow head takes the last few points of the final segment.
    Point tip = poly.back(), prev = poly[poly.size() - 2];
    double dx = tip.x - prev.x, dy = tip.y - prev.y, len = std::hypot(dx, dy);
    if (len > 1e-9) {
      double a = std::min(kArrow, len / 2);
      eg.hasArrow = true;
      eg.arrowTip = tip;
      // Vertical tangents: the curve arrives straight down (up); the head
      // points along the last segment's end direction.
      double sy = chain.empty() ? 0 : (dy > 0 ? 1 : -1);
      poly.back() =
          chain.empty() ? Point{tip.x - a * dx / len, tip.y} : Point{tip.x, tip.y - sy * a};
    }
    eg.points.push_back(poly[0]);
    for (size_t i = 1; i < poly.size(); ++i) {
      if (chain.empty()) { // straight pieces
        Point a = poly[i - 1], b = poly[i];
        eg.points.push_back({a.x + (b.x - a.x) / 3, a.y + (b.y - a.y) / 3});
        eg.points.push_back({a.x + 2 * (b.x - a.x) / 3, a.y + 2 * (b.y - a.y) / 3});
        eg.points.push_back(b);
      } else {
        appendCurve(eg.points, poly[i - 1], poly[i]);
      }
    }
    const size_t mid = poly.size() / 2;
    eg.labelPos = poly.size() % 2 ? poly[mid]
                                  : Point{(poly[mid - 1].x + poly[mid].x) / 2,
                                          (poly[mid - 1].y + poly[mid].y) / 2};
  }

  L.clusters.resize(dg.clusters.size());
  for (size_t c = 0; c < dg.clusters.size(); ++c) {
    if (!dg.clusters[c].expanded || dg.clusters[c].members.empty())
      continue;
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (int v : dg.clusters[c].members) {
      if (v < 0 || v >= n)
        continue;
      x0 = std::min(x0, x[v] - G.w[v] / 2);
      x1 = std::max(x1, x[v] + G.w[v] / 2);
      y0 = std::min(y0, y[v] - G.h[v] / 2);
      y1 = std::max(y1, y[v] + G.h[v] / 2);
    }
    if (x0 > x1)
      continue;
    L.clusters[c] = {x0 - kClusterPad, y0 - kClusterPad - kClusterTitle, x1 - x0 + 2 * kClusterPad,
                     y1 - y0 + 2 * kClusterPad + kClusterTitle};
  }
  // Nested groups (scopes around fused groups and inner scopes): a parent's
  // box takes in its children's, innermost first (children come later).
  for (size_t c = dg.clusters.size(); c-- > 0;) {
    const int parent = dg.clusters[c].parent;
    if (parent < 0 || parent >= static_cast<int>(dg.clusters.size()) || L.clusters[c].width <= 0)
      continue;
    ClusterGeometry& p = L.clusters[parent];
    const ClusterGeometry& k = L.clusters[c];
    const double kx0 = k.x - kClusterPad, ky0 = k.y - kClusterPad - kClusterTitle;
    const double kx1 = k.x + k.width + kClusterPad, ky1 = k.y + k.height + kClusterPad;
    if (p.width <= 0) {
      p = {kx0, ky0, kx1 - kx0, ky1 - ky0};
      continue;
    }
    const double x0 = std::min(p.x, kx0), y0 = std::min(p.y, ky0);
    const double x1 = std::max(p.x + p.width, kx1), y1 = std::max(p.y + p.height, ky1);
    p = {x0, y0, x1 - x0, y1 - y0};
  }

  // Top-to-bottom coordinates to the requested direction.
  auto map = [&](Point p) -> Point {
    if (dir == "BT")
      return {p.x, height - p.y};
    if (dir == "LR")
      return {p.y, p.x};
    if (dir == "RL")
      return {height - p.y, p.x};
    return p;
  };
  if (dir != "TB") {
    for (NodeGeometry& g : L.nodes) {
      Point c = map({g.x, g.y});
      if (transpose)
        std::swap(g.width, g.height);
      g.x = c.x;
      g.y = c.y;
    }
    for (EdgeGeometry& eg : L.edges) {
      for (Point& p : eg.points)
        p = map(p);
      eg.arrowTip = map(eg.arrowTip);
      eg.labelPos = map(eg.labelPos);
    }
    for (ClusterGeometry& c : L.clusters) {
      if (c.width <= 0)
        continue;
      Point a = map({c.x, c.y}), b = map({c.x + c.width, c.y + c.height});
      c = {std::min(a.x, b.x), std::min(a.y, b.y), std::abs(b.x - a.x), std::abs(b.y - a.y)};
    }
  }
  L.width = transpose ? height : width;
  L.height = transpose ? width : height;
  L.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (cancelled())
    return std::nullopt;
  return L;
}

} // namespace unity::viz
