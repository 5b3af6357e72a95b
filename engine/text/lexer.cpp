#include "engine/text/lexer.h"

#include <cctype>

#include <fmt/format.h>

namespace unity::text {

std::string sourceLine(std::string_view source, int line) {
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    pos = source.find('\n', pos);
    if (pos == std::string_view::npos)
      return {};
    ++pos;
  }
  size_t end = source.find('\n', pos);
  std::string s(
      source.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
  if (!s.empty() && s.back() == '\r')
    s.pop_back();
  return s;
}

std::string quoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      else
        out += c;
    }
  }
  return out + "\"";
}

namespace {

class Lexer {
public:
  Lexer(std::string_view src, const std::string& file) : src_(src), file_(file) {}

  LexResult run() {
    indents_.push_back(0);
    while (pos_ < src_.size()) {
      if (atLineStart_) {
        if (depth_ > 0)
          atLineStart_ = false; // a continuation line inside brackets
        else if (!handleIndent())
          continue; // blank or comment-only line
      }
      char c = src_[pos_];
      if (c == '\n') {
        if (depth_ == 0 && lineHasTokens_)
          push(Tok::Newline, "", line_, col());
        newline();
        continue;
      }
      if (c == ' ' || c == '\r' || c == '\t') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        comment();
        continue;
      }
      token();
    }
    if (lineHasTokens_)
      push(Tok::Newline, "", line_, col());
    if (depth_ > 0)
      fail(openLine_, openCol_, "unclosed bracket");
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, "", line_, 1);
    }
    push(Tok::End, "", line_, col());
    return std::move(out_);
  }

