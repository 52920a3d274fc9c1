// The printer's entry points: PrimFunc signatures (buffer parameters, symbolic shape variables,
// decorator flags, attributes, the implicit root block) and `@I.ir_module` classes with their
// header comments.
#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>

#include "ir/global_info.h"
#include "relax/expr.h"
#include "script/printer_tir.h"
#include "script/relax_metadata.h"
#include "script/relax_printer.h"
#include "script/tvmscript.h"
#include "tir/op.h"

namespace wb::script {

namespace printer {

using namespace wb::tir;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

std::vector<const VarNode*> VarsIn(const PrimExpr& e) {
  std::vector<const VarNode*> vars;
  if (!e.defined()) return vars;
  PostOrderVisit(e, [&](const Object* node) {
    if (ir::IsInstance<VarNode>(node)) {
      auto* v = static_cast<const VarNode*>(node);
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    }
  });
  return vars;
}

// A root block that TVM prints flattened under `# with T.sblock("root"):`.
// `nested_blocks`: whether the body holds any SBlockRealize besides a root one at its top.
const SBlockNode* ImplicitRootBlock(const Stmt& body, bool nested_blocks) {
  auto* realize = body.as<SBlockRealizeNode>();
  if (!realize || !realize->iter_values.empty() || !IsConstInt(realize->predicate, 1) ||
      !realize->block.defined()) {
    return nullptr;
  }
  const SBlockNode* root = realize->block.get();
  if (!root->annotations.empty() || !root->match_buffers.empty() || !root->reads.empty() ||
      !root->writes.empty() || root->init.defined()) {
    return nullptr;
  }
  auto* inner = root->body.as<SBlockRealizeNode>();
  bool contains_block = !inner && root->body.defined() && nested_blocks;
  if (!root->alloc_buffers.empty() ||
      (inner && inner->block.defined() && !inner->block->iter_vars.empty()) || contains_block) {
    return root;
  }
  return nullptr;
}

}  // namespace

std::string TIRPrinter::SignatureDim(const PrimExpr& dim,
                                     std::unordered_set<const Object*>* later_params,
                                     std::vector<std::string>* new_vars) {
  std::vector<const VarNode*> fresh;
  bool has_typevar = false;
  for (const VarNode* v : VarsIn(dim)) {
    if (typevars_.count(v)) has_typevar = true;
    if (!IsDefined(v)) fresh.push_back(v);
  }
  // The first occurrence of a variable is quoted; the parser creates the variable there.
  for (const VarNode* v : fresh) {
    std::string name = Define(v, v->name_hint);
    if (!later_params->count(v)) new_vars->push_back(name + " = " + VarCreation(v));
  }
  std::string text = P(dim);
  bool bare_var = dim.as<VarNode>() != nullptr;
  if (!fresh.empty() || (has_typevar && !bare_var)) {
    // The parser reads the string's text as an expression: one with strings in it (a T.Cast's
    // dtype) goes in single quotes, which need no escapes inside.
    if (text.find('"') != std::string::npos && text.find('\'') == std::string::npos) return "'" + text + "'";
    return QuoteString(text);
  }
  return text;
}

std::string TIRPrinter::ParamText(const PrimFuncNode* func, size_t index,
                                  std::unordered_set<const Object*>* later_params,
                                  std::vector<std::string>* decls) {
  const Var& var = func->params[index];
  later_params->erase(var.get());
  Buffer buffer = index < func->buffer_map.size() ? func->buffer_map[index] : Buffer();
  if (!buffer.defined()) {
    if (!var.defined()) return "_: T.handle";
    std::string name =
        IsDefined(var.get()) ? name_of_[var.get()] : Define(var.get(), var->name_hint);
    return name + ": " + TypeText(var->type_annotation, var->dtype);
  }
  std::string name = DefineBuffer(buffer);
  if (var.defined() && !IsDefined(var.get())) Alias(var.get(), name);
  std::vector<std::string> new_vars, shape;
  for (const auto& d : buffer->shape) shape.push_back(SignatureDim(d, later_params, &new_vars));
  std::vector<std::string> args{shape.size() == 1 ? "(" + shape[0] + ",)" : "(" + Join(shape) + ")",
                                QuoteString(buffer->dtype.ToString())};
  signature_decls_ = &new_vars;
  for (auto& k : BufferKeywords(buffer, name, false, true)) args.push_back(std::move(k));
  signature_decls_ = nullptr;
  if (new_vars.size() == 1) {
    decls->push_back(new_vars[0]);
  } else if (new_vars.size() > 1) {
    std::vector<std::string> lhs, rhs;
    for (const auto& d : new_vars) {
      size_t eq = d.find(" = ");
      lhs.push_back(d.substr(0, eq));
      rhs.push_back(d.substr(eq + 3));
    }
    decls->push_back(Join(lhs) + " = " + Join(rhs));
  }
  return name + ": " + Call("T.Buffer", args);
}

std::vector<Line> TIRPrinter::PrintFunction(const PrimFunc& func, const std::string& name,
                                            std::vector<Line>* pre_lines) {
  const PrimFuncNode* f = func.get();
  s_tir_ = f->attrs.count("s_tir") != 0;
  // One pass over the body: variable use counts, and whether blocks sit under the root.
  int realizes = 0;
  if (f->body.defined()) {
    PostOrderVisit(f->body, [&](const Object* node) {
      if (ir::IsInstance<VarNode>(node)) ++use_count_[node];
      else if (ir::IsInstance<SBlockRealizeNode>(node)) ++realizes;
    });
  }
  bool nested_blocks = realizes > (f->body.as<SBlockRealizeNode>() ? 1 : 0);
  for (const auto& buffer : f->buffer_map) {
    if (!buffer.defined()) continue;
    auto count = [&](const PrimExpr& e) {
      if (!e.defined()) return;
      PostOrderVisit(e, [&](const Object* node) {
        if (ir::IsInstance<VarNode>(node)) ++signature_count_[node];
      });
    };
    for (const auto& d : buffer->shape) count(d);
    for (const auto& d : buffer->strides) count(d);
    count(buffer->elem_offset);
  }
  // Signature variables of type int64 that are not parameters become `TypeVar`s, sorted by name.
  std::unordered_set<const Object*> params(f->params.size());
  for (const auto& p : f->params) params.insert(p.get());
  std::vector<const VarNode*> typevars;
  for (const auto& buffer : f->buffer_map) {
    if (!buffer.defined()) continue;
    for (const auto& d : buffer->shape) {
      for (const VarNode* v : VarsIn(d)) {
        if (v->dtype == DataType::Int(64) && !params.count(v) &&
            std::find(typevars.begin(), typevars.end(), v) == typevars.end()) {
          typevars.push_back(v);
        }
      }
    }
  }
  std::stable_sort(typevars.begin(), typevars.end(),
                   [](const VarNode* a, const VarNode* b) { return a->name_hint < b->name_hint; });
  for (const VarNode* v : typevars) {
    std::string tv = Define(v, v->name_hint);
    typevars_.insert(v);
    pre_lines->push_back(PlainLine(tv + " = TypeVar(" + QuoteString(tv) + ")"));
    used_typevar_ = true;
  }
  // Parameters.
  std::vector<std::string> param_texts, decls;
  for (size_t i = 0; i < f->params.size(); ++i) {
    param_texts.push_back(ParamText(f, i, &params, &decls));
  }
  pending_uses_.clear();
  std::vector<Line> body;
  for (auto& d : decls) body.push_back(PlainLine(std::move(d)));
  // Attributes, without what the name and the decorator already say.
  ir::AttrMap attrs = f->attrs;
  if (auto it = attrs.find("global_symbol"); it != attrs.end()) {
    auto* s = it->second.as<ir::StringObj>();
    if (s && s->value == name) attrs.erase(it);
  }
  attrs.erase("s_tir");
  attrs.erase("tirx.persistent_kernel");
  if (!attrs.empty()) body.push_back(MakeLine(Call("T.func_attr", {AttrDict(attrs)})));
  // The body, with an implicit root block flattened.
  if (const SBlockNode* root = ImplicitRootBlock(f->body, nested_blocks)) {
    body.push_back(PlainLine("# with T.sblock(\"root\"):"));
    for (const auto& buffer : root->alloc_buffers) {
      if (!buffer.defined()) continue;
      std::string bname = DefineBuffer(buffer);
      body.push_back(MakeLine(
          bname + " = " + Call("T.sblock_alloc_buffer", BufferArgs(buffer, bname, false, false))));
    }
    PrintBody(root->body, &body);
  } else {
    PrintBody(f->body, &body);
  }
  PlaceDeclarations(&body, free_);
  // Decorator and def line.
  std::vector<std::string> flags;
  if (!f->attrs.count("global_symbol")) flags.push_back("private=True");
  if (f->attrs.count("s_tir")) flags.push_back("s_tir=True");
  if (f->attrs.count("tirx.persistent_kernel")) flags.push_back("persistent=True");
  std::string decorator = flags.empty() ? "@T.prim_func" : "@" + Call("T.prim_func", flags);
  std::string ret;
  if (f->ret_type.defined()) {
    auto* tuple = f->ret_type.as<ir::TupleTypeNode>();
    if (!tuple || !tuple->fields.empty()) ret = " -> " + TypeText(f->ret_type, DataType::Void());
  }
  pending_uses_.clear();
  Line def = PlainLine("def " + name + "(" + Join(param_texts) + ")" + ret + ":");
  def.compound = true;
  def.blank_after = true;
  def.body = std::move(body);
  std::vector<Line> lines;
  lines.push_back(PlainLine(decorator));
  lines.push_back(std::move(def));
  return lines;
}

namespace {

// What the printout used (header lines, Relax metadata); see relax_printer.h.
using Header = ScriptUsage;

std::string HeaderText(const Header& h) {
  std::string out;
  for (const auto& line : HeaderLines(h)) out += line + "\n";
  if (!out.empty()) out += "\n";
  return out;
}

// --- Relax hook: functions of the module print in TVM's order, PrimFunc < ExternFunc < Relax
// function, by name within each kind, `main` last.
int FunctionRank(const ir::GlobalVar& gv, const ir::BaseFunc& func) {
  if (gv.defined() && gv->name_hint == "main") return 3;
  if (func.as<relax::ExternFuncNode>()) return 1;
  if (func.as<relax::FunctionNode>()) return 2;
  return 0;
}

// Prints one non-PrimFunc member of a module (or standalone when `module` is null).
void PrintRelaxMember(const ir::IRModuleNode* module, const ir::BaseFunc& func,
                      const std::string& name, Header* header, std::vector<Line>* out) {
  RelaxPrinter printer(module, header);
  if (auto ext = func.as_ref<relax::ExternFuncNode>(); ext.defined()) {
    out->push_back(printer.PrintExternMember(ext, name));
  } else if (auto fn = func.as_ref<relax::FunctionNode>(); fn.defined()) {
    std::vector<Line> lines = printer.PrintFunction(fn, name, out);
    for (auto& l : lines) out->push_back(std::move(l));
  }
}

// Renders a standalone function (its name given) into `code`.
void RenderFunction(const PrimFunc& func, const std::string& name, Header* header,
                    std::string* code) {
  TIRPrinter printer(nullptr);
  std::vector<Line> lines;
  std::vector<Line> fn = printer.PrintFunction(func, name, &lines);
  for (auto& l : fn) lines.push_back(std::move(l));
  Render(lines, 0, code);
  header->tir = true;
  header->typevar = header->typevar || printer.used_typevar();
}

std::string StandaloneName(const PrimFunc& func) {
  std::string symbol = func->global_symbol();
  return symbol.empty() ? "main" : symbol;
}

std::string Finish(const Header& header, const PrintOptions& options, std::string code) {
  std::string out = options.header ? HeaderText(header) + code : code;
  if (!header.constants.empty()) {
    // Relax constants that have no inline form travel as metadata, as TVM's show_meta=True.
    out = "metadata = tvm.ir.load_json(\"\"\"" + script::ConstantsMetadataJSON(header.constants) +
          "\"\"\")\n\n" + out;
  }
  TrimEnd(&out);
  return out;
}

// TVM's `I.vdevice(target, vdevice_id, memory_scope)`, every argument written so that the
// canonical form does not depend on which defaults the input relied on.
std::string PrintVDevice(const ir::VDeviceNode& d) {
  return "I.vdevice(" + QuoteString(d.target) + ", " + std::to_string(d.vdevice_id) + ", " +
         QuoteString(d.memory_scope) + ")";
}

// `{"vdevice": [I.vdevice(...), ...]}`, keys sorted (global_infos is a sorted map).
std::string PrintGlobalInfos(const ir::IRModuleNode& module) {
  std::string out = "{";
  bool first_key = true;
  for (const auto& [key, value] : module.global_infos) {
    if (!first_key) out += ", ";
    first_key = false;
    out += QuoteString(key) + ": [";
    const auto* list = value.as<ir::ArrayObj>();
    if (!list) throw std::runtime_error("global_infos[\"" + key + "\"] is not a list");
    for (size_t i = 0; i < list->items.size(); ++i) {
      if (i) out += ", ";
      const auto* d = list->items[i].as<ir::VDeviceNode>();
      if (!d) {
        throw std::runtime_error(std::string("cannot print global info of kind ") +
                                 (list->items[i].defined() ? list->items[i]->type_key() : "null"));
      }
      out += PrintVDevice(*d);
    }
    out += "]";
  }
  return out + "}";
}

std::string ErrorText(const std::exception& e) {
  return std::string("# TVMScript printer failed: ") + e.what();
}

}  // namespace

}  // namespace printer

