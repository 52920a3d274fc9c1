// Recursive descent over parser_lexer.h's tokens for the Python subset TVMScript uses, building
// tree-sitter-python's node kinds and fields. A syntax error abandons the statement it is in
// (the statement becomes an ERROR node, marked has_error up to the root) and parsing resumes at
// the next statement.
#include "script/parser_cst.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "script/parser_lexer.h"

namespace wb::script::detail {

const char* KindName(K kind) {
  switch (kind) {
    case K::kOther: return "other";
    case K::kModule: return "module";
    case K::kBlock: return "block";
    case K::kComment: return "comment";
    case K::kIdentifier: return "identifier";
    case K::kInteger: return "integer";
    case K::kFloat: return "float";
    case K::kString: return "string";
    case K::kStringContent: return "string_content";
    case K::kEscapeSequence: return "escape_sequence";
    case K::kInterpolation: return "interpolation";
    case K::kConcatenatedString: return "concatenated_string";
    case K::kTrue: return "true";
    case K::kFalse: return "false";
    case K::kNone: return "none";
    case K::kAttribute: return "attribute";
    case K::kCall: return "call";
    case K::kArgumentList: return "argument_list";
    case K::kKeywordArgument: return "keyword_argument";
    case K::kListSplat: return "list_splat";
    case K::kDictionarySplat: return "dictionary_splat";
    case K::kSubscript: return "subscript";
    case K::kSlice: return "slice";
    case K::kTuple: return "tuple";
    case K::kList: return "list";
    case K::kDictionary: return "dictionary";
    case K::kPair: return "pair";
    case K::kParenthesized: return "parenthesized_expression";
    case K::kBinaryOperator: return "binary_operator";
    case K::kUnaryOperator: return "unary_operator";
    case K::kBooleanOperator: return "boolean_operator";
    case K::kNotOperator: return "not_operator";
    case K::kComparisonOperator: return "comparison_operator";
    case K::kConditionalExpression: return "conditional_expression";
    case K::kLambda: return "lambda";
    case K::kLambdaParameters: return "lambda_parameters";
    case K::kListComprehension: return "list_comprehension";
    case K::kForInClause: return "for_in_clause";
    case K::kIfClause: return "if_clause";
    case K::kExpressionList: return "expression_list";
    case K::kPatternList: return "pattern_list";
    case K::kTuplePattern: return "tuple_pattern";
    case K::kListPattern: return "list_pattern";
    case K::kExpressionStatement: return "expression_statement";
    case K::kAssignment: return "assignment";
    case K::kAugmentedAssignment: return "augmented_assignment";
    case K::kForStatement: return "for_statement";
    case K::kWhileStatement: return "while_statement";
    case K::kIfStatement: return "if_statement";
    case K::kElifClause: return "elif_clause";
    case K::kElseClause: return "else_clause";
    case K::kWithStatement: return "with_statement";
    case K::kWithClause: return "with_clause";
    case K::kWithItem: return "with_item";
    case K::kAsPattern: return "as_pattern";
    case K::kAsPatternTarget: return "as_pattern_target";
    case K::kAssertStatement: return "assert_statement";
    case K::kPassStatement: return "pass_statement";
    case K::kBreakStatement: return "break_statement";
    case K::kContinueStatement: return "continue_statement";
    case K::kReturnStatement: return "return_statement";
    case K::kFunctionDefinition: return "function_definition";
    case K::kDecoratedDefinition: return "decorated_definition";
    case K::kDecorator: return "decorator";
    case K::kClassDefinition: return "class_definition";
    case K::kParameters: return "parameters";
    case K::kTypedParameter: return "typed_parameter";
    case K::kDefaultParameter: return "default_parameter";
    case K::kTypedDefaultParameter: return "typed_default_parameter";
    case K::kType: return "type";
    case K::kTypeParameter: return "type_parameter";
    case K::kImportStatement: return "import_statement";
    case K::kImportFromStatement: return "import_from_statement";
    case K::kFutureImportStatement: return "future_import_statement";
    case K::kError: return "ERROR";
    case K::kToken: return "token";
  }
  return "other";
}

void* Arena::Alloc(size_t bytes) {
  bytes = (bytes + 7) & ~size_t(7);
  if (bytes > left_) {
    size_t size = bytes > (64u << 10) ? bytes : (64u << 10);
    chunks_.emplace_back(new char[size]);
    cur_ = chunks_.back().get();
    left_ = size;
  }
  void* p = cur_;
  cur_ += bytes;
  left_ -= bytes;
  return p;
}

void Cst::CollectSyntaxErrors(DiagnosticList& diags) const {
  for (const auto& e : errors_) diags.Error(e.message, Span(file_, base_ + e.begin, base_ + e.end));
}

// Thrown to abandon the statement being parsed.
struct SyntaxError {};

class CstBuilder {
 public:
  CstBuilder(Cst& cst) : cst_(cst), s_(cst.text_) {}

  void Run() {
    std::vector<LexError> lex_errors;
    Lex(s_, toks_, lex_errors);
    for (auto& e : lex_errors) cst_.errors_.push_back({std::move(e.message), e.begin, e.end});
    stack_.reserve(256);
    size_t mark = stack_.size();
    while (Cur().type != Tok::kEnd) {
      if (Cur().type == Tok::kNewline || Cur().type == Tok::kDedent) {
        ++i_;
        continue;
      }
      Statement();
    }
    cst_.root_ = Make(K::kModule, 0, static_cast<uint32_t>(s_.size()), mark);
    // Report in source order (lexer errors come first in the list otherwise).
    auto& errs = cst_.errors_;
    std::stable_sort(errs.begin(), errs.end(), [](const Cst::Error& a, const Cst::Error& b) { return a.begin < b.begin; });
  }

 private:
  using F = FieldIds;

