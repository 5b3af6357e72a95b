#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTemporaryDir>
#include <QTreeView>

#include "engine/build.h"
#include "engine/text/parser.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/loop_tree_view.h"
#include "views/pass_timeline.h"
#include "views/session.h"

using namespace lowerscope;

namespace {

QString example(const char* name) {
  return QString(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name;
}

/// A session with mlp.uir built (passes only: codegen is not what these test).
void buildMlp(Session& s) {
  ASSERT_TRUE(s.open(example("mlp.uir")));
  s.setCodegen(false);
  ASSERT_TRUE(s.startBuild());
  ASSERT_TRUE(s.waitForBuild(60000));
  ASSERT_TRUE(s.hasHistory());
}

} // namespace

TEST(PassTimelineModel, PassesTheModelTester) {
  unity::BuildOptions o;
  o.codegen = false;
  auto r = unity::build(unity::text::parseFile(example("mlp.uir").toStdString()), o);
  PassTimelineModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setRecords(r.records, true);
  // Input + the "default" Sequential at top level; the passes nested under it.
  ASSERT_EQ(model.rowCount(), 2);
  QModelIndex seq = model.index(1, 0);
  EXPECT_EQ(model.index(1, PassTimelineModel::NameColumn).data().toString(), QString("default"));
  EXPECT_EQ(seq.data().toInt(), 1); // the step column
  EXPECT_EQ(model.rowCount(seq), static_cast<int>(r.records.size()) - 1);
  QModelIndex first = model.index(0, PassTimelineModel::NameColumn, seq);
  EXPECT_EQ(first.data().toString(), QString("Normalize"));
  EXPECT_EQ(first.data(PassTimelineModel::StepRole).toInt(), 2);
  EXPECT_EQ(model.parent(first), seq);
  EXPECT_EQ(model.indexOfStep(2), model.index(0, 0, seq));

  ChangedPassFilter filter;
  QAbstractItemModelTester filterTester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
  filter.setSourceModel(&model);
  int unchanged = 0;
  for (auto& rec : r.records)
    unchanged += rec.changed ? 0 : 1;
  ASSERT_GT(unchanged, 0) << "mlp has passes that change nothing (AnnotateOpPattern, ...)";
  filter.setHideUnchanged(true);
  EXPECT_EQ(filter.rowCount(filter.index(1, 0)), model.rowCount(seq) - unchanged);
  filter.setHideUnchanged(false);
  EXPECT_EQ(filter.rowCount(filter.index(1, 0)), model.rowCount(seq));
}

TEST(Session, BuildFillsTheHistoryAndSelectsTheLastStep) {
  Session s;
  int finished = 0;
  QObject::connect(&s, &Session::buildFinished, [&](bool ok, const QString&) {
    EXPECT_TRUE(ok);
    ++finished;
  });
  buildMlp(s);
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(s.currentStep(), s.stepCount() - 1);
  EXPECT_EQ(s.currentFunction(), "main");
  int fuse = s.findStep("FuseOps");
  ASSERT_GT(fuse, 0);
  EXPECT_EQ(s.stepName(fuse), "FuseOps");
  s.setCurrentStep(fuse);
  EXPECT_TRUE(s.currentModule()->contains("fused_matmul_add_relu"));
  EXPECT_FALSE(s.moduleBefore(fuse)->contains("fused_matmul_add_relu"));
  QString error;
  EXPECT_EQ(s.findStep("Nope", &error), -1);
  EXPECT_TRUE(error.contains("Nope"));
}

TEST(Session, ParseErrorsCarryTheirLocation) {
  QTemporaryDir dir;
  QString path = dir.filePath("bad.uir");
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n    return y\n");
  f.close();
  Session s;
  int line = 0;
  QObject::connect(&s, &Session::errorOccurred,
                   [&](const QString&, const QString&, int l, int) { line = l; });
  EXPECT_FALSE(s.open(path));
  EXPECT_EQ(line, 3);
  EXPECT_FALSE(s.hasModule());
}

TEST(PassTimelineView, SliderAndTreeFollowTheSession) {
  Session s;
  PassTimelineView view(&s);
  buildMlp(s);
  EXPECT_EQ(view.slider()->maximum(), s.stepCount() - 1);
  EXPECT_EQ(view.slider()->value(), s.currentStep());
  view.slider()->setValue(3);
  EXPECT_EQ(s.currentStep(), 3);
  QModelIndex current = view.tree()->currentIndex();
  EXPECT_EQ(current.data(PassTimelineModel::StepRole).toInt(), 3);
  view.hideUnchangedBox()->setChecked(true);
  EXPECT_TRUE(view.filter()->hideUnchanged());
}

TEST(GraphView, LaysOutOffTheUiThreadAndDiffs) {
  Session s;
  GraphView view(&s);
  buildMlp(s);
  s.setCurrentStep(s.findStep("FuseOps"));
  ASSERT_TRUE(view.waitForLayout(60000));
  ASSERT_TRUE(view.shown());
  EXPECT_EQ(view.shown()->graph.clusters.size(), 2u);
  EXPECT_GT(view.scene()->items().size(), 0);
  view.setDiffMode(true);
  ASSERT_TRUE(view.waitForLayout(60000));
  ASSERT_NE(view.diff(), nullptr);
  EXPECT_EQ(view.diff()->afterCounts().changed, 2);
  EXPECT_TRUE(view.statusText().contains("2 changed")) << view.statusText().toStdString();
  // Back to a step already laid out: served from the cache.
  int cached = view.cacheSize();
  s.setCurrentStep(s.findStep("FuseOps"));
  EXPECT_EQ(view.cacheSize(), cached);
  EXPECT_TRUE(view.find("relu1"));
  EXPECT_GE(view.selectedNode(), 0);
  EXPECT_FALSE(view.find("no-such-node"));
}

TEST(IrDiffView, MarksInsertedAndDeletedLines) {
  Session s;
  IrDiffView view(&s);
  buildMlp(s);
  s.setCurrentStep(s.findStep("LegalizeOps"));
  view.setFunction("main");
  view.setDiffMode(true);
  // The five operator calls of main become call_tir: five lines out, five in.
  EXPECT_EQ(view.deletedLines(), 5);
  EXPECT_EQ(view.insertedLines(), 5);
  EXPECT_TRUE(view.revealName("lv2"));
  view.setFunction("matmul");
  EXPECT_TRUE(view.loopTree()->isVisibleTo(&view));
  EXPECT_GT(view.loopTree()->nodeCount(), 0);
}

TEST(IrDiffView, CutsLinesTooLongToLayOut) {
  using lowerscope::elideLongLines;
  // Short lines come back as they are; a long one keeps its first
  // characters and says how many are not shown.
  EXPECT_EQ(elideLongLines("ab\ncd\n", 5), "ab\ncd\n");
  std::string cut = elideLongLines("abcdefgh\nxy", 5);
  EXPECT_EQ(cut.rfind("abcde... [3 more characters, #", 0), 0u) << cut;
  EXPECT_EQ(cut.substr(cut.find('\n')), "\nxy");
  // Lines that differ only in the part not shown still differ.
  EXPECT_NE(elideLongLines("abcdefgh", 5), elideLongLines("abcdefgX", 5));
  EXPECT_EQ(elideLongLines("abcdefgh", 5), elideLongLines("abcdefgh", 5));

  // A module whose weight prints as one 40 KB base64 line.
  std::string text = "@R.function\n"
                     "def main(x: R.Tensor((10000,), \"float32\")) -> R.Tensor((10000,), "
                     "\"float32\"):\n"
                     "    R.func_attr({\"global_symbol\": \"main\"})\n"
                     "    gv = R.add(x, R.const(metadata[0]))\n"
                     "    return gv\n\n# metadata\nmetadata[0] = R.tensor_data(\"float32\", "
                     "(10000,), \"" +
                     std::string(53334, 'A') + "==\")\n";
  Session s;
  s.setModule(unity::text::parseModule(text, "long.uir"));
  IrDiffView view(&s);
  QString shown;
  for (auto* e : view.findChildren<QPlainTextEdit*>())
    if (e->toPlainText().contains("metadata[0] ="))
      shown = e->toPlainText();
  ASSERT_FALSE(shown.isEmpty());
  for (const QString& line : shown.split('\n'))
    EXPECT_LE(line.size(), int(lowerscope::kMaxShownLine) + 48);
  EXPECT_TRUE(shown.contains(" more characters, #"));
}
