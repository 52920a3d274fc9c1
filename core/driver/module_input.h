// The module a batch command works on: read and parsed (diagnostics rendered to stderr), then
// scheduled by --schedule and transformed by --pipeline as the options say. Shared by the
// commands so that each reports the same failures the same way.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "driver/options.h"
#include "ir/expr.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"

namespace wb::driver {

bool ReadFile(const std::string& path, std::string* text);
bool WriteText(const std::filesystem::path& path, const std::string& text, std::ostream& err);

// Parses `path`, rendering its diagnostics to `err`; false when it cannot be read or has errors
// (parsed->module is then defined only for the latter).
// `output_names` as frontend::LoadModule gives them (an ONNX model's graph outputs).
bool ParseFileOrReport(const std::string& path, script::ParseResult* parsed, bool color, std::ostream& err,
                       std::vector<std::string>* output_names = nullptr);

// The exit code for a file ParseFileOrReport refused: 1 for errors in it, 2 when unreadable.
inline int ParseFailureCode(const script::ParseResult& parsed) { return parsed.module.defined() ? 1 : 2; }

// --schedule RECIPE onto *module (checked with --check or --check-each). 0 with *module replaced,
// or the exit code after reporting why not.
int ApplyScheduleOption(const BatchOptions& opts, ir::IRModule* module, std::ostream& err);

// --check-each with --pipeline: every pass that changed the module, run against its input on
// seeded inputs (the reference interpreters); the first that changes the numbers is named with
// its max error, and the result is 1. 0 when every pass kept the meaning.
int CheckEachPass(const transform::PipelineResult& result, std::ostream& err);

// --pipeline onto *module: 0 with *module replaced and the per-pass snapshots in *result, or the
// exit code after reporting why not.
int ApplyPipelineOption(const BatchOptions& opts, ir::IRModule* module, transform::PipelineResult* result,
                        std::ostream& err);

}  // namespace wb::driver