  const Token& Cur() const { return toks_[i_]; }
  const Token& Prev() const { return toks_[i_ > 0 ? i_ - 1 : 0]; }
  bool IsOp(Op op) const { return Cur().type == Tok::kOp && Cur().op == op; }
  bool IsKw(Kw kw) const { return Cur().type == Tok::kName && Cur().kw == kw; }
  const Token& Advance() {
    const Token& t = toks_[i_];
    if (t.bad) bad_ = true;
    if (t.type != Tok::kEnd) ++i_;
    return t;
  }

  CstNode* NewNode(K kind, uint32_t b, uint32_t e) {
    auto* n = new (cst_.arena_.Alloc(sizeof(CstNode))) CstNode();
    n->kind = kind;
    n->begin = b;
    n->end = e;
    return n;
  }
  // A node over the children pushed since `mark`.
  CstNode* Make(K kind, uint32_t b, uint32_t e, size_t mark, const char* type = nullptr) {
    CstNode* n = NewNode(kind, b, e);
    n->type = type;
    size_t count = stack_.size() - mark;
    if (count) {
      auto** kids = static_cast<const CstNode**>(cst_.arena_.Alloc(count * sizeof(CstNode*)));
      for (size_t k = 0; k < count; ++k) {
        const CstNode* c = stack_[mark + k];
        kids[k] = c;
        n->named_count += c->named;
        n->has_error |= c->has_error;
      }
      n->kids = kids;
      n->count = static_cast<uint32_t>(count);
      if (n->named_count == count) {
        n->named_kids = kids;
      } else if (n->named_count > 0) {
        auto** named = static_cast<const CstNode**>(cst_.arena_.Alloc(n->named_count * sizeof(CstNode*)));
        size_t j = 0;
        for (size_t k = 0; k < count; ++k)
          if (kids[k]->named) named[j++] = kids[k];
        n->named_kids = named;
      }
      stack_.resize(mark);
    }
    return n;
  }
  void Push(CstNode* n, FieldId f = 0) {
    n->field = f;
    stack_.push_back(n);
  }
  CstNode* Leaf(K kind, const Token& t) { return NewNode(kind, t.begin, t.end); }
  CstNode* TokenNode(const Token& t) {
    CstNode* n = NewNode(K::kToken, t.begin, t.end);
    n->named = false;
    return n;
  }

  // --- errors ---
  [[noreturn]] void Fail(std::string message, uint32_t b, uint32_t e) {
    // After a malformed token (reported by the lexer) the rest is a consequence, not news.
    if (!bad_) cst_.errors_.push_back({std::move(message), b, e});
    throw SyntaxError{};
  }
  [[noreturn]] void Unexpected() {
    const Token& t = Cur();
    switch (t.type) {
      case Tok::kEnd: Fail("syntax error: unexpected end of input", t.begin, t.end);
      case Tok::kNewline: Fail("syntax error: unexpected end of line", t.begin, t.begin);
      case Tok::kIndent: Fail("syntax error: unexpected indent", t.begin, t.begin);
      case Tok::kDedent: Fail("syntax error: unexpected dedent", t.begin, t.begin);
      default: break;
    }
    std::string_view text = s_.substr(t.begin, t.end - t.begin);
    if (text.size() > 40) text = text.substr(0, 40);
    if (size_t nl = text.find_first_of("\r\n"); nl != std::string_view::npos) text = text.substr(0, nl);
    Fail("syntax error: unexpected '" + std::string(text) + "'", t.begin, t.end);
  }
  // A required token: when the line ends (or the next token is on a later line) where it should
  // be, it is reported missing at the end of what was written.
  void Expect(Op op, const char* spelling) {
    if (IsOp(op)) {
      Advance();
      return;
    }
    Tok t = Cur().type;
    bool line_over = t == Tok::kNewline || t == Tok::kEnd || t == Tok::kIndent || t == Tok::kDedent ||
                     (Cur().nl_before && i_ > 0);
    if (line_over) {
      uint32_t at = Prev().end;
      Fail(std::string("syntax error: missing '") + spelling + "'", at, at);
    }
    Unexpected();
  }
  void ExpectKw(Kw kw) {
    if (!IsKw(kw)) Unexpected();
    Advance();
  }
  CstNode* Identifier() {
    if (Cur().type != Tok::kName || (Cur().kw != Kw::kNone && Cur().kw != Kw::kAwait && Cur().kw != Kw::kAsync)) {
      Unexpected();
    }
    return Leaf(K::kIdentifier, Advance());
  }

  struct Depth {
    Depth(CstBuilder* b) : b(b) {
      if (++b->depth_ > kMax) {
        --b->depth_;
        b->Fail("expression nested too deeply", b->Cur().begin, b->Cur().end);
      }
    }
    ~Depth() { --b->depth_; }
    CstBuilder* b;
    static constexpr int kMax = 400;
  };

  // --- statements ---

  // One line's statements (or a compound statement) pushed onto the stack; a syntax error
  // turns the rest of the statement into an ERROR node.
  void Statement() {
    size_t mark = stack_.size();
    size_t start = i_;
    bool outer_bad = bad_;
    bad_ = false;
    if (Cur().type == Tok::kIndent) {
      UnexpectedIndent();
      bad_ = outer_bad;
      return;
    }
    try {
      if (IsOp(Op::kAt) || IsKw(Kw::kDef) || IsKw(Kw::kClass)) {
        Push(Definition());
      } else if (IsKw(Kw::kIf)) {
        Push(If());
      } else if (IsKw(Kw::kFor)) {
        Push(For());
      } else if (IsKw(Kw::kWhile)) {
        Push(While());
      } else if (IsKw(Kw::kWith)) {
        Push(With());
      } else {
        SimpleStatements();
      }
      if (bad_) stack_.back()->has_error = true;
    } catch (const SyntaxError&) {
      stack_.resize(mark);
      Recover(start, mark);
    }
    bad_ = outer_bad;
  }

