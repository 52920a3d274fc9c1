#include "workbench/run_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>

#include "codegen/build.h"
#include "codegen/flop_count.h"
#include "codegen/memory_traffic.h"
#include "codegen/vm_codegen.h"
#include "relax/expr.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_time_evaluator.h"
#include "runtime/ndarray_device.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/vm.h"
#include "support/child_process.h"
#include "tir/functor.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"
#include "transform/relax/bind_params.h"
#include "transform/relax/legalize_ops.h"
#include "transform/relax/lift_transform_params.h"
#include "workbench/run_inputs.h"

namespace wb::workbench {

namespace vm = runtime::vm;
using Named = std::vector<std::pair<std::string, runtime::NDArray>>;

// --- Names ---------------------------------------------------------------------------------------

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kOk: return "ok";
    case RunStatus::kMismatch: return "mismatch";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kCrashed: return "crashed";
    case RunStatus::kTimedOut: return "timed-out";
    case RunStatus::kOutOfMemory: return "out-of-memory";
    case RunStatus::kCancelled: return "cancelled";
  }
  return "unknown";
}

std::optional<RunStatus> ParseRunStatus(const std::string& name) {
  for (RunStatus s : {RunStatus::kOk, RunStatus::kMismatch, RunStatus::kFailed, RunStatus::kCrashed,
                      RunStatus::kTimedOut, RunStatus::kOutOfMemory, RunStatus::kCancelled}) {
    if (name == RunStatusName(s)) return s;
  }
  return std::nullopt;
}

const char* ReferenceName(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::kAuto: return "auto";
    case ReferenceKind::kInterpreter: return "interpreter";
    case ReferenceKind::kCompiled: return "compiled";
    case ReferenceKind::kNone: return "none";
  }
  return "unknown";
}

std::optional<ReferenceKind> ParseReference(const std::string& text) {
  for (ReferenceKind k : {ReferenceKind::kAuto, ReferenceKind::kInterpreter, ReferenceKind::kCompiled,
                          ReferenceKind::kNone}) {
    if (text == ReferenceName(k)) return k;
  }
  return std::nullopt;
}

// --- Results -------------------------------------------------------------------------------------

