#include "workbench/batch.h"
#include "workbench/batch_vm.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "codegen/build.h"
#include "codegen/build_cuda.h"
#include "codegen/run_check.h"
#include "codegen/target.h"
#include "ir/structural_equal.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/ndarray_device.h"
#include "schedule/recipe.h"
#include "support/child_process.h"
#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "transform/relax/semantic_check.h"
#include "workbench/equivalence.h"
#include "workbench/manifest.h"
#include "workbench/manifest_shard.h"
#include "workbench/session.h"
#include "workbench/regression.h"

namespace wb::workbench {

namespace {

using Status = RoundTripResult::Status;

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

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

std::string MismatchDetail(const ir::StructuralMismatch& m) {
  std::string detail = "first mismatch at " + m.lhs_path;
  if (m.rhs_path != m.lhs_path) detail += " (other side: " + m.rhs_path + ")";
  return detail;
}

}  // namespace

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
  Analysis analysis = Analyze(text, path);
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

ir::IRModule StripGlobalSymbols(const ir::IRModule& module) {
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    ir::BaseFunc func = module->functions[i];
    if (func->attrs.count("global_symbol")) {
      ir::Object* copy = func->Clone();
      static_cast<ir::BaseFuncNode*>(copy)->attrs.erase("global_symbol");
      func = ir::BaseFunc(static_cast<ir::BaseFuncNode*>(copy));
    }
    vars.push_back(module->functions.size() == 1 ? ir::MakeGlobalVar("main")
                                                 : module->global_vars[i]);
    funcs.push_back(func);
  }
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

namespace {

// `--target cuda --run` where there is no GPU: built, nothing ran.
constexpr int kExitNoGpu = 3;

constexpr const char* kUsage = R"usage(usage:
  workbench --batch FILE... --roundtrip [--json REPORT]
      parse, verify, print and re-parse each file; report per file
  workbench --batch FILE --emit tvmscript
      print the canonical TVMScript of FILE (a formatter)
  workbench --batch FILE --pipeline "PassA, PassB(arg=1)" [--dump-dir DIR] [--check]
      run a pass pipeline and print the result; DIR receives NN-Pass.before.py/.after.py
      for every pass and passes.json (names, timings, changed or not); --check runs every
      PrimFunc and Relax function before and after on seeded random inputs (the TensorIR and
      Relax reference interpreters), exit 1 if any result differs
  workbench --batch FILE --schedule RECIPE [--func NAME] [--emit tvmscript | --run] [--check]
      apply a schedule recipe (TVM's Python schedule API: `sch.split(l, factors=[None, 32])`)
      to the PrimFunc NAME (default: TVM's choice, `main` or the only one) and print the
      result; --check runs the function before and after on seeded random inputs, exit 1
      naming the function and the max error if they differ; recipe errors are reported as
      RECIPE:line:col: error: ...
  workbench --batch --list-passes
      the registered passes and named pipelines
  workbench --batch MANIFEST.json [-j N] [--filter TEXT] [--update-goldens] [--shard K/N]
                    [--json REPORT] [--junit REPORT.xml]
      run the regression cases of a manifest (see resources/manifest.schema.json);
      exit 0 all passed, 1 a check failed, 2 the manifest or an input could not be read;
      --shard K/N runs the K-th of N shards (chosen by a hash of each case's name)
  workbench --batch --merge-reports SHARD.json... [--json REPORT] [--junit REPORT.xml]
      merge the --json reports of all N shards of one manifest run into one report (refused
      for reports of different manifests, workbench versions or filters); exit as the run
  workbench --batch FILE --compare OTHER [--ignore-global-symbol]
      check that two modules are structurally equal (exit 1 when not)
  workbench --batch FILE [--schedule RECIPE] [--pipeline ...] [--target TARGET] --run [--inputs DIR|random]
                    [--func NAME] [--profile [--number N] [--repeat R]] [--json REPORT]
      build every PrimFunc for TARGET (default "llvm -mcpu=native"), run it, check it
      against the interpreter (tolerances per dtype) and, with --profile, time it (TVM's
      time evaluator: R samples, each the mean of N calls) with GFLOP/s; exit 1 on a
      mismatch or failure. DIR holds <name>.npy or <func>/<name>.npy inputs
      (name: a parameter or buffer name; others are random). A module with Relax
      functions is built through default_build_pipeline and the Relax VM, and each
      Relax function (or --func NAME) runs and is checked against the Relax interpreter;
      symbolic dims get a size from an input file or 4 (printed). On the CPU each
      function runs in its own process: a kernel that crashes is reported by signal
      ("error: kernel 'main' crashed: SIGSEGV (...)"), the others still run, exit 1.
      TARGET "cuda" (or "cuda -arch=sm_90", "nvidia/h200") builds GPU kernels (CUDA C,
      NVRTC) and runs them on cuda(0) with CUDA-event timing; where there is no GPU it
      builds, then exits 3 saying why nothing ran
  workbench --batch FILE [--schedule RECIPE] [--pipeline ...] [--target TARGET] --emit cuda|ptx
      build for a cuda TARGET (default "cuda") and print the generated CUDA C or PTX
      (no GPU needed)
)usage";

struct Options {
  std::vector<std::string> files;
  bool roundtrip = false;
  std::string emit;
  std::string compare;
  bool ignore_global_symbol = false;
  std::string json_path;
  bool color = false;
  std::string pipeline;
  std::string dump_dir;
  bool list_passes = false;
  bool check = false;
  std::string schedule;  // a recipe file
  std::string func;      // the PrimFunc the recipe works on
  // Manifest runs.
  int jobs = 1;
  std::string junit_path;
  std::string filter;
  bool update_goldens = false;
  std::string shard;  // K/N
  bool merge_reports = false;
  // Build and run.
  bool run = false;
  std::string target;
  std::string inputs;
  bool profile = false;
  int number = 10;
  int repeat = 3;
};

bool IsManifest(const std::vector<std::string>& files) {
  return files.size() == 1 && files[0].size() > 5 &&
         files[0].compare(files[0].size() - 5, 5, ".json") == 0;
}

bool ParseOptions(const std::vector<std::string>& args, Options* opts, std::ostream& err) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> const std::string* {
      if (i + 1 >= args.size()) {
        err << "workbench: " << flag << " needs a value\n";
        return nullptr;
      }
      return &args[++i];
    };
    if (a == "--roundtrip") {
      opts->roundtrip = true;
    } else if (a == "--emit") {
      const std::string* v = value("--emit");
      if (!v) return false;
      if (*v != "tvmscript" && *v != "cuda" && *v != "ptx") {
        err << "workbench: --emit supports 'tvmscript', 'cuda' and 'ptx' (got '" << *v << "')\n";
        return false;
      }
      opts->emit = *v;
    } else if (a == "--compare") {
      const std::string* v = value("--compare");
      if (!v) return false;
      opts->compare = *v;
    } else if (a == "--json") {
      const std::string* v = value("--json");
      if (!v) return false;
      opts->json_path = *v;
    } else if (a == "--pipeline") {
      const std::string* v = value("--pipeline");
      if (!v) return false;
      opts->pipeline = *v;
    } else if (a == "--dump-dir") {
      const std::string* v = value("--dump-dir");
      if (!v) return false;
      opts->dump_dir = *v;
    } else if (a == "-j" || a == "--jobs") {
      const std::string* v = value("-j");
      if (!v) return false;
      opts->jobs = std::atoi(v->c_str());
      if (opts->jobs < 1) {
        err << "workbench: -j needs a positive number\n";
        return false;
      }
    } else if (a.rfind("-j", 0) == 0 && a.size() > 2 && std::isdigit(static_cast<unsigned char>(a[2]))) {
      opts->jobs = std::max(1, std::atoi(a.c_str() + 2));
    } else if (a == "--junit") {
      const std::string* v = value("--junit");
      if (!v) return false;
      opts->junit_path = *v;
    } else if (a == "--shard") {
      const std::string* v = value("--shard");
      if (!v) return false;
      opts->shard = *v;
    } else if (a == "--merge-reports") {
      opts->merge_reports = true;
    } else if (a == "--filter") {
      const std::string* v = value("--filter");
      if (!v) return false;
      opts->filter = *v;
    } else if (a == "--run") {
      opts->run = true;
    } else if (a == "--profile") {
      opts->profile = true;
    } else if (a == "--target" || a == "--inputs") {
      const std::string* v = value(a.c_str());
      if (!v) return false;
      (a == "--target" ? opts->target : opts->inputs) = *v;
    } else if (a == "--number" || a == "--repeat") {
      const std::string* v = value(a.c_str());
      if (!v) return false;
      int n = std::atoi(v->c_str());
      if (n < 1) {
        err << "workbench: " << a << " needs a positive number\n";
        return false;
      }
      (a == "--number" ? opts->number : opts->repeat) = n;
    } else if (a == "--schedule") {
      const std::string* v = value("--schedule");
      if (!v) return false;
      opts->schedule = *v;
    } else if (a == "--func") {
      const std::string* v = value("--func");
      if (!v) return false;
      opts->func = *v;
    } else if (a == "--check") {
      opts->check = true;
    } else if (a == "--update-goldens") {
      opts->update_goldens = true;
    } else if (a == "--list-passes") {
      opts->list_passes = true;
    } else if (a == "--ignore-global-symbol") {
      opts->ignore_global_symbol = true;
    } else if (a == "--color") {
      opts->color = true;
    } else if (a == "--help" || a == "-h") {
      return false;
    } else if (!a.empty() && a[0] == '-') {
      err << "workbench: unknown option '" << a << "'\n";
      return false;
    } else {
      opts->files.push_back(a);
    }
  }
  if (opts->list_passes || opts->merge_reports) return true;
  if (IsManifest(opts->files) && !opts->roundtrip && opts->emit.empty() && opts->compare.empty() &&
      opts->pipeline.empty()) {
    return true;
  }
  if (!opts->dump_dir.empty() && opts->pipeline.empty()) {
    err << "workbench: --dump-dir needs --pipeline\n";
    return false;
  }
  // --emit cuda|ptx builds (for --target, default cuda) and prints the device code.
  const bool emit_gpu = opts->emit == "cuda" || opts->emit == "ptx";
  if (emit_gpu && (!opts->inputs.empty() || opts->profile)) {
    err << "workbench: --inputs and --profile go with --run\n";
    return false;
  }
  if ((!opts->target.empty() || !opts->inputs.empty() || opts->profile) && !opts->run && !emit_gpu) {
    err << "workbench: --target, --inputs and --profile go with --run\n";
    return false;
  }
  if (!opts->func.empty() && opts->schedule.empty() && !opts->run) {
    err << "workbench: --func needs --schedule or --run\n";
    return false;
  }
  if (!opts->schedule.empty() && !opts->pipeline.empty() && !opts->run && !emit_gpu) {
    err << "workbench: --schedule and --pipeline are combined only with --run\n";
    return false;
  }
  if ((!opts->pipeline.empty() || !opts->schedule.empty()) && opts->emit.empty() &&
      !opts->roundtrip && opts->compare.empty() && !opts->run) {
    opts->emit = "tvmscript";
  }
  if (!opts->schedule.empty() && (opts->roundtrip || !opts->compare.empty())) {
    err << "workbench: --schedule goes with --emit or --run\n";
    return false;
  }
  if (!opts->pipeline.empty() && (opts->roundtrip || !opts->compare.empty())) {
    err << "workbench: --pipeline goes with --emit or --run\n";
    return false;
  }
  int modes = opts->roundtrip + !opts->emit.empty() + !opts->compare.empty() + opts->run;
  if (modes != 1) {
    err << "workbench: choose exactly one of --roundtrip, --emit, --compare, --run\n";
    return false;
  }
  if (opts->files.empty()) {
    err << "workbench: no input files\n";
    return false;
  }
  if ((!opts->emit.empty() || !opts->compare.empty() || opts->run) && opts->files.size() != 1) {
    err << "workbench: --emit, --compare and --run take exactly one FILE\n";
    return false;
  }
  return true;
}

int RunRoundTrip(const Options& opts, std::ostream& out, std::ostream& err) {
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

bool ParseFileOrReport(const std::string& path, script::ParseResult* parsed, bool color,
                       std::ostream& err) {
  std::string text;
  if (!ReadFile(path, &text)) {
    err << "workbench: cannot read file '" << path << "'\n";
    return false;
  }
  *parsed = script::Parse(text, path);
  err << RenderDiagnostics(parsed->diagnostics, color);
  return parsed->ok();
}

bool WriteText(const std::filesystem::path& path, const std::string& text, std::ostream& err) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    err << "workbench: cannot write '" << path.string() << "'\n";
    return false;
  }
  f << text;
  return true;
}

// One file per pass (`03-FuseOps.before.py` / `.after.py`) plus passes.json.
bool DumpSnapshots(const std::string& dir, const transform::PipelineResult& result,
                   std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << "workbench: cannot create '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& snap : result.snapshots) {
    char prefix[16];
    std::snprintf(prefix, sizeof(prefix), "%02d-", snap.index + 1);
    std::string stem = std::string(prefix) + snap.name;
    if (!WriteText(std::filesystem::path(dir) / (stem + ".before.py"), snap.BeforeText(), err)) {
      return false;
    }
    if (snap.after.defined() &&
        !WriteText(std::filesystem::path(dir) / (stem + ".after.py"), snap.AfterText(), err)) {
      return false;
    }
    passes.push_back({{"index", snap.index + 1},
                      {"name", snap.name},
                      {"changed", snap.changed()},
                      {"milliseconds", snap.milliseconds},
                      {"before", stem + ".before.py"},
                      {"after", stem + ".after.py"}});
  }
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto& d : result.diagnostics) diagnostics.push_back(d.message);
  return WriteText(std::filesystem::path(dir) / "passes.json",
                   nlohmann::json{{"passes", passes}, {"diagnostics", diagnostics}}.dump(2) + "\n",
                   err);
}