private:
  int col() const { return static_cast<int>(pos_ - lineStart_) + 1; }

  [[noreturn]] void fail(int line, int column, const std::string& msg) {
    throw Error(SourceLoc{file_, line, column}, msg, sourceLine(src_, line));
  }

  void push(Tok k, std::string text, int line, int column) {
    out_.tokens.push_back(Token{k, std::move(text), line, column});
    if (k != Tok::Newline && k != Tok::Indent && k != Tok::Dedent)
      lineHasTokens_ = true;
  }

  void newline() {
    ++pos_;
    ++line_;
    lineStart_ = pos_;
    atLineStart_ = true;
    if (depth_ == 0)
      lineHasTokens_ = false;
  }

  // Measures the indentation of a new logical line. Returns false when the
  // line is blank or holds only a comment (it then consumed nothing that
  // matters and the main loop continues with the comment or newline).
  bool handleIndent() {
    size_t p = pos_;
    while (p < src_.size() && src_[p] == ' ')
      ++p;
    if (p < src_.size() && src_[p] == '\t')
      fail(line_, static_cast<int>(p - lineStart_) + 1, "tab in indentation (use spaces)");
    atLineStart_ = false;
    if (p >= src_.size() || src_[p] == '\n' || src_[p] == '#' || src_[p] == '\r') {
      pos_ = p;
      return false;
    }
    int width = static_cast<int>(p - pos_);
    pos_ = p;
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(Tok::Indent, "", line_, col());
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(Tok::Dedent, "", line_, col());
      }
      if (width != indents_.back())
        fail(line_, col(), "indentation does not match any outer block");
    }
    lineHasTokens_ = false;
    return true;
  }

  void comment() {
    size_t end = src_.find('\n', pos_);
    if (end == std::string_view::npos)
      end = src_.size();
    std::string_view body = src_.substr(pos_ + 1, end - pos_ - 1);
    size_t s = body.find_first_not_of(' ');
    if (s != std::string_view::npos && body.substr(s).starts_with("@origin")) {
      originComment(pos_ + 1 + s + 7, end);
    }
    pos_ = end;
  }

  // `@origin("a", "b")`: a parenthesized list of string literals.
  void originComment(size_t p, size_t end) {
    auto at = [&](size_t q) { return static_cast<int>(q - lineStart_) + 1; };
    auto skip = [&] {
      while (p < end && (src_[p] == ' ' || src_[p] == '\r'))
        ++p;
    };
    skip();
    if (p >= end || src_[p] != '(')
      fail(line_, at(p), "expected '(' after @origin");
    ++p;
    std::vector<std::string> origins;
    skip();
    if (p < end && src_[p] == ')') {
      out_.originsByLine[line_] = {};
      return;
    }
    while (true) {
      skip();
      if (p >= end || (src_[p] != '"' && src_[p] != '\''))
        fail(line_, at(p), "expected a string in @origin(...)");
      size_t save = pos_;
      pos_ = p;
      origins.push_back(stringLiteral());
      p = pos_;
      pos_ = save;
      skip();
      if (p < end && src_[p] == ',') {
        ++p;
        continue;
      }
      if (p < end && src_[p] == ')')
        break;
      fail(line_, at(p), "expected ',' or ')' in @origin(...)");
    }
    out_.originsByLine[line_] = std::move(origins);
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  // Reads a string literal starting at pos_ (on the quote); returns its value.
  std::string stringLiteral() {
    char quote = src_[pos_];
    int startCol = col();
    ++pos_;
    std::string v;
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n')
        fail(line_, startCol, "unterminated string");
      char c = src_[pos_++];
      if (c == quote)
        break;
      if (c != '\\') {
        v += c;
        continue;
      }
      if (pos_ >= src_.size())
        fail(line_, startCol, "unterminated string");
      char e = src_[pos_++];
      switch (e) {
      case 'n':
        v += '\n';
        break;
      case 't':
        v += '\t';
        break;
      case 'r':
        v += '\r';
        break;
      case '\\':
        v += '\\';
        break;
      case '"':
        v += '"';
        break;
      case '\'':
        v += '\'';
        break;
      case 'x': {
        int h = pos_ + 1 < src_.size() ? hexValue(src_[pos_]) : -1;
        int l = h >= 0 ? hexValue(src_[pos_ + 1]) : -1;
        if (l < 0)
          fail(line_, col(), "\\x escape needs two hex digits");
        v += static_cast<char>(h * 16 + l);
        pos_ += 2;
        break;
      }
      default:
        fail(line_, col() - 1, fmt::format("unknown escape '\\{}' in string", e));
      }
    }
    return v;
  }

  void token() {
    char c = src_[pos_];
    int startCol = col();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = pos_;
      while (pos_ < src_.size() &&
             (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
        ++pos_;
      push(Tok::Name, std::string(src_.substr(b, pos_ - b)), line_, startCol);
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      number(startCol);
      return;
    }
    if (c == '"' || c == '\'') {
      std::string v = stringLiteral();
      push(Tok::String, std::move(v), line_, startCol);
      return;
    }
    static const char* kTwo[] = {"==", "!=", "<=", ">=", "//", "->"};
    for (const char* t : kTwo)
      if (src_.substr(pos_, 2) == t) {
        pos_ += 2;
        push(Tok::Op, t, line_, startCol);
        return;
      }
    if (std::string_view("()[]{},:.=<>+-*/%@").find(c) == std::string_view::npos)
      fail(line_, startCol,
           std::isprint(static_cast<unsigned char>(c))
               ? fmt::format("unexpected character '{}'", c)
               : fmt::format("unexpected byte 0x{:02x}", static_cast<unsigned char>(c)));
    if (c == '(' || c == '[' || c == '{') {
      if (depth_++ == 0) {
        openLine_ = line_;
        openCol_ = startCol;
      }
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth_ == 0)
        fail(line_, startCol, fmt::format("unmatched '{}'", c));
      --depth_;
    }
    ++pos_;
    push(Tok::Op, std::string(1, c), line_, startCol);
  }

  void number(int startCol) {
    size_t b = pos_;
    bool isFloat = false;
    auto digits = [&] {
      while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_])))
        ++pos_;
    };
    digits();
    if (pos_ < src_.size() && src_[pos_] == '.') {
      isFloat = true;
      ++pos_;
      digits();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t q = pos_ + 1;
      if (q < src_.size() && (src_[q] == '+' || src_[q] == '-'))
        ++q;
      if (q < src_.size() && std::isdigit(static_cast<unsigned char>(src_[q]))) {
        isFloat = true;
        pos_ = q;
        digits();
      }
    }
    if (pos_ < src_.size() &&
        (std::isalpha(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
      fail(line_, startCol, "malformed number");
    push(isFloat ? Tok::Float : Tok::Int, std::string(src_.substr(b, pos_ - b)), line_, startCol);
  }

  std::string_view src_;
  std::string file_;
  size_t pos_ = 0, lineStart_ = 0;
  int line_ = 1;
  bool atLineStart_ = true, lineHasTokens_ = false;
  int depth_ = 0, openLine_ = 0, openCol_ = 0;
  std::vector<int> indents_;
  LexResult out_;
};

} // namespace

LexResult lex(std::string_view source, const std::string& fileName) {
  return Lexer(source, fileName).run();
}

} // namespace unity::text
