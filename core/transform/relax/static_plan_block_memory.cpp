#include "transform/relax/static_plan_block_memory.h"

#include <algorithm>
#include <unordered_map>

#include "relax/block_builder.h"
#include "relax/op/registry.h"
#include "tir/expr.h"
#include "tir/stmt.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

// One planned allocation: an R.builtin.alloc_tensor of static shape and its aliases.
struct Token {
  Var alloc_var;
  std::vector<int64_t> shape;
  DataType dtype;
  int64_t bytes = 0;
  size_t def = 0;       // the binding that allocates it
  size_t last_use = 0;  // the last binding that reads it (the alloc itself when none does)
  bool escapes = false;
  int storage = -1;
};

struct Storage {
  DataType dtype;
  int64_t bytes = 0;
  bool free = false;
  Var var;  // set when emitted
};

// The static shape and dtype of an R.builtin.alloc_tensor in global memory; false otherwise.
bool StaticAlloc(const Expr& value, Token* token) {
  auto* call = value.as<CallNode>();
  auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
  if (!op || op->name != "relax.builtin.alloc_tensor" || call->args.size() < 2) return false;
  if (call->args.size() > 3) {
    auto* scope = call->args[3].as<StringImmNode>();
    if (!scope || scope->value != "global") return false;
  }
  auto* shape = call->args[0].as<ShapeExprNode>();
  auto* dtype = call->args[1].as<DataTypeImmNode>();
  if (!shape || !dtype) return false;
  int64_t elements = 1;
  for (const auto& d : shape->values) {
    const int64_t* v = tir::AsConstInt(d);
    if (!v || *v < 0) return false;
    token->shape.push_back(*v);
    elements *= *v;
  }
  token->dtype = dtype->value;
  token->bytes = elements * dtype->value.bytes() * dtype->value.lanes();
  return true;
}

class Planner : public RelaxExprMutator {
 public:
  explicit Planner(ir::IRModule module) : module_(std::move(module)), builder_(module_) {}

  Expr VisitSeqExpr(const SeqExprNode* node) override {
    Expr visited = RelaxExprMutator::VisitSeqExpr(node);  // nested sequences (If branches) first
    auto* seq = visited.as<SeqExprNode>();
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (size_t b = 0; b < seq->blocks.size(); ++b) {
      const BindingBlock& block = seq->blocks[b];
      if (block.as<DataflowBlockNode>()) {  // impure kills have no place there
        blocks.push_back(block);
        continue;
      }
      // What the other blocks and the result read: a tensor they see escapes this block.
      std::unordered_map<const VarNode*, int> outside;
      for (size_t o = 0; o < seq->blocks.size(); ++o) {
        if (o == b) continue;
        for (const Binding& binding : seq->blocks[o]->bindings) CollectVarUses(BoundValue(binding), &outside);
      }
      CollectVarUses(seq->body, &outside);
      BindingBlock planned = PlanBlock(block, outside);
      changed |= !planned.same_as(block);
      blocks.push_back(planned);
    }
    if (!changed) return visited;
    SeqExpr out = GetRef(seq);
    out.CopyOnWrite()->blocks = std::move(blocks);
    return out;
  }

 private:
  static Expr BoundValue(const Binding& binding) {
    if (auto* vb = binding.as<VarBindingNode>()) return vb->value;
    return binding.as<MatchCastNode>()->value;
  }

  bool IsPrimFuncCall(const CallNode* call) const {
    auto* gv = call->op.as<ir::GlobalVarNode>();
    if (!gv) return false;
    ir::BaseFunc f = module_->Lookup(GetRef(gv));
    return f.defined() && f.as<tir::PrimFuncNode>();
  }

