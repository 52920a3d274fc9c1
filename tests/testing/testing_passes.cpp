// Passes that fail on purpose, for testing how pipelines and the batch runner contain failures
// (a case that crashes or hangs must be reported and must not stop the run), and a pass and a
// schedule step that change a program's meaning, for testing that checking each step finds them,
// and a pass that renames a variable (a text change, no structural one). Registered only in
// the test programs that link tests/testing (see its CMakeLists.txt), never in a shipped one.
#include "testing/testing_passes.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "relax/expr.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/stmt.h"
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

// Every float store gets 1 added: what a buggy rewrite does to a program's meaning.
class AddOneToStores : public tir::StmtExprMutator {
 public:
  using tir::StmtExprMutator::VisitStmt_;
  tir::Stmt VisitStmt_(const tir::BufferStoreNode* op) override {
    tir::Stmt s = tir::StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<tir::BufferStoreNode>();
    if (!store->value->dtype.is_floating_point()) return s;
    return tir::MakeBufferStore(store->buffer, tir::add(store->value, tir::make_const(store->value->dtype, 1.0)),
                                store->indices);
  }
};

tir::PrimFunc Broken(const tir::PrimFunc& f) {
  AddOneToStores mutator;
  tir::PrimFunc copy = f;
  copy.CopyOnWrite()->body = mutator(f->body);
  return copy;
}

PassRegistrar broken_pass({
    "TestingBreakMeaning",
    "for testing --check-each: adds 1 to every float store",
    {},
    [](const transform::PassArgs&) {
      return ir::CreateModulePass(
          [](ir::IRModule m, const ir::PassContext&) {
            std::vector<ir::GlobalVar> vars;
            std::vector<ir::BaseFunc> funcs;
            for (size_t i = 0; i < m->functions.size(); ++i) {
              vars.push_back(m->global_vars[i]);
              auto f = m->functions[i].as_ref<tir::PrimFuncNode>();
              funcs.push_back(f.defined() ? ir::BaseFunc(Broken(f)) : m->functions[i]);
            }
            return ir::WithFunctions(m, std::move(vars), std::move(funcs));
          },
          0, "TestingBreakMeaning");
    }});

schedule::RecipeMethodRegistrar broken_step(
    "testing_break_meaning",
    {{}, false, schedule::RecipeReturns::kNothing,
     [](schedule::Schedule& sch, schedule::RecipeArgs&) -> std::vector<schedule::RecipeRV> {
       sch.ReplaceFunc(Broken(sch.mod()->Lookup("main").as_ref<tir::PrimFuncNode>()));
       return {};
     }},
    {"testing", "for testing --check-each: adds 1 to every float store", {}});

// Renames every variable spelled `vi` to `v_row` (the module printed, edited, parsed back): a
// change of text that is no change of structure.
PassRegistrar rename_registrar({
    "TestingRenameVi",
    "for testing structural diffs: renames the variable vi to v_row",
    {},
    [](const PassArgs&) {
      return ir::CreateModulePass(
          [](ir::IRModule m, const ir::PassContext&) {
            std::string text = script::PrintModule(m);
            for (size_t at = text.find("vi"); at != std::string::npos; at = text.find("vi", at + 2)) {
              bool word = (at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]))) &&
                          (at + 2 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[at + 2])));
              if (word) text.replace(at, 2, "v_row");
            }
            script::ParseResult parsed = script::Parse(text, "<TestingRenameVi>");
            return parsed.diagnostics.HasErrors() ? m : parsed.module;
          },
          0, "TestingRenameVi");
    }});

}  // namespace

}  // namespace wb::transform
