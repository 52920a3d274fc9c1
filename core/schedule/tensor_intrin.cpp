#include "schedule/tensor_intrin.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "ir/structural_equal.h"
#include "script/tvmscript.h"

namespace wb::schedule {

namespace {

struct Pending {
  std::string name, desc, impl;
};

// Built-ins not parsed yet; registrars run during static initialisation, before main.
std::vector<Pending>& PendingBuiltins() {
  static std::vector<Pending> pending;
  return pending;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, TensorIntrin> intrins;
  bool builtins_loaded = false;
};

void CheckIntrin(const std::string& name, const TensorIntrin& intrin) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("TensorIntrin '" + name + "': " + why);
  };
  if (!intrin.desc.defined() || !intrin.impl.defined()) fail("needs a description and an implementation");
  if (intrin.desc->params.size() != intrin.impl->params.size()) {
    fail("The number of parameters of the description and the implementation of the tensor "
         "intrinsic doesn't match.");
  }
  for (size_t i = 0; i < intrin.desc->params.size(); ++i) {
    if (!intrin.desc->buffer_map[i].defined()) {
      fail("Parameters of the description of the tensor intrinsic should be handle only.");
    }
    if (!intrin.impl->buffer_map[i].defined()) {
      fail("Parameters of the implementation of the tensor intrinsic should be handle only.");
    }
  }
  for (const tir::PrimFunc& f : {intrin.desc, intrin.impl}) {
    const char* which = f.same_as(intrin.desc) ? "description" : "implementation";
    if (!f->body.as<tir::SBlockRealizeNode>()) {
      fail(std::string("the body of the ") + which +
           " must be one block, `with T.sblock(\"root\"):`, whose T.reads/T.writes are the "
           "regions of the parameters");
    }
  }
}

tir::PrimFunc ParseOne(const std::string& name, std::string_view script, const char* which) {
  script::ParseResult parsed = script::Parse(script, "<tensor intrin " + name + ">");
  if (!parsed.ok()) {
    std::string where;
    for (const Diagnostic& d : parsed.diagnostics.items()) {
      if (d.severity != Severity::kError) continue;
      if (d.span.defined()) where = " (line " + std::to_string(d.span.start().line) + ")";
      throw std::invalid_argument("TensorIntrin '" + name + "': its " + which +
                                  " does not parse" + where + ": " + d.message);
    }
  }
  std::vector<tir::PrimFunc> funcs;
  for (const ir::BaseFunc& f : parsed.module->functions) {
    if (auto p = f.as_ref<tir::PrimFuncNode>(); p.defined()) funcs.push_back(p);
  }
  if (funcs.size() != 1) {
    throw std::invalid_argument("TensorIntrin '" + name + "': its " + which +
                                " must be one @T.prim_func, got " + std::to_string(funcs.size()));
  }
  return funcs[0];
}

void Insert(Registry& r, const std::string& name, TensorIntrin intrin, bool override) {
  CheckIntrin(name, intrin);
  auto it = r.intrins.find(name);
  if (!override && it != r.intrins.end()) {
    // A recipe replayed (the workbench replays a session's recipe on every step) registers its
    // intrinsics again: the same pair is no conflict.
    if (ir::StructuralEqual(it->second.desc, intrin.desc) &&
        ir::StructuralEqual(it->second.impl, intrin.impl)) {
      return;
    }
    throw std::invalid_argument("TensorIntrin '" + name + "' has already been registered");
  }
  r.intrins[name] = std::move(intrin);
}

// The registry with the built-ins in; the caller holds the lock.
Registry& Locked(std::unique_lock<std::mutex>* lock) {
  static Registry registry;
  *lock = std::unique_lock<std::mutex>(registry.mutex);
  if (!registry.builtins_loaded) {
    registry.builtins_loaded = true;
    for (const Pending& p : PendingBuiltins()) {
      try {
        Insert(registry, p.name,
               {ParseOne(p.name, p.desc, "description"), ParseOne(p.name, p.impl, "implementation")},
               false);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "built-in tensor intrinsic: %s\n", e.what());
        std::abort();
      }
    }
  }
  return registry;
}

}  // namespace

void RegisterTensorIntrin(const std::string& name, tir::PrimFunc desc, tir::PrimFunc impl,
                          bool override) {
  std::unique_lock<std::mutex> lock;
  Registry& r = Locked(&lock);
  Insert(r, name, {std::move(desc), std::move(impl)}, override);
}

void RegisterTensorIntrin(const std::string& name, std::string_view desc_script,
                          std::string_view impl_script, bool override) {
  TensorIntrin intrin{ParseOne(name, desc_script, "description"),
                      ParseOne(name, impl_script, "implementation")};
  RegisterTensorIntrin(name, intrin.desc, intrin.impl, override);
}

std::optional<TensorIntrin> FindTensorIntrin(const std::string& name) {
  std::unique_lock<std::mutex> lock;
  Registry& r = Locked(&lock);
  auto it = r.intrins.find(name);
  if (it == r.intrins.end()) return std::nullopt;
  return it->second;
}

TensorIntrin GetTensorIntrin(const std::string& name) {
  if (std::optional<TensorIntrin> found = FindTensorIntrin(name)) return *found;
  std::string known;
  for (const std::string& n : TensorIntrinNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("TensorIntrin '" + name + "' is not registered (registered: " +
                              (known.empty() ? "none" : known) + ")");
}

std::vector<std::string> TensorIntrinNames() {
  std::unique_lock<std::mutex> lock;
  Registry& r = Locked(&lock);
  std::vector<std::string> out;
  for (const auto& [name, intrin] : r.intrins) out.push_back(name);
  return out;
}

TensorIntrinRegistrar::TensorIntrinRegistrar(std::string name, std::string desc_script,
                                             std::string impl_script) {
  PendingBuiltins().push_back({std::move(name), std::move(desc_script), std::move(impl_script)});
}

}  // namespace wb::schedule
