#include "lang/analysis_index.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "relax/expr.h"
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

// Collects the symbols of one function by walking it with a stack of scopes. In a PrimFunc a loop
// var is visible in its loop, an iter var and a block's buffers in the block, everything else
// from its definition to the end of the enclosing scope. In a Relax function a parameter is
// visible in the function, a binding's name after its value to the end of the enclosing body (an
// if branch's, or the function's), a dataflow var to the end of its `R.dataflow()` block; the
// symbolic shape vars of both are visible in the whole function.
class SymbolCollector : public tir::StmtExprVisitor {
 public:
  SymbolCollector(std::string_view text, const ir::BaseFuncNode* func, uint32_t func_begin,
                  uint32_t func_end, std::vector<IndexedSymbol>* out)
      : text_(text), func_(func), out_(out) {
    scopes_.push_back({func_begin, func_end});
  }

  void PrimFunc(const tir::PrimFuncNode* func) {
    Params(func);
    VisitStmt(func->body);
  }

  void RelaxFunction(const relax::FunctionNode* func) {
    for (const relax::Var& param : func->params) {
      const Span& span = param->span;
      if (span.defined()) {
        AddAt(SymbolRole::kParam, param->name_hint, span.begin, scopes_.back().begin, scopes_.back().end,
              param.get(), nullptr);
      }
      VisitType(param->struct_info);
    }
    VisitType(func->ret_struct_info);
    VisitRelax(func->body);
  }

