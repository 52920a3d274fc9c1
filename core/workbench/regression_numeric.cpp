#include "workbench/regression_numeric.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "codegen/build.h"
#include "codegen/flop_count.h"
#include "codegen/target.h"
#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/vm.h"
#include "tir/functor.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"
#include "transform/relax/legalize_ops.h"
#include "workbench/regression_timing.h"

namespace wb::workbench {

namespace {

namespace fs = std::filesystem;
namespace vm = runtime::vm;
using Named = std::vector<std::pair<std::string, runtime::NDArray>>;

// One function, compiled and run once: what the numeric check compares and the timing check
// calls again.
struct FunctionRun {
  std::string name;
  Named outputs;   // the built code's results
  Named expected;  // the interpreter's, when it is the reference
  runtime::PackedFunc call;
  std::vector<runtime::PackedArg> args;  // point into `arrays`
  std::vector<runtime::NDArray> arrays;
  std::string error;  // why it could not run; empty when it ran
};

// The .npy for `param` of `func` in an inputs directory (DIR/func/param.npy, then
// DIR/param.npy); null when absent. Sets *error when a file exists but cannot be read.
runtime::NDArray FindInput(const std::string& dir, const std::string& func, const std::string& param,
                           std::string* error) {
  if (dir == "random") return {};
  for (const fs::path& path : {fs::path(dir) / func / (param + ".npy"), fs::path(dir) / (param + ".npy")}) {
    if (!fs::exists(path)) continue;
    std::string why;
    runtime::NDArray a = runtime::LoadNpy(path.string(), &why);
    if (!a.defined()) *error = "cannot read input '" + path.string() + "': " + why;
    return a;
  }
  return {};
}

// The buffers a PrimFunc stores into, by name: its outputs.
std::set<std::string> WrittenBuffers(const tir::PrimFunc& f) {
  std::set<std::string> names;
  tir::PostOrderVisit(f->body, [&](const ir::Object* node) {
    if (auto* store = dynamic_cast<const tir::BufferStoreNode*>(node)) names.insert(store->buffer->name);
  });
  return names;
}

// `name[i, j]` for a flat row-major index.
std::string ElementName(const std::string& name, const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  std::string s = name + "[";
  for (size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
  return s + "]";
}

std::string Number(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string ShapeText(const runtime::NDArray& a) {
  std::string s = "(";
  for (size_t k = 0; k < a.shape().size(); ++k) s += (k ? ", " : "") + std::to_string(a.shape()[k]);
  return s + ") " + runtime::DTypeToString(a.dtype());
}

// Compares every output of one function and fills the check's errors and worst element.
void CompareOutputs(const NumericCheck& n, const Named& actual, const Named& expected, CheckResult* check) {
  double max_abs = 0, max_rel = 0;
  std::string problems;
  for (size_t o = 0; o < actual.size(); ++o) {
    const auto& [name, a] = actual[o];
    const runtime::NDArray& e = expected[o].second;
    if (a.shape() != e.shape() || a.dtype() != e.dtype()) {
      problems += "output " + name + " is " + ShapeText(a) + ", the reference " + ShapeText(e) + "; ";
      continue;
    }
    runtime::Tolerance tol = runtime::DefaultTolerance(e.dtype());
    if (n.rtol) tol.rtol = *n.rtol;
    if (n.atol) tol.atol = *n.atol;
    int64_t bad = 0, worst = -1;
    double worst_abs = -1;
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      double x = a.GetDouble(i), y = e.GetDouble(i);
      double abs_err = 0;
      if (std::isnan(x) || std::isnan(y)) {
        abs_err = std::isnan(x) && std::isnan(y) ? 0 : INFINITY;
      } else if (x != y) {
        abs_err = std::isinf(x) || std::isinf(y) ? INFINITY : std::fabs(x - y);
      }
      double rel_err = abs_err == 0 ? 0 : abs_err / std::max(std::fabs(y), 1e-30);
      if (abs_err > tol.atol + tol.rtol * std::fabs(y)) ++bad;
      if (abs_err > worst_abs) {
        worst_abs = abs_err;
        worst = i;
      }
      max_rel = std::max(max_rel, rel_err);
    }
    if (worst >= 0 && worst_abs >= max_abs) {
      max_abs = worst_abs;
      check->worst = ElementName(name, a.shape(), worst);
    }
    if (bad) {
      problems += std::to_string(bad) + " of " + std::to_string(a.NumElements()) + " elements of " + name +
                  " differ (worst " + ElementName(name, a.shape(), worst) + ": got " +
                  Number(a.GetDouble(worst)) + ", expected " + Number(e.GetDouble(worst)) + "; rtol " +
                  Number(tol.rtol) + ", atol " + Number(tol.atol) + "); ";
    }
  }
  check->max_abs_error = max_abs;
  check->max_rel_error = max_rel;
  check->passed = problems.empty();
  if (!check->passed) {
    problems.resize(problems.size() - 2);
    check->message = problems;
  }
}

// --- PrimFuncs --------------------------------------------------------------------------------

std::vector<FunctionRun> RunPrimFuncs(const ManifestCase& c, const ir::IRModule& source,
                                      const ir::IRModule& transformed, const codegen::Target& target,
                                      bool has_relax, BuiltChecks* out) {
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < transformed->functions.size(); ++i) {
    if (!transformed->functions[i].as_ref<tir::PrimFuncNode>().defined()) continue;
    // Kernels the pipeline generated for Relax functions are checked through those.
    if (has_relax && !source->Lookup(transformed->global_vars[i]->name_hint).defined()) continue;
    vars.push_back(transformed->global_vars[i]);
    funcs.push_back(transformed->functions[i]);
  }
  std::vector<FunctionRun> runs;
  if (funcs.empty()) return runs;
  codegen::BuildResult built = codegen::Build(ir::MakeIRModule(vars, funcs, transformed->attrs), target);
  if (!built.ok()) {
    out->checks.push_back({"build", "PrimFuncs", false,
                           "build for " + target.str() + " failed: " + RenderDiagnostics(built.diagnostics), ""});
    return runs;
  }
  const NumericCheck n = c.numeric.value_or(NumericCheck{});
  for (size_t fi = 0; fi < funcs.size(); ++fi) {
    auto f = funcs[fi].as_ref<tir::PrimFuncNode>();
    std::string gv = vars[fi]->name_hint;
    ir::BaseFunc in_source = source->Lookup(gv);
    tir::PrimFunc ref = in_source.defined() && in_source.as_ref<tir::PrimFuncNode>().defined()
                            ? in_source.as_ref<tir::PrimFuncNode>()
                            : f;
    ir::IRModule ref_module = in_source.defined() ? source : transformed;
    FunctionRun run;
    run.name = gv;
    std::vector<runtime::NDArray> arrays(f->params.size());
    std::vector<std::optional<double>> scalars(f->params.size());
    codegen::VarBindings bindings;
    // Files first, so that their shapes bind the shape variables.
    for (size_t i = 0; i < f->params.size() && run.error.empty(); ++i) {
      tir::Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : tir::Buffer();
      runtime::NDArray a = FindInput(n.inputs, gv, f->params[i]->name_hint, &out->input_error);
      if (!a.defined() && out->input_error.empty() && b.defined()) a = FindInput(n.inputs, gv, b->name, &out->input_error);
      if (!out->input_error.empty()) return runs;
      if (!a.defined()) continue;
      if (!b.defined()) {
        scalars[i] = a.GetDouble(0);
        bindings[f->params[i].get()] = static_cast<int64_t>(a.GetDouble(0));
        continue;
      }
      for (size_t k = 0; k < b->shape.size() && k < a.shape().size(); ++k) {
        if (auto* v = b->shape[k].as<tir::VarNode>()) bindings.emplace(v, a.shape()[k]);
      }
      arrays[i] = a;
    }
    for (size_t i = 0; i < f->params.size() && run.error.empty(); ++i) {
      tir::Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : tir::Buffer();
      if (!b.defined()) {
        if (!scalars[i]) run.error = "scalar parameter '" + f->params[i]->name_hint + "' needs an input .npy";
        continue;
      }
      if (arrays[i].defined()) continue;
      std::vector<int64_t> shape;
      for (const auto& d : b->shape) {
        if (auto* v = d.as<tir::VarNode>()) bindings.emplace(v, kRandomSymbolicExtent);
        auto extent = codegen::EvalIndex(d, bindings);
        if (!extent) {
          run.error = "the shape of " + b->name + " cannot be chosen: give its input as .npy";
          break;
        }
        shape.push_back(*extent);
      }
      if (!run.error.empty()) break;
      arrays[i] = runtime::NDArray::Empty(shape, tir::ToRuntimeDType(b->dtype));
      runtime::FillRandom(arrays[i], n.seed * 1000 + i);
    }
    run.call = built.module.get_function(f->global_symbol().empty() ? gv : f->global_symbol());
    if (run.error.empty() && !run.call.defined()) run.error = "the built module has no function '" + gv + "'";
    if (!run.error.empty()) {
      runs.push_back(run);
      continue;
    }
    std::vector<runtime::NDArray> reference;
    std::vector<tir::InterpArg> iargs;
    run.arrays.reserve(arrays.size());
    for (size_t i = 0; i < f->params.size(); ++i) {
      bool is_float = f->params[i]->dtype.is_floating_point();
      if (arrays[i].defined()) {
        arrays[i] = arrays[i].Copy();
        run.arrays.push_back(arrays[i]);
        reference.push_back(arrays[i].Copy());
        iargs.emplace_back(reference.back());
        run.args.emplace_back(arrays[i]);
      } else if (is_float) {
        iargs.emplace_back(*scalars[i]);
        run.args.emplace_back(*scalars[i]);
      } else {
        iargs.emplace_back(static_cast<int64_t>(*scalars[i]));
        run.args.emplace_back(static_cast<int64_t>(*scalars[i]));
      }
    }
    try {
      run.call.Call(run.args);
    } catch (const runtime::Error& e) {
      run.error = std::string("the built function failed: ") + e.what();
      runs.push_back(run);
      continue;
    }
    std::set<std::string> written = WrittenBuffers(ref);
    size_t k = 0;
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (!arrays[i].defined()) continue;
      std::string buffer = f->buffer_map[i]->name;
      bool in_ref = i < ref->buffer_map.size() && ref->buffer_map[i].defined();
      if (written.count(in_ref ? ref->buffer_map[i]->name : buffer)) {
        run.outputs.push_back({buffer, arrays[i]});
        run.expected.push_back({buffer, reference[k]});
      }
      ++k;
    }
    if (c.numeric && n.reference_is_interpreter()) {
      tir::InterpretResult ir = tir::InterpretModule(ref_module, gv, iargs);
      if (!ir.ok()) run.error = "the interpreter failed: " + RenderDiagnostics(ir.diagnostics);
    } else {
      run.expected.clear();
    }
    runs.push_back(run);
  }
  return runs;
}

// --- Relax functions through the VM -------------------------------------------------------------

vm::Value ToVM(const relax::Value& v) {
  switch (v.kind) {
    case relax::Value::Kind::kTensor: return vm::Value::Tensor(v.tensor.Copy());
    case relax::Value::Kind::kShape: return vm::Value::Shape(v.shape);
    case relax::Value::Kind::kPrim:
      return v.dtype.is_floating_point() ? vm::Value::Float(v.float_value) : vm::Value::Int(v.int_value);
    case relax::Value::Kind::kTuple: {
      std::vector<vm::Value> fields;
      for (const auto& f : v.fields) fields.push_back(ToVM(f));
      return vm::Value::Tuple(std::move(fields));
    }
    default: throw std::runtime_error("an argument the VM cannot take: " + v.Describe());
  }
}

// The tensors of a result, named `output` or `output_0`, `output_1_0`... for tuples.
void FlattenVM(const vm::Value& v, const std::string& name, Named* out) {
  if (v.kind == vm::Value::Kind::kTensor) out->push_back({name, v.tensor});
  for (size_t i = 0; i < v.fields.size(); ++i) FlattenVM(v.fields[i], name + "_" + std::to_string(i), out);
}
void FlattenRelax(const relax::Value& v, const std::string& name, Named* out) {
  if (v.kind == relax::Value::Kind::kTensor) out->push_back({name, v.tensor});
  for (size_t i = 0; i < v.fields.size(); ++i) FlattenRelax(v.fields[i], name + "_" + std::to_string(i), out);
}

std::vector<FunctionRun> RunRelaxFunctions(const ManifestCase& c, const ir::IRModule& source,
                                           const ir::IRModule& transformed, const codegen::Target& target,
                                           BuiltChecks* out, std::shared_ptr<vm::VirtualMachine>* machine) {
  std::vector<FunctionRun> runs;
  codegen::VMBuildResult built = codegen::BuildVM(transformed, target);
  if (!built.ok()) {
    out->checks.push_back({"build", "Relax VM", false,
                           "build for " + target.str() + " failed: " + RenderDiagnostics(built.diagnostics), ""});
    return runs;
  }
  *machine = std::make_shared<vm::VirtualMachine>(built.exec, built.kernels);
  const NumericCheck n = c.numeric.value_or(NumericCheck{});
  for (size_t fi = 0; fi < transformed->functions.size(); ++fi) {
    if (!transformed->functions[fi].as_ref<relax::FunctionNode>().defined()) continue;
    std::string gv = transformed->global_vars[fi]->name_hint;
    // Only the functions callable from outside: private ones are checked through their callers.
    if (transformed->functions[fi]->global_symbol().empty()) continue;
    auto ref = source->Lookup(gv).as_ref<relax::FunctionNode>();
    ir::IRModule ref_module = ref.defined() ? source : transformed;
    if (!ref.defined()) ref = transformed->functions[fi].as_ref<relax::FunctionNode>();
    FunctionRun run;
    run.name = gv;
    std::string why;
    auto args = relax::RandomArguments(ref, n.seed, kRandomSymbolicExtent, &why);
    if (!args) {
      run.error = "no inputs: " + why;
      runs.push_back(run);
      continue;
    }
    for (size_t i = 0; i < ref->params.size(); ++i) {
      runtime::NDArray a = FindInput(n.inputs, gv, ref->params[i]->name_hint, &out->input_error);
      if (!out->input_error.empty()) return runs;
      if (a.defined()) (*args)[i] = relax::Value::Tensor(a);
    }
    std::vector<vm::Value> vm_args;
    for (const auto& a : *args) vm_args.push_back(ToVM(a));
    vm::VirtualMachine* m = machine->get();
    run.call = runtime::PackedFunc([m, gv, vm_args](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      try {
        m->Invoke(gv, vm_args);
      } catch (const vm::VMError& e) {
        throw runtime::Error(e.what());
      }
    });
    try {
      FlattenVM(m->Invoke(gv, vm_args), "output", &run.outputs);
    } catch (const std::exception& e) {
      run.error = std::string("the VM failed: ") + e.what();
      runs.push_back(run);
      continue;
    }
    if (c.numeric && n.reference_is_interpreter()) {
      relax::RelaxInterpretOptions options;
      options.legalize = transform::LegalizeCall;
      relax::RelaxInterpretResult expected = relax::InterpretRelax(ref_module, gv, *args, options);
      if (!expected.ok()) {
        run.error = "the interpreter failed: " + RenderDiagnostics(expected.diagnostics);
      } else {
        FlattenRelax(expected.value, "output", &run.expected);
        if (run.expected.size() != run.outputs.size()) {
          run.error = "the VM returned " + std::to_string(run.outputs.size()) + " tensors, the interpreter " +
                      std::to_string(run.expected.size());
        }
      }
    }
    runs.push_back(run);
  }
  return runs;
}

// --- Saved outputs ------------------------------------------------------------------------------

bool ReadBytes(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *bytes = buf.str();
  return true;
}

// Loads DIR/<func>/<output>.npy for every output; a missing one fails the check.
bool LoadSaved(const std::string& dir, FunctionRun* run, CheckResult* check) {
  run->expected.clear();
  for (const auto& [name, a] : run->outputs) {
    fs::path path = fs::path(dir) / run->name / (name + ".npy");
    std::string why;
    runtime::NDArray saved = fs::exists(path) ? runtime::LoadNpy(path.string(), &why) : runtime::NDArray();
    if (!saved.defined()) {
      check->message = fs::exists(path) ? "cannot read saved output '" + path.string() + "': " + why
                                        : "no saved output '" + path.string() + "' (run with --update-goldens)";
      return false;
    }
    run->expected.push_back({name, saved});
  }
  return true;
}

// Writes the outputs whose bytes differ from the saved ones.
void SaveOutputs(const std::string& dir, const FunctionRun& run, BuiltChecks* out, CheckResult* check) {
  check->passed = true;
  check->message = "saved outputs up to date";
  for (const auto& [name, a] : run.outputs) {
    fs::path path = fs::path(dir) / run.name / (name + ".npy");
    std::string old, bytes = runtime::SerializeNpy(a);
    if (ReadBytes(path.string(), &old) && old == bytes) continue;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream f(path, std::ios::binary);
    f << bytes;
    if (!f.good()) {
      check->passed = false;
      check->message = "cannot write '" + path.string() + "'";
      return;
    }
    out->updated.push_back(path.string());
  }
}

}  // namespace

