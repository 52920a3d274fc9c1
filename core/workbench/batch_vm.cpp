#include "workbench/batch_vm.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "codegen/flop_count.h"
#include "codegen/vm_codegen.h"
#include "relax/expr.h"
#include "relax/interpreter.h"
#include "relax/type.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/vm.h"
#include "support/child_process.h"
#include "tir/expr.h"
#include "tir/functor.h"
#include "tir/stmt.h"
#include "transform/relax/legalize_ops.h"

namespace wb::workbench {

namespace {

namespace vm = runtime::vm;

vm::Value ToVM(const relax::Value& v) {
  switch (v.kind) {
    case relax::Value::Kind::kTensor: return vm::Value::Tensor(v.tensor.Copy());
    case relax::Value::Kind::kShape: return vm::Value::Shape(v.shape);
    case relax::Value::Kind::kPrim:
      return v.dtype.is_float() ? vm::Value::Float(v.float_value) : vm::Value::Int(v.int_value);
    case relax::Value::Kind::kString: return vm::Value::String(v.string_value);
    case relax::Value::Kind::kTuple: {
      std::vector<vm::Value> fields;
      for (const auto& f : v.fields) fields.push_back(ToVM(f));
      return vm::Value::Tuple(std::move(fields));
    }
    default: throw vm::VMError("the VM takes no argument of kind " + v.Describe());
  }
}

// The VM's result in the interpreter's terms, so that relax::CompareValues checks it. `like` is
// the interpreter's value of the same position (it gives scalars their dtype).
relax::Value FromVM(const vm::Value& v, const relax::Value& like) {
  switch (v.kind) {
    case vm::Value::Kind::kTensor: return relax::Value::Tensor(v.tensor);
    case vm::Value::Kind::kShape: return relax::Value::ShapeOf(v.shape);
    case vm::Value::Kind::kInt: return relax::Value::Int(like.dtype, v.int_value);
    case vm::Value::Kind::kFloat: return relax::Value::Float(like.dtype, v.float_value);
    case vm::Value::Kind::kString: return relax::Value::String(v.string_value);
    case vm::Value::Kind::kTuple: {
      std::vector<relax::Value> fields;
      for (size_t i = 0; i < v.fields.size(); ++i) {
        fields.push_back(FromVM(v.fields[i], i < like.fields.size() ? like.fields[i] : relax::Value()));
      }
      return relax::Value::TupleOf(std::move(fields));
    }
    default: return relax::Value::TupleOf({});  // CompareValues reports the kind mismatch
  }
}

// Wraps the kernels so that every call adds the FLOPs of its PrimFunc, with the symbolic dims of
// its buffers bound from the tensors it really gets: the FLOPs of one VM call, symbolic or not.
class FlopCountingModule : public runtime::ModuleNode {
 public:
  FlopCountingModule(runtime::Module inner, std::map<std::string, tir::PrimFunc> funcs)
      : inner_(std::move(inner)), funcs_(std::move(funcs)) {}

  std::string type_key() const override { return "flop-count"; }
  std::vector<std::string> FunctionNames() const override { return inner_->FunctionNames(); }
  runtime::PackedFunc GetFunction(const std::string& name) override {
    runtime::PackedFunc real = inner_.get_function(name);
    if (!real.defined()) return {};
    auto it = funcs_.find(name);
    tir::PrimFunc func = it == funcs_.end() ? tir::PrimFunc() : it->second;
    return runtime::PackedFunc([this, real, func](const std::vector<runtime::PackedArg>& args, runtime::PackedRet* ret) {
      Count(func, args);
      *ret = real.Call(args);
    });
  }

  std::optional<double> flops() const { return known_ ? std::optional<double>(flops_) : std::nullopt; }

 private:
  void Count(const tir::PrimFunc& func, const std::vector<runtime::PackedArg>& args) {
    if (!func.defined()) {
      known_ = false;
      return;
    }
    codegen::VarBindings bindings;
    for (size_t i = 0; i < func->params.size() && i < args.size(); ++i) {
      const runtime::PackedArg& a = args[i];
      const tir::Buffer b = i < func->buffer_map.size() ? func->buffer_map[i] : tir::Buffer();
      if (b.defined() && a.code() == kWBDLTensorHandle) {
        auto* t = static_cast<const runtime::DLTensor*>(a.value().v_handle);
        for (size_t d = 0; d < b->shape.size() && static_cast<int32_t>(d) < t->ndim; ++d) {
          if (auto* var = b->shape[d].as<tir::VarNode>()) bindings[var] = t->shape[d];
        }
      } else if (!b.defined() && a.code() == kWBArgInt) {
        bindings[func->params[i].get()] = a.value().v_int64;
      }
    }
    std::optional<double> f = codegen::CountFlops(func, bindings);
    if (f) flops_ += *f;
    else known_ = false;
  }

