#include <gtest/gtest.h>

#include <algorithm>

#include "engine/text/parser.h"
#include "engine/viz/graph_layout.h"
#include "engine/viz/graph_model.h"
#include "tests/engine/viz/viz_test_util.h"

using namespace unity;
using namespace unity::viz;
using unity::viz::testing::aroundPass;
using unity::viz::testing::example;

namespace {

int countKind(const DataflowGraph& g, NodeKind k) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](auto& n) { return n.kind == k; }));
}

bool hasEdge(const DataflowGraph& g, int from, int to) {
  for (auto& e : g.edges)
    if (e.from == from && e.to == to)
      return true;
  return false;
}

} // namespace

// mlp.uir: x -> matmul(+w0) -> add(+b0) -> relu -> matmul(+w1) -> add(+b1) -> return.
TEST(VizGraphModel, MlpNodesAndEdges) {
  DataflowGraph g = extractGraph(example("mlp.uir"), "main");
  EXPECT_EQ(countKind(g, NodeKind::Param), 1);
  EXPECT_EQ(countKind(g, NodeKind::Op), 5);
  EXPECT_EQ(countKind(g, NodeKind::Constant), 4);
  EXPECT_EQ(countKind(g, NodeKind::Output), 1);
  EXPECT_EQ(g.nodes.size(), 11u);
  EXPECT_EQ(g.edges.size(), 10u); // 2 + 2 + 1 + 2 + 2 operands, 1 into the output
  int x = g.findNode("x"), lv0 = g.findNode("lv0"), lv2 = g.findNode("lv2"), gv = g.findNode("gv"),
      out = g.findNode("output");
  ASSERT_GE(x, 0);
  ASSERT_GE(lv0, 0);
  EXPECT_TRUE(hasEdge(g, x, lv0));
  EXPECT_TRUE(hasEdge(g, gv, out));
  EXPECT_EQ(g.nodes[lv0].op, "matmul");
  EXPECT_EQ(g.nodes[lv2].op, "nn.relu");
  EXPECT_EQ(g.nodes[lv2].opPattern, 0); // relu is elementwise
  EXPECT_EQ(g.nodes[lv0].origins, std::vector<std::string>{"fc1:Gemm"});
  EXPECT_EQ(g.nodes[lv0].line, 8);
  for (auto& e : g.edges) {
    if (e.from == x) {
      EXPECT_EQ(e.label, "(n, 784) float32");
    }
  }
  EXPECT_EQ(g.nodes[out].type, "(n, 10) float32");
}

TEST(VizGraphModel, ConstantsCanBeHidden) {
  ExtractOptions o;
  o.constants = false;
  DataflowGraph g = extractGraph(example("mlp.uir"), "main", o);
  EXPECT_EQ(g.nodes.size(), 7u);
  EXPECT_EQ(g.edges.size(), 6u);
}

TEST(VizGraphModel, HiddenConstantsArePropertiesOfTheirConsumers) {
  ExtractOptions o;
  o.constants = false;
  DataflowGraph g = extractGraph(example("mlp.uir"), "main", o);
  EXPECT_EQ(countKind(g, NodeKind::Constant), 0);
  // lv0 = matmul(x, w0): the weight is its operand 1, listed with its type.
  const int lv0 = g.findNode("lv0");
  ASSERT_GE(lv0, 0);
  ASSERT_EQ(g.nodes[lv0].constants.size(), 1u);
  EXPECT_EQ(g.nodes[lv0].constants[0].operand, 1);
  EXPECT_EQ(g.nodes[lv0].constants[0].type, "(784, 128) float32");
  // The box says so in short form, on a line of its own.
  EXPECT_EQ(g.nodes[lv0].label(), "lv0\nmatmul\n\u25C6 784\u00D7128 f32");
  // relu reads no constant.
  EXPECT_TRUE(g.nodes[g.findNode("lv2")].constants.empty());
  // With constants as nodes, nothing is listed on the consumer.
  DataflowGraph shown = extractGraph(example("mlp.uir"), "main");
  for (auto& n : shown.nodes)
    EXPECT_TRUE(n.constants.empty()) << n.name;
}