double FunctionResult::median_s() const {
  if (samples_s.empty()) return 0;
  std::vector<double> s = samples_s;
  std::sort(s.begin(), s.end());
  size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double FunctionResult::mean_s() const {
  if (samples_s.empty()) return 0;
  return std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / samples_s.size();
}

double FunctionResult::min_s() const {
  return samples_s.empty() ? 0 : *std::min_element(samples_s.begin(), samples_s.end());
}

double FunctionResult::max_s() const {
  return samples_s.empty() ? 0 : *std::max_element(samples_s.begin(), samples_s.end());
}

double FunctionResult::std_s() const {
  if (samples_s.empty()) return 0;
  double mean = mean_s(), sum = 0;
  for (double s : samples_s) sum += (s - mean) * (s - mean);
  return std::sqrt(sum / samples_s.size());
}

std::optional<double> FunctionResult::gflops_per_s() const {
  if (!flops || samples_s.empty() || median_s() <= 0) return std::nullopt;
  return *flops / median_s() / 1e9;
}

std::optional<double> FunctionResult::arithmetic_intensity() const {
  if (!flops || !bytes || *bytes <= 0) return std::nullopt;
  return *flops / *bytes;
}

std::optional<double> FunctionResult::roofline_fraction() const {
  auto gflops = gflops_per_s();
  auto intensity = arithmetic_intensity();
  if (!gflops || !intensity || !peak_gflops || !peak_gbytes_per_s) return std::nullopt;
  double roof = std::min(*peak_gflops, *intensity * *peak_gbytes_per_s);
  if (roof <= 0) return std::nullopt;
  return *gflops / roof;
}

bool RunCheckResult::ok() const {
  if (functions.empty() || cancelled) return false;
  return std::all_of(functions.begin(), functions.end(), [](const FunctionResult& f) { return f.ok(); });
}

const FunctionResult* RunCheckResult::Find(const std::string& name) const {
  for (const auto& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// --- The codec -----------------------------------------------------------------------------------

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[v & 63] : '=';
  }
  return out;
}

std::string FromBase64(const std::string& text) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    const char* p = std::strchr(kBase64, c);
    if (c == '=' || !p || !*p) continue;
    v = (v << 6) | static_cast<uint32_t>(p - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

nlohmann::json ToJson(const FunctionResult& r) {
  nlohmann::json j = {{"name", r.name},
                      {"kind", r.relax ? "relax" : "prim_func"},
                      {"status", RunStatusName(r.status)},
                      {"checked", r.checked()}};
  if (!r.message.empty()) j["message"] = r.message;
  if (r.signal) j["signal"] = r.signal;
  if (r.checked()) {
    j["reference"] = r.reference;
    j["max_abs_error"] = r.max_abs_error;
    j["max_rel_error"] = r.max_rel_error;
    if (!r.worst.empty()) j["worst"] = r.worst;
  }
  if (!r.symbolic.empty()) j["symbolic"] = r.symbolic;
  if (r.too_slow) j["too_slow"] = true;
  if (!r.samples_s.empty()) {
    j["samples_s"] = r.samples_s;
    j["number"] = r.number;
    j["repeat"] = r.samples_s.size();
    j["median_s"] = r.median_s();
    j["mean_s"] = r.mean_s();
    j["min_s"] = r.min_s();
    j["std_s"] = r.std_s();
  }
  if (r.flops) j["flops"] = *r.flops;
  if (auto g = r.gflops_per_s()) j["gflops_per_s"] = *g;
  if (r.operations) j["operations"] = *r.operations;
  if (r.bytes) j["bytes"] = *r.bytes;
  if (r.parallel) j["parallel"] = true;
  if (auto ai = r.arithmetic_intensity()) j["arithmetic_intensity"] = *ai;
  if (r.peak_gflops) j["peak_gflops"] = *r.peak_gflops;
  if (r.peak_gbytes_per_s) {
    j["peak_gbytes_per_s"] = *r.peak_gbytes_per_s;
    j["bandwidth_roof"] = r.in_cache ? "cache" : "memory";
  }
  if (auto f = r.roofline_fraction()) j["roofline_fraction"] = *f;
  if (!r.call_times.empty()) {
    nlohmann::json calls = nlohmann::json::array();
    for (const CallTime& c : r.call_times) {
      nlohmann::json e = {{"name", c.name}, {"kind", c.kernel ? "kernel" : "builtin"}, {"calls", c.calls},
                          {"seconds", c.seconds}};
      if (c.flops) e["flops"] = *c.flops;
      if (auto g = c.gflops_per_s()) e["gflops_per_s"] = *g;
      calls.push_back(std::move(e));
    }
    j["calls"] = std::move(calls);
  }
  if (!r.outputs.empty()) {
    nlohmann::json outputs = nlohmann::json::object();
    for (const auto& [name, a] : r.outputs) outputs[name] = Base64(runtime::SerializeNpy(a));
    j["outputs_npy_base64"] = outputs;
  }
  return j;
}

FunctionResult FunctionResultFromJson(const nlohmann::json& j) {
  FunctionResult r;
  if (!j.is_object()) {
    r.status = RunStatus::kFailed;
    r.message = "the run's result could not be read back from its process";
    return r;
  }
  r.name = j.value("name", "");
  r.relax = j.value("kind", "") == "relax";
  r.status = ParseRunStatus(j.value("status", "")).value_or(RunStatus::kFailed);
  r.message = j.value("message", "");
  r.signal = j.value("signal", 0);
  r.reference = j.value("reference", "");
  r.max_abs_error = j.value("max_abs_error", 0.0);
  r.max_rel_error = j.value("max_rel_error", 0.0);
  r.worst = j.value("worst", "");
  r.symbolic = j.value("symbolic", std::map<std::string, int64_t>{});
  r.samples_s = j.value("samples_s", std::vector<double>{});
  r.number = j.value("number", 0);
  r.too_slow = j.value("too_slow", false);
  if (j.contains("flops") && j["flops"].is_number()) r.flops = j["flops"].get<double>();
  if (j.contains("operations") && j["operations"].is_number()) r.operations = j["operations"].get<double>();
  if (j.contains("bytes") && j["bytes"].is_number()) r.bytes = j["bytes"].get<double>();
  r.parallel = j.value("parallel", false);
  if (j.contains("peak_gflops") && j["peak_gflops"].is_number()) r.peak_gflops = j["peak_gflops"].get<double>();
  if (j.contains("peak_gbytes_per_s") && j["peak_gbytes_per_s"].is_number()) {
    r.peak_gbytes_per_s = j["peak_gbytes_per_s"].get<double>();
  }
  r.in_cache = j.value("bandwidth_roof", "") == "cache";
  if (j.contains("calls") && j["calls"].is_array()) {
    for (const auto& e : j["calls"]) {
      if (!e.is_object()) continue;
      CallTime c;
      c.name = e.value("name", "");
      c.kernel = e.value("kind", "") == "kernel";
      c.calls = e.value("calls", 0.0);
      c.seconds = e.value("seconds", 0.0);
      if (e.contains("flops") && e["flops"].is_number()) c.flops = e["flops"].get<double>();
      r.call_times.push_back(std::move(c));
    }
  }
  if (j.contains("outputs_npy_base64") && j["outputs_npy_base64"].is_object()) {
    for (const auto& [name, text] : j["outputs_npy_base64"].items()) {
      std::string why;
      runtime::NDArray a = runtime::ParseNpy(FromBase64(text.get<std::string>()), &why);
      if (a.defined()) r.outputs.push_back({name, a});
    }
  }
  return r;
}

// --- Building ------------------------------------------------------------------------------------

bool HasRelaxFunctions(const ir::IRModule& module) {
  for (const auto& f : module->functions) {
    if (f.as<relax::FunctionNode>()) return true;
  }
  return false;
}

CompiledModule Compile(const ir::IRModule& module, const codegen::Target& target,
                       bool default_schedule, bool debug_lines) {
  CompiledModule out;
  out.target = target;
  out.source = module;
  if (HasRelaxFunctions(module)) {
    codegen::VMBuildOptions options;
    options.default_schedule = default_schedule;
    options.debug_lines = debug_lines;
    codegen::VMBuildResult built = codegen::BuildVM(module, target, options);
    out.diagnostics = built.diagnostics;
    if (!built.ok()) return out;
    out.exec = built.exec;
    out.kernels = built.kernels;
    out.lowered = built.lowered;
    out.unscheduled = built.unscheduled;
    return out;
  }
  codegen::BuildOptions options;
  options.default_schedule = default_schedule;
  options.debug_lines = debug_lines;
  codegen::BuildResult built = codegen::Build(module, target, options);
  out.diagnostics = built.diagnostics;
  out.kernels = built.module;
  out.lowered = built.lowered;
  return out;
}

// --- Comparing -----------------------------------------------------------------------------------

namespace {

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

}  // namespace

void CompareOutputs(const Named& actual, const Named& expected, std::optional<double> rtol,
                    std::optional<double> atol, FunctionResult* result) {
  std::string problems;
  if (actual.size() != expected.size()) {
    problems = "the run gave " + std::to_string(actual.size()) + " tensors, the reference " +
               std::to_string(expected.size());
  }
  for (size_t o = 0; o < actual.size() && o < expected.size(); ++o) {
    const auto& [name, a] = actual[o];
    const runtime::NDArray& e = expected[o].second;
    if (a.shape() != e.shape() || a.dtype() != e.dtype()) {
      problems += std::string(problems.empty() ? "" : "; ") + name + " is " + ShapeText(a) +
                  ", the reference " + ShapeText(e);
      continue;
    }
    runtime::Tolerance tol = runtime::DefaultTolerance(e.dtype());
    if (rtol) tol.rtol = *rtol;
    if (atol) tol.atol = *atol;
    runtime::CompareResult c = runtime::Compare(a, e, tol);
    if (c.worst >= 0 && (result->worst.empty() || c.max_abs_error > result->max_abs_error)) {
      result->worst = ElementName(name, a.shape(), c.worst);
    } else if (result->worst.empty() && a.NumElements() > 0) {
      // Every element equal: the first is as bad as any.
      result->worst = ElementName(name, a.shape(), 0);
    }
    result->max_abs_error = std::max(result->max_abs_error, c.max_abs_error);
    result->max_rel_error = std::max(result->max_rel_error, c.max_rel_error);
    if (c.ok) continue;
    const bool integral = !e.dtype().is_float();
    auto value = [&](const runtime::NDArray& t) {
      return integral ? std::to_string(t.GetInt(c.worst)) : Number(t.GetDouble(c.worst));
    };
    problems += std::string(problems.empty() ? "" : "; ") + std::to_string(c.mismatches) + " of " +
                std::to_string(a.NumElements()) + " elements of " + name + " differ (worst " +
                ElementName(name, a.shape(), c.worst) + ": got " + value(a) + ", expected " + value(e) +
                "; max abs error " + Number(c.max_abs_error) + ", rtol " + Number(tol.rtol) + ", atol " +
                Number(tol.atol) + ")";
  }
  if (!problems.empty() && result->status == RunStatus::kOk) {
    result->status = RunStatus::kMismatch;
    result->message = problems;
  }
}

// --- The VM's values -----------------------------------------------------------------------------

vm::Value ToVM(const relax::Value& v) {
  switch (v.kind) {
    case relax::Value::Kind::kTensor: return vm::Value::Tensor(v.tensor.Copy());
    case relax::Value::Kind::kShape: return vm::Value::Shape(v.shape);
    case relax::Value::Kind::kPrim:
      return v.dtype.is_floating_point() ? vm::Value::Float(v.float_value) : vm::Value::Int(v.int_value);
    case relax::Value::Kind::kString: return vm::Value::String(v.string_value);
    case relax::Value::Kind::kTuple: {
      std::vector<vm::Value> fields;
      for (const auto& f : v.fields) fields.push_back(ToVM(f));
      return vm::Value::Tuple(std::move(fields));
    }
    default: throw vm::VMError("the VM takes no argument of kind " + v.Describe());
  }
}

relax::Value FromVM(const vm::Value& v, const relax::Value& like) {
  switch (v.kind) {
    // A result the VM left on its device is compared on the host.
    case vm::Value::Kind::kTensor: return relax::Value::Tensor(v.tensor.is_cpu() ? v.tensor : v.tensor.CopyTo(runtime::CPU()));
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
    default: return relax::Value::TupleOf({});  // a comparison reports the kind mismatch
  }
}

namespace {

// The tensors of a result, named `output` or `output_0`, `output_1_0`... for tuples.
void Flatten(const relax::Value& v, const std::string& name, Named* out) {
  if (v.kind == relax::Value::Kind::kTensor) out->push_back({name, v.tensor});
  for (size_t i = 0; i < v.fields.size(); ++i) Flatten(v.fields[i], name + "_" + std::to_string(i), out);
}

// --- Counting the work of a VM call --------------------------------------------------------------

// Wraps the kernels so that every call adds the FLOPs and operations of its PrimFunc, with the
// symbolic dims of its buffers bound from the tensors it really gets: the work of one VM call,
// symbolic or not.
class WorkCountingModule : public runtime::ModuleNode {
 public:
  // `flop_funcs`: the kernels the FLOPs are counted on where they differ from those run (before
  // the default schedules' padding), by the same symbols.
  WorkCountingModule(runtime::Module inner, std::map<std::string, tir::PrimFunc> funcs,
                     std::map<std::string, tir::PrimFunc> flop_funcs, int64_t cache_bytes)
      : inner_(std::move(inner)), funcs_(std::move(funcs)), flop_funcs_(std::move(flop_funcs)),
        cache_bytes_(cache_bytes) {}

  std::string type_key() const override { return "work-count"; }
  std::vector<std::string> FunctionNames() const override { return inner_->FunctionNames(); }
  runtime::PackedFunc GetFunction(const std::string& name) override {
    runtime::PackedFunc real = inner_.get_function(name);
    if (!real.defined()) return {};
    auto it = funcs_.find(name);
    tir::PrimFunc func = it == funcs_.end() ? tir::PrimFunc() : it->second;
    auto flop_it = flop_funcs_.find(name);
    tir::PrimFunc flop_func = flop_it == flop_funcs_.end() ? func : flop_it->second;
    return runtime::PackedFunc([this, real, func, flop_func, name](const std::vector<runtime::PackedArg>& args,
                                                                   runtime::PackedRet* ret) {
      Count(name, func, flop_func, args);
      *ret = real.Call(args);
    });
  }

  std::optional<double> flops() const { return flops_known_ ? std::optional<double>(flops_) : std::nullopt; }
  std::optional<double> operations() const { return ops_known_ ? std::optional<double>(ops_) : std::nullopt; }
  std::optional<double> bytes() const { return bytes_known_ ? std::optional<double>(bytes_) : std::nullopt; }
  bool parallel() const { return parallel_; }
  // Per kernel symbol, the FLOPs of its calls (absent: not countable).
  const std::map<std::string, std::optional<double>>& flops_by_kernel() const { return flops_by_kernel_; }

 private:
  // The symbolic dims of `func`'s buffers bound from the tensors of a call.
  static codegen::VarBindings Bind(const tir::PrimFunc& func, const std::vector<runtime::PackedArg>& args) {
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
    return bindings;
  }

  void Count(const std::string& name, const tir::PrimFunc& func, const tir::PrimFunc& flop_func,
             const std::vector<runtime::PackedArg>& args) {
    auto [kernel_flops, first] = flops_by_kernel_.emplace(name, 0.0);
    if (!func.defined()) {
      flops_known_ = ops_known_ = bytes_known_ = false;
      kernel_flops->second.reset();
      return;
    }
    codegen::VarBindings bindings = Bind(func, args);
    // A model calls the same kernel with the same shapes many times: count each pair once.
    std::pair<const tir::PrimFuncNode*, codegen::VarBindings> key{func.get(), bindings};
    auto it = counted_.find(key);
    if (it == counted_.end()) {
      const bool same = flop_func.get() == func.get();
      it = counted_.emplace(std::move(key), Work{codegen::CountFlops(flop_func, same ? bindings : Bind(flop_func, args)),
                                                 codegen::CountOperations(func, bindings),
                                                 codegen::CountMemoryTraffic(func, bindings, cache_bytes_)})
               .first;
    }
    if (it->second.traffic.bytes) bytes_ += *it->second.traffic.bytes;
    else bytes_known_ = false;
    parallel_ = parallel_ || it->second.traffic.parallel;
    if (it->second.flops) {
      flops_ += *it->second.flops;
      if (kernel_flops->second) *kernel_flops->second += *it->second.flops;
    } else {
      flops_known_ = false;
      kernel_flops->second.reset();
    }
    if (it->second.operations) ops_ += *it->second.operations;
    else ops_known_ = false;
  }

  struct Work {
    std::optional<double> flops, operations;
    codegen::MemoryTraffic traffic;
  };

  runtime::Module inner_;
  std::map<std::string, tir::PrimFunc> funcs_, flop_funcs_;
  std::map<std::pair<const tir::PrimFuncNode*, codegen::VarBindings>, Work> counted_;
  std::map<std::string, std::optional<double>> flops_by_kernel_;
  int64_t cache_bytes_;
  double flops_ = 0, ops_ = 0, bytes_ = 0;
  bool flops_known_ = true, ops_known_ = true, bytes_known_ = true;
  bool parallel_ = false;
};

// The kernels of a VM build by the symbol the VM calls them with.
std::map<std::string, tir::PrimFunc> KernelsBySymbol(const ir::IRModule& lowered) {
  std::map<std::string, tir::PrimFunc> kernels;
  if (!lowered.defined()) return kernels;
  for (size_t i = 0; i < lowered->size(); ++i) {
    auto p = lowered->functions[i].as_ref<tir::PrimFuncNode>();
    if (!p.defined()) continue;
    std::string symbol = p->global_symbol();
    kernels[symbol.empty() ? lowered->global_vars[i]->name_hint : symbol] = p;
  }
  return kernels;
}

// --- One function --------------------------------------------------------------------------------

// What one function's run tells its caller as it goes, wherever it runs.
struct Hooks {
  std::function<void(const std::string& stage)> stage;
  std::function<bool()> cancelled;             // asked between samples; null in a child
  std::function<void(double seconds)> sample;  // each sample's time per call
};

// The module as written, built for the host CPU with LLVM, made when a function first needs it.
class CompiledReference {
 public:
  CompiledReference(ir::IRModule module, std::shared_ptr<const CompiledModule> built)
      : module_(std::move(module)), built_(std::move(built)) {}
  const CompiledModule* Get(std::string* error) {
    if (!built_) {
      built_ = std::make_shared<CompiledModule>(Compile(module_, codegen::Target::Host(),
                                                        /*default_schedule=*/false));
    }
    if (!built_->ok()) {
      *error = "the compiled reference could not be built: " +
               (built_->diagnostics.empty() ? std::string("no reason given") : RenderDiagnostics(built_->diagnostics));
      return nullptr;
    }
    return built_.get();
  }
  bool built() const { return built_ != nullptr; }

 private:
  ir::IRModule module_;
  std::shared_ptr<const CompiledModule> built_;
};

struct RunContext {
  const CompiledModule& compiled;
  const RunCheckRequest& request;
  ir::IRModule reference_module;
  runtime::DLDevice device;
  CompiledReference* compiled_reference;
};

// The cache a nest must fit in to move its data once: the last-level cache of the CPU target.
int64_t TrafficCacheBytes(const codegen::Target& target) {
  return target.l3_cache_bytes > 0 ? target.l3_cache_bytes : target.l2_cache_bytes;
}

// The reference a function's check uses: `auto` by the work it executes.
ReferenceKind Resolve(ReferenceKind asked, std::optional<double> operations) {
  if (asked != ReferenceKind::kAuto) return asked;
  return operations && *operations <= kAutoInterpreterLimit ? ReferenceKind::kInterpreter
                                                            : ReferenceKind::kCompiled;
}

// A buffer larger than the last-level cache, streamed through before each sample.
void FlushCaches() {
  static std::vector<uint8_t> buffer(256u << 20);
  static uint8_t value = 0;
  ++value;
  for (size_t i = 0; i < buffer.size(); i += 64) buffer[i] = value;
}

}  // namespace

runtime::TimeEvaluatorOptions EvaluatorOptions(const TimingOptions& timing) {
  runtime::TimeEvaluatorOptions options;
  options.number = timing.number;
  options.repeat = timing.repeat;
  options.min_repeat_ms = timing.min_repeat_ms;
  options.cooldown_interval_ms = timing.cooldown_ms;
  if (timing.flush_cache) options.preproc = FlushCaches;
  return options;
}

std::vector<runtime::TimeEvaluatorResult> TimeInterleaved(const std::vector<TimedCall>& calls, int rounds,
                                                          const TimingOptions& timing) {
  TimingOptions one = timing;
  one.repeat = 1;
  const runtime::TimeEvaluatorOptions options = EvaluatorOptions(one);
  std::vector<runtime::TimeEvaluatorResult> results(calls.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < calls.size(); ++i) {
      runtime::TimeEvaluatorResult r = runtime::TimeEvaluate(calls[i].fn, calls[i].args, options);
      results[i].samples_s.insert(results[i].samples_s.end(), r.samples_s.begin(), r.samples_s.end());
      results[i].final_number = r.final_number;
      results[i].total_calls += r.total_calls;
    }
  }
  return results;
}

namespace {

// Times `fn` as the request says, one sample at a time through the hooks; false (with `r`'s status
// set) when it failed or was cancelled.
bool Time(const RunContext& ctx, const runtime::PackedFunc& fn, const std::vector<runtime::PackedArg>& args,
          const Hooks& hooks, FunctionResult* r) {
  const TimingOptions& t = ctx.request.timing;
  runtime::TimeEvaluatorOptions options = EvaluatorOptions(t);
  int k = 0;
  bool stopped = false;
  options.on_sample = [&](double seconds) {
    ++k;
    if (hooks.sample) hooks.sample(seconds);
    if (k < t.repeat) {
      if (hooks.cancelled && hooks.cancelled()) {
        stopped = true;
        return false;
      }
      hooks.stage("time " + r->name + " (" + std::to_string(k + 1) + "/" + std::to_string(t.repeat) + ")");
    }
    return true;
  };
  hooks.stage("time " + r->name + " (1/" + std::to_string(t.repeat) + ")");
  try {
    runtime::TimeEvaluatorResult timed =
        ctx.device.device_type == runtime::kDLCUDA
            ? runtime::cuda::TimeEvaluateCuda(fn, args, options, ctx.device.device_id)
            : runtime::TimeEvaluate(fn, args, options);
    r->samples_s = timed.samples_s;
    r->number = timed.final_number;
  } catch (const std::exception& e) {
    r->status = RunStatus::kFailed;
    r->message = std::string("timing failed: ") + e.what();
    r->samples_s.clear();
    return false;
  }
  if (stopped) {
    r->status = RunStatus::kCancelled;
    r->message = "cancelled after " + std::to_string(k) + " of " + std::to_string(t.repeat) + " repeats";
    return false;
  }
  return true;
}

// The buffers a PrimFunc stores into, by name: its outputs.
std::set<std::string> WrittenBuffers(const tir::PrimFunc& f) {
  std::set<std::string> names;
  tir::PostOrderVisit(f->body, [&](const ir::Object* node) {
    if (auto* store = dynamic_cast<const tir::BufferStoreNode*>(node)) names.insert(store->buffer->name);
  });
  return names;
}

FunctionResult RunPrimFunc(const RunContext& ctx, const std::string& name, const tir::PrimFunc& f,
                           const Hooks& hooks) {
  FunctionResult r;
  r.name = name;
  auto fail = [&](std::string message) {
    r.status = RunStatus::kFailed;
    r.message = std::move(message);
    return r;
  };
  // The function as written: what the reference runs and what names the outputs.
  ir::BaseFunc written = ctx.reference_module->Lookup(name);
  tir::PrimFunc ref = written.defined() ? written.as_ref<tir::PrimFuncNode>() : tir::PrimFunc();
  ir::IRModule ref_module = ref.defined() ? ctx.reference_module : ctx.request.module;
  if (!ref.defined()) ref = f;
  PrimFuncInputs in;
  std::string error;
  InputSpec spec{ctx.request.inputs, ctx.request.seed, ctx.request.symbolic_extent};
  if (!MakePrimFuncInputs(f, name, spec, &in, &error)) return fail(error);
  r.flops = codegen::CountFlops(f, in.bindings);
  r.operations = codegen::CountOperations(ref, in.bindings);
  codegen::MemoryTraffic traffic = codegen::CountMemoryTraffic(f, in.bindings, TrafficCacheBytes(ctx.compiled.target));
  r.bytes = traffic.bytes;
  r.parallel = traffic.parallel;
  const bool given = ctx.request.expected_outputs != nullptr;
  const ReferenceKind reference = given ? ReferenceKind::kNone : Resolve(ctx.request.reference, r.operations);
  hooks.stage((reference == ReferenceKind::kNone && !given ? "run " : "run and check ") + name);
  // The inputs kept for a reference run (which gets them as they were, not as the kernel left
  // them); given outputs need no copy.
  PrimFuncInputs expected = given ? PrimFuncInputs() : in.Copy();
  const bool on_device = ctx.device.device_type != runtime::kDLCPU;
  std::vector<runtime::NDArray> device_arrays(f->params.size());
  std::vector<runtime::PackedArg> args;
  try {
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (in.arrays[i].defined()) {
        if (on_device) device_arrays[i] = in.arrays[i].CopyTo(ctx.device);
        args.emplace_back(on_device ? device_arrays[i] : in.arrays[i]);
      } else if (f->params[i]->dtype.is_floating_point()) {
        args.emplace_back(*in.scalars[i]);
      } else {
        args.emplace_back(static_cast<int64_t>(*in.scalars[i]));
      }
    }
  } catch (const runtime::Error& e) {
    return fail(e.what());
  }
  std::string symbol = f->global_symbol().empty() ? name : f->global_symbol();
  runtime::PackedFunc fn = ctx.compiled.kernels.get_function(symbol);
  if (!fn.defined()) return fail("the built module has no function '" + symbol + "'");
  double call_s = 0;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    fn.Call(args);
    // The results come back for the comparison (the copy waits for the kernels).
    for (size_t i = 0; i < f->params.size() && on_device; ++i) {
      if (device_arrays[i].defined()) in.arrays[i].CopyFrom(device_arrays[i]);
    }
    call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  // Every buffer is compared (a kernel that writes into an input is wrong too), the outputs
  // first, so that they name the worst element when all are equal.
  Named actual, wanted, actual_inputs, wanted_inputs;
  std::set<std::string> written_names = WrittenBuffers(ref);
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (!in.arrays[i].defined()) continue;
    bool in_ref = i < ref->buffer_map.size() && ref->buffer_map[i].defined();
    bool output = written_names.count(in_ref ? ref->buffer_map[i]->name : in.names[i]) > 0;
    if (given && !output) continue;
    (output ? actual : actual_inputs).push_back({in.names[i], in.arrays[i]});
    if (!given) (output ? wanted : wanted_inputs).push_back({in.names[i], expected.arrays[i]});
    if (ctx.request.keep_outputs && output) r.outputs.push_back({in.names[i], in.arrays[i].Copy()});
  }
  if (given) {
    r.reference = "expected";
    CompareOutputs(actual, *ctx.request.expected_outputs, ctx.request.rtol, ctx.request.atol, &r);
  }
  actual.insert(actual.end(), actual_inputs.begin(), actual_inputs.end());
  wanted.insert(wanted.end(), wanted_inputs.begin(), wanted_inputs.end());
  if (reference == ReferenceKind::kInterpreter) {
    tir::InterpretResult ir = tir::InterpretModule(ref_module, name, expected.InterpArgs(ref));
    if (!ir.ok()) return fail("the interpreter failed: " + RenderDiagnostics(ir.diagnostics));
  } else if (reference == ReferenceKind::kCompiled) {
    const CompiledModule* built = ctx.compiled_reference->Get(&error);
    if (!built) return fail(error);
    std::string ref_symbol = ref->global_symbol().empty() ? name : ref->global_symbol();
    runtime::PackedFunc ref_fn = built->kernels.defined() ? built->kernels.get_function(ref_symbol) : runtime::PackedFunc();
    if (!ref_fn.defined()) return fail("the compiled reference has no function '" + ref_symbol + "'");
    std::vector<runtime::PackedArg> ref_args;
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (expected.arrays[i].defined()) ref_args.emplace_back(expected.arrays[i]);
      else if (f->params[i]->dtype.is_floating_point()) ref_args.emplace_back(*expected.scalars[i]);
      else ref_args.emplace_back(static_cast<int64_t>(*expected.scalars[i]));
    }
    try {
      ref_fn.Call(ref_args);
    } catch (const std::exception& e) {
      return fail(std::string("the compiled reference failed: ") + e.what());
    }
  }
  if (reference != ReferenceKind::kNone) {
    r.reference = ReferenceName(reference);
    CompareOutputs(actual, wanted, ctx.request.rtol, ctx.request.atol, &r);
  }
  // A mismatching kernel still runs, and how fast it is matters while fixing it.
  if (ctx.request.profile && ctx.request.slow_call_s > 0 && call_s > ctx.request.slow_call_s) {
    r.too_slow = true;
    r.samples_s = {call_s};
    r.number = 1;
    if (r.message.empty()) {
      r.message = "not timed: its checked call took " + std::to_string(call_s) + " s, over the limit of " +
                  std::to_string(ctx.request.slow_call_s) + " s";
    }
  } else if (ctx.request.profile) {
    Time(ctx, fn, args, hooks, &r);
  }
  return r;
}

