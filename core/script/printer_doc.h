// The printer's output model: a tree of statement lines, rendered with 4-space indentation. Each
// line remembers which free variables its own text mentions, so that their declarations
// (`n = T.int32()`) can be placed afterwards in the innermost block that holds every use.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/object.h"

namespace wb::script::printer {

struct Line {
  std::string text;
  // A compound statement (`for ...:`, `with ...:`, `def ...:`): `body` is indented under it and
  // an empty body prints `pass`.
  bool compound = false;
  // One empty line follows (after every `def`).
  bool blank_after = false;
  std::vector<Line> body;
  // Free variables (and free buffers) that this line's own text refers to.
  std::vector<const ir::Object*> uses;
};

// A simple statement line.
inline Line PlainLine(std::string text) {
  Line line;
  line.text = std::move(text);
  return line;
}

// A declaration to insert: `text` goes before the first line that uses `object`, in the
// innermost block containing all of its uses.
struct FreeDecl {
  const ir::Object* object;
  std::string text;
};

// Inserts each declaration of `decls` (in order) into `lines` per the rule above. Declarations
// whose object is never used go first.
void PlaceDeclarations(std::vector<Line>* lines, const std::vector<FreeDecl>& decls);

// The text of `lines` at `indent` levels, each line ending with a newline.
void Render(const std::vector<Line>& lines, int indent, std::string* out);
// Strips trailing whitespace (and newlines) from the end of a whole printout.
void TrimEnd(std::string* text);

// `"text"` with C escapes; bytes outside printable ASCII become `\xNN`.
std::string QuoteString(std::string_view text);
// A double as TVMScript writes it inside `T.float32(...)`: `1.0`, `0.10000000000000001`,
// `"inf"`.
std::string FormatFloat(double value);
// Python's repr of a float attribute value: `1.5`, `1e-05`, `inf`.
std::string FormatPythonFloat(double value);

// TVM's "target" attributes (a PrimFunc's target, `T.attr(..., "target", 0)`) hold a Target,
// which the IR keeps as its text: `T.target("cuda -arch=sm_80", host="llvm")` for
// "cuda -arch=sm_80 -host=llvm" (the host, when given, is the text's last option).
inline constexpr const char* kTargetAttrKey = "target";
std::string TargetCallText(const std::string& target_text);

// Unique identifiers in nested scopes. Names are released when their scope closes, so that
// sibling scopes may reuse them; `T`, `I`, `R`, `cls` and `Module` are always taken.
class NameTable {
 public:
  NameTable();
  // A fresh name from `hint`: characters outside [A-Za-z0-9_] become `_`, an empty hint becomes
  // `empty_hint`, and a taken name gets `_1`, `_2`, ... appended.
  std::string Define(std::string_view hint, std::string_view empty_hint = "v");
  // The same, but held by the outermost scope (never released).
  std::string DefineOutermost(std::string_view hint, std::string_view empty_hint = "v");
  void PushScope();
  void PopScope();

 private:
  std::unordered_set<std::string> used_;
  std::vector<std::vector<std::string>> scopes_;
};

}  // namespace wb::script::printer