// `--schedule RECIPE`: the recipe applied onto `*module` (checked with --check). Returns 0 and
// replaces `*module`, or the exit code after reporting why not.
int ApplyScheduleOption(const Options& opts, ir::IRModule* module, std::ostream& err) {
  std::string recipe;
  if (!ReadFile(opts.schedule, &recipe)) {
    err << "workbench: cannot read file '" << opts.schedule << "'\n";
    return 2;
  }
  std::optional<schedule::Schedule> sch;
  try {
    sch.emplace(*module);
    if (!opts.func.empty()) sch->WorkOn(opts.func);
  } catch (const std::invalid_argument& e) {
    err << "workbench: " << e.what() << "\n";
    return 2;
  }
  DiagnosticList diags = schedule::ApplyRecipe(*sch, recipe, opts.schedule);
  if (diags.HasErrors()) {
    err << RenderDiagnostics(diags, opts.color);
    return 1;
  }
  if (opts.check) {
    for (const auto& c : CheckEquivalence(*module, sch->mod())) {
      if (c.outcome == FunctionCheck::Outcome::kDifferent ||
          c.outcome == FunctionCheck::Outcome::kFailed) {
        err << "workbench: --check: function `" << c.name
            << "` computes differently after the schedule: " << c.detail << "\n";
        return 1;
      }
      err << "  check " << c.name << ": " << OutcomeName(c.outcome);
      if (!c.detail.empty()) err << " (" << c.detail << ")";
      err << "\n";
    }
  }
  *module = sch->mod();
  return 0;
}

