// Side-by-side line diff of two texts (see aligned_diff.h).
#include "views/aligned_diff.h"

#include <QColor>
#include <QPlainTextEdit>
#include <QStringList>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include "engine/viz/text_diff.h"

namespace lowerscope {

AlignedDiff alignLineDiff(const std::string& left, const std::string& right) {
  const auto a = unity::viz::splitLines(left);
  const auto b = unity::viz::splitLines(right);
  QStringList l, r;
  AlignedDiff out;
  using K = unity::viz::LineDiff::Kind;
  for (const auto& d : unity::viz::diffLines(a, b)) {
    if (d.kind == K::Equal) {
      l << QString::fromStdString(a[d.left]);
      r << QString::fromStdString(b[d.right]);
    } else if (d.kind == K::Delete) {
      out.deletedLines.push_back(static_cast<int>(l.size()));
      l << QString::fromStdString(a[d.left]);
      r << QString();
    } else {
      out.insertedLines.push_back(static_cast<int>(r.size()));
      l << QString();
      r << QString::fromStdString(b[d.right]);
    }
  }
  out.left = l.join('\n');
  out.right = r.join('\n');
  return out;
}

void markLines(QTextDocument* doc, const std::vector<int>& lines, const QColor& color) {
  QTextBlockFormat format;
  format.setBackground(color);
  QTextCursor cursor(doc);
  cursor.beginEditBlock();
  for (int l : lines) {
    QTextBlock block = doc->findBlockByNumber(l);
    if (!block.isValid())
      continue;
    cursor.setPosition(block.position());
    cursor.mergeBlockFormat(format);
  }
  cursor.endEditBlock();
}

QPlainTextEdit* newMonoEditor(QWidget* parent, const QString& name) {
  auto* e = new QPlainTextEdit(parent);
  e->setObjectName(name);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  e->setFont(mono);
  return e;
}

} // namespace lowerscope
