#include "driver/regression.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include <regex>

#include "frontend/load_module.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "support/child_process.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "driver/regression_numeric.h"
#include "driver/regression_timing.h"
#include "workbench/text_diff.h"

namespace wb::driver {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

int RegressionReport::passed() const {
  int n = 0;
  for (const auto& c : cases) n += c.status == "passed";
  return n;
}
int RegressionReport::skipped() const {
  int n = 0;
  for (const auto& c : cases) n += c.status == "skipped";
  return n;
}
int RegressionReport::failed() const { return static_cast<int>(cases.size()) - passed() - skipped(); }

namespace {

bool ReadText(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Compares printed IR with a golden file (or rewrites the golden file).
CheckResult CheckGolden(const std::string& kind, const std::string& name, const std::string& actual,
                        const std::string& golden_path, bool update, CaseResult* result) {
  CheckResult check{kind, name, false, "", ""};
  std::string expected;
  bool exists = ReadText(golden_path, &expected);
  if (update) {
    if (!exists || Trimmed(expected) != Trimmed(actual)) {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(golden_path).parent_path(), ec);
      std::ofstream out(golden_path, std::ios::binary);
      out << Trimmed(actual) << "\n";
      if (!out.good()) {
        check.message = "cannot write golden file '" + golden_path + "'";
        return check;
      }
      result->updated_goldens.push_back(golden_path);
    }
    check.passed = true;
    check.message = "golden file up to date";
    return check;
  }
  if (!exists) {
    check.message = "golden file '" + golden_path + "' is missing (run with --update-goldens)";
    return check;
  }
  if (Trimmed(expected) == Trimmed(actual)) {
    check.passed = true;
    return check;
  }
  check.message = "printed IR differs from '" + golden_path + "'";
  check.diff = workbench::UnifiedDiff(Trimmed(expected) + "\n", Trimmed(actual) + "\n", golden_path, "actual");
  return check;
}

}  // namespace

CaseResult RunCase(const ManifestCase& c, bool update_goldens) {
  CaseResult result;
  result.name = c.name;
  auto start = Clock::now();
  auto finish = [&](std::string status, std::string message) {
    result.status = std::move(status);
    result.message = std::move(message);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  // The case's pipeline and the builds of its checks all run under its pass control.
  ir::PassContext context = transform::ContextWith(c.control);
  ir::PassContext::Scope scope(context);
  if (!std::ifstream(c.input, std::ios::binary)) return finish("error", "cannot read input '" + c.input + "'");
  // TVMScript or an ONNX model, as every face opens files.
  script::ParseResult parsed = frontend::LoadModule(c.input);
  if (!parsed.ok()) {
    result.checks.push_back({"parse", c.input, false, RenderDiagnostics(parsed.diagnostics), ""});
    return finish("failed", "the input does not parse");
  }
  ir::IRModule scheduled = parsed.module;
  for (const auto& s : c.schedules) {
    DiagnosticList diags;
    try {
      schedule::Schedule sch(scheduled);
      sch.WorkOn(s.func);
      diags = schedule::ApplyRecipe(sch, s.text, s.origin);
      if (!diags.HasErrors()) scheduled = sch.mod();
    } catch (const std::invalid_argument& e) {
      diags.Error(e.what());
    }
    if (diags.HasErrors()) {
      result.checks.push_back({"schedule", s.func, false, RenderDiagnostics(diags), ""});
      return finish("failed", "the schedule recipe for '" + s.func + "' does not apply");
    }
    result.checks.push_back({"schedule", s.func, true, "", ""});
  }
  transform::PipelineResult run;
  run.module = scheduled;
  if (!c.pipeline.empty()) {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(c.pipeline, diags);
    if (!pass) return finish("error", "bad pipeline: " + RenderDiagnostics(diags));
    run = transform::RunPipeline(*pass, scheduled);
    if (!run.ok()) {
      result.checks.push_back({"pipeline", c.pipeline, false, RenderDiagnostics(run.diagnostics), ""});
      return finish("failed", run.diagnostics[0].message);
    }
  }
  if (!c.ir_golden.empty()) {
    script::ParseResult after = parsed;
    after.module = run.module;
    result.checks.push_back(
        CheckGolden("ir_golden", c.ir_golden, script::Print(after), c.ir_golden, update_goldens,
                    &result));
  }
  for (const auto& [pass, path] : c.pass_goldens) {
    const transform::PassSnapshot* snap = nullptr;
    for (const auto& s : run.snapshots) {
      if (s.name == pass) snap = &s;
    }
    if (!snap) {
      result.checks.push_back({"pass_golden", pass, false, "pass '" + pass + "' did not run", ""});
      continue;
    }
    result.checks.push_back(
        CheckGolden("pass_golden", pass, snap->AfterText(), path, update_goldens, &result));
  }
  BuiltChecks built = RunBuiltChecks(c, parsed.module, run.module, update_goldens);
  if (!built.input_error.empty()) return finish("error", built.input_error);
  for (auto& check : built.checks) result.checks.push_back(std::move(check));
  for (auto& path : built.updated) result.updated_goldens.push_back(std::move(path));
  std::string failed, skipped;
  for (const auto& check : result.checks) {
    if (check.skipped) {
      if (skipped.empty()) skipped = "skipped: " + check.message;
      continue;
    }
    if (check.passed) continue;
    // Golden checks are named by their file; the kind says enough in a one-line summary.
    bool by_file = check.kind == "ir_golden";
    failed += (failed.empty() ? "" : ", ") + check.kind + (by_file ? "" : " " + check.name);
  }
  if (failed.empty() && !skipped.empty()) return finish("skipped", skipped);
  return finish(failed.empty() ? "passed" : "failed", failed.empty() ? "" : "failed: " + failed);
}

namespace {

json CaseToJson(const CaseResult& r, bool with_time) {
  json checks = json::array();
  for (const auto& c : r.checks) {
    json j = {{"kind", c.kind}, {"name", c.name}, {"passed", c.passed}};
    if (c.skipped) j["skipped"] = true;
    if (!c.message.empty()) j["message"] = c.message;
    if (!c.diff.empty()) j["diff"] = c.diff;
    if (c.max_abs_error) j["max_abs_error"] = *c.max_abs_error;
    if (c.max_rel_error) j["max_rel_error"] = *c.max_rel_error;
    if (!c.worst.empty()) j["worst"] = c.worst;
    if (c.seconds) j["seconds"] = *c.seconds;
    if (c.baseline_s) j["baseline_s"] = *c.baseline_s;
    if (c.ratio) j["ratio"] = *c.ratio;
    checks.push_back(j);
  }
  json j = {{"name", r.name}, {"status", r.status}, {"checks", checks}};
  if (!r.message.empty()) j["message"] = r.message;
  if (!r.updated_goldens.empty()) j["updated_goldens"] = r.updated_goldens;
  if (with_time) j["seconds"] = r.seconds;
  return j;
}

CaseResult CaseFromJson(const json& j) {
  CaseResult r;
  r.name = j.value("name", "");
  r.status = j.value("status", "error");
  r.message = j.value("message", "");
  r.seconds = j.value("seconds", 0.0);
  for (const auto& c : j.value("checks", json::array())) {
    CheckResult check{c.value("kind", ""), c.value("name", ""), c.value("passed", false),
                      c.value("message", ""), c.value("diff", "")};
    auto number = [&](const char* key, std::optional<double>* out) {
      if (c.contains(key) && c[key].is_number()) *out = c[key].get<double>();
    };
    check.skipped = c.value("skipped", false);
    number("max_abs_error", &check.max_abs_error);
    number("max_rel_error", &check.max_rel_error);
    number("seconds", &check.seconds);
    number("baseline_s", &check.baseline_s);
    number("ratio", &check.ratio);
    check.worst = c.value("worst", "");
    r.checks.push_back(std::move(check));
  }
  for (const auto& u : j.value("updated_goldens", json::array())) r.updated_goldens.push_back(u);
  return r;
}

bool MatchesFilter(const std::string& filter, const std::string& name) {
  if (filter.find_first_of("*?") == std::string::npos) return name.find(filter) != std::string::npos;
  std::string re;
  for (char ch : filter) {
    if (ch == '*') re += ".*";
    else if (ch == '?') re += ".";
    else if (std::string("\\^$.|+()[]{}").find(ch) != std::string::npos) re += std::string("\\") + ch;
    else re += ch;
  }
  return std::regex_match(name, std::regex(re));
}

// A case in a child process (support/child_process.h) that returns its result as JSON: a case
// that crashes or hangs fails alone.
std::unique_ptr<ChildProcess> Spawn(const ManifestCase& c, bool update) {
  ChildOptions options;
  options.timeout_s = c.timeout_s;
  options.capture_stderr = false;  // what a case prints goes to the runner's stderr, as it did
  return std::make_unique<ChildProcess>(
      [&c, update](ChildChannel&) { return CaseToJson(RunCase(c, update), true).dump(); }, options);
}

// The case's result from how its process ended.
CaseResult Collect(const ManifestCase& c, const ChildResult& child) {
  switch (child.end) {
    case ChildEnd::kFinished: {
      json j = json::parse(child.payload, nullptr, false);
      if (j.is_object()) return CaseFromJson(j);
      return {c.name, "crashed", "the case ended without a result", child.seconds, {}, {}};
    }
    case ChildEnd::kThrew:
      // A throw is the case's failure (an input that cannot be read is reported as "error").
      return {c.name, "failed", "internal error: " + child.message, child.seconds, {}, {}};
    case ChildEnd::kTimedOut:
      return {c.name, "timeout", "did not finish within " + std::to_string(int(c.timeout_s)) + " s",
              child.seconds, {}, {}};
    case ChildEnd::kCrashed:
      return {c.name, "crashed", "the case crashed: " + child.message, child.seconds, {}, {}};
    case ChildEnd::kOutOfMemory:
      return {c.name, "out-of-memory", "the case ran out of memory: " + child.message, child.seconds, {}, {}};
    case ChildEnd::kCannotStart:
      // Not the case's fault: "error", which makes the run exit 2 (as before ChildProcess).
      return {c.name, "error", "cannot start a process: " + child.message, 0, {}, {}};
    default:
      return {c.name, "crashed", "the case ended without a result (" + child.message + ")",
              child.seconds, {}, {}};
  }
}

}  // namespace

RegressionReport RunManifest(const Manifest& manifest, const RegressionOptions& options,
                             std::ostream& progress) {
  std::vector<const ManifestCase*> selected;
  for (const auto& c : manifest.cases) {
    if (MatchesFilter(options.filter, c.name)) selected.push_back(&c);
  }
  RegressionReport report;
  report.cases.resize(selected.size());
  bool tty = isatty(STDERR_FILENO);
  size_t done = 0;
  auto note_done = [&](size_t index) {
    ++done;
    if (tty) {
      progress << "\r[" << done << "/" << selected.size() << "] " << report.cases[index].name
               << "\033[K" << std::flush;
    }
  };
  if (!options.isolate) {
    for (size_t i = 0; i < selected.size(); ++i) {
      report.cases[i] = RunCase(*selected[i], options.update_goldens);
      note_done(i);
    }
  } else {
    std::vector<std::pair<std::unique_ptr<ChildProcess>, size_t>> running;
    size_t next = 0;
    int jobs = std::max(1, options.jobs);
    while (next < selected.size() || !running.empty()) {
      while (next < selected.size() && static_cast<int>(running.size()) < jobs) {
        running.emplace_back(Spawn(*selected[next], options.update_goldens), next);
        ++next;
      }
      std::vector<ChildProcess*> children;
      for (auto& [child, index] : running) children.push_back(child.get());
      ChildProcess::PumpAll(children, 50);
      for (size_t k = 0; k < running.size();) {
        auto& [child, index] = running[k];
        if (!child->done()) {
          ++k;
          continue;
        }
        report.cases[index] = Collect(*selected[index], child->result());
        note_done(index);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
  if (tty && !selected.empty()) progress << "\r\033[K" << std::flush;
  if (options.update_goldens) report.updated_baselines = UpdateBaselines(selected, report.cases);
  return report;
}

std::string ReportJson(const RegressionReport& report) {
  json cases = json::array();
  for (const auto& c : report.cases) cases.push_back(CaseToJson(c, true));
  return json{{"passed", report.passed()}, {"failed", report.failed()}, {"skipped", report.skipped()},
              {"cases", cases}}
             .dump(2) +
         "\n";
}

std::optional<RegressionReport> ParseReportJson(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array()) return std::nullopt;
  RegressionReport report;
  for (const auto& c : j["cases"]) {
    if (!c.is_object()) return std::nullopt;
    report.cases.push_back(CaseFromJson(c));
  }
  return report;
}

namespace {

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

// One line per check with its figures: what CI shows for a test case.
std::string CheckLines(const CaseResult& c) {
  std::ostringstream os;
  for (const auto& check : c.checks) {
    os << check.kind << " " << check.name << ": "
       << (check.skipped ? "skipped (" + check.message + ")" : check.passed ? "passed" : "FAILED");
    if (check.max_abs_error) os << "; max abs error " << *check.max_abs_error;
    if (check.max_rel_error) os << ", max rel error " << *check.max_rel_error;
    if (!check.worst.empty()) os << " at " << check.worst;
    if (check.ratio) os << "; " << *check.ratio << "x the baseline";
    os << "\n";
  }
  return os.str();
}

}  // namespace

std::string ReportJUnit(const RegressionReport& report) {
  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const auto& c : report.cases) {
    failures += c.status == "failed";
    skipped += c.status == "skipped";
    errors += c.status != "failed" && c.status != "passed" && c.status != "skipped";
    total += c.seconds;
  }
  std::ostringstream x;
  x << std::fixed << std::setprecision(3);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"workbench\" tests=\"" << report.cases.size() << "\" failures=\""
    << failures << "\" errors=\"" << errors << "\" time=\"" << total << "\">\n";
  x << "  <testsuite name=\"workbench\" tests=\"" << report.cases.size() << "\" failures=\""
    << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << total << "\">\n";
  for (const auto& c : report.cases) {
    x << "    <testcase classname=\"workbench\" name=\"" << XmlEscape(c.name) << "\" time=\""
      << c.seconds << "\"";
    if (c.status == "passed") {
      if (c.checks.empty()) {
        x << "/>\n";
      } else {
        x << ">\n      <system-out>" << XmlEscape(CheckLines(c)) << "</system-out>\n    </testcase>\n";
      }
      continue;
    }
    x << ">\n";
    if (c.status == "skipped") {
      x << "      <skipped message=\"" << XmlEscape(c.message) << "\"/>\n";
      if (!c.checks.empty()) x << "      <system-out>" << XmlEscape(CheckLines(c)) << "</system-out>\n";
      x << "    </testcase>\n";
      continue;
    }
    std::string details;
    for (const auto& check : c.checks) {
      if (check.passed) continue;
      details += check.kind + " " + check.name + ": " + check.message + "\n" + check.diff;
    }
    const char* tag = c.status == "failed" ? "failure" : "error";
    x << "      <" << tag << " type=\"" << c.status << "\" message=\"" << XmlEscape(c.message)
      << "\">" << XmlEscape(details) << "</" << tag << ">\n";
    if (!c.checks.empty()) x << "      <system-out>" << XmlEscape(CheckLines(c)) << "</system-out>\n";
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

std::string SummaryTable(const RegressionReport& report) {
  size_t width = 4;
  for (const auto& c : report.cases) width = std::max(width, c.name.size());
  std::ostringstream t;
  t << std::left << std::setw(int(width) + 2) << "case" << std::setw(10) << "status"
    << "time\n";
  for (const auto& c : report.cases) {
    t << std::left << std::setw(int(width) + 2) << c.name << std::setw(10) << c.status
      << std::fixed << std::setprecision(2) << c.seconds << " s";
    if (!c.message.empty() && c.status != "passed") t << "  " << c.message;
    t << "\n";
  }
  t << report.passed() << " passed, " << report.failed() << " failed";
  if (report.skipped()) t << ", " << report.skipped() << " skipped";
  t << "\n";
  return t.str();
}

}  // namespace wb::driver
