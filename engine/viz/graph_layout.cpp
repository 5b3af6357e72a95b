// Graphviz layout and export of dataflow graphs (see graph_layout.h).
//
// The only place that talks to libgvc/cgraph. We go through DOT text rather
// than building the graph with agnode/agedge calls so that the layout, the
// `render --format dot` output and the SVG/PNG exports are exactly the same
// graph. Results are read from Graphviz's own layout records (ND_coord,
// ED_spl, GD_bb), converted from its y-up coordinates to y-down.
#include "engine/viz/graph_layout.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>

#include "engine/support/error.h"
#include "engine/viz/layered_layout.h"

namespace unity::viz {

namespace {

std::mutex& graphvizMutex() {
  static std::mutex mu;
  return mu;
}

/// One context for the process (loading the plugins is the slow part).
/// Callers hold graphvizMutex().
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void writeNode(std::string& out, const GraphNode& n, const std::string& indent, bool sized) {
  std::string shape = "box", style = "rounded,filled", extra;
  switch (n.kind) {
  case NodeKind::Param:
  case NodeKind::Output:
    shape = "ellipse";
    style = "filled";
    break;
  case NodeKind::Constant:
    extra = " fontsize=8 height=0.25";
    break;
  case NodeKind::Cluster:
    style = "rounded,filled,bold";
    extra = " penwidth=2";
    break;
  default:
    break;
  }
  std::string label = escape(n.label());
  if (sized) {
    // dot needs no text to place a box of known size: skipping the label
    // skips Pango's text measurement.
    NodeGeometry size = estimateNodeSize(n);
    label.clear();
    extra += " width=" + num(size.width / 72.0) + " height=" + num(size.height / 72.0) +
             " fixedsize=true";
  }
  out += indent + "n" + std::to_string(n.id) + " [label=\"" + label + "\" shape=" + shape +
         " style=\"" + style + "\" fillcolor=\"" + nodeColor(n) + "\"" + extra + "];\n";
}

/// Graphviz errors go to stderr by default; keep them for our exception.
struct ErrorCapture {
  static std::string& last() {
    static std::string s;
    return s;
  }
  static int handler(char* msg) {
    last() += msg;
    return 0;
  }
  ErrorCapture() {
    last().clear();
    agseterrf(&ErrorCapture::handler);
  }
  ~ErrorCapture() { agseterrf(nullptr); }
};

/// A graph read from DOT and laid out by dot; frees both on scope exit.
class LaidOut {
public:
  LaidOut(const std::string& dot, const char* what) {
    g_ = agmemread(dot.c_str());
    if (!g_)
      throw Error(std::string(what) +
                  ": Graphviz could not read the graph: " + ErrorCapture::last());
    if (gvLayout(context(), g_, "dot") != 0) {
      agclose(g_);
      throw Error(std::string(what) + ": Graphviz dot layout failed: " + ErrorCapture::last());
    }
  }
  ~LaidOut() {
    gvFreeLayout(context(), g_);
    agclose(g_);
  }
  LaidOut(const LaidOut&) = delete;
  LaidOut& operator=(const LaidOut&) = delete;
  Agraph_t* get() const { return g_; }

private:
  Agraph_t* g_ = nullptr;
};

Point bezierAt(const pointf* p, double t) {
  double u = 1 - t;
  double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
  return {a * p[0].x + b * p[1].x + c * p[2].x + d * p[3].x,
          a * p[0].y + b * p[1].y + c * p[2].y + d * p[3].y};
}

} // namespace

std::string opPatternLabel(int pattern) {
  switch (pattern) {
  case 0:
    return "elemwise";
  case 1:
    return "broadcast";
  case 2:
    return "injective";
  case 3:
    return "reduce";
  case 4:
    return "out-elemwise-fusable";
  case 7:
    return "tuple";
  case 8:
    return "opaque";
  default:
    return "";
  }
}

std::string nodeColor(const GraphNode& n) {
  switch (n.kind) {
  case NodeKind::Param:
    return "#cfe2ff";
  case NodeKind::Constant:
    return "#e9ecef";
  case NodeKind::Output:
    return "#ffe8cc";
  default:
    break;
  }
  if (n.op == "unsupported")
    return "#ff8787"; // a node the importer could not convert: strong red, marked
  switch (n.opPattern) {
  case 0:
    return "#c3fae8"; // elemwise: teal
  case 1:
    return "#d3f9d8"; // broadcast: green
  case 2:
    return "#fff3bf"; // injective: yellow
  case 3:
    return "#ffd8a8"; // reduce: orange
  case 4:
    return "#ffc9c9"; // conv / matmul: red
  case 7:
    return "#e5dbff"; // tuple: violet
  case 8:
    return "#dee2e6"; // opaque: grey
  default:
    return "#f8f9fa";
  }
}

std::string toDot(const DataflowGraph& g, const DotOptions& opts) {
  std::string out = "digraph \"" + escape(g.function) + "\" {\n";
  out += "  graph [rankdir=" + opts.rankdir + " nslimit=" + num(opts.nslimit) +
         " nslimit1=" + num(opts.nslimit1) + " mclimit=" + num(opts.mclimit) +
         " searchsize=" + std::to_string(opts.searchsize) +
         " ranksep=0.35 nodesep=0.25 fontname=\"DejaVu Sans\" fontsize=10];\n";
  out += "  node [fontname=\"DejaVu Sans\" fontsize=10 margin=\"0.08,0.03\" height=0.3];\n";
  out += "  edge [fontname=\"DejaVu Sans\" fontsize=8 arrowsize=0.6];\n";
  // Expanded clusters as subgraphs, nested as GraphCluster::parent says
  // (scope groups hold fused groups and inner scopes).
  std::vector<std::vector<int>> childClusters(g.clusters.size());
  std::vector<char> hasContent(g.clusters.size(), 0);
  for (size_t ci = 0; ci < g.clusters.size(); ++ci) {
    const GraphCluster& c = g.clusters[ci];
    if (!c.expanded)
      continue;
    if (c.parent >= 0 && static_cast<size_t>(c.parent) < g.clusters.size())
      childClusters[c.parent].push_back(static_cast<int>(ci));
  }
  for (size_t ci = g.clusters.size(); ci-- > 0;) { // children have larger indices
    const GraphCluster& c = g.clusters[ci];
    hasContent[ci] = c.expanded && !c.members.empty();
    for (int child : childClusters[ci])
      hasContent[ci] = hasContent[ci] || hasContent[child];
  }
  std::function<void(int, const std::string&)> writeCluster = [&](int ci,
                                                                  const std::string& indent) {
    const GraphCluster& c = g.clusters[ci];
    out += indent + "subgraph cluster_" + std::to_string(ci) + " {\n";
    // The title the view draws ("layer.3 · 2162 nodes"), so the box is wide
    // enough for it.
    std::string title = c.scope ? c.function.substr(c.function.rfind('/') + 1) : c.function;
    if (c.size > 0)
      title += " \xC2\xB7 " + std::to_string(c.size) + " nodes";
    out +=
        indent + "  label=\"" + escape(title) + "\" style=\"rounded,dashed\" color=\"#868e96\";\n";
    for (int child : childClusters[ci])
      if (hasContent[child])
        writeCluster(child, indent + "  ");
    for (int m : c.members)
      writeNode(out, g.nodes[m], indent + "  ", opts.sizedNodes);
    out += indent + "}\n";
  };
  for (size_t ci = 0; ci < g.clusters.size(); ++ci) {
    const GraphCluster& c = g.clusters[ci];
    if (hasContent[ci] && (c.parent < 0 || static_cast<size_t>(c.parent) >= g.clusters.size() ||
                           !g.clusters[c.parent].expanded))
      writeCluster(static_cast<int>(ci), "  ");
  }
  for (auto& n : g.nodes)
    if (n.cluster < 0)
      writeNode(out, n, "  ", opts.sizedNodes);
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const GraphEdge& e = g.edges[i];
    out += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to) + " [id=\"e" +
           std::to_string(i) + "\"";
    if (opts.edgeLabels && !e.label.empty())
      out += " label=\"" + escape(e.label) + "\"";
    out += "];\n";
  }
  out += "}\n";
  return out;
}