// The per-call breakdown of a timed Relax function: a few more calls through a profiling VM (about
// a tenth of a second of them, at least one), each call's time per function call.
void ProfileCalls(vm::VirtualMachine* machine, const std::string& vm_name, const std::vector<vm::Value>& args,
                  double median_s, const std::map<std::string, std::optional<double>>& flops_by_kernel,
                  FunctionResult* r) {
  const int calls = median_s > 0 ? std::clamp(static_cast<int>(0.1 / median_s), 1, 100) : 1;
  vm::CallProfile profile;
  machine->set_profile(&profile);
  try {
    for (int i = 0; i < calls; ++i) machine->Invoke(vm_name, args);
  } catch (const std::exception& e) {
    // The timed calls ran, so the run stays ok; the breakdown is left out, saying why.
    machine->set_profile(nullptr);
    r->message += (r->message.empty() ? "" : "; ") + std::string("no per-call profile: the profiled call failed: ") + e.what();
    return;
  }
  machine->set_profile(nullptr);
  for (const vm::CallProfile::Entry& e : profile.entries) {
    CallTime c{e.name, e.kernel, static_cast<double>(e.calls) / calls, e.seconds / calls, std::nullopt};
    if (auto it = flops_by_kernel.find(e.name); e.kernel && it != flops_by_kernel.end()) c.flops = it->second;
    r->call_times.push_back(std::move(c));
  }
  std::stable_sort(r->call_times.begin(), r->call_times.end(),
                   [](const CallTime& a, const CallTime& b) { return a.seconds > b.seconds; });
}

