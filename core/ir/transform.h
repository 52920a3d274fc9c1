// Passes: named IRModule -> IRModule transformations, run under a PassContext that carries the
// optimization level, a configuration map and instruments. Instruments see every pass before
// and after it runs; that is how "show the IR before and after every pass" (the GUI, the LSP
// server and batch runs) comes for free for every pass, written once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "support/diagnostic.h"

namespace wb::ir {

struct PassInfo {
  std::string name;
  int opt_level = 0;
  // Passes that must run first; Sequential runs them (once) when they have not run yet.
  std::vector<std::string> required;
};

class PassContext;

// Observes a pipeline. All hooks are optional.
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;
  virtual void EnterPassContext() {}
  virtual void ExitPassContext() {}
  // Returning false skips the pass (its output is its input).
  virtual bool ShouldRun(const IRModule& module, const PassInfo& info) { return true; }
  virtual void RunBeforePass(const IRModule& module, const PassInfo& info) {}
  virtual void RunAfterPass(const IRModule& module, const PassInfo& info) {}
};

// The environment passes run in. Contexts nest: `PassContext::Current()` is the innermost one
// entered on this thread (a default context when none was).
class PassContext {
 public:
  int opt_level = 2;
  // Per-pass options, TVM style: {"tirx.UnrollLoop": {"auto_max_step": 10}}.
  std::map<std::string, ObjectRef> config;
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  // Passes named here never run; passes named in `required_passes` always do.
  std::vector<std::string> disabled_passes;
  std::vector<std::string> required_passes;

  // The option `key` of `pass`, or null.
  const Object* GetConfig(const std::string& pass, const std::string& key) const;

  bool PassEnabled(const PassInfo& info) const;

  static PassContext& Current();

  // RAII: makes a context current for a scope and calls the instruments' Enter/Exit hooks.
  class Scope {
   public:
    explicit Scope(PassContext& context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };
};

// Thrown by a pass that cannot do its job on this module (an unsupported construct, say); the
// pipeline stops and reports it with the pass's name.
class PassError : public DiagnosticError {
 public:
  using DiagnosticError::DiagnosticError;
};

class Pass {
 public:
  using Function = std::function<IRModule(IRModule, const PassContext&)>;

  Pass() = default;
  Pass(PassInfo info, Function fn) : info_(std::move(info)), fn_(std::move(fn)) {}

  const PassInfo& info() const { return info_; }
  bool defined() const { return static_cast<bool>(fn_); }

  // Runs under PassContext::Current(), with its instruments.
  IRModule operator()(IRModule module) const;
  IRModule Run(IRModule module, const PassContext& context) const;

  // The pass's own transformation, without instruments (Sequential instruments its members).
  IRModule RunWithoutInstruments(IRModule module, const PassContext& context) const {
    return fn_(std::move(module), context);
  }
  bool is_sequential() const { return !members_.empty() || sequential_; }
  const std::vector<Pass>& members() const { return members_; }

 private:
  friend Pass Sequential(std::vector<Pass> passes, std::string name, int opt_level);
  PassInfo info_;
  Function fn_;
  std::vector<Pass> members_;
  bool sequential_ = false;
};

Pass CreateModulePass(Pass::Function fn, int opt_level, std::string name,
                      std::vector<std::string> required = {});

// Runs `passes` in order, skipping those the context disables or whose opt_level is above the
// context's, and instrumenting each member (not the Sequential itself).
Pass Sequential(std::vector<Pass> passes, std::string name = "sequential", int opt_level = 0);

}  // namespace wb::ir
