// Issue #7's acceptance scenario, driven through the workbench's own drop
// zones: an imported ONNX conv model, the convolutions dragged onto a `dnnl`
// sub-target and the classifier (Gemm) onto `compat` (c); the rebuilt model
// computes what the all-llvm build does, the Code view shows the C of the
// compat part, and undo takes it all back.
#include <gtest/gtest.h>

#include "engine/build.h"
#include "engine/ir/expr.h"
#include "tests/engine/frontend/onnx_test_util.h"
#include "views/code_view.h"
#include "views/graph_view.h"
#include "views/session.h"
#include "views/target_drag.h"
#include "views/target_palette.h"

#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <memory>

using namespace lowerscope;

namespace {

constexpr int kBuildMs = 120 * 1000;

std::vector<float> values(size_t n, double scale, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = float(std::sin(double(i * 31 + seed)) * scale);
  return v;
}

/// Conv-Relu-MaxPool-Conv-Relu-GlobalAveragePool-Flatten-Gemm, named as an
/// exporter would ("Conv_0", ..., "Gemm_7").
std::string convNet() {
  unity::testing::OnnxModelBuilder b;
  b.input("x", {int64_t(1), int64_t(3), int64_t(16), int64_t(16)});
  b.initializer("w1", {8, 3, 3, 3}, values(8 * 27, 0.3, 1));
  b.initializer("b1", {8}, values(8, 0.1, 2));
  b.initializer("w2", {16, 8, 3, 3}, values(16 * 72, 0.2, 3));
  b.initializer("b2", {16}, values(16, 0.1, 4));
  b.initializer("wf", {10, 16}, values(160, 0.3, 5));
  b.initializer("bf", {10}, values(10, 0.1, 6));
  auto pads = [](onnx::NodeProto* n) {
    unity::testing::OnnxModelBuilder::attrInts(n, "pads", {1, 1, 1, 1});
  };
  pads(b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "Conv_0"));
  b.node("Relu", {"c1"}, {"r1"}, "Relu_1");
  auto* pool = b.node("MaxPool", {"r1"}, {"p1"}, "MaxPool_2");
  unity::testing::OnnxModelBuilder::attrInts(pool, "kernel_shape", {2, 2});
  unity::testing::OnnxModelBuilder::attrInts(pool, "strides", {2, 2});
  pads(b.node("Conv", {"p1", "w2", "b2"}, {"c2"}, "Conv_3"));
  b.node("Relu", {"c2"}, {"r2"}, "Relu_4");
  b.node("GlobalAveragePool", {"r2"}, {"g"}, "GlobalAveragePool_5");
  b.node("Flatten", {"g"}, {"f"}, "Flatten_6");
  unity::testing::OnnxModelBuilder::attrInt(b.node("Gemm", {"f", "wf", "bf"}, {"y"}, "Gemm_7"),
                                            "transB", 1);
  b.output("y");
  return b.bytes();
}

bool build(Session& s) {
  bool ok = false;
  auto c = QObject::connect(&s, &Session::buildFinished, [&](bool success) { ok = success; });
  bool started = s.startBuild();
  bool done = started && s.waitForBuild(kBuildMs);
  QObject::disconnect(c);
  return done && ok;
}

/// Waits for the rebuild a drop / undo started.
bool settle(Session& s) {
  // A drop queues its assignment (a zero-time call, so the zone can be
  // rebuilt); applying it or an undo starts the build at once, and a build
  // counts as running until its result is in the session.
  QCoreApplication::processEvents();
  return s.waitForBuild(kBuildMs);
}

std::vector<int> nodesFrom(const GraphView& view, const QStringList& sources) {
  std::vector<int> out;
  for (const auto& n : view.shown()->graph.nodes)
    for (const auto& o : n.origins)
      if (sources.contains(QString::fromStdString(o.substr(0, o.rfind(':'))))) {
        out.push_back(n.id);
        break;
      }
  return out;
}

/// Selects `nodes`, takes the view's drag data and drops it on `zone`.
void dragOnto(GraphView& view, const std::vector<int>& nodes, QWidget* zone) {
  view.setSelectedNodes(nodes);
  QString error;
  std::unique_ptr<QMimeData> mime(view.selectionMimeData(&error));
  ASSERT_TRUE(mime) << error.toStdString();
  QPointF at(zone->width() / 2.0, zone->height() / 2.0);
  QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(zone, &enter);
  ASSERT_TRUE(enter.isAccepted());
  QDropEvent drop(at, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(zone, &drop);
  ASSERT_TRUE(drop.isAccepted());
}

std::vector<unity::Tensor> run(const Session& s) {
  unity::Tensor x(unity::DataType::Float(32), {1, 3, 16, 16});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.setDouble(i, std::cos(double(i) * 0.37));
  return s.lastBuild()->executable->runTensors({x});
}

double maxDiff(const std::vector<unity::Tensor>& a, const std::vector<unity::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k)
    for (int64_t i = 0; i < a[k].numel(); ++i)
      d = std::max(d, std::fabs(a[k].getDouble(i) - b[k].getDouble(i)));
  return d;
}

