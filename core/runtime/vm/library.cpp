#include "runtime/vm/library.h"

#include <dlfcn.h>

#include <cstdint>
#include <string_view>

#include "runtime/c_backend_api.h"

namespace wb::runtime::vm {

std::optional<VMLibrary> LoadVMLibrary(const std::string& path, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<VMLibrary> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!raw) return fail("cannot load VM library '" + path + "': " + dlerror());
  // LoadModule below opens the same library again (the loader counts references); this handle
  // only reads the executable's bytes, which are copied out before it is closed.
  std::shared_ptr<void> handle(raw, [](void* h) { dlclose(h); });
  auto* bytes = static_cast<const char*>(dlsym(raw, kExecutableSymbol));
  auto* size = static_cast<const uint64_t*>(dlsym(raw, kExecutableSizeSymbol));
  if (!bytes || !size) {
    return fail("'" + path + "' holds no VM executable (no " + std::string(kExecutableSymbol) +
                "): export it with codegen::ExportVMLibrary");
  }
  std::string why;
  std::shared_ptr<Executable> exec = Executable::LoadFromBinary(std::string_view(bytes, *size), &why);
  if (!exec) return fail("'" + path + "': " + why);
  VMLibrary lib;
  lib.exec = exec;
  if (dlsym(raw, kFunctionListSymbol)) {
    lib.kernels = LoadModule(path, &why);
    if (!lib.kernels.defined()) return fail(why);
  }
  return lib;
}

}  // namespace wb::runtime::vm
