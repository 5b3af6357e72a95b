#include "views/theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

#include <algorithm>

namespace lowerscope {

QString themeChoiceName(ThemeChoice choice) {
  switch (choice) {
  case ThemeChoice::Light:
    return QStringLiteral("light");
  case ThemeChoice::Dark:
    return QStringLiteral("dark");
  case ThemeChoice::System:
    break;
  }
  return QStringLiteral("system");
}

std::optional<ThemeChoice> parseThemeChoice(const QString& name) {
  for (ThemeChoice c : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark})
    if (name.compare(themeChoiceName(c), Qt::CaseInsensitive) == 0)
      return c;
  return std::nullopt;
}

// ------------------------------------------------------------------ colours

QColor ThemeColors::nodeFill(const QColor& lightFill) const {
  if (!dark)
    return lightFill;
  // Same hue, dark enough for light text: the pastel fills have lightness
  // ~0.85-0.95; on a dark canvas they would glare and hide white text.
  float h = 0, s = 0, l = 0, a = 1;
  lightFill.getHslF(&h, &s, &l, &a);
  const float saturation = s < 0.1f ? s : std::min(1.0f, s * 0.55f + 0.15f);
  return QColor::fromHslF(h < 0 ? 0 : h, saturation, 0.27f, a);
}

ThemeColors ThemeColors::lightColors() {
  ThemeColors c;
  c.dark = false;
  c.canvas = QColor("#ffffff");
  c.edge = QColor("#868e96");
  c.edgeLabel = QColor("#6c757d");
  c.nodeText = QColor("#212529");
  c.nodeBorder = QColor("#495057");
  c.clusterFill = QColor("#f8f9fa");
  c.clusterBorder = QColor("#868e96");
  c.clusterText = QColor("#495057");
  c.selection = QColor("#1c7ed6");
  c.added = QColor("#2f9e44");
  c.removed = QColor("#e03131");
  c.changed = QColor("#f59f00");
  c.minimapBackground = QColor(248, 249, 250);
  c.minimapFrame = QColor("#1c7ed6");
  c.keyword = QColor("#7048e8");
  c.nameSpace = QColor("#1971c2");
  c.string = QColor("#2b8a3e");
  c.comment = QColor("#868e96");
  c.decorator = QColor("#e8590c");
  c.deletedLine = QColor("#ffe3e3");
  c.insertedLine = QColor("#d3f9d8");
  return c;
}

ThemeColors ThemeColors::darkColors() {
  ThemeColors c;
  c.dark = true;
  c.canvas = QColor("#1e1f22");
  c.edge = QColor("#8b949e");
  c.edgeLabel = QColor("#9aa4ad");
  c.nodeText = QColor("#e9ecef");
  c.nodeBorder = QColor("#adb5bd");
  c.clusterFill = QColor("#2a2c31");
  c.clusterBorder = QColor("#868e96");
  c.clusterText = QColor("#ced4da");
  c.selection = QColor("#4dabf7");
  c.added = QColor("#51cf66");
  c.removed = QColor("#ff6b6b");
  c.changed = QColor("#fcc419");
  c.minimapBackground = QColor(43, 45, 49);
  c.minimapFrame = QColor("#4dabf7");
  c.keyword = QColor("#b197fc");
  c.nameSpace = QColor("#74c0fc");
  c.string = QColor("#8ce99a");
  c.comment = QColor("#909296");
  c.decorator = QColor("#ffa94d");
  c.deletedLine = QColor("#5c2b2e");
  c.insertedLine = QColor("#23452b");
  return c;
}

// -------------------------------------------------------------------- theme

Theme::Theme(QObject* parent) : QObject(parent), colors_(ThemeColors::lightColors()) {}

Theme* Theme::instance() {
  static Theme* theme = nullptr;
  if (!theme) {
    theme = new Theme(qApp);
    // The platform's own look, to come back to when "System" is chosen.
    if (qApp && QApplication::style()) {
      theme->systemStyle_ = QApplication::style()->name();
      theme->systemPalette_ = QApplication::palette();
      theme->captured_ = true;
      theme->colors_ = theme->systemPalette_.color(QPalette::Window).lightness() < 128
                           ? ThemeColors::darkColors()
                           : ThemeColors::lightColors();
    }
  }
  return theme;
}

