// Relax pipeline cost (issue 5's benchmark): the pipeline on a generated 200-layer MLP and on a
// 2,000-binding chain, the time of each pass, and what per-pass snapshots (SnapshotInstrument:
// the module kept before and after every pass, with its structural hash) add, as a ratio to the
// same run without instruments. The bound: snapshots at most 2x.
// Usage: bench_pipeline [REPEATS] [PIPELINE]
//   PIPELINE defaults to the Relax passes of TVM's zero and default build pipelines plus the
//   general ones; names not registered in this build are skipped (and listed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

constexpr const char* kDefaultPasses[] = {
    "Normalize",    "CanonicalizeBindings", "EliminateCommonSubexpr", "LegalizeOps",
    "AnnotateTIROpPattern", "FoldConstant", "FuseOps",               "FuseTIR",
    "DeadCodeElimination",  "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite",
    "AttachGlobalSymbol"};

// x -> 200 x (matmul, add bias, relu), 64 wide, in one dataflow block.
std::string Mlp(int layers) {
  std::ostringstream s;
  s << "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 64), dtype=\"float32\")";
  for (int i = 0; i < layers; ++i) {
    s << ", w" << i << ": R.Tensor((64, 64), dtype=\"float32\"), b" << i
      << ": R.Tensor((64,), dtype=\"float32\")";
  }
  s << ") -> R.Tensor((1, 64), dtype=\"float32\"):\n        with R.dataflow():\n";
  std::string h = "x";
  for (int i = 0; i < layers; ++i) {
    s << "            mm" << i << " = R.matmul(" << h << ", w" << i << ")\n";
    s << "            ab" << i << " = R.add(mm" << i << ", b" << i << ")\n";
    s << "            h" << i << " = R.nn.relu(ab" << i << ")\n";
    h = "h" + std::to_string(i);
  }
  s << "            gv = " << h << "\n            R.output(gv)\n        return gv\n";
  return s.str();
}

// A chain of `bindings` element-wise ops on one small tensor.
std::string Chain(int bindings) {
  std::ostringstream s;
  s << "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((8, 8), dtype=\"float32\"), "
       "y: R.Tensor((8, 8), dtype=\"float32\")) -> R.Tensor((8, 8), dtype=\"float32\"):\n"
       "        with R.dataflow():\n";
  std::string prev = "x";
  const char* ops[] = {"add", "multiply", "subtract", "maximum"};
  for (int i = 0; i < bindings - 1; ++i) {
    s << "            v" << i << " = R." << ops[i % 4] << "(" << prev << ", y)\n";
    prev = "v" + std::to_string(i);
  }
  s << "            gv = R.nn.relu(" << prev << ")\n            R.output(gv)\n        return gv\n";
  return s.str();
}

// Per-pass wall time, without keeping anything.
class TimingInstrument : public wb::ir::PassInstrument {
 public:
  std::string name() const override { return "Timing"; }
  void RunBeforePass(const wb::ir::IRModule&, const wb::ir::PassInfo&) override { start_ = Clock::now(); }
  void RunAfterPass(const wb::ir::IRModule&, const wb::ir::PassInfo& info) override {
    times[info.name].push_back(Ms(start_, Clock::now()));
  }
  std::map<std::string, std::vector<double>> times;

 private:
  Clock::time_point start_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One run of `pass` on `module` under a context holding `instruments`; milliseconds.
double RunOnce(const wb::ir::Pass& pass, const wb::ir::IRModule& module,
               std::vector<std::shared_ptr<wb::ir::PassInstrument>> instruments) {
  wb::ir::PassContext context;
  context.instruments = std::move(instruments);
  auto t0 = Clock::now();
  wb::ir::PassContext::Scope scope(context);
  wb::ir::IRModule out = pass.Run(module, context);
  auto t1 = Clock::now();
  if (!out.defined()) std::abort();
  return Ms(t0, t1);
}

void Measure(const char* label, const std::string& text, const wb::ir::Pass& pass,
             const std::vector<std::string>& names, int repeats) {
  auto t0 = Clock::now();
  wb::script::ParseResult parsed = wb::script::Parse(text, label);
  auto t1 = Clock::now();
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: the generated module does not parse: %s\n", label,
                 parsed.diagnostics[0].message.c_str());
    std::exit(2);
  }
  std::printf("\n%s (%zu lines, parsed in %.1f ms)\n", label,
              size_t(std::count(text.begin(), text.end(), '\n')), Ms(t0, t1));
  std::vector<double> plain, snap;
  auto timing = std::make_shared<TimingInstrument>();
  size_t snapshot_count = 0;
  for (int r = 0; r < repeats; ++r) {
    plain.push_back(RunOnce(pass, parsed.module, {}));
    auto snapshots = std::make_shared<wb::transform::SnapshotInstrument>();
    snap.push_back(RunOnce(pass, parsed.module, {snapshots}));
    snapshot_count = snapshots->snapshots().size();
    RunOnce(pass, parsed.module, {timing});
  }
  for (const auto& name : names) {
    std::printf("  %-24s %9.2f ms\n", name.c_str(), Median(timing->times[name]));
  }
  double p = Median(plain), s = Median(snap);
  std::printf("  %-24s %9.2f ms\n", "pipeline", p);
  std::printf("  %-24s %9.2f ms  (%zu snapshots)  ratio %.2fx  (bound: 2x)\n", "with snapshots", s,
              snapshot_count, p > 0 ? s / p : 0);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  std::string text;
  std::vector<std::string> names, skipped;
  if (argc > 2) {
    text = argv[2];
  } else {
    for (const char* name : kDefaultPasses) {
      if (wb::transform::PassRegistry::Global().Find(name)) {
        text += (text.empty() ? "" : ", ") + std::string(name);
      } else {
        skipped.push_back(name);
      }
    }
  }
  wb::DiagnosticList diags;
  auto specs = wb::transform::ParsePipeline(text, diags);
  auto pass = wb::transform::BuildPipeline(text, diags);
  if (!specs || !pass) {
    std::fprintf(stderr, "bad pipeline: %s\n", diags.empty() ? "" : diags[0].message.c_str());
    return 2;
  }
  for (const auto& s : *specs) names.push_back(s.name);
  std::printf("pipeline: %s\n", text.c_str());
  if (!skipped.empty()) {
    std::printf("not in this build (skipped):");
    for (const auto& s : skipped) std::printf(" %s", s.c_str());
    std::printf("\n");
  }
  std::printf("median of %d runs\n", repeats);
  Measure("200-layer MLP", Mlp(200), *pass, names, repeats);
  Measure("2,000-binding chain", Chain(2000), *pass, names, repeats);
  return 0;
}
