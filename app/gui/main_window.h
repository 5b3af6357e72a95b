#pragma once
// The workbench window: the graph in the centre, docks around it (IR text,
// pass timeline, target palette, tuning, log). Each panel starts with an empty
// state that says what will appear there; the session work fills them in.
#include <QMainWindow>
#include <QSize>

class QAction;
class QDockWidget;
class QMenu;

namespace lowerscope {

class EmptyStateWidget;
class IrTextView;
class LogView;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  static constexpr QSize kDefaultSize{1400, 900};

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens `path` as the current model. On failure logs the reason, leaves the
  /// current model as it was, returns false and sets `error` if given.
  bool openFile(const QString& path, QString* error = nullptr);
  QString currentFile() const { return currentFile_; }

  /// Restores geometry, dock layout and state saved by a previous session
  /// and makes closing the window save them again. Not called for
  /// screenshots, which must not depend on (or change) the user's settings.
  void restoreSettings();
  void saveSettings() const;
  /// Puts every dock back where a fresh install has it, and shows it.
  void resetLayout();

  QList<QDockWidget*> docks() const;
  EmptyStateWidget* graphView() const { return graph_; }
  IrTextView* irTextView() const { return irText_; }
  LogView* logView() const { return log_; }

public Q_SLOTS:
  void showOpenDialog();
  void showAbout();

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  QDockWidget* addPanel(const QString& title, const QString& objectName, QWidget* content);
  void createPanels();
  void createMenus();
  void rebuildRecentMenu();
  void updateTitle();

  EmptyStateWidget* graph_ = nullptr;
  IrTextView* irText_ = nullptr;
  LogView* log_ = nullptr;
  QDockWidget* irTextDock_ = nullptr;
  QDockWidget* timelineDock_ = nullptr;
  QDockWidget* paletteDock_ = nullptr;
  QDockWidget* tuningDock_ = nullptr;
  QDockWidget* logDock_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QString currentFile_;
  bool persistSettings_ = false;
};

} // namespace lowerscope