 private:
  void Params(const tir::PrimFuncNode* func) {
    for (size_t i = 0; i < func->params.size(); ++i) {
      const tir::Buffer& buffer = func->buffer_map[i];
      const tir::Var& param = func->params[i];
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

  using tir::StmtExprVisitor::VisitExpr;
  using tir::StmtExprVisitor::VisitStmt;

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

  // --- Relax ---

  void VisitRelax(const relax::Expr& expr) {
    if (!expr.defined()) return;
    if (auto* seq = expr.as<relax::SeqExprNode>()) {
      Push(seq->span);
      for (const relax::BindingBlock& block : seq->blocks) {
        // The parser spans a DataflowBlock with its `with R.dataflow():`; one built elsewhere
        // ends with its last binding.
        std::optional<uint32_t> dataflow_end;
        if (ir::IsInstance<relax::DataflowBlockNode>(block.get())) {
          dataflow_end = block->span.defined() ? block->span.end : scopes_.back().begin;
          for (const relax::Binding& b : block->bindings) {
            if (b->span.defined()) dataflow_end = std::max(*dataflow_end, b->span.end);
          }
        }
        for (const relax::Binding& b : block->bindings) VisitBinding(b.get(), dataflow_end);
      }
      VisitRelax(seq->body);
      scopes_.pop_back();
    } else if (auto* var = expr.as<relax::VarNode>()) {
      // A name met before any binding of it: the placeholder a failed statement bound (its
      // span is the name), visible from the end of that line on.
      if (var->span.defined() && IsName(var->span, var->name_hint)) {
        size_t line_end = text_.find('\n', var->span.end);
        uint32_t visible = line_end == std::string_view::npos ? var->span.end : static_cast<uint32_t>(line_end);
        AddAt(SymbolRole::kLocalVar, var->name_hint, var->span.begin, std::min(visible, scopes_.front().end),
              scopes_.front().end, var, nullptr);
      }
    } else if (auto* call = expr.as<relax::CallNode>()) {
      VisitRelax(call->op);
      for (const relax::Expr& a : call->args) VisitRelax(a);
      for (const ir::Type& t : call->sinfo_args) VisitType(t);
    } else if (auto* tuple = expr.as<relax::TupleNode>()) {
      for (const relax::Expr& f : tuple->fields) VisitRelax(f);
    } else if (auto* item = expr.as<relax::TupleGetItemNode>()) {
      VisitRelax(item->tuple);
    } else if (auto* shape = expr.as<relax::ShapeExprNode>()) {
      for (const ir::PrimExpr& v : shape->values) VisitExpr(v);
    } else if (auto* prim = expr.as<relax::PrimValueNode>()) {
      VisitExpr(prim->value);
    } else if (auto* branch = expr.as<relax::IfNode>()) {
      VisitRelax(branch->cond);
      VisitRelax(branch->true_branch);
      VisitRelax(branch->false_branch);
    } else if (auto* nested = expr.as<relax::FunctionNode>()) {
      Push(nested->span);
      RelaxFunction(nested);
      scopes_.pop_back();
    }
  }

  void VisitBinding(const relax::BindingNode* binding, std::optional<uint32_t> dataflow_end) {
    const relax::VarNode* var = binding->var.get();
    relax::Expr value;
    ir::Type cast_type;
    if (auto* vb = ir::IsInstance<relax::VarBindingNode>(binding) ? static_cast<const relax::VarBindingNode*>(binding)
                                                                   : nullptr) {
      value = vb->value;
    } else if (ir::IsInstance<relax::MatchCastNode>(binding)) {
      auto* mc = static_cast<const relax::MatchCastNode*>(binding);
      value = mc->value;
      cast_type = mc->struct_info;
    }
    // The name first: an if's result is named by its branches' last statements, whose own
    // vars then find that place taken (the uses after the if are the if's var).
    if (std::optional<uint32_t> pos = BindingName(var, value.as<relax::IfNode>() != nullptr)) {
      const bool dataflow_var = ir::IsInstance<relax::DataflowVarNode>(var) && dataflow_end;
      uint32_t scope_begin = binding->span.defined() ? binding->span.end : *pos;
      uint32_t scope_end = dataflow_var ? *dataflow_end : scopes_.back().end;
      AddAt(SymbolRole::kLocalVar, var->name_hint, *pos, std::min(scope_begin, scope_end), scope_end, var, nullptr);
    } else {
      seen_.insert(var);  // a name the text does not spell (a tuple unpacking's hidden tuple)
    }
    VisitRelax(value);
    VisitType(var->struct_info);
    VisitType(cast_type);
  }

  // Where a binding's name is written: its span is the name itself (a parameter, an unpacking
  // target, a nested function) or the value, with the name left of it on the line (`y = ...`,
  // `y: R.Tensor(...) = ...`), or, for an if, in the branches.
  std::optional<uint32_t> BindingName(const relax::VarNode* var, bool value_is_if) const {
    const Span& span = var->span;
    if (!span.defined() || span.end > text_.size()) return std::nullopt;
    if (IsName(span, var->name_hint)) return span.begin;
    size_t pos;
    if (value_is_if) {
      pos = FindWord(text_, var->name_hint, span.begin, span.end);
    } else {
      size_t line = span.begin == 0 ? std::string_view::npos : text_.rfind('\n', span.begin - 1);
      uint32_t line_start = line == std::string_view::npos ? 0 : static_cast<uint32_t>(line + 1);
      pos = FindWord(text_, var->name_hint, line_start, span.begin);
    }
    if (pos == std::string_view::npos) return std::nullopt;
    return static_cast<uint32_t>(pos);
  }

  bool IsName(const Span& span, const std::string& name) const {
    return span.end <= text_.size() && text_.substr(span.begin, span.end - span.begin) == name;
  }

  // The symbolic shape vars of a Relax type (`R.Tensor(("n", 4))`, `R.Shape([n])`).
  void VisitType(const ir::Type& type) {
    if (!type.defined()) return;
    if (auto* tensor = type.as<relax::TensorTypeNode>()) {
      if (tensor->shape) {
        for (const ir::PrimExpr& d : *tensor->shape) VisitExpr(d);
      }
    } else if (auto* shape = type.as<relax::ShapeTypeNode>()) {
      if (shape->values) {
        for (const ir::PrimExpr& d : *shape->values) VisitExpr(d);
      }
    } else if (auto* tuple = type.as<ir::TupleTypeNode>()) {
      for (const ir::Type& f : tuple->fields) VisitType(f);
    } else if (auto* fn = type.as<relax::FuncTypeNode>()) {
      for (const ir::Type& p : fn->params) VisitType(p);
      VisitType(fn->ret);
    }
  }

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
    if (!span.defined()) return;
    size_t pos = FindWord(text_, name, span.begin, span.end);
    if (pos == std::string_view::npos) {
      seen_.insert(node);
      return;
    }
    const Scope& scope = function_scope ? scopes_.front() : scopes_.back();
    AddAt(role, name, static_cast<uint32_t>(pos), scope.begin, scope.end, node, owner);
  }

  // One symbol a node, and one a place of the text (the first claims it).
  void AddAt(SymbolRole role, const std::string& name, uint32_t def_begin, uint32_t scope_begin,
             uint32_t scope_end, const ir::Object* node, const ir::Object* owner) {
    if (!seen_.insert(node).second || !def_places_.insert(def_begin).second) return;
    IndexedSymbol s;
    s.role = role;
    s.name = name;
    s.def_begin = def_begin;
    s.def_end = def_begin + static_cast<uint32_t>(name.size());
    s.scope_begin = scope_begin;
    s.scope_end = scope_end;
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
  const ir::BaseFuncNode* func_;
  std::vector<IndexedSymbol>* out_;
  std::vector<Scope> scopes_;
  std::unordered_set<const ir::Object*> seen_;
  std::unordered_set<uint32_t> def_places_;
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
  auto index_function = [&](const ir::GlobalVar& gv, const ir::BaseFuncNode* func) {
    auto prim = ir::IsInstance<tir::PrimFuncNode>(func) ? static_cast<const tir::PrimFuncNode*>(func) : nullptr;
    auto relax_func =
        ir::IsInstance<relax::FunctionNode>(func) ? static_cast<const relax::FunctionNode*>(func) : nullptr;
    if (!prim && !relax_func) return;  // an R.ExternFunc: nothing of it is in the text but its name
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
    if (prim) {
      collector.PrimFunc(prim);
    } else {
      collector.RelaxFunction(relax_func);
    }
  };
  if (parsed.module.defined()) {
    const ir::IRModuleNode* mod = parsed.module.get();
    for (size_t i = 0; i < mod->functions.size(); ++i) index_function(mod->global_vars[i], mod->functions[i].get());
  }
  // A function with an error in its body still answers for what did parse (as clangd does):
  // its names resolve as they would once the error is fixed.
  for (const script::ParseResult::Recovered& r : parsed.recovered) index_function(r.gvar, r.func.get());

  // A name where it is defined is that definition (the scope of a Relax binding starts after
  // its value, so scopes alone would send `x = R.add(x, x)`'s first x to the earlier one).
  std::unordered_map<uint32_t, int> defined_at;
  for (size_t k = 0; k < symbols_.size(); ++k) {
    by_name_[symbols_[k].name].push_back(static_cast<int>(k));
    defined_at.emplace(symbols_[k].def_begin, static_cast<int>(k));
  }
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
    int symbol = -1;
    if (auto d = defined_at.find(t.begin); !function_only && d != defined_at.end() && symbols_[d->second].name == name) {
      symbol = d->second;
    } else {
      symbol = Resolve(name, t.begin, function_only ? Context::kMember : t.quoted ? Context::kQuoted : Context::kCode);
    }
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
