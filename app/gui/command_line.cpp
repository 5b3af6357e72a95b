#include "app/gui/command_line.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cstdlib>

namespace lowerscope {

namespace {
// Smaller windows cannot lay out the docks; larger ones are a typo.
constexpr int kMinExtent = 320;
constexpr int kMaxExtent = 16384;
} // namespace

QSize parseSize(const QString& text) {
  static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})[xX](\\d{1,5})$"));
  const QRegularExpressionMatch m = pattern.match(text.trimmed());
  if (!m.hasMatch())
    return {};
  const int w = m.captured(1).toInt();
  const int h = m.captured(2).toInt();
  if (w < kMinExtent || h < kMinExtent || w > kMaxExtent || h > kMaxExtent)
    return {};
  return {w, h};
}

CommandLine parseCommandLine(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Lowerscope: IR explorer and tuning workbench for the unity compiler."));
  const QCommandLineOption helpOption = parser.addHelpOption();
  const QCommandLineOption versionOption = parser.addVersionOption();
  const QCommandLineOption openOption(QStringLiteral("open"),
                                      QStringLiteral("Open FILE (text IR or ONNX) at start."),
                                      QStringLiteral("FILE"));
  const QCommandLineOption screenshotOption(
      QStringLiteral("screenshot"),
      QStringLiteral("Render the main window offscreen to FILE.png and exit."),
      QStringLiteral("FILE.png"));
  const QCommandLineOption sizeOption(QStringLiteral("size"),
                                      QStringLiteral("Window size, e.g. 1400x900 (default)."),
                                      QStringLiteral("WxH"));
  const QCommandLineOption buildOption(
      QStringLiteral("build"), QStringLiteral("Build the opened model at start (needs --open)."));
  const QCommandLineOption passOption(
      QStringLiteral("pass"),
      QStringLiteral("After the build, show the pass with this step number or name, before and "
                     "after (implies --build)."),
      QStringLiteral("N|NAME"));
  const QCommandLineOption functionOption(
      QStringLiteral("function"),
      QStringLiteral("Show function F: its graph, or the loop nest of a tensor-level function."),
      QStringLiteral("F"));
  const QCommandLineOption themeOption(
      QStringLiteral("theme"),
      QStringLiteral("Palette for this run: light, dark or system (default: the one chosen in "
                     "View > Theme; screenshots: system)."),
      QStringLiteral("light|dark|system"));
  const QCommandLineOption targetOption(
      QStringLiteral("target"),
      QStringLiteral("Composite target of the session, e.g. \"fast: llvm; compat: c\"; repeated "
                     "values are joined with ';'."),
      QStringLiteral("COMPOSITE"));
  const QCommandLineOption assignOption(
      QStringLiteral("assign"),
      QStringLiteral("Assign bindings or ONNX node names to a sub-target (repeatable), e.g. "
                     "Conv_0,Conv_1=fast (needs --target)."),
      QStringLiteral("NAMES=SUB"));
  const QCommandLineOption automaticOption(
      QStringLiteral("automatic"),
      QStringLiteral("Let library sub-targets (openblas, dnnl) claim their patterns."));
  const QCommandLineOption codeOption(
      QStringLiteral("code"),
      QStringLiteral("After the build, show the Code dock for sub-target SUB."),
      QStringLiteral("SUB"));
  const QCommandLineOption tuningDbOption(
      QStringLiteral("tuning-db"),
      QStringLiteral("Open this tuning database: the Tuning panel follows its runs and the "
                     "records browser lists its records (with --screenshot and no --open, "
                     "--records or --heat: render the run view alone)."),
      QStringLiteral("FILE.db"));
  const QCommandLineOption tuningRunOption(
      QStringLiteral("tuning-run"),
      QStringLiteral("The run the Tuning panel shows (default: the newest; needs --tuning-db)."),
      QStringLiteral("N"));
  const QCommandLineOption recordsOption(
      QStringLiteral("records"), QStringLiteral("Show the records browser (needs --tuning-db)."));
  const QCommandLineOption recordOption(
      QStringLiteral("record"),
      QStringLiteral("Open record ID in the records browser; two ids (ID,ID) are compared "
                     "(implies --records)."),
      QStringLiteral("ID[,ID]"));
  const QCommandLineOption heatOption(
      QStringLiteral("heat"),
      QStringLiteral("Colour the built graph by tuned kernel latency (needs --open and "
                     "--tuning-db; implies --build)."));
  const QCommandLineOption applyBestOption(
      QStringLiteral("apply-best"),
      QStringLiteral("Rebuild with the database's best schedules and time the model before and "
                     "after (needs --open and --tuning-db)."));
  parser.addOption(tuningRunOption);
  parser.addOption(openOption);
  parser.addOption(tuningDbOption);
  parser.addOption(recordsOption);
  parser.addOption(recordOption);
  parser.addOption(heatOption);
  parser.addOption(applyBestOption);
  parser.addOption(targetOption);
  parser.addOption(assignOption);
  parser.addOption(automaticOption);
  parser.addOption(codeOption);
  parser.addOption(buildOption);
  parser.addOption(passOption);
  parser.addOption(functionOption);
  parser.addOption(screenshotOption);
  parser.addOption(sizeOption);
  parser.addOption(themeOption);

  CommandLine result;
  if (!parser.parse(arguments)) {
    result.action = CommandLine::Action::Error;
    result.text = parser.errorText();
    return result;
  }
  if (parser.isSet(helpOption) || parser.isSet(QStringLiteral("help-all"))) {
    result.action = CommandLine::Action::ShowHelp;
    result.text = parser.helpText();
    return result;
  }
  if (parser.isSet(versionOption)) {
    result.action = CommandLine::Action::ShowVersion;
    return result;
  }
  if (!parser.positionalArguments().isEmpty()) {
    result.action = CommandLine::Action::Error;
    result.text = QStringLiteral("unexpected argument '%1' (use --open FILE)")
                      .arg(parser.positionalArguments().first());
    return result;
  }
  result.options.openFile = parser.value(openOption);
  result.options.pass = parser.value(passOption);
  result.options.function = parser.value(functionOption);
  // Repeated --target values are sub-targets of one composite (handy where a
  // ';' is awkward to pass, e.g. CMake test arguments).
  result.options.target = parser.values(targetOption).join(QStringLiteral("; "));
  result.options.assign = parser.values(assignOption);
  result.options.automatic = parser.isSet(automaticOption);
  result.options.codePart = parser.value(codeOption);
  result.options.tuningDb = parser.value(tuningDbOption);
  result.options.records = parser.isSet(recordsOption) || parser.isSet(recordOption);
  result.options.heat = parser.isSet(heatOption);
  result.options.applyBest = parser.isSet(applyBestOption);
  for (const QString& id : parser.value(recordOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const qint64 v = id.trimmed().toLongLong(&ok);
    if (!ok || v <= 0 || result.options.recordIds.size() == 2) {
      result.action = CommandLine::Action::Error;
      result.text = QStringLiteral("invalid --record '%1': expected ID or ID,ID")
                        .arg(parser.value(recordOption));
      return result;
    }
    result.options.recordIds << v;
  }
  for (const QCommandLineOption* needsDb :
       {&recordsOption, &recordOption, &heatOption, &applyBestOption}) {
    if (parser.isSet(*needsDb) && result.options.tuningDb.isEmpty()) {
      result.action = CommandLine::Action::Error;
      result.text = QStringLiteral("--%1 needs a tuning database: give --tuning-db FILE")
                        .arg(needsDb->names().first());
      return result;
    }
  }
  result.options.build = parser.isSet(buildOption) || parser.isSet(passOption) ||
                         parser.isSet(codeOption) || result.options.heat;
  if ((parser.isSet(assignOption) || parser.isSet(automaticOption)) &&
      !parser.isSet(targetOption) && !result.options.openFile.endsWith(".lsession")) {
    result.action = CommandLine::Action::Error;
    result.text = QStringLiteral("--assign and --automatic need --target COMPOSITE");
    return result;
  }
  for (const QString& a : result.options.assign) {
    std::vector<std::pair<std::string, std::string>> pairs;
    QString why;
    if (!parseAssignOption(a, &pairs, &why)) {
      result.action = CommandLine::Action::Error;
      result.text = why;
      return result;
    }
  }
  for (const QCommandLineOption* needsModel :
       {&buildOption, &passOption, &functionOption, &assignOption, &codeOption, &heatOption,
        &applyBestOption}) {
    if (parser.isSet(*needsModel) && result.options.openFile.isEmpty()) {
      result.action = CommandLine::Action::Error;
      result.text =
          QStringLiteral("--%1 needs a model: give --open FILE").arg(needsModel->names().first());
      return result;
    }
  }
  if (parser.isSet(tuningRunOption)) {
    bool ok = false;
    result.options.tuningRun = parser.value(tuningRunOption).toLongLong(&ok);
    if (!ok || result.options.tuningRun < 1 || result.options.tuningDb.isEmpty()) {
      result.action = CommandLine::Action::Error;
      result.text = result.options.tuningDb.isEmpty()
                        ? QStringLiteral("--tuning-run needs --tuning-db FILE.db")
                        : QStringLiteral("invalid --tuning-run '%1': expected a run number")
                              .arg(parser.value(tuningRunOption));
      return result;
    }
  }
  result.options.screenshotPath = parser.value(screenshotOption);
  if (parser.isSet(screenshotOption) && result.options.screenshotPath.isEmpty()) {
    result.action = CommandLine::Action::Error;
    result.text = QStringLiteral("--screenshot needs a file name");
    return result;
  }
  if (parser.isSet(themeOption)) {
    const QString theme = parser.value(themeOption).trimmed().toLower();
    if (theme != QLatin1String("light") && theme != QLatin1String("dark") &&
        theme != QLatin1String("system")) {
      result.action = CommandLine::Action::Error;
      result.text = QStringLiteral("invalid --theme '%1': expected light, dark or system")
                        .arg(parser.value(themeOption));
      return result;
    }
    result.options.theme = theme;
  }
  if (parser.isSet(sizeOption)) {
    result.options.size = parseSize(parser.value(sizeOption));
    if (!result.options.size.isValid()) {
      result.action = CommandLine::Action::Error;
      result.text = QStringLiteral("invalid --size '%1': expected WIDTHxHEIGHT between %2 and %3, "
                                   "e.g. 1400x900")
                        .arg(parser.value(sizeOption))
                        .arg(kMinExtent)
                        .arg(kMaxExtent);
      return result;
    }
  }
  return result;
}

bool parseAssignOption(const QString& text, std::vector<std::pair<std::string, std::string>>* out,
                       QString* error) {
  const int eq = text.lastIndexOf(QLatin1Char('='));
  const QString sub = eq < 0 ? QString() : text.mid(eq + 1).trimmed();
  const QStringList names =
      eq < 0 ? QStringList() : text.left(eq).split(QLatin1Char(','), Qt::SkipEmptyParts);
  if (sub.isEmpty() || names.isEmpty()) {
    if (error)
      *error = QStringLiteral("invalid --assign '%1': expected NAME[,NAME...]=SUBTARGET").arg(text);
    return false;
  }
  for (const QString& n : names)
    out->emplace_back(n.trimmed().toStdString(), sub.toStdString());
  return true;
}

bool hasDisplay() {
  for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0')
      return true;
  }
  return false;
}

} // namespace lowerscope
