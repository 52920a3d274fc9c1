#include "runtime/module.h"

#include <dlfcn.h>

#include <sstream>

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

 private:
  std::shared_ptr<void> handle_;
  std::vector<std::string> names_;
};

}  // namespace

Module LoadModule(const std::string& path, std::string* error) {
  // RTLD_LOCAL: two modules may define the same function names.
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!raw) {
    if (error) *error = "cannot load module '" + path + "': " + dlerror();
    return {};
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
  return Module(std::make_shared<LibraryModuleNode>(std::move(handle), std::move(names)));
}

}  // namespace wb::runtime