  // An indented block where none belongs: one error, and its statements are still parsed.
  void UnexpectedIndent() {
    size_t mark = stack_.size();
    const Token& t = Advance();
    if (!t.bad) cst_.errors_.push_back({"syntax error: unexpected indent", t.begin, t.begin});
    while (Cur().type != Tok::kDedent && Cur().type != Tok::kEnd) {
      if (Cur().type == Tok::kNewline) {
        Advance();
        continue;
      }
      Statement();
    }
    if (Cur().type == Tok::kDedent) Advance();
    uint32_t e = stack_.size() > mark ? stack_.back()->end : t.begin;
    CstNode* err = Make(K::kError, t.begin, e, mark);
    err->has_error = true;
    Push(err);
  }

  void Recover(size_t start, size_t mark) {
    uint32_t b = toks_[start].begin;
    while (Cur().type != Tok::kNewline && Cur().type != Tok::kEnd) Advance();
    uint32_t e = Prev().end;
    if (Cur().type == Tok::kNewline) Advance();
    // The indented block under a broken header is still parsed (its errors count too).
    if (Cur().type == Tok::kIndent) {
      Advance();
      while (Cur().type != Tok::kDedent && Cur().type != Tok::kEnd) {
        if (Cur().type == Tok::kNewline) {
          Advance();
          continue;
        }
        Statement();
      }
      if (Cur().type == Tok::kDedent) Advance();
      if (stack_.size() > mark) e = stack_.back()->end;
    }
    CstNode* err = Make(K::kError, b, e < b ? b : e, mark);
    err->has_error = true;
    Push(err);
  }

  void SimpleStatements() {
    Push(SimpleStatement());
    while (IsOp(Op::kSemi)) {
      Advance();
      if (Cur().type == Tok::kNewline || Cur().type == Tok::kEnd) break;
      Push(SimpleStatement());
    }
    if (Cur().type != Tok::kEnd) {
      if (Cur().type != Tok::kNewline) Unexpected();
      Advance();
    }
  }

  CstNode* SimpleStatement() {
    const Token& t = Cur();
    uint32_t b = t.begin;
    size_t mark = stack_.size();
    if (t.type == Tok::kName) {
      switch (t.kw) {
        case Kw::kPass: Advance(); return Make(K::kPassStatement, b, t.end, mark);
        case Kw::kBreak: Advance(); return Make(K::kBreakStatement, b, t.end, mark);
        case Kw::kContinue: Advance(); return Make(K::kContinueStatement, b, t.end, mark);
        case Kw::kReturn: {
          Advance();
          if (!AtStatementEnd()) Push(ExpressionList(K::kExpressionList));
          return Make(K::kReturnStatement, b, Prev().end, mark);
        }
        case Kw::kAssert: {
          Advance();
          Push(Expression());
          if (IsOp(Op::kComma)) {
            Advance();
            Push(Expression());
          }
          return Make(K::kAssertStatement, b, Prev().end, mark);
        }
        case Kw::kImport:
        case Kw::kFrom: {
          bool from = t.kw == Kw::kFrom;
          Advance();
          bool future = from && Cur().type == Tok::kName && Text(Cur()) == "__future__";
          SkipToStatementEnd();
          return Make(future ? K::kFutureImportStatement : from ? K::kImportFromStatement : K::kImportStatement,
                      b, Prev().end, mark);
        }
        case Kw::kGlobal: case Kw::kNonlocal: case Kw::kDel: case Kw::kRaise: {
          const char* type = t.kw == Kw::kGlobal ? "global_statement" : t.kw == Kw::kNonlocal ? "nonlocal_statement"
                           : t.kw == Kw::kDel ? "delete_statement" : "raise_statement";
          Advance();
          SkipToStatementEnd();
          return Make(K::kOther, b, Prev().end, mark, type);
        }
        case Kw::kTry: case Kw::kElse: case Kw::kElif: case Kw::kExcept: case Kw::kFinally:
          Unexpected();
        default: break;
      }
    }
    // Expression statement, assignment, annotated or augmented assignment.
    CstNode* first = ExpressionList(K::kExpressionList, /*star=*/true);
    if (IsOp(Op::kAssign) || IsOp(Op::kColon)) {
      Push(Assignment(first));
    } else if (IsOp(Op::kAugAssign)) {
      size_t m = stack_.size();
      Push(ToPattern(first), F::left);
      Push(TokenNode(Advance()), F::operator_);
      Push(ExpressionList(K::kExpressionList, true), F::right);
      Push(Make(K::kAugmentedAssignment, first->begin, Prev().end, m));
    } else if (first->kind == K::kExpressionList && !first->has_error) {
      // `a, b` as a statement: the items are the statement's children, as in the grammar.
      for (uint32_t k = 0; k < first->count; ++k) Push(const_cast<CstNode*>(first->kids[k]));
    } else {
      Push(first);
    }
    return Make(K::kExpressionStatement, b, Prev().end, mark);
  }

  // `left = right`, `left: type = right`, `left: type`, chained `a = b = c`.
  CstNode* Assignment(CstNode* left) {
    size_t m = stack_.size();
    Push(ToPattern(left), F::left);
    if (IsOp(Op::kColon)) {
      Advance();
      size_t tm = stack_.size();
      CstNode* e = Expression();
      Push(e);
      Push(Make(K::kType, e->begin, e->end, tm), F::type);
    }
    if (IsOp(Op::kAssign)) {
      Advance();
      CstNode* rhs = ExpressionList(K::kExpressionList, true);
      if (IsOp(Op::kAssign)) rhs = Assignment(rhs);
      Push(rhs, F::right);
    }
    return Make(K::kAssignment, left->begin, Prev().end, m);
  }

