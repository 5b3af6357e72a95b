#include "views/code_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include "engine/build.h"
#include "views/session.h"

namespace lowerscope {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
} // namespace

CodeView::CodeView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), parts_(new QComboBox(this)), note_(new QLabel(this)),
      tabs_(new QTabWidget(this)), c_(new QPlainTextEdit(this)), ir_(new QPlainTextEdit(this)),
      asm_(new QPlainTextEdit(this)) {
  setObjectName("codeView");
  parts_->setObjectName("codeParts");
  parts_->setToolTip(tr("Sub-target whose generated code is shown"));
  note_->setWordWrap(true);
  note_->setStyleSheet("color:#495057;");
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (QPlainTextEdit* e : {c_, ir_, asm_}) {
    e->setReadOnly(true);
    e->setFont(mono);
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
  }
  c_->setObjectName("codeC");
  ir_->setObjectName("codeLlvmIR");
  asm_->setObjectName("codeAssembly");
  tabs_->addTab(c_, tr("C"));
  tabs_->addTab(ir_, tr("LLVM IR"));
  tabs_->addTab(asm_, tr("Assembly"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Sub-target"), this));
  bar->addWidget(parts_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(note_);
  layout->addWidget(tabs_, 1);
  connect(parts_, &QComboBox::currentIndexChanged, this, &CodeView::showPart);
  connect(session_, &Session::buildFinished, this, [this](bool ok) {
    if (ok)
      refresh();
  });
  connect(session_, &Session::moduleChanged, this, &CodeView::refresh);
  refresh();
}

void CodeView::refresh() {
  QString keep = currentPart();
  data_.clear();
  auto build = session_->lastBuild();
  if (build && !build->parts.empty()) {
    for (const auto& p : build->parts) {
      Part part;
      part.name = q(p.name);
      part.target = q(p.target);
      part.note = q(p.note);
      part.compileOnly = p.compileOnly;
      for (auto& f : p.functions)
        part.functions << q(f);
      part.c = q(p.cSource);
      part.ir = q(p.llvmIR);
      part.assembly = q(p.assembly);
      data_.push_back(std::move(part));
    }
  } else if (build) {
    Part part;
    part.name = q(build->target.kind);
    part.target = q(build->target.str());
    for (auto& [name, f] : unity::primFuncsOf(build->lowered))
      part.functions << q(name);
    part.c = q(build->artifacts.cSource); // a plain `c` target's source
    if (build->compiled) {
      part.ir = q(build->compiled->llvmIR());
      part.assembly = q(build->compiled->assembly());
    } else {
      part.ir = q(build->artifacts.llvmIR);
      part.assembly = q(build->artifacts.assembly);
      part.compileOnly = true;
    }
    data_.push_back(std::move(part));
  }
  QSignalBlocker block(parts_);
  parts_->clear();
  for (const Part& p : data_)
    parts_->addItem(QStringLiteral("%1 (%2)").arg(p.name, p.target), p.name);
  int index = std::max(0, parts_->findData(keep));
  parts_->setCurrentIndex(data_.empty() ? -1 : index);
  showPart(data_.empty() ? -1 : index);
}

void CodeView::showPart(int index) {
  if (index < 0 || index >= static_cast<int>(data_.size())) {
    for (QPlainTextEdit* e : {c_, ir_, asm_})
      e->clear();
    note_->setText(session_->hasModule() ? tr("Build (Ctrl+B) to see the generated code.")
                                         : tr("Open a model and build it to see its code."));
    return;
  }
  const Part& p = data_[index];
  c_->setPlainText(p.c);
  ir_->setPlainText(p.ir);
  asm_->setPlainText(p.assembly);
  tabs_->setTabEnabled(0, !p.c.isEmpty());
  tabs_->setTabEnabled(1, !p.ir.isEmpty());
  tabs_->setTabEnabled(2, !p.assembly.isEmpty());
  for (int t = 0; t < 3; ++t)
    if (tabs_->isTabEnabled(t)) {
      if (!tabs_->isTabEnabled(tabs_->currentIndex()))
        tabs_->setCurrentIndex(t);
      break;
    }
  QString note = tr("%n tensor function(s)", "", int(p.functions.size()));
  if (p.compileOnly)
    note += tr("; compile-only here (cross target or no functions)");
  if (!p.note.isEmpty())
    note += "; " + p.note;
  if (p.c.isEmpty() && p.ir.isEmpty() && p.assembly.isEmpty())
    note += tr("; no source code (library calls or nothing assigned)");
  note_->setText(note);
}

QStringList CodeView::partNames() const {
  QStringList out;
  for (const Part& p : data_)
    out << p.name;
  return out;
}

QString CodeView::currentPart() const { return parts_->currentData().toString(); }

bool CodeView::selectPart(const QString& name) {
  int i = parts_->findData(name);
  if (i < 0)
    return false;
  parts_->setCurrentIndex(i);
  return true;
}

QPlainTextEdit* CodeView::editor(Kind kind) const {
  switch (kind) {
  case Kind::C:
    return c_;
  case Kind::LlvmIR:
    return ir_;
  case Kind::Assembly:
    break;
  }
  return asm_;
}

QString CodeView::text(Kind kind) const { return editor(kind)->toPlainText(); }

CodeView::Kind CodeView::currentKind() const { return static_cast<Kind>(tabs_->currentIndex()); }

int CodeView::currentLine() const {
  auto* e = static_cast<QPlainTextEdit*>(tabs_->currentWidget());
  return e->textCursor().blockNumber() + 1;
}

bool CodeView::showKernel(const QString& function) {
  for (size_t i = 0; i < data_.size(); ++i) {
    if (!data_[i].functions.contains(function))
      continue;
    parts_->setCurrentIndex(static_cast<int>(i));
    // The definition: C "name(" after a type, LLVM "@name(", assembly "name:".
    const QRegularExpression defs[] = {
        QRegularExpression(
            QStringLiteral("^[^;\\n]*\\b%1\\s*\\([^;]*$").arg(QRegularExpression::escape(function)),
            QRegularExpression::MultilineOption),
        QRegularExpression(
            QStringLiteral("^define .*@\"?%1\"?\\(").arg(QRegularExpression::escape(function)),
            QRegularExpression::MultilineOption),
        QRegularExpression(QStringLiteral("^\"?%1\"?:").arg(QRegularExpression::escape(function)),
                           QRegularExpression::MultilineOption)};
    for (int t = 0; t < 3; ++t) {
      QPlainTextEdit* e = editor(static_cast<Kind>(t));
      if (!tabs_->isTabEnabled(t))
        continue;
      auto m = defs[t].match(e->toPlainText());
      int pos = m.hasMatch() ? int(m.capturedStart()) : int(e->toPlainText().indexOf(function));
      if (pos < 0)
        continue;
      tabs_->setCurrentIndex(t);
      QTextCursor c(e->document());
      c.setPosition(pos);
      e->setTextCursor(c);
      e->centerCursor();
      return true;
    }
    return true; // the part, but no text names it (a library call)
  }
  return false;
}

} // namespace lowerscope
