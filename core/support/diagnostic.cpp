#include "support/diagnostic.h"

#include <algorithm>
#include <tuple>

namespace wb {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

Diagnostic Diagnostic::Error(std::string message, Span span) {
  return Diagnostic{Severity::kError, std::move(message), std::move(span), {}};
}

Diagnostic Diagnostic::Warning(std::string message, Span span) {
  return Diagnostic{Severity::kWarning, std::move(message), std::move(span), {}};
}

Diagnostic& Diagnostic::Note(std::string message, Span span) {
  notes.push_back({std::move(message), std::move(span)});
  return *this;
}

Diagnostic& DiagnosticList::Error(std::string message, Span span) {
  items_.push_back(Diagnostic::Error(std::move(message), std::move(span)));
  return items_.back();
}

void DiagnosticList::Append(const DiagnosticList& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

bool DiagnosticList::HasErrors() const { return ErrorCount() > 0; }

size_t DiagnosticList::ErrorCount() const {
  return std::count_if(items_.begin(), items_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

void DiagnosticList::SortByPosition() {
  // Spans without a file first, then by file path, then by offset: a strict weak order.
  auto key = [](const Diagnostic& d) {
    return std::make_tuple(d.span.file != nullptr, d.span.file ? d.span.file->path() : std::string(),
                           d.span.file ? d.span.begin : 0u);
  };
  std::stable_sort(items_.begin(), items_.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
}

namespace {

void RenderOne(std::string& out, Severity severity, const std::string& message, const Span& span,
               bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  const char* tint = "";
  if (color) {
    tint = severity == Severity::kError ? "\033[1;31m"
           : severity == Severity::kWarning ? "\033[1;35m"
                                            : "\033[1;36m";
  }
  out += bold;
  out += span.ToString();
  out += ": ";
  out += reset;
  out += tint;
  out += SeverityName(severity);
  out += ": ";
  out += reset;
  out += bold;
  out += message;
  out += reset;
  out += '\n';
  if (!span.defined()) return;
  auto start = span.start();
  auto stop = span.stop();
  std::string_view line = span.file->LineText(start.line);
  out += "    ";
  // Tabs would misalign the caret; show them as single spaces.
  for (char c : line) out += (c == '\t' ? ' ' : c);
  out += "\n    ";
  for (uint32_t i = 1; i < start.column; ++i) out += ' ';
  out += color ? "\033[1;32m^" : "^";
  uint32_t last = stop.line == start.line ? stop.column : static_cast<uint32_t>(line.size()) + 1;
  for (uint32_t i = start.column + 1; i < last; ++i) out += '~';
  out += reset;
  out += '\n';
}

}  // namespace

std::string RenderDiagnostic(const Diagnostic& diagnostic, bool color) {
  std::string out;
  RenderOne(out, diagnostic.severity, diagnostic.message, diagnostic.span, color);
  for (const auto& note : diagnostic.notes) {
    RenderOne(out, Severity::kNote, note.message, note.span.defined() ? note.span : Span(), color);
  }
  return out;
}

std::string RenderDiagnostics(const DiagnosticList& diagnostics, bool color) {
  std::string out;
  for (const auto& d : diagnostics) out += RenderDiagnostic(d, color);
  return out;
}

}  // namespace wb