  // Assignment and loop targets take the grammar's pattern kinds.
  CstNode* ToPattern(CstNode* n) {
    K to = n->kind == K::kExpressionList ? K::kPatternList
         : n->kind == K::kTuple ? K::kTuplePattern
         : n->kind == K::kList ? K::kListPattern : K::kOther;
    if (to == K::kOther) return n;
    n->kind = to;
    for (uint32_t k = 0; k < n->count; ++k) ToPattern(const_cast<CstNode*>(n->kids[k]));
    return n;
  }

  bool AtStatementEnd() const {
    Tok t = Cur().type;
    return t == Tok::kNewline || t == Tok::kEnd || (t == Tok::kOp && Cur().op == Op::kSemi);
  }
  void SkipToStatementEnd() {
    while (!AtStatementEnd()) Advance();
  }
  std::string_view Text(const Token& t) const { return s_.substr(t.begin, t.end - t.begin); }

  // `:` then an indented block or simple statements on the same line.
  CstNode* Block() {
    Expect(Op::kColon, ":");
    size_t mark = stack_.size();
    if (Cur().type == Tok::kNewline) {
      Advance();
      if (Cur().type != Tok::kIndent) {
        Fail("syntax error: expected an indented block", Cur().begin, Cur().begin);
      }
      Advance();
      if (++block_depth_ > Depth::kMax) Fail("statements nested too deeply", Cur().begin, Cur().end);
      while (Cur().type != Tok::kDedent && Cur().type != Tok::kEnd) {
        if (Cur().type == Tok::kNewline) {
          Advance();
          continue;
        }
        Statement();
      }
      --block_depth_;
      if (Cur().type == Tok::kDedent) Advance();
    } else {
      SimpleStatements();
    }
    uint32_t b = stack_.size() > mark ? stack_[mark]->begin : Prev().end;
    uint32_t e = stack_.size() > mark ? stack_.back()->end : Prev().end;
    return Make(K::kBlock, b, e, mark);
  }

  CstNode* Definition() {
    uint32_t b = Cur().begin;
    size_t mark = stack_.size();
    bool decorated = false;
    while (IsOp(Op::kAt)) {
      decorated = true;
      uint32_t db = Advance().begin;
      size_t dm = stack_.size();
      Push(Expression());
      Push(Make(K::kDecorator, db, Prev().end, dm));
      if (Cur().type != Tok::kNewline) Unexpected();
      Advance();
    }
    CstNode* def;
    if (IsKw(Kw::kDef)) def = FunctionDef();
    else if (IsKw(Kw::kClass)) def = ClassDef();
    else Unexpected();
    if (!decorated) return def;
    Push(def, F::definition);
    return Make(K::kDecoratedDefinition, b, def->end, mark);
  }

