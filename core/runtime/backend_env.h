// Calls from generated host code to other packed functions (TVM's TVMBackendGetFuncFromEnv and
// TVMFuncCall): `T.call_packed("name", args...)` compiles to a lookup of "name" through the
// module context (the module that holds the code, then the modules it imports: a GPU build's
// host module imports its CUDA module) and a packed call. Like the rest of the backend API,
// generated code reaches these through pointer globals its loader fills (LinkModuleEnv).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/module.h"

extern "C" {
// Finds `name` for the module whose context is `module_ctx`; *out receives a handle valid for
// the module's life. Returns 0, or -1 with the error set (WBAPISetLastError).
int32_t WBBackendGetFuncFromEnv(void* module_ctx, const char* name, void** out);
// Calls a handle from WBBackendGetFuncFromEnv with packed arguments. Returns 0, or -1 with the
// callee's message set as the last error.
int32_t WBFuncCall(void* func, WBValue* args, int32_t* type_codes, int32_t num_args, WBValue* ret_value,
                   int32_t* ret_tcode);
}

namespace wb::runtime {

// The globals a module that uses call_packed defines.
inline constexpr const char* kModuleCtxSymbol = "__wb_module_ctx";
inline constexpr const char* kGetFuncFromEnvSymbol = "__WBBackendGetFuncFromEnv";
inline constexpr const char* kFuncCallSymbol = "__WBFuncCall";

// The context generated code passes to WBBackendGetFuncFromEnv: the module (not owned: the
// module owns its ModuleEnv) and the functions looked up so far, which live as long as it.
class ModuleEnv {
 public:
  explicit ModuleEnv(ModuleNode* node) : node_(node) {}
  // The function `name` of the module itself, else of its imports (depth first), as TVM looks.
  PackedFunc* Find(const std::string& name);

 private:
  ModuleNode* node_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<PackedFunc>> cache_;
};

// Stores `env` and the two entry points in a module's globals (`lookup` as in LinkBackendApi).
template <typename Lookup>
void LinkModuleEnv(Lookup&& lookup, ModuleEnv* env) {
  if (void** slot = static_cast<void**>(lookup(kModuleCtxSymbol))) *slot = env;
  if (void** slot = static_cast<void**>(lookup(kGetFuncFromEnvSymbol))) {
    *slot = reinterpret_cast<void*>(&WBBackendGetFuncFromEnv);
  }
  if (void** slot = static_cast<void**>(lookup(kFuncCallSymbol))) *slot = reinterpret_cast<void*>(&WBFuncCall);
}

}  // namespace wb::runtime