int RunSchedule(const Options& opts, script::ParseResult parsed, std::ostream& out,
                std::ostream& err) {
  if (int rc = ApplyScheduleOption(opts, &parsed.module, err)) return rc;
  out << script::Print(parsed) << "\n";
  return 0;
}

int RunEmit(const Options& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return parsed.module.defined() ? 1 : 2;
  if (!opts.schedule.empty()) return RunSchedule(opts, std::move(parsed), out, err);
  if (!opts.pipeline.empty()) {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(opts.pipeline, diags);
    if (!pass) {
      err << RenderDiagnostics(diags, opts.color);
      return 2;
    }
    transform::PipelineResult result = transform::RunPipeline(*pass, parsed.module);
    if (!opts.dump_dir.empty() && !DumpSnapshots(opts.dump_dir, result, err)) return 2;
    err << RenderDiagnostics(result.diagnostics, opts.color);
    for (const auto& snap : result.snapshots) {
      err << "  " << snap.name << (snap.changed() ? "  changed  " : "  unchanged  ")
          << snap.milliseconds << " ms\n";
    }
    if (!result.ok()) return 1;
    if (opts.check) {
      std::vector<std::string> changed;
      for (const auto& c : CheckEquivalence(parsed.module, result.module)) {
        err << "  check " << c.name << ": " << OutcomeName(c.outcome);
        if (!c.detail.empty()) err << " (" << c.detail << ")";
        err << "\n";
        if (c.outcome == FunctionCheck::Outcome::kDifferent ||
            c.outcome == FunctionCheck::Outcome::kFailed) {
          changed.push_back(c.name + ": " + c.detail);
        }
      }
      // Relax functions run through the Relax interpreter (op calls legalized, kernels
      // interpreted), compared with the same tolerances.
      for (const auto& c : transform::CheckRelaxEquivalence(parsed.module, result.module)) {
        err << "  check " << c.name << ": " << transform::RelaxOutcomeName(c.outcome);
        if (!c.detail.empty()) err << " (" << c.detail << ")";
        err << "\n";
        if (c.outcome == transform::RelaxFunctionCheck::Outcome::kDifferent ||
            c.outcome == transform::RelaxFunctionCheck::Outcome::kFailed) {
          changed.push_back("Relax function " + c.name + ": " + c.detail);
        }
      }
      if (!changed.empty()) {
        err << "workbench: the pipeline changed what the module computes:\n";
        for (const auto& line : changed) err << "  " << line << "\n";
        return 1;
      }
    }
    parsed.module = result.module;
  }
  out << script::Print(parsed) << "\n";
  return 0;
}