  BindingBlock PlanBlock(const BindingBlock& block, const std::unordered_map<const VarNode*, int>& outside) {
    const std::vector<Binding>& bindings = block->bindings;
    std::vector<Token> tokens;
    std::unordered_map<const VarNode*, size_t> token_of;  // alloc vars and their aliases
    auto escape_all = [&](const Expr& e) {
      std::unordered_map<const VarNode*, int> uses;
      CollectVarUses(e, &uses);
      for (const auto& [v, n] : uses) {
        if (auto it = token_of.find(v); it != token_of.end()) tokens[it->second].escapes = true;
      }
    };
    // Liveness and escapes.
    for (size_t i = 0; i < bindings.size(); ++i) {
      auto* vb = bindings[i].as<VarBindingNode>();
      Token t;
      if (vb && StaticAlloc(vb->value, &t)) {
        t.alloc_var = vb->var;
        t.def = t.last_use = i;
        token_of[vb->var.get()] = tokens.size();
        tokens.push_back(std::move(t));
        continue;
      }
      if (auto* alias = vb ? vb->value.as<VarNode>() : nullptr) {
        if (auto it = token_of.find(alias); it != token_of.end()) {
          token_of[vb->var.get()] = it->second;
          tokens[it->second].last_use = i;
          continue;
        }
      }
      auto* call = vb ? vb->value.as<CallNode>() : nullptr;
      if (call && IsPrimFuncCall(call)) {
        for (const Expr& a : call->args) {
          auto* v = a.as<VarNode>();
          auto it = v ? token_of.find(v) : token_of.end();
          if (it != token_of.end()) {
            tokens[it->second].last_use = i;
          } else {
            escape_all(a);
          }
        }
        continue;
      }
      escape_all(BoundValue(bindings[i]));
    }
    for (const auto& [v, n] : outside) {
      if (auto it = token_of.find(v); it != token_of.end()) tokens[it->second].escapes = true;
    }

    // Storage assignment in program order; a storage returns to the pool after the last use.
    std::vector<Storage> storages;
    std::vector<std::vector<size_t>> dying(bindings.size());
    size_t planned = 0;
    for (size_t k = 0; k < tokens.size(); ++k) {
      if (!tokens[k].escapes) dying[tokens[k].last_use].push_back(k);
    }
    std::vector<size_t> by_def(bindings.size(), SIZE_MAX);
    for (size_t k = 0; k < tokens.size(); ++k) by_def[tokens[k].def] = k;
    for (size_t i = 0; i < bindings.size(); ++i) {
      if (size_t k = by_def[i]; k != SIZE_MAX && !tokens[k].escapes) {
        Token& t = tokens[k];
        int fit = -1, largest = -1;
        for (size_t s = 0; s < storages.size(); ++s) {
          const Storage& st = storages[s];
          if (!st.free || st.dtype != t.dtype) continue;
          if (st.bytes >= t.bytes && (fit < 0 || st.bytes < storages[fit].bytes)) fit = int(s);
          if (largest < 0 || st.bytes > storages[largest].bytes) largest = int(s);
        }
        int s = fit >= 0 ? fit : largest;
        if (s < 0) {
          storages.push_back({t.dtype, t.bytes, false, {}});
          s = int(storages.size()) - 1;
        }
        storages[s].free = false;
        storages[s].bytes = std::max(storages[s].bytes, t.bytes);
        t.storage = s;
        ++planned;
      }
      for (size_t k : dying[i]) storages[tokens[k].storage].free = true;
    }
    if (planned == 0) return block;

    // The rewritten block.
    std::vector<Binding> out;
    auto i64 = [](int64_t v) { return tir::MakeIntImm(DataType::Int(64), v); };
    auto emit = [&](const std::string& name, const Expr& value, const Span& span) {
      Expr typed = builder_.Normalize(value);
      if (builder_.diagnostics().HasErrors()) throw ir::PassError(builder_.diagnostics()[0]);
      Var v = MakeVar(name, GetType(typed), span);
      out.push_back(MakeVarBinding(v, typed, span));
      return v;
    };
    for (size_t i = 0; i < bindings.size(); ++i) {
      const Span& span = bindings[i]->span;
      size_t k = by_def[i];
      if (k == SIZE_MAX || tokens[k].escapes) {
        out.push_back(bindings[i]);
      } else {
        const Token& t = tokens[k];
        Storage& st = storages[t.storage];
        if (!st.var.defined()) {
          st.var = emit(NextStorageName(),
                        MakeOpCall("relax.memory.alloc_storage",
                                   {MakeShapeExpr({i64(st.bytes)}), MakePrimValue(i64(0)), MakeStringImm("global"),
                                    MakeDataTypeImm(st.dtype)},
                                   {}, {}, span),
                        span);
        }
        std::vector<ir::PrimExpr> dims;
        for (int64_t d : t.shape) dims.push_back(i64(d));
        Expr alloc = builder_.Normalize(MakeOpCall(
            "relax.memory.alloc_tensor",
            {st.var, MakePrimValue(i64(0)), MakeShapeExpr(std::move(dims)), MakeDataTypeImm(t.dtype)}, {}, {}, span));
        out.push_back(MakeVarBinding(t.alloc_var, alloc, span));
      }
      for (size_t d : dying[i]) emit("_", MakeOpCall("relax.memory.kill_tensor", {tokens[d].alloc_var}, {}, {}, span), span);
    }
    for (const Storage& st : storages) {
      emit("_", MakeOpCall("relax.memory.kill_storage", {st.var}, {}, {}, block->span), block->span);
    }
    return RebuildBlock(block, std::move(out));
  }

  std::string NextStorageName() {
    std::string name = next_storage_ == 0 ? "storage" : "storage" + std::to_string(next_storage_);
    ++next_storage_;
    return name;
  }

  ir::IRModule module_;
  BlockBuilder builder_;
  int next_storage_ = 0;
};

}  // namespace

ir::Pass StaticPlanBlockMemory() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(Planner(module).VisitExpr(f));
        });
      },
      0, "StaticPlanBlockMemory");
}

static PassRegistrar registrar(
    {"StaticPlanBlockMemory",
     "reuses storage between the static-shape tensors of a binding block by liveness, size and dtype "
     "(R.memory.alloc_storage / alloc_tensor / kill_*; after CallTIRRewrite) (Relax)",
     {},
     [](const PassArgs&) { return StaticPlanBlockMemory(); }});

}  // namespace wb::transform
