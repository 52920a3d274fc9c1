// Runs a topi operator through create_prim_func and the reference interpreter on seeded random
// inputs, and compares every output element with a plain C++ reference computed in the test.
#pragma once

#include <QTest>
#include <functional>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "te/create_prim_func.h"
#include "tir/interpreter.h"
#include "tir/op.h"

namespace topi_check {

using wb::runtime::NDArray;
using Index = std::vector<int64_t>;

inline wb::ir::PrimExpr I64(int64_t v) { return wb::tir::make_const(wb::ir::DataType::Int(64), v); }
inline std::vector<wb::ir::PrimExpr> Shape(std::initializer_list<int64_t> dims) {
  std::vector<wb::ir::PrimExpr> out;
  for (int64_t d : dims) out.push_back(I64(d));
  return out;
}

inline int64_t Flat(const std::vector<int64_t>& shape, const Index& idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
  return f;
}
// The element of `a` at `idx`, as a double.
inline double At(const NDArray& a, const Index& idx) { return a.GetDouble(Flat(a.shape(), idx)); }

// Calls `f` for every index of `shape` in row-major order.
inline void ForEach(const std::vector<int64_t>& shape, const std::function<void(const Index&)>& f) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Index idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t r = k;
    for (size_t i = shape.size(); i > 0; --i) {
      idx[i - 1] = r % shape[i - 1];
      r /= shape[i - 1];
    }
    f(idx);
  }
}

struct Input {
  wb::te::Tensor tensor;
  std::vector<int64_t> shape;  // concrete (symbolic dims given a value)
  double low = -1, high = 1;
};

// Builds the PrimFunc of `inputs` -> `output`, runs it and checks it against `reference`
// (element at an output index, from the input arrays). Returns the inputs for extra checks.
inline bool Check(const std::vector<Input>& inputs, const wb::te::Tensor& output,
                  const std::vector<int64_t>& out_shape,
                  const std::function<double(const std::vector<NDArray>&, const Index&)>& reference,
                  uint64_t seed = 1, double tolerance_scale = 1) {
  std::vector<wb::te::PrimFuncArg> args;
  for (const Input& in : inputs) args.emplace_back(in.tensor);
  args.emplace_back(output);
  wb::tir::PrimFunc func = wb::te::create_prim_func(args);
  std::vector<NDArray> arrays;
  std::vector<wb::tir::InterpArg> iargs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NDArray a = NDArray::Empty(inputs[i].shape, wb::tir::ToRuntimeDType(inputs[i].tensor.dtype()));
    wb::runtime::RandomFillOptions opt;
    opt.seed = seed * 131 + i;
    if (inputs[i].tensor.dtype().is_floating_point()) {
      opt.low = inputs[i].low;
      opt.high = inputs[i].high;
    }
    wb::runtime::FillRandom(a, opt);
    arrays.push_back(a);
    iargs.emplace_back(a);
  }
  NDArray out = NDArray::Empty(out_shape, wb::tir::ToRuntimeDType(output.dtype()));
  iargs.emplace_back(out);
  wb::tir::InterpretResult r = wb::tir::Interpret(func, iargs);
  if (!r.ok()) {
    qWarning("%s", wb::RenderDiagnostics(r.diagnostics).c_str());
    return false;
  }
  NDArray expected = NDArray::Empty(out_shape, wb::tir::ToRuntimeDType(output.dtype()));
  ForEach(out_shape, [&](const Index& idx) {
    expected.SetDouble(Flat(out_shape, idx), reference(arrays, idx));
  });
  wb::runtime::Tolerance tol = wb::runtime::DefaultTolerance(out.dtype());
  tol.rtol *= tolerance_scale;
  tol.atol *= tolerance_scale;
  wb::runtime::CompareResult c = wb::runtime::Compare(out, expected, tol);
  if (!c.ok) qWarning("%s: %s", output.name().c_str(), c.message.c_str());
  return c.ok;
}

}  // namespace topi_check
