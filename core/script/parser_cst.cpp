#include "script/parser_cst.h"

#include <cstring>
#include <string>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python();

namespace wb::script::detail {
namespace {

struct Grammar {
  std::vector<K> kinds;
  FieldIds fields{};
};

const Grammar& GetGrammar() {
  static const Grammar grammar = [] {
    Grammar g;
    const TSLanguage* lang = tree_sitter_python();
    static const std::unordered_map<std::string_view, K> names = {
        {"module", K::kModule},
        {"block", K::kBlock},
        {"comment", K::kComment},
        {"identifier", K::kIdentifier},
        {"integer", K::kInteger},
        {"float", K::kFloat},
        {"string", K::kString},
        {"string_content", K::kStringContent},
        {"escape_sequence", K::kEscapeSequence},
        {"interpolation", K::kInterpolation},
        {"concatenated_string", K::kConcatenatedString},
        {"true", K::kTrue},
        {"false", K::kFalse},
        {"none", K::kNone},
        {"attribute", K::kAttribute},
        {"call", K::kCall},
        {"argument_list", K::kArgumentList},
        {"keyword_argument", K::kKeywordArgument},
        {"list_splat", K::kListSplat},
        {"dictionary_splat", K::kDictionarySplat},
        {"subscript", K::kSubscript},
        {"slice", K::kSlice},
        {"tuple", K::kTuple},
        {"list", K::kList},
        {"dictionary", K::kDictionary},
        {"pair", K::kPair},
        {"parenthesized_expression", K::kParenthesized},
        {"binary_operator", K::kBinaryOperator},
        {"unary_operator", K::kUnaryOperator},
        {"boolean_operator", K::kBooleanOperator},
        {"not_operator", K::kNotOperator},
        {"comparison_operator", K::kComparisonOperator},
        {"conditional_expression", K::kConditionalExpression},
        {"lambda", K::kLambda},
        {"lambda_parameters", K::kLambdaParameters},
        {"expression_list", K::kExpressionList},
        {"pattern_list", K::kPatternList},
        {"tuple_pattern", K::kTuplePattern},
        {"list_pattern", K::kListPattern},
        {"expression_statement", K::kExpressionStatement},
        {"assignment", K::kAssignment},
        {"augmented_assignment", K::kAugmentedAssignment},
        {"for_statement", K::kForStatement},
        {"while_statement", K::kWhileStatement},
        {"if_statement", K::kIfStatement},
        {"elif_clause", K::kElifClause},
        {"else_clause", K::kElseClause},
        {"with_statement", K::kWithStatement},
        {"with_clause", K::kWithClause},
        {"with_item", K::kWithItem},
        {"as_pattern", K::kAsPattern},
        {"as_pattern_target", K::kAsPatternTarget},
        {"assert_statement", K::kAssertStatement},
        {"pass_statement", K::kPassStatement},
        {"break_statement", K::kBreakStatement},
        {"continue_statement", K::kContinueStatement},
        {"return_statement", K::kReturnStatement},
        {"function_definition", K::kFunctionDefinition},
        {"decorated_definition", K::kDecoratedDefinition},
        {"decorator", K::kDecorator},
        {"class_definition", K::kClassDefinition},
        {"parameters", K::kParameters},
        {"typed_parameter", K::kTypedParameter},
        {"default_parameter", K::kDefaultParameter},
        {"typed_default_parameter", K::kTypedDefaultParameter},
        {"type", K::kType},
        {"import_statement", K::kImportStatement},
        {"import_from_statement", K::kImportFromStatement},
        {"future_import_statement", K::kFutureImportStatement},
    };
    uint32_t count = ts_language_symbol_count(lang);
    g.kinds.assign(count, K::kOther);
    for (uint32_t s = 0; s < count; ++s) {
      if (ts_language_symbol_type(lang, TSSymbol(s)) != TSSymbolTypeRegular) continue;
      const char* name = ts_language_symbol_name(lang, TSSymbol(s));
      if (!name) continue;
      auto it = names.find(name);
      if (it != names.end()) g.kinds[s] = it->second;
    }
    auto field = [&](const char* name) {
      return ts_language_field_id_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)));
    };
    FieldIds& f = g.fields;
    f.left = field("left");
    f.right = field("right");
    f.type = field("type");
    f.operator_ = field("operator");
    f.body = field("body");
    f.condition = field("condition");
    f.consequence = field("consequence");
    f.alternative = field("alternative");
    f.function = field("function");
    f.arguments = field("arguments");
    f.object = field("object");
    f.attribute = field("attribute");
    f.value = field("value");
    f.subscript = field("subscript");
    f.name = field("name");
    f.parameters = field("parameters");
    f.return_type = field("return_type");
    f.definition = field("definition");
    f.argument = field("argument");
    f.key = field("key");
    f.superclasses = field("superclasses");
    f.alias = field("alias");
    return g;
  }();
  return grammar;
}

