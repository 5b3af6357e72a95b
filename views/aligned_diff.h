#pragma once
// Two texts side by side, aligned by a line diff: what the IR diff view and
// the records browser's TextDiffPane both show. The Myers edit script
// (engine/viz/text_diff.h) becomes two equally long columns, a blank filler
// opposite each deleted or inserted line, plus the lines to colour; the
// colour goes in as block formats (markLines), so a document keeps it
// without being laid out again. Also the read-only monospace editor both
// views show such a column in.
#include <QString>

#include <string>
#include <vector>

class QColor;
class QPlainTextEdit;
class QTextDocument;
class QWidget;

namespace lowerscope {

/// `left` and `right` aligned line by line (lines joined by '\n').
struct AlignedDiff {
  QString left, right;
  std::vector<int> deletedLines;  // 0-based lines of `left` that only it has
  std::vector<int> insertedLines; // 0-based lines of `right` that only it has
};

/// Diffs the two texts by lines and aligns them (see the header comment).
AlignedDiff alignLineDiff(const std::string& left, const std::string& right);

/// Gives lines `lines` of `doc` the background `color` (block formats: they
/// live in the document, so a cached document keeps them for free, where
/// extra selections would be laid out again on every switch). Lines past the
/// end are skipped.
void markLines(QTextDocument* doc, const std::vector<int>& lines, const QColor& color);

/// A read-only, unwrapped editor named `name` in the house monospace font.
QPlainTextEdit* newMonoEditor(QWidget* parent, const QString& name);

} // namespace lowerscope
