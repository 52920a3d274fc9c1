#include "transform/relax/bind_params.h"

#include <filesystem>
#include <map>

#include "arith/analyzer.h"
#include "relax/type_analysis.h"
#include "runtime/ndarray.h"
#include "transform/registry.h"
#include "transform/relax/fuse_expr_rewrite.h"

namespace wb::transform {

namespace {

using namespace relax;

[[noreturn]] void Fail(const std::string& message, const Span& span = {}) {
  throw ir::PassError(Diagnostic::Error("BindParams: " + message, span));
}

std::string ParamNames(const Function& f) {
  std::string all;
  for (const Var& p : f->params) all += (all.empty() ? "" : ", ") + p->name_hint;
  return all.empty() ? "none" : all;
}

// The function TVM's BindParams binds: a public function by its global_symbol, a private one by
// its name in the module.
size_t FindFunction(const ir::IRModule& module, const std::string& func_name) {
  std::string relax_functions;
  for (size_t i = 0; i < module->size(); ++i) {
    auto* f = module->functions[i].as<FunctionNode>();
    if (!f) continue;
    const std::string& name = module->global_vars[i]->name_hint;
    std::string symbol = f->global_symbol();
    if ((symbol.empty() ? name : symbol) == func_name) return i;
    relax_functions += (relax_functions.empty() ? "" : ", ") + name;
  }
  Fail("the module has no Relax function '" + func_name + "' (its Relax functions: " +
       (relax_functions.empty() ? "none" : relax_functions) + ")");
}

// The parameter a key names.
const VarNode* ResolveKey(const Function& f, const std::string& func_name, const ParamKey& key) {
  if (key.var.defined()) {
    for (const Var& p : f->params) {
      if (p.same_as(key.var)) return p.get();
    }
    Fail("the Relax var '" + key.var->name_hint + "' is not a parameter of '" + func_name +
         "' (its parameters: " + ParamNames(f) + ")");
  }
  const VarNode* found = nullptr;
  for (const Var& p : f->params) {
    if (p->name_hint != key.name) continue;
    if (found) Fail("'" + func_name + "' has several parameters named '" + key.name + "'", f->span);
    found = p.get();
  }
  if (!found) {
    Fail("'" + func_name + "' has no parameter named '" + key.name + "' (its parameters: " +
         ParamNames(f) + ")", f->span);
  }
  return found;
}

Function Bind(const Function& f, const std::string& func_name, const ParamBindings& params) {
  fuse::ExprRewriter rewriter;
  std::map<const VarNode*, Constant> bound;
  for (const auto& [key, value] : params) {
    const VarNode* p = ResolveKey(f, func_name, key);
    if (!bound.emplace(p, value).second) {
      Fail("parameter '" + p->name_hint + "' of '" + func_name + "' is bound twice", p->span);
    }
  }
  // In the order of the parameters, so that messages do not depend on addresses.
  std::vector<std::pair<const VarNode*, Constant>> in_order;
  for (const Var& p : f->params) {
    if (auto it = bound.find(p.get()); it != bound.end()) in_order.push_back(*it);
  }
  // Symbolic vars from the constants' shapes, then the check that each constant fits its
  // parameter's type with them.
  for (const auto& [p, c] : in_order) {
    DimMap inferred;
    MatchDims(p->struct_info, GetType(c), &inferred);
    for (const auto& [var, extent] : inferred) {
      auto [it, fresh] = rewriter.dim_map.emplace(var, extent);
      auto* had = it->second.as<tir::IntImmNode>();
      auto* now = extent.as<tir::IntImmNode>();
      if (!fresh && had && now && had->value != now->value) {
        Fail("the constants give the symbolic var '" +
             static_cast<const tir::VarNode*>(var)->name_hint + "' two extents, " +
             std::to_string(had->value) + " and " + std::to_string(now->value) + " (parameter '" +
             p->name_hint + "')", p->span);
      }
    }
  }
  arith::Analyzer analyzer;
  rewriter.simplify = [&](const ir::PrimExpr& e) { return analyzer.Simplify(e); };
  for (const auto& [p, c] : in_order) {
    Type want = rewriter.RewriteType(p->struct_info);
    if (!IsBaseOf(want, GetType(c))) {
      Fail("the constant for parameter '" + p->name_hint + "' is " + TypeToString(GetType(c)) +
           ", which does not fit its type " + TypeToString(want), p->span);
    }
    rewriter.var_map[p] = c;
  }
  std::vector<Var> kept;
  for (const Var& p : f->params) {
    if (bound.count(p.get())) continue;
    Type type = rewriter.RewriteType(p->struct_info);
    if (type.same_as(p->struct_info)) {
      kept.push_back(p);
      continue;
    }
    Var renewed = MakeVar(p->name_hint, type, p->span);
    rewriter.var_map[p.get()] = renewed;
    kept.push_back(renewed);
  }
  Expr body = rewriter.Rewrite(f->body);
  return MakeFunction(std::move(kept), body, rewriter.RewriteType(f->ret_struct_info), f->is_pure,
                      f->attrs, f->span);
}

Constant LoadConstant(const std::filesystem::path& path) {
  std::string error;
  runtime::NDArray array = runtime::LoadNpy(path.string(), &error);
  if (!array.defined()) Fail("cannot read '" + path.string() + "': " + error);
  std::string bytes(array.CompactBytes(), '\0');
  if (!array.CopyToBytes(bytes.data(), bytes.size(), &error)) {
    Fail("cannot read '" + path.string() + "': " + error);
  }
  std::string dtype = runtime::DTypeToString(array.dtype());
  std::optional<ir::DataType> type = ir::DataType::Parse(dtype);
  if (!type) Fail("cannot read '" + path.string() + "': dtype " + dtype + " has no Relax constant");
  return MakeConstant(*type, array.shape(), std::move(bytes));
}

}  // namespace

ir::Pass BindParams(std::string func_name, ParamBindings params) {
  return ir::CreateModulePass(
      [func_name, params](ir::IRModule module, const ir::PassContext&) {
        size_t index = FindFunction(module, func_name);
        auto f = module->functions[index].as_ref<FunctionNode>();
        if (params.empty()) return module;
        return ir::WithFunction(module, module->global_vars[index], Bind(f, func_name, params));
      },
      0, "BindParams");
}

ir::Pass BindParamsFromDir(std::string func_name, std::string params_dir,
                           std::vector<std::string> names) {
  return ir::CreateModulePass(
      [func_name, params_dir, names](ir::IRModule module, const ir::PassContext& context) {
        namespace fs = std::filesystem;
        size_t index = FindFunction(module, func_name);
        auto f = module->functions[index].as_ref<FunctionNode>();
        if (params_dir.empty()) {
          if (names.empty()) return module;
          Fail("names are given but no params_dir to read them from");
        }
        if (!fs::is_directory(params_dir)) Fail("params_dir '" + params_dir + "' is not a directory");
        ParamBindings bindings;
        if (names.empty()) {
          for (const Var& p : f->params) {
            fs::path file = fs::path(params_dir) / (p->name_hint + ".npy");
            if (fs::exists(file)) bindings.push_back({ParamKey{p->name_hint, {}}, LoadConstant(file)});
          }
        } else {
          for (const std::string& name : names) {
            fs::path file = fs::path(params_dir) / (name + ".npy");
            ResolveKey(f, func_name, ParamKey{name, {}});
            if (!fs::exists(file)) Fail("no file '" + file.string() + "' for parameter '" + name + "'");
            bindings.push_back({ParamKey{name, {}}, LoadConstant(file)});
          }
        }
        return BindParams(func_name, std::move(bindings)).RunWithoutInstruments(module, context);
      },
      0, "BindParams");
}

std::optional<std::vector<size_t>> KeptParams(const Function& written, const Function& bound) {
  if (bound->params.size() >= written->params.size()) return std::nullopt;
  std::vector<size_t> kept;
  for (size_t i = 0; i < written->params.size() && kept.size() < bound->params.size(); ++i) {
    if (written->params[i]->name_hint == bound->params[kept.size()]->name_hint) kept.push_back(i);
  }
  if (kept.size() != bound->params.size()) return std::nullopt;
  return kept;
}

static PassRegistrar registrar(
    {"BindParams",
     "replaces parameters of a Relax function by constants read from <params_dir>/<name>.npy (Relax)",
     {{"func_name", ParamType::kString, ir::MakeString("main"),
       "the Relax function (its global symbol, or its name when private)"},
      {"params_dir", ParamType::kString, ir::MakeString(""),
       "the directory holding one <parameter>.npy a parameter"},
      {"names", ParamType::kStringList, ir::MakeArray({}),
       "the parameters to bind (each needs its file); empty: every parameter with a file"}},
     [](const PassArgs& args) {
       return BindParamsFromDir(args.String("func_name"), args.String("params_dir"),
                                args.StringList("names"));
     }});

}  // namespace wb::transform
