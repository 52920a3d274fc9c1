#include "transform/instrument.h"

#include <algorithm>

#include "ir/structural_hash.h"
#include "relax/well_formed.h"
#include "script/tvmscript.h"
#include "tir/verifier.h"

namespace wb::transform {

std::string PassSnapshot::BeforeText() const { return script::PrintModule(before); }
std::string PassSnapshot::AfterText() const { return script::PrintModule(after); }

void SnapshotInstrument::RunBeforePass(const ir::IRModule& module, const ir::PassInfo& info) {
  PassSnapshot snap;
  snap.index = static_cast<int>(snapshots_.size());
  snap.name = info.name;
  snap.before = module;
  // In a pipeline the module a pass gets is the one the previous pass returned: hashed already.
  bool known = !snapshots_.empty() && snapshots_.back().after.same_as(module);
  snap.hash_before = known ? snapshots_.back().hash_after : ir::StructuralHash(module);
  snapshots_.push_back(std::move(snap));
  start_ = std::chrono::steady_clock::now();
}

void SnapshotInstrument::RunAfterPass(const ir::IRModule& module, const ir::PassInfo& info) {
  auto stop = std::chrono::steady_clock::now();
  PassSnapshot& snap = snapshots_.back();
  snap.milliseconds = std::chrono::duration<double, std::milli>(stop - start_).count();
  snap.after = module;
  // An untouched module is the same object: no need to hash it again.
  snap.hash_after = module.same_as(snap.before) ? snap.hash_before : ir::StructuralHash(module);
}

void WellFormedInstrument::RunAfterPass(const ir::IRModule& module, const ir::PassInfo& info) {
  // Both levels, as every pass may rewrite either: TensorIR's verifier, then Relax's.
  DiagnosticList findings = tir::VerifyWellFormed(module);
  findings.Append(relax::VerifyWellFormed(module));
  if (!findings.HasErrors()) return;
  // The first error is the headline, at its place in the source (where the pass left the
  // node's span); every other finding follows as a note, each said once.
  size_t first = 0;
  while (findings[first].severity != Severity::kError) ++first;
  Diagnostic error = Diagnostic::Error("pass '" + info.name + "' produced ill-formed IR: " +
                                           findings[first].message,
                                       findings[first].span);
  for (size_t i = 0; i < findings.size(); ++i) {
    if (i != first) error.Note(findings[i].message, findings[i].span);
  }
  throw ir::PassError(std::move(error));
}

int CountPasses(const ir::Pass& pass, const ir::PassContext& context) {
  if (!pass.is_sequential()) return context.PassEnabled(pass.info()) ? 1 : 0;
  int n = 0;
  for (const auto& member : pass.members()) n += CountPasses(member, context);
  return n;
}

void ProgressInstrument::StopIfAsked() {
  if (should_stop_ && should_stop_()) throw PipelineCancelled();
}

bool ProgressInstrument::ShouldRun(const ir::IRModule&, const ir::PassInfo& info) {
  StopIfAsked();
  // A required pass that a Sequential runs early may run again in its place: never report
  // "pass 14 of 13".
  if (started_ >= total_) total_ = started_ + 1;
  if (on_pass_) on_pass_(started_, total_, info.name);
  // Checked again so that a stop asked for from the callback takes effect before this pass.
  StopIfAsked();
  ++started_;
  return true;
}

std::string PipelineResult::CancelledMessage() const {
  if (!cancelled) return std::string();
  return "cancelled after " + std::to_string(snapshots.size()) + " of " +
         std::to_string(total_passes) + (total_passes == 1 ? " pass" : " passes");
}

PipelineResult RunPipeline(const ir::Pass& pass, const ir::IRModule& module,
                           const PipelineOptions& options) {
  PipelineResult result;
  result.module = module;
  auto snapshots = std::make_shared<SnapshotInstrument>();
  ir::PassContext context = ContextWith(options.control);
  context.instruments.clear();
  result.total_passes = CountPasses(pass, context);
  // First, so that a stop leaves no snapshot begun for a pass that never ran.
  auto progress = std::make_shared<ProgressInstrument>(result.total_passes, options.on_pass,
                                                       options.should_stop);
  context.instruments.push_back(progress);
  context.instruments.push_back(snapshots);
  if (options.verify) context.instruments.push_back(std::make_shared<WellFormedInstrument>());
  try {
    ir::PassContext::Scope scope(context);
    result.module = pass.Run(module, context);
  } catch (const PipelineCancelled&) {
    result.cancelled = true;
    result.total_passes = std::max(result.total_passes, progress->total());
    const auto& snaps = snapshots->snapshots();
    if (!snaps.empty()) result.module = snaps.back().after;
  } catch (const DiagnosticError& e) {
    Diagnostic d = e.diagnostic();
    const auto& snaps = snapshots->snapshots();
    if (!snaps.empty() && d.message.find("'" + snaps.back().name + "'") == std::string::npos) {
      d.message = "pass '" + snaps.back().name + "' failed: " + d.message;
    }
    if (!snaps.empty() && snaps.back().after.defined()) result.module = snaps.back().after;
    else if (!snaps.empty()) result.module = snaps.back().before;
    result.diagnostics.Add(std::move(d));
  } catch (const std::exception& e) {
    const auto& snaps = snapshots->snapshots();
    std::string where = snaps.empty() ? "the pipeline" : "pass '" + snaps.back().name + "'";
    result.diagnostics.Error(where + " failed with an internal error: " + e.what());
    if (!snaps.empty()) result.module = snaps.back().before;
  }
  result.snapshots = snapshots->snapshots();
  return result;
}

}  // namespace wb::transform
