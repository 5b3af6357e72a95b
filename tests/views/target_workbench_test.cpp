// Drag-to-target in the workbench: the target palette's validation, a real
// drop of a graph selection on a sub-target (annotate + partition + rebuild,
// outputs equal to the all-llvm build), undo/redo, session save/reopen, the
// code view of a `c` part, and Ctrl+click multi-selection on the canvas.
#include <gtest/gtest.h>

#include "app/gui/command_line.h"
#include "app/gui/main_window.h"
#include "engine/build.h"
#include "engine/ir/expr.h"
#include "engine/target/target.h"
#include "engine/transform/partition.h"
#include "views/code_view.h"
#include "views/graph_view.h"
#include "views/session.h"
#include "views/target_drag.h"
#include "views/target_palette.h"

#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QUndoStack>

#include <cmath>

using namespace lowerscope;

namespace {

constexpr int kBuildMs = 120 * 1000;
const QString kTarget = QStringLiteral("fast: llvm; compat: c");

QString example(const char* name) {
  return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/resources/examples/") + name;
}

bool build(Session& s) {
  bool ok = false;
  auto c = QObject::connect(&s, &Session::buildFinished, [&](bool success) { ok = success; });
  if (!s.isBuilding() && !s.startBuild())
    return false;
  bool done = s.waitForBuild(kBuildMs);
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

std::vector<unity::Tensor> fixedInputs(const unity::ir::IRModule& m) {
  auto* main = unity::ir::as<unity::ir::Function>(m->lookup("main"));
  std::vector<unity::Tensor> out;
  for (auto& p : main->params) {
    auto* t = unity::ir::as<unity::ir::TensorSInfo>(p->sinfo);
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(unity::ir::asConstInt(d).value_or(1));
    unity::Tensor x(t->dtype, shape);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, std::sin(double(i * 7 + 3)));
    out.push_back(std::move(x));
  }
  return out;
}

double maxDiff(const std::vector<unity::Tensor>& a, const std::vector<unity::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    EXPECT_EQ(a[k].shape(), b[k].shape());
    for (int64_t i = 0; i < a[k].numel(); ++i)
      d = std::max(d, std::fabs(a[k].getDouble(i) - b[k].getDouble(i)));
  }
  return d;
}

/// Functions of `m` whose "target" attribute is `sub`.
QStringList functionsOn(const unity::ir::IRModule& m, const std::string& sub) {
  QStringList out;
  for (auto& [name, f] : m->functions)
    if (f->attrs.getString("target") == sub)
      out << QString::fromStdString(name);
  return out;
}

/// The nodes of the shown graph that come from source node `origin`.
std::vector<int> nodesFrom(const GraphView& view, const std::string& origin) {
  std::vector<int> out;
  for (const auto& n : view.shown()->graph.nodes)
    for (const auto& o : n.origins)
      if (o.rfind(origin + ":", 0) == 0) {
        out.push_back(n.id);
        break;
      }
  return out;
}

