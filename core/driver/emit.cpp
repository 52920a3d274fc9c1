// `workbench --batch FILE --emit tvmscript`: the canonical TVMScript of FILE (a formatter);
// `--emit llvm|llvm-opt|asm|cuda|ptx` (after --schedule and --pipeline): what a build for the
// target makes of the module, through the build the GUI's Build panel shows its views from
// (workbench::BuildModule), so both print the same text. None of them needs a GPU.
// `--source-map` (llvm, llvm-opt, asm): the module as built (legalized first when it has Relax
// functions) is printed to a file and parsed back from it, the build carries debug lines from those
// spans (workbench/source_links.h), and each line of the view that maps to a statement ends in a
// comment `FILE:LINE` naming its line of that printed module.
#include <filesystem>
#include <fstream>
#include <ostream>

#include "codegen/source_map.h"
#include "driver/commands.h"
#include "driver/module_input.h"
#include "workbench/build_session.h"
#include "workbench/source_links.h"

namespace wb::driver {

namespace {

bool IsDeviceCode(const std::string& emit) { return emit == "cuda" || emit == "ptx"; }

// Where --source-map writes the printed module: beside FILE as FILE.scheduled.py, or in --dump-dir.
std::string PrintedModulePath(const BatchOptions& opts) {
  std::string name = opts.files[0] + ".scheduled.py";
  if (opts.dump_dir.empty()) return name;
  return (std::filesystem::path(opts.dump_dir) / std::filesystem::path(name).filename()).string();
}

// Writes the module the build printed for its source map (BuildRequest::link_path).
int WritePrintedModule(const BatchOptions& opts, const workbench::BuildOutcome& built,
                       std::ostream& err) {
  if (!built.links) return 0;
  const workbench::PrintedModule& printed = built.links->printed();
  std::error_code ec;
  if (!opts.dump_dir.empty()) std::filesystem::create_directories(opts.dump_dir, ec);
  std::ofstream file(printed.path, std::ios::binary);
  file << printed.text;
  file.close();
  if (!file) {
    err << "workbench: --source-map: cannot write " << printed.path << "\n";
    return 2;
  }
  return 0;
}

// The view of a build that `--emit` names.
const std::string& View(const workbench::BuildOutcome& built, const std::string& emit) {
  if (emit == "llvm") return built.llvm_ir;
  if (emit == "llvm-opt") return built.llvm_ir_opt;
  if (emit == "asm") return built.assembly;
  if (emit == "cuda") return built.cuda_source;
  return built.ptx;
}

int EmitBuildOutput(const BatchOptions& opts, const ir::IRModule& original, std::ostream& out,
                    std::ostream& err) {
  workbench::BuildRequest request;
  request.original = original;
  request.module = original;
  request.target = opts.target.empty() ? (IsDeviceCode(opts.emit) ? "cuda" : "llvm") : opts.target;
  if (!opts.schedule.empty()) {
    if (int rc = ApplyScheduleOption(opts, &request.module, err)) return rc;
  }
  if (!opts.pipeline.empty()) {
    transform::PipelineResult result;
    if (int rc = ApplyPipelineOption(opts, &request.module, &result, err)) return rc;
  }
  if (opts.source_map) request.link_path = PrintedModulePath(opts);
  workbench::BuildOutcome built = workbench::BuildModule(request);
  if (int rc = WritePrintedModule(opts, built, err)) return rc;
  if (opts.source_map && !built.links) {
    err << RenderDiagnostics(built.diagnostics, opts.color);
    err << "workbench: --source-map: the module as built could not be printed and parsed back\n";
    return 1;
  }
  if (!built.ok()) {
    err << RenderDiagnostics(built.diagnostics, opts.color);
    err << "workbench: build for " << (built.target.empty() ? request.target : built.target) << " failed\n";
    return built.target.empty() ? 2 : 1;
  }
  const std::string& text = View(built, opts.emit);
  if (text.empty()) {
    err << "workbench: the build for " << built.target << " made no " << opts.emit
        << (IsDeviceCode(opts.emit) ? " (a cuda target makes it)" : " (the module has no kernel)") << "\n";
    return 1;
  }
  if (opts.source_map) {
    out << codegen::AnnotateSourceLines(text, opts.emit == "asm" ? codegen::SourceMapFormat::kAssembly
                                                                 : codegen::SourceMapFormat::kLLVMIR);
    return 0;
  }
  out << text << (text.back() == '\n' ? "" : "\n");
  return 0;
}

}  // namespace

int RunEmitCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  if (opts.EmitsBuildOutput()) return EmitBuildOutput(opts, parsed.module, out, err);
  out << script::Print(parsed) << "\n";
  return 0;
}

}  // namespace wb::driver
