// Python's tokens for the TVMScript CST parser: names (with keywords resolved once), numbers,
// strings (prefixes, triple quotes, escapes kept raw), operators, and the layout tokens NEWLINE,
// INDENT and DEDENT (none inside brackets; backslash continuations join lines).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb::script::detail {

enum class Tok : uint8_t { kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEnd, kError };

enum class Op : uint8_t {
  kNone,
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace,
  kComma, kColon, kDot, kSemi, kAt, kAssign, kArrow, kWalrus, kEllipsis,
  kPlus, kMinus, kStar, kSlash, kDSlash, kPercent, kDStar, kAmp, kPipe, kCaret, kTilde,
  kLShift, kRShift, kLt, kGt, kLe, kGe, kEq, kNe, kMatMul,
  kAugAssign,  // any of += -= *= /= //= %= **= &= |= ^= <<= >>= @=
};

enum class Kw : uint8_t {
  kNone, kAnd, kOr, kNot, kIn, kIs, kIf, kElse, kElif, kFor, kWhile, kWith, kAs, kDef, kClass,
  kReturn, kPass, kBreak, kContinue, kAssert, kImport, kFrom, kLambda, kTrue, kFalse, kNoneLit,
  kGlobal, kNonlocal, kDel, kRaise, kTry, kExcept, kFinally, kYield, kAwait, kAsync,
};

struct Token {
  Tok type = Tok::kEnd;
  Op op = Op::kNone;
  Kw kw = Kw::kNone;
  bool is_float = false;  // numbers
  bool nl_before = false;  // a line break lies between this token and the previous one
  bool bad = false;        // lexed with an error (already reported)
  uint32_t begin = 0, end = 0;
};

struct LexError {
  std::string message;
  uint32_t begin, end;
};

// Tokenizes all of `text`; the list always ends with kEnd (after the closing NEWLINE/DEDENTs).
void Lex(std::string_view text, std::vector<Token>& out, std::vector<LexError>& errors);

}  // namespace wb::script::detail