// One function's run and check, as RunAndCheck reports it, or why its process ended without it:
// `crash` names the signal ("SIGSEGV (invalid memory access, ...)") when the kernel crashed.
struct IsolatedResult {
  codegen::FunctionRunResult result;
  std::string crash;
};

nlohmann::json RunResultToJson(const codegen::FunctionRunResult& r) {
  nlohmann::json j = {{"name", r.name},       {"status", static_cast<int>(r.status)},
                      {"message", r.message}, {"checked", r.checked},
                      {"max_abs_error", r.max_abs_error}, {"samples_s", r.samples_s}};
  if (r.flops) j["flops"] = *r.flops;
  return j;
}

codegen::FunctionRunResult RunResultFromJson(const nlohmann::json& j) {
  codegen::FunctionRunResult r;
  r.name = j.value("name", "");
  r.status = static_cast<codegen::FunctionRunResult::Status>(j.value("status", 2));
  r.message = j.value("message", "");
  r.checked = j.value("checked", false);
  r.max_abs_error = j.value("max_abs_error", 0.0);
  r.samples_s = j.value("samples_s", std::vector<double>{});
  if (j.contains("flops") && j["flops"].is_number()) r.flops = j["flops"].get<double>();
  return r;
}

// RunAndCheck one PrimFunc at a time, each in a child process (support/child_process.h).
std::vector<IsolatedResult> RunEachInChild(const ir::IRModule& module, const runtime::Module& built,
                                           const codegen::RunCheckOptions& options) {
  std::vector<IsolatedResult> results;
  for (size_t fi = 0; fi < module->functions.size(); ++fi) {
    auto f = module->functions[fi].as_ref<tir::PrimFuncNode>();
    if (!f.defined()) continue;
    ir::IRModule one = ir::MakeIRModule({module->global_vars[fi]}, {module->functions[fi]}, module->attrs);
    ChildOptions child_options;
    // The child's own stderr (a kernel's prints) goes straight to ours.
    child_options.capture_stderr = false;
    ChildResult child = RunInChild(
        [&](ChildChannel&) {
          nlohmann::json list = nlohmann::json::array();
          for (const auto& r : codegen::RunAndCheck(one, built, options)) list.push_back(RunResultToJson(r));
          return list.dump();
        },
        child_options);
    codegen::FunctionRunResult failed;
    failed.name = f->global_symbol().empty() ? module->global_vars[fi]->name_hint : f->global_symbol();
    failed.status = codegen::FunctionRunResult::Status::kError;
    if (child.end == ChildEnd::kCrashed) {
      results.push_back({failed, child.message});
      continue;
    }
    nlohmann::json list = child.finished() ? nlohmann::json::parse(child.payload, nullptr, false)
                                           : nlohmann::json();
    if (!list.is_array()) {
      failed.message = child.finished() ? "the run's result could not be read back from its process"
                                        : child.message;
      results.push_back({failed, ""});
      continue;
    }
    for (const auto& j : list) results.push_back({RunResultFromJson(j), ""});
  }
  return results;
}

