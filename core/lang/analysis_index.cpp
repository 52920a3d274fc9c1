#include "lang/analysis_index.h"

#include <algorithm>
#include <unordered_set>

#include "script/parser_lexer.h"
#include "tir/functor.h"

namespace wb::lang {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsIdentStart(s[0])) return false;
  return std::all_of(s.begin(), s.end(), IsIdentChar);
}

// The first whole-word occurrence of `name` in text[begin, end), or npos.
size_t FindWord(std::string_view text, std::string_view name, uint32_t begin, uint32_t end) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(text.size()));
  size_t pos = begin;
  while ((pos = text.find(name, pos)) != std::string_view::npos && pos + name.size() <= end) {
    bool left = pos == 0 || !IsIdentChar(text[pos - 1]);
    bool right = pos + name.size() >= text.size() || !IsIdentChar(text[pos + name.size()]);
    if (left && right) return pos;
    ++pos;
  }
  return std::string_view::npos;
}

// Collects the symbols of one PrimFunc by walking its body with a stack of scopes: a loop var is
// visible in its loop, an iter var and a block's buffers in the block, everything else from its
// definition to the end of the enclosing scope.
class SymbolCollector : public tir::StmtExprVisitor {
 public:
  SymbolCollector(std::string_view text, const tir::PrimFuncNode* func, uint32_t func_begin,
                  uint32_t func_end, std::vector<IndexedSymbol>* out)
      : text_(text), func_(func), out_(out) {
    scopes_.push_back({func_begin, func_end});
  }

  void Params() {
    for (size_t i = 0; i < func_->params.size(); ++i) {
      const tir::Buffer& buffer = func_->buffer_map[i];
      const tir::Var& param = func_->params[i];
      if (buffer.defined()) {
        Add(SymbolRole::kBuffer, buffer->name, buffer->span, buffer.get(), nullptr);
        // A legacy `a: T.handle` + `A = T.match_buffer(a, ...)` names the handle separately.
        if (param->name_hint != buffer->name) Add(SymbolRole::kParam, param->name_hint, param->span, param.get(), nullptr);
        for (const auto& d : buffer->shape) VisitExpr(d);
        for (const auto& s : buffer->strides) VisitExpr(s);
      } else {
        Add(SymbolRole::kParam, param->name_hint, param->span, param.get(), nullptr);
      }
    }
  }

  void VisitStmt_(const tir::ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    Push(op->span);
    Add(SymbolRole::kLoopVar, op->loop_var->name_hint, op->loop_var->span, op->loop_var.get(), op);
    VisitStmt(op->body);
    scopes_.pop_back();
  }

  void VisitStmt_(const tir::SBlockRealizeNode* op) override {
    for (const auto& v : op->iter_values) VisitExpr(v);
    const tir::SBlockNode* block = op->block.get();
    Push(op->span);
    if (op->span.defined()) AddBlock(block, op->span);
    for (const auto& iv : block->iter_vars) {
      Add(SymbolRole::kIterVar, iv->var->name_hint, iv->var->span, iv->var.get(), iv.get());
    }
    for (const auto& b : block->alloc_buffers) Add(SymbolRole::kBuffer, b->name, b->span, b.get(), block);
    for (const auto& m : block->match_buffers) {
      Add(SymbolRole::kBuffer, m->buffer->name, m->buffer->span, m->buffer.get(), block);
    }
    tir::StmtExprVisitor::VisitStmt_(block);
    scopes_.pop_back();
  }

