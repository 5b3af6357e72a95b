// "Open anything" in the workbench: an ONNX model with a node the importer
// cannot convert opens (the node kept as a marked R.unsupported placeholder,
// printed with its operator and reason), and Build is refused with that
// node named, without a crash.
#include <gtest/gtest.h>

#include "engine/text/printer.h"
#include "tests/engine/frontend/onnx_test_util.h"
#include "views/session.h"

#include <QFile>
#include <QTemporaryDir>

using namespace lowerscope;

TEST(OpenAnythingTest, ModelWithAnUnknownOperatorOpensAndBuildIsRefusedNamingIt) {
  unity::testing::OnnxModelBuilder b;
  b.input("x", {int64_t(2), int64_t(3)});
  b.node("Relu", {"x"}, {"r"}, "relu_in");
  b.node("Frobnicate", {"r"}, {"y"}, "frob");
  b.output("y");
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QString path = dir.filePath("unsupported.onnx");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    std::string bytes = b.bytes();
    f.write(bytes.data(), static_cast<qint64>(bytes.size()));
  }
  Session s;
  QString error;
  ASSERT_TRUE(s.open(path, &error)) << error.toStdString();
  std::string text = unity::text::printModule(s.module());
  EXPECT_NE(text.find("R.unsupported("), std::string::npos) << text;
  EXPECT_NE(text.find("Frobnicate"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown operator"), std::string::npos) << text;

  QString buildError;
  bool finished = false, ok = true;
  QObject::connect(
      &s, &Session::errorOccurred,
      [&](const QString& message, const QString&, int, int) { buildError += message; });
  QObject::connect(&s, &Session::buildFinished, [&](bool success, const QString&) {
    finished = true;
    ok = success;
  });
  if (s.startBuild())
    s.waitForBuild(60 * 1000);
  EXPECT_TRUE(finished);
  EXPECT_FALSE(ok);
  EXPECT_TRUE(buildError.contains("frob (Frobnicate): unknown operator"))
      << buildError.toStdString();
}
