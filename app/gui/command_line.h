#pragma once
// Command line of the lowerscope executable:
//   lowerscope [--open FILE [--build] [--pass N|NAME] [--function F]]
//              [--target COMPOSITE [--assign NAMES=SUB]... [--automatic]]
//              [--code SUB] [--screenshot FILE.png] [--size WxH] [--theme light|dark|system]
//              [--tuning-db FILE.db [--tuning-run N] [--records [--record ID[,ID]]] [--heat]
//               [--apply-best]]
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

struct GuiOptions {
  QString openFile;        // --open: model to open at start
  bool build = false;      // --build (implied by --pass): build the model at start
  QString pass;            // --pass: the step to show after the build ("7", "FuseOps")
  QString function;        // --function: the function to show
  QString screenshotPath;  // --screenshot: render the window to this PNG and exit
  QSize size;              // --size: window size; invalid when not given
  QString theme;           // --theme: light, dark or system for this run; "" = the saved one
  QString target;          // --target: composite target of the session
  QStringList assign;      // --assign: "name[,name...]=subtarget", repeatable
  bool automatic = false;  // --automatic: library sub-targets claim their patterns
  QString codePart;        // --code: show the Code dock with this sub-target
  QString tuningDb;        // --tuning-db: Tuning panel, records browser and heat on this db
  qint64 tuningRun = 0;    // --tuning-run: the run the Tuning panel shows (0: the newest)
  bool records = false;    // --records: show the records browser (implied by --record)
  QList<qint64> recordIds; // --record: the record(s) to open (two: compared)
  bool heat = false;       // --heat: heat overlay on the built graph (implies --build)
  bool applyBest = false;  // --apply-best: rebuild with the database and time before/after
};

struct CommandLine {
  enum class Action { Run, ShowHelp, ShowVersion, Error };
  Action action = Action::Run;
  GuiOptions options;
  QString text; // help text, or the error message for Action::Error
};

/// Parses `arguments` (argv as strings, program name first). Qt's own options
/// (-platform, -style, ...) must already have been removed, as
/// QApplication::arguments() does.
CommandLine parseCommandLine(const QStringList& arguments);

/// Parses one --assign value "a,b=sub" into (name, sub) pairs appended to
/// `out`; false (and `error`) when malformed.
bool parseAssignOption(const QString& text, std::vector<std::pair<std::string, std::string>>* out,
                       QString* error);

/// Parses "WIDTHxHEIGHT" (e.g. "1400x900"); an invalid QSize on error.
QSize parseSize(const QString& text);

/// False when the process has nowhere to show a window: neither DISPLAY nor
/// WAYLAND_DISPLAY nor an explicit QT_QPA_PLATFORM is set. main() then uses
/// Qt's offscreen platform, so --help, --version and --screenshot still work
/// and a plain start can say why it cannot run instead of aborting in Qt.
bool hasDisplay();

} // namespace lowerscope
