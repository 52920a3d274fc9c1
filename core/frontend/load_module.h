// The one way every face opens a module file: the importer is picked by the file's extension
// (`.onnx` through frontend/onnx, anything else parsed as TVMScript), so `--batch`, the GUI's
// File > Open and the LSP server accept the same files and report the same errors.
#pragma once

#include <string>
#include <vector>

#include "script/tvmscript.h"

namespace wb::frontend {

// True for a path that names an ONNX model (`.onnx`, any case).
bool IsONNXPath(const std::string& path);

// Reads `path` into a module. For TVMScript this is script::Parse of the file's text; for an
// ONNX model the imported module, with `is_module` true and the importer's diagnostics. An
// unreadable file is an error diagnostic and a null module.
// `output_names`, when given, receives an ONNX model's graph output names (the order of main's
// results); it is left empty for TVMScript.
script::ParseResult LoadModule(const std::string& path, std::vector<std::string>* output_names = nullptr);

}  // namespace wb::frontend
