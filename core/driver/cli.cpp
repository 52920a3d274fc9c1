// The batch command line: every option declared once with its help (CLI11 generates
// `--batch --help` from these), numbers validated as numbers, then the combinations checked and
// the one command they ask for run.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <ostream>

#include "driver/commands.h"
#include "driver/driver.h"
#include "driver/version.h"
#include "transform/pass_control.h"

namespace wb::driver {

namespace {

// CLI11's PositiveNumber / NonNegativeNumber run before the conversion and answer a value that
// is no number with their whole double range; these say what was expected.
CLI::Validator NumberCheck(bool allow_zero, bool integer = false) {
  return CLI::Validator(
      [allow_zero, integer](std::string& text) -> std::string {
        char* end = nullptr;
        double value = integer ? static_cast<double>(std::strtoll(text.c_str(), &end, 10)) : std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0') {
          return std::string("expected a ") + (allow_zero ? "non-negative " : "positive ") +
                 (integer ? "integer" : "number") + ", got '" + text + "'";
        }
        if (allow_zero ? value < 0 : value <= 0) {
          return std::string("must be ") + (allow_zero ? "zero or more" : "positive") + ", got " + text;
        }
        return "";
      },
      allow_zero ? "NONNEGATIVE" : "POSITIVE");
}
const CLI::Validator kPositive = NumberCheck(false);
const CLI::Validator kNonNegative = NumberCheck(true);
const CLI::Validator kCount = NumberCheck(false, true);
const CLI::Validator kNonNegativeInt = NumberCheck(true, true);

constexpr const char* kCommands = R"text(commands (exactly one; FILE is TVMScript):
  FILE... --roundtrip           parse, verify, print and re-parse each file
  FILE --emit tvmscript         print the canonical TVMScript (a formatter)
  FILE --pipeline "PassA, PassB(arg=1)" [--dump-dir DIR] [--check | --check-each]
                                run a pass pipeline and print the result
  FILE --pipeline P --resume-after K --with EDITED [--dump-dir DIR] [--check]
                                run passes K+1..n of P on EDITED, the module after pass K as
                                edited (--check compares the result with FILE)
  FILE --schedule RECIPE [--func NAME] [--check | --check-each]
                                apply a schedule recipe (TVM's trace syntax) and print the result
  FILE --compare OTHER          structural equality (exit 1 when not equal)
  FILE [--schedule R] [--pipeline P] --run [--profile] [--reference KIND]
                                build for --target, run every PrimFunc (or Relax function, through
                                the Relax VM), check it against the reference and time it;
                                with --profile --attribute-passes, again without each pass of the
                                pipeline and of the build, a table of the change per pass
  FILE [--schedule R] [--pipeline P] [--target T] --emit llvm|llvm-opt|asm|cuda|ptx
                                build for the target (llvm: this CPU; cuda for cuda and ptx) and
                                print the LLVM IR, the assembly or the device code (no GPU needed);
                                --source-map [--dump-dir DIR]: each line annotated with the line
                                of the printed module (FILE.scheduled.py) it came from
  FILE --tune --trials N --work-dir DIR [--target T] [--seed S]
                                tune the module's kernels (search and measure), recording them in
                                DIR; FILE --run --work-dir DIR builds with those records
  MANIFEST.json [-j N] [--shard K/N]
                                run the regression cases of a manifest (or the K-th of N shards,
                                chosen by a hash of each case's name)
  --merge-reports SHARD.json... merge the --json reports of all N shards of one manifest run
                                (refused for different manifests, versions or filters)
  --list-passes                 the registered passes, named pipelines and pass config keys
  --measure-peaks [--json F]    measure this machine's FP32 FMA and memory bandwidth peaks again
                                and cache them (--run --profile places each function under
                                these roofs; with --run --profile, measured before the run)
Pass control, with every command that runs passes or builds: --opt-level N,
--pass-config KEY=JSON, --disable-pass NAME, --require-pass NAME (TVM's PassContext).
--check runs the module before and after on seeded random inputs (the reference interpreters);
--check-each does so for every pass snapshot or schedule step and names the first that changes
the numbers. Exit codes: 0 success, 1 a check failed, 2 bad usage or unreadable input, 3 built
for a GPU where there is none.
)text";

// --opt-level, --pass-config, --disable-pass, --require-pass, checked against the registries;
// nullopt after reporting what is wrong.
std::optional<transform::PassControl> ReadPassControlOptions(const BatchOptions& opts, std::ostream& err) {
  transform::PassControl control;
  DiagnosticList diags;
  bool given = opts.opt_level >= 0 || !opts.pass_config.empty() || !opts.disabled_passes.empty() ||
               !opts.required_passes.empty();
  if (given && opts.IsManifest() && !opts.roundtrip && opts.emit.empty() && opts.compare.empty()) {
    err << "workbench: --opt-level, --pass-config, --disable-pass and --require-pass go with a FILE; "
           "a manifest sets them per case (opt_level, pass_config, disabled_passes, required_passes)\n";
    return std::nullopt;
  }
  if (opts.opt_level >= 0) transform::SetOptLevel(opts.opt_level, &control, diags);
  for (const auto& text : opts.pass_config) transform::AddConfigText(text, &control, diags);
  for (const auto& name : opts.disabled_passes) transform::AddDisabledPass(name, &control, diags);
  for (const auto& name : opts.required_passes) transform::AddRequiredPass(name, &control, diags);
  if (!diags.HasErrors()) return control;
  for (const auto& d : diags) err << "workbench: " << d.message << "\n";
  return std::nullopt;
}

// The combinations the options allow; false with the reason on `err`.
bool Validate(BatchOptions* opts, std::ostream& err) {
  if (opts->list_passes) return true;
  if (opts->measure_peaks && !opts->run) {
    if (!opts->files.empty()) {
      err << "workbench: --measure-peaks takes no FILE (except with --run --profile)\n";
      return false;
    }
    return true;
  }
  if (opts->measure_peaks && !opts->profile) {
    err << "workbench: --measure-peaks goes alone or with --run --profile\n";
    return false;
  }
  if (opts->merge_reports) {
    if (opts->files.empty()) {
      err << "workbench: --merge-reports needs the JSON reports of every shard\n";
      return false;
    }
    return true;
  }
  if (!opts->shard.empty() && !opts->IsManifest()) {
    err << "workbench: --shard goes with a manifest\n";
    return false;
  }
  if (opts->IsManifest() && !opts->roundtrip && opts->emit.empty() && opts->compare.empty() &&
      opts->pipeline.empty()) {
    return true;
  }
  if ((opts->resume_after >= 0) != !opts->resume_with.empty()) {
    err << "workbench: --resume-after K and --with FILE go together\n";
    return false;
  }
  if (opts->resume_after >= 0 && (opts->pipeline.empty() || !opts->schedule.empty() || opts->run ||
                                  opts->EmitsBuildOutput())) {
    err << "workbench: --resume-after goes with --pipeline (and --check, --check-each, --dump-dir)\n";
    return false;
  }
  if (opts->source_map && opts->emit != "llvm" && opts->emit != "llvm-opt" && opts->emit != "asm") {
    err << "workbench: --source-map goes with --emit llvm, llvm-opt or asm\n";
    return false;
  }
  if (!opts->dump_dir.empty() && opts->pipeline.empty() && !opts->source_map) {
    err << "workbench: --dump-dir needs --pipeline (or --source-map)\n";
    return false;
  }
  if (opts->check_each && opts->pipeline.empty() && opts->schedule.empty()) {
    err << "workbench: --check-each needs --pipeline or --schedule\n";
    return false;
  }
  if (opts->check && opts->check_each) {
    err << "workbench: choose one of --check and --check-each\n";
    return false;
  }
  const bool emit_build = opts->EmitsBuildOutput();
  if (emit_build && (!opts->inputs.empty() || opts->profile)) {
    err << "workbench: --inputs and --profile go with --run\n";
    return false;
  }
  if (opts->tune && (opts->work_dir.empty() || opts->run || !opts->emit.empty() || opts->files.size() != 1)) {
    err << "workbench: --tune takes one FILE and --work-dir, without --run or --emit\n";
    return false;
  }
  if (opts->tune) return true;
  if (!opts->work_dir.empty() && !opts->run) {
    err << "workbench: --work-dir goes with --tune or --run\n";
    return false;
  }
  if ((!opts->target.empty() || !opts->inputs.empty() || opts->profile) && !opts->run && !emit_build) {
    err << "workbench: --target, --inputs and --profile go with --run\n";
    return false;
  }
  if (!opts->save_outputs.empty() && !opts->run) {
    err << "workbench: --save-outputs goes with --run\n";
    return false;
  }
  if (opts->attribute_passes && (!opts->run || !opts->profile)) {
    err << "workbench: --attribute-passes goes with --run --profile\n";
    return false;
  }
  if (!opts->func.empty() && opts->schedule.empty() && !opts->run) {
    err << "workbench: --func needs --schedule or --run\n";
    return false;
  }
  if (!opts->schedule.empty() && !opts->pipeline.empty() && !opts->run && !emit_build) {
    err << "workbench: --schedule and --pipeline are combined only with --run\n";
    return false;
  }
  if ((!opts->pipeline.empty() || !opts->schedule.empty()) && opts->emit.empty() && !opts->roundtrip &&
      opts->compare.empty() && !opts->run) {
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

}  // namespace

bool BatchOptions::IsManifest() const {
  return files.size() == 1 && files[0].size() > 5 && files[0].compare(files[0].size() - 5, 5, ".json") == 0;
}

std::string VersionText() {
  return "workbench " + WorkbenchVersion();
}

int RunBatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BatchOptions opts;
  std::string reference = "auto";
  CLI::App app{"The workbench without a window: check, transform, build, run and time TVMScript modules.",
               "workbench --batch"};
  app.get_formatter()->label("Usage", "usage");
  app.get_formatter()->column_width(34);
  app.footer(kCommands);
  app.set_version_flag("--version", VersionText());
  app.add_option("files", opts.files, "TVMScript files, or one manifest (.json)");
  app.add_flag("--roundtrip", opts.roundtrip, "parse, print and re-parse each FILE");
  app.add_option("--emit", opts.emit,
                 "print the module (tvmscript), or what a build makes of it: LLVM IR before (llvm) or after "
                 "(llvm-opt) LLVM's optimization, assembly (asm), a cuda build's device code (cuda, ptx)")
      ->check(CLI::IsMember({"tvmscript", "llvm", "llvm-opt", "asm", "cuda", "ptx"}));
  app.add_flag("--source-map", opts.source_map,
               "with --emit llvm|llvm-opt|asm: end each line with the FILE:LINE of the printed module "
               "(written as FILE.scheduled.py, or into --dump-dir) it came from");
  app.add_option("--compare", opts.compare, "the module to compare FILE with")->type_name("OTHER");
  app.add_flag("--ignore-global-symbol", opts.ignore_global_symbol,
               "--compare single-function modules without their global_symbol");
  app.add_option("--pipeline", opts.pipeline, "pass pipeline text, or a named pipeline")->type_name("TEXT");
  app.add_option("--dump-dir", opts.dump_dir,
                 "write every pass's module before and after, and passes.json (with --source-map: the printed "
                 "module)")
      ->type_name("DIR");
  app.add_option("--resume-after", opts.resume_after, "with --pipeline and --with: run only the passes after the K-th")
      ->type_name("K")
      ->check(kNonNegativeInt);
  app.add_option("--with", opts.resume_with, "the module after pass K of --resume-after, as edited")->type_name("FILE");
  app.add_option("--schedule", opts.schedule, "schedule recipe file")->type_name("RECIPE");
  app.add_option("--func", opts.func, "the PrimFunc the recipe schedules; with --run, the Relax function to run")
      ->type_name("NAME");
  app.add_flag("--check", opts.check, "check the whole result against the input on seeded inputs");
  app.add_flag("--check-each", opts.check_each,
               "check every pass or schedule step against the one before; name the first that changes "
               "the numbers");
  app.add_flag("--list-passes", opts.list_passes, "list the registered passes and pipelines");
  app.add_flag("--measure-peaks", opts.measure_peaks,
               "measure this machine's FMA and bandwidth peaks again (the roofline's roofs) and cache them");
  app.add_flag("--run", opts.run, "build, run and check every function");
  app.add_option("--target", opts.target, "target text or tag (default llvm: this CPU)")->type_name("TARGET");
  app.add_option("--inputs", opts.inputs, "'random' (seeded) or a directory of <name>.npy / <func>/<name>.npy")
      ->type_name("DIR");
  app.add_option("--save-outputs", opts.save_outputs,
                 "with --run: write the results as DIR/<graph output>.npy (ONNX), DIR/<func>/out<i>.npy "
                 "(Relax) or DIR/<func>/<buffer>.npy (PrimFuncs)")
      ->type_name("DIR");
  app.add_option("--seed", opts.seed, "the seed of random inputs")->check(kNonNegativeInt);
  app.add_option("--reference", reference,
                 "what checks the outputs: auto (the interpreter for small work, else compiled), "
                 "interpreter, compiled (the module as written, built with LLVM) or none")
      ->check(CLI::IsMember({"auto", "interpreter", "compiled", "none"}))
      ->capture_default_str();
  app.add_flag("--profile", opts.profile, "time every function (TVM's time evaluator)");
  app.add_flag("--attribute-passes", opts.attribute_passes,
               "with --run --profile: rebuild and time without each pass in turn, and report the change");
  app.add_option("--number", opts.timing.number, "calls per sample")->check(kCount)->capture_default_str();
  app.add_option("--repeat", opts.timing.repeat, "samples")->check(kCount)->capture_default_str();
  app.add_option("--min-repeat-ms", opts.timing.min_repeat_ms, "grow --number until a sample lasts this long")
      ->check(kNonNegative);
  app.add_option("--cooldown-ms", opts.timing.cooldown_ms, "sleep between samples")->check(kNonNegative);
  app.add_flag("--flush-cache", opts.timing.flush_cache, "flush the CPU caches before each sample");
  app.add_flag("--tune", opts.tune, "tune the module's kernels into --work-dir");
  app.add_option("--trials", opts.trials, "--tune: candidates measured, over all tasks")->check(kCount)
      ->capture_default_str();
  app.add_option("--work-dir", opts.work_dir, "the tuning database (--tune writes it, --run builds with it)")
      ->type_name("DIR");
  app.add_option("--json", opts.json_path, "write a JSON report")->type_name("REPORT");
  app.add_option("-j,--jobs", opts.jobs, "manifest cases run at once")->check(kCount);
  app.add_option("--filter", opts.filter, "manifest cases whose name contains TEXT or matches it (* ?)")
      ->type_name("TEXT");
  app.add_flag("--update-goldens", opts.update_goldens, "rewrite the manifest's goldens and baselines");
  app.add_option("--shard", opts.shard, "run the K-th of N shards of the manifest's cases")->type_name("K/N");
  app.add_flag("--merge-reports", opts.merge_reports, "merge the FILEs, shards' --json reports, into one report");
  app.add_option("--junit", opts.junit_path, "write a JUnit XML report")->type_name("REPORT.xml");
  app.add_flag("--color", opts.color, "color the diagnostics");
  app.add_option("--opt-level", opts.opt_level, "the PassContext's opt level (passes above it do not run)")
      ->type_name("N")
      ->check(CLI::Range(0, transform::kMaxOptLevel));
  // Repeatable, one value each: a FILE after the option is not taken for a second value.
  auto repeatable = [&app](const char* name, std::vector<std::string>& to, const char* help, const char* type) {
    app.add_option(name, to, help)->type_name(type)->expected(1)->allow_extra_args(false)->take_all();
  };
  repeatable("--pass-config", opts.pass_config,
             "a PassContext config, e.g. tirx.UnrollLoop='{\"auto_max_step\": 16}' (repeatable)", "KEY=JSON");
  repeatable("--disable-pass", opts.disabled_passes, "a pass that must not run (repeatable)", "NAME");
  repeatable("--require-pass", opts.required_passes, "a pass that runs whatever its opt level (repeatable)", "NAME");

  // A usage error: what is wrong and where the full usage is (it runs to a hundred lines, which
  // would bury the message).
  const char* hint = "workbench: run with --help (workbench --batch --help) for the usage\n";
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ExtrasError&) {
    std::vector<std::string> extras = app.remaining();
    auto option = std::find_if(extras.begin(), extras.end(),
                               [](const std::string& a) { return a.size() > 1 && a[0] == '-'; });
    if (option != extras.end()) err << "workbench: unknown option '" << *option << "'\n";
    else err << "workbench: unexpected argument '" << (extras.empty() ? "" : extras[0]) << "'\n";
    err << hint;
    return 2;
  } catch (const CLI::ParseError& e) {
    err << "workbench: " << e.what() << "\n" << hint;
    return 2;
  }
  opts.reference = *workbench::ParseReference(reference);
  if (!Validate(&opts, err)) {
    err << hint;
    return 2;
  }
  if (opts.list_passes) return RunListPassesCommand(out);
  if (opts.measure_peaks && !opts.run) return RunMeasurePeaksCommand(opts, out, err);
  if (opts.merge_reports) return RunMergeReportsCommand(opts, out, err);
  std::optional<transform::PassControl> control = ReadPassControlOptions(opts, err);
  if (!control) return 2;
  // Every pipeline the command runs, the builds' lowering included, runs under it.
  ir::PassContext context = transform::ContextWith(*control);
  ir::PassContext::Scope scope(context);
  if (opts.IsManifest() && !opts.roundtrip && opts.emit.empty() && opts.compare.empty()) {
    return RunManifestCommand(opts, out, err);
  }
  if (opts.tune) return RunTuneCommand(opts, out, err);
  if (opts.roundtrip) return RunRoundTripCommand(opts, out, err);
  if (opts.run) return RunRunCommand(opts, out, err);
  if (opts.EmitsBuildOutput()) return RunEmitCommand(opts, out, err);
  if (!opts.schedule.empty()) return RunScheduleCommand(opts, out, err);
  if (!opts.pipeline.empty()) return RunPipelineCommand(opts, out, err);
  if (!opts.emit.empty()) return RunEmitCommand(opts, out, err);
  return RunCompareCommand(opts, out, err);
}

}  // namespace wb::driver