// --run: build for the target, run each PrimFunc, check it against the interpreter, time it.
int RunBuild(const Options& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return parsed.module.defined() ? 1 : 2;
  std::string target_error;
  const bool emit_gpu = opts.emit == "cuda" || opts.emit == "ptx";
  auto target = codegen::ParseTarget(opts.target.empty() ? (emit_gpu ? "cuda" : "llvm") : opts.target, &target_error);
  if (!target) {
    err << "workbench: --target: " << target_error << "\n";
    return 2;
  }
  ir::IRModule module = parsed.module;
  if (!opts.schedule.empty()) {
    if (int rc = ApplyScheduleOption(opts, &module, err)) return rc;
  }
  if (!opts.pipeline.empty()) {
    DiagnosticList diags;
    auto pass = transform::BuildPipeline(opts.pipeline, diags);
    if (!pass) {
      err << RenderDiagnostics(diags, opts.color);
      return 2;
    }
    transform::PipelineResult result = transform::RunPipeline(*pass, module);
    err << RenderDiagnostics(result.diagnostics, opts.color);
    if (!result.ok()) return 1;
    module = result.module;
  }
  if (HasRelaxFunctions(module)) {
    VMRunOptions vopts{.func = opts.schedule.empty() ? opts.func : "", .inputs = opts.inputs,
                       .profile = opts.profile, .number = opts.number, .repeat = opts.repeat,
                       .json_path = opts.json_path, .color = opts.color};
    return RunRelaxBuild(module, *target, vopts, out, err);
  }
  codegen::BuildResult built = codegen::Build(module, *target);
  if (!built.ok()) {
    err << RenderDiagnostics(built.diagnostics, opts.color);
    err << "workbench: build for " << target->str() << " failed\n";
    return 1;
  }
  if (emit_gpu) {
    std::string text = built.module->GetSource(opts.emit);
    if (text.empty()) {
      err << "workbench: the build for " << target->str() << " made no " << opts.emit << " (a cuda target makes it)\n";
      return 1;
    }
    out << text << (text.back() == '\n' ? "" : "\n");
    return 0;
  }
  codegen::RunCheckOptions ropts;
  if (target->is_cuda()) {
    std::string why;
    if (!runtime::cuda::CudaAvailable(&why)) {
      err << "workbench: built for " << target->str() << " (" << codegen::CountCudaKernels(built.module)
          << " kernel(s)), but there is no GPU to run on: no CUDA device: " << why << "\n";
      return kExitNoGpu;
    }
    ropts.device = runtime::CUDA(0);
  }
  ropts.inputs = opts.inputs;
  ropts.profile = opts.profile;
  ropts.timing.number = opts.number;
  ropts.timing.repeat = opts.repeat;
  // On the CPU each function runs in a child process: a kernel that crashes is reported as such
  // and the others still run. A CUDA context does not survive a fork: GPU runs stay here.
  std::vector<IsolatedResult> results;
  if (target->is_cuda()) {
    for (auto& r : codegen::RunAndCheck(module, built.module, ropts)) results.push_back({std::move(r), ""});
  } else {
    results = RunEachInChild(module, built.module, ropts);
  }
  nlohmann::json report = nlohmann::json::array();
  int failures = 0;
  out << "target: " << target->str() << "\n";
  for (const auto& [r, crash] : results) {
    bool ok = r.status == codegen::FunctionRunResult::Status::kOk && crash.empty();
    failures += !ok;
    out << (ok ? "ok      " : "FAILED  ") << r.name;
    if (ok) out << (r.checked ? "  matches the interpreter" : "  ran");
    else if (!crash.empty()) out << ": crashed: " << crash;
    else out << ": " << codegen::StatusName(r.status) << ": " << r.message;
    if (!crash.empty()) err << "error: kernel '" << r.name << "' crashed: " << crash << "\n";
    if (!r.samples_s.empty()) {
      auto [lo, hi] = std::minmax_element(r.samples_s.begin(), r.samples_s.end());
      char line[160];
      std::snprintf(line, sizeof(line), "  median %.4f ms (min %.4f, max %.4f; %d x %d calls)",
                    r.median_s() * 1e3, *lo * 1e3, *hi * 1e3, opts.repeat, opts.number);
      out << line;
      if (auto g = r.gflops_per_s()) {
        std::snprintf(line, sizeof(line), "  %.2f GFLOP/s", *g);
        out << line;
      }
    }
    out << "\n";
    nlohmann::json entry = {{"name", r.name},
                             {"status", crash.empty() ? codegen::StatusName(r.status) : "crashed"},
                             {"checked", r.checked}};
    if (!crash.empty()) entry["message"] = crash;
    else if (!r.message.empty()) entry["message"] = r.message;
    if (!r.samples_s.empty()) {
      entry["samples_s"] = r.samples_s;
      entry["median_s"] = r.median_s();
    }
    if (r.flops) entry["flops"] = *r.flops;
    if (auto g = r.gflops_per_s()) entry["gflops_per_s"] = *g;
    report.push_back(entry);
  }
  out << results.size() - failures << " passed, " << failures << " failed\n";
  if (!opts.json_path.empty()) {
    std::ofstream json(opts.json_path);
    if (!json) {
      err << "workbench: cannot write '" << opts.json_path << "'\n";
      return 2;
    }
    json << nlohmann::json{{"target", target->str()}, {"functions", report}}.dump(2) << "\n";
  }
  return failures ? 1 : 0;
}

