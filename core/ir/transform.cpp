#include "ir/transform.h"

#include <algorithm>

namespace wb::ir {

namespace {

std::vector<PassContext*>& ContextStack() {
  thread_local std::vector<PassContext*> stack;
  return stack;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Runs one (non-sequential) pass with the context's instruments around it.
IRModule RunInstrumented(const Pass& pass, IRModule module, const PassContext& context) {
  for (const auto& instrument : context.instruments) {
    if (!instrument->ShouldRun(module, pass.info())) return module;
  }
  for (const auto& instrument : context.instruments) instrument->RunBeforePass(module, pass.info());
  IRModule result = pass.RunWithoutInstruments(module, context);
  for (const auto& instrument : context.instruments) instrument->RunAfterPass(result, pass.info());
  return result;
}

}  // namespace

const Object* PassContext::GetConfig(const std::string& pass, const std::string& key) const {
  auto it = config.find(pass);
  if (it == config.end()) return nullptr;
  if (auto* map = it->second.as<MapObj>()) {
    auto entry = map->items.find(key);
    return entry == map->items.end() ? nullptr : entry->second.get();
  }
  return nullptr;
}

bool PassContext::PassEnabled(const PassInfo& info) const {
  if (Contains(disabled_passes, info.name)) return false;
  if (Contains(required_passes, info.name)) return true;
  return info.opt_level <= opt_level;
}

PassContext& PassContext::Current() {
  auto& stack = ContextStack();
  if (stack.empty()) {
    thread_local PassContext default_context;
    return default_context;
  }
  return *stack.back();
}

PassContext::Scope::Scope(PassContext& context) {
  ContextStack().push_back(&context);
  for (const auto& instrument : context.instruments) instrument->EnterPassContext();
}

PassContext::Scope::~Scope() {
  PassContext* context = ContextStack().back();
  for (const auto& instrument : context->instruments) instrument->ExitPassContext();
  ContextStack().pop_back();
}

IRModule Pass::operator()(IRModule module) const { return Run(std::move(module), PassContext::Current()); }

IRModule Pass::Run(IRModule module, const PassContext& context) const {
  if (is_sequential()) return fn_(std::move(module), context);
  return RunInstrumented(*this, std::move(module), context);
}

Pass CreateModulePass(Pass::Function fn, int opt_level, std::string name,
                      std::vector<std::string> required) {
  return Pass(PassInfo{std::move(name), opt_level, std::move(required)}, std::move(fn));
}

Pass Sequential(std::vector<Pass> passes, std::string name, int opt_level) {
  std::vector<Pass> members = passes;
  auto fn = [members](IRModule module, const PassContext& context) {
    std::vector<std::string> done;
    std::function<void(const Pass&)> run = [&](const Pass& pass) {
      if (!pass.is_sequential() && !context.PassEnabled(pass.info())) return;
      // Required passes run first, once, when the pipeline has not run them already.
      for (const auto& req : pass.info().required) {
        if (Contains(done, req)) continue;
        for (const auto& candidate : members) {
          if (candidate.info().name == req) {
            run(candidate);
            break;
          }
        }
      }
      module = pass.Run(module, context);
      done.push_back(pass.info().name);
    };
    for (const auto& pass : members) run(pass);
    return module;
  };
  Pass seq(PassInfo{std::move(name), opt_level, {}}, fn);
  seq.members_ = std::move(passes);
  seq.sequential_ = true;
  return seq;
}

}  // namespace wb::ir
