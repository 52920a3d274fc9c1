// What the batch command line asks for, once parsed and validated (cli.cpp): the one input of
// every command.
#pragma once

#include <string>
#include <vector>

#include "workbench/run_check.h"

namespace wb::driver {

struct BatchOptions {
  std::vector<std::string> files;
  bool roundtrip = false;
  std::string emit;  // "tvmscript", "llvm", "llvm-opt", "asm", "cuda" or "ptx"
  std::string compare;
  bool ignore_global_symbol = false;
  std::string json_path;
  bool color = false;
  std::string pipeline;
  std::string dump_dir;
  // --resume-after K --with FILE: passes K+1..n of --pipeline run on FILE (the module after pass
  // K, edited); -1: the whole pipeline on the input.
  int resume_after = -1;
  std::string resume_with;
  bool list_passes = false;
  bool check = false;
  bool check_each = false;
  std::string schedule;  // a recipe file
  std::string func;      // the PrimFunc the recipe works on; with --run, the Relax function to run
  // Manifest runs.
  int jobs = 1;
  std::string junit_path;
  std::string filter;
  bool update_goldens = false;
  std::string shard;  // "K/N"
  bool merge_reports = false;
  // Build and run.
  bool run = false;
  std::string target;
  std::string inputs;
  std::string save_outputs;  // --run: write every result as .npy under this folder
  uint64_t seed = 0;
  workbench::ReferenceKind reference = workbench::ReferenceKind::kAuto;
  bool profile = false;
  bool attribute_passes = false;  // with --run --profile: time the build without each pass
  workbench::TimingOptions timing;
  // Measure the host's peaks again (alone: print them; with --run --profile: before the run).
  bool measure_peaks = false;
  // Pass control, as written (--opt-level, --pass-config KEY=JSON, --disable-pass,
  // --require-pass); cli.cpp checks it and enters it for the whole command.
  int opt_level = -1;
  std::vector<std::string> pass_config;
  std::vector<std::string> disabled_passes;
  std::vector<std::string> required_passes;
  // Tuning (--tune; --work-dir also goes with --run: build with the records).
  bool tune = false;
  int trials = 64;
  std::string work_dir;

  bool IsManifest() const;
  // --emit of a build's output (llvm, llvm-opt, asm, cuda, ptx), not of the module itself.
  bool EmitsBuildOutput() const { return !emit.empty() && emit != "tvmscript"; }
};

}  // namespace wb::driver
