#include "codegen/run_check.h"

#include <algorithm>
#include <filesystem>

#include "codegen/flop_count.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_time_evaluator.h"
#include "runtime/ndarray.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"

namespace wb::codegen {

using namespace tir;
using Status = FunctionRunResult::Status;

const char* StatusName(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kMismatch: return "mismatch";
    case Status::kError: return "error";
  }
  return "unknown";
}

double FunctionRunResult::median_s() const {
  if (samples_s.empty()) return 0;
  std::vector<double> s = samples_s;
  std::sort(s.begin(), s.end());
  return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
}

std::optional<double> FunctionRunResult::gflops_per_s() const {
  if (!flops || samples_s.empty() || median_s() <= 0) return std::nullopt;
  return *flops / median_s() / 1e9;
}

namespace {

struct Inputs {
  std::vector<runtime::NDArray> arrays;  // per param; null for scalars
  std::vector<std::optional<double>> scalars;
  VarBindings bindings;
};

runtime::NDArray FindNpy(const std::string& dir, const std::string& func, const std::string& param,
                         std::string* error) {
  if (dir.empty() || dir == "random") return {};
  for (auto path : {std::filesystem::path(dir) / func / (param + ".npy"),
                    std::filesystem::path(dir) / (param + ".npy")}) {
    if (std::filesystem::exists(path)) {
      runtime::NDArray a = runtime::LoadNpy(path.string(), error);
      if (!a.defined()) *error = path.string() + ": " + *error;
      return a;
    }
  }
  return {};
}

// Loads or makes every argument; fills *error when one cannot be made.
bool MakeInputs(const PrimFunc& f, const std::string& name, const RunCheckOptions& options, Inputs* in,
                std::string* error) {
  size_t n = f->params.size();
  in->arrays.resize(n);
  in->scalars.resize(n);
  // Files first, so that their shapes bind the shape variables.
  for (size_t i = 0; i < n; ++i) {
    const Var& p = f->params[i];
    Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : Buffer();
    // By parameter name, or by buffer name (`a: T.handle` matched to buffer A).
    runtime::NDArray a = FindNpy(options.inputs, name, p->name_hint, error);
    if (!a.defined() && error->empty() && b.defined() && b->name != p->name_hint) {
      a = FindNpy(options.inputs, name, b->name, error);
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
    for (size_t k = 0; k < b->shape.size(); ++k) {
      if (auto* v = b->shape[k].as<VarNode>()) in->bindings.emplace(v, a.shape()[k]);
    }
    in->arrays[i] = a;
  }
  for (size_t i = 0; i < n; ++i) {
    const Var& p = f->params[i];
    Buffer b = i < f->buffer_map.size() ? f->buffer_map[i] : Buffer();
    if (!b.defined()) {
      if (!in->scalars[i]) {
        *error = "scalar parameter '" + p->name_hint + "' needs a value: give --inputs DIR with " +
                 p->name_hint + ".npy";
        return false;
      }
      continue;
    }
    if (in->arrays[i].defined()) continue;
    std::vector<int64_t> shape;
    for (const auto& d : b->shape) {
      auto v = EvalIndex(d, in->bindings);
      if (!v) {
        *error = "the shape of " + b->name + " is symbolic: give --inputs DIR with an array that binds it";
        return false;
      }
      shape.push_back(*v);
    }
    runtime::NDArray a = runtime::NDArray::Empty(shape, ToRuntimeDType(b->dtype));
    runtime::FillRandom(a, options.seed * 1000 + i);
    in->arrays[i] = a;
  }
  return true;
}

}  // namespace

std::vector<FunctionRunResult> RunAndCheck(const ir::IRModule& source, const runtime::Module& built,
                                           const RunCheckOptions& options) {
  std::vector<FunctionRunResult> results;
  // GPU kernels (calling_conv 2) are no entry points: their host functions launch them (and the
  // interpreter runs those launches as it runs the host function).
  auto is_kernel = [](const ir::BaseFunc& func) {
    const ir::Object* cc = func->GetAttr("calling_conv");
    return cc && ir::IsInstance<ir::IntObj>(cc) && static_cast<const ir::IntObj*>(cc)->value == 2;
  };
  for (size_t fi = 0; fi < source->functions.size(); ++fi) {
    auto f = source->functions[fi].as_ref<PrimFuncNode>();
    if (!f.defined() || is_kernel(source->functions[fi])) continue;
    FunctionRunResult r;
    r.name = f->global_symbol().empty() ? source->global_vars[fi]->name_hint : f->global_symbol();
    auto fail = [&](Status s, std::string message) {
      r.status = s;
      r.message = std::move(message);
      results.push_back(r);
    };
    Inputs in;
    std::string error;
    if (!MakeInputs(f, r.name, options, &in, &error)) {
      fail(Status::kError, error);
      continue;
    }
    r.flops = CountFlops(f, in.bindings);
    const bool on_device = options.device.device_type != runtime::kDLCPU;
    std::vector<runtime::NDArray> reference;
    std::vector<runtime::NDArray> device_arrays(f->params.size());
    std::vector<InterpArg> iargs;
    std::vector<runtime::PackedArg> args;
    reference.reserve(f->params.size());
    try {
      for (size_t i = 0; i < f->params.size() && on_device; ++i) {
        if (in.arrays[i].defined()) device_arrays[i] = in.arrays[i].CopyTo(options.device);
      }
    } catch (const runtime::Error& e) {
      fail(Status::kError, e.what());
      continue;
    }
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (in.arrays[i].defined()) {
        reference.push_back(in.arrays[i].Copy());
        iargs.emplace_back(reference.back());
        args.emplace_back(on_device ? device_arrays[i] : in.arrays[i]);
      } else if (f->params[i]->dtype.is_floating_point()) {
        iargs.emplace_back(*in.scalars[i]);
        args.emplace_back(*in.scalars[i]);
      } else {
        iargs.emplace_back(static_cast<int64_t>(*in.scalars[i]));
        args.emplace_back(static_cast<int64_t>(*in.scalars[i]));
      }
    }
    runtime::PackedFunc fn = built.get_function(r.name);
    if (!fn.defined()) {
      fail(Status::kError, "the built module has no function '" + r.name + "'");
      continue;
    }
    try {
      fn.Call(args);
      // The results come back for the comparison (the copy waits for the kernels).
      for (size_t i = 0; i < f->params.size() && on_device; ++i) {
        if (device_arrays[i].defined()) in.arrays[i].CopyFrom(device_arrays[i]);
      }
    } catch (const runtime::Error& e) {
      fail(Status::kError, e.what());
      continue;
    }
    if (options.check) {
      InterpretResult ir = InterpretModule(source, source->global_vars[fi]->name_hint, iargs);
      if (!ir.ok()) {
        fail(Status::kError, "interpreter: " + RenderDiagnostics(ir.diagnostics));
        continue;
      }
      r.checked = true;
      size_t k = 0;
      for (size_t i = 0; i < f->params.size() && r.status == Status::kOk; ++i) {
        if (!in.arrays[i].defined()) continue;
        runtime::CompareResult c = runtime::Compare(in.arrays[i], reference[k++]);
        r.max_abs_error = std::max(r.max_abs_error, c.max_abs_error);
        if (!c.ok) {
          r.status = Status::kMismatch;
          r.message = f->params[i]->name_hint + ": " + c.message;
        }
      }
    }
    if (options.profile) {
      try {
        r.samples_s = on_device && options.device.device_type == runtime::kDLCUDA
                          ? runtime::cuda::TimeEvaluateCuda(fn, args, options.timing, options.device.device_id).samples_s
                          : runtime::TimeEvaluate(fn, args, options.timing).samples_s;
      } catch (const runtime::Error& e) {
        fail(Status::kError, e.what());
        continue;
      }
    }
    results.push_back(r);
  }
  return results;
}

}  // namespace wb::codegen
