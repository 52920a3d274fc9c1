// `workbench --batch FILE --emit tvmscript`: the canonical TVMScript of FILE (a formatter);
// `--emit cuda|ptx` (after --schedule and --pipeline): the device code of a build for a cuda
// target, which needs no GPU.
#include <ostream>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/commands.h"
#include "driver/module_input.h"

namespace wb::driver {

namespace {

int EmitDeviceCode(const BatchOptions& opts, ir::IRModule module, std::ostream& out, std::ostream& err) {
  std::string error;
  auto target = codegen::ParseTarget(opts.target.empty() ? "cuda" : opts.target, &error);
  if (!target) {
    err << "workbench: --target: " << error << "\n";
    return 2;
  }
  if (!opts.schedule.empty()) {
    if (int rc = ApplyScheduleOption(opts, &module, err)) return rc;
  }
  if (!opts.pipeline.empty()) {
    transform::PipelineResult result;
    if (int rc = ApplyPipelineOption(opts, &module, &result, err)) return rc;
  }
  codegen::BuildResult built = codegen::Build(module, *target);
  if (!built.ok()) {
    err << RenderDiagnostics(built.diagnostics, opts.color);
    err << "workbench: build for " << target->str() << " failed\n";
    return 1;
  }
  std::string text = built.module->GetSource(opts.emit);
  if (text.empty()) {
    err << "workbench: the build for " << target->str() << " made no " << opts.emit << " (a cuda target makes it)\n";
    return 1;
  }
  out << text << (text.back() == '\n' ? "" : "\n");
  return 0;
}

}  // namespace

int RunEmitCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  if (opts.EmitsDeviceCode()) return EmitDeviceCode(opts, parsed.module, out, err);
  out << script::Print(parsed) << "\n";
  return 0;
}

}  // namespace wb::driver
