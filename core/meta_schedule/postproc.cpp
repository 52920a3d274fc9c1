#include "meta_schedule/postproc.h"

#include <optional>

#include "ir/object.h"
#include "tir/functor.h"

namespace wb::meta_schedule {

using schedule::LoopRV;
using schedule::SBlockRV;
using schedule::Schedule;

namespace {

const tir::SBlockRealizeNode* Root(const Schedule& sch) {
  return dynamic_cast<const tir::SBlockRealizeNode*>(sch.Func()->body.get());
}

std::optional<int64_t> IntAnnotation(const ir::AttrMap& annotations, const std::string& key) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return std::nullopt;
  if (auto* i = dynamic_cast<const ir::IntObj*>(it->second.get())) return i->value;
  return std::nullopt;
}

// The realizes directly under a statement (not inside a nested block).
void CollectRealizes(const tir::Stmt& stmt, std::vector<const tir::SBlockRealizeNode*>* out) {
  if (!stmt.defined()) return;
  if (auto* r = dynamic_cast<const tir::SBlockRealizeNode*>(stmt.get())) {
    out->push_back(r);
    return;
  }
  if (auto* f = dynamic_cast<const tir::ForNode*>(stmt.get())) return CollectRealizes(f->body, out);
  if (auto* s = dynamic_cast<const tir::SeqStmtNode*>(stmt.get())) {
    for (const auto& x : s->seq) CollectRealizes(x, out);
    return;
  }
  if (auto* i = dynamic_cast<const tir::IfThenElseNode*>(stmt.get())) {
    CollectRealizes(i->then_case, out);
    return;
  }
  if (auto* a = dynamic_cast<const tir::AttrStmtNode*>(stmt.get())) return CollectRealizes(a->body, out);
}

bool Uses(const ir::PrimExpr& e, const tir::Var& var) {
  bool found = false;
  tir::PostOrderVisit(e, [&](const ir::Object* node) { found |= node == var.get(); });
  return found;
}

// Every block under `loop` binds the loop's variable to data-parallel iterators only.
bool DrivesSpatialOnly(const tir::For& loop) {
  std::vector<const tir::SBlockRealizeNode*> realizes;
  CollectRealizes(loop->body, &realizes);
  if (realizes.empty()) return false;
  for (const auto* r : realizes) {
    for (size_t k = 0; k < r->iter_values.size(); ++k) {
      if (Uses(r->iter_values[k], loop->loop_var) &&
          r->block->iter_vars[k]->iter_type != tir::IterVarType::kDataPar) {
        return false;
      }
    }
    if (r->predicate.defined() && Uses(r->predicate, loop->loop_var)) return false;
  }
  return true;
}

// The top-level loop nests of the root: for each, a leaf block in it (whose loops name them).
std::vector<std::string> NestLeaders(const Schedule& sch) {
  std::vector<std::string> out;
  const tir::SBlockRealizeNode* root = Root(sch);
  if (!root) return out;
  std::vector<tir::Stmt> nests;
  if (auto* s = dynamic_cast<const tir::SeqStmtNode*>(root->block->body.get())) {
    nests = s->seq;
  } else {
    nests = {root->block->body};
  }
  for (const auto& nest : nests) {
    if (!dynamic_cast<const tir::ForNode*>(nest.get())) continue;
    std::vector<const tir::SBlockRealizeNode*> realizes;
    CollectRealizes(nest, &realizes);
    if (!realizes.empty()) out.push_back(realizes.front()->block->name_hint);
  }
  return out;
}

void Parallelize(Schedule& sch, const std::string& leader, int64_t limit) {
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock(leader));
  std::vector<LoopRV> chosen;
  int64_t product = 1;
  for (size_t i = 0; i < loops.size(); ++i) {
    tir::For f = sch.Get(loops[i]);
    const int64_t* extent = tir::AsConstInt(f->extent);
    if (!extent || f->kind != tir::ForKind::kSerial || !DrivesSpatialOnly(f)) break;
    if (!chosen.empty() && product * *extent > limit) break;
    chosen.push_back(loops[i]);
    product *= *extent;
    // The next loop must be this one's whole body to be fused with it.
    if (!dynamic_cast<const tir::ForNode*>(f->body.get())) break;
  }
  if (chosen.empty() || product < 2) return;
  try {
    LoopRV loop = chosen.size() == 1 ? chosen[0] : sch.Fuse(chosen);
    sch.Parallel(loop);
  } catch (const std::exception&) {
  }
}

void Vectorize(Schedule& sch, const std::string& block, int64_t limit) {
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock(block));
  if (loops.empty()) return;
  tir::For f = sch.Get(loops.back());
  const int64_t* extent = tir::AsConstInt(f->extent);
  if (!extent || *extent < 2 || *extent > limit || f->kind != tir::ForKind::kSerial) return;
  if (!dynamic_cast<const tir::SBlockRealizeNode*>(f->body.get()) || !DrivesSpatialOnly(f)) return;
  try {
    sch.Vectorize(loops.back());
  } catch (const std::exception&) {
  }
}

