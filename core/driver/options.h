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
  std::string emit;  // "tvmscript", "cuda" or "ptx"
  std::string compare;
  bool ignore_global_symbol = false;
  std::string json_path;
  bool color = false;
  std::string pipeline;
  std::string dump_dir;
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
  uint64_t seed = 0;
  workbench::ReferenceKind reference = workbench::ReferenceKind::kAuto;
  bool profile = false;
  workbench::TimingOptions timing;
  // Tuning (--tune; --work-dir also goes with --run: build with the records).
  bool tune = false;
  int trials = 64;
  std::string work_dir;

  bool IsManifest() const;
  bool EmitsDeviceCode() const { return emit == "cuda" || emit == "ptx"; }
};

}  // namespace wb::driver