  void TypeParameters() {
    size_t m = stack_.size();
    uint32_t b = Advance().begin;  // [
    while (!IsOp(Op::kRBracket)) {
      size_t tm = stack_.size();
      CstNode* name = Identifier();
      Push(name);
      if (IsOp(Op::kColon)) {
        Advance();
        Push(Expression());
      }
      Push(Make(K::kType, name->begin, Prev().end, tm));
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Expect(Op::kRBracket, "]");
    Push(Make(K::kTypeParameter, b, Prev().end, m), F::type_parameters);
  }

  CstNode* FunctionDef() {
    uint32_t b = Advance().begin;  // def
    size_t mark = stack_.size();
    Push(Identifier(), F::name);
    if (IsOp(Op::kLBracket)) TypeParameters();
    if (!IsOp(Op::kLParen)) Unexpected();
    Push(Parameters(), F::parameters);
    if (IsOp(Op::kArrow)) {
      Advance();
      size_t tm = stack_.size();
      CstNode* e = Expression();
      Push(e);
      Push(Make(K::kType, e->begin, e->end, tm), F::return_type);
    }
    CstNode* body = Block();
    Push(body, F::body);
    return Make(K::kFunctionDefinition, b, body->end, mark);
  }

  CstNode* Parameters() {
    size_t mark = stack_.size();
    uint32_t b = Advance().begin;  // (
    while (!IsOp(Op::kRParen)) {
      const Token& t = Cur();
      size_t pm = stack_.size();
      if (IsOp(Op::kStar) || IsOp(Op::kDStar)) {
        bool dstar = t.op == Op::kDStar;
        Advance();
        if (!dstar && (IsOp(Op::kComma) || IsOp(Op::kRParen))) {
          Push(Make(K::kOther, t.begin, t.end, pm, "keyword_separator"));
        } else {
          Push(Identifier());
          Push(Make(K::kOther, t.begin, Prev().end, pm, dstar ? "dictionary_splat_pattern" : "list_splat_pattern"));
        }
      } else if (IsOp(Op::kSlash)) {
        Advance();
        Push(Make(K::kOther, t.begin, t.end, pm, "positional_separator"));
      } else {
        CstNode* name = Identifier();
        bool typed = false;
        if (IsOp(Op::kColon)) {
          typed = true;
          Advance();
          Push(name, F::name);
          size_t tm = stack_.size();
          CstNode* e = Expression();
          Push(e);
          Push(Make(K::kType, e->begin, e->end, tm), F::type);
        }
        if (IsOp(Op::kAssign)) {
          Advance();
          if (!typed) Push(name, F::name);
          Push(Expression(), F::value);
          Push(Make(typed ? K::kTypedDefaultParameter : K::kDefaultParameter, name->begin, Prev().end, pm));
        } else if (typed) {
          // tree-sitter gives typed_parameter's name no field.
          stack_[pm]->field = 0;
          Push(Make(K::kTypedParameter, name->begin, Prev().end, pm));
        } else {
          Push(name);
        }
      }
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Expect(Op::kRParen, ")");
    return Make(K::kParameters, b, Prev().end, mark);
  }

  CstNode* ClassDef() {
    uint32_t b = Advance().begin;  // class
    size_t mark = stack_.size();
    Push(Identifier(), F::name);
    if (IsOp(Op::kLBracket)) TypeParameters();
    if (IsOp(Op::kLParen)) Push(Arguments(), F::superclasses);
    CstNode* body = Block();
    Push(body, F::body);
    return Make(K::kClassDefinition, b, body->end, mark);
  }

  CstNode* If() {
    uint32_t b = Advance().begin;  // if
    size_t mark = stack_.size();
    Push(NamedExpression(), F::condition);
    Push(Block(), F::consequence);
    while (IsKw(Kw::kElif)) {
      uint32_t eb = Advance().begin;
      size_t em = stack_.size();
      Push(NamedExpression(), F::condition);
      Push(Block(), F::consequence);
      Push(Make(K::kElifClause, eb, Prev().end, em), F::alternative);
    }
    if (IsKw(Kw::kElse)) Push(ElseClause(), F::alternative);
    return Make(K::kIfStatement, b, stack_.back()->end, mark);
  }

  CstNode* ElseClause() {
    uint32_t eb = Advance().begin;
    size_t em = stack_.size();
    CstNode* body = Block();
    Push(body, F::body);
    return Make(K::kElseClause, eb, body->end, em);
  }

  CstNode* For() {
    uint32_t b = Advance().begin;  // for
    size_t mark = stack_.size();
    Push(ToPattern(TargetList()), F::left);
    ExpectKw(Kw::kIn);
    Push(ExpressionList(K::kExpressionList), F::right);
    Push(Block(), F::body);
    if (IsKw(Kw::kElse)) Push(ElseClause(), F::alternative);
    return Make(K::kForStatement, b, stack_.back()->end, mark);
  }

  CstNode* While() {
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    Push(NamedExpression(), F::condition);
    Push(Block(), F::body);
    if (IsKw(Kw::kElse)) Push(ElseClause(), F::alternative);
    return Make(K::kWhileStatement, b, stack_.back()->end, mark);
  }

  CstNode* With() {
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    size_t cm = stack_.size();
    uint32_t cb = Cur().begin;
    while (true) {
      size_t im = stack_.size();
      CstNode* e = Expression();
      if (IsKw(Kw::kAs)) {
        Advance();
        size_t am = stack_.size();
        Push(e);
        size_t tm = stack_.size();
        CstNode* target = ToPattern(Primary());
        Push(target);
        Push(Make(K::kAsPatternTarget, target->begin, target->end, tm), F::alias);
        e = Make(K::kAsPattern, e->begin, target->end, am);
      }
      Push(e, F::value);
      Push(Make(K::kWithItem, e->begin, e->end, im));
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Push(Make(K::kWithClause, cb, Prev().end, cm));
    Push(Block(), F::body);
    return Make(K::kWithStatement, b, stack_.back()->end, mark);
  }

  // --- expressions ---

  // Comma-separated expressions: one expression alone, else a `kind` node (expression_list);
  // a trailing comma also makes a list.
  CstNode* ExpressionList(K kind, bool star = false) {
    CstNode* first = star ? StarExpression() : Expression();
    if (!IsOp(Op::kComma)) return first;
    size_t mark = stack_.size();
    Push(first);
    while (IsOp(Op::kComma)) {
      Advance();
      if (!StartsExpression()) break;
      Push(star ? StarExpression() : Expression());
    }
    return Make(kind, first->begin, Prev().end, mark);
  }

  // Loop targets: `i`, `i, j`, `(i, j)` without reading `in` as an operator.
  CstNode* TargetList() {
    CstNode* first = BitOr();
    if (!IsOp(Op::kComma)) return first;
    size_t mark = stack_.size();
    Push(first);
    while (IsOp(Op::kComma)) {
      Advance();
      if (IsKw(Kw::kIn)) break;
      Push(BitOr());
    }
    return Make(K::kExpressionList, first->begin, Prev().end, mark);
  }

  bool StartsExpression() const {
    const Token& t = Cur();
    switch (t.type) {
      case Tok::kName: return t.kw == Kw::kNone || t.kw == Kw::kNot || t.kw == Kw::kLambda || t.kw == Kw::kTrue ||
                              t.kw == Kw::kFalse || t.kw == Kw::kNoneLit || t.kw == Kw::kAwait;
      case Tok::kNumber:
      case Tok::kString: return true;
      case Tok::kOp:
        switch (t.op) {
          case Op::kLParen: case Op::kLBracket: case Op::kLBrace: case Op::kMinus: case Op::kPlus:
          case Op::kTilde: case Op::kStar: case Op::kEllipsis: return true;
          default: return false;
        }
      default: return false;
    }
  }

  CstNode* StarExpression() {
    if (!IsOp(Op::kStar)) return Expression();
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    Push(BitOr());
    return Make(K::kListSplat, b, Prev().end, mark);
  }

  CstNode* NamedExpression() {
    CstNode* e = Expression();
    if (IsOp(Op::kWalrus)) {
      size_t mark = stack_.size();
      Push(e, F::name);
      Advance();
      Push(Expression(), F::value);
      return Make(K::kOther, e->begin, Prev().end, mark, "named_expression");
    }
    return e;
  }

  CstNode* Expression() {
    Depth guard(this);
    if (IsKw(Kw::kLambda)) return Lambda();
    CstNode* body = Or();
    if (!IsKw(Kw::kIf)) return body;
    size_t mark = stack_.size();
    Push(body);
    Advance();
    Push(Or());
    ExpectKw(Kw::kElse);
    Push(Expression());
    return Make(K::kConditionalExpression, body->begin, Prev().end, mark);
  }

  CstNode* Lambda() {
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    if (!IsOp(Op::kColon)) {
      size_t pm = stack_.size();
      uint32_t pb = Cur().begin;
      while (true) {
        CstNode* name = Identifier();
        if (IsOp(Op::kAssign)) {
          size_t dm = stack_.size();
          Advance();
          Push(name, F::name);
          Push(Expression(), F::value);
          Push(Make(K::kDefaultParameter, name->begin, Prev().end, dm));
        } else {
          Push(name);
        }
        if (!IsOp(Op::kComma)) break;
        Advance();
      }
      Push(Make(K::kLambdaParameters, pb, Prev().end, pm), F::parameters);
    }
    Expect(Op::kColon, ":");
    Push(Expression(), F::body);
    return Make(K::kLambda, b, Prev().end, mark);
  }

  CstNode* BoolOp(CstNode* left, CstNode* (CstBuilder::*next)()) {
    size_t mark = stack_.size();
    Push(left, F::left);
    Push(TokenNode(Advance()), F::operator_);
    Push((this->*next)(), F::right);
    return Make(K::kBooleanOperator, left->begin, Prev().end, mark);
  }
  CstNode* Or() {
    CstNode* l = And();
    while (IsKw(Kw::kOr)) l = BoolOp(l, &CstBuilder::And);
    return l;
  }
  CstNode* And() {
    CstNode* l = Not();
    while (IsKw(Kw::kAnd)) l = BoolOp(l, &CstBuilder::Not);
    return l;
  }
  CstNode* Not() {
    if (!IsKw(Kw::kNot)) return Comparison();
    Depth guard(this);
    uint32_t b = Cur().begin;
    size_t mark = stack_.size();
    Push(TokenNode(Advance()));
    Push(Not(), F::argument);
    return Make(K::kNotOperator, b, Prev().end, mark);
  }

  bool AtCompareOp() const {
    const Token& t = Cur();
    if (t.type == Tok::kOp) {
      switch (t.op) {
        case Op::kLt: case Op::kGt: case Op::kLe: case Op::kGe: case Op::kEq: case Op::kNe: return true;
        default: return false;
      }
    }
    return t.type == Tok::kName && (t.kw == Kw::kIn || t.kw == Kw::kIs ||
                                    (t.kw == Kw::kNot && toks_[i_ + 1].type == Tok::kName && toks_[i_ + 1].kw == Kw::kIn));
  }
  CstNode* Comparison() {
    CstNode* first = BitOr();
    if (!AtCompareOp()) return first;
    size_t mark = stack_.size();
    Push(first);
    while (AtCompareOp()) {
      bool two = IsKw(Kw::kNot) || (IsKw(Kw::kIs) && toks_[i_ + 1].type == Tok::kName && toks_[i_ + 1].kw == Kw::kNot);
      Push(TokenNode(Advance()), F::operator_);
      if (two) Push(TokenNode(Advance()), F::operator_);
      Push(BitOr());
    }
    return Make(K::kComparisonOperator, first->begin, Prev().end, mark);
  }

  CstNode* Binary(CstNode* left, CstNode* (CstBuilder::*next)()) {
    size_t mark = stack_.size();
    Push(left, F::left);
    Push(TokenNode(Advance()), F::operator_);
    Push((this->*next)(), F::right);
    return Make(K::kBinaryOperator, left->begin, Prev().end, mark);
  }
  CstNode* BitOr() {
    CstNode* l = BitXor();
    while (IsOp(Op::kPipe)) l = Binary(l, &CstBuilder::BitXor);
    return l;
  }
  CstNode* BitXor() {
    CstNode* l = BitAnd();
    while (IsOp(Op::kCaret)) l = Binary(l, &CstBuilder::BitAnd);
    return l;
  }
  CstNode* BitAnd() {
    CstNode* l = Shift();
    while (IsOp(Op::kAmp)) l = Binary(l, &CstBuilder::Shift);
    return l;
  }
  CstNode* Shift() {
    CstNode* l = Arith();
    while (IsOp(Op::kLShift) || IsOp(Op::kRShift)) l = Binary(l, &CstBuilder::Arith);
    return l;
  }
  CstNode* Arith() {
    CstNode* l = Term();
    while (IsOp(Op::kPlus) || IsOp(Op::kMinus)) l = Binary(l, &CstBuilder::Term);
    return l;
  }
  CstNode* Term() {
    CstNode* l = Factor();
    while (IsOp(Op::kStar) || IsOp(Op::kSlash) || IsOp(Op::kDSlash) || IsOp(Op::kPercent) || IsOp(Op::kAt)) {
      l = Binary(l, &CstBuilder::Factor);
    }
    return l;
  }
  CstNode* Factor() {
    if (IsOp(Op::kMinus) || IsOp(Op::kPlus) || IsOp(Op::kTilde)) {
      Depth guard(this);
      uint32_t b = Cur().begin;
      size_t mark = stack_.size();
      Push(TokenNode(Advance()), F::operator_);
      Push(Factor(), F::argument);
      return Make(K::kUnaryOperator, b, Prev().end, mark);
    }
    return Power();
  }
  CstNode* Power() {
    CstNode* base = Primary();
    if (!IsOp(Op::kDStar)) return base;
    Depth guard(this);  // `**` is right-associative: each one recurses
    return Binary(base, &CstBuilder::Factor);
  }

  CstNode* Primary() {
    if (IsKw(Kw::kAwait)) {
      Depth guard(this);
      uint32_t b = Advance().begin;
      size_t mark = stack_.size();
      Push(Primary());
      return Make(K::kOther, b, Prev().end, mark, "await");
    }
    CstNode* n = Atom();
    while (true) {
      if (IsOp(Op::kDot)) {
        size_t mark = stack_.size();
        Push(n, F::object);
        Advance();
        Push(Identifier(), F::attribute);
        n = Make(K::kAttribute, n->begin, Prev().end, mark);
      } else if (IsOp(Op::kLParen)) {
        size_t mark = stack_.size();
        Push(n, F::function);
        Push(Arguments(), F::arguments);
        n = Make(K::kCall, n->begin, Prev().end, mark);
      } else if (IsOp(Op::kLBracket)) {
        size_t mark = stack_.size();
        Push(n, F::value);
        Advance();
        while (true) {
          Push(SubscriptItem(), F::subscript);
          if (!IsOp(Op::kComma)) break;
          Advance();
          if (IsOp(Op::kRBracket)) break;
        }
        Expect(Op::kRBracket, "]");
        n = Make(K::kSubscript, n->begin, Prev().end, mark);
      } else {
        return n;
      }
    }
  }

  CstNode* SubscriptItem() {
    uint32_t b = Cur().begin;
    CstNode* lo = IsOp(Op::kColon) ? nullptr : Expression();
    if (!IsOp(Op::kColon)) return lo;
    size_t mark = stack_.size();
    if (lo) Push(lo);
    for (int part = 0; part < 2 && IsOp(Op::kColon); ++part) {
      Push(TokenNode(Advance()));
      if (!IsOp(Op::kColon) && !IsOp(Op::kComma) && !IsOp(Op::kRBracket)) Push(Expression());
    }
    return Make(K::kSlice, b, Prev().end, mark);
  }

  CstNode* Arguments() {
    Depth guard(this);
    uint32_t b = Advance().begin;  // (
    size_t mark = stack_.size();
    while (!IsOp(Op::kRParen)) {
      uint32_t ab = Cur().begin;
      size_t am = stack_.size();
      if (IsOp(Op::kStar) || IsOp(Op::kDStar)) {
        bool dstar = Cur().op == Op::kDStar;
        Advance();
        Push(Expression());
        Push(Make(dstar ? K::kDictionarySplat : K::kListSplat, ab, Prev().end, am));
      } else if (Cur().type == Tok::kName && Cur().kw == Kw::kNone && toks_[i_ + 1].type == Tok::kOp &&
                 toks_[i_ + 1].op == Op::kAssign) {
        Push(Identifier(), F::name);
        Advance();
        Push(Expression(), F::value);
        Push(Make(K::kKeywordArgument, ab, Prev().end, am));
      } else {
        CstNode* e = NamedExpression();
        if (IsKw(Kw::kFor)) Fail("syntax error: generator expressions are not supported in TVMScript", e->begin, e->end);
        Push(e);
      }
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Expect(Op::kRParen, ")");
    return Make(K::kArgumentList, b, Prev().end, mark);
  }

  CstNode* Atom() {
    const Token& t = Cur();
    switch (t.type) {
      case Tok::kName:
        switch (t.kw) {
          case Kw::kNone: case Kw::kAwait: case Kw::kAsync: return Leaf(K::kIdentifier, Advance());
          case Kw::kTrue: return Leaf(K::kTrue, Advance());
          case Kw::kFalse: return Leaf(K::kFalse, Advance());
          case Kw::kNoneLit: return Leaf(K::kNone, Advance());
          default: Unexpected();
        }
      case Tok::kNumber: return Leaf(t.is_float ? K::kFloat : K::kInteger, Advance());
      case Tok::kString: {
        CstNode* first = String();
        if (Cur().type != Tok::kString) return first;
        size_t mark = stack_.size();
        Push(first);
        while (Cur().type == Tok::kString) Push(String());
        return Make(K::kConcatenatedString, first->begin, Prev().end, mark);
      }
      case Tok::kOp:
        switch (t.op) {
          case Op::kLParen: return Parenthesized();
          case Op::kLBracket: return Bracketed(Op::kRBracket, "]", K::kList);
          case Op::kLBrace: return Braced();
          case Op::kEllipsis: Advance(); return Make(K::kOther, t.begin, t.end, stack_.size(), "ellipsis");
          default: break;
        }
        break;
      default: break;
    }
    Unexpected();
  }

  CstNode* String() {
    const Token& t = Advance();
    uint32_t q = t.begin;
    while (q < t.end && s_[q] != '"' && s_[q] != '\'') ++q;
    uint32_t quote = (q + 2 < t.end && s_[q + 1] == s_[q] && s_[q + 2] == s_[q]) ? 3 : 1;
    uint32_t cb = q + quote, ce = t.bad ? t.end : (t.end >= cb + quote ? t.end - quote : cb);
    if (ce < cb) ce = cb;
    size_t mark = stack_.size();
    if (ce > cb) Push(NewNode(K::kStringContent, cb, ce));
    return Make(K::kString, t.begin, t.end, mark);
  }

  CstNode* Parenthesized() {
    Depth guard(this);
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    if (IsOp(Op::kRParen)) {
      Advance();
      return Make(K::kTuple, b, Prev().end, mark);
    }
    if (IsKw(Kw::kYield)) Unexpected();
    CstNode* first = IsOp(Op::kStar) ? StarExpression() : NamedExpression();
    if (IsKw(Kw::kFor)) Fail("syntax error: generator expressions are not supported in TVMScript", first->begin, first->end);
    Push(first);
    bool tuple = first->kind == K::kListSplat;
    while (IsOp(Op::kComma)) {
      tuple = true;
      Advance();
      if (IsOp(Op::kRParen)) break;
      Push(StarExpression());
    }
    Expect(Op::kRParen, ")");
    return Make(tuple ? K::kTuple : K::kParenthesized, b, Prev().end, mark);
  }

  CstNode* Bracketed(Op close, const char* spelling, K kind) {
    Depth guard(this);
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    while (!IsOp(close)) {
      CstNode* e = StarExpression();
      if (IsKw(Kw::kFor)) {
        if (close != Op::kRBracket || stack_.size() != mark || e->kind == K::kListSplat) {
          Fail("syntax error: comprehensions are not supported in TVMScript", e->begin, e->end);
        }
        return ListComprehension(b, e, mark);
      }
      Push(e);
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Expect(close, spelling);
    return Make(kind, b, Prev().end, mark);
  }

  // `[body for targets in items if condition ...]` after its body: the grammar's
  // list_comprehension (the recipe language reads it; TVMScript's IR builder refuses it).
  CstNode* ListComprehension(uint32_t b, CstNode* body, size_t mark) {
    Push(body, F::body);
    while (IsKw(Kw::kFor) || IsKw(Kw::kIf)) {
      uint32_t cb = Cur().begin;
      size_t cm = stack_.size();
      if (IsKw(Kw::kFor)) {
        Advance();
        Push(ToPattern(TargetList()), F::left);
        ExpectKw(Kw::kIn);
        Push(Or(), F::right);
        Push(Make(K::kForInClause, cb, Prev().end, cm));
      } else {
        Advance();
        Push(Or());
        Push(Make(K::kIfClause, cb, Prev().end, cm));
      }
    }
    Expect(Op::kRBracket, "]");
    return Make(K::kListComprehension, b, Prev().end, mark);
  }

  CstNode* Braced() {
    Depth guard(this);
    uint32_t b = Advance().begin;
    size_t mark = stack_.size();
    bool set = false;
    while (!IsOp(Op::kRBrace)) {
      uint32_t eb = Cur().begin;
      size_t em = stack_.size();
      if (IsOp(Op::kDStar)) {
        Advance();
        Push(BitOr());
        Push(Make(K::kDictionarySplat, eb, Prev().end, em));
      } else {
        CstNode* key = StarExpression();
        if (IsKw(Kw::kFor)) Fail("syntax error: comprehensions are not supported in TVMScript", key->begin, key->end);
        if (IsOp(Op::kColon)) {
          Advance();
          Push(key, F::key);
          Push(Expression(), F::value);
          Push(Make(K::kPair, eb, Prev().end, em));
        } else {
          set = true;
          Push(key);
        }
      }
      if (!IsOp(Op::kComma)) break;
      Advance();
    }
    Expect(Op::kRBrace, "}");
    if (set) return Make(K::kOther, b, Prev().end, mark, "set");
    return Make(K::kDictionary, b, Prev().end, mark);
  }

  Cst& cst_;
  std::string_view s_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  std::vector<CstNode*> stack_;
  int depth_ = 0;
  int block_depth_ = 0;
  bool bad_ = false;
};

namespace {

void AppendEscape(std::string_view esc, std::string& out) {
  if (esc.size() < 2) return out.append(esc), void();
  if (esc[1] >= '0' && esc[1] <= '7') {
    int v = 0;
    for (char c : esc.substr(1)) v = v * 8 + (c - '0');
    out += static_cast<char>(v);
    return;
  }
  switch (esc[1]) {
    case 'n': out += '\n'; return;
    case 't': out += '\t'; return;
    case 'r': out += '\r'; return;
    case '\\': out += '\\'; return;
    case '"': out += '"'; return;
    case '\'': out += '\''; return;
    case '\n':
    case '\r': return;
    case 'a': out += '\a'; return;
    case 'b': out += '\b'; return;
    case 'f': out += '\f'; return;
    case 'v': out += '\v'; return;
    case 'x':
      if (esc.size() == 4 && std::isxdigit(static_cast<unsigned char>(esc[2])) &&
          std::isxdigit(static_cast<unsigned char>(esc[3]))) {
        out += static_cast<char>(std::stoi(std::string(esc.substr(2)), nullptr, 16));
        return;
      }
      break;
    default: break;
  }
  out.append(esc);
}

}  // namespace

std::string StringValue(const Cst& cst, Node n, Node* fstring) {
  std::string out;
  if (n->kind == K::kConcatenatedString) {
    for (Node c : cst.Children(n)) {
      out += StringValue(cst, c, fstring);
      if (*fstring) return {};
    }
    return out;
  }
  // The prefix (r, b, u, f) comes before the quote; the content child spans the inside.
  std::string_view whole = cst.Text(n);
  bool raw = false, fmt = false;
  for (char c : whole) {
    if (c == '"' || c == '\'') break;
    raw |= (c | 0x20) == 'r';
    fmt |= (c | 0x20) == 'f';
  }
  Node content = n->named_count > 0 ? cst.NamedChild(n, 0) : nullptr;
  if (!content) return out;
  std::string_view text = cst.Text(content);
  if (fmt && text.find('{') != std::string_view::npos) {
    *fstring = content;
    return {};
  }
  if (raw) return std::string(text);
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t bs = text.find('\\', pos);
    if (bs == std::string_view::npos || bs + 1 >= text.size()) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, bs - pos));
    // The escape's length: \xHH, \uHHHH, \UHHHHHHHH, up to three octal digits, else one char.
    size_t len = 2;
    char e = text[bs + 1];
    if (e == 'x') len = 4;
    else if (e == 'u') len = 6;
    else if (e == 'U') len = 10;
    else if (e >= '0' && e <= '7') {
      while (len < 4 && bs + len < text.size() && text[bs + len] >= '0' && text[bs + len] <= '7') ++len;
    } else if (e == '\r' && bs + 2 < text.size() && text[bs + 2] == '\n') {
      len = 3;
    }
    len = std::min(len, text.size() - bs);
    AppendEscape(text.substr(bs, len), out);
    pos = bs + len;
  }
  return out;
}

Cst::Cst(SourceFilePtr file, std::string_view text, uint32_t base)
    : file_(std::move(file)), text_(text), base_(base) {
  CstBuilder(*this).Run();
}

}  // namespace wb::script::detail
