#pragma once
// The IR text of the current step, or — in "Before / after" mode — the text
// before and after the current pass side by side, aligned by a Myers line
// diff (engine/viz/text_diff.h): deleted lines red on the left, inserted
// lines green on the right, a blank filler opposite each. Only the function
// the session shows, or the whole module, is printed. Keywords are
// highlighted. A PrimFunc chosen in the function list shows its loop nest
// here and its loop-tree outline in a LoopTreeView.
//
// Texts are cached per (step's module, module before it, function, mode) as
// ready-made editors holding highlighted, marked documents (the last
// kTextCache of them, in a QStackedWidget per side), so switching back to a
// step raises its editors instead of printing, diffing and highlighting
// again (even QPlainTextEdit::setDocument re-lays out a whole document: ~60
// ms for a 500-op module).
//
// Selection is linked with the graph: putting the cursor on a binding line
// emits bindingSelected (the window selects that node in the graph), and
// revealName scrolls to the binding of a node chosen in the graph.
#include <QWidget>

#include <cstddef>
#include <list>
#include <string>

#include "engine/ir/module.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSplitter;
class QStackedWidget;

namespace lowerscope {

class Session;
class LoopTreeView;

/// The longest line the IR views show in full (4096 characters).
inline constexpr size_t kMaxShownLine = 4096;

/// text with every line longer than maxLine cut to its first maxLine
/// characters and "... [N more characters, #H]" (H: a hash of the cut part,
/// so two lines that differ only there still differ in a diff). A model's
/// weights print as one base64 line each (12 MB for a 512x512x3x3
/// convolution), which Qt lays out past its fixed-point coordinates: the
/// line was drawn over itself, and scrolling to it took seconds.
std::string elideLongLines(const std::string& text, size_t maxLine = kMaxShownLine);

class IrDiffView : public QWidget {
  Q_OBJECT
public:
  explicit IrDiffView(Session* session, QWidget* parent = nullptr);
  ~IrDiffView() override;

  void setDiffMode(bool on);
  bool diffMode() const { return diffMode_; }
  /// "" for the whole module, else one function of the current module.
  void setFunction(const QString& name);
  QString function() const;
  /// The editors shown now (they change with the step).
  QPlainTextEdit* before() const { return before_; }
  QPlainTextEdit* after() const { return after_; }
  LoopTreeView* loopTree() const { return loopTree_; }
  /// Lines marked deleted (left) and inserted (right) by the last diff.
  int deletedLines() const { return deleted_; }
  int insertedLines() const { return inserted_; }

  /// The binding a text line defines: its name and the function it is in
  /// ("" when the line binds nothing). `line` is 0-based in `before()` or
  /// `after()`.
  struct Binding {
    QString function, name;
  };
  Binding bindingAt(bool beforeSide, int line) const;

public Q_SLOTS:
  void refresh();
  /// Scrolls the after text (the before text when `beforeSide`) to the
  /// definition of `name` — in `function` when the text shows several — and
  /// selects it. Does not emit bindingSelected.
  bool revealName(const QString& name, const QString& function = {}, bool beforeSide = false);

Q_SIGNALS:
  /// The user put the cursor on a line that binds `name` in `function`
  /// (clicked it, or moved there with the keys); `beforeSide`: in the
  /// before text.
  void bindingSelected(const QString& function, const QString& name, bool beforeSide);

public:
  /// How many texts are cached (tests).
  int cachedTexts() const { return static_cast<int>(cache_.size()); }
  static constexpr size_t kTextCache = 8;

private:
  /// One shown state: the editors of both sides (owned by the stacks).
  struct Texts {
    QString key;
    unity::ir::IRModule module, moduleBefore; // keep the key's pointers unique
    QPlainTextEdit* before = nullptr;         // null without a diff
    QPlainTextEdit* after = nullptr;
    int deleted = 0, inserted = 0;
    QString status;
  };
  Texts makeTexts(const unity::ir::IRModule& m, const std::string& fn);
  /// A read-only editor in the house font, wired to the view, in `stack`.
  QPlainTextEdit* newEditor(QStackedWidget* stack, bool beforeSide, const QString& text);
  void dropTexts(Texts& t);
  void clearTexts();
  void showEditors(QPlainTextEdit* before, QPlainTextEdit* after);
  void fillFunctions();
  void onCursorMoved(bool beforeSide);

  Session* session_;
  QComboBox* functions_;
  QCheckBox* diffBox_;
  QLabel* status_;
  QSplitter* splitter_;
  QStackedWidget* beforeStack_;
  QStackedWidget* afterStack_;
  QPlainTextEdit* placeholderBefore_; // shown without a model or a diff
  QPlainTextEdit* placeholderAfter_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  LoopTreeView* loopTree_;
  bool diffMode_ = false;
  bool revealing_ = false; // revealName moves the cursor: not a user choice
  int deleted_ = 0, inserted_ = 0;
  std::list<Texts> cache_; // most recently shown first
};

} // namespace lowerscope