FunctionResult RunRelaxFunction(const RunContext& ctx, const std::string& name, const relax::Function& func,
                                const Hooks& hooks) {
  FunctionResult r;
  r.name = name;
  r.relax = true;
  auto fail = [&](std::string message) {
    r.status = RunStatus::kFailed;
    r.message = std::move(message);
    return r;
  };
  if (ctx.request.expected_outputs) return fail("expected outputs are for PrimFuncs; a Relax function is checked by a reference");
  auto ref = ctx.reference_module->Lookup(name).as_ref<relax::FunctionNode>();
  ir::IRModule ref_module = ref.defined() ? ctx.reference_module : ctx.request.module;
  if (!ref.defined()) ref = func;
  RelaxInputs in;
  std::string error;
  InputSpec spec{ctx.request.inputs, ctx.request.seed, ctx.request.symbolic_extent};
  if (!MakeRelaxInputs(ref, name, spec, &in, &error)) return fail(error);
  r.symbolic = in.symbolic;
  std::vector<vm::Value> vm_args;
  try {
    for (const auto& a : in.args) vm_args.push_back(ToVM(a));
  } catch (const vm::VMError& e) {
    return fail(e.what());
  }
  const vm::Executable& exec = *ctx.compiled.exec;
  std::string symbol = func->global_symbol();
  std::string vm_name = exec.FindFunction(name) >= 0 || symbol.empty() ? name : symbol;
  // A function that LiftTransformParams split (in the built module, not in the reference) takes
  // the reference's arguments as its callers give them: the weights through its transform
  // function once, untimed and uncounted, then its inputs and the transformed values.
  std::optional<transform::LiftedParams> lifted;
  if (!transform::FindLiftedParams(ref_module, name)) lifted = transform::FindLiftedParams(ctx.request.module, name);
  if (lifted && lifted->num_input <= vm_args.size()) {
    std::vector<vm::Value> weights(vm_args.begin() + lifted->num_input, vm_args.end());
    vm::Value transformed;
    try {
      vm::VirtualMachine machine(ctx.compiled.exec, ctx.compiled.kernels, ctx.device);
      transformed = machine.Invoke(lifted->transform, {vm::Value::Tuple(std::move(weights))});
    } catch (const std::exception& e) {
      return fail("the VM failed in " + lifted->transform + ": " + e.what());
    }
    vm_args.resize(lifted->num_input);
    for (const vm::Value& v : transformed.fields) vm_args.push_back(v);
  } else if (auto kept = transform::KeptParams(ref, func)) {
    // Bound parameters: the reference compares only when it gets their values from files too.
    std::string unbound;
    for (size_t i = 0, k = 0; i < ref->params.size(); ++i) {
      if (k < kept->size() && (*kept)[k] == i) {
        ++k;
        continue;
      }
      std::string ignored;
      const std::string& param = ref->params[i]->name_hint;
      if (!FindInputFile(ctx.request.inputs, name, param, &ignored).defined()) {
        unbound += (unbound.empty() ? "" : ", ") + param;
      }
    }
    if (!unbound.empty() && ctx.request.reference != ReferenceKind::kNone) {
      return fail("the pipeline bound the parameter(s) " + unbound + " of " + name +
                  " to constants (BindParams): give the reference their values as input files (<param>.npy in "
                  "the inputs directory), or run without a reference");
    }
    std::vector<vm::Value> args;
    for (size_t i : *kept) args.push_back(vm_args[i]);
    vm_args = std::move(args);
  }
  hooks.stage((ctx.request.reference == ReferenceKind::kNone ? "run " : "run and check ") + name);
  // The checked run counts the work through the wrapped kernels; the timed runs call them directly.
  auto counting = std::make_shared<WorkCountingModule>(ctx.compiled.kernels, KernelsBySymbol(ctx.compiled.lowered),
                                                       KernelsBySymbol(ctx.compiled.unscheduled),
                                                       TrafficCacheBytes(ctx.compiled.target));
  vm::Value actual;
  try {
    vm::VirtualMachine machine(ctx.compiled.exec,
                               ctx.compiled.kernels.defined() ? runtime::Module(counting) : runtime::Module(),
                               ctx.device);
    actual = machine.Invoke(vm_name, vm_args);
  } catch (const std::exception& e) {
    return fail(std::string("the VM failed: ") + e.what());
  }
  r.flops = ctx.compiled.kernels.defined() ? counting->flops() : std::optional<double>(0);
  r.operations = ctx.compiled.kernels.defined() ? counting->operations() : std::optional<double>(0);
  r.bytes = ctx.compiled.kernels.defined() ? counting->bytes() : std::optional<double>(0);
  r.parallel = counting->parallel();
  const ReferenceKind reference = Resolve(ctx.request.reference, r.operations);
  relax::Value expected;
  if (reference == ReferenceKind::kInterpreter) {
    relax::RelaxInterpretOptions options;
    options.legalize = transform::LegalizeCall;
    options.print = [](const std::string&) {};  // the VM's run printed them
    relax::RelaxInterpretResult ir = relax::InterpretRelax(ref_module, name, in.args, options);
    if (!ir.ok()) return fail("the interpreter failed: " + RenderDiagnostics(ir.diagnostics));
    expected = ir.value;
  } else if (reference == ReferenceKind::kCompiled) {
    const CompiledModule* built = ctx.compiled_reference->Get(&error);
    if (!built) return fail(error);
    if (!built->exec) return fail("the compiled reference has no Relax function '" + name + "'");
    std::string ref_symbol = ref->global_symbol();
    std::string ref_name = built->exec->FindFunction(name) >= 0 || ref_symbol.empty() ? name : ref_symbol;
    try {
      std::vector<vm::Value> ref_args;
      for (const auto& a : in.args) ref_args.push_back(ToVM(a));
      vm::VirtualMachine machine(built->exec, built->kernels);
      expected = FromVM(machine.Invoke(ref_name, ref_args), relax::Value());
    } catch (const std::exception& e) {
      return fail(std::string("the compiled reference failed: ") + e.what());
    }
  }
  relax::Value got = FromVM(actual, expected);
  Named actual_tensors;
  Flatten(got, "output", &actual_tensors);
  if (ctx.request.keep_outputs) {
    for (const auto& [n, t] : actual_tensors) r.outputs.push_back({n, t});
  }
  if (reference != ReferenceKind::kNone) {
    r.reference = ReferenceName(reference);
    Named expected_tensors;
    Flatten(expected, "output", &expected_tensors);
    // Shapes and scalars of the result are compared as values; tensors with the shared comparator.
    relax::ValueComparison structure = relax::CompareValues(got, expected);
    CompareOutputs(actual_tensors, expected_tensors, ctx.request.rtol, ctx.request.atol, &r);
    if (!structure.ok && r.status == RunStatus::kOk) {
      r.status = RunStatus::kMismatch;
      r.message = structure.message;
    }
  }
  if (ctx.request.profile) {
    auto machine = std::make_shared<vm::VirtualMachine>(ctx.compiled.exec, ctx.compiled.kernels, ctx.device);
    // The inputs go to the device once, outside the timed calls.
    if (ctx.device.device_type != runtime::kDLCPU) {
      for (auto& a : vm_args) {
        if (a.kind == vm::Value::Kind::kTensor && a.tensor.is_cpu()) a.tensor = a.tensor.CopyTo(ctx.device);
      }
    }
    runtime::PackedFunc call([machine, vm_name, vm_args](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      try {
        machine->Invoke(vm_name, vm_args);
      } catch (const vm::VMError& e) {
        throw runtime::Error(e.what());
      }
    });
    if (Time(ctx, call, {}, hooks, &r) && ctx.device.device_type == runtime::kDLCPU) {
      ProfileCalls(machine.get(), vm_name, vm_args, r.median_s(), counting->flops_by_kernel(), &r);
    }
  }
  return r;
}