QStringList functionsOn(const unity::ir::IRModule& m, const std::string& sub) {
  QStringList out;
  for (auto& [name, f] : m->functions)
    if (f->attrs.getString("target") == sub)
      out << QString::fromStdString(name);
  return out;
}

} // namespace

TEST(TargetAcceptanceTest, OnnxConvsOnDnnlClassifierOnCompatSameOutputsThenUndoAll) {
  QTemporaryDir dir;
  const QString path = dir.filePath("convnet.onnx");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(convNet()));
  }
  Session s;
  QString error;
  ASSERT_TRUE(s.open(path, &error)) << error.toStdString();
  ASSERT_TRUE(build(s));
  const auto want = run(s); // all llvm

  GraphView view(&s);
  TargetPalette palette(&s);
  CodeView code(&s);
  ASSERT_TRUE(s.setCompositeTarget("fast: llvm; conv: dnnl; compat: c"));
  QCoreApplication::processEvents();
  s.setCurrentStep(0);
  ASSERT_TRUE(view.waitForLayout(30000));
  std::vector<int> convs = nodesFrom(view, {"Conv_0", "Conv_3"});
  std::vector<int> gemm = nodesFrom(view, {"Gemm_7"});
  ASSERT_FALSE(convs.empty());
  ASSERT_FALSE(gemm.empty());

  dragOnto(view, convs, palette.zone("conv"));
  ASSERT_TRUE(settle(s));
  s.setCurrentStep(0);
  ASSERT_TRUE(view.waitForLayout(30000));
  QCoreApplication::processEvents();
  dragOnto(view, nodesFrom(view, {"Gemm_7"}), palette.zone("compat"));
  ASSERT_TRUE(settle(s));

  EXPECT_EQ(s.undoStack()->count(), 2);
  EXPECT_EQ(s.assignments(),
            (TargetAssignments{{"Conv_0", "conv"}, {"Conv_3", "conv"}, {"Gemm_7", "compat"}}));
  int partition = s.findStep("PartitionByTarget");
  ASSERT_GT(partition, 0);
  EXPECT_EQ(functionsOn(s.moduleAt(partition), "conv").size(), 2) << "one function per conv";
  EXPECT_EQ(functionsOn(s.moduleAt(partition), "compat").size(), 1);
  // Rebuilt and run: the same outputs as all-llvm.
  ASSERT_TRUE(s.lastBuild() && s.lastBuild()->executable);
  EXPECT_LT(maxDiff(run(s), want), 1e-4);
  // What Build > Run and Compare reports agrees.
  bool compared = false, same = false;
  QString report;
  QObject::connect(&s, &Session::comparisonFinished, [&](bool ok, double, const QString& r) {
    compared = true;
    same = ok;
    report = r;
  });
  ASSERT_TRUE(s.compareWithLlvm());
  EXPECT_FALSE(s.compareWithLlvm()) << "one comparison at a time";
  for (int i = 0; i < 12000 && !compared; ++i)
    QTest::qWait(10);
  ASSERT_TRUE(compared);
  EXPECT_TRUE(same) << report.toStdString();
  EXPECT_TRUE(report.contains("same outputs")) << report.toStdString();
  // The C code of the compat part.
  ASSERT_TRUE(code.selectPart("compat"));
  EXPECT_FALSE(code.text(CodeView::Kind::C).isEmpty());
  EXPECT_TRUE(code.partNames().contains("conv"));

  // Undo it all.
  s.undoStack()->undo();
  ASSERT_TRUE(settle(s));
  s.undoStack()->undo();
  ASSERT_TRUE(settle(s));
  EXPECT_TRUE(s.assignments().empty());
  EXPECT_FALSE(s.undoStack()->canUndo());
  partition = s.findStep("PartitionByTarget");
  ASSERT_GT(partition, 0);
  EXPECT_TRUE(functionsOn(s.moduleAt(partition), "conv").isEmpty());
  EXPECT_TRUE(functionsOn(s.moduleAt(partition), "compat").isEmpty());
  EXPECT_LT(maxDiff(run(s), want), 1e-4);
}
