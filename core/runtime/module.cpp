#include "runtime/module.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <sstream>

#include "runtime/backend_env.h"
#include "runtime/module_blob.h"

namespace wb::runtime {

namespace {

class LibraryModuleNode : public ModuleNode {
 public:
  LibraryModuleNode(std::shared_ptr<void> handle, std::vector<std::string> names)
      : handle_(std::move(handle)), names_(std::move(names)) {}

  std::string type_key() const override { return "so"; }

  PackedFunc GetFunction(const std::string& name) override {
    bool listed = false;
    for (const auto& n : names_) listed |= n == name;
    if (!listed) return {};
    void* symbol = dlsym(handle_.get(), name.c_str());
    if (!symbol) return {};
    return WrapPackedCFunc(reinterpret_cast<WBPackedCFunc>(symbol), handle_);
  }

  std::vector<std::string> FunctionNames() const override { return names_; }

  // What the library's call_packed reads: this module and its imports.
  ModuleEnv* env() { return &env_; }

 private:
  std::shared_ptr<void> handle_;
  std::vector<std::string> names_;
  ModuleEnv env_{this};
};

// The modules loaded now, by the loader's handle. The loader maps a library once however often
// it is opened, and the library's one module context slot can point at one module's
// environment only: a second load of a library still loaded is the module already made, not a
// second module that takes the slot over (and leaves it dangling when it goes first).
std::mutex loaded_mutex;
std::map<void*, std::weak_ptr<LibraryModuleNode>> loaded;

}  // namespace

Module LoadModule(const std::string& path, std::string* error) {
  std::lock_guard<std::mutex> lock(loaded_mutex);
  // RTLD_LOCAL: two modules may define the same function names.
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!raw) {
    if (error) *error = "cannot load module '" + path + "': " + dlerror();
    return {};
  }
  if (auto it = loaded.find(raw); it != loaded.end()) {
    if (std::shared_ptr<LibraryModuleNode> alive = it->second.lock()) {
      dlclose(raw);  // the module holds its own reference
      return Module(alive);
    }
    loaded.erase(it);
  }
  std::shared_ptr<void> handle(raw, [](void* h) { dlclose(h); });
  auto* list = static_cast<const char*>(dlsym(raw, kFunctionListSymbol));
  if (!list) {
    if (error) *error = "'" + path + "' is not a workbench module (no " +
                        std::string(kFunctionListSymbol) + ")";
    return {};
  }
  LinkBackendApi([&](const char* name) { return dlsym(raw, name); });
  std::vector<std::string> names;
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  auto node = std::make_shared<LibraryModuleNode>(std::move(handle), std::move(names));
  // Its device modules (a GPU build's kernels) come back as imports.
  auto* blob = static_cast<const char*>(dlsym(raw, kImportsSymbol));
  auto* blob_size = static_cast<const uint64_t*>(dlsym(raw, kImportsSizeSymbol));
  if (blob && blob_size) {
    std::string why;
    if (!LoadImports(std::string_view(blob, *blob_size), node.get(), &why)) {
      if (error) *error = "'" + path + "': " + why;
      return {};
    }
  }
  LinkModuleEnv([&](const char* name) { return dlsym(raw, name); }, node->env());
  loaded[raw] = node;
  return Module(node);
}

}  // namespace wb::runtime
