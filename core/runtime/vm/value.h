// Values the Relax VM holds in its registers and passes to builtins and kernels: tensors, tuples,
// shapes, integers, floats, strings, and the shape heap that symbolic dims are read into (TVM's
// VMShapeLower keeps them there).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace wb::runtime::vm {

struct Value {
  enum class Kind : uint8_t { kNull, kTensor, kTuple, kShape, kInt, kFloat, kString, kShapeHeap, kStorage };
  Kind kind = Kind::kNull;
  NDArray tensor;                               // kTensor; kStorage: its bytes (uint8)
  std::vector<Value> fields;                    // kTuple
  std::vector<int64_t> shape;                   // kShape
  int64_t int_value = 0;                        // kInt
  double float_value = 0;                       // kFloat
  std::string string_value;                     // kString
  std::shared_ptr<std::vector<int64_t>> heap;   // kShapeHeap: shared, builtins write into it

  Value() = default;
  Value(NDArray a) : kind(Kind::kTensor), tensor(std::move(a)) {}  // NOLINT: vm["main"](x, w)

  static Value Tensor(NDArray a) { Value v; v.kind = Kind::kTensor; v.tensor = std::move(a); return v; }
  static Value Tuple(std::vector<Value> f) { Value v; v.kind = Kind::kTuple; v.fields = std::move(f); return v; }
  static Value Shape(std::vector<int64_t> s) { Value v; v.kind = Kind::kShape; v.shape = std::move(s); return v; }
  static Value Int(int64_t i) { Value v; v.kind = Kind::kInt; v.int_value = i; return v; }
  static Value Float(double d) { Value v; v.kind = Kind::kFloat; v.float_value = d; return v; }
  static Value String(std::string s) { Value v; v.kind = Kind::kString; v.string_value = std::move(s); return v; }

  // For messages: `tensor (2, 3) float32`, `tuple of 2`, `shape (4, 5)`, `int 3`.
  std::string Describe() const;
};

}  // namespace wb::runtime::vm
