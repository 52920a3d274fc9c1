// Device modules inside an exported library (TVM's __tvm_dev_mblob): when a host module that
// imports device modules (a GPU build's CUDA module) is exported as a `.so`, its imports are
// saved into the library as one blob, each by the format registered for its type key, and
// LoadModule imports them back into the loaded module, so that the host code's call_packed
// finds its kernels through the module context in a fresh process too.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "runtime/module.h"

namespace wb::runtime {

// The blob's bytes and their count (uint64_t) as globals of the library.
inline constexpr const char* kImportsSymbol = "__wb_imports";
inline constexpr const char* kImportsSizeSymbol = "__wb_imports_size";

// A module's bytes; throws runtime::Error when the module cannot be saved.
using ModuleSaver = std::function<std::string(const ModuleNode&)>;
// The module back from those bytes; null with the reason in *error.
using ModuleLoader = std::function<Module(std::string_view bytes, std::string* error)>;

// Registers how modules of `type_key` are saved and loaded (once per type, at static
// initialization: runtime/cuda registers "cuda").
void RegisterModuleFormat(const std::string& type_key, ModuleSaver save, ModuleLoader load);

// The imports of `host` (not their own imports) as one blob; empty when it has none. Throws
// runtime::Error naming an import whose type has no registered format.
std::string SaveImports(const ModuleNode& host);

// Imports into `host` the modules `blob` holds; false with the reason (a corrupt blob, a module
// type this program has no format for).
bool LoadImports(std::string_view blob, ModuleNode* host, std::string* error);

// Length-prefixed fields, for the formats' own bytes.
void AppendField(std::string* out, std::string_view field);
// The next field at *pos; false when the bytes end before it.
bool ReadField(std::string_view bytes, size_t* pos, std::string_view* field);

}  // namespace wb::runtime
