// The concrete syntax tree of the TVMScript parser: our own lexer and recursive-descent parser for
// the Python subset TVMScript uses (parser_lexer.cpp, parser_cst.cpp), building an arena of nodes
// whose kinds and fields are tree-sitter-python's (so the IR builder reads the tree the way the
// grammar names it). tree-sitter stays in the project for the editor's queries (grammar/); it was
// too slow (~2-3 MB/s) to parse with.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"
#include "support/span.h"

namespace wb::script::detail {

// The grammar's named node kinds the parser looks at; everything else is kOther.
enum class K : uint8_t {
  kOther,
  kModule,
  kBlock,
  kComment,
  kIdentifier,
  kInteger,
  kFloat,
  kString,
  kStringContent,
  kEscapeSequence,
  kInterpolation,
  kConcatenatedString,
  kTrue,
  kFalse,
  kNone,
  kAttribute,
  kCall,
  kArgumentList,
  kKeywordArgument,
  kListSplat,
  kDictionarySplat,
  kSubscript,
  kSlice,
  kTuple,
  kList,
  kDictionary,
  kPair,
  kParenthesized,
  kBinaryOperator,
  kUnaryOperator,
  kBooleanOperator,
  kNotOperator,
  kComparisonOperator,
  kConditionalExpression,
  kLambda,
  kLambdaParameters,
  kListComprehension,  // the recipe language's; TVMScript refuses it
  kForInClause,
  kIfClause,
  kExpressionList,
  kPatternList,
  kTuplePattern,
  kListPattern,
  kExpressionStatement,
  kAssignment,
  kAugmentedAssignment,
  kForStatement,
  kWhileStatement,
  kIfStatement,
  kElifClause,
  kElseClause,
  kWithStatement,
  kWithClause,
  kWithItem,
  kAsPattern,
  kAsPatternTarget,
  kAssertStatement,
  kPassStatement,
  kBreakStatement,
  kContinueStatement,
  kReturnStatement,
  kFunctionDefinition,
  kDecoratedDefinition,
  kDecorator,
  kClassDefinition,
  kParameters,
  kTypedParameter,
  kDefaultParameter,
  kTypedDefaultParameter,
  kType,
  kTypeParameter,
  kImportStatement,
  kImportFromStatement,
  kFutureImportStatement,
  kError,
  kToken,  // an anonymous token kept as a child (operators, ':' in slices)
};

// tree-sitter-python's name of a kind ("binary_operator"), for messages.
const char* KindName(K kind);

using FieldId = uint8_t;

// The grammar's field names as small ids (0 = no field).
struct FieldIds {
  static constexpr FieldId left = 1, right = 2, type = 3, operator_ = 4, body = 5, condition = 6,
                           consequence = 7, alternative = 8, function = 9, arguments = 10,
                           object = 11, attribute = 12, value = 13, subscript = 14, name = 15,
                           parameters = 16, return_type = 17, definition = 18, argument = 19,
                           key = 20, superclasses = 21, alias = 22, type_parameters = 23;
};

// One node of the arena. Children hold named nodes and the few anonymous tokens the IR builder
// reads (operators, slice colons); comments are not kept.
struct CstNode {
  K kind = K::kOther;
  FieldId field = 0;     // this node's field in its parent
  bool named = true;
  bool has_error = false;  // the node or a descendant is a syntax error
  uint32_t begin = 0, end = 0;
  uint32_t count = 0;  // all children
  uint32_t named_count = 0;
  const CstNode* const* kids = nullptr;
  const CstNode* const* named_kids = nullptr;  // the named ones, in order
  const char* type = nullptr;  // grammar name for kOther nodes ("generator_expression")
};

// A node handle: null when absent.
using Node = const CstNode*;

inline bool IsNull(Node n) { return n == nullptr; }

// A node's named children: a view into the arena (no allocation); converts to a vector where a
// caller edits the list.
class NodeList {
 public:
  NodeList() = default;
  NodeList(const Node* data, uint32_t size) : data_(data), size_(size) {}
  const Node* begin() const { return data_; }
  const Node* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Node operator[](size_t i) const { return data_[i]; }
  Node at(size_t i) const {
    if (i >= size_) throw std::out_of_range("node child index");
    return data_[i];
  }
  Node front() const { return data_[0]; }
  Node back() const { return data_[size_ - 1]; }
  operator std::vector<Node>() const { return std::vector<Node>(begin(), end()); }

 private:
  const Node* data_ = nullptr;
  uint32_t size_ = 0;
};

// Bump allocation for nodes and child arrays: one parse, one arena, freed together.
class Arena {
 public:
  void* Alloc(size_t bytes);

 private:
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cur_ = nullptr;
  size_t left_ = 0;
};

// One parsed text: the tree plus what is needed to turn nodes into text and spans. A quoted
// shape entry (`"n * 4"`) is parsed as its own small Cst whose offsets are shifted by `base`.
class Cst {
 public:
  Cst(SourceFilePtr file, std::string_view text, uint32_t base);
  Cst(const Cst&) = delete;
  Cst& operator=(const Cst&) = delete;

  bool ok() const { return root_ != nullptr; }
  Node root() const { return root_; }

  K Kind(Node n) const { return n->kind; }
  std::string_view Text(Node n) const {
    uint32_t b = n->begin, e = n->end;
    if (e > text_.size()) e = static_cast<uint32_t>(text_.size());
    if (b > e) b = e;
    return text_.substr(b, e - b);
  }
  Span SpanOf(Node n) const { return Span(file_, base_ + n->begin, base_ + n->end); }
  FieldIds fields() const { return {}; }
  Node Field(Node n, FieldId id) const {
    for (uint32_t i = 0; i < n->count; ++i)
      if (n->kids[i]->field == id) return n->kids[i];
    return nullptr;
  }

  // Named children (comments are not kept).
  NodeList Children(Node n) const { return NodeList(n->named_kids, n->named_count); }
  uint32_t NamedChildCount(Node n) const { return n->named_count; }
  Node NamedChild(Node n, uint32_t i) const { return i < n->named_count ? n->named_kids[i] : nullptr; }

  // The syntax errors found while parsing, in source order.
  void CollectSyntaxErrors(DiagnosticList& diags) const;

  // Parser internals fill these.
  struct Error {
    std::string message;
    uint32_t begin, end;
  };

 private:
  friend class CstBuilder;
  SourceFilePtr file_;
  std::string_view text_;
  uint32_t base_ = 0;
  Arena arena_;
  Node root_ = nullptr;
  std::vector<Error> errors_;
};

// The value of a string or concatenated-string node: the prefix honoured (r), escapes decoded.
// An f-string with a replacement field is not decoded: `fstring` is set to its content node.
std::string StringValue(const Cst& cst, Node n, Node* fstring);

}  // namespace wb::script::detail
