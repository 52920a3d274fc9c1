#include "runtime/module_blob.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace wb::runtime {

namespace {

constexpr std::string_view kMagic = "WBIMPORTS1";

struct Format {
  ModuleSaver save;
  ModuleLoader load;
};

std::map<std::string, Format>& Formats() {
  static std::map<std::string, Format> formats;
  return formats;
}

std::mutex& FormatsMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void AppendField(std::string* out, std::string_view field) {
  uint64_t n = field.size();
  out->append(reinterpret_cast<const char*>(&n), sizeof(n));
  out->append(field);
}

bool ReadField(std::string_view bytes, size_t* pos, std::string_view* field) {
  uint64_t n = 0;
  if (bytes.size() - *pos < sizeof(n)) return false;
  std::memcpy(&n, bytes.data() + *pos, sizeof(n));
  *pos += sizeof(n);
  if (bytes.size() - *pos < n) return false;
  *field = bytes.substr(*pos, n);
  *pos += n;
  return true;
}

void RegisterModuleFormat(const std::string& type_key, ModuleSaver save, ModuleLoader load) {
  std::lock_guard<std::mutex> lock(FormatsMutex());
  Formats()[type_key] = {std::move(save), std::move(load)};
}

std::string SaveImports(const ModuleNode& host) {
  if (host.imports().empty()) return {};
  std::string out(kMagic);
  AppendField(&out, std::to_string(host.imports().size()));
  for (const auto& m : host.imports()) {
    ModuleSaver save;
    {
      std::lock_guard<std::mutex> lock(FormatsMutex());
      auto it = Formats().find(m->type_key());
      if (it != Formats().end()) save = it->second.save;
    }
    if (!save) throw Error("an imported '" + m->type_key() + "' module cannot be saved into a library");
    AppendField(&out, m->type_key());
    AppendField(&out, save(*m));
  }
  return out;
}

bool LoadImports(std::string_view blob, ModuleNode* host, std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  if (blob.substr(0, kMagic.size()) != kMagic) return fail("the library's imported modules are of an unknown format");
  size_t pos = kMagic.size();
  std::string_view count_text;
  if (!ReadField(blob, &pos, &count_text)) return fail("the library's imported modules are truncated");
  const size_t count = std::strtoull(std::string(count_text).c_str(), nullptr, 10);
  for (size_t i = 0; i < count; ++i) {
    std::string_view type_key, bytes;
    if (!ReadField(blob, &pos, &type_key) || !ReadField(blob, &pos, &bytes)) {
      return fail("the library's imported modules are truncated");
    }
    ModuleLoader load;
    {
      std::lock_guard<std::mutex> lock(FormatsMutex());
      auto it = Formats().find(std::string(type_key));
      if (it != Formats().end()) load = it->second.load;
    }
    if (!load) {
      return fail("the library imports a '" + std::string(type_key) + "' module, which this program cannot load" +
                  (type_key == "cuda" ? " (it was built without the CUDA runtime)" : ""));
    }
    std::string why;
    Module m = load(bytes, &why);
    if (!m.defined()) return fail("the library's '" + std::string(type_key) + "' module: " + why);
    host->Import(m.node());
  }
  return true;
}

}  // namespace wb::runtime