  void VisitStmt_(const tir::AllocBufferNode* op) override {
    AddFromHere(SymbolRole::kBuffer, op->buffer->name, op->buffer->span, op->buffer.get());
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::DeclBufferNode* op) override {
    AddFromHere(SymbolRole::kBuffer, op->buffer->name, op->buffer->span, op->buffer.get());
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::BindNode* op) override {
    VisitExpr(op->value);
    AddFromHere(SymbolRole::kLocalVar, op->var->name_hint, op->var->span, op->var.get());
  }
  void VisitStmt_(const tir::AttrStmtNode* op) override {
    if (auto iv = op->node.as<tir::IterVarNode>()) {
      AddFromHere(SymbolRole::kLocalVar, iv->var->name_hint, iv->var->span, iv->var.get());
    }
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const tir::LetNode* op) override {
    AddFromHere(SymbolRole::kLocalVar, op->var->name_hint, op->var->span, op->var.get());
    tir::StmtExprVisitor::VisitExpr_(op);
  }
  // A var first met as a use is a symbolic shape var (`n = T.int32()`, or "n" in a signature).
  void VisitExpr_(const tir::VarNode* op) override {
    Add(SymbolRole::kShapeVar, op->name_hint, op->span, op, nullptr, /*function_scope=*/true);
  }
  void VisitExpr_(const tir::SizeVarNode* op) override {
    Add(SymbolRole::kShapeVar, op->name_hint, op->span, op, nullptr, /*function_scope=*/true);
  }

 private:
  struct Scope {
    uint32_t begin, end;
  };

  void Push(const Span& span) {
    if (span.defined()) {
      scopes_.push_back({span.begin, span.end});
    } else {
      scopes_.push_back(scopes_.back());
    }
  }

  void AddFromHere(SymbolRole role, const std::string& name, const Span& span, const ir::Object* node) {
    size_t before = out_->size();
    Add(role, name, span, node, nullptr);
    if (out_->size() > before) out_->back().scope_begin = out_->back().def_begin;
  }

  void Add(SymbolRole role, const std::string& name, const Span& span, const ir::Object* node,
           const ir::Object* owner, bool function_scope = false) {
    if (!span.defined() || !seen_.insert(node).second) return;
    size_t pos = FindWord(text_, name, span.begin, span.end);
    if (pos == std::string_view::npos) return;
    IndexedSymbol s;
    s.role = role;
    s.name = name;
    s.def_begin = static_cast<uint32_t>(pos);
    s.def_end = static_cast<uint32_t>(pos + name.size());
    const Scope& scope = function_scope ? scopes_.front() : scopes_.back();
    s.scope_begin = scope.begin;
    s.scope_end = scope.end;
    s.node = node;
    s.owner = owner;
    s.func = func_;
    out_->push_back(std::move(s));
  }

  void AddBlock(const tir::SBlockNode* block, const Span& span) {
    // The name is the string in `T.sblock("C")`; the implicit root block has none in the text.
    for (char quote : {'"', '\''}) {
      std::string quoted = quote + block->name_hint + quote;
      size_t pos = text_.substr(0, span.end).find(quoted, span.begin);
      if (pos == std::string_view::npos || InComment(pos)) continue;
      IndexedSymbol s;
      s.role = SymbolRole::kBlock;
      s.name = block->name_hint;
      s.def_begin = static_cast<uint32_t>(pos + 1);
      s.def_end = static_cast<uint32_t>(pos + 1 + block->name_hint.size());
      s.scope_begin = scopes_.front().begin;
      s.scope_end = scopes_.front().end;
      s.node = block;
      s.func = func_;
      out_->push_back(std::move(s));
      return;
    }
  }

  // The printer writes the implicit root block as `# with T.sblock("root"):`; a name there
  // is not a block of the text.
  bool InComment(size_t pos) const {
    size_t line_start = text_.rfind('\n', pos);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    return text_.substr(line_start, pos - line_start).find('#') != std::string_view::npos;
  }

  std::string_view text_;
  const tir::PrimFuncNode* func_;
  std::vector<IndexedSymbol>* out_;
  std::vector<Scope> scopes_;
  std::unordered_set<const ir::Object*> seen_;
};

