// Diagnostics: what every user-facing failure becomes. A diagnostic has a severity, a message a
// compiler engineer can act on, the span it is about, and notes (each with its own span).
// They are collected, never thrown past the layer that produced them, and rendered clang-style.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "support/span.h"

namespace wb {

enum class Severity { kError, kWarning, kNote };

const char* SeverityName(Severity severity);

struct DiagnosticNote {
  std::string message;
  Span span;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string message;
  Span span;
  std::vector<DiagnosticNote> notes;

  static Diagnostic Error(std::string message, Span span = {});
  static Diagnostic Warning(std::string message, Span span = {});
  Diagnostic& Note(std::string message, Span span = {});
};

// An ordered collection of diagnostics.
class DiagnosticList {
 public:
  void Add(Diagnostic diagnostic) { items_.push_back(std::move(diagnostic)); }
  Diagnostic& Error(std::string message, Span span = {});
  void Append(const DiagnosticList& other);

  bool HasErrors() const;
  size_t ErrorCount() const;
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  const Diagnostic& operator[](size_t i) const { return items_[i]; }

  // Orders by file position (stable for equal positions).
  void SortByPosition();

 private:
  std::vector<Diagnostic> items_;
};

// Clang-style rendering:
//   file.py:3:9: error: undefined name 'vk'
//       C[vi] = A[vk]
//                 ^~
std::string RenderDiagnostic(const Diagnostic& diagnostic, bool color = false);
std::string RenderDiagnostics(const DiagnosticList& diagnostics, bool color = false);

// Thrown inside the core where unwinding is the clearest way out of a deep recursion
// (e.g. a malformed IR reaching a printer); always caught at a layer boundary and turned
// back into a Diagnostic.
class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(Diagnostic diagnostic)
      : std::runtime_error(diagnostic.message), diagnostic_(std::move(diagnostic)) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace wb
