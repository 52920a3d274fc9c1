#include "runtime/backend_env.h"

#include <functional>

namespace wb::runtime {

PackedFunc* ModuleEnv::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = cache_.find(name); it != cache_.end()) return it->second.get();
  std::function<PackedFunc(ModuleNode*)> search = [&](ModuleNode* m) -> PackedFunc {
    for (const auto& imported : m->imports()) {
      if (PackedFunc f = imported->GetFunction(name); f.defined()) return f;
      if (PackedFunc f = search(imported.get()); f.defined()) return f;
    }
    return {};
  };
  PackedFunc f = node_->GetFunction(name);
  if (!f.defined()) f = search(node_);
  if (!f.defined()) return nullptr;
  auto& slot = cache_[name];
  slot = std::make_unique<PackedFunc>(std::move(f));
  return slot.get();
}

}  // namespace wb::runtime

extern "C" int32_t WBBackendGetFuncFromEnv(void* module_ctx, const char* name, void** out) {
  if (!module_ctx) {
    WBAPISetLastError((std::string("cannot call '") + name +
                       "': the module was loaded without a module context (load it with the JIT)")
                          .c_str());
    return -1;
  }
  auto* env = static_cast<wb::runtime::ModuleEnv*>(module_ctx);
  wb::runtime::PackedFunc* f = env->Find(name);
  if (!f) {
    WBAPISetLastError((std::string("call_packed: no function '") + name +
                       "' in the module or the modules it imports")
                          .c_str());
    return -1;
  }
  *out = f;
  return 0;
}

extern "C" int32_t WBFuncCall(void* func, WBValue* args, int32_t* type_codes, int32_t num_args,
                              WBValue* ret_value, int32_t* ret_tcode) {
  try {
    std::vector<wb::runtime::PackedArg> packed;
    packed.reserve(num_args);
    for (int32_t i = 0; i < num_args; ++i) packed.emplace_back(args[i], type_codes[i]);
    wb::runtime::PackedRet ret = static_cast<wb::runtime::PackedFunc*>(func)->Call(packed);
    if (ret_value) *ret_value = ret.value;
    if (ret_tcode) *ret_tcode = ret.code;
    return 0;
  } catch (const std::exception& e) {
    WBAPISetLastError(e.what());
    return -1;
  }
}
