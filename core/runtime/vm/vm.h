// The Relax virtual machine (TVM's relax_vm::VirtualMachine): runs the functions of an
// Executable by name on Values, calling kernels of a runtime::Module (the PrimFuncs that
// codegen::Build compiled) through their packed functions and the VM's builtins (allocation,
// shape checks and matching, tuples) by name. Runtime only: no IR headers.
//
//   VirtualMachine vm(exec, kernels);
//   Value out = vm["main"](x, w0, b0);
//
// A wrong argument (count, rank, dtype, a dim that differs from the declared one or from another
// use of the same symbolic var) throws VMError naming the function and the parameter.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/module.h"
#include "runtime/vm/executable.h"

namespace wb::runtime::vm {

class VMError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A builtin: args in, result out (Value() for none). Throws VMError.
using Builtin = std::function<Value(std::vector<Value>& args)>;

// The shape-matching codes of vm.builtin.match_shape and vm.builtin.make_shape (TVM's
// MatchShapeCode / MakeShapeCode). The *Program codes are this VM's stand-in for the shape
// PrimFunc that TVM's VMShapeLower generates for compound dims (`n * 2`): the value is a shape
// program (below), a shape constant.
enum MatchShapeCode : int64_t {
  kAssertEqualToImm = 0,
  kStoreToHeap = 1,
  kNoOp = 2,
  kAssertEqualToLoad = 3,
  kAssertEqualToProgram = 4,
};
enum MakeShapeCode : int64_t {
  kUseImm = 0,
  kLoadShape = 1,
  kEvalProgram = 2,
};

// A shape program: integer arithmetic over heap slots in postfix, as a flat list of opcodes
// (kPushImm and kPushHeap take the next entry as operand). Integer division and modulo floor,
// as TensorIR's floordiv/floormod; comparisons give 1 or 0 (an R.assert_op's condition).
enum ShapeProgramOp : int64_t {
  kPushImm = 0,
  kPushHeap = 1,
  kProgAdd = 2,
  kProgSub = 3,
  kProgMul = 4,
  kProgFloorDiv = 5,
  kProgFloorMod = 6,
  kProgMin = 7,
  kProgMax = 8,
  kProgEQ = 9,
  kProgNE = 10,
  kProgLT = 11,
  kProgLE = 12,
  kProgGT = 13,
  kProgGE = 14,
};
// Throws VMError on a malformed program or a division by zero.
int64_t EvalShapeProgram(const std::vector<int64_t>& program, const std::vector<int64_t>& heap);

// The builtins every VM has, by name (vm.builtin.*).
const std::map<std::string, Builtin>& Builtins();

class VirtualMachine;

// `vm["main"]`: a callable handle on one function.
class VMClosure {
 public:
  VMClosure(VirtualMachine* vm, std::string name) : vm_(vm), name_(std::move(name)) {}
  Value operator()(std::vector<Value> args) const;
  template <typename... Args>
  Value operator()(Args&&... args) const {
    return (*this)(std::vector<Value>{Value(std::forward<Args>(args))...});
  }

 private:
  VirtualMachine* vm_;
  std::string name_;
};

// vm.builtin.alloc_tensor and vm.builtin.alloc_storage allocating on `device` (the table's
// entries allocate on the CPU); null for any other name.
Builtin DeviceBuiltin(const std::string& name, DLDevice device);

// What a profiled run spent in each packed call (TVM's VM profiler): kernels and builtins by the
// name the program calls them with, in the order they were first called; times are wall-clock
// seconds summed over every call since the profile was attached (on a device other than the CPU,
// each call is followed by a stream synchronization, so a kernel's time is its execution).
struct CallProfile {
  struct Entry {
    std::string name;
    bool kernel = false;  // a kernel of the module, else a builtin
    int64_t calls = 0;
    double seconds = 0;
  };
  std::vector<Entry> entries;
};

class VirtualMachine {
 public:
  // `kernels` may be null when the program calls no kernel. `device` is where the program's
  // tensors live: the allocation builtins allocate there and the kernels (built for that
  // device's target) take tensors there. On a device other than the CPU, tensor arguments and
  // constants that are on the host are copied to the device first (a constant once per VM), and
  // results stay on the device: copy them back with NDArray::CopyTo(CPU()).
  VirtualMachine(std::shared_ptr<const Executable> exec, Module kernels, DLDevice device = {});

  Value Invoke(const std::string& name, std::vector<Value> args);
  VMClosure operator[](const std::string& name) { return VMClosure(this, name); }
  DLDevice device() const { return device_; }
  // Times every packed call into `profile` from now on (null: off, the default). The profile must
  // outlive the calls; profiling costs two clock reads a call.
  void set_profile(CallProfile* profile) {
    profile_ = profile;
    profile_slot_.clear();
  }

 private:
  Value RunFunction(int64_t func_idx, std::vector<Value> args, int depth);
  Value CallPacked(int64_t func_idx, std::vector<Value>& args);
  // `v` with every host tensor in it (tuples too) copied to device_.
  Value OnDevice(Value v) const;
  const Value& Constant(int64_t index);

  std::shared_ptr<const Executable> exec_;
  Module kernels_;
  DLDevice device_;
  // Resolved lazily, per function-table entry.
  std::vector<Builtin> resolved_;
  std::vector<char> is_kernel_;  // per function-table entry, once resolved
  CallProfile* profile_ = nullptr;
  std::vector<int64_t> profile_slot_;  // per function-table entry: its index in profile_, or -1
  // The constants copied to device_, by constant index (empty on the CPU).
  std::map<int64_t, Value> device_constants_;
};

}  // namespace wb::runtime::vm