  runtime::Module inner_;
  std::map<std::string, tir::PrimFunc> funcs_;
  double flops_ = 0;
  bool known_ = true;
};

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

// DIR/<func>/<param>.npy, else DIR/<param>.npy; null when neither exists.
runtime::NDArray FindNpy(const std::string& dir, const std::string& func, const std::string& param,
                         std::string* error) {
  if (dir.empty() || dir == "random") return {};
  for (auto path : {std::filesystem::path(dir) / func / (param + ".npy"), std::filesystem::path(dir) / (param + ".npy")}) {
    if (std::filesystem::exists(path)) return runtime::LoadNpy(path.string(), error);
  }
  return {};
}

struct RelaxRun {
  std::string name;
  // kCrashed: the run's process died of a signal (the message names it).
  enum class Status { kOk, kMismatch, kError, kCrashed } status = Status::kOk;
  std::string message;
  bool checked = false;
  std::map<std::string, int64_t> symbolic;  // the size picked for each symbolic var
  std::vector<double> samples_s;
  std::optional<double> flops;
  double median_s() const {
    std::vector<double> s = samples_s;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : (s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2);
  }
  std::optional<double> gflops_per_s() const {
    if (!flops || samples_s.empty() || median_s() <= 0) return std::nullopt;
    return *flops / median_s() * 1e-9;
  }
};

const char* StatusName(RelaxRun::Status s) {
  switch (s) {
    case RelaxRun::Status::kOk: return "ok";
    case RelaxRun::Status::kMismatch: return "mismatch";
    case RelaxRun::Status::kError: return "error";
    case RelaxRun::Status::kCrashed: return "crashed";
  }
  return "?";
}

// The arguments of `func`: .npy files where given, seeded random values elsewhere. Symbolic dims
// take the size a file fixes for them (a bare-var dim of a file's tensor), else the default.
bool MakeArguments(const relax::Function& func, const std::string& name, const VMRunOptions& options,
                   std::vector<relax::Value>* args, RelaxRun* run, std::string* error) {
  std::vector<runtime::NDArray> files(func->params.size());
  int64_t extent = options.symbolic_extent;
  bool fixed = false;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const relax::Var& p = func->params[i];
    files[i] = FindNpy(options.inputs, name, p->name_hint, error);
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
  auto random = relax::RandomArguments(func, options.seed, extent, &why);
  if (!random) {
    *error = "cannot make inputs: " + why;
    return false;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].defined()) (*random)[i] = relax::Value::Tensor(files[i]);
  }
  for (const auto& v : SymbolicVars(func)) run->symbolic[v] = extent;
  *args = std::move(*random);
  return true;
}