int RunManifestCommand(const Options& opts, std::ostream& out, std::ostream& err) {
  DiagnosticList diags;
  auto manifest = LoadManifest(opts.files[0], diags);
  if (!manifest) {
    for (const auto& d : diags) err << opts.files[0] << ": error: " << d.message << "\n";
    return 2;
  }
  std::optional<Shard> shard;
  std::string why;
  if (!opts.shard.empty() && !(shard = ParseShard(opts.shard, &why))) {
    err << "workbench: " << why << "\n";
    return 2;
  }
  if (shard && opts.update_goldens) {
    err << "workbench: --update-goldens rewrites baseline files that every shard reads: run it "
           "without --shard\n";
    return 2;
  }
  RegressionOptions ropts;
  ropts.jobs = opts.jobs;
  ropts.filter = opts.filter;
  ropts.update_goldens = opts.update_goldens;
  RegressionReport report =
      RunManifest(shard ? SelectShard(*manifest, *shard) : *manifest, ropts, err);
  for (const auto& c : report.cases) {
    for (const auto& check : c.checks) {
      if (check.passed) continue;
      err << c.name << ": " << check.kind << " " << check.name << ": " << check.message << "\n"
          << check.diff;
    }
    for (const auto& path : c.updated_goldens) out << "updated " << path << "\n";
  }
  for (const auto& line : report.updated_baselines) out << "updated " << line << "\n";
  out << SummaryTable(report);
  auto write = [&](const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    if (!f) {
      err << "workbench: cannot write '" << path << "'\n";
      return false;
    }
    f << text;
    return true;
  };
  std::string json = StampReport(ReportJson(report), *manifest, shard, opts.filter);
  if (!opts.json_path.empty() && !write(opts.json_path, json)) return 2;
  if (!opts.junit_path.empty() && !write(opts.junit_path, ReportJUnit(report))) return 2;
  for (const auto& c : report.cases) {
    if (c.status == "error") return 2;  // an input could not be read
  }
  return report.failed() ? 1 : 0;
}