TEST(VizGraphModel, CompactTypes) {
  EXPECT_EQ(compactType("(16, 3, 3, 3) float32"), "16\u00D73\u00D73\u00D73 f32");
  EXPECT_EQ(compactType("(16,) float16"), "16 f16");
  EXPECT_EQ(compactType("() int64"), "scalar i64");
  EXPECT_EQ(compactType("int32"), "i32");
  EXPECT_EQ(compactType("((1, 2) float32, (3,) float32)"), "((1, 2) float32, (3,) float32)");
}

TEST(VizGraphModel, CollapsedFusedGroupCountsItsMembers) {
  ir::IRModule fused = aroundPass("mlp.uir", "FuseOps").second;
  DataflowGraph g = extractGraph(fused, "main");
  const int lv2 = g.findNode("lv2");
  ASSERT_GE(lv2, 0);
  ASSERT_EQ(g.nodes[lv2].kind, NodeKind::Cluster);
  EXPECT_EQ(g.nodes[lv2].members, 3); // matmul, add, relu
  EXPECT_EQ(g.clusters[g.nodes[lv2].collapsed].size, 3);
  const std::string label = g.nodes[lv2].label();
  EXPECT_NE(label.find("fused_matmul_add_relu"), std::string::npos) << label;
  EXPECT_NE(label.find("3 nodes"), std::string::npos) << label;
}

TEST(VizGraphModel, BadFunctionIsAnError) {
  ir::IRModule m = example("call_tir.uir");
  EXPECT_THROW(extractGraph(m, "nope"), Error);
  try {
    extractGraph(m, "matmul");
    FAIL() << "a PrimFunc has no dataflow graph";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("matmul"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not a graph-level function"), std::string::npos);
  }
  EXPECT_THROW(extractGraph(nullptr, "main"), Error);
}

TEST(VizGraphModel, CallTirCalleeAndPattern) {
  DataflowGraph g = extractGraph(example("call_tir.uir"), "main");
  int lv0 = g.findNode("lv0");
  ASSERT_GE(lv0, 0);
  EXPECT_EQ(g.nodes[lv0].op, "call_tir");
  EXPECT_EQ(g.nodes[lv0].callee, "matmul");
  EXPECT_EQ(g.nodes[lv0].label(), "lv0\nmatmul"); // the callee, not "call_tir"
  EXPECT_EQ(g.nodes[g.findNode("x")].label(), "x");
  EXPECT_EQ(g.nodes.size(), 3u + 3u + 1u); // 3 params, 3 calls, output
}

// A placeholder the importer left for a node it could not convert
// (ImportOptions::keepUnsupported) is labelled with that node's operator and
// coloured apart from every operator pattern.
TEST(VizGraphModel, UnsupportedPlaceholderIsLabelledWithItsOperatorAndMarked) {
  ir::IRModule m = text::parseModule(R"(@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        f: R.Tensor((2, 3), "float32") = R.unsupported(x, node="frob", op_type="Frobnicate", reason="unknown operator", out_sinfo=R.Tensor((2, 3), "float32"))
        y: R.Tensor((2, 3), "float32") = R.nn.relu(f)
        R.output(y)
    return y
)",
                                     "open.uir");
  DataflowGraph g = extractGraph(m, "main");
  int f = g.findNode("f"), y = g.findNode("y");
  ASSERT_GE(f, 0);
  ASSERT_GE(y, 0);
  EXPECT_EQ(g.nodes[f].label(), "f\nunsupported: Frobnicate");
  EXPECT_EQ(g.nodes[y].label(), "y\nnn.relu");
  for (auto& n : g.nodes)
    if (n.kind == NodeKind::Op && n.op != "unsupported") {
      EXPECT_NE(nodeColor(n), nodeColor(g.nodes[f])) << n.op;
    }
}