FunctionResult RunFunction(const RunContext& ctx, size_t index, const Hooks& hooks) {
  const ir::IRModule& module = ctx.request.module;
  std::string name = module->global_vars[index]->name_hint;
  try {
    if (auto f = module->functions[index].as_ref<tir::PrimFuncNode>(); f.defined()) {
      return RunPrimFunc(ctx, name, f, hooks);
    }
    return RunRelaxFunction(ctx, name, module->functions[index].as_ref<relax::FunctionNode>(), hooks);
  } catch (const std::bad_alloc& e) {
    // Past an isolated run's memory limit (or the machine's): a status of its own, not a failure
    // of the function's meaning.
    FunctionResult r;
    r.name = name;
    r.status = RunStatus::kOutOfMemory;
    r.message = "out of memory: an allocation failed (" + std::string(e.what()) + ")";
    return r;
  } catch (const std::exception& e) {
    FunctionResult r;
    r.name = name;
    r.status = RunStatus::kFailed;
    r.message = e.what();
    return r;
  }
}

// The last lines a crashed or failed child wrote to stderr, for its message.
std::string StderrTail(const std::string& text) {
  std::string tail = text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 400) tail = "..." + tail.substr(tail.size() - 400);
  return tail.empty() ? "" : " (stderr: " + tail + ")";
}