std::string PrintModule(const ir::IRModule& module, const PrintOptions& options) {
  using namespace printer;  // NOLINT(google-build-using-namespace)
  try {
    if (!module.defined()) return "";
    Header header;
    header.ir = true;
    Line cls = PlainLine("class Module:");
    cls.compound = true;
    if (!module->attrs.empty()) {
      TIRPrinter attr_printer(module.get());
      cls.body.push_back(
          PlainLine("I.module_attrs(" + attr_printer.PrintAttrDict(module->attrs) + ")"));
    }
    if (!module->global_infos.empty()) {
      cls.body.push_back(PlainLine("I.module_global_infos(" + PrintGlobalInfos(*module) + ")"));
    }
    // PrimFuncs sorted by name; `main` goes last.
    std::vector<size_t> order;
    for (size_t i = 0; i < module->functions.size() && i < module->global_vars.size(); ++i) {
      order.push_back(i);
    }
    auto key = [&](size_t i) {
      const std::string& n =
          module->global_vars[i].defined() ? module->global_vars[i]->name_hint : "";
      return std::make_pair(FunctionRank(module->global_vars[i], module->functions[i]), n);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key(a) < key(b); });
    for (size_t i : order) {
      auto func = module->functions[i].as_ref<PrimFuncNode>();
      if (!func.defined()) {
        // Relax hook: "used so far" for nested functions' header copies.
        header.ir = !module->attrs.empty();
        PrintRelaxMember(module.get(), module->functions[i], module->global_vars[i]->name_hint,
                         &header, &cls.body);
        continue;
      }
      TIRPrinter printer(module.get());
      std::vector<Line> lines =
          printer.PrintFunction(func, module->global_vars[i]->name_hint, &cls.body);
      for (auto& l : lines) cls.body.push_back(std::move(l));
      header.tir = true;
      header.typevar = header.typevar || printer.used_typevar();
    }
    header.ir = true;
    std::string code;
    std::vector<Line> top;
    top.push_back(PlainLine("@I.ir_module"));
    top.push_back(std::move(cls));
    Render(top, 0, &code);
    return Finish(header, options, std::move(code));
  } catch (const std::exception& e) {
    return ErrorText(e);
  }
}

