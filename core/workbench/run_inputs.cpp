#include "workbench/run_inputs.h"

#include <filesystem>
#include <functional>
#include <set>

#include "relax/type.h"
#include "tir/expr.h"
#include "tir/functor.h"

namespace wb::workbench {

namespace fs = std::filesystem;

// A Relax function's symbolic dims default to a small size: its kernels are checked by the
// interpreter, and a few elements per dim already exercise every index expression.
constexpr int64_t kRelaxSymbolicExtent = 4;

runtime::NDArray FindInputFile(const std::string& dir, const std::string& func, const std::string& param,
                               std::string* error) {
  if (dir.empty() || dir == "random") return {};
  for (const fs::path& path : {fs::path(dir) / func / (param + ".npy"), fs::path(dir) / (param + ".npy")}) {
    if (!fs::exists(path)) continue;
    std::string why;
    runtime::NDArray a = runtime::LoadNpy(path.string(), &why);
    if (!a.defined()) *error = "cannot read input '" + path.string() + "': " + why;
    return a;
  }
  return {};
}

std::vector<tir::InterpArg> PrimFuncInputs::InterpArgs(const tir::PrimFunc& func) const {
  std::vector<tir::InterpArg> args;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].defined()) {
      args.emplace_back(arrays[i]);
    } else if (func->params[i]->dtype.is_floating_point()) {
      args.emplace_back(*scalars[i]);
    } else {
      args.emplace_back(static_cast<int64_t>(*scalars[i]));
    }
  }
  return args;
}

PrimFuncInputs PrimFuncInputs::Copy() const {
  PrimFuncInputs out = *this;
  for (auto& a : out.arrays) {
    if (a.defined()) a = a.Copy();
  }
  return out;
}

bool MakePrimFuncInputs(const tir::PrimFunc& f, const std::string& name, const InputSpec& spec,
                        PrimFuncInputs* in, std::string* error) {
  size_t n = f->params.size();
  in->arrays.assign(n, {});
  in->scalars.assign(n, std::nullopt);
  in->names.assign(n, {});
  // Files first, so that their shapes bind the shape variables.
  for (size_t i = 0; i < n; ++i) {
    const tir::Var& p = f->params[i];
    tir::Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : tir::Buffer();
    in->names[i] = b.defined() ? b->name : p->name_hint;
    if (!b.defined() && p->dtype.is_handle()) {
      *error = "parameter '" + p->name_hint + "' is a raw handle";
      return false;
    }
    if (b.defined() && !b->strides.empty()) {
      *error = "buffer '" + b->name + "' has explicit strides";
      return false;
    }
    // By parameter name, or by buffer name (`a: T.handle` matched to buffer A).
    runtime::NDArray a = FindInputFile(spec.dir, name, p->name_hint, error);
    if (!a.defined() && error->empty() && b.defined() && b->name != p->name_hint) {
      a = FindInputFile(spec.dir, name, b->name, error);
    }
    if (!error->empty()) return false;
    if (!a.defined()) continue;
    if (!b.defined()) {
      if (a.NumElements() != 1) {
        *error = "scalar parameter '" + p->name_hint + "' needs a 0-d or 1-element array";
        return false;
      }
      in->scalars[i] = a.dtype().is_float() ? a.GetDouble(0) : static_cast<double>(a.GetInt(0));
      if (!p->dtype.is_floating_point()) in->bindings[p.get()] = a.GetInt(0);
      continue;
    }
    if (a.ndim() != static_cast<int>(b->shape.size())) {
      *error = "input " + p->name_hint + " has " + std::to_string(a.ndim()) + " dimensions, buffer " +
               b->name + " has " + std::to_string(b->shape.size());
      return false;
    }
    if (a.dtype() != tir::ToRuntimeDType(b->dtype)) {
      *error = "input " + p->name_hint + " is " + runtime::DTypeToString(a.dtype()) + ", buffer " + b->name +
               " holds " + runtime::DTypeToString(tir::ToRuntimeDType(b->dtype));
      return false;
    }
    for (size_t k = 0; k < b->shape.size(); ++k) {
      if (auto* v = b->shape[k].as<tir::VarNode>()) in->bindings.emplace(v, a.shape()[k]);
    }
    in->arrays[i] = a.Copy();
  }
  for (size_t i = 0; i < n; ++i) {
    const tir::Var& p = f->params[i];
    tir::Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : tir::Buffer();
    if (b.defined() || in->scalars[i]) continue;
    if (!spec.symbolic_extent) {
      *error = "scalar parameter '" + p->name_hint + "' needs a value: give --inputs DIR with " +
               p->name_hint + ".npy";
      return false;
    }
    // A scalar is most often a size: the symbolic extent is a value it can take.
    in->scalars[i] = static_cast<double>(*spec.symbolic_extent);
    if (!p->dtype.is_floating_point()) in->bindings.emplace(p.get(), *spec.symbolic_extent);
  }
  for (size_t i = 0; i < n; ++i) {
    tir::Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : tir::Buffer();
    if (!b.defined() || in->arrays[i].defined()) continue;
    std::vector<int64_t> shape;
    for (const auto& d : b->shape) {
      if (auto* v = d.as<tir::VarNode>(); v && spec.symbolic_extent) in->bindings.emplace(v, *spec.symbolic_extent);
      auto extent = codegen::EvalIndex(d, in->bindings);
      if (!extent) {
        *error = "the shape of " + b->name + " is symbolic: give --inputs DIR with an array that binds it";
        return false;
      }
      shape.push_back(*extent);
    }
    runtime::NDArray a = runtime::NDArray::Empty(shape, tir::ToRuntimeDType(b->dtype));
    runtime::FillRandom(a, runtime::InputSeed(spec.seed, i));
    in->arrays[i] = a;
  }
  return true;
}

