#include "workbench/host_peaks.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "codegen/target.h"
#include "runtime/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace wb::workbench {

namespace {

// --- The FMA kernels -----------------------------------------------------------------------------

// Twelve independent accumulators: two FMA pipes of four or five cycles' latency need eight to
// ten in flight. Each returns a value of its chains so that none is optimised away.
constexpr int kChains = 12;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float Fma512(int64_t iterations) {
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
  __m512 a0 = _mm512_set1_ps(1.0f), a1 = _mm512_set1_ps(1.1f), a2 = _mm512_set1_ps(1.2f),
         a3 = _mm512_set1_ps(1.3f), a4 = _mm512_set1_ps(1.4f), a5 = _mm512_set1_ps(1.5f),
         a6 = _mm512_set1_ps(1.6f), a7 = _mm512_set1_ps(1.7f), a8 = _mm512_set1_ps(1.8f),
         a9 = _mm512_set1_ps(1.9f), a10 = _mm512_set1_ps(2.0f), a11 = _mm512_set1_ps(2.1f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, m, c);
    a1 = _mm512_fmadd_ps(a1, m, c);
    a2 = _mm512_fmadd_ps(a2, m, c);
    a3 = _mm512_fmadd_ps(a3, m, c);
    a4 = _mm512_fmadd_ps(a4, m, c);
    a5 = _mm512_fmadd_ps(a5, m, c);
    a6 = _mm512_fmadd_ps(a6, m, c);
    a7 = _mm512_fmadd_ps(a7, m, c);
    a8 = _mm512_fmadd_ps(a8, m, c);
    a9 = _mm512_fmadd_ps(a9, m, c);
    a10 = _mm512_fmadd_ps(a10, m, c);
    a11 = _mm512_fmadd_ps(a11, m, c);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float Fma256(int64_t iterations) {
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
  __m256 a0 = _mm256_set1_ps(1.0f), a1 = _mm256_set1_ps(1.1f), a2 = _mm256_set1_ps(1.2f),
         a3 = _mm256_set1_ps(1.3f), a4 = _mm256_set1_ps(1.4f), a5 = _mm256_set1_ps(1.5f),
         a6 = _mm256_set1_ps(1.6f), a7 = _mm256_set1_ps(1.7f), a8 = _mm256_set1_ps(1.8f),
         a9 = _mm256_set1_ps(1.9f), a10 = _mm256_set1_ps(2.0f), a11 = _mm256_set1_ps(2.1f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_ps(a0, m, c);
    a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c);
    a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c);
    a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c);
    a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c);
    a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c);
    a11 = _mm256_fmadd_ps(a11, m, c);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}
#endif

// Without a vector FMA the host's peak is its scalar multiply-add rate.
float FmaScalar(int64_t iterations) {
  float a[kChains];
  for (int k = 0; k < kChains; ++k) a[k] = 1.0f + 0.1f * k;
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < kChains; ++k) a[k] = a[k] * 0.999f + 0.001f;
  }
  float s = 0;
  for (float v : a) s += v;
  return s;
}

// The widest FMA the host has, as codegen sees the host.
int FmaVectorBits() {
#if defined(__x86_64__)
  codegen::Target host = codegen::Target::Host();
  if (host.HasFeature("avx512f")) return 512;
  if (host.HasFeature("avx2") && host.HasFeature("fma")) return 256;
#endif
  return 32;
}

float RunFma(int vector_bits, int64_t iterations) {
#if defined(__x86_64__)
  if (vector_bits == 512) return Fma512(iterations);
  if (vector_bits == 256) return Fma256(iterations);
#endif
  return FmaScalar(iterations);
}

// --- The triad kernels ---------------------------------------------------------------------------

// out[i] = x[i] + s * y[i] in the widest registers the host has (the cache's bandwidth needs
// full-width loads; a compiler does not vectorize a loop whose pointers may alias at -O2). The
// arrays' length is a multiple of 16.
#if defined(__x86_64__)
__attribute__((target("avx512f"))) void Triad512(float* out, const float* x, const float* y,
                                                 size_t n, float s) {
  const __m512 k = _mm512_set1_ps(s);
  for (size_t i = 0; i < n; i += 16) {
    _mm512_storeu_ps(
        out + i, _mm512_add_ps(_mm512_loadu_ps(x + i), _mm512_mul_ps(k, _mm512_loadu_ps(y + i))));
  }
}

__attribute__((target("avx"))) void Triad256(float* out, const float* x, const float* y, size_t n,
                                             float s) {
  const __m256 k = _mm256_set1_ps(s);
  for (size_t i = 0; i < n; i += 8) {
    _mm256_storeu_ps(
        out + i, _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_mul_ps(k, _mm256_loadu_ps(y + i))));
  }
}
#endif

void TriadScalar(float* __restrict out, const float* __restrict x, const float* __restrict y,
                 size_t n, float s) {
  for (size_t i = 0; i < n; ++i) out[i] = x[i] + s * y[i];
}