// DejaVu Sans advance widths of ' ' .. '~' in 1/1000 em.
constexpr short kDejaVuSansWidths[95] = {
    318,  401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, // ' '../
    636,  636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, // 0..?
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, // @..O
    603,  787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, // P.._
    500,  613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, // `..o
    635,  635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838};     // p..~

double textWidth(const std::string& text, double fontSize) {
  double em = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 32 && c < 127) {
      em += kDejaVuSansWidths[c - 32] / 1000.0;
    } else if (c >= 0xC0 || c < 0x80) { // a UTF-8 lead byte (or a control character)
      em += 0.6;
    } // continuation bytes add nothing
  }
  return em * fontSize;
}

NodeGeometry estimateNodeSize(const GraphNode& n) {
  // The DOT output's settings: fontsize 10 (8 for constants), margin
  // 0.08 x 0.03 in, height >= 0.3 in (0.25 for constants), width >= 0.75 in.
  const bool constant = n.kind == NodeKind::Constant;
  const double fontSize = constant ? 8 : 10, lineHeight = fontSize * 1.2;
  double textW = 0;
  int lines = 0;
  std::string label = n.label();
  for (size_t start = 0;;) {
    size_t end = label.find('\n', start);
    textW = std::max(textW, textWidth(label.substr(start, end - start), fontSize));
    ++lines;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  double w = textW + 2 * 0.08 * 72, h = lines * lineHeight + 2 * 0.03 * 72;
  if (n.kind == NodeKind::Param || n.kind == NodeKind::Output) {
    w *= 1.4142; // an ellipse around the text box
    h *= 1.4142;
  }
  NodeGeometry geo;
  geo.width = std::ceil(std::max(w, 0.75 * 72));
  geo.height = std::ceil(std::max(h, (constant ? 0.25 : 0.3) * 72));
  return geo;
}

const GraphLayouter& chooseLayouter(const DataflowGraph& g, const LayoutOptions& opts) {
  static const GraphvizLayouter dot;
  static const LayeredLayouter layered;
  switch (opts.engine) {
  case LayoutEngine::Graphviz:
    return dot;
  case LayoutEngine::Layered:
    return layered;
  case LayoutEngine::Auto:
    break;
  }
  return g.nodes.size() > opts.layeredAbove ? static_cast<const GraphLayouter&>(layered) : dot;
}

std::optional<GraphLayout> layoutGraph(const DataflowGraph& g, const LayoutOptions& opts) {
  return chooseLayouter(g, opts).layout(g, opts);
}

std::optional<GraphLayout> GraphvizLayouter::layout(const DataflowGraph& g,
                                                    const LayoutOptions& opts) const {
  auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };
  if (cancelled())
    return std::nullopt;
  DotOptions dopts;
  dopts.edgeLabels = opts.edgeLabels;
  dopts.rankdir = opts.rankdir;
  dopts.nslimit = opts.nslimit;
  dopts.nslimit1 = opts.nslimit1;
  dopts.mclimit = opts.mclimit;
  dopts.searchsize = opts.searchsize;
  dopts.sizedNodes = !opts.measureLabels;
  // dot's network simplex may run nslimit x nodes iterations, each linear
  // in the graph: on 5,000 nodes the default bound allows ~20,000 (about a
  // minute) for a few pixels of straighter edges. Big graphs get a fixed
  // budget of iterations instead.
  const double nodes = static_cast<double>(g.nodes.size());
  if (nodes > kBigGraphNodes) {
    dopts.nslimit = std::min(dopts.nslimit, kBigGraphSimplexIterations / nodes);
    dopts.nslimit1 = std::min(dopts.nslimit1, kBigGraphSimplexIterations / nodes);
    dopts.mclimit = std::min(dopts.mclimit, 0.2);
  }
  std::string dot = toDot(g, dopts);

  std::lock_guard lock(graphvizMutex());
  if (cancelled()) // we may have waited for another layout
    return std::nullopt;
  auto t0 = std::chrono::steady_clock::now();
  ErrorCapture errors;
  LaidOut laid(dot, ("layout of '" + g.function + "'").c_str());
  Agraph_t* ag = laid.get();
  GraphLayout L;
  L.engine = name();
  L.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (cancelled())
    return std::nullopt;

  boxf bb = GD_bb(ag);
  double top = bb.UR.y;
  L.width = bb.UR.x - bb.LL.x;
  L.height = bb.UR.y - bb.LL.y;
  auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, top - p.y}; };

  L.nodes.resize(g.nodes.size());
  for (auto& n : g.nodes) {
    std::string name = "n" + std::to_string(n.id);
    Agnode_t* an = agnode(ag, name.data(), 0);
    if (!an)
      throw Error("layout of '" + g.function + "': node " + name + " vanished in Graphviz");
    Point c = flip(ND_coord(an));
    L.nodes[n.id] = {c.x, c.y, ND_width(an) * 72.0, ND_height(an) * 72.0};
  }

  L.edges.resize(g.edges.size());
  for (Agnode_t* an = agfstnode(ag); an; an = agnxtnode(ag, an)) {
    for (Agedge_t* ae = agfstout(ag, an); ae; ae = agnxtout(ag, ae)) {
      char* id = agget(ae, const_cast<char*>("id"));
      if (!id || id[0] != 'e')
        continue;
      size_t index = std::strtoul(id + 1, nullptr, 10);
      if (index >= L.edges.size() || !ED_spl(ae) || ED_spl(ae)->size == 0)
        continue;
      const bezier& bz = ED_spl(ae)->list[0];
      EdgeGeometry& eg = L.edges[index];
      for (int i = 0; i < bz.size; ++i)
        eg.points.push_back(flip(bz.list[i]));
      if (bz.eflag) {
        eg.hasArrow = true;
        eg.arrowTip = flip(bz.ep);
      }
      if (ED_label(ae) && ED_label(ae)->set) {
        eg.labelPos = flip(ED_label(ae)->pos);
      } else if (bz.size >= 4) {
        int segments = (bz.size - 1) / 3;
        int seg = (segments - 1) / 2;
        Point mid = bezierAt(bz.list + 3 * seg, segments % 2 ? 0.5 : 1.0);
        eg.labelPos = Point{mid.x - bb.LL.x, top - mid.y};
      } else if (!eg.points.empty()) {
        eg.labelPos = eg.points[eg.points.size() / 2];
      }
    }
  }

  L.clusters.resize(g.clusters.size());
  // Nested clusters (scope groups) are listed under their parent's subgraph.
  std::function<void(Agraph_t*)> readClusters = [&](Agraph_t* parent) {
    for (int i = 1; i <= GD_n_cluster(parent); ++i) {
      Agraph_t* sg = GD_clust(parent)[i];
      readClusters(sg);
      std::string name = agnameof(sg);
      if (name.rfind("cluster_", 0) != 0)
        continue;
      size_t index = std::strtoul(name.c_str() + 8, nullptr, 10);
      if (index >= L.clusters.size())
        continue;
      boxf cb = GD_bb(sg);
      Point tl = flip(pointf{cb.LL.x, cb.UR.y});
      L.clusters[index] = {tl.x, tl.y, cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y};
    }
  };
  readClusters(ag);
  return L;
}

std::string renderGraph(const DataflowGraph& g, const std::string& format, const DotOptions& opts) {
  if (format == "dot")
    return toDot(g, opts);
  if (format != "svg" && format != "png")
    throw Error("render: unknown format '" + format + "' (expected svg, png or dot)");
  std::string dot = toDot(g, opts);
  std::lock_guard lock(graphvizMutex());
  ErrorCapture errors;
  LaidOut laid(dot, ("render of '" + g.function + "'").c_str());
  char* data = nullptr;
  unsigned int length = 0;
  if (gvRenderData(context(), laid.get(), format.c_str(), &data, &length) != 0 || !data)
    throw Error("render of '" + g.function + "': Graphviz could not render " + format + ": " +
                ErrorCapture::last());
  std::string out(data, length);
  gvFreeRenderData(data);
  return out;
}

} // namespace unity::viz
