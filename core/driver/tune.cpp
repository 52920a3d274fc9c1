// `workbench --batch FILE --tune --target T --trials N --work-dir DIR [--seed S] [--json REPORT]`:
// extracts the module's tuning tasks and tunes them (core/meta_schedule), recording every
// measured candidate in the work directory; prints each trial as it goes and a per-task table at
// the end (best and default from the closing re-measurement, search.h; "search best" what the
// search itself measured). `--run --work-dir DIR` then builds with the records (run.cpp).
// `--target cuda` on a machine without a GPU builds and verifies each task's design space (every
// sketch sampled, each candidate through VerifyGPUCode and NVRTC), prints it, says that no
// candidate can be measured, and exits with 3.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "driver/commands.h"
#include "driver/module_input.h"
#include "meta_schedule/apply.h"
#include "meta_schedule/database.h"
#include "meta_schedule/search.h"
#include "meta_schedule/task.h"

namespace wb::driver {

namespace {

std::string Ms(std::optional<double> s) {
  if (!s) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f ms", *s * 1e3);
  return buf;
}

std::string Fixed(std::optional<double> v, const char* format) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), format, *v);
  return buf;
}

void PrintTable(const meta_schedule::TuneResult& result, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof(line), "%-32s %6s %6s %6s %14s %9s %14s %8s %14s\n", "task", "weight", "trials",
                "failed", "best median", "GFLOP/s", "default", "speedup", "search best");
  out << line;
  for (const auto& t : result.tasks) {
    std::snprintf(line, sizeof(line), "%-32s %6d %6d %6d %14s %9s %14s %8s %14s\n", t.name.c_str(), t.weight,
                  t.trials, t.failed, Ms(t.best_s).c_str(), Fixed(t.gflops(), "%.2f").c_str(),
                  Ms(t.default_s).c_str(), Fixed(t.speedup(), "%.2fx").c_str(), Ms(t.search_best_s).c_str());
    out << line;
    if (t.trials > 0 && !t.verified) out << "  " << t.name << ": not re-measured (the figures are the search's)\n";
    if (!t.message.empty()) out << "  " << t.name << ": " << t.message << "\n";
    if (t.seeded) {
      out << "  " << t.name << ": the search started from the default schedule (" << t.default_sketch_trials
          << " trials of its tiles)\n";
    } else if (t.trials > 0 && !t.seed_message.empty()) {
      out << "  " << t.name << ": the search did not start from the default schedule: " << t.seed_message << "\n";
    }
  }
}

// The design spaces VerifyDesignSpace built (cuda without a device).
void PrintSpace(const meta_schedule::TuneResult& result, std::ostream& out) {
  char line[256];
  out << "design space (each sketch sampled, every candidate through the postprocessors and VerifyGPUCode, "
         "then built):\n";
  std::snprintf(line, sizeof(line), "%-32s %6s %7s %6s %8s %9s\n", "task", "sketch", "sampled", "valid", "distinct",
                "compiled");
  out << line;
  for (const auto& t : result.space) {
    if (!t.message.empty()) {
      out << "  " << t.task << ": " << t.message << "\n";
      continue;
    }
    for (const auto& sk : t.sketches) {
      std::snprintf(line, sizeof(line), "%-32s %6d %7d %6d %8d %9s\n", t.task.c_str(), sk.sketch, sk.sampled, sk.valid,
                    sk.distinct, t.built ? std::to_string(sk.compiled).c_str() : "-");
      out << line;
      if (sk.valid < sk.sampled && !sk.first_error.empty()) {
        std::string first = sk.first_error;
        std::replace(first.begin(), first.end(), '\n', ' ');
        out << "  " << t.task << " sketch " << sk.sketch << ": rejected, e.g.: " << first << "\n";
      }
    }
    if (!t.built) out << "  " << t.task << ": not built (this build has no NVRTC)\n";
  }
}

}  // namespace

int RunTuneCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  meta_schedule::ExtractedTasks tasks = meta_schedule::ExtractTasks(parsed.module);
  if (tasks.tasks.empty()) {
    err << "workbench: --tune: " << opts.files[0] << ": " << tasks.error << "\n";
    return 1;
  }
  meta_schedule::TuneOptions options;
  options.target = opts.target.empty() ? "llvm" : opts.target;
  options.max_trials = opts.trials;
  options.seed = opts.seed;
  options.work_dir = opts.work_dir;
  out << "tuning " << tasks.tasks.size() << " task(s) of " << opts.files[0] << " for " << options.target
      << ", " << options.max_trials << " trials, work directory " << options.work_dir << "\n";
  auto progress = [&](const meta_schedule::TuneProgress& p) {
    char line[256];
    std::snprintf(line, sizeof(line), "[%d/%d] %s: best %s, ETA %.0f s\n", p.trial, p.total, p.task.c_str(),
                  Ms(p.best_s).c_str(), p.eta_s);
    out << line << std::flush;
  };
  meta_schedule::TuneResult result = meta_schedule::Tune(tasks, options, {}, progress);
  for (const std::string& w : result.warnings) err << "warning: " << w << "\n";
  if (result.no_device) {
    PrintSpace(result, out);
    bool ok = true;
    for (const auto& t : result.space) ok &= t.ok() || !t.message.empty();
    err << "workbench: --tune: " << result.error << "\n";
    if (!ok) err << "workbench: --tune: a sketch has no valid candidate (see the table)\n";
    return 3;
  }
  if (!result.error.empty()) {
    err << "workbench: --tune: " << result.error << "\n";
    return 2;
  }
  PrintTable(result, out);
  char line[256];
  std::snprintf(line, sizeof(line),
                "%d trials and %d re-measurements in %.1f s (%.2f trials/s): build %.1f s (%.1f s "
                "of builds in "
                "parallel), run %.1f s, search %.1f s, cost model %.1f s\n",
                result.trials, result.verify_runs, result.total_s,
                result.total_s > 0 ? result.trials / result.total_s : 0.0, result.build_s,
                result.build_cpu_s, result.run_s, result.generate_s, result.model_s);
  out << line;
  bool any_tuned = false;
  nlohmann::json report_tasks = nlohmann::json::array();
  for (const auto& t : result.tasks) {
    any_tuned |= t.best_s.has_value();
    nlohmann::json j = {{"task", t.name},       {"weight", t.weight},        {"trials", t.trials},
                        {"failed", t.failed},   {"too_slow", t.too_slow},    {"flops", t.flops},
                        {"message", t.message}, {"best_trace", t.best_trace}};
    j["verified"] = t.verified;
    j["seeded"] = t.seeded;
    j["default_sketch_trials"] = t.default_sketch_trials;
    if (!t.seed_message.empty()) j["seed_message"] = t.seed_message;
    j["search_best_median_s"] = t.search_best_s ? nlohmann::json(*t.search_best_s) : nlohmann::json();
    j["best_median_s"] = t.best_s ? nlohmann::json(*t.best_s) : nlohmann::json();
    j["default_median_s"] = t.default_s ? nlohmann::json(*t.default_s) : nlohmann::json();
    j["gflops"] = t.gflops() ? nlohmann::json(*t.gflops()) : nlohmann::json();
    j["speedup"] = t.speedup() ? nlohmann::json(*t.speedup()) : nlohmann::json();
    report_tasks.push_back(j);
  }
  if (!opts.json_path.empty()) {
    std::ofstream json(opts.json_path);
    if (!json) {
      err << "workbench: cannot write '" << opts.json_path << "'\n";
      return 2;
    }
    json << nlohmann::json{{"target", options.target},
                           {"trials", result.trials},
                           {"verify_runs", result.verify_runs},
                           {"seed", options.seed},
                           {"work_dir", options.work_dir},
                           {"tasks", report_tasks},
                           {"seconds",
                            {{"total", result.total_s},
                             {"build", result.build_s},
                             {"builds", result.build_cpu_s},
                             {"run", result.run_s},
                             {"search", result.generate_s},
                             {"cost_model", result.model_s}}}}
                .dump(2)
         << "\n";
  }
  return any_tuned ? 0 : 1;
}

int ApplyWorkDirOption(const BatchOptions& opts, const codegen::Target& target, ir::IRModule* module,
                       std::ostream& out, std::ostream& err) {
  if (!std::filesystem::is_directory(opts.work_dir)) {
    err << "workbench: --work-dir: '" << opts.work_dir << "' is not a directory\n";
    return 2;
  }
  std::string error;
  std::optional<meta_schedule::JSONDatabase> db = meta_schedule::JSONDatabase::Open(opts.work_dir, &error);
  if (!db) {
    err << "workbench: --work-dir: " << error << "\n";
    return 2;
  }
  for (const std::string& w : db->warnings()) err << "warning: " << w << "\n";
  meta_schedule::AppliedDatabase applied = meta_schedule::ApplyDatabase(*module, *db, target);
  for (const std::string& w : applied.warnings) err << "warning: " << w << "\n";
  if (!applied.module.defined()) {
    err << "workbench: --work-dir: " << applied.error << "\n";
    return 1;
  }
  auto names = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none") : s;
  };
  out << "tuning records applied: " << names(applied.applied) << "; default schedules: "
      << names(applied.defaulted) << "\n";
  *module = applied.module;
  return 0;
}

}  // namespace wb::driver
