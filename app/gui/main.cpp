// lowerscope: the GUI workbench. Thin: the window lives in lowerscope_app.
//   lowerscope [--open FILE] [--screenshot FILE.png] [--size WxH]
#include "app/gui/about.h"
#include "app/gui/application.h"
#include "app/gui/command_line.h"
#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"

#include <QApplication>

#include <cstdio>

namespace {

void printTo(std::FILE* stream, const QString& text) {
  std::fputs(text.toLocal8Bit().constData(), stream);
  std::fflush(stream);
}

} // namespace

int main(int argc, char** argv) {
  // --help, --version and --screenshot must work on machines without a display.
  const bool headless = !lowerscope::hasDisplay();
  if (headless)
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  lowerscope::initApplication(app);

  using Action = lowerscope::CommandLine::Action;
  const lowerscope::CommandLine cl = lowerscope::parseCommandLine(QApplication::arguments());
  switch (cl.action) {
  case Action::ShowHelp:
    printTo(stdout, cl.text);
    return 0;
  case Action::ShowVersion:
    printTo(stdout, lowerscope::versionText());
    return 0;
  case Action::Error:
    printTo(stderr, QStringLiteral("lowerscope: %1\nTry 'lowerscope --help'.\n").arg(cl.text));
    return 1;
  case Action::Run:
    break;
  }
  const lowerscope::GuiOptions& options = cl.options;
  const bool screenshot = !options.screenshotPath.isEmpty();
  if (headless && !screenshot) {
    printTo(stderr,
            QStringLiteral("lowerscope: no display (DISPLAY and WAYLAND_DISPLAY are unset). "
                           "Run it under xvfb-run, use --screenshot FILE.png, or use "
                           "lowerscope-cli.\n"));
    return 1;
  }

  lowerscope::MainWindow window;
  if (!screenshot)
    window.restoreSettings();
  if (!options.openFile.isEmpty()) {
    QString error;
    if (!window.openFile(options.openFile, &error)) {
      printTo(stderr, QStringLiteral("lowerscope: %1\n").arg(error));
      if (screenshot)
        return 1;
    }
  }

  if (screenshot) {
    const QSize size = options.size.isValid() ? options.size : lowerscope::MainWindow::kDefaultSize;
    QString error;
    if (!lowerscope::writeScreenshot(window, size, options.screenshotPath, &error)) {
      printTo(stderr, QStringLiteral("lowerscope: cannot write screenshot %1: %2\n")
                          .arg(options.screenshotPath, error));
      return 1;
    }
    return 0;
  }

  if (options.size.isValid())
    window.resize(options.size);
  window.show();
  return app.exec();
}