int MergeReportsCommand(const Options& opts, std::ostream& out, std::ostream& err) {
  std::string why;
  auto merged = MergeReports(opts.files, &why);
  if (!merged) {
    err << "workbench: --merge-reports: " << why << "\n";
    return 2;
  }
  out << SummaryTable(merged->report);
  for (const auto& [path, text] : {std::pair{opts.json_path, merged->json},
                                   std::pair{opts.junit_path, ReportJUnit(merged->report)}}) {
    if (path.empty()) continue;
    std::ofstream f(path, std::ios::binary);
    if (!(f << text)) {
      err << "workbench: cannot write '" << path << "'\n";
      return 2;
    }
  }
  return merged->ExitCode();
}

int ListPasses(std::ostream& out) {
  out << "passes:\n";
  for (const auto* entry : transform::PassRegistry::Global().Passes()) {
    out << "  " << entry->name;
    if (!entry->params.empty()) {
      out << "(";
      for (size_t i = 0; i < entry->params.size(); ++i) {
        out << (i ? ", " : "") << entry->params[i].name;
      }
      out << ")";
    }
    out << "  -- " << entry->doc << "\n";
  }
  auto pipelines = transform::PassRegistry::Global().Pipelines();
  if (!pipelines.empty()) {
    out << "pipelines:\n";
    for (const auto& name : pipelines) {
      out << "  " << name << " = " << *transform::PassRegistry::Global().FindPipeline(name) << "\n";
    }
  }
  return 0;
}

