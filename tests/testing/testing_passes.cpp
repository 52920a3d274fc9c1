// Passes that fail on purpose, for testing how pipelines and the batch runner contain failures
// (a case that crashes or hangs must be reported and must not stop the run). Registered only in
// the test programs that link tests/testing (see its CMakeLists.txt), never in a shipped one.
#include <chrono>
#include <cstdlib>
#include <thread>

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

}  // namespace

}  // namespace wb::transform
