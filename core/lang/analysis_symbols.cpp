// The outline of a document: module > functions > blocks (nested as in the source) > buffers;
// a Relax function's parameters under it.
#include "lang/analysis.h"
#include "lang/analysis_describe.h"
#include "lang/analysis_index.h"
#include "relax/expr.h"
#include "tir/functor.h"

namespace wb::lang {

namespace {

DocumentSymbol BufferSymbol(const Document& doc, const tir::Buffer& buffer, uint32_t def_begin) {
  DocumentSymbol s;
  s.name = buffer->name;
  s.detail = BufferText(buffer);
  s.kind = SymbolKind::kBuffer;
  s.selection_range = doc.RangeOf(def_begin, def_begin + static_cast<uint32_t>(buffer->name.size()));
  s.range = s.selection_range;
  return s;
}

// Builds the block tree of one function from the index: each block's children are the blocks
// and buffers whose definitions lie inside its span.
class OutlineBuilder : public tir::StmtVisitor {
 public:
  OutlineBuilder(const Document& doc, const SymbolIndex& index, DocumentSymbol* root)
      : doc_(doc), index_(index) {
    stack_.push_back(root);
  }

  void AddBuffer(const tir::Buffer& buffer) {
    for (const IndexedSymbol& s : index_.symbols()) {
      if (s.node == buffer.get()) {
        stack_.back()->children.push_back(BufferSymbol(doc_, buffer, s.def_begin));
        return;
      }
    }
  }

  void VisitStmt_(const tir::SBlockRealizeNode* op) override {
    const IndexedSymbol* sym = nullptr;
    for (const IndexedSymbol& s : index_.symbols()) {
      if (s.node == op->block.get()) sym = &s;
    }
    if (!sym || !op->span.defined()) {  // the implicit root block: its buffers go to the function
      for (const auto& b : op->block->alloc_buffers) AddBuffer(b);
      tir::StmtVisitor::VisitStmt_(op);
      return;
    }
    DocumentSymbol block;
    block.name = op->block->name_hint;
    block.kind = SymbolKind::kBlock;
    block.range = doc_.RangeOf(op->span);
    block.selection_range = doc_.RangeOf(sym->def_begin, sym->def_end);
    for (size_t i = 0; i < op->block->iter_vars.size(); ++i) {
      block.detail += (i ? ", " : "") + op->block->iter_vars[i]->var->name_hint;
    }
    stack_.back()->children.push_back(std::move(block));
    stack_.push_back(&stack_.back()->children.back());
    for (const auto& b : op->block->alloc_buffers) AddBuffer(b);
    for (const auto& m : op->block->match_buffers) AddBuffer(m->buffer);
    tir::StmtVisitor::VisitStmt_(op);
    stack_.pop_back();
  }
  void VisitStmt_(const tir::AllocBufferNode* op) override { AddBuffer(op->buffer); }
  void VisitStmt_(const tir::DeclBufferNode* op) override { AddBuffer(op->buffer); }

 private:
  const Document& doc_;
  const SymbolIndex& index_;
  // Pointers into children vectors: a vector is only appended to while it is the top.
  std::vector<DocumentSymbol*> stack_;
};

// A Relax function's parameters, as a PrimFunc's buffers are listed under it.
void AddRelaxParams(const Document& doc, const SymbolIndex& index, const relax::FunctionNode* func,
                    DocumentSymbol* out) {
  for (const relax::Var& param : func->params) {
    for (const IndexedSymbol& s : index.symbols()) {
      if (s.node != param.get()) continue;
      DocumentSymbol p;
      p.name = s.name;
      p.detail = relax::TypeToString(param->struct_info);
      p.kind = SymbolKind::kVariable;
      p.selection_range = doc.RangeOf(s.def_begin, s.def_end);
      p.range = p.selection_range;
      out->children.push_back(std::move(p));
      break;
    }
  }
}

}  // namespace

std::vector<DocumentSymbol> ComputeDocumentSymbols(const Document& doc) {
  const script::ParseResult& parsed = doc.Parsed();
  if (!parsed.module.defined() && parsed.recovered.empty()) return {};
  const SymbolIndex& index = SymbolIndex::Of(doc);
  std::vector<DocumentSymbol> functions;
  for (const IndexedSymbol& s : index.symbols()) {
    if (s.role != SymbolRole::kFunction) continue;
    DocumentSymbol f;
    f.name = s.name;
    f.kind = SymbolKind::kFunction;
    f.detail = SignatureText(s.name, s.func);
    f.selection_range = doc.RangeOf(s.def_begin, s.def_end);
    f.range = s.func->span.defined() ? doc.RangeOf(s.func->span) : f.selection_range;
    if (ir::IsInstance<relax::FunctionNode>(s.func)) {
      AddRelaxParams(doc, index, static_cast<const relax::FunctionNode*>(s.func), &f);
    } else {
      auto prim = static_cast<const tir::PrimFuncNode*>(s.func);
      for (size_t i = 0; i < prim->params.size(); ++i) {
        if (!prim->buffer_map[i].defined()) continue;
        OutlineBuilder(doc, index, &f).AddBuffer(prim->buffer_map[i]);
      }
      OutlineBuilder builder(doc, index, &f);
      builder.VisitStmt(prim->body);
    }
    functions.push_back(std::move(f));
  }
  std::sort(functions.begin(), functions.end(), [](const DocumentSymbol& a, const DocumentSymbol& b) {
    return a.range.start.line < b.range.start.line;
  });
  if (!parsed.is_module) return functions;

  // The module: the `class` line, to the end of the text.
  DocumentSymbol module;
  module.kind = SymbolKind::kModule;
  module.name = "Module";
  for (const Token& t : Tokenize(doc.text())) {
    if (t.quoted || doc.text().compare(t.begin, t.end - t.begin, "class") != 0) continue;
    auto next = Tokenize(std::string_view(doc.text()).substr(t.end));
    if (next.empty()) break;
    uint32_t b = t.end + next[0].begin, e = t.end + next[0].end;
    module.name = doc.text().substr(b, e - b);
    module.selection_range = doc.RangeOf(b, e);
    module.range = doc.RangeOf(t.begin, static_cast<uint32_t>(doc.text().size()));
    break;
  }
  module.detail = "IRModule";
  module.children = std::move(functions);
  return {std::move(module)};
}

}  // namespace wb::lang