// Names a module function can be reached through: the class name, `cls` and `self`.
std::unordered_set<std::string> ClassNames(std::string_view text, const std::vector<Token>& tokens) {
  std::unordered_set<std::string> names{"cls", "self", "Module"};
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].quoted || text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin) != "class") continue;
    names.insert(std::string(text.substr(tokens[i + 1].begin, tokens[i + 1].end - tokens[i + 1].begin)));
  }
  return names;
}

}  // namespace

std::vector<Token> Tokenize(std::string_view text) {
  // The parser's own lexer, so that what counts as a name, a string or a comment is decided
  // once for the parse and the editor features alike (its errors are the parser's to report).
  std::vector<script::detail::Token> lexed;
  std::vector<script::detail::LexError> errors;
  script::detail::Lex(text, lexed, errors);
  std::vector<Token> tokens;
  for (size_t i = 0; i < lexed.size(); ++i) {
    const script::detail::Token& t = lexed[i];
    if (t.type == script::detail::Tok::kName) {
      const bool after_dot = i > 0 && lexed[i - 1].type == script::detail::Tok::kOp &&
                             lexed[i - 1].op == script::detail::Op::kDot;
      tokens.push_back({t.begin, t.end, false, after_dot});
    } else if (t.type == script::detail::Tok::kString) {
      // A one-line string whose contents are an identifier ("n", "C"): a shape var or block
      // name spelled as a string. Prefixed and triple-quoted strings (docstrings) never are.
      std::string_view literal = text.substr(t.begin, t.end - t.begin);
      if (literal.size() < 2 || (literal[0] != '"' && literal[0] != '\'')) continue;
      const char quote = literal[0];
      if (literal.size() >= 3 && literal[1] == quote && literal[2] == quote) continue;
      const uint32_t begin = t.begin + 1;
      const uint32_t end = literal.back() == quote ? t.end - 1 : t.end;
      if (begin < end && IsIdentifier(text.substr(begin, end - begin))) tokens.push_back({begin, end, true, false});
    }
  }
  return tokens;
}

const SymbolIndex& SymbolIndex::Of(const Document& doc) {
  std::shared_ptr<void>& cache = doc.analysis_cache();
  if (!cache) cache = std::make_shared<SymbolIndex>(doc);
  return *std::static_pointer_cast<SymbolIndex>(cache);
}

SymbolIndex::SymbolIndex(const Document& doc) {
  const std::string& text = doc.text();
  const script::ParseResult& parsed = doc.Parsed();
  auto index_function = [&](const ir::GlobalVar& gv, const tir::PrimFuncNode* func) {
    if (gv->span.defined()) {
      IndexedSymbol s;
      s.role = SymbolRole::kFunction;
      s.name = gv->name_hint;
      s.def_begin = gv->span.begin;
      s.def_end = gv->span.end;
      s.scope_begin = 0;
      s.scope_end = static_cast<uint32_t>(text.size()) + 1;
      s.node = func;
      s.func = func;
      symbols_.push_back(std::move(s));
    }
    uint32_t begin = func->span.defined() ? func->span.begin : 0;
    uint32_t end = func->span.defined() ? func->span.end : static_cast<uint32_t>(text.size());
    SymbolCollector collector(text, func, begin, end + 1, &symbols_);
    collector.Params();
    collector.VisitStmt(func->body);
  };
  if (parsed.module.defined()) {
    const ir::IRModuleNode* mod = parsed.module.get();
    for (size_t i = 0; i < mod->functions.size(); ++i) {
      auto func = mod->functions[i].as<tir::PrimFuncNode>();
      if (!func) continue;  // Relax functions: nothing to index yet
      index_function(mod->global_vars[i], func);
    }
  }
  // A function with an error in its body still answers for what did parse (as clangd does):
  // its names resolve as they would once the error is fixed.
  for (const script::ParseResult::Recovered& r : parsed.recovered) index_function(r.gvar, r.func.get());

  for (size_t k = 0; k < symbols_.size(); ++k) by_name_[symbols_[k].name].push_back(static_cast<int>(k));
  std::vector<Token> tokens = Tokenize(text);
  std::unordered_set<std::string> class_names = ClassNames(text, tokens);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    std::string_view name(text.data() + t.begin, t.end - t.begin);
    bool function_only = false;
    if (t.after_dot) {
      // Only `Module.f` / `cls.f` name something of ours; `T.exp`, `A.shape` do not.
      if (i == 0 || tokens[i - 1].quoted) continue;
      std::string owner(text.substr(tokens[i - 1].begin, tokens[i - 1].end - tokens[i - 1].begin));
      if (!class_names.count(owner)) continue;
      function_only = true;
    }
    int symbol = Resolve(name, t.begin, function_only ? Context::kMember : t.quoted ? Context::kQuoted : Context::kCode);
    if (symbol < 0) continue;
    const IndexedSymbol& s = symbols_[symbol];
    occurrences_.push_back({t.begin, t.end, symbol, t.begin == s.def_begin});
  }
  // A definition the tokenizer did not see as such (e.g. a block name inside a comment-free
  // string it skipped) still counts.
  std::unordered_set<int> defined;
  for (const Occurrence& o : occurrences_) {
    if (o.is_definition) defined.insert(o.symbol);
  }
  for (size_t k = 0; k < symbols_.size(); ++k) {
    if (!defined.count(static_cast<int>(k))) {
      occurrences_.push_back({symbols_[k].def_begin, symbols_[k].def_end, static_cast<int>(k), true});
    }
  }
  std::sort(occurrences_.begin(), occurrences_.end(),
            [](const Occurrence& a, const Occurrence& b) { return a.begin < b.begin; });
}

