// Test helper: a fresh process with only the runtime and the VM (no IR, no LLVM) that loads a
// VM exported as one `.so` and runs one function. Usage: wb_vm_runner LIB.so FUNC IN_DIR OUT_DIR
// Argument i is IN_DIR/arg<i>.npy; the result's tensors, tuples flattened depth first, are
// written as OUT_DIR/out<i>.npy. Errors go to stdout; exit code 0 only on success.
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"

namespace {

using namespace wb::runtime;

void Flatten(const vm::Value& v, std::vector<NDArray>* out) {
  if (v.kind == vm::Value::Kind::kTensor) out->push_back(v.tensor);
  if (v.kind == vm::Value::Kind::kTuple) {
    for (const auto& f : v.fields) Flatten(f, out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: wb_vm_runner LIB.so FUNC IN_DIR OUT_DIR\n");
    return 2;
  }
  std::string error;
  auto lib = vm::LoadVMLibrary(argv[1], &error);
  if (!lib) {
    std::printf("load error: %s\n", error.c_str());
    return 1;
  }
  int64_t idx = lib->exec->FindFunction(argv[2]);
  if (idx < 0) {
    std::printf("no function %s\n", argv[2]);
    return 1;
  }
  std::vector<vm::Value> args;
  for (int64_t i = 0; i < lib->exec->func_table[idx].num_args; ++i) {
    std::string path = std::string(argv[3]) + "/arg" + std::to_string(i) + ".npy";
    NDArray a = LoadNpy(path, &error);
    if (!a.defined()) {
      std::printf("input error: %s\n", error.c_str());
      return 1;
    }
    args.push_back(vm::Value::Tensor(a));
  }
  vm::VirtualMachine machine(lib->exec, lib->kernels);
  vm::Value result;
  try {
    result = machine.Invoke(argv[2], args);
  } catch (const vm::VMError& e) {
    std::printf("run error: %s\n", e.what());
    return 1;
  }
  std::vector<NDArray> outputs;
  Flatten(result, &outputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = std::string(argv[4]) + "/out" + std::to_string(i) + ".npy";
    if (!SaveNpy(path, outputs[i], &error)) {
      std::printf("output error: %s\n", error.c_str());
      return 1;
    }
  }
  std::printf("ran %s: %zu outputs\n", argv[2], outputs.size());
  return 0;
}