std::vector<std::string> AllBlocks(const Schedule& sch) {
  std::vector<std::string> out;
  const tir::SBlockRealizeNode* root = Root(sch);
  tir::PostOrderVisit(sch.Func()->body, [&](const ir::Object* node) {
    if (auto* b = dynamic_cast<const tir::SBlockNode*>(node)) {
      if (!root || b != root->block.get()) out.push_back(b->name_hint);
    }
  });
  return out;
}

}  // namespace

bool RewriteParallelVectorizeUnroll(Schedule& sch, std::string* error) {
  const tir::SBlockRealizeNode* root = Root(sch);
  if (!root) return true;
  // Copies: the primitives below replace the function these nodes belong to.
  const ir::AttrMap ann = root->block->annotations;
  const std::string root_name = root->block->name_hint;
  std::optional<int64_t> parallel = IntAnnotation(ann, "meta_schedule.parallel");
  std::optional<int64_t> vectorize = IntAnnotation(ann, "meta_schedule.vectorize");
  std::optional<int64_t> unroll = IntAnnotation(ann, "meta_schedule.unroll_explicit");
  for (const char* key : {"meta_schedule.parallel", "meta_schedule.vectorize",
                          "meta_schedule.unroll_explicit"}) {
    if (ann.count(key) && !IntAnnotation(ann, key)) {
      *error = std::string("RewriteParallelVectorizeUnroll: the annotation ") + key +
               " is not an integer";
      return false;
    }
  }
  if (!parallel && !vectorize && !unroll) return true;
  SBlockRV root_rv = sch.GetSBlock(root_name);
  for (const char* key : {"meta_schedule.parallel", "meta_schedule.vectorize",
                          "meta_schedule.unroll_explicit"}) {
    if (ann.count(key)) sch.Unannotate(root_rv, key);
  }
  if (parallel && *parallel > 1) {
    for (const std::string& leader : NestLeaders(sch)) Parallelize(sch, leader, *parallel);
  }
  if (vectorize && *vectorize > 1) {
    for (const std::string& block : AllBlocks(sch)) Vectorize(sch, block, *vectorize);
  }
  if (unroll && *unroll > 0) {
    for (const std::string& leader : NestLeaders(sch)) {
      std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock(leader));
      if (loops.empty()) continue;
      sch.Annotate(loops.front(), "pragma_auto_unroll_max_step", ir::MakeInt(*unroll));
      sch.Annotate(loops.front(), "pragma_unroll_explicit", ir::MakeInt(1));
    }
  }
  return true;
}

bool RewriteReductionBlock(Schedule& sch, std::string* error) {
  for (const std::string& name : AllBlocks(sch)) {
    SBlockRV rv = sch.GetSBlock(name);
    tir::SBlock block = sch.Get(rv);
    if (!block->init.defined()) continue;
    std::vector<LoopRV> loops = sch.GetLoops(rv);
    // The realize's bindings: found under the innermost loop.
    std::vector<const tir::SBlockRealizeNode*> realizes;
    if (loops.empty()) continue;
    CollectRealizes(sch.Get(loops.back())->body, &realizes);
    const tir::SBlockRealizeNode* realize = nullptr;
    for (const auto* r : realizes) {
      if (r->block->name_hint == name) realize = r;
    }
    if (!realize) continue;
    std::optional<LoopRV> at;
    for (const LoopRV& loop : loops) {
      tir::For f = sch.Get(loop);
      for (size_t k = 0; k < realize->iter_values.size() && !at; ++k) {
        if (block->iter_vars[k]->iter_type == tir::IterVarType::kCommReduce &&
            Uses(realize->iter_values[k], f->loop_var)) {
          at = loop;
        }
      }
      if (at) break;
    }
    if (!at) continue;
    bool cross_thread = false;
    for (const LoopRV& loop : loops) {
      tir::For f = sch.Get(loop);
      if (f->kind != tir::ForKind::kThreadBinding) continue;
      for (size_t k = 0; k < realize->iter_values.size(); ++k) {
        cross_thread |= block->iter_vars[k]->iter_type == tir::IterVarType::kCommReduce &&
                        Uses(realize->iter_values[k], f->loop_var);
      }
    }
    if (cross_thread) continue;
    try {
      sch.DecomposeReduction(rv, *at);
    } catch (const std::exception& e) {
      *error = "RewriteReductionBlock: " + std::string(e.what());
      return false;
    }
  }
  return true;
}

bool ApplyCpuPostprocs(Schedule& sch, std::string* error) {
  return RewriteParallelVectorizeUnroll(sch, error) && RewriteReductionBlock(sch, error);
}

bool ApplyPostprocs(Schedule& sch, const SpaceOptions& options, std::string* error,
                    ir::IRModule* lowered) {
  return options.cuda ? ApplyCudaPostprocs(sch, options, error, lowered)
                      : ApplyCpuPostprocs(sch, error);
}

}  // namespace wb::meta_schedule
