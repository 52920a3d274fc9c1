#include "meta_schedule/database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "script/tvmscript.h"
#include "tir/expr.h"

namespace wb::meta_schedule {

namespace {

constexpr const char* kWorkloadFile = "database_workload.json";
constexpr const char* kRecordFile = "database_tuning_record.json";
constexpr const char* kVerifiedFile = "database_verified.json";

std::string HashText(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, h);
  return buf;
}

std::optional<uint64_t> ParseHash(const std::string& s) {
  if (s.size() < 3 || s[0] != '0' || s[1] != 'x') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str() + 2, &end, 16);
  if (errno || *end) return std::nullopt;
  return v;
}

bool AppendLine(const std::string& path, const std::string& line, std::string* error) {
  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  // A partial last line (a writer that died mid-line) is ended first, so that it alone is lost.
  std::string data = line + "\n";
  struct stat st {};
  char last = '\n';
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') {
    data = "\n" + data;
  }
  ssize_t n = ::write(fd, data.data(), data.size());
  int saved = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(data.size())) {
    *error = "cannot append to '" + path + "': " + (n < 0 ? std::strerror(saved) : "short write");
    return false;
  }
  return true;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string FunctionText(const tir::PrimFunc& func) {
  return script::PrintModule(dlight::SingleFunctionModule(func));
}

std::string RecordLine(const TuningRecord& record) {
  nlohmann::json secs = nlohmann::json::array();
  for (double s : record.run_secs) secs.push_back(s);
  return nlohmann::json::array(
             {record.workload, nlohmann::json::array({record.trace, secs, record.target, record.args_info})})
      .dump();
}

}  // namespace

std::string DatabaseTarget(const codegen::Target& target) {
  return target.str() + " -num-cores=" + std::to_string(std::max(1, target.num_cores));
}

bool TuningRecord::failed() const {
  return run_secs.empty() || *std::max_element(run_secs.begin(), run_secs.end()) >= kFailedRunSeconds;
}

double TuningRecord::mean_s() const {
  if (failed()) return kFailedRunSeconds;
  return std::accumulate(run_secs.begin(), run_secs.end(), 0.0) / static_cast<double>(run_secs.size());
}

std::optional<JSONDatabase> JSONDatabase::Open(const std::string& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    *error = "cannot create the work directory '" + dir + "'" + (ec ? ": " + ec.message() : "");
    return std::nullopt;
  }
  JSONDatabase db;
  db.dir_ = dir;
  const std::string wpath = dir + "/" + kWorkloadFile;
  const std::string rpath = dir + "/" + kRecordFile;
  for (const char* file : {kWorkloadFile, kRecordFile}) {
    std::string path = dir + "/" + file;
    if (!std::filesystem::exists(path)) {
      std::ofstream create(path);
      if (!create) {
        *error = "cannot create '" + path + "'";
        return std::nullopt;
      }
    }
  }
  std::vector<std::string> wlines = ReadLines(wpath);
  for (size_t i = 0; i < wlines.size(); ++i) {
    Workload w;
    auto warn = [&](const std::string& why) {
      db.warnings_.push_back(wpath + ":" + std::to_string(i + 1) + ": " + why + "; skipped");
    };
    nlohmann::json j = nlohmann::json::parse(wlines[i], nullptr, false);
    if (j.is_discarded()) {
      warn("not valid JSON");
    } else if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string()) {
      warn("not a workload [\"0x<hash>\", \"<module>\"]");
    } else if (auto h = ParseHash(j[0].get<std::string>()); !h) {
      warn("the hash is not 0x<hex>");
    } else {
      w.shash = *h;
      w.text = j[1].get<std::string>();
      w.valid = true;
    }
    db.workloads_.push_back(std::move(w));
  }
  db.LoadRecords(rpath, &db.records_);
  if (std::filesystem::exists(dir + "/" + kVerifiedFile)) db.LoadRecords(dir + "/" + kVerifiedFile, &db.verified_);
  return db;
}

