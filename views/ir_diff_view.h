#pragma once
// The IR text of the current step, or — in "Before / after" mode — the text
// before and after the current pass side by side, aligned by a Myers line
// diff (engine/viz/text_diff.h): deleted lines red on the left, inserted
// lines green on the right, a blank filler opposite each. Only the function
// the session shows, or the whole module, is printed. Keywords are
// highlighted. A PrimFunc chosen in the function list shows its loop nest
// here and its loop-tree outline in a LoopTreeView.
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSplitter;

namespace lowerscope {

class Session;
class LoopTreeView;

class IrDiffView : public QWidget {
  Q_OBJECT
public:
  explicit IrDiffView(Session* session, QWidget* parent = nullptr);

  void setDiffMode(bool on);
  bool diffMode() const { return diffMode_; }
  /// "" for the whole module, else one function of the current module.
  void setFunction(const QString& name);
  QString function() const;
  QPlainTextEdit* before() const { return before_; }
  QPlainTextEdit* after() const { return after_; }
  LoopTreeView* loopTree() const { return loopTree_; }
  /// Lines marked deleted (left) and inserted (right) by the last diff.
  int deletedLines() const { return deleted_; }
  int insertedLines() const { return inserted_; }

public Q_SLOTS:
  void refresh();
  /// Scrolls the after text to the definition of `name` and selects it.
  bool revealName(const QString& name);

private:
  void fillFunctions();

  Session* session_;
  QComboBox* functions_;
  QCheckBox* diffBox_;
  QLabel* status_;
  QSplitter* splitter_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  LoopTreeView* loopTree_;
  bool diffMode_ = false;
  int deleted_ = 0, inserted_ = 0;
};

} // namespace lowerscope
