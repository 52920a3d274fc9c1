#include "workbench/isolated_build.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string_view>
#include <thread>

#include "codegen/build.h"
#include "runtime/module_blob.h"

namespace wb::workbench {

namespace {

constexpr std::string_view kOk = "ok";
constexpr std::string_view kFailed = "failed";

// The child: the build, and what crosses the pipe (length-prefixed fields): "ok", the object,
// the imports' blob, the function names; or "failed" and the diagnostics.
std::string BuildInChild(const ir::IRModule& module, const codegen::Target& target,
                         const IsolatedBuildOptions& options) {
  codegen::BuildOptions build;
  build.default_schedule = options.default_schedule;
  build.pipeline = options.pipeline;
  // Only the object crosses the pipe: no listings, no JIT in the child.
  build.object_only = true;
  codegen::BuildResult built = codegen::Build(module, target, build);
  std::string out;
  if (!built.ok()) {
    runtime::AppendField(&out, kFailed);
    runtime::AppendField(&out, RenderDiagnostics(built.diagnostics));
    return out;
  }
  runtime::AppendField(&out, kOk);
  runtime::AppendField(&out, built.module->GetSource("o"));
  runtime::AppendField(&out, runtime::SaveImports(*built.module.node()));
  for (const std::string& name : built.module->FunctionNames()) runtime::AppendField(&out, name);
  return out;
}

// The module the child's payload describes, into `out`.
void Receive(const std::string& payload, const codegen::Target& target, CompiledModule* out) {
  size_t pos = 0;
  std::string_view status, object, imports, name;
  if (!runtime::ReadField(payload, &pos, &status) ||
      (status == kFailed && !runtime::ReadField(payload, &pos, &object))) {
    out->diagnostics.Add(Diagnostic::Error("the build's process sent a malformed result"));
    return;
  }
  if (status == kFailed) {
    out->diagnostics.Add(Diagnostic::Error(std::string(object)));
    return;
  }
  if (!runtime::ReadField(payload, &pos, &object) || !runtime::ReadField(payload, &pos, &imports)) {
    out->diagnostics.Add(Diagnostic::Error("the build's process sent a malformed result"));
    return;
  }
  std::vector<std::string> names;
  while (runtime::ReadField(payload, &pos, &name)) names.emplace_back(name);
  // A cuda build's LLVM module is its host code's.
  const codegen::Target host =
      target.is_cuda() ? (target.host ? *target.host : codegen::Target::Host()) : target;
  try {
    runtime::Module module = codegen::LoadLLVMObject(std::string(object), std::move(names), host);
    std::string error;
    if (!imports.empty() && !runtime::LoadImports(imports, module.operator->(), &error)) {
      out->diagnostics.Add(Diagnostic::Error("the build's device modules do not load: " + error));
      return;
    }
    out->kernels = module;
  } catch (const codegen::CodegenError& e) {
    out->diagnostics.Add(
        Diagnostic::Error(std::string("the built object does not load: ") + e.what()));
  }
}

std::string HowItEnded(const ChildResult& r) {
  std::string text = std::string("the build's process ended: ") + ChildEndName(r.end);
  if (!r.message.empty()) text += ": " + r.message;
  if (!r.stderr_text.empty()) {
    // The last lines say most (an assertion, a sanitizer's report).
    const size_t keep = 2000;
    text += "\n" + (r.stderr_text.size() > keep
                        ? "..." + r.stderr_text.substr(r.stderr_text.size() - keep)
                        : r.stderr_text);
  }
  return text;
}

}  // namespace

std::vector<IsolatedBuild> CompileIsolated(const std::vector<ir::IRModule>& modules,
                                           const codegen::Target& target,
                                           const IsolatedBuildOptions& options,
                                           const CancellationToken& token) {
  std::vector<IsolatedBuild> out(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    out[i].compiled.target = target;
    out[i].compiled.source = modules[i];
  }
  const size_t jobs = static_cast<size_t>(
      options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency()));
  struct Running {
    size_t index;
    std::unique_ptr<ChildProcess> child;
  };
  std::vector<Running> running;
  size_t next = 0;
  auto start = [&](size_t i) {
    if (HasRelaxFunctions(modules[i])) {
      auto t0 = std::chrono::steady_clock::now();
      out[i].compiled = Compile(modules[i], target, options.default_schedule);
      out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return;
    }
    ChildOptions child;
    child.timeout_s = options.timeout_s;
    child.cancelled = [token] { return token.cancelled(); };
    const ir::IRModule& module = modules[i];
    running.push_back({i, std::make_unique<ChildProcess>(
                              [&module, &target, &options](ChildChannel&) {
                                return BuildInChild(module, target, options);
                              },
                              child)});
  };
  while (next < modules.size() || !running.empty()) {
    while (running.size() < jobs && next < modules.size() && !token.cancelled()) start(next++);
    if (token.cancelled()) {
      for (size_t i = next; i < modules.size(); ++i) {
        out[i].end = ChildEnd::kCancelled;
        out[i].compiled.diagnostics.Add(Diagnostic::Error("cancelled before it was built"));
      }
      next = modules.size();
    }
    if (running.empty()) continue;
    std::vector<ChildProcess*> children;
    for (const Running& r : running) children.push_back(r.child.get());
    ChildProcess::PumpAll(children, 50);
    for (auto it = running.begin(); it != running.end();) {
      if (!it->child->done()) {
        ++it;
        continue;
      }
      const ChildResult& r = it->child->result();
      IsolatedBuild& b = out[it->index];
      b.end = r.end;
      b.seconds = r.seconds;
      if (r.finished()) {
        Receive(r.payload, target, &b.compiled);
      } else {
        b.compiled.diagnostics.Add(Diagnostic::Error(HowItEnded(r)));
      }
      it = running.erase(it);
    }
  }
  return out;
}

}  // namespace wb::workbench
