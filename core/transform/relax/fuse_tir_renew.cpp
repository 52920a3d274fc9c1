#include "transform/relax/fuse_tir_renew.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/structural_equal.h"
#include "tir/renew_defs.h"

namespace wb::transform::fuse {

using namespace tir;

std::string MatchShape(const std::vector<PrimExpr>& from, const std::vector<PrimExpr>& to,
                       std::unordered_map<const VarNode*, PrimExpr>* var_map) {
  if (from.size() != to.size()) {
    return "rank " + std::to_string(from.size()) + " vs " + std::to_string(to.size());
  }
  for (size_t i = 0; i < from.size(); ++i) {
    if (auto* v = from[i].as<VarNode>()) {
      auto it = var_map->find(v);
      if (it == var_map->end()) {
        (*var_map)[v] = to[i];
        continue;
      }
      if (ir::StructuralEqual(it->second, to[i], false)) continue;
      return "dim " + std::to_string(i) + " binds " + v->name_hint + " twice";
    }
    const int64_t* a = AsConstInt(from[i]);
    const int64_t* b = AsConstInt(to[i]);
    if (a && b) {
      if (*a == *b) continue;
      return "dim " + std::to_string(i) + ": " + std::to_string(*a) + " vs " + std::to_string(*b);
    }
    tir::DefRenewer subst;
    subst.var_map = *var_map;
    if (!ir::StructuralEqual(subst.VisitExpr(from[i]), to[i], false)) {
      return "dim " + std::to_string(i) + " does not match";
    }
  }
  return "";
}

namespace {

class BlockNameDeduplicator : public StmtMutator {
 public:
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt_(const SBlockNode* op) override {
    Stmt visited = StmtMutator::VisitStmt_(op);
    SBlock block = Downcast<SBlockNode>(visited);
    std::string name = UniqueName(block->name_hint);
    if (name == block->name_hint) return block;
    block.CopyOnWrite()->name_hint = name;
    return block;
  }

 private:
  std::string UniqueName(const std::string& prefix) {
    std::string unique = prefix;
    int& count = counts_[prefix];
    while (used_.count(unique)) unique = prefix + "_" + std::to_string(++count);
    used_.insert(unique);
    return unique;
  }
  std::unordered_map<std::string, int> counts_;
  std::unordered_set<std::string> used_;
};

}  // namespace

Stmt DeduplicateBlockNames(const Stmt& body) { return BlockNameDeduplicator()(body); }

}  // namespace wb::transform::fuse