RelaxRun RunOne(const ir::IRModule& source, const relax::Function& func, const std::string& name,
                const std::string& vm_name, const codegen::VMBuildResult& built,
                const std::map<std::string, tir::PrimFunc>& kernels, const VMRunOptions& options) {
  RelaxRun run;
  run.name = name;
  auto fail = [&](RelaxRun::Status s, std::string message) {
    run.status = s;
    run.message = std::move(message);
    return run;
  };
  std::vector<relax::Value> args;
  std::string error;
  if (!MakeArguments(func, name, options, &args, &run, &error)) return fail(RelaxRun::Status::kError, error);
  std::vector<vm::Value> vm_args;
  try {
    for (const auto& a : args) vm_args.push_back(ToVM(a));
  } catch (const vm::VMError& e) {
    return fail(RelaxRun::Status::kError, e.what());
  }

  relax::RelaxInterpretOptions iopts;
  iopts.legalize = transform::LegalizeCall;
  relax::RelaxInterpretResult expected = relax::InterpretRelax(source, name, args, iopts);

  // The checked run counts FLOPs through the wrapped kernels; the timed runs call them directly.
  auto counting = std::make_shared<FlopCountingModule>(built.kernels, kernels);
  vm::Value actual;
  try {
    vm::VirtualMachine machine(built.exec, built.kernels.defined() ? runtime::Module(counting) : runtime::Module());
    actual = machine.Invoke(vm_name, vm_args);
  } catch (const vm::VMError& e) {
    return fail(RelaxRun::Status::kError, std::string("the VM failed: ") + e.what());
  }
  run.flops = built.kernels.defined() ? counting->flops() : std::optional<double>(0);
  if (!expected.ok()) {
    // The VM ran; the reference could not say whether it is right.
    run.message = "not checked: the interpreter failed: " + expected.diagnostics.begin()->message;
  } else {
    relax::ValueComparison cmp = relax::CompareValues(FromVM(actual, expected.value), expected.value);
    run.checked = true;
    if (!cmp.ok) return fail(RelaxRun::Status::kMismatch, cmp.message);
  }

  if (options.profile) {
    vm::VirtualMachine machine(built.exec, built.kernels);
    runtime::PackedFunc call([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      machine.Invoke(vm_name, vm_args);
    });
    runtime::TimeEvaluatorOptions topts;
    topts.number = options.number;
    topts.repeat = options.repeat;
    try {
      run.samples_s = runtime::TimeEvaluate(call, {}, topts).samples_s;
    } catch (const std::exception& e) {
      return fail(RelaxRun::Status::kError, std::string("timing failed: ") + e.what());
    }
  }
  return run;
}

// RunOne in a child process (support/child_process.h): a kernel the VM calls that crashes ends
// the child, and the run says which signal; this process reports it and goes on.
RelaxRun RunOneInChild(const ir::IRModule& source, const relax::Function& func, const std::string& name,
                       const std::string& vm_name, const codegen::VMBuildResult& built,
                       const std::map<std::string, tir::PrimFunc>& kernels, const VMRunOptions& options) {
  ChildOptions child_options;
  child_options.capture_stderr = false;  // a kernel's prints go straight to our stderr
  ChildResult child = RunInChild(
      [&](ChildChannel&) {
        RelaxRun r = RunOne(source, func, name, vm_name, built, kernels, options);
        nlohmann::json j = {{"status", static_cast<int>(r.status)}, {"message", r.message},
                            {"checked", r.checked},                 {"symbolic", r.symbolic},
                            {"samples_s", r.samples_s}};
        if (r.flops) j["flops"] = *r.flops;
        return j.dump();
      },
      child_options);
  RelaxRun run;
  run.name = name;
  nlohmann::json j = child.finished() ? nlohmann::json::parse(child.payload, nullptr, false) : nlohmann::json();
  if (child.end == ChildEnd::kCrashed) {
    run.status = RelaxRun::Status::kCrashed;
    run.message = child.message;
  } else if (!j.is_object()) {
    run.status = RelaxRun::Status::kError;
    run.message = child.finished() ? "the run's result could not be read back from its process" : child.message;
  } else {
    run.status = static_cast<RelaxRun::Status>(j.value("status", 2));
    run.message = j.value("message", "");
    run.checked = j.value("checked", false);
    run.symbolic = j.value("symbolic", std::map<std::string, int64_t>{});
    run.samples_s = j.value("samples_s", std::vector<double>{});
    if (j.contains("flops") && j["flops"].is_number()) run.flops = j["flops"].get<double>();
  }
  return run;
}

}  // namespace

bool HasRelaxFunctions(const ir::IRModule& module) {
  for (const auto& f : module->functions) {
    if (f.as<relax::FunctionNode>()) return true;
  }
  return false;
}

