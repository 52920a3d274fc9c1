// Passes by TVM's names, with typed keyword arguments, so that a pipeline is text:
//   LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps(fuse_opt_level=2), FuseTIR
// The GUI's pipeline editor, the LSP server's code actions and `workbench --batch --pipeline`
// all build their pipelines here. Named pipelines (TVM's zero_pipeline, ...) are text too.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/transform.h"
#include "support/diagnostic.h"

namespace wb::transform {

enum class ParamType { kInt, kFloat, kBool, kString, kStringList };
const char* ParamTypeName(ParamType type);

struct PassParam {
  std::string name;
  ParamType type = ParamType::kInt;
  ir::ObjectRef default_value;  // IntObj, FloatObj, BoolObj, StringObj or ArrayObj of StringObj
  std::string doc;
};

// The keyword arguments of one pass, defaults filled in.
class PassArgs {
 public:
  int64_t Int(const std::string& name) const;
  double Float(const std::string& name) const;
  bool Bool(const std::string& name) const;
  std::string String(const std::string& name) const;
  std::vector<std::string> StringList(const std::string& name) const;
  std::map<std::string, ir::ObjectRef> values;
};

struct PassEntry {
  std::string name;
  std::string doc;
  std::vector<PassParam> params;
  std::function<ir::Pass(const PassArgs&)> factory;
};

class PassRegistry {
 public:
  static PassRegistry& Global();
  void Register(PassEntry entry);
  void RegisterPipeline(std::string name, std::string text, std::string doc);
  const PassEntry* Find(std::string_view name) const;
  // The text of a named pipeline, or null.
  const std::string* FindPipeline(std::string_view name) const;
  std::vector<const PassEntry*> Passes() const;
  std::vector<std::string> Pipelines() const;

 private:
  std::map<std::string, PassEntry, std::less<>> passes_;
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> pipelines_;
};

// One element of a pipeline as written: `FuseOps(fuse_opt_level=2)`.
struct PassSpec {
  std::string name;
  PassArgs args;
  uint32_t column = 0;  // 1-based position in the pipeline text
};

// Parses pipeline text ("A, B(k=1), C" or the name of a registered pipeline). Every error is a
// diagnostic naming the pass and argument, with the column in `source` (spans point into it when
// it is given). Returns nullopt when anything is wrong.
std::optional<std::vector<PassSpec>> ParsePipeline(std::string_view text, DiagnosticList& diags,
                                                   const SourceFilePtr& source = nullptr);
// The canonical text of `specs`: "A, B(k=1)", each pass with only the arguments that differ
// from their defaults, in the order the pass declares them. ParsePipeline reads it back to the
// same specs (a string holding both quote characters cannot be written and comes back cut).
std::string PipelineText(const std::vector<PassSpec>& specs);
// One argument value as pipeline text: 2, 0.5, True, "s", ["a", "b"].
std::string ParamValueText(const ir::ObjectRef& value);
// Whether a pass's argument holds its default value.
bool IsDefaultValue(const PassParam& param, const ir::ObjectRef& value);

// Parses and instantiates the passes, as one Sequential named "pipeline".
std::optional<ir::Pass> BuildPipeline(std::string_view text, DiagnosticList& diags);

// Static registration from a pass's own file.
struct PassRegistrar {
  explicit PassRegistrar(PassEntry entry) { PassRegistry::Global().Register(std::move(entry)); }
};

}  // namespace wb::transform