// RunFunction in a child process: a kernel that crashes ends the child, not this process, and a
// cancel or the timeout kills the child at once, in the middle of a call if it must. Stages and
// each sample come back as they happen, so a cancel keeps the samples already taken.
FunctionResult RunFunctionInChild(const RunContext& ctx, size_t index, const CancellationToken& token,
                                  const std::function<void(const std::string&)>& stage) {
  FunctionResult partial;
  partial.name = ctx.request.module->global_vars[index]->name_hint;
  partial.relax = ctx.request.module->functions[index].as<relax::FunctionNode>() != nullptr;
  std::string last_stage;
  int samples_started = 0;
  ChildOptions options;
  options.cancelled = [&] { return token.cancelled(); };
  if (ctx.request.timeout_s) options.timeout_s = *ctx.request.timeout_s;
  if (ctx.request.memory_limit_bytes) options.memory_limit_bytes = *ctx.request.memory_limit_bytes;
  options.on_progress = [&](const std::string& message) {
    if (message.empty()) return;
    std::string text = message.substr(1);
    if (message[0] == 'S') {
      last_stage = text;
      samples_started += text.rfind("time ", 0) == 0;
      stage(text);
    } else if (message[0] == 'T') {
      partial.samples_s.push_back(std::strtod(text.c_str(), nullptr));
    }
  };
  ChildResult child = RunInChild(
      [&](ChildChannel& channel) {
        Hooks hooks;
        if (ctx.request.num_threads > 0) runtime::ThreadPool::Global().SetNumThreads(ctx.request.num_threads);
        hooks.stage = [&](const std::string& s) { channel.Progress("S" + s); };
        hooks.sample = [&](double seconds) {
          char text[40];
          std::snprintf(text, sizeof(text), "T%.17g", seconds);
          channel.Progress(text);
        };
        return ToJson(RunFunction(ctx, index, hooks)).dump();
      },
      options);
  // What the kernel wrote to stderr is not lost: it reaches ours in one piece, after the run.
  if (!child.stderr_text.empty()) std::fputs(child.stderr_text.c_str(), stderr);
  FunctionResult r = partial;
  switch (child.end) {
    case ChildEnd::kFinished: {
      FunctionResult done = FunctionResultFromJson(nlohmann::json::parse(child.payload, nullptr, false));
      if (done.status == RunStatus::kOutOfMemory && options.memory_limit_bytes) {
        done.message += " past the child's limit of " + std::to_string(options.memory_limit_bytes >> 20) +
                        " MiB beyond the parent's size";
      }
      return done;
    }
    case ChildEnd::kCancelled:
      r.status = RunStatus::kCancelled;
      r.message = samples_started > 0 ? "cancelled during repeat " + std::to_string(samples_started) + " of " +
                                            std::to_string(ctx.request.timing.repeat)
                                      : "cancelled while it ran";
      return r;
    case ChildEnd::kCrashed:
      r.status = RunStatus::kCrashed;
      r.signal = child.signal;
      r.message = child.message + (last_stage.empty() ? "" : " during " + last_stage) +
                  StderrTail(child.stderr_text);
      r.samples_s.clear();
      return r;
    case ChildEnd::kTimedOut:
      r.status = RunStatus::kTimedOut;
      r.message = child.message + (last_stage.empty() ? "" : " during " + last_stage);
      r.samples_s.clear();
      return r;
    case ChildEnd::kOutOfMemory:
      r.status = RunStatus::kOutOfMemory;
      r.message = child.message + (last_stage.empty() ? "" : " during " + last_stage) +
                  StderrTail(child.stderr_text);
      r.samples_s.clear();
      return r;
    default:
      r.status = RunStatus::kFailed;
      r.message = child.message + StderrTail(child.stderr_text);
      r.samples_s.clear();
      return r;
  }
}

