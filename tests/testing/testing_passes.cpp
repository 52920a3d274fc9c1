// Passes that fail on purpose, for testing how pipelines and the batch runner contain failures
// (a case that crashes or hangs must be reported and must not stop the run). Registered only in
// the test programs that link tests/testing (see its CMakeLists.txt), never in a shipped one.
#include <chrono>
#include <cstdlib>
#include <thread>

#include "relax/expr.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

PassRegistrar abort_registrar(
    {"TestingAbort",
     "for testing failure isolation: aborts the process",
     {},
     [](const PassArgs&) {
       return ir::CreateModulePass(
           [](ir::IRModule, const ir::PassContext&) -> ir::IRModule { std::abort(); }, 0,
           "TestingAbort");
     }});

PassRegistrar sleep_registrar(
    {"TestingSleep",
     "for testing timeouts: sleeps, then returns the module unchanged",
     {{"seconds", ParamType::kFloat, ir::MakeFloat(1.0), "how long to sleep"}},
     [](const PassArgs& args) {
       double seconds = args.Float("seconds");
       return ir::CreateModulePass(
           [seconds](ir::IRModule m, const ir::PassContext&) {
             std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
             return m;
           },
           0, "TestingSleep");
     }});

// A pass with a bug the pipeline's well-formedness check must catch: it declares every Relax
// function pure, whatever the function calls.
PassRegistrar mark_pure_registrar(
    {"TestingMarkPure",
     "for testing the Relax well-formedness check after each pass: marks every Relax function "
     "pure, even one that calls impure ops",
     {},
     [](const PassArgs&) {
       return ir::CreateModulePass(
           [](ir::IRModule module, const ir::PassContext&) {
             ir::IRModule out = module;
             for (size_t i = 0; i < module->functions.size(); ++i) {
               auto* func = module->functions[i].as<relax::FunctionNode>();
               if (!func || func->is_pure) continue;
               relax::Function pure = ir::GetRef(func);
               pure.CopyOnWrite()->is_pure = true;
               out.CopyOnWrite()->functions[i] = pure;
             }
             return out;
           },
           0, "TestingMarkPure");
     }});

}  // namespace

}  // namespace wb::transform
