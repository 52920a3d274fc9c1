// Type-erased functions with TVM's packed calling convention: a call passes a list of values
// (tensors as DLTensor*, integers, floats), each tagged with a type code, and may return one.
// Generated kernels are packed functions; so are runtime builtins the tools call by name.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/c_backend_api.h"
#include "runtime/ndarray.h"

namespace wb::runtime {

// A failed packed call: the message the callee set (e.g. a MakePackedAPI argument check).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One argument: a value and its type code. NDArrays pass their DLTensor (not owned: the caller
// keeps the array alive for the call).
class PackedArg {
 public:
  PackedArg(const NDArray& a) : code_(kWBDLTensorHandle) { value_.v_handle = a.mutable_tensor(); }  // NOLINT
  PackedArg(DLTensor* t) : code_(kWBDLTensorHandle) { value_.v_handle = t; }  // NOLINT
  PackedArg(int64_t v) : code_(kWBArgInt) { value_.v_int64 = v; }            // NOLINT
  PackedArg(int v) : code_(kWBArgInt) { value_.v_int64 = v; }                // NOLINT
  PackedArg(double v) : code_(kWBArgFloat) { value_.v_float64 = v; }        // NOLINT
  PackedArg(float v) : code_(kWBArgFloat) { value_.v_float64 = v; }         // NOLINT
  PackedArg(std::nullptr_t) : code_(kWBNullptr) { value_.v_handle = nullptr; }  // NOLINT
  PackedArg(WBValue value, int32_t code) : value_(value), code_(code) {}

  WBValue value() const { return value_; }
  int32_t code() const { return code_; }

 private:
  WBValue value_{};
  int32_t code_;
};

struct PackedRet {
  WBValue value{};
  int32_t code = kWBNullptr;
};

class PackedFunc {
 public:
  using Body = std::function<void(const std::vector<PackedArg>&, PackedRet*)>;
  PackedFunc() = default;
  explicit PackedFunc(Body body) : body_(std::make_shared<Body>(std::move(body))) {}

  bool defined() const { return body_ != nullptr; }
  // Throws runtime::Error when the callee fails.
  PackedRet Call(const std::vector<PackedArg>& args) const;
  template <typename... Args>
  PackedRet operator()(Args&&... args) const {
    return Call(std::vector<PackedArg>{PackedArg(std::forward<Args>(args))...});
  }

 private:
  std::shared_ptr<Body> body_;
};

// A packed function over a C entry point. `keep_alive` holds what owns the code (a JIT session
// or a dlopen handle) for as long as the function lives.
PackedFunc WrapPackedCFunc(WBPackedCFunc fn, std::shared_ptr<void> keep_alive);

}  // namespace wb::runtime
