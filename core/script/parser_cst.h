// Walking tree-sitter's Python CST for the TVMScript parser: node kinds as a small enum (looked
// up once per grammar symbol, so dispatch never compares strings), field access, node text and
// spans into the one shared SourceFile of a parse, and syntax-error collection.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
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
  kImportStatement,
  kImportFromStatement,
  kFutureImportStatement,
  kError,
};

// Field ids of the grammar, resolved once.
struct FieldIds {
  TSFieldId left, right, type, operator_, body, condition, consequence, alternative, function,
      arguments, object, attribute, value, subscript, name, parameters, return_type, definition,
      argument, key, superclasses, alias;
};

// One parsed text: the tree plus what is needed to turn nodes into text and spans. A quoted
// shape entry (`"n * 4"`) is parsed as its own small Cst whose offsets are shifted by `base`.
class Cst {
 public:
  Cst(SourceFilePtr file, std::string_view text, uint32_t base);
  ~Cst();
  Cst(const Cst&) = delete;
  Cst& operator=(const Cst&) = delete;

  bool ok() const { return tree_ != nullptr; }
  TSNode root() const { return ts_tree_root_node(tree_); }

  K Kind(TSNode n) const {
    TSSymbol s = ts_node_symbol(n);
    return s < kinds_->size() ? (*kinds_)[s] : K::kOther;
  }
  std::string_view Text(TSNode n) const {
    uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e > text_.size()) e = static_cast<uint32_t>(text_.size());
    if (b > e) b = e;
    return text_.substr(b, e - b);
  }
  Span SpanOf(TSNode n) const {
    return Span(file_, base_ + ts_node_start_byte(n), base_ + ts_node_end_byte(n));
  }
  const FieldIds& fields() const { return *fields_; }
  TSNode Field(TSNode n, TSFieldId id) const { return ts_node_child_by_field_id(n, id); }

  // Named children, comments excluded.
  std::vector<TSNode> Children(TSNode n) const;

  // Reports every ERROR and MISSING node (outermost only) as a syntax error.
  void CollectSyntaxErrors(DiagnosticList& diags) const;

 private:
  SourceFilePtr file_;
  std::string_view text_;
  uint32_t base_ = 0;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  const std::vector<K>* kinds_;
  const FieldIds* fields_;
};

inline bool IsNull(TSNode n) { return ts_node_is_null(n); }

}  // namespace wb::script::detail
