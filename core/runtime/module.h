// Modules: a compiled artifact holding named packed functions (TVM's runtime.Module). The JIT
// of core/codegen makes one in-process; LoadModule makes one from a `.so` that codegen exported,
// with only this runtime (no compiler) in the process.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/packed_func.h"

namespace wb::runtime {

class ModuleNode {
 public:
  virtual ~ModuleNode() = default;
  // "llvm" for the JIT, "so" for a loaded library.
  virtual std::string type_key() const = 0;
  // Null PackedFunc when the module has no such function.
  virtual PackedFunc GetFunction(const std::string& name) = 0;
  virtual std::vector<std::string> FunctionNames() const = 0;
  // Text views ("ll", "ll-opt", "asm"), empty when the module has none.
  virtual std::string GetSource(const std::string& format) const { return {}; }
  // Writes the module as a shared library; false with the reason when it cannot.
  virtual bool ExportLibrary(const std::string& path, std::string* error) const {
    if (error) *error = "module '" + type_key() + "' cannot be exported";
    return false;
  }

  // Modules this one imports (TVM's imports_): a GPU build's host module imports its device
  // module, and the host code's call_packed finds the kernels there (runtime/backend_env.h).
  void Import(std::shared_ptr<ModuleNode> other) { imports_.push_back(std::move(other)); }
  const std::vector<std::shared_ptr<ModuleNode>>& imports() const { return imports_; }

 private:
  std::vector<std::shared_ptr<ModuleNode>> imports_;
};

class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}
  bool defined() const { return node_ != nullptr; }
  ModuleNode* operator->() const { return node_.get(); }
  const std::shared_ptr<ModuleNode>& node() const { return node_; }

  // TVM's `mod.get_function(name)`; null when absent.
  PackedFunc get_function(const std::string& name) const {
    return node_ ? node_->GetFunction(name) : PackedFunc();
  }

 private:
  std::shared_ptr<ModuleNode> node_;
};

// dlopens a library that core/codegen exported, links the backend API into it and lists its
// entry functions. Null Module with the reason in *error on failure. Loading a library that is
// loaded now gives the same module (the loader maps a library once, and its module context is
// one slot).
Module LoadModule(const std::string& path, std::string* error);

}  // namespace wb::runtime
