#include "views/ir_diff_view.h"

#include <cstdio>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

#include "engine/text/printer.h"
#include "engine/viz/loop_tree.h"
#include "views/aligned_diff.h"
#include "views/loop_tree_view.h"
#include "views/session.h"
#include "views/theme.h"

namespace lowerscope {

namespace {

/// Keywords, R./T. namespaces, strings and comments of the .uir format, in
/// the theme's colours (re-applied when the theme changes).
class IrHighlighter : public QSyntaxHighlighter {
public:
  explicit IrHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
    setColors();
    QObject::connect(Theme::instance(), &Theme::changed, this, [this] {
      setColors();
      rehighlight();
    });
  }

  void setColors() {
    const ThemeColors& colors = Theme::instance()->colors();
    QTextCharFormat kw, ns, str, comment, deco;
    kw.setForeground(colors.keyword);
    kw.setFontWeight(QFont::Bold);
    ns.setForeground(colors.nameSpace);
    str.setForeground(colors.string);
    comment.setForeground(colors.comment);
    deco.setForeground(colors.decorator);
    rules_ = {{QRegularExpression("\\b(def|for|in|with|return|if|else|as)\\b"), kw},
              {QRegularExpression("\\b[RT]\\.[A-Za-z_.]+"), ns},
              {QRegularExpression("@[RT]\\.\\w+"), deco},
              {QRegularExpression("\"[^\"]*\""), str},
              {QRegularExpression("#.*$"), comment}};
  }

protected:
  void highlightBlock(const QString& text) override {
    if (text.size() > 2000) // metadata lines: not worth it
      return;
    for (auto& [re, fmt] : rules_)
      for (auto it = re.globalMatch(text); it.hasNext();) {
        auto m = it.next();
        setFormat(m.capturedStart(), m.capturedLength(), fmt);
      }
  }

private:
  std::vector<std::pair<QRegularExpression, QTextCharFormat>> rules_;
};

QPlainTextEdit* makeEditor(QWidget* parent, const QString& name) {
  QPlainTextEdit* e = newMonoEditor(parent, name);
  new IrHighlighter(e->document());
  return e;
}

std::string printPart(const unity::ir::IRModule& m, const std::string& function) {
  if (!m)
    return {};
  if (function.empty())
    return elideLongLines(unity::text::printModule(m));
  unity::ir::BaseFunc f = m->lookup(function);
  if (!f)
    return "# " + function + " is not in the module at this step\n";
  return elideLongLines(unity::text::printModule(unity::ir::makeModule({{function, f}})));
}

/// "lv3" in "        lv3: R.Tensor(...) = R.add(...)" or "        lv3 = R.add(...)".
const QRegularExpression& bindingPattern() {
  static const QRegularExpression re(QStringLiteral("^\\s+([A-Za-z_][\\w.]*)\\s*(?::|=(?!=))"));
  return re;
}

/// "main" in "def main(x: ...":
const QRegularExpression& defPattern() {
  static const QRegularExpression re(QStringLiteral("^def\\s+([A-Za-z_][\\w.]*)\\s*\\("));
  return re;
}

} // namespace

std::string elideLongLines(const std::string& text, size_t maxLine) {
  std::string out;
  size_t start = 0;
  bool cut = false;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t stop = end == std::string::npos ? text.size() : end;
    if (stop - start <= maxLine) {
      out.append(text, start, stop - start);
    } else {
      cut = true;
      uint32_t h = 2166136261u; // FNV-1a of the part not shown
      for (size_t i = start + maxLine; i < stop; ++i)
        h = (h ^ static_cast<unsigned char>(text[i])) * 16777619u;
      char tail[64];
      std::snprintf(tail, sizeof tail, "... [%zu more characters, #%08x]", stop - start - maxLine,
                    h);
      out.append(text, start, maxLine);
      out += tail;
    }
    if (end == std::string::npos)
      break;
    out += '\n';
    start = end + 1;
  }
  return cut ? out : text;
}

