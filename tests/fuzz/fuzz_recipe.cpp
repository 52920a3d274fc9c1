// A schedule recipe (TVM's trace syntax) read and applied onto a bundled example. Whatever the
// text, the reader and the primitives answer with diagnostics (never a crash, a hang, an
// exception or a sanitizer report), and what a recipe leaves applied is well-formed TensorIR that
// prints. A first line `# on: NAME` picks the example (matmul by default), so seeds reach the
// blocks and loops of several kernels.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "script/tvmscript.h"
#include "tir/verifier.h"

namespace {

const std::map<std::string, wb::ir::IRModule>& Examples() {
  static const std::map<std::string, wb::ir::IRModule> examples = [] {
    std::map<std::string, wb::ir::IRModule> m;
    for (const char* name : {"matmul", "softmax", "conv2d", "elementwise", "dynamic_shape"}) {
      std::ifstream in(std::string(WB_EXAMPLES_DIR) + "/" + name + ".py");
      std::stringstream text;
      text << in.rdbuf();
      wb::script::ParseResult parsed = wb::script::Parse(text.str(), name);
      if (!parsed.ok()) {
        std::fprintf(stderr, "fuzz_recipe: the example %s does not parse\n", name);
        std::abort();
      }
      m[name] = parsed.module;
    }
    return m;
  }();
  return examples;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Examples();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string on = "matmul";
  if (text.rfind("# on: ", 0) == 0) on = text.substr(6, text.find('\n') - 6);
  auto it = Examples().find(on);
  if (it == Examples().end()) return 0;
  wb::schedule::Schedule sch(it->second);
  wb::DiagnosticList diags = wb::schedule::ApplyRecipe(sch, text);
  wb::DiagnosticList wellformed = wb::tir::VerifyWellFormed(sch.mod());
  if (wellformed.HasErrors()) {
    std::fprintf(stderr, "the recipe left ill-formed IR:\n%s\n%s\n",
                 wb::RenderDiagnostics(wellformed).c_str(), wb::script::PrintModule(sch.mod()).c_str());
    std::abort();
  }
  (void)wb::script::PrintModule(sch.mod());
  return 0;
}
