#include "script/parser_lexer.h"

#include <cstring>

namespace wb::script::detail {
namespace {

bool IsNameStart(unsigned char c) { return c == '_' || unsigned((c | 0x20) - 'a') < 26u || c >= 0x80; }
bool IsNameChar(unsigned char c) { return IsNameStart(c) || unsigned(c - '0') < 10u; }
bool IsDigit(unsigned char c) { return unsigned(c - '0') < 10u; }

Kw Keyword(std::string_view s) {
  auto is = [&](const char* k) { return s.size() == std::strlen(k) && std::memcmp(s.data(), k, s.size()) == 0; };
  if (s.size() < 2 || s.size() > 8) return Kw::kNone;
  switch (s[0]) {
    case 'a':
      if (is("and")) return Kw::kAnd;
      if (is("as")) return Kw::kAs;
      if (is("assert")) return Kw::kAssert;
      if (is("await")) return Kw::kAwait;
      if (is("async")) return Kw::kAsync;
      break;
    case 'b': if (is("break")) return Kw::kBreak; break;
    case 'c':
      if (is("class")) return Kw::kClass;
      if (is("continue")) return Kw::kContinue;
      break;
    case 'd':
      if (is("def")) return Kw::kDef;
      if (is("del")) return Kw::kDel;
      break;
    case 'e':
      if (is("else")) return Kw::kElse;
      if (is("elif")) return Kw::kElif;
      if (is("except")) return Kw::kExcept;
      break;
    case 'f':
      if (is("for")) return Kw::kFor;
      if (is("from")) return Kw::kFrom;
      if (is("finally")) return Kw::kFinally;
      break;
    case 'g': if (is("global")) return Kw::kGlobal; break;
    case 'i':
      if (is("if")) return Kw::kIf;
      if (is("in")) return Kw::kIn;
      if (is("is")) return Kw::kIs;
      if (is("import")) return Kw::kImport;
      break;
    case 'l': if (is("lambda")) return Kw::kLambda; break;
    case 'n':
      if (is("not")) return Kw::kNot;
      if (is("nonlocal")) return Kw::kNonlocal;
      break;
    case 'o': if (is("or")) return Kw::kOr; break;
    case 'p': if (is("pass")) return Kw::kPass; break;
    case 'r':
      if (is("return")) return Kw::kReturn;
      if (is("raise")) return Kw::kRaise;
      break;
    case 't': if (is("try")) return Kw::kTry; break;
    case 'w':
      if (is("while")) return Kw::kWhile;
      if (is("with")) return Kw::kWith;
      break;
    case 'y': if (is("yield")) return Kw::kYield; break;
    case 'T': if (is("True")) return Kw::kTrue; break;
    case 'F': if (is("False")) return Kw::kFalse; break;
    case 'N': if (is("None")) return Kw::kNoneLit; break;
    default: break;
  }
  return Kw::kNone;
}

bool IsStringPrefix(std::string_view s) {
  if (s.empty() || s.size() > 2) return false;
  bool r = false, b = false, u = false, f = false;
  for (char c : s) {
    switch (c | 0x20) {
      case 'r': if (r) return false; r = true; break;
      case 'b': if (b) return false; b = true; break;
      case 'u': if (u) return false; u = true; break;
      case 'f': if (f) return false; f = true; break;
      default: return false;
    }
  }
  return !(u && s.size() > 1) && !(b && f);
}

class Lexer {
 public:
  Lexer(std::string_view text, std::vector<Token>& out, std::vector<LexError>& errors)
      : s_(text), out_(out), errors_(errors) {}