IrDiffView::IrDiffView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), functions_(new QComboBox(this)),
      diffBox_(new QCheckBox(tr("Before / after"), this)), status_(new QLabel(this)),
      splitter_(new QSplitter(Qt::Horizontal, this)), beforeStack_(new QStackedWidget(this)),
      afterStack_(new QStackedWidget(this)), loopTree_(new LoopTreeView(this)) {
  setObjectName("irDiffView");
  placeholderBefore_ = newEditor(beforeStack_, true, QString());
  placeholderAfter_ = newEditor(afterStack_, false, QString());
  before_ = placeholderBefore_;
  after_ = placeholderAfter_;
  functions_->setObjectName("irFunction");
  functions_->setToolTip(tr("Function to print (graph or tensor level)"));
  diffBox_->setToolTip(tr("The text before the current pass next to the text after it"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(functions_, 1);
  bar->addWidget(diffBox_);
  bar->addWidget(status_);
  auto* vsplit = new QSplitter(Qt::Vertical, this);
  splitter_->addWidget(beforeStack_);
  splitter_->addWidget(afterStack_);
  vsplit->addWidget(splitter_);
  vsplit->addWidget(loopTree_);
  vsplit->setStretchFactor(0, 3);
  vsplit->setStretchFactor(1, 1);
  beforeStack_->hide();
  loopTree_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(vsplit, 1);
  connect(diffBox_, &QCheckBox::toggled, this, &IrDiffView::setDiffMode);
  // New line colours (the marks are in the cached documents: make them
  // again); the highlighters follow the theme themselves.
  connect(Theme::instance(), &Theme::changed, this, [this] {
    clearTexts();
    refresh();
  });
  connect(functions_, &QComboBox::activated, this, [this] { refresh(); });
  connect(session_, &Session::currentStepChanged, this, &IrDiffView::refresh);
  connect(session_, &Session::moduleChanged, this, &IrDiffView::refresh);
  refresh();
}

IrDiffView::~IrDiffView() = default;

QPlainTextEdit* IrDiffView::newEditor(QStackedWidget* stack, bool beforeSide, const QString& text) {
  QPlainTextEdit* e = makeEditor(stack, beforeSide ? "irBefore" : "irAfter");
  e->document()->setPlainText(text);
  stack->addWidget(e);
  // Scroll both sides together; the cursor of the shown side links to the
  // graph.
  connect(e->verticalScrollBar(), &QScrollBar::valueChanged, this, [this, e, beforeSide](int v) {
    if (e == (beforeSide ? before_ : after_))
      (beforeSide ? after_ : before_)->verticalScrollBar()->setValue(v);
  });
  connect(e, &QPlainTextEdit::cursorPositionChanged, this, [this, e, beforeSide] {
    if (e == (beforeSide ? before_ : after_))
      onCursorMoved(beforeSide);
  });
  return e;
}

void IrDiffView::dropTexts(Texts& t) {
  for (QPlainTextEdit* e : {t.before, t.after})
    if (e) {
      e->hide();
      e->deleteLater(); // may be mid-signal
    }
  t.before = t.after = nullptr;
}

void IrDiffView::clearTexts() {
  showEditors(placeholderBefore_, placeholderAfter_);
  for (Texts& t : cache_)
    dropTexts(t);
  cache_.clear();
}

void IrDiffView::showEditors(QPlainTextEdit* before, QPlainTextEdit* after) {
  before_ = before;
  after_ = after;
  beforeStack_->setCurrentWidget(before);
  afterStack_->setCurrentWidget(after);
}

void IrDiffView::setDiffMode(bool on) {
  diffMode_ = on;
  diffBox_->setChecked(on);
  beforeStack_->setVisible(on);
  refresh();
}

void IrDiffView::setFunction(const QString& name) {
  fillFunctions();
  int i = functions_->findData(name);
  if (i >= 0)
    functions_->setCurrentIndex(i);
  refresh();
}

QString IrDiffView::function() const { return functions_->currentData().toString(); }

void IrDiffView::fillFunctions() {
  unity::ir::IRModule m = session_->currentModule();
  QString keep = functions_->currentData().toString();
  QStringList names;
  if (m)
    for (auto& [name, f] : m->functions)
      names << QString::fromStdString(name);
  QStringList old;
  for (int i = 1; i < functions_->count(); ++i)
    old << functions_->itemData(i).toString();
  if (old == names && functions_->count() > 0)
    return;
  functions_->clear();
  functions_->addItem(tr("Whole module"), QString());
  for (auto& n : names)
    functions_->addItem(n, n);
  int i = functions_->findData(keep);
  functions_->setCurrentIndex(i < 0 ? 0 : i);
}

IrDiffView::Texts IrDiffView::makeTexts(const unity::ir::IRModule& m, const std::string& fn) {
  Texts t;
  t.module = m;
  auto editorWith = [this](bool beforeSide, const QString& text, const std::vector<int>& marks,
                           const QColor& color) {
    QPlainTextEdit* e = newEditor(beforeSide ? beforeStack_ : afterStack_, beforeSide, QString());
    QTextDocument* doc = e->document();
    doc->setUndoRedoEnabled(false);
    // The highlighter would re-highlight each marked line: take it off
    // while marking, then highlight the whole text once.
    QSyntaxHighlighter* highlighter = doc->findChild<QSyntaxHighlighter*>();
    if (highlighter)
      highlighter->setDocument(nullptr);
    doc->setPlainText(text);
    markLines(doc, marks, color);
    if (highlighter)
      highlighter->setDocument(doc);
    return e;
  };
  std::string afterText = printPart(m, fn);
  if (!diffMode_) {
    t.after = editorWith(false, QString::fromStdString(afterText), {}, QColor());
    t.status = tr("step %1: %2")
                   .arg(session_->currentStep())
                   .arg(session_->stepName(session_->currentStep()));
    return t;
  }
  t.moduleBefore = session_->moduleBefore(session_->currentStep());
  std::string beforeText = printPart(t.moduleBefore, fn);
  const AlignedDiff diff = alignLineDiff(beforeText, afterText);
  t.deleted = static_cast<int>(diff.deletedLines.size());
  t.inserted = static_cast<int>(diff.insertedLines.size());
  const ThemeColors& colors = Theme::instance()->colors();
  t.before = editorWith(true, diff.left, diff.deletedLines, colors.deletedLine);
  t.after = editorWith(false, diff.right, diff.insertedLines, colors.insertedLine);
  t.status = tr("%1: -%2 +%3 lines")
                 .arg(session_->stepName(session_->currentStep()))
                 .arg(t.deleted)
                 .arg(t.inserted);
  return t;
}

void IrDiffView::refresh() {
  fillFunctions();
  deleted_ = inserted_ = 0;
  unity::ir::IRModule m = session_->currentModule();
  std::string fn = function().toStdString();
  if (!m) {
    clearTexts();
    placeholderAfter_->setPlainText(tr("Open a model to see its IR text."));
    loopTree_->hide();
    status_->clear();
    return;
  }
  unity::ir::BaseFunc f = fn.empty() ? unity::ir::BaseFunc() : m->lookup(fn);
  if (f && unity::ir::isa<unity::ir::PrimFunc>(f)) {
    loopTree_->setTree(unity::viz::loopTree(*unity::ir::as<unity::ir::PrimFunc>(f), fn));
    loopTree_->show();
  } else {
    loopTree_->hide();
  }
  // The module pointers identify the texts: the entry keeps the modules
  // alive, so an address cannot be reused while it is cached.
  unity::ir::IRModule mb = diffMode_ ? session_->moduleBefore(session_->currentStep()) : nullptr;
  const QString key = QStringLiteral("%1|%2|%3|%4")
                          .arg(quintptr(m.get()))
                          .arg(quintptr(mb.get()))
                          .arg(function())
                          .arg(session_->currentStep()) +
                      (diffMode_ ? QStringLiteral("|diff") : QString());
  auto hit =
      std::find_if(cache_.begin(), cache_.end(), [&](const Texts& t) { return t.key == key; });
  if (hit != cache_.end()) {
    cache_.splice(cache_.begin(), cache_, hit);
  } else {
    Texts t = makeTexts(m, fn);
    t.key = key;
    cache_.push_front(std::move(t));
  }
  const Texts& t = cache_.front();
  showEditors(t.before ? t.before : placeholderBefore_, t.after);
  deleted_ = t.deleted;
  inserted_ = t.inserted;
  status_->setText(t.status);
  // Drop the oldest (never the shown one: it is at the front).
  while (cache_.size() > kTextCache) {
    dropTexts(cache_.back());
    cache_.pop_back();
  }
}

IrDiffView::Binding IrDiffView::bindingAt(bool beforeSide, int line) const {
  QTextDocument* doc = (beforeSide ? before_ : after_)->document();
  QTextBlock block = doc->findBlockByNumber(line);
  if (!block.isValid())
    return {};
  const QRegularExpressionMatch m = bindingPattern().match(block.text());
  if (!m.hasMatch())
    return {};
  Binding b;
  b.name = m.captured(1);
  // The function: the nearest "def" above (diff fillers are blank lines).
  for (QTextBlock up = block; up.isValid(); up = up.previous()) {
    const QRegularExpressionMatch d = defPattern().match(up.text());
    if (d.hasMatch()) {
      b.function = d.captured(1);
      break;
    }
  }
  if (b.function.isEmpty())
    b.function = function();
  return b;
}

void IrDiffView::onCursorMoved(bool beforeSide) {
  if (revealing_)
    return;
  const Binding b =
      bindingAt(beforeSide, (beforeSide ? before_ : after_)->textCursor().blockNumber());
  if (!b.name.isEmpty())
    Q_EMIT bindingSelected(b.function, b.name, beforeSide);
}

bool IrDiffView::revealName(const QString& name, const QString& function, bool beforeSide) {
  if (name.isEmpty())
    return false;
  QPlainTextEdit* edit = beforeSide ? before_ : after_;
  QRegularExpression re("^\\s*" + QRegularExpression::escape(name) + "\\s*[:=]");
  // Search inside `function` when the text has its "def"; else everywhere.
  QTextBlock from = edit->document()->begin();
  if (!function.isEmpty())
    for (QTextBlock b = from; b.isValid(); b = b.next()) {
      const QRegularExpressionMatch d = defPattern().match(b.text());
      if (d.hasMatch() && d.captured(1) == function) {
        from = b;
        break;
      }
    }
  for (QTextBlock b = from; b.isValid(); b = b.next()) {
    if (re.match(b.text()).hasMatch()) {
      QTextCursor c(b);
      c.select(QTextCursor::LineUnderCursor);
      revealing_ = true;
      edit->setTextCursor(c);
      edit->centerCursor();
      revealing_ = false;
      return true;
    }
  }
  return false;
}

} // namespace lowerscope
