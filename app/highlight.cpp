#include "highlight.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <regex>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace wb::app {

namespace {

struct Compiled {
  TSQuery* query = nullptr;
};

const Compiled& HighlightQuery() {
  static Compiled compiled = [] {
    Compiled c;
    uint32_t error_offset = 0;
    TSQueryError error = TSQueryErrorNone;
    std::string_view text = HighlightsQuery();
    c.query = ts_query_new(tree_sitter_python(), text.data(), static_cast<uint32_t>(text.size()),
                           &error_offset, &error);
    return c;
  }();
  return compiled;
}

std::string_view StringValue(const TSQuery* q, uint32_t id) {
  uint32_t len = 0;
  const char* s = ts_query_string_value_for_id(q, id, &len);
  return std::string_view(s, len);
}

bool PredicatesHold(const TSQuery* q, const TSQueryMatch& m, std::string_view text) {
  uint32_t count = 0;
  const TSQueryPredicateStep* steps = ts_query_predicates_for_pattern(q, m.pattern_index, &count);
  auto capture_text = [&](uint32_t capture_id) -> std::string_view {
    for (uint16_t i = 0; i < m.capture_count; ++i) {
      if (m.captures[i].index == capture_id) {
        uint32_t b = ts_node_start_byte(m.captures[i].node);
        uint32_t e = ts_node_end_byte(m.captures[i].node);
        return text.substr(b, e - b);
      }
    }
    return {};
  };
  static std::mutex regex_mutex;
  static std::unordered_map<std::string, std::regex> regexes;
  for (uint32_t i = 0; i < count;) {
    std::vector<TSQueryPredicateStep> args;
    for (; i < count && steps[i].type != TSQueryPredicateStepTypeDone; ++i)
      args.push_back(steps[i]);
    ++i;
    if (args.size() != 3 || args[0].type != TSQueryPredicateStepTypeString ||
        args[1].type != TSQueryPredicateStepTypeCapture) {
      continue;
    }
    std::string_view op = StringValue(q, args[0].value_id);
    bool negate = op.substr(0, 4) == "not-";
    if (negate) op.remove_prefix(4);
    std::string_view subject = capture_text(args[1].value_id);
    bool holds = true;
    if (op == "match?" && args[2].type == TSQueryPredicateStepTypeString) {
      std::string pattern(StringValue(q, args[2].value_id));
      std::lock_guard<std::mutex> lock(regex_mutex);
      auto it = regexes.find(pattern);
      if (it == regexes.end()) it = regexes.emplace(pattern, std::regex(pattern)).first;
      holds = std::regex_search(subject.begin(), subject.end(), it->second);
    } else if (op == "eq?") {
      std::string_view other = args[2].type == TSQueryPredicateStepTypeCapture
                                   ? capture_text(args[2].value_id)
                                   : StringValue(q, args[2].value_id);
      holds = subject == other;
    } else {
      continue;
    }
    if (holds == negate) return false;
  }
  return true;
}

// Where `byte` lies in `text` as tree-sitter counts it: a row and a byte column.
TSPoint PointAt(std::string_view text, uint32_t byte) {
  TSPoint p{0, 0};
  for (uint32_t i = 0; i < byte; ++i) {
    if (text[i] == '\n') {
      ++p.row;
      p.column = 0;
    } else {
      ++p.column;
    }
  }
  return p;
}

}  // namespace

SyntaxTree::SyntaxTree()
    : parser_(ts_parser_new(), ts_parser_delete), tree_(nullptr, ts_tree_delete) {
  ts_parser_set_language(parser_.get(), tree_sitter_python());
}

SyntaxTree::~SyntaxTree() = default;

void SyntaxTree::Update(std::string text) {
  TSTree* old = tree_.get();
  if (old) {
    const size_t limit = std::min(text_.size(), text.size());
    size_t prefix = 0;
    while (prefix < limit && text_[prefix] == text[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < limit - prefix &&
           text_[text_.size() - 1 - suffix] == text[text.size() - 1 - suffix]) {
      ++suffix;
    }
    if (prefix == text_.size() && prefix == text.size()) return;  // unchanged
    TSInputEdit edit;
    edit.start_byte = static_cast<uint32_t>(prefix);
    edit.old_end_byte = static_cast<uint32_t>(text_.size() - suffix);
    edit.new_end_byte = static_cast<uint32_t>(text.size() - suffix);
    edit.start_point = PointAt(text_, edit.start_byte);
    edit.old_end_point = PointAt(text_, edit.old_end_byte);
    edit.new_end_point = PointAt(text, edit.new_end_byte);
    ts_tree_edit(old, &edit);
  }
  text_ = std::move(text);
  tree_.reset(ts_parser_parse_string(parser_.get(), old, text_.data(),
                                     static_cast<uint32_t>(text_.size())));
}

std::vector<HighlightRange> SyntaxTree::Highlight() const {
  std::vector<HighlightRange> out;
  const Compiled& compiled = HighlightQuery();
  if (!compiled.query || !tree_) return out;
  std::unique_ptr<TSQueryCursor, void (*)(TSQueryCursor*)> cursor(ts_query_cursor_new(),
                                                                  ts_query_cursor_delete);
  ts_query_cursor_exec(cursor.get(), compiled.query, ts_tree_root_node(tree_.get()));
  TSQueryMatch match;
  while (ts_query_cursor_next_match(cursor.get(), &match)) {
    if (!PredicatesHold(compiled.query, match, text_)) continue;
    for (uint16_t i = 0; i < match.capture_count; ++i) {
      uint32_t len = 0;
      const char* name =
          ts_query_capture_name_for_id(compiled.query, match.captures[i].index, &len);
      if (len == 0 || name[0] == '_') continue;
      out.push_back({ts_node_start_byte(match.captures[i].node),
                     ts_node_end_byte(match.captures[i].node), std::string(name, len)});
    }
  }
  return out;
}

std::vector<HighlightRange> Highlight(std::string_view text) {
  SyntaxTree tree;
  tree.Update(std::string(text));
  return tree.Highlight();
}

}  // namespace wb::app