  void Run() {
    out_.reserve(s_.size() / 3 + 16);
    indents_.push_back(0);
    size_t n = s_.size();
    while (pos_ < n) {
      if (line_start_ && depth_ == 0) {
        if (!Indentation()) break;
        continue;
      }
      unsigned char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '\n' || c == '\r') {
        uint32_t at = pos_;
        pos_ += (c == '\r' && pos_ + 1 < n && s_[pos_ + 1] == '\n') ? 2 : 1;
        nl_ = true;
        if (depth_ == 0) {
          Emit(Tok::kNewline, at, at + 1);
          line_start_ = true;
        }
      } else if (c == '#') {
        while (pos_ < n && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
      } else if (c == '\\') {
        size_t p = pos_ + 1;
        if (p < n && s_[p] == '\r') ++p;
        if (p < n && s_[p] == '\n') {
          pos_ = p + 1;
          nl_ = true;
        } else {
          Emit(Tok::kError, pos_, pos_ + 1);
          ++pos_;
        }
      } else if (IsNameStart(c)) {
        uint32_t b = pos_;
        while (pos_ < n && IsNameChar(s_[pos_])) ++pos_;
        std::string_view name = s_.substr(b, pos_ - b);
        if (pos_ < n && (s_[pos_] == '"' || s_[pos_] == '\'') && IsStringPrefix(name)) {
          String(b);
        } else {
          Token& t = Emit(Tok::kName, b, pos_);
          t.kw = Keyword(name);
        }
      } else if (IsDigit(c) || (c == '.' && pos_ + 1 < n && IsDigit(s_[pos_ + 1]))) {
        Number();
      } else if (c == '"' || c == '\'') {
        String(pos_);
      } else {
        Operator();
      }
    }
    uint32_t end = static_cast<uint32_t>(n);
    if (!out_.empty() && out_.back().type != Tok::kNewline && out_.back().type != Tok::kDedent) {
      Emit(Tok::kNewline, end, end);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(Tok::kDedent, end, end);
    }
    Emit(Tok::kEnd, end, end);
  }

 private:
  Token& Emit(Tok type, uint32_t b, uint32_t e) {
    Token& t = out_.emplace_back();
    t.type = type;
    t.begin = b;
    t.end = e;
    t.nl_before = nl_;
    nl_ = false;
    return t;
  }

  // At the start of a logical line: measures indentation, skips blank and comment lines, and
  // emits INDENT/DEDENT. Returns false at the end of input.
  bool Indentation() {
    size_t n = s_.size();
    uint32_t col = 0;
    size_t p = pos_;
    while (p < n) {
      char c = s_[p];
      if (c == ' ') ++col;
      else if (c == '\t') col = (col / 8 + 1) * 8;
      else if (c == '\f') col = 0;
      else break;
      ++p;
    }
    if (p >= n) {
      pos_ = static_cast<uint32_t>(p);
      return false;
    }
    char c = s_[p];
    if (c == '#' || c == '\n' || c == '\r') {
      while (p < n && s_[p] != '\n' && s_[p] != '\r') ++p;
      if (p < n) p += (s_[p] == '\r' && p + 1 < n && s_[p + 1] == '\n') ? 2 : 1;
      pos_ = static_cast<uint32_t>(p);
      nl_ = true;
      return true;
    }
    if (c == '\\' && p + 1 < n && (s_[p + 1] == '\n' || s_[p + 1] == '\r')) {
      pos_ = static_cast<uint32_t>(p);  // a continuation right after the indentation
      line_start_ = false;
      return true;
    }
    pos_ = static_cast<uint32_t>(p);
    line_start_ = false;
    if (col > indents_.back()) {
      indents_.push_back(col);
      Emit(Tok::kIndent, pos_, pos_);
    } else {
      while (col < indents_.back()) {
        indents_.pop_back();
        Emit(Tok::kDedent, pos_, pos_);
      }
      if (col != indents_.back()) {
        errors_.push_back({"syntax error: unindent does not match any outer indentation level", pos_, pos_});
        indents_.push_back(col);
        Emit(Tok::kIndent, pos_, pos_).bad = true;
      }
    }
    return true;
  }

