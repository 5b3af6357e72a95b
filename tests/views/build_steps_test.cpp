// The workbench's step numbers are the engine's: with the same target and
// assignments, step k of the GUI's pass timeline is pass k of
// `lowerscope-cli build --dump-passes` (000_Input.txt, 001_....txt, ...), and
// the GUI's history is exactly the records of unity::build() with the
// options the build controller uses. The assignments are a step of their
// own (AnnotateTarget, step 1), made by the build driver, not by the GUI.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <string>
#include <utility>
#include <vector>

#include "engine/build.h"
#include "views/session.h"

using namespace lowerscope;

namespace {

constexpr int kBuildMs = 120 * 1000;
const QString kTarget = QStringLiteral("fast: llvm; compat: c");

QString example(const char* name) {
  return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/resources/examples/") + name;
}

using Steps = std::vector<std::pair<int, std::string>>; // (step, pass name)

/// Builds the session's model as it is set up; its steps, "Input" first.
Steps guiSteps(Session& s) {
  bool ok = false;
  auto c = QObject::connect(&s, &Session::buildFinished, [&](bool success) { ok = success; });
  const bool started = s.startBuild();
  const bool done = started && s.waitForBuild(kBuildMs);
  QObject::disconnect(c);
  if (!done || !ok)
    return {};
  Steps out;
  for (int k = 0; k < s.stepCount(); ++k)
    out.emplace_back(k, s.stepName(k).toStdString());
  return out;
}

} // namespace

TEST(BuildSteps, GuiStepNumbersEqualBuildDumpPassesWithTheSameAssignments) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString model = example("cnn.uir");
  const QString assign = dir.filePath("assign.json");
  {
    QFile f(assign);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"fc": "compat"})");
  }
  const QString dump = dir.filePath("passes");
  QProcess cli;
  cli.start(QStringLiteral(LOWERSCOPE_CLI),
            {"build", model, "--target", kTarget, "--assign", assign, "--dump-passes", dump});
  ASSERT_TRUE(cli.waitForFinished(kBuildMs));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  QFile indexFile(dump + "/index.json");
  ASSERT_TRUE(indexFile.open(QIODevice::ReadOnly));
  Steps cliSteps;
  for (const QJsonValue& v : QJsonDocument::fromJson(indexFile.readAll()).array()) {
    const QJsonObject o = v.toObject();
    cliSteps.emplace_back(o["index"].toInt(), o["name"].toString().toStdString());
  }
  ASSERT_GT(cliSteps.size(), 3u);

  // The CLI always lets library sub-targets claim (AssignTargets runs); the
  // GUI's default turns that pass off. A disabled pass keeps its step (it
  // is recorded as disabled), so the numbers agree either way.
  for (bool automatic : {true, false}) {
    Session s;
    ASSERT_TRUE(s.open(model));
    ASSERT_TRUE(s.setCompositeTarget(kTarget));
    s.setAutomaticAssignment(automatic);
    s.setAssignments({{"fc", "compat"}});
    const Steps gui = guiSteps(s);
    ASSERT_FALSE(gui.empty());
    EXPECT_EQ(gui, cliSteps) << "automatic assignment " << (automatic ? "on" : "off");
    EXPECT_EQ(s.stepName(1).toStdString(), "AnnotateTarget")
        << "the assignments are the first pass";
    bool sawAssignTargets = false;
    for (const auto& r : s.records())
      if (r.name == "AssignTargets") {
        sawAssignTargets = true;
        EXPECT_EQ(r.disabled, !automatic);
      }
    EXPECT_TRUE(sawAssignTargets);
  }
}

TEST(BuildSteps, GuiHistoryIsTheEngineBuildsRecords) {
  Session s;
  ASSERT_TRUE(s.open(example("cnn.uir")));
  ASSERT_TRUE(s.setCompositeTarget(kTarget));
  s.setAssignments({{"fc", "compat"}});
  const Steps gui = guiSteps(s);
  ASSERT_FALSE(gui.empty());

  const unity::BuildOptions options = s.builds()->options();
  EXPECT_EQ(options.assignments,
            (std::vector<std::pair<std::string, std::string>>{{"fc", "compat"}}));
  const unity::BuildResult r = unity::build(s.module(), options);
  ASSERT_EQ(s.records().size(), r.records.size());
  for (size_t k = 0; k < r.records.size(); ++k) {
    EXPECT_EQ(s.records()[k].index, r.records[k].index) << "record " << k;
    EXPECT_EQ(s.records()[k].name, r.records[k].name) << "record " << k;
    EXPECT_EQ(s.records()[k].depth, r.records[k].depth) << "record " << k;
    EXPECT_EQ(s.records()[k].parent, r.records[k].parent) << "record " << k;
  }
  ASSERT_FALSE(r.records.empty());
  EXPECT_EQ(r.records.front().name, "AnnotateTarget");
  EXPECT_EQ(s.stepName(1).toStdString(), "AnnotateTarget");
}