/// Sends a real drop of `mime` onto `zone`, as Qt delivers one.
void dropOn(QWidget* zone, QMimeData* mime) {
  QPointF at(zone->width() / 2.0, zone->height() / 2.0);
  QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(zone, &enter);
  EXPECT_TRUE(enter.isAccepted()) << "the zone must accept the selection's MIME type";
  QDropEvent drop(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(zone, &drop);
  EXPECT_TRUE(drop.isAccepted());
}

std::string engineMessage(const std::string& target) {
  try {
    unity::target::CompositeTarget::parse(target);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

} // namespace

TEST(TargetPaletteTest, InvalidTargetIsMarkedWithTheEnginesMessageAndNotApplied) {
  Session s;
  TargetPalette palette(&s);
  const std::string bad = "fast: llvm; compat: nosuchkind";
  const std::string want = engineMessage(bad);
  ASSERT_FALSE(want.empty()) << "the engine must reject the kind";
  QTest::keyClicks(palette.targetEdit(), QString::fromStdString(bad));
  EXPECT_TRUE(palette.isMarkedInvalid());
  EXPECT_EQ(palette.errorText().toStdString(), want);
  EXPECT_FALSE(palette.applyEdit());
  EXPECT_TRUE(s.compositeTarget().isEmpty()) << "an invalid target must not be applied";
  EXPECT_TRUE(palette.zones().isEmpty());

  palette.targetEdit()->clear();
  QTest::keyClicks(palette.targetEdit(), kTarget);
  EXPECT_FALSE(palette.isMarkedInvalid());
  EXPECT_TRUE(palette.errorText().isEmpty());
  EXPECT_TRUE(palette.applyEdit());
  EXPECT_EQ(s.subTargets(), (QStringList{"fast", "compat"}));
  QCoreApplication::processEvents();
  ASSERT_EQ(palette.zones().size(), 2);
  EXPECT_NE(palette.zone("compat"), nullptr);
  EXPECT_TRUE(palette.zone("compat")->acceptDrops());
}

TEST(TargetWorkbenchTest, DropOnSubTargetPartitionsAndOutputsEqualAllLlvm) {
  Session s;
  ASSERT_TRUE(s.open(example("cnn.uir")));
  // The all-llvm reference.
  ASSERT_TRUE(build(s));
  ASSERT_TRUE(s.lastBuild() && s.lastBuild()->executable);
  const auto inputs = fixedInputs(s.module());
  const auto want = s.lastBuild()->executable->runTensors(inputs);

  GraphView view(&s);
  TargetPalette palette(&s);
  ASSERT_TRUE(s.setCompositeTarget(kTarget));
  s.setCurrentStep(0); // the input graph: nodes carry origins and binding names
  ASSERT_TRUE(view.waitForLayout(30000));
  ASSERT_TRUE(view.shown());
  std::vector<int> fc = nodesFrom(view, "fc");
  ASSERT_EQ(fc.size(), 2u) << "dense and its bias add come from the Gemm 'fc'";
  view.setSelectedNodes(fc);
  EXPECT_EQ(view.selectedNodes(), fc);
  QString error;
  std::unique_ptr<QMimeData> mime(view.selectionMimeData(&error));
  ASSERT_TRUE(mime) << error.toStdString();
  ASSERT_TRUE(mime->hasFormat(kBindingsMimeType));

  QCoreApplication::processEvents();
  SubTargetZone* compat = palette.zone("compat");
  ASSERT_NE(compat, nullptr);
  dropOn(compat, mime.get());
  ASSERT_TRUE(settle(s));

  ASSERT_EQ(s.assignments().size(), 1u);
  EXPECT_EQ(s.assignments()[0], std::make_pair(std::string("fc"), std::string("compat")));
  EXPECT_EQ(s.undoStack()->count(), 1);
  ASSERT_TRUE(s.lastBuild());
  // The timeline gained the annotation and partition passes ...
  QStringList names;
  for (int k = 0; k < s.stepCount(); ++k)
    names << s.stepName(k);
  EXPECT_EQ(names.value(1), "AnnotateTarget");
  int partition = s.findStep("PartitionByTarget");
  ASSERT_GT(partition, 1);
  // ... whose result outlines the Gemm into a function carrying the target.
  QStringList outlined = functionsOn(s.moduleAt(partition), "compat");
  EXPECT_FALSE(outlined.isEmpty());
  // The build put tensor functions on the c part, which made C source.
  const unity::SubTargetArtifacts* part = nullptr;
  for (auto& p : s.lastBuild()->parts)
    if (p.name == "compat")
      part = &p;
  ASSERT_NE(part, nullptr);
  EXPECT_FALSE(part->functions.empty());
  EXPECT_FALSE(part->cSource.empty());
  // Same outputs as the all-llvm build.
  ASSERT_TRUE(s.lastBuild()->executable);
  EXPECT_LT(maxDiff(s.lastBuild()->executable->runTensors(inputs), want), 1e-4);
  // The palette lists what is assigned; the graph colours by sub-target.
  QCoreApplication::processEvents();
  ASSERT_NE(palette.zone("compat"), nullptr);
  EXPECT_EQ(palette.zone("compat")->assignedNames(), QStringList{"fc"});
  s.setCurrentStep(partition);
  ASSERT_TRUE(view.waitForLayout(30000));
  ASSERT_TRUE(view.colorByTarget());
  auto subs = nodeSubTargets(view.shown()->module, view.shown()->graph);
  int onCompat = -1;
  for (size_t i = 0; i < subs.size(); ++i)
    if (subs[i] == "compat")
      onCompat = int(i);
  ASSERT_GE(onCompat, 0) << "a node of main calls the outlined compat function";
  EXPECT_EQ(view.nodeFill(onCompat), subTargetColor(1));
  view.setColorByTarget(false);
  EXPECT_NE(view.nodeFill(onCompat), subTargetColor(1));

  // Undo restores the previous (empty) assignments and rebuilds.
  s.undoStack()->undo();
  ASSERT_TRUE(settle(s));
  EXPECT_TRUE(s.assignments().empty());
  EXPECT_EQ(s.findStep("AnnotateTarget"), -1);
  for (auto& p : s.lastBuild()->parts) {
    if (p.name == "compat") {
      EXPECT_TRUE(p.functions.empty()) << "nothing is on compat after undo";
    }
  }
  EXPECT_LT(maxDiff(s.lastBuild()->executable->runTensors(inputs), want), 1e-4);
  // Redo brings it back.
  s.undoStack()->redo();
  ASSERT_TRUE(settle(s));
  EXPECT_EQ(s.assignments().size(), 1u);
  EXPECT_GT(s.findStep("PartitionByTarget"), 1);
}

TEST(TargetWorkbenchTest, UnknownNameOrSubTargetIsRefusedWithTheReason) {
  Session s;
  ASSERT_TRUE(s.open(example("cnn.uir")));
  QString error;
  EXPECT_FALSE(s.assign({"fc"}, "compat", &error));
  EXPECT_TRUE(error.contains("composite target")) << error.toStdString();
  ASSERT_TRUE(s.setCompositeTarget(kTarget));
  EXPECT_FALSE(s.assign({"no_such_node"}, "compat", &error));
  EXPECT_TRUE(error.contains("no_such_node")) << error.toStdString();
  EXPECT_FALSE(s.assign({"fc"}, "gpu", &error));
  EXPECT_TRUE(error.contains("gpu")) << error.toStdString();
  EXPECT_EQ(s.undoStack()->count(), 0);
  EXPECT_TRUE(s.assignments().empty());
}

TEST(TargetWorkbenchTest, SaveAndReopenRestoresTargetAndAssignments) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  // The model next to the session file, so the stored path is relative.
  ASSERT_TRUE(QFile::copy(example("cnn.uir"), dir.filePath("cnn.uir")));
  const QString path = dir.filePath("work.lsession");
  {
    Session s;
    ASSERT_TRUE(s.open(dir.filePath("cnn.uir")));
    ASSERT_TRUE(s.setCompositeTarget(kTarget));
    s.setAutomaticAssignment(true);
    s.setAssignments({{"conv1", "compat"}, {"fc", "fast"}});
    QString error;
    ASSERT_TRUE(s.saveSession(path, &error)) << error.toStdString();
  }
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
  EXPECT_EQ(o["model"].toString(), "cnn.uir");

  Session t;
  QString error;
  ASSERT_TRUE(t.openSession(path, &error)) << error.toStdString();
  EXPECT_EQ(QFileInfo(t.path()).fileName(), "cnn.uir");
  EXPECT_EQ(
      t.compositeTarget(),
      QString::fromStdString(unity::target::CompositeTarget::parse(kTarget.toStdString()).str()));
  EXPECT_TRUE(t.automaticAssignment());
  EXPECT_EQ(t.assignments(), (TargetAssignments{{"conv1", "compat"}, {"fc", "fast"}}));
  // The reopened assignments are what a build applies.
  auto annotations = unity::transform::targetAnnotations(t.annotatedInput(t.assignments()));
  EXPECT_EQ(annotations.size(), 4u) << "conv1 and fc are two bindings each";
}

TEST(TargetWorkbenchTest, CorruptSessionOrMissingModelGivesAClearError) {
  QTemporaryDir dir;
  const QString corrupt = dir.filePath("bad.lsession");
  {
    QFile f(corrupt);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"lowerscope_session\": 1, \"model\": ");
  }
  Session s;
  QString error;
  EXPECT_FALSE(s.openSession(corrupt, &error));
  EXPECT_TRUE(error.contains("bad.lsession")) << error.toStdString();
  EXPECT_TRUE(error.contains("not a valid session file")) << error.toStdString();
  EXPECT_FALSE(s.hasModule());

  const QString missing = dir.filePath("missing.lsession");
  {
    QFile f(missing);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"lowerscope_session": 1, "model": "gone.onnx", "target": "", "assignments": []})");
  }
  EXPECT_FALSE(s.openSession(missing, &error));
  EXPECT_TRUE(error.contains("gone.onnx")) << error.toStdString();
  EXPECT_TRUE(error.contains("does not exist")) << error.toStdString();
}