QPalette Theme::lightPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor("#f1f3f5"));
  p.setColor(QPalette::WindowText, QColor("#212529"));
  p.setColor(QPalette::Base, QColor("#ffffff"));
  p.setColor(QPalette::AlternateBase, QColor("#f8f9fa"));
  p.setColor(QPalette::ToolTipBase, QColor("#fffbe6"));
  p.setColor(QPalette::ToolTipText, QColor("#212529"));
  p.setColor(QPalette::PlaceholderText, QColor("#868e96"));
  p.setColor(QPalette::Text, QColor("#212529"));
  p.setColor(QPalette::Button, QColor("#e9ecef"));
  p.setColor(QPalette::ButtonText, QColor("#212529"));
  p.setColor(QPalette::BrightText, QColor("#e03131"));
  p.setColor(QPalette::Highlight, QColor("#1c7ed6"));
  p.setColor(QPalette::HighlightedText, QColor("#ffffff"));
  p.setColor(QPalette::Link, QColor("#1971c2"));
  p.setColor(QPalette::Light, QColor("#ffffff"));
  p.setColor(QPalette::Midlight, QColor("#e9ecef"));
  p.setColor(QPalette::Mid, QColor("#adb5bd"));
  p.setColor(QPalette::Dark, QColor("#868e96"));
  p.setColor(QPalette::Shadow, QColor("#495057"));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor("#adb5bd"));
  return p;
}

QPalette Theme::darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor("#2b2d31"));
  p.setColor(QPalette::WindowText, QColor("#e9ecef"));
  p.setColor(QPalette::Base, QColor("#1e1f22"));
  p.setColor(QPalette::AlternateBase, QColor("#26282c"));
  p.setColor(QPalette::ToolTipBase, QColor("#343a40"));
  p.setColor(QPalette::ToolTipText, QColor("#e9ecef"));
  p.setColor(QPalette::PlaceholderText, QColor("#868e96"));
  p.setColor(QPalette::Text, QColor("#e9ecef"));
  p.setColor(QPalette::Button, QColor("#373a40"));
  p.setColor(QPalette::ButtonText, QColor("#e9ecef"));
  p.setColor(QPalette::BrightText, QColor("#ff8787"));
  p.setColor(QPalette::Highlight, QColor("#1c7ed6"));
  p.setColor(QPalette::HighlightedText, QColor("#ffffff"));
  p.setColor(QPalette::Link, QColor("#74c0fc"));
  p.setColor(QPalette::Light, QColor("#495057"));
  p.setColor(QPalette::Midlight, QColor("#3b3e44"));
  p.setColor(QPalette::Mid, QColor("#2c2e33"));
  p.setColor(QPalette::Dark, QColor("#1a1b1e"));
  p.setColor(QPalette::Shadow, QColor("#101113"));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor("#6c757d"));
  return p;
}

void Theme::setChoice(ThemeChoice choice) {
  choice_ = choice;
  if (qApp) {
    switch (choice) {
    case ThemeChoice::Light:
    case ThemeChoice::Dark:
      // Fusion draws every control from the palette, so both palettes look
      // the same on every platform.
      if (QApplication::style()->name().compare(QStringLiteral("fusion"), Qt::CaseInsensitive))
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(choice == ThemeChoice::Dark ? darkPalette() : lightPalette());
      break;
    case ThemeChoice::System:
      if (captured_) {
        if (QApplication::style()->name().compare(systemStyle_, Qt::CaseInsensitive))
          if (QStyle* s = QStyleFactory::create(systemStyle_))
            QApplication::setStyle(s);
        QApplication::setPalette(systemPalette_);
      }
      break;
    }
  }
  const bool dark =
      choice == ThemeChoice::Dark || (choice == ThemeChoice::System && captured_ &&
                                      systemPalette_.color(QPalette::Window).lightness() < 128);
  colors_ = dark ? ThemeColors::darkColors() : ThemeColors::lightColors();
  Q_EMIT changed();
}

QString Theme::settingsKey() { return QStringLiteral("appearance/theme"); }

ThemeChoice Theme::savedChoice() {
  const QString name = QSettings().value(settingsKey()).toString();
  return parseThemeChoice(name).value_or(ThemeChoice::System);
}

void Theme::saveChoice(ThemeChoice choice) {
  QSettings().setValue(settingsKey(), themeChoiceName(choice));
}

} // namespace lowerscope
