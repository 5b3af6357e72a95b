#pragma once
// Light and dark palettes for the whole workbench.
//
// One process-wide Theme holds the user's choice (Light, Dark or System) and
// the colours every view draws with: the Qt widget palette (applied to the
// application), the graph canvas (background, edges, node fills and text,
// clusters, selection, diff status) and the IR text highlighting. Views read
// Theme::colors() when they draw and redraw on Theme::changed().
//
// Node fills come from the engine's palette (unity::viz::nodeColor, pastel
// colours made for a white page, also used by SVG/PNG exports); on a dark
// canvas they are mapped to a dark shade of the same hue so light text stays
// readable. "System" keeps the platform's style and palette and counts as
// dark when its window colour is dark.
#include <QColor>
#include <QObject>
#include <QPalette>
#include <QString>

#include <optional>

namespace lowerscope {

enum class ThemeChoice { System, Light, Dark };

/// "system", "light", "dark".
QString themeChoiceName(ThemeChoice choice);
/// Parses a name as themeChoiceName writes it (case-insensitive); nullopt otherwise.
std::optional<ThemeChoice> parseThemeChoice(const QString& name);

struct ThemeColors {
  bool dark = false;
  // Graph canvas.
  QColor canvas, edge, edgeLabel, nodeText, nodeBorder, clusterFill, clusterBorder, clusterText,
      selection;
  QColor added, removed, changed; // diff status outlines
  QColor minimapBackground, minimapFrame;
  // IR text.
  QColor keyword, nameSpace, string, comment, decorator, deletedLine, insertedLine;

  /// The fill of a node whose engine colour (light palette) is `lightFill`.
  QColor nodeFill(const QColor& lightFill) const;

  static ThemeColors lightColors();
  static ThemeColors darkColors();
};

class Theme : public QObject {
  Q_OBJECT
public:
  /// The process-wide theme (created on first use, parented to the application).
  static Theme* instance();

  ThemeChoice choice() const { return choice_; }
  bool isDark() const { return colors_.dark; }
  const ThemeColors& colors() const { return colors_; }

  /// Applies `choice` to the application (style, palette) and the views.
  void setChoice(ThemeChoice choice);

  /// QSettings key of the persisted choice.
  static QString settingsKey();
  /// The choice saved in QSettings (System when none or unreadable).
  static ThemeChoice savedChoice();
  /// Saves `choice` in QSettings.
  static void saveChoice(ThemeChoice choice);

  /// The widget palettes used for Light and Dark.
  static QPalette lightPalette();
  static QPalette darkPalette();

Q_SIGNALS:
  void changed();

private:
  explicit Theme(QObject* parent);
  ThemeChoice choice_ = ThemeChoice::System;
  ThemeColors colors_;
  QString systemStyle_;
  QPalette systemPalette_;
  bool captured_ = false;
};

} // namespace lowerscope
