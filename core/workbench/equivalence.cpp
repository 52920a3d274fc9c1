#include "workbench/equivalence.h"

#include <unordered_map>

#include "runtime/ndarray.h"
#include "tir/interpreter.h"

namespace wb::workbench {

namespace {

using Outcome = FunctionCheck::Outcome;

struct Inputs {
  std::vector<tir::InterpArg> args;
  std::vector<runtime::NDArray> arrays;  // parallel to the buffer params, for comparing
  std::vector<std::string> names;
  std::string skip_reason;
};

// Random arguments for `func`: every buffer gets seeded random contents (outputs too, so a pass
// that forgets to write something is caught), every scalar a small value.
Inputs MakeInputs(const tir::PrimFunc& func, const EquivalenceOptions& options) {
  Inputs in;
  std::unordered_map<const tir::VarNode*, int64_t> sizes;
  int64_t elements = 0;
  uint64_t seed = options.seed;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const tir::Var& param = func->params[i];
    tir::Buffer buffer = i < func->buffer_map.size() ? func->buffer_map[i] : tir::Buffer();
    if (!buffer.defined()) {
      if (param->dtype.is_handle()) {
        in.skip_reason = "parameter '" + param->name_hint + "' is a raw handle";
        return in;
      }
      int64_t value = options.symbolic_extent;
      sizes[param.get()] = value;
      if (param->dtype.is_floating_point()) {
        in.args.emplace_back(double(value));
      } else {
        in.args.emplace_back(value);
      }
      continue;
    }
    std::vector<int64_t> shape;
    for (const auto& dim : buffer->shape) {
      if (const int64_t* c = tir::AsConstInt(dim)) {
        shape.push_back(*c);
      } else if (auto* v = dim.as<tir::VarNode>()) {
        auto it = sizes.emplace(v, options.symbolic_extent).first;
        shape.push_back(it->second);
      } else {
        in.skip_reason = "buffer '" + buffer->name + "' has a computed symbolic shape";
        return in;
      }
    }
    if (!buffer->strides.empty()) {
      in.skip_reason = "buffer '" + buffer->name + "' has explicit strides";
      return in;
    }
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    elements += n;
    if (elements > options.max_elements) {
      in.skip_reason = "arguments too large for the interpreter";
      return in;
    }
    runtime::NDArray array = runtime::NDArray::Empty(shape, tir::ToRuntimeDType(buffer->dtype));
    runtime::FillRandom(array, seed++);
    in.arrays.push_back(array);
    in.names.push_back(buffer->name);
    in.args.emplace_back(array);
  }
  return in;
}

// A fresh copy of the inputs (the interpreter writes buffers in place).
Inputs Copy(const Inputs& in) {
  Inputs out = in;
  out.args.clear();
  out.arrays.clear();
  for (const auto& arg : in.args) {
    if (const runtime::NDArray* array = arg.array()) {
      runtime::NDArray copy = array->Copy();
      out.arrays.push_back(copy);
      out.args.emplace_back(copy);
    } else {
      out.args.push_back(arg);
    }
  }
  return out;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kEqual:
      return "equal";
    case Outcome::kDifferent:
      return "different";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kSkipped:
      return "skipped";
  }
  return "unknown";
}

std::vector<FunctionCheck> CheckEquivalence(const ir::IRModule& before, const ir::IRModule& after,
                                            const EquivalenceOptions& options) {
  std::vector<FunctionCheck> checks;
  for (size_t i = 0; i < before->functions.size(); ++i) {
    auto func = before->functions[i].as_ref<tir::PrimFuncNode>();
    if (!func.defined()) continue;
    FunctionCheck check;
    check.name = before->global_vars[i]->name_hint;
    auto other = after->Lookup(check.name).as_ref<tir::PrimFuncNode>();
    if (!other.defined()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "no PrimFunc of that name after the transformation";
      checks.push_back(check);
      continue;
    }
    Inputs inputs = MakeInputs(func, options);
    if (!inputs.skip_reason.empty()) {
      check.outcome = Outcome::kSkipped;
      check.detail = inputs.skip_reason;
      checks.push_back(check);
      continue;
    }
    Inputs lhs = Copy(inputs), rhs = Copy(inputs);
    tir::InterpretOptions run_options;
    run_options.max_iterations = options.max_iterations;
    auto r1 = tir::InterpretModule(before, check.name, lhs.args, run_options);
    if (!r1.ok()) {
      check.outcome = Outcome::kSkipped;
      check.detail = "the original does not run: " + r1.diagnostics[0].message;
      checks.push_back(check);
      continue;
    }
    auto r2 = tir::InterpretModule(after, check.name, rhs.args, run_options);
    if (!r2.ok()) {
      check.outcome = Outcome::kFailed;
      check.detail = "the transformed function does not run: " + r2.diagnostics[0].message;
    } else {
      for (size_t k = 0; k < lhs.arrays.size(); ++k) {
        runtime::CompareResult cmp = runtime::Compare(rhs.arrays[k], lhs.arrays[k]);
        if (!cmp.ok) {
          check.outcome = Outcome::kDifferent;
          check.detail = "buffer '" + inputs.names[k] + "' differs: " + cmp.message;
          break;
        }
      }
    }
    checks.push_back(check);
  }
  return checks;
}

}  // namespace wb::workbench