std::string PrintPrimFunc(const tir::PrimFunc& func, const PrintOptions& options) {
  using namespace printer;  // NOLINT(google-build-using-namespace)
  try {
    if (!func.defined()) return "";
    Header header;
    std::string code;
    RenderFunction(func, StandaloneName(func), &header, &code);
    return Finish(header, options, std::move(code));
  } catch (const std::exception& e) {
    return ErrorText(e);
  }
}

std::string Print(const ParseResult& parsed, const PrintOptions& options) {
  using namespace printer;  // NOLINT(google-build-using-namespace)
  if (!parsed.module.defined()) return "";
  if (parsed.is_module) return PrintModule(parsed.module, options);
  try {
    Header header;
    std::string code;
    const ir::IRModuleNode* m = parsed.module.get();
    for (size_t i = 0; i < m->functions.size() && i < m->global_vars.size(); ++i) {
      auto func = m->functions[i].as_ref<PrimFuncNode>();
      if (!func.defined()) {
        std::vector<Line> lines;
        PrintRelaxMember(nullptr, m->functions[i], m->global_vars[i]->name_hint, &header, &lines);
        Render(lines, 0, &code);
        continue;
      }
      RenderFunction(func, m->global_vars[i]->name_hint, &header, &code);
    }
    return Finish(header, options, std::move(code));
  } catch (const std::exception& e) {
    return ErrorText(e);
  }
}

}  // namespace wb::script