bool IsGpuKernel(const ir::BaseFunc& func) {
  const ir::Object* cc = func->GetAttr("calling_conv");
  return cc && ir::IsInstance<ir::IntObj>(cc) && static_cast<const ir::IntObj*>(cc)->value == 2;
}

// The functions to run, by index into the module: the asked ones, or every entry point.
std::vector<size_t> Entries(const RunCheckRequest& request, std::string* error) {
  const ir::IRModule& module = request.module;
  const bool relax = HasRelaxFunctions(module);
  std::vector<size_t> out;
  std::string all;
  for (size_t i = 0; i < module->size(); ++i) {
    const ir::BaseFunc& f = module->functions[i];
    bool is_relax = f.as<relax::FunctionNode>() != nullptr;
    bool is_prim = f.as<tir::PrimFuncNode>() != nullptr && !IsGpuKernel(f);
    if (!is_relax && !is_prim) continue;
    const std::string& name = module->global_vars[i]->name_hint;
    if (!request.functions.empty()) {
      all += (all.empty() ? "" : ", ") + name;
      if (std::find(request.functions.begin(), request.functions.end(), name) != request.functions.end()) {
        out.push_back(i);
      }
      continue;
    }
    // A module with Relax functions runs them (its PrimFuncs are checked through their callers);
    // only the functions callable from outside.
    if (relax && (!is_relax || f->global_symbol().empty())) continue;
    out.push_back(i);
  }
  for (const auto& asked : request.functions) {
    if (!module->Lookup(asked).defined()) {
      *error = "no function '" + asked + "' (the module has: " + all + ")";
      return {};
    }
  }
  if (out.empty() && error->empty()) *error = "the module has no function to run";
  return out;
}

}  // namespace

