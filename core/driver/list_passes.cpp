// `workbench --batch --list-passes`: the registered passes with their arguments and docs, and
// the named pipelines.
#include <ostream>

#include "driver/commands.h"
#include "transform/registry.h"

namespace wb::driver {

int RunListPassesCommand(std::ostream& out) {
  out << "passes:\n";
  for (const auto* entry : transform::PassRegistry::Global().Passes()) {
    out << "  " << entry->name;
    if (!entry->params.empty()) {
      out << "(";
      for (size_t i = 0; i < entry->params.size(); ++i) {
        out << (i ? ", " : "") << entry->params[i].name;
      }
      out << ")";
    }
    out << "  -- " << entry->doc << "\n";
  }
  auto pipelines = transform::PassRegistry::Global().Pipelines();
  if (!pipelines.empty()) {
    out << "pipelines:\n";
    for (const auto& name : pipelines) {
      out << "  " << name << " = " << *transform::PassRegistry::Global().FindPipeline(name) << "\n";
    }
  }
  return 0;
}

}  // namespace wb::driver