int SymbolIndex::Resolve(std::string_view name, uint32_t offset, Context context) const {
  int best = -1;
  auto candidates = by_name_.find(std::string(name));
  if (candidates == by_name_.end()) return -1;
  for (int k : candidates->second) {
    const IndexedSymbol& s = symbols_[k];
    if (offset < s.scope_begin || offset >= s.scope_end) continue;
    bool fits = context == Context::kMember   ? s.role == SymbolRole::kFunction
                : context == Context::kQuoted ? (s.role == SymbolRole::kShapeVar || s.role == SymbolRole::kBlock)
                                              : s.role != SymbolRole::kBlock;
    if (!fits) continue;
    if (best < 0) {
      best = static_cast<int>(k);
      continue;
    }
    const IndexedSymbol& b = symbols_[best];
    uint32_t size = s.scope_end - s.scope_begin, best_size = b.scope_end - b.scope_begin;
    // Innermost scope wins; in the same scope, the latest definition at or before the use.
    bool better = size < best_size ||
                  (size == best_size && s.def_begin <= offset && (b.def_begin > offset || s.def_begin > b.def_begin));
    if (better) best = static_cast<int>(k);
  }
  return best;
}

const Occurrence* SymbolIndex::At(uint32_t offset) const {
  auto it = std::upper_bound(occurrences_.begin(), occurrences_.end(), offset,
                             [](uint32_t off, const Occurrence& o) { return off < o.begin; });
  if (it == occurrences_.begin()) return nullptr;
  --it;
  return offset <= it->end ? &*it : nullptr;
}

std::vector<Occurrence> SymbolIndex::OccurrencesOf(int symbol) const {
  std::vector<Occurrence> out;
  for (const Occurrence& o : occurrences_) {
    if (o.symbol == symbol) out.push_back(o);
  }
  return out;
}

std::vector<int> SymbolIndex::VisibleAt(uint32_t offset) const {
  std::vector<int> out;
  std::unordered_set<std::string> names;
  for (const IndexedSymbol& s : symbols_) {
    if (s.role == SymbolRole::kBlock || !names.insert(s.name).second) continue;
    int k = Resolve(s.name, offset, Context::kCode);
    if (k >= 0 && symbols_[k].def_begin <= offset) out.push_back(k);
  }
  return out;
}

}  // namespace wb::lang