bool IsErrorNode(TSNode n) { return std::strcmp(ts_node_type(n), "ERROR") == 0; }

// The first non-empty token inside an ERROR node: what the user should look at.
TSNode FirstToken(TSNode n) {
  while (ts_node_child_count(n) > 0) {
    TSNode next = ts_node_child(n, 0);
    uint32_t count = ts_node_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode c = ts_node_child(n, i);
      if (ts_node_end_byte(c) > ts_node_start_byte(c)) {
        next = c;
        break;
      }
    }
    n = next;
  }
  return n;
}

}  // namespace

Cst::Cst(SourceFilePtr file, std::string_view text, uint32_t base)
    : file_(std::move(file)), text_(text), base_(base) {
  const Grammar& g = GetGrammar();
  kinds_ = &g.kinds;
  fields_ = &g.fields;
  parser_ = ts_parser_new();
  if (!ts_parser_set_language(parser_, tree_sitter_python())) return;
  // No timeout: tree-sitter always terminates, and the clock checks cost time.
  tree_ = ts_parser_parse_string(parser_, nullptr, text_.data(), static_cast<uint32_t>(text_.size()));
}

Cst::~Cst() {
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

std::vector<TSNode> Cst::Children(TSNode n) const {
  // A cursor walks siblings in O(1) each; ts_node_named_child(i) restarts from the first child.
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(c) && Kind(c) != K::kComment) out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

void Cst::CollectSyntaxErrors(DiagnosticList& diags) const {
  if (!tree_) return;
  TSNode root_node = root();
  if (!ts_node_has_error(root_node)) return;
  TSTreeCursor cursor = ts_tree_cursor_new(root_node);
  bool done = false;
  while (!done) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    bool descend = false;
    if (ts_node_is_missing(n)) {
      std::string what = ts_node_type(n);
      Span span = SpanOf(n);
      diags.Error("syntax error: missing '" + what + "'", span);
    } else if (IsErrorNode(n)) {
      // An unclosed bracket is the usual cause of an error that runs to the end of a statement:
      // name the missing closer, at the end of what was written.
      std::string open;
      uint32_t last_end = ts_node_start_byte(n);
      TSTreeCursor leaves = ts_tree_cursor_new(n);
      bool walking = true;
      while (walking) {
        TSNode c = ts_tree_cursor_current_node(&leaves);
        if (ts_node_child_count(c) == 0) {
          std::string_view t = Text(c);
          if (t == "(" || t == "[" || t == "{") open += t[0];
          else if (!open.empty() && (t == ")" || t == "]" || t == "}")) open.pop_back();
          if (!t.empty()) last_end = ts_node_end_byte(c);
        } else if (ts_tree_cursor_goto_first_child(&leaves)) {
          continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&leaves)) {
          if (!ts_tree_cursor_goto_parent(&leaves)) {
            walking = false;
            break;
          }
        }
      }
      ts_tree_cursor_delete(&leaves);
      if (!open.empty()) {
        char closer = open.back() == '(' ? ')' : open.back() == '[' ? ']' : '}';
        diags.Error(std::string("syntax error: missing '") + closer + "'",
                    Span(file_, base_ + last_end, base_ + last_end));
        descend = false;
        if (ts_tree_cursor_goto_next_sibling(&cursor)) continue;
        while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
          if (!ts_tree_cursor_goto_parent(&cursor)) return ts_tree_cursor_delete(&cursor);
        }
        continue;
      }
      TSNode tok = FirstToken(n);
      std::string_view text = Text(tok);
      if (text.empty()) {
        diags.Error("syntax error: unexpected end of input", SpanOf(n));
      } else {
        if (text.size() > 40) text = text.substr(0, 40);
        size_t nl = text.find('\n');
        if (nl != std::string_view::npos) text = text.substr(0, nl);
        diags.Error("syntax error: unexpected '" + std::string(text) + "'", SpanOf(tok));
      }
    } else if (ts_node_has_error(n)) {
      descend = true;
    }
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        done = true;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace wb::script::detail
