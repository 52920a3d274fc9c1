// Hover: what the name under the cursor is, in the terms a TensorIR user thinks in.
#include "lang/analysis.h"
#include "lang/analysis_describe.h"
#include "lang/analysis_index.h"
#include "lang/analysis_namespace.h"
#include "lang/analysis_stale.h"
#include "relax/expr.h"
#include "tir/builtin.h"

namespace wb::lang {

namespace {

std::string Code(const std::string& text) { return "```python\n" + text + "\n```"; }

std::string IterTypeText(tir::IterVarType t) {
  switch (t) {
    case tir::IterVarType::kDataPar: return "spatial";
    case tir::IterVarType::kCommReduce: return "reduce";
    case tir::IterVarType::kOrdered: return "scan";
    case tir::IterVarType::kOpaque: return "opaque";
    default: return tir::IterVarTypeName(t);
  }
}

std::string DescribeBlock(const tir::SBlockNode* block) {
  std::string out = Code("with T.sblock(\"" + block->name_hint + "\"):") + "\n\n";
  if (!block->iter_vars.empty()) {
    out += "**iter vars**\n";
    for (const auto& iv : block->iter_vars) {
      out += "- `" + iv->var->name_hint + "`: " + IterTypeText(iv->iter_type) + " in [" + ExprText(iv->dom->min) +
             ", " + ExprText(iv->dom->min) + " + " + ExprText(iv->dom->extent) + ")\n";
    }
  }
  auto regions = [&](const char* title, const std::vector<tir::BufferRegion>& rs) {
    if (rs.empty()) return;
    out += std::string("\n**") + title + "** ";
    for (size_t i = 0; i < rs.size(); ++i) out += (i ? ", `" : "`") + RegionText(rs[i]) + "`";
    out += "\n";
  };
  regions("reads", block->reads);
  regions("writes", block->writes);
  if (block->init.defined()) out += "\nhas an init statement (a reduction block)\n";
  return out;
}

// A Relax parameter or binding: its type (struct info) and what kind of name it is.
std::string DescribeRelaxVar(const IndexedSymbol& s, const relax::VarNode* var) {
  const bool dataflow = ir::IsInstance<relax::DataflowVarNode>(var);
  std::string what = s.role == SymbolRole::kParam ? "parameter"
                     : dataflow ? "dataflow variable: visible only inside its `R.dataflow()` block"
                                : "variable";
  if (!var->struct_info.defined()) {
    return Code(s.name) + "\n\n" + what + "; its type is unknown (the statement that binds it has an error)";
  }
  return Code(s.name + ": " + relax::TypeToString(var->struct_info)) + "\n\n" + what;
}

std::string DescribeSymbol(const IndexedSymbol& s) {
  if ((s.role == SymbolRole::kParam || s.role == SymbolRole::kLocalVar) &&
      ir::IsInstance<relax::VarNode>(s.node)) {
    return DescribeRelaxVar(s, static_cast<const relax::VarNode*>(s.node));
  }
  switch (s.role) {
    case SymbolRole::kFunction:
      return Code(DecoratorText(s.func) + "\n" + SignatureText(s.name, s.func)) + "\n\n" + FunctionKindText(s.func);
    case SymbolRole::kBuffer: {
      auto buffer = static_cast<const tir::BufferNode*>(s.node);
      std::string out = Code(buffer->name + ": " + BufferText(tir::Buffer(buffer)));
      out += "\n\nbuffer: shape (";
      for (size_t i = 0; i < buffer->shape.size(); ++i) out += (i ? ", " : "") + ExprText(buffer->shape[i]);
      out += "), dtype `" + buffer->dtype.ToString() + "`, scope `" + buffer->scope() + "`";
      return out;
    }
    case SymbolRole::kLoopVar: {
      auto loop = static_cast<const tir::ForNode*>(s.owner);
      std::string out = Code(s.name + ": T." + loop->loop_var->dtype.ToString());
      out += "\n\nloop variable: " + std::string(tir::ForKindName(loop->kind)) + " loop, extent " +
             ExprText(loop->extent);
      auto min = loop->min.as<tir::IntImmNode>();
      if (!min || min->value != 0) out += ", from " + ExprText(loop->min);
      if (loop->thread_binding.defined()) out += ", bound to `" + loop->thread_binding->thread_tag + "`";
      return out;
    }
    case SymbolRole::kIterVar: {
      auto iv = static_cast<const tir::IterVarNode*>(s.owner);
      return Code(s.name + ": T." + iv->var->dtype.ToString()) + "\n\nblock iteration variable: " +
             IterTypeText(iv->iter_type) + " in [" + ExprText(iv->dom->min) + ", " + ExprText(iv->dom->min) + " + " +
             ExprText(iv->dom->extent) + ")";
    }
    case SymbolRole::kBlock:
      return DescribeBlock(static_cast<const tir::SBlockNode*>(s.node));
    case SymbolRole::kParam:
    case SymbolRole::kShapeVar:
    case SymbolRole::kLocalVar: {
      auto var = static_cast<const tir::VarNode*>(s.node);
      const char* what = s.role == SymbolRole::kParam      ? "parameter"
                         : s.role == SymbolRole::kShapeVar ? "symbolic shape variable"
                                                           : "variable";
      return Code(s.name + ": T." + var->dtype.ToString()) + "\n\n" + what;
    }
  }
  return s.name;
}

// `T.exp` (or `T.axis.remap`) around `offset`: the member name's range, or nothing.
std::optional<std::pair<uint32_t, uint32_t>> MemberAt(const std::string& text, uint32_t offset,
                                                      std::string_view owner) {
  for (const Token& t : Tokenize(text)) {
    if (t.begin > offset) break;
    if (t.quoted || !t.after_dot || offset > t.end) continue;
    size_t dot = text.rfind('.', t.begin);
    if (dot == std::string::npos || dot < owner.size()) continue;
    if (text.compare(dot - owner.size(), owner.size(), owner) != 0) continue;
    if (dot > owner.size() && (std::isalnum(static_cast<unsigned char>(text[dot - owner.size() - 1])) ||
                               text[dot - owner.size() - 1] == '_' || text[dot - owner.size() - 1] == '.')) {
      continue;
    }
    return std::make_pair(t.begin, t.end);
  }
  return std::nullopt;
}

std::optional<HoverInfo> HoverOn(const Document& doc, TextPosition position) {
  uint32_t offset = doc.OffsetOf(position);
  const SymbolIndex& index = SymbolIndex::Of(doc);
  if (const Occurrence* o = index.At(offset)) {
    return HoverInfo{DescribeSymbol(index.symbols()[o->symbol]), doc.RangeOf(o->begin, o->end)};
  }
  const std::string& text = doc.text();
  if (auto m = MemberAt(text, offset, "T.axis")) {
    std::string name = text.substr(m->first, m->second - m->first);
    for (const NamespaceMember& member : AxisMembers()) {
      if (member.name == name) return HoverInfo{Code(member.signature) + "\n\n" + member.doc, doc.RangeOf(m->first, m->second)};
    }
  }
  if (auto m = MemberAt(text, offset, "T")) {
    if (const NamespaceMember* member = FindTMember(text.substr(m->first, m->second - m->first))) {
      return HoverInfo{Code(member->signature) + "\n\n" + member->doc, doc.RangeOf(m->first, m->second)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<HoverInfo> ComputeHover(const Document& doc, TextPosition position) {
  if (auto hover = HoverOn(doc, position)) return hover;
  auto stale = StaleView::For(doc);
  if (!stale) return std::nullopt;
  auto old_position = stale->ToOld(position);
  if (!old_position) return std::nullopt;
  auto hover = HoverOn(stale->old_doc(), *old_position);
  if (!hover) return std::nullopt;
  auto range = stale->ToNew(hover->range);
  if (!range) return std::nullopt;
  hover->range = *range;
  return hover;
}

}  // namespace wb::lang
