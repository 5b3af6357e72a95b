// Shared main() of the Qt test binaries (test_views and any later GUI suite).
//
// gtest_discover_tests runs the binary without the tests' ENVIRONMENT, so the
// platform is chosen here: offscreen unless the caller picked one or has a
// display. Settings go to a throw-away directory so tests never read or
// change the user's window layout or recent files.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>

namespace {

bool isSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

} // namespace

int main(int argc, char** argv) {
  if (!isSet("QT_QPA_PLATFORM") && !isSet("DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  ::testing::InitGoogleTest(&argc, argv);

  QTemporaryDir scratch; // owner-only (0700), removed at exit
  if (!scratch.isValid()) {
    std::fprintf(stderr, "cannot create a temporary directory\n");
    return 1;
  }
  // Qt wants a private runtime directory; CI containers often have none.
  if (!isSet("XDG_RUNTIME_DIR"))
    qputenv("XDG_RUNTIME_DIR", scratch.path().toLocal8Bit());

  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("LowerscopeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("test"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, scratch.filePath("settings"));

  return RUN_ALL_TESTS();
}
