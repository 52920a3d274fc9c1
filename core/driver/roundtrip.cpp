#include "driver/roundtrip.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "driver/commands.h"
#include "driver/module_input.h"
#include "ir/structural_equal.h"
#include "script/tvmscript.h"
#include "workbench/session.h"

namespace wb::driver {

namespace {

using Status = RoundTripResult::Status;

// "line N: expected `...`, got `...`" for the first line where two texts differ.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(sa, la));
    bool hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha && !hb) return "texts differ only in trailing characters";
    if (!ha || !hb || la != lb) {
      return "line " + std::to_string(line) + ": first print `" + (ha ? la : "<end>") +
             "`, second print `" + (hb ? lb : "<end>") + "`";
    }
  }
}

}  // namespace

std::string MismatchDetail(const ir::StructuralMismatch& m) {
  std::string detail = "first mismatch at " + m.lhs_path;
  if (m.rhs_path != m.lhs_path) detail += " (other side: " + m.rhs_path + ")";
  return detail;
}

const char* StatusName(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kReadError:
      return "read-error";
    case Status::kDiagnostics:
      return "diagnostics";
    case Status::kReparseFailed:
      return "reparse-failed";
    case Status::kNotEqual:
      return "not-structurally-equal";
    case Status::kNotFixedPoint:
      return "not-a-fixed-point";
  }
  return "unknown";
}

RoundTripResult RoundTrip(const std::string& path, const std::string& text) {
  RoundTripResult result;
  result.path = path;
  workbench::Analysis analysis = workbench::Analyze(text, path);
  const script::ParseResult& first = analysis.parse;
  result.diagnostics = analysis.diagnostics;
  if (!first.module.defined() || result.diagnostics.HasErrors()) {
    result.status = Status::kDiagnostics;
    return result;
  }
  result.printed = script::Print(first);
  script::ParseResult second = script::Parse(result.printed, path + " (printed)");
  if (!second.ok()) {
    result.status = Status::kReparseFailed;
    result.diagnostics = second.diagnostics;
    result.detail = "the printed text does not parse back";
    return result;
  }
  if (auto mismatch = ir::FindFirstMismatch(first.module, second.module)) {
    result.status = Status::kNotEqual;
    result.detail = MismatchDetail(*mismatch);
    return result;
  }
  std::string reprinted = script::Print(second);
  if (reprinted != result.printed) {
    result.status = Status::kNotFixedPoint;
    result.detail = FirstDifference(result.printed, reprinted);
  }
  return result;
}

RoundTripResult RoundTripFile(const std::string& path) {
  std::string text;
  if (!ReadFile(path, &text)) {
    RoundTripResult result;
    result.path = path;
    result.status = Status::kReadError;
    result.diagnostics.Error("cannot read file '" + path + "'");
    return result;
  }
  return RoundTrip(path, text);
}

int RunRoundTripCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  nlohmann::json report = nlohmann::json::array();
  int failures = 0;
  bool unreadable = false;
  for (const auto& file : opts.files) {
    RoundTripResult r = RoundTripFile(file);
    bool ok = r.status == Status::kOk;
    failures += !ok;
    unreadable |= r.status == Status::kReadError;
    out << (ok ? "ok      " : "FAILED  ") << file;
    if (!ok) out << ": " << StatusName(r.status);
    if (!r.detail.empty()) out << " (" << r.detail << ")";
    out << "\n";
    err << RenderDiagnostics(r.diagnostics, opts.color);
    nlohmann::json entry = {{"file", file}, {"status", StatusName(r.status)}};
    if (!r.detail.empty()) entry["detail"] = r.detail;
    nlohmann::json diags = nlohmann::json::array();
    for (const auto& d : r.diagnostics) {
      auto pos = d.span.start();
      diags.push_back({{"severity", SeverityName(d.severity)},
                       {"message", d.message},
                       {"line", pos.line},
                       {"column", pos.column}});
    }
    entry["diagnostics"] = diags;
    report.push_back(entry);
  }
  out << opts.files.size() - failures << " passed, " << failures << " failed\n";
  if (!opts.json_path.empty()) {
    std::ofstream json(opts.json_path);
    if (!json) {
      err << "workbench: cannot write '" << opts.json_path << "'\n";
      return 2;
    }
    json << nlohmann::json{{"files", report}}.dump(2) << "\n";
  }
  if (unreadable) return 2;
  return failures ? 1 : 0;
}

}  // namespace wb::driver