void Triad(int vector_bits, float* out, const float* x, const float* y, size_t n, float s) {
#if defined(__x86_64__)
  if (vector_bits == 512) return Triad512(out, x, y, n, s);
  if (vector_bits == 256) return Triad256(out, x, y, n, s);
#endif
  TriadScalar(out, x, y, n, s);
}

volatile float g_sink = 0;

double Seconds(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The best of `repeats` runs of `work` on `threads` threads (the first run warms up and does not
// count), in seconds.
template <typename Work>
double BestSeconds(runtime::ThreadPool& pool, int threads, int repeats, const Work& work) {
  double best = 0;
  for (int r = 0; r <= repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    pool.Launch(threads, [&](int task) {
      work(task);
      return 0;
    });
    double s = Seconds(start);
    if (r > 0 && (best == 0 || s < best)) best = s;
  }
  return best;
}

// About 4 M iterations of 12 vector FMAs: a few milliseconds a run.
double FmaGflops(runtime::ThreadPool& pool, int threads, int vector_bits) {
  const int64_t iterations = vector_bits == 32 ? (1 << 20) : (1 << 22);
  const int lanes = vector_bits / 32;
  double s = BestSeconds(pool, threads, 5,
                         [&](int) { g_sink = g_sink + RunFma(vector_bits, iterations); });
  double flops = 2.0 * kChains * lanes * static_cast<double>(iterations) * threads;
  return flops / s / 1e9;
}

// STREAM's triad over arrays far larger than the caches, split among the threads.
double TriadGbytesPerS(runtime::ThreadPool& pool, int threads, int vector_bits,
                       std::vector<float>& a, const std::vector<float>& b,
                       const std::vector<float>& c) {
  const size_t n = a.size();
  double s = BestSeconds(pool, threads, 4, [&](int task) {
    size_t begin = n / 16 * task / threads * 16, end = n / 16 * (task + 1) / threads * 16;
    Triad(vector_bits, a.data() + begin, b.data() + begin, c.data() + begin, end - begin, 3.0f);
  });
  return 3.0 * sizeof(float) * static_cast<double>(n) / s / 1e9;
}

// The triad again and again over arrays that stay in each thread's L2: each thread its own arrays,
// its passes alternating which one they write (so none can be skipped), `bytes` in all.
double CacheTriadGbytesPerS(runtime::ThreadPool& pool, int threads, int vector_bits,
                            int64_t l2_bytes) {
  const size_t n =
      std::max<size_t>(1024, static_cast<size_t>(l2_bytes) / 2 / 3 / sizeof(float)) / 16 * 16;
  std::vector<std::vector<float>> arrays(3 * threads);
  for (auto& a : arrays) a.assign(n, 1.0f);
  const int passes =
      static_cast<int>(std::max<int64_t>(1, (int64_t(256) << 20) / (3 * sizeof(float) * n)));
  double s = BestSeconds(pool, threads, 4, [&](int task) {
    float* a = arrays[3 * task].data();
    float* b = arrays[3 * task + 1].data();
    const float* c = arrays[3 * task + 2].data();
    for (int p = 0; p < passes; ++p) {
      Triad(vector_bits, p % 2 ? b : a, p % 2 ? a : b, c, n, 0.5f);
    }
  });
  for (const auto& a : arrays) g_sink = g_sink + a[n / 2];
  return 3.0 * sizeof(float) * static_cast<double>(n) * passes * threads / s / 1e9;
}

std::string NowUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

int ThreadsOrPool(int threads) {
  return threads > 0 ? threads : runtime::ThreadPool::GlobalNumThreads();
}

nlohmann::json ReadCache(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

// Replaces this host's entry; the other hosts' entries stay (a home directory shared by machines).
void WriteCache(const HostPeaks& peaks, std::string* warning) {
  namespace fs = std::filesystem;
  const std::string path = HostPeaksCachePath();
  auto warn = [&](const std::string& why) {
    if (warning) *warning = "the peaks are not cached: " + why;
  };
  if (path.empty()) return warn("neither XDG_CACHE_HOME nor HOME is set");
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec)
    return warn("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
  nlohmann::json doc = ReadCache(path);
  if (!doc.contains("hosts") || !doc["hosts"].is_object()) doc["hosts"] = nlohmann::json::object();
  doc["hosts"][HostPeaksKey(peaks.cpu, peaks.threads)] = ToJson(peaks);
  // Written aside and renamed, so a reader never sees half a file.
  std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << doc.dump(2) << "\n";
    if (!out) return warn("cannot write " + temporary);
  }
  fs::rename(temporary, path, ec);
  if (ec) warn("cannot replace " + path + ": " + ec.message());
}

std::mutex& PeaksMutex() {
  static std::mutex mutex;
  return mutex;
}

HostPeaks MeasureLocked(int threads, std::string* warning) {
  HostPeaks peaks;
  peaks.cpu = HostCpuModel();
  peaks.threads = ThreadsOrPool(threads);
  peaks.vector_bits = FmaVectorBits();
  peaks.measured_at = NowUtc();
  runtime::ThreadPool one(1), all(peaks.threads);
  peaks.gflops_1 = FmaGflops(one, 1, peaks.vector_bits);
  peaks.gflops_all = FmaGflops(all, peaks.threads, peaks.vector_bits);
  // 3 x 64 MiB: past the 32 MiB last-level caches of current server CPUs.
  const size_t n = size_t(16) << 20;
  std::vector<float> a(n, 0.0f), b(n, 1.0f), c(n, 2.0f);
  peaks.gbytes_per_s_1 = TriadGbytesPerS(one, 1, peaks.vector_bits, a, b, c);
  peaks.gbytes_per_s_all = TriadGbytesPerS(all, peaks.threads, peaks.vector_bits, a, b, c);
  g_sink = g_sink + a[n / 2];
  peaks.cache_bytes = codegen::Target::Host().l2_cache_bytes;
  peaks.cache_gbytes_per_s_1 = CacheTriadGbytesPerS(one, 1, peaks.vector_bits, peaks.cache_bytes);
  peaks.cache_gbytes_per_s_all =
      CacheTriadGbytesPerS(all, peaks.threads, peaks.vector_bits, peaks.cache_bytes);
  WriteCache(peaks, warning);
  return peaks;
}

}  // namespace

nlohmann::json ToJson(const HostPeaks& p) {
  return {{"cpu", p.cpu},
          {"threads", p.threads},
          {"vector_bits", p.vector_bits},
          {"gflops_1", p.gflops_1},
          {"gflops_all", p.gflops_all},
          {"gbytes_per_s_1", p.gbytes_per_s_1},
          {"gbytes_per_s_all", p.gbytes_per_s_all},
          {"cache_bytes", p.cache_bytes},
          {"cache_gbytes_per_s_1", p.cache_gbytes_per_s_1},
          {"cache_gbytes_per_s_all", p.cache_gbytes_per_s_all},
          {"measured_at", p.measured_at}};
}

std::optional<HostPeaks> HostPeaksFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  HostPeaks p;
  p.cpu = j.value("cpu", "");
  p.threads = j.value("threads", 0);
  p.vector_bits = j.value("vector_bits", 0);
  p.measured_at = j.value("measured_at", "");
  for (auto [name, field] :
       {std::pair{"gflops_1", &p.gflops_1}, std::pair{"gflops_all", &p.gflops_all},
        std::pair{"gbytes_per_s_1", &p.gbytes_per_s_1},
        std::pair{"gbytes_per_s_all", &p.gbytes_per_s_all},
        std::pair{"cache_gbytes_per_s_1", &p.cache_gbytes_per_s_1},
        std::pair{"cache_gbytes_per_s_all", &p.cache_gbytes_per_s_all}}) {
    if (!j.contains(name) || !j[name].is_number()) return std::nullopt;
    *field = j[name].get<double>();
    if (!std::isfinite(*field) || *field <= 0) return std::nullopt;
  }
  p.cache_bytes = j.value("cache_bytes", int64_t(0));
  if (p.threads < 1 || p.cache_bytes < 1) return std::nullopt;
  return p;
}

