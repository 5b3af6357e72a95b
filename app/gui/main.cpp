// lowerscope: the GUI workbench. Thin: the window lives in lowerscope_app.
//   lowerscope [--open FILE [--build] [--pass N|NAME] [--function F]]
//              [--target COMPOSITE [--assign NAMES=SUB]... [--automatic]]
//              [--code SUB] [--screenshot FILE.png] [--size WxH] [--theme light|dark|system]
// With --screenshot the window is shown off screen at its final size first,
// then the build and the graph layout are waited for (both run off the UI
// thread; the waits process events, so their signals arrive as in the GUI),
// all within kScreenshotTimeoutMs, and only then is the window grabbed.
#include "app/gui/about.h"
#include "app/gui/application.h"
#include "app/gui/command_line.h"
#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "views/graph_heat.h"
#include "views/graph_view.h"
#include "views/ir_diff_view.h"
#include "views/log_view.h"
#include "views/session.h"
#include "views/theme.h"
#include "views/tuning_records_view.h"

#include <QApplication>
#include <QChartView>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTabWidget>

#include <algorithm>
#include <cstdio>
#include <functional>

namespace {

void printTo(std::FILE* stream, const QString& text) {
  std::fputs(text.toLocal8Bit().constData(), stream);
  std::fflush(stream);
}

// A build of the bigger examples takes seconds; a minute means something hangs.
constexpr int kScreenshotTimeoutMs = 60 * 1000;

/// Shows what --pass and --function ask for; false (and `error`) when the
/// model has no such step or function.
bool selectView(lowerscope::MainWindow& window, const lowerscope::GuiOptions& options,
                QString* error) {
  if (!options.pass.isEmpty() && !window.selectStep(options.pass, error))
    return false;
  if (!options.function.isEmpty() && !window.selectFunction(options.function, error))
    return false;
  return true;
}

/// Applies --target, --assign and --automatic to the opened session (the
/// starting state: not on the undo stack). False (and `error`) when invalid.
bool applyTargets(lowerscope::MainWindow& window, const lowerscope::GuiOptions& options,
                  QString* error) {
  lowerscope::Session* session = window.session();
  if (!options.target.isEmpty() && !session->setCompositeTarget(options.target, error)) {
    *error = QStringLiteral("invalid --target '%1': %2").arg(options.target, *error);
    return false;
  }
  if (options.automatic)
    session->setAutomaticAssignment(true);
  if (options.assign.isEmpty())
    return true;
  lowerscope::TargetAssignments all = session->assignments();
  for (const QString& a : options.assign)
    if (!lowerscope::parseAssignOption(a, &all, error))
      return false;
  try {
    session->annotatedInput(all);
  } catch (const std::exception& e) {
    *error = QStringLiteral("--assign: %1").arg(QString::fromUtf8(e.what()));
    return false;
  }
  session->setAssignments(all);
  return true;
}

/// --tuning-db, --records/--record, --apply-best and --heat, after the build:
/// waits for each (all off the UI thread). False (and `error`) when the
/// database cannot be read or a step fails.
bool prepareTuning(lowerscope::MainWindow& window, const lowerscope::GuiOptions& options,
                   int timeoutMs, QString* error) {
  if (options.tuningDb.isEmpty())
    return true;
  window.openTuningDatabase(options.tuningDb);
  if (!window.waitForTuning(timeoutMs)) {
    *error = QStringLiteral("the tuning database did not load in time");
    return false;
  }
  lowerscope::TuningRecordsView* records = window.recordsView();
  if (!records->error().isEmpty()) {
    *error = QStringLiteral("cannot read the tuning database: %1").arg(records->error());
    return false;
  }
  if (options.applyBest) {
    if (!window.applyBest() || !window.waitForTuning(timeoutMs)) {
      *error = QStringLiteral("Apply best did not finish");
      return false;
    }
    if (!window.lastLatency().error.isEmpty()) {
      *error = window.lastLatency().error;
      return false;
    }
  }
  if (options.heat) {
    window.setHeatOverlay(true);
    if (!window.waitForTuning(timeoutMs) || !window.modelHeat()) {
      *error = QStringLiteral("the heat overlay was not computed");
      return false;
    }
    if (!window.modelHeat()->error.isEmpty()) {
      *error = QStringLiteral("heat overlay: %1").arg(window.modelHeat()->error);
      return false;
    }
  }
  if (options.records) {
    window.showRecordsBrowser(true);
    bool found = true;
    if (options.recordIds.empty()) // nothing selected: the cost-model plot
      records->tabs()->setCurrentWidget(records->chartView());
    if (options.recordIds.size() == 1) {
      found = records->selectRecord(options.recordIds[0]);
      records->tabs()->setCurrentWidget(records->nestPane());
    } else if (options.recordIds.size() == 2)
      found = records->compareRecords(options.recordIds[0], options.recordIds[1]);
    if (!found) {
      *error = QStringLiteral("--record: no such record in the database");
      return false;
    }
    if (!records->waitForLoad(timeoutMs)) {
      *error = QStringLiteral("the record did not load in time");
      return false;
    }
  }
  return true;
}

/// Builds (if asked), selects, waits for the layout: everything the
/// screenshot must show. On failure returns false with the reason.
bool prepareScreenshot(lowerscope::MainWindow& window, const lowerscope::GuiOptions& options,
                       QString* error) {
  QElapsedTimer clock;
  clock.start();
  auto left = [&] { return std::max(0, kScreenshotTimeoutMs - int(clock.elapsed())); };
  const QString limit = QStringLiteral("%1 s").arg(kScreenshotTimeoutMs / 1000);
  lowerscope::Session* session = window.session();
  if (options.build) {
    bool ok = false;
    QString summary;
    // Single shot: later builds (Apply best) must not write to these locals.
    QObject::connect(
        session, &lowerscope::Session::buildFinished, &window,
        [&](bool success, const QString& text) {
          ok = success;
          summary = text;
        },
        Qt::SingleShotConnection);
    if (!window.startBuild()) {
      *error = QStringLiteral("cannot start the build");
      return false;
    }
    if (!session->waitForBuild(left())) {
      session->cancelBuild();
      *error = QStringLiteral("the build did not finish within %1").arg(limit);
      return false;
    }
    if (!ok) {
      // The located error is the log's last line.
      const QString log = window.logView()->toPlainText();
      *error = summary + QLatin1Char('\n') + log.section(QLatin1Char('\n'), -1);
      return false;
    }
  }
  // Apply best rebuilds: before the step and function are chosen.
  if (!prepareTuning(window, options, left(), error))
    return false;
  if (!selectView(window, options, error))
    return false;
  if (options.heat)
    window.graphView()->setDiffMode(false); // one graph, coloured
  if (!options.codePart.isEmpty() && !window.showCodePart(options.codePart)) {
    *error = QStringLiteral("--code %1: the build has no such sub-target").arg(options.codePart);
    return false;
  }
  if (!session->hasModule())
    return true; // the empty workbench
  if (!window.graphView()->waitForLayout(left())) {
    *error = QStringLiteral("the graph layout did not finish within %1").arg(limit);
    return false;
  }
  const lowerscope::LaidOutGraphPtr graph = window.graphView()->shown();
  if (!graph) {
    *error = QStringLiteral("no graph to show");
    return false;
  }
  if (!graph->error.isEmpty()) {
    *error = QStringLiteral("the graph cannot be drawn: %1").arg(graph->error);
    return false;
  }
  return true;
}

/// One line saying what the screenshot shows, so scripts (and the CTest
/// cases) can tell a graph after a pass from an empty window.
QString describe(const lowerscope::MainWindow& window) {
  const lowerscope::Session* session = window.session();
  if (!session->hasModule()) {
    const QString tuning = window.describeTuning();
    return tuning.isEmpty() ? QStringLiteral("no model open")
                            : QStringLiteral("no model open; ") + tuning;
  }
  const int step = session->currentStep();
  QString text = QStringLiteral("%1 at step %2 (%3)")
                     .arg(QFileInfo(session->path()).fileName())
                     .arg(step)
                     .arg(session->stepName(step));
  if (const lowerscope::LaidOutGraphPtr g = window.graphView()->shown()) {
    int fused = 0, scopes = 0;
    for (const auto& c : g->graph.clusters)
      ++(c.scope ? scopes : fused);
    text += QStringLiteral(", graph of %1: %2 nodes, %3 fused groups%4%5")
                .arg(QString::fromStdString(g->graph.function))
                .arg(g->graph.nodes.size())
                .arg(fused)
                .arg(scopes ? QStringLiteral(", %1 scope groups").arg(scopes) : QString())
                .arg(window.graphView()->diffMode() ? QStringLiteral(", before/after") : QString());
  }
  const QString function = window.irDiffView()->function();
  text += QStringLiteral("; IR text: %1")
              .arg(function.isEmpty() ? QStringLiteral("whole module") : function);
  if (!session->compositeTarget().isEmpty())
    text += QStringLiteral("; target \"%1\", %2 assignment(s)")
                .arg(session->compositeTarget())
                .arg(session->assignments().size());
  if (const QString tuning = window.describeTuning(); !tuning.isEmpty())
    text += QStringLiteral("; ") + tuning;
  return text;
}

/// Writes the screenshot of `widget` at `size` to `path` and says so on
/// stdout with what it shows (`describe`, asked once it is written); the
/// exit status: 1, with the cause on stderr, when it cannot be written.
int writeAndReport(QWidget& widget, const QSize& size, const QString& path,
                   const std::function<QString()>& describe) {
  QString error;
  if (!lowerscope::writeScreenshot(widget, size, path, &error)) {
    printTo(stderr,
            QStringLiteral("lowerscope: cannot write screenshot %1: %2\n").arg(path, error));
    return 1;
  }
  printTo(stdout, QStringLiteral("lowerscope: wrote %1 (%2x%3): %4\n")
                      .arg(path)
                      .arg(size.width())
                      .arg(size.height())
                      .arg(describe()));
  return 0;
}

/// --screenshot with --tuning-db: the Tuning panel alone (floated out of the
/// window), at --size, once it has read the database.
int screenshotTuningView(lowerscope::MainWindow& window, const lowerscope::GuiOptions& options) {
  const QSize size = options.size.isValid() ? options.size : QSize(1280, 800);
  QDockWidget* dock = window.tuningDock();
  dock->setAttribute(Qt::WA_DontShowOnScreen, true);
  dock->setFloating(true);
  QString error;
  if (!window.waitForTuningView(kScreenshotTimeoutMs, &error)) {
    printTo(stderr, QStringLiteral("lowerscope: %1\n").arg(error));
    return 1;
  }
  return writeAndReport(*dock, size, options.screenshotPath,
                        [&] { return window.describeTuningView(); });
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
  // After restoreSettings: --theme wins for this run and is not saved.
  if (const auto theme = lowerscope::parseThemeChoice(options.theme))
    window.setTheme(*theme, false);
  bool opened = false;
  if (!options.openFile.isEmpty()) {
    QString error;
    opened = window.openFile(options.openFile, &error);
    if (!opened) {
      printTo(stderr, QStringLiteral("lowerscope: %1\n").arg(error));
      if (screenshot)
        return 1;
    }
  }
  if (opened) {
    QString error;
    if (!applyTargets(window, options, &error)) {
      printTo(stderr, QStringLiteral("lowerscope: %1\n").arg(error));
      if (screenshot)
        return 1;
    }
  }

  if (!options.tuningDb.isEmpty()) {
    QString error;
    if (!window.showTuningDatabase(options.tuningDb, options.tuningRun, &error)) {
      printTo(stderr, QStringLiteral("lowerscope: --tuning-db: %1\n").arg(error));
      if (screenshot)
        return 1;
    }
  }
  // The run view alone: a database and nothing else of the window asked for
  // (with a model, --records or --heat the whole window is drawn).
  if (screenshot && !options.tuningDb.isEmpty() && !opened && !options.records && !options.heat &&
      !options.applyBest)
    return screenshotTuningView(window, options);

  if (screenshot) {
    const QSize size = options.size.isValid() ? options.size : lowerscope::MainWindow::kDefaultSize;
    // At the final size before the layout, so the graph is fitted to it.
    window.setAttribute(Qt::WA_DontShowOnScreen, true);
    window.resize(size);
    window.show();
    QString error;
    if (!prepareScreenshot(window, options, &error)) {
      printTo(stderr, QStringLiteral("lowerscope: %1\n").arg(error));
      return 1;
    }
    return writeAndReport(window, size, options.screenshotPath, [&] { return describe(window); });
  }

  if (options.size.isValid())
    window.resize(options.size);
  window.show();
  if (!options.tuningDb.isEmpty()) {
    window.openTuningDatabase(options.tuningDb);
    if (options.records)
      window.showRecordsBrowser(false);
    if (options.heat)
      window.setHeatOverlay(true);
  }
  if (opened) {
    // Interactive: the window shows the build's progress; --pass and
    // --function apply when it is done (errors go to the log).
    auto select = [&window, options] {
      QString error;
      if (!selectView(window, options, &error))
        window.logView()->error(error);
      if (!options.codePart.isEmpty() && !window.showCodePart(options.codePart))
        window.logView()->error(
            QStringLiteral("--code %1: the build has no such sub-target").arg(options.codePart));
      if (options.applyBest)
        window.applyBest();
    };
    if (options.build) {
      QObject::connect(
          window.session(), &lowerscope::Session::buildFinished, &window,
          [select](bool ok) {
            if (ok)
              select();
          },
          Qt::SingleShotConnection);
      window.startBuild();
    } else {
      select();
    }
  }
  return app.exec();
}
