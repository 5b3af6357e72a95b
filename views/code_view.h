#pragma once
// The code view: what codegen made, per sub-target, after a build — the C
// source of a `c` part, the LLVM IR and assembly of an `llvm` part (and of a
// plain llvm build), with the part's note (compile-only, library calls).
// It reads unity::BuildResult::parts, the same data `lowerscope-cli build
// --emit DIR` writes, so nothing is generated twice. showKernel() selects the
// part that owns a tensor function and scrolls to it (the graph view's
// selected node).
#include <QString>
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace lowerscope {

class Session;

class CodeView : public QWidget {
  Q_OBJECT
public:
  enum class Kind { C, LlvmIR, Assembly };
  explicit CodeView(Session* session, QWidget* parent = nullptr);

  /// Sub-target names of the last build ("llvm" for a plain build).
  QStringList partNames() const;
  QString currentPart() const;
  bool selectPart(const QString& name);
  /// The text shown for `kind` of the current part ("" when it has none).
  QString text(Kind kind) const;
  Kind currentKind() const;
  /// Selects the part owning tensor function `function` and scrolls to its
  /// definition; false when no part has it.
  bool showKernel(const QString& function);
  /// The line (1-based) of the cursor in the current tab.
  int currentLine() const;

public Q_SLOTS:
  void refresh();

private:
  struct Part {
    QString name, target, note;
    bool compileOnly = false;
    QStringList functions;
    QString c, ir, assembly;
  };
  void showPart(int index);
  QPlainTextEdit* editor(Kind kind) const;

  Session* session_;
  QComboBox* parts_;
  QLabel* note_;
  QTabWidget* tabs_;
  QPlainTextEdit* c_;
  QPlainTextEdit* ir_;
  QPlainTextEdit* asm_;
  std::vector<Part> data_;
};

} // namespace lowerscope
