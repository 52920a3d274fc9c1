// Test helper: a fresh process with only the runtime (no IR, no LLVM) that loads an exported
// module and runs one function. Usage: wb_so_runner LIB.so FUNC N
// FUNC must compute C = A * 2 + B over float32 tensors of N elements; the helper fills A[i] = i,
// B[i] = 1000 and prints C, or the error, on stdout. Exit code 0 only on success.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/module.h"
#include "runtime/ndarray.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: wb_so_runner LIB.so FUNC N\n");
    return 2;
  }
  using namespace wb::runtime;
  std::string error;
  Module m = LoadModule(argv[1], &error);
  if (!m.defined()) {
    std::printf("load error: %s\n", error.c_str());
    return 1;
  }
  PackedFunc f = m.get_function(argv[2]);
  if (!f.defined()) {
    std::printf("no function %s\n", argv[2]);
    return 1;
  }
  int64_t n = std::atoll(argv[3]);
  NDArray a = NDArray::Empty({n}, Float(32)), b = NDArray::Empty({n}, Float(32));
  NDArray c = NDArray::Empty({n}, Float(32));
  for (int64_t i = 0; i < n; ++i) {
    a.SetDouble(i, static_cast<double>(i));
    b.SetDouble(i, 1000);
  }
  try {
    f(a, b, c);
  } catch (const Error& e) {
    std::printf("call error: %s\n", e.what());
    return 1;
  }
  for (int64_t i = 0; i < n; ++i) std::printf("%s%g", i ? " " : "", c.GetDouble(i));
  std::printf("\n");
  return 0;
}