  void Number() {
    size_t n = s_.size();
    uint32_t b = pos_;
    bool is_float = false;
    auto digits = [&](auto pred) {
      while (pos_ < n && (pred(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    };
    if (s_[pos_] == '0' && pos_ + 1 < n && ((s_[pos_ + 1] | 0x20) == 'x' || (s_[pos_ + 1] | 0x20) == 'o' ||
                                            (s_[pos_ + 1] | 0x20) == 'b')) {
      pos_ += 2;
      digits([](unsigned char c) { return IsDigit(c) || unsigned((c | 0x20) - 'a') < 6u; });
    } else {
      digits(IsDigit);
      if (pos_ < n && s_[pos_] == '.') {
        is_float = true;
        ++pos_;
        digits(IsDigit);
      }
      if (pos_ < n && (s_[pos_] | 0x20) == 'e') {
        size_t p = pos_ + 1;
        if (p < n && (s_[p] == '+' || s_[p] == '-')) ++p;
        if (p < n && IsDigit(s_[p])) {
          is_float = true;
          pos_ = static_cast<uint32_t>(p);
          digits(IsDigit);
        }
      }
      if (pos_ < n && (s_[pos_] | 0x20) == 'j') {
        is_float = true;
        ++pos_;
      }
    }
    if (pos_ < n && (s_[pos_] == 'l' || s_[pos_] == 'L') && !is_float) ++pos_;
    Emit(Tok::kNumber, b, pos_).is_float = is_float;
  }

  void String(uint32_t b) {
    size_t n = s_.size();
    char q = s_[pos_];
    bool triple = pos_ + 2 < n && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    bool closed = false;
    while (pos_ < n) {
      char c = s_[pos_];
      if (c == '\\') {
        pos_ += 2;
        continue;
      }
      if (c == q) {
        if (!triple) {
          ++pos_;
          closed = true;
          break;
        }
        if (pos_ + 2 < n && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
          pos_ += 3;
          closed = true;
          break;
        }
      } else if (!triple && (c == '\n' || c == '\r')) {
        break;
      }
      ++pos_;
    }
    if (pos_ > n) pos_ = static_cast<uint32_t>(n);
    Token& t = Emit(Tok::kString, b, pos_);
    if (!closed) {
      t.bad = true;
      errors_.push_back({"syntax error: unterminated string", b, pos_});
    }
  }

  void Operator() {
    size_t n = s_.size();
    auto at = [&](size_t k) { return pos_ + k < n ? s_[pos_ + k] : '\0'; };
    char c = s_[pos_], d = at(1), e = at(2);
    Op op = Op::kNone;
    int len = 1;
    switch (c) {
      case '(': op = Op::kLParen; ++depth_; break;
      case '[': op = Op::kLBracket; ++depth_; break;
      case '{': op = Op::kLBrace; ++depth_; break;
      case ')': op = Op::kRParen; if (depth_) --depth_; break;
      case ']': op = Op::kRBracket; if (depth_) --depth_; break;
      case '}': op = Op::kRBrace; if (depth_) --depth_; break;
      case ',': op = Op::kComma; break;
      case ';': op = Op::kSemi; break;
      case '~': op = Op::kTilde; break;
      case ':': if (d == '=') op = Op::kWalrus, len = 2; else op = Op::kColon; break;
      case '.': if (d == '.' && e == '.') op = Op::kEllipsis, len = 3; else op = Op::kDot; break;
      case '@': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kAt; break;
      case '=': if (d == '=') op = Op::kEq, len = 2; else op = Op::kAssign; break;
      case '!': if (d == '=') op = Op::kNe, len = 2; break;
      case '+': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kPlus; break;
      case '-':
        if (d == '=') op = Op::kAugAssign, len = 2;
        else if (d == '>') op = Op::kArrow, len = 2;
        else op = Op::kMinus;
        break;
      case '%': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kPercent; break;
      case '&': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kAmp; break;
      case '|': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kPipe; break;
      case '^': if (d == '=') op = Op::kAugAssign, len = 2; else op = Op::kCaret; break;
      case '*':
        if (d == '*') op = e == '=' ? (len = 3, Op::kAugAssign) : (len = 2, Op::kDStar);
        else if (d == '=') op = Op::kAugAssign, len = 2;
        else op = Op::kStar;
        break;
      case '/':
        if (d == '/') op = e == '=' ? (len = 3, Op::kAugAssign) : (len = 2, Op::kDSlash);
        else if (d == '=') op = Op::kAugAssign, len = 2;
        else op = Op::kSlash;
        break;
      case '<':
        if (d == '<') op = e == '=' ? (len = 3, Op::kAugAssign) : (len = 2, Op::kLShift);
        else if (d == '=') op = Op::kLe, len = 2;
        else if (d == '>') op = Op::kNe, len = 2;
        else op = Op::kLt;
        break;
      case '>':
        if (d == '>') op = e == '=' ? (len = 3, Op::kAugAssign) : (len = 2, Op::kRShift);
        else if (d == '=') op = Op::kGe, len = 2;
        else op = Op::kGt;
        break;
      default: break;
    }
    if (op == Op::kNone) {
      // One UTF-8 character, so the message shows it whole.
      uint32_t b = pos_;
      ++pos_;
      while (pos_ < n && (static_cast<unsigned char>(s_[pos_]) & 0xC0) == 0x80) ++pos_;
      Emit(Tok::kError, b, pos_);
      return;
    }
    Emit(Tok::kOp, pos_, pos_ + len).op = op;
    pos_ += len;
  }

  std::string_view s_;
  std::vector<Token>& out_;
  std::vector<LexError>& errors_;
  std::vector<uint32_t> indents_;
  uint32_t pos_ = 0;
  int depth_ = 0;
  bool line_start_ = true;
  bool nl_ = false;
};

}  // namespace

void Lex(std::string_view text, std::vector<Token>& out, std::vector<LexError>& errors) {
  Lexer(text, out, errors).Run();
}

}  // namespace wb::script::detail