void JSONDatabase::LoadRecords(const std::string& rpath, std::vector<TuningRecord>* out) {
  std::vector<std::string> rlines = ReadLines(rpath);
  for (size_t i = 0; i < rlines.size(); ++i) {
    auto warn = [&](const std::string& why) {
      warnings_.push_back(rpath + ":" + std::to_string(i + 1) + ": " + why + "; skipped");
    };
    nlohmann::json j = nlohmann::json::parse(rlines[i], nullptr, false);
    if (j.is_discarded()) {
      warn("not valid JSON");
      continue;
    }
    if (!j.is_array() || j.size() != 2 || !j[0].is_number_unsigned() || !j[1].is_array() ||
        j[1].size() < 3 || !j[1][0].is_string() || !j[1][1].is_array() || !j[1][2].is_string()) {
      warn("not a record [workload, [\"<trace>\", [seconds...], \"<target>\", args_info]]");
      continue;
    }
    TuningRecord r;
    r.workload = j[0].get<size_t>();
    if (r.workload >= workloads_.size() || !workloads_[r.workload].valid) {
      warn("workload " + std::to_string(r.workload) + " is not in " + kWorkloadFile);
      continue;
    }
    r.trace = j[1][0].get<std::string>();
    bool numbers = true;
    for (const auto& s : j[1][1]) {
      if (!s.is_number()) numbers = false;
      else r.run_secs.push_back(s.get<double>());
    }
    if (!numbers) {
      warn("a run time is not a number");
      continue;
    }
    r.target = j[1][2].get<std::string>();
    if (j[1].size() > 3) r.args_info = j[1][3];
    out->push_back(std::move(r));
  }
}

std::optional<size_t> JSONDatabase::FindWorkload(const tir::PrimFunc& func) const {
  uint64_t h = ir::StructuralHash(func);
  std::optional<std::string> text;
  for (size_t i = 0; i < workloads_.size(); ++i) {
    const Workload& w = workloads_[i];
    if (!w.valid || w.shash != h) continue;
    // A hash collision must not apply another function's schedule: the text must parse to an
    // equal function.
    script::ParseResult parsed = script::Parse(w.text, dir_ + "/" + kWorkloadFile);
    if (!parsed.ok()) continue;
    ir::BaseFunc f = parsed.module->Lookup("main");
    if (f.defined() && ir::StructuralEqual(f, func)) return i;
  }
  return std::nullopt;
}

std::optional<size_t> JSONDatabase::CommitWorkload(const tir::PrimFunc& func, std::string* error) {
  if (auto found = FindWorkload(func)) return found;
  Workload w;
  w.shash = ir::StructuralHash(func);
  w.text = FunctionText(func);
  w.valid = true;
  nlohmann::json line = nlohmann::json::array({HashText(w.shash), w.text});
  if (!AppendLine(dir_ + "/" + kWorkloadFile, line.dump(), error)) return std::nullopt;
  workloads_.push_back(std::move(w));
  return workloads_.size() - 1;
}

bool JSONDatabase::CommitRecord(const TuningRecord& record, std::string* error) {
  if (record.workload >= workloads_.size() || !workloads_[record.workload].valid) {
    *error = "the record's workload " + std::to_string(record.workload) + " is unknown";
    return false;
  }
  if (!AppendLine(dir_ + "/" + kRecordFile, RecordLine(record), error)) return false;
  records_.push_back(record);
  return true;
}

bool JSONDatabase::CommitVerified(const TuningRecord& record, std::string* error) {
  if (record.workload >= workloads_.size() || !workloads_[record.workload].valid) {
    *error = "the record's workload " + std::to_string(record.workload) + " is unknown";
    return false;
  }
  if (!AppendLine(dir_ + "/" + kVerifiedFile, RecordLine(record), error)) return false;
  verified_.push_back(record);
  return true;
}

std::optional<TuningRecord> JSONDatabase::Verified(size_t workload, const std::string& target) const {
  for (auto it = verified_.rbegin(); it != verified_.rend(); ++it) {
    if (it->workload == workload && it->target == target) return *it;
  }
  return std::nullopt;
}

std::vector<TuningRecord> JSONDatabase::Records(size_t workload, const std::string& target) const {
  std::vector<TuningRecord> out;
  for (const TuningRecord& r : records_) {
    if (r.workload == workload && r.target == target) out.push_back(r);
  }
  return out;
}

std::vector<TuningRecord> JSONDatabase::TopK(size_t workload, const std::string& target, size_t k) const {
  std::vector<TuningRecord> out;
  for (const TuningRecord& r : Records(workload, target)) {
    if (!r.failed()) out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TuningRecord& a, const TuningRecord& b) { return a.mean_s() < b.mean_s(); });
  if (out.size() > k) out.resize(k);
  return out;
}

nlohmann::json JSONDatabase::ArgsInfo(const tir::PrimFunc& func) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < func->params.size(); ++i) {
    const tir::Buffer& b = i < func->buffer_map.size() ? func->buffer_map[i] : tir::Buffer();
    if (!b.defined()) {
      out.push_back(nlohmann::json::array({"SCALAR", func->params[i]->dtype.ToString()}));
      continue;
    }
    nlohmann::json shape = nlohmann::json::array();
    for (const auto& d : b->shape) {
      const int64_t* n = tir::AsConstInt(d);
      shape.push_back(n ? *n : -1);
    }
    out.push_back(nlohmann::json::array({"TENSOR", b->dtype.ToString(), shape}));
  }
  return out;
}

}  // namespace wb::meta_schedule