TEST(CodeViewTest, ShowsTheCSourceOfACPartAndScrollsToAKernel) {
  Session s;
  ASSERT_TRUE(s.open(example("cnn.uir")));
  ASSERT_TRUE(s.setCompositeTarget(kTarget));
  s.setAssignments({{"fc", "compat"}});
  CodeView code(&s);
  EXPECT_TRUE(code.partNames().isEmpty());
  ASSERT_TRUE(build(s));
  EXPECT_EQ(code.partNames(), (QStringList{"fast", "compat"}));
  ASSERT_TRUE(code.selectPart("compat"));
  const unity::SubTargetArtifacts* part = nullptr;
  for (auto& p : s.lastBuild()->parts)
    if (p.name == "compat")
      part = &p;
  ASSERT_TRUE(part && !part->functions.empty());
  EXPECT_EQ(code.text(CodeView::Kind::C).toStdString(), part->cSource);
  EXPECT_TRUE(code.text(CodeView::Kind::LlvmIR).isEmpty());
  const QString kernel = QString::fromStdString(part->functions.back());
  code.selectPart("fast");
  ASSERT_TRUE(code.showKernel(kernel));
  EXPECT_EQ(code.currentPart(), "compat");
  EXPECT_EQ(code.currentKind(), CodeView::Kind::C);
  QString line = code.text(CodeView::Kind::C).split('\n').value(code.currentLine() - 1);
  EXPECT_TRUE(line.contains(kernel)) << line.toStdString();
  EXPECT_FALSE(code.showKernel("no_such_kernel"));
}