RunCheckResult RunCompiled(const CompiledModule& compiled, const RunCheckRequest& request,
                           const CancellationToken& token, const ProgressFn& progress) {
  RunCheckResult out;
  out.target = compiled.target.str();
  auto report = [&](const std::string& stage, double fraction) {
    if (progress) progress(stage, fraction);
  };
  if (!compiled.ok()) {
    out.message = "nothing to run: the build failed";
    out.diagnostics = compiled.diagnostics;
    return out;
  }
  if (request.profile && (request.timing.number < 1 || request.timing.repeat < 1)) {
    out.message = "number and repeat must be at least 1";
    return out;
  }
  // A mistyped directory must not look like a run on the user's data.
  std::error_code ec;
  if (!request.inputs.empty() && request.inputs != "random" && !std::filesystem::is_directory(request.inputs, ec)) {
    out.message = "the input directory " + request.inputs + " does not exist";
    return out;
  }
  std::vector<size_t> entries = Entries(request, &out.message);
  if (entries.empty()) return out;
  runtime::DLDevice device{};
  if (compiled.target.is_cuda()) {
    std::string why;
    if (!runtime::cuda::CudaAvailable(&why)) {
      out.message = "no CUDA device: " + why;
      return out;
    }
    device.device_type = runtime::kDLCUDA;
  }
  ir::IRModule reference_module = request.reference_module.defined() ? request.reference_module : request.module;
  CompiledReference compiled_reference(reference_module, request.compiled_reference);
  RunContext ctx{compiled, request, reference_module, device, &compiled_reference};
  // A CUDA context does not survive a fork: GPU runs stay in this process.
  const bool isolate = request.isolate && device.device_type == runtime::kDLCPU;
  // Built here, once, before the children fork: each one would build it again.
  if (isolate && request.reference == ReferenceKind::kCompiled) {
    std::string ignored;
    compiled_reference.Get(&ignored);
  }
  // The roofs, before any kernel runs (a measurement must not share the machine with them).
  if (request.profile && device.device_type == runtime::kDLCPU) {
    std::string warning;
    report(request.measure_peaks ? "measure this machine's peaks" : "read this machine's peaks", 0);
    out.peaks = request.measure_peaks ? MeasureHostPeaks(request.num_threads, &warning)
                                      : HostPeaksFor(request.num_threads, &warning);
    if (!warning.empty()) out.diagnostics.Add(Diagnostic::Warning(warning));
  }
  const int per_function = 1 + (request.profile ? request.timing.repeat : 0);
  const double units = entries.size() * static_cast<double>(per_function);
  double done = 0;
  auto stage = [&](const std::string& text) {
    report(text, std::min(done / units, 1.0));
    ++done;
  };
  for (size_t n = 0; n < entries.size(); ++n) {
    size_t index = entries[n];
    if (token.cancelled()) {
      FunctionResult fr;
      fr.name = request.module->global_vars[index]->name_hint;
      fr.status = RunStatus::kCancelled;
      fr.message = "cancelled before it ran";
      out.functions.push_back(std::move(fr));
      out.cancelled = true;
      return out;
    }
    FunctionResult fr;
    if (isolate) {
      fr = RunFunctionInChild(ctx, index, token, stage);
    } else {
      Hooks hooks;
      hooks.stage = stage;
      hooks.cancelled = [&] { return token.cancelled(); };
      fr = RunFunction(ctx, index, hooks);
    }
    done = static_cast<double>((n + 1) * per_function);
    if (out.peaks && !fr.samples_s.empty()) {
      fr.peak_gflops = out.peaks->gflops(fr.parallel);
      fr.in_cache = fr.bytes && out.peaks->FitsInCache(*fr.bytes, fr.parallel);
      fr.peak_gbytes_per_s = fr.in_cache ? out.peaks->cache_gbytes_per_s(fr.parallel)
                                         : out.peaks->gbytes_per_s(fr.parallel);
    }
    const bool cancelled = fr.status == RunStatus::kCancelled;
    out.functions.push_back(std::move(fr));
    if (cancelled) {
      out.cancelled = true;
      return out;
    }
  }
  report("done", 1);
  return out;
}

RunCheckResult RunAndCheck(const RunCheckRequest& request, const CancellationToken& token,
                           const ProgressFn& progress) {
  RunCheckResult out;
  if (!request.module.defined()) {
    out.message = "nothing to run: no module";
    return out;
  }
  std::string error;
  auto target = codegen::ParseTarget(request.target, &error);
  if (!target) {
    out.message = "target: " + error;
    return out;
  }
  out.target = target->str();
  if (progress) progress("build for " + target->str(), 0);
  CompiledModule compiled = Compile(request.module, *target);
  if (!compiled.ok()) {
    out.message = "build for " + target->str() + " failed";
    out.diagnostics = compiled.diagnostics;
    return out;
  }
  if (token.cancelled()) {
    out.cancelled = true;
    return out;
  }
  return RunCompiled(compiled, request, token, progress);
}

}  // namespace wb::workbench