namespace {

// The symbolic vars of the parameters' types, in order of first use.
std::vector<std::string> SymbolicVars(const relax::Function& func) {
  std::vector<std::string> names;
  std::set<const tir::VarNode*> seen;
  auto add_dims = [&](const std::vector<ir::PrimExpr>& dims) {
    for (const auto& d : dims) {
      tir::PostOrderVisit(d, [&](const ir::Object* n) {
        auto* v = dynamic_cast<const tir::VarNode*>(n);
        if (v && seen.insert(v).second) names.push_back(v->name_hint);
      });
    }
  };
  std::function<void(const relax::Type&)> visit = [&](const relax::Type& t) {
    if (!t.defined()) return;
    if (auto* tt = t.as<relax::TensorTypeNode>(); tt && tt->shape) add_dims(*tt->shape);
    if (auto* st = t.as<relax::ShapeTypeNode>(); st && st->values) add_dims(*st->values);
    if (auto* tup = t.as<ir::TupleTypeNode>()) {
      for (const auto& f : tup->fields) visit(f);
    }
  };
  for (const auto& p : func->params) visit(relax::GetType(p));
  return names;
}

}  // namespace

bool MakeRelaxInputs(const relax::Function& func, const std::string& name, const InputSpec& spec,
                     RelaxInputs* out, std::string* error) {
  std::vector<runtime::NDArray> files(func->params.size());
  int64_t extent = spec.symbolic_extent.value_or(kRelaxSymbolicExtent);
  bool fixed = false;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const relax::Var& p = func->params[i];
    files[i] = FindInputFile(spec.dir, name, p->name_hint, error);
    if (!error->empty()) return false;
    if (!files[i].defined() || fixed) continue;
    auto* tt = relax::GetType(p).as<relax::TensorTypeNode>();
    if (!tt || !tt->shape) continue;
    for (size_t d = 0; d < tt->shape->size() && d < files[i].shape().size(); ++d) {
      if ((*tt->shape)[d].as<tir::VarNode>()) {
        extent = files[i].shape()[d];
        fixed = true;
        break;
      }
    }
  }
  std::string why;
  auto random = relax::RandomArguments(func, spec.seed, extent, &why);
  if (!random) {
    *error = "cannot make inputs: " + why;
    return false;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].defined()) (*random)[i] = relax::Value::Tensor(files[i]);
  }
  for (const auto& v : SymbolicVars(func)) out->symbolic[v] = extent;
  out->args = std::move(*random);
  return true;
}

}  // namespace wb::workbench
