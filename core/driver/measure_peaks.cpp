// `workbench --batch --measure-peaks [--json FILE]`: measure this machine's FP32 FMA throughput
// and memory bandwidth again (workbench/host_peaks.h), replace the cached figures that the
// roofline of `--run --profile` reads, and print them.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "driver/commands.h"
#include "workbench/host_peaks.h"

namespace wb::driver {

void PrintHostPeaks(const workbench::HostPeaks& p, std::ostream& out) {
  char line[400];
  std::snprintf(line, sizeof(line),
                "roofline: %s, FP32 FMA (%d-bit) %.1f GFLOP/s on 1 thread, %.1f on %d; triad from "
                "memory %.1f "
                "GB/s on 1 thread, %.1f on %d; from the L2 (%lld KiB a core) %.1f, %.1f (%s %s)\n",
                p.cpu.c_str(), p.vector_bits, p.gflops_1, p.gflops_all, p.threads, p.gbytes_per_s_1,
                p.gbytes_per_s_all, p.threads, static_cast<long long>(p.cache_bytes >> 10),
                p.cache_gbytes_per_s_1, p.cache_gbytes_per_s_all,
                p.from_cache ? "cached, measured" : "measured", p.measured_at.c_str());
  out << line;
}

int RunMeasurePeaksCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  std::string warning;
  workbench::HostPeaks peaks = workbench::MeasureHostPeaks(0, &warning);
  PrintHostPeaks(peaks, out);
  if (warning.empty())
    out << "cached in " << workbench::HostPeaksCachePath() << "\n";
  else
    err << "workbench: warning: " << warning << "\n";
  if (!opts.json_path.empty()) {
    std::ofstream json(opts.json_path);
    if (!json) {
      err << "workbench: cannot write '" << opts.json_path << "'\n";
      return 2;
    }
    json << nlohmann::json{{"peaks", workbench::ToJson(peaks)}}.dump(2) << "\n";
  }
  return 0;
}

}  // namespace wb::driver
