// The tuning database: a work directory in TVM's JSON-lines layout (JSONDatabase).
//   database_workload.json       one workload a line: ["0x<structural hash>", "<TVMScript>"]
//                                 (TVM stores its JSON serialization of the module there; ours is
//                                 the canonical TVMScript of the function as "main")
//   database_tuning_record.json  one record a line:
//                                 [workload, ["<trace>", [run seconds...], "<target>", args_info]]
//                                 the trace in TVM's Python trace syntax, args_info as TVM's
//                                 [["TENSOR", dtype, shape], ...]; a failed candidate has
//                                 run seconds [1e10], as TVM records it.
//   database_verified.json       the tuner's final choice (not in TVM's layout; TVM ignores it):
//                                 lines shaped as records, the last one for a workload and target
//                                 counting: the trace that won the closing re-measurement of the
//                                 best candidates beside the default schedule (search.h), with its
//                                 run seconds there; the default schedule's trace when it won, an
//                                 empty trace when that is the function as written. ApplyDatabase
//                                 takes it before the fastest record: records measured at different
//                                 times on a loaded machine do not compare, and the fastest of many
//                                 noisy measurements is mostly luck.
// A workload is a record's line number in the workload file (0-based, every line counted), so a
// damaged line never shifts the others. Workloads match functions by structural hash, then
// structural equality; records by target text (DatabaseTarget: the CPU name and features, and
// the thread count the measurement ran with).
//
// Appends are atomic: each line is one write(2) to a file opened with O_APPEND, so a crash
// leaves at most a partial last line, and that line (like any line that is not valid JSON of
// the expected shape, or names an unknown workload) is skipped on load with a warning naming
// the file and line; the others all load. One writer per work directory at a time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "tir/stmt.h"

namespace wb::meta_schedule {

inline constexpr double kFailedRunSeconds = 1e10;

struct TuningRecord {
  size_t workload = 0;
  std::string trace;
  std::vector<double> run_secs;
  std::string target;
  nlohmann::json args_info = nlohmann::json::array();
  bool failed() const;
  double mean_s() const;  // kFailedRunSeconds when failed
};

// The target text a record is kept under: the target's text and the size of the thread pool
// its kernels run with ("llvm -mcpu=znver5 -num-cores=2"), since a schedule measured on two
// threads is not measured for one. It parses back to the target.
std::string DatabaseTarget(const codegen::Target& target);

class JSONDatabase {
 public:
  // Opens (creating the directory and files when missing) and loads the work directory;
  // nullopt with *error when the directory cannot be created or read.
  static std::optional<JSONDatabase> Open(const std::string& dir, std::string* error);

  const std::string& dir() const { return dir_; }
  // Lines skipped while loading, each "FILE:LINE: why".
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The workload of `func`, or nullopt.
  std::optional<size_t> FindWorkload(const tir::PrimFunc& func) const;
  // The workload of `func`, appended when new; nullopt with *error when the append fails.
  std::optional<size_t> CommitWorkload(const tir::PrimFunc& func, std::string* error);
  bool CommitRecord(const TuningRecord& record, std::string* error);
  // The tuner's verified choice (database_verified.json): committed, and the last one committed
  // for the workload and target, or nullopt.
  bool CommitVerified(const TuningRecord& record, std::string* error);
  std::optional<TuningRecord> Verified(size_t workload, const std::string& target) const;

  // The k fastest records of the workload for the target (failed ones excluded), fastest first.
  std::vector<TuningRecord> TopK(size_t workload, const std::string& target, size_t k) const;
  // Every record of the workload for the target, in file order.
  std::vector<TuningRecord> Records(size_t workload, const std::string& target) const;
  size_t num_workloads() const { return workloads_.size(); }
  size_t num_records() const { return records_.size(); }

  // args_info of a function's buffers, as TVM writes it.
  static nlohmann::json ArgsInfo(const tir::PrimFunc& func);

 private:
  struct Workload {
    uint64_t shash = 0;
    std::string text;  // empty for a line that did not load
    bool valid = false;
  };
  // Loads the records of a file in the record layout, skipping (with a warning) what is not one.
  void LoadRecords(const std::string& path, std::vector<TuningRecord>* out);
  std::string dir_;
  std::vector<Workload> workloads_;
  std::vector<TuningRecord> records_;
  std::vector<TuningRecord> verified_;
  std::vector<std::string> warnings_;
};

}  // namespace wb::meta_schedule