int RunRelaxBuild(const ir::IRModule& module, const codegen::Target& target, const VMRunOptions& options,
                  std::ostream& out, std::ostream& err) {
  // The Relax functions to run, by name.
  std::vector<std::pair<std::string, relax::Function>> funcs;
  std::string all;
  for (size_t i = 0; i < module->size(); ++i) {
    auto f = module->functions[i].as_ref<relax::FunctionNode>();
    if (!f.defined()) continue;
    const std::string& name = module->global_vars[i]->name_hint;
    all += (all.empty() ? "" : ", ") + name;
    if (options.func.empty() || options.func == name) funcs.emplace_back(name, f);
  }
  if (funcs.empty()) {
    err << "workbench: --func: no Relax function '" << options.func << "' (the module has: " << all << ")\n";
    return 2;
  }

  if (target.is_cuda()) {
    // The VM's builtins allocate host memory and its kernels are called as CPU functions; a
    // GPU VM (device allocation, kernels through the CUDA module) is not built yet.
    err << "workbench: Relax functions run on the CPU only for now: the Relax VM has no CUDA "
           "support yet (build with --target llvm, or run the PrimFuncs alone)\n";
    return 1;
  }
  codegen::VMBuildResult built = codegen::BuildVM(module, target);
  if (!built.ok()) {
    err << RenderDiagnostics(built.diagnostics, options.color);
    err << "workbench: build of the Relax module for " << target.str() << " failed\n";
    return 1;
  }
  // The kernels as the VM calls them, for the FLOP count.
  std::map<std::string, tir::PrimFunc> kernels;
  for (size_t i = 0; i < built.lowered->size(); ++i) {
    auto p = built.lowered->functions[i].as_ref<tir::PrimFuncNode>();
    if (!p.defined()) continue;
    std::string symbol = p->global_symbol();
    kernels[symbol.empty() ? built.lowered->global_vars[i]->name_hint : symbol] = p;
  }

  nlohmann::json report = nlohmann::json::array();
  int failures = 0;
  out << "target: " << target.str() << "\n";
  for (const auto& [name, func] : funcs) {
    std::string symbol = func->global_symbol();
    std::string vm_name = built.exec->FindFunction(name) >= 0 || symbol.empty() ? name : symbol;
    // The VM runs on the CPU only, so always in a child: a crashing kernel is a result.
    RelaxRun r = RunOneInChild(module, func, name, vm_name, built, kernels, options);
    if (r.status == RelaxRun::Status::kCrashed) {
      err << "error: Relax function '" << r.name << "' crashed: " << r.message << "\n";
    }
    bool ok = r.status == RelaxRun::Status::kOk;
    failures += !ok;
    out << (ok ? "ok      " : "FAILED  ") << r.name << " (Relax VM)";
    if (!r.symbolic.empty()) {
      out << "  [";
      bool first = true;
      for (const auto& [var, size] : r.symbolic) {
        out << (first ? "" : ", ") << var << " = " << size;
        first = false;
      }
      out << "]";
    }
    if (ok) out << (r.checked ? "  matches the interpreter" : "  ran");
    else out << ": " << StatusName(r.status) << ": " << r.message;
    if (ok && !r.checked && !r.message.empty()) out << " (" << r.message << ")";
    if (!r.samples_s.empty()) {
      auto [lo, hi] = std::minmax_element(r.samples_s.begin(), r.samples_s.end());
      char line[160];
      std::snprintf(line, sizeof(line), "  median %.4f ms (min %.4f, max %.4f; %d x %d calls)", r.median_s() * 1e3,
                    *lo * 1e3, *hi * 1e3, options.repeat, options.number);
      out << line;
      if (auto g = r.gflops_per_s()) {
        std::snprintf(line, sizeof(line), "  %.2f GFLOP/s", *g);
        out << line;
      }
    }
    out << "\n";
    nlohmann::json entry = {{"name", r.name},
                            {"kind", "relax"},
                            {"status", StatusName(r.status)},
                            {"checked", r.checked}};
    if (!r.message.empty()) entry["message"] = r.message;
    if (!r.symbolic.empty()) entry["symbolic"] = r.symbolic;
    if (!r.samples_s.empty()) {
      entry["samples_s"] = r.samples_s;
      entry["median_s"] = r.median_s();
      entry["number"] = options.number;
      entry["repeat"] = options.repeat;
    }
    if (r.flops) entry["flops"] = *r.flops;
    if (auto g = r.gflops_per_s()) entry["gflops_per_s"] = *g;
    report.push_back(entry);
  }
  out << funcs.size() - failures << " passed, " << failures << " failed\n";
  if (!options.json_path.empty()) {
    std::ofstream json(options.json_path);
    if (!json) {
      err << "workbench: cannot write '" << options.json_path << "'\n";
      return 2;
    }
    json << nlohmann::json{{"target", target.str()}, {"functions", report}}.dump(2) << "\n";
  }
  return failures ? 1 : 0;
}

}  // namespace wb::workbench
