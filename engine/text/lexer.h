#pragma once
// Tokenizer of the .uir text format (see docs/text-format.md).
//
// Python-like: the lexer turns leading whitespace into INDENT/DEDENT tokens
// and ends every logical line with NEWLINE; inside brackets newlines are
// insignificant. Comments run from '#' to the end of the line; the one kind of
// comment that carries meaning, `# @origin("A", "B")`, is recorded per line so
// the parser can attach it to the binding written on that line.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/support/error.h"

namespace unity::text {

enum class Tok { Name, Int, Float, String, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind = Tok::End;
  std::string text; // names, operators, number spelling, decoded string value
  int line = 0, col = 0;
};

struct LexResult {
  std::vector<Token> tokens;
  /// Origins written as `# @origin(...)` comments, by line.
  std::map<int, std::vector<std::string>> originsByLine;
};

/// Splits source into tokens; throws unity::Error (with file:line:col and
/// the source line) on a malformed character, string or indentation.
LexResult lex(std::string_view source, const std::string& fileName);

/// The text of 1-based line `line` of source (without its newline).
std::string sourceLine(std::string_view source, int line);

/// Escapes s as a double-quoted string literal of the text format.
std::string quoteString(std::string_view s);

} // namespace unity::text