TEST(GraphSelectionTest, CtrlClickBuildsAMultiSelection) {
  Session s;
  ASSERT_TRUE(s.open(example("cnn.uir")));
  GraphView view(&s);
  view.resize(900, 700);
  view.show();
  ASSERT_TRUE(view.waitForLayout(30000));
  ASSERT_TRUE(view.shown());
  std::vector<int> conv = nodesFrom(view, "conv1");
  ASSERT_EQ(conv.size(), 2u);
  for (int n : conv) {
    const auto& geo = view.shown()->layout.nodes[n];
    QPoint at = view.canvas()->mapFromScene(QPointF(geo.x, geo.y));
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, Qt::ControlModifier, at);
  }
  EXPECT_EQ(view.selectedNodes(), conv);
  QString error;
  std::unique_ptr<QMimeData> mime(view.selectionMimeData(&error));
  ASSERT_TRUE(mime);
  DraggedBindings d;
  ASSERT_TRUE(fromMimeData(mime.get(), &d));
  EXPECT_EQ(d.names, QStringList{"conv1"});
  EXPECT_EQ(d.function, "main");
}

TEST(CommandLineTargetsTest, AssignNeedsATargetAndAWellFormedValue) {
  auto cl = parseCommandLine({"lowerscope", "--open", "m.uir", "--assign", "fc=compat"});
  EXPECT_EQ(cl.action, CommandLine::Action::Error);
  EXPECT_TRUE(cl.text.contains("--target"));
  cl = parseCommandLine(
      {"lowerscope", "--open", "m.uir", "--target", "a: llvm; b: c", "--assign", "fc"});
  EXPECT_EQ(cl.action, CommandLine::Action::Error);
  EXPECT_TRUE(cl.text.contains("NAME")) << cl.text.toStdString();
  cl = parseCommandLine({"lowerscope", "--open", "m.uir", "--target", "a: llvm; b: c", "--assign",
                         "conv1,conv2=b", "--assign", "fc=a"});
  ASSERT_EQ(cl.action, CommandLine::Action::Run) << cl.text.toStdString();
  TargetAssignments all;
  for (const QString& a : cl.options.assign)
    ASSERT_TRUE(parseAssignOption(a, &all, nullptr));
  EXPECT_EQ(all, (TargetAssignments{{"conv1", "b"}, {"conv2", "b"}, {"fc", "a"}}));
}

TEST(TargetWorkbenchTest, MainWindowOpensASessionFileAndOffersUndo) {
  QTemporaryDir dir;
  ASSERT_TRUE(QFile::copy(example("cnn.uir"), dir.filePath("cnn.uir")));
  const QString path = dir.filePath("s.lsession");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"lowerscope_session": 1, "model": "cnn.uir", "target": "fast: llvm; compat: c",
               "assignments": [{"name": "fc", "target": "compat"}]})");
  }
  MainWindow w;
  QString error;
  ASSERT_TRUE(w.openFile(path, &error)) << error.toStdString();
  EXPECT_TRUE(w.hasModel());
  EXPECT_EQ(w.session()->subTargets(), (QStringList{"fast", "compat"}));
  QCoreApplication::processEvents();
  ASSERT_NE(w.targetPalette()->zone("compat"), nullptr);
  EXPECT_EQ(w.targetPalette()->zone("compat")->assignedNames(), QStringList{"fc"});
  ASSERT_TRUE(w.undoAction());
  EXPECT_EQ(w.undoAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
  EXPECT_EQ(w.redoAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  EXPECT_FALSE(w.undoAction()->isEnabled()) << "a reopened state is not an undoable step";
  // A new assignment is; undo goes back to what the file had.
  ASSERT_TRUE(w.session()->assign({"conv1"}, "compat"));
  EXPECT_TRUE(w.undoAction()->isEnabled());
  w.session()->cancelBuild();
  w.undoAction()->trigger();
  EXPECT_EQ(w.session()->assignments(), (TargetAssignments{{"fc", "compat"}}));
  w.session()->cancelBuild();
  w.session()->waitForBuild(kBuildMs);
}