BuiltChecks RunBuiltChecks(const ManifestCase& c, const ir::IRModule& source, const ir::IRModule& transformed,
                           bool update) {
  BuiltChecks out;
  if (!c.numeric && !c.timing) return out;
  std::string why;
  auto target = codegen::ParseTarget(c.target, &why);
  if (!target) {
    out.checks.push_back({"build", c.target, false, "target: " + why, ""});
    return out;
  }
  if (target->is_cuda()) {
    // The runs below pass host arrays and time on the CPU; GPU runs are `--batch FILE --target
    // cuda --run` until the manifest learns devices.
    out.checks.push_back({"build", c.target, false,
                          "numeric and timing checks run on CPU targets only for now (a cuda target "
                          "is checked with `workbench --batch FILE --target cuda --run`)",
                          ""});
    return out;
  }
  bool has_relax = false;
  for (const auto& f : transformed->functions) has_relax |= f.as_ref<relax::FunctionNode>().defined();
  std::shared_ptr<vm::VirtualMachine> machine;  // outlives the runs that call into it
  std::vector<FunctionRun> runs = RunPrimFuncs(c, source, transformed, *target, has_relax, &out);
  if (!out.input_error.empty()) return out;
  if (has_relax) {
    for (auto& r : RunRelaxFunctions(c, source, transformed, *target, &out, &machine)) runs.push_back(std::move(r));
    if (!out.input_error.empty()) return out;
  }
  for (FunctionRun& run : runs) {
    if (c.numeric) {
      CheckResult check{"numeric", run.name, false, "", ""};
      if (!run.error.empty()) {
        check.message = run.error;
      } else if (c.numeric->reference_is_interpreter()) {
        CompareOutputs(*c.numeric, run.outputs, run.expected, &check);
      } else if (update) {
        SaveOutputs(c.numeric->reference, run, &out, &check);
      } else if (LoadSaved(c.numeric->reference, &run, &check)) {
        CompareOutputs(*c.numeric, run.outputs, run.expected, &check);
      }
      out.checks.push_back(check);
    }
    if (c.timing) {
      if (!run.error.empty()) {
        out.checks.push_back({"timing", run.name, false, "not timed: " + run.error, ""});
        continue;
      }
      try {
        runtime::TimeEvaluatorOptions options{.number = c.timing->number, .repeat = c.timing->repeat};
        double median = runtime::TimeEvaluate(run.call, run.args, options).median_s();
        out.checks.push_back(JudgeTiming(c, run.name, median, update));
      } catch (const runtime::Error& e) {
        out.checks.push_back({"timing", run.name, false, std::string("not timed: ") + e.what(), ""});
      }
    }
  }
  return out;
}

}  // namespace wb::workbench