TEST(VizGraphModel, FusedGroupsAreCollapsibleClusters) {
  ir::IRModule fused = aroundPass("mlp.uir", "FuseOps").second;
  EXPECT_EQ(graphFunctions(fused), std::vector<std::string>{"main"});
  DataflowGraph g = extractGraph(fused, "main");
  ASSERT_EQ(g.clusters.size(), 2u);
  EXPECT_EQ(countKind(g, NodeKind::Cluster), 2);
  int lv2 = g.findNode("lv2");
  ASSERT_GE(lv2, 0);
  EXPECT_EQ(g.nodes[lv2].kind, NodeKind::Cluster);
  EXPECT_EQ(g.nodes[lv2].callee, "fused_matmul_add_relu");
  EXPECT_FALSE(g.clusters[g.nodes[lv2].collapsed].expanded);

  ExtractOptions o;
  o.expanded = {"fused_matmul_add_relu"};
  DataflowGraph e = extractGraph(fused, "main", o);
  EXPECT_EQ(countKind(e, NodeKind::Cluster), 1); // the other group stays collapsed
  const GraphCluster* c = nullptr;
  for (auto& cl : e.clusters)
    if (cl.function == "fused_matmul_add_relu")
      c = &cl;
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->expanded);
  std::vector<std::string> ops;
  for (int m : c->members)
    if (e.nodes[m].kind == NodeKind::Op)
      ops.push_back(e.nodes[m].callee);
  EXPECT_EQ(ops, (std::vector<std::string>{"matmul", "add", "relu"}));
  // The inner matmul reads the outer parameter x; the next group reads the inner relu.
  int x = e.findNode("x");
  int innerMatmul = -1, innerRelu = -1, next = -1;
  for (auto& n : e.nodes) {
    if (n.cluster >= 0 && n.callee == "matmul")
      innerMatmul = n.id;
    if (n.cluster >= 0 && n.callee == "relu")
      innerRelu = n.id;
    if (n.callee == "fused_matmul1_add1")
      next = n.id;
  }
  ASSERT_GE(innerMatmul, 0);
  ASSERT_GE(next, 0);
  EXPECT_TRUE(hasEdge(e, x, innerMatmul));
  EXPECT_TRUE(hasEdge(e, innerRelu, next));
}

TEST(VizGraphModel, FusedPrimFuncExpandsIntoBlocks) {
  ir::IRModule m = aroundPass("mlp.uir", "FuseTIR").second;
  ExtractOptions o;
  o.expanded = {"fused_matmul_add_relu"};
  DataflowGraph g = extractGraph(m, "main", o);
  // AlterMatmulLayout packed the constant weight: the products sum into
  // T_matmul_blocked (panels of columns), which T_matmul copies back.
  int matmul = g.findNode("T_matmul_blocked"), copy = g.findNode("T_matmul"),
      add = g.findNode("T_add"), relu = g.findNode("T_relu");
  ASSERT_GE(matmul, 0);
  ASSERT_GE(copy, 0);
  ASSERT_GE(add, 0);
  ASSERT_GE(relu, 0);
  EXPECT_EQ(g.nodes[matmul].kind, NodeKind::Block);
  EXPECT_EQ(g.nodes[matmul].opPattern, 3); // has a reduce axis
  EXPECT_NE(g.nodes[copy].opPattern, 3);
  EXPECT_TRUE(hasEdge(g, g.findNode("x"), matmul));
  EXPECT_TRUE(hasEdge(g, matmul, copy));
  EXPECT_TRUE(hasEdge(g, copy, add));
  EXPECT_TRUE(hasEdge(g, add, relu));
  int gv = g.findNode("gv");
  ASSERT_GE(gv, 0);
  EXPECT_TRUE(hasEdge(g, relu, gv));
}

TEST(VizGraphModel, TypeLabels) {
  using namespace unity::ir;
  EXPECT_EQ(typeLabel(tensorSInfo(DataType::Float32(), std::vector<int64_t>{2, 3})),
            "(2, 3) float32");
  EXPECT_EQ(typeLabel(tensorSInfo(DataType::Float32(), std::vector<int64_t>{4})), "(4,) float32");
  EXPECT_EQ(typeLabel(tensorSInfo(DataType::Int64(), 2)), "ndim=2 int64");
  EXPECT_EQ(typeLabel(nullptr), "");
}
