#include "workbench/source_links.h"

#include <algorithm>

#include "relax/expr.h"
#include "script/tvmscript.h"
#include "tir/stmt.h"
#include "transform/relax/legalize_ops.h"
#include "workbench/run_check.h"

namespace wb::workbench {

namespace {

std::pair<int, int> LineRange(const Span& span) {
  if (!span.defined()) return {0, 0};
  return {static_cast<int>(span.start().line), static_cast<int>(span.stop().line)};
}

// The PrimFunc a Relax call runs: call_tir's (and call_tir_inplace's) first argument.
const ir::GlobalVarNode* CalledKernel(const relax::Expr& value) {
  auto* call = value.as<relax::CallNode>();
  if (!call || call->args.empty()) return nullptr;
  auto* op = call->op.as<ir::OpNode>();
  if (!op || (op->name != "relax.call_tir" && op->name != "relax.call_tir_inplace")) return nullptr;
  return call->args[0].as<ir::GlobalVarNode>();
}

using Callers = std::map<std::string, std::vector<std::pair<int, int>>>;

void CollectCallers(const relax::Expr& expr, Callers* callers) {
  if (auto* seq = expr.as<relax::SeqExprNode>()) {
    for (const relax::BindingBlock& block : seq->blocks) {
      for (const relax::Binding& b : block->bindings) {
        auto* vb = b.as<relax::VarBindingNode>();
        if (!vb) continue;
        if (const ir::GlobalVarNode* kernel = CalledKernel(vb->value);
            kernel && vb->span.defined()) {
          (*callers)[kernel->name_hint].push_back(LineRange(vb->span));
        }
        CollectCallers(vb->value, callers);
      }
    }
    CollectCallers(seq->body, callers);
  } else if (auto* branch = expr.as<relax::IfNode>()) {
    CollectCallers(branch->true_branch, callers);
    CollectCallers(branch->false_branch, callers);
  }
}

}  // namespace

PrintedModule PrintForLinking(const ir::IRModule& module, const ir::IRModule& document,
                              const std::string& path) {
  PrintedModule out;
  out.path = path;
  ir::IRModule built = module;
  if (HasRelaxFunctions(module)) built = transform::LegalizeModule(module, &out.diagnostics);
  for (size_t i = 0; i < built->size(); ++i) {
    if (auto* f = built->functions[i].as<relax::FunctionNode>())
      CollectCallers(f->body, &out.callers);
  }
  for (auto& [name, lines] : out.callers) {
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  }
  const ir::IRModule& written = document.defined() ? document : module;
  for (size_t i = 0; i < written->size(); ++i) {
    if (written->functions[i].as<tir::PrimFuncNode>() && written->functions[i]->span.defined()) {
      out.document_ranges[written->global_vars[i]->name_hint] =
          LineRange(written->functions[i]->span);
    }
  }
  out.text = script::PrintModule(built);
  script::ParseResult parsed = script::Parse(out.text, path);
  out.diagnostics.Append(parsed.diagnostics);
  if (!parsed.module.defined() || parsed.diagnostics.HasErrors()) {
    out.diagnostics.Error("the printed module " + path + " does not parse back");
    return out;
  }
  out.module = parsed.module;
  return out;
}

SourceLinks::SourceLinks(PrintedModule printed, const std::string& llvm_ir,
                         const std::string& assembly)
    : printed_(std::move(printed)),
      ir_(codegen::MapSourceLines(llvm_ir, codegen::SourceMapFormat::kLLVMIR)),
      assembly_(codegen::MapSourceLines(assembly, codegen::SourceMapFormat::kAssembly)) {
  if (!printed_.module.defined()) return;
  for (size_t i = 0; i < printed_.module->size(); ++i) {
    if (printed_.module->functions[i].as<tir::PrimFuncNode>()) {
      printed_ranges_[printed_.module->global_vars[i]->name_hint] =
          LineRange(printed_.module->functions[i]->span);
    }
  }
}

const std::vector<codegen::SourceLine>& SourceLinks::Map(codegen::SourceMapFormat view) const {
  return view == codegen::SourceMapFormat::kLLVMIR ? ir_ : assembly_;
}

std::string SourceLinks::KernelAtDocumentLine(int line) const {
  std::string best;
  int narrowest = 0;
  for (const auto& [kernel, ranges] : printed_.callers) {
    for (const auto& [first, last] : ranges) {
      if (line < first || line > last || (!best.empty() && last - first >= narrowest)) continue;
      best = kernel;
      narrowest = last - first;
    }
  }
  if (!best.empty()) return best;
  for (const auto& [kernel, range] : printed_.document_ranges) {
    if (line >= range.first && line <= range.second) return kernel;
  }
  return {};
}

std::pair<int, int> SourceLinks::PrintedRange(const std::string& kernel) const {
  auto it = printed_ranges_.find(kernel);
  return it == printed_ranges_.end() ? std::pair<int, int>{0, 0} : it->second;
}

std::vector<int> SourceLinks::ViewLines(const std::string& kernel,
                                        codegen::SourceMapFormat view) const {
  std::vector<int> out;
  auto [first, last] = PrintedRange(kernel);
  if (first == 0) return out;
  const std::vector<codegen::SourceLine>& map = Map(view);
  for (size_t i = 0; i < map.size(); ++i) {
    if (map[i].line >= first && map[i].line <= last && map[i].file == printed_.path)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

std::optional<SourceLinks::Origin> SourceLinks::OriginOfViewLine(
    int line, codegen::SourceMapFormat view) const {
  const std::vector<codegen::SourceLine>& map = Map(view);
  if (line < 0 || line >= static_cast<int>(map.size()) || map[line].line <= 0 ||
      map[line].file != printed_.path) {
    return std::nullopt;
  }
  Origin origin;
  origin.printed_line = map[line].line;
  for (const auto& [kernel, range] : printed_ranges_) {
    if (origin.printed_line < range.first || origin.printed_line > range.second) continue;
    origin.kernel = kernel;
    if (auto it = printed_.callers.find(kernel); it != printed_.callers.end()) {
      for (const auto& [first, last] : it->second) {
        for (int l = first; l <= last; ++l) origin.bindings.push_back(l);
      }
      std::sort(origin.bindings.begin(), origin.bindings.end());
      origin.bindings.erase(std::unique(origin.bindings.begin(), origin.bindings.end()),
                            origin.bindings.end());
    }
    if (auto it = printed_.document_ranges.find(kernel); it != printed_.document_ranges.end()) {
      origin.document_range = it->second;
    }
  }
  return origin;
}

}  // namespace wb::workbench