std::string HostPeaksCachePath() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return (std::filesystem::path(xdg) / "workbench" / "host_peaks.json").string();
  const char* home = std::getenv("HOME");
  if (home && *home)
    return (std::filesystem::path(home) / ".cache" / "workbench" / "host_peaks.json").string();
  return "";
}

std::string HostPeaksKey(const std::string& cpu, int threads) {
  return cpu + " x" + std::to_string(threads);
}

std::string HostCpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string model = line.substr(colon + 1);
    model.erase(0, model.find_first_not_of(" \t"));
    if (!model.empty()) return model;
  }
  return codegen::Target::Host().mcpu;
}

HostPeaks MeasureHostPeaks(int threads, std::string* warning) {
  std::lock_guard<std::mutex> lock(PeaksMutex());
  return MeasureLocked(threads, warning);
}

HostPeaks HostPeaksFor(int threads, std::string* warning) {
  std::lock_guard<std::mutex> lock(PeaksMutex());
  const int n = ThreadsOrPool(threads);
  const std::string path = HostPeaksCachePath();
  if (!path.empty()) {
    nlohmann::json doc = ReadCache(path);
    const std::string key = HostPeaksKey(HostCpuModel(), n);
    if (doc.contains("hosts") && doc["hosts"].is_object() && doc["hosts"].contains(key)) {
      if (auto cached = HostPeaksFromJson(doc["hosts"][key])) {
        cached->from_cache = true;
        return *cached;
      }
    }
  }
  return MeasureLocked(n, warning);
}

}  // namespace wb::workbench