// The source line of a node, with its span underlined, or a note that it has no source.
std::string Underline(const ir::ObjectRef& node, const std::string& path_in_ir, bool color) {
  if (!node.defined() || !node->span.defined()) return "  (" + path_in_ir + ": no source location)\n";
  return RenderDiagnostic(Diagnostic{Severity::kNote, path_in_ir, node->span, {}}, color);
}

int RunCompare(const Options& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult lhs, rhs;
  bool ok_l = ParseFileOrReport(opts.files[0], &lhs, opts.color, err);
  bool ok_r = ParseFileOrReport(opts.compare, &rhs, opts.color, err);
  if (!ok_l || !ok_r) return 2;
  ir::IRModule a = lhs.module, b = rhs.module;
  if (opts.ignore_global_symbol && a->size() == 1 && b->size() == 1) {
    a = StripGlobalSymbols(a);
    b = StripGlobalSymbols(b);
  }
  auto mismatch = ir::FindFirstMismatch(a, b);
  if (!mismatch) {
    out << "structurally equal\n";
    return 0;
  }
  out << "not structurally equal: " << MismatchDetail(*mismatch) << "\n";
  out << Underline(mismatch->lhs, opts.files[0] + ": " + mismatch->lhs_path, opts.color);
  out << Underline(mismatch->rhs, opts.compare + ": " + mismatch->rhs_path, opts.color);
  out << "--- " << opts.files[0] << "\n" << script::Print(lhs) << "\n";
  out << "--- " << opts.compare << "\n" << script::Print(rhs) << "\n";
  return 1;
}

}  // namespace

int RunBatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options opts;
  if (!ParseOptions(args, &opts, err)) {
    err << kUsage;
    return 2;
  }
  if (opts.list_passes) return ListPasses(out);
  if (opts.merge_reports) return MergeReportsCommand(opts, out, err);
  if (IsManifest(opts.files) && !opts.roundtrip && opts.emit.empty() && opts.compare.empty()) {
    return RunManifestCommand(opts, out, err);
  }
  if (opts.roundtrip) return RunRoundTrip(opts, out, err);
  if (opts.run || opts.emit == "cuda" || opts.emit == "ptx") return RunBuild(opts, out, err);
  if (!opts.emit.empty()) return RunEmit(opts, out, err);
  return RunCompare(opts, out, err);
}

}  // namespace wb::workbench
