// The C ABI between generated code and the runtime. Generated modules (JIT or `.so`) do not link
// against the runtime: each module defines the function-pointer globals below, initialised to
// null, and whoever loads the module (the JIT or runtime::LoadModule) stores the runtime's
// functions in them. So a `.so` needs no symbols from the process that dlopens it, and the
// same object code serves the in-process JIT and the exported library.
#pragma once

#include <cstdint>

extern "C" {

// One argument or return value of a packed function; its meaning is given by a type code.
union WBValue {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
};

// Type codes of packed-function arguments (TVM's numbering for the shared ones).
enum WBArgTypeCode : int32_t {
  kWBArgInt = 0,
  kWBArgFloat = 2,
  kWBOpaqueHandle = 3,
  kWBNullptr = 4,
  kWBDLTensorHandle = 7,
  kWBStr = 11,
};

// The packed calling convention of a generated entry function: returns 0 on success; on failure
// a non-zero value, with the message set through WBAPISetLastError.
typedef int32_t (*WBPackedCFunc)(WBValue* args, int32_t* type_codes, int32_t num_args,
                                 WBValue* out_ret_value, int32_t* out_ret_tcode,
                                 void* resource_handle);

// The body of a parallel loop: runs task `task_id` of `num_task`.
typedef int32_t (*WBParallelLambda)(int32_t task_id, int32_t num_task, void* cdata);

// Runs `flambda` on the runtime's thread pool with one task per pool thread, or `num_task` tasks
// when that is fewer (generated code passes the loop's extent, so that no thread is woken for an
// empty chunk, and a one-iteration loop runs on the caller); 0: one per pool thread. Returns the
// first non-zero task result, or 0.
int32_t WBBackendParallelLaunch(WBParallelLambda flambda, void* cdata, int32_t num_task);
void WBAPISetLastError(const char* message);
const char* WBGetLastError();
// Workspace memory for allocations too large for the stack (64-byte aligned).
void* WBBackendAllocWorkspace(int64_t nbytes);
int32_t WBBackendFreeWorkspace(void* ptr);

}  // extern "C"

namespace wb::runtime {

// The globals each generated module defines (pointers it calls through), and the names of the
// metadata it exports.
inline constexpr const char* kParallelLaunchSymbol = "__WBBackendParallelLaunch";
inline constexpr const char* kSetLastErrorSymbol = "__WBAPISetLastError";
inline constexpr const char* kAllocWorkspaceSymbol = "__WBBackendAllocWorkspace";
inline constexpr const char* kFreeWorkspaceSymbol = "__WBBackendFreeWorkspace";
// A NUL-terminated, comma-separated list of the module's packed entry functions.
inline constexpr const char* kFunctionListSymbol = "__wb_module_functions";

// Where the runtime's functions go: the address of each global (as found by dlsym or the JIT)
// receives the matching function. `lookup` returns null for a missing symbol.
template <typename Lookup>
void LinkBackendApi(Lookup&& lookup) {
  auto set = [&](const char* name, void* fn) {
    if (void** slot = static_cast<void**>(lookup(name))) *slot = fn;
  };
  set(kParallelLaunchSymbol, reinterpret_cast<void*>(&WBBackendParallelLaunch));
  set(kSetLastErrorSymbol, reinterpret_cast<void*>(&WBAPISetLastError));
  set(kAllocWorkspaceSymbol, reinterpret_cast<void*>(&WBBackendAllocWorkspace));
  set(kFreeWorkspaceSymbol, reinterpret_cast<void*>(&WBBackendFreeWorkspace));
}

}  // namespace wb::runtime
